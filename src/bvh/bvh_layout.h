/*
 * The memory layout of a built BVH, shared by the builder (src/bvh, src/obbtree) and the
 * traversal kernels (src/bvh/kernels).
 *
 * Inner nodes are 8 wide with their children's boxes in SoA form, so one node
 * test is one 8-lane slab test (AVX2) or two 4-lane ones (SSE2), after Wald et
 * al., "Embree: a kernel framework for efficient CPU ray tracing", SIGGRAPH 2014.
 * Leaves are runs of 4-triangle blocks holding the three corners of each
 * triangle in SoA form (not v0 + edges: the watertight test must see the very
 * same corner values in every triangle sharing a vertex, and v0 + (v1 - v0) is
 * not always v1 in floating point).
 *
 * All geometry in the arena (node boxes, leaf corners) is in the mesh's units
 * times the BVH's power of two 2^scale_exp (bvh_internal.h); rays are scaled
 * alike (mq_trace_prepare).
 *
 * Nodes and leaf blocks share one arena, in depth-first order: a node, then
 * the blocks of its leaf children, then its inner children's subtrees. A leaf
 * thus sits next to its parent in memory (Embree gets the same from its
 * depth-first, thread-local allocation), so the leaf is often already on its
 * way into the cache when the node test picks it.
 *
 * Child references (uint32) count 32-byte units from the arena's start:
 *   bit 31 clear: an inner node at unit bits 0..30 (nodes are 64-byte aligned);
 *   bit 31 set:   a leaf: bits 0..1 = number of blocks - 1, bits 2..30 = unit of
 *                 its first block (blocks are contiguous);
 *   MQ_REF_EMPTY: an unused child slot (its box is empty: +inf..-inf, never hit).
 */
#ifndef MQ_BVH_BVH_LAYOUT_H
#define MQ_BVH_BVH_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MQ_BVH_WIDTH 8
#define MQ_TRI_BLOCK 4
/* Up to 4 blocks (16 triangles) per leaf, the limit of max_leaf_size. */
#define MQ_LEAF_MAX_BLOCKS 4
/* The builder keeps every leaf at most this many inner nodes below the root,
 * switching to median splits before it gets there; the traversal stack is
 * sized from it (each level pushes at most WIDTH - 1 entries), plus WIDTH
 * spare entries for kernels that store a node's 8 entries at once. */
#define MQ_BVH_MAX_DEPTH 64
#define MQ_TRAVERSAL_STACK (MQ_BVH_MAX_DEPTH * (MQ_BVH_WIDTH - 1) + MQ_BVH_WIDTH)
/* At most 2^28 triangles, and an arena below 2^29 units of 32 bytes (16 GiB,
 * the reach of a leaf reference). */
#define MQ_BVH_MAX_TRIANGLES (1u << 28)
#define MQ_ARENA_UNIT 32u
#define MQ_ARENA_MAX_UNITS (1u << 29)

#define MQ_REF_LEAF 0x80000000u
#define MQ_REF_EMPTY 0xFFFFFFFFu

static inline bool mq_ref_is_leaf(uint32_t ref)
{
    return (ref & MQ_REF_LEAF) != 0;
}
static inline uint32_t mq_ref_leaf_unit(uint32_t ref)
{
    return (ref & ~MQ_REF_LEAF) >> 2;
}
static inline uint32_t mq_ref_block_count(uint32_t ref)
{
    return (ref & 3u) + 1u;
}
static inline uint32_t mq_ref_make_leaf(uint32_t unit, uint32_t blocks)
{
    return MQ_REF_LEAF | (unit << 2) | (blocks - 1u);
}

/* Bound planes of a node, in this order; lo and hi of an axis are 8 lanes apart
 * so the near/far choice by the direction's sign is an offset. */
enum { MQ_LO_X = 0, MQ_HI_X = 1, MQ_LO_Y = 2, MQ_HI_Y = 3, MQ_LO_Z = 4, MQ_HI_Z = 5 };

/* 256 bytes, 64-byte aligned: four cache lines. */
typedef struct mq_node8 {
    float bounds[6][MQ_BVH_WIDTH]; /* [plane][child] */
    uint32_t child[MQ_BVH_WIDTH];
    uint32_t pad[MQ_BVH_WIDTH];
} mq_node8;

/* 160 bytes: corners v[corner][axis][lane], then the mesh's triangle ids.
 * A leaf's last block is padded with copies of its lane 0 (leaf_pack.h);
 * a triangle that can never be hit has NaN corners. */
typedef struct mq_tri_block {
    float v[3][3][MQ_TRI_BLOCK];
    uint32_t id[MQ_TRI_BLOCK];
} mq_tri_block;

_Static_assert(sizeof(mq_node8) == 256, "node layout");
_Static_assert(sizeof(mq_tri_block) == 160, "block layout");

/* The node or the first leaf block a reference points at, in `arena`. */
static inline const mq_node8 *mq_arena_node(const void *arena, uint32_t ref)
{
    return (const mq_node8 *)((const char *)arena + (size_t)ref * MQ_ARENA_UNIT);
}
static inline const mq_tri_block *mq_arena_leaf(const void *arena, uint32_t ref)
{
    return (const mq_tri_block *)((const char *)arena + (size_t)mq_ref_leaf_unit(ref) * MQ_ARENA_UNIT);
}
/* The same, writable: for the builder and refit, which own the arena. */
static inline mq_node8 *mq_arena_node_mut(void *arena, uint32_t ref)
{
    return (mq_node8 *)((char *)arena + (size_t)ref * MQ_ARENA_UNIT);
}
static inline mq_tri_block *mq_arena_leaf_mut(void *arena, uint32_t ref)
{
    return (mq_tri_block *)((char *)arena + (size_t)mq_ref_leaf_unit(ref) * MQ_ARENA_UNIT);
}

#endif
