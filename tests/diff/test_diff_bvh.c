/*
 * The BVH against brute force (every triangle through mq_raycast_triangle) on
 * the test meshes: closest hit, any hit and all hits, for every build
 * quality, two leaf sizes and every traversal kernel this machine runs
 * (scalar, SSE2, AVX2 — which must agree bit for bit).
 *
 * Rays per mesh: as many as a budget of triangle tests allows (brute force is
 * rays x triangles), at most 100,000; MQ_TEST_BVH_RAYS=N forces N.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_diff_bvh_common.h"
#include "bvh/kernels/trace.h"

#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
#define BVH_BUDGET 1.5e7 /* sanitized or unoptimised builds are ~10x slower */
#else
#define BVH_BUDGET 2.5e8
#endif

typedef struct ray_set {
    mq_mesh *mesh;
    bvh_box box;
    mq_ray *rays;
    size_t n;
    bf_hits *bf; /* per ray */
} ray_set;

static size_t ray_count(size_t tris)
{
    const char *env = getenv("MQ_TEST_BVH_RAYS");
    if (env && *env)
        return (size_t)strtoull(env, NULL, 10);
    double n = BVH_BUDGET / (double)(tris ? tris : 1);
    return n < 1000 ? 1000 : n > 100000 ? 100000 : (size_t)n;
}

static void ray_set_init(ray_set *s, const char *mesh_name, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->mesh = mq_test_load_mesh(mesh_name);
    s->box = bvh_mesh_box(s->mesh);
    s->n = ray_count(mq_mesh_triangle_count(s->mesh));
    s->rays = calloc(s->n, sizeof *s->rays);
    s->bf = calloc(s->n, sizeof *s->bf);
    assert_non_null(s->rays);
    assert_non_null(s->bf);
    mq_test_rng g;
    mq_test_rng_seed(&g, mq_test_seed(seed));
    for (size_t i = 0; i < s->n; i++) {
        bvh_ray_mixed(&g, &s->box, i, &s->rays[i]);
        bf_all(s->mesh, NULL, &s->rays[i], false, &s->bf[i]);
    }
}

static void ray_set_free(ray_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->bf[i].h);
    free(s->bf);
    free(s->rays);
    mq_mesh_destroy(s->mesh);
}

/* Closest hit vs brute force; returns the number of unexplained differences. */
static int check_closest(const ray_set *s, size_t i, const mq_hit *h, bool hit)
{
    const mq_ray *r = &s->rays[i];
    const bf_hits *bf = &s->bf[i];
    if (hit != (bf->count > 0)) {
        double t = hit ? h->t : bf->h[0].t;
        if (bvh_near_ends(&s->box, r, t))
            return 0;
        fprintf(stderr, "ray %zu: bvh %s (t %.9g id %u), brute force %s (t %.9g id %u)\n", i, hit ? "hit" : "miss",
                h->t, h->triangle, bf->count ? "hit" : "miss", bf->count ? bf->h[0].t : 0.0,
                bf->count ? bf->h[0].id : 0);
        return 1;
    }
    if (!hit)
        return 0;
    double tol = bvh_tol(&s->box, bf->h[0].t);
    if (fabs(h->t - bf->h[0].t) <= tol && (h->triangle == bf->h[0].id || bf_has_near(bf, h->triangle, h->t, tol)))
        return 0;
    if (bvh_near_ends(&s->box, r, bf->h[0].t)) /* brute force's first hit is borderline */
        return 0;
    fprintf(stderr, "ray %zu: bvh t %.9g id %u, brute force t %.9g id %u\n", i, h->t, h->triangle, bf->h[0].t,
            bf->h[0].id);
    return 1;
}

static int check_any(const ray_set *s, size_t i, bool any, const mq_hit *closest)
{
    const bf_hits *bf = &s->bf[i];
    if (any == (bf->count > 0))
        return 0;
    double t = any ? closest->t : bf->h[0].t;
    if (bvh_near_ends(&s->box, &s->rays[i], t))
        return 0;
    fprintf(stderr, "ray %zu: any-hit bvh %d, brute force %d\n", i, any, bf->count > 0);
    return 1;
}

/* All hits: sorted, and the same set as brute force up to borderline hits and
 * shared-edge duplicates (a brute-force hit missing from the BVH's list must
 * have a listed hit at the same t). */
