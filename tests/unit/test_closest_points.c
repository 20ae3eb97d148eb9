/*
 * Closest points and squared distances: point-segment, point-AABB, point-OBB,
 * point-triangle, segment-segment, segment-triangle.
 *
 * Hand-made cases use exactly representable inputs whose answers are exact, so
 * most expectations are exact equalities. Each function also gets a brute-force
 * check over ~2,000 random cases (with a share of degenerate ones): the
 * returned distance must not exceed the minimum over a dense grid of the
 * shapes' parameters (computed in double), the returned points must lie on
 * their sets, and the distance must match the returned points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include <meshquery/primitives.h>

#include "test_support.h"

/* ------------------------------------------------------------------------- */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------- */

#define EXPECT_V3(got, x, y, z)                                                                                        \
    do {                                                                                                               \
        const float *g_ = (got);                                                                                       \
        if (!(g_[0] == (float)(x) && g_[1] == (float)(y) && g_[2] == (float)(z)))                                      \
            fail_msg("%s = (%.9g, %.9g, %.9g), want (%.9g, %.9g, %.9g)", #got, (double)g_[0], (double)g_[1],           \
                     (double)g_[2], (double)(x), (double)(y), (double)(z));                                            \
    } while (0)

#define EXPECT_EQ(got, want)                                                                                           \
    do {                                                                                                               \
        double g_ = (got), w_ = (want);                                                                                \
        if (!(g_ == w_))                                                                                               \
            fail_msg("%s = %.9g, want %.9g", #got, g_, w_);                                                            \
    } while (0)

#define EXPECT_NEAR(got, want, tol)                                                                                    \
    do {                                                                                                               \
        double g_ = (got), w_ = (want);                                                                                \
        if (!(fabs(g_ - w_) <= (tol)))                                                                                 \
            fail_msg("%s = %.9g, want %.9g +- %g", #got, g_, w_, (double)(tol));                                       \
    } while (0)

#define EXPECT_NAN3(v) assert_true(isnan((v)[0]) && isnan((v)[1]) && isnan((v)[2]))

static void set3(vec3 v, float x, float y, float z)
{
    v[0] = x;
    v[1] = y;
    v[2] = z;
}

static void tri_set(mq_triangle *t, float ax, float ay, float az, float bx, float by, float bz, float cx, float cy,
                    float cz)
{
    set3(t->v[0], ax, ay, az);
    set3(t->v[1], bx, by, bz);
    set3(t->v[2], cx, cy, cz);
}

/* Double helpers for the brute-force checks. */
typedef double d3[3];

static void d3_from(d3 out, const vec3 v)
{
    for (int i = 0; i < 3; i++)
        out[i] = v[i];
}
static double d3_dot(const d3 a, const d3 b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static double d3_dist2(const d3 a, const d3 b)
{
    double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
    return x * x + y * y + z * z;
}
static void d3_lerp(d3 out, const d3 a, const d3 b, double t)
{
    for (int i = 0; i < 3; i++)
        out[i] = a[i] + t * (b[i] - a[i]);
}
static void d3_bary(d3 out, const d3 v0, const d3 v1, const d3 v2, double u, double v)
{
    for (int i = 0; i < 3; i++)
        out[i] = v0[i] + u * (v1[i] - v0[i]) + v * (v2[i] - v0[i]);
}

/* Exact point-segment squared distance in double (clamped projection). */
static double d3_point_segment(const d3 p, const d3 a, const d3 b)
{
    d3 ab = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ap = {p[0] - a[0], p[1] - a[1], p[2] - a[2]}, q;
    double den = d3_dot(ab, ab), t = den > 0.0 ? d3_dot(ap, ab) / den : 0.0;
    d3_lerp(q, a, b, t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t);
    return d3_dist2(p, q);
}

/* Point-triangle squared distance in double: the foot point when it falls inside
 * (barycentrics of the plane projection), otherwise the nearest edge. */
static double d3_point_triangle(const d3 p, const d3 v0, const d3 v1, const d3 v2)
{
    d3 e1 = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]}, e2 = {v2[0] - v0[0], v2[1] - v0[1], v2[2] - v0[2]};
    d3 w = {p[0] - v0[0], p[1] - v0[1], p[2] - v0[2]};
    double a = d3_dot(e1, e1), b = d3_dot(e1, e2), c = d3_dot(e2, e2), det = a * c - b * b;
    double best = fmin(d3_point_segment(p, v0, v1), fmin(d3_point_segment(p, v0, v2), d3_point_segment(p, v1, v2)));
    if (det > 1e-12 * a * c) {
        double r1 = d3_dot(w, e1), r2 = d3_dot(w, e2);
        double u = (c * r1 - b * r2) / det, v = (a * r2 - b * r1) / det;
        if (u >= 0.0 && v >= 0.0 && u + v <= 1.0) {
            d3 q;
            d3_bary(q, v0, v1, v2, u, v);
            best = fmin(best, d3_dist2(p, q));
        }
    }
    return best;
}

/* Random float point in [-s, s]^3. */
static void rand_point(mq_test_rng *rng, vec3 out, double s)
{
    for (int i = 0; i < 3; i++)
        out[i] = (float)mq_test_rng_range(rng, -s, s);
}

/* q = p + t*(b - a) in float, for building parallel/collinear inputs. */
static void along(vec3 q, const vec3 p, const vec3 a, const vec3 b, float t)
{
    for (int i = 0; i < 3; i++)
        q[i] = p[i] + t * (b[i] - a[i]);
}

/* Absolute tolerance of the brute-force comparisons: inputs are within [-2, 2]^3,
 * so float rounding in a squared distance stays far below this. */
#define BF_TOL 2e-5
#define BF_CASES 2000
#define GRID 200

/* ------------------------------------------------------------------------- */
/* Point vs segment                                                          */
/* ------------------------------------------------------------------------- */

static void point_segment_regions(void **state)
{
    (void)state;
    vec3 a = {0, 0, 0}, b = {4, 0, 0}, p, q;
    float t;
    set3(p, 1, 2, 0); /* inside */
    EXPECT_EQ(mq_closest_point_segment(p, a, b, q, &t), 4.0f);
    EXPECT_EQ(t, 0.25f);
    EXPECT_V3(q, 1, 0, 0);
    set3(p, -1, 1, 0); /* before a */
    EXPECT_EQ(mq_closest_point_segment(p, a, b, q, &t), 2.0f);
    EXPECT_EQ(t, 0.0f);
    EXPECT_V3(q, 0, 0, 0);
    set3(p, 6, 0, 3); /* past b */
    EXPECT_EQ(mq_closest_point_segment(p, a, b, q, &t), 13.0f);
    EXPECT_EQ(t, 1.0f);
    EXPECT_V3(q, 4, 0, 0);
    set3(p, 3, 0, 0); /* on it */
    EXPECT_EQ(mq_closest_point_segment(p, a, b, q, &t), 0.0f);
    EXPECT_EQ(t, 0.75f);
    /* On a diagonal at t = 1/3 (not representable): still exactly 0. */
    set3(b, 3, 3, 3);
    set3(p, 1, 1, 1);
    EXPECT_EQ(mq_closest_point_segment(p, a, b, q, &t), 0.0f);
    EXPECT_NEAR(t, 1.0 / 3.0, 1e-7);
    /* Outputs may be NULL. */
    set3(p, 1, 1, 5);
    EXPECT_NEAR(mq_closest_point_segment(p, a, b, NULL, NULL), 32.0 / 3.0, 1e-5); /* |p|^2 - (p.(1,1,1))^2/3 */
}

static void point_segment_zero_length(void **state)
{
    (void)state;
    vec3 a = {1, 2, 3}, p = {1, 2, 5}, q;
    float t = -1.0f;
    EXPECT_EQ(mq_closest_point_segment(p, a, a, q, &t), 4.0f);
    EXPECT_EQ(t, 0.0f);
    EXPECT_V3(q, 1, 2, 3);
}

static void point_segment_invalid(void **state)
{
    (void)state;
    vec3 a = {0, 0, 0}, b = {1, 0, 0}, p = {NAN, 0, 0}, q;
    float t = 0.0f;
    assert_true(isnan(mq_closest_point_segment(p, a, b, q, &t)));
    EXPECT_NAN3(q);
    assert_true(isnan(t));
    set3(p, 0, 0, 0);
    b[1] = INFINITY;
    assert_true(isnan(mq_closest_point_segment(p, a, b, q, &t)));
    EXPECT_NAN3(q);
    assert_true(isnan(mq_closest_point_segment(p, a, b, NULL, NULL)));
}

/* Scaling all inputs by 2^k scales the answer exactly; without the kernels'
 * rescaling the products would overflow (2^40) or underflow (2^-70). */
static void point_segment_extreme_scales(void **state)
{
    (void)state;
    const int scales[] = {40, 90, -70, -100};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        float k = ldexpf(1.0f, scales[i]);
        vec3 a = {0, 0, 0}, b = {4 * k, 0, 0}, p = {k, 2 * k, 0}, q;
        float t;
        float d2 = mq_closest_point_segment(p, a, b, q, &t);
        EXPECT_EQ(t, 0.25f);
        EXPECT_V3(q, k, 0, 0);
        /* 2^82; +Inf at 2^90 (2^182 overflows); 2^-138 (subnormal, exact); 0 at 2^-100. */
        EXPECT_EQ(d2, 4.0f * k * k);
    }
    /* Differences that overflow float: the answer is still right, the distance +Inf. */
    vec3 a = {-3e38f, 0, 0}, b = {3e38f, 0, 0}, p = {0, 1e38f, 0}, q;
    float t;
    float d2 = mq_closest_point_segment(p, a, b, q, &t);
    assert_true(isinf(d2) && d2 > 0);
    EXPECT_EQ(t, 0.5f);
    EXPECT_V3(q, 0, 0, 0);
}

