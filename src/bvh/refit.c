/*
 * Refit (meshquery/bvh.h): new corners into the leaf blocks, then every node
 * box recomputed bottom-up. The topology stays; only boxes and corners change.
 * The arena's power-of-two scale (bvh_internal.h) is chosen anew from the new
 * positions' magnitude, as the builder does. Boxes enclose what the builder's
 * enclose: the hittable triangles' corners and the zero-area triangles'
 * corners (which the scene's shape walkers take from the mesh, bvh_walk.h).
 */
#include <math.h>

#include "bvh/bvh_internal.h"
#include "bvh/leaf_pack.h"
#include "core/diag.h"
#include "mesh/mesh_internal.h"

/* Reloads one leaf's triangles (padding lanes copy lane 0 again) and grows lo/hi by them. */
static void refit_leaf(mq_bvh *bvh, uint32_t ref, const float *pos, float lo[3], float hi[3])
{
    mq_tri_block *blk = mq_arena_leaf_mut(bvh->arena, ref);
    uint32_t count = mq_ref_block_count(ref);
    for (uint32_t b = 0; b < count; b++) {
        int lane = 0;
        while (lane < MQ_TRI_BLOCK && !mq_block_lane_is_pad(&blk[b], lane)) {
            mq_block_set_lane(&blk[b], lane, blk[b].id[lane], pos, bvh->mesh->indices, bvh->scale);
            lane++;
        }
        if (lane < MQ_TRI_BLOCK)
            mq_block_pad(&blk[b], lane);
    }
    mq_blocks_bounds(blk, count, bvh->mesh->positions, bvh->mesh->indices, bvh->scale, lo, hi);
}

static void refit_node(mq_bvh *bvh, uint32_t ref, const float *pos, float lo[3], float hi[3])
{
    mq_node8 *n = mq_arena_node_mut(bvh->arena, ref);
    for (int i = 0; i < MQ_BVH_WIDTH; i++) {
        uint32_t c = n->child[i];
        float clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
        if (c == MQ_REF_EMPTY)
            ;
        else if (mq_ref_is_leaf(c))
            refit_leaf(bvh, c, pos, clo, chi);
        else
            refit_node(bvh, c, pos, clo, chi);
        for (int k = 0; k < 3; k++) {
            n->bounds[2 * k][i] = clo[k];
            n->bounds[2 * k + 1][i] = chi[k];
            lo[k] = clo[k] < lo[k] ? clo[k] : lo[k];
            hi[k] = chi[k] > hi[k] ? chi[k] : hi[k];
        }
    }
}

mq_status mq_bvh_refit(mq_bvh *bvh, const float *positions, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!bvh)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "bvh is NULL");
    const float *pos = positions ? positions : bvh->mesh->positions;
    mq_bvh_set_scale(bvh, mq_bvh_scale_exp(mq_triangles_magnitude(pos, bvh->mesh->indices, bvh->mesh->triangle_count)));
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (bvh->root != MQ_REF_EMPTY)
        refit_node(bvh, bvh->root, pos, lo, hi);
    for (int k = 0; k < 3; k++) {
        bvh->root_box[2 * k] = lo[k] * bvh->inv_scale; /* in the mesh's units */
        bvh->root_box[2 * k + 1] = hi[k] * bvh->inv_scale;
    }
    if (mq_bvh_set_top_boxes(bvh) != MQ_OK) /* cannot happen: the block's size is unchanged */
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory refitting a BVH");
    return MQ_OK;
}
