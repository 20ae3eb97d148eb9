/*
 * Shape vs mesh distance (distance_walk.h, mq_dist_walk_shape_*): the exact
 * distance in double between a solid shape and each triangle, and the walk
 * of one hierarchy against the shape's box.
 *
 * Per triangle (0 decided by the shape's own exact float overlap primitive on
 * the triangle's float copy; otherwise):
 *   - sphere: distance of the centre to the triangle, minus the radius;
 *   - capsule: distance of the axis segment to the triangle (2 endpoint-
 *     triangle and 3 edge-edge distances; the axis cannot cross a triangle
 *     it does not overlap), minus the radius;
 *   - box (OBB, AABB): a solid box apart from a triangle is nearest to it on
 *     its surface, on a face whose outer side holds a triangle corner, so the
 *     distance is the smallest triangle-triangle distance to the two halves
 *     of each such face (at most three faces);
 *   - convex: GJK in double on the hull's vertices and the triangle's double
 *     corners (convex.h), 0 when mq_overlap_convex_triangle's exact test says
 *     they meet on the triangle's float copy.
 * At distance 0 both points are one common point (to rounding): the point of
 * the triangle nearest to the centre (axis) for round shapes, a triangle
 * corner inside the box or where the triangle crosses a face for boxes, the
 * point GJK found on the hull for a convex.
 */
#include <math.h>
#include <string.h>

#include <meshquery/primitives.h>

#include "convex/convex_internal.h"
#include "kdoptree/kdoptree_internal.h"
#include "primitives/shape_checks.h"
#include "proximity/distance_walk.h"
#include "proximity/distance_walk_internal.h"
#include "spheretree/spheretree_internal.h"

static inline void d3_copy(double o[3], const double a[3])
{
    o[0] = a[0];
    o[1] = a[1];
    o[2] = a[2];
}

bool mq_dist_shape_from(const mq_shape *shape, mq_dist_shape *o)
{
    if (!shape)
        return false;
    *o = (mq_dist_shape){0};
    o->kind = shape->kind;
    o->src = *shape;
    switch (shape->kind) {
    case MQ_SHAPE_SPHERE:
        if (!mq_sphere_ok(&shape->u.sphere))
            return false;
        for (int k = 0; k < 3; k++)
            o->c[k] = shape->u.sphere.center[k];
        o->radius = shape->u.sphere.radius;
        return true;
    case MQ_SHAPE_CAPSULE:
        if (!mq_capsule_ok(&shape->u.capsule))
            return false;
        for (int k = 0; k < 3; k++) {
            o->p0[k] = shape->u.capsule.a[k];
            o->p1[k] = shape->u.capsule.b[k];
        }
        o->radius = shape->u.capsule.radius;
        return true;
    case MQ_SHAPE_OBB:
        if (!mq_obb_is_valid(&shape->u.obb))
            return false;
        for (int k = 0; k < 3; k++) {
            o->c[k] = shape->u.obb.center[k];
            o->half[k] = shape->u.obb.half[k];
            for (int j = 0; j < 3; j++)
                o->axes[k][j] = shape->u.obb.axes[k][j];
        }
        return true;
    case MQ_SHAPE_AABB:
        if (!mq_aabb_ok(&shape->u.aabb))
            return false;
        for (int k = 0; k < 3; k++) {
            o->lo[k] = shape->u.aabb.min[k];
            o->hi[k] = shape->u.aabb.max[k];
            /* as a box: centre, unit axes, half extents */
            o->c[k] = 0.5 * (o->lo[k] + o->hi[k]);
            o->half[k] = 0.5 * (o->hi[k] - o->lo[k]);
            for (int j = 0; j < 3; j++)
                o->axes[k][j] = k == j ? 1.0 : 0.0;
        }
        return true;
    case MQ_SHAPE_CONVEX: {
        const mq_convex *c = shape->u.convex;
        if (!c || c->nv < 4)
            return false;
        o->convex = c;
        for (int k = 0; k < 3; k++) {
            o->lo[k] = c->lo[k];
            o->hi[k] = c->hi[k];
        }
        return true;
    }
    default:
        return false;
    }
}

/* The shape's core in the common frame, as a node box, and its rounding: a
 * sphere is its centre grown by its radius, a capsule its axis segment grown
 * by its radius (bounds of the core minus the radius are tighter than bounds
 * of a box around the round shape), a box is itself (rounding 0). */
static void shape_nbox(const mq_dist_shape *s, mq_dw_nbox *o, double *round)
{
    memset(o, 0, sizeof *o);
    *round = 0.0;
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        for (int k = 0; k < 3; k++)
            o->c[k] = s->c[k];
        *round = s->radius;
        break;
    case MQ_SHAPE_CAPSULE:
        for (int k = 0; k < 3; k++) {
            o->c[k] = 0.5 * (s->p0[k] + s->p1[k]);
            o->e[0][k] = 0.5 * (s->p1[k] - s->p0[k]);
        }
        *round = s->radius;
        break;
    case MQ_SHAPE_CONVEX: /* the hull's box */
        for (int k = 0; k < 3; k++) {
            o->c[k] = 0.5 * (s->lo[k] + s->hi[k]);
            o->e[k][k] = 0.5 * (s->hi[k] - s->lo[k]);
        }
        break;
    default: /* boxes */
        for (int k = 0; k < 3; k++) {
            o->c[k] = s->c[k];
            for (int j = 0; j < 3; j++)
                o->e[k][j] = s->axes[k][j] * s->half[k];
        }
        break;
    }
    mq_dw_nbox_finish(o);
}

/* Moves `from` by `r` towards `to` (the round shape's surface point toward the triangle). */
static double round_result(const double centre[3], const double q[3], double d2, double r, double ps[3], double pt[3])
{
    double d = sqrt(d2);
    d3_copy(pt, q);
    if (!(d > r)) {
        d3_copy(ps, q);
        return 0.0;
    }
    double s = r / d;
    for (int k = 0; k < 3; k++)
        ps[k] = centre[k] + (q[k] - centre[k]) * s;
    return d - r;
}

static bool box_contains(const mq_dist_shape *s, const double p[3])
{
    for (int i = 0; i < 3; i++) {
        double l = 0.0;
        for (int k = 0; k < 3; k++)
            l += (p[k] - s->c[k]) * s->axes[i][k];
        if (fabs(l) > s->half[i])
            return false;
    }
    return true;
}

/* A box shape's faces, prepared once per query: the half-axis vectors e, for
 * each axis i the normal n[i] = axes[j] x axes[l] of faces +-i (pointing like
 * axes[i]), their offset off[i] = |n[i].e[i]| from the centre along it, 1/|n[i]|,
 * and the two triangle halves of each face ([i][0]: face -i, [i][1]: face +i). */
typedef struct box_faces {
    double c[3];
    double e[3][3];
    double n[3][3];
    double off[3];
    double inv_len[3];
    mq_td_tri half[3][2][2];
    /* corner k = c + sum_a (bit a of k ? 1 : -1) e[a]; for the faces +-i, the
     * inverse Gram matrix of their spanning vectors e[j], e[l] (gram_ok: not
     * degenerate), for a point's coordinates in the face */
    double corner[8][3];
    double igram[3][3];
    bool gram_ok[3];
    /* the sum of the half extents; how far (per unit of distance) a point
     * nearest to a box edge or corner may lie behind the plane of one of its
     * faces: twice the largest cosine between two faces' normals, INFINITY
     * (no such pruning) when they are far from orthogonal */
    double hsum, kappa;
    /* the box as a frame (fast: its axes orthonormal to rounding), for mq_td_box_triangle */
    mq_td_box frame;
    bool fast;
} box_faces;

