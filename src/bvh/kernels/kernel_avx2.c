/*
 * AVX2 kernels: the row of ISA levels AVX2 and AVX-512 (dispatch.c; core/isa.h
 * checks the CPU for AVX2, FMA, BMI1 and BMI2; CMake compiles *_avx2.c with
 * -mavx2 -mfma on x86-64 only). One 8-wide slab test
 * per node; leaves with the SSE block test in VEX encoding. No FMA in either:
 * the slab test's error bound (Ize 2013) assumes (b - o) * (1/d) with two
 * roundings, and the leaf test must match mq_woop_lane bit for bit.
 */
#include <immintrin.h>

#include "bvh/kernels/kernel_avx2.h"
#include "bvh/kernels/prep1_avx2.h"
#include "bvh/kernels/traverse_loop.h"

/* mq_trace_prepare_valid of a valid ray into *q, and the kernel's per-ray
 * constants from the preparation's registers where it took the common path.
 * False for an empty tree (then *q is set, *kr is not). */
static inline __attribute__((always_inline)) bool prepare(mq_trace *q, kernel_ray *kr, const mq_bvh *bvh,
                                                          const mq_ray *ray, bool cull)
{
    mq_prep1 p;
    bool common = mq_prep1_avx2_out(q, bvh, ray, _mm_loadu_ps(ray->origin), _mm_loadu_ps(ray->dir), cull, &p);
    if (bvh->root == MQ_REF_EMPTY)
        return false;
    if (common)
        kernel_ray_from_prep1(&p, mq_trace_tmin(q), cull, kr);
    else
        kernel_ray_init(q, kr);
    return true;
}

/* mq_trace_prepare_valid and kernel_closest in one call, the query in the caller's *q. */
static bool kernel_closest_valid(const mq_bvh *bvh, const mq_ray *ray, bool cull, mq_trace *q, mq_best *best)
{
    kernel_ray kr;
    bool nonempty = prepare(q, &kr, bvh, ray, cull);
    *best = mq_best_init(q->ray.tmax);
    if (!nonempty)
        return false;
    mq_trace_counts counts = {0, 0, 0};
    if (mq_trace_tmin(q) < 0.0f)
        return kernel_closest_impl(q, &kr, best, &counts, true);
    return kernel_closest_impl(q, &kr, best, &counts, false);
}

/* mq_trace_prepare_valid and kernel_any in one call. */
static bool kernel_any_valid(const mq_bvh *bvh, const mq_ray *ray, bool cull)
{
    mq_trace q;
    kernel_ray kr;
    if (!prepare(&q, &kr, bvh, ray, cull))
        return false;
    mq_trace_counts counts = {0, 0, 0};
    if (mq_trace_tmin(&q) < 0.0f)
        return kernel_any_impl(&q, &kr, &counts, true);
    return kernel_any_impl(&q, &kr, &counts, false);
}

const mq_kernels mq_kernels_avx2 = {.closest = kernel_closest,
                                    .any = kernel_any,
                                    .stream = kernel_stream,
                                    .packet8 = mq_packet8_closest_avx2,
                                    .packet8_rays = mq_packet8_rays_avx2,
                                    .prepare8 = mq_trace_prepare8_avx2,
                                    .prepare_valid = mq_trace_prepare_valid_avx2,
                                    .closest_valid = kernel_closest_valid,
                                    .any_valid = kernel_any_valid,
                                    .hits4 = mq_hits4_avx2,
                                    .hit1 = mq_hit_from_lane_avx2,
                                    .isa = MQ_ISA_AVX2};
