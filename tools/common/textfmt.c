#include "textfmt.h"

#include <float.h>
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

/* llrint(s) for 0 <= s < 2^52 without a call into libm: adding 2^52 leaves no bits for a
 * fraction, so the addition rounds s to an integer, to nearest, ties to even, and the
 * integer is then the low 52 bits of the sum. Exact only where doubles are evaluated as
 * doubles (FLT_EVAL_METHOD 0: SSE, AArch64); elsewhere llrint. */
static inline uint64_t round_to_integer(double s)
{
#if FLT_EVAL_METHOD == 0
    double sum = s + 4503599627370496.0;
    uint64_t bits;
    memcpy(&bits, &sum, sizeof bits);
    return bits & ((UINT64_C(1) << 52) - 1);
#else
    return (uint64_t)llrint(s);
#endif
}

/* The nine-digit decimal significand m (1e8 <= m < 1e9) and exponent e of d > 0:
 * d ~= m * 10^(e-8). The estimated exponent is often one too small, depending on the
 * value (no branch predictor guesses which), so both roundings are computed side by side
 * and one picked without a branch; one too large is rare (a d just above a power of ten). */
static inline uint32_t decimal_digits(double d, int *e_out)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    int b2 = (int)((bits >> 52) & 0x7FF) - 1023; /* d >= 2^b2 (floats are normal doubles) */
    int e = (b2 * 78913) >> 18;                  /* floor(b2 * log10(2)) for |b2| < 2^10 */
    double s = scale_pow10(d, 8 - e);
    uint64_t m_here = round_to_integer(s); /* ties to even, as printf rounds */
    uint64_t m_up = round_to_integer(scale_pow10(d, 7 - e));
    uint64_t up = s >= 1e9;
    uint64_t m = m_here ^ ((m_here ^ m_up) & (0 - up)); /* up ? m_up : m_here, as a mask: not a branch */
    e += (int)up;
    if (s < 1e8) {
        e--;
        m = round_to_integer(scale_pow10(d, 8 - e));
    }
    if (m >= 1000000000u) { /* rounded up to the next power of ten */
        m /= 10;
        e++;
    }
    *e_out = e;
    return (uint32_t)m;
}

