/*
 * The binned SAH split (bvh/sah_split.h) against an oracle that bins the
 * references one by one, in order, and tries every plane of every axis with
 * the same float arithmetic: the split's documented mapping (bin index =
 * (centroid - bin_lo) * bin_scale, clamped; bin_scale = bins * (1 - 2^-20) /
 * extent) and cost (hA(L) * blocks(nL) + hA(R) * blocks(nR); ties to the
 * lower axis, then the lower plane). The builder bins in whatever order is
 * fastest; its bins, and so its split, must be those of the in-order pass, bit
 * for bit, for every range size (not only multiples of its step), for
 * references whose neighbours share bins, and when the binning is shared over
 * threads. The partition must then put exactly the oracle's left count first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvh/sah_split.h"
#include "test_support.h"

typedef enum layout { SCATTERED, IN_A_ROW, FEW_POINTS, FLAT_Z, SIGNED_ZEROS, LAYOUTS } layout;

static void make_refs(mq_test_rng *g, layout kind, uint32_t n, mq_prim_ref *refs)
{
    for (uint32_t i = 0; i < n; i++) {
        double c[3], half = mq_test_rng_range(g, 0.0, 0.05);
        for (int k = 0; k < 3; k++)
            c[k] = mq_test_rng_unit(g);
        if (kind == IN_A_ROW) /* sorted along x, as after partitions: neighbours share bins */
            c[0] = (double)i / n + mq_test_rng_range(g, 0.0, 1e-3);
        if (kind == FEW_POINTS)
            for (int k = 0; k < 3; k++)
                c[k] = (double)(mq_test_rng_u64(g) % 3 + (uint64_t)k) / 4.0;
        if (kind == FLAT_Z)
            c[2] = 0.5, half = 0.0;
        if (kind == SIGNED_ZEROS) /* bounds of +0 and -0, which min and max may return either of */
            for (int k = 0; k < 3; k++)
                c[k] = mq_test_rng_u64(g) % 2 ? 0.0 : c[k], half = 0.0;
        for (int k = 0; k < 3; k++) {
            refs[i].lo[k] = (float)(c[k] - half);
            refs[i].hi[k] = (float)(c[k] + half);
            if (kind == SIGNED_ZEROS && c[k] == 0.0 && mq_test_rng_u64(g) % 2)
                refs[i].lo[k] = refs[i].hi[k] = -0.0f;
        }
        refs[i].id = i;
        refs[i].pad = 0;
    }
}

static mq_build_range range_of(const mq_prim_ref *refs, uint32_t begin, uint32_t end)
{
    mq_build_range r;
    r.begin = begin;
    r.end = end;
    mq_range_bounds(refs, begin, end, &r.box, &r.cbox);
    return r;
}

typedef struct oracle_bins {
    mq_bounds box[MQ_MAX_BINS];
    uint32_t count[MQ_MAX_BINS];
} oracle_bins;

static int oracle_bin(const mq_prim_ref *ref, int k, float lo, float scale, int bins)
{
    float b = (ref->lo[k] + ref->hi[k] - lo) * scale;
    b = b < 0.0f ? 0.0f : b;
    b = b > (float)(bins - 1) ? (float)(bins - 1) : b;
    return (int)b;
}

static void grow(mq_bounds *to, const mq_bounds *from)
{
    for (int k = 0; k < 3; k++) {
        to->lo[k] = fminf(to->lo[k], from->lo[k]);
        to->hi[k] = fmaxf(to->hi[k], from->hi[k]);
    }
}

/* The best binned split of refs[0..n) (the range r) with `bins` bins, found the slow way. */
static mq_split oracle_split(const mq_prim_ref *refs, uint32_t n, const mq_build_range *r, int bins,
                             uint32_t *left_count)
{
    mq_split best = {MQ_SPLIT_NONE, 0, 0, 0.0f, 0.0f, INFINITY};
    for (int k = 0; k < 3; k++) {
        float extent = r->cbox.hi[k] - r->cbox.lo[k];
        if (!(extent > 0.0f))
            continue;
        float lo = r->cbox.lo[k], scale = (float)bins * (1.0f - 0x1p-20f) / extent;
        oracle_bins ob;
        for (int i = 0; i < bins; i++) {
            mq_bounds_empty(&ob.box[i]);
            ob.count[i] = 0;
        }
        for (uint32_t j = 0; j < n; j++) {
            int i = oracle_bin(&refs[j], k, lo, scale, bins);
            mq_bounds one;
            memcpy(one.lo, refs[j].lo, sizeof refs[j].lo);
            memcpy(one.hi, refs[j].hi, sizeof refs[j].hi);
            grow(&ob.box[i], &one);
            ob.count[i]++;
        }
        for (int pos = 1; pos < bins; pos++) {
            mq_bounds left, right;
            mq_bounds_empty(&left);
            mq_bounds_empty(&right);
            uint32_t nl = 0, nr = 0;
            for (int i = 0; i < bins; i++) {
                grow(i < pos ? &left : &right, &ob.box[i]);
                *(i < pos ? &nl : &nr) += ob.count[i];
            }
            if (nl == 0 || nr == 0)
                continue;
            float cost = mq_bounds_half_area(&left) * (float)mq_sah_blocks(nl) +
                         mq_bounds_half_area(&right) * (float)mq_sah_blocks(nr);
            if (cost < best.cost) {
                best = (mq_split){MQ_SPLIT_BINNED, k, (uint32_t)pos, lo, scale, cost};
                *left_count = nl;
            }
        }
    }
    return best;
}