static void box_faces_of(const mq_dist_shape *s, box_faces *bf)
{
    bf->fast = mq_td_box_from(s->c, s->axes, s->half, &bf->frame);
    if (bf->fast)
        return; /* the frame is all the fast path reads */
    d3_copy(bf->c, s->c);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            bf->e[i][k] = s->axes[i][k] * s->half[i];
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, l = (i + 2) % 3;
        double *n = bf->n[i];
        n[0] = s->axes[j][1] * s->axes[l][2] - s->axes[j][2] * s->axes[l][1];
        n[1] = s->axes[j][2] * s->axes[l][0] - s->axes[j][0] * s->axes[l][2];
        n[2] = s->axes[j][0] * s->axes[l][1] - s->axes[j][1] * s->axes[l][0];
        bf->off[i] = fabs(n[0] * bf->e[i][0] + n[1] * bf->e[i][1] + n[2] * bf->e[i][2]);
        if (n[0] * s->axes[i][0] + n[1] * s->axes[i][1] + n[2] * s->axes[i][2] < 0.0)
            for (int k = 0; k < 3; k++)
                n[k] = -n[k];
        double n2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        bf->inv_len[i] = n2 > 0.0 ? 1.0 / sqrt(n2) : 0.0;
        for (int side = 0; side < 2; side++) {
            double sign = side ? 1.0 : -1.0;
            double q[4][3];
            for (int c = 0; c < 4; c++) {
                double sj = (c & 1) ? 1.0 : -1.0, sl = (c & 2) ? 1.0 : -1.0;
                for (int k = 0; k < 3; k++)
                    q[c][k] = s->c[k] + sign * bf->e[i][k] + sj * bf->e[j][k] + sl * bf->e[l][k];
            }
            static const int halves[2][3] = {{0, 1, 3}, {0, 3, 2}};
            for (int h = 0; h < 2; h++) {
                mq_td_tri *f = &bf->half[i][side][h];
                for (int c = 0; c < 3; c++)
                    d3_copy(f->v[c], q[halves[h][c]]);
                mq_td_tri_prepare(f);
            }
        }
        double gjj = 0.0, gjl = 0.0, gll = 0.0;
        for (int k = 0; k < 3; k++) {
            gjj += bf->e[j][k] * bf->e[j][k];
            gjl += bf->e[j][k] * bf->e[l][k];
            gll += bf->e[l][k] * bf->e[l][k];
        }
        double det = gjj * gll - gjl * gjl;
        bf->gram_ok[i] = det > 1e-12 * gjj * gll && det > 0.0;
        if (bf->gram_ok[i]) {
            bf->igram[i][0] = gll / det;
            bf->igram[i][1] = -gjl / det;
            bf->igram[i][2] = gjj / det;
        }
    }
    double cmax = 0.0;
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3;
        double d = bf->n[i][0] * bf->n[j][0] + bf->n[i][1] * bf->n[j][1] + bf->n[i][2] * bf->n[j][2];
        d = fabs(d) * bf->inv_len[i] * bf->inv_len[j];
        cmax = d > cmax ? d : cmax;
    }
    bf->kappa = cmax < 0.1 && bf->inv_len[0] > 0.0 && bf->inv_len[1] > 0.0 && bf->inv_len[2] > 0.0 ? 2.0 * cmax + 1e-9
                                                                                                   : INFINITY;
    bf->hsum = s->half[0] + s->half[1] + s->half[2];
    for (int k = 0; k < 8; k++)
        for (int r = 0; r < 3; r++)
            bf->corner[k][r] = s->c[r] + ((k & 1) ? bf->e[0][r] : -bf->e[0][r]) +
                               ((k & 2) ? bf->e[1][r] : -bf->e[1][r]) + ((k & 4) ? bf->e[2][r] : -bf->e[2][r]);
}

/* Squared distance between the box of points p and q and the triangle's box. */
static double box_gap2(const double p[3], const double q[3], const mq_dw_tri *t)
{
    double g2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double lo = p[k] < q[k] ? p[k] : q[k], hi = p[k] < q[k] ? q[k] : p[k];
        double g = lo - t->hi[k] > t->lo[k] - hi ? lo - t->hi[k] : t->lo[k] - hi;
        if (g > 0.0)
            g2 += g * g;
    }
    return g2;
}

/* Keeps the part of [*lo, *hi] (a parameter along a segment) where a height
 * going linearly from a to b is at least -s; false when nothing is left. */
static inline bool clip_height(double a, double b, double s, double *lo, double *hi)
{
    a += s;
    b += s;
    if (a >= 0.0 && b >= 0.0)
        return true;
    if (!(a >= 0.0) && !(b >= 0.0))
        return false;
    double x = a / (a - b);
    if (a < 0.0)
        *lo = x > *lo ? x : *lo;
    else
        *hi = x < *hi ? x : *hi;
    return *lo <= *hi + 1e-9;
}

/* Distance from a solid box to a triangle apart from it, given which faces
 * have a triangle corner on their outer side (front[i][side], side 1: +i)
 * and every corner's height over every face's plane (h[i][side][v]): the
 * least of the distances of the triangle's corners to those faces (where
 * they project inside), of the faces' corners to the triangle, and of the
 * faces' edges to the triangle's edges (each box corner and edge once). The
 * closest points go to ps (box) and pt (triangle).
 *
 * A closest pair (x on the box, y on the triangle) has y - x in the box's
 * normal cone at x: for x on a box edge or corner, y lies in front of each
 * face there, up to kappa |y - x| (the faces' normals are orthogonal only to
 * within the OBB tolerance). So once a pair at distance d is known (first
 * the triangle's corners moved into the box, a cheap upper bound), an edge
 * is kept only against the triangle edges with a part in front of both its
 * faces by -kappa d, and a corner only when each of its faces has a triangle
 * corner in front of it by -kappa d. */
