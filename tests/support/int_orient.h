/*
 * Orientation determinants of points with integer coordinates, computed
 * exactly in 128-bit integers: the oracle of the exact predicates
 * (src/core/orient2d.h, orient3d.h) and of what is decided by them.
 * Header-only, so that fuzz targets, which do not link the test support
 * library, use the same code.
 */
#ifndef MQ_TEST_INT_ORIENT_H
#define MQ_TEST_INT_ORIENT_H

#include <stdint.h>

__extension__ typedef __int128 mq_test_i128;

static inline int mq_test_sign128(mq_test_i128 x)
{
    return x > 0 ? 1 : x < 0 ? -1 : 0;
}

/* det[b - a; c - a; d - a], exactly for coordinates below 2^40 in magnitude
 * (differences below 2^41, each of the six terms below 2^123). */
static inline mq_test_i128 mq_test_orient3d_det(const int64_t a[3], const int64_t b[3], const int64_t c[3],
                                                const int64_t d[3])
{
    mq_test_i128 e1[3], e2[3], e3[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (mq_test_i128)b[k] - a[k];
        e2[k] = (mq_test_i128)c[k] - a[k];
        e3[k] = (mq_test_i128)d[k] - a[k];
    }
    return e3[0] * (e1[1] * e2[2] - e1[2] * e2[1]) + e3[1] * (e1[2] * e2[0] - e1[0] * e2[2]) +
           e3[2] * (e1[0] * e2[1] - e1[1] * e2[0]);
}

static inline int mq_test_orient3d_sign(const int64_t a[3], const int64_t b[3], const int64_t c[3], const int64_t d[3])
{
    return mq_test_sign128(mq_test_orient3d_det(a, b, c, d));
}

/* det[a - c; b - c] of the first two coordinates, exactly for coordinates
 * below 2^62 in magnitude. */
static inline int mq_test_orient2d_sign(const int64_t a[2], const int64_t b[2], const int64_t c[2])
{
    mq_test_i128 ax = (mq_test_i128)a[0] - c[0], ay = (mq_test_i128)a[1] - c[1];
    mq_test_i128 bx = (mq_test_i128)b[0] - c[0], by = (mq_test_i128)b[1] - c[1];
    return mq_test_sign128(ax * by - ay * bx);
}

#endif
