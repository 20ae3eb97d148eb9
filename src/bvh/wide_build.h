/*
 * Top-down construction of an 8-wide tree straight from the SAH splits, as
 * Embree's BVH-N builders do: a node starts as one child holding all its refs;
 * the child with the largest surface area is split by the SAH until there are
 * eight children or none is worth splitting. That is the greedy collapse of
 * the binary SAH tree (Wald, Benthin & Boulos, "Getting rid of packets", 2008)
 * without ever storing the binary tree.
 *
 * The result is a temporary tree of mq_bnode (child boxes in AoS form, leaves
 * as ranges of the ref array), which flatten.c lays out for traversal.
 * Subtrees are built in parallel; every split decision depends only on the
 * refs of its own range, so the tree is the same for any thread count.
 */
#ifndef MQ_BVH_WIDE_BUILD_H
#define MQ_BVH_WIDE_BUILD_H

#include "bvh/bvh_layout.h"
#include "bvh/sah_split.h"

typedef struct mq_bnode {
    mq_bounds box[MQ_BVH_WIDTH];
    uint32_t child[MQ_BVH_WIDTH]; /* inner: bnode id; leaf: first ref */
    uint32_t count[MQ_BVH_WIDTH]; /* leaf: refs in it; 0: inner */
    uint32_t n;                   /* children used */
} mq_bnode;

/* Build nodes per chunk, allocated as the build needs them (each thread
 * fills its own): small, so that a small mesh's build does not hold memory
 * it never uses; a chunk is 256 nodes, about 81 KiB. */
#define MQ_BNODE_CHUNK 256u

typedef struct mq_build_params {
    int bins;             /* binned SAH bins per axis (2..MQ_MAX_BINS) */
    uint32_t sweep_below; /* exact sorted sweep for ranges of at most this many refs */
    uint32_t max_leaf;    /* 1..16 */
    float trav_cost;      /* cost of a node step, in 4-triangle block tests */
    uint32_t threads;     /* >= 1 */
} mq_build_params;

/* The built temporary tree; free with mq_wide_tree_free. */
typedef struct mq_wide_tree {
    mq_bnode **chunks;
    uint32_t chunk_count;
    uint32_t chunk_capacity;
    uint32_t root; /* bnode id; meaningless when the mesh has no triangles */
} mq_wide_tree;

static inline const mq_bnode *mq_wide_node(const mq_wide_tree *t, uint32_t id)
{
    return &t->chunks[id / MQ_BNODE_CHUNK][id % MQ_BNODE_CHUNK];
}

/* Builds over refs[0..count) (count >= 1), reordering them. `all` is the
 * range of every ref with its boxes. MQ_OK or MQ_ERR_OUT_OF_MEMORY (then
 * `out` holds nothing to free). */
mq_status mq_wide_build(mq_prim_ref *refs, const mq_build_range *all, const mq_build_params *p,
                        const mq_allocator *alloc, mq_wide_tree *out);

void mq_wide_tree_free(mq_wide_tree *t, const mq_allocator *alloc);

#endif
