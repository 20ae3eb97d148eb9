/*
 * Double-precision oracles for the differential tests. See oracle.h for the
 * methods and why they were chosen (independence from the implementation).
 */
#include "oracle.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Shapes                                                                    */
/* ------------------------------------------------------------------------- */

oracle_box oracle_box_from_aabb(const mq_aabb *b)
{
    oracle_box o;
    oracle_v3 lo = oracle_v3_f(b->min), hi = oracle_v3_f(b->max);
    o.c = oracle_mul(oracle_add(lo, hi), 0.5);
    o.h[0] = 0.5 * (hi.x - lo.x);
    o.h[1] = 0.5 * (hi.y - lo.y);
    o.h[2] = 0.5 * (hi.z - lo.z);
    o.ax[0] = oracle_v3_make(1, 0, 0);
    o.ax[1] = oracle_v3_make(0, 1, 0);
    o.ax[2] = oracle_v3_make(0, 0, 1);
    return o;
}

oracle_box oracle_box_from_obb(const mq_obb *b)
{
    oracle_box o;
    o.c = oracle_v3_f(b->center);
    for (int i = 0; i < 3; i++) {
        o.h[i] = b->half[i];
        o.ax[i] = oracle_v3_f(b->axes[i]);
    }
    return o;
}

oracle_tri oracle_tri_from_mq(const mq_triangle *t)
{
    oracle_tri o;
    for (int i = 0; i < 3; i++)
        o.v[i] = oracle_v3_f(t->v[i]);
    return o;
}

oracle_ray oracle_ray_from_mq(const mq_ray *r)
{
    oracle_ray o;
    o.o = oracle_v3_f(r->origin);
    o.d = oracle_v3_f(r->dir);
    o.tmin = r->tmin;
    o.tmax = r->tmax;
    return o;
}

void oracle_box_vertices(const oracle_box *b, oracle_v3 out[8])
{
    /* vertex k takes +h_i on axis i when bit i of k is set */
    for (int k = 0; k < 8; k++) {
        oracle_v3 p = b->c;
        for (int i = 0; i < 3; i++)
            p = oracle_madd(p, b->ax[i], (k >> i & 1) ? b->h[i] : -b->h[i]);
        out[k] = p;
    }
}

double oracle_box_extent(const oracle_box *b)
{
    oracle_v3 v[8];
    oracle_box_vertices(b, v);
    double m = 0.0;
    for (int k = 0; k < 8; k++)
        m = fmax(m, oracle_maxabs(v[k]));
    return m;
}

double oracle_tri_extent(const oracle_tri *t)
{
    return fmax(oracle_maxabs(t->v[0]), fmax(oracle_maxabs(t->v[1]), oracle_maxabs(t->v[2])));
}

/* ------------------------------------------------------------------------- */
/* Golden-section search                                                     */
/* ------------------------------------------------------------------------- */

typedef double (*fn1)(double x, const void *ctx);

/* Minimises a convex function on [lo, hi]. Both ends are evaluated exactly as
 * well, because constrained minima very often sit on an end and golden section
 * alone would only approach them. rel: stop when the bracket is that fraction
 * of the start. */
static double golden_min(fn1 f, const void *ctx, double lo, double hi, double rel, double *xbest)
{
    const double invphi = 0.6180339887498949;
    double bx = lo, bf = f(lo, ctx);
    if (hi > lo) {
        double fh = f(hi, ctx);
        if (fh < bf) {
            bf = fh;
            bx = hi;
        }
        double a = lo, b = hi, w0 = hi - lo;
        double x1 = b - invphi * (b - a), x2 = a + invphi * (b - a);
        double f1 = f(x1, ctx), f2 = f(x2, ctx);
        for (int it = 0; it < 300 && b - a > rel * w0; it++) {
            if (f1 <= f2) {
                b = x2;
                x2 = x1;
                f2 = f1;
                x1 = b - invphi * (b - a);
                f1 = f(x1, ctx);
            } else {
                a = x1;
                x1 = x2;
                f1 = f2;
                x2 = a + invphi * (b - a);
                f2 = f(x2, ctx);
            }
        }
        if (f1 < bf) {
            bf = f1;
            bx = x1;
        }
        if (f2 < bf) {
            bf = f2;
            bx = x2;
        }
    }
    if (xbest)
        *xbest = bx;
    return bf;
}

