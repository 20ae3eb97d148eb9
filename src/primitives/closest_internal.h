/*
 * Kernels behind the closest-point / distance functions and the round-shape
 * overlap tests (primitives.h), shared with the BVH traversals. Nothing here
 * validates its input: callers check finiteness, radii and boxes first
 * (shape_checks.h). Names: mq_cl_*.
 *
 * Frames and range. The distance kernels take DIFFERENCES of the input points
 * (p - a, b - a, ...) and return parameters (segment t, triangle weights) plus
 * the squared distance in that frame. Their products reach the fourth power of
 * a coordinate difference (triple products against a triangle normal, the
 * segment-segment determinant), so they are accurate only while the
 * differences lie within about [2^-24, 2^24] in magnitude; beyond that the
 * products overflow or sink into the subnormals. mq_cl_diffs() computes the
 * differences and, when their largest component falls outside that range (or
 * overflows, which needs coordinates beyond 2^126), rescales them all by one
 * power of two, which is exact. The public functions are therefore accurate for
 * ANY finite input; only the squared distance they return can overflow to +Inf
 * (when it exceeds FLT_MAX) or lose precision in the subnormals (below ~1e-38).
 * The overlap tests compare in the scaled frame and never overflow.
 *
 * The results are exact at the ends: a closest point that is a vertex or an
 * endpoint is reported with parameter exactly 0 or 1 and copied, not
 * recomputed.
 */
#ifndef MQ_PRIMITIVES_CLOSEST_INTERNAL_H
#define MQ_PRIMITIVES_CLOSEST_INTERNAL_H

#include <float.h>
#include <math.h>
#include <stdbool.h>

#include <meshquery/primitives.h>

#include "core/minmax.h"
#include "core/vec3.h"
#include "primitives/shape_checks.h"

/* Largest coordinate difference the kernels take without rescaling, and the smallest. */
#define MQ_CL_RANGE_HI 0x1p24f
#define MQ_CL_RANGE_LO 0x1p-24f

/*
 * A triangle is numerically FLAT when sin^2 of its angle at v0 is at most this:
 * the computed normal's direction error (about eps/sin) would then skew the face
 * projection more than treating the triangle as its edges does. This is the
 * criterion for the double-precision triangle kernels (point-triangle,
 * segment-triangle). There n = ab x ac is computed from float differences, whose
 * products are exact in double, so each component is rounded once (relative
 * error 2^-53): the face projection is then off by about 2^-53 |p - v0| / sin,
 * while a triangle this flat lies within sin * (its longest edge) of its edges.
 * At sin = 2^-26 both errors are about 2^-26 of the scale, below the rounding
 * of the float differences the kernels start from; the float criterion would
 * instead treat slivers up to 2^-16 wide as their edges, an error of 1e-5.
 */
#define MQ_CL_FLAT_SIN2_D 0x1p-52

/*
 * Double-precision 3-vectors for the triangle kernels. Why double: products of
 * two floats are exact in double, so a cross product of float vectors is
 * correct to one rounding per component, with no cancellation error however
 * parallel the vectors are; in float the same cross product of two long,
 * nearly parallel edges (a sliver) loses most of its digits.
 */
typedef double mq_cl_d3[3];

static inline void mq_cl_d3_from(mq_cl_d3 out, const vec3 a)
{
    out[0] = (double)a[0];
    out[1] = (double)a[1];
    out[2] = (double)a[2];
}
static inline void mq_cl_d3_sub(mq_cl_d3 out, const mq_cl_d3 a, const mq_cl_d3 b)
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}
static inline double mq_cl_d3_dot(const mq_cl_d3 a, const mq_cl_d3 b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
/* out must not alias a or b */
static inline void mq_cl_d3_cross(mq_cl_d3 out, const mq_cl_d3 a, const mq_cl_d3 b)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}
/* |a|^2 of a float vector, in double (exact squares, two roundings). */
static inline double mq_cl_len2_d(const vec3 a)
{
    double x = (double)a[0], y = (double)a[1], z = (double)a[2];
    return x * x + y * y + z * z;
}

static inline float mq_cl_absmax3(const vec3 v)
{
    return mq_maxf(fabsf(v[0]), mq_maxf(fabsf(v[1]), fabsf(v[2])));
}

/* x / den clamped to [0, 1] for den > 0, exactly 0 or 1 at the ends and never a division by zero. */
static inline float mq_cl_clamp01_div(float x, float den)
{
    if (x <= 0.0f)
        return 0.0f;
    if (x >= den)
        return 1.0f;
    return x / den;
}

/* The slow path of mq_cl_diffs (closest_point.c): rescales to a largest component in [1, 2). */
int mq_cl_rescale(vec3 out[], const float *const x[], const float *const y[], int n, float m);

/*
 * out[i] = (x[i] - y[i]) * 2^-e for i < n; returns e. e = 0 (no scaling) while
 * the largest component is within [MQ_CL_RANGE_LO, MQ_CL_RANGE_HI], the usual
 * case; otherwise the differences are scaled to a largest component in [1, 2).
 */
