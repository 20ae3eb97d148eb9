/*
 * Round-shape overlaps: sphere vs sphere / AABB / OBB / capsule / triangle and
 * capsule vs capsule / AABB / OBB / triangle. Closed sets, so exact touching
 * (distance == radius, in exactly representable numbers) overlaps and the
 * next float below the radius does not. Invalid input never overlaps.
 * Randomized checks tie each test to the distance functions and capsule vs
 * AABB to a sampled double-precision distance.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include <meshquery/primitives.h>

#include "test_support.h"

/* ------------------------------------------------------------------------- */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------- */

static void set3(vec3 v, float x, float y, float z)
{
    v[0] = x;
    v[1] = y;
    v[2] = z;
}

static mq_sphere sphere(float x, float y, float z, float r)
{
    mq_sphere s = {{x, y, z}, r};
    return s;
}

static mq_capsule capsule(float ax, float ay, float az, float bx, float by, float bz, float r)
{
    mq_capsule c = {{ax, ay, az}, {bx, by, bz}, r};
    return c;
}

static mq_aabb aabb(float x0, float y0, float z0, float x1, float y1, float z1)
{
    mq_aabb b = {{x0, y0, z0}, {x1, y1, z1}};
    return b;
}

static mq_triangle triangle(float ax, float ay, float az, float bx, float by, float bz, float cx, float cy, float cz)
{
    mq_triangle t = {{{ax, ay, az}, {bx, by, bz}, {cx, cy, cz}}};
    return t;
}

/* The largest float below r: a radius that misses an exact touch. */
static float below(float r)
{
    return nextafterf(r, 0.0f);
}

/* A radius that, added to `other`, gives exactly below(sum): the two radii just
 * miss a touch at distance `sum` (adding below(r) to another radius could round
 * back up to the touching sum). */
static float rest_below(float sum, float other)
{
    float r = below(sum) - other;
    assert_true(r + other == below(sum));
    return r;
}

/* Box [8,12] x [-1,1] x [-3,3] as an OBB turned 90 degrees about z (exact axes). */
static mq_obb turned_box(void)
{
    mq_obb o;
    set3(o.center, 10, 0, 0);
    set3(o.half, 1, 2, 3);
    set3(o.axes[0], 0, 1, 0);
    set3(o.axes[1], -1, 0, 0);
    set3(o.axes[2], 0, 0, 1);
    return o;
}

/* A box at the origin, half extents (1,1,1), turned 45 degrees about z. */
static mq_obb diamond_box(void)
{
    mq_obb o;
    const float s = 0.70710678f;
    set3(o.center, 0, 0, 0);
    set3(o.half, 1, 1, 1);
    set3(o.axes[0], s, s, 0);
    set3(o.axes[1], -s, s, 0);
    set3(o.axes[2], 0, 0, 1);
    return o;
}

static void rand_point(mq_test_rng *rng, vec3 out, double s)
{
    for (int i = 0; i < 3; i++)
        out[i] = (float)mq_test_rng_range(rng, -s, s);
}

/* ------------------------------------------------------------------------- */
/* Sphere vs sphere                                                          */
/* ------------------------------------------------------------------------- */

static void sphere_sphere_cases(void **state)
{
    (void)state;
    mq_sphere a = sphere(0, 0, 0, 2), b = sphere(3, 4, 0, 3); /* centres 5 apart */
    assert_true(mq_overlap_sphere_sphere(&a, &b));            /* touching: 2 + 3 = 5 */
    assert_true(mq_overlap_sphere_sphere(&b, &a));
    b.radius = rest_below(5.0f, 2.0f);
    assert_false(mq_overlap_sphere_sphere(&a, &b));
    b.radius = 4.0f; /* overlapping */
    assert_true(mq_overlap_sphere_sphere(&a, &b));
    b = sphere(0.5f, 0, 0, 0.25f); /* inside */
    assert_true(mq_overlap_sphere_sphere(&a, &b));
    /* Radius 0: points. */
    a = sphere(1, 2, 3, 0);
    b = sphere(1, 2, 3, 0);
    assert_true(mq_overlap_sphere_sphere(&a, &b));
    b.center[2] = nextafterf(3.0f, 4.0f);
    assert_false(mq_overlap_sphere_sphere(&a, &b));
}

