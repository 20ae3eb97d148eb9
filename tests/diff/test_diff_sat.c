/*
 * Box, triangle and 2D rectangle overlap tests (the implementations are
 * separating-axis tests) against oracles that use no separating axes at all:
 * the convex-polytope test (a vertex of one inside the other, or an edge of one
 * crossing a face of the other) in 3D, Sutherland-Hodgman clipping in 2D.
 *
 * Band: a disagreement is tolerated only when the oracle's signed separation
 * (GJK distance when apart, exact penetration depth when overlapping) is within
 * SAT_BAND * scale, scale = the largest |coordinate| of the case.
 *
 * Why 1e-11: the header promises single precision, but these implementations
 * evaluate the separating axes in double (float inputs are exact in double,
 * products of two of them are exact) with a one-sided margin of 2^-44 times
 * the configuration size, biased towards "overlap". The oracles decide with a
 * tolerance of 1e-12 * scale. The largest disagreement measured over 7 seeds x
 * 100k cases per predicate is 1.1e-12 of the scale; 1e-11 keeps a factor 10
 * and is still 10^5 times tighter than a single-precision test could be.
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

#define SAT_BAND 1e-11
#define N_CASES 100000

typedef oracle_run run;

static double hull_scale(const oracle_hull *a, const oracle_hull *b)
{
    return fmax(oracle_hull_extent(a), oracle_hull_extent(b)) + 1e-300;
}

static bool check_bool(run *r, oracle_distrib d, bool impl, bool orc, const oracle_hull *a, const oracle_hull *b,
                       bool planar)
{
    double sep = 0.0;
    if (impl != orc)
        sep = oracle_separation(a, b, planar, NULL);
    bool ok = oracle_stats_bool(&r->st, d, impl, orc, sep, hull_scale(a, b));
    if (!ok && oracle_stats_should_print(&r->st))
        printf("  MISMATCH %s (%s): implementation %s, oracle %s, separation %.9g (scale %.6g)\n", r->st.name,
               oracle_dist_name(d), impl ? "overlap" : "apart", orc ? "overlap" : "apart", sep, hull_scale(a, b));
    return ok;
}

static void strict(run *r, bool ok, const char *what)
{
    if (!oracle_stats_strict(&r->st, ok) && oracle_stats_should_print(&r->st)) {
        oracle_stats_printed(&r->st);
        printf("  STRICT FAILURE %s: %s\n", r->st.name, what);
    }
}

static void soft(run *r, bool ok, const char *what)
{
    if (!oracle_stats_soft(&r->st, ok))
        printf("  note %s: %s\n", r->st.name, what);
}

/* b's axes = a's axes turned by at most 1e-6 rad: every edge pair nearly parallel. */
static void nearly_same_axes(mq_test_rng *rng, const mq_obb *a, mq_obb *b)
{
    oracle_v3 rot[3], ax[3];
    oracle_random_axes(rng, true, rot);
    /* oracle_random_axes(near) = signed permutation * small rotation; keep the permutation too */
    for (int i = 0; i < 3; i++) {
        oracle_v3 s = oracle_v3_f(a->axes[i]);
        ax[i] = oracle_add(oracle_add(oracle_mul(rot[0], s.x), oracle_mul(rot[1], s.y)), oracle_mul(rot[2], s.z));
        oracle_v3_to_f(ax[i], b->axes[i]);
    }
}

static bool aabb_empty(const mq_aabb *b)
{
    return b->min[0] > b->max[0] || b->min[1] > b->max[1] || b->min[2] > b->max[2];
}

/* ------------------------------------------------------------------------- */

