/*
 * Closest point to a point on a segment, an AABB, an OBB and a triangle
 * (primitives.h), the point-segment and point-triangle kernels shared with the
 * other distance and overlap tests, and the frame rescaling every distance
 * kernel relies on (closest_internal.h explains the frames).
 */
#include <meshquery/primitives.h>

#include "core/minmax.h"
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
            m = mq_fmaxf(m, mq_cl_absmax3(out[i]));
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
        return (float)mq_cl_len2_d(ap);
    if (t >= 1.0f)
        return (float)mq_cl_len2_d(bp);
    /* Inside: the distance to the line, |ap x ab|^2 / |ab|^2. The residual ap - t*ab
     * is as accurate in general, but this form is exactly 0 for a point on the line
     * when t is not representable (a point on a diagonal). In double the cross
     * product of the float inputs is exact but for one rounding per component, and
     * neither square can sink into the subnormals (float inputs are >= 2^-149), so
     * short edges need no special case. */
    mq_cl_d3 a, b, c;
    mq_cl_d3_from(a, ap);
    mq_cl_d3_from(b, ab);
    double ab2 = mq_cl_d3_dot(b, b);
    if (ab2 == 0.0)
        return (float)mq_cl_len2_d(ap);
    mq_cl_d3_cross(c, a, b);
    return (float)(mq_cl_d3_dot(c, c) / ab2);
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
        float q = mq_fminf(mq_fmaxf(p[i], box->min[i]), box->max[i]);
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
        q[i] = mq_fminf(mq_fmaxf(l[i], -h), h);
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
static float nearest_edge(const vec3 ap, const vec3 bp, const vec3 cp, const vec3 ab, const vec3 ac, const vec3 bc,
                          float w[3])
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
static float longest_edge(const vec3 ap, const vec3 bp, const vec3 cp, const vec3 ab, const vec3 ac, const vec3 bc,
                          float w[3])
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

/* x / den clamped to [0, 1] for den > 0 (double twin of mq_cl_clamp01_div). */
static double clamp01_div_d(double x, double den)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= den)
        return 1.0;
    return x / den;
}

/*
 * Ericson's Voronoi-region method, in double and in ONE frame: the point is
 * P = ap and the triangle (0, B = ab, C = ac); bp, cp, bc only serve the final
 * distance of a vertex or edge region, where they are the most accurate form.
 *
 * Why one frame: ap, bp, cp, ab, ac, bc are float differences, each rounded on
 * its own, so together they describe slightly different triangles (by ~eps of
 * the scale). For a sliver the barycentrics are ill-conditioned in the vertex
 * positions: signed areas taken from mixed vectors (n.(bp x cp) beside
 * n.(ap x bp)) disagree by eps*L^2, which is 1e-3 of the area of a triangle of
 * aspect 4e-5. In one frame the data is a single, consistent triangle within
 * eps of the true one (the distance is 1-Lipschitz in that perturbation).
 *
 * Why double: the cross products of float vectors are then exact but for one
 * rounding per component, and every area is a triple product against n, so the
 * areas carry errors of ~2^-53 |n| |P| |C| whatever the triangle's shape; the
 * resulting weights are off by ~2^-53 |P| / (|B| sin) and the point by
 * ~2^-53 |P| / sin, negligible above the flatness threshold.
 */