static void sphere_sphere_invalid_and_huge(void **state)
{
    (void)state;
    mq_sphere a = sphere(0, 0, 0, 1), b = sphere(0, 0, 0, 1);
    b.radius = -1.0f;
    assert_false(mq_overlap_sphere_sphere(&a, &b));
    b.radius = -0.0f; /* negative zero is zero */
    assert_true(mq_overlap_sphere_sphere(&a, &b));
    b.radius = INFINITY;
    assert_false(mq_overlap_sphere_sphere(&a, &b));
    b.radius = NAN;
    assert_false(mq_overlap_sphere_sphere(&a, &b));
    b = sphere(NAN, 0, 0, 1);
    assert_false(mq_overlap_sphere_sphere(&a, &b));
    b = sphere(0, -INFINITY, 0, 1);
    assert_false(mq_overlap_sphere_sphere(&a, &b));
    /* Centres 6e38 apart (the difference overflows float), radii summing to 6e38
     * (so does the sum): touching; a hair less: apart. */
    a = sphere(-3e38f, 0, 0, 3e38f);
    b = sphere(3e38f, 0, 0, 3e38f);
    assert_true(mq_overlap_sphere_sphere(&a, &b));
    b.radius = 2.9e38f;
    assert_false(mq_overlap_sphere_sphere(&a, &b));
    /* Tiny: 3-4-5 at 2^-140 (subnormal coordinates). */
    float k = 0x1p-140f;
    a = sphere(0, 0, 0, 2 * k);
    b = sphere(3 * k, 4 * k, 0, 3 * k);
    assert_true(mq_overlap_sphere_sphere(&a, &b));
    b.radius = 2 * k;
    assert_false(mq_overlap_sphere_sphere(&a, &b));
}

/* ------------------------------------------------------------------------- */
/* Sphere vs boxes                                                           */
/* ------------------------------------------------------------------------- */

static void sphere_aabb_cases(void **state)
{
    (void)state;
    mq_aabb box = aabb(0, 0, 0, 2, 2, 2);
    mq_sphere s = sphere(3, 1, 1, 1); /* face touch */
    assert_true(mq_overlap_sphere_aabb(&s, &box));
    s.radius = below(1.0f);
    assert_false(mq_overlap_sphere_aabb(&s, &box));
    /* Off an edge by (3, 4): distance 5. Every per-axis gap is below 4.5, so a
     * test that only inflated the box by the radius would wrongly say yes. */
    s = sphere(5, 6, 1, 5);
    assert_true(mq_overlap_sphere_aabb(&s, &box));
    s.radius = 4.5f;
    assert_false(mq_overlap_sphere_aabb(&s, &box));
    /* Off a corner by (2, 3, 6): distance 7. */
    s = sphere(4, 5, 8, 7);
    assert_true(mq_overlap_sphere_aabb(&s, &box));
    s.radius = below(7.0f);
    assert_false(mq_overlap_sphere_aabb(&s, &box));
    /* Centre inside, radius 0; box inside a big sphere. */
    s = sphere(1, 1, 1, 0);
    assert_true(mq_overlap_sphere_aabb(&s, &box));
    s = sphere(1, 1, 1, 100);
    assert_true(mq_overlap_sphere_aabb(&s, &box));
    /* Flat box. */
    mq_aabb flat = aabb(0, 0, 1, 2, 2, 1);
    s = sphere(1, 1, 2, 1);
    assert_true(mq_overlap_sphere_aabb(&s, &flat));
    s.radius = below(1.0f);
    assert_false(mq_overlap_sphere_aabb(&s, &flat));
    /* Invalid: empty box, NaN, negative radius. */
    mq_aabb empty = aabb(0, 0, 0, 2, -1, 2);
    s = sphere(1, 1, 1, 10);
    assert_false(mq_overlap_sphere_aabb(&s, &empty));
    box.min[0] = NAN;
    assert_false(mq_overlap_sphere_aabb(&s, &box));
    box.min[0] = 0.0f;
    s.radius = -1.0f;
    assert_false(mq_overlap_sphere_aabb(&s, &box));
    /* Huge: a gap that overflows float is never within a finite radius. */
    box = aabb(-3e38f, 0, 0, -2e38f, 1, 1);
    s = sphere(3e38f, 0, 0, 3.4e38f);
    assert_false(mq_overlap_sphere_aabb(&s, &box));
    s = sphere(0, 0, 0, 2e38f); /* radius 2e38 reaches x = -2e38 */
    assert_true(mq_overlap_sphere_aabb(&s, &box));
}

