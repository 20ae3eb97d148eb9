/*
 * The BVH scales its geometry by a power of two chosen from the mesh's largest
 * finite coordinate (bvh.h, "Dynamic range"). A model beside one far stray
 * triangle must still be hit exactly where it is hit alone: same hit or miss,
 * same triangle, same t. (Regression: with the direction window clamped at 1,
 * an outlier 1e13..1e20 away made about 1% of the closest hits wrong.) A far
 * vertex no triangle uses must not count at all, built or refitted: the hits
 * are then bit for bit those of the model alone. (Regression: an unused vertex
 * at 1e22 scaled a unit mesh to 1e-22, where the leaf test's products
 * underflow, and the BVH reported hits the ray does not make.)
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

/* 20,000 random rays through the model: how many answers of `b` differ from
 * `a`'s in hit or miss, triangle and t, and with `whole_record` also in u, v
 * and side. */
static int count_differing(const mq_bvh *a, const mq_bvh *b, bool whole_record)
{
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
        mq_hit ha, hb;
        bool hit_a = mq_bvh_raycast_closest(a, &r, NULL, &ha), hit_b = mq_bvh_raycast_closest(b, &r, NULL, &hb);
        bool same = hit_a == hit_b && (!hit_a || (ha.triangle == hb.triangle && ha.t == hb.t));
        if (same && hit_a && whole_record)
            same = ha.u == hb.u && ha.v == hb.v && ha.back_face == hb.back_face;
        differ += !same;
    }
    return differ;
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
            int differ = count_differing(alone, bvh, false);
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

static void unused_vertex_does_not_scale(void **state)
{
    (void)state;
    mq_mesh *spot = NULL;
    assert_int_equal(mq_obj_load(mq_test_data_file("spot.obj"), NULL, &spot, NULL, NULL), MQ_OK);
    mq_bvh *alone = NULL;
    assert_int_equal(mq_bvh_build(spot, NULL, &alone, NULL), MQ_OK);
    size_t nv = mq_mesh_vertex_count(spot), nt = mq_mesh_triangle_count(spot);
    float *p = malloc((nv + 1) * 3 * sizeof *p);
    assert_non_null(p);
    memcpy(p, mq_mesh_positions(spot), nv * 3 * sizeof *p);
    const float fars[] = {9.4e21f, 1e35f, -3e30f, 1e-30f};
    for (size_t f = 0; f < sizeof fars / sizeof fars[0]; f++) {
        p[3 * nv] = fars[f];
        p[3 * nv + 1] = -fars[f];
        p[3 * nv + 2] = fars[f];
        mq_mesh *m = NULL;
        assert_int_equal(mq_mesh_create(p, nv + 1, mq_mesh_indices(spot), nt, NULL, &m, NULL), MQ_OK);
        mq_bvh *bvh = NULL;
        assert_int_equal(mq_bvh_build(m, NULL, &bvh, NULL), MQ_OK);
        int built = count_differing(alone, bvh, true);
        assert_int_equal(mq_bvh_refit(bvh, p, NULL), MQ_OK);
        int refitted = count_differing(alone, bvh, true);
        if (built || refitted)
            print_error("unused vertex at %g: %d built, %d refitted of 20000 rays differ\n", (double)fars[f], built,
                        refitted);
        assert_int_equal(built + refitted, 0);
        mq_bvh_destroy(bvh);
        mq_mesh_destroy(m);
    }
    free(p);
    mq_bvh_destroy(alone);
    mq_mesh_destroy(spot);
}

/* A ray whose origin overflows when scaled by the BVH's 2^k (a mesh of
 * magnitude 1e-40, scaled by 2^126; origins from 4 on) is a miss
 * (docs/robustness.md, "Limits of the BVH"), in every entry point and ISA;
 * nearer rays still hit. (The infinite origin made NaN node distances, which
 * empty child slots can pass: fuzz_queries' corpus seed
 * bvh_scaled_origin_overflows read a leaf that does not exist.) */
