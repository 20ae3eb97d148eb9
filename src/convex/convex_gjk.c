/*
 * Distances of a convex to points, triangles and convexes: GJK (Gilbert,
 * Johnson & Keerthi 1988) in double on the vertex sets, with the closest
 * point of each simplex found by Voronoi regions (Ericson, Real-Time
 * Collision Detection, 5.1). The iteration ends when the support point
 * improves the bound by less than a relative 1e-14, when it repeats a simplex
 * point, or when the simplex holds the origin (distance 0). Supports are
 * linear scans of the vertices.
 *
 * The public forms decide "they meet" with the exact tests of
 * convex_overlap.c, so a distance is 0 exactly when the overlap test says
 * they meet; GJK gives the distance otherwise, except for a point, whose
 * distance is the minimum over the hull's triangles in double.
 *
 * Casts: conservative advancement (Mirtich): for a translating convex the
 * distance along the sweep is a convex function of t, so each step t +=
 * distance / closing speed stays at or before the first contact.
 */
#include <float.h>
#include <string.h>

#include "core/minmax.h"
#include "convex/convex_internal.h"
#include "primitives/triangle_distance.h"

typedef struct side {
    const mq_convex *c; /* a placed convex, or NULL for the points */
    const mq_cpose *p;
    const double *pts; /* n xyz triples */
    int n;
    double shift[3]; /* added to every point (sweeps) */
} side;

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void support(const side *s, const double d[3], double out[3])
{
    if (s->c) {
        double dl[3];
        if (s->p->identity)
            memcpy(dl, d, sizeof dl);
        else
            for (int i = 0; i < 3; i++)
                dl[i] = s->p->R[0][i] * d[0] + s->p->R[1][i] * d[1] + s->p->R[2][i] * d[2];
        uint32_t best = 0;
        double bv = -INFINITY;
        for (uint32_t i = 0; i < s->c->nv; i++) {
            double x = dot3(s->c->v + 3 * i, dl);
            if (x > bv) {
                bv = x;
                best = i;
            }
        }
        mq_cpose_to_world(s->p, s->c->v + 3 * best, out);
    } else {
        int best = 0;
        double bv = -INFINITY;
        for (int i = 0; i < s->n; i++) {
            double x = dot3(s->pts + 3 * i, d);
            if (x > bv) {
                bv = x;
                best = i;
            }
        }
        memcpy(out, s->pts + 3 * best, sizeof(double[3]));
    }
    for (int k = 0; k < 3; k++)
        out[k] += s->shift[k];
}

typedef struct simplex {
    double w[4][3], a[4][3], b[4][3];
    double l[4];
    int n;
} simplex;

static void keep(simplex *s, const int *idx, const double *lam, int m)
{
    simplex t = *s;
    for (int i = 0; i < m; i++) {
        memcpy(s->w[i], t.w[idx[i]], sizeof(double[3]));
        memcpy(s->a[i], t.a[idx[i]], sizeof(double[3]));
        memcpy(s->b[i], t.b[idx[i]], sizeof(double[3]));
        s->l[i] = lam[i];
    }
    s->n = m;
}

/* Closest point to the origin of the segment / triangle given by indices;
 * the barycentrics into lam (of the listed points). */
static void closest_seg(const double a[3], const double b[3], double lam[2])
{
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double den = dot3(ab, ab), t = den > 0.0 ? -dot3(a, ab) / den : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    lam[0] = 1.0 - t;
    lam[1] = t;
}

