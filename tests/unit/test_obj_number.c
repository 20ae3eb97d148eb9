/* OBJ reader, white box: the float and index parsers against strtof/strtod.
 * Every accepted value must be within 1 ulp of strtof's correctly rounded one,
 * and a token must be accepted exactly when strtod takes all of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/obj_number.h"
#include "test_support.h"

static int64_t ulps(float a, float b)
{
    int32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    int64_t ix = x < 0 ? (int64_t)INT32_MIN - x : x, iy = y < 0 ? (int64_t)INT32_MIN - y : y;
    return ix > iy ? ix - iy : iy - ix;
}

/* Parses `token` (followed by '\n', as in a file) and compares with strtof.
 * Returns the ulp distance (0 when equal or both NaN); fails on disagreement. */
static int64_t compare(const char *token)
{
    char buf[512];
    size_t n = strlen(token);
    assert_true(n + 2 < sizeof buf);
    memcpy(buf, token, n);
    buf[n] = '\n';
    buf[n + 1] = '\0';
    float ours = 0;
    int flags = 0;
    const char *end = obj_parse_float(buf, &ours, &flags);
    bool ours_whole = end == buf + n;

    char *send;
    float ref = strtof(token, &send);
    bool ref_whole = n > 0 && *send == '\0';
    if (ours_whole != ref_whole)
        fail_msg("'%s': strtof %s it, the OBJ parser %s it", token, ref_whole ? "takes" : "rejects",
                 ours_whole ? "takes" : "rejects");
    if (!ref_whole)
        return 0;
    if (isnan(ref)) {
        if (!isnan(ours) || !(flags & OBJ_NUM_NON_FINITE))
            fail_msg("'%s': expected NaN", token);
        return 0;
    }
    if (isinf(ref) && fabsf(ours) == FLT_MAX && fabs(strtod(token, NULL)) == 0x1.ffffffp127)
        return 1; /* the exact tie above FLT_MAX: documented to stay finite */
    if (isinf(ref) != isinf(ours) || (isinf(ref) && !(flags & OBJ_NUM_NON_FINITE)))
        fail_msg("'%s': strtof gives %g, the OBJ parser %g (flags %d)", token, ref, ours, flags);
    if (isinf(ref))
        return ours == ref ? 0 : 99;
    int64_t d = ulps(ours, ref);
    if (d > 1)
        fail_msg("'%s': strtof gives %.9g, the OBJ parser %.9g (%lld ulp)", token, ref, ours, (long long)d);
    if (flags)
        fail_msg("'%s': flagged although finite", token);
    return d;
}

static void hand_picked_values(void **state)
{
    (void)state;
    static const char *tokens[] = {
        "0",
        "-0",
        "+0",
        "1",
        "-1",
        "+1",
        "1.",
        ".5",
        "-.5",
        "+2.",
        "1e3",
        "1E3",
        "1e+3",
        "1e-3",
        "1.5e-3",
        "0.1",
        "0.2",
        "0.3",
        "3.14159265358979323846",
        "2.718281828459045",
        "123456789",
        "16777216",
        "16777217",
        "16777219",
        "0.000001",
        "1e-7",
        "1e-38",
        "1.17549435e-38",
        "1.1754942e-38",
        "1.4e-45",
        "7e-46",
        "8e-46",
        "1e-46",
        "3.4028234e38",
        "3.40282347e38",
        "3.4028235e38",
        "3.4028236e38",
        "1e38",
        "1e39",
        "-1e39",
        "1e-39",
        "9999999999999999999",
        "99999999999999999999",
        "0.00000000000000000000000000001",
        "1e400",
        "1e-400",
        "00000000000000000000000001",
        "-0.0e0",
        "0x1p0",
        "0x1.8p1",
        "-0X10",
        "0x.8",
        "0x1p-149",
        "0x1p-150",
        "0x1.fffffep127",
        "0x1p128",
        "0xABCDEFp-10",
        "0x123456789abcdef0123p0",
        "0x0.0000000000000000001p0",
        "0x1",
        "inf",
        "INF",
        "-inf",
        "Infinity",
        "-INFINITY",
        "nan",
        "NaN",
        "-nan",
        "nan()",
        "nan(123)",
        "nan(abc_1)",
        "1.0000000596046447753906250",
        "1.00000005960464477539062501",
        "0.99999997019767761230468750",
        "4.9406564584124654e-324",
        "340282356779733661637539395458142568448",
        "340282356779733661637539395458142568447",
        "1000000000000000000000000000000000000000",
    };
    for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++)
        compare(tokens[i]);
}