static void overflowing_scaled_origin_misses(void **state)
{
    (void)state;
    const float pos[] = {1e-40f, 0, 0, 0, 1e-40f, 0, 0, 0, 0, 0, 0, 1e-40f};
    const uint32_t idx[] = {0, 1, 2, 0, 1, 3, 1, 2, 3};
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(pos, 4, idx, 3, NULL, &m, NULL), MQ_OK);
    mq_bvh *b = NULL;
    assert_int_equal(mq_bvh_build(m, NULL, &b, NULL), MQ_OK);
    const float origins[] = {1.0f, 10.0f, 1e10f, 3e38f};
    for (int i = 0; i < 4; i++) {
        mq_ray r[8];
        for (int l = 0; l < 8; l++) /* a full packet for the batch */
            r[l] = (mq_ray){{origins[i], 1e-41f, 1e-41f}, 0.0f, {-1, 0, 0}, INFINITY};
        bool want = i == 0;
        mq_hit one, batch[8];
        assert_int_equal(mq_bvh_raycast_closest(b, &r[0], NULL, &one), want);
        assert_int_equal(mq_bvh_raycast_any(b, &r[0], NULL), want);
        assert_int_equal(mq_bvh_raycast_closest_batch(b, r, 8, NULL, 1, batch), want ? 8 : 0);
        if (want)
            assert_true(one.t == 1.0f && batch[7].t == 1.0f);
    }
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

/* One overflowing ray in a batch's packet must not cost the others their
 * hits: two grids of a mesh at 1e-30, 8 coherent rays, one of them from 1e10.
 * (Found by review: its interval's -inf made the packet's node bound NaN.) */
static void overflowing_ray_in_a_packet(void **state)
{
    (void)state;
    enum { G = 16, NV = (G + 1) * (G + 1) };
    const float u = 1e-30f;
    float *pos = malloc(2 * NV * 3 * sizeof *pos);
    uint32_t *idx = malloc(2 * G * G * 6 * sizeof *idx);
    assert_true(pos && idx);
    size_t ti = 0;
    for (int c = 0; c < 2; c++) { /* grid 0 at z = 0, x in [2, 3]; grid 1 at z = 10, x in [0, 1] */
        for (int i = 0; i <= G; i++)
            for (int j = 0; j <= G; j++) {
                float *p = pos + 3 * (c * NV + i * (G + 1) + j);
                p[0] = ((c ? 0.0f : 2.0f) + (float)i / G) * u;
                p[1] = ((float)j / G) * u;
                p[2] = (c ? 10.0f : 0.0f) * u;
            }
        for (int i = 0; i < G; i++)
            for (int j = 0; j < G; j++) {
                uint32_t a = (uint32_t)(c * NV + i * (G + 1) + j), b = a + G + 1;
                const uint32_t quad[6] = {a, b, a + 1, b, b + 1, a + 1};
                memcpy(idx + ti, quad, sizeof quad);
                ti += 6;
            }
    }
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(pos, 2 * NV, idx, ti / 3, NULL, &m, NULL), MQ_OK);
    mq_bvh *b = NULL;
    assert_int_equal(mq_bvh_build(m, NULL, &b, NULL), MQ_OK);
    for (int far = 0; far < 8; far++) {
        mq_ray r[8];
        for (int l = 0; l < 8; l++) {
            float ox = (l & 1) ? 2.53f : 0.53f;
            r[l] = (mq_ray){{ox * u, 0.53f * u, 0.0f}, 0.0f, {1e-3f * u, 1e-3f * u, u}, INFINITY};
            if (l == far)
                r[l].origin[0] = r[l].origin[1] = r[l].origin[2] = 1e10f;
        }
        mq_hit batch[8], one;
        mq_bvh_raycast_closest_batch(b, r, 8, NULL, 1, batch);
        for (int l = 0; l < 8; l++) {
            bool hit = mq_bvh_raycast_closest(b, &r[l], NULL, &one);
            assert_int_equal(hit, l != far);
            assert_int_equal(batch[l].triangle, one.triangle);
            assert_true(batch[l].t == one.t);
        }
    }
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
    free(pos);
    free(idx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_hits_beside_an_outlier), cmocka_unit_test(unused_vertex_does_not_scale),
        cmocka_unit_test(overflowing_scaled_origin_misses), cmocka_unit_test(overflowing_ray_in_a_packet)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
