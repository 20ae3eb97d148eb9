/* mq_convex: the hull builder (shapes, degenerate inputs, scales, errors,
 * every allocation failure) and the exact tests on hand-made cases whose
 * answers are known: touching faces, edges and corners, crossings without a
 * corner inside, zero-area triangles, distances and casts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/convex.h>

#include "int_orient.h"
#include "test_support.h"

/* The 8 corners of [lo, hi]^3 plus duplicates, face centres, edge midpoints
 * and interior points: the hull is the cube. */
static size_t cube_points(float lo, float hi, float *p)
{
    size_t n = 0;
    for (int i = 0; i < 8; i++) {
        p[3 * n] = i & 1 ? hi : lo;
        p[3 * n + 1] = i & 2 ? hi : lo;
        p[3 * n + 2] = i & 4 ? hi : lo;
        n++;
    }
    for (int i = 0; i < 8; i++, n++) /* duplicates */
        memcpy(&p[3 * n], &p[3 * i], sizeof(float[3]));
    float m = 0.5f * lo + 0.5f * hi;
    const float extra[][3] = {{m, m, m},  {lo, m, m},  {hi, m, m},  {m, lo, m},  {m, hi, m}, {m, m, lo},
                              {m, m, hi}, {lo, lo, m}, {hi, hi, m}, {m, lo, hi}, {lo, m, lo}};
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++, n++)
        memcpy(&p[3 * n], extra[i], sizeof(float[3]));
    return n;
}

static mq_convex *make_box(float lo, float hi)
{
    float p[3 * 40];
    size_t n = cube_points(lo, hi, p);
    mq_convex *c = NULL;
    mq_diag d;
    mq_status st = mq_convex_create(p, n, NULL, &c, &d);
    if (st != MQ_OK)
        fail_msg("cube hull failed: %s", d.message);
    return c;
}

static void cube_hull(void **state)
{
    (void)state;
    mq_convex *c = make_box(-1.0f, 1.0f);
    assert_int_equal(mq_convex_vertex_count(c), 8);
    assert_int_equal(mq_convex_face_count(c), 12);
    const float *v = mq_convex_vertices(c);
    for (size_t i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++)
            assert_true(fabsf(v[3 * i + k]) == 1.0f);
    mq_aabb b;
    assert_true(mq_convex_bounds(c, &b));
    assert_true(b.min[0] == -1.0f && b.max[2] == 1.0f);
    /* faces wound outward: each normal points away from the centre */
    const uint32_t *f = mq_convex_faces(c);
    for (size_t t = 0; t < 12; t++) {
        const float *a = v + 3 * f[3 * t], *bb = v + 3 * f[3 * t + 1], *cc = v + 3 * f[3 * t + 2];
        double e1[3], e2[3], n[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = bb[k] - a[k];
            e2[k] = cc[k] - a[k];
        }
        n[0] = e1[1] * e2[2] - e1[2] * e2[1];
        n[1] = e1[2] * e2[0] - e1[0] * e2[2];
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        assert_true(n[0] * a[0] + n[1] * a[1] + n[2] * a[2] > 0.0);
    }
    assert_true(mq_convex_contains_point(c, (vec3){0, 0, 0}));
    assert_true(mq_convex_contains_point(c, (vec3){1, 1, 1}));
    assert_true(mq_convex_contains_point(c, (vec3){1, 0.3f, -1}));
    assert_false(mq_convex_contains_point(c, (vec3){1.0000001f, 0, 0}));
    assert_false(mq_convex_contains_point(c, (vec3){NAN, 0, 0}));
    mq_convex_destroy(c);
    mq_convex_destroy(NULL);
    assert_int_equal(mq_convex_vertex_count(NULL), 0);
    assert_null(mq_convex_vertices(NULL));
}

static void scales(void **state)
{
    (void)state;
    const float s[] = {1e-30f, 1e-20f, 1e-3f, 1.0f, 1e6f, 1e20f, 1e30f};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        mq_convex *c = make_box(-s[i], 3.0f * s[i]);
        assert_int_equal(mq_convex_vertex_count(c), 8);
        assert_int_equal(mq_convex_face_count(c), 12);
        assert_true(mq_convex_contains_point(c, (vec3){s[i], s[i], s[i]}));
        assert_false(mq_convex_contains_point(c, (vec3){4.0f * s[i], s[i], s[i]}));
        mq_triangle touch = {{{3.0f * s[i], 0, 0}, {5.0f * s[i], 0, 0}, {5.0f * s[i], s[i], 0}}};
        assert_true(mq_overlap_convex_triangle(c, &touch));
        mq_triangle away = {{{3.5f * s[i], 0, 0}, {5.0f * s[i], 0, 0}, {5.0f * s[i], s[i], 0}}};
        assert_false(mq_overlap_convex_triangle(c, &away));
        mq_convex_destroy(c);
    }
}

