/*
 * The ray batches that take two N x 3 arrays (mq_bvh_raycast_closest_batch_arrays,
 * mq_bvh_raycast_any_batch_arrays) against the single-ray calls, bit for bit
 * and field by field: incoherent rays from around the mesh, camera rays in
 * 4x2 tiles (the packet path), and invalid rays (NaN origin, zero or infinite
 * direction) among them; two intervals; with and without back-face culling;
 * on 1, 2 and all threads; on the bunny (traced as a stream) and suzanne
 * (ray by ray); counts that leave a partial chunk. MQ_TEST_SEED changes the
 * rays.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "gen_shapes.h"
#include "test_hits.h"
#include "test_support.h"

#define N 5003 /* not a multiple of the batch's chunk of 128 rays */

static const uint32_t thread_counts[] = {1, 2, 0};

/* Ray i: even blocks of 1024 incoherent (from the grown box towards a point
 * of the mesh's box), odd blocks camera rays in 4x2 tiles; a few invalid. */
static void make_rays(mq_test_rng *r, const mq_aabb *box, double D, float *o, float *d)
{
    mq_aabb grown = *box;
    for (int k = 0; k < 3; k++) {
        grown.min[k] -= (float)(0.5 * D);
        grown.max[k] += (float)(0.5 * D);
    }
    vec3 eye = {box->max[0] + (float)D, box->max[1] + 0.3f * (float)D, box->max[2] + 0.7f * (float)D};
    for (size_t i = 0; i < N; i++) {
        float *oi = o + 3 * i, *di = d + 3 * i;
        if ((i / 1024) % 2 == 0) {
            vec3 target;
            gen_point_in(r, &grown, oi);
            gen_point_in(r, box, target);
            for (int k = 0; k < 3; k++)
                di[k] = target[k] - oi[k];
        } else {
            size_t pixel = i % 1024, tile = pixel / 8, lane = pixel % 8;
            float x = (float)(4 * (tile % 16) + lane % 4) / 64.0f, y = (float)(2 * (tile / 16) + lane / 4) / 128.0f;
            for (int k = 0; k < 3; k++) {
                float lo = box->min[k], hi = box->max[k];
                float target = lo + (hi - lo) * (k == 0 ? x : k == 1 ? y : 0.5f * (x + y));
                oi[k] = eye[k];
                di[k] = target - eye[k];
            }
        }
    }
    o[3 * 5] = NAN;
    d[3 * 77] = d[3 * 77 + 1] = d[3 * 77 + 2] = 0.0f;
    d[3 * 1500 + 1] = INFINITY;
}

static void check_mesh(const char *name)
{
    mq_mesh *mesh = mq_test_load_mesh(name);
    mq_bvh *bvh = NULL;
    assert_int_equal(mq_bvh_build(mesh, NULL, &bvh, NULL), MQ_OK);
    mq_aabb box;
    double D = gen_bounds(mesh, &box);
    mq_test_rng r;
    mq_test_rng_seed(&r, mq_test_seed(0xA77A5));
    float *o = malloc(3 * N * sizeof *o), *d = malloc(3 * N * sizeof *d);
    mq_hit *want = malloc(N * sizeof *want), *got = malloc(N * sizeof *got);
    bool *wocc = malloc(N), *gocc = malloc(N);
    assert_true(o && d && want && got && wocc && gocc);
    make_rays(&r, &box, D, o, d);
    const float intervals[2][2] = {{0.0f, INFINITY}, {0.4f, 1.0f}};
    for (int iv = 0; iv < 2; iv++) {
        for (int cull = 0; cull < 2; cull++) {
            mq_ray_query q = mq_default_ray_query();
            q.cull_back_faces = cull;
            float tmin = intervals[iv][0], tmax = intervals[iv][1];
            size_t nhit = 0;
            for (size_t i = 0; i < N; i++) {
                mq_ray ray = {
                    {o[3 * i], o[3 * i + 1], o[3 * i + 2]}, tmin, {d[3 * i], d[3 * i + 1], d[3 * i + 2]}, tmax};
                wocc[i] = mq_bvh_raycast_closest(bvh, &ray, &q, &want[i]);
                assert_int_equal(mq_bvh_raycast_any(bvh, &ray, &q), wocc[i]);
                nhit += wocc[i];
            }
            print_message("%s interval %d cull %d: %zu of %d rays hit\n", name, iv, cull, nhit, N);
            assert_true(nhit > N / 20 && nhit < N);
            for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
                memset(got, 0xAB, N * sizeof *got);
                assert_int_equal(
                    mq_bvh_raycast_closest_batch_arrays(bvh, o, d, N, tmin, tmax, &q, thread_counts[t], got), nhit);
                for (size_t i = 0; i < N; i++) {
                    if (!wocc[i]) {
                        /* a miss: the record's defined miss values */
                        assert_int_equal(got[i].triangle, MQ_NO_TRIANGLE);
                        assert_true(isinf(got[i].t));
                    } else {
                        mq_test_assert_same_hit(&got[i], &want[i]);
                    }
                }
                memset(gocc, 2, N);
                assert_int_equal(mq_bvh_raycast_any_batch_arrays(bvh, o, d, N, tmin, tmax, &q, thread_counts[t], gocc),
                                 nhit);
                assert_memory_equal(gocc, wocc, N);
            }
        }
    }
    /* NULL arrays or no rays: nothing written. */
    got[0].triangle = 7;
    assert_int_equal(mq_bvh_raycast_closest_batch_arrays(bvh, NULL, d, N, 0, INFINITY, NULL, 1, got), 0);
    assert_int_equal(mq_bvh_raycast_closest_batch_arrays(bvh, o, d, 0, 0, INFINITY, NULL, 1, got), 0);
    assert_int_equal(mq_bvh_raycast_any_batch_arrays(bvh, o, NULL, N, 0, INFINITY, NULL, 1, gocc), 0);
    assert_int_equal(got[0].triangle, 7);
    free(o), free(d), free(want), free(got), free(wocc), free(gocc);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
}

static void test_bunny(void **state)
{
    (void)state;
    check_mesh("stanford-bunny.obj");
}

static void test_suzanne(void **state)
{
    (void)state;
    check_mesh("suzanne.obj");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bunny),
        cmocka_unit_test(test_suzanne),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
