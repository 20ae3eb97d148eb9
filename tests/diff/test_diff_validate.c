/*
 * Validators and constructors against their definitions in types.h /
 * primitives.h, on random valid, nearly invalid and invalid inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <meshquery/primitives.h>

#include "oracle.h"
#include "test_support.h"

#define N_CASES 100000

static float pick_special(mq_test_rng *rng)
{
    static const float sp[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-45f, -1e-38f, 3e38f};
    return sp[mq_test_rng_u64(rng) % (sizeof sp / sizeof sp[0])];
}

static bool finite3(const float *v)
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* types.h: origin and dir finite, dir != 0, tmin <= tmax, neither NaN. */
static bool oracle_ray_valid(const mq_ray *r)
{
    bool dir_zero = r->dir[0] == 0.0f && r->dir[1] == 0.0f && r->dir[2] == 0.0f;
    return finite3(r->origin) && finite3(r->dir) && !dir_zero && !isnan(r->tmin) && !isnan(r->tmax) &&
           r->tmin <= r->tmax;
}

static void diff_ray_is_valid(void **state)
{
    (void)state;
    oracle_stats st;
    oracle_stats_init(&st, "ray_is_valid", 0.0);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xD1FF) ^ oracle_name_seed(st.name));
    long n = oracle_case_count(N_CASES);
    for (long i = 0; i < n; i++) {
        oracle_stats_case(&st, ORACLE_GENERIC);
        mq_ray r;
        for (int k = 0; k < 3; k++) {
            r.origin[k] = (float)mq_test_rng_range(&rng, -10, 10);
            r.dir[k] = (float)mq_test_rng_range(&rng, -1, 1);
        }
        r.tmin = (float)mq_test_rng_range(&rng, -1, 1);
        r.tmax = (mq_test_rng_u64(&rng) & 1) ? INFINITY : (float)mq_test_rng_range(&rng, -1, 2);
        /* corrupt 0-3 fields with special values */
        int nbad = (int)(mq_test_rng_u64(&rng) % 4);
        for (int b = 0; b < nbad; b++) {
            int f = (int)(mq_test_rng_u64(&rng) % 9);
            float v = pick_special(&rng);
            if (f < 3)
                r.origin[f] = v;
            else if (f < 6)
                r.dir[f - 3] = v;
            else if (f == 6)
                r.tmin = v;
            else if (f == 7)
                r.tmax = v;
            else
                r.dir[0] = r.dir[1] = r.dir[2] = (mq_test_rng_u64(&rng) & 1) ? 0.0f : -0.0f;
        }
        bool want = oracle_ray_valid(&r), got = mq_ray_is_valid(&r);
        if (!oracle_stats_strict(&st, want == got) && oracle_stats_should_print(&st)) {
            oracle_stats_printed(&st);
            printf("  MISMATCH ray_is_valid: expected %d got %d\n", want, got);
            oracle_print_ray("ray", &r);
        }
    }
    oracle_stats_print(&st);
    assert_int_equal(st.strict_failures, 0);
}

/* Largest deviation from orthonormality, in the terms of MQ_OBB_AXIS_TOLERANCE:
 * max over |a_i . a_j| (i != j) and | |a_i| - 1 |. */
static double axis_error(const mq_obb *b)
{
    double e = 0.0;
    for (int i = 0; i < 3; i++) {
        oracle_v3 a = oracle_v3_f(b->axes[i]);
        e = fmax(e, fabs(oracle_len(a) - 1.0));
        for (int j = i + 1; j < 3; j++)
            e = fmax(e, fabs(oracle_dot(a, oracle_v3_f(b->axes[j]))));
    }
    return e;
}

static bool obb_fields_ok(const mq_obb *b)
{
    bool ok = finite3(b->center) && finite3(b->half);
    for (int i = 0; i < 3; i++)
        ok = ok && finite3(b->axes[i]) && b->half[i] >= 0.0f;
    return ok;
}

