/*
 * Box walkers of the scene's shape queries: every triangle of a mesh whose
 * own (local, float) bounding box overlaps a query box, found through the
 * instance's hierarchy (the 8-wide BVH or the OBB tree). The scene maps each
 * world query into the instance's local frame as a conservative box (and,
 * for spheres, a conservative ball), walks with it here, and decides every
 * candidate with the exact primitive in the world (instance_overlap.c).
 *
 * Both walkers are always inlined into their caller with the visitor as a
 * compile-time constant, so the per-triangle call is a direct, inlinable
 * call; there is no per-node dispatch. Fixed stacks, no allocation.
 *
 * Triangle corners handed to the visitor are in the mesh's frame:
 *   - BVH: the leaf block's corners (the BVH's current geometry, which is
 *     what its raycasts see), un-scaled from the arena's power of two
 *     (bvh/bvh_internal.h; node boxes likewise). A lane the builder made
 *     unhittable holds NaN corners (bvh_layout.h); its corners then come from
 *     the mesh (after a refit with new positions: the mesh's, not the new
 *     ones), rounded through the arena's scale like the boxes: a zero-area
 *     triangle is still a segment or point for overlap tests, a triangle with
 *     a non-finite corner overlaps nothing and is skipped. Padding lanes
 *     (copies of lane 0, leaf_pack.h) are skipped. Node boxes enclose these
 *     zero-area triangles too, after a build (prim_ref.c) and after a refit
 *     (leaf_pack.c, mq_blocks_bounds).
 *   - OBB tree: the tree's own copies (finite triangles only).
 */
#ifndef MQ_QUERY_BVH_WALK_H
#define MQ_QUERY_BVH_WALK_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/minmax.h"
#include "bvh/bvh_internal.h"
#include "bvh/bvh_layout.h"
#include "bvh/leaf_pack.h"
#include "mesh/mesh_internal.h"
#include "obbtree/obbtree_node_tests.h"

/* A local query volume: the box [lo, hi], intersected (as a node filter only)
 * with the ball of centre c and squared radius r2 (r2 = INFINITY: no ball). */
typedef struct mq_walk_box {
    float lo[3], hi[3];
    float c[3];
    float r2;
} mq_walk_box;

/* Visitor: triangle id (mesh order) and its local corners. Return false to stop. */
typedef bool (*mq_walk_tri_visit)(uint32_t id, const mq_triangle *tri, void *ctx);

static inline bool mq_walk_tri_box_overlaps(const mq_triangle *t, const mq_walk_box *q)
{
    for (int k = 0; k < 3; k++) {
        float lo = mq_minf(mq_minf(t->v[0][k], t->v[1][k]), t->v[2][k]);
        float hi = mq_maxf(mq_maxf(t->v[0][k], t->v[1][k]), t->v[2][k]);
        if (!(lo <= q->hi[k] && hi >= q->lo[k]))
            return false;
    }
    return true;
}

/* Corners of lane `lane` of a leaf block, from the block or (NaN lane) from the
 * mesh. False for a padding lane or a triangle with a non-finite corner. */
static inline bool mq_walk_block_triangle(const mq_bvh *bvh, const mq_tri_block *blk, int lane, mq_triangle *t)
{
    if (mq_block_lane_is_pad(blk, lane))
        return false;
    const float inv = bvh->inv_scale;
    if (blk->v[0][0][lane] == blk->v[0][0][lane]) {
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                t->v[c][k] = blk->v[c][k][lane] * inv;
        return true;
    }
    const mq_mesh *mesh = bvh->mesh;
    const float s = bvh->scale;
    const uint32_t *idx = mesh->indices + 3 * (size_t)blk->id[lane];
    for (int c = 0; c < 3; c++) {
        const float *p = mesh->positions + 3 * (size_t)idx[c];
        for (int k = 0; k < 3; k++) {
            if (!isfinite(p[k]))
                return false;
            t->v[c][k] = p[k] * s * inv; /* p, unless the scaled value rounds (tiny against the mesh) */
        }
    }
    return true;
}

/* Child box i of `n` in the mesh's units (the arena's are scaled by 1/inv). */
static inline void mq_walk_child_box(const mq_node8 *n, int i, float inv, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = n->bounds[2 * k][i] * inv;
        hi[k] = n->bounds[2 * k + 1][i] * inv;
    }
}

/* Bit i set: child box i of `n` overlaps the query box (and its ball). Empty
 * slots (+inf..-inf) never do. A plain 8-lane loop the compiler vectorises. */