static void diff_aabb_aabb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_aabb_aabb", SAT_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_aabb a, b;
        oracle_gen_aabb(&g, &a);
        oracle_gen_aabb(&g, &b);
        oracle_hull ha = oracle_hull_of_aabb(&a), hb = oracle_hull_of_aabb(&b);
        if (d == ORACLE_NEAR) {
            oracle_translate_aabb(&b, oracle_touch_shift(&r.rng, &ha, &hb, false, hull_scale(&ha, &hb)));
            hb = oracle_hull_of_aabb(&b);
        }
        oracle_box oa = oracle_box_from_aabb(&a), ob = oracle_box_from_aabb(&b);
        bool orc = oracle_overlap_box_box(&oa, &ob);
        if (!check_bool(&r, d, mq_overlap_aabb_aabb(&a, &b), orc, &ha, &hb, false) &&
            oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_aabb("a", &a);
            oracle_print_aabb("b", &b);
        }
        /* comparisons only: exact touching is decidable, so shared faces are strict */
        if (d == ORACLE_DEGEN) {
            mq_aabb c = b;
            int ax = (int)(mq_test_rng_u64(&r.rng) % 3);
            float w = c.max[ax] - c.min[ax];
            c.min[ax] = a.max[ax];
            c.max[ax] = c.min[ax] + w;
            for (int k = 0; k < 3; k++)
                if (k != ax) {
                    c.min[k] = a.min[k];
                    c.max[k] = fmaxf(a.min[k], c.max[k]);
                }
            if (!aabb_empty(&c))
                strict(&r, mq_overlap_aabb_aabb(&a, &c) && mq_overlap_aabb_aabb(&c, &a), "boxes sharing a face");
        }
    }
    mq_aabb unit = {{0, 0, 0}, {1, 1, 1}}, corner = {{1, 1, 1}, {2, 2, 2}}, empty = {{0.5f, 0, 0}, {0.4f, 1, 1}};
    strict(&r, mq_overlap_aabb_aabb(&unit, &corner), "boxes sharing a corner");
    strict(&r, !mq_overlap_aabb_aabb(&unit, &empty) && !mq_overlap_aabb_aabb(&empty, &unit), "empty box overlaps");
    strict(&r, !mq_overlap_aabb_aabb(&empty, &empty), "empty box overlaps itself");
    mq_aabb nanb = {{0, 0, 0}, {1, NAN, 1}}, infb = {{-INFINITY, 0, 0}, {1, 1, 1}};
    strict(&r, !mq_overlap_aabb_aabb(&unit, &nanb) && !mq_overlap_aabb_aabb(&nanb, &unit), "NaN box overlaps");
    strict(&r, !mq_overlap_aabb_aabb(&unit, &infb), "infinite box overlaps (invalid per types.h)");
    oracle_run_finish(&r);
}

static void diff_aabb_obb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_aabb_obb", SAT_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_aabb a;
        mq_obb b;
        oracle_gen_aabb(&g, &a);
        oracle_gen_obb(&g, &b);
        oracle_hull ha = oracle_hull_of_aabb(&a), hb = oracle_hull_of_obb(&b);
        if (d == ORACLE_NEAR) {
            oracle_translate_obb(&b, oracle_touch_shift(&r.rng, &ha, &hb, false, hull_scale(&ha, &hb)));
            hb = oracle_hull_of_obb(&b);
        }
        oracle_box oa = oracle_box_from_aabb(&a), ob = oracle_box_from_obb(&b);
        bool orc = oracle_overlap_box_box(&oa, &ob);
        if (!check_bool(&r, d, mq_overlap_aabb_obb(&a, &b), orc, &ha, &hb, false) && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_aabb("a", &a);
            oracle_print_obb("b", &b);
        }
    }
    mq_aabb unit = {{0, 0, 0}, {1, 1, 1}}, empty = {{0, 0, 0}, {1, -1, 1}};
    mq_obb world = {{0.5f, 0.5f, 0.5f}, {2, 2, 2}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    mq_obb skew = {{0.5f, 0.5f, 0.5f}, {2, 2, 2}, {{1, 0, 0}, {0, 1, 0}, {0, 0.1f, 1}}};
    strict(&r, !mq_overlap_aabb_obb(&empty, &world), "empty AABB overlaps an OBB");
    strict(&r, !mq_overlap_aabb_obb(&unit, &skew), "OBB with non-orthogonal axes overlaps");
    soft(&r, mq_overlap_aabb_obb(&unit, &(mq_obb){{2, 0.5f, 0.5f}, {1, 1, 1}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}),
         "OBB sharing a face with the AABB reported apart");
    oracle_run_finish(&r);
}

