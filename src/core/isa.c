/* The ISA switch (isa.h): CPU detection, MQ_ISA, and the one cached choice. */
#include "core/isa.h"

#include <meshquery/base.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CPUID is read on every x86-64 build, also without SIMD code (MQ_ISA_STRICT's report names the CPU's level). */
#if defined(__x86_64__)
#define MQ_ISA_CPUID 1
#include <cpuid.h>
#endif

_Atomic int mq_isa_chosen = -1;

static const char *const names[MQ_ISA_COUNT] = {"scalar", "sse2", "avx2", "avx512"};

const char *mq_isa_name(mq_isa isa)
{
    return (unsigned)isa < MQ_ISA_COUNT ? names[isa] : "?";
}

const char *mq_isa_in_use(void)
{
    return mq_isa_name(mq_isa_active());
}

bool mq_isa_parse(const char *name, mq_isa *out)
{
    for (int i = 0; i < MQ_ISA_COUNT; i++)
        if (name && !strcmp(name, names[i])) {
            *out = (mq_isa)i;
            return true;
        }
    return false;
}

#if defined(MQ_ISA_CPUID)
/* XCR0: the register states the OS saves on a context switch. */
static unsigned long long xgetbv0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (unsigned long long)hi << 32 | lo;
}
#endif

static mq_isa detect(void)
{
#if defined(MQ_ISA_CPUID)
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return MQ_ISA_SSE2; /* the x86-64 baseline */
    const bool osxsave = c >> 27 & 1, avx = c >> 28 & 1, fma = c >> 12 & 1;
    if (!osxsave || !avx || !fma)
        return MQ_ISA_SSE2;
    const unsigned long long xcr0 = xgetbv0();
    if ((xcr0 & 0x6) != 0x6) /* XMM and YMM state */
        return MQ_ISA_SSE2;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return MQ_ISA_SSE2;
    const bool avx2 = b >> 5 & 1, bmi1 = b >> 3 & 1, bmi2 = b >> 8 & 1;
    /* Every CPU with AVX2 so far has FMA, BMI1 and BMI2 too, but a virtual
     * machine may hide some: all four are required. */
    if (!avx2 || !bmi1 || !bmi2)
        return MQ_ISA_SSE2;
    const bool f = b >> 16 & 1, dq = b >> 17 & 1, bw = b >> 30 & 1, vl = b >> 31 & 1;
    /* Opmask, upper halves of ZMM0-15 and ZMM16-31 saved by the OS. */
    if (f && dq && bw && vl && (xcr0 & 0xE0) == 0xE0)
        return MQ_ISA_AVX512;
    return MQ_ISA_AVX2;
#else
    return MQ_ISA_SCALAR;
#endif
}

mq_isa mq_isa_cpu(void)
{
    return detect(); /* only on the slow paths: the choice, the test hooks */
}

mq_isa mq_isa_best(void)
{
    mq_isa c = mq_isa_cpu();
    return c < MQ_ISA_BUILD_MAX ? c : MQ_ISA_BUILD_MAX;
}

static bool env_on(const char *name)
{
    const char *s = getenv(name);
    return s && *s && strcmp(s, "0") != 0;
}

/* The choice without an override: MQ_ISA (clamped to what is here), or the best. */
static mq_isa initial_choice(void)
{
    mq_isa best = mq_isa_best();
    const char *env = getenv("MQ_ISA");
    if (!env || !*env)
        return best;
    mq_isa want = best;
    bool known = mq_isa_parse(env, &want);
    bool strict = env_on("MQ_ISA_STRICT");
    if (!known || want > best) {
        if (strict) {
            fprintf(stderr, "meshquery: MQ_ISA=%s is not available here (best: %s; CPU: %s), MQ_ISA_STRICT is set\n",
                    env, mq_isa_name(best), mq_isa_name(mq_isa_cpu()));
            abort();
        }
        want = best; /* the best available: below the level asked for */
    }
    if (strict)
        fprintf(stderr, "meshquery: running at ISA %s (MQ_ISA=%s)\n", mq_isa_name(want), env);
    return want;
}

mq_isa mq_isa_choose(void)
{
    /* Threads arriving together compute the same level; the first store
     * wins, and an override made meanwhile is kept. */
    int expected = -1;
    int v = (int)initial_choice();
    if (!atomic_compare_exchange_strong_explicit(&mq_isa_chosen, &expected, v, memory_order_relaxed,
                                                 memory_order_relaxed))
        v = expected;
    return (mq_isa)v;
}

mq_isa mq_isa_override(mq_isa isa)
{
    mq_isa best = mq_isa_best();
    mq_isa v = isa < best ? isa : best;
    if ((int)v < 0)
        v = MQ_ISA_SCALAR;
    atomic_store_explicit(&mq_isa_chosen, (int)v, memory_order_relaxed);
    return v;
}

/* The next use chooses again, as the first did (re-reading MQ_ISA). */
void mq_isa_override_clear(void)
{
    atomic_store_explicit(&mq_isa_chosen, -1, memory_order_relaxed);
}
