/*
 * The box-triangle distance worked in the box's frame
 * (src/primitives/box_triangle_distance.c) against brute force in double:
 * the oracle's point-box and segment-box distances of the triangle's corners
 * and edges, and the box's twelve edges against the triangle.
 *
 * Boxes: random rotations from float quaternions (axes orthonormal to float
 * rounding, as users give them), half extents from 0 (flat boxes, segments,
 * points) to large. Triangles: general, needles, slivers, collinear, tiny,
 * large, parallel to a face (ties of the support corner), corners placed
 * just off a box corner or edge, and triangles around the centre of a box
 * made flat (a rectangle, segment or point) in its plane. Half the boxes have axes off orthonormal by
 * more than float rounding (within what mq_td_box_from accepts); the oracle
 * measures the solid their corners span. Checked for every pair the oracle's
 * polytope test calls apart: the lower bound at most the brute distance, the distance within 1e-7 of the scale, the box
 * point in the box and the triangle point on the triangle (to the same
 * tolerance), and the distance equal to the points' distance; for pairs that
 * meet, the witness point in both, a lower bound within tolerance of 0, and
 * a distance within the frame's error (8 MQ_TD_BOX_ORTHO of the reach) of 0
 * with its points in both.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include <meshquery/meshquery.h>

#include "oracle.h"
#include "primitives/triangle_distance.h"
#include "test_support.h"

typedef struct box_case {
    oracle_box ob;
    mq_td_box tb;
    double scale;
    int flat; /* the axis flatten() zeroed */
} box_case;

/* The box made flat along a random axis (a rectangle, segment or point), half
 * the time turned to the coordinate axes (then in-plane tests meet exact
 * zeros). */
static void flatten(mq_test_rng *r, box_case *b)
{
    if (mq_test_rng_unit(r) < 0.5)
        for (int i = 0; i < 3; i++) {
            b->ob.ax[i] = oracle_v3_make(i == 0, i == 1, i == 2);
            for (int k = 0; k < 3; k++)
                b->tb.ax[i][k] = i == k;
        }
    b->flat = (int)(mq_test_rng_unit(r) * 3.0);
    b->ob.h[b->flat] = b->tb.h[b->flat] = 0.0;
}

static void random_box(mq_test_rng *r, box_case *o)
{
    float q[4], n = 0.0f;
    for (int k = 0; k < 4; k++) {
        q[k] = (float)mq_test_rng_range(r, -1.0, 1.0);
        n += q[k] * q[k];
    }
    if (!(n > 1e-6f))
        q[0] = n = 1.0f;
    for (int k = 0; k < 4; k++)
        q[k] /= sqrtf(n);
    vec3 c = {(float)mq_test_rng_range(r, -2, 2), (float)mq_test_rng_range(r, -2, 2),
              (float)mq_test_rng_range(r, -2, 2)};
    vec3 h;
    for (int k = 0; k < 3; k++) {
        uint32_t pick = (uint32_t)(mq_test_rng_unit(r) * 8.0);
        h[k] = pick == 0 ? 0.0f : pick == 1 ? (float)mq_test_rng_range(r, 0, 1e-3) : (float)mq_test_rng_range(r, 0, 2);
    }
    mq_obb box;
    mq_obb_from_quat(c, h, q, &box);
    if (mq_test_rng_unit(r) < 0.5) /* off orthonormal by more than float rounding, within MQ_TD_BOX_ORTHO */
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++)
                box.axes[i][k] += (float)mq_test_rng_range(r, -1.5e-7, 1.5e-7);
    o->ob = oracle_box_from_obb(&box);
    double cd[3], ax[3][3], hd[3];
    for (int i = 0; i < 3; i++) {
        cd[i] = box.center[i];
        hd[i] = box.half[i];
        for (int k = 0; k < 3; k++)
            ax[i][k] = box.axes[i][k];
    }
    assert_true(mq_td_box_from(cd, (const double(*)[3])ax, hd, &o->tb));
    o->scale = 1.0 + fabs(cd[0]) + fabs(cd[1]) + fabs(cd[2]) + hd[0] + hd[1] + hd[2];
    o->flat = 0;
}