static void expect_error(const float *p, size_t n, mq_status want, const char *word)
{
    static char junk;
    mq_convex *c = (mq_convex *)(void *)&junk; /* any non-NULL: must come back NULL */
    mq_diag d;
    mq_status st = mq_convex_create(p, n, NULL, &c, &d);
    if (st != want)
        fail_msg("%zu points: %s, wanted %s (%s)", n, mq_status_string(st), mq_status_string(want), d.message);
    assert_null(c);
    if (!strstr(d.message, word))
        fail_msg("message '%s' does not say '%s'", d.message, word);
}

static void degenerate_inputs(void **state)
{
    (void)state;
    float p[3 * 64];
    /* one point, repeated */
    for (int i = 0; i < 20; i++)
        p[3 * i] = p[3 * i + 1] = p[3 * i + 2] = 2.5f;
    expect_error(p, 20, MQ_ERR_INVALID_ARG, "one point");
    /* a line */
    for (int i = 0; i < 20; i++) {
        p[3 * i] = (float)i;
        p[3 * i + 1] = 2.0f * (float)i;
        p[3 * i + 2] = -(float)i;
    }
    expect_error(p, 20, MQ_ERR_INVALID_ARG, "line");
    /* a plane, with duplicates */
    for (int i = 0; i < 30; i++) {
        p[3 * i] = (float)(i % 5);
        p[3 * i + 1] = (float)(i / 5);
        p[3 * i + 2] = 7.0f;
    }
    expect_error(p, 30, MQ_ERR_INVALID_ARG, "plane");
    /* too few */
    expect_error(p, 3, MQ_ERR_INVALID_ARG, "fewer than");
    expect_error(p, 0, MQ_ERR_INVALID_ARG, "fewer than");
    /* non-finite */
    size_t n = cube_points(0, 1, p);
    p[3 * 5 + 1] = NAN;
    expect_error(p, n, MQ_ERR_INVALID_ARG, "point 5");
    p[3 * 5 + 1] = INFINITY;
    expect_error(p, n, MQ_ERR_INVALID_ARG, "non-finite");
    /* NULLs */
    mq_convex *c = NULL;
    assert_int_equal(mq_convex_create(NULL, 4, NULL, &c, NULL), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_convex_create(p, 4, NULL, NULL, NULL), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_convex_create(p, (size_t)MQ_CONVEX_MAX_POINTS + 1, NULL, &c, NULL), MQ_ERR_LIMIT);
    double q0[4] = {0, 0, 0, 0};
    n = cube_points(0, 1, p);
    assert_int_equal(mq_convex_create_placed(p, n, NULL, q0, NULL, &c, NULL), MQ_ERR_INVALID_ARG);
}

/* A sliver: a tetrahedron 1e-6 thick over a unit triangle, and a flat sheet
 * of many points with one lifted a little. */
static void slivers(void **state)
{
    (void)state;
    float p[3 * 200];
    float t[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.3f, 0.3f, 1e-6f};
    mq_convex *c = NULL;
    mq_diag d;
    assert_int_equal(mq_convex_create(t, 4, NULL, &c, &d), MQ_OK);
    assert_int_equal(mq_convex_vertex_count(c), 4);
    assert_int_equal(mq_convex_face_count(c), 4);
    mq_convex_destroy(c);
    size_t n = 0;
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++, n++) {
            p[3 * n] = (float)i;
            p[3 * n + 1] = (float)j;
            p[3 * n + 2] = 0.0f;
        }
    p[3 * n] = 4.5f;
    p[3 * n + 1] = 4.5f;
    p[3 * n + 2] = 1e-4f;
    n++;
    assert_int_equal(mq_convex_create(p, n, NULL, &c, &d), MQ_OK);
    assert_int_equal(mq_convex_vertex_count(c), 5); /* the square's corners and the apex */
    assert_true(mq_convex_contains_point(c, (vec3){4.5f, 4.5f, 0.5e-4f}));
    assert_false(mq_convex_contains_point(c, (vec3){4.5f, 4.5f, 2e-4f}));
    mq_convex_destroy(c);
}

/* Points on a sphere (all on the hull) and in a ball: every point inside the
 * hull (to the builder's tolerance), Euler's formula, convexity. */