static void point_segment_brute_force(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(101));
    for (int n = 0; n < BF_CASES; n++) {
        vec3 p, a, b, q;
        rand_point(&rng, p, 1.0);
        rand_point(&rng, a, 1.0);
        rand_point(&rng, b, 1.0);
        if (n % 10 == 0)
            set3(b, a[0], a[1], a[2]);
        float t;
        float d2 = mq_closest_point_segment(p, a, b, q, &t);
        d3 P, A, B, Q, S;
        d3_from(P, p);
        d3_from(A, a);
        d3_from(B, b);
        d3_from(Q, q);
        double best = INFINITY;
        for (int i = 0; i <= 10 * GRID; i++) {
            d3_lerp(S, A, B, i / (10.0 * GRID));
            best = fmin(best, d3_dist2(P, S));
        }
        if (!(d2 <= best + BF_TOL))
            fail_msg("case %d: d2 %.9g > sampled %.9g", n, (double)d2, best);
        assert_true(t >= 0.0f && t <= 1.0f);
        assert_true(d3_point_segment(Q, A, B) <= 1e-12);
        EXPECT_NEAR(d2, d3_dist2(P, Q), BF_TOL);
    }
}

/* ------------------------------------------------------------------------- */
/* Point vs boxes                                                            */
/* ------------------------------------------------------------------------- */

static void point_aabb_cases(void **state)
{
    (void)state;
    mq_aabb box = {{0, 0, 0}, {2, 4, 6}};
    vec3 p, q;
    set3(p, 1, 1, 1); /* inside: p itself */
    EXPECT_EQ(mq_closest_point_aabb(p, &box, q), 0.0f);
    EXPECT_V3(q, 1, 1, 1);
    set3(p, 1, 5, 1); /* face */
    EXPECT_EQ(mq_closest_point_aabb(p, &box, q), 1.0f);
    EXPECT_V3(q, 1, 4, 1);
    set3(p, 3, 5, 1); /* edge */
    EXPECT_EQ(mq_closest_point_aabb(p, &box, q), 2.0f);
    EXPECT_V3(q, 2, 4, 1);
    set3(p, -1, -2, -3); /* corner */
    EXPECT_EQ(mq_closest_point_aabb(p, &box, q), 14.0f);
    EXPECT_V3(q, 0, 0, 0);
    set3(p, 2, 4, 6); /* on a corner */
    EXPECT_EQ(mq_closest_point_aabb(p, &box, NULL), 0.0f);
    /* Flat box (zero extent in z). */
    mq_aabb flat = {{0, 0, 1}, {2, 2, 1}};
    set3(p, 1, 3, 4);
    EXPECT_EQ(mq_closest_point_aabb(p, &flat, q), 10.0f);
    EXPECT_V3(q, 1, 2, 1);
    /* Empty box and NaN: NaN out. */
    mq_aabb empty = {{1, 0, 0}, {0, 1, 1}};
    assert_true(isnan(mq_closest_point_aabb(p, &empty, q)));
    EXPECT_NAN3(q);
    set3(p, 0, NAN, 0);
    assert_true(isnan(mq_closest_point_aabb(p, &box, q)));
    EXPECT_NAN3(q);
    set3(p, 0, 0, 0);
    box.max[2] = INFINITY;
    assert_true(isnan(mq_closest_point_aabb(p, &box, q)));
}

