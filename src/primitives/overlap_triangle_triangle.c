/*
 * Triangle–triangle overlap, EXACT for float input: every decision is the sign
 * of an orientation determinant, evaluated exactly. Coplanar, touching and
 * zero-area (segment / point) triangles are all decided correctly.
 *
 * Method. Following Guigue & Devillers ("Fast and robust triangle-triangle
 * overlap test using orientation predicates", JGT 2003) we use only orient3d /
 * orient2d signs and first reject triangles lying strictly on one side of the
 * other's plane. The remaining decision uses a simpler characterisation that
 * keeps degenerate cases uniform: two closed triangles meet iff an edge of one
 * meets the other (every vertex of the convex set A∩B lies on an edge of A or
 * of B). An edge [a,b] meets triangle pqr iff
 *   - a and b are not strictly on the same side of plane pqr, and
 *   - either both lie in the plane (then a 2D test in a projection that is
 *     one-to-one on the plane), or the line ab passes through the closed
 *     triangle: orient3d(a,b,p,q), (a,b,q,r), (a,b,r,p) do not have mixed signs
 *     (they are proportional to the barycentrics of the crossing point).
 * A zero-area triangle is its hull segment (or point): segment–triangle, and
 * segment–segment for two of them.
 *
 * Precision. orient3d and orient2d are core/orient3d.h's and core/orient2d.h's
 * exact signs (a double filter with Shewchuk's bound, then expansions; exact
 * for every float input).
 */
#include <meshquery/primitives.h>

#include "core/minmax.h"
#include "core/orient2d.h"
#include "core/orient3d.h"
#include "primitives/shape_checks.h"

/* ------------------------------------------------------------------------- */
/* Exact predicates on float points                                           */
/* ------------------------------------------------------------------------- */

/*
 * Sign of det[a-d; b-d; c-d], which equals the 4x4 determinant |a 1; b 1; c 1;
 * d 1|: alternating in its four points, zero iff they are coplanar, and its
 * sign tells on which side of plane abc the point d lies. It is
 * -det[b-a; c-a; d-a], core/orient3d.h's exact sign (floats are exact
 * doubles, in its range).
 */
static int orient3d(const vec3 a, const vec3 b, const vec3 c, const vec3 d)
{
    const double pa[3] = {a[0], a[1], a[2]}, pb[3] = {b[0], b[1], b[2]};
    const double pc[3] = {c[0], c[1], c[2]}, pd[3] = {d[0], d[1], d[2]};
    return -mq_orient3d(pa, pb, pc, pd);
}

/* Sign of orient2d on coordinates (i, j): det[a-c; b-c]. Exact. */
static int orient2d(const vec3 a, const vec3 b, const vec3 c, int i, int j)
{
    const double pa[2] = {a[i], a[j]}, pb[2] = {b[i], b[j]}, pc[2] = {c[i], c[j]};
    return mq_orient2d(pa, pb, pc);
}

/* ------------------------------------------------------------------------- */
/* 2D tests, in the projection that drops coordinate `drop`                   */
/* ------------------------------------------------------------------------- */

typedef struct plane2 {
    int i, j; /* the coordinates kept */
} plane2;

static plane2 dropping(int k)
{
    return (plane2){(k + 1) % 3, (k + 2) % 3};
}

/* No mix of strictly positive and strictly negative signs. */
static bool no_mixed_signs(int s0, int s1, int s2)
{
    return !((s0 > 0 || s1 > 0 || s2 > 0) && (s0 < 0 || s1 < 0 || s2 < 0));
}

/* Closed point-in-triangle; the triangle must be non-degenerate in this projection. */
static bool point_in_triangle_2d(const vec3 p, const mq_triangle *t, plane2 pl)
{
    return no_mixed_signs(orient2d(t->v[0], t->v[1], p, pl.i, pl.j), orient2d(t->v[1], t->v[2], p, pl.i, pl.j),
                          orient2d(t->v[2], t->v[0], p, pl.i, pl.j));
}

static bool intervals_meet(float a0, float a1, float b0, float b1)
{
    return mq_fminf(a0, a1) <= mq_fmaxf(b0, b1) && mq_fminf(b0, b1) <= mq_fmaxf(a0, a1);
}

/* Closed segments [a,b] and [c,d] (either may be a point) meet in this projection. */
static bool segments_meet_2d(const vec3 a, const vec3 b, const vec3 c, const vec3 d, plane2 pl)
{
    int o1 = orient2d(a, b, c, pl.i, pl.j), o2 = orient2d(a, b, d, pl.i, pl.j);
    if (o1 * o2 > 0)
        return false;
    int o3 = orient2d(c, d, a, pl.i, pl.j), o4 = orient2d(c, d, b, pl.i, pl.j);
    if (o3 * o4 > 0)
        return false;
    if (o1 == 0 && o2 == 0 && o3 == 0 && o4 == 0) /* collinear: the bounding boxes decide */
        return intervals_meet(a[pl.i], b[pl.i], c[pl.i], d[pl.i]) && intervals_meet(a[pl.j], b[pl.j], c[pl.j], d[pl.j]);
    return true;
}

