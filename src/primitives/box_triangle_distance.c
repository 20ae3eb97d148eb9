/*
 * Distance between a solid box and a triangle, in double, worked in the box's
 * frame (triangle_distance.h, mq_td_box_*).
 *
 * Apart, a closest pair (x on the box, y on the triangle) is one of:
 *   - y a triangle corner: the corner against the box (a clamp in the frame);
 *   - y inside a triangle edge: the edge against the box (segment_box_t);
 *   - y inside the face: then x - y is normal to the plane and x minimises
 *     the height over the plane on the box, a corner the box reaches lowest
 *     to (the support corner), which must fall inside the triangle. When
 *     several corners tie (an edge or face of the box parallel to the plane),
 *     sliding x keeps the distance until y reaches a triangle edge, a case
 *     above, unless all of them fall inside, the support corner among them.
 *     A box the plane cuts has no such pair: the height's least absolute value
 *     on it is 0, and a linear function's local minimum is global.
 * So three clamps, three segment-box distances and one corner. Meeting: a
 * triangle corner or edge in the box gives 0 among those; else the plane cuts
 * the box in a polygon inside the face, whose corners are where box edges
 * cross it, or, for a box flat in the plane, where its corners lie
 * (box_edge_through, tried only when the plane cuts the box and nothing gave
 * 0). The axes are
 * taken as a rotation (their transpose as its inverse); mq_td_box_from says
 * when they are close enough to orthonormal for that to be the given box to
 * within rounding. Reported points are rebuilt in the common frame, and the
 * distance is theirs.
 */
#include <math.h>

#include "core/minmax.h"
#include "primitives/triangle_distance.h"

static inline double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* x clamped into [lo, hi] (maxsd and minsd: these loops are branch-free). */
static inline double clampd(double x, double lo, double hi)
{
    return mq_min(mq_max(x, lo), hi);
}

bool mq_td_box_from(const double c[3], const double axes[3][3], const double half[3], mq_td_box *o)
{
    for (int i = 0; i < 3; i++) {
        o->c[i] = c[i];
        o->h[i] = half[i];
        for (int k = 0; k < 3; k++)
            o->ax[i][k] = axes[i][k];
    }
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++) {
            double g = dot3(axes[i], axes[j]) - (i == j ? 1.0 : 0.0);
            if (!(fabs(g) <= MQ_TD_BOX_ORTHO))
                return false;
        }
    return true;
}

/* p in the box's frame. */
static inline void to_local(const mq_td_box *b, const double p[3], double u[3])
{
    double d[3] = {p[0] - b->c[0], p[1] - b->c[1], p[2] - b->c[2]};
    for (int i = 0; i < 3; i++)
        u[i] = dot3(b->ax[i], d);
}

/* A point of the frame back in the common frame. */
static inline void to_world(const mq_td_box *b, const double u[3], double p[3])
{
    for (int k = 0; k < 3; k++)
        p[k] = b->c[k] + u[0] * b->ax[0][k] + u[1] * b->ax[1][k] + u[2] * b->ax[2][k];
}

/* Half the slope of the squared distance to the box along a + t d at t. */
static inline double slope(const double h[3], const double a[3], const double d[3], double t)
{
    double s = 0.0;
    for (int k = 0; k < 3; k++) {
        double x = a[k] + t * d[k];
        s += d[k] * (x - clampd(x, -h[k], h[k]));
    }
    return s;
}

/* The parameter in (0, 1) of the point of segment a + t d nearest to the box
 * [-h, h], given that the squared distance falls at 0 and rises at 1 (else an
 * end is nearest). It is convex and piecewise quadratic in t, with breaks
 * where the point crosses a face's plane, and has a continuous slope: the
 * minimum lies in the first piece whose end has a slope >= 0, where the faces
 * the point is outside of are fixed and it is one quadratic's vertex. */
static double segment_box_t(const double h[3], const double a[3], const double d[3])
{
    double br[7];
    int n = 0;
    for (int k = 0; k < 3; k++) {
        if (d[k] == 0.0)
            continue;
        double inv = 1.0 / d[k];
        for (int side = -1; side <= 1; side += 2) {
            double t = (side * h[k] - a[k]) * inv;
            if (t > 0.0 && t < 1.0) {
                int j = n++;
                for (; j > 0 && br[j - 1] > t; j--)
                    br[j] = br[j - 1];
                br[j] = t;
            }
        }
    }
    br[n++] = 1.0;
    double lo = 0.0;
    int i = 0;
    while (i < n - 1 && slope(h, a, d, br[i]) < 0.0)
        lo = br[i++];
    double hi = br[i], m = 0.5 * (lo + hi), num = 0.0, den = 0.0;
    for (int k = 0; k < 3; k++) {
        double x = a[k] + m * d[k];
        if (x > h[k] || x < -h[k]) {
            double f = x > h[k] ? h[k] : -h[k];
            num += d[k] * (a[k] - f);
            den += d[k] * d[k];
        }
    }
    double t = den > 0.0 ? -num / den : lo;
    return clampd(t, lo, hi);
}