/* A point of the box (frame coordinates u in [-1, 1] of each half extent). */
static oracle_v3 box_point(const box_case *b, double u0, double u1, double u2)
{
    oracle_v3 p = b->ob.c;
    double u[3] = {u0, u1, u2};
    for (int i = 0; i < 3; i++)
        p = oracle_madd(p, b->ob.ax[i], u[i] * b->ob.h[i]);
    return p;
}

static oracle_v3 jitter(mq_test_rng *r, oracle_v3 p, double s)
{
    return oracle_v3_make(p.x + mq_test_rng_range(r, -s, s), p.y + mq_test_rng_range(r, -s, s),
                          p.z + mq_test_rng_range(r, -s, s));
}

/* A triangle of one of several shapes near the box. */
static oracle_tri random_triangle(mq_test_rng *r, const box_case *b, int kind)
{
    oracle_tri t;
    double far = mq_test_rng_range(r, 1.0, 3.0);
    oracle_v3 base =
        box_point(b, mq_test_rng_range(r, -far, far), mq_test_rng_range(r, -far, far), mq_test_rng_range(r, -far, far));
    switch (kind) {
    case 0: /* general */
        for (int v = 0; v < 3; v++)
            t.v[v] = jitter(r, base, 1.5);
        break;
    case 1: /* needle */
        t.v[0] = jitter(r, base, 1.0);
        t.v[1] = jitter(r, t.v[0], 1e-4);
        t.v[2] = jitter(r, base, 2.0);
        break;
    case 2: /* collinear / a point */
        t.v[0] = jitter(r, base, 1.0);
        t.v[1] = jitter(r, base, 1.0);
        t.v[2] = oracle_madd(t.v[0], oracle_sub(t.v[1], t.v[0]), mq_test_rng_range(r, -1, 2));
        if (mq_test_rng_unit(r) < 0.2)
            t.v[1] = t.v[2] = t.v[0];
        break;
    case 3: { /* parallel to a face, just above it */
        int i = (int)(mq_test_rng_unit(r) * 3.0), j = (i + 1) % 3, l = (i + 2) % 3;
        double s = mq_test_rng_unit(r) < 0.5 ? -1.0 : 1.0, off = mq_test_rng_range(r, 1e-6, 0.5);
        for (int v = 0; v < 3; v++) {
            oracle_v3 p = b->ob.c;
            p = oracle_madd(p, b->ob.ax[i], s * (b->ob.h[i] + off));
            p = oracle_madd(p, b->ob.ax[j], mq_test_rng_range(r, -3, 3));
            p = oracle_madd(p, b->ob.ax[l], mq_test_rng_range(r, -3, 3));
            t.v[v] = p;
        }
        break;
    }
    case 4: { /* a corner just off a box corner or edge */
        double u[3];
        for (int k = 0; k < 3; k++)
            u[k] = mq_test_rng_unit(r) < 0.5 ? -1.0 : 1.0;
        u[(int)(mq_test_rng_unit(r) * 3.0)] *= mq_test_rng_unit(r) < 0.5 ? 1.0 : mq_test_rng_range(r, -1, 1);
        oracle_v3 p = box_point(b, u[0], u[1], u[2]);
        oracle_v3 out = oracle_sub(p, b->ob.c);
        double l = sqrt(oracle_len2(out));
        t.v[0] = l > 0.0 ? oracle_madd(p, out, mq_test_rng_range(r, 1e-7, 1e-2) / l) : p;
        t.v[1] = jitter(r, t.v[0], 2.0);
        t.v[2] = jitter(r, t.v[0], 2.0);
        break;
    }
    case 6: { /* in the plane of a box flattened along axis b->flat (see
               * flatten), around its centre: they meet */
        int j = (b->flat + 1) % 3, l = (b->flat + 2) % 3;
        double reach = 2.0 * (b->ob.h[j] + b->ob.h[l]) + 1e-3, a0 = mq_test_rng_range(r, 0.0, 6.283185307179586);
        for (int v = 0; v < 3; v++) {
            double a = a0 + 2.0943951023931957 * v + mq_test_rng_range(r, -0.5, 0.5);
            double rho = mq_test_rng_range(r, 0.05, 1.0) * reach;
            t.v[v] = oracle_madd(oracle_madd(b->ob.c, b->ob.ax[j], rho * cos(a)), b->ob.ax[l], rho * sin(a));
        }
        break;
    }
    default: /* tiny or large */
        for (int v = 0; v < 3; v++)
            t.v[v] = jitter(r, base, mq_test_rng_unit(r) < 0.5 ? 1e-3 : 8.0);
        break;
    }
    return t;
}

