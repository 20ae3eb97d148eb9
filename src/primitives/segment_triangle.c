/*
 * Closest points between a segment and a triangle.
 *
 * If the segment crosses the triangle the distance is 0. Otherwise it is the
 * smallest of five candidates: each segment endpoint vs the triangle (point-
 * triangle) and the segment vs each edge (segment-segment). Why that is
 * complete: take a closest pair (x on the segment, y on the triangle) of the
 * two disjoint convex sets.
 *   - x an endpoint: an endpoint candidate.
 *   - y on an edge: that edge's candidate.
 *   - Otherwise x is inside the segment and y inside the face. Then x - y is
 *     normal to the plane (y minimises over the face), and the segment is
 *     perpendicular to x - y (x minimises over the segment), so the segment is
 *     parallel to the plane at that height. Sliding x along it keeps the
 *     distance while y stays the foot point, until x reaches an endpoint or y
 *     reaches an edge: a candidate of the same distance.
 * The crossing test only has to catch a segment that pierces the face
 * transversally: a segment that meets the triangle inside its plane either has
 * an endpoint on it or crosses an edge, and those candidates return 0. A
 * zero-area or numerically flat triangle (closest_internal.h) is the union of
 * its edges to within its width, so it skips the crossing test and relies on
 * the candidates alone.
 *
 * Crossing test (no ray routine involved): the endpoints straddle the plane and
 * the point where the segment meets it lies inside the triangle, by the signs
 * of its signed areas (Ericson, Real-Time Collision Detection, §3.4 and
 * §5.1.5), which are also the crossing's barycentrics; they are computed in
 * double from one consistent frame, so that slivers keep them accurate. The
 * line-based triple products of Ericson §5.3.4 are not used: for a segment
 * nearly in the plane they are all rounding noise and may agree in sign for a
 * segment that passes far beside the triangle. See crosses() for why rounding
 * can only flip the verdict within rounding of 0.
 */
#include <meshquery/primitives.h>

#include "core/minmax.h"
#include "core/vec3.h"
#include "primitives/closest_internal.h"
#include "primitives/shape_checks.h"

/*
 * True when the segment pierces the triangle (normal n = e01 x e02 in double,
 * nn = |n|^2 > 0); then *s and w locate the crossing. The endpoints must lie on
 * opposite sides of the plane (or one on it), and the point X where the segment
 * meets the plane must fall inside the triangle. X is found from the endpoint
 * heights, t = da / (da - db); when the segment is nearly parallel to the plane
 * t is ill-conditioned, but X still lies on the segment within rounding of the
 * plane (the error moves it along the segment, not off the plane), so declaring
 * 0 for an X found inside is right to within rounding, and an X pushed just
 * outside leaves a crossing within rounding of an edge, which the segment-edge
 * candidate returns.
 *
 * Everything is in double and in ONE frame, the triangle's v0: a = A0, b = B0,
 * the triangle (0, e01, e02). The float differences are rounded one by one, so
 * mixing them (P - v1 beside P - v0) describes slightly different triangles,
 * which for a sliver turns into barycentrics off by 1e-3 and crossings reported
 * beside the triangle; in one frame and in double (cross products of floats are
 * exact but for one rounding per component) the weights are good to
 * ~2^-53 |X| / (edge * sin) above the flatness threshold.
 */
