/* Ray vs primitive shapes: aabb, obb, sphere, capsule, triangle (watertight), plane. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <meshquery/primitives.h>

#include "core/vec3.h"
#include "primitives/ray_slab.h"
#include "test_support.h"

#define PI 3.14159265358979323846

/* ------------------------------------------------------------------------- */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------- */

static mq_ray ray_seg(float ox, float oy, float oz, float dx, float dy, float dz, float tmin, float tmax)
{
    mq_ray r = {{ox, oy, oz}, tmin, {dx, dy, dz}, tmax};
    return r;
}

static mq_ray ray_of(float ox, float oy, float oz, float dx, float dy, float dz)
{
    return ray_seg(ox, oy, oz, dx, dy, dz, 0.0f, INFINITY);
}

static const mq_ray_span SENTINEL_SPAN = {123.0f, 456.0f};

static void assert_span(const mq_ray_span *s, float t_enter, float t_exit, float eps)
{
    assert_float_equal(s->t_enter, t_enter, eps);
    assert_float_equal(s->t_exit, t_exit, eps);
}

static void assert_untouched(const mq_ray_span *s)
{
    assert_true(s->t_enter == SENTINEL_SPAN.t_enter && s->t_exit == SENTINEL_SPAN.t_exit);
}

/* Span queries share one signature; these wrappers let tables of cases drive all four. */
typedef bool (*span_fn)(const mq_ray *, const void *, mq_ray_span *);
static bool cast_aabb(const mq_ray *r, const void *s, mq_ray_span *o)
{
    return mq_raycast_aabb(r, s, o);
}
static bool cast_obb(const mq_ray *r, const void *s, mq_ray_span *o)
{
    return mq_raycast_obb(r, s, o);
}
static bool cast_sphere(const mq_ray *r, const void *s, mq_ray_span *o)
{
    return mq_raycast_sphere(r, s, o);
}
static bool cast_capsule(const mq_ray *r, const void *s, mq_ray_span *o)
{
    return mq_raycast_capsule(r, s, o);
}

/* A miss must leave `out` alone. */
static void assert_span_miss(span_fn fn, const mq_ray *r, const void *shape)
{
    mq_ray_span s = SENTINEL_SPAN;
    assert_false(fn(r, shape, &s));
    assert_untouched(&s);
    assert_false(fn(r, shape, NULL));
}

static mq_ray_span span_hit(span_fn fn, const mq_ray *r, const void *shape)
{
    mq_ray_span s = SENTINEL_SPAN;
    assert_true(fn(r, shape, &s));
    assert_true(fn(r, shape, NULL));
    assert_true(s.t_enter <= s.t_exit);
    assert_true(s.t_enter >= r->tmin && s.t_exit <= r->tmax);
    return s;
}

static mq_obb unit_obb(float cx, float cy, float cz, float hx, float hy, float hz)
{
    mq_obb b = {{cx, cy, cz}, {hx, hy, hz}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    return b;
}

static mq_obb quat_obb(const float c[3], const float h[3], double angle, const double axis[3])
{
    double s = sin(angle / 2.0), n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    float q[4] = {(float)cos(angle / 2.0), (float)(s * axis[0] / n), (float)(s * axis[1] / n),
                  (float)(s * axis[2] / n)};
    vec3 cc = {c[0], c[1], c[2]}, hh = {h[0], h[1], h[2]};
    mq_obb b;
    mq_obb_from_quat(cc, hh, q, &b);
    return b;
}

static mq_triangle tri_of(float ax, float ay, float az, float bx, float by, float bz, float cx, float cy, float cz)
{
    mq_triangle t = {{{ax, ay, az}, {bx, by, bz}, {cx, cy, cz}}};
    return t;
}

static const mq_triangle_hit SENTINEL_HIT = {7.0f, 8.0f, 9.0f, true};

static void assert_tri_miss(const mq_ray *r, const mq_triangle *t)
{
    mq_triangle_hit h = SENTINEL_HIT;
    assert_false(mq_raycast_triangle(r, t, &h));
    assert_true(h.t == 7.0f && h.u == 8.0f && h.v == 9.0f && h.back_face);
    assert_false(mq_raycast_triangle(r, t, NULL));
}

static mq_triangle_hit tri_hit(const mq_ray *r, const mq_triangle *t)
{
    mq_triangle_hit h = SENTINEL_HIT;
    assert_true(mq_raycast_triangle(r, t, &h));
    assert_true(mq_raycast_triangle(r, t, NULL));
    assert_true(h.t >= r->tmin && h.t <= r->tmax);
    return h;
}

/* Rotation of a double vector by a unit quaternion w, x, y, z. */
static void quat_rotate(const double q[4], const double v[3], double out[3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    /* t = 2 * cross(q.xyz, v); out = v + w*t + cross(q.xyz, t) */
    double t[3] = {2.0 * (y * v[2] - z * v[1]), 2.0 * (z * v[0] - x * v[2]), 2.0 * (x * v[1] - y * v[0])};
    out[0] = v[0] + w * t[0] + (y * t[2] - z * t[1]);
    out[1] = v[1] + w * t[1] + (z * t[0] - x * t[2]);
    out[2] = v[2] + w * t[2] + (x * t[1] - y * t[0]);
}

/* A fixed similarity transform (rotation, scale, offset) in double, rounded to float. */
typedef struct xform {
    double q[4], scale, offset[3];
} xform;

static void xform_random(mq_test_rng *rng, xform *x)
{
    mq_test_rng_quat(rng, x->q);
    x->scale = mq_test_rng_range(rng, 0.5, 3.0);
    for (int i = 0; i < 3; i++)
        x->offset[i] = mq_test_rng_range(rng, -2.0, 2.0);
}

static void xform_apply(const xform *x, const double p[3], vec3 out)
{
    double r[3];
    quat_rotate(x->q, p, r);
    for (int i = 0; i < 3; i++)
        out[i] = (float)(r[i] * x->scale + x->offset[i]);
}

/* ------------------------------------------------------------------------- */
/* Double-precision oracles for the randomized consistency tests. Each shape's */
/* signed distance is convex, so its minimum along a ray segment is found by  */
/* golden-section search: clearly negative -> must hit, clearly positive ->   */
/* must miss.                                                                */
/* ------------------------------------------------------------------------- */

typedef double (*sdf_fn)(const double p[3], const void *shape);

static double box_sdf(const double p[3], const double lo[3], const double hi[3])
{
    double out2 = 0.0, in = -INFINITY;
    for (int i = 0; i < 3; i++) {
        double q = fmax(lo[i] - p[i], p[i] - hi[i]);
        if (q > 0.0)
            out2 += q * q;
        in = fmax(in, q);
    }
    return out2 > 0.0 ? sqrt(out2) : in;
}

static double aabb_sdf(const double p[3], const void *shape)
{
    const mq_aabb *b = shape;
    double lo[3] = {b->min[0], b->min[1], b->min[2]}, hi[3] = {b->max[0], b->max[1], b->max[2]};
    return box_sdf(p, lo, hi);
}

static double obb_sdf(const double p[3], const void *shape)
{
    const mq_obb *b = shape;
    double local[3], lo[3], hi[3];
    for (int i = 0; i < 3; i++) {
        local[i] = 0.0;
        for (int k = 0; k < 3; k++)
            local[i] += (p[k] - b->center[k]) * (double)b->axes[i][k];
        lo[i] = -(double)b->half[i];
        hi[i] = b->half[i];
    }
    return box_sdf(local, lo, hi);
}

static double sphere_sdf(const double p[3], const void *shape)
{
    const mq_sphere *s = shape;
    double d[3] = {p[0] - s->center[0], p[1] - s->center[1], p[2] - s->center[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - s->radius;
}

static double capsule_sdf(const double p[3], const void *shape)
{
    const mq_capsule *c = shape;
    double ba[3], pa[3], bb = 0.0, pb = 0.0;
    for (int i = 0; i < 3; i++) {
        ba[i] = (double)c->b[i] - c->a[i];
        pa[i] = p[i] - c->a[i];
        bb += ba[i] * ba[i];
        pb += pa[i] * ba[i];
    }
    double h = bb > 0.0 ? fmin(fmax(pb / bb, 0.0), 1.0) : 0.0, d2 = 0.0;
    for (int i = 0; i < 3; i++)
        d2 += (pa[i] - h * ba[i]) * (pa[i] - h * ba[i]);
    return sqrt(d2) - c->radius;
}

static void ray_point(const mq_ray *r, double t, double p[3])
{
    for (int i = 0; i < 3; i++)
        p[i] = r->origin[i] + t * (double)r->dir[i];
}

static double sdf_at(const mq_ray *r, double t, sdf_fn sdf, const void *shape)
{
    double p[3];
    ray_point(r, t, p);
    return sdf(p, shape);
}

/* Minimum of the (convex) signed distance along the ray for t in [t0, t1]. */
static double min_sdf_along(const mq_ray *r, double t0, double t1, sdf_fn sdf, const void *shape)
{
    const double g = 0.6180339887498949;
    double a = t0, b = t1;
    for (int it = 0; it < 90; it++) {
        double m1 = b - g * (b - a), m2 = a + g * (b - a);
        if (sdf_at(r, m1, sdf, shape) < sdf_at(r, m2, sdf, shape))
            b = m2;
        else
            a = m1;
    }
    double m = sdf_at(r, 0.5 * (a + b), sdf, shape);
    m = fmin(m, sdf_at(r, t0, sdf, shape));
    return fmin(m, sdf_at(r, t1, sdf, shape));
}

/* A random ray from around [-5, 5]^3 aimed at a random point of [-3, 3]^3, where
 * the shapes are, with a random length of dir and a random finite [tmin, tmax]. */
static mq_ray random_ray(mq_test_rng *rng)
{
    double o[3], d[3], n = 0.0;
    for (int i = 0; i < 3; i++) {
        o[i] = mq_test_rng_range(rng, -5, 5);
        d[i] = mq_test_rng_range(rng, -3, 3) - o[i];
        n += d[i] * d[i];
    }
    double len = mq_test_rng_range(rng, 0.1, 4.0) / sqrt(n);
    float tmin = mq_test_rng_unit(rng) < 0.5 ? 0.0f : (float)(mq_test_rng_range(rng, -5.0, 5.0) / len);
    float tmax = tmin + (float)(mq_test_rng_range(rng, 0.0, 20.0) / len);
    return ray_seg((float)o[0], (float)o[1], (float)o[2], (float)(d[0] * len), (float)(d[1] * len), (float)(d[2] * len),
                   tmin, tmax);
}

/* Random rays checked against the oracle. */
static void check_against_oracle(span_fn fn, sdf_fn sdf, const void *shape, mq_test_rng *rng, int *hits, int *misses)
{
    mq_ray r = random_ray(rng);
    const double margin = 1e-4;
    double m = min_sdf_along(&r, r.tmin, r.tmax, sdf, shape);
    mq_ray_span s = SENTINEL_SPAN;
    bool hit = fn(&r, shape, &s);
    if (m < -margin)
        assert_true(hit);
    if (m > margin)
        assert_false(hit);
    if (!hit) {
        assert_untouched(&s);
        (*misses)++;
        return;
    }
    (*hits)++;
    assert_true(r.tmin <= s.t_enter && s.t_enter <= s.t_exit && s.t_exit <= r.tmax);
    /* The ends lie on the surface, unless clipped to the ray's own ends (then inside). */
    double se = sdf_at(&r, s.t_enter, sdf, shape), sx = sdf_at(&r, s.t_exit, sdf, shape);
    assert_true(fabs(se) < margin || (s.t_enter == r.tmin && se < margin));
    assert_true(fabs(sx) < margin || (s.t_exit == r.tmax && sx < margin));
    assert_true(sdf_at(&r, 0.5 * ((double)s.t_enter + s.t_exit), sdf, shape) < margin);
}

/* ------------------------------------------------------------------------- */
/* AABB                                                                      */
/* ------------------------------------------------------------------------- */

static const mq_aabb CUBE = {{-1, -1, -1}, {1, 1, 1}};

static void aabb_hit_reports_entry_and_exit(void **state)
{
    (void)state;
    mq_ray r = ray_of(-3, 0, 0, 1, 0, 0);
    mq_ray_span s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 2.0f, 4.0f, 0.0f);
    /* t is in units of dir: doubling dir halves t. */
    r = ray_of(-3, 0, 0, 2, 0, 0);
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 1.0f, 2.0f, 0.0f);
    /* Negative direction and an off-centre oblique ray. */
    r = ray_of(0.5f, 5, 0, 0, -1, 0);
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 4.0f, 6.0f, 0.0f);
    r = ray_of(-2, -2, 0, 1, 1, 0.25f);
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 1.0f, 3.0f, 0.0f);
}

