/* OBJ reader, white box: cutting polygons into triangles (obj/triangulate.h).
 * A cut is checked by its properties: n-2 triangles, each using three distinct
 * corners and turning the polygon's way, their areas summing to the polygon's,
 * and each lying inside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/triangulate.h"
#include "test_support.h"

typedef struct polygon {
    uint32_t n;
    float *pos; /* 3 per corner */
    double *uv; /* the same in the polygon's own plane coordinates */
    uint32_t *corners;
} polygon;

static void polygon_free(polygon *p)
{
    free(p->pos);
    free(p->uv);
    free(p->corners);
}

/* Places 2D points (u, v) on a random plane through a random point. */
static polygon embed(const double *uv, uint32_t n, mq_test_rng *rng)
{
    polygon p = {n, malloc(12 * (size_t)n), malloc(16 * (size_t)n), malloc(4 * (size_t)n)};
    double q[4], o[3] = {mq_test_rng_range(rng, -5, 5), mq_test_rng_range(rng, -5, 5), mq_test_rng_range(rng, -5, 5)};
    mq_test_rng_quat(rng, q);
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double ax[3] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)};
    double ay[3] = {2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)};
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            p.pos[3 * i + k] = (float)(o[k] + uv[2 * i] * ax[k] + uv[2 * i + 1] * ay[k]);
        p.corners[i] = i;
    }
    memcpy(p.uv, uv, 16 * (size_t)n);
    return p;
}

static double cross2(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static double polygon_area2(const polygon *p)
{
    double a = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        const double *s = p->uv + 2 * i, *t = p->uv + 2 * ((i + 1) % p->n);
        a += s[0] * t[1] - s[1] * t[0];
    }
    return a;
}

/* Even-odd point in polygon (the test points are triangle centroids). */
static bool inside(const polygon *p, const double *q)
{
    bool in = false;
    for (uint32_t i = 0, j = p->n - 1; i < p->n; j = i++) {
        const double *a = p->uv + 2 * i, *b = p->uv + 2 * j;
        if ((a[1] > q[1]) != (b[1] > q[1]) && q[0] < (b[0] - a[0]) * (q[1] - a[1]) / (b[1] - a[1]) + a[0])
            in = !in;
    }
    return in;
}

/* Triangle t of a cut (or of the fan). */
static void tri_of(const uint32_t *cut, bool fan, uint32_t t, uint32_t c[3])
{
    if (fan) {
        c[0] = 0;
        c[1] = t + 1;
        c[2] = t + 2;
    } else {
        memcpy(c, cut + 3 * t, 12);
    }
}

/* Checks a triangulation of a simple polygon (counter-clockwise in uv). */
static void check_cut(const polygon *p, const uint32_t *cut, bool fan)
{
    double total = 0, area = polygon_area2(p);
    assert_true(area > 0);
    for (uint32_t t = 0; t + 2 < p->n; t++) {
        uint32_t c[3];
        tri_of(cut, fan, t, c);
        assert_true(c[0] < p->n && c[1] < p->n && c[2] < p->n);
        assert_true(c[0] != c[1] && c[1] != c[2] && c[0] != c[2]);
        const double *a = p->uv + 2 * c[0], *b = p->uv + 2 * c[1], *d = p->uv + 2 * c[2];
        double t2 = cross2(a, b, d);
        if (t2 < -1e-9 * area)
            fail_msg("triangle %u (%u %u %u) turns the wrong way (%g)", t, c[0], c[1], c[2], t2);
        total += t2;
        double centroid[2] = {(a[0] + b[0] + d[0]) / 3, (a[1] + b[1] + d[1]) / 3};
        if (t2 > 1e-6 * area && !inside(p, centroid))
            fail_msg("triangle %u (%u %u %u) lies outside the polygon", t, c[0], c[1], c[2]);
    }
    if (fabs(total - area) > 1e-5 * area)
        fail_msg("triangles cover %g, the polygon %g", total, area);
}

static mq_tri_result cut(const polygon *p, mq_tri_scratch *s, uint32_t *out)
{
    return mq_triangulate(p->pos, p->corners, p->n, s, out);
}

