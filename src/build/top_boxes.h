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

/* An OBB tree node's box: { p : |axes[i] . (p - center)| <= half[i] }, the
 * axes (nearly) unit rows. */
typedef struct mq_top_box {
    double center[3], half[3];
    double axes[3][3];
} mq_top_box;

/* The OBB tree's boxes (its nodes' stored boxes) of the deepest top level
 * that fits in `cap` (<= MQ_TOP_BOXES_MAX); @return their count, 0 for an
 * empty tree. */
size_t mq_obbtree_top_boxes(const mq_obbtree *t, mq_top_box *out, size_t cap);

#endif
