/*
 * The one instruction-set switch of the library: which ISA level the BVH
 * traversal kernels (bvh/kernels/dispatch.c, one row per level) and the
 * scene's ray walks (scene/) run at. Every level gives bit-identical
 * answers, so the choice only changes speed.
 *
 * The level is chosen once, at first use: the best this CPU and this build
 * both have, or the one the environment variable MQ_ISA names
 * (scalar | sse2 | avx2 | avx512). A named level the CPU or the build lacks
 * falls back to the best available lower one; with MQ_ISA_STRICT=1 the
 * process instead reports it on stderr and aborts (ctest's per-ISA variants
 * set it, tests/isa_variants.cmake, so a variant never passes on another ISA
 * than the one it names). An unrecognised MQ_ISA is treated the same way as
 * an unavailable one (strict: abort; otherwise automatic).
 *
 * Adding a level: its enum value and CPU test here, its kernel files, and its
 * row in bvh/kernels/dispatch.c. The scene picks its code by level
 * (`mq_isa_active() >= MQ_ISA_AVX2`), so a new higher level runs the best
 * scene code below it until it has its own.
 */
#ifndef MQ_CORE_ISA_H
#define MQ_CORE_ISA_H

#include <stdatomic.h>
#include <stdbool.h>

/* Levels, each including the ones below (AVX2 means AVX2 + FMA + BMI1 +
 * BMI2, the set CMake compiles *_avx2.c for; AVX-512 means F, BW, DQ and VL
 * with the OS saving the ZMM state). */
typedef enum mq_isa { MQ_ISA_SCALAR = 0, MQ_ISA_SSE2, MQ_ISA_AVX2, MQ_ISA_AVX512, MQ_ISA_COUNT } mq_isa;

/* Defined when this build compiles the x86-64 SIMD code: the SSE2 paths and
 * the *_avx2.c files (CMakeLists.txt: x86-64 without MQ_FORCE_SCALAR). The
 * one compile-time test for it. */
#if (defined(__x86_64__) || defined(_M_X64)) && !defined(MQ_FORCE_SCALAR)
#define MQ_ISA_SIMD 1
#define MQ_ISA_BUILD_MAX MQ_ISA_AVX512
#else
#define MQ_ISA_BUILD_MAX MQ_ISA_SCALAR
#endif

/* The chosen level, or -1 before the first use (mq_isa_active). */
extern _Atomic int mq_isa_chosen;

/* The slow path of mq_isa_active: makes the choice (see above) and caches it. */
mq_isa mq_isa_choose(void);

/* The level everything runs at. */
static inline mq_isa mq_isa_active(void)
{
    int v = atomic_load_explicit(&mq_isa_chosen, memory_order_relaxed);
    return v >= 0 ? (mq_isa)v : mq_isa_choose();
}

/* The best level this CPU supports (regardless of the build; scalar on
 * other architectures than x86-64). */
mq_isa mq_isa_cpu(void);

/* The best level both this CPU and this build have. */
mq_isa mq_isa_best(void);

/* "scalar", "sse2", "avx2", "avx512". */
const char *mq_isa_name(mq_isa isa);

/* The level named `name` (as mq_isa_name spells it); false when none is. */
bool mq_isa_parse(const char *name, mq_isa *out);

/*
 * For tests: runs every later query of the process (BVH kernels and scene
 * walks) at `isa`, or at the best available lower level when this CPU or
 * build lacks it. @return the level now active: compare it with `isa` to
 * skip a level that is not here. Not thread-safe with concurrent queries.
 */
mq_isa mq_isa_override(mq_isa isa);

/* For tests: back to the choice made at first use (MQ_ISA, or the best). */
void mq_isa_override_clear(void);

#endif
