/*
 * The AVX2 form of the distance walk's double split (distance_walk.c,
 * expand_both): compiled for AVX2 (CMakeLists.txt: *_avx2.c), called only when
 * the ISA switch (core/isa.h) is at AVX2 or above, once chosen per walk.
 */
#ifndef MQ_PROXIMITY_DISTANCE_WALK_AVX2_H
#define MQ_PROXIMITY_DISTANCE_WALK_AVX2_H

#include "core/isa.h"
#include "proximity/distance_walk_internal.h"

#if defined(MQ_ISA_SIMD)
/*
 * OBB-tree nodes ka[0], ka[1] of side a and kb[0], kb[1] of side b mapped into
 * the common frame (into *out[0], *out[1], *out[2], *out[3], as
 * mq_dw_nbox_of), and the four pairs (ka[i], kb[j]) bounded against `limit`
 * as the scalar lower bound does with the same `axes` and relative order
 * values. Returns the kept pairs, bit 2 * i + j, with their values in
 * lv[2 * i + j] (a pruned pair's value is not given). Every value is the same
 * bits as the scalar code's.
 */
int mq_dw_split_both_avx2(const mq_dist_side *sa, const mq_dist_side *sb, const uint32_t ka[2], const uint32_t kb[2],
                          mq_dw_nbox *const out[4], double limit, bool axes, double lv[4]);
#endif

#endif