/* A box turned 90 degrees about z: axes are exact, so is every answer. */
static void make_turned_box(mq_obb *o)
{
    set3(o->center, 10, 0, 0);
    set3(o->half, 1, 2, 3);
    set3(o->axes[0], 0, 1, 0);
    set3(o->axes[1], -1, 0, 0);
    set3(o->axes[2], 0, 0, 1);
}

static void point_obb_cases(void **state)
{
    (void)state;
    mq_obb o;
    make_turned_box(&o); /* world extent: x in [8, 12], y in [-1, 1], z in [-3, 3] */
    vec3 p, q;
    set3(p, 15, 3, 0);
    EXPECT_EQ(mq_closest_point_obb(p, &o, q), 13.0f);
    EXPECT_V3(q, 12, 1, 0);
    set3(p, 9, 0.5f, 1); /* inside: p itself */
    EXPECT_EQ(mq_closest_point_obb(p, &o, q), 0.0f);
    EXPECT_V3(q, 9, 0.5f, 1);
    set3(p, 7, -2, 5);
    EXPECT_EQ(mq_closest_point_obb(p, &o, q), 1.0f + 1.0f + 4.0f);
    EXPECT_V3(q, 8, -1, 3);
    /* Same answers as the equal AABB at random points. */
    mq_aabb box = {{8, -1, -3}, {12, 1, 3}};
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(7));
    for (int i = 0; i < 200; i++) {
        vec3 r, qa;
        rand_point(&rng, r, 4.0);
        r[0] += 10.0f; /* x in [6, 14]: r - centre is exact (Sterbenz), so are both answers */
        EXPECT_EQ(mq_closest_point_obb(r, &o, q), mq_closest_point_aabb(r, &box, qa));
        EXPECT_V3(q, qa[0], qa[1], qa[2]);
    }
    /* Invalid boxes: non-orthonormal axes, negative half extent, NaN. */
    set3(p, 0, 0, 0);
    o.axes[0][1] = 0.9f;
    o.axes[0][0] = 0.2f;
    assert_true(isnan(mq_closest_point_obb(p, &o, q)));
    EXPECT_NAN3(q);
    make_turned_box(&o);
    o.half[1] = -1.0f;
    assert_true(isnan(mq_closest_point_obb(p, &o, q)));
    make_turned_box(&o);
    set3(p, NAN, 0, 0);
    assert_true(isnan(mq_closest_point_obb(p, &o, NULL)));
}

/* Rotated boxes against the box frame computed in double. */
static void point_obb_rotated(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(11));
    for (int n = 0; n < BF_CASES; n++) {
        double qd[4];
        mq_test_rng_quat(&rng, qd);
        float qf[4] = {(float)qd[0], (float)qd[1], (float)qd[2], (float)qd[3]};
        vec3 c, h, p, q;
        rand_point(&rng, c, 1.0);
        for (int i = 0; i < 3; i++)
            h[i] = (float)mq_test_rng_range(&rng, 0.0, 1.0);
        rand_point(&rng, p, 2.0);
        mq_obb o;
        mq_obb_from_quat(c, h, qf, &o);
        float d2 = mq_closest_point_obb(p, &o, q);
        /* Oracle: clamp the local coordinates (the axes are orthonormal to ~1e-7). */
        double want = 0.0;
        for (int i = 0; i < 3; i++) {
            double l = 0.0;
            for (int j = 0; j < 3; j++)
                l += ((double)p[j] - c[j]) * o.axes[i][j];
            double g = fabs(l) - h[i];
            if (g > 0.0)
                want += g * g;
        }
        EXPECT_NEAR(d2, want, BF_TOL);
        d3 P, Q;
        d3_from(P, p);
        d3_from(Q, q);
        EXPECT_NEAR(d3_dist2(P, Q), want, BF_TOL);
    }
}

/* ------------------------------------------------------------------------- */
/* Point vs triangle                                                         */
/* ------------------------------------------------------------------------- */

static void expect_point_triangle(const mq_triangle *t, float px, float py, float pz, float d2, float qx, float qy,
                                  float qz, float u, float v)
{
    vec3 p = {px, py, pz}, q;
    vec2 uv;
    float got = mq_closest_point_triangle(p, t, q, uv);
    if (!(got == d2 && q[0] == qx && q[1] == qy && q[2] == qz && uv[0] == u && uv[1] == v))
        fail_msg("p (%g, %g, %g): d2 %.9g q (%.9g, %.9g, %.9g) uv (%.9g, %.9g); want %g (%g, %g, %g) (%g, %g)",
                 (double)px, (double)py, (double)pz, (double)got, (double)q[0], (double)q[1], (double)q[2],
                 (double)uv[0], (double)uv[1], (double)d2, (double)qx, (double)qy, (double)qz, (double)u, (double)v);
}

static void point_triangle_regions(void **state)
{
    (void)state;
    mq_triangle t;
    tri_set(&t, 0, 0, 0, 4, 0, 0, 0, 4, 0);
    expect_point_triangle(&t, -1, -1, 2, 6, 0, 0, 0, 0, 0);        /* vertex v0 */
    expect_point_triangle(&t, 5, -1, 0, 2, 4, 0, 0, 1, 0);         /* vertex v1 */
    expect_point_triangle(&t, -1, 6, 1, 6, 0, 4, 0, 0, 1);         /* vertex v2 */
    expect_point_triangle(&t, 1, -2, 3, 13, 1, 0, 0, 0.25f, 0);    /* edge v0v1 */
    expect_point_triangle(&t, -3, 2, 0, 9, 0, 2, 0, 0, 0.5f);      /* edge v0v2 */
    expect_point_triangle(&t, 3, 3, 1, 3, 2, 2, 0, 0.5f, 0.5f);    /* edge v1v2 */
    expect_point_triangle(&t, 1, 1, 5, 25, 1, 1, 0, 0.25f, 0.25f); /* face, above */
    expect_point_triangle(&t, 1, 2, -3, 9, 1, 2, 0, 0.25f, 0.5f);  /* face, below */
    expect_point_triangle(&t, 1, 1, 0, 0, 1, 1, 0, 0.25f, 0.25f);  /* on the face */
    expect_point_triangle(&t, 4, 0, 0, 0, 4, 0, 0, 1, 0);          /* on a vertex */
    /* A tilted triangle in the plane x + y + z = 3 (normal (1,1,1)), the foot point
     * (1,1,1) inside: distance^2 = 3 * 2^2 = 12 for p = (3,3,3), exact by the plane form. */
    tri_set(&t, 3, 0, 0, 0, 3, 0, 0, 0, 3);
    vec3 p = {3, 3, 3}, q;
    vec2 uv;
    EXPECT_EQ(mq_closest_point_triangle(p, &t, q, uv), 12.0f);
    EXPECT_NEAR(uv[0], 1.0 / 3.0, 1e-7);
    EXPECT_NEAR(uv[1], 1.0 / 3.0, 1e-7);
    for (int i = 0; i < 3; i++)
        EXPECT_NEAR(q[i], 1.0, 1e-6);
}