static void diff_obb_obb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_obb_obb", SAT_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_obb a, b;
        oracle_gen_obb(&g, &a);
        oracle_gen_obb(&g, &b);
        if ((d == ORACLE_DEGEN || d == ORACLE_NEAR) && oracle_gen_chance(&g, 0.5)) {
            /* generic orientation, but every edge of b within 1e-6 rad of an edge of a */
            oracle_v3 ax[3];
            oracle_random_axes(&r.rng, false, ax);
            for (int k = 0; k < 3; k++)
                oracle_v3_to_f(ax[k], a.axes[k]);
            nearly_same_axes(&r.rng, &a, &b);
        }
        oracle_hull ha = oracle_hull_of_obb(&a), hb = oracle_hull_of_obb(&b);
        if (d == ORACLE_NEAR) {
            oracle_translate_obb(&b, oracle_touch_shift(&r.rng, &ha, &hb, false, hull_scale(&ha, &hb)));
            hb = oracle_hull_of_obb(&b);
        }
        oracle_box oa = oracle_box_from_obb(&a), ob = oracle_box_from_obb(&b);
        bool orc = oracle_overlap_box_box(&oa, &ob);
        bool impl = mq_overlap_obb_obb(&a, &b);
        if (!check_bool(&r, d, impl, orc, &ha, &hb, false) && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_obb("a", &a);
            oracle_print_obb("b", &b);
        }
    }
    mq_obb a = {{0, 0, 0}, {1, 1, 1}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    strict(&r, mq_overlap_obb_obb(&a, &a), "an OBB does not overlap itself");
    mq_obb flat = a;
    flat.half[2] = 0;
    strict(&r, mq_overlap_obb_obb(&flat, &flat) && mq_overlap_obb_obb(&flat, &a), "flat OBB (zero half extent)");
    mq_obb nanb = a;
    nanb.axes[1][2] = NAN;
    strict(&r, !mq_overlap_obb_obb(&a, &nanb) && !mq_overlap_obb_obb(&nanb, &a), "NaN axes overlap");
    oracle_run_finish(&r);
}

static void put_on_box_face(mq_test_rng *rng, mq_triangle *t, const mq_aabb *b)
{
    /* all three z exactly on a face plane of the box: coplanar with a face */
    float z = (mq_test_rng_u64(rng) & 1) ? b->max[2] : b->min[2];
    for (int i = 0; i < 3; i++)
        t->v[i][2] = z;
}

static void diff_triangle_aabb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_triangle_aabb", SAT_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_triangle t;
        mq_aabb b;
        oracle_gen_triangle(&g, &t);
        oracle_gen_aabb(&g, &b);
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.3))
            put_on_box_face(&r.rng, &t, &b);
        oracle_hull ht = oracle_hull_of_triangle(&t), hb = oracle_hull_of_aabb(&b);
        if (d == ORACLE_NEAR) {
            oracle_translate_triangle(&t, oracle_touch_shift(&r.rng, &hb, &ht, false, hull_scale(&ht, &hb)));
            ht = oracle_hull_of_triangle(&t);
        }
        oracle_tri ot = oracle_tri_from_mq(&t);
        oracle_box ob = oracle_box_from_aabb(&b);
        bool orc = oracle_overlap_triangle_box(&ot, &ob);
        if (!check_bool(&r, d, mq_overlap_triangle_aabb(&t, &b), orc, &ht, &hb, false) &&
            oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_tri("tri", &t);
            oracle_print_aabb("box", &b);
        }
    }
    mq_aabb box = {{0, 0, 0}, {1, 1, 1}}, empty = {{0, 0, 0}, {-1, 1, 1}};
    mq_triangle inside = {{{0.25f, 0.25f, 0.5f}, {0.75f, 0.25f, 0.5f}, {0.25f, 0.75f, 0.5f}}};
    mq_triangle big = {{{-10, -10, 0.5f}, {30, -10, 0.5f}, {-10, 30, 0.5f}}}; /* box pokes through it */
    mq_triangle seg = {{{-1, 0.5f, 0.5f}, {2, 0.5f, 0.5f}, {2, 0.5f, 0.5f}}}; /* zero area, crosses */
    strict(&r, mq_overlap_triangle_aabb(&inside, &box), "triangle inside the box");
    strict(&r, mq_overlap_triangle_aabb(&big, &box), "large triangle slicing the box");
    strict(&r, mq_overlap_triangle_aabb(&seg, &box), "zero-area triangle (segment) through the box");
    strict(&r, !mq_overlap_triangle_aabb(&big, &empty), "empty AABB overlaps a triangle");
    mq_triangle nant = inside;
    nant.v[2][0] = NAN;
    strict(&r, !mq_overlap_triangle_aabb(&nant, &box), "NaN triangle overlaps");
    oracle_run_finish(&r);
}

