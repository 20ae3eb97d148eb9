/*
 * Double-precision closest points and separating-axis penetration for the
 * contacts (contact_kernels.h). The closest-point routines follow the
 * region tests of Ericson, Real-Time Collision Detection, 5.1.5 and 5.1.9,
 * in double; the penetration takes the minimum of the support gap over the
 * candidate axes, which for two convex polytopes is the penetration depth
 * (the facet normals of their Minkowski difference are among the face
 * normals of each and the cross products of an edge of each).
 */
#include "core/minmax.h"
#include "primitives/contact_kernels.h"

double mq_ct_point_triangle(const mq_ct_v3 p, const mq_ct_tri *tri, mq_ct_v3 out)
{
    const mq_ct_v3 *t = tri->v;
    mq_ct_v3 ab, ac, ap, bp, cp;
    mq_ct_sub(ab, t[1], t[0]);
    mq_ct_sub(ac, t[2], t[0]);
    mq_ct_sub(ap, p, t[0]);
    double d1 = mq_ct_dot(ab, ap), d2 = mq_ct_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        mq_ct_copy(out, t[0]);
        goto done;
    }
    mq_ct_sub(bp, p, t[1]);
    double d3 = mq_ct_dot(ab, bp), d4 = mq_ct_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        mq_ct_copy(out, t[1]);
        goto done;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 - d3 > 0.0) {
        mq_ct_madd(out, t[0], ab, d1 / (d1 - d3));
        goto done;
    }
    mq_ct_sub(cp, p, t[2]);
    double d5 = mq_ct_dot(ab, cp), d6 = mq_ct_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        mq_ct_copy(out, t[2]);
        goto done;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 - d6 > 0.0) {
        mq_ct_madd(out, t[0], ac, d2 / (d2 - d6));
        goto done;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 && (d4 - d3) + (d5 - d6) > 0.0) {
        mq_ct_v3 bc;
        mq_ct_sub(bc, t[2], t[1]);
        mq_ct_madd(out, t[1], bc, (d4 - d3) / ((d4 - d3) + (d5 - d6)));
        goto done;
    }
    double den = va + vb + vc;
    if (den > 0.0 && va >= 0.0 && vb >= 0.0 && vc >= 0.0) {
        double v = vb / den, w = vc / den;
        for (int k = 0; k < 3; k++)
            out[k] = t[0][k] + ab[k] * v + ac[k] * w;
        goto done;
    }
    /* a degenerate triangle the regions above did not settle: its edges */
    {
        double best = INFINITY;
        for (int e = 0; e < 3; e++) {
            const double *a = t[e], *b = t[(e + 1) % 3];
            mq_ct_v3 d, q;
            mq_ct_sub(d, b, a);
            double l2 = mq_ct_dot(d, d), s = 0.0;
            if (l2 > 0.0) {
                mq_ct_v3 pa;
                mq_ct_sub(pa, p, a);
                s = mq_ct_dot(pa, d) / l2;
                s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
            }
            mq_ct_madd(q, a, d, s);
            mq_ct_v3 r;
            mq_ct_sub(r, p, q);
            double d2e = mq_ct_dot(r, r);
            if (d2e < best) {
                best = d2e;
                mq_ct_copy(out, q);
            }
        }
        return best;
    }
done:;
    mq_ct_v3 r;
    mq_ct_sub(r, p, out);
    return mq_ct_dot(r, r);
}

