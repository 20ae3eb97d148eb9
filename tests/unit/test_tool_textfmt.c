/* The tools' fast number formatting (tools/common/textfmt.c): every float reads
 * back exactly, the text has %g's shape, and the buffer writes what it was given. */
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

static float bits_to_float(uint32_t bits)
{
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static void check_round_trip(float x)
{
    char text[MQT_FLOAT_CHARS + 1];
    size_t n = mqt_fmt_float(text, x);
    assert_true(n <= MQT_FLOAT_CHARS);
    text[n] = '\0';
    float back = strtof(text, NULL);
    if (memcmp(&back, &x, sizeof x) != 0)
        fail_msg("%.9g printed as \"%s\" reads back as %.9g", (double)x, text, (double)back);
}

/* Random bit patterns cover every exponent, subnormals included. */
static void test_every_float_reads_back(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, 20261123);
    for (int i = 0; i < 2000000; i++) {
        float x = bits_to_float((uint32_t)mq_test_rng_u64(&rng));
        if (!isnan(x))
            check_round_trip(x);
    }
    const float edges[] = {FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, 1e-45f, 0.1f, 1.0f / 3.0f, 123456789.0f,
                           999999999.0f, 9.99999999e-5f, 1e-4f, 1e9f, 16777217.0f};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        check_round_trip(edges[i]);
}

static void expect(float x, const char *want)
{
    char text[MQT_FLOAT_CHARS + 1];
    text[mqt_fmt_float(text, x)] = '\0';
    assert_string_equal(text, want);
}

/* The same text as printf("%.9g") on ordinary values (it differs, rarely, in the
 * ninth digit of exact decimal ties, where both read back exactly). */
static void test_matches_printf_shape(void **state)
{
    (void)state;
    expect(0.0f, "0");
    expect(-0.0f, "-0");
    expect(1.0f, "1");
    expect(-2.5f, "-2.5");
    expect(0.1f, "0.100000001");
    expect(1e-5f, "9.99999975e-06");
    expect(1e-4f, "9.99999975e-05");
    expect(0.001f, "0.00100000005");
    expect(123456792.0f, "123456792");
    expect(1e9f, "1e+09");
    expect(3e38f, "3.00000001e+38");
    expect(INFINITY, "inf");
    expect(-INFINITY, "-inf");
    expect(NAN, "nan");
    mq_test_rng rng;
    mq_test_rng_seed(&rng, 7);
    int differ = 0;
    for (int i = 0; i < 200000; i++) {
        float x = (float)((mq_test_rng_unit(&rng) - 0.5) * pow(10.0, (double)(i % 20) - 8.0));
        char a[32], b[32];
        a[mqt_fmt_float(a, x)] = '\0';
        snprintf(b, sizeof b, "%.9g", (double)x);
        differ += strcmp(a, b) != 0;
    }
    assert_true(differ <= 20);
}

static void test_buffer_to_memory_and_file(void **state)
{
    (void)state;
    mqt_textbuf *b = calloc(1, sizeof *b);
    assert_non_null(b);
    mqt_tb_init(b, NULL);
    for (int i = 0; i < 100000; i++) { /* several flushes into memory */
        mqt_tb_u64(b, (uint64_t)i);
        mqt_tb_char(b, ' ');
    }
    mqt_tb_json_string(b, "a\"b\\c\n\x01");
    assert_true(mqt_tb_flush(b));
    assert_true(b->mem_len > sizeof b->data);
    assert_memory_equal(b->mem, "0 1 2 3 ", 8);
    const char *tail = "99999 \"a\\\"b\\\\c\\u000a\\u0001\"";
    assert_memory_equal(b->mem + b->mem_len - strlen(tail), tail, strlen(tail));
    mqt_tb_free_memory(b);

    FILE *full = fopen("/dev/full", "w");
    if (full) { /* a failed write is reported, not lost */
        setvbuf(full, NULL, _IONBF, 0);
        mqt_tb_init(b, full);
        mqt_tb_str(b, "hello");
        assert_false(mqt_tb_flush(b));
        fclose(full);
    }
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_float_reads_back),
        cmocka_unit_test(test_matches_printf_shape),
        cmocka_unit_test(test_buffer_to_memory_and_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