static int check_all(const ray_set *s, size_t i, const mq_hit *hits, size_t n)
{
    const bf_hits *bf = &s->bf[i];
    const mq_ray *r = &s->rays[i];
    int bad = 0;
    for (size_t k = 1; k < n; k++)
        if (hits[k].t < hits[k - 1].t)
            bad++;
    for (size_t k = 0; k < n; k++)
        if (!bf_has_near(bf, hits[k].triangle, hits[k].t, bvh_tol(&s->box, hits[k].t)) &&
            !bvh_near_ends(&s->box, r, hits[k].t))
            bad++;
    for (size_t k = 0; k < bf->count; k++) {
        bool found = false;
        for (size_t j = 0; j < n && !found; j++)
            found = fabs(hits[j].t - bf->h[k].t) <= bvh_tol(&s->box, bf->h[k].t);
        if (!found && !bvh_near_ends(&s->box, r, bf->h[k].t))
            bad++;
    }
    if (bad)
        fprintf(stderr, "ray %zu: all-hits differ (bvh %zu hits, brute force %zu)\n", i, n, bf->count);
    return bad;
}

typedef struct answers {
    mq_hit *closest;
    bool *any;
} answers;

static void answers_alloc(answers *a, size_t n)
{
    a->closest = calloc(n, sizeof *a->closest);
    a->any = calloc(n, sizeof *a->any);
    assert_non_null(a->closest);
    assert_non_null(a->any);
}

static void answers_free(answers *a)
{
    free(a->closest);
    free(a->any);
}

#define ALL_CAP 256

/* Runs every query with the active kernels and compares with brute force. */
static int run_and_check(const ray_set *s, const mq_bvh *bvh, answers *out)
{
    int bad = 0;
    mq_hit *all = malloc(ALL_CAP * sizeof *all);
    assert_non_null(all);
    for (size_t i = 0; i < s->n && bad < 10; i++) {
        bool hit = mq_bvh_raycast_closest(bvh, &s->rays[i], NULL, &out->closest[i]);
        out->any[i] = mq_bvh_raycast_any(bvh, &s->rays[i], NULL);
        bad += check_closest(s, i, &out->closest[i], hit);
        bad += check_any(s, i, out->any[i], &out->closest[i]);
        if (i % 4 == 0) { /* all-hits costs a traversal per hit: every 4th ray */
            size_t n = mq_bvh_raycast_all(bvh, &s->rays[i], NULL, all, ALL_CAP);
            assert_true(n <= ALL_CAP);
            bad += check_all(s, i, all, n);
        }
    }
    free(all);
    return bad;
}

/* Whether two hit records are the same, bit for bit, field by field (the
 * struct has padding). */
static bool same_record(const mq_hit *a, const mq_hit *b)
{
#define SAME(f) (memcmp(&a->f, &b->f, sizeof a->f) == 0)
    return SAME(t) && SAME(point) && SAME(normal) && SAME(u) && SAME(v) && SAME(triangle) && SAME(face) &&
           SAME(back_face) && SAME(has_shading_normal) && SAME(has_uv) && SAME(shading_normal) && SAME(uv) &&
           SAME(group) && SAME(object) && SAME(material);
#undef SAME
}

/* Bit-identical answers from two kernels (each with its own hit records). */
static int same_answers(const answers *a, const answers *b, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (!same_record(&a->closest[i], &b->closest[i]) || a->any[i] != b->any[i])
            bad++;
    }
    return bad;
}

/* The batch API (streamed over big trees) against the single-ray answers,
 * whole records (the batch writes its hit records four at a time). */
static int batch_matches(const ray_set *s, const mq_bvh *bvh, const answers *single)
{
    mq_hit *h = malloc(s->n * sizeof *h);
    bool *o = malloc(s->n);
    assert_true(h && o);
    mq_bvh_raycast_closest_batch(bvh, s->rays, s->n, NULL, 2, h);
    mq_bvh_raycast_any_batch(bvh, s->rays, s->n, NULL, 2, o);
    int bad = 0;
    for (size_t i = 0; i < s->n; i++)
        bad += !same_record(&h[i], &single->closest[i]) || o[i] != single->any[i];
    free(h);
    free(o);
    return bad;
}