static inline int mq_cl_diffs(vec3 out[], const float *const x[], const float *const y[], int n)
{
    float m = 0.0f;
    for (int i = 0; i < n; i++) {
        mq_v3_sub(out[i], x[i], y[i]);
        m = mq_maxf(m, mq_cl_absmax3(out[i]));
    }
    if ((m >= MQ_CL_RANGE_LO && m <= MQ_CL_RANGE_HI) || m == 0.0f)
        return 0;
    return mq_cl_rescale(out, x, y, n, m);
}

/*
 * mq_closest_point_triangle with the squared distance in double: the same
 * point and (u, v), and a squared distance whose float rounding is exactly
 * what the public function returns, but which stays accurate where that float
 * turns subnormal (distances below ~1.1e-19) or overflows (the hierarchies
 * compare and report with it).
 */
double mq_cl_closest_point_triangle_d(const vec3 p, const mq_triangle *tri, vec3 out_point, vec2 out_uv);

/* A squared distance from a frame scaled by 2^-e back to world units (+Inf when it overflows). */
static inline float mq_cl_unscale2(float d2, int e)
{
    return e ? ldexpf(d2, 2 * e) : d2;
}

/*
 * d2n <= (r1 + r2)^2, for a squared distance d2n in a frame scaled by 2^-e. The
 * radii are scaled before they are added, so the sum cannot overflow unless
 * the true sum dwarfs every distance the frame can hold (then it is +Inf and
 * the answer, true, is right).
 */
static inline bool mq_cl_within(float d2n, int e, float r1, float r2)
{
    float r = e ? ldexpf(r1, -e) + ldexpf(r2, -e) : r1 + r2;
    return d2n <= r * r;
}

/*
 * |v| <= r for finite r >= 0 and any v (components may be +-Inf). The max-norm
 * early-out is exact (|v| >= max|v_i|) and rejects infinities; what is left has
 * |v| <= sqrt(3) r, so once r is scaled by a power of two (exact) to [1, 2)
 * neither square overflows nor drops into the subnormals.
 */
static inline bool mq_cl_len_le(const vec3 v, float r)
{
    if (mq_cl_absmax3(v) > r)
        return false;
    if (r >= 0x1p-60f && r <= 0x1p60f)
        return mq_v3_len2(v) <= r * r;
    if (r == 0.0f)
        return true; /* max |v_i| <= 0 */
    int e = ilogbf(r);
    vec3 w = {ldexpf(v[0], -e), ldexpf(v[1], -e), ldexpf(v[2], -e)};
    float rs = ldexpf(r, -e);
    return mq_v3_len2(w) <= rs * rs;
}

/* How far p lies outside [lo, hi] on each axis (0 inside); +Inf only when the gap overflows. */
static inline void mq_cl_aabb_excess(const vec3 p, const vec3 lo, const vec3 hi, vec3 out)
{
    for (int i = 0; i < 3; i++)
        out[i] = mq_maxf(mq_maxf(lo[i] - p[i], p[i] - hi[i]), 0.0f);
}

/* Sphere vs AABB (Arvo 1990: the box point nearest the centre is within r); inputs valid. */
static inline bool mq_cl_sphere_aabb(const vec3 center, float r, const vec3 lo, const vec3 hi)
{
    vec3 ex;
    mq_cl_aabb_excess(center, lo, hi, ex);
    return mq_cl_len_le(ex, r);
}

/*
 * Box-local coordinates of n points (components along the axes, origin at the
 * centre), multiplied by the returned factor k: 1 normally, 1/16 when some
 * p - center has a component beyond 2^120 (or overflows), so that the dot
 * products with axes of length up to 1 + MQ_OBB_AXIS_TOLERANCE stay finite
 * (|d.u| <= |d||u| < 2^128 at k = 1/16). Callers scale the box and radius by k.
 */
static inline float mq_cl_obb_local(const mq_obb *box, const float *const pts[], vec3 out[], int n)
{
    float k = 1.0f, m = 0.0f;
    for (int i = 0; i < n; i++) {
        mq_v3_sub(out[i], pts[i], box->center);
        m = mq_maxf(m, mq_cl_absmax3(out[i]));
    }
    if (!(m <= 0x1p120f)) {
        k = 0x1p-4f;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < 3; j++)
                out[i][j] = k * pts[i][j] - k * box->center[j];
    }
    for (int i = 0; i < n; i++) {
        vec3 d;
        mq_v3_copy(d, out[i]);
        mq_obb_dir_to_local(box, d, out[i]);
    }
    return k;
}

/* Points from parameters, in world space. Exact at t = 0 and t = 1 (weights 0 and 1),
 * and overflow-free: each is a convex combination of the inputs. */
