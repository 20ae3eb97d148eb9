/*
 * The batch's packet paths against single rays, bit for bit. Closest-hit
 * batches trace groups of 8 consecutive rays as packets prepared straight
 * from the rays in vector registers (bvh/kernels/packet8_avx2.c), and leave every
 * group the vector setup cannot take exactly as mq_trace_prepare would to the
 * general path (prepared one by one, then packets of prepared queries, a
 * stream or single rays). Here camera packets get one lane (or all lanes)
 * spoiled in each way that must send a group to the general path — invalid
 * rays, negative tmin, directions that need rescaling or have negligible
 * components, another octant or dominant axis, signed zeros — and every
 * answer must equal the single-ray answer (and so must any-hit batches,
 * whose rays are prepared 8 at a time too). On meshes at 1, 1e-20 and 1e20
 * scale (the BVH's power-of-two scaling), with and without back-face
 * culling, on 1 and 2 threads, and for counts that leave a tail.
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

/* spot.obj with every coordinate times `scale`. */
static mq_mesh *scaled_spot(float scale)
{
    mq_mesh *spot = NULL;
    assert_int_equal(mq_obj_load(mq_test_data_file("spot.obj"), NULL, &spot, NULL, NULL), MQ_OK);
    if (scale == 1.0f)
        return spot;
    size_t nv = mq_mesh_vertex_count(spot), nt = mq_mesh_triangle_count(spot);
    float *p = malloc(nv * 3 * sizeof *p);
    assert_non_null(p);
    for (size_t i = 0; i < 3 * nv; i++)
        p[i] = mq_mesh_positions(spot)[i] * scale;
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(p, nv, mq_mesh_indices(spot), nt, NULL, &m, NULL), MQ_OK);
    free(p);
    mq_mesh_destroy(spot);
    return m;
}

/* Ways to spoil a lane (or a whole group) of a coherent packet. */
enum {
    SPOIL_NONE,
    SPOIL_NEG_TMIN, /* tmin < 0: single-ray loops */
    SPOIL_TMIN_GT_TMAX,
    SPOIL_NAN_ORIGIN,
    SPOIL_INF_DIR,
    SPOIL_ZERO_DIR,
    SPOIL_TINY_DIR, /* rescaled direction (t_shift) */
    SPOIL_HUGE_DIR,
    SPOIL_NEGLIGIBLE, /* a component below 2^-90 of the largest: zeroed */
    SPOIL_NEG_ZERO,   /* a -0 component where the others have +0 (another octant) */
    SPOIL_FLIP,       /* another octant */
    SPOIL_AXIS,       /* another dominant axis */
    SPOIL_AXIS_TIE,   /* two components of equal magnitude */
    SPOIL_SHORT,      /* tmax before the model; tmin = tmax */
    SPOIL_KINDS
};

static void spoil(mq_ray *r, int kind, float scale)
{
    switch (kind) {
    case SPOIL_NEG_TMIN:
        r->tmin = -1.0f * scale;
        break;
    case SPOIL_TMIN_GT_TMAX:
        r->tmin = 2.0f, r->tmax = 1.0f;
        break;
    case SPOIL_NAN_ORIGIN:
        r->origin[1] = NAN;
        break;
    case SPOIL_INF_DIR:
        r->dir[0] = INFINITY;
        break;
    case SPOIL_ZERO_DIR:
        r->dir[0] = r->dir[1] = r->dir[2] = 0.0f;
        break;
    case SPOIL_TINY_DIR:
        for (int k = 0; k < 3; k++)
            r->dir[k] *= 1e-30f;
        break;
    case SPOIL_HUGE_DIR:
        for (int k = 0; k < 3; k++)
            r->dir[k] *= 1e30f;
        break;
    case SPOIL_NEGLIGIBLE:
        r->dir[1] = copysignf(1e-36f, r->dir[1]);
        break;
    case SPOIL_NEG_ZERO:
        r->dir[0] = -0.0f;
        break;
    case SPOIL_FLIP:
        r->dir[1] = -r->dir[1];
        break;
    case SPOIL_AXIS: {
        float t = r->dir[0];
        r->dir[0] = r->dir[2], r->dir[2] = t;
        break;
    }
    case SPOIL_AXIS_TIE:
        r->dir[0] = copysignf(fabsf(r->dir[2]), r->dir[0]);
        break;
    case SPOIL_SHORT:
        r->tmax = r->tmin = 0.01f * scale;
        break;
    default:
        break;
    }
}

/* Incoherent rays (every octant and dominant axis) from around the model
 * towards points near it, a few with tmin < 0. */
