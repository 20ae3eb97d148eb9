/*
 * The kernel sets per ISA level: the one table the library's ISA switch
 * (core/isa.h) indexes. Every set gives bit-identical answers, so the level
 * only changes speed. Adding a level: its kernel files and its row here.
 * Also the portable fillers of the slots a level has no version of
 * (trace.h, mq_kernels).
 */
#include "bvh/kernels/hit_record.h"
#include "bvh/kernels/trace.h"

const mq_kernels *const mq_kernels_table[MQ_ISA_COUNT] = {
    [MQ_ISA_SCALAR] = &mq_kernels_scalar,
#if defined(MQ_ISA_SIMD)
    [MQ_ISA_SSE2] = &mq_kernels_sse2,
    [MQ_ISA_AVX2] = &mq_kernels_avx2,
    /* No AVX-512 kernels yet (a later change adds them): the level runs AVX2's. */
    [MQ_ISA_AVX512] = &mq_kernels_avx2,
#else
    /* Never indexed (mq_isa_active stays at or below MQ_ISA_BUILD_MAX), but
     * filled so that no entry is NULL. */
    [MQ_ISA_SSE2] = &mq_kernels_scalar,
    [MQ_ISA_AVX2] = &mq_kernels_scalar,
    [MQ_ISA_AVX512] = &mq_kernels_scalar,
#endif
};

unsigned mq_trace_prepare8_each(mq_trace *const q[8], const mq_bvh *bvh, const mq_ray *const rays[8],
                                const mq_ray_query *query)
{
    unsigned lanes = 0;
    for (unsigned l = 0; l < 8; l++)
        lanes |= (unsigned)mq_trace_prepare(q[l], bvh, rays[l], query) << l;
    return lanes;
}

size_t mq_packet8_rays_none(const mq_bvh *bvh, const mq_ray *rays, size_t groups, bool cull, bool interleave,
                            mq_hit *hits, bool *left, mq_trace_counts *counts)
{
    (void)bvh, (void)rays, (void)cull, (void)interleave, (void)hits, (void)counts;
    for (size_t g = 0; g < groups; g++)
        left[g] = true;
    return 0;
}

void mq_hits4_each(const mq_bvh *bvh, const mq_ray *const ray[4], const mq_best best[4], mq_hit *const out[4])
{
    for (int l = 0; l < 4; l++)
        mq_hit_from_lane(bvh, ray[l], 0, &best[l], out[l]);
}
