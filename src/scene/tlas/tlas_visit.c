/*
 * Walks of the top-level hierarchy for the shape queries: every instance
 * whose world box overlaps a box, and instances in increasing box distance
 * from a point.
 */
#include <math.h>

#if defined(__SSE2__) && !defined(MQ_FORCE_SCALAR)
#include <emmintrin.h>
#define MQ_VISIT_SSE2 1
#endif

#include "scene/scene_internal.h"

/* A query box rounded outwards to float (NaN: empty): a slot's float box
 * that overlaps the double box overlaps this one, so the slot tests below
 * are conservative and the leaves decide in double (rec_overlaps). */
typedef struct float_box {
    float lo[3], hi[3];
} float_box;

static float_box float_box_of(const mq_daabb *b)
{
    float_box f;
    for (int k = 0; k < 3; k++) {
        f.lo[k] = mq_tlas_round_lo(b->min[k]);
        f.hi[k] = mq_tlas_round_hi(b->max[k]);
    }
    return f;
}

/* The slots of block w whose mask matches and whose box may overlap q: a
 * node of 32 slots is 4 of these tests instead of 32 slot by slot. Empty
 * slots have mask 0. */
static unsigned block_overlaps(const mq_tlas_block *w, const float_box *q, uint32_t mask)
{
    unsigned hit = 0;
#if defined(MQ_VISIT_SSE2)
    const __m128i qm = _mm_set1_epi32((int)mask), zero = _mm_setzero_si128();
    for (int h = 0; h < MQ_TLAS_BLOCK; h += 4) {
        __m128i m = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(w->mask + h)), qm);
        __m128 ok = _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_cmpeq_epi32(m, zero), zero));
        for (int k = 0; k < 3; k++) {
            ok = _mm_and_ps(ok, _mm_cmple_ps(_mm_loadu_ps(w->lo[k] + h), _mm_set1_ps(q->hi[k])));
            ok = _mm_and_ps(ok, _mm_cmple_ps(_mm_set1_ps(q->lo[k]), _mm_loadu_ps(w->hi[k] + h)));
        }
        hit |= (unsigned)_mm_movemask_ps(ok) << h;
    }
#else
    for (int j = 0; j < MQ_TLAS_BLOCK; j++) {
        bool ok = (w->mask[j] & mask) != 0;
        for (int k = 0; k < 3; k++)
            ok = ok && w->lo[k][j] <= q->hi[k] && q->lo[k] <= w->hi[k][j];
        hit |= ok ? 1u << j : 0u;
    }
#endif
    return hit;
}

/* The mask of slot i of the node at n. */
static uint32_t slot_mask(const mq_tlas_block *n, int i)
{
    return n[i / MQ_TLAS_BLOCK].mask[i % MQ_TLAS_BLOCK];
}

/* The node of reference ref: its first block, and its slot count. */
static const mq_tlas_block *node_of(const mq_scene *s, uint32_t ref, int *slots)
{
    *slots = (int)mq_tlas_ref_blocks(ref) * MQ_TLAS_BLOCK;
    return &s->nodes[mq_tlas_ref_first(ref)];
}

/* Exact: the instance's double world box overlaps `b`. */
static bool rec_overlaps(const mq_instance_rec *r, const mq_daabb *b)
{
    for (int k = 0; k < 3; k++)
        if (!(r->world_box.min[k] <= b->max[k] && b->min[k] <= r->world_box.max[k]))
            return false;
    return true;
}

bool mq_tlas_visit_box(const mq_scene *s, const mq_daabb *box, uint32_t mask,
                       bool (*visit)(const mq_instance_rec *inst, void *user), void *user)
{
    if (!s || !box || s->node_count == 0)
        return true;
    const float_box q = float_box_of(box);
    uint32_t stack[MQ_TLAS_STACK];
    int top = 0;
    stack[top++] = s->root;
    while (top > 0) {
        uint32_t node = stack[--top];
        const mq_tlas_block *n = &s->nodes[mq_tlas_ref_first(node)];
        for (int b = (int)mq_tlas_ref_blocks(node) - 1; b >= 0; b--) {
            for (unsigned hit = block_overlaps(&n[b], &q, mask); hit;) {
                int j = 31 - __builtin_clz(hit); /* the slots from the last, as they always went */
                hit &= ~(1u << j);
                uint32_t ref = n[b].child[j];
                if (ref & MQ_TLAS_LEAF_BIT) {
                    const mq_instance_rec *r = &s->recs[ref & ~MQ_TLAS_LEAF_BIT];
                    if (rec_overlaps(r, box) && !visit(r, user))
                        return false;
                } else {
                    stack[top++] = ref;
                }
            }
        }
    }
    return true;
}