static void random_hulls(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(25));
    for (int round = 0; round < 40; round++) {
        size_t n = 4 + (size_t)(mq_test_rng_unit(&rng) * (round < 20 ? 60 : 2000));
        float *p = malloc(n * sizeof(float[3]));
        bool sphere = round % 2 == 0;
        double s = pow(10.0, mq_test_rng_range(&rng, -25, 25));
        for (size_t i = 0; i < n; i++) {
            double u[3];
            mq_test_rng_unit_vector(&rng, u);
            double r = sphere ? 1.0 : cbrt(mq_test_rng_unit(&rng));
            for (int k = 0; k < 3; k++)
                p[3 * i + k] = (float)(s * (u[k] * r + 0.25));
        }
        mq_convex *c = NULL;
        mq_diag d;
        assert_int_equal(mq_convex_create(p, n, NULL, &c, &d), MQ_OK);
        size_t nv = mq_convex_vertex_count(c), nf = mq_convex_face_count(c);
        assert_int_equal(nf % 2, 0);
        assert_int_equal(nv, 2 + nf / 2); /* V - E + F = 2 with E = 3F/2 */
        const float *v = mq_convex_vertices(c);
        const uint32_t *f = mq_convex_faces(c);
        for (size_t t = 0; t < nf; t++) {
            double a[3], e1[3], e2[3], nn[3];
            for (int k = 0; k < 3; k++) {
                a[k] = v[3 * f[3 * t] + k];
                e1[k] = v[3 * f[3 * t + 1] + k] - a[k];
                e2[k] = v[3 * f[3 * t + 2] + k] - a[k];
            }
            nn[0] = e1[1] * e2[2] - e1[2] * e2[1];
            nn[1] = e1[2] * e2[0] - e1[0] * e2[2];
            nn[2] = e1[0] * e2[1] - e1[1] * e2[0];
            double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
            assert_true(len > 0.0);
            for (size_t i = 0; i < n; i++) {
                double h = 0.0;
                for (int k = 0; k < 3; k++)
                    h += nn[k] / len * (p[3 * i + k] - a[k]);
                if (h > 1e-6 * s)
                    fail_msg("round %d: point %zu is %g above face %zu (scale %g)", round, i, h, t, s);
            }
        }
        mq_convex_destroy(c);
        free(p);
    }
}

/* ---- every allocation failure ------------------------------------------- */

typedef struct counting {
    long allocs, fail_at;
    long long live;
} counting;

static void *count_alloc(size_t size, size_t align, void *user)
{
    counting *c = user;
    if (++c->allocs == c->fail_at)
        return NULL;
    c->live += (long long)size;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size))
        abort();
    return p;
}

static void count_free(void *ptr, size_t size, void *user)
{
    counting *c = user;
    c->live -= (long long)size;
    free(ptr);
}

static void allocation_failures(void **state)
{
    (void)state;
    size_t n = 3000;
    float *p = malloc(n * sizeof(float[3]));
    mq_test_rng rng;
    mq_test_rng_seed(&rng, 7);
    for (size_t i = 0; i < n; i++) {
        double u[3];
        mq_test_rng_unit_vector(&rng, u);
        for (int k = 0; k < 3; k++)
            p[3 * i + k] = (float)u[k];
    }
    counting c = {0, 0, 0};
    mq_allocator a = {count_alloc, count_free, &c};
    mq_convex *cv = NULL;
    assert_int_equal(mq_convex_create(p, n, &a, &cv, NULL), MQ_OK);
    long total = c.allocs;
    mq_convex_destroy(cv);
    assert_int_equal(c.live, 0);
    assert_true(total > 5);
    for (long k = 1; k <= total; k++) {
        c = (counting){0, k, 0};
        mq_diag d;
        cv = (mq_convex *)(void *)p;
        mq_status st = mq_convex_create(p, n, &a, &cv, &d);
        if (st != MQ_ERR_OUT_OF_MEMORY)
            fail_msg("failing allocation %ld of %ld gave %s", k, total, mq_status_string(st));
        assert_null(cv);
        assert_non_null(strstr(d.message, "out of memory"));
        if (c.live != 0)
            fail_msg("failing allocation %ld leaked %lld bytes", k, c.live);
    }
    double tr[3] = {1, 2, 3}, q[4] = {0.5, 0.5, 0.5, 0.5};
    c = (counting){0, 0, 0};
    assert_int_equal(mq_convex_create_placed(p, n, tr, q, &a, &cv, NULL), MQ_OK);
    total = c.allocs;
    mq_convex_destroy(cv);
    for (long k = 1; k <= total; k++) {
        c = (counting){0, k, 0};
        assert_int_equal(mq_convex_create_placed(p, n, tr, q, &a, &cv, NULL), MQ_ERR_OUT_OF_MEMORY);
        assert_int_equal(c.live, 0);
    }
    free(p);
}

/* ---- every input point inside its hull -------------------------------------- */

/* The input of fuzz_convex_hull (tests/fuzz/corpus_convex_hull/
 * sliver_rim_point_outside) on which the builder once left a point 1.3e10
 * outside its hull, 1% of the cloud's extent: a cloud 1e-12 of its extent
 * thick, with a point beyond the sliver's rim that was within the builder's
 * tolerance of both faces' planes there. */
