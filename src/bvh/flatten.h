/*
 * Lays the builder's temporary tree out for traversal in one arena: each node
 * (child boxes in SoA form), then its leaves' 4-triangle blocks, then its
 * inner children, depth first (bvh_layout.h).
 * The layout depends only on the tree, never on how many threads built it.
 */
#ifndef MQ_BVH_FLATTEN_H
#define MQ_BVH_FLATTEN_H

#include "bvh/bvh_internal.h"
#include "bvh/wide_build.h"

/* Fills bvh->arena and its size, the counts, root, root_box and max_depth,
 * allocating through the BVH's allocator; the arena's geometry is scaled by
 * bvh->scale (set before), and the leaves are filled on `threads` threads. `tree` must be non-empty. MQ_OK,
 * MQ_ERR_LIMIT (arena beyond MQ_ARENA_MAX_UNITS) or MQ_ERR_OUT_OF_MEMORY (then
 * nothing is allocated). */
mq_status mq_flatten(mq_bvh *bvh, const mq_wide_tree *tree, const mq_prim_ref *refs, const float *positions,
                     const uint32_t *indices, uint32_t threads);

#endif
