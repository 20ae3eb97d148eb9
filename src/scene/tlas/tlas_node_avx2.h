/*
 * The AVX2 node test of the top-level hierarchy (tlas_ray.h's float test, 8
 * slots at once), for *_avx2.c files: the walk (tlas_walk_avx2.c) and the
 * scene's ray stream (scene_stream_avx2.c). No FMA: the test's error bound
 * counts two roundings for (plane - origin) * (1/d).
 */
#ifndef MQ_SCENE_TLAS_TLAS_NODE_AVX2_H
#define MQ_SCENE_TLAS_TLAS_NODE_AVX2_H

#include <immintrin.h>
#include <string.h>

#include "scene/tlas/tlas_ray.h"

#if MQ_TLAS_BLOCK != 8
#error "the AVX2 node test covers a block of 8 slots at once"
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

/*
 * mq_dray_ok(ray), then mq_tlas_ray_prepare(r, ., ray, ray->tmin) and
 * tlas_vray_init(r, v) for a ray the float test takes (`fast`), the three
 * axes in the lanes of one register: the same roundings (1/d in double,
 * rounded to float once, a float product; the origin rounded to nearest,
 * then one float up or down), hence the same planes and constants. False,
 * with r and v unset, for an invalid ray or one the float test does not
 * take. Only r's plane offsets and `fast` are set: the AVX2 node test reads
 * the rest from v.
 */
static inline bool tlas_vray_begin(mq_tlas_ray *r, tlas_vray *v, const mq_dray *ray)
{
    /* The plane offsets per axis, by the sign bits of the direction (set: the entry plane is hi). */
    static const struct {
        size_t near_off[3], far_off[3];
    } offsets[8] = {
#define MQ_LO(k) (offsetof(mq_tlas_block, lo) + (size_t)(k)*MQ_TLAS_BLOCK * sizeof(float))
#define MQ_HI(k) (offsetof(mq_tlas_block, hi) + (size_t)(k)*MQ_TLAS_BLOCK * sizeof(float))
#define MQ_AXIS_NEAR(m, k) ((m) >> (k)&1 ? MQ_HI(k) : MQ_LO(k))
#define MQ_AXIS_FAR(m, k) ((m) >> (k)&1 ? MQ_LO(k) : MQ_HI(k))
#define MQ_OFFSETS(m)                                                                                                  \
    {                                                                                                                  \
        {MQ_AXIS_NEAR(m, 0), MQ_AXIS_NEAR(m, 1), MQ_AXIS_NEAR(m, 2)},                                                  \
        {                                                                                                              \
            MQ_AXIS_FAR(m, 0), MQ_AXIS_FAR(m, 1), MQ_AXIS_FAR(m, 2)                                                    \
        }                                                                                                              \
    }
        MQ_OFFSETS(0), MQ_OFFSETS(1), MQ_OFFSETS(2), MQ_OFFSETS(3),
        MQ_OFFSETS(4), MQ_OFFSETS(5), MQ_OFFSETS(6), MQ_OFFSETS(7),
#undef MQ_OFFSETS
#undef MQ_AXIS_FAR
#undef MQ_AXIS_NEAR
#undef MQ_HI
#undef MQ_LO
    };
    const __m256d o = _mm256_loadu_pd(ray->origin); /* lane 3: tmin */
    const __m256d d = _mm256_loadu_pd(ray->dir);    /* lane 3: tmax */
    /* mq_dray_ok and the fast test's conditions (tlas_ray.h): |o| <= 2^60, d
     * zero or of magnitude in [2^-60, 2^60] (so all finite), some d non-zero,
     * 0 <= tmin <= tmax. NaN fails every compare. */
    const __m256d absm = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
    const __m256d zero = _mm256_setzero_pd(), range = _mm256_set1_pd(MQ_TLAS_RAY_RANGE);
    __m256d ad = _mm256_and_pd(d, absm);
    __m256d d_zero = _mm256_cmp_pd(ad, zero, _CMP_EQ_OQ);
    __m256d d_ok =
        _mm256_or_pd(d_zero, _mm256_and_pd(_mm256_cmp_pd(ad, _mm256_set1_pd(1.0 / MQ_TLAS_RAY_RANGE), _CMP_GE_OQ),
                                           _mm256_cmp_pd(ad, range, _CMP_LE_OQ)));
    __m256d ok = _mm256_and_pd(d_ok, _mm256_cmp_pd(_mm256_and_pd(o, absm), range, _CMP_LE_OQ));
    double tmin = ray->tmin;
    if (!((_mm256_movemask_pd(ok) & 7) == 7 && (_mm256_movemask_pd(d_zero) & 7) != 7 && tmin >= 0.0 &&
          tmin <= ray->tmax))
        return false;
    /* The reciprocals, widened (tlas_ray.h) */
    __m128 rinv = _mm256_cvtpd_ps(_mm256_div_pd(_mm256_set1_pd(1.0), d));
    __m128 rd_near = _mm_mul_ps(rinv, _mm_set1_ps(1.0f - MQ_TLAS_WIDEN_REL));
    __m128 rd_far = _mm_mul_ps(rinv, _mm_set1_ps(1.0f + MQ_TLAS_WIDEN_REL));
    /* The origin rounded to nearest, then one float up where it fell below, down where above. */
    __m128 f = _mm256_cvtpd_ps(o);
    __m256d back = _mm256_cvtps_pd(f);
    const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    __m128i below = _mm256_castsi256_si128(
        _mm256_permutevar8x32_epi32(_mm256_castpd_si256(_mm256_cmp_pd(back, o, _CMP_LT_OQ)), low_halves));
    __m128i above = _mm256_castsi256_si128(
        _mm256_permutevar8x32_epi32(_mm256_castpd_si256(_mm256_cmp_pd(back, o, _CMP_GT_OQ)), low_halves));
    __m128i b = _mm_castps_si128(f), sign = _mm_set1_epi32((int)0x80000000u);
    __m128i up = _mm_blendv_epi8(b, mq_tlas_next_up_bits4(b), below);
    __m128i dn = _mm_blendv_epi8(b, _mm_xor_si128(mq_tlas_next_up_bits4(_mm_xor_si128(b, sign)), sign), above);
    /* A negative direction (its float keeps the sign, -0 included) swaps entry and exit. */
    __m128 negm = _mm256_cvtpd_ps(d);
    __m128 o_near = _mm_blendv_ps(_mm_castsi128_ps(up), _mm_castsi128_ps(dn), negm);
    __m128 o_far = _mm_blendv_ps(_mm_castsi128_ps(dn), _mm_castsi128_ps(up), negm);
    for (int k = 0; k < 3; k++) {
        const __m256i lane = _mm256_set1_epi32(k);
        v->o_near[k] = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(o_near), lane);
        v->o_far[k] = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(o_far), lane);
        v->rd_near[k] = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(rd_near), lane);
        v->rd_far[k] = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(rd_far), lane);
    }
    unsigned neg = (unsigned)_mm256_movemask_pd(d) & 7u;
    memcpy(r->near_off, offsets[neg].near_off, sizeof r->near_off);
    memcpy(r->far_off, offsets[neg].far_off, sizeof r->far_off);
    r->fast = true;
    r->prep = NULL;
    return true;
}