static void diff_triangle_obb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_triangle_obb", SAT_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_triangle t;
        mq_obb b;
        oracle_gen_triangle(&g, &t);
        oracle_gen_obb(&g, &b);
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.3)) {
            /* triangle in (float rounding of) a face plane of the box */
            oracle_box ob = oracle_box_from_obb(&b);
            int ax = (int)(mq_test_rng_u64(&r.rng) % 3);
            double side = (mq_test_rng_u64(&r.rng) & 1) ? 1.0 : -1.0;
            oracle_v3 fc = oracle_madd(ob.c, ob.ax[ax], side * ob.h[ax]);
            for (int k = 0; k < 3; k++) {
                oracle_v3 p = oracle_madd(fc, ob.ax[(ax + 1) % 3], g.size * mq_test_rng_range(&r.rng, -1.5, 1.5));
                p = oracle_madd(p, ob.ax[(ax + 2) % 3], g.size * mq_test_rng_range(&r.rng, -1.5, 1.5));
                oracle_v3_to_f(p, t.v[k]);
            }
        }
        oracle_hull ht = oracle_hull_of_triangle(&t), hb = oracle_hull_of_obb(&b);
        if (d == ORACLE_NEAR) {
            oracle_translate_triangle(&t, oracle_touch_shift(&r.rng, &hb, &ht, false, hull_scale(&ht, &hb)));
            ht = oracle_hull_of_triangle(&t);
        }
        oracle_tri ot = oracle_tri_from_mq(&t);
        oracle_box ob = oracle_box_from_obb(&b);
        bool orc = oracle_overlap_triangle_box(&ot, &ob);
        if (!check_bool(&r, d, mq_overlap_triangle_obb(&t, &b), orc, &ht, &hb, false) &&
            oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_tri("tri", &t);
            oracle_print_obb("box", &b);
        }
    }
    mq_obb bad = {{0, 0, 0}, {1, 1, 1}, {{1, 0, 0}, {0, 1, 0}, {0, 0, -0.9f}}};
    mq_triangle t = {{{-1, -1, 0}, {1, -1, 0}, {0, 1, 0}}};
    strict(&r, !mq_overlap_triangle_obb(&t, &bad), "OBB with a non-unit axis overlaps");
    oracle_run_finish(&r);
}

static void diff_triangle_triangle(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_triangle_triangle", SAT_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_triangle a, b;
        oracle_gen_triangle(&g, &a);
        oracle_gen_triangle(&g, &b);
        if (d == ORACLE_DEGEN) {
            int k = (int)(mq_test_rng_u64(&r.rng) % 4);
            if (k == 0) {
                for (int j = 0; j < 3; j++) /* coplanar, exactly (same z) */
                    b.v[j][2] = a.v[j][2] = a.v[0][2];
            } else if (k == 1) {
                memcpy(b.v[0], a.v[(int)(mq_test_rng_u64(&r.rng) % 3)], sizeof b.v[0]); /* shared vertex */
            } else if (k == 2) {
                memcpy(b.v[0], a.v[0], sizeof b.v[0]); /* shared edge */
                memcpy(b.v[1], a.v[1], sizeof b.v[1]);
            }
        }
        oracle_hull ha = oracle_hull_of_triangle(&a), hb = oracle_hull_of_triangle(&b);
        if (d == ORACLE_NEAR) {
            oracle_translate_triangle(&b, oracle_touch_shift(&r.rng, &ha, &hb, false, hull_scale(&ha, &hb)));
            hb = oracle_hull_of_triangle(&b);
        }
        oracle_tri oa = oracle_tri_from_mq(&a), ob = oracle_tri_from_mq(&b);
        bool orc = oracle_overlap_triangle_triangle(&oa, &ob);
        bool impl = mq_overlap_triangle_triangle(&a, &b);
        if (!check_bool(&r, d, impl, orc, &ha, &hb, false) && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_tri("a", &a);
            oracle_print_tri("b", &b);
        }
        bool sym = mq_overlap_triangle_triangle(&b, &a);
        if (sym != impl && !orc == !impl) {
            /* the swapped call disagrees while the first agreed: judge it like any other answer */
            if (!check_bool(&r, d, sym, orc, &hb, &ha, false) && oracle_stats_should_print(&r.st)) {
                oracle_stats_printed(&r.st);
                oracle_print_tri("a (swapped call)", &b);
                oracle_print_tri("b (swapped call)", &a);
            }
        }
    }
    mq_triangle a = {{{0, 0, 0}, {4, 0, 0}, {0, 4, 0}}};
    mq_triangle cross = {{{1, 1, -1}, {1, 1, 1}, {3, -3, 0}}};       /* pierces a's interior */
    mq_triangle copl = {{{1, 1, 0}, {5, 1, 0}, {1, 5, 0}}};          /* coplanar, overlapping */
    mq_triangle coplfar = {{{10, 10, 0}, {15, 10, 0}, {10, 15, 0}}}; /* coplanar, apart */
    mq_triangle segin = {{{1, 1, -1}, {1, 1, 1}, {1, 1, 1}}};        /* zero area, pierces */
    mq_triangle pt = {{{1, 1, 0}, {1, 1, 0}, {1, 1, 0}}};            /* a point inside a */
    strict(&r, mq_overlap_triangle_triangle(&a, &cross), "piercing triangles");
    strict(&r, mq_overlap_triangle_triangle(&a, &copl), "coplanar overlapping triangles");
    strict(&r, !mq_overlap_triangle_triangle(&a, &coplfar), "coplanar distant triangles");
    strict(&r, mq_overlap_triangle_triangle(&a, &segin) && mq_overlap_triangle_triangle(&segin, &a),
           "segment-triangle piercing a triangle");
    soft(&r, mq_overlap_triangle_triangle(&a, &pt) && mq_overlap_triangle_triangle(&pt, &a),
         "point-triangle lying in a triangle");
    mq_triangle nan = a;
    nan.v[1][1] = NAN;
    strict(&r, !mq_overlap_triangle_triangle(&a, &nan) && !mq_overlap_triangle_triangle(&nan, &a), "NaN triangle");
    oracle_run_finish(&r);
}