static void diff_mesh(const char *name, uint64_t seed)
{
    ray_set s;
    ray_set_init(&s, name, seed);
    static const mq_isa isas[] = {MQ_ISA_SCALAR, MQ_ISA_SSE2, MQ_ISA_AVX2};
    const mq_build_quality qualities[] = {MQ_BUILD_LOW, MQ_BUILD_MEDIUM, MQ_BUILD_HIGH};
    const uint32_t leaf_sizes[] = {4, 8};
    answers ref, cur;
    answers_alloc(&ref, s.n);
    answers_alloc(&cur, s.n);
    for (int qi = 0; qi < 3; qi++)
        for (int li = 0; li < 2; li++) {
            if (li == 1 && qi != MQ_BUILD_MEDIUM)
                continue;
            mq_bvh_def d = mq_default_bvh_def();
            d.quality = qualities[qi];
            d.max_leaf_size = leaf_sizes[li];
            mq_bvh *bvh = NULL;
            assert_int_equal(mq_bvh_build(s.mesh, &d, &bvh, NULL), MQ_OK);
            assert_int_equal(mq_bvh_validate(bvh, NULL), MQ_OK);
            bool first = true;
            for (int k = 0; k < 3; k++) {
                if (mq_isa_override(isas[k]) != isas[k])
                    continue; /* not in this build or on this CPU */
                int bad = run_and_check(&s, bvh, first ? &ref : &cur);
                if (!first)
                    bad += same_answers(&ref, &cur, s.n);
                bad += batch_matches(&s, bvh, first ? &ref : &cur);
                if (bad)
                    fprintf(stderr, "%s quality %d leaf %u kernel %s: %d differences over %zu rays\n", name, qi,
                            leaf_sizes[li], mq_isa_name(isas[k]), bad, s.n);
                assert_int_equal(bad, 0);
                first = false;
            }
            mq_isa_override_clear();
            mq_bvh_destroy(bvh);
        }
    printf("[ info ] %s: %zu triangles, %zu rays x 4 builds agree with brute force\n", name,
           mq_mesh_triangle_count(s.mesh), s.n);
    answers_free(&ref);
    answers_free(&cur);
    ray_set_free(&s);
}

/* A pinhole camera as in docs/formats.md ("primary"), res x res: the
 * batch API traces such rays in packets; each answer must equal the single-ray
 * answer (itself checked against brute force above). */
static void camera_batches_match_single_rays(void **state)
{
    (void)state;
    const int res = 160;
    for (size_t mi = 0; mi < BVH_MESH_COUNT; mi++) {
        mq_mesh *m = mq_test_load_mesh(bvh_meshes[mi]);
        bvh_box bx = bvh_mesh_box(m);
        mq_bvh *bvh = NULL;
        assert_int_equal(mq_bvh_build(m, NULL, &bvh, NULL), MQ_OK);
        double eye[3], fwd[3], right[3], up[3], d0[3] = {1, 0.6, 1.4};
        double l0 = sqrt(d0[0] * d0[0] + d0[1] * d0[1] + d0[2] * d0[2]);
        for (int k = 0; k < 3; k++) {
            eye[k] = bx.c[k] + 1.2 * bx.diag * d0[k] / l0;
            fwd[k] = -d0[k] / l0;
        }
        right[0] = fwd[2], right[1] = 0, right[2] = -fwd[0]; /* fwd x (0,1,0), normalised below */
        double rl = sqrt(right[0] * right[0] + right[2] * right[2]);
        right[0] /= rl, right[2] /= rl;
        up[0] = right[1] * fwd[2] - right[2] * fwd[1];
        up[1] = right[2] * fwd[0] - right[0] * fwd[2];
        up[2] = right[0] * fwd[1] - right[1] * fwd[0];
        double h = tan(22.5 * 3.141592653589793 / 180.0);
        size_t n = (size_t)res * res;
        mq_ray *rays = malloc(n * sizeof *rays);
        mq_hit *hits = malloc(n * sizeof *hits);
        assert_true(rays && hits);
        for (int y = 0; y < res; y++)
            for (int x = 0; x < res; x++) {
                double sx = (2.0 * (x + 0.5) / res - 1.0) * h, sy = (1.0 - 2.0 * (y + 0.5) / res) * h, d[3];
                for (int k = 0; k < 3; k++)
                    d[k] = fwd[k] + sx * right[k] + sy * up[k];
                bvh_set_ray(&rays[(size_t)y * res + x], eye, d, 0.0f, INFINITY);
            }
        size_t hit = mq_bvh_raycast_closest_batch(bvh, rays, n, NULL, 2, hits);
        int bad = 0;
        size_t single_hits = 0;
        for (size_t i = 0; i < n; i++) {
            mq_hit one;
            bool h1 = mq_bvh_raycast_closest(bvh, &rays[i], NULL, &one);
            single_hits += h1;
            bad += h1 != (hits[i].triangle != MQ_NO_TRIANGLE) || !same_record(&one, &hits[i]);
        }
        printf("[ info ] %s: %zu camera rays, %zu hits, batch = single rays\n", bvh_meshes[mi], n, hit);
        assert_int_equal(hit, single_hits);
        assert_int_equal(bad, 0);
        free(rays);
        free(hits);
        mq_bvh_destroy(bvh);
        mq_mesh_destroy(m);
    }
}

/* A tree beyond the last-level cache (a bumpy 600 x 600 grid, 720,000
 * triangles, ~40 MB): the batch interleaves packets and streams there. Camera
 * rays in 4x2 tiles and random rays, batch against single rays. */