static void diff_obb_is_valid(void **state)
{
    (void)state;
    /* the tolerance comparison itself is done in float by the implementation:
     * within 1e-6 of the threshold either answer is accepted */
    const double band = 1e-6;
    oracle_stats st;
    oracle_stats_init(&st, "obb_is_valid", band);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xD1FF) ^ oracle_name_seed(st.name));
    long n = oracle_case_count(N_CASES);
    for (long i = 0; i < n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &rng, d);
        mq_obb b;
        oracle_gen_obb(&g, &b);
        /* perturb the axes by up to ~1e-2: straddles the 1e-3 tolerance */
        if (mq_test_rng_u64(&rng) % 4 != 0) {
            double mag = oracle_log_uniform(&rng, 1e-5, 1e-2);
            for (int k = 0; k < 3; k++)
                for (int j = 0; j < 3; j++)
                    if (mq_test_rng_u64(&rng) % 3 == 0)
                        b.axes[k][j] = (float)(b.axes[k][j] + mag * mq_test_rng_range(&rng, -1, 1));
        }
        if (mq_test_rng_u64(&rng) % 8 == 0) {
            int f = (int)(mq_test_rng_u64(&rng) % 15);
            float v = pick_special(&rng);
            if (f < 3)
                b.center[f] = v;
            else if (f < 6)
                b.half[f - 3] = (mq_test_rng_u64(&rng) & 1) ? v : -b.half[f - 3] - 1e-30f;
            else
                b.axes[(f - 6) / 3][(f - 6) % 3] = v;
        }
        bool fields = obb_fields_ok(&b);
        double err = fields ? axis_error(&b) : 0.0;
        bool want = fields && err <= MQ_OBB_AXIS_TOLERANCE;
        bool got = mq_obb_is_valid(&b);
        /* in band: only the orthonormality decision, and only within `band` of the tolerance */
        double sep = fields ? err - MQ_OBB_AXIS_TOLERANCE : 1.0;
        if (!oracle_stats_bool(&st, d, got, want, sep, 1.0) && oracle_stats_should_print(&st)) {
            oracle_stats_printed(&st);
            printf("  MISMATCH obb_is_valid: expected %d got %d (axis error %.9g, tolerance %g)\n", want, got, err,
                   (double)MQ_OBB_AXIS_TOLERANCE);
            oracle_print_obb("box", &b);
        }
    }
    oracle_stats_print(&st);
    assert_int_equal(st.mismatches, 0);
}

static void diff_obb_from_quat(void **state)
{
    (void)state;
    oracle_stats st;
    oracle_stats_init(&st, "obb_from_quat", 0.0);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xD1FF) ^ oracle_name_seed(st.name));
    long n = oracle_case_count(N_CASES);
    /* the axes are a rotation matrix computed in float from a normalised
     * quaternion: each entry within a few float ulps of 1 */
    const double tol = 2e-6;
    for (long i = 0; i < n; i++) {
        oracle_stats_case(&st, ORACLE_GENERIC);
        double q[4];
        mq_test_rng_quat(&rng, q);
        double len = oracle_log_uniform(&rng, 1e-3, 1e3); /* not normalised on input */
        float qf[4] = {(float)(q[0] * len), (float)(q[1] * len), (float)(q[2] * len), (float)(q[3] * len)};
        if (i % 16 == 0) {
            /* near-identity and axis-aligned quarter turns: exact-ish inputs (w, x, y, z) */
            static const float qs[4][4] = {
                {1, 0, 0, 0}, {0.70710677f, 0.70710677f, 0, 0}, {0, 0, 0, 1}, {0.5f, 0.5f, 0.5f, 0.5f}};
            memcpy(qf, qs[(i / 16) % 4], sizeof qf);
        }
        vec3 c = {(float)mq_test_rng_range(&rng, -5, 5), (float)mq_test_rng_range(&rng, -5, 5),
                  (float)mq_test_rng_range(&rng, -5, 5)};
        vec3 h = {(float)mq_test_rng_range(&rng, 0, 3), (float)mq_test_rng_range(&rng, 0, 3),
                  (float)mq_test_rng_range(&rng, 0, 3)};
        mq_obb out;
        mq_obb_from_quat(c, h, qf, &out);
        /* the oracle rotation, from the float quaternion normalised in double */
        double w = qf[0], x = qf[1], y = qf[2], z = qf[3], l = sqrt(x * x + y * y + z * z + w * w);
        x /= l;
        y /= l;
        z /= l;
        w /= l;
        /* column i = image of world axis i under the rotation (Hamilton convention; the
         * quaternion w, x, y, z) */
        double m[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)},
                          {2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)},
                          {2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)}};
        double err = 0.0;
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 3; k++)
                err = fmax(err, fabs(out.axes[a][k] - m[a][k]));
        bool copied = !memcmp(out.center, c, sizeof c) && !memcmp(out.half, h, sizeof h);
        bool ok = oracle_stats_value(&st, err, tol);
        ok = oracle_stats_strict(&st, copied && mq_obb_is_valid(&out)) && ok;
        if (!ok && oracle_stats_should_print(&st)) {
            oracle_stats_printed(&st);
            oracle_stats_printed(&st);
            printf("  MISMATCH obb_from_quat: axis error %.3g, centre/half copied %d, valid %d\n", err, copied,
                   mq_obb_is_valid(&out));
            printf("    q = {%a, %a, %a, %a}\n", qf[0], qf[1], qf[2], qf[3]);
        }
    }
    /* zero and non-finite quaternions: NaN axes, invalid box */
    static const float badq[][4] = {{0, 0, 0, 0}, {1, NAN, 0, 0}, {1, 0, INFINITY, 0}, {-0.0f, 0, 0, -0.0f}};
    for (size_t k = 0; k < sizeof badq / sizeof badq[0]; k++) {
        vec3 c = {1, 2, 3}, h = {1, 1, 1};
        float q[4];
        memcpy(q, badq[k], sizeof q);
        mq_obb out;
        mq_obb_from_quat(c, h, q, &out);
        bool nan_axes = true;
        for (int a = 0; a < 3; a++)
            for (int j = 0; j < 3; j++)
                nan_axes = nan_axes && isnan(out.axes[a][j]);
        if (!oracle_stats_strict(&st, nan_axes && !mq_obb_is_valid(&out)))
            printf("  STRICT FAILURE obb_from_quat: quaternion {%a, %a, %a, %a} did not give NaN "
                   "axes\n",
                   q[0], q[1], q[2], q[3]);
    }
    oracle_stats_print(&st);
    assert_int_equal(st.value_failures, 0);
    assert_int_equal(st.strict_failures, 0);
}

