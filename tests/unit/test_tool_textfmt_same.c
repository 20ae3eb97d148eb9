/* tools/common/textfmt.c's float formatter prints, byte for byte, what it printed before it
 * was made faster (two-digit splitting, no libm call, no data-dependent branches): mq-pick's
 * JSON and CSV output must not change. The formatter as it was (commit 14600c2) is kept
 * below as the reference; every float is compared in the ranges where the two could differ
 * (around each power of ten, subnormals, the ends of the range, the specials) and on random
 * bit patterns (MQ_TEXTFMT_FLOATS of them, default 3,000,000; seed from MQ_TEST_SEED). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"
#include "textfmt.h"

/* ---- the reference: mqt_fmt_float and mqt_fmt_u64 as of commit 14600c2 ---- */

static double ref_pow10(int k)
{
    static double table[129];
    static int ready;
    if (!ready) { /* strtod of "1e<k>": the double nearest 10^k, as the compiler rounded the old table */
        for (int i = 0; i < 129; i++) {
            char text[8];
            snprintf(text, sizeof text, "1e%d", i - 64);
            table[i] = strtod(text, NULL);
        }
        ready = 1;
    }
    return table[k + 64];
}

static size_t ref_fmt_u64(char *out, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

static uint32_t ref_decimal_digits(double d, int *e_out)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    int b2 = (int)((bits >> 52) & 0x7FF) - 1023;
    int e = (b2 * 78913) >> 18;
    double s = d * ref_pow10(8 - e);
    if (s < 1e8) {
        e--;
        s = d * ref_pow10(8 - e);
    } else if (s >= 1e9) {
        e++;
        s = d * ref_pow10(8 - e);
    }
    uint64_t m = (uint64_t)llrint(s);
    if (m >= 1000000000u) {
        m /= 10;
        e++;
    }
    *e_out = e;
    return (uint32_t)m;
}

static size_t ref_fmt_float(char *out, float x)
{
    char *p = out;
    if (isnan(x)) {
        memcpy(p, "nan", 3);
        return 3;
    }
    if (signbit(x))
        *p++ = '-';
    double d = fabs((double)x);
    if (isinf(d)) {
        memcpy(p, "inf", 3);
        return (size_t)(p - out) + 3;
    }
    if (d == 0.0) {
        *p++ = '0';
        return (size_t)(p - out);
    }
    int e;
    uint32_t m = ref_decimal_digits(d, &e);
    char dig[9];
    for (int i = 8; i >= 0; i--) {
        dig[i] = (char)('0' + m % 10);
        m /= 10;
    }
    int nd = 9;
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    if (e < -4 || e >= 9) {
        *p++ = dig[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, dig + 1, (size_t)nd - 1);
            p += nd - 1;
        }
        *p++ = 'e';
        *p++ = e < 0 ? '-' : '+';
        int ae = e < 0 ? -e : e;
        if (ae < 10)
            *p++ = '0';
        p += ref_fmt_u64(p, (uint64_t)ae);
    } else if (e >= 0) {
        memcpy(p, dig, (size_t)e + 1);
        p += e + 1;
        if (nd > e + 1) {
            *p++ = '.';
            memcpy(p, dig + e + 1, (size_t)(nd - e - 1));
            p += nd - e - 1;
        }
    } else {
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < -e - 1; i++)
            *p++ = '0';
        memcpy(p, dig, (size_t)nd);
        p += nd;
    }
    return (size_t)(p - out);
}

/* ---- the comparison ---- */

/* Floats are compared in batches: each alone (mqt_fmt_float) and all appended to one buffer
 * (mqt_tb_float, which writes whole words past the text into the reserved room). */
typedef struct batch {
    mqt_textbuf *text;
    char *want;
    size_t want_len, count;
    uint64_t compared;
} batch;

#define BATCH_FLOATS 65536

static void batch_check(batch *b)
{
    assert_true(mqt_tb_flush(b->text));
    if (b->text->mem_len != b->want_len || memcmp(b->text->mem, b->want, b->want_len) != 0)
        fail_msg("mqt_tb_float text differs from the reference in a batch of %zu floats", b->count);
    b->compared += b->count;
    mqt_tb_init(b->text, NULL);
    b->want_len = b->count = 0;
}

