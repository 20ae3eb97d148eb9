/* mq_convex: the hull builder (shapes, degenerate inputs, scales, errors,
 * every allocation failure) and the exact tests on hand-made cases whose
 * answers are known: touching faces, edges and corners, crossings without a
 * corner inside, zero-area triangles, distances and casts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/convex.h>

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
        cmocka_unit_test(cube_hull),      cmocka_unit_test(scales),       cmocka_unit_test(degenerate_inputs),
        cmocka_unit_test(slivers),        cmocka_unit_test(random_hulls), cmocka_unit_test(allocation_failures),
        cmocka_unit_test(triangle_cases), cmocka_unit_test(convex_pairs), cmocka_unit_test(distances_and_casts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
