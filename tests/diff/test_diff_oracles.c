/*
 * The oracles checked against each other. Every pair below is computed by two
 * unrelated methods (a minimiser over the shapes' parameters vs GJK on their
 * vertex hulls; a polytope crossing test vs the sign of the GJK / penetration
 * separation; a clipped ray vs the separation of its segment), so agreement
 * bounds the accuracy of both. The figures printed here are the "achieved
 * accuracy" quoted for the oracles; the tolerances asserted are far below the
 * bands used against the single-precision implementation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include "oracle.h"
#include "test_support.h"

/* Relative agreement required between two double oracles (scale ~ max |coordinate|). */
#define ORACLE_AGREE 1e-9

typedef struct agree {
    const char *name;
    long n;
    double max_err;
    long fails;
} agree;

static void agree_add(agree *a, double err_rel, double tol)
{
    a->n++;
    if (!(err_rel <= a->max_err))
        a->max_err = err_rel;
    if (!(err_rel <= tol))
        a->fails++;
}

static void agree_print(const agree *a)
{
    printf("[oracle] %-44s cases %6ld  max rel disagreement %.3g  over tolerance %ld\n", a->name, a->n, a->max_err,
           a->fails);
    fflush(stdout);
}

static double max3(double a, double b, double c)
{
    return fmax(a, fmax(b, c));
}

/* The minimisers against GJK on the same sets (only where the sets are apart,
 * where GJK's answer is a distance; touching configurations come from the
 * "near" distribution). */
static void distances_agree_with_gjk(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x0AC1E) ^ oracle_name_seed("dist-vs-gjk"));
    long n = oracle_case_count(20000);
    agree pt = {"point-triangle (golden) vs GJK", 0, 0, 0}, ss = {"segment-segment (golden) vs GJK", 0, 0, 0};
    agree st = {"segment-triangle (nested golden) vs GJK", 0, 0, 0},
          pb = {"point-box (coord. descent) vs GJK", 0, 0, 0};
    agree sb = {"segment-box (golden+CD) vs GJK", 0, 0, 0}, ps = {"point-segment (golden) vs projection", 0, 0, 0};
    for (long i = 0; i < n; i++) {
        oracle_gen g;
        oracle_gen_begin(&g, &rng, (oracle_distrib)(i % ORACLE_DIST_COUNT));
        mq_triangle mt;
        mq_capsule cap;
        mq_obb mb;
        oracle_gen_triangle(&g, &mt);
        oracle_gen_capsule(&g, &cap);
        oracle_gen_obb(&g, &mb);
        oracle_tri t = oracle_tri_from_mq(&mt);
        oracle_box b = oracle_box_from_obb(&mb);
        oracle_v3 a = oracle_v3_f(cap.a), c = oracle_v3_f(cap.b), p = oracle_gen_pos(&g);
        oracle_hull ht = oracle_hull_tri(&t), hb = oracle_hull_box(&b), hp = oracle_hull_points(&p, 1, 0.0);
        oracle_v3 segp[2] = {a, c};
        oracle_hull hs = oracle_hull_points(segp, 2, 0.0);
        mq_capsule cap2;
        oracle_gen_capsule(&g, &cap2);
        oracle_v3 segq[2] = {oracle_v3_f(cap2.a), oracle_v3_f(cap2.b)};
        oracle_hull hs2 = oracle_hull_points(segq, 2, 0.0);
        double sc = max3(oracle_tri_extent(&t), oracle_box_extent(&b), fmax(oracle_maxabs(p), oracle_hull_extent(&hs)));
        sc = fmax(sc, oracle_hull_extent(&hs2));
        double sep;
        if ((sep = oracle_separation(&hp, &ht, false, NULL)) > 0.0)
            agree_add(&pt, fabs(sqrt(oracle_dist2_point_triangle(p, &t, NULL, NULL)) - sep) / sc, ORACLE_AGREE);
        if ((sep = oracle_separation(&hs, &hs2, false, NULL)) > 0.0)
            agree_add(&ss, fabs(sqrt(oracle_dist2_segment_segment(a, c, segq[0], segq[1], NULL, NULL)) - sep) / sc,
                      ORACLE_AGREE);
        if ((sep = oracle_separation(&hs, &ht, false, NULL)) > 0.0)
            agree_add(&st, fabs(sqrt(oracle_dist2_segment_triangle(a, c, &t, NULL, NULL, NULL)) - sep) / sc,
                      ORACLE_AGREE);
        if ((sep = oracle_separation(&hp, &hb, false, NULL)) > 0.0)
            agree_add(&pb, fabs(sqrt(oracle_dist2_point_box(p, &b, NULL)) - sep) / sc, ORACLE_AGREE);
        if ((sep = oracle_separation(&hs, &hb, false, NULL)) > 0.0)
            agree_add(&sb, fabs(sqrt(oracle_dist2_segment_box(a, c, &b, NULL)) - sep) / sc, ORACLE_AGREE);
        agree_add(
            &ps,
            fabs(sqrt(oracle_dist2_point_segment(p, a, c, NULL)) - sqrt(oracle_dist2_point_segment_direct(p, a, c))) /
                sc,
            ORACLE_AGREE);
    }
    agree *all[] = {&ps, &pt, &ss, &st, &pb, &sb};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        agree_print(all[k]);
        assert_true(all[k]->n > 0);
        assert_int_equal(all[k]->fails, 0);
    }
}