static void point_triangle_degenerate(void **state)
{
    (void)state;
    mq_triangle t;
    /* Collinear, longest edge v0v2. */
    tri_set(&t, 0, 0, 0, 1, 0, 0, 4, 0, 0);
    expect_point_triangle(&t, 2, 3, 0, 9, 2, 0, 0, 0, 0.5f);
    expect_point_triangle(&t, -2, 0, 0, 4, 0, 0, 0, 0, 0);
    expect_point_triangle(&t, 6, 0, 0, 4, 4, 0, 0, 0, 1);
    /* Collinear, longest edge v0v1 (v2 in the middle) and v1v2. */
    tri_set(&t, 4, 0, 0, 0, 0, 0, 1, 0, 0);
    expect_point_triangle(&t, 3, 0, 2, 4, 3, 0, 0, 0.25f, 0);
    tri_set(&t, 1, 0, 0, 0, 0, 0, 4, 0, 0);
    expect_point_triangle(&t, 3, 0, 2, 4, 3, 0, 0, 0.25f, 0.75f);
    /* Two equal vertices: a segment. */
    tri_set(&t, 0, 0, 0, 0, 0, 0, 0, 4, 0);
    expect_point_triangle(&t, 1, 2, 0, 1, 0, 2, 0, 0, 0.5f);
    /* All equal: a point. */
    tri_set(&t, 1, 2, 3, 1, 2, 3, 1, 2, 3);
    expect_point_triangle(&t, 1, 2, 5, 4, 1, 2, 3, 0, 0);
    /* Numerically flat sliver (apex 2^-30 off the base): within its width of the base. */
    tri_set(&t, 0, 0, 0, 4, 0, 0, 2, 0x1p-30f, 0);
    vec3 p = {2, -1, 0}, q;
    vec2 uv;
    EXPECT_NEAR(mq_closest_point_triangle(p, &t, q, uv), 1.0, 1e-6);
    EXPECT_NEAR(q[0], 2.0, 1e-6);
    EXPECT_NEAR(q[1], 0.0, 1e-6);
    set3(p, 2, 0x1p-31f, 1); /* above the sliver */
    EXPECT_NEAR(mq_closest_point_triangle(p, &t, q, uv), 1.0, 1e-6);
}

static void point_triangle_invalid(void **state)
{
    (void)state;
    mq_triangle t;
    tri_set(&t, 0, 0, 0, 4, 0, 0, 0, 4, 0);
    vec3 p = {1, NAN, 0}, q;
    vec2 uv = {0, 0};
    assert_true(isnan(mq_closest_point_triangle(p, &t, q, uv)));
    EXPECT_NAN3(q);
    assert_true(isnan(uv[0]) && isnan(uv[1]));
    set3(p, 1, 1, 1);
    t.v[2][2] = -INFINITY;
    assert_true(isnan(mq_closest_point_triangle(p, &t, q, uv)));
    EXPECT_NAN3(q);
    assert_true(isnan(mq_closest_point_triangle(p, NULL, NULL, NULL)));
}

/* The region cases scaled by 2^k: exact, and the fourth powers inside would
 * overflow (k = 40, 60) or underflow (k = -40, -60) without rescaling. */
static void point_triangle_extreme_scales(void **state)
{
    (void)state;
    const int scales[] = {40, 60, -40, -60};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        float k = ldexpf(1.0f, scales[i]);
        mq_triangle t;
        tri_set(&t, 0, 0, 0, 4 * k, 0, 0, 0, 4 * k, 0);
        expect_point_triangle(&t, k, k, 5 * k, 25 * k * k, k, k, 0, 0.25f, 0.25f);
        expect_point_triangle(&t, 3 * k, 3 * k, k, 3 * k * k, 2 * k, 2 * k, 0, 0.5f, 0.5f);
        expect_point_triangle(&t, k, -2 * k, 3 * k, 13 * k * k, k, 0, 0, 0.25f, 0);
    }
    /* Far from the origin (2^20, ulp 1/8): exact too, since all differences are
     * taken before anything is multiplied. */
    float o = 0x1p20f;
    mq_triangle t;
    tri_set(&t, o, o, o, o + 256, o, o, o, o + 256, o);
    expect_point_triangle(&t, o + 64, o + 64, o + 128, 128 * 128, o + 64, o + 64, o, 0.25f, 0.25f);
}

/* Random triangles, with degenerate ones, against a 200x200 barycentric grid. */
static void point_triangle_brute_force(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(202));
    for (int n = 0; n < BF_CASES; n++) {
        mq_triangle t;
        vec3 p, q;
        vec2 uv;
        for (int i = 0; i < 3; i++)
            rand_point(&rng, t.v[i], 1.0);
        rand_point(&rng, p, 1.5);
        switch (n % 10) {
        case 0: /* collinear */
            along(t.v[2], t.v[0], t.v[0], t.v[1], (float)mq_test_rng_range(&rng, -1.5, 1.5));
            break;
        case 1: /* two vertices equal, or all */
            set3(t.v[1], t.v[0][0], t.v[0][1], t.v[0][2]);
            if (n % 20 == 1)
                set3(t.v[2], t.v[0][0], t.v[0][1], t.v[0][2]);
            break;
        case 2: /* p near the plane */
            for (int i = 0; i < 3; i++)
                p[i] = (t.v[0][i] + t.v[1][i] + t.v[2][i]) / 3.0f + (float)mq_test_rng_range(&rng, -1e-3, 1e-3);
            break;
        case 3: /* sliver */
            along(t.v[2], t.v[0], t.v[0], t.v[1], 0.5f);
            t.v[2][2] += 1e-4f;
            break;
        default:
            break;
        }
        float d2 = mq_closest_point_triangle(p, &t, q, uv);
        d3 P, V0, V1, V2, S, Q;
        d3_from(P, p);
        d3_from(V0, t.v[0]);
        d3_from(V1, t.v[1]);
        d3_from(V2, t.v[2]);
        d3_from(Q, q);
        double best = INFINITY;
        for (int i = 0; i <= GRID; i++)
            for (int j = 0; i + j <= GRID; j++) {
                d3_bary(S, V0, V1, V2, (double)i / GRID, (double)j / GRID);
                best = fmin(best, d3_dist2(P, S));
            }
        if (!(d2 <= best + BF_TOL))
            fail_msg("case %d: d2 %.9g > sampled %.9g", n, (double)d2, best);
        /* (u, v) are barycentrics of the output point, which lies on the triangle. */
        assert_true(uv[0] >= -1e-6f && uv[1] >= -1e-6f && uv[0] + uv[1] <= 1.0f + 1e-6f);
        d3_bary(S, V0, V1, V2, uv[0], uv[1]);
        assert_true(d3_dist2(S, Q) <= 1e-11);
        EXPECT_NEAR(d2, d3_dist2(P, Q), BF_TOL);
        assert_true(d3_point_triangle(Q, V0, V1, V2) <= 1e-11);
    }
}