double oracle_golden_min(double (*f)(double x, const void *ctx), const void *ctx, double lo, double hi, double rel,
                         double *xbest)
{
    return golden_min(f, ctx, lo, hi, rel, xbest);
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* ------------------------------------------------------------------------- */
/* Distances                                                                 */
/* ------------------------------------------------------------------------- */

typedef struct seg_ctx {
    oracle_v3 p, a, ab;
} seg_ctx;

static double seg_f(double t, const void *vctx)
{
    const seg_ctx *c = vctx;
    return oracle_len2(oracle_sub(oracle_madd(c->a, c->ab, t), c->p));
}

double oracle_dist2_point_segment(oracle_v3 p, oracle_v3 a, oracle_v3 b, double *t_out)
{
    seg_ctx c = {p, a, oracle_sub(b, a)};
    double t;
    double d2 = golden_min(seg_f, &c, 0.0, 1.0, 1e-13, &t);
    if (t_out)
        *t_out = t;
    return d2;
}

double oracle_dist2_point_segment_direct(oracle_v3 p, oracle_v3 a, oracle_v3 b)
{
    oracle_v3 ab = oracle_sub(b, a);
    double l2 = oracle_len2(ab);
    double t = l2 > 0.0 ? clamp(oracle_dot(oracle_sub(p, a), ab) / l2, 0.0, 1.0) : 0.0;
    return oracle_len2(oracle_sub(oracle_madd(a, ab, t), p));
}

double oracle_dist2_point_box(oracle_v3 p, const oracle_box *b, oracle_v3 *closest)
{
    /* Coordinate descent on |c + sum s_i a_i - p|^2 over the box of parameters:
     * each step is an exact clamped 1D minimisation. For orthonormal axes one
     * sweep is exact; nearly orthonormal ones need a few. */
    double s[3] = {0, 0, 0};
    oracle_v3 q = b->c;
    double hmax = fmax(b->h[0], fmax(b->h[1], b->h[2]));
    bool interior = false;
    for (int sweep = 0; sweep < 100; sweep++) {
        double change = 0.0;
        interior = true;
        for (int i = 0; i < 3; i++) {
            double a2 = oracle_len2(b->ax[i]);
            double si = 0.0;
            oracle_v3 rest = oracle_madd(q, b->ax[i], -s[i]);
            interior = interior && a2 > 0.0 && b->h[i] > 0.0;
            if (a2 > 0.0 && b->h[i] > 0.0) {
                double free = oracle_dot(b->ax[i], oracle_sub(p, rest)) / a2;
                interior = interior && fabs(free) < b->h[i];
                si = clamp(free, -b->h[i], b->h[i]);
            }
            change = fmax(change, fabs(si - s[i]));
            s[i] = si;
            q = oracle_madd(rest, b->ax[i], si);
        }
        if (change <= 1e-16 * hmax)
            break;
    }
    if (interior) {
        /* no parameter is at a bound: the minimum is interior, i.e. p is in the
         * box, and the distance is exactly 0 (not the rounding residue of
         * rebuilding p from its parameters) */
        if (closest)
            *closest = p;
        return 0.0;
    }
    /* recompute from the parameters to avoid drift from the incremental updates */
    q = b->c;
    for (int i = 0; i < 3; i++)
        q = oracle_madd(q, b->ax[i], s[i]);
    if (closest)
        *closest = q;
    return oracle_len2(oracle_sub(q, p));
}

typedef struct tri_ctx {
    oracle_v3 w, e1, e2; /* w = v0 - p */
    double e2len2;
} tri_ctx;

/* min over v in [0, 1-u] of |w + u e1 + v e2|^2, in closed form (a clamped parabola). */
static double tri_inner(double u, const tri_ctx *c, double *v_out)
{
    oracle_v3 wu = oracle_madd(c->w, c->e1, u);
    double vmax = fmax(0.0, 1.0 - u), v = 0.0;
    if (c->e2len2 > 0.0)
        v = clamp(-oracle_dot(wu, c->e2) / c->e2len2, 0.0, vmax);
    if (v_out)
        *v_out = v;
    return oracle_len2(oracle_madd(wu, c->e2, v));
}

static double tri_f(double u, const void *vctx)
{
    return tri_inner(u, vctx, NULL);
}

static void tri_ctx_init(tri_ctx *c, oracle_v3 p, const oracle_tri *t)
{
    c->w = oracle_sub(t->v[0], p);
    c->e1 = oracle_sub(t->v[1], t->v[0]);
    c->e2 = oracle_sub(t->v[2], t->v[0]);
    c->e2len2 = oracle_len2(c->e2);
}

static double pt_tri(oracle_v3 p, const oracle_tri *t, double rel, double *u_out, double *v_out)
{
    tri_ctx c;
    tri_ctx_init(&c, p, t);
    double u, v;
    golden_min(tri_f, &c, 0.0, 1.0, rel, &u);
    double d2 = tri_inner(u, &c, &v);
    if (u_out)
        *u_out = u;
    if (v_out)
        *v_out = v;
    return d2;
}

double oracle_dist2_point_triangle(oracle_v3 p, const oracle_tri *t, double *u_out, double *v_out)
{
    return pt_tri(p, t, 1e-13, u_out, v_out);
}

typedef struct segseg_ctx {
    oracle_v3 a0, ea, b0, eb;
    double eb2;
} segseg_ctx;

static double segseg_inner(double s, const segseg_ctx *c, double *t_out)
{
    oracle_v3 pa = oracle_madd(c->a0, c->ea, s);
    double t = 0.0;
    if (c->eb2 > 0.0)
        t = clamp(oracle_dot(oracle_sub(pa, c->b0), c->eb) / c->eb2, 0.0, 1.0);
    if (t_out)
        *t_out = t;
    return oracle_len2(oracle_sub(pa, oracle_madd(c->b0, c->eb, t)));
}

static double segseg_f(double s, const void *vctx)
{
    return segseg_inner(s, vctx, NULL);
}

double oracle_dist2_segment_segment(oracle_v3 a0, oracle_v3 a1, oracle_v3 b0, oracle_v3 b1, double *s_out,
                                    double *t_out)
{
    segseg_ctx c = {a0, oracle_sub(a1, a0), b0, oracle_sub(b1, b0), 0.0};
    c.eb2 = oracle_len2(c.eb);
    double s, t;
    golden_min(segseg_f, &c, 0.0, 1.0, 1e-13, &s);
    double d2 = segseg_inner(s, &c, &t);
    if (s_out)
        *s_out = s;
    if (t_out)
        *t_out = t;
    return d2;
}

typedef struct segtri_ctx {
    oracle_v3 a, ab;
    const oracle_tri *t;
} segtri_ctx;

static double segtri_f(double s, const void *vctx)
{
    const segtri_ctx *c = vctx;
    /* inner bracket 1e-10: the outer search only needs values accurate to far
     * below its own resolution, and this keeps the nested search affordable */
    return pt_tri(oracle_madd(c->a, c->ab, s), c->t, 1e-10, NULL, NULL);
}

static bool segment_crosses_triangle(oracle_v3 a, oracle_v3 b, const oracle_tri *t);

double oracle_dist2_segment_triangle(oracle_v3 a, oracle_v3 b, const oracle_tri *t, double *s_out, double *u_out,
                                     double *v_out)
{
    segtri_ctx c = {a, oracle_sub(b, a), t};
    double s;
    golden_min(segtri_f, &c, 0.0, 1.0, 1e-10, &s);
    double d2 = pt_tri(oracle_madd(a, c.ab, s), t, 1e-13, u_out, v_out);
    if (s_out)
        *s_out = s;
    /* A segment through the triangle is at distance exactly 0, but a minimiser
     * only gets within sqrt(double eps) of such a V-shaped minimum; the exact
     * crossing test removes that floor (it matters for radius-0 capsules). */
    if (d2 > 0.0 && segment_crosses_triangle(a, b, t))
        d2 = 0.0;
    return d2;
}

typedef struct segbox_ctx {
    oracle_v3 a, ab;
    const oracle_box *b;
} segbox_ctx;

static double segbox_f(double s, const void *vctx)
{
    const segbox_ctx *c = vctx;
    return oracle_dist2_point_box(oracle_madd(c->a, c->ab, s), c->b, NULL);
}

double oracle_dist2_segment_box(oracle_v3 a, oracle_v3 b, const oracle_box *box, double *s_out)
{
    /* A segment through the box has distance exactly 0 (see the triangle
     * version): clip it by the face planes first. */
    oracle_ray seg = {a, oracle_sub(b, a), 0.0, 1.0};
    double t0, t1;
    if (oracle_len2(seg.d) > 0.0 && oracle_ray_box(&seg, box, &t0, &t1)) {
        if (s_out)
            *s_out = t0;
        return 0.0;
    }
    segbox_ctx c = {a, oracle_sub(b, a), box};
    double s;
    double d2 = golden_min(segbox_f, &c, 0.0, 1.0, 1e-12, &s);
    if (s_out)
        *s_out = s;
    return d2;
}

/* Parameters of p in the box frame: solves c + sum s_i a_i = p (Cramer). */
static void box_local(const oracle_box *b, oracle_v3 p, double s[3])
{
    oracle_v3 r = oracle_sub(p, b->c);
    oracle_v3 c12 = oracle_cross(b->ax[1], b->ax[2]);
    oracle_v3 c20 = oracle_cross(b->ax[2], b->ax[0]);
    oracle_v3 c01 = oracle_cross(b->ax[0], b->ax[1]);
    double det = oracle_dot(b->ax[0], c12);
    s[0] = oracle_dot(r, c12) / det;
    s[1] = oracle_dot(r, c20) / det;
    s[2] = oracle_dot(r, c01) / det;
}

double oracle_sdf_box(oracle_v3 p, const oracle_box *b)
{
    double s[3];
    box_local(b, p, s);
    bool inside = true;
    for (int i = 0; i < 3; i++)
        inside = inside && fabs(s[i]) <= b->h[i];
    if (!inside)
        return sqrt(oracle_dist2_point_box(p, b, NULL));
    /* depth below face i: the parameter margin times the axis' component along
     * the face normal (1 for orthonormal axes) */
    double depth = INFINITY;
    for (int i = 0; i < 3; i++) {
        oracle_v3 n = oracle_normalize(oracle_cross(b->ax[(i + 1) % 3], b->ax[(i + 2) % 3]));
        depth = fmin(depth, (b->h[i] - fabs(s[i])) * fabs(oracle_dot(n, b->ax[i])));
    }
    return -depth;
}

double oracle_sdf_capsule(oracle_v3 p, oracle_v3 a, oracle_v3 b, double r)
{
    return sqrt(oracle_dist2_point_segment_direct(p, a, b)) - r;
}

/* ------------------------------------------------------------------------- */
/* Polytope overlap: vertex inside, or edge crossing a face                  */
/* ------------------------------------------------------------------------- */

/* a*b - c*d with one rounding (Kahan): keeps cross products of nearly parallel
 * edges accurate, so thin faces get a trustworthy normal. */
static double diff_of_products(double a, double b, double c, double d)
{
    double w = c * d;
    double e = fma(-c, d, w);
    double f = fma(a, b, -w);
    return f + e;
}

static oracle_v3 cross_acc(oracle_v3 a, oracle_v3 b)
{
    return oracle_v3_make(diff_of_products(a.y, b.z, a.z, b.y), diff_of_products(a.z, b.x, a.x, b.z),
                          diff_of_products(a.x, b.y, a.y, b.x));
}

enum { POLY_BOX, POLY_TRI };

typedef struct poly {
    int kind;
    oracle_box box;
    oracle_v3 v[8];
    int nv;
    int e[12][2];
    int ne;
    int f[6][4];
    int fn[6];
    int nf;
} poly;

static void poly_from_box(poly *p, const oracle_box *b)
{
    p->kind = POLY_BOX;
    p->box = *b;
    oracle_box_vertices(b, p->v);
    p->nv = 8;
    p->ne = 0;
    for (int k = 0; k < 8; k++)
        for (int i = 0; i < 3; i++)
            if (!(k >> i & 1)) {
                p->e[p->ne][0] = k;
                p->e[p->ne][1] = k | 1 << i;
                p->ne++;
            }
    p->nf = 0;
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, l = (i + 2) % 3;
        for (int side = 0; side < 2; side++) {
            int base = side << i;
            /* a cycle around the face: (0,0), (1,0), (1,1), (0,1) in bits (j, l) */
            p->f[p->nf][0] = base;
            p->f[p->nf][1] = base | 1 << j;
            p->f[p->nf][2] = base | 1 << j | 1 << l;
            p->f[p->nf][3] = base | 1 << l;
            p->fn[p->nf] = 4;
            p->nf++;
        }
    }
}

static void poly_from_tri(poly *p, const oracle_tri *t)
{
    p->kind = POLY_TRI;
    for (int i = 0; i < 3; i++) {
        p->v[i] = t->v[i];
        p->e[i][0] = i;
        p->e[i][1] = (i + 1) % 3;
        p->f[0][i] = i;
    }
    p->nv = 3;
    p->ne = 3;
    p->fn[0] = 3;
    p->nf = 1;
}

/* A planar convex polygon prepared for point and segment tests. When it is
 * thinner than tol it is treated as the segment between its two farthest
 * vertices (its shape up to tol). */
typedef struct face {
    oracle_v3 q[4];
    int n;
    bool degenerate;
    oracle_v3 s0, s1; /* the segment, when degenerate */
    oracle_v3 normal; /* unit */
} face;

static void face_init(face *f, const oracle_v3 *q, int n, double tol)
{
    f->n = n;
    for (int i = 0; i < n; i++)
        f->q[i] = q[i];
    /* farthest pair: the polygon's long extent, and its segment if thin */
    double best = -1.0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double d = oracle_len2(oracle_sub(q[j], q[i]));
            if (d > best) {
                best = d;
                f->s0 = q[i];
                f->s1 = q[j];
            }
        }
    if (n < 2) {
        f->s0 = f->s1 = q[0];
        best = 0.0;
    }
    /* twice the area, summed over a fan from q[0] */
    oracle_v3 nrm = oracle_v3_make(0, 0, 0);
    for (int i = 1; i + 1 < n; i++)
        nrm = oracle_add(nrm, cross_acc(oracle_sub(q[i], q[0]), oracle_sub(q[i + 1], q[0])));
    double area2 = oracle_len(nrm), diam = sqrt(fmax(best, 0.0));
    /* width ~ area / diameter; below tol the polygon is a segment up to tol */
    f->degenerate = !(diam > 0.0) || area2 <= tol * diam;
    f->normal = f->degenerate ? oracle_v3_make(0, 0, 0) : oracle_mul(nrm, 1.0 / area2);
}

