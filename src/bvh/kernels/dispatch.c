/*
 * Run-time choice of the traversal kernels: AVX2 where the CPU has it, else
 * SSE2 (the x86-64 baseline), else the portable scalar loops. Every kernel
 * gives bit-identical answers, so the choice only changes speed.
 */
#include <stdatomic.h>
#include <string.h>

#include "core/cpu.h"
#include "bvh/kernels/trace.h"

static const mq_kernels *forced;
/* The CPU's choice, computed once (a benign race: every thread computes the same). */
static _Atomic(const mq_kernels *) detected;

static const mq_kernels *best_available(void)
{
#if defined(MQ_HAVE_AVX2_KERNELS)
    if (mq_cpu_has_avx2_set())
        return &mq_kernels_avx2;
#endif
#if defined(MQ_HAVE_SSE2_KERNELS)
    return &mq_kernels_sse2;
#else
    return &mq_kernels_scalar;
#endif
}

const mq_kernels *mq_kernels_active(void)
{
    if (forced)
        return forced;
    const mq_kernels *k = atomic_load_explicit(&detected, memory_order_relaxed);
    if (!k) {
        k = best_available();
        atomic_store_explicit(&detected, k, memory_order_relaxed);
    }
    return k;
}

const mq_kernels *mq_kernels_by_name(const char *name)
{
    if (!strcmp(name, "scalar"))
        return &mq_kernels_scalar;
#if defined(MQ_HAVE_SSE2_KERNELS)
    if (!strcmp(name, "sse2"))
        return &mq_kernels_sse2;
#endif
#if defined(MQ_HAVE_AVX2_KERNELS)
    if (!strcmp(name, "avx2") && mq_cpu_has_avx2_set())
        return &mq_kernels_avx2;
#endif
    return NULL;
}

void mq_kernels_override(const mq_kernels *k)
{
    forced = k;
}