/* ------------------------------------------------------------------------- */
/* 2D                                                                        */
/* ------------------------------------------------------------------------- */

static void gen_aabb2(oracle_gen *g, mq_aabb2 *out)
{
    oracle_v3 c = oracle_gen_pos(g);
    double h[2] = {oracle_gen_len(g), oracle_gen_len(g)}, cc[2] = {c.x, c.y};
    for (int i = 0; i < 2; i++) {
        out->min[i] = (float)(cc[i] - h[i]);
        out->max[i] = h[i] == 0.0 ? out->min[i] : (float)(cc[i] + h[i]);
    }
}

static void gen_rect2(oracle_gen *g, mq_rect2 *out)
{
    oracle_v3 c = oracle_gen_pos(g);
    double th;
    if (g->dist == ORACLE_DEGEN || oracle_gen_chance(g, 0.25))
        th = (double)(mq_test_rng_u64(g->rng) % 4) * 1.5707963267948966 +
             ((mq_test_rng_u64(g->rng) % 4 == 0) ? 0.0 : oracle_log_uniform(g->rng, 1e-9, 1e-6));
    else
        th = mq_test_rng_range(g->rng, 0, 6.283185307179586);
    out->center[0] = (float)c.x;
    out->center[1] = (float)c.y;
    out->half[0] = (float)oracle_gen_len(g);
    out->half[1] = (float)oracle_gen_len(g);
    double sgn = (mq_test_rng_u64(g->rng) & 1) ? 1.0 : -1.0; /* either handedness is orthonormal */
    out->axes[0][0] = (float)cos(th);
    out->axes[0][1] = (float)sin(th);
    out->axes[1][0] = (float)(-sgn * sin(th));
    out->axes[1][1] = (float)(sgn * cos(th));
}

