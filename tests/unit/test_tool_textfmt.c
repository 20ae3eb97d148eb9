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
    const float edges[] = {FLT_MIN,      -FLT_MIN,     FLT_MAX,        -FLT_MAX, 1e-45f, 0.1f,       1.0f / 3.0f,
                           123456789.0f, 999999999.0f, 9.99999999e-5f, 1e-4f,    1e9f,   16777217.0f};
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

static void expect_u64(uint64_t v)
{
    char text[24], want[24];
    text[mqt_fmt_u64(text, v)] = '\0';
    snprintf(want, sizeof want, "%llu", (unsigned long long)v);
    assert_string_equal(text, want);
}

/* Every length, the edges of each eight-digit group, and random values. */
static void test_u64_matches_printf(void **state)
{
    (void)state;
    for (uint64_t v = 0; v < 100000; v++)
        expect_u64(v);
    uint64_t p = 1;
    for (int k = 0; k < 20; k++, p *= 10) {
        expect_u64(p - 1);
        expect_u64(p);
        expect_u64(p + 1);
        expect_u64(p * 9 + 99);
    }
    expect_u64(UINT64_MAX);
    expect_u64(UINT64_MAX - 1);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(31));
    for (int i = 0; i < 1000000; i++) {
        uint64_t v = mq_test_rng_u64(&rng);
        expect_u64(v >> (v & 63)); /* every magnitude */
    }
}

/* mqt_tb_float and mqt_tb_u64 write more than their text (whole words) and rely on the room
 * reserved in the buffer: text written across many flushes must be exactly the formatters'. */
static void test_buffer_appends_exactly(void **state)
{
    (void)state;
    mqt_textbuf *b = calloc(1, sizeof *b);
    assert_non_null(b);
    size_t cap = 1 << 24;
    char *want = malloc(cap);
    assert_non_null(want);
    FILE *f = tmpfile();
    assert_non_null(f);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(5));
    for (int sink = 0; sink < 2; sink++) { /* to a FILE, then to memory */
        mqt_tb_init(b, sink == 0 ? f : NULL);
        size_t n = 0;
        for (int i = 0; i < 300000; i++) {
            uint64_t r = mq_test_rng_u64(&rng);
            float x = bits_to_float((uint32_t)r);
            switch (r >> 62) {
            case 0:
                mqt_tb_float(b, x);
                n += mqt_fmt_float(want + n, x);
                break;
            case 1:
                mqt_tb_u64(b, r >> (r & 63));
                n += mqt_fmt_u64(want + n, r >> (r & 63));
                break;
            case 2:
                MQT_TB_LIT(b, ",\"key\":");
                memcpy(want + n, ",\"key\":", 7);
                n += 7;
                break;
            default:
                mqt_tb_char(b, 'x');
                want[n++] = 'x';
            }
        }
        assert_true(mqt_tb_flush(b));
        const char *got = b->mem;
        char *read_back = NULL;
        if (sink == 0) {
            assert_int_equal(ftell(f), (long)n);
            read_back = malloc(n);
            assert_non_null(read_back);
            rewind(f);
            assert_int_equal(fread(read_back, 1, n, f), n);
            got = read_back;
        } else {
            assert_int_equal(b->mem_len, n);
        }
        assert_memory_equal(got, want, n);
        free(read_back);
    }
    fclose(f);
    mqt_tb_free_memory(b);
    free(want);
    free(b);
}

/* Appends longer than the buffer, empty ones (also before any memory is allocated), reuse. */
static void test_buffer_long_and_empty_appends(void **state)
{
    (void)state;
    mqt_textbuf *b = calloc(1, sizeof *b);
    assert_non_null(b);
    size_t big = 3 * sizeof b->data + 17;
    char *text = malloc(big);
    assert_non_null(text);
    for (size_t i = 0; i < big; i++)
        text[i] = (char)('a' + i % 26);
    for (int round = 0; round < 2; round++) { /* the second reuses the memory */
        mqt_tb_init(b, NULL);
        mqt_tb_mem(b, text, 0);
        mqt_tb_str(b, "");
        assert_true(mqt_tb_flush(b));
        assert_int_equal(b->mem_len, 0);
        mqt_tb_char(b, '<');
        mqt_tb_mem(b, text, big);
        mqt_tb_str(b, ">");
        assert_true(mqt_tb_flush(b));
        assert_int_equal(b->mem_len, big + 2);
        assert_memory_equal(b->mem + 1, text, big);
        assert_int_equal(b->mem[big + 1], '>');
    }
    mqt_tb_free_memory(b);

    FILE *f = tmpfile(); /* to a FILE, in 64 KiB pieces */
    assert_non_null(f);
    mqt_tb_init(b, f);
    mqt_tb_char(b, '<');
    mqt_tb_mem(b, text, big);
    assert_true(mqt_tb_flush(b));
    assert_int_equal(ftell(f), (long)big + 1);
    fclose(f);
    free(text);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_float_reads_back),    cmocka_unit_test(test_matches_printf_shape),
        cmocka_unit_test(test_buffer_to_memory_and_file), cmocka_unit_test(test_u64_matches_printf),
        cmocka_unit_test(test_buffer_appends_exactly),    cmocka_unit_test(test_buffer_long_and_empty_appends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
