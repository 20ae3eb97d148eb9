/*
 * Choosing and applying one split of a set of primitive references by the
 * surface area heuristic (MacDonald & Booth 1990; Wald, "On fast construction of
 * SAH-based bounding volume hierarchies", 2007).
 *
 * Costs count 4-triangle blocks, not triangles (Embree's "block size" SAH):
 * a leaf of 1..4 triangles costs one SIMD leaf test, so the heuristic prefers
 * groups of four. Cost of a split = hA(L) * blocks(nL) + hA(R) * blocks(nR),
 * hA = half surface area.
 */
#ifndef MQ_BVH_SAH_SPLIT_H
#define MQ_BVH_SAH_SPLIT_H

#include "bvh/prim_ref.h"

#define MQ_MAX_BINS 64

/* A contiguous run of refs and its boxes. */
typedef struct mq_build_range {
    uint32_t begin, end;
    mq_bounds box;  /* union of the refs' boxes */
    mq_bounds cbox; /* union of their centroids (lo + hi) */
} mq_build_range;

typedef enum mq_split_kind { MQ_SPLIT_NONE, MQ_SPLIT_BINNED, MQ_SPLIT_SORTED } mq_split_kind;

typedef struct mq_split {
    mq_split_kind kind;
    int axis;
    uint32_t pos; /* binned: first bin on the right; sorted: refs on the left */
    float bin_lo; /* binned: bin index = (c - bin_lo) * bin_scale, clamped */
    float bin_scale;
    float cost; /* hA(L) * blocks(nL) + hA(R) * blocks(nR); INFINITY when NONE */
} mq_split;

static inline uint32_t mq_sah_blocks(uint32_t n)
{
    return (n + 3u) >> 2;
}

/* Per-thread scratch for the sorted sweep: `capacity` floats. */
typedef struct mq_sah_scratch {
    float *right_area;
    uint32_t capacity;
} mq_sah_scratch;

/* Best binned split of `r` with `bins` (2..MQ_MAX_BINS) bins per axis. */
mq_split mq_sah_find_binned(const mq_prim_ref *refs, const mq_build_range *r, int bins);

/* Most threads mq_sah_find_binned_shared uses. */
#define MQ_SHARED_SPLIT_THREADS 8u

/* The same split as mq_sah_find_binned, the binning shared over `threads`
 * threads (at most MQ_SHARED_SPLIT_THREADS) of the pool: for the few large
 * ranges at the top of a tree, while nothing else runs. */
mq_split mq_sah_find_binned_shared(const mq_prim_ref *refs, const mq_build_range *r, int bins, uint32_t threads);

/* Best split among all positions along each axis after sorting by centroid
 * (ties by id, so the result is deterministic). Reorders refs[r->begin..end):
 * on return they are sorted along the chosen axis. Needs scratch >= size. */
mq_split mq_sah_find_sorted(mq_prim_ref *refs, const mq_build_range *r, mq_sah_scratch *scratch);

/* Applies a split: reorders refs so the left side comes first and fills both
 * sides' ranges. For MQ_SPLIT_NONE, splits at the middle (object median). */
void mq_sah_partition(mq_prim_ref *refs, const mq_build_range *r, const mq_split *s, mq_build_range *left,
                      mq_build_range *right);

/* Boxes of refs[begin..end). */
void mq_range_bounds(const mq_prim_ref *refs, uint32_t begin, uint32_t end, mq_bounds *box, mq_bounds *cbox);

#endif
