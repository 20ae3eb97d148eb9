/*
 * The boxes of a hierarchy's top levels, in its mesh's units: together they
 * contain every triangle of the hierarchy, and they hug the mesh much more
 * closely than its root box does. An instance's world box is the union of
 * their mapped images (src/scene/instance_bounds.c): tighter world boxes mean
 * fewer instances visited per ray or shape query.
 */
#ifndef MQ_BUILD_TOP_BOXES_H
#define MQ_BUILD_TOP_BOXES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meshquery/bvh.h>
#include <meshquery/obbtree.h>

/* At most this many boxes (two levels of an 8-wide BVH). */
#define MQ_TOP_BOXES_MAX 64

/*
 * A BVH's top boxes, axis-aligned, one array per coordinate (the world box's
 * loop over them vectorizes). Kept in the BVH (mq_bvh.top), as every
 * instance of it maps them: set by mq_bvh_set_top_boxes when the BVH is
 * built, refit or loaded.
 */
typedef struct mq_aligned_boxes {
    uint32_t n; /* 0 for an empty BVH */
    double center[3][MQ_TOP_BOXES_MAX], half[3][MQ_TOP_BOXES_MAX];
} mq_aligned_boxes;

/* Sets b->top from its nodes: the boxes of the deepest top level that fits
 * in MQ_TOP_BOXES_MAX. Exact (no rounding). */
void mq_bvh_set_top_boxes(mq_bvh *b);

/*
 * An OBB tree's top boxes: { center + sum_i s_i edge_i : |s_i| <= half_i },
 * edge_i the local direction of the box's axis i (the columns of the inverse
 * of its stored axis rows: those are not exactly orthonormal, so their
 * transpose would not do). Kept in the tree (mq_obbtree.top), set by
 * mq_obbtree_set_top_boxes when it is built or loaded.
 */
typedef struct mq_oriented_boxes {
    mq_aligned_boxes box; /* centres and half extents along the boxes' own axes */
    bool ok;              /* false: some box's axes are degenerate; instances then use the root box alone */
    double edge[3][3][MQ_TOP_BOXES_MAX]; /* edge[j][i][b]: component j of box b's edge_i */
} mq_oriented_boxes;

/* Sets t->top from its nodes: the boxes of the deepest level (breadth first
 * from the root, leaves kept) that fits in MQ_TOP_BOXES_MAX. */
void mq_obbtree_set_top_boxes(mq_obbtree *t);

#endif
