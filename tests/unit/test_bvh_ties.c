/*
 * Closest-hit ties (bvh.h, obbtree.h): when triangles are hit at exactly the
 * same t, the smallest triangle id wins, in every kernel (scalar, SSE2, AVX2),
 * every loop (single ray, stream, 8-ray packets), the batch (bit for bit the
 * single-ray answer), the all-hits iterator and the OBB tree.
 *
 * The meshes: a grid of triangles in an axis plane, every triangle twice (same
 * corners, so the same float t for any ray) under shuffled ids, built with one
 * triangle per leaf so the two copies sit in different leaves. Each leaf box
 * is flat along the ray, and the ray hits the triangle on the box's entry
 * face: the float t of the hit (T / det of the watertight test) and the box's
 * computed entry distance agree only to a few ulp, and t often comes out
 * below. Regression: nodes were culled when their entry distance exceeded the
 * best t by any amount, so once the larger id was found first the smaller
 * id's leaf was skipped (about 9% of these rays answered the larger id).
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
#include "test_hits.h"
#include "bvh/kernels/trace.h"

#define GRID 8                  /* GRID x GRID quads, two triangles each */
#define PAIRS (2 * GRID * GRID) /* distinct triangles */
#define TRIS (2 * PAIRS)        /* each one twice */
#define PACKETS 256             /* of 8 rays */
#define RAYS (8 * PACKETS)

/* The duplicated grid in the plane x[axis] = level; copy[p] are the two ids of pair p. */
typedef struct dup_mesh {
    mq_mesh *mesh;
    uint32_t copy[PAIRS][2];
    float corner[PAIRS][3][3];
} dup_mesh;

