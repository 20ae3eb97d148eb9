/*
 * The world box of an instance's top boxes (instance_bounds.c), shared with
 * its AVX2 kernel (instance_bounds_avx2.c): every path computes each box's
 * extents with the same operations in the same order, so all give the same
 * bits.
 */
#ifndef MQ_SCENE_INSTANCE_BOUNDS_H
#define MQ_SCENE_INSTANCE_BOUNDS_H

#include <stdbool.h>
#include <stdint.h>

#include "bvh/top_boxes.h"

/* Relative widening: far above the few-ulp error of the double arithmetic. */
#define MQ_BOX_WIDEN 1e-12

/* A transform's rows and their magnitudes, read once per instance (the
 * boxes are many, and through pointers every box would reload them). */
typedef struct mq_xform_rows {
    double m[3][4];        /* local -> world */
    double axis_mag[3][3]; /* |m[k][i]|: the magnitudes of the local axes along the world's */
    double t_mag[3];       /* |m[k][3]| */
} mq_xform_rows;

/*
 * The world extents of t's first (t->n & ~3) boxes along the three world
 * axes, four boxes at a time with AVX2 (call only at ISA level AVX2 or
 * above: core/isa.h), merged into lo, hi, big_h and big_c as
 * instance_bounds.c's top_extents says. `oriented`: t is an OBB tree's. @return the boxes done.
 */
uint32_t mq_top_extents_avx2(const mq_xform_rows *x, const mq_top_boxes *t, bool oriented, double lo[3], double hi[3],
                             double big_h[3], double big_c[3]);

#endif
