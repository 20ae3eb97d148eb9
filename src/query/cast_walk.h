/*
 * The nearest-first walks of the shape casts, on the BVH, the OBB tree and the
 * binary skeleton of the k-DOP and sphere trees:
 * a moving shape's pruning path against the node boxes (grown by the shape),
 * the nearest entry first, every node entered after the caller's limit (its
 * best time so far, ties still entered, or tmax) dropped when popped. One walk
 * for the per-mesh casts (query/shape_cast.c) and the scene's per-instance
 * casts (scene/scene_cast.c), which differ in their path (mesh frame or an
 * instance's), their limit and what they do with a triangle. The skeleton's
 * walk serves both the k-DOP and the sphere tree: their node tests differ,
 * their order of descent does not.
 *
 * Templates: the caller passes its entry test, limit and triangle visitor as
 * named functions; the walk is always inlined, so they become direct calls
 * (inlined too), never calls through pointers. Fixed stacks, no allocation.
 */
#ifndef MQ_QUERY_CAST_WALK_H
#define MQ_QUERY_CAST_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "kdoptree/bvt.h"
#include "obbtree/obbtree_internal.h"
#include "query/bvh_walk.h"

/* Entry time of the path into [lo, hi] (mesh units) grown by the shape, at
 * most limit; false when it misses. */
typedef bool (*mq_cw_box_entry)(const void *path, const float lo[3], const float hi[3], float limit, float *t_in);
/* The same for an OBB-tree node. */
typedef bool (*mq_cw_node_entry)(const void *path, const mq_obbtree_node *n, float limit, float *t_in);
/* The same for node `node` of a k-DOP or sphere tree's skeleton (the path
 * knows which tree). */
typedef bool (*mq_cw_bvt_entry)(const void *path, uint32_t node, float limit, float *t_in);
/* The walk's current limit. */
typedef float (*mq_cw_limit)(const void *walker);
/* A triangle the walk reached (mesh frame, mesh id). */
typedef void (*mq_cw_visit)(void *walker, uint32_t id, const mq_triangle *t);

static inline __attribute__((always_inline)) void mq_cast_walk_bvh(const mq_bvh *bvh, const void *path, void *walker,
                                                                   mq_cw_box_entry entry, mq_cw_limit limit_of,
                                                                   mq_cw_visit visit)
{
    if (bvh->root == MQ_REF_EMPTY)
        return;
    typedef struct entry {
        uint32_t ref;
        float t;
    } entry_t;
    entry_t stack[MQ_TRAVERSAL_STACK];
    int top = 0;
    {
        const float *rb = bvh->root_box;
        float lo[3] = {rb[0], rb[2], rb[4]}, hi[3] = {rb[1], rb[3], rb[5]};
        float t;
        if (!entry(path, lo, hi, limit_of(walker), &t))
            return;
        stack[top++] = (entry_t){bvh->root, t};
    }
    while (top > 0) {
        entry_t en = stack[--top];
        float limit = limit_of(walker);
        if (en.t > limit)
            continue;
        if (mq_ref_is_leaf(en.ref)) {
            const mq_tri_block *blk = mq_arena_leaf(bvh->arena, en.ref);
            uint32_t nb = mq_ref_block_count(en.ref);
            for (uint32_t b = 0; b < nb; b++)
                for (int lane = 0; lane < MQ_TRI_BLOCK; lane++) {
                    mq_triangle t;
                    if (mq_walk_block_triangle(bvh, &blk[b], lane, &t))
                        visit(walker, blk[b].id[lane], &t);
                }
            continue;
        }
        const mq_node8 *n = mq_arena_node(bvh->arena, en.ref);
        entry_t kids[MQ_BVH_WIDTH];
        int nk = 0;
        for (int i = 0; i < MQ_BVH_WIDTH; i++) {
            if (n->child[i] == MQ_REF_EMPTY)
                continue;
            float lo[3], hi[3], t;
            mq_walk_child_box(n, i, bvh->inv_scale, lo, hi); /* mesh units */
            if (!entry(path, lo, hi, limit, &t))
                continue;
            int j = nk++; /* sorted by decreasing entry: the nearest is pushed last */
            while (j > 0 && kids[j - 1].t < t) {
                kids[j] = kids[j - 1];
                j--;
            }
            kids[j] = (entry_t){n->child[i], t};
        }
        for (int j = 0; j < nk; j++)
            stack[top++] = kids[j];
    }
}

