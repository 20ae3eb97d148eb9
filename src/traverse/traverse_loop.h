/*
 * The traversal loops, written once and instantiated per ISA: a kernel file
 * defines
 *
 *   kernel_ray                       its per-ray constants (e.g. broadcast registers)
 *   kernel_ray_init(q, &kr)
 *   kernel_dists, kernel_dist_at(&d, i)   the 8 entry distances of a node test
 *       (a register where the ISA can index one: reloading lanes of a vector
 *       just stored stalls store-to-load forwarding on current cores)
 *   kernel_node_hits(node, &kr, tmin, tmax, &dists, neg) -> mask of children
 *       whose box the ray segment [tmin, tmax] meets, with their entry distances
 *       (neg: some distance that matters may be negative; see MQ_IZE_REL)
 *   kernel_leaf_hits(block, &kr, q, tmin, tmax, &hits) -> mask of lanes hit with
 *       t in [tmin, tmax], their t, u, v and sides in hits; bit-identical to
 *       mq_woop_lane
 *
 * and then includes this file, which defines kernel_closest, kernel_any and
 * kernel_stream. The loops: a fixed stack of (child, entry distance);
 * closest-hit descends into the nearest hit child and pushes the others
 * nearest-last; entries farther than the best hit so far (widened by
 * mq_node_tmax, so that a node holding a tie with a smaller id is entered) are
 * dropped when popped. Node tests take the widened t as their upper bound, the
 * leaf tests the exact one. Any-hit does no ordering and stops at the first
 * accepted hit. The stream runs several queries' loops interleaved, one step
 * each in turn.
 */
/* No include guard on purpose: a template, included once by each kernel file. */

#include "traverse/traverse_common.h"

/*
 * Pushes the hit children of `n` (bits of `mask`) so that the nearest comes
 * out first, and returns the nearest one's ref (popped already). Sorting by
 * the actual entry distance beats a fixed order per octant (tinybvh PR #294);
 * every hit child is prefetched as it is met (as Embree does).
 */
static inline uint32_t push_ordered(const void *arena, const mq_node8 *n, unsigned mask, const kernel_dists *d,
                                    mq_stack_entry *stack, int *sp)
{
    int i = mq_ctz(mask);
    mask &= mask - 1;
    uint32_t ci = n->child[i];
    mq_prefetch_child(arena, ci);
    if (!mask)
        return ci;
    int j = mq_ctz(mask);
    mask &= mask - 1;
    uint32_t cj = n->child[j];
    mq_prefetch_child(arena, cj);
    float di = kernel_dist_at(d, i), dj = kernel_dist_at(d, j);
    if (!mask) { /* two: push the farther */
        if (di <= dj) {
            stack[(*sp)++] = (mq_stack_entry){cj, dj};
            return ci;
        }
        stack[(*sp)++] = (mq_stack_entry){ci, di};
        return cj;
    }
    int base = *sp;
    stack[(*sp)++] = (mq_stack_entry){ci, di};
    stack[(*sp)++] = (mq_stack_entry){cj, dj};
    while (mask) {
        int k = mq_ctz(mask);
        mask &= mask - 1;
        mq_prefetch_child(arena, n->child[k]);
        stack[(*sp)++] = (mq_stack_entry){n->child[k], kernel_dist_at(d, k)};
    }
    /* Insertion sort, farthest at the bottom, nearest on top. */
    for (int a = base + 1; a < *sp; a++) {
        mq_stack_entry e = stack[a];
        int b = a - 1;
        while (b >= base && stack[b].dist < e.dist) {
            stack[b + 1] = stack[b];
            b--;
        }
        stack[b + 1] = e;
    }
    return stack[--(*sp)].ref;
}