static bool segment_meets_triangle_2d(const vec3 a, const vec3 b, const mq_triangle *t, plane2 pl)
{
    if (point_in_triangle_2d(a, t, pl) || point_in_triangle_2d(b, t, pl))
        return true;
    for (int e = 0; e < 3; e++)
        if (segments_meet_2d(a, b, t->v[e], t->v[(e + 1) % 3], pl))
            return true;
    return false;
}

/* ------------------------------------------------------------------------- */
/* 3D                                                                         */
/* ------------------------------------------------------------------------- */

/*
 * The coordinate to drop so that projecting the triangle's plane is one-to-one
 * (the normal's component there is exactly non-zero), preferring the largest
 * approximate component so the 2D filters rarely fall back; -1 when the three
 * vertices are collinear (all three components are exactly zero).
 */
static int projection_axis(const mq_triangle *t)
{
    double e1[3], e2[3], n[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)t->v[1][k] - t->v[0][k];
        e2[k] = (double)t->v[2][k] - t->v[0][k];
    }
    n[0] = fabs(e1[1] * e2[2] - e1[2] * e2[1]);
    n[1] = fabs(e1[2] * e2[0] - e1[0] * e2[2]);
    n[2] = fabs(e1[0] * e2[1] - e1[1] * e2[0]);
    int order[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++) /* tiny sort, largest first */
        for (int j = i + 1; j < 3; j++)
            if (n[order[j]] > n[order[i]]) {
                int tmp = order[i];
                order[i] = order[j];
                order[j] = tmp;
            }
    for (int i = 0; i < 3; i++) {
        plane2 pl = dropping(order[i]);
        if (orient2d(t->v[0], t->v[1], t->v[2], pl.i, pl.j) != 0)
            return order[i];
    }
    return -1;
}

/* The segment [*a, *b] spanned by collinear vertices (*a == *b for a point): the
 * extremes along the first coordinate on which the vertices differ, which is
 * monotone along their common line. */
static void collinear_hull(const mq_triangle *t, const float **a, const float **b)
{
    for (int k = 0; k < 3; k++) {
        int lo = 0, hi = 0;
        for (int i = 1; i < 3; i++) {
            if (t->v[i][k] < t->v[lo][k])
                lo = i;
            if (t->v[i][k] > t->v[hi][k])
                hi = i;
        }
        if (t->v[lo][k] < t->v[hi][k]) {
            *a = t->v[lo];
            *b = t->v[hi];
            return;
        }
    }
    *a = *b = t->v[0];
}

#define UNKNOWN 2 /* not yet computed: a sign cache entry or a projection axis */

/* A non-degenerate triangle and its projection axis, found on first use. */
typedef struct tri_ref {
    const mq_triangle *t;
    int drop;
} tri_ref;

static int drop_of(tri_ref *r)
{
    if (r->drop == UNKNOWN)
        r->drop = projection_axis(r->t);
    return r->drop;
}

/* orient3d(a,b,c,d), remembered in *slot when one is given. */
static int cached_orient3d(const vec3 a, const vec3 b, const vec3 c, const vec3 d, signed char *slot)
{
    if (slot && *slot != UNKNOWN)
        return *slot;
    int s = orient3d(a, b, c, d);
    if (slot)
        *slot = (signed char)s;
    return s;
}

/*
 * Closed segment [a,b] vs the closed non-degenerate triangle r->t, given the
 * sides sa, sb of a and b relative to its plane. slot[j] (may be NULL) caches
 * orient3d(a, b, t_j, t_j+1).
 */
static bool segment_meets_triangle(const vec3 a, const vec3 b, int sa, int sb, tri_ref *r, signed char *slot[3])
{
    if (sa * sb > 0)
        return false;
    if (sa == 0 && sb == 0)
        return segment_meets_triangle_2d(a, b, r->t, dropping(drop_of(r)));
    /* The segment meets the plane in one point; it lies in t iff the line ab
     * passes every edge on the same side (zero: through the edge). */
    const mq_triangle *t = r->t;
    int s[3];
    for (int j = 0; j < 3; j++)
        s[j] = cached_orient3d(a, b, t->v[j], t->v[(j + 1) % 3], slot ? slot[j] : NULL);
    return no_mixed_signs(s[0], s[1], s[2]);
}