static void aabb_clear_misses(void **state)
{
    (void)state;
    mq_ray r = ray_of(-3, 1.5f, 0, 1, 0, 0); /* passes above */
    assert_span_miss(cast_aabb, &r, &CUBE);
    r = ray_of(3, 0, 0, 1, 0, 0); /* box behind the origin */
    assert_span_miss(cast_aabb, &r, &CUBE);
    r = ray_of(-3, -3, 0, 1, 2.5f, 0); /* crosses y = 1 before x reaches -1 */
    assert_span_miss(cast_aabb, &r, &CUBE);
}

static void aabb_grazing_face_edge_corner_hits(void **state)
{
    (void)state;
    /* Along the face y = 1. */
    mq_ray r = ray_of(-3, 1, 0.5f, 1, 0, 0);
    mq_ray_span s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 2.0f, 4.0f, 0.0f);
    /* Along the edge y = 1, z = -1. */
    r = ray_of(-3, 1, -1, 1, 0, 0);
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 2.0f, 4.0f, 0.0f);
    /* Crossing the edge x = -1, y = 1 diagonally: touches a single point. */
    r = ray_of(-2, 0, 0, 1, 1, 0);
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 1.0f, 1.0f, 0.0f);
    /* Touching only the corner (-1, 1, 1). */
    r = ray_of(-2, 0, 0, 1, 1, 1);
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 1.0f, 1.0f, 0.0f);
    /* A hair away from the corner misses. */
    r = ray_of(-2, 0, 0, 1, 1, nextafterf(1.0f, 2.0f));
    assert_span_miss(cast_aabb, &r, &CUBE);
    r = ray_of(-2, 0, 0, 1, nextafterf(1.0f, 2.0f), 1);
    assert_span_miss(cast_aabb, &r, &CUBE);
}

static void aabb_origin_inside_enters_at_tmin(void **state)
{
    (void)state;
    mq_ray r = ray_of(0.5f, 0, 0, 1, 0, 0);
    mq_ray_span s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 0.0f, 0.5f, 0.0f);
    r = ray_seg(0.5f, 0, 0, -1, 0, 0, 0.25f, 10.0f);
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 0.25f, 1.5f, 0.0f);
    /* On the boundary, pointing out: the single point t = tmin. */
    r = ray_of(1, 0, 0, 1, 0, 0);
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 0.0f, 0.0f, 0.0f);
    /* A negative tmin reaches back to the real entry. */
    r = ray_seg(0, 0, 0, 1, 0, 0, -5.0f, 5.0f);
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, -1.0f, 1.0f, 0.0f);
}

static void aabb_parallel_rays_and_signed_zeros(void **state)
{
    (void)state;
    const float zeros[2] = {0.0f, -0.0f};
    for (int k = 0; k < 2; k++) {
        float z = zeros[k];
        /* Parallel to the y and z slabs: inside, on the boundary, outside. */
        mq_ray r = ray_of(-3, 0.5f, 0.5f, 1, z, z);
        mq_ray_span s = span_hit(cast_aabb, &r, &CUBE);
        assert_span(&s, 2.0f, 4.0f, 0.0f);
        r = ray_of(-3, 1, -1, 1, z, z);
        s = span_hit(cast_aabb, &r, &CUBE);
        assert_span(&s, 2.0f, 4.0f, 0.0f);
        r = ray_of(-3, -1, 1, 1, z, z);
        s = span_hit(cast_aabb, &r, &CUBE);
        assert_span(&s, 2.0f, 4.0f, 0.0f);
        r = ray_of(-3, nextafterf(1.0f, 2.0f), 0, 1, z, z);
        assert_span_miss(cast_aabb, &r, &CUBE);
        r = ray_of(-3, 0, -1.0001f, 1, z, z);
        assert_span_miss(cast_aabb, &r, &CUBE);
        /* Only one non-zero component, negative, and the origin on a boundary plane. */
        r = ray_of(z, z, 5, z, z, -1);
        s = span_hit(cast_aabb, &r, &CUBE);
        assert_span(&s, 4.0f, 6.0f, 0.0f);
        r = ray_of(1, -1, 5, z, z, -1);
        s = span_hit(cast_aabb, &r, &CUBE);
        assert_span(&s, 4.0f, 6.0f, 0.0f);
        /* Parallel with an infinite tmax and the origin inside: exit is finite. */
        r = ray_of(0, 0, 0, z, 1, z);
        s = span_hit(cast_aabb, &r, &CUBE);
        assert_span(&s, 0.0f, 1.0f, 0.0f);
    }
}

static void aabb_flat_and_point_boxes(void **state)
{
    (void)state;
    const mq_aabb flat = {{-1, -1, 0.5f}, {1, 1, 0.5f}};
    mq_ray r = ray_of(0, 0, 3, 0, 0, -1);
    mq_ray_span s = span_hit(cast_aabb, &r, &flat);
    assert_span(&s, 2.5f, 2.5f, 0.0f);
    r = ray_of(0.25f, -0.75f, -1, 0.25f, 0.5f, 1); /* oblique crossing at t = 1.5 */
    s = span_hit(cast_aabb, &r, &flat);
    assert_span(&s, 1.5f, 1.5f, 0.0f);
    r = ray_of(-3, 0, 0.5f, 1, 0, 0); /* in the plane of the flat box */
    s = span_hit(cast_aabb, &r, &flat);
    assert_span(&s, 2.0f, 4.0f, 0.0f);
    r = ray_of(-3, 0, 0.5001f, 1, 0, 0);
    assert_span_miss(cast_aabb, &r, &flat);
    r = ray_of(3, 0, 3, 0, 0, -1); /* crosses the plane outside the rectangle */
    assert_span_miss(cast_aabb, &r, &flat);

    const mq_aabb point = {{1, 2, 3}, {1, 2, 3}};
    r = ray_of(-1, 0, 1, 1, 1, 1);
    s = span_hit(cast_aabb, &r, &point);
    assert_span(&s, 2.0f, 2.0f, 0.0f);
    r = ray_of(-1, 0, 1, 1, 1, 1.001f);
    assert_span_miss(cast_aabb, &r, &point);
}

static void aabb_tmin_tmax_clipping(void **state)
{
    (void)state;
    mq_ray r = ray_seg(-3, 0, 0, 1, 0, 0, 0.0f, 1.5f); /* ends before the box */
    assert_span_miss(cast_aabb, &r, &CUBE);
    r = ray_seg(-3, 0, 0, 1, 0, 0, 0.0f, 2.0f); /* ends exactly on the surface */
    mq_ray_span s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 2.0f, 2.0f, 0.0f);
    r = ray_seg(-3, 0, 0, 1, 0, 0, 0.0f, 3.0f); /* ends inside */
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 2.0f, 3.0f, 0.0f);
    r = ray_seg(-3, 0, 0, 1, 0, 0, 4.0f, 9.0f); /* starts exactly on the exit face */
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 4.0f, 4.0f, 0.0f);
    r = ray_seg(-3, 0, 0, 1, 0, 0, 4.5f, 9.0f); /* starts beyond */
    assert_span_miss(cast_aabb, &r, &CUBE);
    r = ray_seg(-3, 0, 0, 1, 0, 0, 2.5f, 2.5f); /* a single point inside */
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_span(&s, 2.5f, 2.5f, 0.0f);
}

static void aabb_extreme_directions(void **state)
{
    (void)state;
    /* A tiny direction gives huge t; a subnormal one must not produce NaN. */
    mq_ray r = ray_of(-3, 0, 0, 1e-30f, 0, 0);
    mq_ray_span s = span_hit(cast_aabb, &r, &CUBE);
    assert_float_equal(s.t_enter / 2e30f, 1.0f, 1e-6f);
    assert_float_equal(s.t_exit / 4e30f, 1.0f, 1e-6f);
    r = ray_of(0, 0, 0, FLT_TRUE_MIN, 0, 0); /* origin inside, exit beyond FLT_MAX */
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_true(s.t_enter == 0.0f && s.t_exit == INFINITY);
    r = ray_of(-1, 0, 0, FLT_TRUE_MIN, FLT_TRUE_MIN, 0); /* on the face, 1/dir would be inf */
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_true(s.t_enter == 0.0f && s.t_exit == INFINITY);
    r = ray_of(-3, 0, 0, 1e30f, 0, 0);
    s = span_hit(cast_aabb, &r, &CUBE);
    assert_float_equal(s.t_enter / 2e-30f, 1.0f, 1e-6f);
}

static void slab_conservative_never_misses(void **state)
{
    (void)state;
    /* Rays through points on the box's edges and corners (the hardest grazing case).
     * Whenever the double-precision slab test says hit, the conservative float test
     * must say hit too. The plain test may go either way there; count it. */
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(11));
    const vec3 lo = {-1.3f, 0.2f, -0.7f}, hi = {2.1f, 0.9f, 3.3f};
    int oracle_hits = 0, plain_misses = 0;
    for (int n = 0; n < 50000; n++) {
        double target[3];
        for (int i = 0; i < 3; i++)
            target[i] = mq_test_rng_range(&rng, lo[i], hi[i]);
        int a = (int)(mq_test_rng_u64(&rng) % 3), b = (a + 1 + (int)(mq_test_rng_u64(&rng) % 2)) % 3;
        target[a] = mq_test_rng_unit(&rng) < 0.5 ? lo[a] : hi[a];
        if (mq_test_rng_unit(&rng) < 0.5)
            target[b] = mq_test_rng_unit(&rng) < 0.5 ? lo[b] : hi[b];
        double dir[3];
        mq_test_rng_unit_vector(&rng, dir);
        vec3 o, d;
        for (int i = 0; i < 3; i++) {
            o[i] = (float)(target[i] - 6.0 * dir[i]);
            d[i] = (float)dir[i];
        }
        double t0 = 0.0, t1 = INFINITY;
        for (int i = 0; i < 3; i++) {
            if (d[i] == 0.0f) {
                if (o[i] < lo[i] || o[i] > hi[i])
                    t0 = INFINITY;
                continue;
            }
            double u = ((double)lo[i] - o[i]) / d[i], v = ((double)hi[i] - o[i]) / d[i];
            t0 = fmax(t0, fmin(u, v));
            t1 = fmin(t1, fmax(u, v));
        }
        float e = 0.0f, x = INFINITY;
        bool conservative = mq_slab_clip_conservative(o, d, lo, hi, &e, &x);
        float e2 = 0.0f, x2 = INFINITY;
        bool plain = mq_slab_clip(o, d, lo, hi, &e2, &x2);
        if (t0 <= t1) {
            oracle_hits++;
            assert_true(conservative);
            assert_true(e <= t0 && x >= t1);
            plain_misses += !plain;
        } else if (plain) {
            assert_true(conservative); /* the widened interval contains the plain one */
        }
    }
    assert_true(oracle_hits > 10000);
    print_message("slab: %d grazing hits, plain test missed %d of them, conservative none\n", oracle_hits,
                  plain_misses);
}

