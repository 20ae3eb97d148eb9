/*
 * The shared skeleton's build (bvt.h): top-down, binary, binned SAH
 * (Wald 2007: 16 bins per axis over the centroids' box, the split of least
 * area(left) * count(left) + area(right) * count(right), areas of the
 * triangles' boxes). When the bins cannot separate the centroids, and always
 * from MQ_BVT_MEDIAN_DEPTH on, the object median along the centroids' longest
 * axis. Leaves hold at most leaf_size triangles. Nodes go into one array in
 * depth-first order so the left child is always the next node.
 */
#include <string.h>

#include "core/minmax.h"
#include "kdoptree/bvt.h"
#include "core/alloc.h"
#include "mesh/mesh_internal.h"

#define BINS 16

typedef struct build_ctx {
    mq_bvt *t;
    const mq_allocator *alloc;
    uint32_t *refs; /* mesh ids of the finite triangles, permuted into tree order */
    float *cent;    /* 3 per ref position: centroid */
    float *box;     /* 6 per ref position: min xyz, max xyz */
    float *keys;    /* median scratch */
    uint32_t max_nodes;
} build_ctx;

static bool triangle_is_finite(const mq_mesh *m, size_t t)
{
    for (int k = 0; k < 3; k++) {
        const float *p = m->positions + 3 * (size_t)m->indices[3 * t + (size_t)k];
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
            return false;
    }
    return true;
}

static void swap_pos(build_ctx *c, uint32_t i, uint32_t j)
{
    uint32_t r = c->refs[i];
    c->refs[i] = c->refs[j];
    c->refs[j] = r;
    float tmp[6];
    memcpy(tmp, c->cent + 3 * (size_t)i, 3 * sizeof(float));
    memcpy(c->cent + 3 * (size_t)i, c->cent + 3 * (size_t)j, 3 * sizeof(float));
    memcpy(c->cent + 3 * (size_t)j, tmp, 3 * sizeof(float));
    memcpy(tmp, c->box + 6 * (size_t)i, 6 * sizeof(float));
    memcpy(c->box + 6 * (size_t)i, c->box + 6 * (size_t)j, 6 * sizeof(float));
    memcpy(c->box + 6 * (size_t)j, tmp, 6 * sizeof(float));
    float k = c->keys[i];
    c->keys[i] = c->keys[j];
    c->keys[j] = k;
}