static const unsigned char sliver_rim_input[] = {
    0x64, 0x64, 0x00, 0xa7, 0x2e, 0x2e, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0c, 0x04, 0x0c, 0x04, 0x2e, 0x2e, 0x2e, 0x2e,
    0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x00, 0x00, 0xc0,
    0x3f, 0xe2, 0x90, 0x53, 0x3f, 0x98, 0xe8, 0x0d, 0x3f, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
    0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x04,
    0x04, 0x04, 0x04, 0x0c, 0x04, 0x0c, 0x04, 0x31, 0x00, 0x16, 0x62, 0x3d, 0xbf, 0xa4, 0x93, 0x50, 0xbf, 0x65, 0xed,
    0xbc, 0x3e, 0x04, 0x0c, 0x04, 0x04, 0x08, 0x04, 0x08, 0x08, 0x04, 0x0c, 0x64, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
    0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x02,
    0x00, 0x00, 0x00, 0x33, 0x21, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
    0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
    0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
    0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
    0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
    0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0xbf, 0xc8,
    0x65, 0xed, 0xbc, 0x0c, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x33, 0x33, 0x33,
    0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
    0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
    0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
    0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0xbf, 0xc8, 0x65, 0xed, 0xbc, 0x0c, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
    0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x4f, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0xaf, 0x43, 0x3f, 0xc8, 0x5e, 0xd0, 0x02, 0x3f, 0xc8, 0x8b, 0xa0, 0x0f, 0xbf, 0xc8,
    0xe5, 0xb0, 0x2e, 0x2e, 0x2e, 0x2e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa7, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
    0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
    0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0x2e, 0x2e,
    0x2e, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
    0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
    0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0xbf,
    0xad, 0xc8, 0x65, 0xed, 0xbc, 0x0c, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
    0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x4f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x00,
    0xaf, 0x43, 0x3f, 0xc8, 0x5e, 0xd0, 0x02, 0x3f, 0xc8, 0x8b, 0xa0, 0x0f, 0xbf, 0xc8, 0xe5, 0xb0, 0x2e, 0x2e, 0x2e,
    0x2e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa7, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
    0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1,
    0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1,
    0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1,
    0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0xd1, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0xb4,
    0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xa0, 0x0f, 0xbf, 0xc8, 0xe5, 0xb0, 0x2e, 0x2e, 0x2e, 0x2e, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa7, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
    0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4,
    0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4,
    0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4,
    0xb4, 0xb4, 0x35, 0xbf, 0xc8, 0xf8, 0xac, 0x66, 0x3f, 0xc8, 0xe0, 0x0a, 0x81, 0xbe, 0xc8, 0x5a, 0x2e, 0x2e, 0x2e,
    0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x64, 0xc8, 0x30, 0xfb, 0x7b, 0xbe, 0xc8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0xb4, 0x06, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0xb4, 0x84,
};

/* The points of a fuzz_convex_hull input, decoded as that target does. */
static size_t decode_fuzz_points(const unsigned char *data, size_t size, float *p, size_t cap)
{
    size_t at = 0, n = 0;
#define NEXT_BYTE() (at < size ? data[at++] : 0u)
    float scale = ldexpf(1.0f, (int)(NEXT_BYTE() % 200) - 100);
    while (at < size && n < cap) {
        for (int k = 0; k < 3; k++) {
            unsigned tag = NEXT_BYTE();
            if (tag < 192) {
                p[3 * n + k] = (float)((int)(tag % 16) - 8) * 0.25f * scale;
            } else {
                uint32_t u = 0;
                for (int i = 0; i < 4; i++)
                    u |= (uint32_t)NEXT_BYTE() << (8 * i);
                memcpy(&p[3 * n + k], &u, sizeof u);
            }
        }
        n++;
    }
#undef NEXT_BYTE
    return n;
}

static double seg_dist2(const double q[3], const double a[3], const double b[3])
{
    double ab[3], aq[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        aq[k] = q[k] - a[k];
    }
    double l = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    double t = l > 0.0 ? (aq[0] * ab[0] + aq[1] * ab[1] + aq[2] * ab[2]) / l : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    double r = 0.0;
    for (int k = 0; k < 3; k++) {
        double x = aq[k] - t * ab[k];
        r += x * x;
    }
    return r;
}

/* A face's unit normal in double, from the two edges at the corner opposite
 * its longest edge. */
static void face_normal(double p[3][3], double n[3])
{
    int o = 0;
    double lmax = -1.0;
    for (int j = 0; j < 3; j++) {
        double l = 0.0;
        for (int k = 0; k < 3; k++)
            l += (p[(j + 2) % 3][k] - p[(j + 1) % 3][k]) * (p[(j + 2) % 3][k] - p[(j + 1) % 3][k]);
        if (l > lmax) {
            lmax = l;
            o = j;
        }
    }
    const double *a = p[o], *b = p[(o + 1) % 3], *c = p[(o + 2) % 3];
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = b[k] - a[k];
        e2[k] = c[k] - a[k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++)
        n[k] = len > 0.0 ? n[k] / len : 0.0;
}

/* Distance in double from q to the solid hull of c, taken as convex.h says
 * the tests take it: the intersection of its faces' half-spaces, each plane
 * moved out to its farthest corner (planes[4 * t]: normal, offset). 0 when q
 * is below every plane; else the least distance to a face triangle (the
 * point of a convex solid nearest to a point outside is on its surface): the
 * plane distance when q's projection falls inside the triangle, else the
 * nearest edge. */
