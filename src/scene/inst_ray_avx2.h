/*
 * mq_inst_ray_init with AVX2, inlined where it is called (for *_avx2.c files:
 * scene_raycast_map_avx2.c exports it, scene_stream_avx2.c inlines it; CMake
 * compiles *_avx2.c with -mavx2 -mfma, and -ffp-contract=off keeps every
 * product and sum separately rounded): the mapping of origin and
 * direction and the clip against the local root box, three axes in the lanes
 * of one register. Per component these are the reference's double operations
 * in the same order ((w0 o0 + w1 o1) + w2 o2, (lo - org) * (1/dir), ...), so
 * the same bits; the clip's selects keep the reference's operand order
 * (vminpd / vmaxpd return the second operand on a NaN, as `v < u ? v : u`
 * does), and the entry and exit are folded over the axes in the reference's
 * order (x, y, z), which also fixes the sign of a zero. An axis the local ray
 * runs parallel to (a zero local direction component) goes to the reference.
 */
#ifndef MQ_SCENE_INST_RAY_AVX2_H
#define MQ_SCENE_INST_RAY_AVX2_H

#include <float.h>
#include <immintrin.h>

#include "scene/scene_raycast.h"

/* mq_inst_ray_init (the same bits, see above), also handing back the local origin and direction in registers (lane 3
 * junk; their stores into ir->local are followed by the scalar tmin / tmax
 * stores, so reloading them as vectors would wait for the stores to retire). */
