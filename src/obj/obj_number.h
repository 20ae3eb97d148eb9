/*
 * Number parsing for the OBJ reader: floats (coordinates) and integers (indices).
 *
 * Floats: the fast path accumulates up to 19 significant digits in a uint64 and
 * scales by an exact power of ten — in float when the digits fit 24 bits and the
 * exponent is within +-10 (one rounding: correctly rounded), else in double
 * (Clinger's fast path when exact, else a product with a correctly rounded power
 * of ten: relative error < 2^-50 before the final rounding to float, so the float
 * is within 1 ulp of the correctly rounded one). Everything else — more than 19
 * digits, hexadecimal, inf/nan — goes to mq_obj_parse_float_slow (obj_number.c).
 * No strtod: it depends on the C locale and needs NUL-terminated text.
 */
#ifndef MQ_OBJ_OBJ_NUMBER_H
#define MQ_OBJ_OBJ_NUMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "obj/obj_text.h"

/* Outcome flags of a float parse. */
enum {
    OBJ_NUM_NON_FINITE = 1 /* inf, nan, or finite text beyond the float range */
};

extern const float mq_obj_pow10f[11];  /* 1e0 .. 1e10, exact in float */
extern const double mq_obj_pow10d[23]; /* 1e0 .. 1e22, exact in double */

/* The general conversion: digits `m` (non-zero) times 10^e, to the nearest float
 * within 1 ulp; sets OBJ_NUM_NON_FINITE on overflow. */
float mq_obj_scale_decimal(uint64_t m, int64_t e, int *flags);
/* Parses what the fast path leaves: long mantissas, hexadecimal, inf/nan, and
 * reports malformed text. Returns the end of the number, or NULL when [p...) is
 * not a number. */
const char *mq_obj_parse_float_slow(const char *p, float *out, int *flags);

/*
 * Parses a float at p (decimal syntax of strtod). Returns the end of the number,
 * or NULL when the text there is not a number. Does not check what follows.
 */
static inline const char *obj_parse_float(const char *p, float *out, int *flags)
{
    const char *s = p;
    bool neg = *p == '-';
    p += (*p == '-' || *p == '+');
    uint64_t m = 0;
    const char *q = p;
    while (obj_is_digit(*p))
        m = m * 10u + (uint64_t)(*p++ - '0');
    int64_t digits = p - q, frac = 0;
    if (*p == '.') {
        const char *f = ++p;
        while (obj_is_digit(*p))
            m = m * 10u + (uint64_t)(*p++ - '0');
        frac = p - f;
    }
    /* no digits (inf, nan, ".", "-"), too many for m, or a hexadecimal prefix */
    if (digits + frac == 0 || digits + frac > 19 || ((*p | 0x20) == 'x'))
        return mq_obj_parse_float_slow(s, out, flags);
    int64_t e = -frac;
    if ((*p | 0x20) == 'e') {
        p++;
        bool eneg = *p == '-';
        p += (*p == '-' || *p == '+');
        if (!obj_is_digit(*p))
            return NULL;
        int64_t x = 0;
        while (obj_is_digit(*p)) {
            if (x < 100000)
                x = x * 10 + (*p - '0');
            p++;
        }
        e += eneg ? -x : x;
    }
    float v;
    if (m == 0)
        v = 0.0f;
    else if (m < (1u << 24) && e >= -10 && e <= 10)
        v = e < 0 ? (float)m / mq_obj_pow10f[-e] : (float)m * mq_obj_pow10f[e];
    else if (m < ((uint64_t)1 << 53) && e >= -22 && e <= 22)
        v = (float)(e < 0 ? (double)m / mq_obj_pow10d[-e] : (double)m * mq_obj_pow10d[e]);
    else
        v = mq_obj_scale_decimal(m, e, flags);
    *out = neg ? -v : v;
    return p;
}

/*
 * Parses an OBJ index at p: an optional sign and decimal digits. Returns the end,
 * or NULL when there are no digits. Values beyond +-2^40 are clamped there (any
 * such index is out of range anyway, and the caller says so).
 */
static inline const char *obj_parse_index(const char *p, int64_t *out)
{
    bool neg = *p == '-';
    p += (*p == '-' || *p == '+');
    if (!obj_is_digit(*p))
        return NULL;
    int64_t v = 0;
    while (obj_is_digit(*p)) {
        if (v < ((int64_t)1 << 40))
            v = v * 10 + (*p - '0');
        p++;
    }
    *out = neg ? -v : v;
    return p;
}

#endif