static double hull_distance(const mq_convex *c, const double *planes, const float *q)
{
    const float *v = mq_convex_vertices(c);
    const uint32_t *f = mq_convex_faces(c);
    size_t nf = mq_convex_face_count(c);
    double x[3] = {q[0], q[1], q[2]}, above = 0.0, best = INFINITY;
    for (size_t t = 0; t < nf; t++)
        above =
            fmax(above, planes[4 * t] * x[0] + planes[4 * t + 1] * x[1] + planes[4 * t + 2] * x[2] - planes[4 * t + 3]);
    if (above <= 0.0)
        return 0.0;
    for (size_t t = 0; t < nf; t++) {
        double p[3][3];
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                p[j][k] = v[3 * f[3 * t + j] + k];
        const double *n = planes + 4 * t;
        double h = (x[0] - p[0][0]) * n[0] + (x[1] - p[0][1]) * n[1] + (x[2] - p[0][2]) * n[2];
        /* inside the triangle's prism: q on the inner side of every edge */
        bool in = true;
        for (int j = 0; j < 3 && in; j++) {
            const double *s0 = p[j], *s1 = p[(j + 1) % 3];
            double u[3], w[3];
            for (int k = 0; k < 3; k++) {
                u[k] = s1[k] - s0[k];
                w[k] = x[k] - s0[k];
            }
            double side = n[0] * (u[1] * w[2] - u[2] * w[1]) + n[1] * (u[2] * w[0] - u[0] * w[2]) +
                          n[2] * (u[0] * w[1] - u[1] * w[0]);
            in = side >= 0.0;
        }
        if (in) {
            best = fmin(best, fabs(h));
        } else {
            for (int j = 0; j < 3; j++)
                best = fmin(best, sqrt(seg_dist2(x, p[j], p[(j + 1) % 3])));
        }
    }
    return best;
}

/* Every input point within the builder's stated tolerance of the hull: 1e-13
 * of the power of two above the largest |coordinate| (so at most 2e-13 of
 * that coordinate). Returns the worst distance as a fraction of it. */
static double check_points_inside(const float *p, size_t n, const char *what, int round)
{
    mq_convex *c = NULL;
    mq_diag d;
    if (mq_convex_create(p, n, NULL, &c, &d) != MQ_OK)
        fail_msg("%s %d: %s", what, round, d.message);
    double big = 0.0, worst = 0.0;
    for (size_t i = 0; i < 3 * n; i++)
        big = fmax(big, fabs((double)p[i]));
    size_t nv = mq_convex_vertex_count(c), nf = mq_convex_face_count(c);
    const float *v = mq_convex_vertices(c);
    const uint32_t *f = mq_convex_faces(c);
    double *planes = malloc(nf * 4 * sizeof(double));
    assert_non_null(planes);
    for (size_t t = 0; t < nf; t++) {
        double tri[3][3];
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                tri[j][k] = v[3 * f[3 * t + j] + k];
        double *pl = planes + 4 * t;
        face_normal(tri, pl);
        pl[3] = -INFINITY;
        for (size_t i = 0; i < nv; i++)
            pl[3] = fmax(pl[3], pl[0] * v[3 * i] + pl[1] * v[3 * i + 1] + pl[2] * v[3 * i + 2]);
    }
    for (size_t i = 0; i < n; i++) {
        double r = hull_distance(c, planes, p + 3 * i) / big;
        if (r > 2e-13)
            fail_msg("%s %d: point %zu (%g %g %g) is %g of the extent outside its hull", what, round, i, p[3 * i],
                     p[3 * i + 1], p[3 * i + 2], r);
        worst = fmax(worst, r);
    }
    free(planes);
    assert_int_equal(nv, 2 + nf / 2);
    mq_convex_destroy(c);
    return worst;
}

/* The sliver-rim input at scales 2^-120 .. 2^80 (exact), and clouds built like
 * it: a few points far out on a plane (y = z or z = 0, so its coordinates are
 * exact floats) at 2^38 .. 2^44 and a cluster of small grid points (the
 * fuzzer's quarter steps) near the origin, so the cloud is 1e-13 .. 1e-11 of
 * its extent thick and every rim point is within a few tolerances of the
 * planes beside it. Then every allocation failure of the sliver-rim input. */
