/*
 * Sphere and capsule overlap tests against double-precision oracles: the
 * oracle answer is "distance between the cores <= sum of radii", with the core
 * distance from an iterative minimiser (tests/support/oracle.c).
 *
 * Band: a disagreement is tolerated only when the oracle's signed separation of
 * the two solids (distance apart, or minus the penetration depth) is within
 * OVERLAP_BAND * scale, scale = the largest |coordinate| or radius of the case.
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

/* Relative band around exact touching: 16 float ulps (2^-24 each) of the
 * case's largest coordinate. A float test of a distance against a radius
 * rounds the coordinates' differences (~1 ulp of the scale each) and a few
 * products; the largest disagreement measured over 7 seeds x 100k cases per
 * predicate is 2.3e-7 (~4 ulps), so 1e-6 leaves a factor 4. (The triangle
 * tests exceed it on thin triangles: that is the point-triangle defect the
 * reproducers below pin down, not rounding.) */
#define OVERLAP_BAND 1e-6
#define N_CASES 100000

typedef oracle_run run;

static double hull_scale(const oracle_hull *a, const oracle_hull *b)
{
    return fmax(oracle_hull_extent(a), oracle_hull_extent(b)) + 1e-300;
}

/* Records the comparison; the separation is only computed when the answers differ. */
static bool check_bool(run *r, oracle_distrib d, bool impl, bool orc, const oracle_hull *a, const oracle_hull *b)
{
    double sep = 0.0;
    if (impl != orc)
        sep = oracle_separation(a, b, false, NULL);
    bool ok = oracle_stats_bool(&r->st, d, impl, orc, sep, hull_scale(a, b));
    if (!ok && oracle_stats_should_print(&r->st))
        printf("  MISMATCH %s (%s): implementation %s, oracle %s, separation %.9g (scale %.6g)\n", r->st.name,
               oracle_dist_name(d), impl ? "overlap" : "apart", orc ? "overlap" : "apart", sep, hull_scale(a, b));
    return ok;
}

static void print_strict(run *r, const char *what)
{
    if (oracle_stats_should_print(&r->st)) {
        oracle_stats_printed(&r->st);
        printf("  STRICT FAILURE %s: %s\n", r->st.name, what);
    }
}

/* Exact touching in float arithmetic (integer coordinates). Touching is inside
 * the documented band, so a miss here is reported, not failed. */
static void soft(run *r, bool ok, const char *what)
{
    if (!oracle_stats_soft(&r->st, ok))
        printf("  note %s: %s\n", r->st.name, what);
}

/* ------------------------------------------------------------------------- */

static void diff_sphere_sphere(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_sphere_sphere", OVERLAP_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_sphere a, b;
        oracle_gen_sphere(&g, &a);
        oracle_gen_sphere(&g, &b);
        oracle_hull ha = oracle_hull_of_sphere(&a), hb = oracle_hull_of_sphere(&b);
        if (d == ORACLE_NEAR) {
            oracle_translate_sphere(&b, oracle_touch_shift(&r.rng, &ha, &hb, false, hull_scale(&ha, &hb)));
            hb = oracle_hull_of_sphere(&b);
        }
        double rr = (double)a.radius + (double)b.radius;
        bool orc = oracle_len2(oracle_sub(oracle_v3_f(a.center), oracle_v3_f(b.center))) <= rr * rr;
        if (!check_bool(&r, d, mq_overlap_sphere_sphere(&a, &b), orc, &ha, &hb) && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_sphere("a", &a);
            oracle_print_sphere("b", &b);
        }
    }
    /* exact touching in float (3-4-5): closed sets touch */
    mq_sphere a = {{0, 0, 0}, 2}, b = {{3, 4, 0}, 3};
    soft(&r, mq_overlap_sphere_sphere(&a, &b), "3-4-5 touching spheres reported apart");
    mq_sphere p = {{1, 1, 1}, 0}, q = {{1, 1, 1}, 0};
    soft(&r, mq_overlap_sphere_sphere(&p, &q), "two equal points (radius 0) reported apart");
    /* invalid inputs overlap nothing */
    mq_sphere bad[] = {
        {{NAN, 0, 0}, 1}, {{0, INFINITY, 0}, 1}, {{0, 0, 0}, -1}, {{0, 0, 0}, NAN}, {{0, 0, 0}, INFINITY}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        mq_sphere ok = {{0, 0, 0}, 1};
        if (!oracle_stats_strict(&r.st,
                                 !mq_overlap_sphere_sphere(&bad[k], &ok) && !mq_overlap_sphere_sphere(&ok, &bad[k])))
            print_strict(&r, "invalid sphere overlaps");
    }
    oracle_run_finish(&r);
}