/* The best candidate pair: its squared distance in the frame, the box point q
 * (frame), and where the triangle point is: corner `corner`, or the point at
 * s along edge `edge` (corner edge to edge + 1), or (both -1) the foot of q. */
typedef struct cand {
    double d2, q[3], s;
    int corner, edge;
} cand;

static inline void offer_point(const double h[3], const double u[3], int corner, int edge, double s, cand *best)
{
    double q[3], d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        q[k] = clampd(u[k], -h[k], h[k]);
        d2 += (u[k] - q[k]) * (u[k] - q[k]);
    }
    if (d2 < best->d2) {
        *best = (cand){d2, {q[0], q[1], q[2]}, s, corner, edge};
    }
}

/* The triangle in the frame: its first corner moved there, two edges turned
 * there from the common frame's corner differences, the third edge and the
 * other corners from those. A corner far from the box (compared to the
 * triangle's size) is rounded in the frame by more than the triangle is
 * wide: edges taken between corners moved there one by one would be noise,
 * and a plane through them could cut the box though the triangle lies far
 * off. Turned edges keep the triangle's shape; a corner's rounding only
 * shifts the edges and plane through it, by that rounding, which is small
 * against the gap. */
typedef struct local_tri {
    double v[3][3];
    double e[3][3]; /* v[i] to v[i + 1] */
    double n[3];
} local_tri;

static void local_triangle(const mq_td_box *b, const mq_td_tri *t, local_tri *o)
{
    to_local(b, t->v[0], o->v[0]);
    double ab[3] = {t->v[1][0] - t->v[0][0], t->v[1][1] - t->v[0][1], t->v[1][2] - t->v[0][2]};
    double ca[3] = {t->v[0][0] - t->v[2][0], t->v[0][1] - t->v[2][1], t->v[0][2] - t->v[2][2]};
    for (int i = 0; i < 3; i++) {
        o->e[0][i] = dot3(b->ax[i], ab);
        o->e[2][i] = dot3(b->ax[i], ca);
        o->e[1][i] = -(o->e[0][i] + o->e[2][i]);
        o->v[1][i] = o->v[0][i] + o->e[0][i];
        o->v[2][i] = o->v[0][i] - o->e[2][i];
    }
    const double *u = o->e[0], *w = o->e[2];
    o->n[0] = w[1] * u[2] - w[2] * u[1];
    o->n[1] = w[2] * u[0] - w[0] * u[2];
    o->n[2] = w[0] * u[1] - w[1] * u[0];
}

/* Where segment p + s d, s in [0, 1], runs inside the box [-h, h] (slab clip):
 * true and *mid the parameter of its middle point there. */
static bool segment_inside(const double h[3], const double p[3], const double d[3], double *mid)
{
    double lo = 0.0, hi = 1.0;
    for (int k = 0; k < 3; k++) {
        if (d[k] == 0.0) {
            if (p[k] < -h[k] || p[k] > h[k])
                return false;
            continue;
        }
        double t0 = (-h[k] - p[k]) / d[k], t1 = (h[k] - p[k]) / d[k];
        if (t0 > t1) {
            double s = t0;
            t0 = t1;
            t1 = s;
        }
        lo = t0 > lo ? t0 : lo;
        hi = t1 < hi ? t1 : hi;
        if (lo > hi)
            return false;
    }
    *mid = 0.5 * (lo + hi);
    return true;
}

/* The point where box edge [x0, x1] (frame) crosses the triangle's plane at
 * parameter s (found in the frame), in the common frame: there from the
 * heights over the triangle's own plane, as the frame is a rotation only to
 * rounding, which would move the point off the plane; an edge nearly in the
 * plane (heights that differ by less than 2^-20 of the edge's length times
 * |n|, where their ratio is rounding noise) keeps s. */
static void edge_plane_point(const mq_td_box *b, const mq_td_tri *t, const double x0[3], const double x1[3], double s,
                             double p[3])
{
    double w0[3], w1[3];
    to_world(b, x0, w0);
    to_world(b, x1, w1);
    double a[3] = {w0[0] - t->v[0][0], w0[1] - t->v[0][1], w0[2] - t->v[0][2]};
    double c[3] = {w1[0] - t->v[0][0], w1[1] - t->v[0][1], w1[2] - t->v[0][2]};
    double d[3] = {w1[0] - w0[0], w1[1] - w0[1], w1[2] - w0[2]};
    double s0 = dot3(a, t->n), s1 = dot3(c, t->n);
    if (fabs(s0 - s1) > 0x1p-20 * sqrt(dot3(d, d) * t->n2))
        s = clampd(s0 / (s0 - s1), 0.0, 1.0);
    for (int k = 0; k < 3; k++)
        p[k] = w0[k] + s * (w1[k] - w0[k]);
}