static bool all_same_strict_side(const int s[3])
{
    return (s[0] > 0 && s[1] > 0 && s[2] > 0) || (s[0] < 0 && s[1] < 0 && s[2] < 0);
}

static bool all_zero(const int s[3])
{
    return s[0] == 0 && s[1] == 0 && s[2] == 0;
}

/* Both triangles in one plane, both non-degenerate; `drop` is one-to-one on that plane. */
static bool coplanar_triangles_meet(const mq_triangle *a, const mq_triangle *b, int drop)
{
    plane2 pl = dropping(drop);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (segments_meet_2d(a->v[i], a->v[(i + 1) % 3], b->v[j], b->v[(j + 1) % 3], pl))
                return true;
    /* No boundaries cross: they meet only if one contains the other. */
    return point_in_triangle_2d(a->v[0], b, pl) || point_in_triangle_2d(b->v[0], a, pl);
}

/* Non-degenerate, non-coplanar triangles, given each one's vertex sides
 * relative to the other's plane: does an edge of one meet the other? */
static bool edges_meet(const mq_triangle *a, const int sa[3], const mq_triangle *b, const int sb[3])
{
    tri_ref ra = {a, UNKNOWN}, rb = {b, UNKNOWN};
    /* cache[i][j] = orient3d(a_i, a_i+1, b_j, b_j+1) = orient3d(b_j, b_j+1, a_i, a_i+1)
     * (an even permutation of the four points). */
    signed char cache[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            cache[i][j] = UNKNOWN;
    for (int i = 0; i < 3; i++) {
        signed char *row[3] = {&cache[i][0], &cache[i][1], &cache[i][2]};
        if (segment_meets_triangle(a->v[i], a->v[(i + 1) % 3], sa[i], sa[(i + 1) % 3], &rb, row))
            return true;
    }
    for (int j = 0; j < 3; j++) {
        signed char *col[3] = {&cache[0][j], &cache[1][j], &cache[2][j]};
        if (segment_meets_triangle(b->v[j], b->v[(j + 1) % 3], sb[j], sb[(j + 1) % 3], &ra, col))
            return true;
    }
    return false;
}

/* A collinear triangle (its hull segment) vs a non-degenerate one. */
static bool hull_meets_triangle(const mq_triangle *flat, const mq_triangle *t, int drop)
{
    const float *p, *q;
    collinear_hull(flat, &p, &q);
    int sp = orient3d(t->v[0], t->v[1], t->v[2], p);
    int sq = orient3d(t->v[0], t->v[1], t->v[2], q);
    tri_ref r = {t, drop};
    return segment_meets_triangle(p, q, sp, sq, &r, NULL);
}

/* Two collinear triangles: coplanar hull segments that meet in every coordinate
 * projection (one of which is one-to-one on their common plane or line). */
static bool hulls_meet(const mq_triangle *a, const mq_triangle *b)
{
    const float *p, *q, *r, *s;
    collinear_hull(a, &p, &q);
    collinear_hull(b, &r, &s);
    if (orient3d(p, q, r, s) != 0)
        return false;
    for (int k = 0; k < 3; k++)
        if (!segments_meet_2d(p, q, r, s, dropping(k)))
            return false;
    return true;
}

/* Coplanar or zero-area input: classify, then dispatch. */
static bool special_cases(const mq_triangle *a, const mq_triangle *b)
{
    int da = projection_axis(a), db = projection_axis(b);
    if (da < 0 && db < 0)
        return hulls_meet(a, b);
    if (da < 0)
        return hull_meets_triangle(a, b, db);
    if (db < 0)
        return hull_meets_triangle(b, a, da);
    return coplanar_triangles_meet(a, b, da);
}

bool mq_overlap_triangle_triangle(const mq_triangle *a, const mq_triangle *b)
{
    if (!a || !b || !mq_triangle_ok(a) || !mq_triangle_ok(b))
        return false;
    /* Each triangle's vertices against the other's plane (all zero when that
     * plane is undefined, i.e. the other triangle has no area). */
    int sa[3], sb[3];
    for (int i = 0; i < 3; i++)
        sa[i] = orient3d(b->v[0], b->v[1], b->v[2], a->v[i]);
    if (all_same_strict_side(sa))
        return false;
    for (int i = 0; i < 3; i++)
        sb[i] = orient3d(a->v[0], a->v[1], a->v[2], b->v[i]);
    if (all_same_strict_side(sb))
        return false;
    /* A non-zero sign on each side proves both triangles have area and do not
     * share a plane; otherwise one is degenerate or they are coplanar. */
    if (all_zero(sa) || all_zero(sb))
        return special_cases(a, b);
    return edges_meet(a, sa, b, sb);
}
