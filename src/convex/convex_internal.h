/*
 * The storage of a convex (meshquery/convex.h) and the internal forms of its
 * tests, which take the convex PLACED by a rigid pose (rotation R, translation
 * t: a point x of the convex sits at R x + t), so that trees and scenes test a
 * placed convex without building a moved copy.
 *
 * One block holds everything (one allocation, one free):
 *   - vertices in float (what the user gave, a subset of the input points) and
 *     in double (the same values), nv of each;
 *   - hull triangles (3 indices each, counter-clockwise from outside), nt;
 *   - face planes, distinct up to coplanar merging: unit normal n and offset
 *     d = max over the vertices of n . v, so every vertex lies inside every
 *     plane (in double), np;
 *   - edges (index pairs) between faces of different planes, ne.
 */
#ifndef MQ_CONVEX_CONVEX_INTERNAL_H
#define MQ_CONVEX_CONVEX_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <meshquery/convex.h>

typedef struct mq_cplane {
    double n[3];
    double d;
} mq_cplane;

struct mq_convex {
    mq_allocator alloc;
    bool has_alloc;
    size_t bytes; /* size of this block, header included */
    uint32_t nv, nt, np, ne;
    float *fv;         /* nv * 3 */
    double *v;         /* nv * 3 */
    uint32_t *tris;    /* nt * 3 */
    mq_cplane *planes; /* np */
    uint32_t *edges;   /* ne * 2 */
    double lo[3], hi[3];
    double center[3], radius; /* a ball holding every vertex */
    double scale;             /* largest |coordinate| of a vertex */
};

/* A triangle in double: v[i] is corner i. */
typedef struct mq_dtri {
    double v[3][3];
} mq_dtri;

/* A rigid pose: x -> R x + t (R row-major: R[i] is row i). */
typedef struct mq_cpose {
    double R[3][3];
    double t[3];
    bool identity;
} mq_cpose;

static inline void mq_cpose_identity(mq_cpose *p)
{
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            p->R[i][j] = i == j ? 1.0 : 0.0;
        p->t[i] = 0.0;
    }
    p->identity = true;
}

/* Unit quaternion (w, x, y, z; normalised here) and translation to a pose.
 * False for a zero or non-finite quaternion or a non-finite translation. */
bool mq_cpose_from_quat(const double q[4], const double t[3], mq_cpose *out);

/* A point of the pose's world in the convex's own frame: R^T (p - t). */
static inline void mq_cpose_to_local(const mq_cpose *p, const double w[3], double out[3])
{
    if (p->identity) {
        out[0] = w[0];
        out[1] = w[1];
        out[2] = w[2];
        return;
    }
    double d[3] = {w[0] - p->t[0], w[1] - p->t[1], w[2] - p->t[2]};
    for (int i = 0; i < 3; i++)
        out[i] = p->R[0][i] * d[0] + p->R[1][i] * d[1] + p->R[2][i] * d[2];
}

/* A point of the convex's frame in the pose's world: R x + t. */
static inline void mq_cpose_to_world(const mq_cpose *p, const double x[3], double out[3])
{
    if (p->identity) {
        out[0] = x[0];
        out[1] = x[1];
        out[2] = x[2];
        return;
    }
    for (int i = 0; i < 3; i++)
        out[i] = p->R[i][0] * x[0] + p->R[i][1] * x[1] + p->R[i][2] * x[2] + p->t[i];
}

static inline double mq_cdot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Nearest point of triangle (a, b, c) to p, in double (Ericson 5.1.5); returns
 * the squared distance. */
static inline double mq_convex_point_triangle2(const double p[3], const double *a, const double *b, const double *c,
                                               double q[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        ap[k] = p[k] - a[k];
        bp[k] = p[k] - b[k];
        cp[k] = p[k] - c[k];
    }
    double d1 = mq_cdot3(ab, ap), d2 = mq_cdot3(ac, ap), d3 = mq_cdot3(ab, bp), d4 = mq_cdot3(ac, bp),
           d5 = mq_cdot3(ab, cp), d6 = mq_cdot3(ac, cp);
    double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d1 <= 0 && d2 <= 0)
        memcpy(q, a, sizeof(double[3]));
    else if (d3 >= 0 && d4 <= d3)
        memcpy(q, b, sizeof(double[3]));
    else if (vc <= 0 && d1 >= 0 && d3 <= 0)
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + d1 / (d1 - d3) * ab[k];
    else if (d6 >= 0 && d5 <= d6)
        memcpy(q, c, sizeof(double[3]));
    else if (vb <= 0 && d2 >= 0 && d6 <= 0)
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + d2 / (d2 - d6) * ac[k];
    else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            q[k] = b[k] + w * (c[k] - b[k]);
    } else {
        double den = va + vb + vc;
        double v = den != 0.0 ? vb / den : 0.0, w = den != 0.0 ? vc / den : 0.0;
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + ab[k] * v + ac[k] * w;
    }
    double e[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    return mq_cdot3(e, e);
}