static void big_tree_batches_match_single_rays(void **state)
{
    (void)state;
    const int n = 600;
    size_t nv = (size_t)(n + 1) * (n + 1), nt = 2 * (size_t)n * n;
    float *p = malloc(nv * 3 * sizeof *p);
    uint32_t *idx = malloc(nt * 3 * sizeof *idx);
    assert_true(p && idx);
    mq_test_rng g;
    mq_test_rng_seed(&g, 31);
    for (int y = 0; y <= n; y++)
        for (int x = 0; x <= n; x++) {
            float *v = p + 3 * ((size_t)y * (n + 1) + x);
            v[0] = (float)x, v[1] = (float)y, v[2] = (float)mq_test_rng_range(&g, 0.0, 2.0);
        }
    for (int y = 0, t = 0; y < n; y++)
        for (int x = 0; x < n; x++, t += 2) {
            uint32_t a = (uint32_t)(y * (n + 1) + x), b = a + 1, c = a + (uint32_t)n + 1, d = c + 1;
            uint32_t tri[6] = {a, b, d, a, d, c};
            memcpy(idx + 3 * (size_t)t, tri, sizeof tri);
        }
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(p, nv, idx, nt, NULL, &m, NULL), MQ_OK);
    free(p);
    free(idx);
    mq_bvh *bvh = NULL;
    assert_int_equal(mq_bvh_build(m, NULL, &bvh, NULL), MQ_OK);
    assert_true(mq_bvh_byte_count(bvh) > (33u << 20)); /* beyond MQ_PACKET_INTERLEAVE_MIN_BYTES */
    const size_t count = 1u << 16;
    mq_ray *rays = malloc(count * sizeof *rays);
    mq_hit *hits = malloc(count * sizeof *hits);
    assert_true(rays && hits);
    for (size_t i = 0; i < count; i++) {
        double o[3], d[3];
        if (i < count / 2) { /* a camera above a corner, 256 x 128 pixels in 4 x 2 tiles */
            size_t tile = i / 8, in = i % 8;
            double px = (double)((tile % 64) * 4 + in % 4), py = (double)((tile / 64) * 2 + in / 4);
            o[0] = -50, o[1] = -50, o[2] = 300;
            d[0] = 250 + px * 1.5 - o[0], d[1] = 100 + py * 2.5 - o[1], d[2] = 0 - o[2];
        } else {
            for (int k = 0; k < 2; k++)
                o[k] = mq_test_rng_range(&g, 0, n);
            o[2] = mq_test_rng_range(&g, -1, 3);
            mq_test_rng_unit_vector(&g, d);
        }
        bvh_set_ray(&rays[i], o, d, 0.0f, INFINITY);
    }
    size_t h = mq_bvh_raycast_closest_batch(bvh, rays, count, NULL, 2, hits);
    size_t single = 0;
    int bad = 0;
    for (size_t i = 0; i < count; i++) {
        mq_hit one;
        bool h1 = mq_bvh_raycast_closest(bvh, &rays[i], NULL, &one);
        single += h1;
        bad += h1 != (hits[i].triangle != MQ_NO_TRIANGLE) || !same_record(&one, &hits[i]);
    }
    printf("[ info ] 720,000-triangle grid: %zu rays, %zu hits, batch = single rays\n", count, h);
    assert_int_equal(h, single);
    assert_int_equal(bad, 0);
    free(rays);
    free(hits);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(m);
}

static void diff_suzanne(void **state)
{
    (void)state;
    diff_mesh("suzanne.obj", 11);
}
static void diff_woody(void **state)
{
    (void)state;
    diff_mesh("woody.obj", 12);
}
static void diff_spot(void **state)
{
    (void)state;
    diff_mesh("spot.obj", 13);
}
static void diff_cow(void **state)
{
    (void)state;
    diff_mesh("cow.obj", 14);
}
static void diff_teapot(void **state)
{
    (void)state;
    diff_mesh("teapot.obj", 15);
}
static void diff_fandisk(void **state)
{
    (void)state;
    diff_mesh("fandisk.obj", 16);
}
static void diff_bunny(void **state)
{
    (void)state;
    diff_mesh("stanford-bunny.obj", 17);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diff_suzanne),
        cmocka_unit_test(diff_woody),
        cmocka_unit_test(diff_spot),
        cmocka_unit_test(diff_cow),
        cmocka_unit_test(diff_teapot),
        cmocka_unit_test(diff_fandisk),
        cmocka_unit_test(diff_bunny),
        cmocka_unit_test(camera_batches_match_single_rays),
        cmocka_unit_test(big_tree_batches_match_single_rays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