static inline __attribute__((always_inline)) void mq_cast_walk_obbtree(const mq_obbtree *tree, const void *path,
                                                                       void *walker, mq_cw_node_entry entry,
                                                                       mq_cw_limit limit_of, mq_cw_visit visit)
{
    if (tree->node_count == 0)
        return;
    typedef struct entry {
        uint32_t node;
        float t;
    } entry_t;
    entry_t stack[MQ_OBBTREE_STACK];
    int top = 0;
    float t;
    if (!entry(path, &tree->nodes[0], limit_of(walker), &t))
        return;
    stack[top++] = (entry_t){0, t};
    while (top > 0) {
        entry_t en = stack[--top];
        float limit = limit_of(walker);
        if (en.t > limit)
            continue;
        const mq_obbtree_node *n = &tree->nodes[en.node];
        if (mq_obbtree_node_is_leaf(n)) {
            uint32_t first = mq_obbtree_leaf_first(n), end = first + mq_obbtree_leaf_count(n);
            for (uint32_t k = first; k < end; k++)
                visit(walker, tree->ids[k], &tree->tris[k]);
            continue;
        }
        uint32_t l = en.node + 1, r = n->data;
        float tl = 0.0f, tr = 0.0f;
        bool hl = entry(path, &tree->nodes[l], limit, &tl), hr = entry(path, &tree->nodes[r], limit, &tr);
        if (hl && hr) {
            bool left_first = tl <= tr;
            stack[top++] = left_first ? (entry_t){r, tr} : (entry_t){l, tl};
            stack[top++] = left_first ? (entry_t){l, tl} : (entry_t){r, tr};
        } else if (hl) {
            stack[top++] = (entry_t){l, tl};
        } else if (hr) {
            stack[top++] = (entry_t){r, tr};
        }
    }
}

static inline __attribute__((always_inline)) void mq_cast_walk_bvt(const mq_bvt *tree, const void *path, void *walker,
                                                                   mq_cw_bvt_entry entry, mq_cw_limit limit_of,
                                                                   mq_cw_visit visit)
{
    if (tree->node_count == 0)
        return;
    typedef struct entry {
        uint32_t node;
        float t;
    } entry_t;
    entry_t stack[MQ_BVT_STACK];
    int top = 0;
    float t;
    if (!entry(path, 0, limit_of(walker), &t))
        return;
    stack[top++] = (entry_t){0, t};
    while (top > 0) {
        entry_t en = stack[--top];
        float limit = limit_of(walker);
        if (en.t > limit)
            continue;
        uint32_t d = tree->data[en.node];
        if (mq_bvt_is_leaf(d)) {
            uint32_t first = mq_bvt_first(d), end = first + mq_bvt_count(d);
            for (uint32_t k = first; k < end; k++)
                visit(walker, tree->ids[k], &tree->tris[k]);
            continue;
        }
        uint32_t l = en.node + 1, r = d;
        float tl = 0.0f, tr = 0.0f;
        bool hl = entry(path, l, limit, &tl), hr = entry(path, r, limit, &tr);
        if (hl && hr) {
            bool left_first = tl <= tr;
            stack[top++] = left_first ? (entry_t){r, tr} : (entry_t){l, tl};
            stack[top++] = left_first ? (entry_t){l, tl} : (entry_t){r, tr};
        } else if (hl) {
            stack[top++] = (entry_t){l, tl};
        } else if (hr) {
            stack[top++] = (entry_t){r, tr};
        }
    }
}

#endif
