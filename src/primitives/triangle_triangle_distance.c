/*
 * Triangle-triangle distance in double (triangle_distance.h), and its public
 * form mq_closest_points_triangle_triangle (primitives.h).
 *
 * Two closed triangles that do not intersect have a closest pair with one
 * point at a vertex of one of them, or one on an edge of each: the smallest
 * of the 6 vertex-triangle and 9 edge-edge distances is their distance
 * (Ericson, Real-Time Collision Detection, 5.1.5 and 5.1.9, in double). When
 * they intersect it is 0; that decision is the exact float predicate
 * mq_overlap_triangle_triangle on the float copies, so a pair that touches in
 * float is at 0, as mq_obbtree_collide would report it. A common point is
 * then found where an edge of one crosses the other (or, for coplanar
 * triangles, at a vertex inside the other or an edge crossing).
 */
#include <math.h>

#include <meshquery/primitives.h>

#include "primitives/triangle_distance.h"

static inline void sub3(double o[3], const double a[3], const double b[3])
{
    o[0] = a[0] - b[0];
    o[1] = a[1] - b[1];
    o[2] = a[2] - b[2];
}
static inline double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void cross3(double o[3], const double a[3], const double b[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}
static inline void copy3(double o[3], const double a[3])
{
    o[0] = a[0];
    o[1] = a[1];
    o[2] = a[2];
}
static inline void lerp3(double o[3], const double a[3], const double d[3], double s)
{
    o[0] = a[0] + d[0] * s;
    o[1] = a[1] + d[1] * s;
    o[2] = a[2] + d[2] * s;
}
static inline double dist2(const double a[3], const double b[3])
{
    double d[3];
    sub3(d, a, b);
    return dot3(d, d);
}
static inline double clamp01(double x)
{
    return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

double mq_td_point_segment2(const double p[3], const double a[3], const double b[3], double q[3])
{
    double ab[3], ap[3];
    sub3(ab, b, a);
    sub3(ap, p, a);
    double l2 = dot3(ab, ab);
    double t = l2 > 0.0 ? clamp01(dot3(ap, ab) / l2) : 0.0;
    if (t == 0.0)
        copy3(q, a);
    else if (t == 1.0)
        copy3(q, b);
    else
        lerp3(q, a, ab, t);
    return dist2(p, q);
}

/* The triangle's edges stand for it when it is this flat (sin^2 of the angle at v0;
 * closest_internal.h, MQ_CL_FLAT_SIN2_D, explains the value). */
#define TD_FLAT_SIN2 0x1p-52

static double flat_point_triangle2(const double p[3], const mq_td_tri *t, double q[3])
{
    double best = INFINITY, c[3];
    for (int e = 0; e < 3; e++) {
        double d2 = mq_td_point_segment2(p, t->v[e], t->v[(e + 1) % 3], c);
        if (d2 < best) {
            best = d2;
            copy3(q, c);
        }
    }
    return best;
}

double mq_td_point_triangle2(const double p[3], const mq_td_tri *t, double q[3])
{
    const double *a = t->v[0], *b = t->v[1], *c = t->v[2];
    double ab[3], ac[3], ap[3], n[3];
    sub3(ab, b, a);
    sub3(ac, c, a);
    cross3(n, ab, ac);
    if (!(dot3(n, n) > TD_FLAT_SIN2 * dot3(ab, ab) * dot3(ac, ac)))
        return flat_point_triangle2(p, t, q);
    sub3(ap, p, a);
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        copy3(q, a);
        return dist2(p, q);
    }
    double bp[3];
    sub3(bp, p, b);
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        copy3(q, b);
        return dist2(p, q);
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        lerp3(q, a, ab, d1 / (d1 - d3));
        return dist2(p, q);
    }
    double cp[3];
    sub3(cp, p, c);
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        copy3(q, c);
        return dist2(p, q);
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        lerp3(q, a, ac, d2 / (d2 - d6));
        return dist2(p, q);
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double bc[3];
        sub3(bc, c, b);
        lerp3(q, b, bc, (d4 - d3) / ((d4 - d3) + (d5 - d6)));
        return dist2(p, q);
    }
    /* Interior. Inconsistent signs (cancellation on a near-sliver) would put the
     * point outside the triangle: its edges then stand for it. */
    double den = va + vb + vc;
    if (!(den > 0.0) || va < 0.0 || vb < 0.0 || vc < 0.0)
        return flat_point_triangle2(p, t, q);
    double v = vb / den, w = vc / den;
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + ab[k] * v + ac[k] * w;
    return dist2(p, q);
}

