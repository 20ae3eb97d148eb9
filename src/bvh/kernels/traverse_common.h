/*
 * Pieces every traversal kernel shares: the stack, ordered pushing of hit
 * children, and turning a leaf's hit lanes into the best hit. All scalar; the
 * kernels differ only in how they compute node and leaf masks.
 */
#ifndef MQ_BVH_KERNELS_TRAVERSE_COMMON_H
#define MQ_BVH_KERNELS_TRAVERSE_COMMON_H

#include "core/float_steps.h"
#include "core/prefetch.h"
#include "bvh/kernels/trace.h"

/* Ize's bound: each slab distance is off by at most gamma_3 relative; widening
 * the exit by 2*gamma_3 (rounded up generously to 4 ulp of 1) keeps every true
 * hit. Valid as is when all distances that matter are >= 0 (tmin >= 0). */
#define MQ_IZE_UP (1.0f + 0x1p-21f)
#define MQ_IZE_REL 0x1p-21f

/*
 * The farthest entry distance a node may have and still hold a hit at t or
 * before: t widened by the same bound. Every node cull against an upper t (the
 * best hit so far, or the ray's tmax) goes through it, in the node test and
 * when a pushed entry is popped. A computed entry distance can exceed the true
 * one by a few ulp, and a hit lying on the node's entry face (boxes flat along
 * the ray, a triangle in the face's plane) has a float t within a few ulp of
 * it, possibly below: comparing the raw values culled such nodes, and with
 * them a triangle tied at exactly the best t with a smaller id (the tie rule
 * then failed). Correct for either sign of t; +inf stays +inf.
 */
static inline float mq_node_tmax(float t)
{
    return t + __builtin_fabsf(t) * MQ_IZE_REL;
}

typedef struct mq_stack_entry {
    uint32_t ref;
    float dist; /* entry distance of the child's box */
} mq_stack_entry;

static inline int mq_ctz(unsigned x)
{
    return __builtin_ctz(x);
}

/* Index of the highest set bit (x != 0). */
static inline int mq_highest_bit(unsigned x)
{
    return 31 - __builtin_clz(x);
}

/* Keeps the nearer of *near and c in *near (ties: *near) and returns the
 * other: a masked swap, not a branch, as which one is nearer is
 * unpredictable (GCC turns the same ?: selects into a branch). */
static inline mq_stack_entry mq_keep_nearer(mq_stack_entry *near, mq_stack_entry c)
{
    uint32_t swap = -(uint32_t)(c.dist < near->dist);
    uint32_t dref = (c.ref ^ near->ref) & swap;
    uint32_t ddist = (mq_float_bits(c.dist) ^ mq_float_bits(near->dist)) & swap;
    near->ref ^= dref;
    near->dist = mq_float_from_bits(mq_float_bits(near->dist) ^ ddist);
    return (mq_stack_entry){c.ref ^ dref, mq_float_from_bits(mq_float_bits(c.dist) ^ ddist)};
}

/* Starts loading a child the traversal will (likely) visit: the node's box
 * planes, or the leaf's first block. Hides much of the cache-miss latency
 * behind the work on its siblings (Embree prefetches each hit child too). */
static inline void mq_prefetch_child(const void *arena, uint32_t ref)
{
    /* The unit of a leaf (mq_ref_leaf_unit) or of a node (the ref itself) by
     * arithmetic, not a branch: which kind comes is unpredictable. */
    uint32_t unit = (ref & ~MQ_REF_LEAF) >> ((ref >> 31) << 1);
    const char *p = (const char *)arena + (size_t)unit * MQ_ARENA_UNIT;
    mq_prefetch(p); /* not __builtin_prefetch: core/prefetch.h */
    mq_prefetch(p + 64);
    mq_prefetch(p + 128);
    mq_prefetch(p + 192);
}

/* Pushes all hit children but one, unordered (any-hit); returns that one. */
static inline uint32_t mq_push_any(const void *arena, const mq_node8 *n, unsigned mask, mq_stack_entry *stack, int *sp)
{
    int i = mq_ctz(mask);
    mask &= mask - 1;
    mq_prefetch_child(arena, n->child[i]);
    while (mask) {
        int k = mq_ctz(mask);
        mask &= mask - 1;
        mq_prefetch_child(arena, n->child[k]);
        stack[(*sp)++] = (mq_stack_entry){n->child[k], 0.0f};
    }
    return n->child[i];
}

/* Pushes the hit children of `n` (bits of `mask`), nearest on top (entry
 * distances dist[slot]: an insertion sort), and returns the nearest one's ref
 * (popped already): kernel_push_many for kernels that keep the distances in
 * memory. */
static inline uint32_t mq_push_sorted(const void *arena, const mq_node8 *n, unsigned mask,
                                      const float dist[MQ_BVH_WIDTH], mq_stack_entry *stack, int *sp)
{
    int base = *sp;
    while (mask) {
        int k = mq_ctz(mask);
        mask &= mask - 1;
        mq_prefetch_child(arena, n->child[k]);
        stack[(*sp)++] = (mq_stack_entry){n->child[k], dist[k]};
    }
    /* farthest at the bottom, nearest on top */
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

/* True when a candidate passes the iterator's bound and the user's filter. */
static inline bool mq_candidate_ok(const mq_trace *q, const mq_best *c)
{
    if (q->has_after && !(c->t > q->after_t || (c->t == q->after_t && c->id > q->after_id)))
        return false;
    return !q->query->filter || mq_trace_filter_accepts(q, c);
}

static inline mq_best mq_candidate(const mq_tri_block *blk, int lane, const mq_leaf_hits *h)
{
    return (mq_best){h->t[lane], blk->id[lane], blk, lane, h->u[lane], h->v[lane], (h->back >> lane) & 1};
}

/* Folds a leaf block's hit lanes into the best hit: smaller t wins, equal t
 * goes to the smaller id. */
static inline void mq_resolve_closest(const mq_trace *q, const mq_tri_block *blk, unsigned mask, const mq_leaf_hits *h,
                                      mq_best *best)
{
    while (mask) {
        int lane = mq_ctz(mask);
        mask &= mask - 1;
        uint32_t id = blk->id[lane];
        float tt = h->t[lane];
        if (tt > best->t || (tt == best->t && id >= best->id))
            continue;
        mq_best c = mq_candidate(blk, lane, h);
        if (mq_candidate_ok(q, &c))
            *best = c;
    }
}

static inline bool mq_resolve_any(const mq_trace *q, const mq_tri_block *blk, unsigned mask, const mq_leaf_hits *h)
{
    if (!q->has_after && !q->query->filter)
        return mask != 0;
    while (mask) {
        int lane = mq_ctz(mask);
        mask &= mask - 1;
        mq_best c = mq_candidate(blk, lane, h);
        if (mq_candidate_ok(q, &c))
            return true;
    }
    return false;
}

#endif