/* A sliver found by tests/diff (|n| / (|e01| |e02|) = 3.8e-5) and a point 2.68e-9
 * from its face. Signed areas taken in float from mixed difference vectors were
 * off by 1e-3 of the area here: distance 0.17, barycentrics (0.518, 0.311). The
 * expectations are exact (rational arithmetic on the float inputs). */
static void point_triangle_sliver(void **state)
{
    (void)state;
    mq_triangle t;
    tri_set(&t, -0x1.071866p+0f, 0x1.49e768p-1f, 0x1.7b355ep-1f, -0x1.3a3ddcp+0f, -0x1.a13698p+0f, 0x1.5123bp+1f,
            -0x1.073cdp+0f, 0x1.46aa1ap-1f, 0x1.7de7d4p-1f);
    vec3 p = {-0x1.1eb1bp+0f, -0x1.9ea19p-2f, 0x1.9d3b66p+0f}, q;
    vec2 uv;
    float d2 = mq_closest_point_triangle(p, &t, q, uv);
    /* A few float ulps of the scale (2.6): the kernels start from rounded differences. */
    EXPECT_NEAR(sqrt(d2), 2.6794776820912515e-09, 1e-7);
    EXPECT_NEAR(q[0], -1.1198987977512442, 1e-6);
    EXPECT_NEAR(q[1], -0.4049131856014405, 1e-6);
    EXPECT_NEAR(q[2], 1.6141875997645347, 1e-6);
    /* On a sliver (u, v) are ill-conditioned along its length (a 1-ulp change of a
     * difference moves v by ~0.05 here and the point only by the sliver's width), so
     * what is checked is the point they name: the returned one. */
    assert_true(uv[0] >= 0.0f && uv[1] >= 0.0f && uv[0] + uv[1] <= 1.0f + 1e-6f);
    d3 V0, V1, V2, S, Q;
    d3_from(V0, t.v[0]);
    d3_from(V1, t.v[1]);
    d3_from(V2, t.v[2]);
    d3_from(Q, q);
    d3_bary(S, V0, V1, V2, uv[0], uv[1]);
    assert_true(d3_dist2(S, Q) <= 1e-12);
    /* The same distance without the outputs (the overlap test's path). */
    EXPECT_EQ(mq_closest_point_triangle(p, &t, NULL, NULL), d2);
}

/* ------------------------------------------------------------------------- */
/* Segment vs segment                                                        */
/* ------------------------------------------------------------------------- */

static void expect_segseg(float ax, float ay, float az, float bx, float by, float bz, float cx, float cy, float cz,
                          float dx, float dy, float dz, float d2, const float *qa, const float *qb)
{
    vec3 a0 = {ax, ay, az}, a1 = {bx, by, bz}, b0 = {cx, cy, cz}, b1 = {dx, dy, dz}, oa, ob;
    float got = mq_closest_points_segment_segment(a0, a1, b0, b1, oa, ob);
    if (!(got == d2))
        fail_msg("d2 %.9g, want %.9g", (double)got, (double)d2);
    if (qa)
        EXPECT_V3(oa, qa[0], qa[1], qa[2]);
    if (qb)
        EXPECT_V3(ob, qb[0], qb[1], qb[2]);
    /* Symmetric in the order of the segments and of their endpoints. */
    EXPECT_EQ(mq_closest_points_segment_segment(b0, b1, a0, a1, NULL, NULL), d2);
    EXPECT_NEAR(mq_closest_points_segment_segment(a1, a0, b1, b0, NULL, NULL), d2, 1e-6 * (1.0 + d2));
}

static void segment_segment_cases(void **state)
{
    (void)state;
    /* Crossing, perpendicular. */
    expect_segseg(0, 0, 0, 4, 0, 0, 1, -1, 0, 1, 3, 0, 0, (vec3){1, 0, 0}, (vec3){1, 0, 0});
    /* Skew, perpendicular, inside both. */
    expect_segseg(0, 0, 0, 4, 0, 0, 1, -1, 2, 1, 3, 2, 4, (vec3){1, 0, 0}, (vec3){1, 0, 2});
    /* Skew diagonals, s = t = 1/2. */
    expect_segseg(0, 0, 0, 2, 2, 0, 0, 2, 1, 2, 0, 1, 1, (vec3){1, 1, 0}, (vec3){1, 1, 1});
    /* Crossing diagonals at a non-representable parameter: still exactly 0. */
    expect_segseg(0, 0, 0, 3, 3, 0, 0, 2, 0, 2, 0, 0, 0, NULL, NULL);
    /* Endpoint of one vs inside of the other. */
    expect_segseg(0, 0, 0, 4, 0, 0, 2, 1, 0, 2, 5, 0, 1, (vec3){2, 0, 0}, (vec3){2, 1, 0});
    expect_segseg(0, 0, 0, 4, 0, 0, 1, 3, 4, 1, 3, 9, 25, (vec3){1, 0, 0}, (vec3){1, 3, 4});
    /* Endpoint vs endpoint. */
    expect_segseg(0, 0, 0, 1, 0, 0, 2, 1, 0, 3, 5, 0, 2, (vec3){1, 0, 0}, (vec3){2, 1, 0});
    /* Collinear, disjoint; and antiparallel. */
    expect_segseg(0, 0, 0, 1, 0, 0, 3, 0, 0, 5, 0, 0, 4, (vec3){1, 0, 0}, (vec3){3, 0, 0});
    expect_segseg(0, 0, 0, 1, 0, 0, 5, 0, 0, 3, 0, 0, 4, (vec3){1, 0, 0}, (vec3){3, 0, 0});
    /* Parallel, offset, not overlapping: end to end. */
    expect_segseg(0, 0, 0, 1, 0, 0, 4, 4, 0, 6, 4, 0, 25, (vec3){1, 0, 0}, (vec3){4, 4, 0});
    /* Zero-length segments: one, the other, both. */
    expect_segseg(1, 1, 1, 1, 1, 1, 0, 0, 0, 4, 0, 0, 2, (vec3){1, 1, 1}, (vec3){1, 0, 0});
    expect_segseg(0, 0, 0, 4, 0, 0, 5, 1, 0, 5, 1, 0, 2, (vec3){4, 0, 0}, (vec3){5, 1, 0});
    expect_segseg(0, 0, 0, 0, 0, 0, 1, 2, 2, 1, 2, 2, 9, (vec3){0, 0, 0}, (vec3){1, 2, 2});
}

