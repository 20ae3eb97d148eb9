#include "textfmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 10^k for -64 <= k <= 64, each the double nearest to it (the compiler rounds
 * the literals correctly): one multiplication by it has a relative error below
 * 2.3e-16, far inside the 1e-9 that nine digits of a float can tolerate. */
static const double pow10_table[129] = {
    1e-64, 1e-63, 1e-62, 1e-61, 1e-60, 1e-59, 1e-58, 1e-57, 1e-56, 1e-55, 1e-54, 1e-53, 1e-52, 1e-51, 1e-50,
    1e-49, 1e-48, 1e-47, 1e-46, 1e-45, 1e-44, 1e-43, 1e-42, 1e-41, 1e-40, 1e-39, 1e-38, 1e-37, 1e-36, 1e-35,
    1e-34, 1e-33, 1e-32, 1e-31, 1e-30, 1e-29, 1e-28, 1e-27, 1e-26, 1e-25, 1e-24, 1e-23, 1e-22, 1e-21, 1e-20,
    1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9,  1e-8,  1e-7,  1e-6,  1e-5,
    1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,   1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,
    1e11,  1e12,  1e13,  1e14,  1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21,  1e22,  1e23,  1e24,  1e25,
    1e26,  1e27,  1e28,  1e29,  1e30,  1e31,  1e32,  1e33,  1e34,  1e35,  1e36,  1e37,  1e38,  1e39,  1e40,
    1e41,  1e42,  1e43,  1e44,  1e45,  1e46,  1e47,  1e48,  1e49,  1e50,  1e51,  1e52,  1e53,  1e54,  1e55,
    1e56,  1e57,  1e58,  1e59,  1e60,  1e61,  1e62,  1e63,  1e64};

static inline double scale_pow10(double d, int k)
{
    return d * pow10_table[k + 64];
}

size_t mqt_fmt_u64(char *out, uint64_t v)
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

/* The nine-digit decimal significand m (1e8 <= m < 1e9) and exponent e of d > 0:
 * d ~= m * 10^(e-8). */
static uint32_t decimal_digits(double d, int *e_out)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    int b2 = (int)((bits >> 52) & 0x7FF) - 1023; /* d >= 2^b2 (floats are normal doubles) */
    int e = (b2 * 78913) >> 18;                  /* floor(b2 * log10(2)) for |b2| < 2^10 */
    double s = scale_pow10(d, 8 - e);
    if (s < 1e8) {
        e--;
        s = scale_pow10(d, 8 - e);
    } else if (s >= 1e9) {
        e++;
        s = scale_pow10(d, 8 - e);
    }
    uint64_t m = (uint64_t)llrint(s); /* ties to even, as printf rounds */
    if (m >= 1000000000u) {           /* rounded up to the next power of ten */
        m /= 10;
        e++;
    }
    *e_out = e;
    return (uint32_t)m;
}

size_t mqt_fmt_float(char *out, float x)
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
    uint32_t m = decimal_digits(d, &e);
    char dig[9];
    for (int i = 8; i >= 0; i--) {
        dig[i] = (char)('0' + m % 10);
        m /= 10;
    }
    int nd = 9;
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;

    if (e < -4 || e >= 9) { /* d.ddde±XX, as %g does */
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
        p += mqt_fmt_u64(p, (uint64_t)ae);
    } else if (e >= 0) { /* ddd.ddd */
        memcpy(p, dig, (size_t)e + 1);
        p += e + 1;
        if (nd > e + 1) {
            *p++ = '.';
            memcpy(p, dig + e + 1, (size_t)(nd - e - 1));
            p += nd - e - 1;
        }
    } else { /* 0.000ddd */
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < -e - 1; i++)
            *p++ = '0';
        memcpy(p, dig, (size_t)nd);
        p += nd;
    }
    return (size_t)(p - out);
}

void mqt_tb_init(mqt_textbuf *b, FILE *out)
{
    b->out = out;
    b->len = 0;
    b->failed = false;
    b->mem_len = 0;
}

void mqt_tb_free_memory(mqt_textbuf *b)
{
    free(b->mem);
    b->mem = NULL;
    b->mem_len = b->mem_cap = 0;
}

/* Appends the buffered text to the memory sink, doubling it when full. */
static bool flush_to_memory(mqt_textbuf *b)
{
    if (b->mem_cap - b->mem_len < b->len) {
        size_t cap = b->mem_cap ? b->mem_cap : sizeof b->data;
        while (cap - b->mem_len < b->len)
            cap *= 2;
        char *grown = realloc(b->mem, cap);
        if (!grown)
            return false;
        b->mem = grown;
        b->mem_cap = cap;
    }
    memcpy(b->mem + b->mem_len, b->data, b->len);
    b->mem_len += b->len;
    return true;
}

bool mqt_tb_flush(mqt_textbuf *b)
{
    if (b->len && !b->failed)
        b->failed = b->out ? fwrite(b->data, 1, b->len, b->out) != b->len : !flush_to_memory(b);
    b->len = 0;
    return !b->failed;
}

/* Makes room for n more chars (n <= 256), flushing when the buffer is nearly full. */
static inline char *reserve(mqt_textbuf *b, size_t n)
{
    if (b->len + n > sizeof b->data)
        mqt_tb_flush(b);
    return b->data + b->len;
}

void mqt_tb_mem(mqt_textbuf *b, const char *s, size_t n)
{
    while (n) {
        size_t room = sizeof b->data - b->len;
        if (room == 0) {
            mqt_tb_flush(b);
            room = sizeof b->data;
        }
        size_t k = n < room ? n : room;
        memcpy(b->data + b->len, s, k);
        b->len += k;
        s += k;
        n -= k;
    }
}

void mqt_tb_str(mqt_textbuf *b, const char *s)
{
    mqt_tb_mem(b, s, strlen(s));
}

void mqt_tb_char(mqt_textbuf *b, char c)
{
    *reserve(b, 1) = c;
    b->len++;
}

void mqt_tb_float(mqt_textbuf *b, float x)
{
    b->len += mqt_fmt_float(reserve(b, MQT_FLOAT_CHARS), x);
}

void mqt_tb_u64(mqt_textbuf *b, uint64_t v)
{
    b->len += mqt_fmt_u64(reserve(b, 20), v);
}

void mqt_tb_json_string(mqt_textbuf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    mqt_tb_char(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char esc[2] = {'\\', (char)*p};
            mqt_tb_mem(b, esc, 2);
        } else if (*p < 0x20) {
            char esc[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15]};
            mqt_tb_mem(b, esc, 6);
        } else {
            mqt_tb_char(b, (char)*p);
        }
    }
    mqt_tb_char(b, '"');
}