static void sphere_obb_cases(void **state)
{
    (void)state;
    mq_obb o = turned_box();
    mq_sphere s = sphere(15, 5, 0, 5); /* off the (12, 1) edge by (3, 4) */
    assert_true(mq_overlap_sphere_obb(&s, &o));
    s.radius = below(5.0f);
    assert_false(mq_overlap_sphere_obb(&s, &o));
    s = sphere(10, 0, 0, 0); /* centre */
    assert_true(mq_overlap_sphere_obb(&s, &o));
    /* The 45-degree box reaches x = sqrt(2) along the x axis; an axis-aligned
     * reading ([-1, 1]) would miss a sphere at x = 2 of radius 0.6. */
    mq_obb d = diamond_box();
    s = sphere(2, 0, 0, 0.6f);
    assert_true(mq_overlap_sphere_obb(&s, &d));
    s.radius = 0.58f;
    assert_false(mq_overlap_sphere_obb(&s, &d));
    /* Same answers as the AABB at random, for the exact 90-degree box. */
    mq_aabb box = aabb(8, -1, -3, 12, 1, 3);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(21));
    for (int i = 0; i < 500; i++) {
        rand_point(&rng, s.center, 4.0);
        s.center[0] += 10.0f;
        s.radius = (float)mq_test_rng_range(&rng, 0.0, 3.0);
        assert_int_equal(mq_overlap_sphere_obb(&s, &o), mq_overlap_sphere_aabb(&s, &box));
    }
    /* Invalid: non-orthonormal axes, negative half extent, NaN axis. */
    s = sphere(10, 0, 0, 100);
    o.axes[1][1] = 0.5f;
    assert_false(mq_overlap_sphere_obb(&s, &o));
    o = turned_box();
    o.half[2] = -1.0f;
    assert_false(mq_overlap_sphere_obb(&s, &o));
    o = turned_box();
    o.axes[2][0] = NAN;
    assert_false(mq_overlap_sphere_obb(&s, &o));
}

/* ------------------------------------------------------------------------- */
/* Sphere vs capsule / triangle                                              */
/* ------------------------------------------------------------------------- */

static void sphere_capsule_cases(void **state)
{
    (void)state;
    mq_capsule c = capsule(0, 0, 0, 4, 0, 0, 1);
    mq_sphere s = sphere(2, 3, 0, 2); /* beside the body: 3 = 1 + 2 */
    assert_true(mq_overlap_sphere_capsule(&s, &c));
    s.radius = rest_below(3.0f, 1.0f);
    assert_false(mq_overlap_sphere_capsule(&s, &c));
    s = sphere(7, 0, 0, 2); /* past the end cap */
    assert_true(mq_overlap_sphere_capsule(&s, &c));
    s.radius = rest_below(3.0f, 1.0f);
    assert_false(mq_overlap_sphere_capsule(&s, &c));
    s = sphere(7, 4, 0, 4); /* off the end, diagonally: 5 = 1 + 4 */
    assert_true(mq_overlap_sphere_capsule(&s, &c));
    s.radius = rest_below(5.0f, 1.0f);
    assert_false(mq_overlap_sphere_capsule(&s, &c));
    /* Point on the axis of a radius-0 capsule, at a non-representable parameter. */
    c = capsule(0, 0, 0, 3, 3, 3, 0);
    s = sphere(1, 1, 1, 0);
    assert_true(mq_overlap_sphere_capsule(&s, &c));
    /* Degenerate capsule (a == b) is a sphere. */
    c = capsule(1, 1, 1, 1, 1, 1, 1);
    s = sphere(4, 5, 1, 4);
    assert_true(mq_overlap_sphere_capsule(&s, &c));
    s.radius = rest_below(5.0f, 1.0f);
    assert_false(mq_overlap_sphere_capsule(&s, &c));
    /* Invalid. */
    s = sphere(1, 1, 1, 1);
    c.radius = -0.5f;
    assert_false(mq_overlap_sphere_capsule(&s, &c));
    c = capsule(0, 0, 0, NAN, 0, 0, 1);
    assert_false(mq_overlap_sphere_capsule(&s, &c));
    c = capsule(0, 0, 0, 1, 0, 0, INFINITY);
    assert_false(mq_overlap_sphere_capsule(&s, &c));
}