static void segment_segment_parallel_overlap(void **state)
{
    (void)state;
    /* Parallel and overlapping: any pair over the overlap is right. */
    vec3 a0 = {0, 0, 0}, a1 = {4, 0, 0}, b0 = {2, 3, 0}, b1 = {6, 3, 0}, oa, ob;
    EXPECT_EQ(mq_closest_points_segment_segment(a0, a1, b0, b1, oa, ob), 9.0f);
    assert_true(oa[0] >= 2.0f && oa[0] <= 4.0f && oa[1] == 0.0f && oa[2] == 0.0f);
    EXPECT_V3(ob, oa[0], 3, 0);
    /* Collinear and overlapping: 0. */
    set3(b0, 3, 0, 0);
    set3(b1, -1, 0, 0);
    EXPECT_EQ(mq_closest_points_segment_segment(a0, a1, b0, b1, oa, ob), 0.0f);
    EXPECT_V3(oa, ob[0], ob[1], ob[2]);
    /* Long, nearly parallel segments crossing at their middle (angle 1e-4): the
     * determinant a*e - b^2 would be lost to cancellation in float. */
    set3(a1, 1000, 0, 0);
    set3(b0, 0, -0.05f, 0);
    set3(b1, 1000, 0.05f, 0);
    float d2 = mq_closest_points_segment_segment(a0, a1, b0, b1, oa, ob);
    assert_true(d2 <= 1e-8f);
    EXPECT_NEAR(oa[0], 500.0, 0.5);
    /* Same, skew by 1 in z. */
    b0[2] = b1[2] = 1.0f;
    EXPECT_NEAR(mq_closest_points_segment_segment(a0, a1, b0, b1, oa, ob), 1.0, 1e-4);
}

static void segment_segment_invalid_and_scales(void **state)
{
    (void)state;
    vec3 a0 = {0, 0, 0}, a1 = {1, 0, 0}, b0 = {0, 1, 0}, b1 = {INFINITY, 1, 0}, oa, ob;
    assert_true(isnan(mq_closest_points_segment_segment(a0, a1, b0, b1, oa, ob)));
    EXPECT_NAN3(oa);
    EXPECT_NAN3(ob);
    b1[0] = NAN;
    assert_true(isnan(mq_closest_points_segment_segment(a0, a1, b0, b1, NULL, ob)));
    const int scales[] = {40, 60, -40, -60};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        float k = ldexpf(1.0f, scales[i]);
        set3(a0, 0, 0, 0);
        set3(a1, 2 * k, 2 * k, 0);
        set3(b0, 0, 2 * k, k);
        set3(b1, 2 * k, 0, k);
        EXPECT_EQ(mq_closest_points_segment_segment(a0, a1, b0, b1, oa, ob), k * k);
        EXPECT_V3(oa, k, k, 0);
        EXPECT_V3(ob, k, k, k);
    }
}

static void segment_segment_brute_force(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(303));
    for (int n = 0; n < BF_CASES; n++) {
        vec3 a0, a1, b0, b1, oa, ob;
        rand_point(&rng, a0, 1.0);
        rand_point(&rng, a1, 1.0);
        rand_point(&rng, b0, 1.0);
        rand_point(&rng, b1, 1.0);
        switch (n % 10) {
        case 0: /* parallel */
            along(b1, b0, a0, a1, (float)mq_test_rng_range(&rng, -1.5, 1.5));
            break;
        case 1: /* collinear */
            along(b0, a0, a0, a1, (float)mq_test_rng_range(&rng, -1.5, 1.5));
            along(b1, a0, a0, a1, (float)mq_test_rng_range(&rng, -1.5, 1.5));
            break;
        case 2: /* zero length */
            set3(a1, a0[0], a0[1], a0[2]);
            if (n % 20 == 2)
                set3(b1, b0[0], b0[1], b0[2]);
            break;
        case 3: /* nearly parallel */
            along(b1, b0, a0, a1, 1.0f);
            b1[1] += 1e-4f;
            break;
        default:
            break;
        }
        float d2 = mq_closest_points_segment_segment(a0, a1, b0, b1, oa, ob);
        d3 A0, A1, B0, B1, S, T, OA, OB;
        d3_from(A0, a0);
        d3_from(A1, a1);
        d3_from(B0, b0);
        d3_from(B1, b1);
        d3_from(OA, oa);
        d3_from(OB, ob);
        double best = INFINITY;
        for (int i = 0; i <= GRID; i++) {
            d3_lerp(S, A0, A1, (double)i / GRID);
            for (int j = 0; j <= GRID; j++) {
                d3_lerp(T, B0, B1, (double)j / GRID);
                best = fmin(best, d3_dist2(S, T));
            }
        }
        if (!(d2 <= best + BF_TOL))
            fail_msg("case %d: d2 %.9g > sampled %.9g", n, (double)d2, best);
        assert_true(d3_point_segment(OA, A0, A1) <= 1e-11);
        assert_true(d3_point_segment(OB, B0, B1) <= 1e-11);
        EXPECT_NEAR(d2, d3_dist2(OA, OB), BF_TOL);
    }
}

/* ------------------------------------------------------------------------- */
/* Segment vs triangle                                                       */
/* ------------------------------------------------------------------------- */

static float segtri(const mq_triangle *t, float ax, float ay, float az, float bx, float by, float bz, vec3 os, vec3 ot)
{
    vec3 a = {ax, ay, az}, b = {bx, by, bz};
    float d2 = mq_closest_points_segment_triangle(a, b, t, os, ot);
    /* The direction of the segment does not matter. */
    float r = mq_closest_points_segment_triangle(b, a, t, NULL, NULL);
    if (!(fabsf(r - d2) <= 1e-6f * (1.0f + d2)))
        fail_msg("reversed segment: %.9g vs %.9g", (double)r, (double)d2);
    return d2;
}

