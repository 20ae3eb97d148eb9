/*
 * The orientation predicate of src/core/orient3d.h against an exact integer
 * oracle (tests/support/int_orient.h): points with integer coordinates below 2^32 (differences below 2^33,
 * the determinant below 2^103, exact in __int128). Nearly coplanar quadruples
 * (d a rounded combination of the other three, then nudged by a few units)
 * put the double determinant within its error bound, so the expansion path
 * decides most of them; the same points scaled by 2^-60 and 2^+60 (exact in
 * double) must keep their signs. Plus the sign convention, and points exactly
 * on planes of every slope and one double off them, with differences exact
 * (the 3x3 expansion form) and rounded (the 4x4 form).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/orient3d.h"

#include "int_orient.h"
#include "test_support.h"

static mq_test_rng rng;

static void to_double(const int64_t p[3], double scale, double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = (double)p[k] * scale;
}

static void check(const int64_t a[3], const int64_t b[3], const int64_t c[3], const int64_t d[3], int *exact_calls)
{
    int want = mq_test_orient3d_sign(a, b, c, d);
    static const double scales[3] = {1.0, 0x1p-60, 0x1p60};
    for (int s = 0; s < 3; s++) {
        double pa[3], pb[3], pc[3], pd[3];
        to_double(a, scales[s], pa);
        to_double(b, scales[s], pb);
        to_double(c, scales[s], pc);
        to_double(d, scales[s], pd);
        assert_int_equal(mq_orient3d(pa, pb, pc, pd), want);
        assert_int_equal(mq_orient3d_exact(pa, pb, pc, pd), want);
        /* a cyclic turn of a, b, c keeps the sign, a swap flips it */
        assert_int_equal(mq_orient3d(pb, pc, pa, pd), want);
        assert_int_equal(mq_orient3d(pb, pa, pc, pd), -want);
    }
    double pa[3], pb[3], pc[3], pd[3];
    to_double(a, 1.0, pa);
    to_double(b, 1.0, pb);
    to_double(c, 1.0, pc);
    to_double(d, 1.0, pd);
    double e1[3], e2[3], e3[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = pb[k] - pa[k];
        e2[k] = pc[k] - pa[k];
        e3[k] = pd[k] - pa[k];
    }
    double det = e3[0] * (e1[1] * e2[2] - e1[2] * e2[1]) + e3[1] * (e1[2] * e2[0] - e1[0] * e2[2]) +
                 e3[2] * (e1[0] * e2[1] - e1[1] * e2[0]);
    double perm = fabs(e3[0]) * (fabs(e1[1] * e2[2]) + fabs(e1[2] * e2[1])) +
                  fabs(e3[1]) * (fabs(e1[2] * e2[0]) + fabs(e1[0] * e2[2])) +
                  fabs(e3[2]) * (fabs(e1[0] * e2[1]) + fabs(e1[1] * e2[0]));
    if (!(fabs(det) > MQ_ORIENT3D_BOUND * perm))
        (*exact_calls)++;
}

static void sign_convention(void **state)
{
    (void)state;
    const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
    const double up[3] = {0.25, 0.25, 1e-300}, down[3] = {0.25, 0.25, -1e-300}, on[3] = {5, -7, 0};
    assert_int_equal(mq_orient3d(a, b, c, up), 1);
    assert_int_equal(mq_orient3d(a, b, c, down), -1);
    assert_int_equal(mq_orient3d(a, b, c, on), 0);
    assert_int_equal(mq_orient3d_exact(a, b, c, up), 1);
    assert_int_equal(mq_orient3d_exact(a, b, c, down), -1);
    assert_int_equal(mq_orient3d_exact(a, b, c, on), 0);
}

static void random_general_position(void **state)
{
    (void)state;
    int exact_calls = 0;
    for (int i = 0; i < 20000; i++) {
        int64_t p[4][3];
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 3; k++)
                p[j][k] = mq_test_rng_int(&rng, (int64_t)1 << 29);
        check(p[0], p[1], p[2], p[3], &exact_calls);
    }
}

/* d = a + s (b - a) + t (c - a) rounded to integers, then nudged: coplanar or
 * a few units off a plane whose points are up to 2^30 apart. */