/* Boolean oracles vs the sign of the separation, outside a 1e-9 band. */
static void booleans_agree_with_separation(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x0AC1E) ^ oracle_name_seed("bool-vs-sep"));
    long n = oracle_case_count(20000);
    agree bb = {"box-box crossing test vs separation sign", 0, 0, 0};
    agree tb = {"triangle-box crossing test vs separation sign", 0, 0, 0};
    agree tt = {"triangle-triangle crossing test vs sep. sign", 0, 0, 0};
    agree rr = {"rect2 clipping vs planar separation sign", 0, 0, 0};
    agree rb = {"ray-box plane clipping vs separation sign", 0, 0, 0};
    agree rc = {"ray-capsule bisection vs separation sign", 0, 0, 0};
    agree rt = {"ray-triangle (MT double) vs separation sign", 0, 0, 0};
    agree rs = {"ray-sphere vs ray-capsule(a==b) span", 0, 0, 0};
    agree ra = {"ray-aabb vs ray-box(world axes) span", 0, 0, 0};
    for (long i = 0; i < n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &rng, d);
        mq_obb o1, o2;
        mq_triangle mt1, mt2;
        oracle_gen_obb(&g, &o1);
        oracle_gen_obb(&g, &o2);
        oracle_gen_triangle(&g, &mt1);
        oracle_gen_triangle(&g, &mt2);
        oracle_hull h1 = oracle_hull_of_obb(&o1), h2 = oracle_hull_of_obb(&o2);
        oracle_hull ht1 = oracle_hull_of_triangle(&mt1), ht2 = oracle_hull_of_triangle(&mt2);
        if (d == ORACLE_NEAR) {
            oracle_translate_obb(&o2, oracle_touch_shift(&rng, &h1, &h2, false, g.size));
            oracle_translate_triangle(&mt1, oracle_touch_shift(&rng, &h1, &ht1, false, g.size));
            oracle_translate_triangle(&mt2, oracle_touch_shift(&rng, &ht1, &ht2, false, g.size));
            h2 = oracle_hull_of_obb(&o2);
            ht1 = oracle_hull_of_triangle(&mt1);
            ht2 = oracle_hull_of_triangle(&mt2);
        }
        oracle_box b1 = oracle_box_from_obb(&o1), b2 = oracle_box_from_obb(&o2);
        oracle_tri tr1 = oracle_tri_from_mq(&mt1), tr2 = oracle_tri_from_mq(&mt2);
        double sc = fmax(fmax(oracle_hull_extent(&h1), oracle_hull_extent(&h2)),
                         fmax(oracle_hull_extent(&ht1), oracle_hull_extent(&ht2)));
        /* err = |sep| when the answers differ, else 0 */
        double sep = oracle_separation(&h1, &h2, false, NULL);
        agree_add(&bb, oracle_overlap_box_box(&b1, &b2) == (sep <= 0.0) ? 0.0 : fabs(sep) / sc, ORACLE_AGREE);
        sep = oracle_separation(&ht1, &h1, false, NULL);
        agree_add(&tb, oracle_overlap_triangle_box(&tr1, &b1) == (sep <= 0.0) ? 0.0 : fabs(sep) / sc, ORACLE_AGREE);
        sep = oracle_separation(&ht1, &ht2, false, NULL);
        agree_add(&tt, oracle_overlap_triangle_triangle(&tr1, &tr2) == (sep <= 0.0) ? 0.0 : fabs(sep) / sc,
                  ORACLE_AGREE);

        /* 2D: the boxes' first two corners patterns, flattened */
        double ra2[4][2], rb2[4][2];
        oracle_hull f1 = h1, f2 = h2;
        static const int cyc[4] = {0, 1, 3, 2};
        for (int k = 0; k < 4; k++) {
            ra2[k][0] = h1.p[cyc[k]].x;
            ra2[k][1] = h1.p[cyc[k]].y;
            rb2[k][0] = h2.p[cyc[k]].x;
            rb2[k][1] = h2.p[cyc[k]].y;
            f1.p[k] = oracle_v3_make(ra2[k][0], ra2[k][1], 0);
            f2.p[k] = oracle_v3_make(rb2[k][0], rb2[k][1], 0);
        }
        f1.n = f2.n = 4;
        sep = oracle_separation(&f1, &f2, true, NULL);
        agree_add(&rr,
                  oracle_overlap_convex2((const double(*)[2])ra2, 4, (const double(*)[2])rb2, 4) == (sep <= 0.0)
                      ? 0.0
                      : fabs(sep) / sc,
                  ORACLE_AGREE);

        /* rays */
        mq_ray mr;
        oracle_gen_ray(&g, oracle_v3_f(o1.center), &mr);
        oracle_ray r = oracle_ray_from_mq(&mr);
        oracle_hull hr = oracle_hull_ray(&r, &h1);
        double t0, t1, u, v;
        bool back;
        double rsc = fmax(sc, oracle_maxabs(r.o));
        sep = oracle_separation(&hr, &h1, false, NULL);
        agree_add(&rb, oracle_ray_box(&r, &b1, &t0, &t1) == (sep <= 0.0) ? 0.0 : fabs(sep) / rsc, ORACLE_AGREE);
        mq_capsule cap;
        oracle_gen_capsule(&g, &cap);
        oracle_hull hc = oracle_hull_of_capsule(&cap);
        hr = oracle_hull_ray(&r, &hc);
        sep = oracle_separation(&hr, &hc, false, NULL);
        double csc = fmax(rsc, oracle_hull_extent(&hc));
        agree_add(&rc,
                  oracle_ray_capsule(&r, oracle_v3_f(cap.a), oracle_v3_f(cap.b), cap.radius, &t0, &t1) == (sep <= 0.0)
                      ? 0.0
                      : fabs(sep) / csc,
                  ORACLE_AGREE);
        hr = oracle_hull_ray(&r, &ht1);
        sep = oracle_separation(&hr, &ht1, false, NULL);
        bool hit = oracle_ray_triangle(&r, &tr1, &t0, &u, &v, &back);
        /* coplanar and zero-area triangles are misses by contract although the
         * sets touch: the separation is then ~0 and passes */
        agree_add(&rt, hit == (sep <= 0.0) ? 0.0 : fabs(sep) / fmax(rsc, oracle_hull_extent(&ht1)), 1e-7);

        double s0, s1, c0, c1;
        bool hs = oracle_ray_sphere(&r, oracle_v3_f(cap.a), cap.radius, &s0, &s1);
        bool hcap = oracle_ray_capsule(&r, oracle_v3_f(cap.a), oracle_v3_f(cap.a), cap.radius, &c0, &c1);
        double dl = oracle_len(r.d);
        if (hs && hcap)
            agree_add(&rs, fmax(fabs(s0 - c0), fabs(s1 - c1)) * dl / csc, 1e-7);
        else if (hs != hcap)
            agree_add(&rs, (hs ? s1 - s0 : c1 - c0) * dl / csc, 1e-7); /* grazing only */

        mq_aabb ab;
        oracle_gen_aabb(&g, &ab);
        oracle_box abx = oracle_box_from_aabb(&ab);
        bool h_a = oracle_ray_aabb(&r, oracle_v3_f(ab.min), oracle_v3_f(ab.max), &s0, &s1);
        bool h_b = oracle_ray_box(&r, &abx, &c0, &c1);
        double asc = fmax(rsc, oracle_box_extent(&abx));
        if (h_a && h_b)
            agree_add(&ra, fmax(fabs(s0 - c0), fabs(s1 - c1)) * dl / asc, ORACLE_AGREE);
        else if (h_a != h_b)
            agree_add(&ra, (h_a ? s1 - s0 : c1 - c0) * dl / asc, ORACLE_AGREE);
    }
    agree *all[] = {&bb, &tb, &tt, &rr, &rb, &rc, &rt, &rs, &ra};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        agree_print(all[k]);
        assert_int_equal(all[k]->fails, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(distances_agree_with_gjk),
        cmocka_unit_test(booleans_agree_with_separation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
