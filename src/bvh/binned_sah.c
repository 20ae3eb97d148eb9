/*
 * Binned SAH split (Wald 2007): centroids are dropped into `bins` equal slots
 * per axis, and only the bins-1 planes between slots are evaluated. Within a
 * few percent of the full sweep's quality at a fraction of its cost.
 */
#include "bvh/sah_split.h"

#include <pthread.h>

#include "core/pool.h"
#include "core/vec4f.h"

typedef struct bin_set {
    mq_f4 lo[3][MQ_MAX_BINS];
    mq_f4 hi[3][MQ_MAX_BINS];
    uint32_t count[3][MQ_MAX_BINS];
} bin_set;

/* Bin index setup for one axis: scale 0 (everything in bin 0) for a flat axis. */
static void bin_mapping(const mq_bounds *cbox, int bins, float lo[4], float scale[4])
{
    for (int k = 0; k < 3; k++) {
        float extent = cbox->hi[k] - cbox->lo[k];
        /* (1 - 2^-20) keeps the maximum centroid inside the last bin. */
        float s = extent > 0.0f ? (float)bins * (1.0f - 0x1p-20f) / extent : 0.0f;
        lo[k] = cbox->lo[k];
        scale[k] = isfinite(s) ? s : 0.0f;
    }
    lo[3] = 0.0f;
    scale[3] = 0.0f;
}

/* The bins of one ref on all three axes (lane 3 unused). Same arithmetic in
 * binning and partitioning, so both put a ref in the same bin. */
static inline void ref_bins(const mq_prim_ref *r, mq_f4 lo, mq_f4 scale, mq_f4 last, int32_t out[4])
{
    mq_f4 c = mq_f4_add(mq_f4_load(r->lo), mq_f4_load(r->hi));
    mq_f4 b = mq_f4_mul(mq_f4_sub(c, lo), scale);
    b = mq_f4_min(mq_f4_max(b, mq_f4_splat(0.0f)), last);
    mq_f4_to_int3(b, out);
}

static void clear_bins(bin_set *set, int bins)
{
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < bins; i++) {
            set->lo[k][i] = mq_f4_splat(INFINITY);
            set->hi[k][i] = mq_f4_splat(-INFINITY);
            set->count[k][i] = 0;
        }
}

static inline void add_to_bins(bin_set *set, const mq_prim_ref *r, const int32_t b[4])
{
    mq_f4 plo = mq_f4_load(r->lo), phi = mq_f4_load(r->hi);
    for (int k = 0; k < 3; k++) {
        set->lo[k][b[k]] = mq_f4_min(plo, set->lo[k][b[k]]);
        set->hi[k][b[k]] = mq_f4_max(phi, set->hi[k][b[k]]);
        set->count[k][b[k]]++;
    }
}

/* Adds the bins of `from` to `to`: min, max and counts, all exact, so bins
 * merged in any order are those of one pass. */
static void merge_bins(bin_set *to, const bin_set *from, int bins)
{
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < bins; j++) {
            to->lo[k][j] = mq_f4_min(from->lo[k][j], to->lo[k][j]);
            to->hi[k][j] = mq_f4_max(from->hi[k][j], to->hi[k][j]);
            to->count[k][j] += from->count[k][j];
        }
}

/* Refs binned per step, taken from as many evenly spaced stretches of the
 * range: neighbouring refs usually fall into the same bins, and each update
 * of a bin waits for the previous one's store; refs far apart in the range
 * rarely share bins, so their updates overlap. (Embree bins two neighbouring
 * primitives per step; separate bin sets per lane cost more to clear and
 * merge than they save.) */
#define MQ_BIN_STRETCHES 8

/* Bins the refs of `r` into `set`. The bins are those of a pass in order:
 * counts and min / max do not depend on the order (NaN lanes drop out either
 * way), but for the sign of a zero bound, which no cost comparison sees. */