/* Squared distance from p to a box (0 inside). */
static double box_dist2(const double lo[3], const double hi[3], const double p[3])
{
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double d = lo[k] - p[k];
        if (!(d > 0.0))
            d = p[k] - hi[k];
        if (d > 0.0)
            d2 += d * d;
    }
    return d2;
}

/* A lower bound of slot i's instances' distances (its float box contains their boxes). */
static double slot_dist2(const mq_tlas_block *n, int i, const double p[3])
{
    const mq_tlas_block *w = &n[i / MQ_TLAS_BLOCK];
    int j = i % MQ_TLAS_BLOCK;
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = w->lo[k][j];
        hi[k] = w->hi[k][j];
    }
    return box_dist2(lo, hi, p);
}

/* slot_dist2 of the 8 slots of block w, the same operations in the same
 * order (max(lo - p, p - hi, 0) is the d box_dist2 adds: at most one of the
 * two is positive in a box, and an empty slot is never asked for), two
 * slots at a time. */
static void block_dist2(const mq_tlas_block *w, const double p[3], double d2[MQ_TLAS_BLOCK])
{
#if defined(MQ_VISIT_SSE2)
    const __m128d zero = _mm_setzero_pd();
    for (int h = 0; h < MQ_TLAS_BLOCK; h += 2) {
        __m128d sum = zero;
        for (int k = 0; k < 3; k++) {
            __m128d pk = _mm_set1_pd(p[k]);
            __m128d lo = _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)(w->lo[k] + h))));
            __m128d hi = _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)(w->hi[k] + h))));
            __m128d d = _mm_max_pd(_mm_max_pd(_mm_sub_pd(lo, pk), _mm_sub_pd(pk, hi)), zero);
            sum = _mm_add_pd(sum, _mm_mul_pd(d, d));
        }
        _mm_storeu_pd(d2 + h, sum);
    }
#else
    for (int j = 0; j < MQ_TLAS_BLOCK; j++)
        d2[j] = slot_dist2(w, j, p);
#endif
}

static double rec_dist2(const mq_instance_rec *r, const double p[3])
{
    return box_dist2(r->world_box.min, r->world_box.max, p);
}

/*
 * Best-first order needs a priority queue of the frontier, which a query may
 * not allocate. A fixed heap covers every ordinary case; when it overflows,
 * the rest of the walk continues with "next instance after (d2, id)" passes,
 * each a pruned depth-first search: slower, same order, no memory.
 */
#define HEAP_CAP 512

/* Key order: distance, then nodes before instances (a node at the same
 * distance may hold a smaller id), then instance id. An instance enters the
 * heap first under its slot's float box, a lower bound like a node's (read
 * from the node, not from its record), and under its exact box distance once
 * that comes out on top: far instances' records, each a likely cache miss,
 * are never read. */
typedef struct heap_entry {
    double d2;
    uint64_t tie; /* node reference (< 2^26), 2^31 + instance id (bound), or 2^32 + instance id (exact) */
} heap_entry;

static bool entry_less(const heap_entry *a, const heap_entry *b)
{
    return a->d2 < b->d2 || (a->d2 == b->d2 && a->tie < b->tie);
}

typedef struct heap {
    heap_entry e[HEAP_CAP];
    int n;
} heap;

static void heap_push(heap *h, heap_entry x)
{
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!entry_less(&x, &h->e[p]))
            break;
        h->e[i] = h->e[p];
        i = p;
    }
    h->e[i] = x;
}

static heap_entry heap_pop(heap *h)
{
    heap_entry top = h->e[0], x = h->e[--h->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && entry_less(&h->e[c + 1], &h->e[c]))
            c++;
        if (!entry_less(&h->e[c], &x))
            break;
        h->e[i] = h->e[c];
        i = c;
    }
    h->e[i] = x;
    return top;
}