static bool crosses(const mq_cl_segtri *in, const mq_cl_d3 n, double nn, float *s, float w[3])
{
    const vec3 *v = in->v;
    mq_cl_d3 A, B, E1, E2;
    mq_cl_d3_from(A, v[MQ_CL_ST_A0]);
    mq_cl_d3_from(B, v[MQ_CL_ST_B0]);
    double da = mq_cl_d3_dot(n, A), db = mq_cl_d3_dot(n, B);
    if ((da > 0.0 && db > 0.0) || (da < 0.0 && db < 0.0) || (da == 0.0 && db == 0.0))
        return false;          /* one side, or in the plane (left to the candidates) */
    double t = da / (da - db); /* opposite signs, not both 0: no division by 0, t in [0, 1] */
    mq_cl_d3 D, X, x;          /* b - a, X - v0 */
    mq_cl_d3_sub(D, B, A);
    for (int i = 0; i < 3; i++)
        X[i] = A[i] + t * D[i];
    mq_cl_d3_from(E1, v[MQ_CL_ST_E01]);
    mq_cl_d3_from(E2, v[MQ_CL_ST_E02]);
    /* X = u1 e01 + u2 e02 (+ height n): u1 nn = n.(X x e02), u2 nn = n.(e01 x X). */
    mq_cl_d3_cross(x, X, E2);
    double u1 = mq_cl_d3_dot(n, x);
    mq_cl_d3_cross(x, E1, X);
    double u2 = mq_cl_d3_dot(n, x);
    double u0 = nn - u1 - u2;
    if (!(u0 >= 0.0 && u1 >= 0.0 && u2 >= 0.0))
        return false;
    w[0] = (float)(u0 / nn);
    w[1] = (float)(u1 / nn);
    w[2] = (float)(u2 / nn);
    *s = (float)t;
    return true;
}

/* Keeps the candidate when it is strictly nearer (earlier candidates win ties). */
static void keep(float *best, float *s_best, float w_best[3], float d2, float s, float w0, float w1, float w2)
{
    if (d2 < *best) {
        *best = d2;
        *s_best = s;
        w_best[0] = w0;
        w_best[1] = w1;
        w_best[2] = w2;
    }
}

float mq_cl_segment_triangle(const mq_cl_segtri *in, float *s, float w[3])
{
    const vec3 *v = in->v;
    const float *e01 = v[MQ_CL_ST_E01], *e02 = v[MQ_CL_ST_E02], *e12 = v[MQ_CL_ST_E12];
    const float *d = v[MQ_CL_ST_D];
    /* The normal in double (see crosses()); a zero-area or flat triangle skips the
     * crossing test (MQ_CL_FLAT_SIN2_D: within 2^-26 of its length of its edges). */
    mq_cl_d3 E1, E2, n;
    mq_cl_d3_from(E1, e01);
    mq_cl_d3_from(E2, e02);
    mq_cl_d3_cross(n, E1, E2);
    double nn = mq_cl_d3_dot(n, n);
    if (nn > MQ_CL_FLAT_SIN2_D * (mq_cl_d3_dot(E1, E1) * mq_cl_d3_dot(E2, E2)) && crosses(in, n, nn, s, w))
        return 0.0f;

    float best, wb[3], se, te;
    best = mq_cl_point_triangle(v[MQ_CL_ST_A0], v[MQ_CL_ST_A1], v[MQ_CL_ST_A2], e01, e02, e12, w);
    *s = 0.0f;
    float d2 = mq_cl_point_triangle(v[MQ_CL_ST_B0], v[MQ_CL_ST_B1], v[MQ_CL_ST_B2], e01, e02, e12, wb);
    keep(&best, s, w, d2, 1.0f, wb[0], wb[1], wb[2]);
    d2 = mq_cl_segment_segment(d, e01, v[MQ_CL_ST_A0], &se, &te); /* edge v0 -> v1 */
    keep(&best, s, w, d2, se, 1.0f - te, te, 0.0f);
    d2 = mq_cl_segment_segment(d, e02, v[MQ_CL_ST_A0], &se, &te); /* edge v0 -> v2 */
    keep(&best, s, w, d2, se, 1.0f - te, 0.0f, te);
    d2 = mq_cl_segment_segment(d, e12, v[MQ_CL_ST_A1], &se, &te); /* edge v1 -> v2 */
    keep(&best, s, w, d2, se, 0.0f, 1.0f - te, te);
    return best;
}

/* Whether both endpoints lie on one side of the plane of a non-flat triangle
 * farther than r: heights da / |n|, db / |n| in double from the float
 * differences (exact products, a few roundings). The margins (1e-4 of r, and
 * 1e-6 of the coordinates for the heights' own rounding) keep every case
 * within rounding of r for the exact candidates. */
