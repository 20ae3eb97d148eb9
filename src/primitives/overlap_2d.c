/*
 * 2D overlap: axis-aligned rectangles by intervals, oriented rectangles by the
 * 4-axis separating axis test (Ericson, Real-Time Collision Detection §4.4,
 * in the plane; Gottschalk 1996 §4 reduced to 2D).
 *
 * The rect2 test follows the policy of sat_internal.h: projections in double,
 * an axis separates only when its gap beats a rigorous rounding margin (so no
 * false "separated"), and the axes are the true edge normals perp(axes[k]) —
 * exact, since perp only swaps and negates — so a rectangle whose axes are
 * merely nearly orthonormal is tested as the parallelogram it is.
 */
#include <meshquery/primitives.h>

#include "primitives/sat_internal.h"

static bool finite2(const vec2 a)
{
    return isfinite(a[0]) && isfinite(a[1]);
}

static bool aabb2_ok(const mq_aabb2 *b)
{
    return finite2(b->min) && finite2(b->max) && b->min[0] <= b->max[0] && b->min[1] <= b->max[1];
}

/* Same rule as mq_obb_is_valid (validate.c), in 2D. */
static bool rect2_ok(const mq_rect2 *r)
{
    const float tol = MQ_OBB_AXIS_TOLERANCE;
    if (!finite2(r->center) || !finite2(r->half) || !(r->half[0] >= 0.0f) || !(r->half[1] >= 0.0f) ||
        !finite2(r->axes[0]) || !finite2(r->axes[1]))
        return false;
    for (int k = 0; k < 2; k++) {
        float len2 = r->axes[k][0] * r->axes[k][0] + r->axes[k][1] * r->axes[k][1];
        if (!(fabsf(len2 - 1.0f) <= 2.0f * tol))
            return false;
    }
    return fabsf(r->axes[0][0] * r->axes[1][0] + r->axes[0][1] * r->axes[1][1]) <= tol;
}

bool mq_overlap_aabb2_aabb2(const mq_aabb2 *a, const mq_aabb2 *b)
{
    if (!a || !b || !aabb2_ok(a) || !aabb2_ok(b))
        return false;
    for (int i = 0; i < 2; i++)
        if (a->min[i] > b->max[i] || b->min[i] > a->max[i])
            return false;
    return true;
}

static double radius2(const mq_rect2 *r, double lx, double ly)
{
    return (double)r->half[0] * fabs(r->axes[0][0] * lx + r->axes[0][1] * ly) +
           (double)r->half[1] * fabs(r->axes[1][0] * lx + r->axes[1][1] * ly);
}

/* Does the normal of the edges along `dir` separate the rectangles? */
static bool separates2(const mq_rect2 *a, const mq_rect2 *b, const double t[2], double tol, const vec2 dir)
{
    double lx = -(double)dir[1], ly = dir[0];
    double gap = fabs(t[0] * lx + t[1] * ly) - (radius2(a, lx, ly) + radius2(b, lx, ly));
    return gap > tol * (fabs(lx) + fabs(ly));
}

bool mq_overlap_rect2_rect2(const mq_rect2 *a, const mq_rect2 *b)
{
    if (!a || !b || !rect2_ok(a) || !rect2_ok(b))
        return false;
    double t[2] = {(double)b->center[0] - a->center[0], (double)b->center[1] - a->center[1]};
    double size = mq_max(fabs(t[0]), fabs(t[1])) + (double)a->half[0] + a->half[1] + b->half[0] + b->half[1];
    double tol = MQ_SAT_MARGIN * size;
    return !separates2(a, b, t, tol, a->axes[0]) && !separates2(a, b, t, tol, a->axes[1]) &&
           !separates2(a, b, t, tol, b->axes[0]) && !separates2(a, b, t, tol, b->axes[1]);
}