/* Stores the eight bytes of v so that its least significant byte comes first. */
static inline void store_le64(char *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

/*
 * The eight decimal digits of v < 10^8 as the bytes of a word, the most
 * significant digit in the lowest byte, each 0..9: two divisions by 10000
 * and then the halves split in parallel, 32-bit and then 16-bit lanes, with
 * multiply-shifts that are exact in these ranges (x*10486>>20 == x/100 for
 * x < 10^4, x*103>>10 == x/10 for x < 100). One dependent chain of five
 * multiplications instead of eight divisions.
 */
static inline uint64_t digits8(uint32_t v)
{
    uint64_t x = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
    uint64_t q = (x * 10486 >> 20) & 0x0000007F0000007Full;
    x = q | (x - q * 100) << 16;
    q = (x * 103 >> 10) & 0x000F000F000F000Full;
    return q | (x - q * 10) << 8;
}

#define ASCII_ZEROS 0x3030303030303030ull

/* mqt_fmt_u64 that may write up to MQT_WIDE_CHARS chars. */
static size_t fmt_u64_wide(char *out, uint64_t v)
{
    if (v >= 100000000u) { /* the digits above the last eight first */
        size_t n = fmt_u64_wide(out, v / 100000000u);
        store_le64(out + n, digits8((uint32_t)(v % 100000000u)) | ASCII_ZEROS);
        return n + 8;
    }
    uint64_t d = digits8((uint32_t)v);
    int lead = d ? __builtin_ctzll(d) / 8 : 7; /* leading zero digits, keeping one for v == 0 */
    store_le64(out, (d | ASCII_ZEROS) >> (8 * lead));
    return (size_t)(8 - lead);
}

size_t mqt_fmt_u64(char *out, uint64_t v)
{
    char wide[MQT_WIDE_CHARS];
    size_t n = fmt_u64_wide(wide, v);
    memcpy(out, wide, n);
    return n;
}

static const char two_digits[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

/*
 * The digits of 10^8 <= m < 10^9: the first, and the other eight returned as ASCII bytes
 * (the second digit lowest). m / 10^8 becomes a binary fraction with 57 bits, from which
 * each multiplication by 100 lifts the next two digits: four short dependent steps (the
 * table lookups beside them), not the eight divisions of the obvious loop. The constant is
 * 2^57 / 10^8 rounded up; the excess, m * 1.7e-18 < 1.7e-9, stays below the last digit's
 * weight through all four steps, so every digit is exact (checked for all 9e8 m, against
 * printf, when this was written).
 */
static inline uint64_t nine_digits(uint32_t m, char *first)
{
    const uint64_t fraction = (UINT64_C(1) << 57) - 1;
    uint64_t y = (uint64_t)m * UINT64_C(1441151881);
    *first = (char)('0' + (y >> 57));
    uint64_t text = 0;
    for (int i = 0; i < 4; i++) {
        y = (y & fraction) * 100;
        const char *pair = two_digits + 2 * (y >> 57);
        text |= ((uint64_t)(unsigned char)pair[0] | (uint64_t)(unsigned char)pair[1] << 8) << (16 * i);
    }
    return text;
}

/* A float taken apart for printing: its nine digits, trailing zeros counted off, and
 * its decimal exponent; or what else it is. */
typedef struct decimal {
    uint64_t rest; /* digits 2..9, as ASCII bytes, digit 2 lowest */
    char first;    /* digit 1 */
    bool negative; /* the sign bit (of zeros and infinities too) */
    int8_t kind;   /* FINITE_NONZERO, ZERO, INFINITE, NOT_A_NUMBER */
    int8_t e;      /* decimal exponent: x ~= first.rest * 10^e */
    int8_t nd;     /* significant digits, 1..9 */
} decimal;

enum { FINITE_NONZERO, ZERO, INFINITE, NOT_A_NUMBER };

static inline decimal decode(float x)
{
    decimal dec = {ASCII_ZEROS, '0', signbit(x) != 0, FINITE_NONZERO, 0, 1};
    double d = fabs((double)x);
    if (!(d > 0.0 && d <= DBL_MAX)) {
        dec.kind = isnan(x) ? NOT_A_NUMBER : d == 0.0 ? ZERO : INFINITE;
        return dec;
    }
    int e;
    dec.rest = nine_digits(decimal_digits(d, &e), &dec.first);
    /* Trailing zeros dropped: they are the high bytes of rest (XOR '0' leaves each digit's value). */
    uint64_t values = dec.rest ^ ASCII_ZEROS;
    dec.nd = (int8_t)(values ? 9 - __builtin_clzll(values) / 8 : 1);
    dec.e = (int8_t)e;
    return dec;
}

/* Writes the text of dec at p, as whole words straight from registers (a digit string put
 * together in memory and read back would cost a store-forwarding stall); up to MQT_WIDE_CHARS
 * chars are overwritten. Returns the end of the text. */
static inline char *layout(char *p, const decimal *dec)
{
    static const char special[4][4] = {"", "0", "inf", "nan"};
    if (dec->kind == NOT_A_NUMBER) {
        memcpy(p, "nan", 4);
        return p + 3;
    }
    *p = '-';
    p += dec->negative; /* no branch on a random sign */
    if (dec->kind != FINITE_NONZERO) {
        memcpy(p, special[dec->kind], 4);
        return p + (dec->kind == ZERO ? 1 : 3);
    }
    int e = dec->e, nd = dec->nd;
    uint64_t rest = dec->rest;
    if (e < -4 || e >= 9) { /* d.ddde±XX, as %g does; |e| <= 45 for floats */
        p[0] = dec->first;
        p[1] = '.';
        store_le64(p + 2, rest);
        p += nd > 1 ? nd + 1 : 1;
        int ae = e < 0 ? -e : e;
        p[0] = 'e';
        p[1] = e < 0 ? '-' : '+';
        memcpy(p + 2, two_digits + 2 * ae, 2);
        return p + 4;
    }
    if (e >= 0) { /* ddd.ddd: the nine digits, the point after e + 1, the fraction again after it */
        p[0] = dec->first;
        store_le64(p + 1, rest);
        p[e + 1] = '.';
        store_le64(p + e + 2, e < 8 ? rest >> (8 * e) : 0);
        return p + (nd > e + 1 ? nd + 1 : e + 1);
    }
    /* 0.000ddd: -e-1 zeros after the point */
    memcpy(p, "0.000000", 8);
    p[1 - e] = dec->first;
    store_le64(p + 2 - e, rest);
    return p + 1 - e + nd;
}

size_t mqt_fmt_float(char *out, float x)
{
    char wide[MQT_WIDE_CHARS];
    decimal dec = decode(x);
    size_t n = (size_t)(layout(wide, &dec) - wide);
    memcpy(out, wide, n);
    return n;
}

/* Appends go to data (FILE), mem, or, before mem exists, to data with no room, so the first append
 * allocates (and buf is never NULL). */
static void point_at_memory(mqt_textbuf *b)
{
    b->buf = b->mem ? b->mem : b->data;
    b->cap = b->mem ? b->mem_cap : 0;
    b->len = 0;
}

void mqt_tb_init(mqt_textbuf *b, FILE *out)
{
    b->out = out;
    if (out) {
        b->buf = b->data;
        b->cap = sizeof b->data;
        b->len = 0;
    } else {
        point_at_memory(b);
    }
    b->failed = false;
    b->mem_len = 0;
}

void mqt_tb_free_memory(mqt_textbuf *b)
{
    free(b->mem);
    b->mem = NULL;
    b->mem_len = b->mem_cap = 0;
    if (!b->out)
        point_at_memory(b);
}

bool mqt_tb_flush(mqt_textbuf *b)
{
    if (b->out) {
        if (b->len && !b->failed)
            b->failed = fwrite(b->data, 1, b->len, b->out) != b->len;
        b->len = 0;
    } else if (!b->failed) {
        b->mem_len = b->len; /* the text is already in mem */
    }
    return !b->failed;
}

/* Memory: mem grown (doubling) to hold n more chars. False when out of memory. */
static bool grow_memory(mqt_textbuf *b, size_t n)
{
    size_t cap = b->mem_cap ? b->mem_cap : sizeof b->data;
    while (cap - b->len < n)
        cap *= 2;
    char *grown = realloc(b->mem, cap);
    if (!grown)
        return false;
    b->buf = b->mem = grown;
    b->cap = b->mem_cap = cap;
    return true;
}

/* Makes room for n more chars: flushes to the FILE, or grows the memory. After a failure the text goes
 * to data and is dropped whenever data is full. Afterwards at least min(n, sizeof data) chars are free. */
static void make_room(mqt_textbuf *b, size_t n)
{
    if (b->out) {
        mqt_tb_flush(b);
    } else if (b->failed || !grow_memory(b, n)) {
        b->failed = true;
        b->buf = b->data;
        b->cap = sizeof b->data;
        b->len = 0;
    }
}

/* Room for n more chars (n <= sizeof data). */
static inline char *reserve(mqt_textbuf *b, size_t n)
{
    if (b->cap - b->len < n)
        make_room(b, n);
    return b->buf + b->len;
}

void mqt_tb_mem_slow(mqt_textbuf *b, const char *s, size_t n)
{
    while (n) {
        if (b->cap == b->len)
            make_room(b, n);
        size_t k = n < b->cap - b->len ? n : b->cap - b->len;
        memcpy(b->buf + b->len, s, k);
        b->len += k;
        s += k;
        n -= k;
    }
}

void mqt_tb_str(mqt_textbuf *b, const char *s)
{
    mqt_tb_mem(b, s, strlen(s));
}

char *mqt_tb_room(mqt_textbuf *b, size_t n)
{
    return reserve(b, n);
}

char *mqt_put_float(char *p, float x)
{
    decimal dec = decode(x);
    return layout(p, &dec);
}

char *mqt_put_u64(char *p, uint64_t v)
{
    return p + fmt_u64_wide(p, v);
}

void mqt_tb_float(mqt_textbuf *b, float x)
{
    decimal dec = decode(x);
    mqt_tb_wrote(b, layout(reserve(b, MQT_WIDE_CHARS), &dec));
}

void mqt_tb_u64(mqt_textbuf *b, uint64_t v)
{
    char *p = reserve(b, MQT_WIDE_CHARS);
    b->len += fmt_u64_wide(p, v);
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