static inline unsigned mq_walk_node_mask(const mq_node8 *n, float inv, const mq_walk_box *q)
{
    unsigned mask = 0;
    for (int i = 0; i < MQ_BVH_WIDTH; i++) {
        float lx = n->bounds[MQ_LO_X][i] * inv, hx = n->bounds[MQ_HI_X][i] * inv;
        float ly = n->bounds[MQ_LO_Y][i] * inv, hy = n->bounds[MQ_HI_Y][i] * inv;
        float lz = n->bounds[MQ_LO_Z][i] * inv, hz = n->bounds[MQ_HI_Z][i] * inv;
        float dx = mq_maxf(mq_maxf(lx - q->c[0], q->c[0] - hx), 0.0f);
        float dy = mq_maxf(mq_maxf(ly - q->c[1], q->c[1] - hy), 0.0f);
        float dz = mq_maxf(mq_maxf(lz - q->c[2], q->c[2] - hz), 0.0f);
        int o = (lx <= q->hi[0]) & (hx >= q->lo[0]) & (ly <= q->hi[1]) & (hy >= q->lo[1]) & (lz <= q->hi[2]) &
                (hz >= q->lo[2]) & (dx * dx + dy * dy + dz * dz <= q->r2);
        /* An empty slot (bounds +inf..-inf) passes when the query box itself
         * reaches +-inf (a world shape overflowing float in an instance's
         * frame): never a child to visit. */
        o &= n->child[i] != MQ_REF_EMPTY;
        mask |= (unsigned)o << i;
    }
    return mask;
}

/* Every triangle of the BVH whose box overlaps q->lo..hi, in a leaf whose box
 * passes the node test. Returns false when the visitor stopped the walk. */
MQ_ALWAYS_INLINE bool mq_bvh_walk_box(const mq_bvh *bvh, const mq_walk_box *q, mq_walk_tri_visit visit, void *ctx)
{
    if (bvh->root == MQ_REF_EMPTY)
        return true;
    uint32_t stack[MQ_TRAVERSAL_STACK];
    int top = 0;
    stack[top++] = bvh->root;
    if (mq_ref_is_leaf(bvh->root)) {
        /* A root leaf has no parent box: test the root box here. */
        const float *rb = bvh->root_box;
        for (int k = 0; k < 3; k++)
            if (!(rb[2 * k] <= q->hi[k] && rb[2 * k + 1] >= q->lo[k]))
                return true;
    }
    while (top > 0) {
        uint32_t ref = stack[--top];
        if (mq_ref_is_leaf(ref)) {
            const mq_tri_block *blk = mq_arena_leaf(bvh->arena, ref);
            uint32_t nb = mq_ref_block_count(ref);
            for (uint32_t b = 0; b < nb; b++)
                for (int lane = 0; lane < MQ_TRI_BLOCK; lane++) {
                    mq_triangle t;
                    if (!mq_walk_block_triangle(bvh, &blk[b], lane, &t) || !mq_walk_tri_box_overlaps(&t, q))
                        continue;
                    if (!visit(blk[b].id[lane], &t, ctx))
                        return false;
                }
            continue;
        }
        const mq_node8 *n = mq_arena_node(bvh->arena, ref);
        unsigned mask = mq_walk_node_mask(n, bvh->inv_scale, q);
        while (mask) {
            int i = __builtin_ctz(mask);
            mask &= mask - 1;
            stack[top++] = n->child[i];
        }
    }
    return true;
}

/* The query box as an OBB-tree node test: the 15-axis test with the query as a
 * box of the mesh's axes, widened like the tree's own node tests, then the ball. */
typedef struct mq_walk_obb_query {
    const mq_walk_box *q;
    float center[3], half[3], half_sum, rounding;
} mq_walk_obb_query;