static void bin_refs(const mq_prim_ref *refs, const mq_build_range *r, int bins, const float lo[4],
                     const float scale[4], bin_set *set)
{
    enum { S = MQ_BIN_STRETCHES };
    clear_bins(set, bins);
    mq_f4 vlo = mq_f4_load(lo), vscale = mq_f4_load(scale), last = mq_f4_splat((float)(bins - 1));
    uint32_t len = (r->end - r->begin) / S;
    const mq_prim_ref *first = refs + r->begin;
    for (uint32_t j = 0; j < len; j++) {
        int32_t b[S][4];
        for (int s = 0; s < S; s++)
            ref_bins(&first[s * len + j], vlo, vscale, last, b[s]);
        for (int s = 0; s < S; s++)
            add_to_bins(set, &first[s * len + j], b[s]);
    }
    for (uint32_t i = r->begin + S * len; i < r->end; i++) {
        int32_t b[4];
        ref_bins(&refs[i], vlo, vscale, last, b);
        add_to_bins(set, &refs[i], b);
    }
}

/* Half areas of three boxes at once, lane k for box k (lane 3: 0):
 * mq_bounds_half_area's arithmetic, 0 for an empty or NaN box. */
static mq_f4 half_areas3(const mq_f4 lo[3], const mq_f4 hi[3])
{
    mq_f4 x = mq_f4_sub(hi[0], lo[0]), y = mq_f4_sub(hi[1], lo[1]), z = mq_f4_sub(hi[2], lo[2]);
    mq_f4 w = mq_f4_splat(0.0f);
    mq_f4_transpose(&x, &y, &z, &w); /* now x = the three boxes' widths along x, ... */
    mq_f4 area = mq_f4_add(mq_f4_add(mq_f4_mul(x, y), mq_f4_mul(y, z)), mq_f4_mul(z, x));
    return mq_f4_zero_unless_nonneg(mq_f4_zero_unless_nonneg(mq_f4_zero_unless_nonneg(area, x), y), z);
}

/* Adds bin i of every axis to the running boxes and counts. */
static inline void grow_axes(const bin_set *set, int i, mq_f4 lo[3], mq_f4 hi[3], uint32_t n[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = mq_f4_min(set->lo[k][i], lo[k]);
        hi[k] = mq_f4_max(set->hi[k][i], hi[k]);
        n[k] += set->count[k][i];
    }
}

static inline void reset_axes(mq_f4 lo[3], mq_f4 hi[3], uint32_t n[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = mq_f4_splat(INFINITY);
        hi[k] = mq_f4_splat(-INFINITY);
        n[k] = 0;
    }
}

/* Best plane on the axes that are not flat, the three swept together (their
 * boxes' areas in one vector); updates *best when cheaper. Ties go to the
 * lower axis, then the lower plane. */
static void sweep_axes(const bin_set *set, int bins, const float scale[4], mq_split *best)
{
    float right_area[MQ_MAX_BINS][4];
    uint32_t right_count[MQ_MAX_BINS][3];
    mq_f4 lo[3], hi[3];
    uint32_t n[3];
    reset_axes(lo, hi, n);
    for (int i = bins - 1; i > 0; i--) {
        grow_axes(set, i, lo, hi, n);
        mq_f4_store(right_area[i], half_areas3(lo, hi));
        for (int k = 0; k < 3; k++)
            right_count[i][k] = n[k];
    }
    float cost[3] = {INFINITY, INFINITY, INFINITY};
    uint32_t pos[3] = {0, 0, 0};
    reset_axes(lo, hi, n);
    for (int i = 1; i < bins; i++) {
        grow_axes(set, i - 1, lo, hi, n);
        float left_area[4];
        mq_f4_store(left_area, half_areas3(lo, hi));
        for (int k = 0; k < 3; k++) {
            if (n[k] == 0 || right_count[i][k] == 0)
                continue;
            float c =
                left_area[k] * (float)mq_sah_blocks(n[k]) + right_area[i][k] * (float)mq_sah_blocks(right_count[i][k]);
            if (c < cost[k]) {
                cost[k] = c;
                pos[k] = (uint32_t)i;
            }
        }
    }
    for (int k = 0; k < 3; k++)
        if (scale[k] > 0.0f && cost[k] < best->cost) {
            best->cost = cost[k];
            best->axis = k;
            best->pos = pos[k];
            best->kind = MQ_SPLIT_BINNED;
        }
}