static void diff_sphere_aabb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_sphere_aabb", OVERLAP_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_sphere s;
        mq_aabb b;
        oracle_gen_sphere(&g, &s);
        oracle_gen_aabb(&g, &b);
        oracle_hull hs = oracle_hull_of_sphere(&s), hb = oracle_hull_of_aabb(&b);
        if (d == ORACLE_NEAR) {
            oracle_translate_sphere(&s, oracle_touch_shift(&r.rng, &hb, &hs, false, hull_scale(&hs, &hb)));
            hs = oracle_hull_of_sphere(&s);
        }
        oracle_box ob = oracle_box_from_aabb(&b);
        double rad = s.radius;
        bool orc = oracle_dist2_point_box(oracle_v3_f(s.center), &ob, NULL) <= rad * rad;
        if (!check_bool(&r, d, mq_overlap_sphere_aabb(&s, &b), orc, &hs, &hb) && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_sphere("s", &s);
            oracle_print_aabb("box", &b);
        }
    }
    /* exact touching: the centre at distance exactly r from a face, an edge, a corner */
    mq_aabb box = {{0, 0, 0}, {1, 1, 1}};
    mq_sphere touch[] = {
        {{3, 0.5f, 0.5f}, 2}, {{4, 5, 0.5f}, 5}, {{-2, -2, -1}, 3}, {{1, 1, 1}, 0}, {{0.5f, 0.5f, 0.5f}, 0}};
    for (size_t k = 0; k < sizeof touch / sizeof touch[0]; k++)
        soft(&r, mq_overlap_sphere_aabb(&touch[k], &box), "exactly touching sphere / box reported apart");
    mq_aabb empty = {{1, 0, 0}, {0, 1, 1}};
    mq_sphere big = {{0.5f, 0.5f, 0.5f}, 10};
    if (!oracle_stats_strict(&r.st, !mq_overlap_sphere_aabb(&big, &empty)))
        print_strict(&r, "empty AABB (min > max) overlaps a sphere");
    mq_aabb nanbox = {{0, 0, 0}, {1, NAN, 1}};
    if (!oracle_stats_strict(&r.st, !mq_overlap_sphere_aabb(&big, &nanbox)))
        print_strict(&r, "NaN AABB overlaps");
    mq_sphere neg = {{0.5f, 0.5f, 0.5f}, -1};
    if (!oracle_stats_strict(&r.st, !mq_overlap_sphere_aabb(&neg, &box)))
        print_strict(&r, "negative radius overlaps");
    oracle_run_finish(&r);
}

static void diff_sphere_obb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_sphere_obb", OVERLAP_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_sphere s;
        mq_obb b;
        oracle_gen_sphere(&g, &s);
        oracle_gen_obb(&g, &b);
        oracle_hull hs = oracle_hull_of_sphere(&s), hb = oracle_hull_of_obb(&b);
        if (d == ORACLE_NEAR) {
            oracle_translate_sphere(&s, oracle_touch_shift(&r.rng, &hb, &hs, false, hull_scale(&hs, &hb)));
            hs = oracle_hull_of_sphere(&s);
        }
        oracle_box ob = oracle_box_from_obb(&b);
        double rad = s.radius;
        bool orc = oracle_dist2_point_box(oracle_v3_f(s.center), &ob, NULL) <= rad * rad;
        if (!check_bool(&r, d, mq_overlap_sphere_obb(&s, &b), orc, &hs, &hb) && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_sphere("s", &s);
            oracle_print_obb("box", &b);
        }
    }
    mq_obb bad = {{0, 0, 0}, {1, 1, 1}, {{1, 0, 0}, {0.7f, 0.7f, 0}, {0, 0, 1}}};
    mq_sphere big = {{0, 0, 0}, 10};
    if (!oracle_stats_strict(&r.st, !mq_overlap_sphere_obb(&big, &bad)))
        print_strict(&r, "OBB with non-orthonormal axes overlaps");
    mq_obb neg = {{0, 0, 0}, {1, -1, 1}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    if (!oracle_stats_strict(&r.st, !mq_overlap_sphere_obb(&big, &neg)))
        print_strict(&r, "OBB with a negative half extent overlaps");
    oracle_run_finish(&r);
}