/* p in the (non-degenerate) polygon's closed region, measured in its plane. */
static bool face_contains_inplane(const face *f, oracle_v3 p, double tol)
{
    for (int i = 0; i < f->n; i++) {
        oracle_v3 a = f->q[i], b = f->q[(i + 1) % f->n];
        oracle_v3 e = oracle_sub(b, a);
        double el = oracle_len(e);
        if (el == 0.0)
            continue;
        double side = oracle_dot(cross_acc(e, oracle_sub(p, a)), f->normal) / el;
        if (side < -tol)
            return false;
    }
    return true;
}

static bool face_contains(const face *f, oracle_v3 p, double tol)
{
    if (f->degenerate)
        return oracle_dist2_point_segment_direct(p, f->s0, f->s1) <= tol * tol;
    if (fabs(oracle_dot(oracle_sub(p, f->q[0]), f->normal)) > tol)
        return false;
    return face_contains_inplane(f, p, tol);
}

static bool segments_touch(oracle_v3 a0, oracle_v3 a1, oracle_v3 b0, oracle_v3 b1, double tol)
{
    return oracle_dist2_segment_segment(a0, a1, b0, b1, NULL, NULL) <= tol * tol;
}

static bool edge_meets_face(oracle_v3 p0, oracle_v3 p1, const face *f, double tol)
{
    if (f->degenerate)
        return segments_touch(p0, p1, f->s0, f->s1, tol);
    double d0 = oracle_dot(oracle_sub(p0, f->q[0]), f->normal);
    double d1 = oracle_dot(oracle_sub(p1, f->q[0]), f->normal);
    if ((d0 > tol && d1 > tol) || (d0 < -tol && d1 < -tol))
        return false;
    if (fabs(d0) <= tol && fabs(d1) <= tol) {
        /* coplanar: an end inside, or the edge touching a polygon edge */
        if (face_contains_inplane(f, p0, tol) || face_contains_inplane(f, p1, tol))
            return true;
        for (int i = 0; i < f->n; i++)
            if (segments_touch(p0, p1, f->q[i], f->q[(i + 1) % f->n], tol))
                return true;
        return false;
    }
    oracle_v3 x;
    if (fabs(d0) <= tol)
        x = p0;
    else if (fabs(d1) <= tol)
        x = p1;
    else
        x = oracle_madd(p0, oracle_sub(p1, p0), d0 / (d0 - d1));
    return face_contains_inplane(f, x, tol);
}

static bool segment_crosses_triangle(oracle_v3 a, oracle_v3 b, const oracle_tri *t)
{
    double scale = fmax(oracle_tri_extent(t), fmax(oracle_maxabs(a), oracle_maxabs(b)));
    double tol = 1e-13 * scale + 1e-300;
    face f;
    face_init(&f, t->v, 3, tol);
    return edge_meets_face(a, b, &f, tol);
}

static bool poly_contains(const poly *p, const face *faces, oracle_v3 x, double tol)
{
    if (p->kind == POLY_BOX) {
        double s[3];
        box_local(&p->box, x, s);
        for (int i = 0; i < 3; i++)
            if (!(fabs(s[i]) <= p->box.h[i] + tol))
                return false;
        return true;
    }
    return face_contains(&faces[0], x, tol);
}

static void poly_faces(const poly *p, face *out, double tol)
{
    for (int i = 0; i < p->nf; i++) {
        oracle_v3 q[4];
        for (int k = 0; k < p->fn[i]; k++)
            q[k] = p->v[p->f[i][k]];
        face_init(&out[i], q, p->fn[i], tol);
    }
}

static double poly_extent(const poly *p)
{
    double m = 0.0;
    for (int i = 0; i < p->nv; i++)
        m = fmax(m, oracle_maxabs(p->v[i]));
    return m;
}

static bool poly_overlap(const poly *a, const poly *b)
{
    /* The oracle's own tolerance: far below any band the float implementation
     * could support, far above double rounding of these small computations. */
    double tol = 1e-12 * fmax(poly_extent(a), poly_extent(b)) + 1e-300;
    face fa[6], fb[6];
    poly_faces(a, fa, tol);
    poly_faces(b, fb, tol);
    for (int i = 0; i < a->nv; i++)
        if (poly_contains(b, fb, a->v[i], tol))
            return true;
    for (int i = 0; i < b->nv; i++)
        if (poly_contains(a, fa, b->v[i], tol))
            return true;
    for (int i = 0; i < a->ne; i++)
        for (int k = 0; k < b->nf; k++)
            if (edge_meets_face(a->v[a->e[i][0]], a->v[a->e[i][1]], &fb[k], tol))
                return true;
    for (int i = 0; i < b->ne; i++)
        for (int k = 0; k < a->nf; k++)
            if (edge_meets_face(b->v[b->e[i][0]], b->v[b->e[i][1]], &fa[k], tol))
                return true;
    return false;
}

bool oracle_overlap_box_box(const oracle_box *a, const oracle_box *b)
{
    poly pa, pb;
    poly_from_box(&pa, a);
    poly_from_box(&pb, b);
    return poly_overlap(&pa, &pb);
}

bool oracle_overlap_triangle_box(const oracle_tri *t, const oracle_box *b)
{
    poly pa, pb;
    poly_from_tri(&pa, t);
    poly_from_box(&pb, b);
    return poly_overlap(&pa, &pb);
}

bool oracle_overlap_triangle_triangle(const oracle_tri *a, const oracle_tri *b)
{
    poly pa, pb;
    poly_from_tri(&pa, a);
    poly_from_tri(&pb, b);
    return poly_overlap(&pa, &pb);
}

/* ------------------------------------------------------------------------- */
/* 2D: Sutherland-Hodgman                                                    */
/* ------------------------------------------------------------------------- */

static double area2_2d(const double (*p)[2], int n)
{
    double a = 0.0;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        a += (p[i][0] - p[0][0]) * (p[j][1] - p[0][1]) - (p[j][0] - p[0][0]) * (p[i][1] - p[0][1]);
    }
    return a;
}

static double diam2d(const double (*p)[2], int n, int *ia, int *ib)
{
    double best = 0.0;
    *ia = *ib = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double dx = p[j][0] - p[i][0], dy = p[j][1] - p[i][1];
            double d = sqrt(dx * dx + dy * dy);
            if (d > best) {
                best = d;
                *ia = i;
                *ib = j;
            }
        }
    return best;
}

/* Clips the subject polygon by the closed half-planes of a convex clipper given
 * counter-clockwise; true when anything is left (a point or a segment counts). */
static bool clip_nonempty(const double (*subj)[2], int ns, const double (*clip)[2], int nc, double tol)
{
    double buf[2][40][2];
    int n = ns;
    for (int i = 0; i < ns; i++) {
        buf[0][i][0] = subj[i][0];
        buf[0][i][1] = subj[i][1];
    }
    int cur = 0;
    for (int c = 0; c < nc && n > 0; c++) {
        const double *a = clip[c], *b = clip[(c + 1) % nc];
        double ex = b[0] - a[0], ey = b[1] - a[1], el = sqrt(ex * ex + ey * ey);
        if (el == 0.0)
            continue;
            /* signed distance to the left of a->b (inside for a CCW clipper), shifted by tol */
#define SIDE(p) (((ex) * ((p)[1] - a[1]) - (ey) * ((p)[0] - a[0])) / el + tol)
        int m = 0;
        double(*in)[2] = buf[cur], (*out)[2] = buf[cur ^ 1];
        for (int i = 0; i < n; i++) {
            const double *s = in[(i + n - 1) % n], *e = in[i];
            double ss = SIDE(s), se = SIDE(e);
            if (se >= 0.0) {
                if (ss < 0.0 && m < 39) {
                    double t = ss / (ss - se);
                    out[m][0] = s[0] + t * (e[0] - s[0]);
                    out[m][1] = s[1] + t * (e[1] - s[1]);
                    m++;
                }
                if (m < 39) {
                    out[m][0] = e[0];
                    out[m][1] = e[1];
                    m++;
                }
            } else if (ss >= 0.0 && m < 39) {
                double t = ss / (ss - se);
                out[m][0] = s[0] + t * (e[0] - s[0]);
                out[m][1] = s[1] + t * (e[1] - s[1]);
                m++;
            }
        }
#undef SIDE
        n = m;
        cur ^= 1;
    }
    return n > 0;
}

bool oracle_overlap_convex2(const double (*a)[2], int na, const double (*b)[2], int nb)
{
    double scale = 0.0;
    for (int i = 0; i < na; i++)
        scale = fmax(scale, fmax(fabs(a[i][0]), fabs(a[i][1])));
    for (int i = 0; i < nb; i++)
        scale = fmax(scale, fmax(fabs(b[i][0]), fabs(b[i][1])));
    double tol = 1e-12 * scale + 1e-300;
    int a0, a1, b0, b1;
    double da = diam2d(a, na, &a0, &a1), db = diam2d(b, nb, &b0, &b1);
    double wa = fabs(area2_2d(a, na)), wb = fabs(area2_2d(b, nb));
    bool a_thin = !(da > 0.0) || wa <= tol * da, b_thin = !(db > 0.0) || wb <= tol * db;
    if (!b_thin || !a_thin) {
        /* clip the other polygon by a proper (non-thin) one, made CCW */
        const double(*clipper)[2] = b_thin ? a : b;
        const double(*subject)[2] = b_thin ? b : a;
        int nc = b_thin ? na : nb, nsub = b_thin ? nb : na;
        double ccw[8][2];
        bool flip = area2_2d(clipper, nc) < 0.0;
        for (int i = 0; i < nc; i++) {
            int k = flip ? nc - 1 - i : i;
            ccw[i][0] = clipper[k][0];
            ccw[i][1] = clipper[k][1];
        }
        return clip_nonempty(subject, nsub, (const double(*)[2])ccw, nc, tol);
    }
    /* both thin: they are segments up to tol */
    oracle_v3 p0 = oracle_v3_make(a[a0][0], a[a0][1], 0), p1 = oracle_v3_make(a[a1][0], a[a1][1], 0);
    oracle_v3 q0 = oracle_v3_make(b[b0][0], b[b0][1], 0), q1 = oracle_v3_make(b[b1][0], b[b1][1], 0);
    return segments_touch(p0, p1, q0, q1, tol);
}

