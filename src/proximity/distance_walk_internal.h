/*
 * Pieces of the distance walk shared by the dual walk (distance_walk.c) and
 * the shape walk (distance_shape.c): node handles, node boxes mapped into the
 * common frame, their lower bounds, and a leaf's triangles mapped into it.
 */
#ifndef MQ_PROXIMITY_DISTANCE_WALK_INTERNAL_H
#define MQ_PROXIMITY_DISTANCE_WALK_INTERNAL_H

#include "bvh/bvh_layout.h"
#include "primitives/triangle_distance.h"
#include "proximity/distance_walk.h"

/* Most triangles in one leaf of either hierarchy. */
#define MQ_DW_LEAF_MAX 16

/* A node of either hierarchy: BVH: a child reference and its box (mesh frame);
 * OBB tree: the node's index (the box is in the node). */
typedef struct mq_dw_handle {
    uint32_t ref;
    float lo[3], hi[3];
} mq_dw_handle;

/* A node box in the common frame: centre, half-axis vectors, the half extents of
 * its enclosing AABB, its squared half diagonal (which node to split), and for
 * the separating-axis bound each half-axis vector's squared length and the
 * box's own extent along it (sum_k |e[i].e[k]|). */
typedef struct mq_dw_nbox {
    double c[3];
    double e[3][3];
    double ext[3];
    double size;
    double len2[3];
    double self[3];
} mq_dw_nbox;

/* A triangle mapped into the common frame: double corners, their float copies
 * (the intersection decision), the double box and centroid, the mesh id. */
typedef struct mq_dw_tri {
    mq_td_tri d;
    mq_triangle f;
    double lo[3], hi[3];
    double c[3];
    uint32_t id;
} mq_dw_tri;

/* A side with exactly one non-empty hierarchy and a finite map. */
bool mq_dw_side_ok(const mq_dist_side *s);
/* A copy of side s with `identity` set from its map (what the walks work on). */
mq_dist_side mq_dw_side_ready(const mq_dist_side *s);
mq_dw_handle mq_dw_root(const mq_dist_side *s);
void mq_dw_nbox_of(const mq_dist_side *s, const mq_dw_handle *h, mq_dw_nbox *out);
/* Fills ext, size, len2 and self of a box whose c and e are set. */
void mq_dw_nbox_finish(mq_dw_nbox *b);
bool mq_dw_is_leaf(const mq_dist_side *s, const mq_dw_handle *h);
/* The children of an inner node; returns their number (2 for the OBB tree, up to 8). */
int mq_dw_children(const mq_dist_side *s, const mq_dw_handle *h, mq_dw_handle out[MQ_BVH_WIDTH]);
/* A leaf's triangles with finite mapped corners; returns their number. */
int mq_dw_leaf_triangles(const mq_dist_side *s, const mq_dw_handle *h, mq_dw_tri out[MQ_DW_LEAF_MAX]);
/* Lower bound of the distance between anything in box a and anything in box b,
 * once clamped at 0: the larger of the gap between their enclosing AABBs and
 * their gap along the line of centres. When the AABBs overlap it is that
 * signed gap (negative: the boxes overlap along the line), which orders the
 * walk; it stops refining as soon as it exceeds `limit` (pruned anyway).
 * With `axes`, when that bound does not exceed a finite `limit`, the boxes' gaps along
 * their six half-axis directions (separating axes) are tried, and the first
 * one above `limit` is returned: a pair is pruned more often, while the value
 * of a pair that is kept (its place in the walk's order) is the same. */
double mq_dw_lower_bound(const mq_dw_nbox *a, const mq_dw_nbox *b, double limit, bool axes);
/* Both children of an OBB-tree node of side s (kids, from mq_dw_children)
 * into out[0], out[1] as mq_dw_nbox_of maps them, and bounded against box a
 * as mq_dw_lower_bound(a, out[i], limit, true) does (the same decisions and,
 * for a kept child, the same value), in two SSE2 lanes where the ISA switch
 * allows. Returns the kept children (bit i) with their bounds in lb[i] (a
 * pruned child's is not given). */
int mq_dw_obb_kids_bound(const mq_dist_side *s, const mq_dw_handle kids[2], const mq_dw_nbox *a, double limit,
                         mq_dw_nbox out[2], double lb[2]);
/* Distance between two axis-aligned boxes (0 when they overlap). */
double mq_dw_box_gap(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3]);
/* Largest |coordinate| of the two boxes' enclosing AABBs. */
double mq_dw_magnitude(const mq_dw_nbox *a, const mq_dw_nbox *b);

/* Distance between a solid shape and a mapped triangle (distance_shape.c), with the
 * closest points ps on the shape and pt on the triangle. */
double mq_dist_shape_triangle(const mq_dist_shape *s, const mq_dw_tri *t, double ps[3], double pt[3]);

#endif