static void closest_tri(const double a[3], const double b[3], const double c[3], double lam[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        ap[k] = -a[k];
        bp[k] = -b[k];
        cp[k] = -c[k];
    }
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        lam[0] = 1, lam[1] = 0, lam[2] = 0;
        return;
    }
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        lam[0] = 0, lam[1] = 1, lam[2] = 0;
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double v = d1 / (d1 - d3);
        lam[0] = 1 - v, lam[1] = v, lam[2] = 0;
        return;
    }
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        lam[0] = 0, lam[1] = 0, lam[2] = 1;
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double w = d2 / (d2 - d6);
        lam[0] = 1 - w, lam[1] = 0, lam[2] = w;
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        lam[0] = 0, lam[1] = 1 - w, lam[2] = w;
        return;
    }
    double den = va + vb + vc;
    if (!(den > 0.0)) { /* degenerate: the best edge */
        double l2[2], best = INFINITY;
        const double *p[3] = {a, b, c};
        for (int e = 0; e < 3; e++) {
            const double *x = p[e], *y = p[(e + 1) % 3];
            closest_seg(x, y, l2);
            double q[3];
            for (int k = 0; k < 3; k++)
                q[k] = l2[0] * x[k] + l2[1] * y[k];
            double d = dot3(q, q);
            if (d < best) {
                best = d;
                lam[0] = lam[1] = lam[2] = 0;
                lam[e] = l2[0];
                lam[(e + 1) % 3] = l2[1];
            }
        }
        return;
    }
    double v = vb / den, w = vc / den;
    lam[0] = 1 - v - w, lam[1] = v, lam[2] = w;
}

static void point_of(const simplex *s, const double lam[4], const int *idx, int m, double v[3])
{
    v[0] = v[1] = v[2] = 0.0;
    for (int i = 0; i < m; i++)
        for (int k = 0; k < 3; k++)
            v[k] += lam[i] * s->w[idx[i]][k];
}

/* Reduces the simplex to the smallest face holding its point nearest the
 * origin; that point into v. Returns false when the origin is inside. */