#define INSTANCE_TIE(id) ((1ull << 32) | (uint64_t)(id))
#define BOUND_TIE(id) ((1ull << 31) | (uint64_t)(id))

/*
 * The instance with the smallest key (d2, id) strictly after *last (NULL:
 * none yet) and d2 <= bound2: a depth-first search that prunes boxes farther
 * than the best candidate. @return false when there is none.
 */
static bool next_after(const mq_scene *s, const double p[3], uint32_t mask, double bound2, const heap_entry *last,
                       heap_entry *out)
{
    uint32_t stack[MQ_TLAS_STACK];
    int top = 0;
    bool found = false;
    heap_entry best = {bound2, UINT64_MAX};
    stack[top++] = s->root;
    while (top > 0) {
        int slots;
        const mq_tlas_block *n = node_of(s, stack[--top], &slots);
        for (int i = slots - 1; i >= 0; i--) {
            uint32_t ref = mq_tlas_slot_child(n, i);
            if (!(slot_mask(n, i) & mask))
                continue;
            if (!(ref & MQ_TLAS_LEAF_BIT)) {
                if (!(slot_dist2(n, i, p) > best.d2))
                    stack[top++] = ref;
                continue;
            }
            uint32_t id = ref & ~MQ_TLAS_LEAF_BIT;
            double d2 = rec_dist2(&s->recs[id], p);
            if (d2 > best.d2)
                continue;
            heap_entry e = {d2, INSTANCE_TIE(id)};
            if ((!last || entry_less(last, &e)) && (entry_less(&e, &best) || (!found && e.d2 <= best.d2))) {
                best = e;
                found = true;
            }
        }
    }
    if (found)
        *out = best;
    return found;
}

void mq_tlas_visit_nearest(const mq_scene *s, const double p[3], uint32_t mask, const double *bound2,
                           void (*visit)(const mq_instance_rec *inst, void *user), void *user)
{
    if (!s || s->node_count == 0)
        return;
    heap h;
    h.n = 0;
    heap_entry last = {0.0, 0};
    bool visited = false;
    /* The root's key: 0 is a lower bound of every distance. */
    heap_push(&h, (heap_entry){0.0, s->root});
    while (h.n > 0) {
        heap_entry e = heap_pop(&h);
        if (!(e.d2 <= *bound2))
            return; /* everything left is farther */
        if (e.tie >> 32) {
            last = e;
            visited = true;
            visit(&s->recs[(uint32_t)e.tie], user);
            continue;
        }
        if (e.tie >> 31) { /* an instance's bound: now its exact distance (one popped, one pushed) */
            uint32_t id = (uint32_t)e.tie & ~MQ_TLAS_LEAF_BIT;
            heap_entry x = {rec_dist2(&s->recs[id], p), INSTANCE_TIE(id)};
            if (x.d2 <= *bound2)
                heap_push(&h, x);
            continue;
        }
        int slots;
        const mq_tlas_block *n = node_of(s, (uint32_t)e.tie, &slots);
        if (h.n + slots > HEAP_CAP)
            goto overflow;
        for (int b = 0; b < slots / MQ_TLAS_BLOCK; b++) {
            const mq_tlas_block *w = &n[b];
            double d2[MQ_TLAS_BLOCK];
            block_dist2(w, p, d2);
            for (int j = 0; j < MQ_TLAS_BLOCK; j++) {
                uint32_t ref = w->child[j];
                /* Beyond the bound now is beyond it when popped: the bound only shrinks. */
                if ((w->mask[j] & mask) && d2[j] <= *bound2)
                    heap_push(&h,
                              (heap_entry){d2[j], ref & MQ_TLAS_LEAF_BIT ? BOUND_TIE(ref & ~MQ_TLAS_LEAF_BIT) : ref});
            }
        }
    }
    return;
overflow:
    /* Everything up to `last` has been visited in order; continue from there. */
    for (;;) {
        heap_entry e;
        if (!next_after(s, p, mask, *bound2, visited ? &last : NULL, &e))
            return;
        last = e;
        visited = true;
        visit(&s->recs[(uint32_t)e.tie], user);
    }
}