static void compare(batch *b, uint32_t bits)
{
    float x;
    memcpy(&x, &bits, sizeof x);
    char want[MQT_FLOAT_CHARS + 16], got[MQT_FLOAT_CHARS + 16];
    size_t nw = ref_fmt_float(want, x);
    memset(got, '#', sizeof got);
    size_t ng = mqt_fmt_float(got, x);
    if (ng != nw || memcmp(got, want, nw) != 0 || got[ng] != '#') {
        want[nw] = '\0';
        got[ng < sizeof got ? ng : 0] = '\0';
        fail_msg("float 0x%08x: \"%s\", the reference prints \"%s\"", (unsigned)bits, got, want);
    }
    mqt_tb_float(b->text, x);
    memcpy(b->want + b->want_len, want, nw);
    b->want_len += nw;
    if (++b->count == BATCH_FLOATS)
        batch_check(b);
}

/* The floats from bits - radius to bits + radius (same sign), clamped to the sign's range. */
static void compare_around(batch *b, uint32_t bits, uint32_t radius)
{
    uint32_t sign = bits & 0x80000000u, mag = bits & 0x7FFFFFFFu;
    uint32_t lo = mag > radius ? mag - radius : 0;
    uint32_t hi = mag + radius < 0x7FFFFFFFu ? mag + radius : 0x7FFFFFFFu;
    for (uint32_t m = lo; m <= hi; m++)
        compare(b, sign | m);
}

static uint32_t float_bits(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

static void batch_init(batch *b)
{
    b->text = calloc(1, sizeof *b->text);
    b->want = malloc(BATCH_FLOATS * MQT_FLOAT_CHARS);
    assert_true(b->text && b->want);
    mqt_tb_init(b->text, NULL);
    b->want_len = b->count = 0;
    b->compared = 0;
}

static void batch_free(batch *b)
{
    batch_check(b);
    mqt_tb_free_memory(b->text);
    free(b->text);
    free(b->want);
}

/* Where the decimal exponent changes, the nine-digit rounding carries into a tenth digit,
 * and the notation switches (1e-5, 1e9): every float within 40,000 ulps of each power of ten
 * (and of 9.99999999 times it), of both signs. */
static void test_same_around_powers_of_ten(void **state)
{
    (void)state;
    batch b;
    batch_init(&b);
    for (int k = -45; k <= 38; k++) {
        char text[16];
        snprintf(text, sizeof text, "1e%d", k);
        float p = strtof(text, NULL);
        snprintf(text, sizeof text, "9.99999999e%d", k);
        float q = strtof(text, NULL);
        compare_around(&b, float_bits(p), 20000);
        compare_around(&b, float_bits(-p), 2000);
        compare_around(&b, float_bits(q), 20000);
    }
    batch_free(&b);
    assert_true(b.compared > 3000000);
}

/* Subnormals, the normal range's ends, zeros, infinities, NaNs of every kind. */
static void test_same_at_the_edges(void **state)
{
    (void)state;
    batch b;
    batch_init(&b);
    compare_around(&b, 0x00000000u, 300000); /* zero and the smallest subnormals */
    compare_around(&b, 0x80000000u, 100000); /* -0 and negative subnormals */
    compare_around(&b, 0x00800000u, 300000); /* FLT_MIN: subnormal to normal */
    compare_around(&b, 0x7F7FFFFFu, 300000); /* FLT_MAX, +inf, the first NaNs */
    compare_around(&b, 0xFF7FFFFFu, 100000); /* -FLT_MAX, -inf, negative NaNs */
    const uint32_t specials[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu, 0x7FFFFFFFu, 0x3F800000u,
                                 0x3DCCCCCDu, 0x4B800001u, 0x4E6E6B28u, 0x3727C5ACu, 0x38D1B717u};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        compare(&b, specials[i]);
    batch_free(&b);
}

/* Random bit patterns: every exponent, both signs. */
static void test_same_on_random_floats(void **state)
{
    (void)state;
    const char *env = getenv("MQ_TEXTFMT_FLOATS");
    uint64_t count = env ? strtoull(env, NULL, 10) : 3000000;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(20240601));
    batch b;
    batch_init(&b);
    for (uint64_t i = 0; i < count; i++)
        compare(&b, (uint32_t)mq_test_rng_u64(&rng));
    /* and floats as a pick prints them: coordinates, unit normals, barycentrics, t */
    for (uint64_t i = 0; i < count / 3; i++) {
        double u = mq_test_rng_unit(&rng);
        float x = (float)((u - 0.5) * pow(10.0, (double)(i % 7) - 3.0));
        compare(&b, float_bits(x));
    }
    batch_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_around_powers_of_ten),
        cmocka_unit_test(test_same_at_the_edges),
        cmocka_unit_test(test_same_on_random_floats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
