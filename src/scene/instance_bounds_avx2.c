/*
 * The top boxes' world extents (instance_bounds.h), four boxes at a time
 * with AVX2. Lane by lane the operations of instance_bounds.c's scalar loop,
 * in the same order (CMake builds with -ffp-contract=off, so no multiply-add
 * is fused): the same bits as the scalar and SSE2 paths.
 */
#include <immintrin.h>
#include <math.h>

#include "scene/instance_bounds.h"

static inline __m256d abs4(__m256d v)
{
    return _mm256_and_pd(v, _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll)));
}

/* The four lanes merged into *v (min: the first operand the new one). */
static void merge_min(__m256d v4, double *v)
{
    double l[4];
    _mm256_storeu_pd(l, v4);
    for (int i = 0; i < 4; i++)
        *v = l[i] < *v ? l[i] : *v;
}

static void merge_max(__m256d v4, double *v)
{
    double l[4];
    _mm256_storeu_pd(l, v4);
    for (int i = 0; i < 4; i++)
        *v = l[i] > *v ? l[i] : *v;
}

/* Kept apart per kind (`oriented` a constant in each call). */
static inline __attribute__((always_inline)) uint32_t extents_four(const mq_xform_rows *x, const mq_top_boxes *t,
                                                                   const bool oriented, double lo[3], double hi[3],
                                                                   double big_h[3], double big_c[3])
{
    const uint32_t quads = t->n & ~3u;
    if (quads == 0)
        return 0;
    for (int j = 0; j < 3; j++) {
        __m256d c4 = _mm256_setzero_pd();
        for (uint32_t b = 0; b < quads; b += 4)
            c4 = _mm256_max_pd(abs4(_mm256_loadu_pd(&t->center[j][b])), c4);
        merge_max(c4, &big_c[j]);
    }
    for (int k = 0; k < 3; k++) {
        __m256d m[3], amag[3];
        for (int j = 0; j < 3; j++) {
            m[j] = _mm256_set1_pd(x->m[k][j]);
            amag[j] = _mm256_set1_pd(x->axis_mag[k][j]);
        }
        const __m256d tr = _mm256_set1_pd(x->m[k][3]);
        __m256d lo4 = _mm256_set1_pd(INFINITY), hi4 = _mm256_set1_pd(-INFINITY), h4 = _mm256_setzero_pd();
        for (uint32_t b = 0; b < quads; b += 4) {
            __m256d em[3] = {amag[0], amag[1], amag[2]};
            if (oriented)
                for (int i = 0; i < 3; i++) {
                    __m256d e = _mm256_add_pd(_mm256_mul_pd(m[0], _mm256_loadu_pd(&t->edge[0][i][b])),
                                              _mm256_mul_pd(m[1], _mm256_loadu_pd(&t->edge[1][i][b])));
                    em[i] = abs4(_mm256_add_pd(e, _mm256_mul_pd(m[2], _mm256_loadu_pd(&t->edge[2][i][b]))));
                }
            __m256d c = _mm256_add_pd(tr, _mm256_mul_pd(m[0], _mm256_loadu_pd(&t->center[0][b])));
            c = _mm256_add_pd(c, _mm256_mul_pd(m[1], _mm256_loadu_pd(&t->center[1][b])));
            c = _mm256_add_pd(c, _mm256_mul_pd(m[2], _mm256_loadu_pd(&t->center[2][b])));
            __m256d h = _mm256_add_pd(_mm256_setzero_pd(), _mm256_mul_pd(em[0], _mm256_loadu_pd(&t->half[0][b])));
            h = _mm256_add_pd(h, _mm256_mul_pd(em[1], _mm256_loadu_pd(&t->half[1][b])));
            h = _mm256_add_pd(h, _mm256_mul_pd(em[2], _mm256_loadu_pd(&t->half[2][b])));
            lo4 = _mm256_min_pd(_mm256_sub_pd(c, h), lo4);
            hi4 = _mm256_max_pd(_mm256_add_pd(c, h), hi4);
            h4 = _mm256_max_pd(h, h4);
        }
        merge_min(lo4, &lo[k]);
        merge_max(hi4, &hi[k]);
        merge_max(h4, &big_h[k]);
    }
    return quads;
}

uint32_t mq_top_extents_avx2(const mq_xform_rows *x, const mq_top_boxes *t, bool oriented, double lo[3], double hi[3],
                             double big_h[3], double big_c[3])
{
    return oriented ? extents_four(x, t, true, lo, hi, big_h, big_c) : extents_four(x, t, false, lo, hi, big_h, big_c);
}
