/*
 * The inline fmaxf / fminf / fmax / fmin of src/core/minmax.h give the C
 * library's answers bit for bit (NaN results compared as NaN): on every pair
 * of special values (zeros of both signs, +-inf, NaNs of both signs,
 * subnormals, the largest finite values) and on random bit patterns, in both
 * argument orders. Signaling NaNs are left out: the C library turns them into
 * a NaN result, minmax.h takes them as the quiet NaNs real arithmetic makes. The library's functions are called through
 * volatile pointers so the compiler cannot fold them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/minmax.h"

static float (*volatile libm_fmaxf)(float, float) = fmaxf;
static float (*volatile libm_fminf)(float, float) = fminf;
static double (*volatile libm_fmax)(double, double) = fmax;
static double (*volatile libm_fmin)(double, double) = fmin;

/* The sign of a zero result is the C library's choice: x86-64's glibc gives
 * the second operand, as minmax.h does; elsewhere only the value is checked. */
#if defined(__x86_64__) && defined(__GLIBC__)
static const bool zero_sign_checked = true;
#else
static const bool zero_sign_checked = false;
#endif

static void same_float(float want, float got)
{
    if (isnan(want)) {
        assert_true(isnan(got));
        return;
    }
    if (!zero_sign_checked && want == 0.0f && got == 0.0f)
        return;
    uint32_t a, b;
    memcpy(&a, &want, sizeof a);
    memcpy(&b, &got, sizeof b);
    assert_int_equal(a, b);
}

static void same_double(double want, double got)
{
    if (isnan(want)) {
        assert_true(isnan(got));
        return;
    }
    if (!zero_sign_checked && want == 0.0 && got == 0.0)
        return;
    uint64_t a, b;
    memcpy(&a, &want, sizeof a);
    memcpy(&b, &got, sizeof b);
    assert_true(a == b);
}

static bool signaling(uint32_t u)
{
    return (u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0 && !(u & 0x00400000u);
}

static void check_pair(float a, float b)
{
    same_float(libm_fmaxf(a, b), mq_fmaxf(a, b));
    same_float(libm_fminf(a, b), mq_fminf(a, b));
    same_double(libm_fmax(a, b), mq_fmax(a, b));
    same_double(libm_fmin(a, b), mq_fmin(a, b));
}

static const float specials[] = {0.0f, -0.0f,        1.0f,          -1.0f,   INFINITY, -INFINITY, NAN,
                                 -NAN, FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN, FLT_MAX,  -FLT_MAX,  0.5f};

static void special_pairs_equal_libm(void **state)
{
    (void)state;
    size_t n = sizeof specials / sizeof specials[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            check_pair(specials[i], specials[j]);
    same_double(libm_fmax(-0.0, 0.0), mq_fmax(-0.0, 0.0));
    same_double(libm_fmin(0.0, -0.0), mq_fmin(0.0, -0.0));
    same_double(libm_fmax(DBL_MAX, NAN), mq_fmax(DBL_MAX, NAN));
    same_double(libm_fmin(NAN, -DBL_TRUE_MIN), mq_fmin(NAN, -DBL_TRUE_MIN));
}

static void random_bits_equal_libm(void **state)
{
    (void)state;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < 200000; k++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        uint32_t ua = (uint32_t)s, ub = (uint32_t)(s >> 32);
        if (k % 4 == 0)
            ub = ua ^ 0x80000000u; /* the same magnitude, the other sign */
        if (signaling(ua) || signaling(ub))
            continue;
        float a, b;
        memcpy(&a, &ua, sizeof a);
        memcpy(&b, &ub, sizeof b);
        check_pair(a, b);
        check_pair(b, a);
        double da = (double)a * 1e300, db = (double)b * 1e-300; /* beyond the float range */
        same_double(libm_fmax(da, db), mq_fmax(da, db));
        same_double(libm_fmin(da, db), mq_fmin(da, db));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(special_pairs_equal_libm),
        cmocka_unit_test(random_bits_equal_libm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
