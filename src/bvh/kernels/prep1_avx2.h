/*
 * mq_trace_prepare_valid for one ray in AVX2 registers (for the *_avx2.c
 * files only: ray_prep_avx2.c exports it, kernel_avx2.c inlines it into its
 * closest hit from a valid ray), the axes in the lanes of one register: the
 * same float operations as ray_prep.c (the scaling, the largest scaled origin
 * component as D, dominant_axis, needs_normalizing, and finish()'s
 * divisions, all correctly rounded), so the same bits. A ray on the rare path
 * (a rescaled or negligible direction component) goes to mq_trace_prepare_valid.
 */
#ifndef MQ_BVH_KERNELS_PREP1_AVX2_H
#define MQ_BVH_KERNELS_PREP1_AVX2_H

#include <immintrin.h>

#include "bvh/kernels/trace.h"

/* What the common path computed, still in registers, for a kernel that sets
 * up its per-ray constants from them instead of reading them back from the
 * query just written (kernel_avx2.h, kernel_ray_from_prep1). */
typedef struct mq_prep1 {
    __m128 org;   /* the scaled origin, lanes 0..2 */
    __m128 rdir;  /* lanes: 1/d0, 1/d1, 1/d2 */
    __m128 shear; /* lanes: sx, sy, sz (= 1/d[kz]) */
    int kx, ky, kz;
    unsigned sign; /* bit k: the scaled direction's component k is negative */
} mq_prep1;

/* With the ray's origin and direction already in registers (o, d0: lanes
 * 0..2; lane 3 is ignored): a caller that just stored them with separate
 * tmin / tmax stores avoids reloading them across those stores. Returns true
 * on the common path, with its registers in *out; false when the ray went to
 * mq_trace_prepare_valid (then *out is not set). */