/* ------------------------------------------------------------------------- */
/* Rays                                                                      */
/* ------------------------------------------------------------------------- */

/* Cuts [t0, t1] by the half-space q*t <= rem. False when nothing is left. */
static bool clip_halfspace(double q, double rem, double *t0, double *t1)
{
    if (q == 0.0)
        return rem >= 0.0;
    double t = rem / q;
    if (q > 0.0)
        *t1 = fmin(*t1, t);
    else
        *t0 = fmax(*t0, t);
    return *t0 <= *t1;
}

bool oracle_ray_aabb(const oracle_ray *r, oracle_v3 bmin, oracle_v3 bmax, double *t0, double *t1)
{
    double a = r->tmin, b = r->tmax;
    double oo[3] = {r->o.x, r->o.y, r->o.z}, dd[3] = {r->d.x, r->d.y, r->d.z};
    double ll[3] = {bmin.x, bmin.y, bmin.z}, hh[3] = {bmax.x, bmax.y, bmax.z};
    for (int i = 0; i < 3; i++) {
        if (ll[i] > hh[i])
            return false;
        /* x_i <= hi_i  and  -x_i <= -lo_i */
        if (!clip_halfspace(dd[i], hh[i] - oo[i], &a, &b))
            return false;
        if (!clip_halfspace(-dd[i], oo[i] - ll[i], &a, &b))
            return false;
    }
    *t0 = a;
    *t1 = b;
    return true;
}

bool oracle_ray_box(const oracle_ray *r, const oracle_box *bx, double *t0, double *t1)
{
    double a = r->tmin, b = r->tmax;
    for (int i = 0; i < 3; i++) {
        /* the two face planes of axis i: their normal is perpendicular to the other two axes */
        oracle_v3 n = oracle_normalize(oracle_cross(bx->ax[(i + 1) % 3], bx->ax[(i + 2) % 3]));
        double w = bx->h[i] * fabs(oracle_dot(n, bx->ax[i]));
        double p = oracle_dot(n, oracle_sub(r->o, bx->c)), q = oracle_dot(n, r->d);
        if (!clip_halfspace(q, w - p, &a, &b))
            return false;
        if (!clip_halfspace(-q, w + p, &a, &b))
            return false;
    }
    *t0 = a;
    *t1 = b;
    return true;
}

bool oracle_ray_sphere(const oracle_ray *r, oracle_v3 c, double radius, double *t0, double *t1)
{
    /* closest approach of the line to the centre, then the half chord */
    double dd = oracle_len2(r->d);
    double tc = oracle_dot(oracle_sub(c, r->o), r->d) / dd;
    oracle_v3 q = oracle_madd(r->o, r->d, tc);
    double h2 = radius * radius - oracle_len2(oracle_sub(q, c));
    if (h2 < 0.0)
        return false;
    double half = sqrt(h2 / dd);
    double a = fmax(r->tmin, tc - half), b = fmin(r->tmax, tc + half);
    if (a > b)
        return false;
    *t0 = a;
    *t1 = b;
    return true;
}

typedef struct capray_ctx {
    const oracle_ray *r;
    oracle_v3 a, b;
    double radius;
} capray_ctx;

static double capray_phi(double t, const void *vctx)
{
    const capray_ctx *c = vctx;
    return oracle_sdf_capsule(oracle_madd(c->r->o, c->r->d, t), c->a, c->b, c->radius);
}

/* First t in [lo, hi] with phi <= 0, given phi(lo) > 0 >= phi(hi). */
static double bisect_enter(fn1 phi, const void *ctx, double lo, double hi)
{
    for (int i = 0; i < 400; i++) {
        double m = 0.5 * (lo + hi);
        if (!(m > lo && m < hi))
            break;
        if (phi(m, ctx) > 0.0)
            lo = m;
        else
            hi = m;
    }
    return hi;
}

/* Last t in [lo, hi] with phi <= 0, given phi(lo) <= 0 < phi(hi). */
static double bisect_exit(fn1 phi, const void *ctx, double lo, double hi)
{
    for (int i = 0; i < 400; i++) {
        double m = 0.5 * (lo + hi);
        if (!(m > lo && m < hi))
            break;
        if (phi(m, ctx) > 0.0)
            hi = m;
        else
            lo = m;
    }
    return lo;
}

bool oracle_ray_capsule(const oracle_ray *r, oracle_v3 a, oracle_v3 b, double radius, double *t0, double *t1)
{
    /* The signed distance to a convex solid is convex along a line, so the
     * inside is one interval: find the deepest t by golden section, then the
     * two boundary crossings by bisection. The search window is the chord of a
     * slightly enlarged bounding sphere, which contains the whole capsule. */
    capray_ctx c = {r, a, b, radius};
    oracle_v3 m = oracle_mul(oracle_add(a, b), 0.5);
    double R = 0.5 * oracle_dist(a, b) + radius;
    R = R * (1.0 + 1e-9) + 1e-300;
    double dd = oracle_len2(r->d);
    double tc = oracle_dot(oracle_sub(m, r->o), r->d) / dd;
    double off2 = oracle_len2(oracle_sub(oracle_madd(r->o, r->d, tc), m));
    if (off2 > R * R)
        return false;
    double half = sqrt((R * R - off2) / dd) * (1.0 + 1e-9) + 1e-300;
    double lo = fmax(r->tmin, tc - half), hi = fmin(r->tmax, tc + half);
    if (lo > hi)
        return false;
    double ts;
    double fs = golden_min(capray_phi, &c, lo, hi, 1e-15, &ts);
    if (fs > 0.0)
        return false;
    *t0 = capray_phi(lo, &c) <= 0.0 ? lo : bisect_enter(capray_phi, &c, lo, ts);
    *t1 = capray_phi(hi, &c) <= 0.0 ? hi : bisect_exit(capray_phi, &c, ts, hi);
    return true;
}

bool oracle_ray_triangle(const oracle_ray *r, const oracle_tri *tri, double *t_out, double *u_out, double *v_out,
                         bool *back)
{
    oracle_v3 e1 = oracle_sub(tri->v[1], tri->v[0]), e2 = oracle_sub(tri->v[2], tri->v[0]);
    oracle_v3 n = cross_acc(e1, e2);
    if (oracle_len2(n) == 0.0)
        return false; /* zero area: never hit (contract) */
    oracle_v3 pv = oracle_cross(r->d, e2);
    double det = oracle_dot(e1, pv);
    if (det == 0.0 || oracle_dot(r->d, n) == 0.0)
        return false; /* in or parallel to the plane: never hit (contract) */
    double inv = 1.0 / det;
    oracle_v3 tv = oracle_sub(r->o, tri->v[0]);
    double u = oracle_dot(tv, pv) * inv;
    if (u < 0.0 || u > 1.0)
        return false;
    oracle_v3 qv = oracle_cross(tv, e1);
    double v = oracle_dot(r->d, qv) * inv;
    if (v < 0.0 || u + v > 1.0)
        return false;
    double t = oracle_dot(e2, qv) * inv;
    if (t < r->tmin || t > r->tmax)
        return false;
    *t_out = t;
    *u_out = u;
    *v_out = v;
    *back = oracle_dot(r->d, n) > 0.0;
    return true;
}

bool oracle_ray_plane(const oracle_ray *r, oracle_v3 n, double d, double *t_out)
{
    double nd = oracle_dot(n, r->d), f0 = oracle_dot(n, r->o) - d;
    if (nd == 0.0) {
        if (f0 != 0.0)
            return false;
        *t_out = r->tmin;
        return true;
    }
    double t = -f0 / nd;
    if (!(t >= r->tmin && t <= r->tmax))
        return false;
    *t_out = t;
    return true;
}

/* ------------------------------------------------------------------------- */
/* Signed separation                                                         */
/* ------------------------------------------------------------------------- */

oracle_hull oracle_hull_points(const oracle_v3 *pts, int n, double r)
{
    oracle_hull h;
    h.n = n;
    h.r = r;
    for (int i = 0; i < n; i++)
        h.p[i] = pts[i];
    return h;
}

oracle_hull oracle_hull_box(const oracle_box *b)
{
    oracle_hull h;
    oracle_box_vertices(b, h.p);
    h.n = 8;
    h.r = 0.0;
    return h;
}

oracle_hull oracle_hull_tri(const oracle_tri *t)
{
    return oracle_hull_points(t->v, 3, 0.0);
}

static oracle_v3 hull_centroid(const oracle_hull *h)
{
    oracle_v3 c = oracle_v3_make(0, 0, 0);
    for (int i = 0; i < h->n; i++)
        c = oracle_add(c, h->p[i]);
    return oracle_mul(c, 1.0 / h->n);
}

double oracle_hull_extent(const oracle_hull *h)
{
    double m = h->r;
    for (int i = 0; i < h->n; i++)
        m = fmax(m, oracle_maxabs(h->p[i]));
    return m;
}