static double clamp01(double x)
{
    return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

double mq_ct_segment_segment(const mq_ct_v3 p0, const mq_ct_v3 p1, const mq_ct_v3 q0, const mq_ct_v3 q1, mq_ct_v3 out_p,
                             mq_ct_v3 out_q)
{
    mq_ct_v3 d1, d2, r;
    mq_ct_sub(d1, p1, p0);
    mq_ct_sub(d2, q1, q0);
    mq_ct_sub(r, p0, q0);
    double a = mq_ct_dot(d1, d1), e = mq_ct_dot(d2, d2), f = mq_ct_dot(d2, r);
    double s, t;
    if (a <= 0.0 && e <= 0.0) {
        s = t = 0.0;
    } else if (a <= 0.0) {
        s = 0.0;
        t = clamp01(f / e);
    } else {
        double c = mq_ct_dot(d1, r);
        if (e <= 0.0) {
            t = 0.0;
            s = clamp01(-c / a);
        } else {
            double b = mq_ct_dot(d1, d2), den = a * e - b * b;
            s = den > 0.0 ? clamp01((b * f - c * e) / den) : 0.0;
            t = (b * s + f) / e;
            if (t < 0.0) {
                t = 0.0;
                s = clamp01(-c / a);
            } else if (t > 1.0) {
                t = 1.0;
                s = clamp01((b - c) / a);
            }
        }
    }
    mq_ct_madd(out_p, p0, d1, s);
    mq_ct_madd(out_q, q0, d2, t);
    mq_ct_v3 w;
    mq_ct_sub(w, out_p, out_q);
    return mq_ct_dot(w, w);
}

double mq_ct_segment_triangle(const mq_ct_v3 a, const mq_ct_v3 b, const mq_ct_tri *tri, mq_ct_v3 out_seg,
                              mq_ct_v3 out_tri)
{
    const mq_ct_v3 *t = tri->v;
    /* the segment crossing the triangle's face: distance 0 there */
    mq_ct_v3 e1, e2, n, d;
    mq_ct_sub(e1, t[1], t[0]);
    mq_ct_sub(e2, t[2], t[0]);
    mq_ct_cross(n, e1, e2);
    mq_ct_sub(d, b, a);
    mq_ct_v3 ra, rb;
    mq_ct_sub(ra, a, t[0]);
    mq_ct_sub(rb, b, t[0]);
    double sa = mq_ct_dot(n, ra), sb = mq_ct_dot(n, rb);
    if (mq_ct_dot(n, n) > 0.0 && ((sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0))) {
        /* the line through a, b passes inside the triangle when it sees the
         * three edges turning the same way (the signed volumes agree) */
        double w[3];
        bool pos = true, neg = true;
        for (int e = 0; e < 3; e++) {
            mq_ct_v3 pe, qe, x;
            mq_ct_sub(pe, t[e], a);
            mq_ct_sub(qe, t[(e + 1) % 3], a);
            mq_ct_cross(x, pe, qe);
            w[e] = mq_ct_dot(d, x);
            pos = pos && w[e] >= 0.0;
            neg = neg && w[e] <= 0.0;
        }
        if (pos || neg) {
            double s = sa / (sa - sb);
            mq_ct_madd(out_seg, a, d, s);
            mq_ct_copy(out_tri, out_seg);
            return 0.0;
        }
        /* the crossing lies outside: the edges and ends decide */
    }
    mq_ct_v3 ps, pt;
    double best = mq_ct_point_triangle(a, tri, pt);
    mq_ct_copy(out_seg, a);
    mq_ct_copy(out_tri, pt);
    double d2 = mq_ct_point_triangle(b, tri, pt);
    if (d2 < best) {
        best = d2;
        mq_ct_copy(out_seg, b);
        mq_ct_copy(out_tri, pt);
    }
    for (int e = 0; e < 3; e++) {
        d2 = mq_ct_segment_segment(a, b, t[e], t[(e + 1) % 3], ps, pt);
        if (d2 < best) {
            best = d2;
            mq_ct_copy(out_seg, ps);
            mq_ct_copy(out_tri, pt);
        }
    }
    return best;
}

/* Support value max over the core of x.n (negated min for -n). */
static double core_min(const mq_ct_core *c, const mq_ct_v3 n)
{
    switch (c->kind) {
    case 0:
        return mq_ct_dot(c->p[0], n);
    case 1:
        return mq_fmin(mq_ct_dot(c->p[0], n), mq_ct_dot(c->p[1], n));
    default: {
        double r = fabs(mq_ct_dot(c->axis[0], n)) + fabs(mq_ct_dot(c->axis[1], n)) + fabs(mq_ct_dot(c->axis[2], n));
        return mq_ct_dot(c->p[0], n) - r;
    }
    }
}

static double tri_max(const mq_ct_tri *tri, const mq_ct_v3 n)
{
    const mq_ct_v3 *t = tri->v;
    return mq_fmax(mq_fmax(mq_ct_dot(t[0], n), mq_ct_dot(t[1], n)), mq_ct_dot(t[2], n));
}

/*
 * sin^2 of the angle below which two edge directions count as parallel: their
 * cross product is then skipped as an axis. Its direction would carry a
 * relative error of about 2^-53 / sin, and the facet it stands for is at most
 * sin times the edges' length wide, so both effects stay below ~1e-8 of the
 * scale.
 */
#define MQ_CT_PARALLEL_SIN2 0x1p-54

typedef struct axis_min {
    double depth;
    mq_ct_v3 n;
    bool any;
} axis_min;

/* Tries axis v (any length) in both signs. */
static void try_axis(axis_min *m, const mq_ct_core *c, const mq_ct_tri *tri, const mq_ct_v3 v, double len2_a,
                     double len2_b)
{
    double l2 = mq_ct_dot(v, v);
    if (!(l2 > 0.0) || !(l2 > MQ_CT_PARALLEL_SIN2 * len2_a * len2_b) || !isfinite(l2))
        return;
    double inv = 1.0 / sqrt(l2);
    mq_ct_v3 n = {v[0] * inv, v[1] * inv, v[2] * inv};
    for (int sgn = 0; sgn < 2; sgn++) {
        /* the core moves along n: it must clear the triangle's farthest point along n */
        double g = tri_max(tri, n) - core_min(c, n);
        if (!m->any || g < m->depth) {
            m->any = true;
            m->depth = g;
            mq_ct_copy(m->n, n);
        }
        n[0] = -n[0];
        n[1] = -n[1];
        n[2] = -n[2];
    }
}

bool mq_ct_core_penetration(const mq_ct_core *c, const mq_ct_tri *tri, double *depth, mq_ct_v3 n)
{
    const mq_ct_v3 *t = tri->v;
    axis_min m = {0.0, {0, 0, 0}, false};
    mq_ct_v3 te[3];
    for (int e = 0; e < 3; e++)
        mq_ct_sub(te[e], t[(e + 1) % 3], t[e]);
    /* the triangle's face normal */
    mq_ct_v3 fn;
    mq_ct_cross(fn, te[0], te[1]);
    try_axis(&m, c, tri, fn, mq_ct_dot(te[0], te[0]), mq_ct_dot(te[1], te[1]));
    /* the core's edges: none for a point, the segment, the box's three axes */
    mq_ct_v3 ce[3];
    int nce = 0;
    if (c->kind == 1) {
        mq_ct_sub(ce[0], c->p[1], c->p[0]);
        nce = 1;
    } else if (c->kind == 2) {
        for (int i = 0; i < 3; i++)
            mq_ct_copy(ce[i], c->edge[i]);
        nce = 3;
        /* the box's face normals */
        for (int i = 0; i < 3; i++) {
            mq_ct_v3 v;
            mq_ct_cross(v, c->edge[(i + 1) % 3], c->edge[(i + 2) % 3]);
            try_axis(&m, c, tri, v, 1.0, 1.0);
        }
    }
    for (int i = 0; i < nce; i++) {
        double li = mq_ct_dot(ce[i], ce[i]);
        for (int e = 0; e < 3; e++) {
            mq_ct_v3 v;
            mq_ct_cross(v, ce[i], te[e]);
            try_axis(&m, c, tri, v, li, mq_ct_dot(te[e], te[e]));
        }
    }
    if (!m.any) {
        /* a point or a segment against a degenerate triangle, all of their
         * edges parallel to one direction u (or none at all): every n
         * perpendicular to u gives the same gap; take the one across u's
         * smallest component, (0, 0, 1) when there is no edge */
        mq_ct_v3 u = {0.0, 0.0, 0.0};
        double best = 0.0;
        for (int e = 0; e < 3 + nce; e++) {
            const double *v = e < 3 ? te[e] : ce[e - 3];
            double l2 = mq_ct_dot(v, v);
            if (l2 > best) {
                best = l2;
                mq_ct_copy(u, v);
            }
        }
        mq_ct_v3 v = {0.0, 0.0, 1.0};
        if (best > 0.0) {
            int k = fabs(u[0]) <= fabs(u[1]) && fabs(u[0]) <= fabs(u[2]) ? 0 : fabs(u[1]) <= fabs(u[2]) ? 1 : 2;
            mq_ct_v3 ek = {0.0, 0.0, 0.0};
            ek[k] = 1.0;
            mq_ct_cross(v, u, ek);
        }
        double inv = 1.0 / sqrt(mq_ct_dot(v, v));
        mq_ct_v3 w = {v[0] * inv, v[1] * inv, v[2] * inv};
        m.any = isfinite(inv);
        m.depth = tri_max(tri, w) - core_min(c, w);
        mq_ct_copy(m.n, w);
    }
    *depth = m.depth;
    mq_ct_copy(n, m.n);
    return m.any;
}

void mq_ct_core_support_min(const mq_ct_core *c, const mq_ct_v3 n, mq_ct_v3 out)
{
    switch (c->kind) {
    case 0:
        mq_ct_copy(out, c->p[0]);
        return;
    case 1:
        mq_ct_copy(out, mq_ct_dot(c->p[1], n) < mq_ct_dot(c->p[0], n) ? c->p[1] : c->p[0]);
        return;
    default:
        mq_ct_copy(out, c->p[0]);
        for (int i = 0; i < 3; i++) {
            double s = mq_ct_dot(c->axis[i], n);
            double k = s > 0.0 ? -1.0 : s < 0.0 ? 1.0 : 0.0;
            mq_ct_madd(out, out, c->axis[i], k);
        }
        return;
    }
}

void mq_ct_triangle_support_max(const mq_ct_tri *tri, const mq_ct_v3 n, mq_ct_v3 out)
{
    const mq_ct_v3 *t = tri->v;
    int best = 0;
    double v = mq_ct_dot(t[0], n);
    for (int i = 1; i < 3; i++) {
        double w = mq_ct_dot(t[i], n);
        if (w > v) {
            v = w;
            best = i;
        }
    }
    mq_ct_copy(out, t[best]);
}
