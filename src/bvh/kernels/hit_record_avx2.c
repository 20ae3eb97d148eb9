/*
 * One hit record in AVX registers (for CPUs with AVX2; kernel_avx2.c's
 * `hit1`): hit_record.c's refinement with the three coordinates in the lanes
 * of one register instead of three scalars. The same double operations in
 * the same order (cross products lane by lane, dot products summed x + y,
 * then + z; no FMA: the build turns contraction off), so the same bits as
 * mq_hit_from_lane, in about half its instructions. Hits off the common case
 * (a degenerate plane test, a point outside the triangle) go through
 * mq_hit_from_lane itself.
 */
#include <immintrin.h>

#include "bvh/kernels/hit_record.h"
#include "primitives/near_parallel.h"

/* a x b, lane k: a[k+1] * b[k+2] - a[k+2] * b[k+1] (lane 3: garbage). */
static inline __m256d cross3(__m256d a, __m256d b)
{
    __m256d a_yzx = _mm256_permute4x64_pd(a, _MM_SHUFFLE(3, 0, 2, 1));
    __m256d a_zxy = _mm256_permute4x64_pd(a, _MM_SHUFFLE(3, 1, 0, 2));
    __m256d b_yzx = _mm256_permute4x64_pd(b, _MM_SHUFFLE(3, 0, 2, 1));
    __m256d b_zxy = _mm256_permute4x64_pd(b, _MM_SHUFFLE(3, 1, 0, 2));
    return _mm256_sub_pd(_mm256_mul_pd(a_yzx, b_zxy), _mm256_mul_pd(a_zxy, b_yzx));
}

/* (a0 b0 + a1 b1) + a2 b2, as the scalar code sums. */
static inline double dot3(__m256d a, __m256d b)
{
    __m256d p = _mm256_mul_pd(a, b);
    __m128d lo = _mm256_castpd256_pd128(p), hi = _mm256_extractf128_pd(p, 1);
    return _mm_cvtsd_f64(_mm_add_sd(_mm_add_sd(lo, _mm_unpackhi_pd(lo, lo)), hi));
}

/* (x, y, z) of a float triple, widened to double (lane 3: 0). */
static inline __m256d widen3(float x, float y, float z)
{
    return _mm256_cvtps_pd(_mm_setr_ps(x, y, z, 0.0f));
}

void mq_hit_from_lane_avx2(const mq_bvh *bvh, const mq_ray *ray, int t_shift, const mq_best *b, mq_hit *out)
{
    const mq_tri_block *blk = b->block;
    const int l = b->lane;
    const __m128 inv = _mm_set1_ps(bvh->inv_scale);
    __m256d v[3];
    for (int c = 0; c < 3; c++) /* the corner in mesh units (float), then in double */
        v[c] = _mm256_cvtps_pd(_mm_mul_ps(_mm_setr_ps(blk->v[c][0][l], blk->v[c][1][l], blk->v[c][2][l], 0.0f), inv));
    __m256d o = widen3(ray->origin[0], ray->origin[1], ray->origin[2]);
    __m256d d = widen3(ray->dir[0], ray->dir[1], ray->dir[2]);
    __m256d e1 = _mm256_sub_pd(v[1], v[0]), e2 = _mm256_sub_pd(v[2], v[0]), q = _mm256_sub_pd(v[0], o);
    __m256d n = cross3(e1, e2);
    double nn = dot3(n, n), dn = dot3(n, d);
    double td = 0.0, u = -1.0, w = -1.0; /* off the common case unless set below */
    /* |d|^2 from the ray's floats: independent of the corners, off the hit's critical path */
    double dd =
        (double)ray->dir[0] * ray->dir[0] + (double)ray->dir[1] * ray->dir[1] + (double)ray->dir[2] * ray->dir[2];
    if (dn != 0.0 && __builtin_isfinite(dn) && !mq_near_parallel_wide(dn, nn, dd)) {
        __m256d m2 = cross3(e2, n), m1 = cross3(n, e1);
        double dm2 = dot3(d, m2), qm2 = dot3(q, m2), dm1 = dot3(d, m1), qm1 = dot3(q, m1);
        double inv_nn = 1.0 / nn;
        td = dot3(n, q) / dn;
        if (__builtin_isfinite(td)) {
            u = (td * dm2 - qm2) * inv_nn;
            w = (td * dm1 - qm1) * inv_nn;
        }
    }
    if (!(u >= 0.0 && w >= 0.0 && u + w <= 1.0)) {
        mq_hit_from_lane(bvh, ray, t_shift, b, out);
        return;
    }
    /* Into [tmin, tmax] (tf < tmin first, as the scalar ternary); the unit normal. */
    float tf = (float)td;
    float t = tf < ray->tmin ? ray->tmin : tf > ray->tmax ? ray->tmax : tf;
    double len = __builtin_sqrt(nn);
    float normal[3] = {0.0f, 0.0f, 0.0f};
    if (len > 0.0) {
        __m128 nf = _mm256_cvtpd_ps(_mm256_div_pd(n, _mm256_set1_pd(len)));
        normal[0] = _mm_cvtss_f32(nf);
        normal[1] = _mm_cvtss_f32(_mm_shuffle_ps(nf, nf, 1));
        normal[2] = _mm_cvtss_f32(_mm_shuffle_ps(nf, nf, 2));
    }
    mq_hit_fill(bvh, ray, b, t, (float)u, (float)w, normal, out);
}