static double box_triangle_apart(const box_faces *bf, const mq_dw_tri *t, bool front[3][2], double (*h)[2][3],
                                 double (*l2)[3], double ps[3], double pt[3])
{
    double best = INFINITY, x[3], y[3], mag = bf->hsum;
    /* an upper bound: each triangle corner against its point clamped into the box */
    for (int v = 0; v < 3; v++) {
        double q[3], d2 = 0.0;
        d3_copy(q, bf->c);
        for (int i = 0; i < 3; i++) {
            double u = bf->off[i] > 0.0 ? l2[i][v] / bf->off[i] : 0.0;
            u = u < -1.0 ? -1.0 : u > 1.0 ? 1.0 : u;
            for (int k = 0; k < 3; k++)
                q[k] += u * bf->e[i][k];
        }
        for (int k = 0; k < 3; k++) {
            double dk = t->d.v[v][k] - q[k];
            d2 += dk * dk;
            double m = fabs(t->d.v[v][k] - bf->c[k]);
            mag = m > mag ? m : mag;
        }
        if (d2 < best) {
            best = d2;
            d3_copy(ps, q);
            d3_copy(pt, t->d.v[v]);
        }
    }
    /* the triangle's corners over the faces */
    for (int i = 0; i < 3; i++) {
        if (!bf->gram_ok[i] || !(bf->inv_len[i] > 0.0))
            continue;
        int j = (i + 1) % 3, l = (i + 2) % 3;
        for (int side = 0; side < 2; side++) {
            if (!front[i][side])
                continue;
            double sign = side ? 1.0 : -1.0;
            for (int v = 0; v < 3; v++) {
                /* w = v - (c + sign e[i]), from the face's centre */
                double w[3], wj = 0.0, wl = 0.0, wn = 0.0;
                for (int k = 0; k < 3; k++) {
                    w[k] = t->d.v[v][k] - (bf->c[k] + sign * bf->e[i][k]);
                    wj += w[k] * bf->e[j][k];
                    wl += w[k] * bf->e[l][k];
                    wn += w[k] * bf->n[i][k];
                }
                double al = bf->igram[i][0] * wj + bf->igram[i][1] * wl;
                double be = bf->igram[i][1] * wj + bf->igram[i][2] * wl;
                if (!(fabs(al) <= 1.0 && fabs(be) <= 1.0))
                    continue;
                double hh = wn * bf->inv_len[i], d2 = hh * hh;
                if (d2 < best) {
                    best = d2;
                    for (int k = 0; k < 3; k++) {
                        ps[k] = t->d.v[v][k] - hh * bf->n[i][k] * bf->inv_len[i];
                        pt[k] = t->d.v[v][k];
                    }
                }
            }
        }
    }
    /* the triangle's edges' outward normals in its plane (m[e], e from corner
     * e to e + 1) and how far below 0 a box point's height over one may go to
     * rounding (mtol[e]): a closest pair on a triangle edge's inside has the
     * box point on that edge's outer side; none for a flat triangle */
    double m[3][3], mtol[3];
    bool sides = !t->d.flat && t->d.n2 > 0.0;
    for (int e = 0; sides && e < 3; e++) {
        const double *q0 = t->d.v[e], *q1 = t->d.v[(e + 1) % 3], *q2 = t->d.v[(e + 2) % 3], *n = t->d.n;
        double u[3] = {q1[0] - q0[0], q1[1] - q0[1], q1[2] - q0[2]};
        m[e][0] = u[1] * n[2] - u[2] * n[1];
        m[e][1] = u[2] * n[0] - u[0] * n[2];
        m[e][2] = u[0] * n[1] - u[1] * n[0];
        double o = m[e][0] * (q2[0] - q0[0]) + m[e][1] * (q2[1] - q0[1]) + m[e][2] * (q2[2] - q0[2]);
        if (o > 0.0)
            for (int k = 0; k < 3; k++)
                m[e][k] = -m[e][k];
        mtol[e] = 1e-9 * 4.0 * mag * sqrt(m[e][0] * m[e][0] + m[e][1] * m[e][1] + m[e][2] * m[e][2]);
    }
    double ch[8][3]; /* each box corner's height over each triangle edge's outer side */
    for (int k = 0; sides && k < 8; k++)
        for (int e = 0; e < 3; e++) {
            const double *q0 = t->d.v[e];
            ch[k][e] = m[e][0] * (bf->corner[k][0] - q0[0]) + m[e][1] * (bf->corner[k][1] - q0[1]) +
                       m[e][2] * (bf->corner[k][2] - q0[2]) + mtol[e];
        }
    /* how far behind a face's plane the triangle may reach and still be nearer than best */
    double s = bf->kappa * sqrt(best) * (1.0 + 0x1p-20) + 1e-9 * mag;
    /* the box's corners and edges on those faces */
    for (int k = 0; k < 8; k++) {
        bool on = false, cone = true;
        for (int i = 0; i < 3; i++) {
            int side = (k >> i) & 1;
            on = on || front[i][side];
            cone = cone && (h[i][side][0] >= -s || h[i][side][1] >= -s || h[i][side][2] >= -s);
        }
        if (!on)
            continue;
        double d2;
        if (cone && !(box_gap2(bf->corner[k], bf->corner[k], t) * (1.0 - 0x1p-40) >= best)) {
            d2 = mq_td_point_triangle2(bf->corner[k], &t->d, y);
            if (d2 < best) {
                best = d2;
                d3_copy(ps, bf->corner[k]);
                d3_copy(pt, y);
                s = bf->kappa * sqrt(best) * (1.0 + 0x1p-20) + 1e-9 * mag;
            }
        }
        for (int a = 0; a < 3; a++) {
            if ((k >> a) & 1)
                continue; /* each edge once: from its corner with bit a clear */
            int b = (a + 1) % 3, c = (a + 2) % 3, sb = (k >> b) & 1, sc = (k >> c) & 1;
            if (!front[b][sb] && !front[c][sc])
                continue;
            const double *p0 = bf->corner[k], *p1 = bf->corner[k | (1 << a)];
            int gap = 0; /* the edge's box against the triangle's: 0 not yet, 1 near, -1 too far */
            for (int e = 0; e < 3; e++) {
                int f = (e + 1) % 3;
                double lo = 0.0, hi = 1.0;
                if (sides && ch[k][e] < 0.0 && ch[k | (1 << a)][e] < 0.0)
                    continue; /* the box edge wholly inside this triangle edge's side */
                if (!clip_height(h[b][sb][e], h[b][sb][f], s, &lo, &hi) ||
                    !clip_height(h[c][sc][e], h[c][sc][f], s, &lo, &hi))
                    continue; /* no part of this triangle edge in front of both faces */
                if (gap == 0)
                    gap = box_gap2(p0, p1, t) * (1.0 - 0x1p-40) >= best ? -1 : 1;
                if (gap < 0)
                    break; /* no nearer than the triangle's box: cannot do better */
                d2 = mq_td_segment_segment2(p0, p1, t->d.v[e], t->d.v[f], x, y);
                if (d2 < best) {
                    best = d2;
                    d3_copy(ps, x);
                    d3_copy(pt, y);
                    s = bf->kappa * sqrt(best) * (1.0 + 0x1p-20) + 1e-9 * mag;
                }
            }
        }
    }
    return sqrt(best);
}

/* Distance from a solid box to a triangle (see the file comment). Apart, a
 * face whose plane has all of the triangle in front of it farther than
 * `limit` is left out; when that leaves none, INFINITY. */
