/*
 * The slab test (Kay & Kajiya 1986): a ray meets a box iff the parameter
 * intervals in which it lies between each pair of parallel planes overlap.
 * Shared by mq_raycast_aabb, mq_raycast_obb (in box space) and reusable by BVH
 * traversal.
 *
 * What mq_slab_clip guarantees:
 *   - A zero direction component (+0 or -0) is decided exactly: the ray is in
 *     that slab for every t when lo <= o <= hi (boundary included), never
 *     otherwise. No 0 * inf = NaN can arise, because nothing is divided by 0.
 *   - Each slab bound is computed as (lo - o) / d: one subtraction and one
 *     correctly rounded division (no reciprocal), so its relative error is at
 *     most gamma_2 = 2u / (1 - 2u), u = 2^-24, and it is EXACT whenever lo - o
 *     and the quotient are representable (flat boxes, grazing rays along a face
 *     or an edge, origins on the boundary in such cases are decided exactly).
 *     The quotient never is NaN: its numerator is finite or +-inf (overflow)
 *     and its divisor finite and non-zero.
 *   - The interval is NOT widened: the reported bounds are the nearest we can
 *     compute, and a wrong verdict is only possible for rays whose exact entry
 *     and exit parameters agree to within that relative error (rays grazing an
 *     edge or corner at a point that is not representable).
 *
 * mq_slab_clip_conservative widens each axis interval by more than that error
 * bound before intersecting, the idea of Ize, "Robust BVH Ray Traversal", JCGT
 * 2(2), 2013 (who scales tmax by 1 + 2*gamma_3 for a reciprocal-based test).
 * It never reports a miss when the exact ray meets the box, at the price of
 * reporting hits within a few ulps of the box. That is what a BVH node test
 * needs (a false miss there would punch a hole into a watertight mesh); the
 * public ray-box tests use the unwidened variant.
 */
#ifndef MQ_PRIMITIVES_RAY_SLAB_H
#define MQ_PRIMITIVES_RAY_SLAB_H

#include <float.h>
#include <math.h>
#include <stdbool.h>

#include <cglm/types.h>

/* Relative widening of the conservative test: gamma_2 ~ 2u bounds the error of
 * each bound, and the widening itself rounds (another u), so 4u = 2^-22 covers
 * both with room to spare. */
#define MQ_SLAB_WIDEN (4.0f * (FLT_EPSILON * 0.5f))

/* The parameters [*t0, *t1] where o + t*d lies in [lo, hi] on one axis, d != 0. */
static inline void mq_slab_axis_bounds(float o, float d, float lo, float hi, float *t0, float *t1)
{
    float a = (lo - o) / d, b = (hi - o) / d;
    if (d < 0.0f) {
        *t0 = b;
        *t1 = a;
    } else {
        *t0 = a;
        *t1 = b;
    }
}

/*
 * Shrinks [*t0, *t1] to the parameters where o + t*d lies in [lo, hi] on one
 * axis: the walks' pruning step (a path against a node's slab, grown by the
 * caller as it needs). A zero d (either sign) is decided exactly, boundary
 * included, and a NaN bound then keeps the path (a pruning test must not drop
 * what it cannot judge). Otherwise (lo - o) / d and (hi - o) / d, unwidened; a
 * NaN quotient leaves its end as it was. False when the interval is empty.
 */
static inline bool mq_slab_clip_axis(float o, float d, float lo, float hi, float *t0, float *t1)
{
    if (d == 0.0f)
        return !(o < lo || o > hi);
    float ta = (lo - o) / d, tb = (hi - o) / d;
    if (ta > tb) {
        float x = ta;
        ta = tb;
        tb = x;
    }
    *t0 = ta > *t0 ? ta : *t0;
    *t1 = tb < *t1 ? tb : *t1;
    return *t0 <= *t1;
}

/* mq_slab_clip_axis in double. */
static inline bool mq_slab_clip_axis_d(double o, double d, double lo, double hi, double *t0, double *t1)
{
    if (d == 0.0)
        return !(o < lo || o > hi);
    double ta = (lo - o) / d, tb = (hi - o) / d;
    if (ta > tb) {
        double x = ta;
        ta = tb;
        tb = x;
    }
    *t0 = ta > *t0 ? ta : *t0;
    *t1 = tb < *t1 ? tb : *t1;
    return *t0 <= *t1;
}

/* t moved down by more than its rounding error; FLT_TRUE_MIN covers quotients that
 * underflowed (absolute, not relative error). Infinite bounds stay as they are. */
static inline float mq_slab_widen_down(float t, float widen)
{
    return isfinite(t) ? t - (fabsf(t) * widen + FLT_TRUE_MIN) : t;
}

/*
 * Shrinks [*t_enter, *t_exit] (on entry the ray's [tmin, tmax], tmin <= tmax) to
 * the parameters where o + t*d lies in the closed box [lo, hi]. Returns false
 * when that is empty; the outputs are then unspecified. lo <= hi is assumed.
 * `widen` > 0 turns this into the conservative test (see above).
 */
static inline bool mq_slab_clip_widened(const vec3 o, const vec3 d, const vec3 lo, const vec3 hi, float widen,
                                        float *t_enter, float *t_exit)
{
    for (int i = 0; i < 3; i++) {
        if (d[i] == 0.0f) { /* true for -0.0f too */
            if (!(o[i] >= lo[i] && o[i] <= hi[i]))
                return false;
            continue;
        }
        float t0, t1;
        mq_slab_axis_bounds(o[i], d[i], lo[i], hi[i], &t0, &t1);
        if (widen > 0.0f) {
            t0 = mq_slab_widen_down(t0, widen);
            t1 = -mq_slab_widen_down(-t1, widen);
        }
        if (t0 > *t_enter)
            *t_enter = t0;
        if (t1 < *t_exit)
            *t_exit = t1;
        if (!(*t_enter <= *t_exit))
            return false;
    }
    return true;
}

static inline bool mq_slab_clip(const vec3 o, const vec3 d, const vec3 lo, const vec3 hi, float *t_enter, float *t_exit)
{
    return mq_slab_clip_widened(o, d, lo, hi, 0.0f, t_enter, t_exit);
}

static inline bool mq_slab_clip_conservative(const vec3 o, const vec3 d, const vec3 lo, const vec3 hi, float *t_enter,
                                             float *t_exit)
{
    return mq_slab_clip_widened(o, d, lo, hi, MQ_SLAB_WIDEN, t_enter, t_exit);
}

#endif