static void sphere_triangle_cases(void **state)
{
    (void)state;
    mq_triangle t = triangle(0, 0, 0, 4, 0, 0, 0, 4, 0);
    mq_sphere s = sphere(1, 1, 2, 2); /* over the face */
    assert_true(mq_overlap_sphere_triangle(&s, &t));
    s.radius = below(2.0f);
    assert_false(mq_overlap_sphere_triangle(&s, &t));
    s = sphere(1, -3, 4, 5); /* off the edge v0v1 by (0, -3, 4) */
    assert_true(mq_overlap_sphere_triangle(&s, &t));
    s.radius = below(5.0f);
    assert_false(mq_overlap_sphere_triangle(&s, &t));
    s = sphere(6, -2, 0, 0x1.6a09e8p+1f); /* off v1 by (2, -2, 0): sqrt(8) rounded up */
    assert_true(mq_overlap_sphere_triangle(&s, &t));
    s.radius = 2.8f;
    assert_false(mq_overlap_sphere_triangle(&s, &t));
    /* Radius 0 on the face, on the hypotenuse, at a vertex. */
    s = sphere(1, 1, 0, 0);
    assert_true(mq_overlap_sphere_triangle(&s, &t));
    s = sphere(2, 2, 0, 0);
    assert_true(mq_overlap_sphere_triangle(&s, &t));
    s = sphere(0, 4, 0, 0);
    assert_true(mq_overlap_sphere_triangle(&s, &t));
    s = sphere(3, 3, 0, 0); /* beyond the hypotenuse */
    assert_false(mq_overlap_sphere_triangle(&s, &t));
    /* Degenerate triangles: collinear (a segment), all equal (a point). */
    t = triangle(0, 0, 0, 1, 0, 0, 4, 0, 0);
    s = sphere(2, 3, 0, 3);
    assert_true(mq_overlap_sphere_triangle(&s, &t));
    s.radius = below(3.0f);
    assert_false(mq_overlap_sphere_triangle(&s, &t));
    t = triangle(1, 1, 1, 1, 1, 1, 1, 1, 1);
    s = sphere(1, 1, 3, 2);
    assert_true(mq_overlap_sphere_triangle(&s, &t));
    s.radius = below(2.0f);
    assert_false(mq_overlap_sphere_triangle(&s, &t));
    /* Invalid. */
    s = sphere(1, 1, 1, 10);
    t.v[1][2] = INFINITY;
    assert_false(mq_overlap_sphere_triangle(&s, &t));
    t = triangle(0, 0, 0, 4, 0, 0, 0, 4, 0);
    s.radius = -1.0f;
    assert_false(mq_overlap_sphere_triangle(&s, &t));
}

/* A sliver found by tests/diff (|n| / (|e01| |e02|) = 3.8e-5) and a centre 2.68e-9
 * from its face, which the float region arithmetic put 0.17 away. */
static void sphere_triangle_sliver(void **state)
{
    (void)state;
    mq_triangle t = triangle(-0x1.071866p+0f, 0x1.49e768p-1f, 0x1.7b355ep-1f, -0x1.3a3ddcp+0f, -0x1.a13698p+0f,
                             0x1.5123bp+1f, -0x1.073cdp+0f, 0x1.46aa1ap-1f, 0x1.7de7d4p-1f);
    mq_sphere s = sphere(-0x1.1eb1bp+0f, -0x1.9ea19p-2f, 0x1.9d3b66p+0f, 0.01f);
    assert_true(mq_overlap_sphere_triangle(&s, &t));
    s.radius = 1e-6f;
    assert_true(mq_overlap_sphere_triangle(&s, &t));
}

/* ------------------------------------------------------------------------- */
/* Capsule vs capsule / triangle                                             */
/* ------------------------------------------------------------------------- */

static void capsule_capsule_cases(void **state)
{
    (void)state;
    /* Skew, perpendicular, 3 apart. */
    mq_capsule a = capsule(0, 0, 0, 2, 0, 0, 1), b = capsule(1, 3, -1, 1, 3, 1, 2);
    assert_true(mq_overlap_capsule_capsule(&a, &b));
    assert_true(mq_overlap_capsule_capsule(&b, &a));
    b.radius = rest_below(3.0f, 1.0f);
    assert_false(mq_overlap_capsule_capsule(&a, &b));
    /* Parallel, 3 apart, overlapping in x. */
    a = capsule(0, 0, 0, 4, 0, 0, 1);
    b = capsule(2, 3, 0, 6, 3, 0, 2);
    assert_true(mq_overlap_capsule_capsule(&a, &b));
    b.radius = rest_below(3.0f, 1.0f);
    assert_false(mq_overlap_capsule_capsule(&a, &b));
    /* Collinear, end to end, gap 2. */
    b = capsule(6, 0, 0, 9, 0, 0, 1);
    assert_true(mq_overlap_capsule_capsule(&a, &b));
    b.radius = rest_below(2.0f, 1.0f);
    assert_false(mq_overlap_capsule_capsule(&a, &b));
    /* Crossing axes, both radii 0, crossing at a non-representable parameter. */
    a = capsule(0, 0, 0, 3, 3, 0, 0);
    b = capsule(0, 2, 0, 2, 0, 0, 0);
    assert_true(mq_overlap_capsule_capsule(&a, &b));
    b.a[2] = b.b[2] = 0x1p-20f;
    assert_false(mq_overlap_capsule_capsule(&a, &b));
    /* Degenerate capsules (spheres). */
    a = capsule(0, 0, 0, 0, 0, 0, 2);
    b = capsule(3, 4, 0, 3, 4, 0, 3);
    assert_true(mq_overlap_capsule_capsule(&a, &b));
    b.radius = rest_below(5.0f, 2.0f);
    assert_false(mq_overlap_capsule_capsule(&a, &b));
    /* Invalid. */
    b = capsule(0, 0, 0, 1, 0, 0, -1);
    assert_false(mq_overlap_capsule_capsule(&a, &b));
    b = capsule(0, NAN, 0, 1, 0, 0, 1);
    assert_false(mq_overlap_capsule_capsule(&a, &b));
}

