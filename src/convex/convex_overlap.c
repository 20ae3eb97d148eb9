/*
 * Overlap of a convex with a triangle, another convex and a point.
 *
 * Two closed convex polytopes P and T meet exactly when an edge of one meets
 * the other: if they meet, every vertex of the polytope P ∩ T is a vertex of
 * one inside the other (and so the end of an edge of it inside the other) or
 * where an edge of one crosses a face of the other. So:
 *   - triangle: its three edges clipped by the convex's planes (a zero-area
 *     triangle is its edges, so this alone decides it), then the convex's
 *     edges against the triangle (crossing point inside it, or, for an edge in
 *     the triangle's plane, an end inside it: an edge in the plane that
 *     crosses the triangle's boundary meets the triangle's edges, found
 *     before);
 *   - convex vs convex: the edges of each clipped by the planes of the other.
 * Everything runs in double on float inputs, in the convex's own frame (the
 * other side is mapped by the placement). Quick rejections first: the boxes,
 * then a face plane with the whole triangle above it.
 */
#include <string.h>

#include "core/minmax.h"
#include "convex/convex_internal.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[0] - b[0];
    o[1] = a[1] - b[1];
    o[2] = a[2] - b[2];
}

static void cross3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

bool mq_convex_contains_local(const mq_convex *c, const double x[3])
{
    for (uint32_t i = 0; i < c->np; i++)
        if (dot3(c->planes[i].n, x) > c->planes[i].d)
            return false;
    return true;
}

/* The segment [a, b] (convex frame) meets the solid: clipped by every plane. */
static bool segment_meets(const mq_convex *c, const double a[3], const double b[3])
{
    double t0 = 0.0, t1 = 1.0;
    for (uint32_t i = 0; i < c->np; i++) {
        const mq_cplane *p = &c->planes[i];
        double s0 = dot3(p->n, a) - p->d, s1 = dot3(p->n, b) - p->d;
        if (s0 > 0.0 && s1 > 0.0)
            return false;
        if (s0 > 0.0) {
            double t = s0 / (s0 - s1);
            t0 = t > t0 ? t : t0;
        } else if (s1 > 0.0) {
            double t = s0 / (s0 - s1);
            t1 = t < t1 ? t : t1;
        }
        if (t0 > t1)
            return false;
    }
    return true;
}

/* x (in the triangle's plane) inside the closed triangle t of normal n. */
static bool in_triangle(const mq_dtri *tri, const double n[3], const double x[3])
{
    const double(*t)[3] = tri->v;
    for (int i = 0; i < 3; i++) {
        double e[3], d[3], q[3];
        sub3(t[(i + 1) % 3], t[i], e);
        sub3(x, t[i], d);
        cross3(e, d, q);
        if (dot3(q, n) < 0.0)
            return false;
    }
    return true;
}

/* The segment [a, b] meets the closed triangle t (normal n != 0), up to the
 * case of a segment in the plane crossing the triangle's boundary without an
 * end inside (see the file comment). */
static bool segment_triangle(const double a[3], const double b[3], const mq_dtri *tri, const double n[3])
{
    const double(*t)[3] = tri->v;
    double da[3], db[3];
    sub3(a, t[0], da);
    sub3(b, t[0], db);
    double sa = dot3(n, da), sb = dot3(n, db);
    if ((sa > 0.0 && sb > 0.0) || (sa < 0.0 && sb < 0.0))
        return false;
    if (sa == 0.0 && sb == 0.0)
        return in_triangle(tri, n, a) || in_triangle(tri, n, b);
    double s = sa / (sa - sb), x[3];
    for (int k = 0; k < 3; k++)
        x[k] = a[k] + s * (b[k] - a[k]);
    return in_triangle(tri, n, x);
}

