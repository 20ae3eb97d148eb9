/*
 * mq_trace_prepare for 8 rays at once (AVX2), for the batches: the common
 * path of ray_prep.c in vector registers (prep8_avx2.h), then 1/d and the
 * shear with per-lane axes, 5 divisions per 8 rays instead of 16, and the 8
 * queries written out. Every field equals what mq_trace_prepare writes, bit
 * for bit; lanes that mq_trace_prepare would reject or rescale are left to it.
 */
#include <string.h>

#include "bvh/kernels/prep1_avx2.h"
#include "bvh/kernels/prep8_avx2.h"

/* 1 for the lanes of `mask`, else 0, as 32-bit integers. */
static inline __m256i ones_of(unsigned mask)
{
    return _mm256_srli_epi32(mq_prep8_lanes(mask), 31);
}

unsigned mq_trace_prepare8_avx2(mq_trace *const q[8], const mq_bvh *bvh, const mq_ray *const rays[8],
                                const mq_ray_query *query)
{
    static const mq_ray_query defaults = {false, NULL, NULL, NULL};
    mq_prep8 r;
    mq_prep8_load(bvh, rays, &r);
    if (!r.ok)
        return 0;
    /* Per lane: kz, down = sign of d[kz], and (kx, ky) = perm[kz][down] of
     * finish(): kz 0: (1,2) / (2,1); kz 1: (2,0) / (0,2); kz 2: (0,1) / (1,0). */
    __m256i m0 = mq_prep8_lanes(r.axis[0]), m1 = mq_prep8_lanes(r.axis[1]);
    unsigned down = (r.axis[0] & r.sign[0]) | (r.axis[1] & r.sign[1]) | (r.axis[2] & r.sign[2]);
    __m256i dn = mq_prep8_lanes(down);
    __m256 f0 = _mm256_castsi256_ps(m0), f1 = _mm256_castsi256_ps(m1), fd = _mm256_castsi256_ps(dn);
    __m256 dz = _mm256_blendv_ps(_mm256_blendv_ps(r.d[2], r.d[1], f1), r.d[0], f0);
    /* d[kx]: kz 0: down ? d2 : d1; kz 1: down ? d0 : d2; kz 2: down ? d1 : d0 (and d[ky] the other). */
    __m256 x2 = _mm256_blendv_ps(r.d[0], r.d[1], fd), y2 = _mm256_blendv_ps(r.d[1], r.d[0], fd);
    __m256 x1 = _mm256_blendv_ps(r.d[2], r.d[0], fd), y1 = _mm256_blendv_ps(r.d[0], r.d[2], fd);
    __m256 x0 = _mm256_blendv_ps(r.d[1], r.d[2], fd), y0 = _mm256_blendv_ps(r.d[2], r.d[1], fd);
    __m256 dx = _mm256_blendv_ps(_mm256_blendv_ps(x2, x1, f1), x0, f0);
    __m256 dy = _mm256_blendv_ps(_mm256_blendv_ps(y2, y1, f1), y0, f0);
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 rd[3];
    for (int k = 0; k < 3; k++)
        rd[k] = _mm256_div_ps(one, r.d[k]);
    __m256 sx = _mm256_div_ps(dx, dz), sy = _mm256_div_ps(dy, dz);
    __m256 sz = _mm256_blendv_ps(_mm256_blendv_ps(rd[2], rd[1], f1), rd[0], f0);
    /* Integer fields: kz = 0*m0 + 1*m1 + 2*m2; kx, ky from the table. */
    __m256i two = _mm256_set1_epi32(2), zero = _mm256_setzero_si256(), onei = _mm256_set1_epi32(1);
    __m256i kz = _mm256_blendv_epi8(_mm256_blendv_epi8(two, onei, m1), zero, m0);
    __m256i kx2 = _mm256_blendv_epi8(zero, onei, dn), ky2 = _mm256_blendv_epi8(onei, zero, dn);
    __m256i kx1 = _mm256_blendv_epi8(two, zero, dn), ky1 = _mm256_blendv_epi8(zero, two, dn);
    __m256i kx0 = _mm256_blendv_epi8(onei, two, dn), ky0 = _mm256_blendv_epi8(two, onei, dn);
    __m256i kx = _mm256_blendv_epi8(_mm256_blendv_epi8(kx2, kx1, m1), kx0, m0);
    __m256i ky = _mm256_blendv_epi8(_mm256_blendv_epi8(ky2, ky1, m1), ky0, m0);
    __m256i nr[3];
    for (int k = 0; k < 3; k++)
        nr[k] = _mm256_add_epi32(_mm256_set1_epi32(2 * k), ones_of(r.sign[k]));

    /* Out, by field, then lane by lane. */
    enum { OX, OY, OZ, DX, DY, DZ, RX, RY, RZ, TMIN, TMAX, SX, SY, SZ, KX, KY, KZ, NX, NY, NZ, FIELDS };
    _Alignas(32) float f[FIELDS][8];
    for (int k = 0; k < 3; k++) {
        _mm256_store_ps(f[OX + k], r.org[k]);
        _mm256_store_ps(f[DX + k], r.d[k]);
        _mm256_store_ps(f[RX + k], rd[k]);
        _mm256_store_si256((__m256i *)f[NX + k], nr[k]);
    }
    _mm256_store_ps(f[TMIN], r.tmin), _mm256_store_ps(f[TMAX], r.tmax);
    _mm256_store_ps(f[SX], sx), _mm256_store_ps(f[SY], sy), _mm256_store_ps(f[SZ], sz);
    _mm256_store_si256((__m256i *)f[KX], kx), _mm256_store_si256((__m256i *)f[KY], ky);
    _mm256_store_si256((__m256i *)f[KZ], kz);
    const mq_ray_query *qq = query ? query : &defaults;
    for (int l = 0; l < 8; l++) {
        if (!((r.ok >> l) & 1))
            continue;
        mq_trace *t = q[l];
        mq_ray_prep *p = &t->ray;
        for (int k = 0; k < 3; k++) {
            p->org[k] = f[OX + k][l];
            p->dir[k] = f[DX + k][l];
            p->rdir[k] = f[RX + k][l];
            memcpy(&p->near[k], &f[NX + k][l], sizeof(int));
        }
        p->tmin = f[TMIN][l];
        p->tmax = f[TMAX][l];
        p->t_shift = 0;
        memcpy(&p->kx, &f[KX][l], sizeof(int));
        memcpy(&p->ky, &f[KY][l], sizeof(int));
        memcpy(&p->kz, &f[KZ][l], sizeof(int));
        p->sx = f[SX][l];
        p->sy = f[SY][l];
        p->sz = f[SZ][l];
        t->query = qq;
        t->cull = qq->cull_back_faces;
        t->has_after = false;
        t->after_t = 0.0f;
        t->after_id = 0;
        t->bvh = bvh;
        t->user_ray = rays[l];
    }
    return r.ok;
}

void mq_trace_prepare_valid_avx2(mq_trace *restrict q, const mq_bvh *bvh, const mq_ray *restrict ray, bool cull)
{
    mq_prep1_avx2(q, bvh, ray, cull);
}