static void aabb_random_rays_agree_with_oracle(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(1));
    int hits = 0, misses = 0;
    for (int n = 0; n < 20000; n++) {
        mq_aabb b;
        for (int i = 0; i < 3; i++) {
            float x = (float)mq_test_rng_range(&rng, -2.5, 1), w = (float)mq_test_rng_range(&rng, 0, 3);
            b.min[i] = x;
            b.max[i] = n % 10 == 0 && i == 1 ? x : x + w; /* some flat boxes */
        }
        check_against_oracle(cast_aabb, aabb_sdf, &b, &rng, &hits, &misses);
    }
    assert_true(hits > 1000 && misses > 1000);
}

/* ------------------------------------------------------------------------- */
/* OBB                                                                       */
/* ------------------------------------------------------------------------- */

static void obb_axis_aligned_matches_aabb(void **state)
{
    (void)state;
    /* Dyadic values keep every difference exact, so both tests must agree bit for bit. */
    const mq_aabb box = {{-1.0f, 0.5f, -2.0f}, {3.0f, 1.5f, 2.0f}};
    mq_obb obb;
    mq_obb_from_aabb(&box, &obb);
    const float dirs[] = {-2.0f, -1.0f, -0.5f, -0.0f, 0.0f, 0.5f, 1.0f, 2.0f};
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(2));
    int hits = 0;
    for (int n = 0; n < 20000; n++) {
        mq_ray r;
        for (int i = 0; i < 3; i++) {
            r.origin[i] = (float)((int)(mq_test_rng_u64(&rng) % 65) - 32) / 8.0f;
            r.dir[i] = dirs[mq_test_rng_u64(&rng) % 8];
        }
        r.tmin = (float)(mq_test_rng_u64(&rng) % 4) - 1.0f;
        r.tmax = n % 3 == 0 ? INFINITY : r.tmin + (float)(mq_test_rng_u64(&rng) % 9);
        mq_ray_span a = SENTINEL_SPAN, o = SENTINEL_SPAN;
        bool ha = mq_raycast_aabb(&r, &box, &a), ho = mq_raycast_obb(&r, &obb, &o);
        assert_int_equal(ha, ho);
        assert_true(a.t_enter == o.t_enter && a.t_exit == o.t_exit);
        hits += ha;
    }
    assert_true(hits > 1000);
}

static void obb_rotated_hits_and_misses(void **state)
{
    (void)state;
    const float c[3] = {1, 2, 3}, h[3] = {1, 1, 1};
    const double z_axis[3] = {0, 0, 1};
    mq_obb b = quat_obb(c, h, PI / 4.0, z_axis); /* a diamond in the xy plane */
    const float r2 = sqrtf(2.0f);
    mq_ray r = ray_of(-4, 2, 3, 1, 0, 0);
    mq_ray_span s = span_hit(cast_obb, &r, &b);
    assert_span(&s, 5.0f - r2, 5.0f + r2, 1e-5f);
    /* Inside the axis-aligned bounds of the diamond but outside the diamond itself. */
    r = ray_of(-4, 2.0f + 1.3f, 3, 1, 0, 0);
    s = span_hit(cast_obb, &r, &b);
    assert_span(&s, 5.0f - (r2 - 1.3f), 5.0f + (r2 - 1.3f), 1e-5f);
    r = ray_of(1.0f + 1.3f, 2.0f + 1.3f, -5, 0, 0, 1); /* vertical, beside the diamond */
    assert_span_miss(cast_obb, &r, &b);
    r = ray_of(1.0f + 0.6f, 2.0f + 0.6f, -5, 0, 0, 1); /* vertical, through it */
    s = span_hit(cast_obb, &r, &b);
    assert_span(&s, 7.0f, 9.0f, 1e-5f);
}

static void obb_exact_frame_grazing_and_inside(void **state)
{
    (void)state;
    /* A quarter turn about z with exact axes: local x = world y, local y = -world x. */
    mq_obb b = {{0, 0, 0}, {2, 1, 0.5f}, {{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}}};
    assert_true(mq_obb_is_valid(&b));
    mq_ray r = ray_of(1, -5, 0, 0, 1, 0); /* along the face world x = 1 */
    mq_ray_span s = span_hit(cast_obb, &r, &b);
    assert_span(&s, 3.0f, 7.0f, 0.0f);
    r = ray_of(nextafterf(1.0f, 2.0f), -5, 0, 0, 1, 0);
    assert_span_miss(cast_obb, &r, &b);
    r = ray_of(1, -5, 0.5f, 0, 1, -0.0f); /* along an edge, -0 component */
    s = span_hit(cast_obb, &r, &b);
    assert_span(&s, 3.0f, 7.0f, 0.0f);
    r = ray_of(0, 0, 0, 1, 0, 0); /* origin inside */
    s = span_hit(cast_obb, &r, &b);
    assert_span(&s, 0.0f, 1.0f, 0.0f);
    r = ray_seg(0, 0, 0, 0, -1, 0, 0.5f, 1.0f); /* origin inside, ray ends inside */
    s = span_hit(cast_obb, &r, &b);
    assert_span(&s, 0.5f, 1.0f, 0.0f);
    r = ray_seg(0, -5, 0, 0, 1, 0, 0.0f, 3.0f); /* tmax exactly on the surface */
    s = span_hit(cast_obb, &r, &b);
    assert_span(&s, 3.0f, 3.0f, 0.0f);
    r = ray_seg(0, -5, 0, 0, 1, 0, 0.0f, 2.999f);
    assert_span_miss(cast_obb, &r, &b);
    /* Flat OBB (zero half extent) hit across. */
    mq_obb flat = unit_obb(0, 0, 0, 1, 1, 0);
    r = ray_of(0.5f, 0.5f, 2, 0, 0, -2);
    s = span_hit(cast_obb, &r, &flat);
    assert_span(&s, 1.0f, 1.0f, 0.0f);
}