float mq_cl_point_triangle(const vec3 ap, const vec3 bp, const vec3 cp, const vec3 ab, const vec3 ac, const vec3 bc,
                           float w[3])
{
    mq_cl_d3 P, B, C, n, x;
    mq_cl_d3_from(P, ap);
    mq_cl_d3_from(B, ab);
    mq_cl_d3_from(C, ac);
    mq_cl_d3_cross(n, B, C); /* 0 exactly iff ab, ac are exactly parallel */
    double nn = mq_cl_d3_dot(n, n);
    if (nn == 0.0)
        return longest_edge(ap, bp, cp, ab, ac, bc, w);
    if (nn <= MQ_CL_FLAT_SIN2_D * (mq_cl_d3_dot(B, B) * mq_cl_d3_dot(C, C)))
        return nearest_edge(ap, bp, cp, ab, ac, bc, w);

    /* Ericson's region tests, written with the edge vectors directly (his d4 - d3 is
     * BC.BP, his d5 - d6 is -BC.CP) and with the signed areas as triple products
     * against n rather than the Lagrange-identity products of dot products, whose
     * error scales with |ab|^2 |ac|^2 instead of |n|. */
    double d1 = mq_cl_d3_dot(B, P), d2 = mq_cl_d3_dot(C, P);
    if (d1 <= 0.0 && d2 <= 0.0) { /* vertex region v0 */
        set_weights(w, 1.0f, 0.0f, 0.0f);
        return (float)mq_cl_len2_d(ap);
    }
    mq_cl_d3 BP, CP, BC;
    mq_cl_d3_sub(BP, P, B);
    mq_cl_d3_sub(BC, C, B);
    double d3 = mq_cl_d3_dot(B, BP), d4 = mq_cl_d3_dot(BC, BP);
    if (d3 >= 0.0 && d4 <= 0.0) { /* vertex region v1 */
        set_weights(w, 0.0f, 1.0f, 0.0f);
        return (float)mq_cl_len2_d(bp);
    }
    /* Weight of v2, n.(B x P): B and P are floats, so B x P is as exact as n. */
    mq_cl_d3_cross(x, B, P);
    double vc = mq_cl_d3_dot(n, x);
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) { /* edge region v0v1 */
        float t = (float)clamp01_div_d(d1, d1 - d3);
        set_weights(w, 1.0f - t, t, 0.0f);
        return mq_cl_segment_dist2(ap, bp, ab, t);
    }
    mq_cl_d3_sub(CP, P, C);
    double d5 = mq_cl_d3_dot(C, CP), d6 = mq_cl_d3_dot(BC, CP);
    if (d5 >= 0.0 && d6 >= 0.0) { /* vertex region v2 */
        set_weights(w, 0.0f, 0.0f, 1.0f);
        return (float)mq_cl_len2_d(cp);
    }
    mq_cl_d3_cross(x, P, C); /* weight of v1, n.(P x C) */
    double vb = mq_cl_d3_dot(n, x);
    if (vb <= 0.0 && d2 >= 0.0 && d5 <= 0.0) { /* edge region v0v2 */
        float t = (float)clamp01_div_d(d2, d2 - d5);
        set_weights(w, 1.0f - t, 0.0f, t);
        return mq_cl_segment_dist2(ap, cp, ac, t);
    }
    /* Weight of v0 by the identity va + vb + vc = |n|^2: the direct n.(BP x CP)
     * would carry an error of ~2^-53 |n| |P|^2, far larger for a distant p. */
    double va = nn - vb - vc;
    if (va <= 0.0 && d4 >= 0.0 && d6 <= 0.0) { /* edge region v1v2 */
        float t = (float)clamp01_div_d(d4, d4 - d6);
        set_weights(w, 0.0f, 1.0f - t, t);
        return mq_cl_segment_dist2(bp, cp, bc, t);
    }
    /* In exact arithmetic all three weights are now positive. Rounding can contradict
     * the tests above on a region boundary; the boundary is then the answer to within
     * that rounding, so take the nearest edge. */
    if (!(va >= 0.0 && vb >= 0.0 && vc >= 0.0))
        return nearest_edge(ap, bp, cp, ab, ac, bc, w);
    /* Face: weights from the areas (va + vb + vc = nn > 0), w0 as 1 - u - v so that
     * out_point is the documented formula of (u, v). Distance to the plane,
     * (n.P)^2 / |n|^2: exact 0 for a point on the plane, and in double n is accurate
     * in direction for any shape, so no residual form is needed. */
    w[1] = (float)(vb / nn);
    w[2] = (float)(vc / nn);
    w[0] = 1.0f - w[1] - w[2];
    double dn = mq_cl_d3_dot(n, P);
    return (float)(dn * dn / nn);
}

double mq_cl_closest_point_triangle_d(const vec3 p, const mq_triangle *tri, vec3 out_point, vec2 out_uv)
{
    if (!tri || !mq_v3_is_finite(p) || !mq_triangle_ok(tri)) {
        mq_v3_fill_nan(out_point);
        if (out_uv)
            out_uv[0] = out_uv[1] = NAN;
        return NAN;
    }
    const float *v0 = tri->v[0], *v1 = tri->v[1], *v2 = tri->v[2];
    vec3 d[6]; /* p - v0, p - v1, p - v2, v1 - v0, v2 - v0, v2 - v1 */
    int e =
        mq_cl_diffs(d, (const float *const[]){p, p, p, v1, v2, v2}, (const float *const[]){v0, v1, v2, v0, v0, v1}, 6);
    float w[3];
    float d2 = mq_cl_point_triangle(d[0], d[1], d[2], d[3], d[4], d[5], w);
    if (out_point)
        mq_cl_tri_eval(out_point, tri, w);
    if (out_uv) {
        out_uv[0] = w[1];
        out_uv[1] = w[2];
    }
    /* In double the unscaled value neither overflows nor turns subnormal
     * (float inputs: |e| < 300); its float rounding is ldexpf's. */
    return e ? ldexp((double)d2, 2 * e) : (double)d2;
}

float mq_closest_point_triangle(const vec3 p, const mq_triangle *tri, vec3 out_point, vec2 out_uv)
{
    return (float)mq_cl_closest_point_triangle_d(p, tri, out_point, out_uv);
}