/* Bins for a range of n refs: fewer for small ranges (Embree's rule, 4 + n /
 * 20, with a steeper slope): clearing and sweeping 32 bins would cost more
 * than binning a few dozen refs, and below about 8 refs per bin the finer
 * planes hardly find cheaper splits. */
static int bins_for(uint32_t n, int bins)
{
    return (uint32_t)bins > 4 + n / 8 ? (int)(4 + n / 8) : bins;
}

/* The cheapest plane of the binned refs, with its bin mapping. */
static mq_split best_of(const bin_set *set, int bins, const float lo[4], const float scale[4])
{
    mq_split best = {MQ_SPLIT_NONE, 0, 0, 0.0f, 0.0f, INFINITY};
    sweep_axes(set, bins, scale, &best);
    if (best.kind == MQ_SPLIT_BINNED) {
        best.bin_lo = lo[best.axis];
        best.bin_scale = scale[best.axis];
    }
    return best;
}

mq_split mq_sah_find_binned(const mq_prim_ref *refs, const mq_build_range *r, int bins)
{
    uint32_t n = r->end - r->begin;
    bins = bins_for(n, bins);
    float lo[4], scale[4];
    bin_mapping(&r->cbox, bins, lo, scale);
    bin_set set;
    bin_refs(refs, r, bins, lo, scale, &set);
    return best_of(&set, bins, lo, scale);
}

/* One slice of the range per index, binned on the index's stack and merged
 * into `total` under the lock. */
typedef struct shared_bins {
    const mq_prim_ref *refs;
    const mq_build_range *r;
    int bins;
    float lo[4], scale[4];
    uint32_t slices;
    pthread_mutex_t lock;
    bin_set total;
} shared_bins;

static void bin_slice(void *arg, uint32_t index)
{
    shared_bins *w = arg;
    uint64_t n = w->r->end - w->r->begin;
    mq_build_range slice = *w->r;
    slice.begin = w->r->begin + (uint32_t)(n * index / w->slices);
    slice.end = w->r->begin + (uint32_t)(n * (index + 1) / w->slices);
    bin_set set;
    bin_refs(w->refs, &slice, w->bins, w->lo, w->scale, &set);
    pthread_mutex_lock(&w->lock);
    merge_bins(&w->total, &set, w->bins);
    pthread_mutex_unlock(&w->lock);
}

mq_split mq_sah_find_binned_shared(const mq_prim_ref *refs, const mq_build_range *r, int bins, uint32_t threads)
{
    shared_bins w;
    w.refs = refs;
    w.r = r;
    w.bins = bins_for(r->end - r->begin, bins);
    w.slices = threads < MQ_SHARED_SPLIT_THREADS ? threads : MQ_SHARED_SPLIT_THREADS;
    bin_mapping(&r->cbox, w.bins, w.lo, w.scale);
    clear_bins(&w.total, w.bins);
    pthread_mutex_init(&w.lock, NULL);
    mq_run_parallel(w.slices, bin_slice, &w);
    pthread_mutex_destroy(&w.lock);
    return best_of(&w.total, w.bins, w.lo, w.scale);
}

