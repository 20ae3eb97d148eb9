/*
 * Closest point to a point on a segment, an AABB, an OBB and a triangle
 * (primitives.h), the point-segment and point-triangle kernels shared with the
 * other distance and overlap tests, and the frame rescaling every distance
 * kernel relies on (closest_internal.h explains the frames).
 */
#include <meshquery/primitives.h>

#include "core/vec3.h"
#include "primitives/closest_internal.h"
#include "primitives/shape_checks.h"

int mq_cl_rescale(vec3 out[], const float *const x[], const float *const y[], int n, float m)
{
    int pre = 0;
    if (!isfinite(m)) {
        /* A difference overflowed, so some inputs lie beyond 2^126. Quartering them
         * first is exact (but for subnormal crumbs far below the resolution at that
         * scale) and keeps every difference finite. */
        pre = 2;
        m = 0.0f;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < 3; j++)
                out[i][j] = 0.25f * x[i][j] - 0.25f * y[i][j];
            m = fmaxf(m, mq_cl_absmax3(out[i]));
        }
    }
    /* m > 0 here. Scaling by 2^-e is exact unless a component drops below the
     * normal range, i.e. is smaller than 2^-126 of the largest: negligible. */
    int e = ilogbf(m);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 3; j++)
            out[i][j] = ldexpf(out[i][j], -e);
    return e + pre;
}

/* ------------------------------------------------------------------------- */
/* Point vs segment (Ericson, Real-Time Collision Detection, §5.1.2)          */
/* ------------------------------------------------------------------------- */

float mq_cl_segment_dist2(const vec3 ap, const vec3 bp, const vec3 ab, float t)
{
    if (t <= 0.0f)
        return mq_v3_len2(ap);
    if (t >= 1.0f)
        return mq_v3_len2(bp);
    /* Inside: the distance to the line. The residual ap - t*ab is as accurate in
     * general, but this form is exactly 0 for a point on the line when t is not
     * representable (a point on a diagonal). The floor keeps |ap x ab|^2 out of
     * the subnormals, where its absolute error divided by a tiny |ab|^2 would
     * dominate; short edges use the residual. */
    float ab2 = mq_v3_len2(ab);
    if (ab2 >= 0x1p-60f) {
        vec3 c;
        mq_v3_cross(c, ap, ab);
        return mq_v3_len2(c) / ab2;
    }
    vec3 r;
    mq_v3_madd(r, ap, ab, -t);
    return mq_v3_len2(r);
}

float mq_cl_point_segment(const vec3 ap, const vec3 bp, const vec3 ab, float *t)
{
    /* t = clamp(ap.ab / ab.ab); ab = 0 gives ap.ab = 0 and so t = 0, with no division. */
    *t = mq_cl_clamp01_div(mq_v3_dot(ap, ab), mq_v3_len2(ab));
    return mq_cl_segment_dist2(ap, bp, ab, *t);
}

float mq_closest_point_segment(const vec3 p, const vec3 a, const vec3 b, vec3 out_point, float *t)
{
    if (!mq_v3_is_finite(p) || !mq_v3_is_finite(a) || !mq_v3_is_finite(b)) {
        mq_v3_fill_nan(out_point);
        if (t)
            *t = NAN;
        return NAN;
    }
    vec3 d[3]; /* p - a, p - b, b - a */
    int e = mq_cl_diffs(d, (const float *const[]){p, p, b}, (const float *const[]){a, b, a}, 3);
    float s;
    float d2 = mq_cl_point_segment(d[0], d[1], d[2], &s);
    if (out_point)
        mq_cl_lerp(out_point, a, b, s);
    if (t)
        *t = s;
    return mq_cl_unscale2(d2, e);
}

/* ------------------------------------------------------------------------- */
/* Point vs boxes (Ericson §5.1.3 and §5.1.4)                                 */
/* ------------------------------------------------------------------------- */

float mq_closest_point_aabb(const vec3 p, const mq_aabb *box, vec3 out_point)
{
    if (!box || !mq_v3_is_finite(p) || !mq_aabb_ok(box)) {
        mq_v3_fill_nan(out_point);
        return NAN;
    }
    float d2 = 0.0f;
    for (int i = 0; i < 3; i++) {
        /* Clamping returns p[i] itself inside the slab, so a point inside is copied. */
        float q = fminf(fmaxf(p[i], box->min[i]), box->max[i]);
        float g = p[i] - q; /* overflows to +-Inf only when the squared distance would anyway */
        d2 += g * g;
        if (out_point)
            out_point[i] = q;
    }
    return d2;
}