static inline __attribute__((always_inline)) bool kernel_closest_impl(const mq_trace *q, mq_best *best_out,
                                                                      mq_trace_counts *counts, const bool neg)
{
    const void *arena = q->bvh->arena;
    kernel_ray kr;
    kernel_ray_init(q, &kr);
    const float tmin = mq_trace_tmin(q);
    /* Hot state in locals (not behind pointers the stores below might alias),
     * so it can live in registers. */
    mq_best best = *best_out;
    mq_stack_entry stack[MQ_TRAVERSAL_STACK];
    kernel_dists dist;
    mq_leaf_hits lh;
    uint64_t nodes = 0, leaves = 0, blocks = 0;
    int sp = 0;
    float cut = mq_node_tmax(best.t); /* nodes entered beyond it cannot hold a winner */
    stack[sp++] = (mq_stack_entry){q->bvh->root, tmin};
    while (sp > 0) {
        mq_stack_entry e = stack[--sp];
        if (e.dist > cut)
            continue;
        uint32_t ref = e.ref;
        while (!mq_ref_is_leaf(ref)) {
            const mq_node8 *n = mq_arena_node(arena, ref);
            nodes++;
            unsigned mask = kernel_node_hits(n, &kr, tmin, cut, &dist, neg);
            if (!mask)
                goto next;
            ref = push_ordered(arena, n, mask, &dist, stack, &sp);
        }
        leaves++;
        const mq_tri_block *blk = mq_arena_leaf(arena, ref);
        for (uint32_t b = mq_ref_block_count(ref); b > 0; b--, blk++) {
            blocks++;
            unsigned m = kernel_leaf_hits(blk, &kr, q, tmin, best.t, &lh);
            if (m) {
                mq_resolve_closest(q, blk, m, &lh, &best);
                cut = mq_node_tmax(best.t);
            }
        }
    next:;
    }
    counts->nodes += nodes;
    counts->leaves += leaves;
    counts->blocks += blocks;
    *best_out = best;
    return best.id != MQ_NO_TRIANGLE;
}

static inline __attribute__((always_inline)) bool kernel_any_impl(const mq_trace *q, mq_trace_counts *counts,
                                                                  const bool neg)
{
    const void *arena = q->bvh->arena;
    kernel_ray kr;
    kernel_ray_init(q, &kr);
    const float tmin = mq_trace_tmin(q), tmax = q->ray.tmax, cut = mq_node_tmax(tmax);
    mq_stack_entry stack[MQ_TRAVERSAL_STACK];
    kernel_dists dist;
    mq_leaf_hits lh;
    uint64_t nodes = 0, leaves = 0, blocks = 0;
    bool hit = false;
    int sp = 0;
    stack[sp++] = (mq_stack_entry){q->bvh->root, tmin};
    while (sp > 0 && !hit) {
        uint32_t ref = stack[--sp].ref;
        while (!mq_ref_is_leaf(ref)) {
            const mq_node8 *n = mq_arena_node(arena, ref);
            nodes++;
            unsigned mask = kernel_node_hits(n, &kr, tmin, cut, &dist, neg);
            if (!mask)
                goto next;
            ref = mq_push_any(arena, n, mask, stack, &sp);
        }
        leaves++;
        const mq_tri_block *blk = mq_arena_leaf(arena, ref);
        for (uint32_t b = mq_ref_block_count(ref); b > 0 && !hit; b--, blk++) {
            blocks++;
            unsigned m = kernel_leaf_hits(blk, &kr, q, tmin, tmax, &lh);
            hit = m && mq_resolve_any(q, blk, m, &lh);
        }
    next:;
    }
    counts->nodes += nodes;
    counts->leaves += leaves;
    counts->blocks += blocks;
    return hit;
}

static bool kernel_closest(const mq_trace *q, mq_best *best, mq_trace_counts *counts)
{
    if (q->bvh->root == MQ_REF_EMPTY)
        return false;
    if (mq_trace_tmin(q) < 0.0f)
        return kernel_closest_impl(q, best, counts, true);
    return kernel_closest_impl(q, best, counts, false);
}

static bool kernel_any(const mq_trace *q, mq_trace_counts *counts)
{
    if (q->bvh->root == MQ_REF_EMPTY)
        return false;
    if (mq_trace_tmin(q) < 0.0f)
        return kernel_any_impl(q, counts, true);
    return kernel_any_impl(q, counts, false);
}