static void segment_triangle_cases(void **state)
{
    (void)state;
    mq_triangle t;
    tri_set(&t, 0, 0, 0, 4, 0, 0, 0, 4, 0);
    vec3 os, ot;
    /* Piercing the face, an edge, a vertex. */
    EXPECT_EQ(segtri(&t, 1, 1, -1, 1, 1, 3, os, ot), 0.0f);
    EXPECT_V3(os, 1, 1, 0);
    EXPECT_V3(ot, 1, 1, 0);
    EXPECT_EQ(segtri(&t, 2, 0, -1, 2, 0, 1, os, ot), 0.0f);
    EXPECT_V3(ot, 2, 0, 0);
    EXPECT_EQ(segtri(&t, 0, 0, -1, 0, 0, 1, os, ot), 0.0f);
    EXPECT_V3(ot, 0, 0, 0);
    /* Oblique piercing. */
    EXPECT_EQ(segtri(&t, 0, 0, -2, 2, 2, 2, os, ot), 0.0f);
    EXPECT_V3(ot, 1, 1, 0);
    /* Endpoint above the face. */
    EXPECT_EQ(segtri(&t, 1, 1, 2, 1, 1, 5, os, ot), 4.0f);
    EXPECT_V3(os, 1, 1, 2);
    EXPECT_V3(ot, 1, 1, 0);
    /* Parallel to the face above it (any pair over the face). */
    EXPECT_EQ(segtri(&t, 1, 1, 2, 2, 1, 2, os, ot), 4.0f);
    EXPECT_V3(ot, os[0], os[1], 0);
    /* Parallel, reaching past an edge. */
    EXPECT_EQ(segtri(&t, -1, 1, 2, 1, 1, 2, os, ot), 4.0f);
    /* Skew to an edge, inside both (segment below the edge v0v1). */
    EXPECT_EQ(segtri(&t, 2, -1, -1, 2, -1, 1, os, ot), 1.0f);
    EXPECT_V3(os, 2, -1, 0);
    EXPECT_V3(ot, 2, 0, 0);
    /* Endpoint nearest to an edge / a vertex. */
    EXPECT_EQ(segtri(&t, 2, -3, 0, 2, -9, 0, os, ot), 9.0f);
    EXPECT_V3(ot, 2, 0, 0);
    EXPECT_EQ(segtri(&t, 5, 5, 0, 6, 6, 0, os, ot), 18.0f);
    EXPECT_V3(ot, 2, 2, 0);
    /* In the plane: crossing the triangle, inside it. */
    EXPECT_EQ(segtri(&t, -1, 1, 0, 5, 1, 0, os, ot), 0.0f);
    EXPECT_EQ(segtri(&t, 1, 1, 0, 2, 1, 0, os, ot), 0.0f);
    /* Zero-length segment: a point. */
    EXPECT_EQ(segtri(&t, 1, 1, 3, 1, 1, 3, os, ot), 9.0f);
    EXPECT_V3(ot, 1, 1, 0);
}

static void segment_triangle_degenerate(void **state)
{
    (void)state;
    mq_triangle t;
    vec3 os, ot;
    tri_set(&t, 0, 0, 0, 2, 0, 0, 4, 0, 0); /* collinear */
    EXPECT_EQ(segtri(&t, 1, -1, 1, 1, 1, 1, os, ot), 1.0f);
    EXPECT_V3(os, 1, 0, 1);
    EXPECT_V3(ot, 1, 0, 0);
    EXPECT_EQ(segtri(&t, 1, -1, 0, 1, 1, 0, os, ot), 0.0f); /* crosses it */
    EXPECT_EQ(segtri(&t, 6, 1, 0, 6, 5, 0, os, ot), 5.0f);
    EXPECT_V3(ot, 4, 0, 0);
    tri_set(&t, 1, 1, 1, 1, 1, 1, 1, 1, 1); /* a point */
    EXPECT_EQ(segtri(&t, 0, 0, 0, 2, 2, 2, os, ot), 0.0f);
    EXPECT_EQ(segtri(&t, 0, 0, 3, 2, 0, 3, os, ot), 5.0f);
    EXPECT_V3(os, 1, 0, 3);
    EXPECT_V3(ot, 1, 1, 1);
}

static void segment_triangle_invalid_and_scales(void **state)
{
    (void)state;
    mq_triangle t;
    tri_set(&t, 0, 0, 0, 4, 0, 0, 0, 4, 0);
    vec3 a = {1, 1, NAN}, b = {1, 1, 1}, os, ot;
    assert_true(isnan(mq_closest_points_segment_triangle(a, b, &t, os, ot)));
    EXPECT_NAN3(os);
    EXPECT_NAN3(ot);
    a[2] = 0.0f;
    t.v[1][0] = INFINITY;
    assert_true(isnan(mq_closest_points_segment_triangle(a, b, &t, os, NULL)));
    EXPECT_NAN3(os);
    assert_true(isnan(mq_closest_points_segment_triangle(a, b, NULL, NULL, NULL)));
    const int scales[] = {40, 60, -40, -60};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        float k = ldexpf(1.0f, scales[i]);
        tri_set(&t, 0, 0, 0, 4 * k, 0, 0, 0, 4 * k, 0);
        set3(a, 2 * k, -k, -k);
        set3(b, 2 * k, -k, k);
        EXPECT_EQ(mq_closest_points_segment_triangle(a, b, &t, os, ot), k * k);
        EXPECT_V3(ot, 2 * k, 0, 0);
        set3(a, k, k, -k);
        set3(b, k, k, 3 * k);
        EXPECT_EQ(mq_closest_points_segment_triangle(a, b, &t, os, ot), 0.0f);
        EXPECT_V3(ot, k, k, 0);
    }
}

/* Slivers found by tests/diff. (a) The end a is 9.5e-9 from the triangle and the
 * segment crosses it: the crossing's barycentrics, from mixed float differences,
 * put the two output points 1.65e-3 apart while reporting 0. (b) A segment
 * 3.17e-5 beside a triangle of aspect 4.9e-5 was reported crossing it. */
