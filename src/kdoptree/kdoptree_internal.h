/*
 * The k-DOP tree's storage (kdoptree.h): the shared skeleton (bvt.h) and one
 * row of k floats per node, lo[0..m) then hi[0..m) for the m = k/2 slab
 * directions of the tree's k, in the order of mq_kdop_dirs.
 */
#ifndef MQ_KDOPTREE_KDOPTREE_INTERNAL_H
#define MQ_KDOPTREE_KDOPTREE_INTERNAL_H

#include <meshquery/kdoptree.h>

#include "kdoptree/bvt.h"

#define MQ_KDOPTREE_DEF_COOKIE 0x0D0B7DEFu
#define MQ_KDOP_MAX_DIRS 13

struct mq_kdoptree {
    mq_bvt bvt;
    uint32_t k, m;                    /* k slab bounds, m = k / 2 directions */
    float dirs[MQ_KDOP_MAX_DIRS][3];  /* the m directions (components -1, 0, 1); the axes first */
    float inv_norm[MQ_KDOP_MAX_DIRS]; /* 1 / |dir|, rounded down (a gap bound stays a lower bound) */
    float *slabs;                     /* node_count * k */
};

/* Sets the tree's m directions for its k (false for an unknown k). */
bool mq_kdop_set_dirs(mq_kdoptree *t, uint32_t k);
/* Recomputes every node's slabs from the triangle copies. */
void mq_kdop_compute_slabs(mq_kdoptree *t);
/* Volume and surface area of the polytope { lo_i <= n_i . p <= hi_i } (the
 * first three directions must be the axes), in double. */
void mq_kdop_measure(const float dirs[][3], uint32_t m, const float *lo, const float *hi, double *volume, double *area);

#endif
