/*
 * The AVX2 node test of the top-level hierarchy (tlas_ray.h's float test, 8
 * slots at once), for *_avx2.c files: the walk (tlas_walk_avx2.c) and the
 * scene's ray stream (scene_stream_avx2.c). No FMA: the test's error bound
 * counts two roundings for (plane - origin) * (1/d).
 */
#ifndef MQ_SCENE_TLAS_NODE_AVX2_H
#define MQ_SCENE_TLAS_NODE_AVX2_H

#include <immintrin.h>

#include "scene/tlas_ray.h"

#if MQ_TLAS_WIDTH != 8
#error "the AVX2 node test covers 8 slots at once"
#endif

typedef struct tlas_vray {
    __m256 o_near[3], o_far[3], rd_near[3], rd_far[3];
} tlas_vray;

static inline void tlas_vray_init(const mq_tlas_ray *r, tlas_vray *v)
{
    for (int k = 0; k < 3; k++) {
        v->o_near[k] = _mm256_set1_ps(r->o_near[k]);
        v->o_far[k] = _mm256_set1_ps(r->o_far[k]);
        v->rd_near[k] = _mm256_set1_ps(r->rd_near[k]);
        v->rd_far[k] = _mm256_set1_ps(r->rd_far[k]);
    }
}

static inline unsigned tlas_box_hits(const mq_tlas_node *n, const mq_tlas_ray *r, const tlas_vray *v, float tmin,
                                     float tmax, float *dist)
{
    __m256 tn = _mm256_set1_ps(tmin), tf = _mm256_set1_ps(tmax);
    for (int k = 0; k < 3; k++) {
        __m256 a = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(mq_tlas_plane(n, r->near_off[k])), v->o_near[k]),
                                 v->rd_near[k]);
        __m256 b = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(mq_tlas_plane(n, r->far_off[k])), v->o_far[k]),
                                 v->rd_far[k]);
        tn = _mm256_max_ps(a, tn); /* a NaN in a gives tn */
        tf = _mm256_min_ps(b, tf);
    }
    tn = _mm256_sub_ps(tn, _mm256_set1_ps(FLT_MIN));
    _mm256_store_ps(dist, tn);
    return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(tn, tf, _CMP_LE_OQ));
}

static inline unsigned tlas_live(const mq_tlas_node *n, uint32_t qmask)
{
    __m256i m = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)n->mask),
                                 _mm256_set1_epi32((int)qmask));
    unsigned none = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(m, _mm256_setzero_si256())));
    return ~none & 0xFFu;
}

#endif