static void obb_random_rays_agree_with_oracle(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(3));
    int hits = 0, misses = 0;
    for (int n = 0; n < 20000; n++) {
        double q[4];
        mq_test_rng_quat(&rng, q);
        vec3 c = {(float)mq_test_rng_range(&rng, -2, 2), (float)mq_test_rng_range(&rng, -2, 2),
                  (float)mq_test_rng_range(&rng, -2, 2)};
        vec3 h = {(float)mq_test_rng_range(&rng, 0, 2), (float)mq_test_rng_range(&rng, 0, 2),
                  (float)mq_test_rng_range(&rng, 0, 2)};
        float qf[4] = {(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
        mq_obb b;
        mq_obb_from_quat(c, h, qf, &b);
        check_against_oracle(cast_obb, obb_sdf, &b, &rng, &hits, &misses);
    }
    assert_true(hits > 1000 && misses > 1000);
}

/* ------------------------------------------------------------------------- */
/* Sphere                                                                    */
/* ------------------------------------------------------------------------- */

static void sphere_hit_values(void **state)
{
    (void)state;
    const mq_sphere sph = {{1, 2, 3}, 2};
    mq_ray r = ray_of(1, 2, -5, 0, 0, 1);
    mq_ray_span s = span_hit(cast_sphere, &r, &sph);
    assert_span(&s, 6.0f, 10.0f, 0.0f);
    r = ray_of(1, 2, -5, 0, 0, 4); /* t in units of dir */
    s = span_hit(cast_sphere, &r, &sph);
    assert_span(&s, 1.5f, 2.5f, 0.0f);
    /* Off-centre chord: half length sqrt(4 - 1) */
    r = ray_of(-9, 3, 3, 1, 0, 0);
    s = span_hit(cast_sphere, &r, &sph);
    assert_span(&s, 10.0f - sqrtf(3.0f), 10.0f + sqrtf(3.0f), 1e-5f);
    /* Diagonal, non-unit direction. */
    r = ray_of(-2, -1, 0, 3, 3, 3);
    s = span_hit(cast_sphere, &r, &sph);
    assert_span(&s, 1.0f - 2.0f / (3.0f * sqrtf(3.0f)), 1.0f + 2.0f / (3.0f * sqrtf(3.0f)), 1e-6f);
}

static void sphere_misses_and_tangents(void **state)
{
    (void)state;
    const mq_sphere sph = {{0, 0, 0}, 2};
    mq_ray r = ray_of(-5, 2.001f, 0, 1, 0, 0);
    assert_span_miss(cast_sphere, &r, &sph);
    r = ray_of(5, 0, 0, 1, 0, 0); /* pointing away */
    assert_span_miss(cast_sphere, &r, &sph);
    r = ray_of(-5, 2, 0, 1, 0, 0); /* tangent */
    mq_ray_span s = span_hit(cast_sphere, &r, &sph);
    assert_span(&s, 5.0f, 5.0f, 0.0f);
    r = ray_of(0, -2, 7, 0, 0, -0.5f); /* tangent, other axis, scaled dir */
    s = span_hit(cast_sphere, &r, &sph);
    assert_span(&s, 14.0f, 14.0f, 0.0f);
    r = ray_of(2, 0, 0, 0, 1, 0); /* tangent at the origin */
    s = span_hit(cast_sphere, &r, &sph);
    assert_span(&s, 0.0f, 0.0f, 0.0f);
}

static void sphere_origin_inside_and_clipping(void **state)
{
    (void)state;
    const mq_sphere sph = {{0, 0, 0}, 1};
    mq_ray r = ray_of(0, 0, 0, 1, 0, 0);
    mq_ray_span s = span_hit(cast_sphere, &r, &sph);
    assert_span(&s, 0.0f, 1.0f, 0.0f);
    r = ray_seg(0, 0, 0.5f, 0, 0, 1, 0.25f, 0.4f); /* segment entirely inside */
    s = span_hit(cast_sphere, &r, &sph);
    assert_span(&s, 0.25f, 0.4f, 0.0f);
    r = ray_seg(-3, 0, 0, 1, 0, 0, 0.0f, 1.99f); /* stops short */
    assert_span_miss(cast_sphere, &r, &sph);
    r = ray_seg(-3, 0, 0, 1, 0, 0, 0.0f, 2.0f); /* tmax on the surface */
    s = span_hit(cast_sphere, &r, &sph);
    assert_span(&s, 2.0f, 2.0f, 0.0f);
    r = ray_seg(-3, 0, 0, 1, 0, 0, 4.0f, 8.0f); /* tmin on the far surface */
    s = span_hit(cast_sphere, &r, &sph);
    assert_span(&s, 4.0f, 4.0f, 0.0f);
    r = ray_seg(-3, 0, 0, 1, 0, 0, 4.001f, 8.0f);
    assert_span_miss(cast_sphere, &r, &sph);
    r = ray_seg(-3, 0, 0, 1, 0, 0, -10.0f, 10.0f);
    s = span_hit(cast_sphere, &r, &sph);
    assert_span(&s, 2.0f, 4.0f, 0.0f);
}

static void sphere_radius_zero_is_a_point(void **state)
{
    (void)state;
    const mq_sphere pt = {{1, 2, 3}, 0};
    mq_ray r = ray_of(1, 2, -1, 0, 0, 2);
    mq_ray_span s = span_hit(cast_sphere, &r, &pt);
    assert_span(&s, 2.0f, 2.0f, 0.0f);
    r = ray_of(-1, 0, 1, 1, 1, 1);
    s = span_hit(cast_sphere, &r, &pt);
    assert_span(&s, 2.0f, 2.0f, 0.0f);
    r = ray_of(1, 2.0001f, -1, 0, 0, 1);
    assert_span_miss(cast_sphere, &r, &pt);
    r = ray_of(1, 2, 3, 1, 0, 0); /* origin at the point */
    s = span_hit(cast_sphere, &r, &pt);
    assert_span(&s, 0.0f, 0.0f, 0.0f);
}

static void sphere_far_origin_keeps_precision(void **state)
{
    (void)state;
    /* |o - c|^2 = 1e8 swamps r^2 = 1 in float: the naive discriminant b^2 - ac is
     * pure rounding noise here, the stable one is exact. */
    const mq_sphere sph = {{0, 0, 0}, 1};
    mq_ray r = ray_of(-1e4f, 0.5f, 0, 1, 0, 0);
    mq_ray_span s = span_hit(cast_sphere, &r, &sph);
    assert_float_equal(s.t_exit - s.t_enter, 2.0f * sqrtf(0.75f), 2e-3f);
    assert_float_equal(s.t_enter, 1e4f - sqrtf(0.75f), 2e-3f);
    r = ray_of(-1e4f, 1, 0, 1, 0, 0); /* tangent far away */
    s = span_hit(cast_sphere, &r, &sph);
    assert_float_equal(s.t_enter, 1e4f, 0.0f);
    assert_float_equal(s.t_exit, 1e4f, 0.0f);
    r = ray_of(-1e4f, nextafterf(1.0f, 2.0f), 0, 1, 0, 0);
    assert_span_miss(cast_sphere, &r, &sph);
    /* Tiny and huge directions and radii: no overflow, no underflow. */
    r = ray_of(-5, 0, 0, 1e-30f, 0, 0);
    s = span_hit(cast_sphere, &r, &sph);
    assert_float_equal(s.t_enter / 4e30f, 1.0f, 1e-6f);
    assert_float_equal(s.t_exit / 6e30f, 1.0f, 1e-6f);
    r = ray_of(-5, 0, 0, 1e30f, 0, 0);
    s = span_hit(cast_sphere, &r, &sph);
    assert_float_equal(s.t_enter / 4e-30f, 1.0f, 1e-6f);
    const mq_sphere huge = {{0, 0, 0}, 1e30f};
    r = ray_of(-3e30f, 0, 0, 1e30f, 0, 0);
    s = span_hit(cast_sphere, &r, &huge);
    assert_span(&s, 2.0f, 4.0f, 1e-6f);
    const mq_sphere tiny = {{0, 0, 0}, 1e-30f};
    r = ray_of(-3e-30f, 0, 0, 1e-30f, 0, 0);
    s = span_hit(cast_sphere, &r, &tiny);
    assert_span(&s, 2.0f, 4.0f, 1e-6f);
}

static void sphere_random_rays_agree_with_oracle(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(4));
    int hits = 0, misses = 0;
    for (int n = 0; n < 20000; n++) {
        mq_sphere sph = {{(float)mq_test_rng_range(&rng, -2, 2), (float)mq_test_rng_range(&rng, -2, 2),
                          (float)mq_test_rng_range(&rng, -2, 2)},
                         (float)mq_test_rng_range(&rng, 0, 3)};
        check_against_oracle(cast_sphere, sphere_sdf, &sph, &rng, &hits, &misses);
    }
    assert_true(hits > 1000 && misses > 1000);
}

/* ------------------------------------------------------------------------- */
/* Capsule                                                                   */
/* ------------------------------------------------------------------------- */

static const mq_capsule CAP = {{0, 0, 0}, {4, 0, 0}, 1};

static void capsule_body_and_caps(void **state)
{
    (void)state;
    mq_ray r = ray_of(2, -5, 0, 0, 1, 0); /* across the body */
    mq_ray_span s = span_hit(cast_capsule, &r, &CAP);
    assert_span(&s, 4.0f, 6.0f, 0.0f);
    r = ray_of(-5, 0, 0, 1, 0, 0); /* along the axis: cap to cap */
    s = span_hit(cast_capsule, &r, &CAP);
    assert_span(&s, 4.0f, 10.0f, 0.0f);
    r = ray_of(9, 0.5f, 0, -2, 0, 0); /* along, off axis, backwards */
    s = span_hit(cast_capsule, &r, &CAP);
    assert_span(&s, (5.0f - sqrtf(0.75f)) / 2.0f, (9.0f + sqrtf(0.75f)) / 2.0f, 1e-6f);
    r = ray_of(-0.5f, -5, 0, 0, 1, 0); /* through cap a only */
    s = span_hit(cast_capsule, &r, &CAP);
    assert_span(&s, 5.0f - sqrtf(0.75f), 5.0f + sqrtf(0.75f), 1e-6f);
    r = ray_of(4.5f, 0, -5, 0, 0, 1); /* through cap b only */
    s = span_hit(cast_capsule, &r, &CAP);
    assert_span(&s, 5.0f - sqrtf(0.75f), 5.0f + sqrtf(0.75f), 1e-6f);
    /* Oblique: enters through cap a, leaves through the body. Entry at (-1, 0, 0)
     * would need dir along x; instead check the ends lie on the surface. */
    r = ray_of(-3, -2, 0, 1, 0.5f, 0);
    s = span_hit(cast_capsule, &r, &CAP);
    double pe[3], px[3];
    ray_point(&r, s.t_enter, pe);
    ray_point(&r, s.t_exit, px);
    assert_float_equal(capsule_sdf(pe, &CAP), 0.0, 1e-5);
    assert_float_equal(capsule_sdf(px, &CAP), 0.0, 1e-5);
    assert_true(pe[0] < 0.0 && px[0] > 0.0); /* cap a, then body */
}

static void capsule_tangents_and_misses(void **state)
{
    (void)state;
    mq_ray r = ray_of(2, 1, -5, 0, 0, 1); /* tangent to the body */
    mq_ray_span s = span_hit(cast_capsule, &r, &CAP);
    assert_span(&s, 5.0f, 5.0f, 0.0f);
    r = ray_of(-1, 0, -5, 0, 0, 1); /* tangent to cap a at its tip */
    s = span_hit(cast_capsule, &r, &CAP);
    assert_span(&s, 5.0f, 5.0f, 0.0f);
    r = ray_of(-5, 1, 0, 1, 0, 0); /* along the body's top line */
    s = span_hit(cast_capsule, &r, &CAP);
    assert_span(&s, 5.0f, 9.0f, 0.0f);
    r = ray_of(-1.001f, 0, -5, 0, 0, 1);
    assert_span_miss(cast_capsule, &r, &CAP);
    r = ray_of(2, 1.001f, -5, 0, 0, 1);
    assert_span_miss(cast_capsule, &r, &CAP);
    r = ray_of(-5, 1.001f, 0, 1, 0, 0);
    assert_span_miss(cast_capsule, &r, &CAP);
    r = ray_of(2, 3, 0, 0, 1, 0); /* pointing away */
    assert_span_miss(cast_capsule, &r, &CAP);
}

static void capsule_origin_inside_and_clipping(void **state)
{
    (void)state;
    mq_ray r = ray_of(2, 0, 0, 1, 0, 0);
    mq_ray_span s = span_hit(cast_capsule, &r, &CAP);
    assert_span(&s, 0.0f, 3.0f, 0.0f);
    r = ray_seg(2, 0, 0, 0, 0, 1, 0.5f, 0.75f); /* whole segment inside */
    s = span_hit(cast_capsule, &r, &CAP);
    assert_span(&s, 0.5f, 0.75f, 0.0f);
    r = ray_seg(2, -5, 0, 0, 1, 0, 0.0f, 4.0f); /* tmax on the surface */
    s = span_hit(cast_capsule, &r, &CAP);
    assert_span(&s, 4.0f, 4.0f, 0.0f);
    r = ray_seg(2, -5, 0, 0, 1, 0, 0.0f, 3.99f);
    assert_span_miss(cast_capsule, &r, &CAP);
    r = ray_seg(-5, 0, 0, 1, 0, 0, 5.0f, 7.0f); /* clipped on both sides */
    s = span_hit(cast_capsule, &r, &CAP);
    assert_span(&s, 5.0f, 7.0f, 0.0f);
}

static void capsule_degenerate_cases(void **state)
{
    (void)state;
    /* a == b: exactly the sphere. */
    const mq_capsule ball = {{1, 2, 3}, {1, 2, 3}, 2};
    const mq_sphere sph = {{1, 2, 3}, 2};
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(5));
    for (int n = 0; n < 2000; n++) {
        mq_ray r = ray_of((float)mq_test_rng_range(&rng, -5, 5), (float)mq_test_rng_range(&rng, -5, 5),
                          (float)mq_test_rng_range(&rng, -5, 5), (float)mq_test_rng_range(&rng, -1, 1),
                          (float)mq_test_rng_range(&rng, -1, 1), (float)mq_test_rng_range(&rng, -1, 1));
        mq_ray_span a = SENTINEL_SPAN, b = SENTINEL_SPAN;
        assert_int_equal(mq_raycast_capsule(&r, &ball, &a), mq_raycast_sphere(&r, &sph, &b));
        assert_true(a.t_enter == b.t_enter && a.t_exit == b.t_exit);
    }
    /* Radius 0: the segment itself. */
    const mq_capsule seg = {{0, 0, 0}, {4, 0, 0}, 0};
    mq_ray r = ray_of(1, -2, 0, 0, 1, 0); /* crosses the segment */
    mq_ray_span s = span_hit(cast_capsule, &r, &seg);
    assert_span(&s, 2.0f, 2.0f, 0.0f);
    r = ray_of(-2, 0, 0, 1, 0, 0); /* along it */
    s = span_hit(cast_capsule, &r, &seg);
    assert_span(&s, 2.0f, 6.0f, 0.0f);
    r = ray_of(4, -2, 0, 0, 1, 0); /* through the end point b */
    s = span_hit(cast_capsule, &r, &seg);
    assert_span(&s, 2.0f, 2.0f, 0.0f);
    r = ray_of(5, -2, 0, 0, 1, 0); /* crosses the line beyond b */
    assert_span_miss(cast_capsule, &r, &seg);
    r = ray_of(1, -2, 0.001f, 0, 1, 0); /* passes beside */
    assert_span_miss(cast_capsule, &r, &seg);
    /* Radius 0 and a == b: a point. */
    const mq_capsule pt = {{1, 1, 1}, {1, 1, 1}, 0};
    r = ray_of(0, 0, 0, 1, 1, 1);
    s = span_hit(cast_capsule, &r, &pt);
    assert_span(&s, 1.0f, 1.0f, 0.0f);
}