static bool reduce(simplex *s, double v[3])
{
    double lam[4];
    int idx[4] = {0, 1, 2, 3};
    if (s->n == 1) {
        s->l[0] = 1.0;
        memcpy(v, s->w[0], sizeof(double[3]));
        return true;
    }
    if (s->n == 2) {
        closest_seg(s->w[0], s->w[1], lam);
    } else if (s->n == 3) {
        closest_tri(s->w[0], s->w[1], s->w[2], lam);
    } else {
        static const int faces[4][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
        double best = INFINITY;
        bool any = false;
        for (int f = 0; f < 4; f++) {
            const double *a = s->w[faces[f][0]], *b = s->w[faces[f][1]], *c = s->w[faces[f][2]];
            const double *o = s->w[faces[f][3]];
            double ab[3], ac[3], n[3], ao[3];
            for (int k = 0; k < 3; k++) {
                ab[k] = b[k] - a[k];
                ac[k] = c[k] - a[k];
                ao[k] = o[k] - a[k];
            }
            n[0] = ab[1] * ac[2] - ab[2] * ac[1];
            n[1] = ab[2] * ac[0] - ab[0] * ac[2];
            n[2] = ab[0] * ac[1] - ab[1] * ac[0];
            double so = dot3(n, ao), sp = -dot3(n, a);
            /* A flat tetrahedron (the fourth point in this face's plane to
             * rounding: common when one side's support repeats) has no
             * inside; the sign of so is then noise, so every face competes. */
            bool flat = fabs(so) <= 1e-9 * sqrt(dot3(n, n) * dot3(ao, ao));
            if (!flat && ((so > 0.0 && sp > 0.0) || (so < 0.0 && sp < 0.0)))
                continue; /* the origin is on the simplex's side of this face */
            any = true;
            double l3[3], q[3] = {0, 0, 0};
            closest_tri(a, b, c, l3);
            for (int k = 0; k < 3; k++)
                q[k] = l3[0] * a[k] + l3[1] * b[k] + l3[2] * c[k];
            double d = dot3(q, q);
            if (d < best) {
                best = d;
                for (int i = 0; i < 4; i++)
                    lam[i] = 0.0;
                for (int i = 0; i < 3; i++)
                    lam[faces[f][i]] = l3[i];
            }
        }
        if (!any) {
            v[0] = v[1] = v[2] = 0.0;
            return false;
        }
    }
    point_of(s, lam, idx, s->n, v);
    int kept[4], m = 0;
    double kl[4];
    for (int i = 0; i < s->n; i++)
        if (lam[i] > 0.0) {
            kept[m] = i;
            kl[m++] = lam[i];
        }
    if (m == 0) {
        kept[0] = 0;
        kl[0] = 1.0;
        m = 1;
    }
    keep(s, kept, kl, m);
    return true;
}

static double gjk(const side *A, const side *B, double pa[3], double pb[3])
{
    simplex s;
    double d[3] = {1.0, 0.0, 0.0}, nd[3] = {-1.0, 0.0, 0.0}, v[3];
    support(A, nd, s.a[0]);
    support(B, d, s.b[0]);
    for (int k = 0; k < 3; k++)
        s.w[0][k] = s.a[0][k] - s.b[0][k];
    s.n = 1;
    s.l[0] = 1.0;
    memcpy(v, s.w[0], sizeof v);
    double mag =
        fabs(s.a[0][0]) + fabs(s.a[0][1]) + fabs(s.a[0][2]) + fabs(s.b[0][0]) + fabs(s.b[0][1]) + fabs(s.b[0][2]);
    for (int it = 0; it < 256; it++) {
        double vv = dot3(v, v);
        if (vv <= 1e-30 * mag * mag || vv == 0.0)
            break;
        double mv[3] = {-v[0], -v[1], -v[2]}, sa[3], sb[3], w[3];
        support(A, mv, sa);
        support(B, v, sb);
        for (int k = 0; k < 3; k++)
            w[k] = sa[k] - sb[k];
        mag = mq_fmax(mag, fabs(sa[0]) + fabs(sa[1]) + fabs(sa[2]) + fabs(sb[0]) + fabs(sb[1]) + fabs(sb[2]));
        if (vv - dot3(v, w) <= 1e-14 * vv)
            break;
        bool repeat = false;
        for (int i = 0; i < s.n; i++)
            if (s.w[i][0] == w[0] && s.w[i][1] == w[1] && s.w[i][2] == w[2])
                repeat = true;
        if (repeat || s.n == 4)
            break;
        memcpy(s.w[s.n], w, sizeof w);
        memcpy(s.a[s.n], sa, sizeof sa);
        memcpy(s.b[s.n], sb, sizeof sb);
        s.n++;
        double nv[3];
        if (!reduce(&s, nv)) {
            v[0] = v[1] = v[2] = 0.0;
            /* origin inside: every weight of the tetrahedron */
            double lam[4];
            /* barycentrics of the origin in the tetrahedron, for a common point */
            double m[3][3], r[3];
            for (int k = 0; k < 3; k++) {
                for (int j = 0; j < 3; j++)
                    m[k][j] = s.w[j + 1][k] - s.w[0][k];
                r[k] = -s.w[0][k];
            }
            double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                         m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                         m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
            if (det != 0.0) {
                for (int j = 0; j < 3; j++) {
                    double mm[3][3];
                    memcpy(mm, m, sizeof mm);
                    for (int k = 0; k < 3; k++)
                        mm[k][j] = r[k];
                    lam[j + 1] = (mm[0][0] * (mm[1][1] * mm[2][2] - mm[1][2] * mm[2][1]) -
                                  mm[0][1] * (mm[1][0] * mm[2][2] - mm[1][2] * mm[2][0]) +
                                  mm[0][2] * (mm[1][0] * mm[2][1] - mm[1][1] * mm[2][0])) /
                                 det;
                }
                lam[0] = 1.0 - lam[1] - lam[2] - lam[3];
            } else {
                lam[0] = 1.0;
                lam[1] = lam[2] = lam[3] = 0.0;
            }
            for (int i = 0; i < 4; i++)
                s.l[i] = lam[i];
            break;
        }
        memcpy(v, nv, sizeof v);
    }
    pa[0] = pa[1] = pa[2] = pb[0] = pb[1] = pb[2] = 0.0;
    for (int i = 0; i < s.n; i++)
        for (int k = 0; k < 3; k++) {
            pa[k] += s.l[i] * s.a[i][k];
            pb[k] += s.l[i] * s.b[i][k];
        }
    return sqrt(dot3(v, v));
}

double mq_convex_gjk_points(const mq_convex *c, const mq_cpose *p, const double *pts, int npts, double out_c[3],
                            double out_p[3])
{
    side A = {c, p, NULL, 0, {0, 0, 0}}, B = {NULL, NULL, pts, npts, {0, 0, 0}};
    return gjk(&A, &B, out_c, out_p);
}

double mq_convex_gjk_convex(const mq_convex *a, const mq_cpose *pa, const mq_convex *b, const mq_cpose *pb,
                            double out_a[3], double out_b[3])
{
    side A = {a, pa, NULL, 0, {0, 0, 0}}, B = {b, pb, NULL, 0, {0, 0, 0}};
    return gjk(&A, &B, out_a, out_b);
}

double mq_convex_cast_tolerance(const mq_convex *c, const mq_cpose *p, const double dir[3], double tmax)
{
    double len = sqrt(dot3(dir, dir));
    return 1e-9 * (c->radius + fabs(p->t[0]) + fabs(p->t[1]) + fabs(p->t[2]) + len * (isfinite(tmax) ? tmax : 0.0));
}

bool mq_convex_cast_tri_d(const mq_convex *c, const mq_cpose *p, const double dir[3], double tmax, const mq_dtri *tri,
                          double *t_hit)
{
    if (mq_convex_overlap_tri_d(c, p, tri)) {
        *t_hit = 0.0;
        return true;
    }
    double len = sqrt(dot3(dir, dir));
    if (!(len > 0.0) || !(tmax > 0.0))
        return false;
    side A = {c, p, NULL, 0, {0, 0, 0}}, B = {NULL, NULL, &tri->v[0][0], 3, {0, 0, 0}};
    double tol = mq_convex_cast_tolerance(c, p, dir, tmax);
    double t = 0.0;
    for (int it = 0; it < 200; it++) {
        for (int k = 0; k < 3; k++)
            A.shift[k] = t * dir[k];
        double pa[3], pb[3];
        double d = gjk(&A, &B, pa, pb);
        if (d <= tol) {
            *t_hit = t;
            return true;
        }
        double n[3] = {(pb[0] - pa[0]) / d, (pb[1] - pa[1]) / d, (pb[2] - pa[2]) / d};
        double speed = dot3(dir, n);
        if (!(speed > 0.0))
            return false;
        t += d / speed;
        if (t > tmax)
            return false;
    }
    /* grazing sweeps converge slowly: t is a lower bound of the contact */
    *t_hit = t;
    return true;
}

/* ---- public forms --------------------------------------------------------- */

float mq_convex_closest_point(const mq_convex *c, const vec3 p, vec3 out_point)
{
    if (!c || !p || !isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
        return -1.0f;
    double x[3] = {p[0], p[1], p[2]};
    if (mq_convex_contains_local(c, x)) {
        if (out_point)
            for (int k = 0; k < 3; k++)
                out_point[k] = p[k];
        return 0.0f;
    }
    /* outside: the nearest point of the hull's surface, every triangle in
     * double (exact to double rounding whatever the hull's proportions, where
     * GJK's simplex arithmetic loses digits to the hull's extent) */
    double best = INFINITY, qc[3] = {x[0], x[1], x[2]};
    for (uint32_t t = 0; t < c->nt; t++) {
        double q[3];
        double d2 = mq_convex_point_triangle2(x, c->v + 3 * c->tris[3 * t], c->v + 3 * c->tris[3 * t + 1],
                                              c->v + 3 * c->tris[3 * t + 2], q);
        if (d2 < best) {
            best = d2;
            memcpy(qc, q, sizeof q);
        }
    }
    double d = sqrt(best);
    if (out_point)
        for (int k = 0; k < 3; k++)
            out_point[k] = (float)qc[k];
    return (float)d;
}

static bool tri_d(const mq_triangle *tri, mq_dtri *t)
{
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            if (!isfinite(tri->v[i][k]))
                return false;
            t->v[i][k] = tri->v[i][k];
        }
    return true;
}

double mq_convex_tri_apart_d(const mq_convex *c, const mq_cpose *p, const mq_dtri *tri, double out_c[3],
                             double out_t[3])
{
    mq_td_tri t, f;
    for (int i = 0; i < 3; i++)
        mq_cpose_to_local(p, tri->v[i], t.v[i]);
    mq_td_tri_prepare(&t);
    double best = INFINITY, bc[3] = {0, 0, 0}, bt[3] = {0, 0, 0};
    for (uint32_t j = 0; j < c->nt; j++) {
        double pc[3], pt[3];
        for (int i = 0; i < 3; i++)
            memcpy(f.v[i], c->v + 3 * c->tris[3 * j + i], sizeof f.v[i]);
        mq_td_tri_prepare(&f);
        double d = mq_td_triangle_features(&f, &t, pc, pt);
        if (d < best) {
            best = d;
            memcpy(bc, pc, sizeof bc);
            memcpy(bt, pt, sizeof bt);
        }
    }
    mq_cpose_to_world(p, bc, out_c);
    mq_cpose_to_world(p, bt, out_t);
    return best > 0.0 ? best : DBL_TRUE_MIN;
}

double mq_convex_triangle_distance(const mq_convex *c, const mq_triangle *tri, double out_convex[3],
                                   double out_triangle[3])
{
    mq_dtri t;
    double qc[3], qt[3];
    if (!c || !tri || !tri_d(tri, &t))
        return -1.0;
    mq_cpose id;
    mq_cpose_identity(&id);
    double d = mq_convex_gjk_points(c, &id, &t.v[0][0], 3, qc, qt);
    if (mq_convex_overlap_tri_d(c, &id, &t)) {
        d = 0.0;
        memcpy(qt, qc, sizeof qt);
    } else if (!(d > 0.0)) {
        d = mq_convex_tri_apart_d(c, &id, &t, qc, qt); /* apart, though GJK lost the gap */
    }
    if (out_convex)
        memcpy(out_convex, qc, sizeof qc);
    if (out_triangle)
        memcpy(out_triangle, qt, sizeof qt);
    return d;
}

double mq_convex_convex_distance(const mq_convex *a, const mq_convex *b, double out_a[3], double out_b[3])
{
    if (!a || !b)
        return -1.0;
    mq_cpose id;
    mq_cpose_identity(&id);
    double qa[3], qb[3];
    double d = mq_convex_gjk_convex(a, &id, b, &id, qa, qb);
    if (mq_convex_overlap_convex_posed(a, &id, b, &id)) {
        d = 0.0;
        memcpy(qb, qa, sizeof qb);
    }
    if (out_a)
        memcpy(out_a, qa, sizeof qa);
    if (out_b)
        memcpy(out_b, qb, sizeof qb);
    return d;
}

bool mq_convex_cast_triangle(const mq_convex *c, const vec3 dir, float tmax, const mq_triangle *tri, float *t_hit)
{
    mq_dtri t;
    if (!c || !dir || !tri || !t_hit || !tri_d(tri, &t) || !isfinite(dir[0]) || !isfinite(dir[1]) ||
        !isfinite(dir[2]) || isnan(tmax) || tmax < 0.0f)
        return false;
    mq_cpose id;
    mq_cpose_identity(&id);
    double d[3] = {dir[0], dir[1], dir[2]}, th;
    if (!mq_convex_cast_tri_d(c, &id, d, (double)tmax, &t, &th))
        return false;
    *t_hit = (float)th;
    return true;
}