static mq_ray *make_incoherent(size_t count, float scale, mq_test_rng *g)
{
    mq_ray *rays = malloc(count * sizeof *rays);
    assert_non_null(rays);
    for (size_t i = 0; i < count; i++) {
        double u[3], o[3], d[3];
        mq_test_rng_unit_vector(g, u);
        for (int k = 0; k < 3; k++) {
            o[k] = 2.5 * u[k] + (k == 1 ? 0.6 : 0.0);
            d[k] = mq_test_rng_range(g, -0.5, 0.5) + (k == 1 ? 0.6 : 0.0) - o[k];
        }
        mq_ray *r = &rays[i];
        for (int k = 0; k < 3; k++) {
            r->origin[k] = (float)o[k] * scale;
            r->dir[k] = (float)d[k];
        }
        r->tmin = i % 37 == 5 ? -2.0f : 0.0f;
        r->tmax = INFINITY;
    }
    return rays;
}

/* Camera packets: 8 rays from one eye through a 4x2 block of pixels, looking
 * down -z at the model (z dominant). Group g gets spoiled by kind g % KINDS
 * (every lane for every third group, one lane otherwise). */
static mq_ray *make_rays(size_t count, float scale, bool zero_x, mq_test_rng *g)
{
    mq_ray *rays = malloc(count * sizeof *rays);
    assert_non_null(rays);
    size_t victim = 0;
    for (size_t i = 0; i < count; i++) {
        size_t grp = i / 8, lane = i % 8;
        int px = (int)(grp % 32) * 4 + (int)(lane % 4), py = (int)(grp / 32 % 32) * 2 + (int)(lane / 4);
        mq_ray *r = &rays[i];
        r->origin[0] = 0.05f * scale, r->origin[1] = 0.6f * scale, r->origin[2] = 3.0f * scale;
        r->dir[0] = zero_x ? 0.0f : (float)(px - 64) / 128.0f;
        r->dir[1] = (float)(py - 32) / 96.0f - 0.1f;
        r->dir[2] = -1.0f;
        r->tmin = 0.0f;
        r->tmax = INFINITY;
        if (zero_x)
            r->origin[0] = (float)mq_test_rng_range(g, -0.6, 0.6) * scale;
        int kind = (int)(grp % SPOIL_KINDS);
        bool all = grp % 3 == 0;
        if (lane == 0)
            victim = (size_t)(mq_test_rng_u64(g) % 8);
        if (all || lane == victim)
            spoil(r, kind, scale);
    }
    return rays;
}

static void check(const mq_bvh *b, const mq_ray *rays, size_t count, const mq_ray_query *q, uint32_t threads)
{
    mq_hit *batch = malloc(count * sizeof *batch);
    assert_non_null(batch);
    size_t hits = mq_bvh_raycast_closest_batch(b, rays, count, q, threads, batch), single_hits = 0;
    for (size_t i = 0; i < count; i++) {
        mq_hit one;
        single_hits += mq_bvh_raycast_closest(b, &rays[i], q, &one);
        mq_test_assert_same_hit(&one, &batch[i]);
    }
    assert_int_equal(hits, single_hits);
    assert_true(count < 1000 || single_hits > count / 10); /* the packets do hit the model */
    bool *occluded = malloc(count * sizeof *occluded);
    assert_non_null(occluded);
    size_t occ = mq_bvh_raycast_any_batch(b, rays, count, q, threads, occluded), single_occ = 0;
    for (size_t i = 0; i < count; i++) {
        bool one = mq_bvh_raycast_any(b, &rays[i], q);
        single_occ += one;
        assert_int_equal(one, occluded[i]);
    }
    assert_int_equal(occ, single_occ);
    free(occluded);
    free(batch);
}

static void batch_packets_equal_single_rays(void **state)
{
    (void)state;
    const float scales[] = {1.0f, 1e-20f, 1e20f};
    const size_t counts[] = {8 * 32 * 32, 8 * 32 * 32 - 5, 133};
    const int isas[3] = {-1, MQ_ISA_AVX2, MQ_ISA_SCALAR}; /* automatic choice, then forced */
    for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
        mq_mesh *m = scaled_spot(scales[s]);
        mq_bvh *b = NULL;
        assert_int_equal(mq_bvh_build(m, NULL, &b, NULL), MQ_OK);
        for (int mode = 0; mode < 3; mode++) { /* camera, camera with d.x = 0, incoherent */
            mq_test_rng g;
            mq_test_rng_seed(&g, mq_test_seed(77) + s * 3 + (uint64_t)mode);
            mq_ray *rays =
                mode < 2 ? make_rays(counts[0], scales[s], mode == 1, &g) : make_incoherent(counts[0], scales[s], &g);
            for (int kn = 0; kn < 3; kn++) {
                mq_isa_override_clear();
                if (isas[kn] >= 0 && mq_isa_override((mq_isa)isas[kn]) != (mq_isa)isas[kn])
                    continue; /* not in this build or on this CPU */
                for (int cull = 0; cull < 2; cull++) {
                    mq_ray_query q = mq_default_ray_query();
                    q.cull_back_faces = cull;
                    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                        check(b, rays, counts[c], &q, 1);
                    check(b, rays, counts[0], &q, 2);
                }
            }
            mq_isa_override_clear();
            free(rays);
        }
        mq_bvh_destroy(b);
        mq_mesh_destroy(m);
    }
}

