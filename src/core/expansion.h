/*
 * Exact arithmetic by floating-point expansions (Shewchuk, "Adaptive
 * Precision Floating-Point Arithmetic and Fast Robust Geometric Predicates",
 * 1997): a value is kept as a sum of doubles, ordered by increasing magnitude
 * and non-overlapping, so that its sign is the sign of its last (largest)
 * component. Sums and products of doubles are split into their rounded value
 * and its exact error (two_sum; two_product by fma), so nothing is lost as
 * long as no exact intermediate value underflows or overflows. The exact
 * orientation predicates (orient2d.h, orient3d.h) are built from these.
 */
#ifndef MQ_CORE_EXPANSION_H
#define MQ_CORE_EXPANSION_H

#include <float.h>
#include <math.h>
#include <stddef.h>

/* two_sum and the predicates' filter bounds need every double operation
 * rounded to double, not to x87 extended precision (where they would silently
 * lose exactness); the build also turns contraction off (-ffp-contract=off). */
#if !defined(FLT_EVAL_METHOD) || (FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != 1)
#error "exact predicates need FLT_EVAL_METHOD 0 or 1 (on 32-bit x86: -msse2 -mfpmath=sse)"
#endif

/* a + b == *x + *y exactly (Knuth's TwoSum). */
static inline void mq_two_sum(double a, double b, double *x, double *y)
{
    double s = a + b;
    double bv = s - a;
    double av = s - bv;
    *x = s;
    *y = (a - av) + (b - bv);
}

/* As mq_two_sum, for |a| >= |b| (or a == 0). */
static inline void mq_fast_two_sum(double a, double b, double *x, double *y)
{
    double s = a + b;
    *x = s;
    *y = b - (s - a);
}

/* a * b == *x + *y exactly. */
static inline void mq_two_product(double a, double b, double *x, double *y)
{
    double p = a * b;
    *x = p;
    *y = fma(a, b, -p);
}

/* h = e + f (GROW-EXPANSION, one component of f at a time, zero components
 * dropped). h has room for elen + flen and may not alias e or f. Returns h's
 * length. */
size_t mq_expansion_sum(size_t elen, const double *e, size_t flen, const double *f, double *h);

/* h = e * b (SCALE-EXPANSION, zeros dropped). h has room for 2 elen. Returns
 * h's length. */
size_t mq_expansion_scale(size_t elen, const double *e, double b, double *h);

/* w x - y z, exactly: at most 4 components in h. */
size_t mq_product_difference(double w, double x, double y, double z, double *h);

/* The sign (-1, 0, +1) of an expansion of n components. */
static inline int mq_expansion_sign(size_t n, const double *e)
{
    return n == 0 ? 0 : e[n - 1] > 0.0 ? 1 : e[n - 1] < 0.0 ? -1 : 0;
}

#endif