static void corners_aabb2(const mq_aabb2 *b, double out[4][2])
{
    double x[2] = {b->min[0], b->max[0]}, y[2] = {b->min[1], b->max[1]};
    static const int cyc[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    for (int k = 0; k < 4; k++) {
        out[k][0] = x[cyc[k][0]];
        out[k][1] = y[cyc[k][1]];
    }
}

static void corners_rect2(const mq_rect2 *r, double out[4][2])
{
    static const double s[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 2; j++)
            out[k][j] = (double)r->center[j] + s[k][0] * r->half[0] * (double)r->axes[0][j] +
                        s[k][1] * r->half[1] * (double)r->axes[1][j];
}

static oracle_hull hull2(double c[4][2])
{
    oracle_v3 p[4];
    for (int k = 0; k < 4; k++)
        p[k] = oracle_v3_make(c[k][0], c[k][1], 0.0);
    return oracle_hull_points(p, 4, 0.0);
}

static void diff_aabb2_aabb2(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_aabb2_aabb2", SAT_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_aabb2 a, b;
        gen_aabb2(&g, &a);
        gen_aabb2(&g, &b);
        double ca[4][2], cb[4][2];
        corners_aabb2(&a, ca);
        corners_aabb2(&b, cb);
        oracle_hull ha = hull2(ca), hb = hull2(cb);
        if (d == ORACLE_NEAR) {
            oracle_v3 t = oracle_touch_shift(&r.rng, &ha, &hb, true, hull_scale(&ha, &hb));
            for (int k = 0; k < 2; k++) {
                b.min[k] = (float)(b.min[k] + (k ? t.y : t.x));
                b.max[k] = (float)(b.max[k] + (k ? t.y : t.x));
            }
            corners_aabb2(&b, cb);
            hb = hull2(cb);
        }
        bool orc = oracle_overlap_convex2((const double(*)[2])ca, 4, (const double(*)[2])cb, 4);
        if (!check_bool(&r, d, mq_overlap_aabb2_aabb2(&a, &b), orc, &ha, &hb, true) &&
            oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            printf("    a: min {%a, %a} max {%a, %a}\n    b: min {%a, %a} max {%a, %a}\n", a.min[0], a.min[1], a.max[0],
                   a.max[1], b.min[0], b.min[1], b.max[0], b.max[1]);
        }
        if (d == ORACLE_DEGEN) {
            mq_aabb2 c = b;
            float w = c.max[0] - c.min[0];
            c.min[0] = a.max[0];
            c.max[0] = a.max[0] + w;
            c.min[1] = a.min[1];
            c.max[1] = fmaxf(a.min[1], c.max[1]);
            strict(&r, mq_overlap_aabb2_aabb2(&a, &c) && mq_overlap_aabb2_aabb2(&c, &a), "2D boxes sharing an edge");
        }
    }
    mq_aabb2 unit = {{0, 0}, {1, 1}}, empty = {{0, 0.5f}, {1, 0.25f}}, nanb = {{0, 0}, {NAN, 1}};
    soft(&r, !mq_overlap_aabb2_aabb2(&unit, &empty), "empty 2D box (min > max) overlaps");
    strict(&r, !mq_overlap_aabb2_aabb2(&unit, &nanb) && !mq_overlap_aabb2_aabb2(&nanb, &unit), "NaN 2D box overlaps");
    oracle_run_finish(&r);
}

static void diff_rect2_rect2(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "overlap_rect2_rect2", SAT_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_rect2 a, b;
        gen_rect2(&g, &a);
        gen_rect2(&g, &b);
        double ca[4][2], cb[4][2];
        corners_rect2(&a, ca);
        corners_rect2(&b, cb);
        oracle_hull ha = hull2(ca), hb = hull2(cb);
        if (d == ORACLE_NEAR) {
            oracle_v3 t = oracle_touch_shift(&r.rng, &ha, &hb, true, hull_scale(&ha, &hb));
            b.center[0] = (float)(b.center[0] + t.x);
            b.center[1] = (float)(b.center[1] + t.y);
            corners_rect2(&b, cb);
            hb = hull2(cb);
        }
        bool orc = oracle_overlap_convex2((const double(*)[2])ca, 4, (const double(*)[2])cb, 4);
        if (!check_bool(&r, d, mq_overlap_rect2_rect2(&a, &b), orc, &ha, &hb, true) &&
            oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            const mq_rect2 *rs[2] = {&a, &b};
            for (int k = 0; k < 2; k++)
                printf("    %c: center {%a, %a} half {%a, %a} axes {%a, %a} {%a, %a}\n", 'a' + k, rs[k]->center[0],
                       rs[k]->center[1], rs[k]->half[0], rs[k]->half[1], rs[k]->axes[0][0], rs[k]->axes[0][1],
                       rs[k]->axes[1][0], rs[k]->axes[1][1]);
        }
    }
    mq_rect2 a = {{0, 0}, {1, 1}, {{1, 0}, {0, 1}}};
    mq_rect2 neg = {{0, 0}, {1, -1}, {{1, 0}, {0, 1}}}, nanr = {{0, NAN}, {1, 1}, {{1, 0}, {0, 1}}};
    mq_rect2 skew = {{0, 0}, {1, 1}, {{1, 0}, {1, 0}}};
    strict(&r, !mq_overlap_rect2_rect2(&a, &neg) && !mq_overlap_rect2_rect2(&nanr, &a), "invalid rectangle overlaps");
    soft(&r, !mq_overlap_rect2_rect2(&a, &skew), "rectangle with parallel axes (not orthonormal) overlaps");
    oracle_run_finish(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diff_aabb_aabb),    cmocka_unit_test(diff_aabb_obb),
        cmocka_unit_test(diff_obb_obb),      cmocka_unit_test(diff_triangle_aabb),
        cmocka_unit_test(diff_triangle_obb), cmocka_unit_test(diff_triangle_triangle),
        cmocka_unit_test(diff_aabb2_aabb2),  cmocka_unit_test(diff_rect2_rect2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
