/*
 * Closest-point functions against iterative double-precision minimisers
 * (golden section over the shapes' parameters, coordinate descent for boxes).
 *
 * For each case, with scale = the largest |coordinate| of the inputs:
 *   - |sqrt(returned) - oracle distance| <= DIST_TOL * scale;
 *   - every output point lies on its set (its oracle distance to the set is
 *     <= DIST_TOL * scale) and the output points realise the returned distance
 *     (| |out_a - out_b| - sqrt(returned) | <= DIST_TOL * scale);
 *   - t in [0, 1] and barycentrics that name the output point.
 * The oracles agree with GJK to ~1e-15 relative (test_diff_oracles).
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

/* 32 float ulps of the scale: distances are differences of coordinates and a
 * few products, so a backward-stable float algorithm is within a handful of
 * ulps (measured: 5e-7 over 7 seeds, outside the thin-triangle failures). */
#ifndef DIST_TOL
#define DIST_TOL 2e-6
#endif
#define N_CASES 100000

typedef oracle_run run;

static bool value(run *r, double err, double scale, const char *what, bool *ok)
{
    bool pass = oracle_stats_value(&r->st, err / scale, DIST_TOL);
    if (!pass && oracle_stats_should_print(&r->st))
        printf("  FAILURE %s: %s off by %.3g (%.3g of scale %.3g)\n", r->st.name, what, err, err / scale, scale);
    *ok = *ok && pass;
    return pass;
}

static void strict(run *r, bool cond, const char *what)
{
    if (!oracle_stats_strict(&r->st, cond) && oracle_stats_should_print(&r->st)) {
        oracle_stats_printed(&r->st);
        printf("  STRICT FAILURE %s: %s\n", r->st.name, what);
    }
}

/* Simple integer cases: equal to float rounding. */
static bool near(double x, double y)
{
    return fabs(x - y) <= 1e-6 * fmax(1.0, fabs(y));
}

static bool all_nan3(const float *v)
{
    return isnan(v[0]) && isnan(v[1]) && isnan(v[2]);
}

static double scale_of(const oracle_v3 *p, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s = fmax(s, oracle_maxabs(p[i]));
    return s + 1e-300;
}

/* ------------------------------------------------------------------------- */

static void diff_closest_point_segment(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "closest_point_segment", DIST_TOL, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        oracle_stats_case(&r.st, d);
        mq_capsule c;
        oracle_gen_capsule(&g, &c);
        vec3 p;
        oracle_v3 pp = oracle_gen_pos(&g);
        if (d == ORACLE_NEAR) {
            /* a point on (or within a jitter of) the segment */
            oracle_v3 a = oracle_v3_f(c.a), b = oracle_v3_f(c.b);
            pp = oracle_madd(a, oracle_sub(b, a), mq_test_rng_range(&r.rng, -0.1, 1.1));
            double u[3];
            mq_test_rng_unit_vector(&r.rng, u);
            pp = oracle_madd(pp, oracle_v3_make(u[0], u[1], u[2]), oracle_jitter(&r.rng, g.size));
        }
        oracle_v3_to_f(pp, p);
        oracle_v3 P = oracle_v3_f(p), A = oracle_v3_f(c.a), B = oracle_v3_f(c.b);
        oracle_v3 pts[3] = {P, A, B};
        double scale = scale_of(pts, 3);
        vec3 out = {NAN, NAN, NAN};
        float t = NAN;
        float d2 = mq_closest_point_segment(p, c.a, c.b, out, &t);
        double dist = sqrt(oracle_dist2_point_segment(P, A, B, NULL));
        bool ok = true;
        value(&r, fabs(sqrt(d2) - dist), scale, "distance", &ok);
        oracle_v3 O = oracle_v3_f(out);
        value(&r, sqrt(oracle_dist2_point_segment_direct(O, A, B)), scale, "point on segment", &ok);
        value(&r, fabs(oracle_dist(O, P) - sqrt(d2)), scale, "point realises distance", &ok);
        strict(&r, t >= 0.0f && t <= 1.0f, "t outside [0, 1]");
        ok = ok && t >= 0.0f && t <= 1.0f;
        value(&r, oracle_dist(O, oracle_madd(A, oracle_sub(B, A), t)), scale, "t names the point", &ok);
        float d2n = mq_closest_point_segment(p, c.a, c.b, NULL, NULL);
        value(&r, fabs(sqrt(d2n) - sqrt(d2)), scale, "same distance with NULL outputs", &ok);
        if (!ok && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_v3f("p", p);
            oracle_print_v3f("a", c.a);
            oracle_print_v3f("b", c.b);
            printf("    got d2 %a t %a out {%a, %a, %a}; oracle distance %.17g\n", d2, t, out[0], out[1], out[2], dist);
        }
    }
    vec3 a = {1, 1, 1}, p = {2, 3, 4}, nanp = {NAN, 0, 0};
    vec3 out;
    float t;
    float d2 = mq_closest_point_segment(p, a, a, out, &t);
    strict(&r, near(d2, 14.0) && near(out[0], 1.0) && t >= 0.0f && t <= 1.0f, "a == b (point segment)");
    d2 = mq_closest_point_segment(nanp, a, p, out, &t);
    strict(&r, isnan(d2) && all_nan3(out), "NaN in -> NaN out");
    oracle_run_finish(&r);
}