/* The perpendicular skew case scaled by 2^k: the distance kernel's fourth powers
 * would overflow or underflow without its rescaling. */
static void capsule_capsule_extreme_scales(void **state)
{
    (void)state;
    const int scales[] = {60, 100, -60, -100};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        float k = ldexpf(1.0f, scales[i]);
        mq_capsule a = capsule(0, 0, 0, 2 * k, 0, 0, k), b = capsule(k, 3 * k, -k, k, 3 * k, k, 2 * k);
        assert_true(mq_overlap_capsule_capsule(&a, &b));
        b.radius = rest_below(3 * k, k);
        assert_false(mq_overlap_capsule_capsule(&a, &b));
    }
}

static void capsule_triangle_cases(void **state)
{
    (void)state;
    mq_triangle t = triangle(0, 0, 0, 4, 0, 0, 0, 4, 0);
    /* Axis piercing the face: overlaps even at radius 0. */
    mq_capsule c = capsule(1, 1, -1, 1, 1, 3, 0);
    assert_true(mq_overlap_capsule_triangle(&c, &t));
    /* Axis parallel to the face, 2 above. */
    c = capsule(1, 1, 2, 2, 1, 2, 2);
    assert_true(mq_overlap_capsule_triangle(&c, &t));
    c.radius = below(2.0f);
    assert_false(mq_overlap_capsule_triangle(&c, &t));
    /* Skew to the edge v0v1, 1 away (inside both). */
    c = capsule(2, -1, -1, 2, -1, 1, 1);
    assert_true(mq_overlap_capsule_triangle(&c, &t));
    c.radius = below(1.0f);
    assert_false(mq_overlap_capsule_triangle(&c, &t));
    /* End cap over the face. */
    c = capsule(1, 1, 3, 1, 1, 9, 3);
    assert_true(mq_overlap_capsule_triangle(&c, &t));
    c.radius = below(3.0f);
    assert_false(mq_overlap_capsule_triangle(&c, &t));
    /* In the plane beside the hypotenuse (distance sqrt(8) from (4, 4)). */
    c = capsule(4, 4, 0, 5, 5, 0, 2.9f);
    assert_true(mq_overlap_capsule_triangle(&c, &t));
    c.radius = 2.8f;
    assert_false(mq_overlap_capsule_triangle(&c, &t));
    /* Degenerate triangle (a segment) crossed by a radius-0 capsule. */
    t = triangle(0, 0, 0, 2, 0, 0, 4, 0, 0);
    c = capsule(1, -1, 0, 1, 1, 0, 0);
    assert_true(mq_overlap_capsule_triangle(&c, &t));
    c = capsule(1, -1, 1, 1, 1, 1, 1);
    assert_true(mq_overlap_capsule_triangle(&c, &t));
    c.radius = below(1.0f);
    assert_false(mq_overlap_capsule_triangle(&c, &t));
    /* Invalid. */
    c.radius = NAN;
    assert_false(mq_overlap_capsule_triangle(&c, &t));
    c.radius = 100.0f;
    t.v[0][0] = NAN;
    assert_false(mq_overlap_capsule_triangle(&c, &t));
}

/* A radius-0 capsule 3.17e-5 beside a sliver (twice the area / longest edge^2 =
 * 4.9e-5), found by tests/diff: the float crossing test reported it piercing. */
static void capsule_triangle_sliver(void **state)
{
    (void)state;
    mq_triangle t = triangle(-0x1.0c6b54p-1f, -0x1.1c7e1cp-1f, 0x1.90cf86p-3f, 0x1.4869dcp-4f, -0x1.2310b8p+0f,
                             0x1.9a36fap-2f, 0x1.7b7cp-2f, -0x1.6a8982p+0f, 0x1.fef792p-2f);
    mq_capsule c =
        capsule(0x1.777d4cp-4f, -0x1.25e6cap+0f, 0x1.9e3c84p-2f, 0x1.777d4cp-4f, -0x1.703b46p-1f, 0x1.9e3c84p-2f, 0.0f);
    assert_false(mq_overlap_capsule_triangle(&c, &t));
    c.radius = 3.0e-5f;
    assert_false(mq_overlap_capsule_triangle(&c, &t));
    c.radius = 3.3e-5f;
    assert_true(mq_overlap_capsule_triangle(&c, &t));
}

