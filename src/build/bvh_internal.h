/* The BVH object: what mq_bvh_build produces and every traversal reads. */
#ifndef MQ_BUILD_BVH_INTERNAL_H
#define MQ_BUILD_BVH_INTERNAL_H

#include <meshquery/bvh.h>

#include "build/bvh_layout.h"

struct mq_bvh {
    const mq_mesh *mesh;    /* referenced, not owned (unless owned_mesh) */
    mq_mesh *owned_mesh;    /* == mesh for a loaded BVH (meshquery/saved.h), freed with it; else NULL */
    mq_allocator alloc;     /* copy of the user's hook (zeroed = default) */
    bool has_alloc;
    uint32_t root;          /* a child reference (inner node, leaf, or MQ_REF_EMPTY) */
    float root_box[6];      /* lo x, hi x, lo y, hi y, lo z, hi z (MQ_LO_X order) */
    void *arena;            /* nodes and leaf blocks, depth-first (bvh_layout.h); 64-byte aligned */
    size_t arena_bytes;
    uint32_t node_count;
    uint32_t block_count;
    uint32_t leaf_count;
    uint32_t max_depth;
    double build_ms;
    /* What the (immutable) mesh carries for hit records, looked up once. */
};

static inline const mq_allocator *mq_bvh_allocator(const mq_bvh *b) { return b->has_alloc ? &b->alloc : NULL; }

#endif