static void diff_closest_point_aabb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "closest_point_aabb", DIST_TOL, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        oracle_stats_case(&r.st, d);
        mq_aabb b;
        oracle_gen_aabb(&g, &b);
        oracle_hull hb = oracle_hull_of_aabb(&b);
        vec3 p;
        oracle_v3 pp = oracle_gen_pos(&g);
        if (d == ORACLE_NEAR) {
            oracle_hull hp = oracle_hull_points(&pp, 1, 0.0);
            pp = oracle_add(pp, oracle_touch_shift(&r.rng, &hb, &hp, false, oracle_hull_extent(&hb)));
        }
        oracle_v3_to_f(pp, p);
        oracle_box ob = oracle_box_from_aabb(&b);
        oracle_v3 P = oracle_v3_f(p);
        double scale = fmax(oracle_hull_extent(&hb), oracle_maxabs(P)) + 1e-300;
        vec3 out = {NAN, NAN, NAN};
        float d2 = mq_closest_point_aabb(p, &b, out);
        double dist = sqrt(oracle_dist2_point_box(P, &ob, NULL));
        oracle_v3 O = oracle_v3_f(out);
        bool ok = true;
        value(&r, fabs(sqrt(d2) - dist), scale, "distance", &ok);
        value(&r, sqrt(oracle_dist2_point_box(O, &ob, NULL)), scale, "point in box", &ok);
        value(&r, fabs(oracle_dist(O, P) - sqrt(d2)), scale, "point realises distance", &ok);
        /* p inside: p itself (documented) */
        bool inside = true;
        for (int k = 0; k < 3; k++)
            inside = inside && p[k] >= b.min[k] && p[k] <= b.max[k];
        if (inside) {
            bool same = out[0] == p[0] && out[1] == p[1] && out[2] == p[2] && d2 == 0.0f;
            strict(&r, same, "point inside the box is not returned as itself");
            ok = ok && same;
        }
        if (!ok && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_v3f("p", p);
            oracle_print_aabb("box", &b);
            printf("    got d2 %a out {%a, %a, %a}; oracle distance %.17g\n", d2, out[0], out[1], out[2], dist);
        }
    }
    mq_aabb empty = {{0, 0, 0}, {1, -1, 1}}, nanb = {{0, 0, 0}, {1, 1, NAN}};
    vec3 p = {0.5f, 0.5f, 0.5f}, out;
    strict(&r, isnan(mq_closest_point_aabb(p, &empty, out)) && all_nan3(out), "empty box gives NaN");
    strict(&r, isnan(mq_closest_point_aabb(p, &nanb, out)) && all_nan3(out), "NaN box gives NaN");
    oracle_run_finish(&r);
}

