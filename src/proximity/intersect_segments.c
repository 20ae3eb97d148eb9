/*
 * Intersection segments of two meshes (contacts.h: mq_obbtree_intersections,
 * mq_bvh_intersections): the intersecting triangle pairs come from the
 * hierarchies' own mesh-vs-mesh walks, each pair's common part is computed in
 * double from a's corners and b's corners mapped by mq_rigid_apply (the
 * float corners the pair was decided on).
 *
 * Segment of two non-coplanar triangles: each triangle cut by the other's
 * plane is a segment (or a point) on the line where the planes meet; the
 * answer is the overlap of the two along that line (Moeller's interval
 * method, with the cut points taken from the edges that cross the plane).
 */
#include <math.h>

#include <meshquery/contacts.h>
#include <meshquery/proximity.h>

#include "core/minmax.h"
#include "primitives/contact_kernels.h"

/* A plane is taken as met by a corner within this fraction of |n| * scale:
 * the double rounding of the signed distances of float corners. */
#define MQ_IS_PLANE_EPS 0x1p-44

static void tri_d(const mq_triangle *t, mq_ct_tri *out)
{
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            out->v[i][k] = (double)t->v[i][k];
}

static double tri_scale(const mq_ct_tri *a, const mq_ct_tri *b)
{
    double s = 0.0;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            s = mq_fmax(s, mq_fmax(fabs(a->v[i][k]), fabs(b->v[i][k])));
    return s;
}

static void normal(const mq_ct_tri *t, mq_ct_v3 n)
{
    mq_ct_v3 e1, e2;
    mq_ct_sub(e1, t->v[1], t->v[0]);
    mq_ct_sub(e2, t->v[2], t->v[0]);
    mq_ct_cross(n, e1, e2);
}

/*
 * The part of triangle t on the plane {x : n.x = c}, as a segment p0-p1 (a
 * point when p0 == p1); d[i] are the corners' signed distances (times |n|),
 * with |d| <= eps counting as on the plane. False when t misses the plane.
 */
static bool cut(const mq_ct_tri *t, const double d[3], double eps, mq_ct_v3 p0, mq_ct_v3 p1)
{
    mq_ct_v3 pts[6];
    int n = 0;
    for (int i = 0; i < 3; i++) {
        if (fabs(d[i]) <= eps)
            mq_ct_copy(pts[n++], t->v[i]);
    }
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3;
        if ((d[i] > eps && d[j] < -eps) || (d[i] < -eps && d[j] > eps)) {
            double s = d[i] / (d[i] - d[j]);
            mq_ct_v3 e;
            mq_ct_sub(e, t->v[j], t->v[i]);
            mq_ct_madd(pts[n++], t->v[i], e, s);
        }
    }
    if (n == 0)
        return false;
    mq_ct_copy(p0, pts[0]);
    mq_ct_copy(p1, pts[0]);
    /* the two points farthest apart */
    double best = -1.0;
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++) {
            mq_ct_v3 w;
            mq_ct_sub(w, pts[i], pts[j]);
            double l = mq_ct_dot(w, w);
            if (l > best) {
                best = l;
                mq_ct_copy(p0, pts[i]);
                mq_ct_copy(p1, pts[j]);
            }
        }
    return true;
}

/* A point common to two coplanar triangles: the mean of the corners of a
 * clipped by b's three edge half-planes (in the common plane with normal n);
 * false when the clip comes out empty. */