static void convex_polygons_keep_the_fan(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(3));
    mq_tri_scratch s = {0};
    uint32_t out[3 * 64];
    for (int i = 0; i < 2000; i++) {
        uint32_t n = 4 + (uint32_t)(mq_test_rng_u64(&rng) % 40);
        double uv[128], phase = mq_test_rng_unit(&rng);
        for (uint32_t k = 0; k < n; k++) { /* a regular n-gon, squashed */
            double a = 6.283185307179586 * (k + phase) / n;
            uv[2 * k] = 3 * cos(a);
            uv[2 * k + 1] = 0.5 * sin(a);
        }
        polygon p = embed(uv, n, &rng);
        assert_int_equal(cut(&p, &s, out), MQ_TRI_FAN);
        polygon_free(&p);
    }
    mq_tri_scratch_free(&s);
}

/* Star-shaped around the origin with random radii: concave, simple. */
static void random_concave_polygons(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(5));
    mq_tri_scratch s = {0};
    uint32_t out[3 * 200];
    int clipped = 0;
    for (int i = 0; i < 5000; i++) {
        uint32_t n = 4 + (uint32_t)(mq_test_rng_u64(&rng) % 150);
        double uv[2 * 160];
        for (uint32_t k = 0; k < n; k++) {
            double a = 6.283185307179586 * (k + 0.8 * mq_test_rng_unit(&rng)) / n;
            double r = mq_test_rng_range(&rng, 0.2, 2.0);
            uv[2 * k] = r * cos(a);
            uv[2 * k + 1] = r * sin(a);
        }
        polygon p = embed(uv, n, &rng);
        mq_tri_result r = cut(&p, &s, out);
        assert_true(r != MQ_TRI_NO_MEMORY);
        clipped += r == MQ_TRI_CLIPPED;
        check_cut(&p, out, r == MQ_TRI_FAN);
        polygon_free(&p);
    }
    assert_true(clipped > 4000);
    mq_tri_scratch_free(&s);
}

static void shapes_that_defeat_the_fan(void **state)
{
    (void)state;
    static const double comb[] = {0, 0, 10, 0, 10, 1, 9, 1, 9, 5, 8, 5, 8, 1, 7, 1, 7, 5, 6, 5, 6, 1,
                                  5, 1, 5,  5, 4,  5, 4, 1, 3, 1, 3, 5, 2, 5, 2, 1, 1, 1, 1, 5, 0, 5};
    static const double spiral[] = {0, 0, 6, 0, 6, 6, 1, 6, 1, 2, 4, 2, 4, 4, 3, 4, 3, 3, 2, 3, 2, 5, 5, 5, 5, 1, 0, 1};
    /* a square with a square hole, joined by a bridge (corners repeat) */
    static const double keyhole[] = {0, 0, 10, 0, 10, 10, 0, 10, 0, 0, 3, 3, 3, 7, 7, 7, 7, 3, 3, 3};
    static const double arrow[] = {0, 0, 1, 0.2, 2, 0, 1, 2};
    const struct {
        const double *uv;
        uint32_t n;
    } shapes[] = {{comb, 22}, {spiral, 14}, {keyhole, 10}, {arrow, 4}};
    mq_test_rng rng;
    mq_test_rng_seed(&rng, 9);
    mq_tri_scratch s = {0};
    uint32_t out[3 * 32];
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        for (uint32_t start = 0; start < shapes[i].n; start++) { /* every corner as corner 0 */
            double uv[64];
            for (uint32_t k = 0; k < shapes[i].n; k++)
                memcpy(uv + 2 * k, shapes[i].uv + 2 * ((k + start) % shapes[i].n), 16);
            polygon p = embed(uv, shapes[i].n, &rng);
            mq_tri_result r = cut(&p, &s, out);
            check_cut(&p, out, r == MQ_TRI_FAN);
            polygon_free(&p);
        }
    }
    mq_tri_scratch_free(&s);
}

/* Not simple, or no plane at all: still n-2 triangles of valid corners (the
 * clipper's speed on such faces is for mq-bench obj, not a timed test). */