static void capsule_random_rays_agree_with_oracle(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(6));
    int hits = 0, misses = 0;
    for (int n = 0; n < 20000; n++) {
        mq_capsule c;
        for (int i = 0; i < 3; i++) {
            c.a[i] = (float)mq_test_rng_range(&rng, -3, 3);
            c.b[i] = (float)mq_test_rng_range(&rng, -3, 3);
        }
        c.radius = (float)mq_test_rng_range(&rng, 0, 2);
        check_against_oracle(cast_capsule, capsule_sdf, &c, &rng, &hits, &misses);
    }
    assert_true(hits > 1000 && misses > 1000);
}

/* ------------------------------------------------------------------------- */
/* Triangle                                                                  */
/* ------------------------------------------------------------------------- */

static void triangle_hit_t_u_v_and_side(void **state)
{
    (void)state;
    const mq_triangle t = tri_of(0, 0, 0, 1, 0, 0, 0, 1, 0); /* normal +z */
    mq_ray r = ray_of(0.25f, 0.5f, 1, 0, 0, -1);
    mq_triangle_hit h = tri_hit(&r, &t);
    assert_float_equal(h.t, 1.0f, 0.0f);
    assert_float_equal(h.u, 0.25f, 0.0f);
    assert_float_equal(h.v, 0.5f, 0.0f);
    assert_false(h.back_face);
    r = ray_of(0.25f, 0.5f, -2, 0, 0, 4); /* from below, scaled dir */
    h = tri_hit(&r, &t);
    assert_float_equal(h.t, 0.5f, 0.0f);
    assert_float_equal(h.u, 0.25f, 0.0f);
    assert_float_equal(h.v, 0.5f, 0.0f);
    assert_true(h.back_face);
    /* General position, aimed at 0.4*v0 + 0.3*v1 + 0.3*v2 = (-0.2, 0.65, 2.7) from (3, 3, 3). */
    const mq_triangle g = tri_of(1, 2, 3, -2, 0.5f, 1, 0, -1, 4);
    r = ray_of(3, 3, 3, -3.2f, -2.35f, -0.3f);
    h = tri_hit(&r, &g);
    assert_float_equal(h.t, 1.0f, 1e-6f);
    assert_float_equal(h.u, 0.3f, 1e-6f);
    assert_float_equal(h.v, 0.3f, 1e-6f);
    for (int i = 0; i < 3; i++) {
        float p_ray = r.origin[i] + h.t * r.dir[i];
        float p_bary = (1.0f - h.u - h.v) * g.v[0][i] + h.u * g.v[1][i] + h.v * g.v[2][i];
        assert_float_equal(p_ray, p_bary, 1e-5f);
    }
    assert_true(h.u > 0.0f && h.v > 0.0f && h.u + h.v < 1.0f);
}

static void triangle_misses(void **state)
{
    (void)state;
    const mq_triangle t = tri_of(0, 0, 0, 1, 0, 0, 0, 1, 0);
    mq_ray r = ray_of(0.6f, 0.6f, 1, 0, 0, -1); /* beyond the hypotenuse */
    assert_tri_miss(&r, &t);
    r = ray_of(-0.01f, 0.5f, 1, 0, 0, -1);
    assert_tri_miss(&r, &t);
    r = ray_of(0.25f, 0.25f, 1, 0, 0, 1); /* pointing away */
    assert_tri_miss(&r, &t);
    r = ray_of(0.25f, 0.25f, 1, 1, 0, 0); /* parallel, above */
    assert_tri_miss(&r, &t);
}

static void triangle_edges_and_vertices_are_closed(void **state)
{
    (void)state;
    const mq_triangle t = tri_of(0, 0, 0, 2, 0, 0, 0, 2, 0);
    const float pts[6][2] = {{0, 0}, {2, 0}, {0, 2}, {1, 0}, {1, 1}, {0, 1}};
    const float uv[6][2] = {{0, 0}, {1, 0}, {0, 1}, {0.5f, 0}, {0.5f, 0.5f}, {0, 0.5f}};
    for (int k = 0; k < 6; k++) {
        mq_ray r = ray_of(pts[k][0], pts[k][1], 3, 0, 0, -1);
        mq_triangle_hit h = tri_hit(&r, &t);
        assert_float_equal(h.t, 3.0f, 0.0f);
        assert_float_equal(h.u, uv[k][0], 0.0f);
        assert_float_equal(h.v, uv[k][1], 0.0f);
        /* Oblique rays with dyadic directions through the same points. */
        r = ray_of(pts[k][0] + 0.5f, pts[k][1] - 0.25f, 2, -0.25f, 0.125f, -1);
        h = tri_hit(&r, &t);
        assert_float_equal(h.t, 2.0f, 0.0f);
        assert_float_equal(h.u, uv[k][0], 0.0f);
        assert_float_equal(h.v, uv[k][1], 0.0f);
    }
    /* Just outside each vertex. */
    mq_ray r = ray_of(nextafterf(2.0f, 3.0f), 0, 3, 0, 0, -1);
    assert_tri_miss(&r, &t);
    r = ray_of(0, nextafterf(0.0f, -1.0f), 3, 0, 0, -1);
    assert_tri_miss(&r, &t);
}

static void triangle_degenerate_and_in_plane_never_hit(void **state)
{
    (void)state;
    const mq_triangle collinear = tri_of(0, 0, 0, 1, 1, 1, 2, 2, 2);
    const mq_triangle repeated = tri_of(1, 0, 0, 1, 0, 0, 0, 1, 0);
    const mq_triangle point = tri_of(1, 1, 1, 1, 1, 1, 1, 1, 1);
    mq_ray r = ray_of(1, 1, 3, 0, 0, -1); /* through the middle of the segment */
    assert_tri_miss(&r, &collinear);
    r = ray_of(0, 0, 0, 1, 2, 3); /* from its end */
    assert_tri_miss(&r, &collinear);
    r = ray_of(1, 0, 3, 0, 0, -1);
    assert_tri_miss(&r, &repeated);
    r = ray_of(0.5f, 0.5f, 3, 0, 0, -1);
    assert_tri_miss(&r, &repeated);
    r = ray_of(1, 1, 3, 0, 0, -1);
    assert_tri_miss(&r, &point);
    /* Rays in the plane of a proper triangle, crossing it. */
    const mq_triangle t = tri_of(0, 0, 0, 1, 0, 0, 0, 1, 0);
    r = ray_of(-1, 0.25f, 0, 1, 0, 0);
    assert_tri_miss(&r, &t);
    r = ray_of(-1, -1, 0, 1, 1, 0);
    assert_tri_miss(&r, &t);
    r = ray_of(0.25f, 0.25f, 0, 1, -0.0f, 0); /* origin inside the triangle */
    assert_tri_miss(&r, &t);
    const mq_triangle tilted = tri_of(0, 0, 0, 2, 0, 2, 0, 2, 0); /* plane x = z */
    r = ray_of(-1, 0.5f, -1, 1, 0, 1);
    assert_tri_miss(&r, &tilted);
    r = ray_of(-1, 0.5f, -1, 1, 0.125f, 1);
    assert_tri_miss(&r, &tilted);
}

static void triangle_tmin_tmax(void **state)
{
    (void)state;
    const mq_triangle t = tri_of(0, 0, 0, 1, 0, 0, 0, 1, 0);
    mq_ray r = ray_seg(0.25f, 0.25f, 2, 0, 0, -1, 0.0f, 1.5f); /* beyond tmax */
    assert_tri_miss(&r, &t);
    r = ray_seg(0.25f, 0.25f, 2, 0, 0, -1, 0.0f, 2.0f); /* tmax exactly on it */
    mq_triangle_hit h = tri_hit(&r, &t);
    assert_float_equal(h.t, 2.0f, 0.0f);
    r = ray_seg(0.25f, 0.25f, 2, 0, 0, -1, 2.0f, 2.0f);
    h = tri_hit(&r, &t);
    assert_float_equal(h.t, 2.0f, 0.0f);
    r = ray_seg(0.25f, 0.25f, 2, 0, 0, -1, nextafterf(2.0f, 3.0f), 5.0f); /* just past tmin */
    assert_tri_miss(&r, &t);
    r = ray_seg(0.25f, 0.25f, 2, 0, 0, 1, -5.0f, 5.0f); /* behind, reached by a negative tmin */
    h = tri_hit(&r, &t);
    assert_float_equal(h.t, -2.0f, 0.0f);
    r = ray_seg(0.25f, 0.25f, 0, 0, 0, 1, 0.0f, 1.0f); /* origin on the triangle */
    h = tri_hit(&r, &t);
    assert_float_equal(h.t, 0.0f, 0.0f);
}

static void triangle_extreme_directions(void **state)
{
    (void)state;
    const mq_triangle t = tri_of(0, 0, 0, 1, 0, 0, 0, 1, 0);
    mq_ray r = ray_of(0.25f, 0.25f, 2, 0, 0, -1e-30f);
    mq_triangle_hit h = tri_hit(&r, &t);
    assert_float_equal(h.t / 2e30f, 1.0f, 1e-6f);
    r = ray_of(0.25f, 0.25f, 2, 0, 0, -FLT_TRUE_MIN);
    h = tri_hit(&r, &t); /* t beyond FLT_MAX: inf, within [0, inf] */
    assert_true(h.t == INFINITY);
    r = ray_seg(0.25f, 0.25f, 2, 0, 0, -FLT_TRUE_MIN, 0.0f, FLT_MAX);
    assert_tri_miss(&r, &t);
    r = ray_of(0.25f, 0.25f, 2, 0, 0, -1e30f);
    h = tri_hit(&r, &t);
    assert_float_equal(h.t / 2e-30f, 1.0f, 1e-6f);
    assert_float_equal(h.u, 0.25f, 1e-7f);
    /* Huge coordinates: the float edge functions overflow, the double ones do not. */
    const mq_triangle big = tri_of(-3e25f, -3e25f, 0, 3e25f, -3e25f, 0, 0, 3e25f, 0);
    r = ray_of(0, 0, 1e25f, 0, 0, -1);
    h = tri_hit(&r, &big);
    assert_float_equal(h.t / 1e25f, 1.0f, 1e-6f);
    assert_float_equal(h.u, 0.25f, 1e-6f);
    assert_float_equal(h.v, 0.5f, 1e-6f);
}

/* Slivers found by tests/diff. The float edge functions decide hit or miss
 * exactly, but as weights they lose ~1e-4 on a triangle of aspect 1e-4, which put
 * this hit point 1.1e-3 off the plane (t = 15.6252937). Exact values: rational
 * arithmetic on the float inputs. */