static bool coplanar_point(const mq_ct_tri *a, const mq_ct_tri *b, const mq_ct_v3 n, mq_ct_v3 out)
{
    mq_ct_v3 poly[9], next[9];
    int m = 3;
    for (int i = 0; i < 3; i++)
        mq_ct_copy(poly[i], a->v[i]);
    for (int e = 0; e < 3 && m > 0; e++) {
        mq_ct_v3 ed, in;
        mq_ct_sub(ed, b->v[(e + 1) % 3], b->v[e]);
        mq_ct_cross(in, n, ed); /* points into b for a counter-clockwise b about n */
        mq_ct_v3 w;
        mq_ct_sub(w, b->v[(e + 2) % 3], b->v[e]);
        if (mq_ct_dot(in, w) < 0.0)
            for (int k = 0; k < 3; k++)
                in[k] = -in[k];
        int k2 = 0;
        for (int i = 0; i < m; i++) {
            const double *p = poly[i], *q = poly[(i + 1) % m];
            mq_ct_v3 pp, qq;
            mq_ct_sub(pp, p, b->v[e]);
            mq_ct_sub(qq, q, b->v[e]);
            double sp = mq_ct_dot(in, pp), sq = mq_ct_dot(in, qq);
            if (sp >= 0.0)
                mq_ct_copy(next[k2++], p);
            if ((sp >= 0.0) != (sq >= 0.0) && k2 < 9) {
                mq_ct_v3 d;
                mq_ct_sub(d, q, p);
                mq_ct_madd(next[k2++], p, d, sp / (sp - sq));
            }
        }
        m = k2;
        for (int i = 0; i < m; i++)
            mq_ct_copy(poly[i], next[i]);
    }
    if (m == 0)
        return false;
    out[0] = out[1] = out[2] = 0.0;
    for (int i = 0; i < m; i++)
        for (int k = 0; k < 3; k++)
            out[k] += poly[i][k] / m;
    return true;
}

bool mq_intersect_triangles(const mq_triangle *ta, const mq_triangle *tb, mq_intersection_segment *out)
{
    mq_ct_tri a, b;
    tri_d(ta, &a);
    tri_d(tb, &b);
    double scale = tri_scale(&a, &b);
    mq_ct_v3 na, nb;
    normal(&a, na);
    normal(&b, nb);
    double la = sqrt(mq_ct_dot(na, na)), lb = sqrt(mq_ct_dot(nb, nb));
    double db[3], da[3];
    for (int i = 0; i < 3; i++) {
        mq_ct_v3 w;
        mq_ct_sub(w, b.v[i], a.v[0]);
        db[i] = mq_ct_dot(na, w);
        mq_ct_sub(w, a.v[i], b.v[0]);
        da[i] = mq_ct_dot(nb, w);
    }
    double ea = MQ_IS_PLANE_EPS * la * scale, eb = MQ_IS_PLANE_EPS * lb * scale;
    mq_ct_v3 dir;
    mq_ct_cross(dir, na, nb);
    bool flat = !(la > 0.0) || !(lb > 0.0) || mq_ct_dot(dir, dir) <= 0x1p-80 * la * la * lb * lb;
    if (!flat) {
        mq_ct_v3 a0, a1, b0, b1;
        if (!cut(&b, db, ea, b0, b1) || !cut(&a, da, eb, a0, a1))
            return false;
        double sa0 = mq_ct_dot(dir, a0), sa1 = mq_ct_dot(dir, a1), sb0 = mq_ct_dot(dir, b0), sb1 = mq_ct_dot(dir, b1);
        if (sa0 > sa1) {
            mq_ct_v3 t;
            mq_ct_copy(t, a0);
            mq_ct_copy(a0, a1);
            mq_ct_copy(a1, t);
            double s = sa0;
            sa0 = sa1;
            sa1 = s;
        }
        if (sb0 > sb1) {
            mq_ct_v3 t;
            mq_ct_copy(t, b0);
            mq_ct_copy(b0, b1);
            mq_ct_copy(b1, t);
            double s = sb0;
            sb0 = sb1;
            sb1 = s;
        }
        if (sa1 < sb0 || sb1 < sa0)
            return false;
        /* the later start and the earlier end, each taken from the segment that bounds it */
        mq_ct_copy(out->p0, sa0 >= sb0 ? a0 : b0);
        mq_ct_copy(out->p1, sa1 <= sb1 ? a1 : b1);
        out->coplanar = false;
        return true;
    }
    /* coplanar, or a zero-area triangle: an area (or a point), not a curve */
    mq_ct_v3 p = {0.0, 0.0, 0.0};
    bool on_plane = la > 0.0 && fabs(db[0]) <= ea && fabs(db[1]) <= ea && fabs(db[2]) <= ea;
    if (on_plane && lb > 0.0 && coplanar_point(&a, &b, na, p)) {
        out->coplanar = true;
        mq_ct_copy(out->p0, p);
        mq_ct_copy(out->p1, p);
        return true;
    }
    /* degenerate or just touching: the closest points of the edges, where they meet */
    double best = INFINITY;
    mq_ct_v3 pa, pb;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double d2 = mq_ct_segment_segment(a.v[i], a.v[(i + 1) % 3], b.v[j], b.v[(j + 1) % 3], pa, pb);
            if (d2 < best) {
                best = d2;
                for (int k = 0; k < 3; k++)
                    p[k] = 0.5 * pa[k] + 0.5 * pb[k];
            }
        }
    for (int i = 0; i < 3; i++) {
        double d2 = mq_ct_point_triangle(a.v[i], &b, pb);
        if (d2 < best) {
            best = d2;
            for (int k = 0; k < 3; k++)
                p[k] = 0.5 * a.v[i][k] + 0.5 * pb[k];
        }
        d2 = mq_ct_point_triangle(b.v[i], &a, pa);
        if (d2 < best) {
            best = d2;
            for (int k = 0; k < 3; k++)
                p[k] = 0.5 * b.v[i][k] + 0.5 * pa[k];
        }
    }
    if (!(best <= (MQ_IS_PLANE_EPS * scale) * (MQ_IS_PLANE_EPS * scale) * 1e6))
        return false;
    out->coplanar = true;
    mq_ct_copy(out->p0, p);
    mq_ct_copy(out->p1, p);
    return true;
}

