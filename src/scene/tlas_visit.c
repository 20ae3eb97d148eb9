/*
 * Walks of the top-level hierarchy for the shape queries: every instance
 * whose world box overlaps a box, and instances in increasing box distance
 * from a point.
 */
#include <math.h>

#include "scene/scene_internal.h"

/* Conservative: the float child box of slot i of the node at n may overlap `b`. */
static bool slot_overlaps(const mq_tlas_block *n, int i, const mq_daabb *b)
{
    const mq_tlas_block *w = &n[i / MQ_TLAS_BLOCK];
    int j = i % MQ_TLAS_BLOCK;
    for (int k = 0; k < 3; k++)
        if (!((double)w->lo[k][j] <= b->max[k] && b->min[k] <= (double)w->hi[k][j]))
            return false;
    return true;
}

/* The mask of slot i of the node at n. */
static uint32_t slot_mask(const mq_tlas_block *n, int i) { return n[i / MQ_TLAS_BLOCK].mask[i % MQ_TLAS_BLOCK]; }

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
    uint32_t stack[MQ_TLAS_STACK];
    int top = 0;
    stack[top++] = s->root;
    while (top > 0) {
        int slots;
        const mq_tlas_block *n = node_of(s, stack[--top], &slots);
        for (int i = slots - 1; i >= 0; i--) {
            uint32_t ref = mq_tlas_slot_child(n, i);
            if (!(slot_mask(n, i) & mask) || !slot_overlaps(n, i, box))
                continue;
            if (ref & MQ_TLAS_LEAF_BIT) {
                const mq_instance_rec *r = &s->recs[ref & ~MQ_TLAS_LEAF_BIT];
                if (rec_overlaps(r, box) && !visit(r, user))
                    return false;
            } else {
                stack[top++] = ref;
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
 * distance may hold a smaller id), then instance id. */
typedef struct heap_entry {
    double d2;
    uint64_t tie; /* node reference (< 2^32), or 2^32 + instance id */
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
        int slots;
        const mq_tlas_block *n = node_of(s, (uint32_t)e.tie, &slots);
        if (h.n + slots > HEAP_CAP)
            goto overflow;
        for (int i = 0; i < slots; i++) {
            uint32_t ref = mq_tlas_slot_child(n, i);
            if (!(slot_mask(n, i) & mask))
                continue;
            if (ref & MQ_TLAS_LEAF_BIT) {
                uint32_t id = ref & ~MQ_TLAS_LEAF_BIT;
                heap_push(&h, (heap_entry){rec_dist2(&s->recs[id], p), INSTANCE_TIE(id)});
            } else {
                heap_push(&h, (heap_entry){slot_dist2(n, i, p), ref});
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