/* Hoare-partition selection (as the OBB tree's): position k of [lo, hi] in place. */
static void select_kth(build_ctx *c, uint32_t lo, uint32_t hi, uint32_t k)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->keys[mid] < c->keys[lo])
            swap_pos(c, mid, lo);
        if (c->keys[hi] < c->keys[lo])
            swap_pos(c, hi, lo);
        if (c->keys[hi] < c->keys[mid])
            swap_pos(c, hi, mid);
        float pivot = c->keys[mid];
        uint32_t i = lo, j = hi;
        while (i <= j) {
            while (c->keys[i] < pivot)
                i++;
            while (pivot < c->keys[j])
                j--;
            if (i <= j) {
                swap_pos(c, i, j);
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

static float half_area(const float lo[3], const float hi[3])
{
    float d0 = hi[0] - lo[0], d1 = hi[1] - lo[1], d2 = hi[2] - lo[2];
    return d0 * d1 + d1 * d2 + d2 * d0;
}

typedef struct bin {
    float lo[3], hi[3];
    uint32_t count;
} bin;

static void bin_reset(bin *b)
{
    for (int k = 0; k < 3; k++) {
        b->lo[k] = INFINITY;
        b->hi[k] = -INFINITY;
    }
    b->count = 0;
}

static void bin_grow(bin *b, const float *box)
{
    for (int k = 0; k < 3; k++) {
        b->lo[k] = mq_fminf(b->lo[k], box[k]);
        b->hi[k] = mq_fmaxf(b->hi[k], box[3 + k]);
    }
}

static void bin_merge(bin *b, const bin *o)
{
    for (int k = 0; k < 3; k++) {
        b->lo[k] = mq_fminf(b->lo[k], o->lo[k]);
        b->hi[k] = mq_fmaxf(b->hi[k], o->hi[k]);
    }
    b->count += o->count;
}

/* The bin of centroid coordinate x. Clamped in float before the conversion:
 * for centroids near the float range x - lo overflows to infinity, which has
 * no int value. */
static int bin_of(float x, float lo, float scale)
{
    float f = (x - lo) * scale;
    return !(f >= 1.0f) ? 0 : f >= (float)BINS ? BINS - 1 : (int)f;
}

/* The SAH split of [begin, end): returns the first index of the right side,
 * or begin when the bins cannot separate the centroids. */
static uint32_t split_sah(build_ctx *c, uint32_t begin, uint32_t end, const float clo[3], const float chi[3])
{
    float best = INFINITY, best_lo = 0.0f, best_scale = 0.0f;
    int best_axis = -1, best_split = 0;
    for (int axis = 0; axis < 3; axis++) {
        float ext = chi[axis] - clo[axis];
        if (!(ext > 0.0f))
            continue;
        float scale = (float)BINS / ext;
        bin bins[BINS];
        for (int b = 0; b < BINS; b++)
            bin_reset(&bins[b]);
        for (uint32_t i = begin; i < end; i++) {
            bin *b = &bins[bin_of(c->cent[3 * (size_t)i + axis], clo[axis], scale)];
            bin_grow(b, c->box + 6 * (size_t)i);
            b->count++;
        }
        float right_cost[BINS];
        bin acc;
        bin_reset(&acc);
        for (int b = BINS - 1; b > 0; b--) {
            bin_merge(&acc, &bins[b]);
            right_cost[b] = acc.count ? half_area(acc.lo, acc.hi) * (float)acc.count : 0.0f;
        }
        bin_reset(&acc);
        for (int b = 0; b < BINS - 1; b++) {
            bin_merge(&acc, &bins[b]);
            if (acc.count == 0 || acc.count == end - begin)
                continue;
            float cost = half_area(acc.lo, acc.hi) * (float)acc.count + right_cost[b + 1];
            if (cost < best) {
                best = cost;
                best_axis = axis;
                best_split = b + 1;
                best_lo = clo[axis];
                best_scale = scale;
            }
        }
    }
    if (best_axis < 0)
        return begin;
    uint32_t i = begin, j = end;
    while (i < j) {
        if (bin_of(c->cent[3 * (size_t)i + best_axis], best_lo, best_scale) < best_split)
            i++;
        else
            swap_pos(c, i, --j);
    }
    return i;
}

static uint32_t split_median(build_ctx *c, uint32_t begin, uint32_t end, const float clo[3], const float chi[3])
{
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (chi[k] - clo[k] > chi[axis] - clo[axis])
            axis = k;
    for (uint32_t i = begin; i < end; i++)
        c->keys[i] = c->cent[3 * (size_t)i + axis];
    uint32_t mid = begin + (end - begin) / 2;
    select_kth(c, begin, end - 1, mid);
    return mid;
}

static mq_status build_node(build_ctx *c, uint32_t index, uint32_t begin, uint32_t end, uint32_t depth)
{
    mq_bvt *t = c->t;
    if (depth > t->depth)
        t->depth = depth;
    if (end - begin <= t->leaf_size) {
        t->data[index] = MQ_BVT_LEAF_BIT | ((end - begin - 1u) << 27) | begin;
        return MQ_OK;
    }
    float clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = begin; i < end; i++)
        for (int k = 0; k < 3; k++) {
            clo[k] = mq_fminf(clo[k], c->cent[3 * (size_t)i + k]);
            chi[k] = mq_fmaxf(chi[k], c->cent[3 * (size_t)i + k]);
        }
    uint32_t mid = depth < MQ_BVT_MEDIAN_DEPTH ? split_sah(c, begin, end, clo, chi) : begin;
    if (mid <= begin || mid >= end)
        mid = split_median(c, begin, end, clo, chi);
    uint32_t left = t->node_count++;
    mq_status st = build_node(c, left, begin, mid, depth + 1);
    if (st != MQ_OK)
        return st;
    uint32_t right = t->node_count++;
    t->data[index] = right;
    return build_node(c, right, mid, end, depth + 1);
}

void mq_bvt_reload(mq_bvt *t, const float *positions)
{
    const mq_mesh *m = t->mesh;
    const float *pos = positions ? positions : m->positions;
    float magnitude = 0.0f;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < t->tri_count; i++) {
        uint32_t id = t->ids[i];
        for (int v = 0; v < 3; v++) {
            const float *p = pos + 3 * (size_t)m->indices[3 * (size_t)id + (size_t)v];
            for (int k = 0; k < 3; k++)
                t->tris[i].v[v][k] = p[k];
            float s = fabsf(p[0]) + fabsf(p[1]) + fabsf(p[2]);
            if (!isfinite(s))
                continue; /* a refit may move corners to non-finite places: they bound nothing */
            magnitude = mq_fmaxf(magnitude, s);
            for (int k = 0; k < 3; k++) {
                lo[k] = mq_fmin(lo[k], p[k]);
                hi[k] = mq_fmax(hi[k], p[k]);
            }
        }
    }
    t->magnitude = magnitude;
    for (int k = 0; k < 3; k++) {
        t->lo[k] = lo[k];
        t->hi[k] = hi[k];
    }
}

