/*
 * The boxes of a hierarchy's top levels, in its mesh's units: together they
 * contain every triangle of the hierarchy, and they hug the mesh much more
 * closely than its root box does. An instance's world box is the union of
 * their mapped images (src/scene/instance_bounds.c): tighter world boxes mean
 * fewer instances visited per ray or shape query.
 */
#ifndef MQ_BVH_TOP_BOXES_H
#define MQ_BVH_TOP_BOXES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meshquery/bvh.h>

/* At most this many boxes (two levels of an 8-wide BVH). */
#define MQ_TOP_BOXES_MAX 64

/*
 * A hierarchy's top boxes, one array per coordinate (the world box's loop
 * over them vectorizes): box b is { center + sum_i s_i edge_i : |s_i| <=
 * half_i }, edge_i the local direction of its axis i. A BVH's boxes are
 * axis-aligned (edge_i = the unit axis, `edge` unset); an OBB tree's edges
 * are the columns of the inverse of the box's stored axis rows (those are not
 * exactly orthonormal, so their transpose would not do).
 *
 * Kept in the hierarchy (its `top`), as every instance of it maps them: set
 * by mq_bvh_set_top_boxes when a BVH is built, refit or loaded, by
 * mq_obbtree_set_top_boxes when an OBB tree is built or loaded. The arrays
 * share one block (`data`, `doubles` long) from the hierarchy's allocator,
 * freed by mq_top_boxes_free.
 */
typedef struct mq_top_boxes {
    uint32_t n;                  /* 0 for an empty hierarchy */
    bool ok;                     /* false: some OBB's axes are degenerate; instances then use the root box alone */
    double *center[3], *half[3]; /* [k][b]: coordinate k of box b */
    double *edge[3][3];          /* OBB tree: [j][i][b], component j of box b's edge_i */
    double *data;
    size_t doubles;
} mq_top_boxes;

/* The boxes as they are found, before their block is sized: rows 0-2 the
 * centre's coordinates, 3-5 the half extents, 6 + 3 j + i component j of
 * edge_i. */
enum { MQ_TOP_CENTER = 0, MQ_TOP_HALF = 3, MQ_TOP_EDGE = 6, MQ_TOP_ALIGNED_ROWS = 6, MQ_TOP_ORIENTED_ROWS = 15 };

typedef struct mq_box_scratch {
    uint32_t n;
    bool ok;
    double row[MQ_TOP_ORIENTED_ROWS][MQ_TOP_BOXES_MAX];
} mq_box_scratch;

/* Sets b->top from its nodes: the boxes of the deepest top level that fits
 * in MQ_TOP_BOXES_MAX. Exact (no rounding). MQ_ERR_OUT_OF_MEMORY, b->top
 * empty, when its block cannot be allocated (a refit reuses the block). */
mq_status mq_bvh_set_top_boxes(mq_bvh *b);

/* Copies the first `rows` rows of s into t's block (reused when its size
 * fits, else allocated anew); MQ_ERR_OUT_OF_MEMORY when it cannot be. */
mq_status mq_top_boxes_keep(const mq_allocator *a, mq_top_boxes *t, const mq_box_scratch *s, int rows);

/* Frees t's block (with the allocator of its hierarchy); t becomes empty. */
void mq_top_boxes_free(const mq_allocator *a, mq_top_boxes *t);

#endif
