/*
 * The ISA switch (src/core/isa.h) and the kernel table it indexes
 * (src/bvh/kernels/dispatch.c):
 *   - every level's name parses back to it, and nothing else parses;
 *   - the CPU's level is at least the x86-64 baseline on x86-64, and the
 *     best level is the lower of the CPU's and the build's;
 *   - mq_isa_override runs at the level asked when it is here, else at the
 *     best lower one, and the kernel table follows it (every row's slots
 *     filled, its `isa` the level itself or, for AVX-512, AVX2, whose
 *     kernels it reuses); mq_isa_override_clear goes back to the first
 *     choice (MQ_ISA when set, else the best).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvh/kernels/trace.h"
#include "test_support.h"

static void names_parse_back(void **state)
{
    (void)state;
    for (int i = 0; i < MQ_ISA_COUNT; i++) {
        mq_isa got = MQ_ISA_COUNT;
        assert_true(mq_isa_parse(mq_isa_name((mq_isa)i), &got));
        assert_int_equal(got, i);
    }
    mq_isa got = MQ_ISA_SCALAR;
    assert_false(mq_isa_parse("AVX2", &got));
    assert_false(mq_isa_parse("avx", &got));
    assert_false(mq_isa_parse("", &got));
    assert_false(mq_isa_parse(NULL, &got));
}

static void best_is_cpu_and_build(void **state)
{
    (void)state;
    mq_isa cpu = mq_isa_cpu(), best = mq_isa_best();
#if defined(__x86_64__)
    assert_true(cpu >= MQ_ISA_SSE2);
#endif
    assert_int_equal(best, cpu < MQ_ISA_BUILD_MAX ? cpu : MQ_ISA_BUILD_MAX);
    printf("[ info ] CPU: %s, build up to %s, best: %s\n", mq_isa_name(cpu), mq_isa_name(MQ_ISA_BUILD_MAX),
           mq_isa_name(best));
}

static void override_reaches_the_table(void **state)
{
    (void)state;
    mq_isa best = mq_isa_best();
    for (int i = 0; i < MQ_ISA_COUNT; i++) {
        mq_isa want = (mq_isa)i, got = mq_isa_override(want);
        assert_int_equal(got, want < best ? want : best);
        assert_int_equal(mq_isa_active(), got);
        assert_string_equal(mq_isa_in_use(), mq_isa_name(got)); /* the public name of the same choice */
        const mq_kernels *k = mq_kernels_active();
        assert_ptr_equal(k, mq_kernels_table[got]);
        assert_int_equal(k->isa, got == MQ_ISA_AVX512 ? MQ_ISA_AVX2 : got);
        assert_non_null(k->closest);
        assert_non_null(k->any);
        assert_non_null(k->stream);
        assert_non_null(k->packet8);
        assert_non_null(k->packet8_rays);
        assert_non_null(k->prepare8);
        assert_non_null(k->prepare_valid);
        assert_non_null(k->closest_valid);
        assert_non_null(k->hits4);
        assert_non_null(k->hit1);
    }
    mq_isa_override_clear();
    mq_isa first = best;
    const char *env = getenv("MQ_ISA");
    mq_isa named;
    if (env && mq_isa_parse(env, &named))
        first = named < best ? named : best;
    assert_int_equal(mq_isa_active(), first);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_parse_back),
        cmocka_unit_test(best_is_cpu_and_build),
        cmocka_unit_test(override_reaches_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
