/*
 * Float shapes cut down to their part near a box (shape_reduce.h): each is
 * widened to double (exact), reduced by mq_dshape_reduce, and rounded back
 * to float only where the reduction changed it, so a shape left alone is
 * returned bit for bit and a changed one still holds the part of the shape
 * that meets the box:
 *   - a capped radius or half extent rounds up, to at most the given one;
 *   - a clipped box rounds outwards, to a box between the clipped one and
 *     the given one (the given corners are floats), so it is still exact;
 *   - a clipped capsule end rounds to nearest: it lies on the axis, inside
 *     W grown by the radius, and moving it by half an ulp of its coordinates
 *     tilts the axis by as much near W, which is the float tests' own band.
 * Every value stays finite: radii and half extents only shrink, clipped
 * ends lie between the given ones, a clipped box inside the given one.
 *
 * A shape whose bounds lie inside W grown by a quarter of its extent is
 * returned at once: every cap and clip of the reduction lies beyond that, so
 * it would change nothing, and ordinary queries pay only this test.
 */
#include <math.h>

#include "core/float_steps.h"
#include "primitives/shape_reduce.h"

/* The float value of a reduced double: the given float when unchanged. */
static float kept_or(float given, double reduced, float (*round)(double))
{
    return (double)given == reduced ? given : round(reduced);
}

static float round_near_f(double x)
{
    return (float)x;
}

static void to_d3(const float v[3], double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = v[k];
}

/* Whether the box [slo, shi] lies inside W = [lo, hi] grown by a quarter of
 * W's largest extent (no larger than the margin of mq_dshape_reduce). */
static bool inside_region(const double lo[3], const double hi[3], const double slo[3], const double shi[3])
{
    double ext = 0.0;
    for (int k = 0; k < 3; k++)
        ext = hi[k] - lo[k] > ext ? hi[k] - lo[k] : ext;
    double m = 0.25 * ext;
    for (int k = 0; k < 3; k++)
        if (!(slo[k] >= lo[k] - m && shi[k] <= hi[k] + m))
            return false;
    return true;
}

/* A ball's bounds: centre +- r (in double: no overflow). */
static bool ball_inside(const float c[3], double r, const double lo[3], const double hi[3])
{
    double slo[3], shi[3];
    for (int k = 0; k < 3; k++) {
        slo[k] = c[k] - r;
        shi[k] = c[k] + r;
    }
    return inside_region(lo, hi, slo, shi);
}

bool mq_sphere_reduce(const mq_sphere *s, const double lo[3], const double hi[3], mq_sphere *out)
{
    if (ball_inside(s->center, s->radius, lo, hi)) {
        *out = *s;
        return true;
    }
    mq_dshape d = {.kind = MQ_SHAPE_SPHERE}, r;
    to_d3(s->center, d.u.sphere.center);
    d.u.sphere.radius = s->radius;
    if (!mq_dshape_reduce(&d, lo, hi, &r))
        return false;
    *out = *s;
    out->radius = kept_or(s->radius, r.u.sphere.radius, mq_float_ceil_of);
    return true;
}

bool mq_capsule_reduce(const mq_capsule *c, const double lo[3], const double hi[3], mq_capsule *out)
{
    if (ball_inside(c->a, c->radius, lo, hi) && ball_inside(c->b, c->radius, lo, hi)) {
        *out = *c;
        return true;
    }
    mq_dshape d = {.kind = MQ_SHAPE_CAPSULE}, r;
    to_d3(c->a, d.u.capsule.a);
    to_d3(c->b, d.u.capsule.b);
    d.u.capsule.radius = c->radius;
    if (!mq_dshape_reduce(&d, lo, hi, &r))
        return false;
    mq_capsule given = *c;
    for (int k = 0; k < 3; k++) {
        out->a[k] = kept_or(given.a[k], r.u.capsule.a[k], round_near_f);
        out->b[k] = kept_or(given.b[k], r.u.capsule.b[k], round_near_f);
    }
    out->radius = kept_or(given.radius, r.u.capsule.radius, mq_float_ceil_of);
    return true;
}

bool mq_obb_reduce(const mq_obb *b, const double lo[3], const double hi[3], mq_obb *out)
{
    double slo[3], shi[3];
    for (int k = 0; k < 3; k++) { /* the box's bounds (its axes are unit to within the tolerance) */
        double e = fabs(b->axes[0][k]) * (double)b->half[0] + fabs(b->axes[1][k]) * (double)b->half[1] +
                   fabs(b->axes[2][k]) * (double)b->half[2];
        slo[k] = b->center[k] - e;
        shi[k] = b->center[k] + e;
    }
    if (inside_region(lo, hi, slo, shi)) {
        *out = *b;
        return true;
    }
    mq_dshape d = {.kind = MQ_SHAPE_OBB}, r;
    to_d3(b->center, d.u.obb.center);
    to_d3(b->half, d.u.obb.half);
    for (int i = 0; i < 3; i++)
        to_d3(b->axes[i], d.u.obb.axes[i]);
    if (!mq_dshape_reduce(&d, lo, hi, &r))
        return false;
    *out = *b;
    for (int i = 0; i < 3; i++)
        out->half[i] = kept_or(b->half[i], r.u.obb.half[i], mq_float_ceil_of);
    return true;
}

bool mq_aabb_reduce(const mq_aabb *b, const double lo[3], const double hi[3], mq_aabb *out)
{
    double slo[3], shi[3];
    to_d3(b->min, slo);
    to_d3(b->max, shi);
    if (inside_region(lo, hi, slo, shi)) {
        *out = *b;
        return true;
    }
    mq_dshape d = {.kind = MQ_SHAPE_AABB}, r;
    to_d3(b->min, d.u.aabb.min);
    to_d3(b->max, d.u.aabb.max);
    if (!mq_dshape_reduce(&d, lo, hi, &r))
        return false;
    mq_aabb given = *b;
    for (int k = 0; k < 3; k++) {
        out->min[k] = kept_or(given.min[k], r.u.aabb.min[k], mq_float_floor_of);
        out->max[k] = kept_or(given.max[k], r.u.aabb.max[k], mq_float_ceil_of);
    }
    return true;
}
