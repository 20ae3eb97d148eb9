/*
 * mq_bvh_validate: the tree invariants the traversal relies on, checked
 * exhaustively (for tests). Every triangle in exactly one leaf lane; every
 * node and block reached exactly once; every child box containing what lies
 * below it; depth within the traversal stack's bound.
 */
#include <math.h>
#include <string.h>

#include "bvh/bvh_internal.h"
#include "bvh/leaf_pack.h"
#include "core/alloc.h"
#include "core/diag.h"
#include "mesh/mesh_internal.h"

typedef struct check_ctx {
    const mq_bvh *bvh;
    uint8_t *unit_seen; /* per 32-byte arena unit: 1 = a node starts here, 2 = a block */
    uint8_t *tri_seen;
    uint32_t nodes, blocks;
    mq_diag *diag;
} check_ctx;

static size_t arena_units(const mq_bvh *b)
{
    return b->arena_bytes / MQ_ARENA_UNIT;
}

static bool box_contains(const mq_node8 *n, int i, const float lo[3], const float hi[3])
{
    for (int k = 0; k < 3; k++)
        if (lo[k] < n->bounds[2 * k][i] || hi[k] > n->bounds[2 * k + 1][i])
            return false;
    return true;
}

static void grow(float lo[3], float hi[3], float x, int k)
{
    lo[k] = x < lo[k] ? x : lo[k];
    hi[k] = x > hi[k] ? x : hi[k];
}

static mq_status check_lane(check_ctx *c, const mq_tri_block *blk, int lane, float lo[3], float hi[3])
{
    const mq_mesh *m = c->bvh->mesh;
    uint32_t id = blk->id[lane];
    if (mq_block_lane_is_pad(blk, lane)) {
        for (int v = 0; v < 3; v++)
            for (int k = 0; k < 3; k++)
                if (memcmp(&blk->v[v][k][lane], &blk->v[v][k][0], sizeof(float)))
                    return mq_diag_set(c->diag, MQ_ERR_CORRUPT, NULL, 0, 0, "padding lane differs from lane 0");
        return MQ_OK;
    }
    if (id >= m->triangle_count)
        return mq_diag_set(c->diag, MQ_ERR_CORRUPT, NULL, 0, 0, "triangle id %u out of range", id);
    if (c->tri_seen[id]++)
        return mq_diag_set(c->diag, MQ_ERR_CORRUPT, NULL, 0, 0, "triangle %u is in two leaves", id);
    if (blk->v[0][0][lane] == blk->v[0][0][lane])
        for (int v = 0; v < 3; v++)
            for (int k = 0; k < 3; k++)
                grow(lo, hi, blk->v[v][k][lane], k);
    return MQ_OK;
}

static mq_status check_leaf(check_ctx *c, uint32_t ref, float lo[3], float hi[3])
{
    uint32_t first = mq_ref_leaf_unit(ref), count = mq_ref_block_count(ref);
    const uint32_t per_block = sizeof(mq_tri_block) / MQ_ARENA_UNIT;
    if ((uint64_t)first + (uint64_t)count * per_block > arena_units(c->bvh))
        return mq_diag_set(c->diag, MQ_ERR_CORRUPT, NULL, 0, 0, "leaf at unit %u out of range", first);
    const mq_tri_block *blk = mq_arena_leaf(c->bvh->arena, ref);
    for (uint32_t b = 0; b < count; b++) {
        uint32_t unit = first + b * per_block;
        if (c->unit_seen[unit]++)
            return mq_diag_set(c->diag, MQ_ERR_CORRUPT, NULL, 0, 0, "block at unit %u reached twice", unit);
        c->blocks++;
        for (int lane = 0; lane < MQ_TRI_BLOCK; lane++) {
            mq_status st = check_lane(c, &blk[b], lane, lo, hi);
            if (st != MQ_OK)
                return st;
        }
    }
    return MQ_OK;
}