static void rejected_like_strtod(void **state)
{
    (void)state;
    static const char *tokens[] = {
        "",          "-",   "+",    ".",        "-.",    "e5",  ".e5", "1e",     "1e+",    "1e-",   "1.5e",
        "--1",       "+-1", "1..2", "1.2.3",    "1e5.5", "0x",  "0xg", "0x1p",   "0x1p+",  "in",    "infinit",
        "infinityy", "na",  "nan(", "nan(a-b)", "1f",    "1,5", "1_0", "3.1+e2", "3.1-e2", "1e2e3", "x1"};
    for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++)
        compare(tokens[i]);
}

/* Random decimal numbers in every shape exporters write (and then some). */
static void random_decimals_within_one_ulp(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(7));
    int64_t inexact = 0, total = 200000;
    for (int64_t i = 0; i < total; i++) {
        char tok[128];
        size_t n = 0;
        uint64_t r = mq_test_rng_u64(&rng);
        if (r & 1)
            tok[n++] = (r & 2) ? '-' : '+';
        int digits = 1 + (int)((r >> 2) % ((r >> 40) % 4 == 0 ? 30 : 9));
        int point = (int)((r >> 8) % (unsigned)(digits + 2)) - 1; /* -1: no point */
        for (int d = 0; d < digits; d++) {
            if (d == point)
                tok[n++] = '.';
            tok[n++] = (char)('0' + mq_test_rng_u64(&rng) % 10);
        }
        if (point == digits)
            tok[n++] = '.';
        if ((r >> 16) % 3 == 0)
            n += (size_t)sprintf(tok + n, "e%d", (int)((r >> 20) % 101) - 50);
        tok[n] = '\0';
        inexact += compare(tok) != 0;
    }
    /* correctly rounded nearly always: the 1-ulp slack is for rare double-rounding ties */
    assert_true(inexact * 10000 < total);
}

static void random_floats_round_trip_exactly(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(11));
    for (int i = 0; i < 100000; i++) {
        uint32_t bits = (uint32_t)mq_test_rng_u64(&rng);
        float f;
        memcpy(&f, &bits, 4);
        if (!isfinite(f))
            continue;
        char tok[64];
        snprintf(tok, sizeof tok, (i & 1) ? "%.9g" : "%.6f", (double)f); /* shortest exact and typical OBJ */
        if (compare(tok) != 0)
            fail_msg("'%s' is not correctly rounded", tok);
    }
}

static void random_hex_within_one_ulp(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(13));
    for (int i = 0; i < 20000; i++) {
        char tok[64];
        uint64_t r = mq_test_rng_u64(&rng);
        snprintf(tok, sizeof tok, "%s0x%llx.%llxp%d", (r & 1) ? "-" : "", (unsigned long long)(r >> 40),
                 (unsigned long long)((r >> 8) & 0xFFFFF), (int)((r >> 28) % 300) - 150);
        compare(tok);
    }
}

/* Tokens made of the characters numbers are made of, in random order. */
static void random_junk_accepted_exactly_when_strtod_takes_it(void **state)
{
    (void)state;
    static const char alphabet[] = "0123456789.eE+-xXpPinfatyINFAN()_";
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(17));
    for (int i = 0; i < 300000; i++) {
        char tok[16];
        size_t n = 1 + mq_test_rng_u64(&rng) % 10;
        for (size_t k = 0; k < n; k++)
            tok[k] = alphabet[mq_test_rng_u64(&rng) % (sizeof alphabet - 1)];
        tok[n] = '\0';
        compare(tok);
    }
}

static void indices(void **state)
{
    (void)state;
    int64_t v;
    assert_non_null(obj_parse_index("12 ", &v));
    assert_int_equal(v, 12);
    assert_non_null(obj_parse_index("-3/", &v));
    assert_int_equal(v, -3);
    assert_non_null(obj_parse_index("+7\n", &v));
    assert_int_equal(v, 7);
    const char *big = "123456789012345678901234567890\n";
    assert_ptr_equal(obj_parse_index(big, &v), big + 30);
    assert_true(v >= ((int64_t)1 << 40)); /* clamped, still out of any range */
    assert_null(obj_parse_index("-\n", &v));
    assert_null(obj_parse_index("/1\n", &v));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_picked_values),
        cmocka_unit_test(rejected_like_strtod),
        cmocka_unit_test(random_decimals_within_one_ulp),
        cmocka_unit_test(random_floats_round_trip_exactly),
        cmocka_unit_test(random_hex_within_one_ulp),
        cmocka_unit_test(random_junk_accepted_exactly_when_strtod_takes_it),
        cmocka_unit_test(indices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
