/*
 * The exact side of a point of a line through two points, in the plane: the
 * sign of
 *
 *     det[a - c; b - c] = (a - c).x (b - c).y - (a - c).y (b - c).x,
 *
 * positive when a, b, c turn counter-clockwise, negative when clockwise, 0
 * exactly when they are collinear. Exact in the same range as orient3d.h
 * (coordinates integer multiples of 2^-358 below 2^340: every float).
 *
 * How: the determinant in double with Shewchuk's forward error bound (his
 * orient2d's first stage); only within it, recomputed exactly as an expansion
 * (core/expansion.h): from the two differences' products when those
 * differences were exact, else from the coordinates (three 2x2 minors).
 */
#ifndef MQ_CORE_ORIENT2D_H
#define MQ_CORE_ORIENT2D_H

#include <math.h>

/* Shewchuk's ccwerrboundA for double: (3 + 16 eps) eps with eps = 2^-53. If
 * |det| > this times |left| + |right| (the two products as rounded), det's
 * sign is the exact one. */
#define MQ_ORIENT2D_BOUND ((3.0 + 16.0 * 0x1p-53) * 0x1p-53)

/* The exact sign (-1, 0, +1) of det[a - c; b - c], by expansions only: the
 * slow path of mq_orient2d. Thread-safe, no allocation. */
int mq_orient2d_exact(const double a[2], const double b[2], const double c[2]);

/* The same sign, the double filter first. */
static inline int mq_orient2d(const double a[2], const double b[2], const double c[2])
{
    double left = (a[0] - c[0]) * (b[1] - c[1]), right = (a[1] - c[1]) * (b[0] - c[0]);
    double det = left - right, bound = MQ_ORIENT2D_BOUND * (fabs(left) + fabs(right));
    return det > bound ? 1 : det < -bound ? -1 : mq_orient2d_exact(a, b, c);
}

#endif
