/*
 * One float step up or down, and doubles rounded to the float below or
 * above: what every conservative float bound built from a double needs (the
 * scene's ray bounds and boxes, shapes cut down to a region). Checked
 * against nextafterf in tests/unit/test_float_steps.c.
 */
#ifndef MQ_CORE_FLOAT_STEPS_H
#define MQ_CORE_FLOAT_STEPS_H

#include <stdint.h>

/* The next float below / above a float that is not NaN (nor -inf / +inf):
 * nextafterf's results without the library call (they run several times per
 * instance a ray visits). GCC may compile the selects below into branches;
 * masked forms measured no faster. */
static inline uint32_t mq_float_bits(float f)
{
    union {
        float f;
        uint32_t u;
    } b = {f};
    return b.u;
}

static inline float mq_float_from_bits(uint32_t u)
{
    union {
        uint32_t u;
        float f;
    } b = {u};
    return b.f;
}

/* The bits of the next float above the float of bits b: a negative non-zero
 * one shrinks in magnitude, anything else (+-0 included) grows from its magnitude. */
static inline uint32_t mq_float_next_up_bits(uint32_t b)
{
    uint32_t mag = b & 0x7FFFFFFFu;
    return ((b >> 31) & (mag != 0)) ? b - 1 : mag + 1;
}

static inline float mq_float_next_up(float f)
{
    return mq_float_from_bits(mq_float_next_up_bits(mq_float_bits(f)));
}

/* next_down(f) = -next_up(-f) */
static inline float mq_float_next_down(float f)
{
    return mq_float_from_bits(mq_float_next_up_bits(mq_float_bits(f) ^ 0x80000000u) ^ 0x80000000u);
}

/* The largest float <= x and the smallest float >= x, the infinities
 * counting as floats (beyond FLT_MAX: FLT_MAX and +inf); a NaN comes back
 * as a NaN. */
static inline float mq_float_floor_of(double x)
{
    float f = (float)x;
    return (double)f > x ? mq_float_next_down(f) : f;
}

static inline float mq_float_ceil_of(double x)
{
    float f = (float)x;
    return (double)f < x ? mq_float_next_up(f) : f;
}

#endif