/* ------------------------------------------------------------------------- */
/* Capsule vs boxes                                                          */
/* ------------------------------------------------------------------------- */

static void capsule_aabb_cases(void **state)
{
    (void)state;
    mq_aabb box = aabb(0, 0, 0, 2, 2, 2);
    /* Through the box, radius 0; wholly inside. */
    mq_capsule c = capsule(-1, 1, 1, 3, 1.5f, 0.5f, 0);
    assert_true(mq_overlap_capsule_aabb(&c, &box));
    c = capsule(0.5f, 0.5f, 0.5f, 1.5f, 1, 1, 0);
    assert_true(mq_overlap_capsule_aabb(&c, &box));
    /* Along a face, in it (radius 0) and above it. */
    c = capsule(-5, 1, 2, 5, 1, 2, 0);
    assert_true(mq_overlap_capsule_aabb(&c, &box));
    c = capsule(-5, 1, 3, 5, 1, 3, 1);
    assert_true(mq_overlap_capsule_aabb(&c, &box));
    c.radius = below(1.0f);
    assert_false(mq_overlap_capsule_aabb(&c, &box));
    /* End cap on a face. */
    c = capsule(3, 1, 1, 5, 1, 1, 1);
    assert_true(mq_overlap_capsule_aabb(&c, &box));
    c.radius = below(1.0f);
    assert_false(mq_overlap_capsule_aabb(&c, &box));
    /* Skew past the vertical edge x = y = 2, nearest inside both: the line
     * 3x + 4y = 39 at z = 1 is 5 from (2, 2). Only the segment-edge candidate
     * sees it; a box inflated by the radius would also accept radius 4.99. */
    c = capsule(13, 0, 1, -3, 12, 1, 5);
    assert_true(mq_overlap_capsule_aabb(&c, &box));
    c.radius = 4.99f;
    assert_false(mq_overlap_capsule_aabb(&c, &box));
    /* Diagonally over the top face: x = y = t, z = 5, 3 above the face (found through the
     * top edges, the face case of the completeness argument). */
    c = capsule(-10, -10, 5, 10, 10, 5, 3);
    assert_true(mq_overlap_capsule_aabb(&c, &box));
    c.radius = below(3.0f);
    assert_false(mq_overlap_capsule_aabb(&c, &box));
    /* Point box: a capsule through it, and one touching it. */
    mq_aabb dot = aabb(1, 1, 1, 1, 1, 1);
    c = capsule(0, 0, 0, 2, 2, 2, 0);
    assert_true(mq_overlap_capsule_aabb(&c, &dot));
    c = capsule(0, 0, 1, 2, 0, 1, 1);
    assert_true(mq_overlap_capsule_aabb(&c, &dot));
    c.radius = below(1.0f);
    assert_false(mq_overlap_capsule_aabb(&c, &dot));
    /* Flat box: a radius-0 capsule crossing its plane inside / outside it. */
    mq_aabb flat = aabb(0, 0, 1, 2, 2, 1);
    c = capsule(1, 1, 0, 1, 1, 2, 0);
    assert_true(mq_overlap_capsule_aabb(&c, &flat));
    c = capsule(3, 1, 0, 3, 1, 2, 0);
    assert_false(mq_overlap_capsule_aabb(&c, &flat));
    /* Zero-length capsule = sphere. */
    c = capsule(5, 6, 1, 5, 6, 1, 5);
    assert_true(mq_overlap_capsule_aabb(&c, &box));
    c.radius = 4.5f;
    assert_false(mq_overlap_capsule_aabb(&c, &box));
    /* Invalid. */
    c = capsule(1, 1, 1, 1, 1, 1, 1);
    mq_aabb empty = aabb(0, 0, 3, 2, 2, 2);
    assert_false(mq_overlap_capsule_aabb(&c, &empty));
    c.radius = -1.0f;
    assert_false(mq_overlap_capsule_aabb(&c, &box));
    c = capsule(1, 1, 1, 1, INFINITY, 1, 1);
    assert_false(mq_overlap_capsule_aabb(&c, &box));
}