static void points_inside_hull(void **state)
{
    (void)state;
    float p[3 * 512];
    size_t n = decode_fuzz_points(sliver_rim_input, sizeof sliver_rim_input, p, 512);
    assert_int_equal(n, 249);
    const int exps[] = {-120, -60, 0, 40, 80};
    for (size_t e = 0; e < sizeof exps / sizeof exps[0]; e++) {
        float q[3 * 512];
        for (size_t i = 0; i < 3 * n; i++)
            q[i] = ldexpf(p[i], exps[e]);
        check_points_inside(q, n, "sliver rim input, exponent", exps[e]);
    }
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(26));
    double worst = 0.0;
    for (int round = 0; round < 300; round++) {
        float far = ldexpf(1.0f, 38 + (int)(mq_test_rng_unit(&rng) * 7));
        size_t nfar = 3 + (size_t)(mq_test_rng_unit(&rng) * 8);
        size_t m = nfar + 4 + (size_t)(mq_test_rng_unit(&rng) * 200);
        bool diagonal = round % 2 == 0;
        for (size_t i = 0; i < m; i++) {
            if (i < nfar) {
                float a = (float)mq_test_rng_range(&rng, -1, 1) * far, b = (float)mq_test_rng_range(&rng, -1, 1) * far;
                p[3 * i] = a;
                p[3 * i + 1] = b;
                p[3 * i + 2] = diagonal ? b : 0.0f;
            } else if (i >= nfar + 2 && mq_test_rng_unit(&rng) < 0.2) {
                memcpy(&p[3 * i], &p[3 * (size_t)(mq_test_rng_unit(&rng) * (double)i)], sizeof(float[3]));
            } else {
                for (int k = 0; k < 3; k++)
                    p[3 * i + k] = (float)((int)(mq_test_rng_unit(&rng) * 16) - 8) * 0.25f;
            }
        }
        int ex = (int)mq_test_rng_range(&rng, -120, 80);
        for (size_t i = 0; i < 3 * m; i++)
            p[i] = ldexpf(p[i], ex);
        /* a cluster too small to lift the cloud off its plane is "flat": skip
         * nothing, but accept the error then */
        mq_convex *c = NULL;
        mq_diag d;
        mq_status st = mq_convex_create(p, m, NULL, &c, &d);
        if (st == MQ_ERR_INVALID_ARG && strstr(d.message, "one plane"))
            continue;
        assert_int_equal(st, MQ_OK);
        mq_convex_destroy(c);
        worst = fmax(worst, check_points_inside(p, m, "sliver cloud", round));
    }
    print_message("sliver clouds: worst point %g of the extent outside its hull\n", worst);

    n = decode_fuzz_points(sliver_rim_input, sizeof sliver_rim_input, p, 512);
    counting c = {0, 0, 0};
    mq_allocator a = {count_alloc, count_free, &c};
    mq_convex *cv = NULL;
    assert_int_equal(mq_convex_create(p, n, &a, &cv, NULL), MQ_OK);
    long total = c.allocs;
    mq_convex_destroy(cv);
    assert_int_equal(c.live, 0);
    for (long k = 1; k <= total; k++) {
        c = (counting){0, k, 0};
        mq_status st = mq_convex_create(p, n, &a, &cv, NULL);
        if (st != MQ_ERR_OUT_OF_MEMORY)
            fail_msg("failing allocation %ld of %ld gave %s", k, total, mq_status_string(st));
        assert_null(cv);
        if (c.live != 0)
            fail_msg("failing allocation %ld leaked %lld bytes", k, c.live);
    }
}

/* A point a hair off the plane of a needle face (a far corner and two near
 * ones), where n . p - d rounds to the wrong side: a fuzzer's cloud whose far
 * point (-A, -A, -A) lies within 1e-16 of the extent of the plane through
 * (-A, -A, -B), (-2, -2, -A) and (-1, 1, -1), 4096 beyond that face. */
static void points_beside_needle_planes(void **state)
{
    (void)state;
    const float A = 0x1.9f9f9ep+32f, B = 0x1.9f9f8ep+32f;
    const float needle[] = {-1, -2, -2, -2, 0,  1,  -1, 1,  -1, -A, -A,    -B, -A, -A, 0,
                            -2, -2, -A, -A, -A, -A, -2, -2, -2, -1, -1.75, 1,  -1, -1, -1};
    const int exps[] = {-100, 0, 60};
    for (size_t e = 0; e < sizeof exps / sizeof exps[0]; e++) {
        float q[sizeof needle / sizeof needle[0]];
        for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
            q[i] = ldexpf(needle[i], exps[e]);
        check_points_inside(q, sizeof q / sizeof q[0] / 3, "needle plane input, exponent", exps[e]);
    }
}

/* ---- exact containment, against an integer oracle ------------------------- */

/* The hull of points with integer coordinates (exact floats): every input
 * point on or below every face's plane, decided exactly; every face a
 * proper triangle (its corners not on one line); a closed triangulated
 * sphere. The builder decides sides exactly, so nothing may be even a
 * rounding outside. Returns false when the builder called the cloud flat. */
static bool check_exact_hull(const float *p, size_t n, const char *what, int round)
{
    mq_convex *c = NULL;
    mq_diag d;
    mq_status st = mq_convex_create(p, n, NULL, &c, &d);
    if (st == MQ_ERR_INVALID_ARG)
        return false;
    if (st != MQ_OK)
        fail_msg("%s %d: %s", what, round, d.message);
    size_t nv = mq_convex_vertex_count(c), nf = mq_convex_face_count(c);
    const float *v = mq_convex_vertices(c);
    const uint32_t *f = mq_convex_faces(c);
    assert_int_equal(nv, 2 + nf / 2);
    for (size_t t = 0; t < nf; t++) {
        int64_t q[3][3];
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                q[j][k] = (int64_t)v[3 * f[3 * t + j] + k];
        bool proper = false;
        for (int k = 0; k < 3 && !proper; k++) {
            int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
            const int64_t a2[2] = {q[0][k1], q[0][k2]}, b2[2] = {q[1][k1], q[1][k2]}, c2[2] = {q[2][k1], q[2][k2]};
            proper = mq_test_orient2d_sign(a2, b2, c2) != 0;
        }
        if (!proper)
            fail_msg("%s %d: face %zu has its corners on one line", what, round, t);
        for (size_t i = 0; i < n; i++) {
            int64_t x[3] = {(int64_t)p[3 * i], (int64_t)p[3 * i + 1], (int64_t)p[3 * i + 2]};
            if (mq_test_orient3d_sign(q[0], q[1], q[2], x) > 0)
                fail_msg("%s %d: point %zu (%g %g %g) is outside face %zu", what, round, i, p[3 * i], p[3 * i + 1],
                         p[3 * i + 2], t);
        }
    }
    mq_convex_destroy(c);
    return true;
}