static double box_triangle(const mq_dist_shape *s, const box_faces *bf, const mq_dw_tri *t, bool overlap, double limit,
                           double ps[3], double pt[3])
{
    if (overlap)
        for (int v = 0; v < 3; v++)
            if (box_contains(s, t->d.v[v])) {
                d3_copy(ps, t->d.v[v]);
                d3_copy(pt, t->d.v[v]);
                return 0.0;
            }
    if (bf->fast) {
        if (!overlap) /* (again: shape_triangle measured it, rarely comes here) */
            return mq_td_box_triangle(&bf->frame, &t->d, ps, pt);
        mq_td_box_triangle_witness(&bf->frame, &t->d, pt);
        d3_copy(ps, pt);
        return 0.0;
    }
    bool front[3][2], any = false, skipped = false;
    double l2[3][3], h[3][2][3];
    for (int i = 0; i < 3; i++) {
        for (int v = 0; v < 3; v++) {
            l2[i][v] = 0.0;
            for (int k = 0; k < 3; k++)
                l2[i][v] += (t->d.v[v][k] - s->c[k]) * bf->n[i][k];
        }
        for (int side = 0; side < 2; side++) {
            double sign = side ? 1.0 : -1.0;
            double gap = INFINITY; /* least height of a corner over the face's plane */
            bool f = overlap;      /* overlapping: every face may hold the crossing */
            for (int v = 0; v < 3; v++) {
                double hgt = sign * l2[i][v] - bf->off[i];
                h[i][side][v] = hgt * bf->inv_len[i];
                f = f || hgt > 0.0;
                gap = hgt < gap ? hgt : gap;
            }
            if (f && !overlap && gap > 0.0 && gap * bf->inv_len[i] * (1.0 - 0x1p-40) > limit) {
                f = false; /* all of the triangle in front, beyond the limit */
                skipped = true;
            }
            front[i][side] = f;
            any = any || f;
        }
    }
    if (!overlap) {
        if (any)
            return box_triangle_apart(bf, t, front, h, l2, ps, pt);
        if (skipped)
            return INFINITY;
        /* no face in front of any corner: rounding; the box centre's view */
        double q[3];
        mq_td_point_triangle2(s->c, &t->d, q);
        d3_copy(ps, q);
        d3_copy(pt, q);
        return 0.0;
    }
    /* overlapping: a common point, where the triangle crosses a face */
    double best = INFINITY;
    for (int i = 0; i < 3; i++)
        for (int side = 0; side < 2; side++)
            for (int hf = 0; hf < 2; hf++) {
                const mq_td_tri *f = &bf->half[i][side][hf];
                double a[3], b[3];
                mq_td_triangle_witness(f, &t->d, a, b);
                double dd[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
                double d = sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]);
                if (d < best) {
                    best = d;
                    d3_copy(ps, b);
                    d3_copy(pt, b);
                }
            }
    return 0.0;
}

/* A lower bound of the distance between the hull and anything in node box
 * b, from the hull's first `np` face planes (the largest,
 * convex_internal.h): the hull lies below each, so the box's least height
 * over one bounds the distance. */
static double convex_planes_lower_bound(const mq_convex *cv, uint32_t np, const mq_dw_nbox *b)
{
    const double *c = b->c;
    double lb = -INFINITY;
    np = np < cv->np ? np : cv->np;
    for (uint32_t i = 0; i < np; i++) {
        const mq_cplane *p = &cv->planes[i];
        double h = p->n[0] * c[0] + p->n[1] * c[1] + p->n[2] * c[2] - p->d;
        for (int k = 0; k < 3; k++)
            h -= fabs(p->n[0] * b->e[k][0] + p->n[1] * b->e[k][1] + p->n[2] * b->e[k][2]);
        lb = h > lb ? h : lb;
    }
    return lb;
}

/* The gap between the hull and node box b along the line from the box's
 * centre to the hull's centre, -INFINITY when they coincide. */
static double convex_box_centre_gap(const mq_convex *cv, const mq_dw_nbox *b)
{
    double u[3], l2 = 0.0, mag = cv->scale;
    for (int k = 0; k < 3; k++) {
        u[k] = cv->center[k] - b->c[k];
        l2 += u[k] * u[k];
        mag = fabs(b->c[k]) + b->ext[k] > mag ? fabs(b->c[k]) + b->ext[k] : mag;
    }
    if (!(l2 > 0.0))
        return -INFINITY;
    double inv = 1.0 / sqrt(l2), lo = INFINITY, r = 0.0;
    for (int k = 0; k < 3; k++)
        u[k] *= inv;
    for (int i = 0; i < 3; i++)
        r += fabs(u[0] * b->e[i][0] + u[1] * b->e[i][1] + u[2] * b->e[i][2]);
    for (uint32_t i = 0; i < cv->nv; i++) {
        const double *v = cv->v + 3 * (size_t)i;
        double x = u[0] * (v[0] - b->c[0]) + u[1] * (v[1] - b->c[1]) + u[2] * (v[2] - b->c[2]);
        lo = x < lo ? x : lo;
    }
    return (lo - r) * (1.0 - 0x1p-40) - 0x1p-40 * mag;
}

/* The triangle's least height over one of the hull's first `np` face planes. */
static double convex_triangle_lower_bound(const mq_convex *cv, uint32_t np, const mq_dw_tri *t)
{
    double lb = -INFINITY;
    np = np < cv->np ? np : cv->np;
    for (uint32_t i = 0; i < np; i++) {
        const mq_cplane *p = &cv->planes[i];
        double h = INFINITY;
        for (int v = 0; v < 3; v++) {
            double x = p->n[0] * t->d.v[v][0] + p->n[1] * t->d.v[v][1] + p->n[2] * t->d.v[v][2] - p->d;
            h = x < h ? x : h;
        }
        lb = h > lb ? h : lb;
    }
    return lb;
}

/* True when the triangle lies beyond the hull along the direction from
 * GJK's hull point ps to its triangle point pt, by more than the rounding
 * of coordinates of magnitude `mag`: then the two are apart, and the exact
 * overlap test would say so. GJK's distance alone certifies nothing: on a
 * sliver (a hull 1e13 long and a few units wide) it may stop with a pair
 * 1e8 apart for shapes that meet. */
static bool convex_triangle_apart(const mq_convex *cv, const mq_dw_tri *t, const double ps[3], const double pt[3],
                                  double mag)
{
    double u[3] = {pt[0] - ps[0], pt[1] - ps[1], pt[2] - ps[2]};
    double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (!(len > 0.0))
        return false;
    double hull_hi = -INFINITY, tri_lo = INFINITY;
    for (uint32_t i = 0; i < cv->nv; i++) {
        const double *v = cv->v + 3 * (size_t)i;
        double x = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
        hull_hi = x > hull_hi ? x : hull_hi;
    }
    for (int c = 0; c < 3; c++) { /* the float corners: those of the overlap test skipped */
        const float *v = t->f.v[c];
        double x = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
        tri_lo = x < tri_lo ? x : tri_lo;
    }
    return tri_lo - hull_hi > 1e-9 * mag * len;
}

/* Convex vs triangle: GJK on the double corners, 0 (and GJK's hull point as
 * the common point) when the exact overlap test on the float copy says they
 * meet, as mq_convex_triangle_distance does. The overlap test is skipped
 * only when GJK's pair certifies that they are apart. */
static double convex_triangle(const mq_dist_shape *s, const mq_dw_tri *t, double ps[3], double pt[3])
{
    mq_cpose id;
    mq_cpose_identity(&id);
    double d = mq_convex_gjk_points(s->convex, &id, &t->d.v[0][0], 3, ps, pt);
    double mag = s->convex->scale;
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++)
            mag = fabs(t->d.v[v][k]) > mag ? fabs(t->d.v[v][k]) : mag;
    if (!convex_triangle_apart(s->convex, t, ps, pt, mag) && mq_convex_overlap_tri_posed(s->convex, &id, &t->f)) {
        d3_copy(pt, ps);
        return 0.0;
    }
    if (!(d > 0.0)) { /* apart, though GJK lost the gap: as mq_convex_triangle_distance */
        mq_dtri dt;
        memcpy(dt.v, t->d.v, sizeof dt.v);
        d = mq_convex_tri_apart_d(s->convex, &id, &dt, ps, pt);
    }
    return d;
}

/* As mq_dist_shape_triangle, with a box's faces prepared and a limit for box_triangle. */
/* Whether the float overlap primitive could call a box and a triangle whose
 * distance in double is d apart meet: only when d is within what separates
 * their two views of the box (the slabs of its axes against the solid its
 * corners span, MQ_TD_BOX_ORTHO apart) and of the triangle (its float copy). */
