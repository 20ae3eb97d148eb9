/*
 * What the lane-wise lower bounds of the distance walk share: lower_bound2
 * (two lanes of SSE2, distance_walk.c) and lower_bound4 (four lanes of AVX2,
 * distance_walk_avx2.c) decide the separating axes of the scalar axis_gap
 * with vectors, then finish per lane with this scalar tail, so both finish
 * by the same operations in the same order as the scalar code.
 */
#ifndef MQ_PROXIMITY_DISTANCE_WALK_LANES_H
#define MQ_PROXIMITY_DISTANCE_WALK_LANES_H

#include <math.h>

/*
 * The end of axis_gap for each lane that is kept and has an axis above the
 * limit (bit `lane` of kept & any): the first of the six axes above it (bit
 * `lane` of above[t]) gives the gap p / sqrt(len2), and the lane is dropped
 * when that gap is above the limit. p and len2 hold the six axes' values lane
 * by lane: axis t, lane l at [lanes * t + l]. Returns the lanes still kept.
 */
static inline int mq_dw_lanes_axis_prune(int kept, int any, const int above[6], const double *p, const double *len2,
                                         int lanes, double limit)
{
    for (int lane = 0; lane < lanes; lane++) {
        if (!(kept & any & (1 << lane)))
            continue;
        for (int t = 0; t < 6; t++) {
            if (!(above[t] & (1 << lane)))
                continue;
            if (p[lanes * t + lane] / sqrt(len2[lanes * t + lane]) > limit)
                kept &= ~(1 << lane);
            break;
        }
    }
    return kept;
}

#endif
