/*
 * The exact side of a point of a plane through three points: the sign of
 *
 *     det[b - a; c - a; d - a] = ((b - a) x (c - a)) . (d - a),
 *
 * positive when d is on the side the normal (b - a) x (c - a) points to (a, b,
 * c counter-clockwise seen from d), negative on the other, 0 exactly when the
 * four points are coplanar. Exact when every coordinate is an integer multiple
 * of 2^-358 below 2^340 in magnitude, so that no exact intermediate value
 * (down to the last bits of a product of three coordinates) falls below the
 * smallest double or overflows: any float coordinates (multiples of 2^-149,
 * below 2^128), as they are or brought to a largest |coordinate| in [0.5, 1)
 * by a power of two, as the hull builder does (multiples of 2^-277).
 *
 * How: the determinant in double, with Shewchuk's forward error bound ("Adaptive
 * Precision Floating-Point Arithmetic and Fast Robust Geometric Predicates",
 * 1997, orient3d's first stage); only when its size is within that bound is it
 * recomputed exactly, as a floating-point expansion (a sum of non-overlapping
 * doubles): the 3x3 form from the differences when those were exact (grids,
 * most CAD points), else the 4x4 form from the coordinates themselves.
 */
#ifndef MQ_CORE_ORIENT3D_H
#define MQ_CORE_ORIENT3D_H

#include <math.h>

/* Shewchuk's o3derrboundA for double: (7 + 56 eps) eps with eps = 2^-53. If
 * |det| > this times the permanent (the determinant with every product and
 * difference taken by its magnitude), det's sign is the exact one. */
#define MQ_ORIENT3D_BOUND ((7.0 + 56.0 * 0x1p-53) * 0x1p-53)

/* The exact sign (-1, 0, +1) of det[b - a; c - a; d - a], by expansions
 * only: the slow path of the filters below. Thread-safe, no allocation. */
int mq_orient3d_exact(const double a[3], const double b[3], const double c[3], const double d[3]);

/* The plane of a, b, c prepared for many tests against it: its normal
 * (b - a) x (c - a) as rounded, and per component the size of the two
 * products it is the difference of (the permanent's factors). */
typedef struct mq_orient_plane {
    double n[3];
    double perm[3];
} mq_orient_plane;

static inline void mq_orient_plane_init(mq_orient_plane *pl, const double a[3], const double b[3], const double c[3])
{
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double m0 = e1[1] * e2[2], m1 = e1[2] * e2[1];
    double m2 = e1[2] * e2[0], m3 = e1[0] * e2[2];
    double m4 = e1[0] * e2[1], m5 = e1[1] * e2[0];
    pl->n[0] = m0 - m1;
    pl->n[1] = m2 - m3;
    pl->n[2] = m4 - m5;
    pl->perm[0] = fabs(m0) + fabs(m1);
    pl->perm[1] = fabs(m2) + fabs(m3);
    pl->perm[2] = fabs(m4) + fabs(m5);
}

/* det[b - a; c - a; d - a] as rounded, n . (d - a), for the a, b, c `pl`
 * was made from. */
static inline double mq_orient_plane_det(const mq_orient_plane *pl, const double a[3], const double d[3])
{
    return (d[0] - a[0]) * pl->n[0] + (d[1] - a[1]) * pl->n[1] + (d[2] - a[2]) * pl->n[2];
}

/* The bound on that determinant's error: its sign is exact when its size
 * is above this. */
static inline double mq_orient_plane_bound(const mq_orient_plane *pl, const double a[3], const double d[3])
{
    return MQ_ORIENT3D_BOUND *
           (fabs(d[0] - a[0]) * pl->perm[0] + fabs(d[1] - a[1]) * pl->perm[1] + fabs(d[2] - a[2]) * pl->perm[2]);
}

/* The same bound for every d with |d_k - a_k| <= reach: one per plane. */
static inline double mq_orient_plane_reach_bound(const mq_orient_plane *pl, double reach)
{
    return MQ_ORIENT3D_BOUND * (reach * pl->perm[0] + reach * pl->perm[1] + reach * pl->perm[2]);
}

/* The same sign for one test. */
static inline int mq_orient3d(const double a[3], const double b[3], const double c[3], const double d[3])
{
    mq_orient_plane pl;
    mq_orient_plane_init(&pl, a, b, c);
    double det = mq_orient_plane_det(&pl, a, d), bound = mq_orient_plane_bound(&pl, a, d);
    return det > bound ? 1 : det < -bound ? -1 : mq_orient3d_exact(a, b, c, d);
}

#endif