static mq_status build_all(build_ctx *c, uint32_t n)
{
    mq_bvt *t = c->t;
    const mq_mesh *m = t->mesh;
    c->max_nodes = 2 * n - 1;
    c->refs = mq_alloc(c->alloc, (size_t)n * sizeof *c->refs, MQ_CACHE_LINE);
    c->cent = mq_alloc(c->alloc, (size_t)n * 3 * sizeof *c->cent, MQ_CACHE_LINE);
    c->box = mq_alloc(c->alloc, (size_t)n * 6 * sizeof *c->box, MQ_CACHE_LINE);
    c->keys = mq_alloc(c->alloc, (size_t)n * sizeof *c->keys, MQ_CACHE_LINE);
    t->data = mq_alloc(c->alloc, (size_t)c->max_nodes * sizeof *t->data, MQ_CACHE_LINE);
    t->node_capacity = t->data ? c->max_nodes : 0;
    t->tris = mq_alloc(c->alloc, (size_t)n * sizeof *t->tris, MQ_CACHE_LINE);
    t->ids = mq_alloc(c->alloc, (size_t)n * sizeof *t->ids, MQ_CACHE_LINE);
    t->tri_count = n; /* mq_bvt_free frees each array that exists with this size */
    if (!c->refs || !c->cent || !c->box || !c->keys || !t->data || !t->tris || !t->ids)
        return MQ_ERR_OUT_OF_MEMORY;
    uint32_t r = 0;
    for (size_t i = 0; i < m->triangle_count; i++) {
        if (!triangle_is_finite(m, i))
            continue;
        float *cen = c->cent + 3 * (size_t)r, *box = c->box + 6 * (size_t)r;
        c->refs[r++] = (uint32_t)i;
        for (int k = 0; k < 3; k++) {
            box[k] = INFINITY;
            box[3 + k] = -INFINITY;
            cen[k] = 0.0f;
        }
        for (int v = 0; v < 3; v++) {
            const float *p = m->positions + 3 * (size_t)m->indices[3 * i + (size_t)v];
            for (int k = 0; k < 3; k++) {
                box[k] = mq_fminf(box[k], p[k]);
                box[3 + k] = mq_fmaxf(box[3 + k], p[k]);
                cen[k] += p[k] / 3.0f;
            }
        }
    }
    t->node_count = 1;
    mq_status st = build_node(c, 0, 0, n, 0);
    if (st != MQ_OK)
        return st;
    memcpy(t->ids, c->refs, (size_t)n * sizeof *t->ids);
    mq_bvt_reload(t, NULL);
    if (t->node_count < t->node_capacity) { /* return the unused tail; keep it when that fails */
        uint32_t *d = mq_realloc(c->alloc, t->data, (size_t)t->node_capacity * sizeof *d,
                                 (size_t)t->node_count * sizeof *d, MQ_CACHE_LINE);
        if (d) {
            t->data = d;
            t->node_capacity = t->node_count;
        }
    }
    return MQ_OK;
}

mq_status mq_bvt_build(mq_bvt *t)
{
    const mq_mesh *m = t->mesh;
    size_t n = 0;
    for (size_t i = 0; i < m->triangle_count; i++)
        n += triangle_is_finite(m, i);
    if (n > MQ_BVT_MAX_TRIANGLES)
        return MQ_ERR_LIMIT;
    if (n == 0)
        return MQ_OK;
    build_ctx c = {t, mq_bvt_allocator(t), NULL, NULL, NULL, NULL, 0};
    mq_status st = build_all(&c, (uint32_t)n);
    mq_free(c.alloc, c.refs, n * sizeof *c.refs);
    mq_free(c.alloc, c.cent, n * 3 * sizeof *c.cent);
    mq_free(c.alloc, c.box, n * 6 * sizeof *c.box);
    mq_free(c.alloc, c.keys, n * sizeof *c.keys);
    return st;
}

void mq_bvt_free(mq_bvt *t)
{
    const mq_allocator *a = mq_bvt_allocator(t);
    mq_free(a, t->data, (size_t)t->node_capacity * sizeof *t->data);
    mq_free(a, t->tris, (size_t)t->tri_count * sizeof *t->tris);
    mq_free(a, t->ids, (size_t)t->tri_count * sizeof *t->ids);
    t->data = NULL;
    t->tris = NULL;
    t->ids = NULL;
}

size_t mq_bvt_bytes(const mq_bvt *t)
{
    return (size_t)t->node_capacity * sizeof *t->data + (size_t)t->tri_count * (sizeof *t->tris + sizeof *t->ids);
}

void mq_bvt_node_ranges(const mq_bvt *t, uint32_t *first, uint32_t *end)
{
    for (uint32_t i = t->node_count; i-- > 0;) {
        uint32_t d = t->data[i];
        if (mq_bvt_is_leaf(d)) {
            first[i] = mq_bvt_first(d);
            end[i] = first[i] + mq_bvt_count(d);
        } else {
            first[i] = first[i + 1];
            end[i] = end[d];
        }
    }
}
