/*
 * When a ray is too nearly parallel to a triangle's plane for the plane
 * crossing to locate a hit. A hit is decided in the sheared float frame of
 * the watertight test, where such a triangle is a sliver thinner than
 * rounding; the plane, nearly containing the ray, is crossed where rounding
 * puts it, which can be far from the triangle (a ray within 1e-14 of a
 * plane was hit at t = 0, 2 units from the triangle; one within 1.5e-9 of
 * another at t = 38, 57 units from a unit triangle, which the ray meets near
 * t = 3; the float decision's rounding reaches about 1e-7 of the angle).
 * Below this angle the
 * hit is located where the decision put it: the sheared depths weighted by
 * the edge functions (primitives/ray_triangle.c; the BVH's traversal t).
 */
#ifndef MQ_PRIMITIVES_NEAR_PARALLEL_H
#define MQ_PRIMITIVES_NEAR_PARALLEL_H

#include <stdbool.h>

/* Sine of the angle between ray and plane below which the plane crossing is not used. */
#define MQ_NEAR_PARALLEL 1e-6

/* True when a ray of direction d is within MQ_NEAR_PARALLEL of the plane of
 * normal n: dn = n.d, nn = n.n, dd = d.d (NaN counts as near). */
static inline bool mq_near_parallel(double dn, double nn, double dd)
{
    return !(dn * dn > MQ_NEAR_PARALLEL * MQ_NEAR_PARALLEL * nn * dd);
}

/* 4 times the angle: vector code, whose sums round in another order, sends
 * rays in this wider band to the scalar code that decides. */
#define MQ_NEAR_PARALLEL_WIDE (4.0 * MQ_NEAR_PARALLEL)

/* mq_near_parallel with MQ_NEAR_PARALLEL_WIDE. */
static inline bool mq_near_parallel_wide(double dn, double nn, double dd)
{
    return !(dn * dn > MQ_NEAR_PARALLEL_WIDE * MQ_NEAR_PARALLEL_WIDE * nn * dd);
}

#endif