static double brute(const box_case *b, const oracle_tri *t)
{
    double best = INFINITY;
    for (int v = 0; v < 3; v++) {
        best = fmin(best, oracle_dist2_point_box(t->v[v], &b->ob, NULL));
        best = fmin(best, oracle_dist2_segment_box(t->v[v], t->v[(v + 1) % 3], &b->ob, NULL));
    }
    oracle_v3 c[8];
    oracle_box_vertices(&b->ob, c);
    for (int i = 0; i < 8; i++)
        for (int j = i + 1; j < 8; j++)
            if (__builtin_popcount((unsigned)(i ^ j)) == 1)
                best = fmin(best, oracle_dist2_segment_triangle_direct(c[i], c[j], t));
    return sqrt(best);
}

/* Distance from p to the triangle, measured as its edges when it is degenerate. */
static double off_triangle(const double p[3], const oracle_tri *t)
{
    oracle_v3 x = oracle_v3_make(p[0], p[1], p[2]);
    double d2 = oracle_dist2_point_triangle_direct(x, t);
    for (int e = 0; e < 3; e++)
        d2 = fmin(d2, oracle_dist2_point_segment_direct(x, t->v[e], t->v[(e + 1) % 3]));
    return sqrt(d2);
}

static double off_box(const double p[3], const box_case *b)
{
    return sqrt(oracle_dist2_point_box(oracle_v3_make(p[0], p[1], p[2]), &b->ob, NULL));
}

static void to_td(const oracle_tri *t, mq_td_tri *o)
{
    for (int v = 0; v < 3; v++) {
        o->v[v][0] = t->v[v].x;
        o->v[v][1] = t->v[v].y;
        o->v[v][2] = t->v[v].z;
    }
    mq_td_tri_prepare(o);
}

static void box_triangle_matches_brute_force(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xB0C5D157));
    size_t apart = 0, meet = 0, failures = 0;
    for (int i = 0; i < 20000; i++) {
        box_case b;
        random_box(&rng, &b);
        if (i % 7 == 6)
            flatten(&rng, &b);
        oracle_tri t = random_triangle(&rng, &b, i % 7);
        mq_td_tri td;
        to_td(&t, &td);
        double tol = 1e-7 * (b.scale + oracle_tri_extent(&t));
        double lb = mq_td_box_triangle_lower_bound(&b.tb, &td);
        if (i % 7 == 6 || oracle_overlap_triangle_box(&t, &b.ob)) {
            if (!(lb <= tol)) {
                failures++;
                fprintf(stderr, "case %d (kind %d): lower bound %g for a meeting pair\n", i, i % 7, lb);
            }
            double p[3], pb[3], pt[3];
            mq_td_box_triangle_witness(&b.tb, &td, p);
            double d = mq_td_box_triangle(&b.tb, &td, pb, pt);
            /* the frame's box is the solid the corners span only to within
             * the axes' error times the reach (float axes: about 1e-7) */
            double gap = 8.0 * MQ_TD_BOX_ORTHO * (b.scale + oracle_tri_extent(&t));
            if (!(d <= gap && off_box(pb, &b) <= tol && off_triangle(pt, &t) <= tol)) {
                failures++;
                fprintf(stderr, "case %d (kind %d): meeting pair at %g, points off by %g / %g\n", i, i % 7, d,
                        off_box(pb, &b), off_triangle(pt, &t));
            }
            meet++;
            if (!(off_box(p, &b) <= tol && off_triangle(p, &t) <= tol)) {
                failures++;
                fprintf(stderr, "case %d (kind %d): witness off by %g / %g\n", i, i % 7, off_box(p, &b),
                        off_triangle(p, &t));
            }
            continue;
        }
        double pb[3], pt[3];
        double d = mq_td_box_triangle(&b.tb, &td, pb, pt), expect = brute(&b, &t);
        double pd = sqrt((pb[0] - pt[0]) * (pb[0] - pt[0]) + (pb[1] - pt[1]) * (pb[1] - pt[1]) +
                         (pb[2] - pt[2]) * (pb[2] - pt[2]));
        apart++;
        if (!(lb <= expect + 1e-12 * b.scale)) {
            failures++;
            fprintf(stderr, "case %d (kind %d): lower bound %.17g above the distance %.17g\n", i, i % 7, lb, expect);
        }
        if (!(fabs(d - expect) <= tol && off_box(pb, &b) <= tol && off_triangle(pt, &t) <= tol &&
              fabs(pd - d) <= tol)) {
            failures++;
            fprintf(stderr, "case %d (kind %d): %.17g, brute %.17g, points off by %g / %g, their distance %.17g\n", i,
                    i % 7, d, expect, off_box(pb, &b), off_triangle(pt, &t), pd);
        }
    }
    fprintf(stderr, "  %zu apart, %zu meeting, %zu failures\n", apart, meet, failures);
    assert_true(apart > 10000 && meet > 100);
    assert_int_equal(failures, 0);
}