/* The slots of the node of `blocks` blocks at n whose box the ray may meet
 * in [tmin, tmax], one block per 8-lane test; dist[slot]: lower bounds of
 * their entry distances. */
static inline unsigned tlas_box_hits(const mq_tlas_block *n, unsigned blocks, const mq_tlas_ray *r, const tlas_vray *v,
                                     float tmin, float tmax, float *dist)
{
    unsigned hit = 0;
    for (unsigned b = 0; b < blocks; b++) {
        __m256 tn = _mm256_set1_ps(tmin), tf = _mm256_set1_ps(tmax);
        for (int k = 0; k < 3; k++) {
            __m256 a = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(mq_tlas_plane(&n[b], r->near_off[k])), v->o_near[k]),
                                     v->rd_near[k]);
            __m256 f = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(mq_tlas_plane(&n[b], r->far_off[k])), v->o_far[k]),
                                     v->rd_far[k]);
            tn = _mm256_max_ps(a, tn); /* a NaN in a gives tn */
            tf = _mm256_min_ps(f, tf);
        }
        tn = _mm256_sub_ps(tn, _mm256_set1_ps(FLT_MIN));
        _mm256_store_ps(dist + MQ_TLAS_BLOCK * b, tn);
        hit |= (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(tn, tf, _CMP_LE_OQ)) << (MQ_TLAS_BLOCK * b);
    }
    return hit;
}

static inline unsigned tlas_live(const mq_tlas_block *n, unsigned blocks, uint32_t qmask)
{
    unsigned live = 0;
    for (unsigned b = 0; b < blocks; b++) {
        __m256i m = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)n[b].mask),
                                     _mm256_set1_epi32((int)qmask));
        unsigned none =
            (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(m, _mm256_setzero_si256())));
        live |= (~none & 0xFFu) << (MQ_TLAS_BLOCK * b);
    }
    return live;
}

#endif