oracle_hull oracle_hull_ray(const oracle_ray *r, const oracle_hull *other)
{
    oracle_v3 c = hull_centroid(other);
    double R = other->r;
    for (int i = 0; i < other->n; i++)
        R = fmax(R, oracle_dist(other->p[i], c) + other->r);
    double dl = oracle_len(r->d);
    double tc = oracle_dot(oracle_sub(c, r->o), r->d) / (dl * dl);
    double L = (4.0 * R + 1e-300) / dl;
    double lo = fmax(r->tmin, tc - L), hi = fmin(r->tmax, tc + L);
    if (lo > hi)
        lo = hi = clamp(tc, r->tmin, r->tmax);
    oracle_v3 p[2] = {oracle_madd(r->o, r->d, lo), oracle_madd(r->o, r->d, hi)};
    return oracle_hull_points(p, 2, 0.0);
}

/* Support point of D = B - A in direction n. */
static oracle_v3 diff_support(const oracle_hull *a, const oracle_hull *b, oracle_v3 n)
{
    int ib = 0, ia = 0;
    double mb = -INFINITY, ma = INFINITY;
    for (int i = 0; i < b->n; i++) {
        double s = oracle_dot(b->p[i], n);
        if (s > mb) {
            mb = s;
            ib = i;
        }
    }
    for (int i = 0; i < a->n; i++) {
        double s = oracle_dot(a->p[i], n);
        if (s < ma) {
            ma = s;
            ia = i;
        }
    }
    return oracle_sub(b->p[ib], a->p[ia]);
}

static double det3(oracle_v3 a, oracle_v3 b, oracle_v3 c)
{
    return oracle_dot(a, cross_acc(b, c));
}

/* Closest point to the origin of the hull of up to 4 points, by trying every
 * subset's affine minimiser and keeping the best one that lies in its subset's
 * hull. Slow and simple, and robust in degenerate configurations because a
 * singular subset is skipped while its faces are still tried. The minimisers
 * use direct geometric formulas (projection onto a line or plane, signed
 * volumes) rather than normal equations, which would square the conditioning of
 * the flat simplices that near-touching shapes produce. */
static oracle_v3 simplex_closest(const oracle_v3 *w, int n, int *mask_out)
{
    const double slack = -1e-12; /* barycentric slack: keeps boundary points */
    oracle_v3 best = w[0];
    double bd = INFINITY;
    int bm = 1;
    for (int mask = 1; mask < (1 << n); mask++) {
        oracle_v3 p[4];
        int k = 0;
        for (int i = 0; i < n; i++)
            if (mask >> i & 1)
                p[k++] = w[i];
        oracle_v3 x;
        if (k == 1) {
            x = p[0];
        } else if (k == 2) {
            oracle_v3 e = oracle_sub(p[1], p[0]);
            double ee = oracle_len2(e);
            if (ee == 0.0)
                continue;
            double t = -oracle_dot(p[0], e) / ee;
            if (t < slack || t > 1.0 - slack)
                continue;
            x = oracle_madd(p[0], e, t);
        } else if (k == 3) {
            oracle_v3 nrm = cross_acc(oracle_sub(p[1], p[0]), oracle_sub(p[2], p[0]));
            double nn = oracle_len2(nrm);
            if (nn == 0.0)
                continue;
            x = oracle_mul(nrm, oracle_dot(p[0], nrm) / nn);
            double l0 = oracle_dot(cross_acc(oracle_sub(p[1], x), oracle_sub(p[2], x)), nrm) / nn;
            double l1 = oracle_dot(cross_acc(oracle_sub(p[2], x), oracle_sub(p[0], x)), nrm) / nn;
            double l2 = oracle_dot(cross_acc(oracle_sub(p[0], x), oracle_sub(p[1], x)), nrm) / nn;
            if (l0 < slack || l1 < slack || l2 < slack)
                continue;
        } else {
            /* a tetrahedron spans space: its affine minimiser is the origin itself;
             * the barycentric coordinate of the origin for vertex i is the signed
             * volume with the origin in place of p_i, over the full volume */
            double vol = det3(oracle_sub(p[1], p[0]), oracle_sub(p[2], p[0]), oracle_sub(p[3], p[0]));
            if (vol == 0.0)
                continue;
            bool inside = true;
            for (int i = 0; i < 4 && inside; i++) {
                oracle_v3 q[4] = {p[0], p[1], p[2], p[3]};
                q[i] = oracle_v3_make(0, 0, 0);
                double l = det3(oracle_sub(q[1], q[0]), oracle_sub(q[2], q[0]), oracle_sub(q[3], q[0])) / vol;
                inside = l >= slack;
            }
            if (!inside)
                continue;
            x = oracle_v3_make(0, 0, 0);
        }
        double d = oracle_len2(x);
        if (d < bd) {
            bd = d;
            best = x;
            bm = mask;
        }
    }
    *mask_out = bm;
    return best;
}

/* GJK distance between the point hulls (radii ignored); v = closest point of
 * B - A found, |v| an upper bound of the distance and *lower a lower bound. */
static double gjk2(const oracle_hull *a, const oracle_hull *b, oracle_v3 *v_out, double *lower)
{
    oracle_v3 w[4];
    int n = 0;
    oracle_v3 v = oracle_sub(b->p[0], a->p[0]);
    double lo = 0.0;
    for (int it = 0; it < 64; it++) {
        double vv = oracle_len2(v);
        if (vv == 0.0)
            break;
        oracle_v3 s = diff_support(a, b, oracle_mul(v, -1.0));
        lo = fmax(lo, oracle_dot(v, s) / sqrt(vv));
        /* the gap |v|^2 - v.s bounds |v| - dist from above: stop when it is negligible */
        if (vv - oracle_dot(v, s) <= 1e-15 * vv)
            break;
        bool dup = false;
        for (int i = 0; i < n; i++)
            dup = dup || (w[i].x == s.x && w[i].y == s.y && w[i].z == s.z);
        if (dup)
            break;
        w[n++] = s;
        int mask;
        v = simplex_closest(w, n, &mask);
        int k = 0;
        for (int i = 0; i < n; i++)
            if (mask >> i & 1)
                w[k++] = w[i];
        n = k;
        if (n == 4)
            break; /* the origin is inside a tetrahedron */
    }
    *v_out = v;
    if (lower)
        *lower = lo;
    return oracle_len(v);
}

static double gjk(const oracle_hull *a, const oracle_hull *b, oracle_v3 *v_out)
{
    return gjk2(a, b, v_out, NULL);
}

/* Penetration depth of the point hulls when the origin is inside B - A: the
 * smallest support value of B - A over the normals of its facets. Every facet
 * normal is perpendicular to two edge directions of A or B, and each edge
 * direction is a difference of two points of one hull, so the cross products
 * of all such differences contain every facet normal; any other unit direction
 * only gives a larger value, so the minimum over all of them is exact. */
static double penetration(const oracle_hull *a, const oracle_hull *b, bool planar, oracle_v3 *n_out)
{
    oracle_v3 dirs[64];
    int nd = 0;
    const oracle_hull *hs[2] = {a, b};
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < hs[h]->n; i++)
            for (int j = i + 1; j < hs[h]->n; j++) {
                oracle_v3 d = oracle_sub(hs[h]->p[j], hs[h]->p[i]);
                if (oracle_len2(d) > 0.0 && nd < 64)
                    dirs[nd++] = d;
            }
    double best = INFINITY;
    oracle_v3 bn = oracle_v3_make(0, 0, 1);
#define TRY(nn)                                                                                                        \
    do {                                                                                                               \
        oracle_v3 n_ = (nn);                                                                                           \
        oracle_v3 s_ = diff_support(a, b, n_);                                                                         \
        double v_ = oracle_dot(s_, n_);                                                                                \
        if (v_ < best) {                                                                                               \
            best = v_;                                                                                                 \
            bn = n_;                                                                                                   \
        }                                                                                                              \
    } while (0)
    /* always-valid extra candidates: they can only lower the estimate towards the true value */
    if (planar) {
        TRY(oracle_v3_make(1, 0, 0));
        TRY(oracle_v3_make(-1, 0, 0));
        TRY(oracle_v3_make(0, 1, 0));
        TRY(oracle_v3_make(0, -1, 0));
        for (int i = 0; i < nd; i++) {
            oracle_v3 n = oracle_normalize(oracle_v3_make(-dirs[i].y, dirs[i].x, 0));
            TRY(n);
            TRY(oracle_mul(n, -1.0));
        }
    } else {
        for (int k = 0; k < 3; k++) {
            oracle_v3 e = oracle_v3_make(k == 0, k == 1, k == 2);
            TRY(e);
            TRY(oracle_mul(e, -1.0));
        }
        for (int i = 0; i < nd; i++) {
            /* a perpendicular of a single direction covers flat / linear differences */
            oracle_v3 ax =
                fabs(dirs[i].x) < 0.5 * oracle_len(dirs[i]) ? oracle_v3_make(1, 0, 0) : oracle_v3_make(0, 1, 0);
            oracle_v3 n = oracle_normalize(oracle_cross(dirs[i], ax));
            TRY(n);
            TRY(oracle_mul(n, -1.0));
            for (int j = i + 1; j < nd; j++) {
                oracle_v3 c = cross_acc(dirs[i], dirs[j]);
                if (oracle_len2(c) == 0.0)
                    continue;
                c = oracle_normalize(c);
                TRY(c);
                TRY(oracle_mul(c, -1.0));
            }
        }
    }
#undef TRY
    *n_out = bn;
    return best;
}

