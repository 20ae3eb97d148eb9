/*
 * Filling the leaves' 4-triangle blocks from vertex positions (at build and at
 * refit). A triangle that can never be hit — a non-finite corner, or zero area
 * — is stored with NaN corners: NaN fails every comparison of the leaf test,
 * so the kernels need no extra check for it.
 */
#ifndef MQ_BVH_LEAF_PACK_H
#define MQ_BVH_LEAF_PACK_H

#include <stddef.h>

#include "bvh/bvh_layout.h"

/* True when the triangle can be hit: finite corners and a non-zero cross
 * product (v1-v0) x (v2-v0) in double (the verdict of mq_raycast_triangle). */
bool mq_triangle_hittable(const float *a, const float *b, const float *c);

/* Lane `lane` of `blk` := triangle `id` of the indexed mesh, corners times
 * `scale` (the BVH's power of two, bvh_internal.h; NaN corners when unhittable). */
void mq_block_set_lane(mq_tri_block *blk, int lane, uint32_t id, const float *positions, const uint32_t *indices,
                       float scale);

/* Lanes `first`..3 of `blk` := copies of lane 0. A leaf's last block is padded
 * this way: a copy is hit exactly when lane 0 is, with the same t and id, so it
 * never changes an answer, and (unlike NaN padding) it never sends the SIMD leaf
 * test down its slow path. A padding lane is recognised by id[lane] == id[0]. */
void mq_block_pad(mq_tri_block *blk, int first);

/* True when lane `lane` (> 0) of `blk` is padding (a copy of lane 0). */
static inline bool mq_block_lane_is_pad(const mq_tri_block *blk, int lane)
{
    return lane > 0 && blk->id[lane] == blk->id[0];
}

/* Box (lo[3], hi[3]) of the triangles in `count` blocks, grown into lo/hi:
 * the hittable lanes' stored corners, and, when `mesh_positions` is not NULL,
 * the unhittable (NaN) lanes' corners in `mesh_positions` (indexed by
 * `indices`) times `scale` when all are finite (zero-area triangles: the
 * scene's shape walkers take their corners from the mesh, bvh_walk.h).
 * Padding lanes do not count. Returns false when no lane counted. */
bool mq_blocks_bounds(const mq_tri_block *blk, uint32_t count, const float *mesh_positions, const uint32_t *indices,
                      float scale, float lo[3], float hi[3]);

#endif