static void triangle_sliver_hit_values(void **state)
{
    (void)state;
    const mq_triangle t = tri_of(0x1.45cf2p+5f, 0x1.a5b8eap+1f, 0x1.0b14dap+4f, -0x1.ed13c4p+2f, 0x1.41d0acp+5f,
                                 -0x1.167576p-4f, 0x1.5a82e2p+5f, 0x1.529fcep+0f, 0x1.1987e4p+4f);
    mq_ray r = ray_seg(0x1.dd76b6p+4f, 0x1.e8418p+5f, 0x1.92ff96p+3f, -0x1.e53bdcp-1f, -0x1.3875bep+1f, -0x1.3a18fp-2f,
                       0.0f, 0x1.12086cp+4f);
    mq_triangle_hit h = tri_hit(&r, &t);
    assert_float_equal(h.t, 15.625734322945315, 4e-6);
    assert_float_equal(h.u, 0.5306581642031459, 1e-6);
    assert_float_equal(h.v, 0.002516571867023811, 1e-6);
    assert_false(h.back_face);

    /* Aspect 6.3e-8: the float test says hit (the ray passes within rounding of the
     * sliver), yet the plane point has the weight -0.32 for v2. Clamping that to 0
     * would slide the point 0.32 of an edge along the sliver; the reported point
     * must be the triangle's point nearest to the plane point. */
    const mq_triangle s = tri_of(-0x1.218636p-3f, 0x1.91b1e2p-1f, 0x1.616404p-3f, -0x1.6c3eecp-4f, 0x1.94bbaap-1f,
                                 -0x1.df1404p-3f, -0x1.9ba8ap-4f, 0x1.940ffcp-1f, -0x1.275434p-3f);
    r = ray_seg(0x1.51892cp+0f, 0x1.5a5ee4p-1f, -0x1.cc5fa8p-3f, -0x1.c08b36p+0f, 0x1.18383cp-3f, 0x1.887718p-3f,
                0x1.e769fp-2f, INFINITY);
    h = tri_hit(&r, &s);
    assert_float_equal(h.t, 0.8154477339681848, 1e-6);
    assert_true(h.u >= 0.0f && h.v >= 0.0f && h.u + h.v <= 1.0f + 1e-6f);
    for (int i = 0; i < 3; i++) {
        double p_ray = (double)r.origin[i] + (double)h.t * r.dir[i];
        double p_bary = (1.0 - h.u - h.v) * s.v[0][i] + (double)h.u * s.v[1][i] + (double)h.v * s.v[2][i];
        assert_float_equal(p_ray, p_bary, 1e-6);
    }
}

static void triangle_random_rays_agree_with_oracle(void **state)
{
    (void)state;
    /* Double-precision plane intersection and barycentrics as the oracle. */
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(7));
    int hits = 0, misses = 0;
    for (int n = 0; n < 50000; n++) {
        mq_triangle t;
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 3; i++)
                t.v[k][i] = (float)mq_test_rng_range(&rng, -2, 2);
        /* Aim near the triangle: barycentrics in [-0.3, 1.3] hit it about half the time. */
        double wu = mq_test_rng_range(&rng, -0.3, 1.3), wv = mq_test_rng_range(&rng, -0.3, 1.3), dist = 0.0;
        double o[3], dir[3];
        for (int i = 0; i < 3; i++) {
            o[i] = mq_test_rng_range(&rng, -3, 3);
            dir[i] = (1.0 - wu - wv) * t.v[0][i] + wu * t.v[1][i] + wv * t.v[2][i] - o[i];
            dist += dir[i] * dir[i];
        }
        double len = mq_test_rng_range(&rng, 0.1, 4) / sqrt(dist);
        mq_ray r = ray_seg((float)o[0], (float)o[1], (float)o[2], (float)(dir[0] * len), (float)(dir[1] * len),
                           (float)(dir[2] * len), 0.0f, (float)mq_test_rng_range(&rng, 0, 1.5 / len));
        double e1[3], e2[3], s[3], p[3], q[3];
        for (int i = 0; i < 3; i++) {
            e1[i] = (double)t.v[1][i] - t.v[0][i];
            e2[i] = (double)t.v[2][i] - t.v[0][i];
            s[i] = (double)r.origin[i] - t.v[0][i];
        }
        const double *d = (const double[3]){r.dir[0], r.dir[1], r.dir[2]};
        p[0] = d[1] * e2[2] - d[2] * e2[1];
        p[1] = d[2] * e2[0] - d[0] * e2[2];
        p[2] = d[0] * e2[1] - d[1] * e2[0];
        q[0] = s[1] * e1[2] - s[2] * e1[1];
        q[1] = s[2] * e1[0] - s[0] * e1[2];
        q[2] = s[0] * e1[1] - s[1] * e1[0];
        double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
        double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
        double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
        double tt = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
        double nd = (e1[1] * e2[2] - e1[2] * e2[1]) * d[0] + (e1[2] * e2[0] - e1[0] * e2[2]) * d[1] +
                    (e1[0] * e2[1] - e1[1] * e2[0]) * d[2];
        const double m = 1e-4;
        bool inside = u > m && v > m && 1.0 - u - v > m && tt > m && tt < r.tmax - m;
        bool outside = u < -m || v < -m || 1.0 - u - v < -m || tt < -m || tt > r.tmax + m;
        /* Nearly edge-on triangles amplify rounding: leave them out. */
        double n2 = (e1[1] * e2[2] - e1[2] * e2[1]) * (e1[1] * e2[2] - e1[2] * e2[1]) +
                    (e1[2] * e2[0] - e1[0] * e2[2]) * (e1[2] * e2[0] - e1[0] * e2[2]) +
                    (e1[0] * e2[1] - e1[1] * e2[0]) * (e1[0] * e2[1] - e1[1] * e2[0]);
        if (fabs(nd) < 1e-2 * sqrt(n2) * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]))
            continue;
        mq_triangle_hit h = SENTINEL_HIT;
        bool hit = mq_raycast_triangle(&r, &t, &h);
        if (inside) {
            assert_true(hit);
            hits++;
            assert_float_equal(h.t, tt, 1e-4 * fmax(1.0, fabs(tt)));
            assert_float_equal(h.u, u, 1e-4);
            assert_float_equal(h.v, v, 1e-4);
            assert_int_equal(h.back_face, nd > 0.0);
        }
        if (outside) {
            assert_false(hit);
            misses++;
        }
    }
    assert_true(hits > 1000 && misses > 1000);
}

/* Counts the triangles of an indexed mesh the ray hits (brute force). */
static int count_hits(const mq_ray *r, const float *verts, const int (*tris)[3], int ntris)
{
    int hits = 0;
    for (int k = 0; k < ntris; k++) {
        mq_triangle t;
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < 3; i++)
                t.v[c][i] = verts[3 * tris[k][c] + i];
        mq_triangle_hit h;
        if (mq_raycast_triangle(r, &t, &h)) {
            hits++;
            assert_true(h.t >= r->tmin && h.t <= r->tmax);
        }
    }
    return hits;
}

/* Fires `nrays` rays from interior points (inside(rng, out) gives one) of a closed
 * mesh toward its vertices, edge midpoints, points on edges and random directions.
 * Each must hit at least one triangle. Returns the number of rays fired. */
typedef void (*interior_fn)(mq_test_rng *rng, const xform *x, vec3 out);

static int fire_from_inside(mq_test_rng *rng, const xform *x, interior_fn inside, const float *verts,
                            const int (*tris)[3], int ntris, int nverts, int nrays)
{
    for (int n = 0; n < nrays; n++) {
        vec3 o, target;
        inside(rng, x, o);
        int kind = n % 4;
        const int *tri = tris[mq_test_rng_u64(rng) % (uint64_t)ntris];
        const float *p = verts + 3 * tri[n % 3], *q = verts + 3 * tri[(n + 1) % 3];
        if (kind == 0) {
            const float *v = verts + 3 * (mq_test_rng_u64(rng) % (uint64_t)nverts);
            mq_v3_copy(target, v);
        } else if (kind == 1) {
            for (int i = 0; i < 3; i++)
                target[i] = 0.5f * (p[i] + q[i]);
        } else if (kind == 2) {
            float s = (float)mq_test_rng_unit(rng);
            for (int i = 0; i < 3; i++)
                target[i] = p[i] + s * (q[i] - p[i]);
        } else {
            double d[3];
            mq_test_rng_unit_vector(rng, d);
            for (int i = 0; i < 3; i++)
                target[i] = o[i] + (float)d[i];
        }
        mq_ray r;
        mq_v3_copy(r.origin, o);
        mq_v3_sub(r.dir, target, o);
        r.tmin = 0.0f;
        r.tmax = INFINITY;
        if (!mq_ray_is_valid(&r))
            continue;
        if (count_hits(&r, verts, tris, ntris) < 1)
            fail_msg("ray %d (kind %d) from (%a, %a, %a) dir (%a, %a, %a) went through the mesh", n, kind, (double)o[0],
                     (double)o[1], (double)o[2], (double)r.dir[0], (double)r.dir[1], (double)r.dir[2]);
    }
    return nrays;
}

static void octa_inside(mq_test_rng *rng, const xform *x, vec3 out)
{
    double p[3], s = 0.0;
    for (int i = 0; i < 3; i++) {
        p[i] = mq_test_rng_range(rng, -1, 1);
        s += fabs(p[i]);
    }
    double k = mq_test_rng_range(rng, 0.0, 0.9) / fmax(s, 1e-9); /* |x|+|y|+|z| <= 0.9 */
    for (int i = 0; i < 3; i++)
        p[i] *= k;
    if (mq_test_rng_u64(rng) % 16 == 0)
        p[0] = p[1] = p[2] = 0.0; /* the centre, symmetric to everything */
    xform_apply(x, p, out);
}

static void cube_inside(mq_test_rng *rng, const xform *x, vec3 out)
{
    double p[3];
    for (int i = 0; i < 3; i++)
        p[i] = mq_test_rng_range(rng, -0.95, 0.95);
    if (mq_test_rng_u64(rng) % 16 == 0)
        p[0] = p[1] = p[2] = 0.0;
    xform_apply(x, p, out);
}