static bool box_may_meet(const mq_dist_shape *s, const mq_dw_tri *t, double d)
{
    double reach = s->half[0] + s->half[1] + s->half[2], mag = 0.0;
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++) {
            double x = fabs(t->d.v[v][k] - s->c[k]);
            reach = x > reach ? x : reach;
            mag = fabs(t->d.v[v][k]) > mag ? fabs(t->d.v[v][k]) : mag;
        }
    return !(d > 8.0 * MQ_TD_BOX_ORTHO * reach + 0x1p-21 * (mag + fabs(s->c[0]) + fabs(s->c[1]) + fabs(s->c[2])));
}

static double shape_triangle(const mq_dist_shape *s, const box_faces *bf, const mq_dw_tri *t, double limit,
                             double ps[3], double pt[3])
{
    if ((s->kind == MQ_SHAPE_OBB || s->kind == MQ_SHAPE_AABB) && bf->fast) {
        /* measured first: the exact overlap test only where it can say 0 */
        double d = mq_td_box_triangle(&bf->frame, &t->d, ps, pt);
        if (!box_may_meet(s, t, d))
            return d;
    }
    switch (s->kind) {
    case MQ_SHAPE_OBB:
        return box_triangle(s, bf, t, mq_overlap_triangle_obb(&t->f, &s->src.u.obb), limit, ps, pt);
    case MQ_SHAPE_AABB:
        return box_triangle(s, bf, t, mq_overlap_triangle_aabb(&t->f, &s->src.u.aabb), limit, ps, pt);
    default:
        return mq_dist_shape_triangle(s, t, ps, pt);
    }
}

/* Whether the float overlap primitive of a round shape (core points p, q,
 * radius r) could call it and a triangle whose core distance in double is
 * d2 (squared) meet: only when the gap is within its float rounding, 2^-12
 * of the reach (a wide margin over the primitives' error). */
static bool round_may_meet(const double p[3], const double q[3], double r, const mq_dw_tri *t, double d2)
{
    double reach = r;
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++) {
            double a = fabs(t->d.v[v][k] - p[k]), b = fabs(t->d.v[v][k] - q[k]);
            reach = a > reach ? a : reach;
            reach = b > reach ? b : reach;
        }
    return !(sqrt(d2) - r > 0x1p-12 * (reach + r));
}

double mq_dist_shape_triangle(const mq_dist_shape *s, const mq_dw_tri *t, double ps[3], double pt[3])
{
    switch (s->kind) {
    case MQ_SHAPE_SPHERE: {
        double q[3];
        double d2 = mq_td_point_triangle2(s->c, &t->d, q);
        if (round_may_meet(s->c, s->c, s->radius, t, d2) && mq_overlap_sphere_triangle(&s->src.u.sphere, &t->f)) {
            d3_copy(ps, q);
            d3_copy(pt, q);
            return 0.0;
        }
        return round_result(s->c, q, d2, s->radius, ps, pt);
    }
    case MQ_SHAPE_CAPSULE: {
        double best = INFINITY, a[3] = {0, 0, 0}, q[3] = {0, 0, 0}, x[3], y[3];
        const double *ends[2] = {s->p0, s->p1};
        for (int v = 0; v < 2; v++) {
            double d2 = mq_td_point_triangle2(ends[v], &t->d, y);
            if (d2 < best) {
                best = d2;
                d3_copy(a, ends[v]);
                d3_copy(q, y);
            }
        }
        for (int e = 0; e < 3; e++) {
            double d2 = mq_td_segment_segment2(s->p0, s->p1, t->d.v[e], t->d.v[(e + 1) % 3], x, y);
            if (d2 < best) {
                best = d2;
                d3_copy(a, x);
                d3_copy(q, y);
            }
        }
        /* the features' distance holds unless the axis crosses the face, which
         * needs its ends on both sides of the plane */
        bool may = round_may_meet(s->p0, s->p1, s->radius, t, best) || mq_td_segment_crossing(s->p0, s->p1, &t->d, x);
        if (may && mq_overlap_capsule_triangle(&s->src.u.capsule, &t->f)) {
            /* the axis may cross the triangle: its crossing is then a common point */
            if (mq_td_segment_crossing(s->p0, s->p1, &t->d, x)) {
                double d2 = mq_td_point_triangle2(x, &t->d, y);
                if (d2 < best) {
                    best = d2;
                    d3_copy(q, y);
                }
            }
            d3_copy(ps, q);
            d3_copy(pt, q);
            return 0.0;
        }
        return round_result(a, q, best, s->radius, ps, pt);
    }
    case MQ_SHAPE_OBB:
    case MQ_SHAPE_AABB: {
        box_faces bf;
        box_faces_of(s, &bf);
        return shape_triangle(s, &bf, t, INFINITY, ps, pt);
    }
    case MQ_SHAPE_CONVEX:
        return convex_triangle(s, t, ps, pt);
    default:
        return INFINITY;
    }
}

typedef struct sw_walk {
    const mq_dist_shape *s;
    bool box; /* an OBB or AABB: faces prepared in bf */
    box_faces bf;
    const mq_dist_side *b;
    double slo[3], shi[3]; /* the shape's box */
    bool nearest, found, stop;
    double bound, abs_tol, rel_tol, slack;
    double limit; /* what a node or triangle must not exceed (sw_set_limit) */
    mq_dist_pair best;
    mq_dist_pair_fn fn;
    void *user;
    size_t calls;
    /* A k-DOP or sphere tree under the identity map: its own volumes bound the
     * nodes tighter than their boxes (sw_tree_bound). */
    const mq_kdoptree *kdop;
    const mq_spheretree *sph;
    double dlo[MQ_KDOP_MAX_DIRS], dhi[MQ_KDOP_MAX_DIRS]; /* the shape on each k-DOP direction */
    double node_slack;                                   /* widening of a node volume (kdoptree/bvt.h) */
} sw_walk;

/* The limit follows the bound: kept in a field, as the walk reads it at
 * every node and triangle and it changes only with a nearer triangle. */
static void sw_set_limit(sw_walk *w)
{
    if (w->nearest && w->found)
        w->limit = (w->bound - w->abs_tol) / (1.0 + w->rel_tol) + w->slack;
    else
        w->limit = w->bound + w->slack;
}

static inline double sw_limit(const sw_walk *w)
{
    return w->limit;
}

/* A lower bound of the distance between a box shape and a triangle: their gap
 * in the box's coordinates (the triangle's projections on the box's axes).
 * The axes of a valid OBB are orthonormal only to within
 * MQ_OBB_AXIS_TOLERANCE, so the box's extents are grown and the gap shrunk
 * by a margin that covers that. When that says nothing, the gap along the
 * triangle's normal (exact for the box's corners c +- e[0] +- e[1] +- e[2]). */
