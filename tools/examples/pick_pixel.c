/*
 * pick_pixel — what does the camera see at pixel (x, y)?
 *
 *   ./build/examples/pick_pixel data/spot.obj 512 512
 *
 * Loads an OBJ file, builds a BVH, places a camera that frames the model (the
 * camera of mq-pick --pixel: from the bounding box centre plus 1.2 diagonals
 * along (1, 0.6, 1.4), 45 degree vertical field of view, 1024x1024 image) and
 * casts the ray through the centre of the pixel. The hit is reported in the
 * file's own terms: OBJ face, the line of its `f` statement, its group and
 * material, plus t, the point and the normal.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <meshquery/meshquery.h>

#define IMAGE_SIZE 1024

static void normalize3(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++)
        v[k] /= l;
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The ray through the centre of pixel (px, py), (0, 0) = top left, of a pinhole
 * camera at `eye` looking at `target` with up (0, 1, 0). */
static mq_ray camera_ray(const double eye[3], const double target[3], double vfov_degrees, int px, int py)
{
    double fwd[3], right[3], up[3], world_up[3] = {0.0, 1.0, 0.0}, d[3];
    for (int k = 0; k < 3; k++)
        fwd[k] = target[k] - eye[k];
    normalize3(fwd);
    cross3(fwd, world_up, right);
    normalize3(right);
    cross3(right, fwd, up);
    double tan_half = tan(0.5 * vfov_degrees * 3.14159265358979323846 / 180.0);
    double sx = (2.0 * (px + 0.5) / IMAGE_SIZE - 1.0) * tan_half;
    double sy = (1.0 - 2.0 * (py + 0.5) / IMAGE_SIZE) * tan_half;
    for (int k = 0; k < 3; k++)
        d[k] = fwd[k] + sx * right[k] + sy * up[k];
    normalize3(d);
    mq_ray ray = {
        {(float)eye[0], (float)eye[1], (float)eye[2]}, 0.0f, {(float)d[0], (float)d[1], (float)d[2]}, INFINITY};
    return ray;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s MESH.obj X Y   (pixel of a %dx%d image, 0,0 = top left)\n", argv[0], IMAGE_SIZE,
                IMAGE_SIZE);
        return 2;
    }
    int px = atoi(argv[2]), py = atoi(argv[3]);

    mq_mesh *mesh = NULL;
    mq_bvh *bvh = NULL;
    mq_diag diag;
    if (mq_obj_load(argv[1], NULL, &mesh, NULL, &diag) != MQ_OK) {
        fprintf(stderr, "%s:%llu:%u: %s\n", diag.path, (unsigned long long)diag.line, diag.column, diag.message);
        return 1;
    }
    if (mq_bvh_build(mesh, NULL, &bvh, &diag) != MQ_OK) {
        fprintf(stderr, "build: %s\n", diag.message);
        mq_mesh_destroy(mesh);
        return 1;
    }

    /* Frame the model: bounding box of the vertices. */
    const float *pos = mq_mesh_positions(mesh);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < mq_mesh_vertex_count(mesh); i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], pos[3 * i + k]);
            hi[k] = fmax(hi[k], pos[3 * i + k]);
        }
    double target[3], eye[3], view[3] = {1.0, 0.6, 1.4}, diagonal = 0.0;
    normalize3(view);
    for (int k = 0; k < 3; k++) {
        target[k] = 0.5 * ((double)(float)lo[k] + (double)(float)hi[k]);
        diagonal += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    for (int k = 0; k < 3; k++)
        eye[k] = target[k] + 1.2 * sqrt(diagonal) * view[k];

    mq_ray ray = camera_ray(eye, target, 45.0, px, py);
    mq_hit hit;
    if (!mq_bvh_raycast_closest(bvh, &ray, NULL, &hit)) {
        printf("pixel (%d, %d): background\n", px, py);
    } else {
        mq_triangle_source src;
        mq_mesh_triangle_source(mesh, hit.triangle, &src);
        printf("pixel (%d, %d) hits triangle %u (face %u, OBJ line %llu) at t=%.6f\n", px, py, hit.triangle, src.face,
               (unsigned long long)src.line, hit.t);
        printf("  point (%.5f, %.5f, %.5f), normal (%.4f, %.4f, %.4f), %s face\n", hit.point[0], hit.point[1],
               hit.point[2], hit.normal[0], hit.normal[1], hit.normal[2], hit.back_face ? "back" : "front");
        printf("  group \"%s\", object \"%s\", material \"%s\"\n", src.group, src.object, src.material);
    }
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
    return 0;
}
