/*
 * The traversal loops, written once and instantiated per ISA: a kernel file
 * defines
 *
 *   kernel_ray                       its per-ray constants (e.g. broadcast registers)
 *   kernel_ray_init(q, &kr)          (the loops take them set up, so that a kernel
 *                                    may set them up another way where it can)
 *   kernel_dists, kernel_dist_at(&d, i)   the 8 entry distances of a node test
 *       (a register where the ISA can index one: reloading lanes of a vector
 *       just stored stalls store-to-load forwarding on current cores)
 *   kernel_node_hits(node, &kr, tmin, tmax, &dists, neg) -> mask of children
 *       whose box the ray segment [tmin, tmax] meets, with their entry distances
 *       (neg: some distance that matters may be negative; see MQ_IZE_REL)
 *   kernel_push_many(arena, node, mask, &dists, stack, &sp) -> pushes three or
 *       more hit children nearest on top (entries past sp + count - 1 may be
 *       written, up to sp + 8) and returns the nearest one's ref, popped
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

#include "bvh/kernels/traverse_common.h"

#include "bvh/kernels/traverse_lane.h"

static inline __attribute__((always_inline)) bool
kernel_closest_impl(const mq_trace *q, const kernel_ray *kr, mq_best *best_out, mq_trace_counts *counts, const bool neg)
{
    const void *arena = q->bvh->arena;
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
            unsigned mask = kernel_node_hits(n, kr, tmin, cut, &dist, neg);
            if (!mask)
                goto next;
            ref = push_ordered(arena, n, mask, &dist, stack, &sp, false);
        }
        leaves++;
        const mq_tri_block *blk = mq_arena_leaf(arena, ref);
        for (uint32_t b = mq_ref_block_count(ref); b > 0; b--, blk++) {
            blocks++;
            unsigned m = kernel_leaf_hits(blk, kr, q, tmin, best.t, &lh);
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

static inline __attribute__((always_inline)) bool kernel_any_impl(const mq_trace *q, const kernel_ray *kr,
                                                                  mq_trace_counts *counts, const bool neg)
{
    const void *arena = q->bvh->arena;
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
            unsigned mask = kernel_node_hits(n, kr, tmin, cut, &dist, neg);
            if (!mask)
                goto next;
            ref = mq_push_any(arena, n, mask, stack, &sp);
        }
        leaves++;
        const mq_tri_block *blk = mq_arena_leaf(arena, ref);
        for (uint32_t b = mq_ref_block_count(ref); b > 0 && !hit; b--, blk++) {
            blocks++;
            unsigned m = kernel_leaf_hits(blk, kr, q, tmin, tmax, &lh);
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
    kernel_ray kr;
    kernel_ray_init(q, &kr);
    if (mq_trace_tmin(q) < 0.0f)
        return kernel_closest_impl(q, &kr, best, counts, true);
    return kernel_closest_impl(q, &kr, best, counts, false);
}

static bool kernel_any(const mq_trace *q, mq_trace_counts *counts)
{
    if (q->bvh->root == MQ_REF_EMPTY)
        return false;
    kernel_ray kr;
    kernel_ray_init(q, &kr);
    if (mq_trace_tmin(q) < 0.0f)
        return kernel_any_impl(q, &kr, counts, true);
    return kernel_any_impl(q, &kr, counts, false);
}

/*
 * Streams: several prepared queries (tmin >= 0) traced together as lanes
 * (traverse_lane.h), one node or leaf step of each in turn. A single
 * traversal is a chain of dependent loads and tests that leaves most of an
 * out-of-order core idle; independent chains in one loop overlap their
 * latencies (and their cache misses), and each answer is the single-ray one.
 */

/* Writes a finished lane's answer; restarts it on the next query if any. */
static inline bool lane_next(stream_lane *l, const mq_trace *q, mq_best *best, bool *hit, size_t *next, size_t n)
{
    if (hit)
        hit[l->index] = l->hit;
    else
        best[l->index] = l->best;
    if (*next >= n)
        return false;
    size_t i = (*next)++;
    lane_start(l, &q[i], i, best[i], hit != NULL);
    return true;
}

/* Queries in flight: enough to overlap the cache misses of large trees; more
 * than 8 measured no better. */
#define MQ_STREAM_LANES 8

static inline __attribute__((always_inline)) void stream_impl(const mq_trace *q, mq_best *best, bool *hit, size_t n,
                                                              mq_trace_counts *counts, const bool any_hit)
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
            lane_start(&lanes[i], &q[next], next, best[next], any_hit);
            next++;
            alive++;
        }
    }
    while (alive > 0)
        for (int i = 0; i < L; i++) {
            if (!live[i] || lane_step(&lanes[i], arena, any_hit, counts, false))
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

/* The packet8 slot for a level without a packet kernel (trace.h): the
 * packets' queries traced as the batch traces queries it does not pack, a
 * stream on trees of MQ_STREAM_MIN_BYTES or more (copied into place in
 * chunks: the stream takes consecutive queries), else one by one. */
static inline void kernel_packet8_portable(const mq_trace *const *q, mq_best **best, size_t packets, bool interleave,
                                           mq_trace_counts *counts)
{
    (void)interleave;
    size_t n = packets * 8;
    if (n == 0)
        return;
    if (q[0]->bvh->arena_bytes < MQ_STREAM_MIN_BYTES) {
        for (size_t i = 0; i < n; i++)
            kernel_closest(q[i], best[i], counts);
        return;
    }
    enum { CHUNK = 64 };
    mq_trace tq[CHUNK];
    mq_best tb[CHUNK];
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        for (size_t j = 0; j < m; j++) {
            tq[j] = *q[i + j];
            tb[j] = *best[i + j];
        }
        kernel_stream(tq, tb, NULL, m, counts);
        for (size_t j = 0; j < m; j++)
            *best[i + j] = tb[j];
    }
}

/* The closest_valid slot for a level without its own preparation:
 * mq_trace_prepare_valid, then this level's closest-hit loop. */
static inline bool kernel_closest_valid_portable(const mq_bvh *bvh, const mq_ray *ray, bool cull, mq_trace *q,
                                                 mq_best *best)
{
    mq_trace_prepare_valid(q, bvh, ray, cull);
    *best = mq_best_init(q->ray.tmax);
    mq_trace_counts counts = {0, 0, 0};
    return kernel_closest(q, best, &counts);
}

/* The any_valid slot for a level without its own preparation:
 * mq_trace_prepare_valid, then this level's any-hit loop. */
static inline bool kernel_any_valid_portable(const mq_bvh *bvh, const mq_ray *ray, bool cull)
{
    mq_trace q;
    mq_trace_prepare_valid(&q, bvh, ray, cull);
    mq_trace_counts counts = {0, 0, 0};
    return kernel_any(&q, &counts);
}