/* Whether y (frame) lies inside the triangle as seen along its normal: on the
 * inner side of each edge. */
static bool inside_face(const local_tri *l, const double y[3])
{
    for (int e = 0; e < 3; e++) {
        const double *pa = l->v[e], *ab = l->e[e];
        double ay[3] = {y[0] - pa[0], y[1] - pa[1], y[2] - pa[2]};
        double c[3] = {ab[1] * ay[2] - ab[2] * ay[1], ab[2] * ay[0] - ab[0] * ay[2], ab[0] * ay[1] - ab[1] * ay[0]};
        if (dot3(c, l->n) < 0.0)
            return false;
    }
    return true;
}

/* The box corner lowest toward the triangle's plane (through v[0]), when the
 * box lies wholly on one side and its foot falls inside the triangle:
 * offered as a candidate. True when the plane cuts the box. */
static bool offer_support(const double h[3], const local_tri *l, cand *best)
{
    const double *n = l->n;
    double hc = -dot3(n, l->v[0]), reach = fabs(n[0]) * h[0] + fabs(n[1]) * h[1] + fabs(n[2]) * h[2];
    if (!(fabs(hc) > reach))
        return true; /* the plane cuts the box */
    double side = hc > 0.0 ? 1.0 : -1.0, x[3], n2 = dot3(n, n);
    for (int k = 0; k < 3; k++)
        x[k] = n[k] * side > 0.0 ? -h[k] : h[k];
    double hx = dot3(n, x) - dot3(n, l->v[0]); /* the corner's height times |n| */
    double y[3];
    for (int k = 0; k < 3; k++)
        y[k] = x[k] - hx / n2 * n[k];
    if (!inside_face(l, y))
        return false; /* an edge holds the pair */
    double d2 = hx * hx / n2;
    if (d2 < best->d2)
        *best = (cand){d2, {x[0], x[1], x[2]}, 0.0, -1, -1};
    return false;
}

/* A box edge that crosses the triangle's face (l, in the frame): true and p
 * (common frame) where it crosses the plane inside the triangle. */
static bool box_edge_through(const mq_td_box *b, const mq_td_tri *t, const local_tri *l, double p[3])
{
    if (t->flat)
        return false; /* its edges stand for it */
    const double *n = l->n;
    double h0 = dot3(n, l->v[0]);
    for (int k = 0; k < 8; k++)
        for (int a = 0; a < 3; a++) {
            if ((k >> a) & 1)
                continue;
            double x0[3], x1[3];
            for (int i = 0; i < 3; i++)
                x0[i] = x1[i] = ((k >> i) & 1) ? b->h[i] : -b->h[i];
            x1[a] = b->h[a];
            double s0 = dot3(n, x0) - h0, s1 = dot3(n, x1) - h0;
            if ((s0 > 0.0 && s1 > 0.0) || (s0 < 0.0 && s1 < 0.0) || s0 == s1)
                continue;
            double s = s0 / (s0 - s1), y[3];
            for (int i = 0; i < 3; i++)
                y[i] = x0[i] + s * (x1[i] - x0[i]);
            if (inside_face(l, y)) {
                edge_plane_point(b, t, x0, x1, s, p);
                return true;
            }
        }
    /* A box with a zero half extent lying in the plane has every edge of
     * length 0 or in the plane (s0 == s1, skipped above); the part of the
     * plane it covers then lies inside the face, its corners among it: a
     * corner on the plane (to rounding) inside the triangle. */
    double mag = b->h[0] + b->h[1] + b->h[2];
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            mag = fabs(l->v[c][k]) > mag ? fabs(l->v[c][k]) : mag;
    double eps = 0x1p-40 * sqrt(dot3(n, n)) * mag;
    for (int k = 0; k < 8; k++) {
        double x[3];
        for (int i = 0; i < 3; i++)
            x[i] = ((k >> i) & 1) ? b->h[i] : -b->h[i];
        if (fabs(dot3(n, x) - h0) <= eps && inside_face(l, x)) {
            to_world(b, x, p);
            return true;
        }
    }
    return false;
}

