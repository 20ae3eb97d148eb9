/*
 * The instruction sets the *_avx2.c files are compiled for (CMakeLists.txt:
 * -mavx2 -mfma -mbmi -mbmi2): every CPU with AVX2 so far has FMA, BMI1 and
 * BMI2 too, but a virtual machine may hide some, so all four are checked
 * before any AVX2 code runs.
 */
#ifndef MQ_CORE_CPU_H
#define MQ_CORE_CPU_H

#include <stdbool.h>

#if defined(__x86_64__) || defined(_M_X64)
static inline bool mq_cpu_has_avx2_set(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
           __builtin_cpu_supports("bmi2");
}
#endif

#endif