/* Hierarchy node culling by the face planes: false when the box
 * { centre + sum_i s_i axes[i] : |s_i| <= half[i] } (axes NULL: the world
 * axes) lies wholly above one of the first MQ_CONVEX_CULL_PLANES planes of
 * the convex (the largest faces: convex.c orders them so; unplaced: its own
 * frame is the mesh's). Evaluated in double with
 * a relative margin of 1e-7 of the terms involved (the box centre's, its
 * extent and the hull's own magnitude), so a box holding a point of the
 * convex is never culled. */
#define MQ_CONVEX_CULL_PLANES 8u

static inline bool mq_convex_box_may_meet(const mq_convex *c, const double centre[3], const float (*axes)[3],
                                          const double half[3])
{
    uint32_t np = c->np < MQ_CONVEX_CULL_PLANES ? c->np : MQ_CONVEX_CULL_PLANES;
    for (uint32_t i = 0; i < np; i++) {
        const mq_cplane *p = &c->planes[i];
        double s = p->n[0] * centre[0] + p->n[1] * centre[1] + p->n[2] * centre[2];
        double s_mag = fabs(p->n[0] * centre[0]) + fabs(p->n[1] * centre[1]) + fabs(p->n[2] * centre[2]);
        double e;
        if (axes) {
            e = 0.0;
            for (int k = 0; k < 3; k++)
                e += half[k] * fabs(p->n[0] * axes[k][0] + p->n[1] * axes[k][1] + p->n[2] * axes[k][2]);
        } else {
            e = half[0] * fabs(p->n[0]) + half[1] * fabs(p->n[1]) + half[2] * fabs(p->n[2]);
        }
        /* the margin follows the terms, not the sums, which may cancel: d is
         * a dot product with a vertex up to c->scale away */
        if (s - e - p->d > 1e-7 * (s_mag + e + 2.0 * c->scale))
            return false;
    }
    return true;
}

/* The world box of the placed convex (exact bounds of the rotated vertices,
 * computed in double), and its bounding ball (centre, radius). */
void mq_convex_placed_bounds(const mq_convex *c, const mq_cpose *p, double lo[3], double hi[3], double centre[3],
                             double *radius);

/* Convex (placed) vs the triangle whose corners are tri[0..2] in the pose's
 * world, in double. The exact decision of convex.h. */
bool mq_convex_overlap_tri_d(const mq_convex *c, const mq_cpose *p, const mq_dtri *tri);

/* The same, for a float triangle (non-finite corners: false). */
bool mq_convex_overlap_tri_posed(const mq_convex *c, const mq_cpose *p, const mq_triangle *tri);

/* The distance between the placed convex and a triangle mq_convex_overlap_tri_d
 * keeps apart, where GJK put them at 0 (a gap below its precision):
 * the least feature distance (vertex-triangle, edge-edge) to a hull triangle,
 * in double, and never 0 (at least DBL_TRUE_MIN, since they do not meet);
 * the closest pair (world) in out_c, out_t. */
double mq_convex_tri_apart_d(const mq_convex *c, const mq_cpose *p, const mq_dtri *tri, double out_c[3],
                             double out_t[3]);

/* Convex a placed by pa vs convex b placed by pb. */
bool mq_convex_overlap_convex_posed(const mq_convex *a, const mq_cpose *pa, const mq_convex *b, const mq_cpose *pb);

/* Point (in the convex's own frame) in the closed solid: every plane. */
bool mq_convex_contains_local(const mq_convex *c, const double x[3]);

/* GJK distance between the placed convex and a point set (1 to 3 points, xyz
 * triples, in the world of the pose, or another placed convex): the distance and a
 * closest pair (world). */
double mq_convex_gjk_points(const mq_convex *c, const mq_cpose *p, const double *pts, int npts, double out_c[3],
                            double out_p[3]);
double mq_convex_gjk_convex(const mq_convex *a, const mq_cpose *pa, const mq_convex *b, const mq_cpose *pb,
                            double out_a[3], double out_b[3]);

/* The gap at which mq_convex_cast_tri_d counts the moving convex as touching:
 * 1e-9 of the convex's size and placement plus the sweep's length (|dir| *
 * tmax, when finite). Walks that prune for casts grow their bounds by it. */
double mq_convex_cast_tolerance(const mq_convex *c, const mq_cpose *p, const double dir[3], double tmax);

/* First t in [0, tmax] at which the convex placed by p, moved by t * dir,
 * touches the triangle (world corners in double) to within
 * mq_convex_cast_tolerance; false if none. */
bool mq_convex_cast_tri_d(const mq_convex *c, const mq_cpose *p, const double dir[3], double tmax, const mq_dtri *tri,
                          double *t_hit);

#endif
