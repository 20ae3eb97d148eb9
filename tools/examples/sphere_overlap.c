/*
 * sphere_overlap — which triangles does a ball touch, and what is nearest?
 *
 *   ./build/examples/sphere_overlap data/suzanne.obj
 *   ./build/examples/sphere_overlap data/suzanne.obj CX CY CZ RADIUS
 *
 * Loads an OBJ file, builds an OBB tree and asks which triangles overlap a
 * solid sphere (by default centred on the model's bounding box centre, with a
 * radius of a quarter of its diagonal), checks the answer against the brute
 * force loop over every triangle, and finds the closest surface point to the
 * sphere's centre.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <meshquery/meshquery.h>

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 6) {
        fprintf(stderr, "usage: %s MESH.obj [CX CY CZ RADIUS]\n", argv[0]);
        return 2;
    }
    mq_mesh *mesh = NULL;
    mq_obbtree *tree = NULL;
    mq_diag diag;
    if (mq_obj_load(argv[1], NULL, &mesh, NULL, &diag) != MQ_OK) {
        fprintf(stderr, "%s:%llu:%u: %s\n", diag.path, (unsigned long long)diag.line, diag.column, diag.message);
        return 1;
    }
    if (mq_obbtree_build(mesh, NULL, &tree, &diag) != MQ_OK) {
        fprintf(stderr, "build: %s\n", diag.message);
        mq_mesh_destroy(mesh);
        return 1;
    }

    mq_sphere sphere;
    if (argc == 6) {
        for (int k = 0; k < 3; k++)
            sphere.center[k] = strtof(argv[2 + k], NULL);
        sphere.radius = strtof(argv[5], NULL);
    } else {
        /* The root OBB encloses the mesh; its centre and half extents frame it. */
        mq_obb root;
        mq_obbtree_root(tree, &root);
        float diagonal =
            2.0f * sqrtf(root.half[0] * root.half[0] + root.half[1] * root.half[1] + root.half[2] * root.half[2]);
        for (int k = 0; k < 3; k++)
            sphere.center[k] = root.center[k];
        sphere.radius = 0.25f * diagonal;
    }

    /* The overlap queries take any kind of shape, tagged (types.h). Count
     * first (capacity 0), then fetch exactly that many ids. */
    mq_shape shape = mq_shape_sphere(sphere);
    size_t count = mq_obbtree_overlap_array(tree, &shape, NULL, 0);
    uint32_t *ids = malloc((count ? count : 1) * sizeof *ids);
    if (!ids)
        return 1;
    mq_obbtree_overlap_array(tree, &shape, ids, count);

    /* The tree gives exactly the brute-force answer of the leaf primitive. */
    size_t brute = 0;
    for (uint32_t t = 0; t < mq_mesh_triangle_count(mesh); t++) {
        mq_triangle tri;
        mq_mesh_get_triangle(mesh, t, &tri);
        brute += mq_overlap_sphere_triangle(&sphere, &tri);
    }

    printf("sphere (%.4f, %.4f, %.4f) r=%.4f overlaps %zu of %zu triangles\n", sphere.center[0], sphere.center[1],
           sphere.center[2], sphere.radius, count, mq_mesh_triangle_count(mesh));
    printf("brute force: %zu (%s)\n", brute, brute == count ? "agrees" : "DISAGREES");
    if (count > 0) {
        mq_triangle_source src;
        mq_mesh_triangle_source(mesh, ids[0], &src);
        printf("e.g. triangle %u: face %u, OBJ line %llu\n", ids[0], src.face, (unsigned long long)src.line);
    }

    mq_point_hit near;
    if (mq_obbtree_closest_point(tree, sphere.center, INFINITY, &near))
        printf("closest surface point to the centre: (%.5f, %.5f, %.5f), distance %.5f, triangle %u\n", near.point[0],
               near.point[1], near.point[2], near.distance, near.triangle);

    free(ids);
    mq_obbtree_destroy(tree);
    mq_mesh_destroy(mesh);
    return brute == count ? 0 : 1;
}