static void nearly_coplanar(void **state)
{
    (void)state;
    int exact_calls = 0, zeros = 0;
    for (int i = 0; i < 50000; i++) {
        int64_t a[3], b[3], c[3], d[3];
        int64_t r = i % 2 ? (int64_t)1 << 29 : 1000;
        for (int k = 0; k < 3; k++) {
            a[k] = mq_test_rng_int(&rng, r);
            b[k] = a[k] + mq_test_rng_int(&rng, r);
            c[k] = a[k] + mq_test_rng_int(&rng, r);
        }
        /* s, t in quarters, so that d is exactly on the plane before the nudge */
        int64_t s = mq_test_rng_int(&rng, 12), t = mq_test_rng_int(&rng, 12);
        for (int k = 0; k < 3; k++) {
            b[k] = a[k] + 4 * ((b[k] - a[k]) / 4);
            c[k] = a[k] + 4 * ((c[k] - a[k]) / 4);
            d[k] = a[k] + s * (b[k] - a[k]) / 4 + t * (c[k] - a[k]) / 4 + (i % 3 == 0 ? 0 : mq_test_rng_int(&rng, 2));
        }
        zeros += mq_test_orient3d_sign(a, b, c, d) == 0;
        check(a, b, c, d, &exact_calls);
    }
    print_message("nearly coplanar: %d of 50000 decided by expansions, %d coplanar\n", exact_calls, zeros);
    assert_true(exact_calls > 10000);
    assert_true(zeros > 10000);
}

/* Points exactly on a plane z = (p x + q y) 2^-30 (integer x, y below 2^20,
 * so every z is exact in double), then the fourth one moved to the next
 * double above or below: its side is the sign of the normal's z, that is of
 * the 2D orientation of a, b, c seen from +z (exact in int64). The double
 * determinant is far below its error bound here, so the expansions decide. */
static void nudged_off_planes(void **state)
{
    (void)state;
    int decided = 0;
    for (int i = 0; i < 20000; i++) {
        int64_t p = mq_test_rng_int(&rng, (int64_t)1 << 30), q = mq_test_rng_int(&rng, (int64_t)1 << 30);
        int64_t x[4], y[4];
        double pt[4][3];
        for (int j = 0; j < 4; j++) {
            x[j] = mq_test_rng_int(&rng, (int64_t)1 << 20);
            y[j] = mq_test_rng_int(&rng, (int64_t)1 << 20);
            pt[j][0] = (double)x[j];
            pt[j][1] = (double)y[j];
            pt[j][2] = ldexp((double)(p * x[j] + q * y[j]), -30);
        }
        int64_t o2 = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
        if (o2 == 0)
            continue;
        int up = o2 > 0 ? 1 : -1;
        assert_int_equal(mq_orient3d(pt[0], pt[1], pt[2], pt[3]), 0);
        double above[3] = {pt[3][0], pt[3][1], nextafter(pt[3][2], INFINITY)};
        double below[3] = {pt[3][0], pt[3][1], nextafter(pt[3][2], -INFINITY)};
        assert_int_equal(mq_orient3d(pt[0], pt[1], pt[2], above), up);
        assert_int_equal(mq_orient3d(pt[0], pt[1], pt[2], below), -up);
        assert_int_equal(mq_orient3d(pt[1], pt[0], pt[2], above), -up);
        decided++;
    }
    assert_true(decided > 19000);
}

static double rand_unit(void)
{
    return (double)mq_test_rng_int(&rng, (int64_t)1 << 52) / 0x1p52;
}

/* Differences that round: a, b, c with full-mantissa coordinates near 1, d
 * near 1e-25, all on the plane z = x, then d moved to the next double above
 * or below. The double determinant is far below its bound and d - a is not
 * exact, so the 4x4 expansion form decides: 0 on the plane, and off it the
 * sign of the normal's z (an O(1) triangle's 2D orientation, safe in double)
 * times the move's. */
static void inexact_differences(void **state)
{
    (void)state;
    int decided = 0;
    for (int i = 0; i < 20000; i++) {
        double a[3], b[3], c[3], d[3];
        double *pts[3] = {a, b, c};
        for (int j = 0; j < 3; j++) {
            pts[j][0] = rand_unit();
            pts[j][1] = rand_unit();
            pts[j][2] = pts[j][0];
        }
        d[0] = rand_unit() * 1e-25;
        d[1] = rand_unit() * 1e-25;
        d[2] = d[0];
        double nz = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if (fabs(nz) < 1e-6 || d[0] == 0.0)
            continue;
        int up = nz > 0 ? 1 : -1;
        double above[3] = {d[0], d[1], nextafter(d[2], INFINITY)};
        double below[3] = {d[0], d[1], nextafter(d[2], -INFINITY)};
        assert_int_equal(mq_orient3d(a, b, c, d), 0);
        assert_int_equal(mq_orient3d(a, b, c, above), up);
        assert_int_equal(mq_orient3d(a, b, c, below), -up);
        assert_int_equal(mq_orient3d(b, a, c, above), -up);
        decided++;
    }
    assert_true(decided > 19000);
}

int main(void)
{
    mq_test_rng_seed(&rng, mq_test_seed(0x0E1E3D));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sign_convention),     cmocka_unit_test(random_general_position),
        cmocka_unit_test(nearly_coplanar),     cmocka_unit_test(nudged_off_planes),
        cmocka_unit_test(inexact_differences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