static double box_triangle_lower_bound(const mq_dist_shape *s, const box_faces *bf, const mq_dw_tri *t)
{
    if (bf->fast)
        return mq_td_box_triangle_lower_bound(&bf->frame, &t->d);
    double grow = 4e-3 * (s->half[0] + s->half[1] + s->half[2]), g2 = 0.0;
    for (int i = 0; i < 3; i++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int v = 0; v < 3; v++) {
            double p = (t->d.v[v][0] - s->c[0]) * s->axes[i][0] + (t->d.v[v][1] - s->c[1]) * s->axes[i][1] +
                       (t->d.v[v][2] - s->c[2]) * s->axes[i][2];
            lo = p < lo ? p : lo;
            hi = p > hi ? p : hi;
        }
        double h = s->half[i] + grow, g = lo - h > -h - hi ? lo - h : -h - hi;
        if (g > 0.0)
            g2 += g * g;
    }
    double lb = sqrt(g2) / 1.004;
    /* the box's face planes: exact for its corners, along n[i] the box reaches off[i] */
    for (int i = 0; i < 3; i++) {
        const double *n = bf->n[i];
        double lo = INFINITY, hi = -INFINITY;
        for (int v = 0; v < 3; v++) {
            double p =
                (t->d.v[v][0] - s->c[0]) * n[0] + (t->d.v[v][1] - s->c[1]) * n[1] + (t->d.v[v][2] - s->c[2]) * n[2];
            lo = p < lo ? p : lo;
            hi = p > hi ? p : hi;
        }
        double g = (lo > -hi ? lo : -hi) - bf->off[i];
        if (g > 0.0) {
            g *= bf->inv_len[i] * (1.0 - 0x1p-40);
            lb = g > lb ? g : lb;
        }
    }
    /* the triangle's plane (none for a normal of rounding noise) */
    const double *n = t->d.n;
    if (t->d.flat || !(t->d.n2 > 0.0))
        return lb;
    double p =
        fabs(n[0] * (t->d.v[0][0] - s->c[0]) + n[1] * (t->d.v[0][1] - s->c[1]) + n[2] * (t->d.v[0][2] - s->c[2]));
    for (int i = 0; i < 3; i++)
        p -= fabs(n[0] * bf->e[i][0] + n[1] * bf->e[i][1] + n[2] * bf->e[i][2]);
    if (p > 0.0) {
        p = p / sqrt(t->d.n2) * (1.0 - 0x1p-40);
        lb = p > lb ? p : lb;
    }
    return lb;
}

/* The triangle's gap to the hull along the triangle's normal (the hull's
 * vertices against the triangle's corners), -INFINITY when it has none. All
 * three corners count: the computed normal of a sliver is off its plane. */
static double convex_triangle_normal_gap(const mq_convex *cv, const mq_dw_tri *t)
{
    const double *n = t->d.n;
    if (t->d.flat || !(t->d.n2 > 0.0))
        return -INFINITY;
    double plo = INFINITY, phi = -INFINITY, lo = INFINITY, hi = -INFINITY;
    for (int c = 0; c < 3; c++) {
        double x = n[0] * t->d.v[c][0] + n[1] * t->d.v[c][1] + n[2] * t->d.v[c][2];
        plo = x < plo ? x : plo;
        phi = x > phi ? x : phi;
    }
    for (uint32_t i = 0; i < cv->nv; i++) {
        const double *v = cv->v + 3 * (size_t)i;
        double x = n[0] * v[0] + n[1] * v[1] + n[2] * v[2];
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    double g = plo - hi > lo - phi ? plo - hi : lo - phi, mag = cv->scale;
    for (int k = 0; k < 3; k++) {
        mag = fabs(t->lo[k]) > mag ? fabs(t->lo[k]) : mag;
        mag = fabs(t->hi[k]) > mag ? fabs(t->hi[k]) : mag;
    }
    return g / sqrt(t->d.n2) * (1.0 - 0x1p-40) - 0x1p-40 * mag;
}

/* The gap between the hull and the triangle along the direction from the
 * triangle's point nearest the hull's centre to that centre, -INFINITY when
 * they meet. The triangle's corners are measured too, not taken to reach no
 * further than that point: when the centre lies on the triangle to within
 * rounding, the direction is rounding noise, and any direction's gap between
 * the two extents is a lower bound. */
static double convex_triangle_centre_gap(const mq_convex *cv, const mq_dw_tri *t)
{
    double q[3], d2 = mq_td_point_triangle2(cv->center, &t->d, q);
    if (!(d2 > 0.0))
        return -INFINITY;
    double inv = 1.0 / sqrt(d2), u[3], lo = INFINITY, hi = -INFINITY, mag = cv->scale;
    for (int k = 0; k < 3; k++) {
        u[k] = (cv->center[k] - q[k]) * inv;
        mag = fabs(t->lo[k]) > mag ? fabs(t->lo[k]) : mag;
        mag = fabs(t->hi[k]) > mag ? fabs(t->hi[k]) : mag;
    }
    for (uint32_t i = 0; i < cv->nv; i++) {
        const double *v = cv->v + 3 * (size_t)i;
        double x = u[0] * (v[0] - q[0]) + u[1] * (v[1] - q[1]) + u[2] * (v[2] - q[2]);
        lo = x < lo ? x : lo;
    }
    for (int c = 0; c < 3; c++) {
        const double *v = t->d.v[c];
        double x = u[0] * (v[0] - q[0]) + u[1] * (v[1] - q[1]) + u[2] * (v[2] - q[2]);
        hi = x > hi ? x : hi;
    }
    return (lo - hi) * (1.0 - 0x1p-40) - 0x1p-40 * mag;
}

/* A lower bound of the distance from the shape to triangle t (-INFINITY:
 * none beyond the boxes' gap). */
static double sw_triangle_bound(const sw_walk *w, const mq_dw_tri *t, double limit)
{
    double lb = mq_dw_box_gap(w->slo, w->shi, t->lo, t->hi);
    if (lb > limit)
        return lb;
    if (w->box) {
        double l = box_triangle_lower_bound(w->s, &w->bf, t);
        lb = l > lb ? l : lb;
    } else if (w->s->convex) {
        double l = convex_triangle_lower_bound(w->s->convex, MQ_CONVEX_CULL_PLANES, t) * (1.0 - 0x1p-40);
        lb = l > lb ? l : lb;
        if (lb <= limit) {
            l = convex_triangle_normal_gap(w->s->convex, t);
            lb = l > lb ? l : lb;
        }
        if (lb <= limit) {
            l = convex_triangle_centre_gap(w->s->convex, t);
            lb = l > lb ? l : lb;
        }
    }
    return lb;
}

/* Offers the exact distance of the shape to triangle t to the walk. */
static void sw_exact(sw_walk *w, const mq_dw_tri *t)
{
    double ps[3], pt[3];
    double d = shape_triangle(w->s, &w->bf, t, sw_limit(w), ps, pt);
    mq_dist_pair p;
    p.triangle_a = MQ_NO_TRIANGLE;
    p.triangle_b = t->id;
    p.distance = d;
    d3_copy(p.point_a, ps);
    d3_copy(p.point_b, pt);
    if (w->nearest) {
        if (w->found ? !(d < w->bound) : !(d <= w->bound))
            return;
        w->found = true;
        w->bound = d;
        w->best = p;
        sw_set_limit(w);
        if (d == 0.0)
            w->stop = true;
    } else if (d <= w->bound) {
        w->calls++;
        if (!w->fn(&p, w->user))
            w->stop = true;
    }
}

/* The leaf's triangles within the limit by their bounds: their indices in
 * idx and bounds in lbs (the leaf's order); their count. */
static int sw_leaf_near(sw_walk *w, const mq_dw_handle *h, mq_dw_tri t[MQ_DW_LEAF_MAX], int idx[MQ_DW_LEAF_MAX],
                        double lbs[MQ_DW_LEAF_MAX])
{
    int n = mq_dw_leaf_triangles(w->b, h, t), m = 0;
    double limit = sw_limit(w);
    for (int i = 0; i < n; i++) {
        double lb = sw_triangle_bound(w, &t[i], limit);
        if (lb > limit)
            continue;
        idx[m] = i;
        lbs[m++] = lb;
    }
    return m;
}

/* The leaf's triangles, nearest bound first when looking for the nearest
 * (so that the first exact distance is likely the least and the others fall
 * to their bounds). */
static void sw_leaf(sw_walk *w, const mq_dw_handle *h)
{
    mq_dw_tri t[MQ_DW_LEAF_MAX];
    double lbs[MQ_DW_LEAF_MAX];
    int idx[MQ_DW_LEAF_MAX];
    int m = sw_leaf_near(w, h, t, idx, lbs);
    /* within d, and for the round shapes (whose bounds are the boxes' gaps): the mesh's order */
    if (w->nearest && (w->box || w->s->convex))
        for (int i = 1; i < m; i++) {
            double l = lbs[i];
            int x = idx[i], j = i;
            for (; j > 0 && lbs[j - 1] > l; j--) {
                lbs[j] = lbs[j - 1];
                idx[j] = idx[j - 1];
            }
            lbs[j] = l;
            idx[j] = x;
        }
    for (int o = 0; o < m && !w->stop; o++)
        if (!(lbs[o] > sw_limit(w)))
            sw_exact(w, &t[idx[o]]);
}

typedef struct sw_entry {
    mq_dw_handle h;
    double lb;
} sw_entry;

static bool is_identity(const double m[3][4])
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            if (m[r][c] != (r == c ? 1.0 : 0.0))
                return false;
    return true;
}