static void triangle_watertight_octahedron(void **state)
{
    (void)state;
    static const double corners[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    static const int faces[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                                    {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(8));
    int fired = 0;
    for (int pose = 0; pose < 50; pose++) {
        xform x = {{0, 0, 0, 1}, 1.0, {0, 0, 0}}; /* pose 0: the exact, symmetric octahedron */
        if (pose > 0)
            xform_random(&rng, &x);
        vec3 verts[6];
        for (int v = 0; v < 6; v++)
            xform_apply(&x, corners[v], verts[v]);
        fired += fire_from_inside(&rng, &x, octa_inside, &verts[0][0], faces, 8, 6, 2000);
    }
    assert_true(fired >= 100000);
}

#define CUBE_N 4
#define CUBE_VERTS ((CUBE_N + 1) * (CUBE_N + 1) * (CUBE_N + 1))
#define CUBE_TRIS (6 * CUBE_N * CUBE_N * 2)

static int grid_index(int i, int j, int k)
{
    return (i * (CUBE_N + 1) + j) * (CUBE_N + 1) + k;
}

/* A cube [-1,1]^3 with each face split into CUBE_N x CUBE_N quads (two triangles
 * each, alternating diagonals). Vertices are indexed, so shared ones are shared bits. */
static int build_cube(int tris[CUBE_TRIS][3])
{
    int n = 0;
    for (int axis = 0; axis < 3; axis++) {
        int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
        for (int side = 0; side <= CUBE_N; side += CUBE_N) {
            for (int i = 0; i < CUBE_N; i++) {
                for (int j = 0; j < CUBE_N; j++) {
                    int c[4];
                    const int di[4] = {0, 1, 1, 0}, dj[4] = {0, 0, 1, 1};
                    for (int q = 0; q < 4; q++) {
                        int g[3];
                        g[axis] = side;
                        g[a1] = i + di[q];
                        g[a2] = j + dj[q];
                        c[q] = grid_index(g[0], g[1], g[2]);
                    }
                    if ((i + j) % 2 == 0) {
                        tris[n][0] = c[0], tris[n][1] = c[1], tris[n][2] = c[2], n++;
                        tris[n][0] = c[0], tris[n][1] = c[2], tris[n][2] = c[3], n++;
                    } else {
                        tris[n][0] = c[0], tris[n][1] = c[1], tris[n][2] = c[3], n++;
                        tris[n][0] = c[1], tris[n][1] = c[2], tris[n][2] = c[3], n++;
                    }
                }
            }
        }
    }
    return n;
}

static void triangle_watertight_subdivided_cube(void **state)
{
    (void)state;
    static int tris[CUBE_TRIS][3];
    assert_int_equal(build_cube(tris), CUBE_TRIS);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(9));
    int fired = 0;
    for (int pose = 0; pose < 25; pose++) {
        xform x = {{0, 0, 0, 1}, 1.0, {0, 0, 0}};
        if (pose > 0)
            xform_random(&rng, &x);
        static vec3 verts[CUBE_VERTS];
        for (int i = 0; i <= CUBE_N; i++)
            for (int j = 0; j <= CUBE_N; j++)
                for (int k = 0; k <= CUBE_N; k++) {
                    double p[3] = {2.0 * i / CUBE_N - 1.0, 2.0 * j / CUBE_N - 1.0, 2.0 * k / CUBE_N - 1.0};
                    xform_apply(&x, p, verts[grid_index(i, j, k)]);
                }
        fired +=
            fire_from_inside(&rng, &x, cube_inside, &verts[0][0], (const int(*)[3])tris, CUBE_TRIS, CUBE_VERTS, 2000);
    }
    assert_true(fired >= 50000);
}

/* Hexagonal fan: centre 0, ring vertices 1..6, triangles (0, k, k+1). */
static const int FAN[6][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 5}, {0, 5, 6}, {0, 6, 1}};

static void triangle_fan_exact_aims_hit_all_sharers(void **state)
{
    (void)state;
    /* Dyadic hexagon in z = 0, rays from above with power-of-two dz so every
     * step is exact: a ray through a shared edge hits both triangles, one through
     * the centre hits all six (closed sets). */
    const vec3 verts[7] = {{0, 0, 0},  {1, 0, 0},           {0.5f, 0.875f, 0}, {-0.5f, 0.875f, 0},
                           {-1, 0, 0}, {-0.5f, -0.875f, 0}, {0.5f, -0.875f, 0}};
    const float offsets[4][2] = {{0, 0}, {0.5f, -0.25f}, {-1.5f, 0.75f}, {0.125f, 2}};
    for (int o = 0; o < 4; o++) {
        mq_ray r = ray_of(offsets[o][0], offsets[o][1], 2, -offsets[o][0], -offsets[o][1], -2);
        assert_int_equal(count_hits(&r, &verts[0][0], FAN, 6), 6);
        for (int k = 1; k <= 6; k++) {
            for (int s = 1; s <= 3; s++) {
                float px = verts[k][0] * (float)s / 4.0f, py = verts[k][1] * (float)s / 4.0f;
                r = ray_of(px + offsets[o][0], py + offsets[o][1], 2, -offsets[o][0], -offsets[o][1], -2);
                assert_int_equal(count_hits(&r, &verts[0][0], FAN, 6), 2);
                /* The triangle (0, k, k+1) sees the point on its edge 0-k: weight of v2 is 0. */
                mq_triangle t = {{{0, 0, 0}, {verts[k][0], verts[k][1], 0}, {0, 0, 0}}};
                mq_v3_copy(t.v[2], verts[k == 6 ? 1 : k + 1]);
                mq_triangle_hit h = tri_hit(&r, &t);
                assert_float_equal(h.v, 0.0f, 0.0f);
                assert_float_equal(h.u, (float)s / 4.0f, 1e-7f);
                assert_float_equal(h.t, 1.0f, 0.0f);
            }
        }
    }
}

static void triangle_fan_random_aims_never_fall_through(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(10));
    for (int pose = 0; pose < 20; pose++) {
        xform x;
        xform_random(&rng, &x);
        vec3 verts[7];
        const double centre[3] = {0, 0, 0};
        xform_apply(&x, centre, verts[0]);
        for (int k = 0; k < 6; k++) {
            double p[3] = {cos(k * PI / 3.0), sin(k * PI / 3.0), 0.0};
            xform_apply(&x, p, verts[k + 1]);
        }
        for (int n = 0; n < 2500; n++) {
            /* Origin above the fan (local z > 0), target the centre or a point on an inner edge. */
            double lo[3] = {mq_test_rng_range(&rng, -2, 2), mq_test_rng_range(&rng, -2, 2),
                            mq_test_rng_range(&rng, 0.05, 3)};
            vec3 o, target;
            xform_apply(&x, lo, o);
            if (n % 5 == 0) {
                mq_v3_copy(target, verts[0]);
            } else {
                const float *p = verts[1 + mq_test_rng_u64(&rng) % 6];
                float s = n % 5 == 1 ? 0.5f : (float)mq_test_rng_range(&rng, 0.0, 0.999);
                for (int i = 0; i < 3; i++)
                    target[i] = verts[0][i] + s * (p[i] - verts[0][i]);
            }
            mq_ray r;
            mq_v3_copy(r.origin, o);
            mq_v3_sub(r.dir, target, o);
            r.tmin = 0.0f;
            r.tmax = INFINITY;
            if (count_hits(&r, &verts[0][0], FAN, 6) < 1)
                fail_msg("fan ray %d of pose %d fell through", n, pose);
        }
    }
}

/* ------------------------------------------------------------------------- */
/* Plane                                                                     */
/* ------------------------------------------------------------------------- */

static void plane_crossings(void **state)
{
    (void)state;
    const mq_plane p = {{0, 0, 2}, 2}; /* z = 1 */
    mq_ray r = ray_of(0, 0, 5, 0, 0, -2);
    float t = 99.0f;
    assert_true(mq_raycast_plane(&r, &p, &t));
    assert_float_equal(t, 2.0f, 0.0f);
    r = ray_of(3, -1, -1, 1, 1, 0.5f); /* from the other side, oblique */
    assert_true(mq_raycast_plane(&r, &p, &t));
    assert_float_equal(t, 4.0f, 0.0f);
    assert_true(mq_raycast_plane(&r, &p, NULL));
    const mq_plane tilted = {{1, 1, 1}, 3}; /* x + y + z = 3 */
    r = ray_of(0, 0, 0, 1, 2, 3);
    assert_true(mq_raycast_plane(&r, &tilted, &t));
    assert_float_equal(t, 0.5f, 0.0f);
    r = ray_of(0, 0, 0, 0.1f, 0.2f, 0.3f);
    assert_true(mq_raycast_plane(&r, &tilted, &t));
    assert_float_equal(t, 5.0f, 1e-6f);
}

static void plane_parallel_in_plane_and_clipping(void **state)
{
    (void)state;
    const mq_plane p = {{0, 0, 2}, 2};
    float t = 99.0f;
    mq_ray r = ray_seg(1, 2, 1, 1, -1, 0, 0.75f, 3.0f); /* lies in the plane */
    assert_true(mq_raycast_plane(&r, &p, &t));
    assert_float_equal(t, 0.75f, 0.0f);
    r = ray_of(1, 2, 1, 1, -1, -0.0f);
    assert_true(mq_raycast_plane(&r, &p, &t));
    assert_float_equal(t, 0.0f, 0.0f);
    t = 99.0f;
    r = ray_of(1, 2, 1.5f, 1, -1, 0); /* parallel, off the plane */
    assert_false(mq_raycast_plane(&r, &p, &t));
    assert_float_equal(t, 99.0f, 0.0f);
    r = ray_of(0, 0, 5, 0, 0, 1); /* pointing away */
    assert_false(mq_raycast_plane(&r, &p, &t));
    r = ray_seg(0, 0, 5, 0, 0, -1, 0.0f, 3.99f); /* crossing beyond tmax */
    assert_false(mq_raycast_plane(&r, &p, &t));
    r = ray_seg(0, 0, 5, 0, 0, -1, 0.0f, 4.0f); /* tmax on the plane */
    assert_true(mq_raycast_plane(&r, &p, &t));
    assert_float_equal(t, 4.0f, 0.0f);
    r = ray_seg(0, 0, 5, 0, 0, -1, 4.5f, 9.0f); /* crossing before tmin */
    assert_false(mq_raycast_plane(&r, &p, &t));
    r = ray_seg(0, 0, 5, 0, 0, 1, -10.0f, 0.0f); /* negative tmin reaches it */
    assert_true(mq_raycast_plane(&r, &p, &t));
    assert_float_equal(t, -4.0f, 0.0f);
}

static void plane_invalid(void **state)
{
    (void)state;
    const mq_ray r = ray_of(0, 0, 5, 0, 0, -1);
    const mq_plane bad[] = {
        {{0, 0, 0}, 1},   {{-0.0f, 0, -0.0f}, 0}, {{NAN, 0, 1}, 1},       {{0, INFINITY, 1}, 1},
        {{0, 0, 1}, NAN}, {{0, 0, 1}, INFINITY},  {{0, 0, 1}, -INFINITY},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        float t = 99.0f;
        assert_false(mq_raycast_plane(&r, &bad[i], &t));
        assert_float_equal(t, 99.0f, 0.0f);
    }
    const mq_plane ok = {{0, 0, 1e-30f}, 0}; /* tiny but non-zero normal is valid */
    float t = 99.0f;
    assert_true(mq_raycast_plane(&r, &ok, &t));
    assert_float_equal(t, 5.0f, 0.0f);
}

/* ------------------------------------------------------------------------- */
/* Invalid input, all ray tests at once                                      */
/* ------------------------------------------------------------------------- */

/* Shapes that the base ray from (-5, 0.1, 0.2) along +x hits, one of each kind. */
static const mq_aabb V_BOX = {{-1, -1, -1}, {1, 1, 1}};
static const mq_sphere V_SPHERE = {{0, 0, 0}, 1};
static const mq_capsule V_CAPSULE = {{0, -1, 0}, {0, 1, 0}, 0.5f};
static const mq_triangle V_TRI = {{{0, -1, -1}, {0, 2, -1}, {0, -1, 2}}};
static const mq_plane V_PLANE = {{1, 0, 0}, 0};

