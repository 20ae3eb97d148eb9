/*
 * Closest points between two segments (Ericson, Real-Time Collision Detection,
 * §5.1.9), with two changes for robustness:
 *
 *   - The line-line parameter s = (b f - c e) / (a e - b^2) is computed as
 *     n.(d2 x r) / |n|^2 with n = d1 x d2 (the same quantities by the Lagrange
 *     identity). a e - b^2 cancels catastrophically for nearly parallel segments
 *     (absolute error ~ eps |d1|^2 |d2|^2, larger than the true value below an
 *     angle of ~sqrt(eps)); the components of n only carry eps |d1| |d2|.
 *   - Parallel (n = 0) and zero-length segments are decided by exact zero tests
 *     and every division is guarded (mq_cl_clamp01_div), so no input yields a
 *     NaN or a division by zero. For (nearly) parallel segments any s is as good
 *     as another once t is clamped and s re-projected, which is what the
 *     clamping steps do.
 *
 * Why the clamping is enough (Ericson's argument): g(s) = min over t in R of the
 * squared distance is convex with its minimum at the line-line s, so s clamped
 * to [0, 1] minimises it over the segment; if the matching t is in [0, 1] the
 * pair is optimal, otherwise the optimum lies on the clamped t's end of the
 * second segment and s is that end point's projection, clamped.
 */
#include <meshquery/primitives.h>

#include "core/vec3.h"
#include "primitives/closest_internal.h"
#include "primitives/shape_checks.h"

/* The squared distance at the parameters, in the form that is exact for the simplest inputs. */
static float pair_dist2(const vec3 d1, const vec3 d2, const vec3 r, const vec3 n, float s, float t)
{
    float a = mq_v3_len2(d1), e = mq_v3_len2(d2);
    bool s_in = s > 0.0f && s<1.0f, t_in = t> 0.0f && t < 1.0f;
    vec3 w;
    if (s_in && t_in) {
        /* Both inside: the closest points of the two lines, |r.n| / |n|. The direction
         * of the computed n is off by eps/sin(angle) and this form is first-order in
         * that error, so only when the lines meet at 30 degrees or more; the residual
         * below is second-order in the error of s (it is a minimum). */
        float nn = mq_v3_len2(n);
        if (nn >= 0.25f * (a * e) && nn >= 0x1p-60f) {
            float rn = mq_v3_dot(r, n);
            return rn / nn * rn;
        }
    } else if (s_in) {
        /* t is an end: the distance from that end point (p2 + t d2, relative to p1:
         * t d2 - r) to the first segment's line. */
        if (t == 0.0f)
            mq_v3_scale(w, r, -1.0f);
        else
            mq_v3_sub(w, d2, r);
        vec3 bp;
        mq_v3_sub(bp, w, d1);
        return mq_cl_segment_dist2(w, bp, d1, s);
    } else if (t_in) {
        /* s is an end: from that end point (p1 + s d1, relative to p2: r + s d1) to the
         * second segment's line. */
        if (s == 0.0f)
            mq_v3_copy(w, r);
        else
            mq_v3_add(w, r, d1);
        vec3 bp;
        mq_v3_sub(bp, w, d2);
        return mq_cl_segment_dist2(w, bp, d2, t);
    }
    /* End to end (exact for representable inputs), or nearly parallel insides. */
    mq_v3_madd(w, r, d1, s);
    mq_v3_madd(w, w, d2, -t);
    return mq_v3_len2(w);
}

float mq_cl_segment_segment(const vec3 d1, const vec3 d2, const vec3 r, float *s_out, float *t_out)
{
    float a = mq_v3_len2(d1), e = mq_v3_len2(d2), f = mq_v3_dot(d2, r);
    vec3 n = {0.0f, 0.0f, 0.0f};
    float s, t;
    if (a == 0.0f && e == 0.0f) { /* two points */
        s = t = 0.0f;
    } else if (a == 0.0f) { /* first segment is a point: project it on the second */
        s = 0.0f;
        t = mq_cl_clamp01_div(f, e);
    } else {
        float c = mq_v3_dot(d1, r);
        if (e == 0.0f) { /* second segment is a point */
            t = 0.0f;
            s = mq_cl_clamp01_div(-c, a);
        } else {
            float b = mq_v3_dot(d1, d2);
            mq_v3_cross(n, d1, d2);
            float nn = mq_v3_len2(n);
            s = 0.0f; /* parallel: any s, the clamping below fixes the pair */
            if (nn > 0.0f) {
                vec3 x;
                mq_v3_cross(x, d2, r);
                s = mq_cl_clamp01_div(mq_v3_dot(n, x), nn);
            }
            /* t = (b s + f) / e for that s, clamped; a clamped t re-projects s. */
            float tn = b * s + f;
            if (tn <= 0.0f) {
                t = 0.0f;
                s = mq_cl_clamp01_div(-c, a);
            } else if (tn >= e) {
                t = 1.0f;
                s = mq_cl_clamp01_div(b - c, a);
            } else {
                t = tn / e;
            }
        }
    }
    *s_out = s;
    *t_out = t;
    return pair_dist2(d1, d2, r, n, s, t);
}

float mq_closest_points_segment_segment(const vec3 a0, const vec3 a1, const vec3 b0, const vec3 b1, vec3 out_a,
                                        vec3 out_b)
{
    if (!mq_v3_is_finite(a0) || !mq_v3_is_finite(a1) || !mq_v3_is_finite(b0) || !mq_v3_is_finite(b1)) {
        mq_v3_fill_nan(out_a);
        mq_v3_fill_nan(out_b);
        return NAN;
    }
    vec3 d[3]; /* a1 - a0, b1 - b0, a0 - b0 */
    int e = mq_cl_diffs(d, (const float *const[]){a1, b1, a0}, (const float *const[]){a0, b0, b0}, 3);
    float s, t;
    float d2 = mq_cl_segment_segment(d[0], d[1], d[2], &s, &t);
    if (out_a)
        mq_cl_lerp(out_a, a0, a1, s);
    if (out_b)
        mq_cl_lerp(out_b, b0, b1, t);
    return mq_cl_unscale2(d2, e);
}