void mq_range_bounds(const mq_prim_ref *refs, uint32_t begin, uint32_t end, mq_bounds *box, mq_bounds *cbox)
{
    mq_f4 lo = mq_f4_splat(INFINITY), hi = mq_f4_splat(-INFINITY), clo = lo, chi = hi;
    for (uint32_t i = begin; i < end; i++) {
        mq_f4 a = mq_f4_load(refs[i].lo), b = mq_f4_load(refs[i].hi), c = mq_f4_add(a, b);
        lo = mq_f4_min(a, lo);
        hi = mq_f4_max(b, hi);
        clo = mq_f4_min(c, clo);
        chi = mq_f4_max(c, chi);
    }
    mq_f4_store(box->lo, lo);
    mq_f4_store(box->hi, hi);
    mq_f4_store(cbox->lo, clo);
    mq_f4_store(cbox->hi, chi);
}

/* True when the ref goes left of a binned split. */
static inline bool goes_left(const mq_prim_ref *r, const mq_split *s)
{
    int k = s->axis;
    float c = r->lo[k] + r->hi[k];
    /* Same arithmetic as ref_bins, on one lane. */
    float b = (c - s->bin_lo) * s->bin_scale;
    return b < (float)s->pos;
}

static void swap_refs(mq_prim_ref *a, mq_prim_ref *b)
{
    mq_prim_ref t = *a;
    *a = *b;
    *b = t;
}

/* Refs looked at per step of the pairing below: a block's misplaced ones are
 * collected without a branch on their side. */
#define PAIR_BLOCK 64

/* Hoare's partition by a binned plane, with no branch on a ref's side: the
 * refs' side is random, and Hoare's loops mispredicted about once per ref.
 * Hoare swaps the k-th ref from the left that goes right with the k-th ref
 * from the right that goes left, until the two meet at `mid` = begin + the
 * number of left-goers; so: count the left-goers, then collect the misplaced
 * refs of [begin, mid) and of [mid, end) (from the right) a block at a time
 * and swap them in pairs. The same permutation as Hoare's loops, so the same
 * tree. Returns mid. */
static uint32_t partition_binned(mq_prim_ref *refs, uint32_t begin, uint32_t end, const mq_split *s)
{
    uint32_t mid = begin;
    for (uint32_t i = begin; i < end; i++)
        mid += goes_left(&refs[i], s);
    uint32_t a[PAIR_BLOCK], b[PAIR_BLOCK]; /* misplaced: left of mid / right of mid */
    uint32_t na = 0, nb = 0, i = begin, j = end;
    while (i < mid || na > 0) {
        for (uint32_t stop = mid - i < PAIR_BLOCK ? mid : i + PAIR_BLOCK; na < PAIR_BLOCK && i < stop; i++) {
            a[na] = i;
            na += !goes_left(&refs[i], s);
        }
        for (uint32_t stop = j - mid < PAIR_BLOCK ? mid : j - PAIR_BLOCK; nb < PAIR_BLOCK && j > stop;) {
            b[nb] = --j;
            nb += goes_left(&refs[j], s);
        }
        uint32_t n = na < nb ? na : nb;
        for (uint32_t k = 0; k < n; k++)
            swap_refs(&refs[a[k]], &refs[b[k]]);
        /* the unpaired rest moves to the front, in order */
        for (uint32_t k = n; k < na; k++)
            a[k - n] = a[k];
        for (uint32_t k = n; k < nb; k++)
            b[k - n] = b[k];
        na -= n;
        nb -= n;
    }
    return mid;
}

void mq_sah_partition(mq_prim_ref *refs, const mq_build_range *r, const mq_split *s, mq_build_range *left,
                      mq_build_range *right)
{
    uint32_t mid;
    left->begin = r->begin;
    right->end = r->end;
    if (s->kind == MQ_SPLIT_BINNED)
        mid = partition_binned(refs, r->begin, r->end, s);
    else
        mid = s->kind == MQ_SPLIT_SORTED ? r->begin + s->pos : r->begin + (r->end - r->begin) / 2;
    mq_range_bounds(refs, r->begin, mid, &left->box, &left->cbox);
    mq_range_bounds(refs, mid, r->end, &right->box, &right->cbox);
    left->end = mid;
    right->begin = mid;
}