/* Whether two prepared queries hold the same fields, bit for bit. */
static bool same_preparation(const mq_trace *a, const mq_trace *b)
{
#define SAME(f) (memcmp(&a->f, &b->f, sizeof a->f) == 0)
    return SAME(ray.org) && SAME(ray.dir) && SAME(ray.rdir) && SAME(ray.tmin) && SAME(ray.tmax) && SAME(ray.t_shift) &&
           SAME(ray.kx) && SAME(ray.ky) && SAME(ray.kz) && SAME(ray.sx) && SAME(ray.sy) && SAME(ray.sz) &&
           SAME(ray.near) && SAME(cull) && SAME(has_after) && SAME(after_t) && SAME(after_id) && SAME(query) &&
           SAME(bvh) && SAME(user_ray);
#undef SAME
}

/* mq_trace_prepare takes the kernel set's own preparation where it has one
 * (AVX2): every field equals the scalar code's, for every kind of ray (the
 * spoiled camera packets and incoherent rays, at every scale). */
static void kernel_preparation_equals_scalar(void **state)
{
    (void)state;
    if (mq_isa_best() < MQ_ISA_AVX2)
        skip();
    const float scales[] = {1.0f, 1e-20f, 1e20f};
    const size_t count = 8 * 32 * 32;
    size_t compared = 0;
    for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
        mq_mesh *m = scaled_spot(scales[s]);
        mq_bvh *b = NULL;
        assert_int_equal(mq_bvh_build(m, NULL, &b, NULL), MQ_OK);
        for (int mode = 0; mode < 3; mode++) {
            mq_test_rng g;
            mq_test_rng_seed(&g, mq_test_seed(91) + s * 3 + (uint64_t)mode);
            mq_ray *rays =
                mode < 2 ? make_rays(count, scales[s], mode == 1, &g) : make_incoherent(count, scales[s], &g);
            for (size_t i = 0; i < count; i++)
                for (int cull = 0; cull < 2; cull++) {
                    mq_ray_query q = mq_default_ray_query();
                    q.cull_back_faces = cull;
                    mq_trace one, other;
                    memset(&one, 0, sizeof one);
                    memset(&other, 0, sizeof other);
                    mq_isa_override(MQ_ISA_SCALAR);
                    bool ok = mq_trace_prepare(&one, b, &rays[i], &q);
                    mq_isa_override(MQ_ISA_AVX2);
                    assert_int_equal(mq_trace_prepare(&other, b, &rays[i], &q), ok);
                    if (ok)
                        assert_true(same_preparation(&one, &other));
                    compared += ok;
                }
            mq_isa_override_clear();
            free(rays);
        }
        mq_bvh_destroy(b);
        mq_mesh_destroy(m);
    }
    assert_true(compared > count);
}

/* The packet kernel on its own: which groups it takes and which it leaves. */
static void packet_kernel_leaves_what_it_cannot_take(void **state)
{
    (void)state;
    if (mq_isa_best() < MQ_ISA_AVX2)
        skip();
    const mq_kernels *k = mq_kernels_table[MQ_ISA_AVX2];
    mq_mesh *m = scaled_spot(1.0f);
    mq_bvh *b = NULL;
    assert_int_equal(mq_bvh_build(m, NULL, &b, NULL), MQ_OK);
    mq_test_rng g;
    mq_test_rng_seed(&g, 5);
    const size_t groups = 2 * SPOIL_KINDS;
    mq_ray *rays = make_rays(8 * groups, 1.0f, false, &g);
    /* Taken: unspoiled groups, short intervals, and groups spoiled in all
     * lanes alike in a way that keeps them one octant and axis. */
    mq_hit *hits = malloc(8 * groups * sizeof *hits);
    bool left[2 * SPOIL_KINDS];
    mq_trace_counts counts = {0, 0, 0};
    k->packet8_rays(b, rays, groups, false, false, hits, left, &counts);
    for (size_t grp = 0; grp < groups; grp++) {
        int kind = (int)(grp % SPOIL_KINDS);
        bool all = grp % 3 == 0;
        bool taken =
            kind == SPOIL_NONE || kind == SPOIL_SHORT ||
            (all && (kind == SPOIL_FLIP || kind == SPOIL_AXIS || kind == SPOIL_AXIS_TIE || kind == SPOIL_NEG_ZERO));
        assert_int_equal(left[grp], !taken);
        if (!taken)
            continue;
        for (size_t l = 0; l < 8; l++) {
            mq_hit one;
            mq_bvh_raycast_closest(b, &rays[8 * grp + l], NULL, &one);
            mq_test_assert_same_hit(&one, &hits[8 * grp + l]);
        }
    }
    free(hits);
    free(rays);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(batch_packets_equal_single_rays),
        cmocka_unit_test(packet_kernel_leaves_what_it_cannot_take),
        cmocka_unit_test(kernel_preparation_equals_scalar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
