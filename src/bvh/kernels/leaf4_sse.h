/*
 * The watertight leaf test on a 4-triangle block with SSE2 (also compiled into
 * the AVX2 kernel file, where it gets VEX encoding). Same float operations in
 * the same order as mq_woop_lane, so the same bits; any lane whose edge
 * functions might need the double fallback (U*V*W zero, infinite or NaN) sends
 * the whole block to mq_woop_lane.
 */
#ifndef MQ_BVH_KERNELS_LEAF4_SSE_H
#define MQ_BVH_KERNELS_LEAF4_SSE_H

#include <emmintrin.h>

#include "bvh/kernels/woop_lane.h"

typedef struct mq_leaf4_ray {
    __m128 okx, oky, okz; /* origin, permuted */
    __m128 sx, sy, sz;    /* shear */
    size_t ox, oy, oz;    /* byte offsets of axes kx, ky, kz within a corner's rows (blk->v[c]) */
    unsigned cull_mask;   /* 0xF when culling back faces, else 0 */
} mq_leaf4_ray;

/* The leaf ray from its parts: the axes (kx, ky, kz), and the permuted origin
 * and the shear already broadcast (ok: org[kx], org[ky], org[kz]; s: sx, sy,
 * sz), so a caller that holds them in registers passes those. */
static inline __attribute__((always_inline)) void mq_leaf4_ray_set(int kx, int ky, int kz, const __m128 ok[3],
                                                                   const __m128 s[3], bool cull, mq_leaf4_ray *lr)
{
    lr->ox = (size_t)kx * sizeof(float) * MQ_TRI_BLOCK;
    lr->oy = (size_t)ky * sizeof(float) * MQ_TRI_BLOCK;
    lr->oz = (size_t)kz * sizeof(float) * MQ_TRI_BLOCK;
    lr->okx = ok[0];
    lr->oky = ok[1];
    lr->okz = ok[2];
    lr->sx = s[0];
    lr->sy = s[1];
    lr->sz = s[2];
    lr->cull_mask = cull ? 0xFu : 0u;
}

static inline void mq_leaf4_ray_init(const mq_ray_prep *r, bool cull, mq_leaf4_ray *lr)
{
    const __m128 ok[3] = {_mm_set1_ps(r->org[r->kx]), _mm_set1_ps(r->org[r->ky]), _mm_set1_ps(r->org[r->kz])};
    const __m128 s[3] = {_mm_set1_ps(r->sx), _mm_set1_ps(r->sy), _mm_set1_ps(r->sz)};
    mq_leaf4_ray_set(r->kx, r->ky, r->kz, ok, s, cull, lr);
}

/* Corner c's row of axis offset `off` (a byte offset from mq_leaf4_ray). */
static inline __m128 mq_leaf4_row(const mq_tri_block *blk, int c, size_t off)
{
    return _mm_load_ps((const float *)((const char *)blk->v[c] + off));
}

/* The block test with the permuted origin passed in: a kernel that already
 * holds it in registers (AVX2: the low halves of its node test's origin)
 * passes those, which keeps three registers free in the leaf loop. */
static inline __attribute__((always_inline)) unsigned mq_leaf4_hits_at(const mq_leaf4_ray *lr, __m128 okx, __m128 oky,
                                                                       __m128 okz, const mq_trace *q,
                                                                       const mq_tri_block *blk, float tmin, float tmax,
                                                                       mq_leaf_hits *out)
{
    __m128 X[3], Y[3], Z[3];
    for (int c = 0; c < 3; c++) {
        __m128 px = _mm_sub_ps(mq_leaf4_row(blk, c, lr->ox), okx);
        __m128 py = _mm_sub_ps(mq_leaf4_row(blk, c, lr->oy), oky);
        __m128 pz = _mm_sub_ps(mq_leaf4_row(blk, c, lr->oz), okz);
        X[c] = _mm_sub_ps(px, _mm_mul_ps(lr->sx, pz));
        Y[c] = _mm_sub_ps(py, _mm_mul_ps(lr->sy, pz));
        Z[c] = _mm_mul_ps(lr->sz, pz);
    }
    __m128 U = _mm_sub_ps(_mm_mul_ps(X[2], Y[1]), _mm_mul_ps(Y[2], X[1]));
    __m128 V = _mm_sub_ps(_mm_mul_ps(X[0], Y[2]), _mm_mul_ps(Y[0], X[2]));
    __m128 W = _mm_sub_ps(_mm_mul_ps(X[1], Y[0]), _mm_mul_ps(Y[1], X[0]));
    /* Same signs: all sign bits equal (U, V, W are non-zero here, see below). */
    unsigned same = ~(unsigned)_mm_movemask_ps(_mm_or_ps(_mm_xor_ps(U, V), _mm_xor_ps(U, W))) & 0xFu;
    unsigned m = same & ~((unsigned)_mm_movemask_ps(U) & lr->cull_mask);
    __m128 P = _mm_mul_ps(_mm_mul_ps(U, V), W);
    __m128 absP = _mm_andnot_ps(_mm_set1_ps(-0.0f), P);
    unsigned slow = (unsigned)_mm_movemask_ps(
        _mm_or_ps(_mm_cmpeq_ps(P, _mm_setzero_ps()), _mm_cmpnlt_ps(absP, _mm_set1_ps(INFINITY))));
    if (__builtin_expect(slow != 0, 0))
        return mq_woop_block(&q->ray, q->cull, blk, tmin, tmax, out);
    if (!m)
        return 0;
    __m128 det = _mm_add_ps(_mm_add_ps(U, V), W);
    __m128 T = _mm_add_ps(_mm_add_ps(_mm_mul_ps(U, Z[0]), _mm_mul_ps(V, Z[1])), _mm_mul_ps(W, Z[2]));
    __m128 tt = _mm_div_ps(T, det);
    __m128 in = _mm_and_ps(_mm_cmpge_ps(tt, _mm_set1_ps(tmin)), _mm_cmple_ps(tt, _mm_set1_ps(tmax)));
    m &= (unsigned)_mm_movemask_ps(in);
    if (!m)
        return 0;
    _mm_store_ps(out->t, tt);
    _mm_store_ps(out->u, _mm_div_ps(V, det));
    _mm_store_ps(out->v, _mm_div_ps(W, det));
    out->back = (unsigned)_mm_movemask_ps(U) & m; /* U has the sign of det here */
    return m;
}

static inline __attribute__((always_inline)) unsigned mq_leaf4_hits(const mq_leaf4_ray *lr, const mq_trace *q,
                                                                    const mq_tri_block *blk, float tmin, float tmax,
                                                                    mq_leaf_hits *out)
{
    return mq_leaf4_hits_at(lr, lr->okx, lr->oky, lr->okz, q, blk, tmin, tmax, out);
}

#endif
