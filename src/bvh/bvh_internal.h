/* The BVH object: what mq_bvh_build produces and every traversal reads. */
#ifndef MQ_BVH_BVH_INTERNAL_H
#define MQ_BVH_BVH_INTERNAL_H

#include <meshquery/bvh.h>

#include "bvh/bvh_layout.h"
#include "bvh/top_boxes.h"

struct mq_bvh {
    const mq_mesh *mesh; /* referenced, not owned (unless owned_mesh) */
    mq_mesh *owned_mesh; /* == mesh for a loaded BVH (meshquery/saved.h), freed with it; else NULL */
    mq_allocator alloc;  /* copy of the user's hook (zeroed = default) */
    bool has_alloc;
    uint32_t root;     /* a child reference (inner node, leaf, or MQ_REF_EMPTY) */
    float root_box[6]; /* lo x, hi x, lo y, hi y, lo z, hi z (MQ_LO_X order), in the MESH's units */
    /* The arena's geometry (node boxes, leaf corners) is stored pre-scaled by
     * scale = 2^scale_exp, chosen from the mesh's magnitude so its largest
     * finite |coordinate| lies in [0.5, 1) (mq_bvh_scale_exp): the float leaf
     * test's T = U*Z0 + V*Z1 + W*Z2 (~ coordinate^2 * t) then neither
     * overflows nor underflows for any float mesh. Rays are scaled by the
     * same power of two in mq_trace_prepare (exact: t is unchanged); readers
     * of the arena outside the ray kernels multiply by inv_scale. */
    int32_t scale_exp;      /* in [-126, 126] */
    float scale, inv_scale; /* 2^scale_exp, 2^-scale_exp */
    void *arena;            /* nodes and leaf blocks, depth-first (bvh_layout.h); 64-byte aligned */
    size_t arena_bytes;
    /* A BVH loaded by mq_bvh_load_mapped: the file's private mapping, which
     * holds the arena and the owned mesh's large arrays (not freed one by
     * one), and the saved format's hook that frees the owned mesh and unmaps
     * it (mq_bvh_destroy calls it; the BVH does not know the format). NULL
     * otherwise. */
    void *map;
    size_t map_bytes;
    void (*release_map)(mq_mesh *owned_mesh, void *map, size_t map_bytes);
    uint32_t node_count;
    uint32_t block_count;
    uint32_t leaf_count;
    uint32_t max_depth;
    double build_ms;
    mq_top_boxes top; /* the top boxes, for instances' world boxes (top_boxes.h) */
};

/* The exponent k that puts `magnitude` (a largest finite |coordinate|, >= 0)
 * into [0.5, 1) after scaling by 2^k, clamped to [-126, 126] (0 for 0). */
int32_t mq_bvh_scale_exp(float magnitude);

/* Sets scale_exp, scale and inv_scale. */
void mq_bvh_set_scale(mq_bvh *b, int32_t scale_exp);

/* Largest |coordinate| of the corners of the `count` triangles (3 vertex
 * indices each) whose corners are all finite; 0 if none. */
float mq_triangles_magnitude(const float *positions, const uint32_t *indices, size_t count);

static inline const mq_allocator *mq_bvh_allocator(const mq_bvh *b)
{
    return b->has_alloc ? &b->alloc : NULL;
}

#endif
