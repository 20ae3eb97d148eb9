/*
 * Validity checks shared by the primitive tests (types.h: what makes a shape
 * invalid) and the OBB frame change used by every test that works in box space.
 */
#ifndef MQ_PRIMITIVES_SHAPE_CHECKS_H
#define MQ_PRIMITIVES_SHAPE_CHECKS_H

#include <math.h>

#include <meshquery/primitives.h>

#include "core/minmax.h"
#include "core/vec3.h"

/* Finite and >= 0 on all three axes (NaN fails). */
static inline bool mq_half_extents_ok(const vec3 h)
{
    return h[0] >= 0.0f && h[1] >= 0.0f && h[2] >= 0.0f && isfinite(h[0]) && isfinite(h[1]) && isfinite(h[2]);
}

static inline bool mq_radius_ok(float r)
{
    return r >= 0.0f && isfinite(r);
}

static inline bool mq_sphere_ok(const mq_sphere *s)
{
    return mq_v3_is_finite(s->center) && mq_radius_ok(s->radius);
}

static inline bool mq_capsule_ok(const mq_capsule *c)
{
    return mq_v3_is_finite(c->a) && mq_v3_is_finite(c->b) && mq_radius_ok(c->radius);
}

/* Finite corners, min <= max on every axis. */
static inline bool mq_aabb_ok(const mq_aabb *b)
{
    return mq_v3_is_finite(b->min) && mq_v3_is_finite(b->max) && b->min[0] <= b->max[0] && b->min[1] <= b->max[1] &&
           b->min[2] <= b->max[2];
}

static inline bool mq_triangle_ok(const mq_triangle *t)
{
    return mq_v3_is_finite(t->v[0]) && mq_v3_is_finite(t->v[1]) && mq_v3_is_finite(t->v[2]);
}

/* World point -> box-local coordinates (components along the box axes, origin at the centre). */
static inline void mq_obb_to_local(const mq_obb *box, const vec3 p, vec3 out)
{
    vec3 d;
    mq_v3_sub(d, p, box->center);
    out[0] = mq_v3_dot(d, box->axes[0]);
    out[1] = mq_v3_dot(d, box->axes[1]);
    out[2] = mq_v3_dot(d, box->axes[2]);
}

/* World direction -> box-local components (no translation). */
static inline void mq_obb_dir_to_local(const mq_obb *box, const vec3 v, vec3 out)
{
    out[0] = mq_v3_dot(v, box->axes[0]);
    out[1] = mq_v3_dot(v, box->axes[1]);
    out[2] = mq_v3_dot(v, box->axes[2]);
}

/* Box-local point -> world. */
static inline void mq_obb_to_world(const mq_obb *box, const vec3 local, vec3 out)
{
    mq_v3_copy(out, box->center);
    mq_v3_madd(out, out, box->axes[0], local[0]);
    mq_v3_madd(out, out, box->axes[1], local[1]);
    mq_v3_madd(out, out, box->axes[2], local[2]);
}

/* Largest deviation of an OBB's axes from orthonormal (|len^2 - 1| and
 * |dot| over the axes): what a valid box's faces may be off by, as a fraction
 * of its extents, which the node tests' slack must cover. */
static inline float mq_obb_axes_deviation(const mq_obb *b)
{
    float dev = 0.0f;
    for (int i = 0; i < 3; i++) {
        dev = mq_fmaxf(dev, fabsf(mq_v3_len2(b->axes[i]) - 1.0f));
        for (int j = i + 1; j < 3; j++)
            dev = mq_fmaxf(dev, fabsf(mq_v3_dot(b->axes[i], b->axes[j])));
    }
    return dev;
}

#endif