bool mq_convex_overlap_tri_d(const mq_convex *c, const mq_cpose *p, const mq_dtri *tri)
{
    mq_dtri lt;
    double(*t)[3] = lt.v;
    for (int i = 0; i < 3; i++)
        mq_cpose_to_local(p, tri->v[i], t[i]);
    for (int k = 0; k < 3; k++) {
        double lo = mq_fmin(t[0][k], mq_fmin(t[1][k], t[2][k])), hi = mq_fmax(t[0][k], mq_fmax(t[1][k], t[2][k]));
        if (lo > c->hi[k] || hi < c->lo[k])
            return false;
    }
    for (uint32_t i = 0; i < c->np; i++) {
        const mq_cplane *pl = &c->planes[i];
        if (dot3(pl->n, t[0]) > pl->d && dot3(pl->n, t[1]) > pl->d && dot3(pl->n, t[2]) > pl->d)
            return false;
    }
    for (int e = 0; e < 3; e++)
        if (segment_meets(c, t[e], t[(e + 1) % 3]))
            return true;
    double e1[3], e2[3], n[3];
    sub3(t[1], t[0], e1);
    sub3(t[2], t[0], e2);
    cross3(e1, e2, n);
    if (n[0] == 0.0 && n[1] == 0.0 && n[2] == 0.0)
        return false; /* a segment or point: its edges decided */
    for (uint32_t i = 0; i < c->ne; i++)
        if (segment_triangle(c->v + 3 * c->edges[2 * i], c->v + 3 * c->edges[2 * i + 1], &lt, n))
            return true;
    return false;
}

bool mq_convex_overlap_tri_posed(const mq_convex *c, const mq_cpose *p, const mq_triangle *tri)
{
    mq_dtri t;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            if (!isfinite(tri->v[i][k]))
                return false;
            t.v[i][k] = tri->v[i][k];
        }
    return mq_convex_overlap_tri_d(c, p, &t);
}

/* Some edge of a (placed by pa) meets b (placed by pb). */
static bool edges_meet(const mq_convex *a, const mq_cpose *pa, const mq_convex *b, const mq_cpose *pb)
{
    for (uint32_t i = 0; i < a->ne; i++) {
        double w0[3], w1[3], l0[3], l1[3];
        mq_cpose_to_world(pa, a->v + 3 * a->edges[2 * i], w0);
        mq_cpose_to_world(pa, a->v + 3 * a->edges[2 * i + 1], w1);
        mq_cpose_to_local(pb, w0, l0);
        mq_cpose_to_local(pb, w1, l1);
        if (segment_meets(b, l0, l1))
            return true;
    }
    return false;
}

bool mq_convex_overlap_convex_posed(const mq_convex *a, const mq_cpose *pa, const mq_convex *b, const mq_cpose *pb)
{
    double alo[3], ahi[3], blo[3], bhi[3], ac[3], bc[3], ar, br;
    mq_convex_placed_bounds(a, pa, alo, ahi, ac, &ar);
    mq_convex_placed_bounds(b, pb, blo, bhi, bc, &br);
    for (int k = 0; k < 3; k++)
        if (alo[k] > bhi[k] || blo[k] > ahi[k])
            return false;
    return edges_meet(a, pa, b, pb) || edges_meet(b, pb, a, pa);
}

/* ---- public forms --------------------------------------------------------- */

bool mq_convex_contains_point(const mq_convex *c, const vec3 p)
{
    if (!c || !p || !isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
        return false;
    double x[3] = {p[0], p[1], p[2]};
    return mq_convex_contains_local(c, x);
}

bool mq_overlap_convex_triangle(const mq_convex *c, const mq_triangle *tri)
{
    if (!c || !tri)
        return false;
    mq_cpose id;
    mq_cpose_identity(&id);
    return mq_convex_overlap_tri_posed(c, &id, tri);
}

bool mq_overlap_convex_convex(const mq_convex *a, const mq_convex *b)
{
    if (!a || !b)
        return false;
    mq_cpose id;
    mq_cpose_identity(&id);
    return mq_convex_overlap_convex_posed(a, &id, b, &id);
}
