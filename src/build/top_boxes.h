/*
 * The boxes of a hierarchy's top levels, as oriented boxes in its mesh's
 * units: together they contain every triangle of the hierarchy, and they hug
 * the mesh much more closely than its root box does. An instance's world box
 * is the union of their mapped images (src/scene/instance_bounds.c): tighter
 * world boxes mean fewer instances visited per ray or shape query.
 */
#ifndef MQ_BUILD_TOP_BOXES_H
#define MQ_BUILD_TOP_BOXES_H

#include <stdbool.h>
#include <stddef.h>

#include <meshquery/bvh.h>
#include <meshquery/obbtree.h>

/* At most this many boxes are returned (two levels of an 8-wide BVH). */
#define MQ_TOP_BOXES_MAX 64

/* { p : |axes[i] . (p - center)| <= half[i] }: axes are (nearly) unit rows;
 * when `aligned` (BVH boxes) they are the identity and left unset. */
typedef struct mq_top_box {
    double center[3], half[3];
    double axes[3][3];
    bool aligned;
} mq_top_box;

/* The BVH's boxes of the deepest top level that fits in `cap` (<= MQ_TOP_BOXES_MAX);
 * @return their count, 0 for an empty BVH. Exact (no rounding). */
size_t mq_bvh_top_boxes(const mq_bvh *b, mq_top_box *out, size_t cap);

/* The same for an OBB tree (its nodes' stored boxes). */
size_t mq_obbtree_top_boxes(const mq_obbtree *t, mq_top_box *out, size_t cap);

#endif