double mq_td_box_triangle(const mq_td_box *b, const mq_td_tri *t, double pb[3], double pt[3])
{
    local_tri l;
    local_triangle(b, t, &l);
    cand best = {INFINITY, {0, 0, 0}, 0.0, 0, -1};
    for (int c = 0; c < 3; c++)
        offer_point(b->h, l.v[c], c, -1, 0.0, &best);
    for (int e = 0; e < 3; e++) {
        const double *p = l.v[e], *d = l.e[e];
        double u[3];
        if (slope(b->h, p, d, 0.0) >= 0.0 || slope(b->h, p, d, 1.0) <= 0.0)
            continue; /* nearest at an end: a corner, offered above */
        double s = segment_box_t(b->h, p, d);
        for (int k = 0; k < 3; k++)
            u[k] = p[k] + s * d[k];
        offer_point(b->h, u, -1, e, s, &best);
    }
    if (!t->flat && offer_support(b->h, &l, &best) && best.d2 > 0.0 && box_edge_through(b, t, &l, pt)) {
        for (int k = 0; k < 3; k++)
            pb[k] = pt[k];
        return 0.0; /* the face crosses the box */
    }
    /* both points rebuilt in the common frame from its own data: the box's
     * through its axes, the triangle's from its corners (a frame whose axes
     * are orthonormal only to rounding would move it off the triangle) */
    to_world(b, best.q, pb);
    if (best.corner >= 0) {
        for (int k = 0; k < 3; k++)
            pt[k] = t->v[best.corner][k];
    } else if (best.edge >= 0) {
        const double *p = t->v[best.edge], *q = t->v[(best.edge + 1) % 3];
        for (int k = 0; k < 3; k++)
            pt[k] = p[k] + best.s * (q[k] - p[k]);
    } else {
        double w[3] = {pb[0] - t->v[0][0], pb[1] - t->v[0][1], pb[2] - t->v[0][2]}, f = dot3(w, t->n) / t->n2;
        for (int k = 0; k < 3; k++)
            pt[k] = pb[k] - f * t->n[k];
    }
    double dd[3] = {pt[0] - pb[0], pt[1] - pb[1], pt[2] - pb[2]};
    return sqrt(dot3(dd, dd));
}

double mq_td_box_triangle_lower_bound(const mq_td_box *b, const mq_td_tri *t)
{
    /* In the frame the solid is A A^T [-h, h] (A: the axes as rows), within
     * MQ_TD_BOX_ORTHO * sum h of the box on each coordinate, and lengths
     * there are within a factor 1 + 3 MQ_TD_BOX_ORTHO of true ones. */
    double hs = b->h[0] + b->h[1] + b->h[2], g2 = 0.0, u[3][3];
    for (int c = 0; c < 3; c++)
        to_local(b, t->v[c], u[c]);
    for (int k = 0; k < 3; k++) {
        double lo = mq_min(mq_min(u[0][k], u[1][k]), u[2][k]), hi = mq_max(mq_max(u[0][k], u[1][k]), u[2][k]);
        double g = mq_max(lo, -hi) - b->h[k];
        g -= 2.0 * MQ_TD_BOX_ORTHO * hs + 0x1p-40 * (fabs(lo) + fabs(hi));
        g = mq_max(g, 0.0);
        g2 += g * g;
    }
    double lb = sqrt(g2) * (1.0 - 4.0 * MQ_TD_BOX_ORTHO);
    if (t->flat || !(t->n2 > 0.0))
        return lb; /* a normal of rounding noise: no plane holds the triangle */
    /* along the normal: the solid reaches sum_i h_i |n.a_i| from its centre */
    double w[3] = {b->c[0] - t->v[0][0], b->c[1] - t->v[0][1], b->c[2] - t->v[0][2]};
    double p = fabs(dot3(t->n, w));
    for (int i = 0; i < 3; i++)
        p -= b->h[i] * fabs(dot3(t->n, b->ax[i]));
    if (p > 0.0) {
        p = p / sqrt(t->n2) * (1.0 - 0x1p-40);
        lb = p > lb ? p : lb;
    }
    return lb;
}

void mq_td_box_triangle_witness(const mq_td_box *b, const mq_td_tri *t, double p[3])
{
    local_tri l;
    double m;
    local_triangle(b, t, &l);
    /* a corner or an edge of the triangle inside the box */
    for (int e = 0; e < 3; e++) {
        if (segment_inside(b->h, l.v[e], l.e[e], &m)) {
            const double *wa = t->v[e], *wq = t->v[(e + 1) % 3];
            for (int k = 0; k < 3; k++)
                p[k] = wa[k] + m * (wq[k] - wa[k]);
            return;
        }
    }
    if (box_edge_through(b, t, &l, p))
        return;
    /* touching to rounding: the triangle's point nearest the box */
    double pb[3];
    mq_td_box_triangle(b, t, pb, p);
}