static bool clearly_above_plane(const mq_cl_segtri *in, const mq_cl_d3 n, double nn, float r2)
{
    mq_cl_d3 A, B;
    mq_cl_d3_from(A, in->v[MQ_CL_ST_A0]);
    mq_cl_d3_from(B, in->v[MQ_CL_ST_B0]);
    double da = mq_cl_d3_dot(n, A), db = mq_cl_d3_dot(n, B);
    if (!((da > 0.0 && db > 0.0) || (da < 0.0 && db < 0.0)))
        return false;
    double mag = mq_cl_absmax3(in->v[MQ_CL_ST_A0]) + mq_cl_absmax3(in->v[MQ_CL_ST_B0]);
    double limit = sqrt(nn) * (sqrt((double)r2) * (1.0 + 1e-4) + 1e-6 * mag);
    return mq_fmin(fabs(da), fabs(db)) > limit;
}

bool mq_cl_segment_triangle_within(const mq_cl_segtri *in, float r2)
{
    const vec3 *v = in->v;
    const float *e01 = v[MQ_CL_ST_E01], *e02 = v[MQ_CL_ST_E02], *e12 = v[MQ_CL_ST_E12];
    const float *d = v[MQ_CL_ST_D];
    mq_cl_d3 E1, E2, n;
    mq_cl_d3_from(E1, e01);
    mq_cl_d3_from(E2, e02);
    mq_cl_d3_cross(n, E1, E2);
    double nn = mq_cl_d3_dot(n, n);
    float s, se, te, w[3];
    if (nn > MQ_CL_FLAT_SIN2_D * (mq_cl_d3_dot(E1, E1) * mq_cl_d3_dot(E2, E2))) {
        if (clearly_above_plane(in, n, nn, r2))
            return false;
        if (crosses(in, n, nn, &s, w))
            return true; /* distance 0 */
    }
    if (mq_cl_point_triangle(v[MQ_CL_ST_A0], v[MQ_CL_ST_A1], v[MQ_CL_ST_A2], e01, e02, e12, w) <= r2 ||
        mq_cl_point_triangle(v[MQ_CL_ST_B0], v[MQ_CL_ST_B1], v[MQ_CL_ST_B2], e01, e02, e12, w) <= r2)
        return true;
    return mq_cl_segment_segment(d, e01, v[MQ_CL_ST_A0], &se, &te) <= r2 ||
           mq_cl_segment_segment(d, e02, v[MQ_CL_ST_A0], &se, &te) <= r2 ||
           mq_cl_segment_segment(d, e12, v[MQ_CL_ST_A1], &se, &te) <= r2;
}

float mq_closest_points_segment_triangle(const vec3 a, const vec3 b, const mq_triangle *tri, vec3 out_segment,
                                         vec3 out_triangle)
{
    if (!tri || !mq_v3_is_finite(a) || !mq_v3_is_finite(b) || !mq_triangle_ok(tri)) {
        mq_v3_fill_nan(out_segment);
        mq_v3_fill_nan(out_triangle);
        return NAN;
    }
    const float *v0 = tri->v[0], *v1 = tri->v[1], *v2 = tri->v[2];
    mq_cl_segtri st;
    int e = mq_cl_diffs(st.v, (const float *const[]){a, a, a, b, b, b, b, v1, v2, v2},
                        (const float *const[]){v0, v1, v2, v0, v1, v2, a, v0, v0, v1}, MQ_CL_ST_COUNT);
    float s, w[3];
    float d2 = mq_cl_segment_triangle(&st, &s, w);
    /* At a crossing both points are the crossing point, each computed on its own set
     * (they agree to rounding). */
    if (out_segment)
        mq_cl_lerp(out_segment, a, b, s);
    if (out_triangle)
        mq_cl_tri_eval(out_triangle, tri, w);
    return mq_cl_unscale2(d2, e);
}
