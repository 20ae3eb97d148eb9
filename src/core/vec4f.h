/*
 * Four floats in one register where the ISA allows (SSE2 on x86-64), a plain
 * struct otherwise (MQ_FORCE_SCALAR, other architectures). The builder uses it
 * for box growth and binning; lane 3 is padding and carries garbage.
 *
 * min/max follow the SSE rule — the SECOND operand is returned when either is
 * NaN — in both variants, so the scalar build computes the same bits.
 */
#ifndef MQ_CORE_VEC4F_H
#define MQ_CORE_VEC4F_H

#include <stdint.h>

#if (defined(__x86_64__) || defined(_M_X64)) && !defined(MQ_FORCE_SCALAR)
#define MQ_VEC4F_SSE 1
#include <emmintrin.h>

typedef __m128 mq_f4;

static inline mq_f4 mq_f4_load(const float *p)
{
    return _mm_loadu_ps(p);
}
static inline void mq_f4_store(float *p, mq_f4 a)
{
    _mm_storeu_ps(p, a);
}
static inline mq_f4 mq_f4_splat(float x)
{
    return _mm_set1_ps(x);
}
static inline mq_f4 mq_f4_set(float x, float y, float z, float w)
{
    return _mm_setr_ps(x, y, z, w);
}
static inline mq_f4 mq_f4_add(mq_f4 a, mq_f4 b)
{
    return _mm_add_ps(a, b);
}
static inline mq_f4 mq_f4_sub(mq_f4 a, mq_f4 b)
{
    return _mm_sub_ps(a, b);
}
static inline mq_f4 mq_f4_mul(mq_f4 a, mq_f4 b)
{
    return _mm_mul_ps(a, b);
}
static inline mq_f4 mq_f4_div(mq_f4 a, mq_f4 b)
{
    return _mm_div_ps(a, b);
}
static inline mq_f4 mq_f4_min(mq_f4 a, mq_f4 b)
{
    return _mm_min_ps(a, b);
}
static inline mq_f4 mq_f4_max(mq_f4 a, mq_f4 b)
{
    return _mm_max_ps(a, b);
}
/* Truncating conversion of lanes 0..2 (in range: the caller clamps first). */
static inline void mq_f4_to_int3(mq_f4 a, int32_t out[4])
{
    _mm_storeu_si128((__m128i *)out, _mm_cvttps_epi32(a));
}
static inline float mq_f4_lane(mq_f4 a, int i)
{
    float t[4];
    _mm_storeu_ps(t, a);
    return t[i];
}
/* Rows to columns: lane j of a, b, c, d becomes lanes 0..3 of the j-th. */
static inline void mq_f4_transpose(mq_f4 *a, mq_f4 *b, mq_f4 *c, mq_f4 *d)
{
    _MM_TRANSPOSE4_PS(*a, *b, *c, *d);
}
/* The lanes of x where a >= 0, +0 where a < 0 or NaN. */
static inline mq_f4 mq_f4_zero_unless_nonneg(mq_f4 x, mq_f4 a)
{
    return _mm_and_ps(x, _mm_cmpge_ps(a, _mm_setzero_ps()));
}

#else

typedef struct mq_f4 {
    float v[4];
} mq_f4;

static inline mq_f4 mq_f4_load(const float *p)
{
    return (mq_f4){{p[0], p[1], p[2], p[3]}};
}
static inline void mq_f4_store(float *p, mq_f4 a)
{
    p[0] = a.v[0];
    p[1] = a.v[1];
    p[2] = a.v[2];
    p[3] = a.v[3];
}
static inline mq_f4 mq_f4_splat(float x)
{
    return (mq_f4){{x, x, x, x}};
}
static inline mq_f4 mq_f4_set(float x, float y, float z, float w)
{
    return (mq_f4){{x, y, z, w}};
}
#define MQ_F4_LANEWISE(name, expr)                                                                                     \
    static inline mq_f4 name(mq_f4 a, mq_f4 b)                                                                         \
    {                                                                                                                  \
        mq_f4 r;                                                                                                       \
        for (int i = 0; i < 4; i++) {                                                                                  \
            float x = a.v[i], y = b.v[i];                                                                              \
            r.v[i] = (expr);                                                                                           \
        }                                                                                                              \
        return r;                                                                                                      \
    }
MQ_F4_LANEWISE(mq_f4_add, x + y)
MQ_F4_LANEWISE(mq_f4_sub, x - y)
MQ_F4_LANEWISE(mq_f4_mul, x *y)
MQ_F4_LANEWISE(mq_f4_div, x / y)
MQ_F4_LANEWISE(mq_f4_min, x < y ? x : y)
MQ_F4_LANEWISE(mq_f4_max, x > y ? x : y)
#undef MQ_F4_LANEWISE
static inline void mq_f4_to_int3(mq_f4 a, int32_t out[4])
{
    for (int i = 0; i < 4; i++)
        out[i] = (a.v[i] > -2147483648.0f && a.v[i] < 2147483648.0f) ? (int32_t)a.v[i] : INT32_MIN;
}
static inline float mq_f4_lane(mq_f4 a, int i)
{
    return a.v[i];
}
static inline void mq_f4_transpose(mq_f4 *a, mq_f4 *b, mq_f4 *c, mq_f4 *d)
{
    mq_f4 *r[4] = {a, b, c, d};
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) {
            float t = r[i]->v[j];
            r[i]->v[j] = r[j]->v[i];
            r[j]->v[i] = t;
        }
}
static inline mq_f4 mq_f4_zero_unless_nonneg(mq_f4 x, mq_f4 a)
{
    for (int i = 0; i < 4; i++)
        x.v[i] = a.v[i] >= 0.0f ? x.v[i] : 0.0f;
    return x;
}

#endif

#endif
