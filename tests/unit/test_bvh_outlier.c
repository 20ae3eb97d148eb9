/*
 * The BVH scales its geometry by a power of two chosen from the mesh's largest
 * finite coordinate (bvh.h, "Dynamic range"). A model beside one far stray
 * triangle must still be hit exactly where it is hit alone: same hit or miss,
 * same triangle, same t. (Regression: with the direction window clamped at 1,
 * an outlier 1e13..1e20 away made about 1% of the closest hits wrong.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "test_support.h"

/* spot.obj plus one triangle at x = `far`, and, if `nan_vertex`, an unused
 * vertex (NaN, 2^53, 0) whose finite coordinate must not set the scale. */
static mq_mesh *with_outlier(const mq_mesh *m, float far, bool nan_vertex)
{
    size_t nv = mq_mesh_vertex_count(m), nt = mq_mesh_triangle_count(m);
    float *p = malloc((nv + 4) * 3 * sizeof *p);
    uint32_t *ix = malloc((nt + 1) * 3 * sizeof *ix);
    assert_true(p && ix);
    memcpy(p, mq_mesh_positions(m), nv * 3 * sizeof *p);
    const float extra[12] = {far, 0, 0, far, 1, 0, far, 0, 1, NAN, 0x1p53f, 0};
    memcpy(p + 3 * nv, extra, sizeof extra);
    memcpy(ix, mq_mesh_indices(m), nt * 3 * sizeof *ix);
    for (int c = 0; c < 3; c++)
        ix[3 * nt + c] = (uint32_t)nv + (uint32_t)c;
    mq_mesh *out = NULL;
    size_t used = nan_vertex ? nv + 4 : nv + 3;
    assert_int_equal(mq_mesh_create(p, used, ix, nt + 1, NULL, &out, NULL), MQ_OK);
    free(p);
    free(ix);
    return out;
}

static void same_hits_beside_an_outlier(void **state)
{
    (void)state;
    mq_mesh *spot = NULL;
    assert_int_equal(mq_obj_load(mq_test_data_file("spot.obj"), NULL, &spot, NULL, NULL), MQ_OK);
    mq_bvh *alone = NULL;
    assert_int_equal(mq_bvh_build(spot, NULL, &alone, NULL), MQ_OK);
    const float fars[] = {1e6f, 1e13f, 1e15f, 1e25f, 1e35f};
    for (size_t f = 0; f < sizeof fars / sizeof fars[0]; f++) {
        for (int nanv = 0; nanv < 2; nanv++) {
            mq_mesh *m = with_outlier(spot, fars[f], nanv);
            mq_bvh *bvh = NULL;
            assert_int_equal(mq_bvh_build(m, NULL, &bvh, NULL), MQ_OK);
            mq_test_rng g;
            mq_test_rng_seed(&g, mq_test_seed(11));
            int differ = 0;
            for (int i = 0; i < 20000; i++) {
                double o[3], aim[3];
                for (int k = 0; k < 3; k++) {
                    o[k] = mq_test_rng_range(&g, -3, 3);
                    aim[k] = mq_test_rng_range(&g, -0.3, 0.3) + (k == 1 ? 0.3 : 0.0);
                }
                mq_ray r = {{(float)o[0], (float)o[1], (float)o[2]},
                            0.0f,
                            {(float)(aim[0] - o[0]), (float)(aim[1] - o[1]), (float)(aim[2] - o[2])},
                            INFINITY};
                mq_hit a, b;
                bool ha = mq_bvh_raycast_closest(alone, &r, NULL, &a);
                bool hb = mq_bvh_raycast_closest(bvh, &r, NULL, &b);
                differ += ha != hb || (ha && (a.triangle != b.triangle || a.t != b.t));
            }
            if (differ)
                print_error("outlier at %g (NaN vertex %d): %d of 20000 rays differ\n", (double)fars[f], nanv, differ);
            assert_int_equal(differ, 0);
            mq_bvh_destroy(bvh);
            mq_mesh_destroy(m);
        }
    }
    mq_bvh_destroy(alone);
    mq_mesh_destroy(spot);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(same_hits_beside_an_outlier)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