float mq_closest_point_obb(const vec3 p, const mq_obb *box, vec3 out_point)
{
    if (!box || !mq_v3_is_finite(p) || !mq_obb_is_valid(box)) {
        mq_v3_fill_nan(out_point);
        return NAN;
    }
    vec3 l, q;
    float k = mq_cl_obb_local(box, (const float *const[]){p}, &l, 1);
    float d2 = 0.0f;
    bool inside = true;
    for (int i = 0; i < 3; i++) {
        float h = k * box->half[i];
        q[i] = fminf(fmaxf(l[i], -h), h);
        float g = l[i] - q[i];
        d2 += g * g;
        inside = inside && g == 0.0f;
    }
    if (out_point) {
        if (inside) {
            mq_v3_copy(out_point, p); /* documented: p itself, not a round trip through the box frame */
        } else {
            mq_v3_scale(q, q, 1.0f / k); /* exact: k is a power of two */
            mq_obb_to_world(box, q, out_point);
        }
    }
    return d2 / (k * k);
}

/* ------------------------------------------------------------------------- */
/* Point vs triangle (Ericson §5.1.5, Voronoi regions)                        */
/* ------------------------------------------------------------------------- */

static void set_weights(float w[3], float w0, float w1, float w2)
{
    w[0] = w0;
    w[1] = w1;
    w[2] = w2;
}

/* The nearest of the three edges. Used for flat triangles, which lie within their
 * (tiny) width of their edges, and when rounding leaves p in no Voronoi region. */
static float nearest_edge(const vec3 ap, const vec3 bp, const vec3 cp, const vec3 ab, const vec3 ac,
                          const vec3 bc, float w[3])
{
    float t01, t02, t12;
    float d01 = mq_cl_point_segment(ap, bp, ab, &t01);
    float d02 = mq_cl_point_segment(ap, cp, ac, &t02);
    float d12 = mq_cl_point_segment(bp, cp, bc, &t12);
    if (d01 <= d02 && d01 <= d12) {
        set_weights(w, 1.0f - t01, t01, 0.0f);
        return d01;
    }
    if (d02 <= d12) {
        set_weights(w, 1.0f - t02, 0.0f, t02);
        return d02;
    }
    set_weights(w, 0.0f, 1.0f - t12, t12);
    return d12;
}

/* Zero-area triangle: collinear vertices span their longest edge; equal ones, a point
 * (the longest edge then has length 0 and the closest point is v0). */
static float longest_edge(const vec3 ap, const vec3 bp, const vec3 cp, const vec3 ab, const vec3 ac,
                          const vec3 bc, float w[3])
{
    float l01 = mq_v3_len2(ab), l02 = mq_v3_len2(ac), l12 = mq_v3_len2(bc), t, d2;
    if (l01 >= l02 && l01 >= l12) {
        d2 = mq_cl_point_segment(ap, bp, ab, &t);
        set_weights(w, 1.0f - t, t, 0.0f);
    } else if (l02 >= l12) {
        d2 = mq_cl_point_segment(ap, cp, ac, &t);
        set_weights(w, 1.0f - t, 0.0f, t);
    } else {
        d2 = mq_cl_point_segment(bp, cp, bc, &t);
        set_weights(w, 0.0f, 1.0f - t, t);
    }
    return d2;
}

/* p projects into the face: weights from the signed areas, distance to the plane. */
static float face(const vec3 ap, const vec3 ab, const vec3 ac, const vec3 n, float va, float vb, float vc,
                  float w[3])
{
    float sum = va + vb + vc; /* = |n|^2 in exact arithmetic */
    w[1] = vb / sum;
    w[2] = vc / sum;
    w[0] = 1.0f - w[1] - w[2]; /* so that out_point is the documented formula of (u, v) */
    /* Distance to the plane, (n.ap)^2 / |n|^2: exact 0 for a point on the plane. Only
     * when the angle at v0 is between 30 and 150 degrees: the direction error of the
     * computed n is eps/sin(angle), and this form is first-order in it, whereas the
     * residual below is second-order (an oblique projection lengthens the residual by
     * 1/cos). The second test keeps n.ap / |n|^2 from overflowing. */
    float nn = mq_v3_len2(n);
    if (nn >= 0.25f * (mq_v3_len2(ab) * mq_v3_len2(ac)) && nn >= 0x1p-60f) {
        float dn = mq_v3_dot(n, ap);
        return dn / nn * dn;
    }
    vec3 r;
    mq_v3_madd(r, ap, ab, -w[1]);
    mq_v3_madd(r, r, ac, -w[2]);
    return mq_v3_len2(r);
}