double mq_td_segment_segment2(const double p0[3], const double p1[3], const double q0[3], const double q1[3],
                              double a[3], double b[3])
{
    double d1[3], d2[3], r[3];
    sub3(d1, p1, p0);
    sub3(d2, q1, q0);
    sub3(r, p0, q0);
    double aa = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r);
    double s, t;
    if (aa <= 0.0 && e <= 0.0) {
        s = t = 0.0;
    } else if (aa <= 0.0) {
        s = 0.0;
        t = clamp01(f / e);
    } else {
        double c = dot3(d1, r);
        if (e <= 0.0) {
            t = 0.0;
            s = clamp01(-c / aa);
        } else {
            double bb = dot3(d1, d2);
            double den = aa * e - bb * bb;
            s = den > 0.0 ? clamp01((bb * f - c * e) / den) : 0.0;
            t = (bb * s + f) / e;
            if (t < 0.0) {
                t = 0.0;
                s = clamp01(-c / aa);
            } else if (t > 1.0) {
                t = 1.0;
                s = clamp01((bb - c) / aa);
            }
        }
    }
    if (s == 0.0)
        copy3(a, p0);
    else if (s == 1.0)
        copy3(a, p1);
    else
        lerp3(a, p0, d1, s);
    if (t == 0.0)
        copy3(b, q0);
    else if (t == 1.0)
        copy3(b, q1);
    else
        lerp3(b, q0, d2, t);
    return dist2(a, b);
}

bool mq_td_segment_crossing(const double p[3], const double q[3], const mq_td_tri *t, double x[3])
{
    double ab[3], ac[3], n[3], pa[3], qa[3];
    sub3(ab, t->v[1], t->v[0]);
    sub3(ac, t->v[2], t->v[0]);
    cross3(n, ab, ac);
    sub3(pa, p, t->v[0]);
    sub3(qa, q, t->v[0]);
    double sp = dot3(pa, n), sq = dot3(qa, n);
    if ((sp > 0.0 && sq > 0.0) || (sp < 0.0 && sq < 0.0) || sp == sq || !isfinite(sp - sq))
        return false;
    double pq[3];
    sub3(pq, q, p);
    lerp3(x, p, pq, sp / (sp - sq));
    return true;
}

void mq_td_tri_prepare(mq_td_tri *t)
{
    double ab[3], ac[3];
    sub3(ab, t->v[1], t->v[0]);
    sub3(ac, t->v[2], t->v[0]);
    cross3(t->n, ab, ac);
    t->n2 = dot3(t->n, t->n);
    t->flat = !(t->n2 > TD_FLAT_SIN2 * dot3(ab, ab) * dot3(ac, ac));
}

double mq_td_triangle_lower_bound(const mq_td_tri *a, const mq_td_tri *b)
{
    double lb = 0.0;
    for (int side = 0; side < 2; side++) {
        const mq_td_tri *s = side ? b : a, *t = side ? a : b;
        if (s->flat)
            continue;
        double lo = INFINITY, hi = -INFINITY;
        for (int v = 0; v < 3; v++) {
            double d[3];
            sub3(d, t->v[v], s->v[0]);
            double h = dot3(d, s->n);
            lo = h < lo ? h : lo;
            hi = h > hi ? h : hi;
        }
        double g = lo > 0.0 ? lo : (hi < 0.0 ? -hi : 0.0);
        if (g * g > lb * lb * s->n2)
            lb = g / sqrt(s->n2);
    }
    return lb;
}