static void diff_obb_from_aabb(void **state)
{
    (void)state;
    oracle_stats st;
    oracle_stats_init(&st, "obb_from_aabb", 0.0);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xD1FF) ^ oracle_name_seed(st.name));
    long n = oracle_case_count(N_CASES);
    for (long i = 0; i < n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &rng, d);
        oracle_stats_case(&st, d);
        mq_aabb b;
        oracle_gen_aabb(&g, &b);
        bool empty = false;
        if (mq_test_rng_u64(&rng) % 10 == 0) {
            int k = (int)(mq_test_rng_u64(&rng) % 3);
            float t = b.min[k];
            b.min[k] = b.max[k] + fmaxf(fabsf(b.max[k]) * 1e-6f, 1e-30f);
            (void)t;
            empty = true;
        }
        mq_obb o;
        mq_obb_from_aabb(&b, &o);
        if (empty) {
            if (!oracle_stats_strict(&st, !mq_obb_is_valid(&o)) && oracle_stats_should_print(&st)) {
                oracle_stats_printed(&st);
                printf("  STRICT FAILURE obb_from_aabb: empty AABB gave a valid OBB\n");
                oracle_print_aabb("box", &b);
            }
            continue;
        }
        /* centre +- half must reproduce min / max to float rounding of the scale */
        double scale = fmax(oracle_maxabs(oracle_v3_f(b.min)), oracle_maxabs(oracle_v3_f(b.max))) + 1e-300;
        double err = 0.0;
        bool axes_exact = true;
        for (int k = 0; k < 3; k++) {
            err = fmax(err, fabs(((double)o.center[k] - o.half[k]) - b.min[k]));
            err = fmax(err, fabs(((double)o.center[k] + o.half[k]) - b.max[k]));
            for (int j = 0; j < 3; j++)
                axes_exact = axes_exact && o.axes[k][j] == (float)(k == j);
        }
        bool ok = oracle_stats_value(&st, err / scale, 2.4e-7); /* 4 float ulps */
        ok = oracle_stats_strict(&st, axes_exact && mq_obb_is_valid(&o)) && ok;
        if (!ok && oracle_stats_should_print(&st)) {
            oracle_stats_printed(&st);
            oracle_stats_printed(&st);
            printf("  MISMATCH obb_from_aabb: error %.3g (rel), identity axes %d\n", err / scale, axes_exact);
            oracle_print_aabb("box", &b);
            oracle_print_obb("got", &o);
        }
    }
    oracle_stats_print(&st);
    assert_int_equal(st.value_failures, 0);
    assert_int_equal(st.strict_failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diff_ray_is_valid),
        cmocka_unit_test(diff_obb_is_valid),
        cmocka_unit_test(diff_obb_from_quat),
        cmocka_unit_test(diff_obb_from_aabb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