static void diff_closest_point_obb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "closest_point_obb", DIST_TOL, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        oracle_stats_case(&r.st, d);
        mq_obb b;
        oracle_gen_obb(&g, &b);
        oracle_hull hb = oracle_hull_of_obb(&b);
        vec3 p;
        oracle_v3 pp = oracle_gen_pos(&g);
        if (d == ORACLE_NEAR) {
            oracle_hull hp = oracle_hull_points(&pp, 1, 0.0);
            pp = oracle_add(pp, oracle_touch_shift(&r.rng, &hb, &hp, false, oracle_hull_extent(&hb)));
        }
        oracle_v3_to_f(pp, p);
        oracle_box ob = oracle_box_from_obb(&b);
        oracle_v3 P = oracle_v3_f(p);
        double scale = fmax(oracle_hull_extent(&hb), oracle_maxabs(P)) + 1e-300;
        vec3 out = {NAN, NAN, NAN};
        float d2 = mq_closest_point_obb(p, &b, out);
        double dist = sqrt(oracle_dist2_point_box(P, &ob, NULL));
        oracle_v3 O = oracle_v3_f(out);
        bool ok = true;
        value(&r, fabs(sqrt(d2) - dist), scale, "distance", &ok);
        value(&r, sqrt(oracle_dist2_point_box(O, &ob, NULL)), scale, "point in box", &ok);
        value(&r, fabs(oracle_dist(O, P) - sqrt(d2)), scale, "point realises distance", &ok);
        if (oracle_sdf_box(P, &ob) < -DIST_TOL * scale) {
            /* deep inside: p itself, to rounding (the box frame round trip may move it) */
            value(&r, oracle_dist(O, P), scale, "point inside returned as itself", &ok);
        }
        if (!ok && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_v3f("p", p);
            oracle_print_obb("box", &b);
            printf("    got d2 %a out {%a, %a, %a}; oracle distance %.17g\n", d2, out[0], out[1], out[2], dist);
        }
    }
    mq_obb skew = {{0, 0, 0}, {1, 1, 1}, {{1, 0, 0}, {0.1f, 1, 0}, {0, 0, 1}}};
    mq_obb neg = {{0, 0, 0}, {1, 1, -1}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    vec3 p = {3, 0, 0}, out;
    strict(&r, isnan(mq_closest_point_obb(p, &skew, out)) && all_nan3(out), "non-orthonormal OBB gives NaN");
    strict(&r, isnan(mq_closest_point_obb(p, &neg, out)) && all_nan3(out), "negative half extent gives NaN");
    oracle_run_finish(&r);
}

static void diff_closest_point_triangle(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "closest_point_triangle", DIST_TOL, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        oracle_stats_case(&r.st, d);
        mq_triangle t;
        oracle_gen_triangle(&g, &t);
        oracle_hull ht = oracle_hull_of_triangle(&t);
        vec3 p;
        oracle_v3 pp = oracle_gen_pos(&g);
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.5))
            pp = oracle_gen_point_near_triangle(&g, &t); /* near a needle / tiny / flat triangle */
        if (d == ORACLE_NEAR) {
            oracle_hull hp = oracle_hull_points(&pp, 1, 0.0);
            pp = oracle_add(pp, oracle_touch_shift(&r.rng, &ht, &hp, false, oracle_hull_extent(&ht)));
        }
        oracle_v3_to_f(pp, p);
        oracle_tri ot = oracle_tri_from_mq(&t);
        oracle_v3 P = oracle_v3_f(p);
        double scale = fmax(oracle_hull_extent(&ht), oracle_maxabs(P)) + 1e-300;
        vec3 out = {NAN, NAN, NAN};
        vec2 uv = {NAN, NAN};
        float d2 = mq_closest_point_triangle(p, &t, out, uv);
        double dist = sqrt(oracle_dist2_point_triangle(P, &ot, NULL, NULL));
        oracle_v3 O = oracle_v3_f(out);
        bool ok = true;
        value(&r, fabs(sqrt(d2) - dist), scale, "distance", &ok);
        value(&r, sqrt(oracle_dist2_point_triangle(O, &ot, NULL, NULL)), scale, "point on triangle", &ok);
        value(&r, fabs(oracle_dist(O, P) - sqrt(d2)), scale, "point realises distance", &ok);
        oracle_v3 pb =
            oracle_add(oracle_add(oracle_mul(ot.v[0], 1.0 - (double)uv[0] - (double)uv[1]), oracle_mul(ot.v[1], uv[0])),
                       oracle_mul(ot.v[2], uv[1]));
        value(&r, oracle_dist(pb, O), scale, "barycentrics name the point", &ok);
        vec2 uv2;
        float d2b = mq_closest_point_triangle(p, &t, NULL, uv2);
        float d2c = mq_closest_point_triangle(p, &t, NULL, NULL);
        value(&r, fmax(fabs(sqrt(d2b) - sqrt(d2)), fabs(sqrt(d2c) - sqrt(d2))), scale,
              "same distance with NULL outputs", &ok);
        if (!ok && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_v3f("p", p);
            oracle_print_tri("tri", &t);
            printf("    got d2 %a out {%a, %a, %a} uv {%a, %a}; oracle distance %.17g\n", d2, out[0], out[1], out[2],
                   uv[0], uv[1], dist);
        }
    }
    /* found by this test (thin triangle, |n| / (|e01| |e02|) = 3.8e-5; p within 2.7e-9
     * of it): the face branch's barycentrics are far off and so is the distance */
    {
        vec3 q = {-0x1.1eb1bp+0f, -0x1.9ea19p-2f, 0x1.9d3b66p+0f};
        mq_triangle thin = {{{-0x1.071866p+0f, 0x1.49e768p-1f, 0x1.7b355ep-1f},
                             {-0x1.3a3ddcp+0f, -0x1.a13698p+0f, 0x1.5123bp+1f},
                             {-0x1.073cdp+0f, 0x1.46aa1ap-1f, 0x1.7de7d4p-1f}}};
        vec3 o;
        vec2 w;
        float d2 = mq_closest_point_triangle(q, &thin, o, w);
        bool ok = true;
        value(&r, sqrt(d2) - 2.6794776180042891e-09, 2.63, "thin-triangle reproducer: distance", &ok);
    }
    mq_triangle seg = {{{0, 0, 0}, {2, 0, 0}, {2, 0, 0}}}, pt = {{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}};
    vec3 p = {1, 3, 0}, out;
    vec2 uv;
    strict(&r, near(mq_closest_point_triangle(p, &seg, out, uv), 9.0) && near(out[0], 1.0) && near(out[1], 0.0),
           "zero-area triangle as its segment");
    strict(&r, near(mq_closest_point_triangle(p, &pt, out, uv), 5.0) && near(out[0], 1.0) && near(out[2], 1.0),
           "point triangle");
    mq_triangle nant = {{{0, 0, 0}, {2, 0, 0}, {0, NAN, 0}}};
    strict(&r, isnan(mq_closest_point_triangle(p, &nant, out, uv)) && all_nan3(out), "NaN triangle gives NaN");
    oracle_run_finish(&r);
}