/* Clouds where every side is a close call: small grid points (duplicates,
 * coplanar and collinear subsets everywhere), the same with a few points far
 * out on a line or in a plane (needle and sliver faces whose planes pass a
 * hair from the small points: the clouds that once left points up to 1% of
 * their extent outside), all with integer coordinates below 2^39. */
static void exact_containment(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(27));
    float p[3 * 300];
    int built = 0;
    for (int round = 0; round < 600; round++) {
        size_t m = 4 + (size_t)(mq_test_rng_unit(&rng) * 200);
        int kind = round % 3;
        float far = ldexpf(1.0f, 20 + (int)(mq_test_rng_unit(&rng) * 19));
        size_t nfar = kind ? 2 + (size_t)(mq_test_rng_unit(&rng) * 6) : 0;
        for (size_t i = 0; i < m; i++) {
            if (i < nfar) {
                /* kind 1: on the line x = y = -far; kind 2: in the plane z = y */
                float a = (float)(int)mq_test_rng_range(&rng, -4096, 4096) * far / 4096.0f;
                float b = (float)(int)mq_test_rng_range(&rng, -4096, 4096) * far / 4096.0f;
                p[3 * i] = kind == 1 ? -far : a;
                p[3 * i + 1] = kind == 1 ? -far : b;
                p[3 * i + 2] = kind == 1 ? a : b;
            } else if (i > nfar && mq_test_rng_unit(&rng) < 0.1) {
                memcpy(&p[3 * i], &p[3 * (size_t)(mq_test_rng_unit(&rng) * (double)i)], sizeof(float[3]));
            } else {
                for (int k = 0; k < 3; k++)
                    p[3 * i + k] = (float)((int)(mq_test_rng_unit(&rng) * 16) - 8);
            }
        }
        built += check_exact_hull(p, m, "exact containment", round);
    }
    print_message("exact containment: %d of 600 clouds built (the rest flat)\n", built);
    assert_true(built > 500);
}

/* ---- overlap, distance and casts on known cases ----------------------------- */

