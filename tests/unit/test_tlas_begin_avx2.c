/*
 * The scene ray stream's set-up (scene/tlas/tlas_node_avx2.h: tlas_vray_begin,
 * three axes in one AVX2 register) against the reference steps it replaces:
 * mq_dray_ok, mq_dray_prepare, mq_tlas_ray_init_scalar with t_lo = tmin and
 * the broadcasts of tlas_vray_init. On random rays and on zero, negative
 * zero, tiny, huge, out-of-range, NaN and infinite components, and tmin / tmax
 * of every sign, it takes exactly the rays the reference calls valid and
 * fast, with the same plane offsets and bit-identical constants. Compiled
 * as the library's AVX2 files are (tests/CMakeLists.txt); skipped on CPUs
 * without that instruction set (core/isa.h: mq_isa_cpu).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/isa.h"
#include "scene/tlas/tlas_node_avx2.h"
#include "test_support.h"

static double special_component(mq_test_rng *g)
{
    static const double v[] = {0.0,           -0.0,     1.0,       -1.0,     0.1,       -0.1,    1e-300, -1e-300,
                               0x1p-60,       -0x1p-60, 0x1p60,    0x1p61,   -0x1p61,   0x1p-61, 1e300,  3.0e7,
                               1.0 + 0x1p-40, 0x1p-149, -0x1p-150, INFINITY, -INFINITY, NAN};
    uint64_t pick = mq_test_rng_u64(g) % 40;
    if (pick < sizeof v / sizeof v[0])
        return v[pick];
    return mq_test_rng_range(g, -100.0, 100.0);
}

static double special_t(mq_test_rng *g)
{
    static const double v[] = {0.0, -0.0, -1.0, 0.5, 1e30, INFINITY, -INFINITY, NAN};
    return v[mq_test_rng_u64(g) % (sizeof v / sizeof v[0])];
}

static void assert_lanes(__m256 v, float want)
{
    _Alignas(32) float lane[8];
    _mm256_store_ps(lane, v);
    for (int i = 0; i < 8; i++)
        assert_int_equal(mq_float_bits(lane[i]), mq_float_bits(want));
}

static void check_ray(const mq_dray *ray, size_t *taken)
{
    mq_dray_prep p;
    mq_tlas_ray want;
    memset(&want, 0, sizeof want);
    mq_dray_prepare(ray, &p);
    mq_tlas_ray_init_scalar(&want, &p, ray->tmin);
    bool want_fast = mq_dray_is_valid(ray) && want.fast;
    mq_tlas_ray got;
    tlas_vray v;
    bool fast = tlas_vray_begin(&got, &v, ray);
    assert_int_equal(fast, want_fast);
    if (!fast)
        return;
    (*taken)++;
    for (int k = 0; k < 3; k++) {
        assert_int_equal(got.near_off[k], want.near_off[k]);
        assert_int_equal(got.far_off[k], want.far_off[k]);
        assert_lanes(v.o_near[k], want.o_near[k]);
        assert_lanes(v.o_far[k], want.o_far[k]);
        assert_lanes(v.rd_near[k], want.rd_near[k]);
        assert_lanes(v.rd_far[k], want.rd_far[k]);
    }
}

static void test_begin_equals_reference(void **state)
{
    (void)state;
    if (mq_isa_cpu() < MQ_ISA_AVX2) {
        skip();
        return;
    }
    mq_test_rng g;
    mq_test_rng_seed(&g, 29);
    size_t taken = 0;
    for (int i = 0; i < 200000; i++) {
        mq_dray ray;
        for (int k = 0; k < 3; k++) {
            ray.origin[k] = special_component(&g);
            ray.dir[k] = special_component(&g);
        }
        ray.tmin = i % 3 ? 0.0 : special_t(&g);
        ray.tmax = i % 3 ? INFINITY : special_t(&g);
        check_ray(&ray, &taken);
    }
    /* Most rays are valid and in range: the comparison is not vacuous. */
    assert_true(taken > 20000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_begin_equals_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
