/*
 * The steps of one traversal, for loops that interleave several (a
 * template: the including file defines kernel_ray, kernel_ray_init,
 * kernel_dists, kernel_dist_at, kernel_node_hits and kernel_leaf_hits, as
 * traverse_loop.h describes). traverse_loop.h builds its loops and streams
 * from them; the scene's ray stream (scene/scene_stream_avx2.c) steps its
 * instance traces with them.
 */
/* No include guard on purpose: a template, included once per kernel. */

#include "bvh/kernels/traverse_common.h"

/*
 * Pushes the hit children of `n` (bits of `mask`) so that the nearest comes
 * out first, and returns the nearest one's ref (popped already). Sorting by
 * the actual entry distance beats a fixed order per octant (tinybvh PR #294);
 * every hit child is prefetched (as Embree does). One child and two are
 * handled here without a loop; three or more go to the kernel's
 * kernel_push_many. `interleaved`: for loops that step several traversals in
 * turn, where a mispredicted branch throws away the work of all of them:
 * one child and two then take one path, without a branch on which (j is the
 * highest hit slot, i again for one child; the farther entry is stored on top
 * of the stack either way, and the stack grows only for two). A single
 * traversal keeps the branch: on coherent rays it is predicted, and there
 * the branch-free path costs more than it saves (docs/performance.md).
 */
static inline __attribute__((always_inline)) uint32_t push_ordered(const void *arena, const mq_node8 *n, unsigned mask,
                                                                   const kernel_dists *d, mq_stack_entry *stack,
                                                                   int *sp, const bool interleaved)
{
    unsigned rest = mask & (mask - 1);
    if (rest & (rest - 1))
        return kernel_push_many(arena, n, mask, d, stack, sp);
    if (interleaved) {
        int i = mq_ctz(mask), j = mq_highest_bit(mask);
        uint32_t ci = n->child[i], cj = n->child[j];
        mq_prefetch_child(arena, ci);
        mq_prefetch_child(arena, cj);
        mq_stack_entry near = {ci, kernel_dist_at(d, i)};
        stack[*sp] = mq_keep_nearer(&near, (mq_stack_entry){cj, kernel_dist_at(d, j)});
        *sp += rest != 0;
        return near.ref;
    }
    int i = mq_ctz(mask);
    uint32_t ci = n->child[i];
    mq_prefetch_child(arena, ci);
    if (!rest)
        return ci;
    int j = mq_ctz(rest);
    uint32_t cj = n->child[j];
    mq_prefetch_child(arena, cj);
    /* two: push the farther */
    mq_stack_entry near = {ci, kernel_dist_at(d, i)};
    stack[(*sp)++] = mq_keep_nearer(&near, (mq_stack_entry){cj, kernel_dist_at(d, j)});
    return near.ref;
}

/*
 * A traversal as a resumable state (a lane): lane_start, then lane_step until
 * it returns false. Loops that keep several lanes in flight and step them in
 * turn overlap their dependent loads and cache misses; each lane takes
 * exactly the steps of kernel_closest / kernel_any, so its answer is theirs.
 */
typedef struct stream_lane {
    const mq_trace *q;
    size_t index; /* of the query in the stream */
    mq_best best;
    float tmin;
    float cut;    /* mq_node_tmax of best.t (closest) or of tmax (any) */
    uint32_t cur; /* next node or leaf to visit */
    int sp;
    bool hit; /* any-hit answer */
    mq_stack_entry *stack;
    kernel_ray kr;
} stream_lane;

/* Starts query *q (index: its place in the caller's stream) from `best` (mq_best_init or the caller's). */
static inline void lane_start(stream_lane *l, const mq_trace *q, size_t index, mq_best best, const bool any_hit)
{
    l->q = q;
    l->index = index;
    l->best = best;
    kernel_ray_init(l->q, &l->kr);
    l->tmin = mq_trace_tmin(l->q);
    l->cut = mq_node_tmax(any_hit ? l->q->ray.tmax : l->best.t);
    l->cur = l->q->bvh->root;
    l->sp = 0;
    l->hit = false;
}

/* Pops the next entry worth visiting into l->cur; false when none is left. */
static inline bool lane_pop(stream_lane *l, const bool any_hit)
{
    while (l->sp > 0) {
        mq_stack_entry e = l->stack[--l->sp];
        if (any_hit || e.dist <= l->cut) {
            l->cur = e.ref;
            return true;
        }
    }
    return false;
}

/* Visits l->cur; returns false when the query is finished. neg: the query's
 * tmin may be negative (kernel_node_hits); false for tmin >= 0. */
static inline __attribute__((always_inline)) bool lane_step(stream_lane *l, const void *arena, const bool any_hit,
                                                            mq_trace_counts *counts, const bool neg)
{
    uint32_t ref = l->cur;
    float tmax = any_hit ? l->q->ray.tmax : l->best.t;
    if (!mq_ref_is_leaf(ref)) {
        const mq_node8 *n = mq_arena_node(arena, ref);
        kernel_dists dist;
        counts->nodes++;
        unsigned mask = kernel_node_hits(n, &l->kr, l->tmin, l->cut, &dist, neg);
        if (mask) {
            l->cur = any_hit ? mq_push_any(arena, n, mask, l->stack, &l->sp)
                             : push_ordered(arena, n, mask, &dist, l->stack, &l->sp, true);
            return true;
        }
        return lane_pop(l, any_hit);
    }
    counts->leaves++;
    const mq_tri_block *blk = mq_arena_leaf(arena, ref);
    mq_leaf_hits lh;
    for (uint32_t b = mq_ref_block_count(ref); b > 0; b--, blk++) {
        counts->blocks++;
        unsigned m = kernel_leaf_hits(blk, &l->kr, l->q, l->tmin, tmax, &lh);
        if (!m)
            continue;
        if (!any_hit) {
            mq_resolve_closest(l->q, blk, m, &lh, &l->best);
            tmax = l->best.t;
            l->cut = mq_node_tmax(tmax);
        } else if (mq_resolve_any(l->q, blk, m, &lh)) {
            l->hit = true;
            return false;
        }
    }
    return lane_pop(l, any_hit);
}