static inline __attribute__((always_inline)) bool mq_inst_ray_map_avx2_regs(mq_inst_ray *ir,
                                                                            const mq_instance_rec *inst,
                                                                            const mq_dray *ray, __m128 *lorg_out,
                                                                            __m128 *ldir_out)
{
    const mq_inst_ray_data *d = &inst->ray;
    const double *w = &d->w2l[0][0];
    /* The columns of w2l (lane r = row r; lane 3 is junk throughout). */
    __m256d r0 = _mm256_loadu_pd(w), r1 = _mm256_loadu_pd(w + 4); /* [w00 w01 w02 w10], [w11 w12 w20 w21] */
    __m256d c0 = _mm256_blend_pd(_mm256_permute4x64_pd(r0, _MM_SHUFFLE(3, 3, 3, 0)), r1, 4);
    __m256d c1 = _mm256_blend_pd(_mm256_permute4x64_pd(r0, _MM_SHUFFLE(1, 1, 1, 1)),
                                 _mm256_permute4x64_pd(r1, _MM_SHUFFLE(3, 3, 0, 0)), 6);
    __m256d c2 = _mm256_blend_pd(_mm256_blend_pd(_mm256_permute4x64_pd(r0, _MM_SHUFFLE(2, 2, 2, 2)),
                                                 _mm256_permute4x64_pd(r1, _MM_SHUFFLE(1, 1, 1, 1)), 2),
                                 _mm256_broadcast_sd(w + 8), 4);
    /* Relative to the instance's origin first (lane 3: tmin - junk, unused). */
    __m256d o = _mm256_sub_pd(_mm256_loadu_pd(ray->origin), _mm256_loadu_pd(d->origin));
    __m256d org = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(c0, _mm256_permute4x64_pd(o, 0x00)),
                                              _mm256_mul_pd(c1, _mm256_permute4x64_pd(o, 0x55))),
                                _mm256_mul_pd(c2, _mm256_permute4x64_pd(o, 0xAA)));
    __m256d dir = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(c0, _mm256_broadcast_sd(ray->dir)),
                                              _mm256_mul_pd(c1, _mm256_broadcast_sd(ray->dir + 1))),
                                _mm256_mul_pd(c2, _mm256_broadcast_sd(ray->dir + 2)));
    const __m256d zero = _mm256_setzero_pd();
    if (_mm256_movemask_pd(_mm256_cmp_pd(dir, zero, _CMP_EQ_OQ)) & 7) {
        bool ok = mq_inst_ray_init_scalar(ir, inst, ray);
        *lorg_out = _mm_loadu_ps(ir->local.origin);
        *ldir_out = _mm_loadu_ps(ir->local.dir);
        return ok;
    }
    /* The box, [lo0 lo1 lo2 hi0] and [hi0 hi1 hi2 junk]: an empty (or NaN) slab is no hit. */
    __m256d lo = _mm256_cvtps_pd(_mm_loadu_ps(d->box_lo));
    __m256d hi = _mm256_cvtps_pd(_mm_loadu_ps(d->box_hi));
    if ((_mm256_movemask_pd(_mm256_cmp_pd(lo, hi, _CMP_LE_OQ)) & 7) != 7)
        return false;
    __m256d inv = _mm256_div_pd(_mm256_set1_pd(1.0), dir);
    __m256d u = _mm256_mul_pd(_mm256_sub_pd(lo, org), inv), v = _mm256_mul_pd(_mm256_sub_pd(hi, org), inv);
    __m256d n = _mm256_min_pd(v, u), f = _mm256_max_pd(u, v);
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
    const __m256d widen = _mm256_set1_pd(8 * DBL_EPSILON);
    n = _mm256_sub_pd(n, _mm256_mul_pd(_mm256_and_pd(n, abs_mask), widen));
    f = _mm256_add_pd(f, _mm256_mul_pd(_mm256_and_pd(f, abs_mask), widen));
    __m128d n01 = _mm256_castpd256_pd128(n), n23 = _mm256_extractf128_pd(n, 1);
    __m128d f01 = _mm256_castpd256_pd128(f), f23 = _mm256_extractf128_pd(f, 1);
    __m128d a = _mm_load_sd(&ray->tmin), b = _mm_load_sd(&ray->tmax);
    a = _mm_max_sd(n01, a); /* n > a ? n : a */
    b = _mm_min_sd(f01, b); /* f < b ? f : b */
    a = _mm_max_sd(_mm_unpackhi_pd(n01, n01), a);
    b = _mm_min_sd(_mm_unpackhi_pd(f01, f01), b);
    a = _mm_max_sd(n23, a);
    b = _mm_min_sd(f23, b);
    if (_mm_comigt_sd(a, b))
        return false;
    double t0 = _mm_cvtsd_f64(a);
    __m128 lorg = _mm256_cvtpd_ps(_mm256_add_pd(org, _mm256_mul_pd(_mm256_broadcastsd_pd(a), dir)));
    __m128 ldir = _mm256_cvtpd_ps(dir);
    ir->inst = inst;
    ir->world = ray;
    ir->advance = t0;
    float tmin = mq_float_ceil_of(ray->tmin - t0), tmax = mq_float_floor_of(ray->tmax - t0);
    /* origin[3], tmin, dir[3], tmax: two stores each */
    _mm_storeu_ps(ir->local.origin, lorg);
    _mm_storeu_ps(ir->local.dir, ldir);
    ir->local.tmin = tmin;
    ir->local.tmax = tmax;
    ir->tmin = tmin;
    ir->tmax = tmax;
    *lorg_out = lorg;
    *ldir_out = ldir;
    /* fray_is_valid: finite (x * 0 == 0), a non-zero direction, tmin <= tmax */
    __m256 od = _mm256_insertf128_ps(_mm256_castps128_ps256(lorg), ldir, 1);
    const __m256 fzero = _mm256_setzero_ps();
    unsigned finite = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_mul_ps(od, fzero), fzero, _CMP_EQ_OQ));
    unsigned dir_zero = (unsigned)_mm_movemask_ps(_mm_cmp_ps(ldir, _mm256_castps256_ps128(fzero), _CMP_EQ_OQ));
    return (finite & 0x77u) == 0x77u && (dir_zero & 7u) != 7u && tmin <= tmax;
}

static inline __attribute__((always_inline)) bool mq_inst_ray_map_avx2(mq_inst_ray *ir, const mq_instance_rec *inst,
                                                                       const mq_dray *ray)
{
    __m128 lorg, ldir;
    return mq_inst_ray_map_avx2_regs(ir, inst, ray, &lorg, &ldir);
}

#endif