/* Huge and tiny scales, and coordinates whose differences overflow float. */
static void capsule_aabb_extreme_scales(void **state)
{
    (void)state;
    const int scales[] = {60, 100, -60, -100};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        float k = ldexpf(1.0f, scales[i]);
        mq_aabb box = aabb(0, 0, 0, 2 * k, 2 * k, 2 * k);
        mq_capsule c = capsule(13 * k, 0, k, -3 * k, 12 * k, k, 5 * k);
        assert_true(mq_overlap_capsule_aabb(&c, &box));
        c.radius = 4.99f * k;
        assert_false(mq_overlap_capsule_aabb(&c, &box));
    }
    mq_aabb box = aabb(-3e38f, -1, -1, -2e38f, 1, 1);
    mq_capsule c = capsule(3e38f, 0, 0, 2e38f, 0, 0, 3e38f);
    assert_false(mq_overlap_capsule_aabb(&c, &box));
    c.b[0] = -2.5e38f; /* now reaches into the box */
    assert_true(mq_overlap_capsule_aabb(&c, &box));
}

/* Sampled double-precision distance from the segment to the box: the minimum
 * over N points of the exact point-box distance is an upper bound, and the
 * true value is at least that minus half a sample step (1-Lipschitz). */
static void capsule_aabb_sampled(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(505));
    const int samples = 4000;
    int decided = 0;
    for (int n = 0; n < 2000; n++) {
        mq_aabb box;
        vec3 p, q;
        rand_point(&rng, p, 1.0);
        rand_point(&rng, q, 1.0);
        for (int i = 0; i < 3; i++) {
            box.min[i] = fminf(p[i], q[i]);
            box.max[i] = (n % 7 == 0 && i == n % 3) ? box.min[i] : fmaxf(p[i], q[i]);
        }
        mq_capsule c;
        rand_point(&rng, c.a, 2.5);
        rand_point(&rng, c.b, 2.5);
        double len = 0.0, best = INFINITY;
        for (int i = 0; i < 3; i++)
            len += ((double)c.b[i] - c.a[i]) * ((double)c.b[i] - c.a[i]);
        len = sqrt(len);
        for (int s = 0; s <= samples; s++) {
            double t = (double)s / samples, d2 = 0.0;
            for (int i = 0; i < 3; i++) {
                double x = c.a[i] + t * ((double)c.b[i] - c.a[i]);
                double g = fmax(fmax((double)box.min[i] - x, x - (double)box.max[i]), 0.0);
                d2 += g * g;
            }
            best = fmin(best, d2);
        }
        double hi = sqrt(best), lo = hi - 0.5 * len / samples;
        c.radius = (float)mq_test_rng_range(&rng, 0.0, 1.5);
        if (c.radius >= hi * (1 + 1e-5) + 1e-6) {
            decided++;
            assert_true(mq_overlap_capsule_aabb(&c, &box));
        } else if (c.radius <= lo * (1 - 1e-5) - 1e-6) {
            decided++;
            assert_false(mq_overlap_capsule_aabb(&c, &box));
        }
    }
    assert_true(decided > 1900);
}

static void capsule_obb_cases(void **state)
{
    (void)state;
    /* The exact 90-degree box gives the AABB's answers, for random capsules. */
    mq_obb o = turned_box();
    mq_aabb box = aabb(8, -1, -3, 12, 1, 3);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(31));
    int hits = 0;
    for (int i = 0; i < 1000; i++) {
        mq_capsule c;
        rand_point(&rng, c.a, 4.0);
        rand_point(&rng, c.b, 4.0);
        c.a[0] += 10.0f;
        c.b[0] += 10.0f;
        c.radius = (float)mq_test_rng_range(&rng, 0.0, 1.0);
        bool want = mq_overlap_capsule_aabb(&c, &box);
        hits += want;
        assert_int_equal(mq_overlap_capsule_obb(&c, &o), want);
    }
    assert_true(hits > 100 && hits < 900);
    /* Exact touches in the turned frame: edge x = 12, y = 1 (local s0 = 1, s1 = -2). */
    mq_capsule c = capsule(15, 5, -1, 15, 5, 1, 5);
    assert_true(mq_overlap_capsule_obb(&c, &o));
    c.radius = below(5.0f);
    assert_false(mq_overlap_capsule_obb(&c, &o));
    /* The 45-degree box reaches x = sqrt(2); a capsule along y at x = 2. */
    mq_obb d = diamond_box();
    c = capsule(2, -3, 0, 2, 3, 0, 0.6f);
    assert_true(mq_overlap_capsule_obb(&c, &d));
    c.radius = 0.58f;
    assert_false(mq_overlap_capsule_obb(&c, &d));
    /* Invalid OBB: axes not orthonormal. */
    c.radius = 100.0f;
    d.axes[0][0] = 0.8f;
    assert_false(mq_overlap_capsule_obb(&c, &d));
    d = diamond_box();
    d.half[0] = NAN;
    assert_false(mq_overlap_capsule_obb(&c, &d));
}