/* Vertex p against the face of a prepared, non-flat triangle: true when p
 * projects inside it, with the squared distance and the foot. Outside, the
 * closest point is on an edge, which the edge-edge distances cover. */
static bool vertex_face(const double p[3], const mq_td_tri *t, double *d2, double q[3])
{
    for (int e = 0; e < 3; e++) {
        double ed[3], pd[3], c[3];
        sub3(ed, t->v[(e + 1) % 3], t->v[e]);
        sub3(pd, p, t->v[e]);
        cross3(c, ed, pd);
        if (dot3(c, t->n) < 0.0)
            return false;
    }
    double d[3];
    sub3(d, p, t->v[0]);
    double h = dot3(d, t->n);
    lerp3(q, p, t->n, -h / t->n2);
    *d2 = h * h / t->n2;
    return true;
}

double mq_td_triangle_features(const mq_td_tri *a, const mq_td_tri *b, double pa[3], double pb[3])
{
    double best = INFINITY, x[3], y[3], d2;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            d2 = mq_td_segment_segment2(a->v[i], a->v[(i + 1) % 3], b->v[j], b->v[(j + 1) % 3], x, y);
            if (d2 < best) {
                best = d2;
                copy3(pa, x);
                copy3(pb, y);
            }
        }
    for (int i = 0; i < 3; i++) {
        if (!b->flat && vertex_face(a->v[i], b, &d2, y) && d2 < best) {
            best = d2;
            copy3(pa, a->v[i]);
            copy3(pb, y);
        }
        if (!a->flat && vertex_face(b->v[i], a, &d2, x) && d2 < best) {
            best = d2;
            copy3(pa, x);
            copy3(pb, b->v[i]);
        }
    }
    return sqrt(best);
}

void mq_td_triangle_witness(const mq_td_tri *a, const mq_td_tri *b, double pa[3], double pb[3])
{
    double best = mq_td_triangle_features(a, b, pa, pb);
    best *= best;
    double x[3], y[3];
    for (int side = 0; side < 2; side++) {
        const mq_td_tri *s = side ? b : a, *t = side ? a : b;
        for (int e = 0; e < 3; e++) {
            if (!mq_td_segment_crossing(s->v[e], s->v[(e + 1) % 3], t, x))
                continue;
            double d2 = mq_td_point_triangle2(x, t, y);
            if (d2 < best) {
                best = d2;
                copy3(side ? pb : pa, x);
                copy3(side ? pa : pb, y);
            }
        }
    }
}

double mq_td_triangle_triangle(const mq_td_tri *a, const mq_triangle *af, const mq_td_tri *b, const mq_triangle *bf,
                               double pa[3], double pb[3])
{
    if (mq_overlap_triangle_triangle(af, bf)) {
        mq_td_triangle_witness(a, b, pa, pb);
        return 0.0;
    }
    return mq_td_triangle_features(a, b, pa, pb);
}

static bool tri_finite(const mq_triangle *t)
{
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++)
            if (!isfinite(t->v[v][k]))
                return false;
    return true;
}

double mq_closest_points_triangle_triangle(const mq_triangle *a, const mq_triangle *b, double out_a[3], double out_b[3])
{
    if (!a || !b || !tri_finite(a) || !tri_finite(b))
        return NAN;
    mq_td_tri da, db;
    double pa[3], pb[3];
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++) {
            da.v[v][k] = a->v[v][k];
            db.v[v][k] = b->v[v][k];
        }
    mq_td_tri_prepare(&da);
    mq_td_tri_prepare(&db);
    double d = mq_td_triangle_triangle(&da, a, &db, b, pa, pb);
    if (out_a)
        copy3(out_a, pa);
    if (out_b)
        copy3(out_b, pb);
    return d;
}