/*
 * Streams: several prepared queries (tmin >= 0) traced together, two at a
 * time, one node or leaf step of each in turn. A single traversal is a chain
 * of dependent loads and tests that leaves most of an out-of-order core idle;
 * two independent chains in one loop overlap their latencies (and their cache
 * misses). Each query's answer is exactly its single-ray answer: the same
 * steps in the same order, only interleaved with another query's.
 */
typedef struct stream_lane {
    const mq_trace *q;
    size_t index;  /* of the query in the stream */
    mq_best best;
    float tmin;
    float cut;     /* mq_node_tmax of best.t (closest) or of tmax (any) */
    uint32_t cur;  /* next node or leaf to visit */
    int sp;
    bool hit;      /* any-hit answer */
    mq_stack_entry *stack;
    kernel_ray kr;
} stream_lane;

static inline void lane_start(stream_lane *l, const mq_trace *q, size_t index, const mq_best *best,
                              const bool any_hit)
{
    l->q = &q[index];
    l->index = index;
    l->best = best[index];
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

/* Visits l->cur; returns false when the query is finished. */
static inline __attribute__((always_inline)) bool lane_step(stream_lane *l, const void *arena, const bool any_hit,
                                                            mq_trace_counts *counts)
{
    uint32_t ref = l->cur;
    float tmax = any_hit ? l->q->ray.tmax : l->best.t;
    if (!mq_ref_is_leaf(ref)) {
        const mq_node8 *n = mq_arena_node(arena, ref);
        kernel_dists dist;
        counts->nodes++;
        unsigned mask = kernel_node_hits(n, &l->kr, l->tmin, l->cut, &dist, false);
        if (mask) {
            l->cur = any_hit ? mq_push_any(arena, n, mask, l->stack, &l->sp)
                             : push_ordered(arena, n, mask, &dist, l->stack, &l->sp);
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

/* Writes a finished lane's answer; restarts it on the next query if any. */
static inline bool lane_next(stream_lane *l, const mq_trace *q, mq_best *best, bool *hit, size_t *next, size_t n)
{
    if (hit)
        hit[l->index] = l->hit;
    else
        best[l->index] = l->best;
    if (*next >= n)
        return false;
    lane_start(l, q, (*next)++, best, hit != NULL);
    return true;
}

/* Queries in flight: 8 measured best on 1.7M triangles (2.3x the single-ray
 * loop there; 2 lanes: 1.3x, 4: 1.8x, 12 or 16: no better than 8). */
#define MQ_STREAM_LANES 8

static inline __attribute__((always_inline)) void stream_impl(const mq_trace *q, mq_best *best, bool *hit,
                                                              size_t n, mq_trace_counts *counts,
                                                              const bool any_hit)
{
    enum { L = MQ_STREAM_LANES };
    mq_stack_entry stacks[L][MQ_TRAVERSAL_STACK];
    stream_lane lanes[L];
    bool live[L];
    const void *arena = q[0].bvh->arena;
    size_t next = 0;
    int alive = 0;
    for (int i = 0; i < L; i++) {
        lanes[i].stack = stacks[i];
        live[i] = next < n;
        if (live[i]) {
            lane_start(&lanes[i], q, next++, best, any_hit);
            alive++;
        }
    }
    while (alive > 0)
        for (int i = 0; i < L; i++) {
            if (!live[i] || lane_step(&lanes[i], arena, any_hit, counts))
                continue;
            live[i] = lane_next(&lanes[i], q, best, hit, &next, n);
            alive -= !live[i];
        }
}

/* Traces q[0..n) (all with tmin >= 0 and a non-empty tree); closest hits go to
 * best[i] (initialised by the caller), any-hit answers to hit[i]. */
static void kernel_stream(const mq_trace *q, mq_best *best, bool *hit, size_t n, mq_trace_counts *counts)
{
    if (hit)
        stream_impl(q, best, hit, n, counts, true);
    else
        stream_impl(q, best, NULL, n, counts, false);
}