static void diff_closest_points_segment_segment(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "closest_points_segment_segment", DIST_TOL, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        oracle_stats_case(&r.st, d);
        mq_capsule a, b;
        oracle_gen_capsule(&g, &a);
        oracle_gen_capsule(&g, &b);
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.5)) {
            /* parallel, nearly parallel or collinear */
            oracle_v3 a0 = oracle_v3_f(a.a), a1 = oracle_v3_f(a.b);
            oracle_v3 o = oracle_gen_chance(&g, 0.3)
                              ? oracle_madd(a0, oracle_sub(a1, a0), mq_test_rng_range(&r.rng, -1, 2))
                              : oracle_v3_f(b.a);
            double u[3];
            mq_test_rng_unit_vector(&r.rng, u);
            oracle_v3 e = oracle_madd(oracle_sub(a1, a0), oracle_v3_make(u[0], u[1], u[2]),
                                      oracle_gen_chance(&g, 0.5) ? 0.0 : 1e-6 * oracle_dist(a0, a1));
            oracle_v3_to_f(o, b.a);
            oracle_v3_to_f(oracle_madd(o, e, mq_test_rng_range(&r.rng, -1.5, 1.5)), b.b);
        }
        oracle_hull ha = oracle_hull_of_capsule(&a), hb = oracle_hull_of_capsule(&b);
        ha.r = hb.r = 0.0;
        if (d == ORACLE_NEAR) {
            oracle_translate_capsule(&b, oracle_touch_shift(&r.rng, &ha, &hb, false, oracle_hull_extent(&ha)));
            hb = oracle_hull_of_capsule(&b);
            hb.r = 0.0;
        }
        oracle_v3 A0 = oracle_v3_f(a.a), A1 = oracle_v3_f(a.b), B0 = oracle_v3_f(b.a), B1 = oracle_v3_f(b.b);
        oracle_v3 pts[4] = {A0, A1, B0, B1};
        double scale = scale_of(pts, 4);
        vec3 oa = {NAN, NAN, NAN}, ob = {NAN, NAN, NAN};
        float d2 = mq_closest_points_segment_segment(a.a, a.b, b.a, b.b, oa, ob);
        double dist = sqrt(oracle_dist2_segment_segment(A0, A1, B0, B1, NULL, NULL));
        oracle_v3 OA = oracle_v3_f(oa), OB = oracle_v3_f(ob);
        bool ok = true;
        value(&r, fabs(sqrt(d2) - dist), scale, "distance", &ok);
        value(&r, sqrt(oracle_dist2_point_segment_direct(OA, A0, A1)), scale, "out_a on segment a", &ok);
        value(&r, sqrt(oracle_dist2_point_segment_direct(OB, B0, B1)), scale, "out_b on segment b", &ok);
        value(&r, fabs(oracle_dist(OA, OB) - sqrt(d2)), scale, "points realise distance", &ok);
        float d2n = mq_closest_points_segment_segment(a.a, a.b, b.a, b.b, NULL, NULL);
        value(&r, fabs(sqrt(d2n) - sqrt(d2)), scale, "same distance with NULL outputs", &ok);
        if (!ok && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_capsule("segment a", &a);
            oracle_print_capsule("segment b", &b);
            printf("    got d2 %a out_a {%a, %a, %a} out_b {%a, %a, %a}; oracle distance %.17g\n", d2, oa[0], oa[1],
                   oa[2], ob[0], ob[1], ob[2], dist);
        }
    }
    vec3 a0 = {0, 0, 0}, a1 = {4, 0, 0}, b0 = {1, 2, 0}, b1 = {6, 2, 0}, oa, ob;
    strict(&r, near(mq_closest_points_segment_segment(a0, a1, b0, b1, oa, ob), 4.0), "parallel overlapping segments");
    strict(&r, near(mq_closest_points_segment_segment(a0, a0, b0, b0, oa, ob), 5.0) && oa[0] == 0.0f && ob[0] == 1.0f,
           "two points");
    vec3 nanv = {0, NAN, 0};
    strict(&r, isnan(mq_closest_points_segment_segment(a0, nanv, b0, b1, oa, ob)) && all_nan3(oa) && all_nan3(ob),
           "NaN in -> NaN out");
    oracle_run_finish(&r);
}