static inline void mq_cl_lerp(vec3 out, const vec3 a, const vec3 b, float t)
{
    float s = 1.0f - t;
    for (int i = 0; i < 3; i++)
        out[i] = s * a[i] + t * b[i];
}

static inline void mq_cl_tri_eval(vec3 out, const mq_triangle *tri, const float w[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = w[0] * tri->v[0][i] + w[1] * tri->v[1][i] + w[2] * tri->v[2][i];
}

/* ------------------------------------------------------------------------- */
/* Kernels on (scaled) differences. All return the squared distance.         */
/* ------------------------------------------------------------------------- */

/*
 * Point p vs segment [a, b], from ap = p - a, bp = p - b, ab = b - a. *t gets the
 * closest point's parameter in [0, 1] (a + t*ab). ab = 0 is allowed (t = 0).
 */
float mq_cl_point_segment(const vec3 ap, const vec3 bp, const vec3 ab, float *t);

/*
 * Squared distance from p to the point at parameter t of segment [a, b], in the
 * form that is exact for the simplest inputs: |ap|^2 or |bp|^2 at the ends,
 * otherwise the distance to the supporting line, |ap x ab|^2 / |ab|^2 (exact 0
 * for a point on the line even when t is not representable). For t inside
 * (0, 1) the caller guarantees t is the projection of p.
 */
float mq_cl_segment_dist2(const vec3 ap, const vec3 bp, const vec3 ab, float t);

/*
 * Point p vs triangle (v0, v1, v2), from ap, bp, cp = p - v0, p - v1, p - v2 and
 * ab, ac, bc = v1 - v0, v2 - v0, v2 - v1. w gets the barycentric weights of the
 * closest point (w[i] for v[i], summing to 1 within rounding, exactly 0 or 1 on
 * edges and at vertices). Regions and weights are computed in double from
 * ap, ab, ac alone (one consistent triangle: the six inputs are rounded one by
 * one), which keeps slivers accurate; bp, cp, bc give the final vertex and edge
 * distances. On a sliver the weights are ill-conditioned along its length (the
 * rounding of the inputs moves them far more than the point they name), so it
 * is the point that is accurate, to a few float ulps of the inputs' scale.
 */
float mq_cl_point_triangle(const vec3 ap, const vec3 bp, const vec3 cp, const vec3 ab, const vec3 ac, const vec3 bc,
                           float w[3]);

/*
 * Segment [p1, q1] vs segment [p2, q2], from d1 = q1 - p1, d2 = q2 - p2 and
 * r = p1 - p2. *s, *t get the parameters of the closest points (p1 + s*d1,
 * p2 + t*d2). Parallel and zero-length segments are allowed.
 */
float mq_cl_segment_segment(const vec3 d1, const vec3 d2, const vec3 r, float *s, float *t);

/* The differences mq_cl_segment_triangle takes, for segment [a, b] and triangle (v0, v1, v2). */
enum {
    MQ_CL_ST_A0,  /* a - v0 */
    MQ_CL_ST_A1,  /* a - v1 */
    MQ_CL_ST_A2,  /* a - v2 */
    MQ_CL_ST_B0,  /* b - v0 */
    MQ_CL_ST_B1,  /* b - v1 */
    MQ_CL_ST_B2,  /* b - v2 */
    MQ_CL_ST_D,   /* b - a */
    MQ_CL_ST_E01, /* v1 - v0 */
    MQ_CL_ST_E02, /* v2 - v0 */
    MQ_CL_ST_E12, /* v2 - v1 */
    MQ_CL_ST_COUNT
};

/* Those differences, indexed by the enum (a struct, so that it can be passed as const). */
typedef struct mq_cl_segtri {
    vec3 v[MQ_CL_ST_COUNT];
} mq_cl_segtri;

/*
 * Segment vs triangle from the differences above. *s gets the segment parameter
 * of the closest point, w the triangle weights. Returns 0 when the segment
 * crosses the triangle (decided in double, in the frame of a - v0, b - v0,
 * v1 - v0, v2 - v0; segment_triangle.c).
 */
float mq_cl_segment_triangle(const mq_cl_segtri *in, float *s, float w[3]);

/*
 * Whether mq_cl_segment_triangle(in) <= r2: the same verdict (the distance is
 * the least of the same candidates, so it is within r2 exactly when one of
 * them is), found with early exits: a cheap rejection when the whole segment
 * stays on one side of the triangle's plane clearly farther than sqrt(r2)
 * (by a margin far above the candidates' rounding, so it never decides a
 * case they would), then each candidate in turn until one is within r2.
 */
bool mq_cl_segment_triangle_within(const mq_cl_segtri *in, float r2);

/*
 * Capsule (segment [a, b], radius r) vs the closed box [lo, hi], exactly: the
 * segment-box distance is <= r. Inputs must be finite, r >= 0, lo <= hi.
 */
bool mq_cl_capsule_aabb(const vec3 a, const vec3 b, float r, const vec3 lo, const vec3 hi);

#endif
