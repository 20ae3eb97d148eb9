/*
 * The 2D orientation predicate of src/core/orient2d.h against the integer
 * oracle (tests/support/int_orient.h): random points below 2^30, and points
 * nearly collinear (c a rounded point of the line ab, then nudged by a unit
 * or not), where the double determinant falls within its error bound and the
 * expansions decide; the same points scaled by 2^-60 and 2^+60 (exact in
 * double) keep their signs. Plus the sign convention, and points on lines of
 * every slope with coordinates whose differences round (the expansion from
 * the coordinates), moved to the next double off the line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/orient2d.h"
#include "int_orient.h"
#include "test_support.h"

static mq_test_rng rng;

/* The predicate at three scales against the oracle, with the turn and swap
 * rules; counts the cases the double filter left to the expansions. */
static void check(const int64_t a[2], const int64_t b[2], const int64_t c[2], int *exact_calls)
{
    int want = mq_test_orient2d_sign(a, b, c);
    static const double scales[3] = {1.0, 0x1p-60, 0x1p60};
    for (int s = 0; s < 3; s++) {
        double pa[2] = {(double)a[0] * scales[s], (double)a[1] * scales[s]};
        double pb[2] = {(double)b[0] * scales[s], (double)b[1] * scales[s]};
        double pc[2] = {(double)c[0] * scales[s], (double)c[1] * scales[s]};
        assert_int_equal(mq_orient2d(pa, pb, pc), want);
        assert_int_equal(mq_orient2d_exact(pa, pb, pc), want);
        assert_int_equal(mq_orient2d(pb, pc, pa), want);
        assert_int_equal(mq_orient2d(pb, pa, pc), -want);
        if (s == 0) {
            double l = (pa[0] - pc[0]) * (pb[1] - pc[1]), r = (pa[1] - pc[1]) * (pb[0] - pc[0]);
            *exact_calls += !(fabs(l - r) > MQ_ORIENT2D_BOUND * (fabs(l) + fabs(r)));
        }
    }
}

static void sign_convention(void **state)
{
    (void)state;
    const double a[2] = {0, 0}, b[2] = {1, 0}, left[2] = {0.5, 1e-300}, right[2] = {0.5, -1e-300}, on[2] = {-7, 0};
    assert_int_equal(mq_orient2d(a, b, left), 1); /* a, b, left counter-clockwise */
    assert_int_equal(mq_orient2d(a, b, right), -1);
    assert_int_equal(mq_orient2d(a, b, on), 0);
    assert_int_equal(mq_orient2d_exact(a, b, left), 1);
    assert_int_equal(mq_orient2d_exact(a, b, right), -1);
    assert_int_equal(mq_orient2d_exact(a, b, on), 0);
}

static void random_general_position(void **state)
{
    (void)state;
    int exact_calls = 0;
    for (int i = 0; i < 20000; i++) {
        int64_t p[3][2];
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 2; k++)
                p[j][k] = mq_test_rng_int(&rng, (int64_t)1 << 29);
        check(p[0], p[1], p[2], &exact_calls);
    }
}

/* c = a + s (b - a) / 8 for b - a a multiple of 8, then nudged by -1..1
 * units (or not, a third of the time): on the line or a unit off it. With a
 * short ab (below 2^12) and c far along its line (up to 2^47 away), a unit's
 * nudge changes the determinant by |b - a|, far below the filter's bound, so
 * the expansions decide nudged points too. */
static void nearly_collinear(void **state)
{
    (void)state;
    int exact_calls = 0, zeros = 0;
    for (int i = 0; i < 50000; i++) {
        bool far = i % 2;
        int64_t r = far ? (int64_t)1 << 29 : 1000, a[2], b[2], c[2];
        int64_t s = mq_test_rng_int(&rng, far ? (int64_t)1 << 38 : 40);
        for (int k = 0; k < 2; k++) {
            a[k] = mq_test_rng_int(&rng, r);
            b[k] = a[k] + 8 * (mq_test_rng_int(&rng, far ? 1 << 12 : r) / 8);
            c[k] = a[k] + s * (b[k] - a[k]) / 8 + (i % 3 == 0 ? 0 : mq_test_rng_int(&rng, 1));
        }
        zeros += mq_test_orient2d_sign(a, b, c) == 0;
        check(a, b, c, &exact_calls);
    }
    print_message("nearly collinear: %d of 50000 decided by expansions, %d collinear\n", exact_calls, zeros);
    assert_true(exact_calls > zeros + 10000);
    assert_true(zeros > 10000);
}

static double rand_unit(void)
{
    return (double)mq_test_rng_int(&rng, (int64_t)1 << 52) / 0x1p52;
}

/* Differences that round: a and b with full-mantissa coordinates in (-1, 1)
 * on the line y = m x (m = +-2^k, |k| <= 2: exact), c on it near 1e-25, then c
 * moved to the next double above or below. The double determinant is far
 * below its bound and c - a is not exact, so the expansion from the
 * coordinates decides: 0 on the line, and off it the side of the move
 * (above the line is to the left of a to b when b lies right of a). */
static void inexact_differences(void **state)
{
    (void)state;
    int decided = 0;
    for (int i = 0; i < 20000; i++) {
        double m = ldexp(mq_test_rng_int(&rng, 1) < 0 ? -1.0 : 1.0, (int)mq_test_rng_int(&rng, 2));
        double a[2], b[2], c[2];
        a[0] = rand_unit();
        b[0] = rand_unit();
        c[0] = rand_unit() * 1e-25;
        a[1] = m * a[0];
        b[1] = m * b[0];
        c[1] = m * c[0];
        if (a[0] == b[0] || c[0] == 0.0)
            continue;
        int up = b[0] > a[0] ? 1 : -1;
        double above[2] = {c[0], nextafter(c[1], INFINITY)}, below[2] = {c[0], nextafter(c[1], -INFINITY)};
        assert_int_equal(mq_orient2d(a, b, c), 0);
        assert_int_equal(mq_orient2d(a, b, above), up);
        assert_int_equal(mq_orient2d(a, b, below), -up);
        assert_int_equal(mq_orient2d(b, a, above), -up);
        decided++;
    }
    assert_true(decided > 19000);
}

int main(void)
{
    mq_test_rng_seed(&rng, mq_test_seed(0x0E1E2D));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sign_convention),
        cmocka_unit_test(random_general_position),
        cmocka_unit_test(nearly_collinear),
        cmocka_unit_test(inexact_differences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