double oracle_separation(const oracle_hull *a0, const oracle_hull *b0, bool planar, oracle_v3 *dir)
{
    /* work relative to A's centroid: the answer is translation invariant and the
     * support values stay small */
    oracle_v3 ref = hull_centroid(a0);
    oracle_hull a = *a0, b = *b0;
    for (int i = 0; i < a.n; i++)
        a.p[i] = oracle_sub(a.p[i], ref);
    for (int i = 0; i < b.n; i++)
        b.p[i] = oracle_sub(b.p[i], ref);
    double R = a.r + b.r;
    oracle_v3 v;
    double lower;
    double d = gjk2(&a, &b, &v, &lower);
    double scale = fmax(oracle_hull_extent(&a), oracle_hull_extent(&b));
    if (lower > 0.0 && d - lower <= 1e-13 * scale) {
        if (dir)
            *dir = oracle_mul(v, 1.0 / d);
        return d - R;
    }
    /* GJK did not prove a positive distance: the facet-normal minimum decides
     * (negative: apart, by at least its magnitude) */
    oracle_v3 n;
    double m = penetration(&a, &b, planar, &n);
    if (m < 0.0 && d > 0.0) {
        /* Apart, but GJK stalled (nearly parallel faces make B - A full of
         * slivers). The closest pair of two polytopes is a vertex against the
         * other polytope or an edge against an edge, and those sub-problems are
         * small and well conditioned: their minimum is the distance, and each
         * of them bounds it from above (the safe side for a tolerance). */
        double best = d;
        oracle_v3 bv = v;
        for (int i = 0; i < a.n; i++) {
            oracle_hull pa = oracle_hull_points(&a.p[i], 1, 0.0);
            oracle_v3 w;
            double e = gjk(&pa, &b, &w);
            if (e < best) {
                best = e;
                bv = w;
            }
        }
        for (int j = 0; j < b.n; j++) {
            oracle_hull pb = oracle_hull_points(&b.p[j], 1, 0.0);
            oracle_v3 w;
            double e = gjk(&a, &pb, &w);
            if (e < best) {
                best = e;
                bv = w;
            }
        }
        for (int i = 0; i < a.n; i++)
            for (int i2 = i + 1; i2 < a.n; i2++)
                for (int j = 0; j < b.n; j++)
                    for (int j2 = j + 1; j2 < b.n; j2++) {
                        double s, t;
                        double e2 = oracle_dist2_segment_segment(a.p[i], a.p[i2], b.p[j], b.p[j2], &s, &t);
                        if (sqrt(e2) < best) {
                            best = sqrt(e2);
                            bv = oracle_sub(oracle_madd(b.p[j], oracle_sub(b.p[j2], b.p[j]), t),
                                            oracle_madd(a.p[i], oracle_sub(a.p[i2], a.p[i]), s));
                        }
                    }
        if (dir)
            *dir = best > 0.0 ? oracle_mul(bv, 1.0 / oracle_len(bv)) : oracle_mul(n, -1.0);
        return best - R;
    }
    if (dir)
        *dir = oracle_mul(n, -1.0);
    return -(fmax(m, 0.0) + R);
}

/* ------------------------------------------------------------------------- */
/* Harness                                                                   */
/* ------------------------------------------------------------------------- */

const char *oracle_dist_name(oracle_distrib d)
{
    static const char *names[] = {"generic", "near", "scale", "degen"};
    return d < ORACLE_DIST_COUNT ? names[d] : "?";
}

#if defined(__SANITIZE_ADDRESS__)
#define ORACLE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ORACLE_SANITIZED 1
#endif
#endif

long oracle_case_count(long base)
{
#ifdef ORACLE_SANITIZED
    double f = 0.1; /* instrumented oracles are ~10x slower; keep the suite interactive */
#else
    double f = 1.0;
#endif
    const char *s = getenv("MQ_DIFF_SCALE");
    if (s && *s)
        f = atof(s);
    long n = (long)(base * f);
    return n < 100 ? 100 : n;
}

double oracle_log_uniform(mq_test_rng *rng, double lo, double hi)
{
    return exp(mq_test_rng_range(rng, log(lo), log(hi)));
}

double oracle_jitter(mq_test_rng *rng, double scale)
{
    if (mq_test_rng_u64(rng) % 8 == 0)
        return 0.0;
    double m = oracle_log_uniform(rng, 1e-9, 1e-4) * scale;
    return (mq_test_rng_u64(rng) & 1) ? m : -m;
}

/* The rotation's columns from a unit quaternion w, x, y, z. */
static void quat_to_axes(const double q[4], oracle_v3 ax[3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    ax[0] = oracle_v3_make(1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w));
    ax[1] = oracle_v3_make(2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w));
    ax[2] = oracle_v3_make(2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y));
}

void oracle_random_axes(mq_test_rng *rng, bool near_axis, oracle_v3 ax[3])
{
    if (!near_axis) {
        double q[4];
        mq_test_rng_quat(rng, q);
        quat_to_axes(q, ax);
        return;
    }
    /* a signed permutation of the world axes (kept right-handed), then maybe a
     * rotation by at most 1e-6 rad about a random axis */
    static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    int p = (int)(mq_test_rng_u64(rng) % 6);
    oracle_v3 base[3];
    double sgn[3];
    for (int i = 0; i < 3; i++)
        sgn[i] = (mq_test_rng_u64(rng) & 1) ? 1.0 : -1.0;
    for (int i = 0; i < 3; i++) {
        int k = perms[p][i];
        base[i] = oracle_v3_make(sgn[i] * (k == 0), sgn[i] * (k == 1), sgn[i] * (k == 2));
    }
    if (oracle_dot(oracle_cross(base[0], base[1]), base[2]) < 0.0)
        base[2] = oracle_mul(base[2], -1.0);
    double angle = (mq_test_rng_u64(rng) % 4 == 0) ? 0.0 : oracle_log_uniform(rng, 1e-9, 1e-6);
    double u[3];
    mq_test_rng_unit_vector(rng, u);
    double s = sin(0.5 * angle);
    double q[4] = {cos(0.5 * angle), u[0] * s, u[1] * s, u[2] * s};
    oracle_v3 rot[3];
    quat_to_axes(q, rot);
    for (int i = 0; i < 3; i++)
        ax[i] = oracle_add(oracle_add(oracle_mul(rot[0], base[i].x), oracle_mul(rot[1], base[i].y)),
                           oracle_mul(rot[2], base[i].z));
}

oracle_v3 oracle_v3_round(oracle_v3 a)
{
    return oracle_v3_make((float)a.x, (float)a.y, (float)a.z);
}

void oracle_stats_init(oracle_stats *s, const char *name, double band_rel)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->band_rel = band_rel;
}

bool oracle_stats_bool(oracle_stats *s, oracle_distrib d, bool impl, bool oracle, double sep, double scale)
{
    oracle_stats_case(s, d);
    s->positives += oracle;
    if (impl == oracle)
        return true;
    s->disagreements++;
    double rel = fabs(sep) / scale;
    if (!(rel <= s->max_disagree_sep))
        s->max_disagree_sep = rel;
    if (rel <= s->band_rel) {
        s->in_band++;
        return true;
    }
    s->mismatches++;
    return false;
}

bool oracle_stats_value(oracle_stats *s, double err_rel, double tol_rel)
{
    s->value_checks++;
    if (!(fabs(err_rel) <= s->max_value_err))
        s->max_value_err = fabs(err_rel);
    if (fabs(err_rel) <= tol_rel)
        return true;
    s->value_failures++;
    return false;
}

bool oracle_stats_strict(oracle_stats *s, bool ok)
{
    s->strict_cases++;
    if (!ok)
        s->strict_failures++;
    return ok;
}

bool oracle_stats_soft(oracle_stats *s, bool ok)
{
    s->soft_cases++;
    if (!ok)
        s->soft_failures++;
    return ok;
}

static long print_cap(void)
{
    static long cap = -1;
    if (cap < 0) {
        const char *e = getenv("MQ_DIFF_PRINT");
        cap = e && *e ? atol(e) : 6;
    }
    return cap;
}

bool oracle_stats_should_print(const oracle_stats *s)
{
    return s->printed < print_cap();
}

void oracle_stats_printed(oracle_stats *s)
{
    s->printed++;
}

void oracle_stats_case(oracle_stats *s, oracle_distrib d)
{
    s->cases++;
    s->by_dist[d]++;
}

void oracle_stats_print(const oracle_stats *s)
{
    printf("[diff] %-31s cases %6ld (gen %ld near %ld scale %ld degen %ld)", s->name, s->cases, s->by_dist[0],
           s->by_dist[1], s->by_dist[2], s->by_dist[3]);
    if (s->positives || s->disagreements)
        printf(" | positive %ld, disagree %ld: in band %ld, MISMATCH %ld; max |sep|/scale of a disagreement %.3g "
               "(band %.1g)",
               s->positives, s->disagreements, s->in_band, s->mismatches, s->max_disagree_sep, s->band_rel);
    if (s->value_checks)
        printf(" | values %ld, max rel err %.3g, FAIL %ld", s->value_checks, s->max_value_err, s->value_failures);
    if (s->strict_cases)
        printf(" | strict %ld, FAIL %ld", s->strict_cases, s->strict_failures);
    if (s->soft_cases)
        printf(" | exact-touch (soft) %ld, missed %ld", s->soft_cases, s->soft_failures);
    printf("\n");
    fflush(stdout);
}

void oracle_print_v3f(const char *name, const float *v)
{
    printf("    %s = {%a, %a, %a}\n", name, v[0], v[1], v[2]);
}
void oracle_print_f(const char *name, float v)
{
    printf("    %s = %a\n", name, v);
}

