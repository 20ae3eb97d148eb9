/*
 * fmaxf, fminf, fmax and fmin, inline: the larger / smaller of two values,
 * the other one when one is NaN, and the second one when they compare equal
 * (so max(-0, +0) = +0). These are exactly the C library's answers on x86-64
 * (glibc's maxss / minss based versions, checked value by value in
 * tests/unit/test_minmax.c), signaling NaNs aside (taken here as the quiet
 * ones arithmetic makes). GCC keeps the library functions as calls
 * through the PLT (their NaN rules are not maxss's), which cost more than the
 * comparison itself in the per-node bounds of every scalar walk.
 */
#ifndef MQ_CORE_MINMAX_H
#define MQ_CORE_MINMAX_H

static inline float mq_fmaxf(float a, float b)
{
    return (a > b || b != b) ? a : b;
}

static inline float mq_fminf(float a, float b)
{
    return (a < b || b != b) ? a : b;
}

static inline double mq_fmax(double a, double b)
{
    return (a > b || b != b) ? a : b;
}

static inline double mq_fmin(double a, double b)
{
    return (a < b || b != b) ? a : b;
}

/* The larger / smaller of two values that are never NaN (checked finite
 * inputs; differences may overflow to +-inf, never to NaN): one comparison,
 * which compiles to maxss / minss and lets loops over node lanes vectorise.
 * On NaN they give the second operand, unlike the functions above. */
static inline float mq_maxf(float a, float b)
{
    return a > b ? a : b;
}

static inline float mq_minf(float a, float b)
{
    return a < b ? a : b;
}

static inline double mq_max(double a, double b)
{
    return a > b ? a : b;
}

static inline double mq_min(double a, double b)
{
    return a < b ? a : b;
}

#endif /* MQ_CORE_MINMAX_H */