static void diff_sphere_capsule(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_sphere_capsule", OVERLAP_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_sphere s;
        mq_capsule c;
        oracle_gen_sphere(&g, &s);
        oracle_gen_capsule(&g, &c);
        oracle_hull hs = oracle_hull_of_sphere(&s), hc = oracle_hull_of_capsule(&c);
        if (d == ORACLE_NEAR) {
            oracle_translate_sphere(&s, oracle_touch_shift(&r.rng, &hc, &hs, false, hull_scale(&hs, &hc)));
            hs = oracle_hull_of_sphere(&s);
        }
        double rr = (double)s.radius + (double)c.radius;
        bool orc =
            oracle_dist2_point_segment(oracle_v3_f(s.center), oracle_v3_f(c.a), oracle_v3_f(c.b), NULL) <= rr * rr;
        if (!check_bool(&r, d, mq_overlap_sphere_capsule(&s, &c), orc, &hs, &hc) && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_sphere("s", &s);
            oracle_print_capsule("c", &c);
        }
    }
    mq_capsule c = {{0, 0, 0}, {4, 0, 0}, 1};
    mq_sphere s = {{2, 3, 0}, 2};
    soft(&r, mq_overlap_sphere_capsule(&s, &c), "exactly touching sphere / capsule side reported apart");
    mq_sphere s2 = {{-3, 0, 0}, 2};
    soft(&r, mq_overlap_sphere_capsule(&s2, &c), "exactly touching sphere / capsule cap reported apart");
    mq_capsule nanc = {{0, 0, 0}, {NAN, 0, 0}, 1};
    mq_sphere big = {{0, 0, 0}, 10};
    if (!oracle_stats_strict(&r.st, !mq_overlap_sphere_capsule(&big, &nanc)))
        print_strict(&r, "NaN capsule overlaps");
    oracle_run_finish(&r);
}