void oracle_print_ray(const char *name, const mq_ray *r)
{
    printf("    %s: origin {%a, %a, %a} dir {%a, %a, %a} tmin %a tmax %a\n", name, r->origin[0], r->origin[1],
           r->origin[2], r->dir[0], r->dir[1], r->dir[2], r->tmin, r->tmax);
}

void oracle_print_aabb(const char *name, const mq_aabb *b)
{
    printf("    %s: min {%a, %a, %a} max {%a, %a, %a}\n", name, b->min[0], b->min[1], b->min[2], b->max[0], b->max[1],
           b->max[2]);
}

void oracle_print_obb(const char *name, const mq_obb *b)
{
    printf("    %s: center {%a, %a, %a} half {%a, %a, %a}\n", name, b->center[0], b->center[1], b->center[2],
           b->half[0], b->half[1], b->half[2]);
    for (int i = 0; i < 3; i++)
        printf("      axes[%d] {%a, %a, %a}\n", i, b->axes[i][0], b->axes[i][1], b->axes[i][2]);
}

void oracle_print_sphere(const char *name, const mq_sphere *s)
{
    printf("    %s: center {%a, %a, %a} radius %a\n", name, s->center[0], s->center[1], s->center[2], s->radius);
}

void oracle_print_capsule(const char *name, const mq_capsule *c)
{
    printf("    %s: a {%a, %a, %a} b {%a, %a, %a} radius %a\n", name, c->a[0], c->a[1], c->a[2], c->b[0], c->b[1],
           c->b[2], c->radius);
}

void oracle_print_tri(const char *name, const mq_triangle *t)
{
    printf("    %s: {%a, %a, %a} {%a, %a, %a} {%a, %a, %a}\n", name, t->v[0][0], t->v[0][1], t->v[0][2], t->v[1][0],
           t->v[1][1], t->v[1][2], t->v[2][0], t->v[2][1], t->v[2][2]);
}

/* ------------------------------------------------------------------------- */
/* Generators                                                                */
/* ------------------------------------------------------------------------- */

bool oracle_gen_chance(oracle_gen *g, double p)
{
    return mq_test_rng_unit(g->rng) < p;
}

static oracle_v3 rand_unit(mq_test_rng *rng)
{
    double u[3];
    mq_test_rng_unit_vector(rng, u);
    return oracle_v3_make(u[0], u[1], u[2]);
}

static oracle_v3 rand_cube(mq_test_rng *rng)
{
    return oracle_v3_make(mq_test_rng_range(rng, -1, 1), mq_test_rng_range(rng, -1, 1), mq_test_rng_range(rng, -1, 1));
}

void oracle_gen_begin(oracle_gen *g, mq_test_rng *rng, oracle_distrib d)
{
    g->rng = rng;
    g->dist = d;
    /* near-touching cases get degenerate shapes too, a third of the time */
    g->degen = d == ORACLE_DEGEN || (d == ORACLE_NEAR && mq_test_rng_unit(rng) < 1.0 / 3.0);
    bool scaled = d == ORACLE_SCALE || (d == ORACLE_NEAR && oracle_gen_chance(g, 0.5));
    if (scaled) {
        g->size = oracle_log_uniform(rng, 1e-3, 1e3);
        g->center = oracle_mul(rand_unit(rng), oracle_log_uniform(rng, 1e-3, 1e3));
        g->spread = g->size * mq_test_rng_range(rng, 0.5, 2.0);
    } else {
        g->size = mq_test_rng_range(rng, 0.2, 2.0);
        g->center = oracle_v3_make(0, 0, 0);
        g->spread = 1.5;
    }
}

double oracle_gen_len(oracle_gen *g)
{
    if (g->degen && oracle_gen_chance(g, 1.0 / 3.0))
        return 0.0;
    return g->size * mq_test_rng_range(g->rng, 0.05, 1.0);
}

oracle_v3 oracle_gen_pos(oracle_gen *g)
{
    return oracle_madd(g->center, rand_cube(g->rng), g->spread);
}

void oracle_gen_aabb(oracle_gen *g, mq_aabb *out)
{
    oracle_v3 c = oracle_gen_pos(g);
    double h[3] = {oracle_gen_len(g), oracle_gen_len(g), oracle_gen_len(g)};
    double cc[3] = {c.x, c.y, c.z};
    for (int i = 0; i < 3; i++) {
        out->min[i] = (float)(cc[i] - h[i]);
        out->max[i] = h[i] == 0.0 ? out->min[i] : (float)(cc[i] + h[i]); /* exactly flat */
    }
}

void oracle_gen_obb(oracle_gen *g, mq_obb *out)
{
    oracle_v3 c = oracle_gen_pos(g), ax[3];
    /* degenerate cases and a quarter of the rest are within 1e-6 rad of axis aligned */
    bool near_axis = g->degen || oracle_gen_chance(g, 0.25);
    oracle_random_axes(g->rng, near_axis, ax);
    oracle_v3_to_f(c, out->center);
    for (int i = 0; i < 3; i++) {
        out->half[i] = (float)oracle_gen_len(g);
        oracle_v3_to_f(ax[i], out->axes[i]);
    }
}

void oracle_gen_sphere(oracle_gen *g, mq_sphere *out)
{
    oracle_v3_to_f(oracle_gen_pos(g), out->center);
    out->radius = (float)oracle_gen_len(g);
}

void oracle_gen_capsule(oracle_gen *g, mq_capsule *out)
{
    oracle_v3 a = oracle_gen_pos(g);
    oracle_v3 d;
    if (g->degen) {
        int k = (int)(mq_test_rng_u64(g->rng) % 4);
        if (k == 0) {
            d = oracle_v3_make(0, 0, 0); /* a == b: a sphere */
        } else if (k == 1) {
            /* along a world axis: parallel to box faces and to other such capsules */
            d = oracle_v3_make(0, 0, 0);
            double len = g->size * mq_test_rng_range(g->rng, 0.1, 2.0);
            int ax = (int)(mq_test_rng_u64(g->rng) % 3);
            if (ax == 0)
                d.x = len;
            else if (ax == 1)
                d.y = len;
            else
                d.z = len;
        } else {
            d = oracle_mul(rand_unit(g->rng), g->size * mq_test_rng_range(g->rng, 1e-7, 2.0));
        }
    } else {
        d = oracle_mul(rand_unit(g->rng), g->size * mq_test_rng_range(g->rng, 0.0, 2.0));
    }
    oracle_v3_to_f(a, out->a);
    oracle_v3_to_f(oracle_add(a, d), out->b);
    out->radius = (float)oracle_gen_len(g);
}

void oracle_gen_triangle(oracle_gen *g, mq_triangle *out)
{
    oracle_v3 c = oracle_gen_pos(g), v[3];
    for (int i = 0; i < 3; i++)
        v[i] = oracle_madd(c, rand_cube(g->rng), g->size);
    if (g->degen) {
        int k = (int)(mq_test_rng_u64(g->rng) % 6);
        oracle_v3 e = oracle_sub(v[1], v[0]);
        if (k == 0) {
            /* needle: the third vertex within 1e-7..1e-3 of the first edge's line */
            double lam = mq_test_rng_range(g->rng, -0.5, 1.5);
            oracle_v3 off = oracle_mul(rand_unit(g->rng), oracle_log_uniform(g->rng, 1e-7, 1e-3) * g->size);
            v[2] = oracle_add(oracle_madd(v[0], e, lam), off);
        } else if (k == 1) {
            v[2] = v[(int)(mq_test_rng_u64(g->rng) % 2)]; /* repeated vertex: a segment */
        } else if (k == 2) {
            v[1] = v[2] = v[0]; /* a point */
        } else if (k == 3) {
            /* exactly collinear: along a world axis, so float rounding keeps it collinear */
            double t[3] = {mq_test_rng_range(g->rng, -1, 1), mq_test_rng_range(g->rng, -1, 1),
                           mq_test_rng_range(g->rng, -1, 1)};
            for (int i = 0; i < 3; i++)
                v[i] = oracle_v3_make(c.x + g->size * t[i], c.y, c.z);
        } else if (k == 4) {
            /* axis-aligned plane: coplanar with box faces */
            for (int i = 1; i < 3; i++)
                v[i].z = v[0].z;
        } else {
            /* tiny triangle */
            for (int i = 1; i < 3; i++)
                v[i] = oracle_madd(v[0], rand_cube(g->rng), 1e-6 * g->size);
        }
    }
    for (int i = 0; i < 3; i++)
        oracle_v3_to_f(v[i], out->v[i]);
}

oracle_v3 oracle_gen_point_near_triangle(oracle_gen *g, const mq_triangle *t)
{
    double u = mq_test_rng_unit(g->rng), v = mq_test_rng_unit(g->rng);
    if (u + v > 1.0) {
        u = 1.0 - u;
        v = 1.0 - v;
    }
    int k = (int)(mq_test_rng_u64(g->rng) % 8);
    if (k == 0)
        v = 0.0; /* on edge v0 v1 */
    else if (k == 1)
        u = 0.0; /* on edge v0 v2 */
    else if (k == 2)
        v = 1.0 - u; /* on edge v1 v2 */
    oracle_tri o = oracle_tri_from_mq(t);
    oracle_v3 p = oracle_add(oracle_add(oracle_mul(o.v[0], 1.0 - u - v), oracle_mul(o.v[1], u)), oracle_mul(o.v[2], v));
    return oracle_madd(p, rand_unit(g->rng), oracle_log_uniform(g->rng, 1e-9, 1e-2) * g->size);
}