static void make_dup_mesh(dup_mesh *d, int axis, float level, mq_test_rng *g)
{
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    float p[(GRID + 1) * (GRID + 1) * 3];
    for (int y = 0; y <= GRID; y++)
        for (int x = 0; x <= GRID; x++) {
            float *c = p + 3 * (y * (GRID + 1) + x);
            c[axis] = level;
            c[u] = 1.1f * (float)x;
            c[v] = 0.9f * (float)y;
        }
    uint32_t perm[TRIS];
    for (uint32_t i = 0; i < TRIS; i++)
        perm[i] = i;
    for (uint32_t i = TRIS - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(mq_test_rng_u64(g) % (i + 1));
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    uint32_t idx[TRIS * 3];
    int pair = 0, k = 0;
    for (int y = 0; y < GRID; y++)
        for (int x = 0; x < GRID; x++) {
            uint32_t a = (uint32_t)(y * (GRID + 1) + x), b = a + 1, c = a + GRID + 1, e = c + 1;
            const uint32_t tri[2][3] = {{a, b, e}, {a, e, c}};
            for (int t = 0; t < 2; t++, pair++) {
                for (int dup = 0; dup < 2; dup++) {
                    uint32_t id = perm[k++];
                    memcpy(idx + 3 * id, tri[t], sizeof tri[t]);
                    d->copy[pair][dup] = id;
                }
                for (int c3 = 0; c3 < 3; c3++)
                    memcpy(d->corner[pair][c3], p + 3 * tri[t][c3], sizeof d->corner[pair][c3]);
            }
        }
    d->mesh = NULL;
    assert_int_equal(mq_mesh_create(p, (GRID + 1) * (GRID + 1), idx, TRIS, NULL, &d->mesh, NULL), MQ_OK);
}

/* Packets of 8 rays with one direction each (so the batch traces them as a
 * coherent packet), toward points inside random triangles (away from their
 * edges, so only the two copies are hit), from either side of the plane;
 * half of the packets look straight along the plane's normal. want[i] is the
 * smaller id of the pair ray i hits. */
static void make_rays(const dup_mesh *d, int axis, float level, mq_test_rng *g, mq_ray *rays, uint32_t *want)
{
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    for (int pk = 0; pk < PACKETS; pk++) {
        float dir[3];
        float side = (pk & 2) ? 1.0f : -1.0f; /* which side the rays come from */
        dir[axis] = -side;
        dir[u] = (pk & 1) ? 0.0f : (float)mq_test_rng_range(g, -0.3, 0.3);
        dir[v] = (pk & 1) ? 0.0f : (float)mq_test_rng_range(g, -0.3, 0.3);
        for (int l = 0; l < 8; l++) {
            int i = 8 * pk + l;
            int pair = (int)(mq_test_rng_u64(g) % PAIRS);
            double b1 = mq_test_rng_range(g, 0.1, 0.8), b2 = mq_test_rng_range(g, 0.1, 0.9 - b1);
            double dist = mq_test_rng_range(g, 0.7, 5.0);
            mq_ray *r = &rays[i];
            for (int k = 0; k < 3; k++) {
                double target =
                    (1.0 - b1 - b2) * d->corner[pair][0][k] + b1 * d->corner[pair][1][k] + b2 * d->corner[pair][2][k];
                r->origin[k] = (float)(target - dist * dir[k]);
                r->dir[k] = dir[k];
            }
            r->origin[axis] = level + side * (float)dist; /* exactly `dist` along the normal */
            r->tmin = 0.0f;
            r->tmax = INFINITY;
            uint32_t a = d->copy[pair][0], b = d->copy[pair][1];
            want[i] = a < b ? a : b;
        }
    }
}

static uint32_t other_copy(const dup_mesh *d, uint32_t id)
{
    for (int p = 0; p < PAIRS; p++)
        if (d->copy[p][0] == id || d->copy[p][1] == id)
            return d->copy[p][0] == id ? d->copy[p][1] : d->copy[p][0];
    fail();
    return 0;
}

/* The kernels' own loops on prepared queries: closest, the stream, and the
 * 8-ray packets (interleaved and not; a level without a packet kernel fills
 * that slot with its portable one). */
static void check_kernel_loops(const mq_kernels *k, const mq_bvh *b, const mq_ray *rays, const uint32_t *want)
{
    static mq_trace q[RAYS];
    static mq_best best[RAYS];
    mq_trace_counts counts = {0, 0, 0};
    for (int i = 0; i < RAYS; i++) {
        assert_true(mq_trace_prepare(&q[i], b, &rays[i], NULL));
        best[i] = mq_best_init(q[i].ray.tmax);
        assert_true(k->closest(&q[i], &best[i], &counts));
        assert_int_equal(best[i].id, want[i]);
        best[i] = mq_best_init(q[i].ray.tmax);
    }
    k->stream(q, best, NULL, RAYS, &counts);
    for (int i = 0; i < RAYS; i++)
        assert_int_equal(best[i].id, want[i]);
    static const mq_trace *pq[RAYS];
    static mq_best *pb[RAYS];
    for (int interleave = 0; interleave < 2; interleave++) {
        for (int i = 0; i < RAYS; i++) {
            pq[i] = &q[i];
            best[i] = mq_best_init(q[i].ray.tmax);
            pb[i] = &best[i];
        }
        for (int pk = 0; pk < PACKETS; pk++)
            assert_true(mq_packet8_coherent(pq + 8 * pk));
        k->packet8(pq, pb, PACKETS, interleave, &counts);
        for (int i = 0; i < RAYS; i++)
            assert_int_equal(best[i].id, want[i]);
    }
}

static void check_config(int axis, float level, uint32_t leaf, uint64_t seed)
{
    mq_test_rng g;
    mq_test_rng_seed(&g, seed);
    dup_mesh d;
    make_dup_mesh(&d, axis, level, &g);
    mq_bvh_def def = mq_default_bvh_def();
    def.max_leaf_size = leaf;
    def.threads = 1;
    mq_bvh *b = NULL;
    assert_int_equal(mq_bvh_build(d.mesh, &def, &b, NULL), MQ_OK);
    assert_int_equal(mq_bvh_validate(b, NULL), MQ_OK);
    mq_obbtree_def odef = mq_default_obbtree_def();
    odef.max_leaf_size = leaf;
    mq_obbtree *ot = NULL;
    assert_int_equal(mq_obbtree_build(d.mesh, &odef, &ot, NULL), MQ_OK);

    static mq_ray rays[RAYS];
    static uint32_t want[RAYS];
    static mq_hit single[RAYS], batch[RAYS];
    make_rays(&d, axis, level, &g, rays, want);

    for (int kn = MQ_ISA_SCALAR; kn <= MQ_ISA_AVX2; kn++) {
        if (mq_isa_override((mq_isa)kn) != (mq_isa)kn)
            continue; /* not in this build or on this CPU */
        const mq_kernels *k = mq_kernels_active();
        for (int i = 0; i < RAYS; i++) {
            assert_true(mq_bvh_raycast_closest(b, &rays[i], NULL, &single[i]));
            assert_int_equal(single[i].triangle, want[i]);
            assert_true(mq_bvh_raycast_any(b, &rays[i], NULL));
        }
        /* The batch: 8 coherent rays per packet where the kernel has packets. */
        assert_int_equal(mq_bvh_raycast_closest_batch(b, rays, RAYS, NULL, 1, batch), RAYS);
        for (int i = 0; i < RAYS; i++)
            mq_test_assert_same_hit(&single[i], &batch[i]);
        check_kernel_loops(k, b, rays, want);
        /* All hits: both copies, the smaller id first. */
        for (int i = 0; i < RAYS; i += 7) {
            mq_hit all[4];
            assert_int_equal(mq_bvh_raycast_all(b, &rays[i], NULL, all, 4), 2);
            assert_int_equal(all[0].triangle, want[i]);
            assert_int_equal(all[1].triangle, other_copy(&d, want[i]));
        }
    }
    mq_isa_override_clear();

    for (int i = 0; i < RAYS; i++) {
        mq_hit h;
        assert_true(mq_obbtree_raycast_closest(ot, &rays[i], NULL, &h));
        assert_int_equal(h.triangle, want[i]);
    }
    mq_obbtree_destroy(ot);
    mq_bvh_destroy(b);
    mq_mesh_destroy(d.mesh);
}

/* Every axis as the plane's normal, levels that are not powers of two (a power
 * of two makes T / det exact here), one triangle per leaf and the default 4. */
static void duplicates_smallest_id_wins(void **state)
{
    (void)state;
    const float levels[] = {0.3f, -7.7f, 1234.567f};
    uint64_t seed = mq_test_seed(2024);
    for (int axis = 0; axis < 3; axis++)
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
            check_config(axis, levels[l], 1, seed + 10 * (uint64_t)axis + l);
            check_config(axis, levels[l], 4, seed + 100 + 10 * (uint64_t)axis + l);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(duplicates_smallest_id_wins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