/* The shape's interval along n (not unit), in double: its core's projection
 * grown by the rounding radius (a box as the parallelepiped of its half-axis
 * vectors, the same solid the box bounds of the walk use; a convex by its
 * vertices). */
static void shape_interval(const mq_dist_shape *s, const mq_dw_nbox *core, double round, const double n[3], double *lo,
                           double *hi)
{
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (s->kind == MQ_SHAPE_CONVEX) {
        const double *v = s->convex->v;
        double a = INFINITY, b = -INFINITY;
        for (uint32_t i = 0; i < s->convex->nv; i++) {
            double p = n[0] * v[3 * i] + n[1] * v[3 * i + 1] + n[2] * v[3 * i + 2];
            a = p < a ? p : a;
            b = p > b ? p : b;
        }
        *lo = a;
        *hi = b;
        return;
    }
    double c = n[0] * core->c[0] + n[1] * core->c[1] + n[2] * core->c[2], h = round * len;
    for (int i = 0; i < 3; i++)
        h += fabs(n[0] * core->e[i][0] + n[1] * core->e[i][1] + n[2] * core->e[i][2]);
    *lo = c - h;
    *hi = c + h;
}

/* Sets up the tree-specific node bounds when b is a k-DOP or sphere tree in
 * its own frame (what the public entry points pass). */
static void sw_tree_prepare(sw_walk *w, const mq_dw_nbox *core, double round)
{
    if (!is_identity(w->b->m))
        return;
    double mag = 0.0;
    for (int k = 0; k < 3; k++)
        mag += fabs(core->c[k]) + core->ext[k];
    mag += round;
    if (w->b->kdoptree) {
        const mq_kdoptree *t = w->b->kdoptree;
        w->kdop = t;
        w->node_slack = mq_bvt_slack(&t->bvt, mag);
        for (uint32_t j = 0; j < t->m; j++) {
            double n[3] = {t->dirs[j][0], t->dirs[j][1], t->dirs[j][2]};
            shape_interval(w->s, core, round, n, &w->dlo[j], &w->dhi[j]);
        }
    } else if (w->b->spheretree) {
        w->sph = w->b->spheretree;
        w->node_slack = 2.0 * mq_bvt_slack(&w->sph->bvt, mag);
    }
}

/* Distance from p to the segment [a, b]. */
static double point_segment(const double p[3], const double a[3], const double b[3])
{
    double ab[3], ap[3], ab2 = 0.0, u = 0.0, d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ap[k] = p[k] - a[k];
        ab2 += ab[k] * ab[k];
        u += ab[k] * ap[k];
    }
    u = ab2 > 0.0 ? u / ab2 : 0.0;
    u = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
    for (int k = 0; k < 3; k++) {
        double x = ap[k] - u * ab[k];
        d2 += x * x;
    }
    return sqrt(d2);
}

/* A lower bound of the distance from the shape to anything in the node, from
 * the tree's own volume: the largest gap between the shape's interval and the
 * node's widened slab along a k-DOP direction (over |n|), or the distance from
 * the ball's centre to the shape's core less the radii and the widening;
 * -INFINITY when the tree has none (a BVH, an OBB tree, a mapped side). */
static double sw_tree_bound(const sw_walk *w, const mq_dw_handle *h, const mq_dw_nbox *core, double round)
{
    double lb = -INFINITY;
    if (w->kdop) {
        const mq_kdoptree *t = w->kdop;
        const float *sl = t->slabs + (size_t)h->ref * t->k;
        for (uint32_t j = 0; j < t->m; j++) {
            double a = w->dlo[j] - ((double)sl[t->m + j] + w->node_slack);
            double b = ((double)sl[j] - w->node_slack) - w->dhi[j];
            double g = (a > b ? a : b) * (double)t->inv_norm[j];
            lb = g > lb ? g : lb;
        }
    } else if (w->sph) {
        const float *ball = w->sph->spheres + 4 * (size_t)h->ref;
        double c[3] = {ball[0], ball[1], ball[2]}, d;
        const mq_dist_shape *s = w->s;
        if (s->kind == MQ_SHAPE_SPHERE) {
            d = point_segment(c, s->c, s->c);
        } else if (s->kind == MQ_SHAPE_CAPSULE) {
            d = point_segment(c, s->p0, s->p1);
        } else {
            double g2 = 0.0;
            for (int k = 0; k < 3; k++) {
                double x = fabs(c[k] - core->c[k]) - core->ext[k];
                g2 += x > 0.0 ? x * x : 0.0;
            }
            d = sqrt(g2);
            if (s->convex) {
                double ball_gap = point_segment(c, s->convex->center, s->convex->center) - s->convex->radius;
                d = ball_gap > d ? ball_gap : d;
            }
        }
        lb = d - round - (double)ball[3] - w->node_slack; /* an empty node's radius is -inf: never entered */
    }
    return lb * (1.0 - 0x1p-40);
}

/* The children of an inner node within the limit by their bounds, in ke
 * (looking for the nearest: the farthest first, equal bounds in the node's
 * order); their count. */