void oracle_gen_ray(oracle_gen *g, oracle_v3 target, mq_ray *out)
{
    oracle_v3 aim = oracle_madd(target, rand_cube(g->rng), g->size);
    double far = g->spread * mq_test_rng_range(g->rng, 0.5, 3.0) + g->size;
    oracle_v3 o = oracle_madd(target, rand_unit(g->rng), far);
    oracle_v3 d = oracle_normalize(oracle_sub(aim, o));
    if (g->degen) {
        /* zero direction components: parallel to box slabs */
        int k = (int)(mq_test_rng_u64(g->rng) % 3);
        if (k == 0) {
            int ax = (int)(mq_test_rng_u64(g->rng) % 3);
            d = oracle_v3_make(ax == 0, ax == 1, ax == 2);
            if (mq_test_rng_u64(g->rng) & 1)
                d = oracle_mul(d, -1.0);
            /* start on the axis line through aim, behind it */
            o = oracle_madd(aim, d, -far);
        } else if (k == 1) {
            int ax = (int)(mq_test_rng_u64(g->rng) % 3);
            if (ax == 0)
                d.x = 0.0;
            else if (ax == 1)
                d.y = 0.0;
            else
                d.z = 0.0;
            d = oracle_normalize(d);
            o = oracle_madd(aim, d, -far);
        }
    }
    double len = oracle_log_uniform(g->rng, 1e-2, 1e2);
    d = oracle_mul(d, len);
    double reach = far / len; /* t at which the ray is near the target */
    double u = mq_test_rng_unit(g->rng);
    out->tmin =
        u < 0.7 ? 0.0f
                : (u < 0.85 ? (float)(-reach * mq_test_rng_unit(g->rng)) : (float)(reach * mq_test_rng_unit(g->rng)));
    u = mq_test_rng_unit(g->rng);
    out->tmax = u < 0.5 ? INFINITY : (float)(out->tmin + reach * mq_test_rng_range(g->rng, 0.2, 3.0));
    if (out->tmax < out->tmin)
        out->tmax = out->tmin;
    oracle_v3_to_f(o, out->origin);
    oracle_v3_to_f(d, out->dir);
    if (out->dir[0] == 0.0f && out->dir[1] == 0.0f && out->dir[2] == 0.0f)
        out->dir[0] = 1.0f;
}

oracle_hull oracle_hull_of_aabb(const mq_aabb *b)
{
    oracle_hull h;
    /* corners straight from min / max: exact, unlike centre +- half */
    for (int k = 0; k < 8; k++)
        h.p[k] = oracle_v3_make((k & 1) ? b->max[0] : b->min[0], (k & 2) ? b->max[1] : b->min[1],
                                (k & 4) ? b->max[2] : b->min[2]);
    h.n = 8;
    h.r = 0.0;
    return h;
}

oracle_hull oracle_hull_of_obb(const mq_obb *b)
{
    oracle_box o = oracle_box_from_obb(b);
    return oracle_hull_box(&o);
}

oracle_hull oracle_hull_of_sphere(const mq_sphere *s)
{
    oracle_v3 c = oracle_v3_f(s->center);
    return oracle_hull_points(&c, 1, s->radius);
}

oracle_hull oracle_hull_of_capsule(const mq_capsule *c)
{
    oracle_v3 p[2] = {oracle_v3_f(c->a), oracle_v3_f(c->b)};
    return oracle_hull_points(p, 2, c->radius);
}

oracle_hull oracle_hull_of_triangle(const mq_triangle *t)
{
    oracle_tri o = oracle_tri_from_mq(t);
    return oracle_hull_tri(&o);
}

oracle_v3 oracle_touch_shift(mq_test_rng *rng, const oracle_hull *a, const oracle_hull *b0, bool planar, double scale)
{
    oracle_hull b = *b0;
    oracle_v3 pre = oracle_v3_make(0, 0, 0);
    oracle_v3 v;
    double d = gjk(a, &b, &v);
    if (!(d > 1e-12 * scale)) {
        /* overlapping: pull B out along a random direction first */
        oracle_v3 u = rand_unit(rng);
        if (planar)
            u = oracle_normalize(oracle_v3_make(u.x, u.y, 0.0));
        double reach = 4.0 * (oracle_hull_extent(a) + oracle_hull_extent(&b)) + 1.0;
        pre = oracle_mul(u, reach);
        for (int i = 0; i < b.n; i++)
            b.p[i] = oracle_add(b.p[i], pre);
        d = gjk(a, &b, &v);
        if (!(d > 0.0))
            return oracle_v3_make(0, 0, 0);
    }
    double gap = d - a->r - b.r + oracle_jitter(rng, scale);
    return oracle_madd(pre, v, -gap / d);
}

void oracle_translate_f(float *p, oracle_v3 t)
{
    p[0] = (float)(p[0] + t.x);
    p[1] = (float)(p[1] + t.y);
    p[2] = (float)(p[2] + t.z);
}

void oracle_translate_aabb(mq_aabb *b, oracle_v3 t)
{
    oracle_translate_f(b->min, t);
    oracle_translate_f(b->max, t);
}

void oracle_translate_obb(mq_obb *b, oracle_v3 t)
{
    oracle_translate_f(b->center, t);
}
void oracle_translate_sphere(mq_sphere *s, oracle_v3 t)
{
    oracle_translate_f(s->center, t);
}

void oracle_translate_capsule(mq_capsule *c, oracle_v3 t)
{
    oracle_translate_f(c->a, t);
    oracle_translate_f(c->b, t);
}

void oracle_translate_triangle(mq_triangle *tri, oracle_v3 t)
{
    for (int i = 0; i < 3; i++)
        oracle_translate_f(tri->v[i], t);
}

uint64_t oracle_name_seed(const char *name)
{
    uint64_t h = 1469598103934665603ull;
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 1099511628211ull;
    return h;
}

void oracle_run_init(oracle_run *r, const char *name, double band_rel, long base_cases)
{
    oracle_stats_init(&r->st, name, band_rel);
    mq_test_rng_seed(&r->rng, mq_test_seed(0xD1FF) ^ oracle_name_seed(name));
    r->n = oracle_case_count(base_cases);
}

void oracle_run_finish(oracle_run *r)
{
    oracle_stats_print(&r->st);
    assert_true(r->st.cases >= r->n);
    assert_int_equal(r->st.mismatches, 0);
    assert_int_equal(r->st.value_failures, 0);
    assert_int_equal(r->st.strict_failures, 0);
}

/* ------------------------------------------------------------------------- */
/* Fast direct distances                                                     */
/* ------------------------------------------------------------------------- */

double oracle_dist2_point_triangle_direct(oracle_v3 p, const oracle_tri *t)
{
    oracle_v3 a = t->v[0], b = t->v[1], c = t->v[2];
    oracle_v3 n = oracle_cross(oracle_sub(b, a), oracle_sub(c, a));
    double n2 = oracle_len2(n);
    if (n2 > 0.0) {
        /* foot of p on the plane; inside when it is on the inner side of all three edges */
        oracle_v3 f = oracle_madd(p, n, -oracle_dot(oracle_sub(p, a), n) / n2);
        double s0 = oracle_dot(oracle_cross(oracle_sub(b, a), oracle_sub(f, a)), n);
        double s1 = oracle_dot(oracle_cross(oracle_sub(c, b), oracle_sub(f, b)), n);
        double s2 = oracle_dot(oracle_cross(oracle_sub(a, c), oracle_sub(f, c)), n);
        if (s0 >= 0.0 && s1 >= 0.0 && s2 >= 0.0) {
            double h = oracle_dot(oracle_sub(p, a), n);
            return h * h / n2;
        }
    }
    double d = oracle_dist2_point_segment_direct(p, a, b);
    d = fmin(d, oracle_dist2_point_segment_direct(p, b, c));
    return fmin(d, oracle_dist2_point_segment_direct(p, c, a));
}

typedef struct direct_segtri_ctx {
    oracle_v3 a, ab;
    const oracle_tri *t;
} direct_segtri_ctx;

static double direct_segtri_f(double s, const void *vctx)
{
    const direct_segtri_ctx *c = vctx;
    return sqrt(oracle_dist2_point_triangle_direct(oracle_madd(c->a, c->ab, s), c->t));
}

static double direct_orient3(oracle_v3 a, oracle_v3 b, oracle_v3 c, oracle_v3 d)
{
    return oracle_dot(oracle_cross(oracle_sub(b, a), oracle_sub(c, a)), oracle_sub(d, a));
}

double oracle_dist2_segment_triangle_direct(oracle_v3 a, oracle_v3 b, const oracle_tri *t)
{
    /* crossing: the endpoints on opposite sides of the plane, and the segment
     * on the inner side of the three edge planes through it */
    double da = direct_orient3(t->v[0], t->v[1], t->v[2], a), db = direct_orient3(t->v[0], t->v[1], t->v[2], b);
    if ((da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0)) {
        double e0 = direct_orient3(a, b, t->v[0], t->v[1]), e1 = direct_orient3(a, b, t->v[1], t->v[2]),
               e2 = direct_orient3(a, b, t->v[2], t->v[0]);
        if ((e0 >= 0.0 && e1 >= 0.0 && e2 >= 0.0) || (e0 <= 0.0 && e1 <= 0.0 && e2 <= 0.0))
            return 0.0;
    }
    direct_segtri_ctx c = {a, oracle_sub(b, a), t};
    double sbest;
    double d = golden_min(direct_segtri_f, &c, 0.0, 1.0, 1e-12, &sbest);
    return d * d;
}