static inline __attribute__((always_inline)) bool mq_prep1_avx2_out(mq_trace *restrict q, const mq_bvh *bvh,
                                                                    const mq_ray *restrict ray, __m128 o, __m128 d0,
                                                                    bool cull, mq_prep1 *out)
{
    /* (kx, ky) of finish(): [kz][down] */
    static const uint8_t perm[3][2][2] = {{{1, 2}, {2, 1}}, {{2, 0}, {0, 2}}, {{0, 1}, {1, 0}}};
    static const uint8_t axis_of[8] = {2, 2, 2, 0, 1, 1, 1, 0};
    const __m128i absm = _mm_set1_epi32(0x7FFFFFFF);
    const __m128 s = _mm_set1_ps(bvh->scale);
    __m128 org = _mm_mul_ps(o, s), d = _mm_mul_ps(d0, s);
    __m128i ab = _mm_and_si128(_mm_castps_si128(d0), absm); /* |caller's d| */
    __m128i sb = _mm_and_si128(_mm_castps_si128(d), absm);  /* |scaled d| */
    __m128i oa = _mm_and_si128(_mm_castps_si128(org), absm);
    /* D: max(2^-64, |org_k|) clamped to 2^64, on the bits (they order as the values) */
    __m128i om = _mm_max_epi32(_mm_max_epi32(_mm_shuffle_epi32(oa, 0x00), _mm_shuffle_epi32(oa, 0x55)),
                               _mm_max_epi32(_mm_shuffle_epi32(oa, 0xAA), _mm_castps_si128(_mm_set1_ps(MQ_DIR_D_MIN))));
    om = _mm_min_epi32(om, _mm_castps_si128(_mm_set1_ps(MQ_DIR_D_MAX)));
    /* dominant_axis: bit 0 x >= y, bit 1 x >= z, bit 2 y >= z */
    __m128i lhs = _mm_shuffle_epi32(ab, _MM_SHUFFLE(3, 1, 0, 0)), rhs = _mm_shuffle_epi32(ab, _MM_SHUFFLE(3, 2, 2, 1));
    unsigned ge = ~(unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(rhs, lhs))) & 7u;
    int kz = axis_of[ge];
    /* needs_normalizing(sb, sb[kz], D) of ray_prep.c, conservatively (a ray
     * sent to mq_trace_prepare_valid gets the same fields anyway): exact when
     * |d[kz]| >= 2^-37 (its floor does not wrap; all bits below 2^31, so
     * signed compares), and the rare path below that. */
    __m128i largest = _mm_castps_si128(_mm_permutevar_ps(_mm_castsi128_ps(sb), _mm_set1_epi32(kz)));
    const __m128i negl = _mm_set1_epi32((int)(MQ_DIR_NEGLIGIBLE_EXP << 23)), zero = _mm_setzero_si128();
    const __m128i w = _mm_set1_epi32((int)(MQ_DIR_WINDOW_EXP << 23));
    __m128i floor_mag = _mm_sub_epi32(largest, negl);
    __m128i bad = _mm_andnot_si128(_mm_cmpeq_epi32(sb, zero), _mm_cmpgt_epi32(floor_mag, sb));
    bad = _mm_or_si128(bad, _mm_cmpgt_epi32(negl, largest));
    bad = _mm_or_si128(bad, _mm_cmpgt_epi32(_mm_sub_epi32(om, w), largest));
    bad = _mm_or_si128(bad, _mm_cmpgt_epi32(largest, _mm_add_epi32(om, w)));
    /* a scaled origin that overflowed: ray_prep.c's empty_interval */
    bad = _mm_or_si128(bad, _mm_cmpeq_epi32(oa, _mm_set1_epi32(0x7F800000)));
    if (_mm_movemask_ps(_mm_castsi128_ps(bad)) & 7) {
        mq_trace_prepare_valid(q, bvh, ray, cull);
        return false;
    }
    /* finish(): rdir = 1/d, sx = d[kx]/d[kz], sy = d[ky]/d[kz], sz = 1/d[kz].
     * rdir is divided at once, beside the choice of kz: the node test waits
     * for it; only the leaf test waits for the shear, divided once kz is
     * known (the same divisions, so the same bits, as one division of both). */
    const __m128 one = _mm_set1_ps(1.0f);
    __m128 rdir = _mm_div_ps(one, _mm_blend_ps(d, one, 0x8)); /* lane 3 (the ray's tmax) divides nothing */
    unsigned sign = (unsigned)_mm_movemask_ps(d);
    int down = (int)(sign >> kz & 1u);
    int tx = perm[kz][down][0], ty = perm[kz][down][1];
    __m128 num = _mm_blend_ps(_mm_permutevar_ps(d, _mm_setr_epi32(tx, ty, 0, 0)), one, 0xC);
    __m128 shear = _mm_div_ps(num, _mm_permutevar_ps(d, _mm_set1_epi32(kz))); /* sx, sy, 1/d[kz], 1/d[kz] */
    mq_ray_prep *restrict r = &q->ray;
    _mm_storeu_ps(r->org, org);   /* lane 3 lands on dir[0], written next */
    _mm_storeu_ps(r->dir, d);     /* lane 3 lands on rdir[0], written next */
    _mm_storeu_ps(r->rdir, rdir); /* lane 3 lands on tmin, written next */
    r->tmin = ray->tmin;
    r->tmax = ray->tmax;
    r->t_shift = 0;
    r->kx = tx;
    r->ky = ty;
    r->kz = kz;
    r->sx = _mm_cvtss_f32(shear);
    r->sy = _mm_cvtss_f32(_mm_permute_ps(shear, 1));
    r->sz = _mm_cvtss_f32(_mm_permute_ps(shear, 2));
    for (int k = 0; k < 3; k++)
        r->near[k] = 2 * k + (int)(sign >> k & 1u);
    q->query = cull ? &mq_ray_query_cull : &mq_ray_query_both;
    q->cull = cull;
    q->has_after = false;
    q->after_t = 0.0f;
    q->after_id = 0;
    q->bvh = bvh;
    q->user_ray = ray;
    *out = (mq_prep1){org, rdir, shear, tx, ty, kz, sign};
    return true;
}

/* mq_prep1_avx2_out for a caller that only wants the query. */
static inline __attribute__((always_inline)) void
mq_prep1_avx2_regs(mq_trace *restrict q, const mq_bvh *bvh, const mq_ray *restrict ray, __m128 o, __m128 d0, bool cull)
{
    mq_prep1 unused;
    (void)mq_prep1_avx2_out(q, bvh, ray, o, d0, cull, &unused);
}

static inline __attribute__((always_inline)) void mq_prep1_avx2(mq_trace *restrict q, const mq_bvh *bvh,
                                                                const mq_ray *restrict ray, bool cull)
{
    mq_prep1_avx2_regs(q, bvh, ray, _mm_loadu_ps(ray->origin), _mm_loadu_ps(ray->dir), cull);
}

#endif