static void diff_sphere_triangle(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_sphere_triangle", OVERLAP_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_sphere s;
        mq_triangle t;
        oracle_gen_sphere(&g, &s);
        oracle_gen_triangle(&g, &t);
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.5)) {
            /* centre near a needle / tiny / flat triangle, radius around that distance */
            oracle_v3 c = oracle_gen_point_near_triangle(&g, &t);
            oracle_v3_to_f(c, s.center);
            oracle_tri ot = oracle_tri_from_mq(&t);
            s.radius = (float)(sqrt(oracle_dist2_point_triangle(oracle_v3_f(s.center), &ot, NULL, NULL)) *
                               mq_test_rng_range(&r.rng, 0.5, 1.5));
        }
        oracle_hull hs = oracle_hull_of_sphere(&s), ht = oracle_hull_of_triangle(&t);
        if (d == ORACLE_NEAR) {
            oracle_translate_sphere(&s, oracle_touch_shift(&r.rng, &ht, &hs, false, hull_scale(&hs, &ht)));
            hs = oracle_hull_of_sphere(&s);
        }
        oracle_tri ot = oracle_tri_from_mq(&t);
        double rad = s.radius;
        bool orc = oracle_dist2_point_triangle(oracle_v3_f(s.center), &ot, NULL, NULL) <= rad * rad;
        if (!check_bool(&r, d, mq_overlap_sphere_triangle(&s, &t), orc, &hs, &ht) && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_sphere("s", &s);
            oracle_print_tri("tri", &t);
        }
    }
    /* found by this test: a thin triangle (|n| / (|e01| |e02|) = 3.8e-5) and a sphere
     * of radius 0.01 whose centre is 2.7e-9 from it, reported apart */
    mq_triangle thin = {{{-0x1.071866p+0f, 0x1.49e768p-1f, 0x1.7b355ep-1f},
                         {-0x1.3a3ddcp+0f, -0x1.a13698p+0f, 0x1.5123bp+1f},
                         {-0x1.073cdp+0f, 0x1.46aa1ap-1f, 0x1.7de7d4p-1f}}};
    mq_sphere near_thin = {{-0x1.1eb1bp+0f, -0x1.9ea19p-2f, 0x1.9d3b66p+0f}, 0.01f};
    if (!oracle_stats_strict(&r.st, mq_overlap_sphere_triangle(&near_thin, &thin)))
        print_strict(&r, "thin-triangle reproducer: sphere r = 0.01 at distance 2.7e-9 reported apart");
    mq_triangle t = {{{0, 0, 0}, {4, 0, 0}, {0, 4, 0}}};
    mq_sphere s = {{1, 1, 2}, 2}, s2 = {{1, 1, 0}, 0}, s3 = {{2, 2, 0}, 0};
    soft(&r, mq_overlap_sphere_triangle(&s, &t), "sphere touching a triangle face reported apart");
    soft(&r, mq_overlap_sphere_triangle(&s2, &t), "point (radius 0) inside a triangle reported apart");
    soft(&r, mq_overlap_sphere_triangle(&s3, &t), "point (radius 0) on a triangle edge reported apart");
    mq_triangle nant = {{{0, 0, 0}, {4, 0, 0}, {0, NAN, 0}}};
    mq_sphere big = {{0, 0, 0}, 10};
    if (!oracle_stats_strict(&r.st, !mq_overlap_sphere_triangle(&big, &nant)))
        print_strict(&r, "NaN triangle overlaps");
    oracle_run_finish(&r);
}

static void diff_capsule_capsule(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_capsule_capsule", OVERLAP_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_capsule a, b;
        oracle_gen_capsule(&g, &a);
        oracle_gen_capsule(&g, &b);
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.5)) {
            /* parallel (or within float rounding of it): b along a's direction */
            oracle_v3 a0 = oracle_v3_f(a.a), a1 = oracle_v3_f(a.b), o = oracle_v3_f(b.a);
            double k = mq_test_rng_range(&r.rng, -1.5, 1.5);
            oracle_v3_to_f(oracle_madd(o, oracle_sub(a1, a0), k), b.b);
        }
        oracle_hull ha = oracle_hull_of_capsule(&a), hb = oracle_hull_of_capsule(&b);
        if (d == ORACLE_NEAR) {
            oracle_translate_capsule(&b, oracle_touch_shift(&r.rng, &ha, &hb, false, hull_scale(&ha, &hb)));
            hb = oracle_hull_of_capsule(&b);
        }
        double rr = (double)a.radius + (double)b.radius;
        bool orc = oracle_dist2_segment_segment(oracle_v3_f(a.a), oracle_v3_f(a.b), oracle_v3_f(b.a), oracle_v3_f(b.b),
                                                NULL, NULL) <= rr * rr;
        if (!check_bool(&r, d, mq_overlap_capsule_capsule(&a, &b), orc, &ha, &hb) && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_capsule("a", &a);
            oracle_print_capsule("b", &b);
        }
    }
    mq_capsule a = {{0, 0, 0}, {4, 0, 0}, 1}, b = {{1, 2, 0}, {6, 2, 0}, 1}, c = {{2, -1, -3}, {2, 1, -3}, 2};
    soft(&r, mq_overlap_capsule_capsule(&a, &b), "exactly touching parallel capsules reported apart");
    soft(&r, mq_overlap_capsule_capsule(&a, &c), "exactly touching crossing capsules reported apart");
    oracle_run_finish(&r);
}

