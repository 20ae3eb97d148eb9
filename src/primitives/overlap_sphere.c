/*
 * Sphere vs sphere, AABB, OBB, capsule and triangle (closed sets: touching
 * overlaps). Each compares a distance with a radius without a square root and
 * without overflow: through mq_cl_len_le for the box tests (an exact max-norm
 * early-out, then squares scaled by a power of two), or in the scaled frame of
 * the distance kernels (closest_internal.h). Any finite input is decided;
 * invalid input (NaN/Inf, negative radius, empty box, bad OBB) overlaps nothing.
 */
#include <meshquery/primitives.h>

#include "core/minmax.h"
#include "core/vec3.h"
#include "primitives/closest_internal.h"
#include "primitives/shape_checks.h"

bool mq_overlap_sphere_sphere(const mq_sphere *a, const mq_sphere *b)
{
    if (!a || !b || !mq_sphere_ok(a) || !mq_sphere_ok(b))
        return false;
    vec3 d;
    mq_v3_sub(d, a->center, b->center);
    float r = a->radius + b->radius;
    if (!mq_v3_is_finite(d) || !isfinite(r)) {
        /* Beyond 2^127: halve everything first (exact but for subnormal crumbs). */
        for (int i = 0; i < 3; i++)
            d[i] = 0.5f * a->center[i] - 0.5f * b->center[i];
        r = 0.5f * a->radius + 0.5f * b->radius;
    }
    return mq_cl_len_le(d, r);
}

bool mq_overlap_sphere_aabb(const mq_sphere *s, const mq_aabb *box)
{
    if (!s || !box || !mq_sphere_ok(s) || !mq_aabb_ok(box))
        return false;
    /* Arvo: the offset from the centre to its closest box point is the per-axis excess. */
    return mq_cl_sphere_aabb(s->center, s->radius, box->min, box->max);
}

bool mq_overlap_sphere_obb(const mq_sphere *s, const mq_obb *box)
{
    if (!s || !box || !mq_sphere_ok(s) || !mq_obb_is_valid(box))
        return false;
    /* Arvo in the box frame: the excess of the local centre over the half extents.
     * k scales the frame down when the coordinates are huge (closest_internal.h). */
    vec3 l, ex;
    float k = mq_cl_obb_local(box, (const float *const[]){s->center}, &l, 1);
    for (int i = 0; i < 3; i++)
        ex[i] = mq_fmaxf(fabsf(l[i]) - k * box->half[i], 0.0f);
    return mq_cl_len_le(ex, k * s->radius);
}

bool mq_overlap_sphere_capsule(const mq_sphere *s, const mq_capsule *c)
{
    if (!s || !c || !mq_sphere_ok(s) || !mq_capsule_ok(c))
        return false;
    vec3 d[3]; /* p - a, p - b, b - a */
    const float *p = s->center;
    int e = mq_cl_diffs(d, (const float *const[]){p, p, c->b}, (const float *const[]){c->a, c->b, c->a}, 3);
    float t;
    float d2 = mq_cl_point_segment(d[0], d[1], d[2], &t);
    return mq_cl_within(d2, e, s->radius, c->radius);
}

bool mq_overlap_sphere_triangle(const mq_sphere *s, const mq_triangle *tri)
{
    if (!s || !tri || !mq_sphere_ok(s) || !mq_triangle_ok(tri))
        return false;
    const float *p = s->center, *v0 = tri->v[0], *v1 = tri->v[1], *v2 = tri->v[2];
    vec3 d[6]; /* p - v0, p - v1, p - v2, v1 - v0, v2 - v0, v2 - v1 */
    int e =
        mq_cl_diffs(d, (const float *const[]){p, p, p, v1, v2, v2}, (const float *const[]){v0, v1, v2, v0, v0, v1}, 6);
    float w[3];
    float d2 = mq_cl_point_triangle(d[0], d[1], d[2], d[3], d[4], d[5], w);
    return mq_cl_within(d2, e, s->radius, 0.0f);
}