/* Counts how many of the six tests hit; misses must leave their outputs alone. */
static int hits_of_all_six(const mq_ray *r)
{
    mq_obb obb = unit_obb(0, 0, 0, 1, 1, 1);
    int n = 0;
    mq_ray_span s = SENTINEL_SPAN;
    if (mq_raycast_aabb(r, &V_BOX, &s))
        n++;
    else
        assert_untouched(&s);
    s = SENTINEL_SPAN;
    if (mq_raycast_obb(r, &obb, &s))
        n++;
    else
        assert_untouched(&s);
    s = SENTINEL_SPAN;
    if (mq_raycast_sphere(r, &V_SPHERE, &s))
        n++;
    else
        assert_untouched(&s);
    s = SENTINEL_SPAN;
    if (mq_raycast_capsule(r, &V_CAPSULE, &s))
        n++;
    else
        assert_untouched(&s);
    mq_triangle_hit h = SENTINEL_HIT;
    if (mq_raycast_triangle(r, &V_TRI, &h))
        n++;
    else
        assert_true(h.t == 7.0f && h.u == 8.0f && h.v == 9.0f && h.back_face);
    float t = 99.0f;
    if (mq_raycast_plane(r, &V_PLANE, &t))
        n++;
    else
        assert_true(t == 99.0f);
    return n;
}

static void invalid_rays_hit_nothing(void **state)
{
    (void)state;
    const mq_ray base = ray_seg(-5, 0.1f, 0.2f, 1, 0, 0, 0.0f, 100.0f);
    assert_int_equal(hits_of_all_six(&base), 6);
    assert_int_equal(hits_of_all_six(NULL), 0);
    const float poison[] = {NAN, INFINITY, -INFINITY};
    for (int field = 0; field < 8; field++) {
        for (int k = 0; k < 3; k++) {
            mq_ray r = base;
            float *f = field < 3 ? &r.origin[field] : field < 6 ? &r.dir[field - 3] : field == 6 ? &r.tmin : &r.tmax;
            *f = poison[k];
            bool still_valid = (field == 6 && k == 2) || (field == 7 && k == 1); /* tmin=-inf, tmax=+inf */
            if (still_valid) {
                assert_true(mq_ray_is_valid(&r));
                continue;
            }
            if (hits_of_all_six(&r) != 0)
                fail_msg("field %d set to %f still hits", field, (double)poison[k]);
        }
    }
    mq_ray r = base;
    r.dir[0] = 0.0f;
    assert_int_equal(hits_of_all_six(&r), 0); /* zero direction */
    r.dir[0] = r.dir[1] = r.dir[2] = -0.0f;
    assert_int_equal(hits_of_all_six(&r), 0);
    r = base;
    r.tmin = 5.0f;
    r.tmax = 4.0f; /* empty interval */
    assert_int_equal(hits_of_all_six(&r), 0);
    r = base;
    r.tmin = r.tmax = 5.0f; /* a single point: valid, and it is at x = 0 */
    assert_int_equal(hits_of_all_six(&r), 6);
}

static void invalid_shapes_are_never_hit(void **state)
{
    (void)state;
    const mq_ray r = ray_of(-5, 0.1f, 0.2f, 1, 0, 0);
    /* Boxes: inverted, NaN, infinite. */
    const mq_aabb boxes[] = {{{1, -1, -1}, {-1, 1, 1}},
                             {{-1, -1, NAN}, {1, 1, 1}},
                             {{-1, -1, -1}, {1, NAN, 1}},
                             {{-INFINITY, -1, -1}, {1, 1, 1}},
                             {{-1, -1, -1}, {1, 1, INFINITY}}};
    for (size_t i = 0; i < sizeof boxes / sizeof boxes[0]; i++)
        assert_span_miss(cast_aabb, &r, &boxes[i]);
    assert_span_miss(cast_aabb, &r, NULL);

    /* OBBs: negative half extent, NaN centre, non-unit or skewed axes, NaN axis. */
    mq_obb o = unit_obb(0, 0, 0, 1, 1, 1);
    assert_true(span_hit(cast_obb, &r, &o).t_enter == 4.0f);
    mq_obb bad = o;
    bad.half[1] = -0.5f;
    assert_span_miss(cast_obb, &r, &bad);
    bad = o;
    bad.center[2] = NAN;
    assert_span_miss(cast_obb, &r, &bad);
    bad = o;
    bad.half[0] = INFINITY;
    assert_span_miss(cast_obb, &r, &bad);
    bad = o;
    mq_v3_set(bad.axes[0], 1.1f, 0, 0); /* not unit */
    assert_span_miss(cast_obb, &r, &bad);
    bad = o;
    mq_v3_set(bad.axes[1], 0.1f, 0.995f, 0); /* not orthogonal to axes[0] */
    assert_span_miss(cast_obb, &r, &bad);
    bad = o;
    bad.axes[2][2] = NAN;
    assert_span_miss(cast_obb, &r, &bad);
    mq_aabb inverted = {{1, 1, 1}, {-1, -1, -1}};
    mq_obb_from_aabb(&inverted, &bad);
    assert_span_miss(cast_obb, &r, &bad);
    assert_span_miss(cast_obb, &r, NULL);

    /* Spheres and capsules: negative / NaN / infinite radius, NaN or infinite centre. */
    const mq_sphere spheres[] = {{{0, 0, 0}, -1},  {{0, 0, 0}, NAN},      {{0, 0, 0}, INFINITY},
                                 {{NAN, 0, 0}, 1}, {{0, INFINITY, 0}, 1}, {{0, 0, 0}, -0.0001f}};
    for (size_t i = 0; i < sizeof spheres / sizeof spheres[0]; i++)
        assert_span_miss(cast_sphere, &r, &spheres[i]);
    assert_span_miss(cast_sphere, &r, NULL);
    const mq_capsule caps[] = {{{0, -1, 0}, {0, 1, 0}, -1},
                               {{0, -1, 0}, {0, 1, 0}, NAN},
                               {{0, -1, 0}, {0, 1, 0}, INFINITY},
                               {{0, NAN, 0}, {0, 1, 0}, 1},
                               {{0, -1, 0}, {0, 1, -INFINITY}, 1}};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
        assert_span_miss(cast_capsule, &r, &caps[i]);
    assert_span_miss(cast_capsule, &r, NULL);

    /* Triangles: a NaN or infinite coordinate in each vertex. */
    for (int v = 0; v < 3; v++) {
        for (int i = 0; i < 3; i++) {
            mq_triangle t = V_TRI;
            t.v[v][i] = NAN;
            assert_tri_miss(&r, &t);
            t.v[v][i] = -INFINITY;
            assert_tri_miss(&r, &t);
        }
    }
    assert_tri_miss(&r, NULL);
    float t = 99.0f;
    assert_false(mq_raycast_plane(&r, NULL, &t));
    assert_true(t == 99.0f);
}

/*
 * Rays within 1e-6 of parallel to a triangle's plane: the hit is located where
 * the decision puts it, not where the ray crosses the plane (which rounding
 * can put far from the triangle).
 */
static void triangle_near_parallel_rays_are_located_on_the_triangle(void **state)
{
    (void)state;
    /* The plane y = z; the ray runs along -x from x = -4, 1e-14 off parallel.
     * Its line passes within 2e-14 of the triangle only at t < 0: a miss (it
     * was a hit at t = 0, 2 units from the triangle). */
    mq_triangle tri = {{{-3, -2, -2}, {-1, 0, 0}, {1, 1, 1}}};
    mq_ray away = {{-4, 0, 0x1.06080ap-113f}, 0.0f, {-0x1.0a0608p+49f, 3, 0}, INFINITY};
    mq_triangle_hit h;
    assert_false(mq_raycast_triangle(&away, &tri, &h));
    /* The same line run the other way passes the triangle: a hit whose point is on it. */
    mq_ray toward = {{-4, 0, 0x1.06080ap-113f}, 0.0f, {0x1.0a0608p+49f, -3, 0}, INFINITY};
    assert_true(mq_raycast_triangle(&toward, &tri, &h));
    for (int k = 0; k < 3; k++) {
        float p = toward.origin[k] + h.t * toward.dir[k];
        float q = (1.0f - h.u - h.v) * tri.v[0][k] + h.u * tri.v[1][k] + h.v * tri.v[2][k];
        assert_true(fabsf(p - q) < 1e-5f);
    }
    /* A glancing ray (1e-10 off the plane z = 0) through a big triangle's
     * interior: hit, at the crossing within the conditioning of the angle. */
    mq_triangle big = {{{-100, -100, 0}, {100, -100, 0}, {0, 100, 0}}};
    mq_ray glance = {{-50, 0, 1e-9f}, 0.0f, {1, 0, -1e-10f}, INFINITY};
    assert_true(mq_raycast_triangle(&glance, &big, &h));
    assert_true(h.t >= 0.0f && h.t <= 100.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aabb_hit_reports_entry_and_exit),
        cmocka_unit_test(aabb_clear_misses),
        cmocka_unit_test(aabb_grazing_face_edge_corner_hits),
        cmocka_unit_test(aabb_origin_inside_enters_at_tmin),
        cmocka_unit_test(aabb_parallel_rays_and_signed_zeros),
        cmocka_unit_test(aabb_flat_and_point_boxes),
        cmocka_unit_test(aabb_tmin_tmax_clipping),
        cmocka_unit_test(aabb_extreme_directions),
        cmocka_unit_test(slab_conservative_never_misses),
        cmocka_unit_test(aabb_random_rays_agree_with_oracle),
        cmocka_unit_test(obb_axis_aligned_matches_aabb),
        cmocka_unit_test(obb_rotated_hits_and_misses),
        cmocka_unit_test(obb_exact_frame_grazing_and_inside),
        cmocka_unit_test(obb_random_rays_agree_with_oracle),
        cmocka_unit_test(sphere_hit_values),
        cmocka_unit_test(sphere_misses_and_tangents),
        cmocka_unit_test(sphere_origin_inside_and_clipping),
        cmocka_unit_test(sphere_radius_zero_is_a_point),
        cmocka_unit_test(sphere_far_origin_keeps_precision),
        cmocka_unit_test(sphere_random_rays_agree_with_oracle),
        cmocka_unit_test(capsule_body_and_caps),
        cmocka_unit_test(capsule_tangents_and_misses),
        cmocka_unit_test(capsule_origin_inside_and_clipping),
        cmocka_unit_test(capsule_degenerate_cases),
        cmocka_unit_test(capsule_random_rays_agree_with_oracle),
        cmocka_unit_test(triangle_hit_t_u_v_and_side),
        cmocka_unit_test(triangle_misses),
        cmocka_unit_test(triangle_edges_and_vertices_are_closed),
        cmocka_unit_test(triangle_degenerate_and_in_plane_never_hit),
        cmocka_unit_test(triangle_tmin_tmax),
        cmocka_unit_test(triangle_extreme_directions),
        cmocka_unit_test(triangle_sliver_hit_values),
        cmocka_unit_test(triangle_random_rays_agree_with_oracle),
        cmocka_unit_test(triangle_watertight_octahedron),
        cmocka_unit_test(triangle_watertight_subdivided_cube),
        cmocka_unit_test(triangle_fan_exact_aims_hit_all_sharers),
        cmocka_unit_test(triangle_fan_random_aims_never_fall_through),
        cmocka_unit_test(plane_crossings),
        cmocka_unit_test(plane_parallel_in_plane_and_clipping),
        cmocka_unit_test(plane_invalid),
        cmocka_unit_test(invalid_rays_hit_nothing),
        cmocka_unit_test(invalid_shapes_are_never_hit),
        cmocka_unit_test(triangle_near_parallel_rays_are_located_on_the_triangle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