static void degenerate_polygons_still_give_n_minus_2(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(21));
    mq_tri_scratch s = {0};
    uint32_t n = 3000;
    uint32_t *out = malloc(3 * sizeof(uint32_t) * n);
    double *uv = malloc(16 * (size_t)n);
    for (int shape = 0; shape < 5; shape++) {
        for (uint32_t k = 0; k < n; k++) {
            double a = mq_test_rng_range(&rng, -1, 1), b = mq_test_rng_range(&rng, -1, 1);
            switch (shape) {
            case 0:
                uv[2 * k] = a;
                uv[2 * k + 1] = b;
                break; /* random self-intersecting */
            case 1:
                uv[2 * k] = a;
                uv[2 * k + 1] = 2 * a;
                break; /* all on a line */
            case 2:
                uv[2 * k] = 1;
                uv[2 * k + 1] = 1;
                break; /* all the same point */
            case 3:
                uv[2 * k] = k % 4 < 2 ? 0 : 1;
                uv[2 * k + 1] = (k + 1) % 4 < 2 ? 0 : 1;
                break; /* a square, many times */
            default:
                uv[2 * k] = cos(4 * 3.14159 * k / n);
                uv[2 * k + 1] = sin(4 * 3.14159 * k / n); /* winds twice */
            }
        }
        polygon p = embed(uv, n, &rng);
        mq_tri_result r = cut(&p, &s, out);
        assert_true(r != MQ_TRI_NO_MEMORY);
        if (r == MQ_TRI_CLIPPED) {
            uint32_t *uses = calloc(n, sizeof *uses);
            for (uint32_t t = 0; t + 2 < n; t++)
                for (int k = 0; k < 3; k++) {
                    assert_true(out[3 * t + k] < n);
                    uses[out[3 * t + k]]++;
                }
            for (uint32_t k = 0; k < n; k++)
                assert_true(uses[k] > 0); /* every corner is in some triangle */
            free(uses);
        }
        polygon_free(&p);
    }
    free(uv);
    free(out);
    mq_tri_scratch_free(&s);
}

/* Corners at inf or NaN (loads with allow_non_finite): no plane, the fan stays. */
static void non_finite_corners_keep_the_fan(void **state)
{
    (void)state;
    float pos[] = {0, 0, 0, 6, 0, 0, 6, 3, 0, 2, INFINITY, 0, 0, 1, 0, 1, NAN, 0};
    uint32_t corners[] = {0, 1, 2, 3, 4, 5}, out[12];
    mq_tri_scratch s = {0};
    for (uint32_t n = 4; n <= 6; n++)
        assert_int_equal(mq_triangulate(pos, corners, n, &s, out), MQ_TRI_FAN);
    mq_tri_scratch_free(&s);
}

static void large_concave_polygon(void **state)
{
    (void)state;
    /* a 20000-corner comb: correct, and in reasonable time */
    uint32_t teeth = 5000, n = 4 * teeth + 2;
    double *uv = malloc(16 * (size_t)n);
    uint32_t k = 0;
    for (uint32_t t = 0; t < teeth; t++) {
        uv[2 * k] = 2.0 * t, uv[2 * k + 1] = 1, k++;
        uv[2 * k] = 2.0 * t, uv[2 * k + 1] = 5, k++;
        uv[2 * k] = 2.0 * t + 1, uv[2 * k + 1] = 5, k++;
        uv[2 * k] = 2.0 * t + 1, uv[2 * k + 1] = 1, k++;
    }
    uv[2 * k] = 2.0 * teeth, uv[2 * k + 1] = 0, k++;
    uv[2 * k] = 0, uv[2 * k + 1] = 0, k++;
    /* it runs clockwise as built: reverse it */
    for (uint32_t i = 0; i < n / 2; i++)
        for (int c = 0; c < 2; c++) {
            double t = uv[2 * i + c];
            uv[2 * i + c] = uv[2 * (n - 1 - i) + c];
            uv[2 * (n - 1 - i) + c] = t;
        }
    mq_test_rng rng;
    mq_test_rng_seed(&rng, 1);
    polygon p = embed(uv, n, &rng);
    mq_tri_scratch s = {0};
    uint32_t *out = malloc(3 * sizeof(uint32_t) * n);
    assert_int_equal(cut(&p, &s, out), MQ_TRI_CLIPPED);
    check_cut(&p, out, false);
    mq_tri_scratch_free(&s);
    free(out);
    free(uv);
    polygon_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(convex_polygons_keep_the_fan),    cmocka_unit_test(random_concave_polygons),
        cmocka_unit_test(shapes_that_defeat_the_fan),      cmocka_unit_test(degenerate_polygons_still_give_n_minus_2),
        cmocka_unit_test(non_finite_corners_keep_the_fan), cmocka_unit_test(large_concave_polygon),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
