/* A tiny program built against an installed meshquery (find_package or
 * pkg-config) or a meshquery subproject: version, load, build, one ray. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <meshquery/meshquery.h>

#define STR2(x) #x
#define STR(x) STR2(x)

int main(int argc, char **argv)
{
    const char *header = STR(MQ_VERSION_MAJOR) "." STR(MQ_VERSION_MINOR) "." STR(MQ_VERSION_PATCH);
    printf("consumer: header %s, library %s\n", header, mq_version());
    if (strcmp(header, mq_version()) != 0)
        return 1;
    if (argc < 2)
        return 0;
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_diag diag;
    if (mq_obj_load(argv[1], NULL, &mesh, NULL, &diag) != MQ_OK || mq_bvh_build(mesh, NULL, &bvh, &diag) != MQ_OK) {
        printf("consumer: %s\n", diag.message);
        return 1;
    }
    mq_ray ray = {{0.0f, 0.5f, -3.0f}, 0.0f, {0.0f, 0.0f, 1.0f}, INFINITY};
    mq_hit hit;
    bool found = mq_bvh_raycast_closest(bvh, &ray, NULL, &hit);
    printf("consumer: %zu triangles, ray hits triangle %u (face %u) t=%.4f\n", mq_mesh_triangle_count(mesh),
           found ? hit.triangle : MQ_NO_TRIANGLE, found ? hit.face : MQ_NO_TRIANGLE, found ? hit.t : -1.0f);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
    return found ? 0 : 1;
}