/* ---- the mesh walks ---- */

typedef struct isect_ctx {
    const mq_mesh *ma, *mb;
    const mq_rigid *b_to_a;
    mq_segment_fn fn;
    void *user;
    size_t calls;
    bool stopped;
} isect_ctx;

static bool on_pair(uint32_t ta, uint32_t tb, void *user)
{
    isect_ctx *c = user;
    mq_triangle a, b, bl;
    mq_mesh_get_triangle(c->ma, ta, &a);
    mq_mesh_get_triangle(c->mb, tb, &bl);
    for (int i = 0; i < 3; i++)
        mq_rigid_apply(c->b_to_a, bl.v[i], b.v[i]);
    mq_intersection_segment s;
    if (!mq_intersect_triangles(&a, &b, &s)) {
        /* decided as touching on the float corners, apart by the double
         * rounding here: the pair is reported at its closest point */
        double pa[3], pb[3];
        mq_closest_points_triangle_triangle(&a, &b, pa, pb);
        for (int k = 0; k < 3; k++)
            s.p0[k] = s.p1[k] = 0.5 * pa[k] + 0.5 * pb[k];
        s.coplanar = true;
    }
    s.triangle_a = ta;
    s.triangle_b = tb;
    c->calls++;
    if (!c->fn(&s, c->user)) {
        c->stopped = true;
        return false;
    }
    return true;
}

static bool on_clearance(const mq_clearance_pair *p, void *user)
{
    return on_pair(p->triangle_a, p->triangle_b, user);
}

size_t mq_obbtree_intersections(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, mq_segment_fn fn,
                                void *user)
{
    if (!a || !b || !b_to_a || !fn)
        return 0;
    isect_ctx c = {mq_obbtree_mesh(a), mq_obbtree_mesh(b), b_to_a, fn, user, 0, false};
    mq_obbtree_collide(a, b, b_to_a, on_pair, &c);
    return c.calls;
}

size_t mq_bvh_intersections(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, mq_segment_fn fn, void *user)
{
    if (!a || !b || !b_to_a || !fn)
        return 0;
    isect_ctx c = {mq_bvh_mesh(a), mq_bvh_mesh(b), b_to_a, fn, user, 0, false};
    mq_bvh_clearance(a, b, b_to_a, 0.0, on_clearance, &c);
    return c.calls;
}