float mq_cl_point_triangle(const vec3 ap, const vec3 bp, const vec3 cp, const vec3 ab, const vec3 ac,
                           const vec3 bc, float w[3])
{
    vec3 n, x;
    mq_v3_cross(n, ab, ac);
    if (n[0] == 0.0f && n[1] == 0.0f && n[2] == 0.0f)
        return longest_edge(ap, bp, cp, ab, ac, bc, w);
    if (mq_cl_tri_flat(n, ab, ac))
        return nearest_edge(ap, bp, cp, ab, ac, bc, w);

    /* Ericson's region tests, written with the edge vectors directly (his d4 - d3 is
     * bc.bp, his d5 - d6 is -bc.cp) and with the signed areas as triple products
     * against n (his va = n.((b-p) x (c-p)) form) rather than the Lagrange-identity
     * products of dot products: their error scales with |n|, so thin triangles keep
     * their accuracy. */
    float d1 = mq_v3_dot(ab, ap), d2 = mq_v3_dot(ac, ap);
    if (d1 <= 0.0f && d2 <= 0.0f) { /* vertex region v0 */
        set_weights(w, 1.0f, 0.0f, 0.0f);
        return mq_v3_len2(ap);
    }
    float d3 = mq_v3_dot(ab, bp), d4 = mq_v3_dot(bc, bp);
    if (d3 >= 0.0f && d4 <= 0.0f) { /* vertex region v1 */
        set_weights(w, 0.0f, 1.0f, 0.0f);
        return mq_v3_len2(bp);
    }
    mq_v3_cross(x, ap, bp);
    float vc = mq_v3_dot(n, x);
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) { /* edge region v0v1 */
        float t = mq_cl_clamp01_div(d1, d1 - d3);
        set_weights(w, 1.0f - t, t, 0.0f);
        return mq_cl_segment_dist2(ap, bp, ab, t);
    }
    float d5 = mq_v3_dot(ac, cp), d6 = mq_v3_dot(bc, cp);
    if (d5 >= 0.0f && d6 >= 0.0f) { /* vertex region v2 */
        set_weights(w, 0.0f, 0.0f, 1.0f);
        return mq_v3_len2(cp);
    }
    mq_v3_cross(x, cp, ap);
    float vb = mq_v3_dot(n, x);
    if (vb <= 0.0f && d2 >= 0.0f && d5 <= 0.0f) { /* edge region v0v2 */
        float t = mq_cl_clamp01_div(d2, d2 - d5);
        set_weights(w, 1.0f - t, 0.0f, t);
        return mq_cl_segment_dist2(ap, cp, ac, t);
    }
    mq_v3_cross(x, bp, cp);
    float va = mq_v3_dot(n, x);
    if (va <= 0.0f && d4 >= 0.0f && d6 <= 0.0f) { /* edge region v1v2 */
        float t = mq_cl_clamp01_div(d4, d4 - d6);
        set_weights(w, 0.0f, 1.0f - t, t);
        return mq_cl_segment_dist2(bp, cp, bc, t);
    }
    /* In exact arithmetic all three areas are now positive. Rounding can contradict
     * the tests above near a region boundary; the boundary is then the answer to
     * within that rounding, so take the nearest edge rather than divide by a sum that
     * may be 0. */
    if (!(va >= 0.0f && vb >= 0.0f && vc >= 0.0f && va + vb + vc > 0.0f))
        return nearest_edge(ap, bp, cp, ab, ac, bc, w);
    return face(ap, ab, ac, n, va, vb, vc, w);
}

float mq_closest_point_triangle(const vec3 p, const mq_triangle *tri, vec3 out_point, vec2 out_uv)
{
    if (!tri || !mq_v3_is_finite(p) || !mq_triangle_ok(tri)) {
        mq_v3_fill_nan(out_point);
        if (out_uv)
            out_uv[0] = out_uv[1] = NAN;
        return NAN;
    }
    const float *v0 = tri->v[0], *v1 = tri->v[1], *v2 = tri->v[2];
    vec3 d[6]; /* p - v0, p - v1, p - v2, v1 - v0, v2 - v0, v2 - v1 */
    int e = mq_cl_diffs(d, (const float *const[]){p, p, p, v1, v2, v2},
                        (const float *const[]){v0, v1, v2, v0, v0, v1}, 6);
    float w[3];
    float d2 = mq_cl_point_triangle(d[0], d[1], d[2], d[3], d[4], d[5], w);
    if (out_point)
        mq_cl_tri_eval(out_point, tri, w);
    if (out_uv) {
        out_uv[0] = w[1];
        out_uv[1] = w[2];
    }
    return mq_cl_unscale2(d2, e);
}