static int sw_children(sw_walk *w, const sw_entry *e, const mq_dw_nbox *sb, double round, sw_entry ke[MQ_BVH_WIDTH])
{
    mq_dw_handle kids[MQ_BVH_WIDTH];
    int nk = mq_dw_children(w->b, &e->h, kids), n = 0;
    double limit = sw_limit(w), bounds[MQ_BVH_WIDTH];
    mq_dw_nbox boxes[MQ_BVH_WIDTH];
    int kept = 0;
    if (w->b->obbtree) { /* both children at once */
        kept = mq_dw_obb_kids_bound(w->b, kids, sb, limit + round, boxes, bounds);
    } else {
        for (int i = 0; i < nk; i++) {
            mq_dw_nbox_of(w->b, &kids[i], &boxes[i]);
            bounds[i] = mq_dw_lower_bound(sb, &boxes[i], limit + round, true);
            kept |= !(bounds[i] > limit + round) << i;
        }
    }
    for (int i = 0; i < nk; i++) {
        if (!((kept >> i) & 1))
            continue;
        const mq_dw_nbox *kb = &boxes[i];
        double l = bounds[i] - round;
        if (l > limit)
            continue;
        if (w->kdop || w->sph) {
            double lt = sw_tree_bound(w, &kids[i], sb, round);
            if (lt > limit)
                continue;
            l = lt > l ? lt : l;
        }
        if (w->s->convex) {
            /* the hull's largest face planes and its extent toward the node */
            double lp = convex_planes_lower_bound(w->s->convex, MQ_CONVEX_CULL_PLANES, kb) * (1.0 - 0x1p-40);
            if (lp > limit)
                continue;
            l = lp > l ? lp : l;
            lp = convex_box_centre_gap(w->s->convex, kb);
            if (lp > limit)
                continue;
            l = lp > l ? lp : l;
        }
        ke[n++] = (sw_entry){kids[i], l};
    }
    if (!w->nearest || n < 2)
        return n;
    if (n == 2) { /* the OBB tree's two children: by index, no branch to mispredict */
        int near = ke[0].lb < ke[1].lb;
        sw_entry far = ke[near], other = ke[1 - near];
        ke[0] = far;
        ke[1] = other;
        return n;
    }
    for (int i = 1; i < n; i++) {
        sw_entry x = ke[i];
        int j = i;
        for (; j > 0 && ke[j - 1].lb < x.lb; j--)
            ke[j] = ke[j - 1];
        ke[j] = x;
    }
    return n;
}

/* Depth first from `root` (the children nearest first when looking for the nearest). */
static void sw_depth_first(sw_walk *w, sw_entry root, const mq_dw_nbox *sb, double round)
{
    sw_entry stack[MQ_TRAVERSAL_STACK + MQ_BVH_WIDTH];
    int top = 0;
    stack[top++] = root;
    while (top > 0 && !w->stop) {
        sw_entry e = stack[--top];
        if (e.lb > sw_limit(w))
            continue;
        if (mq_dw_is_leaf(w->b, &e.h)) {
            sw_leaf(w, &e.h);
            continue;
        }
        sw_entry ke[MQ_BVH_WIDTH];
        int n = sw_children(w, &e, sb, round, ke);
        for (int i = 0; i < n; i++)
            stack[top++] = ke[i];
    }
}

/* The nearest triangle, best first: the nodes in a queue by their lower
 * bounds, a leaf's triangles measured when it comes out (nearest bound
 * first), the walk ending at the first bound beyond the best distance. Past
 * the queue's room, a node is walked depth first. */
#define SW_QUEUE 256
typedef struct sw_qitem {
    double lb;
    mq_dw_handle h;
} sw_qitem;

static void sw_push(sw_qitem *q, int *n, sw_qitem it)
{
    int i = (*n)++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!(q[p].lb > it.lb))
            break;
        q[i] = q[p];
        i = p;
    }
    q[i] = it;
}

static sw_qitem sw_pop(sw_qitem *q, int *n)
{
    sw_qitem top = q[0], last = q[--*n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && q[c + 1].lb < q[c].lb)
            c++;
        if (!(last.lb > q[c].lb))
            break;
        q[i] = q[c];
        i = c;
    }
    if (*n > 0)
        q[i] = last;
    return top;
}

/* The nearest child goes on without the queue when no queued node is nearer
 * (it would come out next anyway): most steps then skip a push and a pop. */
static void sw_best_first(sw_walk *w, sw_entry root, const mq_dw_nbox *sb, double round)
{
    sw_qitem q[SW_QUEUE];
    int nq = 0;
    sw_entry e = root;
    bool next = true; /* e is the next node */
    while (!w->stop) {
        if (!next) {
            if (nq == 0)
                break;
            sw_qitem it = sw_pop(q, &nq);
            e = (sw_entry){it.h, it.lb};
        }
        next = false;
        if (e.lb > sw_limit(w))
            break; /* every other node is at least as far */
        if (mq_dw_is_leaf(w->b, &e.h)) {
            sw_leaf(w, &e.h);
            continue;
        }
        sw_entry ke[MQ_BVH_WIDTH];
        int n = sw_children(w, &e, sb, round, ke);
        if (n > 0 && (nq == 0 || !(ke[n - 1].lb > q[0].lb))) {
            e = ke[--n];
            next = true;
        }
        for (int i = n - 1; i >= 0 && !w->stop; i--) {
            if (nq < SW_QUEUE)
                sw_push(q, &nq, (sw_qitem){ke[i].lb, ke[i].h});
            else
                sw_depth_first(w, ke[i], sb, round);
        }
    }
}

static void sw_run(sw_walk *w)
{
    w->box = w->s->kind == MQ_SHAPE_OBB || w->s->kind == MQ_SHAPE_AABB;
    if (w->box)
        box_faces_of(w->s, &w->bf);
    mq_dw_nbox sb, rb;
    double round;
    shape_nbox(w->s, &sb, &round);
    for (int k = 0; k < 3; k++) {
        w->slo[k] = sb.c[k] - sb.ext[k] - round;
        w->shi[k] = sb.c[k] + sb.ext[k] + round;
    }
    mq_dw_handle root = mq_dw_root(w->b);
    mq_dw_nbox_of(w->b, &root, &rb);
    w->slack = 0x1p-21 * (mq_dw_magnitude(&sb, &rb) + round) + 1e-300;
    sw_set_limit(w);
    sw_tree_prepare(w, &sb, round);
    sw_entry r = {root, mq_dw_lower_bound(&sb, &rb, INFINITY, false) - round};
    if (w->nearest && (w->box || w->s->convex)) /* measured: best first pays for these, not for round shapes */
        sw_best_first(w, r, &sb, round);
    else
        sw_depth_first(w, r, &sb, round);
}

static bool tol_ok(double x)
{
    return x >= 0.0 && isfinite(x);
}

bool mq_dist_walk_shape_nearest(const mq_dist_shape *s, const mq_dist_side *b, double max_distance, double abs_tol,
                                double rel_tol, mq_dist_pair *out)
{
    if (!s || !mq_dw_side_ok(b) || !(max_distance >= 0.0) || !tol_ok(abs_tol) || !tol_ok(rel_tol))
        return false;
    mq_dist_side side = mq_dw_side_ready(b);
    sw_walk w = {0};
    w.s = s;
    w.b = &side;
    w.nearest = true;
    w.bound = max_distance;
    w.abs_tol = abs_tol;
    w.rel_tol = rel_tol;
    sw_run(&w);
    if (w.found && out)
        *out = w.best;
    return w.found;
}

size_t mq_dist_walk_shape_within(const mq_dist_shape *s, const mq_dist_side *b, double d, mq_dist_pair_fn fn,
                                 void *user)
{
    if (!s || !fn || !mq_dw_side_ok(b) || !(d >= 0.0))
        return 0;
    mq_dist_side side = mq_dw_side_ready(b);
    sw_walk w = {0};
    w.s = s;
    w.b = &side;
    w.bound = d;
    w.fn = fn;
    w.user = user;
    sw_run(&w);
    return w.calls;
}