/* ------------------------------------------------------------------------- */
/* Overlaps agree with the distance functions                                */
/* ------------------------------------------------------------------------- */

/* For random shapes: with the radius 0.1% above the reported distance the test
 * must say yes, 0.1% below it must say no. */
static void overlaps_match_distances(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(606));
    for (int n = 0; n < 2000; n++) {
        mq_triangle t;
        for (int i = 0; i < 3; i++)
            rand_point(&rng, t.v[i], 1.0);
        if (n % 10 == 0)
            set3(t.v[2], t.v[1][0], t.v[1][1], t.v[1][2]);
        vec3 p, a, b;
        rand_point(&rng, p, 2.0);
        rand_point(&rng, a, 2.0);
        rand_point(&rng, b, 2.0);
        mq_sphere s = {{p[0], p[1], p[2]}, 0};
        mq_capsule c = {{a[0], a[1], a[2]}, {b[0], b[1], b[2]}, 0};
        mq_capsule c2 = {{t.v[0][0], t.v[0][1], t.v[0][2]}, {t.v[1][0], t.v[1][1], t.v[1][2]}, 0};
        mq_aabb box;
        for (int i = 0; i < 3; i++) {
            box.min[i] = fminf(t.v[0][i], t.v[1][i]);
            box.max[i] = fmaxf(t.v[0][i], t.v[1][i]);
        }
        float d_st = sqrtf(mq_closest_point_triangle(p, &t, NULL, NULL));
        float d_sc = sqrtf(mq_closest_point_segment(p, a, b, NULL, NULL));
        float d_cc = sqrtf(mq_closest_points_segment_segment(a, b, c2.a, c2.b, NULL, NULL));
        float d_ct = sqrtf(mq_closest_points_segment_triangle(a, b, &t, NULL, NULL));
        float d_sb = sqrtf(mq_closest_point_aabb(p, &box, NULL));
        const float up = 1.001f, down = 0.999f;
        if (d_ct > 1e-3f) {
            c.radius = d_ct * up;
            assert_true(mq_overlap_capsule_triangle(&c, &t));
            c.radius = d_ct * down;
            assert_false(mq_overlap_capsule_triangle(&c, &t));
        }
        if (d_st > 1e-3f) {
            s.radius = d_st * up;
            assert_true(mq_overlap_sphere_triangle(&s, &t));
            s.radius = d_st * down;
            assert_false(mq_overlap_sphere_triangle(&s, &t));
        }
        if (d_sb > 1e-3f) {
            s.radius = d_sb * up;
            assert_true(mq_overlap_sphere_aabb(&s, &box));
            s.radius = d_sb * down;
            assert_false(mq_overlap_sphere_aabb(&s, &box));
        }
        s.radius = 0.25f;
        if (d_sc > 1e-3f) {
            c.radius = d_sc * up - 0.25f;
            if (c.radius >= 0.0f)
                assert_true(mq_overlap_sphere_capsule(&s, &c));
            c.radius = d_sc * down - 0.25f;
            if (c.radius >= 0.0f)
                assert_false(mq_overlap_sphere_capsule(&s, &c));
        }
        if (d_cc > 1e-3f) {
            c.radius = c2.radius = 0.5f * d_cc * up;
            assert_true(mq_overlap_capsule_capsule(&c, &c2));
            c.radius = c2.radius = 0.5f * d_cc * down;
            assert_false(mq_overlap_capsule_capsule(&c, &c2));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sphere_sphere_cases),
        cmocka_unit_test(sphere_sphere_invalid_and_huge),
        cmocka_unit_test(sphere_aabb_cases),
        cmocka_unit_test(sphere_obb_cases),
        cmocka_unit_test(sphere_capsule_cases),
        cmocka_unit_test(sphere_triangle_cases),
        cmocka_unit_test(sphere_triangle_sliver),
        cmocka_unit_test(capsule_capsule_cases),
        cmocka_unit_test(capsule_capsule_extreme_scales),
        cmocka_unit_test(capsule_triangle_cases),
        cmocka_unit_test(capsule_triangle_sliver),
        cmocka_unit_test(capsule_aabb_cases),
        cmocka_unit_test(capsule_aabb_extreme_scales),
        cmocka_unit_test(capsule_aabb_sampled),
        cmocka_unit_test(capsule_obb_cases),
        cmocka_unit_test(overlaps_match_distances),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