static void triangle_cases(void **state)
{
    (void)state;
    mq_convex *c = make_box(-1.0f, 1.0f);
    struct {
        mq_triangle t;
        bool hit;
        const char *what;
    } cases[] = {
        {{{{0, 0, 0}, {0.1f, 0, 0}, {0, 0.1f, 0}}}, true, "inside"},
        {{{{1, -5, -5}, {1, 5, -5}, {1, 0, 5}}}, true, "in the plane of a face"},
        {{{{1.0000001f, -5, -5}, {1.0000001f, 5, -5}, {1.0000001f, 0, 5}}}, false, "just off a face"},
        {{{{-5, -5, 0}, {5, -5, 0}, {0, 5, 0}}}, true, "pierced, no corner inside"},
        {{{{2, 2, 2}, {1, 1, 1}, {3, 1, 2}}}, true, "a corner on a corner"},
        {{{{3, 0, 0}, {0, 3, 0}, {3, 3, 0}}}, false, "near a vertical edge, outside"},
        {{{{2, 0, 0}, {0, 2, 0}, {2, 2, 0}}}, true, "an edge through a vertical edge"},
        {{{{2, 0, 1}, {0, 2, 1}, {2, 2, 3}}}, true, "an edge through a top corner"},
        {{{{-3, 0.5f, 0.5f}, {3, 0.5f, 0.5f}, {3, 0.5f, 0.5f}}}, true, "a segment through"},
        {{{{-3, 1.5f, 0.5f}, {3, 1.5f, 0.5f}, {3, 1.5f, 0.5f}}}, false, "a segment beside"},
        {{{{0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}}}, true, "a point inside"},
        {{{{NAN, 0, 0}, {0, 0, 0}, {0, 1, 0}}}, false, "NaN corner"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (mq_overlap_convex_triangle(c, &cases[i].t) != cases[i].hit)
            fail_msg("case %zu (%s): wanted %d", i, cases[i].what, cases[i].hit);
    assert_false(mq_overlap_convex_triangle(NULL, &cases[0].t));
    mq_convex_destroy(c);
}

static void convex_pairs(void **state)
{
    (void)state;
    mq_convex *a = make_box(-1.0f, 1.0f), *b = make_box(1.0f, 2.0f), *c = make_box(1.0000001f, 2.0f);
    mq_convex *inner = make_box(-0.5f, 0.5f);
    assert_true(mq_overlap_convex_convex(a, b));  /* a corner touches */
    assert_false(mq_overlap_convex_convex(a, c)); /* a float step apart */
    assert_true(mq_overlap_convex_convex(a, inner));
    assert_true(mq_overlap_convex_convex(inner, a));
    assert_false(mq_overlap_convex_convex(inner, b));
    /* a tilted box through the middle of a's face, no corner of either inside the other */
    float p[3 * 40];
    size_t n = cube_points(-0.2f, 0.2f, p);
    for (size_t i = 0; i < n; i++)
        p[3 * i] *= 20.0f;
    double t[3] = {0, 0, 1.1}, q[4] = {cos(0.3), 0, 0, sin(0.3)};
    mq_convex *bar = NULL;
    assert_int_equal(mq_convex_create_placed(p, n, t, q, NULL, &bar, NULL), MQ_OK);
    assert_true(mq_overlap_convex_convex(a, bar));
    assert_true(mq_overlap_convex_convex(bar, a));
    double pa[3], pb[3];
    assert_true(mq_convex_convex_distance(a, bar, pa, pb) == 0.0);
    double d = mq_convex_convex_distance(a, c, pa, pb);
    assert_true(d > 0.0 && d < 1e-6);
    d = mq_convex_convex_distance(inner, b, pa, pb);
    assert_true(fabs(d - sqrt(3.0) * 0.5) < 1e-9);
    assert_true(fabs(pa[0] - 0.5) < 1e-9 && fabs(pb[2] - 1.0) < 1e-9);
    mq_convex_destroy(a);
    mq_convex_destroy(b);
    mq_convex_destroy(c);
    mq_convex_destroy(inner);
    mq_convex_destroy(bar);
}

static void distances_and_casts(void **state)
{
    (void)state;
    mq_convex *c = make_box(-1.0f, 1.0f);
    vec3 q;
    assert_true(fabsf(mq_convex_closest_point(c, (vec3){3, 0, 0}, q) - 2.0f) < 1e-6f);
    assert_true(fabsf(q[0] - 1.0f) < 1e-6f);
    assert_true(fabsf(mq_convex_closest_point(c, (vec3){2, 2, 2}, q) - sqrtf(3.0f)) < 1e-6f);
    assert_true(mq_convex_closest_point(c, (vec3){0.5f, 0, 0}, q) == 0.0f);
    assert_true(mq_convex_closest_point(c, (vec3){NAN, 0, 0}, q) < 0.0f);
    mq_triangle t = {{{5, -1, -1}, {5, 1, -1}, {5, 0, 1}}};
    double pc[3], pt[3];
    assert_true(fabs(mq_convex_triangle_distance(c, &t, pc, pt) - 4.0) < 1e-9);
    assert_true(fabs(pc[0] - 1.0) < 1e-9 && fabs(pt[0] - 5.0) < 1e-9);
    float th = -1;
    assert_true(mq_convex_cast_triangle(c, (vec3){1, 0, 0}, 10.0f, &t, &th));
    assert_true(fabsf(th - 4.0f) < 1e-5f);
    assert_true(mq_convex_cast_triangle(c, (vec3){2, 0, 0}, 10.0f, &t, &th));
    assert_true(fabsf(th - 2.0f) < 1e-5f);
    assert_false(mq_convex_cast_triangle(c, (vec3){1, 0, 0}, 3.9f, &t, &th));
    assert_false(mq_convex_cast_triangle(c, (vec3){-1, 0, 0}, 10.0f, &t, &th));
    assert_false(mq_convex_cast_triangle(c, (vec3){0, 1, 0}, 10.0f, &t, &th));
    /* a diagonal sweep meeting the triangle's corner with the box's edge */
    mq_triangle corner = {{{3, 3, 0}, {5, 3, 0}, {5, 5, 0}}};
    assert_true(mq_convex_cast_triangle(c, (vec3){1, 1, 0}, 10.0f, &corner, &th));
    assert_true(fabsf(th - 2.0f) < 1e-5f);
    mq_triangle inside = {{{0, 0, 0}, {0.5f, 0, 0}, {0, 0.5f, 0}}};
    assert_true(mq_convex_cast_triangle(c, (vec3){1, 0, 0}, 1.0f, &inside, &th) && th == 0.0f);
    mq_convex_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cube_hull),
        cmocka_unit_test(scales),
        cmocka_unit_test(degenerate_inputs),
        cmocka_unit_test(slivers),
        cmocka_unit_test(random_hulls),
        cmocka_unit_test(allocation_failures),
        cmocka_unit_test(triangle_cases),
        cmocka_unit_test(convex_pairs),
        cmocka_unit_test(distances_and_casts),
        cmocka_unit_test(points_inside_hull),
        cmocka_unit_test(points_beside_needle_planes),
        cmocka_unit_test(exact_containment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