static mq_status check_node(check_ctx *c, uint32_t index, uint32_t depth, float lo[3], float hi[3])
{
    if (depth > MQ_BVH_MAX_DEPTH)
        return mq_diag_set(c->diag, MQ_ERR_CORRUPT, NULL, 0, 0, "depth %u beyond %d", depth, MQ_BVH_MAX_DEPTH);
    if ((uint64_t)index + sizeof(mq_node8) / MQ_ARENA_UNIT > arena_units(c->bvh) || (index & 1) ||
        c->unit_seen[index]++)
        return mq_diag_set(c->diag, MQ_ERR_CORRUPT, NULL, 0, 0, "node %u out of range, misaligned or reached twice",
                           index);
    c->nodes++;
    const mq_node8 *n = mq_arena_node(c->bvh->arena, index);
    int used = 0;
    for (int i = 0; i < MQ_BVH_WIDTH; i++) {
        uint32_t ref = n->child[i];
        if (ref == MQ_REF_EMPTY)
            continue;
        used++;
        float clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
        mq_status st = mq_ref_is_leaf(ref) ? check_leaf(c, ref, clo, chi) : check_node(c, ref, depth + 1, clo, chi);
        if (st != MQ_OK)
            return st;
        if (clo[0] <= chi[0] && !box_contains(n, i, clo, chi))
            return mq_diag_set(c->diag, MQ_ERR_CORRUPT, NULL, 0, 0,
                               "node %u child %d: box does not contain its subtree", index, i);
        if (n->bounds[MQ_LO_X][i] <=
            n->bounds[MQ_HI_X][i]) /* an empty box (a subtree of unhittable,
                                       non-finite triangles, e.g. after a refit) adds nothing */
            for (int k = 0; k < 3; k++) {
                grow(lo, hi, n->bounds[2 * k][i], k);
                grow(lo, hi, n->bounds[2 * k + 1][i], k);
            }
    }
    if (used == 0)
        return mq_diag_set(c->diag, MQ_ERR_CORRUPT, NULL, 0, 0, "node %u has no children", index);
    return MQ_OK;
}

static mq_status check_all_reached(check_ctx *c)
{
    const mq_bvh *b = c->bvh;
    if (c->nodes != b->node_count || c->blocks != b->block_count)
        return mq_diag_set(c->diag, MQ_ERR_CORRUPT, NULL, 0, 0, "%u of %u nodes and %u of %u blocks reachable",
                           c->nodes, b->node_count, c->blocks, b->block_count);
    for (size_t i = 0; i < b->mesh->triangle_count; i++)
        if (!c->tri_seen[i])
            return mq_diag_set(c->diag, MQ_ERR_CORRUPT, NULL, 0, 0, "triangle %zu is in no leaf", i);
    return MQ_OK;
}

mq_status mq_bvh_validate(const mq_bvh *bvh, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!bvh)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "bvh is NULL");
    size_t tris = bvh->mesh->triangle_count;
    if (bvh->root == MQ_REF_EMPTY)
        return tris == 0 ? MQ_OK : mq_diag_set(diag, MQ_ERR_CORRUPT, NULL, 0, 0, "empty tree over %zu triangles", tris);
    if (mq_ref_is_leaf(bvh->root))
        return mq_diag_set(diag, MQ_ERR_CORRUPT, NULL, 0, 0, "the root is a leaf");
    const mq_allocator *a = mq_bvh_allocator(bvh);
    size_t bytes = arena_units(bvh) + tris;
    uint8_t *seen = mq_alloc_zero(a, bytes, 16);
    if (!seen)
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory validating a BVH");
    check_ctx c = {bvh, seen, seen + arena_units(bvh), 0, 0, diag};
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    mq_status st = check_node(&c, bvh->root, 1, lo, hi);
    if (st == MQ_OK)
        st = check_all_reached(&c);
    mq_free(a, seen, bytes);
    return st;
}
