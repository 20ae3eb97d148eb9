/*
 * The float steps of the scene's ray code (src/scene/scene_raycast.h):
 *   - mq_float_next_up / mq_float_next_down equal nextafterf towards +inf /
 *     -inf on zeros of both signs, the smallest and largest finite floats,
 *     +-inf where defined, and random bit patterns;
 *   - mq_float_floor_of / mq_float_ceil_of give the largest float <= x and
 *     the smallest float >= x for doubles near, on and between floats, and
 *     equal the nextafterf formula they replaced everywhere (beyond the float
 *     range and on NaN too);
 *   - the top-level walk's ray set-up built on them, mq_tlas_ray_init (SSE2
 *     where available), equals mq_tlas_ray_init_scalar field by field on
 *     random rays and on zero, tiny, huge, negative-zero and exactly
 *     representable components.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "scene/tlas/tlas_ray.h"
#include "test_support.h"

static float of_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void assert_same_float(float a, float b)
{
    assert_int_equal(mq_float_bits(a), mq_float_bits(b));
}

static void check_steps(float f)
{
    if (isnan(f))
        return;
    if (f != INFINITY)
        assert_same_float(mq_float_next_up(f), nextafterf(f, INFINITY));
    if (f != -INFINITY)
        assert_same_float(mq_float_next_down(f), nextafterf(f, -INFINITY));
}

static void test_next_up_down(void **state)
{
    (void)state;
    const float special[] = {0.0f,  -0.0f,   0x1p-149f, -0x1p-149f, FLT_MIN,   -FLT_MIN,         1.0f,
                             -1.0f, FLT_MAX, -FLT_MAX,  INFINITY,   -INFINITY, 0x1p-126f * 0.5f, 3.0e7f};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        check_steps(special[i]);
    mq_test_rng g;
    mq_test_rng_seed(&g, 7);
    for (int i = 0; i < 200000; i++)
        check_steps(of_bits((uint32_t)mq_test_rng_u64(&g)));
}

static void check_round(double x)
{
    if (!(fabs(x) <= FLT_MAX))
        return;
    float lo = mq_float_floor_of(x), hi = mq_float_ceil_of(x);
    assert_true((double)lo <= x && x <= (double)hi);
    if ((double)lo != x)
        assert_true((double)nextafterf(lo, INFINITY) > x);
    if ((double)hi != x)
        assert_true((double)nextafterf(hi, -INFINITY) < x);
}

/* The formula the library used before float_steps.h: round to nearest, then one nextafterf step. */
static void check_like_nextafterf(double x)
{
    float f = (float)x;
    float lo = (double)f > x ? nextafterf(f, -INFINITY) : f, hi = (double)f < x ? nextafterf(f, INFINITY) : f;
    assert_same_float(mq_float_floor_of(x), lo);
    assert_same_float(mq_float_ceil_of(x), hi);
}

static void test_floor_ceil_of(void **state)
{
    (void)state;
    const double special[] = {0.0, -0.0, 1.0, -1.0, 0x1p-150, -0x1p-150, 0x1p-149, 1.0 + 0x1p-30, -(1.0 + 0x1p-30)};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        check_round(special[i]);
    mq_test_rng g;
    mq_test_rng_seed(&g, 11);
    for (int i = 0; i < 200000; i++) {
        uint64_t u = mq_test_rng_u64(&g);
        double x;
        memcpy(&x, &u, sizeof x);
        check_round(x);
        check_like_nextafterf(x);
        check_round((double)of_bits((uint32_t)u)); /* exactly a float */
    }
}

static void test_floor_ceil_like_nextafterf(void **state)
{
    (void)state;
    const double special[] = {0.0,      -0.0,      FLT_MAX, -FLT_MAX, (double)FLT_MAX * (1.0 + 0x1p-30),
                              0x1p128,  -0x1p128,  1e300,   -1e300,   DBL_MAX,
                              INFINITY, -INFINITY, NAN,     0x1p-150, -0x1p-149};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        check_like_nextafterf(special[i]); /* random doubles: test_floor_ceil_of */
}

static double special_component(mq_test_rng *g)
{
    static const double v[] = {0.0,    -0.0,   1.0,     -1.0,  0.1,   -0.1,          1e-300,   -1e-300,  0x1p-60,
                               0x1p60, 0x1p61, -0x1p61, 1e300, 3.0e7, 1.0 + 0x1p-40, 0x1p-149, -0x1p-150};
    uint64_t pick = mq_test_rng_u64(g) % 24;
    if (pick < sizeof v / sizeof v[0])
        return v[pick];
    return mq_test_rng_range(g, -100.0, 100.0);
}

static void test_tlas_ray_init(void **state)
{
    (void)state;
    mq_test_rng g;
    mq_test_rng_seed(&g, 13);
    for (int i = 0; i < 100000; i++) {
        mq_dray_prep p;
        for (int k = 0; k < 3; k++) {
            p.org[k] = special_component(&g);
            p.dir[k] = special_component(&g);
            p.inv[k] = 1.0 / p.dir[k];
        }
        double t_lo = i % 5 == 0 ? -1.0 : 0.0;
        mq_tlas_ray a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        mq_tlas_ray_init(&a, &p, t_lo);
        mq_tlas_ray_init_scalar(&b, &p, t_lo);
        assert_int_equal(a.fast, b.fast);
        assert_ptr_equal(a.prep, b.prep);
        for (int k = 0; k < 3; k++) {
            assert_int_equal(a.near_off[k], b.near_off[k]);
            assert_int_equal(a.far_off[k], b.far_off[k]);
            assert_same_float(a.o_near[k], b.o_near[k]);
            assert_same_float(a.o_far[k], b.o_far[k]);
            assert_same_float(a.rd_near[k], b.rd_near[k]);
            assert_same_float(a.rd_far[k], b.rd_far[k]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_next_up_down),
        cmocka_unit_test(test_floor_ceil_of),
        cmocka_unit_test(test_floor_ceil_like_nextafterf),
        cmocka_unit_test(test_tlas_ray_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
