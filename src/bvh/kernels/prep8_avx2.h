/*
 * mq_trace_prepare's common path for 8 rays at once, in AVX2 registers (for
 * the *_avx2.c files only): the rays are loaded and transposed, checked as
 * ray_ok and needs_normalizing check them (ray_prep.c), scaled by the BVH's
 * power of two, and their dominant axes found, with the same float
 * operations lane by lane, so every value equals the scalar one bit for bit.
 * Lanes the scalar code would reject or send down its rare path (a rescaled
 * or negligible direction component) are reported, not prepared: the callers
 * leave them to mq_trace_prepare.
 */
#ifndef MQ_BVH_KERNELS_PREP8_AVX2_H
#define MQ_BVH_KERNELS_PREP8_AVX2_H

#include <immintrin.h>
#include <stddef.h>

#include "bvh/kernels/trace.h"

#define MQ_PREP8_EXP_MASK 0x7F800000
#define MQ_PREP8_ABS_MASK 0x7FFFFFFF

/* 8 rays, transposed: lane i is ray i. */
typedef struct mq_prep8 {
    __m256 org[3]; /* origin times the BVH's scale */
    __m256 d[3];   /* direction times the BVH's scale */
    __m256 tmin, tmax;
    unsigned axis[3]; /* lanes whose dominant axis (of the caller's direction) is 0, 1, 2 */
    unsigned sign[3]; /* lanes whose scaled direction has the sign bit set, per axis */
    unsigned ok;      /* lanes valid and on the common path (no rescaling, no negligible component) */
} mq_prep8;

static inline __m256i mq_prep8_ibits(__m256 x)
{
    return _mm256_castps_si256(x);
}
static inline __m256i mq_prep8_abs(__m256 x)
{
    return _mm256_and_si256(mq_prep8_ibits(x), _mm256_set1_epi32(MQ_PREP8_ABS_MASK));
}
static inline unsigned mq_prep8_mask(__m256i m)
{
    return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(m));
}
/* a >= b for values in [0, 2^31) */
static inline __m256i mq_prep8_ge(__m256i a, __m256i b)
{
    return _mm256_xor_si256(_mm256_cmpgt_epi32(b, a), _mm256_set1_epi32(-1));
}
static inline __m256i mq_prep8_lanes(unsigned mask) /* lane mask as a vector mask */
{
    __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)mask), bits), bits);
}

/* Loads rays[i] (8 pointers; mq_ray is 8 floats) and does the setup above. */
static inline void mq_prep8_load(const mq_bvh *bvh, const mq_ray *const rays[8], mq_prep8 *out)
{
    _Static_assert(sizeof(mq_ray) == 32 && offsetof(mq_ray, tmin) == 12 && offsetof(mq_ray, dir) == 16 &&
                       offsetof(mq_ray, tmax) == 28,
                   "mq_ray is 8 floats: origin, tmin, dir, tmax");
    __m256 r[8];
    for (int i = 0; i < 8; i++)
        r[i] = _mm256_loadu_ps((const float *)rays[i]);
    /* 8x8 transpose: field j of ray i to lane i of column j. */
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    __m256 o[3], d[3];
    o[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
    o[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    o[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
    out->tmin = _mm256_permute2f128_ps(u3, u7, 0x20);
    d[0] = _mm256_permute2f128_ps(u0, u4, 0x31);
    d[1] = _mm256_permute2f128_ps(u1, u5, 0x31);
    d[2] = _mm256_permute2f128_ps(u2, u6, 0x31);
    out->tmax = _mm256_permute2f128_ps(u3, u7, 0x31);

    /* ray_ok: finite origin and direction, direction != 0, tmin <= tmax. */
    const __m256i expm = _mm256_set1_epi32(MQ_PREP8_EXP_MASK);
    __m256i bad = _mm256_setzero_si256(), nz = _mm256_setzero_si256(), ab[3];
    for (int k = 0; k < 3; k++) {
        bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(_mm256_and_si256(mq_prep8_ibits(o[k]), expm), expm));
        bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(_mm256_and_si256(mq_prep8_ibits(d[k]), expm), expm));
        ab[k] = mq_prep8_abs(d[k]);
        nz = _mm256_or_si256(nz, ab[k]);
    }
    bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(nz, _mm256_setzero_si256()));
    bad = _mm256_or_si256(bad, _mm256_castps_si256(_mm256_cmp_ps(out->tmin, out->tmax, _CMP_NLE_UQ)));

    /* dominant_axis of the caller's direction: bit 0 x >= y, 1 x >= z, 2 y >= z;
     * table {2,2,2,0,1,1,1,0}: axis 0 iff x >= y and x >= z, else 1 iff y >= z. */
    unsigned xy = mq_prep8_mask(mq_prep8_ge(ab[0], ab[1])), xz = mq_prep8_mask(mq_prep8_ge(ab[0], ab[2]));
    unsigned yz = mq_prep8_mask(mq_prep8_ge(ab[1], ab[2]));
    out->axis[0] = xy & xz;
    out->axis[1] = yz & ~out->axis[0] & 0xFFu;
    out->axis[2] = ~yz & ~out->axis[0] & 0xFFu;
    __m256i m0 = mq_prep8_lanes(out->axis[0]), m1 = mq_prep8_lanes(out->axis[1]);

    /* The scaling, and needs_normalizing: D = the scaled origin's largest
     * |component| clamped to [2^-64, 2^64], largest = |scaled d[kz]|. */
    const __m256 s = _mm256_set1_ps(bvh->scale);
    __m256i sb[3], om = mq_prep8_ibits(_mm256_set1_ps(MQ_DIR_D_MIN));
    for (int k = 0; k < 3; k++) {
        out->org[k] = _mm256_mul_ps(o[k], s);
        out->d[k] = _mm256_mul_ps(d[k], s);
        sb[k] = mq_prep8_abs(out->d[k]);
        om = _mm256_max_epi32(om, mq_prep8_abs(out->org[k]));
        out->sign[k] = (unsigned)_mm256_movemask_ps(out->d[k]);
        /* a scaled origin that overflowed: the single-ray path's empty_interval */
        bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(mq_prep8_abs(out->org[k]), _mm256_set1_epi32(0x7F800000)));
    }
    om = _mm256_min_epi32(om, mq_prep8_ibits(_mm256_set1_ps(MQ_DIR_D_MAX)));
    __m256i largest = _mm256_blendv_epi8(_mm256_blendv_epi8(sb[2], sb[1], m1), sb[0], m0);
    const __m256i neg = _mm256_set1_epi32((int)(MQ_DIR_NEGLIGIBLE_EXP << 23));
    /* The scalar floor largest - 2^90 (in bits) wraps below 2^-37 of 1: leave those lanes. */
    bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(neg, largest));
    __m256i floor_mag = _mm256_sub_epi32(largest, neg);
    for (int k = 0; k < 3; k++) {
        __m256i tiny = _mm256_andnot_si256(_mm256_cmpeq_epi32(sb[k], _mm256_setzero_si256()),
                                           _mm256_cmpgt_epi32(floor_mag, sb[k]));
        bad = _mm256_or_si256(bad, tiny);
    }
    const __m256i w = _mm256_set1_epi32((int)(MQ_DIR_WINDOW_EXP << 23));
    bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(_mm256_sub_epi32(om, w), largest));
    bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(largest, _mm256_add_epi32(om, w)));
    out->ok = ~mq_prep8_mask(bad) & 0xFFu;
}

#endif