static void diff_capsule_aabb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_capsule_aabb", OVERLAP_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_capsule c;
        mq_aabb b;
        oracle_gen_capsule(&g, &c);
        oracle_gen_aabb(&g, &b);
        oracle_hull hc = oracle_hull_of_capsule(&c), hb = oracle_hull_of_aabb(&b);
        if (d == ORACLE_NEAR) {
            oracle_translate_capsule(&c, oracle_touch_shift(&r.rng, &hb, &hc, false, hull_scale(&hc, &hb)));
            hc = oracle_hull_of_capsule(&c);
        }
        oracle_box ob = oracle_box_from_aabb(&b);
        double rad = c.radius;
        bool orc = oracle_dist2_segment_box(oracle_v3_f(c.a), oracle_v3_f(c.b), &ob, NULL) <= rad * rad;
        if (!check_bool(&r, d, mq_overlap_capsule_aabb(&c, &b), orc, &hc, &hb) && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_capsule("c", &c);
            oracle_print_aabb("box", &b);
        }
    }
    mq_aabb box = {{0, 0, 0}, {1, 1, 1}};
    /* segment diagonal past a corner: not a sphere test at the ends; distance to the edge is exact
     */
    mq_capsule c = {{3, -1, 0.5f}, {-1, 3, 0.5f}, 0}, c2 = {{2, 2, 3}, {2, 2, -3}, 1};
    soft(&r, mq_overlap_capsule_aabb(&c, &box), "radius-0 capsule through a box edge reported apart");
    soft(&r, !mq_overlap_capsule_aabb(&c2, &box), "capsule at distance sqrt(2) > 1 from an edge reported overlapping");
    mq_aabb empty = {{0, 0, 1}, {1, 1, 0}};
    mq_capsule big = {{0, 0, 0}, {1, 1, 1}, 10};
    if (!oracle_stats_strict(&r.st, !mq_overlap_capsule_aabb(&big, &empty)))
        print_strict(&r, "empty AABB overlaps a capsule");
    oracle_run_finish(&r);
}

static void diff_capsule_obb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_capsule_obb", OVERLAP_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_capsule c;
        mq_obb b;
        oracle_gen_capsule(&g, &c);
        oracle_gen_obb(&g, &b);
        oracle_hull hc = oracle_hull_of_capsule(&c), hb = oracle_hull_of_obb(&b);
        if (d == ORACLE_NEAR) {
            oracle_translate_capsule(&c, oracle_touch_shift(&r.rng, &hb, &hc, false, hull_scale(&hc, &hb)));
            hc = oracle_hull_of_capsule(&c);
        }
        oracle_box ob = oracle_box_from_obb(&b);
        double rad = c.radius;
        bool orc = oracle_dist2_segment_box(oracle_v3_f(c.a), oracle_v3_f(c.b), &ob, NULL) <= rad * rad;
        if (!check_bool(&r, d, mq_overlap_capsule_obb(&c, &b), orc, &hc, &hb) && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_capsule("c", &c);
            oracle_print_obb("box", &b);
        }
    }
    mq_obb bad = {{0, 0, 0}, {1, 1, 1}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1.5f}}};
    mq_capsule big = {{0, 0, 0}, {1, 1, 1}, 10};
    if (!oracle_stats_strict(&r.st, !mq_overlap_capsule_obb(&big, &bad)))
        print_strict(&r, "OBB with a non-unit axis overlaps");
    oracle_run_finish(&r);
}

