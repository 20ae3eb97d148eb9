/*
 * The box every triangle of a BVH lies in, in double: what a shape
 * query cuts a huge shape down to before its float walk (primitives/
 * shape_reduce.h), so that a capsule along a line 1e30 long or a box of
 * +-FLT_MAX answers like the same shape clipped to the mesh's neighbourhood.
 */
#ifndef MQ_BVH_BVH_REGION_H
#define MQ_BVH_BVH_REGION_H

#include <math.h>
#include <stdbool.h>

#include "bvh/bvh_internal.h"

/* The BVH's root box (in the mesh's units; it holds every triangle the walks
 * visit, after builds and refits). False for an empty BVH. */
static inline bool mq_bvh_root_region(const mq_bvh *b, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = b->root_box[2 * k];
        hi[k] = b->root_box[2 * k + 1];
        if (!(lo[k] <= hi[k] && isfinite(lo[k]) && isfinite(hi[k])))
            return false;
    }
    return true;
}

#endif
