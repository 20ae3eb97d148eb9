/*
 * Separating-axis (SAT) machinery shared by the box–box and triangle–box
 * overlap tests, in a validation-free form that tree traversals can call on
 * node boxes directly.
 *
 * Method. Two convex sets are disjoint iff their projections on some axis L
 * are disjoint, and for boxes/triangles a finite candidate set suffices: the
 * face normals of both and the cross products of their edge directions
 * (Gottschalk, Lin & Manocha 1996, "OBBTree", §4; Ericson, Real-Time Collision
 * Detection, §4.4.1 and §5.2.9; Akenine-Möller 2001 for triangle–box).
 *
 * Precision policy (why this is double and not float):
 *   - SOUND: a "separated" answer is a certificate. Projections are computed
 *     in double and an axis separates only when the computed gap exceeds a
 *     rigorous bound on its rounding error: MQ_SAT_MARGIN * S * |L|_1 (S = size
 *     of the configuration, see below) when L is formed explicitly. This holds
 *     for ANY axis L, however it was computed, so a degenerate or inaccurate
 *     axis (parallel edges, zero-area triangle) can never cause a false
 *     separation; an exactly zero axis projects everything to 0 and never
 *     separates. No epsilon is added to |R|. (Box-box evaluates its edge axes
 *     without forming L, against an absolute bound, and forms L explicitly
 *     whenever that is inconclusive: overlap_box_box.c.)
 *   - COMPLETE up to a tiny band: candidate axes are computed from the float
 *     inputs in double (a product of two floats is exact in double), so box
 *     axes are accurate to ~1e-16 relative even for near-parallel edges; pairs
 *     separated along a candidate axis by more than ~1e-13 * S are reported
 *     separated. (Triangle-edge x OBB-axis products lose accuracy as
 *     u / sin(angle); those axes are backed up by the face axes, and the worst
 *     case stays near 1e-8 * S, below float resolution.)
 *   - EXACT SHAPES: an OBB is the parallelepiped its (float) axes span; we use
 *     its true face normals u[k+1] x u[k+2] and the general projection radius
 *     sum_k h_k |u_k . L|, so the answer is right even for axes that are only
 *     orthonormal to MQ_OBB_AXIS_TOLERANCE.
 * Scalar double costs the same as scalar float on the targets we build for.
 */
#ifndef MQ_PRIMITIVES_SAT_INTERNAL_H
#define MQ_PRIMITIVES_SAT_INTERNAL_H

#include <math.h>
#include <stdbool.h>

#include <meshquery/types.h>

#include "core/minmax.h"

/*
 * Rounding margin, relative to the configuration size S (the largest centre
 * offset / vertex coordinate involved plus the half extents). The worst-case
 * rounding error of one axis test is below 16 * 2^-53 * S * |L|_1; 2^-44 is
 * 512 * 2^-53, so the bound holds with a 30x safety factor.
 */
#define MQ_SAT_MARGIN 0x1p-44

/*
 * A box in double: { c + sum_k s_k u[k] : |s_k| <= h[k] }. u[k] need not be
 * exactly orthonormal, only within MQ_OBB_AXIS_TOLERANCE (build boxes with
 * the helpers below, or fill c, h, u and slack, then call mq_sat_box_finish).
 * `slack` bounds (per coordinate) how far the box meant by the caller may lie
 * from the one described, e.g. after composing transforms in a traversal:
 * points within `slack` count as possibly inside, so that error can never
 * produce a separation (0 for boxes copied from float input).
 */
typedef struct mq_sat_box {
    double c[3];
    double h[3];
    double u[3][3];
    double n[3][3]; /* true face normals n[k] = u[k+1] x u[k+2] (see mq_sat_box_finish) */
    double vol;     /* |u[0] . n[0]|: the box's radius on n[k] is h[k] * vol */
    double slack;
} mq_sat_box;

static inline double mq_sat_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void mq_sat_cross(double out[3], const double a[3], const double b[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double mq_sat_norm1(const double a[3])
{
    return fabs(a[0]) + fabs(a[1]) + fabs(a[2]);
}

static inline double mq_sat_norm_inf(const double a[3])
{
    return mq_max(fabs(a[0]), mq_max(fabs(a[1]), fabs(a[2])));
}

/* Projection radius of the box on L: exact for a parallelepiped, any L. */
static inline double mq_sat_box_radius(const mq_sat_box *b, const double L[3])
{
    return b->h[0] * fabs(mq_sat_dot(b->u[0], L)) + b->h[1] * fabs(mq_sat_dot(b->u[1], L)) +
           b->h[2] * fabs(mq_sat_dot(b->u[2], L));
}

/*
 * Face normals and volume. In exact arithmetic u[m] . n[k] = 0 for m != k and
 * u[k] . n[k] = det(u) for every k, so a box's radius on its own (computed)
 * face normal is h[k] * vol up to a few roundings of size 2^-53 * |n[k]|_1
 * (|n[k]| is about 1 for near-orthonormal axes): the tests use that shortcut
 * and the rounding margin, which scales with |L|_1, absorbs the difference.
 */
static inline void mq_sat_box_finish(mq_sat_box *b)
{
    for (int k = 0; k < 3; k++)
        mq_sat_cross(b->n[k], b->u[(k + 1) % 3], b->u[(k + 2) % 3]);
    b->vol = fabs(mq_sat_dot(b->u[0], b->n[0]));
}

/* No validation: the caller checked the OBB (mq_obb_is_valid). Float -> double is exact, slack 0.
 */
static inline void mq_sat_box_from_obb(const mq_obb *o, mq_sat_box *out)
{
    for (int i = 0; i < 3; i++) {
        out->c[i] = o->center[i];
        out->h[i] = o->half[i];
        for (int j = 0; j < 3; j++)
            out->u[i][j] = o->axes[i][j];
    }
    out->slack = 0.0;
    mq_sat_box_finish(out);
}

/*
 * No validation: the caller checked min <= max. Halving is exact and min + max,
 * max - min take one double rounding each, and only when the two differ in
 * magnitude by more than 2^29; then h is about |c|, so the error (2^-53 |c|) is
 * already inside the relative margin (MQ_SAT_MARGIN scales with h): slack 0.
 */
static inline void mq_sat_box_from_aabb(const mq_aabb *a, mq_sat_box *out)
{
    for (int i = 0; i < 3; i++) {
        out->c[i] = 0.5 * ((double)a->min[i] + (double)a->max[i]);
        out->h[i] = 0.5 * ((double)a->max[i] - (double)a->min[i]);
        for (int j = 0; j < 3; j++)
            out->u[i][j] = i == j ? 1.0 : 0.0;
    }
    out->slack = 0.0;
    mq_sat_box_finish(out);
}

/*
 * Box vs box, 15 axes: the 3 + 3 true face normals and the 9 edge cross
 * products. True unless an axis certifies separation (see the policy above).
 * Defined in overlap_box_box.c.
 */
bool mq_sat_box_box(const mq_sat_box *a, const mq_sat_box *b);

/*
 * Triangle (finite; any shape: a segment or point is fine) vs box, 13 axes
 * (Akenine-Möller 2001). Defined in overlap_triangle_box.c.
 */
bool mq_sat_triangle_box(const mq_triangle *tri, const mq_sat_box *b);

#endif