static void segment_triangle_slivers(void **state)
{
    (void)state;
    mq_triangle t;
    tri_set(&t, -0x1.31ed72p-2f, 0x1.773f4p+0f, 0x1.411c98p+0f, -0x1.aeb2f8p+0f, 0x1.770686p+0f, 0x1.4233ep-4f,
            -0x1.2e2364p-2f, 0x1.773f7cp+0f, 0x1.41ea7ep+0f);
    vec3 a = {-0x1.2ef0a4p-1f, 0x1.77333ep+0f, 0x1.01652cp+0f}, b = {-0x1.32b094p-2f, 0x1.773f34p+0f, 0x1.40f32ep+0f};
    vec3 os, ot;
    float d2 = mq_closest_points_segment_triangle(a, b, &t, os, ot);
    EXPECT_NEAR(sqrt(d2), 9.5e-9, 1e-7);
    d3 OS, OT, A, B, V0, V1, V2;
    d3_from(OS, os);
    d3_from(OT, ot);
    EXPECT_NEAR(sqrt(d3_dist2(OS, OT)), sqrt(d2), 1e-6);
    d3_from(A, a);
    d3_from(B, b);
    d3_from(V0, t.v[0]);
    d3_from(V1, t.v[1]);
    d3_from(V2, t.v[2]);
    assert_true(d3_point_segment(OS, A, B) <= 1e-12 && d3_point_triangle(OT, V0, V1, V2) <= 1e-12);

    tri_set(&t, -0x1.0c6b54p-1f, -0x1.1c7e1cp-1f, 0x1.90cf86p-3f, 0x1.4869dcp-4f, -0x1.2310b8p+0f, 0x1.9a36fap-2f,
            0x1.7b7cp-2f, -0x1.6a8982p+0f, 0x1.fef792p-2f);
    set3(a, 0x1.777d4cp-4f, -0x1.25e6cap+0f, 0x1.9e3c84p-2f);
    set3(b, 0x1.777d4cp-4f, -0x1.703b46p-1f, 0x1.9e3c84p-2f);
    d2 = mq_closest_points_segment_triangle(a, b, &t, os, ot);
    EXPECT_NEAR(sqrt(d2), 3.1743489e-05, 1e-7);
    d3_from(OS, os);
    d3_from(OT, ot);
    EXPECT_NEAR(sqrt(d3_dist2(OS, OT)), sqrt(d2), 1e-6);
}

/* Random segments and triangles against a 200x200 barycentric grid of the
 * triangle, each grid point's exact distance to the segment in double. */
static void segment_triangle_brute_force(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(404));
    for (int n = 0; n < BF_CASES; n++) {
        mq_triangle t;
        vec3 a, b, os, ot;
        for (int i = 0; i < 3; i++)
            rand_point(&rng, t.v[i], 1.0);
        rand_point(&rng, a, 1.5);
        rand_point(&rng, b, 1.5);
        switch (n % 10) {
        case 0: /* collinear triangle */
            along(t.v[2], t.v[0], t.v[0], t.v[1], (float)mq_test_rng_range(&rng, -1.5, 1.5));
            break;
        case 1: /* zero-length segment */
            set3(b, a[0], a[1], a[2]);
            break;
        case 2: /* segment parallel to an edge */
            along(b, a, t.v[0], t.v[1], (float)mq_test_rng_range(&rng, -1.5, 1.5));
            break;
        case 3: /* segment in the triangle's plane */
            for (int i = 0; i < 3; i++) {
                a[i] = t.v[0][i] + 1.5f * (t.v[1][i] - t.v[0][i]) - 0.25f * (t.v[2][i] - t.v[0][i]);
                b[i] = t.v[0][i] - 0.25f * (t.v[1][i] - t.v[0][i]) + 0.75f * (t.v[2][i] - t.v[0][i]);
            }
            break;
        case 5: /* in the plane, passing beside the triangle */
            for (int i = 0; i < 3; i++) {
                a[i] = t.v[0][i] + 1.5f * (t.v[1][i] - t.v[0][i]) + 0.5f * (t.v[2][i] - t.v[0][i]);
                b[i] = t.v[0][i] + 0.25f * (t.v[1][i] - t.v[0][i]) + 1.5f * (t.v[2][i] - t.v[0][i]);
            }
            break;
        case 6: /* piercing at a shallow angle */
            for (int i = 0; i < 3; i++) {
                float c = (t.v[0][i] + t.v[1][i] + t.v[2][i]) / 3.0f;
                a[i] = c + 2.0f * (t.v[1][i] - c);
                b[i] = c - 2.0f * (t.v[1][i] - c);
            }
            a[1] += 1e-3f;
            b[1] -= 1e-3f;
            break;
        case 4: /* all vertices equal */
            set3(t.v[1], t.v[0][0], t.v[0][1], t.v[0][2]);
            set3(t.v[2], t.v[0][0], t.v[0][1], t.v[0][2]);
            break;
        default:
            break;
        }
        float d2 = mq_closest_points_segment_triangle(a, b, &t, os, ot);
        d3 A, B, V0, V1, V2, S, OS, OT;
        d3_from(A, a);
        d3_from(B, b);
        d3_from(V0, t.v[0]);
        d3_from(V1, t.v[1]);
        d3_from(V2, t.v[2]);
        d3_from(OS, os);
        d3_from(OT, ot);
        double best = INFINITY;
        for (int i = 0; i <= GRID; i++)
            for (int j = 0; i + j <= GRID; j++) {
                d3_bary(S, V0, V1, V2, (double)i / GRID, (double)j / GRID);
                best = fmin(best, d3_point_segment(S, A, B));
            }
        if (!(d2 <= best + BF_TOL))
            fail_msg("case %d: d2 %.9g > sampled %.9g", n, (double)d2, best);
        if (!(d3_point_segment(OS, A, B) <= 1e-11 && d3_point_triangle(OT, V0, V1, V2) <= 1e-11 &&
              fabs(d2 - d3_dist2(OS, OT)) <= BF_TOL))
            fail_msg("case %d: d2 %.9g, points off their sets or %.9g apart", n, (double)d2, d3_dist2(OS, OT));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(point_segment_regions),
        cmocka_unit_test(point_segment_zero_length),
        cmocka_unit_test(point_segment_invalid),
        cmocka_unit_test(point_segment_extreme_scales),
        cmocka_unit_test(point_segment_brute_force),
        cmocka_unit_test(point_aabb_cases),
        cmocka_unit_test(point_obb_cases),
        cmocka_unit_test(point_obb_rotated),
        cmocka_unit_test(point_triangle_regions),
        cmocka_unit_test(point_triangle_degenerate),
        cmocka_unit_test(point_triangle_invalid),
        cmocka_unit_test(point_triangle_extreme_scales),
        cmocka_unit_test(point_triangle_brute_force),
        cmocka_unit_test(point_triangle_sliver),
        cmocka_unit_test(segment_segment_cases),
        cmocka_unit_test(segment_segment_parallel_overlap),
        cmocka_unit_test(segment_segment_invalid_and_scales),
        cmocka_unit_test(segment_segment_brute_force),
        cmocka_unit_test(segment_triangle_cases),
        cmocka_unit_test(segment_triangle_degenerate),
        cmocka_unit_test(segment_triangle_invalid_and_scales),
        cmocka_unit_test(segment_triangle_slivers),
        cmocka_unit_test(segment_triangle_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
