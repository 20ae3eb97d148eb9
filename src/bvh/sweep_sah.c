/*
 * Exact SAH split: sort the refs by centroid along each axis and evaluate every
 * split position (the "full sweep" reference of Wald 2007). O(n log n) per
 * node, so the builder uses it on small nodes (and on all nodes up to a size
 * limit in the high-quality build).
 */
#include <stdlib.h>

#include "bvh/sah_split.h"

static int cmp_axis(const mq_prim_ref *a, const mq_prim_ref *b, int k)
{
    float ca = a->lo[k] + a->hi[k], cb = b->lo[k] + b->hi[k];
    if (ca != cb)
        return ca < cb ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id); /* ids are unique: a total order */
}

static int cmp_x(const void *a, const void *b)
{
    return cmp_axis(a, b, 0);
}
static int cmp_y(const void *a, const void *b)
{
    return cmp_axis(a, b, 1);
}
static int cmp_z(const void *a, const void *b)
{
    return cmp_axis(a, b, 2);
}

static int (*const cmp_by_axis[3])(const void *, const void *) = {cmp_x, cmp_y, cmp_z};

static void sort_axis(mq_prim_ref *refs, const mq_build_range *r, int k)
{
    qsort(refs + r->begin, r->end - r->begin, sizeof *refs, cmp_by_axis[k]);
}

static void grow(mq_bounds *b, const mq_prim_ref *p)
{
    for (int k = 0; k < 3; k++) {
        b->lo[k] = p->lo[k] < b->lo[k] ? p->lo[k] : b->lo[k];
        b->hi[k] = p->hi[k] > b->hi[k] ? p->hi[k] : b->hi[k];
    }
}

/* Evaluates every position on the refs as currently sorted along axis k. */
static void sweep(const mq_prim_ref *refs, const mq_build_range *r, int k, float *right_area, mq_split *best)
{
    uint32_t n = r->end - r->begin;
    const mq_prim_ref *p = refs + r->begin;
    mq_bounds b;
    mq_bounds_empty(&b);
    for (uint32_t i = n; i-- > 1;) {
        grow(&b, &p[i]);
        right_area[i] = mq_bounds_half_area(&b);
    }
    mq_bounds_empty(&b);
    for (uint32_t i = 1; i < n; i++) {
        grow(&b, &p[i - 1]);
        float cost = mq_bounds_half_area(&b) * (float)mq_sah_blocks(i) + right_area[i] * (float)mq_sah_blocks(n - i);
        if (cost < best->cost) {
            best->cost = cost;
            best->axis = k;
            best->pos = i;
            best->kind = MQ_SPLIT_SORTED;
        }
    }
}

mq_split mq_sah_find_sorted(mq_prim_ref *refs, const mq_build_range *r, mq_sah_scratch *scratch)
{
    mq_split best = {MQ_SPLIT_NONE, 0, 0, 0.0f, 0.0f, INFINITY};
    int sorted_on = -1;
    for (int k = 0; k < 3; k++) {
        if (!(r->cbox.hi[k] > r->cbox.lo[k]))
            continue; /* flat axis: every centroid ties, nothing to separate */
        sort_axis(refs, r, k);
        sorted_on = k;
        sweep(refs, r, k, scratch->right_area, &best);
    }
    if (best.kind == MQ_SPLIT_SORTED && best.axis != sorted_on)
        sort_axis(refs, r, best.axis);
    return best;
}