/* Small triangles far from the box (2^20 to 2^60 times their size), in a plane
 * through the box's centre, and the same with the box far from the triangle:
 * in the box's frame each far corner is rounded by more than the triangle is
 * wide, which must not tilt its plane through the box (it did: a distance of
 * 0 for a pair 3.8e16 apart, found by fuzz_tree_shapes). The distance is
 * within 1e-12 of the brute force's, relative, and the lower bound below it. */
static void far_apart_in_one_plane(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xFA4A9A47));
    size_t failures = 0;
    for (int i = 0; i < 4000; i++) {
        box_case b;
        random_box(&rng, &b);
        oracle_v3 u = oracle_normalize(oracle_v3_make(mq_test_rng_range(&rng, -1, 1), mq_test_rng_range(&rng, -1, 1),
                                                      mq_test_rng_range(&rng, -1, 1)));
        oracle_v3 w = oracle_normalize(
            oracle_cross(u, oracle_v3_make(mq_test_rng_range(&rng, -1, 1), mq_test_rng_range(&rng, -1, 1),
                                           mq_test_rng_range(&rng, -1, 1))));
        double far = ldexp(1.0, 20 + i % 41);
        oracle_tri t;
        for (int v = 0; v < 3; v++)
            t.v[v] = oracle_madd(oracle_madd(b.ob.c, u, far + mq_test_rng_range(&rng, -1, 1)), w,
                                 mq_test_rng_range(&rng, -1, 1));
        if (i % 2) { /* the box far instead: moved by -far u, the triangle back near the origin */
            oracle_v3 shift = oracle_madd(oracle_v3_make(0, 0, 0), u, -far);
            for (int v = 0; v < 3; v++)
                t.v[v] = oracle_add(t.v[v], shift);
            b.ob.c = oracle_add(b.ob.c, shift);
            b.tb.c[0] = b.ob.c.x;
            b.tb.c[1] = b.ob.c.y;
            b.tb.c[2] = b.ob.c.z;
        }
        mq_td_tri td;
        to_td(&t, &td);
        double pb[3], pt[3];
        double d = mq_td_box_triangle(&b.tb, &td, pb, pt), expect = brute(&b, &t);
        double lb = mq_td_box_triangle_lower_bound(&b.tb, &td);
        if (!(fabs(d - expect) <= 1e-12 * expect && lb <= expect * (1.0 + 1e-12))) {
            failures++;
            fprintf(stderr, "case %d (2^%d apart): %.17g, brute %.17g, lower bound %.17g\n", i, 20 + i % 41, d, expect,
                    lb);
        }
    }
    assert_int_equal(failures, 0);
}

/* Axes further from orthonormal than MQ_TD_BOX_ORTHO are refused (the caller
 * then measures the box as the solid its corners span). */
static void skewed_axes_refused(void **state)
{
    (void)state;
    double c[3] = {0, 0, 0}, h[3] = {1, 1, 1};
    double ok[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    double skew[3][3] = {{1, 0, 0}, {1e-4, 1, 0}, {0, 0, 1}};
    double longer[3][3] = {{1, 0, 0}, {0, 1 + 1e-5, 0}, {0, 0, 1}};
    mq_td_box b;
    assert_true(mq_td_box_from(c, (const double(*)[3])ok, h, &b));
    assert_false(mq_td_box_from(c, (const double(*)[3])skew, h, &b));
    assert_false(mq_td_box_from(c, (const double(*)[3])longer, h, &b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(box_triangle_matches_brute_force),
        cmocka_unit_test(far_apart_in_one_plane),
        cmocka_unit_test(skewed_axes_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