static void assert_same_split(const mq_split *a, const mq_split *b)
{
    assert_int_equal(a->kind, b->kind);
    if (a->kind != MQ_SPLIT_BINNED)
        return;
    assert_int_equal(a->axis, b->axis);
    assert_int_equal(a->pos, b->pos);
    assert_memory_equal(&a->bin_lo, &b->bin_lo, sizeof(float));
    assert_memory_equal(&a->bin_scale, &b->bin_scale, sizeof(float));
    assert_true(a->cost == b->cost); /* bit for bit but for the sign of a zero */
}

/* The bin count the split used, read back from its mapping. */
static int bins_of(const mq_split *s, const mq_build_range *r)
{
    float extent = r->cbox.hi[s->axis] - r->cbox.lo[s->axis];
    return (int)lround((double)s->bin_scale * extent / (1.0 - 0x1p-20));
}

/* Checks the split of refs[begin, end): against the oracle, shared over
 * threads, after shuffling the range, and the partition's left count. */
static void check_range(mq_prim_ref *refs, uint32_t begin, uint32_t end, mq_test_rng *g)
{
    uint32_t n = end - begin;
    mq_build_range r = range_of(refs, begin, end);
    mq_split s = mq_sah_find_binned(refs, &r, 32);
    for (uint32_t threads = 2; threads <= MQ_SHARED_SPLIT_THREADS; threads += 3) {
        mq_split shared = mq_sah_find_binned_shared(refs, &r, 32, threads);
        assert_same_split(&shared, &s);
    }
    if (s.kind != MQ_SPLIT_BINNED) { /* all centroids alike: nothing to split */
        for (int k = 0; k < 3; k++)
            assert_true(r.cbox.hi[k] == r.cbox.lo[k] || n < 2);
        return;
    }
    /* the build's rule: 4 + n / 8 bins, at most the 32 asked for */
    int bins = bins_of(&s, &r);
    assert_int_equal(bins, n / 8 + 4 < 32 ? (int)(n / 8 + 4) : 32);
    uint32_t want_left = 0;
    mq_split want = oracle_split(refs + begin, n, &r, bins, &want_left);
    assert_same_split(&s, &want);
    /* any order of the same refs */
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(mq_test_rng_u64(g) % (i + 1));
        mq_prim_ref t = refs[begin + i];
        refs[begin + i] = refs[begin + j];
        refs[begin + j] = t;
    }
    mq_split shuffled = mq_sah_find_binned(refs, &r, 32);
    assert_same_split(&shuffled, &want);
    mq_build_range left, right;
    mq_sah_partition(refs, &r, &s, &left, &right);
    assert_int_equal(left.begin, begin);
    assert_int_equal(left.end - left.begin, want_left);
    assert_int_equal(right.begin, left.end);
    assert_int_equal(right.end, end);
}

static void binned_split_is_the_in_order_one(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {2, 3, 7, 8, 9, 15, 16, 17, 31, 100, 257, 1000, 2049, 4099};
    enum { MOST = 4099 };
    mq_prim_ref *refs = malloc(MOST * sizeof *refs);
    assert_non_null(refs);
    mq_test_rng g;
    mq_test_rng_seed(&g, mq_test_seed(2611));
    for (int kind = 0; kind < LAYOUTS; kind++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (int rep = 0; rep < 3; rep++) {
                /* the range at the start of the array, and further in */
                uint32_t begin = rep == 2 ? (uint32_t)(mq_test_rng_u64(&g) % (MOST - sizes[i] + 1)) : 0;
                make_refs(&g, (layout)kind, MOST, refs);
                check_range(refs, begin, begin + sizes[i], &g);
            }
    free(refs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(binned_split_is_the_in_order_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
