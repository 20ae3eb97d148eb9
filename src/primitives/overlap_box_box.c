/*
 * Box–box overlap: AABB–AABB by intervals, AABB–OBB and OBB–OBB by the
 * 15-axis separating axis test (Gottschalk, Lin & Manocha 1996 §4; Ericson,
 * Real-Time Collision Detection §4.4.1). See sat_internal.h for the precision
 * policy: no false "separated", and degenerate cross axes need no epsilon
 * because an axis only separates when its gap beats a margin proportional to
 * |L| itself.
 */
#include <meshquery/primitives.h>

#include "primitives/sat_internal.h"
#include "primitives/shape_checks.h"

/* Shared per-pair data: centre offset and the rounding tolerance per unit of |L|_1. */
typedef struct box_pair {
    const mq_sat_box *a, *b;
    double t[3];
    double tol;
} box_pair;

/* True when the centre distance along L beats both radii by the rounding margin. */
static bool apart(const box_pair *p, const double L[3], double reach)
{
    return fabs(mq_sat_dot(p->t, L)) - reach > p->tol * mq_sat_norm1(L);
}

/* The edge-edge axis a_i x b_j, formed explicitly: exact for any angle (the
 * product of two axes is computed to 2^-53 per component, and the margin scales
 * with |L|_1; L = 0 for parallel edges projects to nothing and never separates). */
static bool edge_axis_apart(const box_pair *p, int i, int j)
{
    double L[3];
    mq_sat_cross(L, p->a->u[i], p->b->u[j]);
    return apart(p, L, mq_sat_box_radius(p->a, L) + mq_sat_box_radius(p->b, L));
}

/*
 * Rounding bound for the fast edge-edge test below, relative to the pair size:
 * with axes near unit length, each entry of Q, P and V . b_j is off by less
 * than 25 * 2^-53 * size in all; 2^-46 = 128 * 2^-53 leaves a factor 5.
 */
#define EDGE_MARGIN 0x1p-46

bool mq_sat_box_box(const mq_sat_box *a, const mq_sat_box *b)
{
    box_pair p = {.a = a, .b = b};
    for (int i = 0; i < 3; i++)
        p.t[i] = b->c[i] - a->c[i];
    /* Every rounding error is relative to |t|, the half extents or |L|: see MQ_SAT_MARGIN. */
    double size = mq_sat_norm_inf(p.t) + a->h[0] + a->h[1] + a->h[2] + b->h[0] + b->h[1] + b->h[2];
    p.tol = MQ_SAT_MARGIN * size + a->slack + b->slack;

    /* Face axes first: they separate most pairs that are apart at all. On its
     * own face normal a box's radius is h[k] * vol; the other box's radius
     * needs Q[k][j] = a.n[k] . b.u[j] and P[i][m] = a.u[i] . b.n[m], kept for
     * the edge axes. */
    double Q[3][3], P[3][3];
    for (int k = 0; k < 3; k++) {
        double rb = 0;
        for (int j = 0; j < 3; j++) {
            Q[k][j] = mq_sat_dot(a->n[k], b->u[j]);
            rb += b->h[j] * fabs(Q[k][j]);
        }
        if (apart(&p, a->n[k], a->h[k] * a->vol + rb))
            return false;
    }
    for (int m = 0; m < 3; m++) {
        double ra = 0;
        for (int i = 0; i < 3; i++) {
            P[i][m] = mq_sat_dot(a->u[i], b->n[m]);
            ra += a->h[i] * fabs(P[i][m]);
        }
        if (apart(&p, b->n[m], ra + b->h[m] * b->vol))
            return false;
    }

    /*
     * Edge-edge axes L = a_i x b_j, as in OBBTree (Gottschalk et al. 1996 §4)
     * but exactly: by the triple-product identities, in exact arithmetic
     *   t . L = (t x a_i) . b_j,
     *   radius of A = h_i+1 |Q[i+2][j]| + h_i+2 |Q[i+1][j]|   (a_i . L = 0),
     *   radius of B = h_j+1 |P[i][j+2]| + h_j+2 |P[i][j+1]|   (b_j . L = 0).
     * Those values are off by at most EDGE_MARGIN * size (absolute, not scaled
     * by |L|), so a gap beyond that certifies separation. A gap inside the band
     * means the pair nearly touches along L or L nearly vanishes (parallel
     * edges); only then is the axis formed and tested exactly, so no
     * degenerate axis can separate falsely, and none is given up on either.
     */
    double V[3][3];
    for (int i = 0; i < 3; i++)
        mq_sat_cross(V[i], p.t, a->u[i]);
    /* Centre errors (slack) along an unnormalised L, |L|_1 <= 2 for near-unit axes. */
    double band = EDGE_MARGIN * size + 2.0 * (a->slack + b->slack);
    for (int i = 0; i < 3; i++) {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; j++) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            double reach = a->h[i1] * fabs(Q[i2][j]) + a->h[i2] * fabs(Q[i1][j]) + b->h[j1] * fabs(P[i][j2]) +
                           b->h[j2] * fabs(P[i][j1]);
            double gap = fabs(mq_sat_dot(V[i], b->u[j])) - reach;
            if (gap > band || (gap > -band && edge_axis_apart(&p, i, j)))
                return false;
        }
    }
    return true;
}

bool mq_overlap_aabb_aabb(const mq_aabb *a, const mq_aabb *b)
{
    if (!a || !b || !mq_aabb_ok(a) || !mq_aabb_ok(b))
        return false;
    /* Float comparisons are exact: closed intervals meet iff neither lies strictly past the other.
     */
    for (int i = 0; i < 3; i++)
        if (a->min[i] > b->max[i] || b->min[i] > a->max[i])
            return false;
    return true;
}

bool mq_overlap_aabb_obb(const mq_aabb *a, const mq_obb *b)
{
    if (!a || !mq_aabb_ok(a) || !mq_obb_is_valid(b))
        return false;
    mq_sat_box sa, sb;
    mq_sat_box_from_aabb(a, &sa);
    mq_sat_box_from_obb(b, &sb);
    return mq_sat_box_box(&sa, &sb);
}

bool mq_overlap_obb_obb(const mq_obb *a, const mq_obb *b)
{
    if (!mq_obb_is_valid(a) || !mq_obb_is_valid(b))
        return false;
    mq_sat_box sa, sb;
    mq_sat_box_from_obb(a, &sa);
    mq_sat_box_from_obb(b, &sb);
    return mq_sat_box_box(&sa, &sb);
}
