/* The rare paths of float parsing: long mantissas, hexadecimal floats, inf and
 * nan, and the general decimal scaling. See obj_number.h for the error bounds. */
#include <float.h>
#include <math.h>

#include "obj/obj_number.h"

const float mq_obj_pow10f[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

const double mq_obj_pow10d[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* 1e0 .. 1e80, each correctly rounded by the compiler. With m < 2^64 the value
 * is >= 1e61 > FLT_MAX for e > 60 and < 1e-61 for e < -80, so no more is needed. */
static const double pow10_wide[81] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31, 1e32, 1e33,
    1e34, 1e35, 1e36, 1e37, 1e38, 1e39, 1e40, 1e41, 1e42, 1e43, 1e44, 1e45, 1e46, 1e47, 1e48, 1e49, 1e50,
    1e51, 1e52, 1e53, 1e54, 1e55, 1e56, 1e57, 1e58, 1e59, 1e60, 1e61, 1e62, 1e63, 1e64, 1e65, 1e66, 1e67,
    1e68, 1e69, 1e70, 1e71, 1e72, 1e73, 1e74, 1e75, 1e76, 1e77, 1e78, 1e79, 1e80};

/* double -> float, flagging overflow. A double exactly at the midpoint between
 * FLT_MAX and 2^128 stays FLT_MAX: it may be the rounding of a value below that
 * midpoint (within 1 ulp either way; only an exact tie would overflow). */
static float narrow(double d, int *flags)
{
    float f = (float)d;
    if (isinf(f)) {
        if (fabs(d) <= 0x1.ffffffp127)
            return d < 0 ? -FLT_MAX : FLT_MAX;
        *flags |= OBJ_NUM_NON_FINITE;
    }
    return f;
}

float mq_obj_scale_decimal(uint64_t m, int64_t e, int *flags)
{
    if (e > 60) {
        *flags |= OBJ_NUM_NON_FINITE;
        return INFINITY;
    }
    if (e < -80)
        return 0.0f;
    /* three roundings in double (m, the power, the product): < 3 * 2^-53 relative */
    double d = e < 0 ? (double)m / pow10_wide[-e] : (double)m * pow10_wide[e];
    return narrow(d, flags);
}

static bool starts_with_ci(const char *p, const char *word)
{
    for (; *word; p++, word++)
        if ((*p | 0x20) != *word)
            return false;
    return true;
}

/* inf, infinity, nan, nan(chars) — any case, as strtod takes them. */
static const char *parse_special(const char *p, float *out, bool neg, int *flags)
{
    if (starts_with_ci(p, "inf")) {
        p += starts_with_ci(p, "infinity") ? 8 : 3;
        *out = neg ? -INFINITY : INFINITY;
    } else if (starts_with_ci(p, "nan")) {
        p += 3;
        if (*p == '(') {
            const char *q = p + 1;
            while ((obj_class(*q) & OBJ_WORD))
                q++;
            if (*q == ')')
                p = q + 1;
        }
        *out = neg ? -NAN : NAN;
    } else {
        return NULL;
    }
    *flags |= OBJ_NUM_NON_FINITE;
    return p;
}

static int hex_digit(char c)
{
    if (obj_is_digit(c))
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* 0x<hex>[.<hex>][p[+-]<dec>]: the first 15 hex digits (60 bits) are kept, the
 * rest only move the binary exponent (relative error < 2^-56 before rounding). */
static const char *parse_hex(const char *p, float *out, bool neg, int *flags)
{
    uint64_t m = 0;
    int64_t e2 = 0;
    int kept = 0, seen = 0;
    bool dot = false;
    for (;; p++) {
        if (*p == '.' && !dot) {
            dot = true;
            continue;
        }
        int h = hex_digit(*p);
        if (h < 0)
            break;
        seen++;
        if (m == 0 && h == 0) {
            e2 -= dot ? 4 : 0; /* leading zeros after the point scale down */
            continue;
        }
        if (kept < 15) {
            m = m * 16u + (uint64_t)h;
            kept++;
            e2 -= dot ? 4 : 0;
        } else {
            e2 += dot ? 0 : 4;
        }
    }
    if (!seen)
        return NULL;
    if ((*p | 0x20) == 'p') {
        const char *q = p + 1;
        bool eneg = *q == '-';
        q += (*q == '-' || *q == '+');
        if (obj_is_digit(*q)) {
            int64_t x = 0;
            for (; obj_is_digit(*q); q++)
                if (x < 100000)
                    x = x * 10 + (*q - '0');
            e2 += eneg ? -x : x;
            p = q;
        }
    }
    if (e2 > 200)
        e2 = 200; /* beyond any float; keeps ldexp's int argument small */
    if (e2 < -300)
        e2 = -300;
    float f = narrow(ldexp((double)m, (int)e2), flags);
    *out = neg ? -f : f;
    return p;
}

/* Decimal text with more than 19 digits (or leading zeros that push it past
 * the fast path): keep the first 19 significant digits. */
static const char *parse_long_decimal(const char *p, float *out, bool neg, int *flags)
{
    uint64_t m = 0;
    int64_t e = 0;
    int kept = 0, seen = 0;
    for (; obj_is_digit(*p); p++, seen++) {
        if (kept < 19 && (m || *p != '0')) {
            m = m * 10u + (uint64_t)(*p - '0');
            kept++;
        } else if (m) {
            e++;
        }
    }
    if (*p == '.') {
        for (p++; obj_is_digit(*p); p++, seen++) {
            if (kept < 19 && (m || *p != '0')) {
                m = m * 10u + (uint64_t)(*p - '0');
                kept++;
                e--;
            } else if (!m) {
                e--;
            }
        }
    }
    if (!seen)
        return NULL;
    if ((*p | 0x20) == 'e') {
        const char *q = p + 1;
        bool eneg = *q == '-';
        q += (*q == '-' || *q == '+');
        if (!obj_is_digit(*q))
            return NULL;
        int64_t x = 0;
        for (; obj_is_digit(*q); q++)
            if (x < 100000)
                x = x * 10 + (*q - '0');
        e += eneg ? -x : x;
        p = q;
    }
    float f = m ? mq_obj_scale_decimal(m, e, flags) : 0.0f;
    *out = neg ? -f : f;
    return p;
}

const char *mq_obj_parse_float_slow(const char *p, float *out, int *flags)
{
    bool neg = *p == '-';
    p += (*p == '-' || *p == '+');
    if (p[0] == '0' && (p[1] | 0x20) == 'x')
        return parse_hex(p + 2, out, neg, flags);
    if (obj_is_digit(*p) || *p == '.')
        return parse_long_decimal(p, out, neg, flags);
    return parse_special(p, out, neg, flags);
}