static void diff_closest_points_segment_triangle(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "closest_points_segment_triangle", DIST_TOL, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        oracle_stats_case(&r.st, d);
        mq_capsule s;
        mq_triangle t;
        oracle_gen_capsule(&g, &s);
        oracle_gen_triangle(&g, &t);
        oracle_tri ot = oracle_tri_from_mq(&t);
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.4)) {
            /* parallel to the plane (within rounding), in it, or crossing an edge in it */
            double k = oracle_gen_chance(&g, 0.5) ? 0.0 : mq_test_rng_range(&r.rng, -1, 1) * g.size;
            oracle_v3 n = oracle_normalize(oracle_cross(oracle_sub(ot.v[1], ot.v[0]), oracle_sub(ot.v[2], ot.v[0])));
            oracle_v3 p0 = oracle_madd(
                oracle_madd(ot.v[0], oracle_sub(ot.v[1], ot.v[0]), mq_test_rng_range(&r.rng, -0.5, 1.5)), n, k);
            oracle_v3 p1 = oracle_madd(
                oracle_madd(ot.v[0], oracle_sub(ot.v[2], ot.v[0]), mq_test_rng_range(&r.rng, -0.5, 1.5)), n, k);
            oracle_v3_to_f(p0, s.a);
            oracle_v3_to_f(p1, s.b);
        } else if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.5)) {
            /* one or both ends near the (degenerate) triangle */
            oracle_v3_to_f(oracle_gen_point_near_triangle(&g, &t), s.a);
            if (oracle_gen_chance(&g, 0.5))
                oracle_v3_to_f(oracle_gen_point_near_triangle(&g, &t), s.b);
        }
        oracle_hull hs = oracle_hull_of_capsule(&s), ht = oracle_hull_of_triangle(&t);
        hs.r = 0.0;
        if (d == ORACLE_NEAR) {
            oracle_translate_capsule(&s, oracle_touch_shift(&r.rng, &ht, &hs, false, oracle_hull_extent(&ht)));
            hs = oracle_hull_of_capsule(&s);
            hs.r = 0.0;
        }
        oracle_v3 A = oracle_v3_f(s.a), B = oracle_v3_f(s.b);
        double scale = fmax(oracle_hull_extent(&hs), oracle_hull_extent(&ht)) + 1e-300;
        vec3 os = {NAN, NAN, NAN}, otp = {NAN, NAN, NAN};
        float d2 = mq_closest_points_segment_triangle(s.a, s.b, &t, os, otp);
        double dist = sqrt(oracle_dist2_segment_triangle(A, B, &ot, NULL, NULL, NULL));
        oracle_v3 OS = oracle_v3_f(os), OT = oracle_v3_f(otp);
        bool ok = true;
        value(&r, fabs(sqrt(d2) - dist), scale, "distance", &ok);
        value(&r, sqrt(oracle_dist2_point_segment_direct(OS, A, B)), scale, "out_segment on segment", &ok);
        value(&r, sqrt(oracle_dist2_point_triangle(OT, &ot, NULL, NULL)), scale, "out_triangle on triangle", &ok);
        value(&r, fabs(oracle_dist(OS, OT) - sqrt(d2)), scale, "points realise distance", &ok);
        float d2n = mq_closest_points_segment_triangle(s.a, s.b, &t, NULL, NULL);
        value(&r, fabs(sqrt(d2n) - sqrt(d2)), scale, "same distance with NULL outputs", &ok);
        if (!ok && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_capsule("segment", &s);
            oracle_print_tri("tri", &t);
            printf("    got d2 %a out_segment {%a, %a, %a} out_triangle {%a, %a, %a}; oracle "
                   "distance %.17g\n",
                   d2, os[0], os[1], os[2], otp[0], otp[1], otp[2], dist);
        }
    }
    /* found by this test: distance 0 reported, but the two points 1.65e-3 apart (thin
     * triangle, the segment's end a within 9.5e-9 of it) */
    {
        vec3 a = {-0x1.2ef0a4p-1f, 0x1.77333ep+0f, 0x1.01652cp+0f},
             b = {-0x1.32b094p-2f, 0x1.773f34p+0f, 0x1.40f32ep+0f};
        mq_triangle thin = {{{-0x1.31ed72p-2f, 0x1.773f4p+0f, 0x1.411c98p+0f},
                             {-0x1.aeb2f8p+0f, 0x1.770686p+0f, 0x1.4233ep-4f},
                             {-0x1.2e2364p-2f, 0x1.773f7cp+0f, 0x1.41ea7ep+0f}}};
        vec3 os, otp;
        float d2 = mq_closest_points_segment_triangle(a, b, &thin, os, otp);
        bool ok = true;
        value(&r, fabs(oracle_dist(oracle_v3_f(os), oracle_v3_f(otp)) - sqrt(d2)), 1.68,
              "thin-triangle reproducer: points realise distance", &ok);
    }
    /* found by test_diff_overlaps: distance 0 reported for a segment 3.17e-5 from a thin
     * triangle (twice the area / longest edge^2 = 4.9e-5) */
    {
        vec3 a = {0x1.777d4cp-4f, -0x1.25e6cap+0f, 0x1.9e3c84p-2f},
             b = {0x1.777d4cp-4f, -0x1.703b46p-1f, 0x1.9e3c84p-2f};
        mq_triangle thin = {{{-0x1.0c6b54p-1f, -0x1.1c7e1cp-1f, 0x1.90cf86p-3f},
                             {0x1.4869dcp-4f, -0x1.2310b8p+0f, 0x1.9a36fap-2f},
                             {0x1.7b7cp-2f, -0x1.6a8982p+0f, 0x1.fef792p-2f}}};
        bool ok = true;
        value(&r, sqrt(mq_closest_points_segment_triangle(a, b, &thin, NULL, NULL)) - 3.1743489e-05, 1.42,
              "thin-triangle reproducer: distance", &ok);
    }
    mq_triangle t = {{{0, 0, 0}, {4, 0, 0}, {0, 4, 0}}};
    vec3 a = {1, 1, -1}, b = {1, 1, 1}, os, otp;
    strict(&r, near(mq_closest_points_segment_triangle(a, b, &t, os, otp), 0.0), "segment crossing the triangle: 0");
    vec3 c = {-1, -1, 3}, e = {5, 5, 3};
    strict(&r, near(mq_closest_points_segment_triangle(c, e, &t, os, otp), 9.0), "segment parallel above the triangle");
    vec3 nanv = {NAN, 0, 0};
    strict(&r, isnan(mq_closest_points_segment_triangle(nanv, b, &t, os, otp)) && all_nan3(os) && all_nan3(otp),
           "NaN in -> NaN out");
    oracle_run_finish(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diff_closest_point_segment),
        cmocka_unit_test(diff_closest_point_aabb),
        cmocka_unit_test(diff_closest_point_obb),
        cmocka_unit_test(diff_closest_point_triangle),
        cmocka_unit_test(diff_closest_points_segment_segment),
        cmocka_unit_test(diff_closest_points_segment_triangle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
