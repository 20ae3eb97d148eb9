/*
 * The hull builder's interface (hull_build.c) to mq_convex_create (convex.c):
 * the hull's triangles as indices into the input points.
 */
#ifndef MQ_CONVEX_CONVEX_BUILD_H
#define MQ_CONVEX_CONVEX_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include <meshquery/base.h>

/* Flatness tolerance of the builder, relative to the largest |coordinate| of
 * the points: a cloud whose points all lie within this of one point, line or
 * plane is an error. (Which side of a plane a point is on is decided exactly,
 * with no tolerance.) */
#define MQ_HULL_EPS 1e-13

typedef struct mq_hull_result {
    uint32_t *tris; /* nt * 3 indices into the input points, outward winding; from the allocator */
    uint32_t *nbrs; /* nt * 3: the triangle across edge (tris[3t + e], tris[3t + (e + 1) % 3]) */
    size_t nt;
} mq_hull_result;

/* Quickhull of `count` points (>= 4, count < 2^32). On success res->tris and
 * res->nbrs are allocated with `a` (the caller frees nt * 3 * 4 bytes each);
 * on failure nothing is left allocated and diag says why. */
mq_status mq_hull_build(const float *points, size_t count, const mq_allocator *a, mq_hull_result *res, mq_diag *diag);

#endif
