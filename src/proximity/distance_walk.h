/*
 * The dual-hierarchy distance walk behind meshquery/proximity.h, and the one
 * the scene's instance queries (clash detection) call: two hierarchies, each
 * with its own double affine map into a COMMON frame (possibly with scale or
 * a mirror), the triangle distances measured in that frame in double.
 *
 * Triangle distance (proximity.h states it for users): each triangle's
 * corners are mapped into the common frame in double; the pair is at 0 when
 * the float-rounded mapped triangles intersect (mq_overlap_triangle_triangle,
 * exact for float input); otherwise the distance is the smallest of the 6
 * vertex-triangle and 9 edge-edge distances of the double corners. Triangles
 * with a non-finite corner, before or after mapping, are ignored.
 *
 * Precision: choose the common frame near the pair (for scene instances, the
 * world shifted by one instance's translation, so only the instances' offset
 * enters), since the intersection decision rounds mapped corners to float.
 * Each map is world = m[r][0]*x + m[r][1]*y + m[r][2]*z + m[r][3], the layout
 * of mq_xform.m (scene.h), so a scene record's to_world.m can be copied in
 * with its translation shifted.
 *
 * Bounds: every node box (the BVH's child AABBs, the OBB tree's boxes) is
 * mapped into the common frame as a parallelepiped (centre and three half-axis
 * vectors); two nodes' lower bound is the larger of the distance between their
 * enclosing common-frame AABBs and their gap along the line of centres, and
 * while the limit is the caller's d (clash, pairs within d) a pair is also
 * pruned by its gap along one of the six box axes (separating axes); two
 * triangles are also bounded by their gap along the line of their centroids.
 * The node whose enclosing common-frame AABB is larger is split (the
 * nearest-pair search splits two inner OBB-tree nodes both at once). The nearest-pair search takes the waiting pair of
 * smallest bound and descends from it greedily to a leaf pair (nearest
 * children; the siblings wait in a fixed heap, depth first beyond it): an
 * upper bound, or an intersection, comes early, and only pairs whose bound is
 * below the answer are split. Every-pair-within-d walks depth first. Fixed
 * stacks (about 230 KB of the caller's stack), no allocation, reentrant: any
 * number of threads may walk the same hierarchies.
 */
#ifndef MQ_PROXIMITY_DISTANCE_WALK_H
#define MQ_PROXIMITY_DISTANCE_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meshquery/bvh.h>
#include <meshquery/kdoptree.h>
#include <meshquery/obbtree.h>
#include <meshquery/spheretree.h>
#include <meshquery/types.h>

/* One side of a walk: exactly one of bvh / obbtree / kdoptree / spheretree
 * set (the last two after the map, so positional initialisers of the first
 * three fields stay valid; whoever fills a side field by field sets them
 * too), and its map from the hierarchy's mesh frame into the common frame
 * (row-major 3x4, as mq_xform.m). The map must be finite; it may be singular
 * or mirrored (the bounds are computed from the mapped boxes, so they stay
 * valid). A k-DOP node stands as the box of its three axis slabs, a sphere
 * node as the box around its ball. */
typedef struct mq_dist_side {
    const mq_bvh *bvh;
    const mq_obbtree *obbtree;
    double m[3][4];
    const mq_kdoptree *kdoptree;
    const mq_spheretree *spheretree;
    /* m is the identity: set by the walks on their own copy of a side
     * (whatever a caller leaves here is ignored), so that nodes and
     * triangles skip the map */
    bool identity;
} mq_dist_side;

/* A triangle pair and its distance, points in the common frame. */
typedef struct mq_dist_pair {
    uint32_t triangle_a, triangle_b; /* mesh ids */
    double distance;                 /* >= 0 */
    double point_a[3], point_b[3];   /* closest points; equal (to rounding) at distance 0 */
} mq_dist_pair;

/* Called for every pair within the walk's d; return false to stop the walk. */
typedef bool (*mq_dist_pair_fn)(const mq_dist_pair *pair, void *user);

/*
 * Nearest pair: the smallest distance between a triangle of a and one of b, if
 * it is at most max_distance (>= 0, may be INFINITY), to within the tolerance
 * abs_tol + rel_tol * distance (both >= 0; 0 and 0: exact to rounding).
 * Ties: an unspecified pair of the smallest distance (the walk stops at the
 * first intersecting pair).
 * Returns true and fills *out when such a pair exists; false for nothing
 * within max_distance, a side without a hierarchy or with an empty one, a
 * non-finite map, or NaN / negative max_distance or tolerances.
 */
bool mq_dist_walk_nearest(const mq_dist_side *a, const mq_dist_side *b, double max_distance, double abs_tol,
                          double rel_tol, mq_dist_pair *out);

/*
 * Every pair within d (distance <= d; d >= 0, may be INFINITY): calls fn once
 * per pair, in walk order (deterministic for the same inputs), until fn returns
 * false. Returns the number of calls made (including the one that stopped it);
 * 0 for invalid input as above.
 */
size_t mq_dist_walk_within(const mq_dist_side *a, const mq_dist_side *b, double d, mq_dist_pair_fn fn, void *user);

/* b_to_a (meshquery/obbtree.h) as a map: the normalised quaternion's rotation, then the
 * translation, in double. False for a NULL, zero or non-finite quaternion or translation. */
bool mq_dist_rigid_matrix(const mq_rigid *x, double m[3][4]);

/* ---- shapes (used by the public shape queries) ---- */

/* A solid query shape in the common frame, in double; kinds as mq_shape_kind.
 * For MQ_SHAPE_OBB, axes[i] are orthonormal rows; for MQ_SHAPE_AABB, lo/hi;
 * for MQ_SHAPE_CONVEX, the hull (its own frame is the common frame) and lo/hi
 * its box. */
typedef struct mq_dist_shape {
    mq_shape_kind kind;
    double c[3];             /* sphere: centre; OBB: centre */
    double p0[3], p1[3];     /* capsule: segment */
    double radius;           /* sphere, capsule */
    double half[3];          /* OBB half extents */
    double axes[3][3];       /* OBB axes (rows) */
    double lo[3], hi[3];     /* AABB; convex: the hull's box */
    const mq_convex *convex; /* convex: borrowed */
    mq_shape src;            /* the float shape, for the exact overlap primitive */
} mq_dist_shape;

/* Converts a (valid, known-kind) float shape in the mesh frame; false otherwise. */
bool mq_dist_shape_from(const mq_shape *shape, mq_dist_shape *out);

/* As mq_dist_walk_nearest / _within with side a a solid shape, given in the
 * common frame, and b a hierarchy with any map. The pair's triangle_a is
 * MQ_NO_TRIANGLE and point_a lies on the shape. */
bool mq_dist_walk_shape_nearest(const mq_dist_shape *s, const mq_dist_side *b, double max_distance, double abs_tol,
                                double rel_tol, mq_dist_pair *out);
size_t mq_dist_walk_shape_within(const mq_dist_shape *s, const mq_dist_side *b, double d, mq_dist_pair_fn fn,
                                 void *user);

#endif