static inline bool mq_walk_obb_node(const mq_obbtree_node *n, const mq_walk_obb_query *a)
{
    float t[3], R[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[i][j] = n->axes[i][j];
    mq_node_local_point(n, a->center, t);
    float slack = MQ_OBBTREE_SLACK * (mq_abs_sum3(t) + mq_half_sum(n) + a->half_sum) + a->rounding;
    if (!mq_sat_overlap(n->half, a->half, R, t, slack))
        return false;
    if (!(a->q->r2 < INFINITY))
        return true;
    float l[3];
    mq_node_local_point(n, a->q->c, l);
    float r = sqrtf(a->q->r2);
    float rr = r + MQ_OBBTREE_SLACK * (mq_abs_sum3(l) + r + mq_half_sum(n));
    return mq_node_dist2_local(n, l) <= rr * rr;
}

/* As mq_bvh_walk_box, on an OBB tree. */
MQ_ALWAYS_INLINE bool mq_obbtree_walk_box(const mq_obbtree *tree, const mq_walk_box *q, mq_walk_tri_visit visit,
                                          void *ctx)
{
    if (tree->node_count == 0)
        return true;
    mq_walk_obb_query a;
    a.q = q;
    for (int i = 0; i < 3; i++) {
        a.center[i] = 0.5f * q->lo[i] + 0.5f * q->hi[i];
        a.half[i] = 0.5f * q->hi[i] - 0.5f * q->lo[i];
    }
    a.half_sum = a.half[0] + a.half[1] + a.half[2];
    a.rounding = MQ_OBBTREE_SLACK * (mq_abs_sum3(q->lo) + mq_abs_sum3(q->hi));
    uint32_t stack[MQ_OBBTREE_STACK];
    int top = 0;
    uint32_t i = 0;
    for (;;) {
        const mq_obbtree_node *n = &tree->nodes[i];
        if (mq_walk_obb_node(n, &a)) {
            if (!mq_obbtree_node_is_leaf(n)) {
                stack[top++] = n->data;
                i++;
                continue;
            }
            uint32_t first = mq_obbtree_leaf_first(n), end = first + mq_obbtree_leaf_count(n);
            for (uint32_t k = first; k < end; k++)
                if (mq_walk_tri_box_overlaps(&tree->tris[k], q) && !visit(tree->ids[k], &tree->tris[k], ctx))
                    return false;
        }
        if (top == 0)
            return true;
        i = stack[--top];
    }
}

/* ---- additive: walks with a finer child test (the BVH's own overlap queries) ----
 * As mq_bvh_walk_box, but a child (and a root leaf) that passes the box/ball
 * filter must also pass `refine` (its box as lo[3], hi[3]; the query `rq`),
 * a compile-time constant inlined into the 8-lane loop's survivors: a capsule's
 * segment against the grown box, an OBB's separating axis test. */
typedef bool (*mq_walk_refine_fn)(const float lo[3], const float hi[3], const void *rq);

MQ_ALWAYS_INLINE bool mq_bvh_walk_box_refined(const mq_bvh *bvh, const mq_walk_box *q, mq_walk_refine_fn refine,
                                              const void *rq, mq_walk_tri_visit visit, void *ctx)
{
    if (bvh->root == MQ_REF_EMPTY)
        return true;
    uint32_t stack[MQ_TRAVERSAL_STACK];
    int top = 0;
    stack[top++] = bvh->root;
    if (mq_ref_is_leaf(bvh->root)) {
        const float *rb = bvh->root_box;
        float lo[3] = {rb[0], rb[2], rb[4]}, hi[3] = {rb[1], rb[3], rb[5]};
        for (int k = 0; k < 3; k++)
            if (!(lo[k] <= q->hi[k] && hi[k] >= q->lo[k]))
                return true;
        if (!refine(lo, hi, rq))
            return true;
    }
    while (top > 0) {
        uint32_t ref = stack[--top];
        if (mq_ref_is_leaf(ref)) {
            const mq_tri_block *blk = mq_arena_leaf(bvh->arena, ref);
            uint32_t nb = mq_ref_block_count(ref);
            for (uint32_t b = 0; b < nb; b++)
                for (int lane = 0; lane < MQ_TRI_BLOCK; lane++) {
                    mq_triangle t;
                    if (!mq_walk_block_triangle(bvh, &blk[b], lane, &t) || !mq_walk_tri_box_overlaps(&t, q))
                        continue;
                    if (!visit(blk[b].id[lane], &t, ctx))
                        return false;
                }
            continue;
        }
        const mq_node8 *n = mq_arena_node(bvh->arena, ref);
        unsigned mask = mq_walk_node_mask(n, bvh->inv_scale, q);
        while (mask) {
            int i = __builtin_ctz(mask);
            mask &= mask - 1;
            float lo[3], hi[3];
            mq_walk_child_box(n, i, bvh->inv_scale, lo, hi);
            if (refine(lo, hi, rq))
                stack[top++] = n->child[i];
        }
    }
    return true;
}

#endif