static void diff_capsule_triangle(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_capsule_triangle", OVERLAP_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_capsule c;
        mq_triangle t;
        oracle_gen_capsule(&g, &c);
        oracle_gen_triangle(&g, &t);
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.3)) {
            /* segment parallel to the triangle's plane (within rounding), or in it */
            oracle_tri ot = oracle_tri_from_mq(&t);
            double k = oracle_gen_chance(&g, 0.5) ? 0.0 : mq_test_rng_range(&r.rng, -1, 1) * g.size;
            oracle_v3 n = oracle_normalize(oracle_cross(oracle_sub(ot.v[1], ot.v[0]), oracle_sub(ot.v[2], ot.v[0])));
            oracle_v3 p0 = oracle_madd(
                oracle_madd(ot.v[0], oracle_sub(ot.v[1], ot.v[0]), mq_test_rng_range(&r.rng, -0.5, 1)), n, k);
            oracle_v3 p1 = oracle_madd(
                oracle_madd(ot.v[0], oracle_sub(ot.v[2], ot.v[0]), mq_test_rng_range(&r.rng, -0.5, 1.5)), n, k);
            oracle_v3_to_f(p0, c.a);
            oracle_v3_to_f(p1, c.b);
        } else if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.5)) {
            /* an end near the (degenerate) triangle, radius around that distance */
            oracle_v3_to_f(oracle_gen_point_near_triangle(&g, &t), c.a);
            oracle_tri ot = oracle_tri_from_mq(&t);
            c.radius =
                (float)(sqrt(oracle_dist2_segment_triangle(oracle_v3_f(c.a), oracle_v3_f(c.b), &ot, NULL, NULL, NULL)) *
                        mq_test_rng_range(&r.rng, 0.5, 1.5));
        }
        oracle_hull hc = oracle_hull_of_capsule(&c), ht = oracle_hull_of_triangle(&t);
        if (d == ORACLE_NEAR) {
            oracle_translate_capsule(&c, oracle_touch_shift(&r.rng, &ht, &hc, false, hull_scale(&hc, &ht)));
            hc = oracle_hull_of_capsule(&c);
        }
        oracle_tri ot = oracle_tri_from_mq(&t);
        double rad = c.radius;
        bool orc =
            oracle_dist2_segment_triangle(oracle_v3_f(c.a), oracle_v3_f(c.b), &ot, NULL, NULL, NULL) <= rad * rad;
        if (!check_bool(&r, d, mq_overlap_capsule_triangle(&c, &t), orc, &hc, &ht) &&
            oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_capsule("c", &c);
            oracle_print_tri("tri", &t);
        }
    }
    /* found by this test: a radius-0 capsule 3.17e-5 from a thin triangle (twice the
     * area / longest edge^2 = 4.9e-5), reported overlapping */
    mq_triangle thin = {{{-0x1.0c6b54p-1f, -0x1.1c7e1cp-1f, 0x1.90cf86p-3f},
                         {0x1.4869dcp-4f, -0x1.2310b8p+0f, 0x1.9a36fap-2f},
                         {0x1.7b7cp-2f, -0x1.6a8982p+0f, 0x1.fef792p-2f}}};
    mq_capsule near_thin = {
        {0x1.777d4cp-4f, -0x1.25e6cap+0f, 0x1.9e3c84p-2f}, {0x1.777d4cp-4f, -0x1.703b46p-1f, 0x1.9e3c84p-2f}, 0};
    if (!oracle_stats_strict(&r.st, !mq_overlap_capsule_triangle(&near_thin, &thin)))
        print_strict(&r, "thin-triangle reproducer: capsule r = 0 at distance 3.17e-5 reported overlapping");
    mq_triangle t = {{{0, 0, 0}, {4, 0, 0}, {0, 4, 0}}};
    mq_capsule pierce = {{1, 1, -1}, {1, 1, 1}, 0}, above = {{-3, 1, 2}, {5, 1, 2}, 2};
    /* piercing is deep (not touching): strict */
    if (!oracle_stats_strict(&r.st, mq_overlap_capsule_triangle(&pierce, &t)))
        print_strict(&r, "radius-0 capsule piercing a triangle reported apart");
    soft(&r, mq_overlap_capsule_triangle(&above, &t), "capsule exactly touching a triangle face reported apart");
    oracle_run_finish(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diff_sphere_sphere),    cmocka_unit_test(diff_sphere_aabb),
        cmocka_unit_test(diff_sphere_obb),       cmocka_unit_test(diff_sphere_capsule),
        cmocka_unit_test(diff_sphere_triangle),  cmocka_unit_test(diff_capsule_capsule),
        cmocka_unit_test(diff_capsule_aabb),     cmocka_unit_test(diff_capsule_obb),
        cmocka_unit_test(diff_capsule_triangle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
