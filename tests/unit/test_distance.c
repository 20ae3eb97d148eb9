/*
 * Hand-made cases of meshquery/proximity.h and mq_closest_points_triangle_triangle:
 * distances worked out by hand (cubes placed apart face to face, edge to face,
 * touching, overlapping), degenerate triangles, invalid inputs (NULL, NaN, a
 * zero quaternion, negative distances, unknown shape kinds), the max_distance
 * and clearance boundaries, callbacks that stop, short arrays, and that the
 * queries allocate nothing through the hierarchies' allocators.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#define EPS 1e-9

static void set_tri(mq_triangle *t, float ax, float ay, float az, float bx, float by, float bz, float cx, float cy,
                    float cz)
{
    t->v[0][0] = ax, t->v[0][1] = ay, t->v[0][2] = az;
    t->v[1][0] = bx, t->v[1][1] = by, t->v[1][2] = bz;
    t->v[2][0] = cx, t->v[2][1] = cy, t->v[2][2] = cz;
}

static double dist3(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static void triangle_pairs(void **state)
{
    (void)state;
    mq_triangle a, b;
    double pa[3], pb[3];
    /* parallel, 2 apart in z, overlapping in projection: face to face */
    set_tri(&a, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    set_tri(&b, 0.1f, 0.1f, 2, 1, 0.1f, 2, 0.1f, 1, 2);
    assert_true(fabs(mq_closest_points_triangle_triangle(&a, &b, pa, pb) - 2.0) < EPS);
    assert_true(fabs(pa[2]) < EPS && fabs(pb[2] - 2.0) < EPS && fabs(dist3(pa, pb) - 2.0) < EPS);
    /* crossing: 0 and a common point */
    set_tri(&b, 0.2f, 0.2f, -1, 0.2f, 0.2f, 1, 0.3f, 0.25f, 0);
    assert_true(mq_closest_points_triangle_triangle(&a, &b, pa, pb) == 0.0);
    assert_true(dist3(pa, pb) < 1e-6 && fabs(pa[2]) < 1e-6);
    /* touching at a shared vertex: 0 */
    set_tri(&b, 1, 0, 0, 2, 0, 0, 2, 1, 5);
    assert_true(mq_closest_points_triangle_triangle(&a, &b, NULL, NULL) == 0.0);
    /* skew edges: a's edge x-axis segment, b a sliver along a line 3 above, crossing in y */
    set_tri(&b, 0.5f, -1, 3, 0.5f, 1, 3, 0.5f, 1, 3);
    assert_true(fabs(mq_closest_points_triangle_triangle(&a, &b, pa, pb) - 3.0) < EPS);
    /* a point (all corners equal) above the face */
    set_tri(&b, 0.25f, 0.25f, -4, 0.25f, 0.25f, -4, 0.25f, 0.25f, -4);
    assert_true(fabs(mq_closest_points_triangle_triangle(&a, &b, pa, pb) - 4.0) < EPS);
    assert_true(fabs(pa[0] - 0.25) < EPS && fabs(pa[1] - 0.25) < EPS);
    /* a non-finite corner: NaN, outputs untouched */
    pa[0] = 7.0;
    b.v[1][0] = NAN;
    assert_true(isnan(mq_closest_points_triangle_triangle(&a, &b, pa, pb)));
    assert_true(pa[0] == 7.0);
    b.v[1][0] = INFINITY;
    assert_true(isnan(mq_closest_points_triangle_triangle(&a, &b, pa, pb)));
    assert_true(isnan(mq_closest_points_triangle_triangle(NULL, &b, pa, pb)));
}

/* ---- a unit cube [0,1]^3 and a counting allocator ---- */

typedef struct counting {
    size_t allocs, frees;
} counting;

static void *count_alloc(size_t size, size_t align, void *user)
{
    ((counting *)user)->allocs++;
    void *p = NULL;
    if (align < sizeof(void *))
        align = sizeof(void *);
    return posix_memalign(&p, align, size) == 0 ? p : NULL;
}

static void count_free(void *ptr, size_t size, void *user)
{
    (void)size;
    ((counting *)user)->frees++;
    free(ptr);
}

typedef struct cube {
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_obbtree *obb;
} cube;

static counting g_count;
static const mq_allocator g_alloc = {count_alloc, count_free, &g_count};

static void cube_make(cube *c, bool nan_mesh)
{
    static const float pos[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                    {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    static const uint32_t idx[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                        {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
    float p[8][3];
    memcpy(p, pos, sizeof p);
    if (nan_mesh)
        for (int i = 0; i < 8; i++)
            p[i][1] = NAN;
    assert_int_equal(mq_mesh_create(&p[0][0], 8, &idx[0][0], 12, &g_alloc, &c->mesh, NULL), MQ_OK);
    mq_bvh_def bd = mq_default_bvh_def();
    bd.allocator = &g_alloc;
    mq_obbtree_def od = mq_default_obbtree_def();
    od.allocator = &g_alloc;
    c->bvh = NULL;
    c->obb = NULL;
    if (nan_mesh) {
        /* an empty tree may be refused or built empty; either way the queries find nothing */
        if (mq_bvh_build(c->mesh, &bd, &c->bvh, NULL) != MQ_OK)
            c->bvh = NULL;
        if (mq_obbtree_build(c->mesh, &od, &c->obb, NULL) != MQ_OK)
            c->obb = NULL;
        return;
    }
    assert_int_equal(mq_bvh_build(c->mesh, &bd, &c->bvh, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(c->mesh, &od, &c->obb, NULL), MQ_OK);
}

static void cube_free(cube *c)
{
    mq_bvh_destroy(c->bvh);
    mq_obbtree_destroy(c->obb);
    mq_mesh_destroy(c->mesh);
}

static mq_rigid rigid(float w, float x, float y, float z, float tx, float ty, float tz)
{
    mq_rigid r = {{w, x, y, z}, {tx, ty, tz}};
    return r;
}

/* Both trees: the distance, its points, and found. */
static double both_distance(const cube *a, const cube *b, const mq_rigid *xf, const mq_distance_options *o,
                            mq_distance_result *out)
{
    mq_distance_result r1, r2;
    bool f1 = mq_obbtree_distance(a->obb, b->obb, xf, o, &r1);
    bool f2 = mq_bvh_distance(a->bvh, b->bvh, xf, o, &r2);
    assert_int_equal(f1, f2);
    assert_int_equal(f1, r1.found);
    assert_int_equal(f2, r2.found);
    if (!f1) {
        assert_int_equal(r1.triangle_a, MQ_NO_TRIANGLE);
        assert_int_equal(r2.triangle_b, MQ_NO_TRIANGLE);
        return -1.0;
    }
    assert_true(fabs(r1.distance - r2.distance) < EPS);
    assert_true(fabs(dist3(r1.point_a, r1.point_b) - r1.distance) < 1e-7);
    assert_true(r1.triangle_a < 12 && r1.triangle_b < 12);
    if (out)
        *out = r1;
    return r1.distance;
}

static void cube_distances(void **state)
{
    (void)state;
    cube a, b;
    cube_make(&a, false);
    cube_make(&b, false);
    size_t allocs = g_count.allocs;
    mq_distance_result r;
    /* face to face, 1.5 apart along x */
    mq_rigid xf = rigid(1, 0, 0, 0, 2.5f, 0, 0);
    assert_true(fabs(both_distance(&a, &b, &xf, NULL, &r) - 1.5) < EPS);
    assert_true(fabs(r.point_a[0] - 1.0) < EPS && fabs(r.point_b[0] - 2.5) < EPS);
    /* B rotated 45 degrees about z: its vertical edge at x = 2, 1 from A's face x = 1 */
    float c = 0.92387953f, s = 0.38268343f;
    xf = rigid(c, 0, 0, s, 2.70710678f, 0, 0);
    assert_true(fabs(both_distance(&a, &b, &xf, NULL, &r) - 1.0) < 1e-6);
    /* corner to corner along the diagonal: B moved by (2, 2, 2): sqrt(3) */
    xf = rigid(1, 0, 0, 0, 2, 2, 2);
    assert_true(fabs(both_distance(&a, &b, &xf, NULL, &r) - sqrt(3.0)) < 1e-6);
    assert_true(dist3(r.point_a, (double[3]){1, 1, 1}) < 1e-6);
    /* touching faces (x = 1) and overlapping: 0, with a common point */
    xf = rigid(1, 0, 0, 0, 1, 0, 0);
    assert_true(both_distance(&a, &b, &xf, NULL, &r) == 0.0);
    assert_true(dist3(r.point_a, r.point_b) < 1e-6);
    xf = rigid(1, 0, 0, 0, 0.3f, 0.2f, 0.1f);
    assert_true(both_distance(&a, &b, &xf, NULL, &r) == 0.0);
    /* an unnormalised quaternion is normalised first */
    xf = rigid(2, 0, 0, 0, 2.5f, 0, 0);
    assert_true(fabs(both_distance(&a, &b, &xf, NULL, NULL) - 1.5) < EPS);

    /* max_distance: found at exactly it, not below it */
    mq_distance_options o = mq_default_distance_options();
    assert_true(isinf(o.max_distance) && o.abs_tolerance == 0.0 && o.rel_tolerance == 0.0);
    xf = rigid(1, 0, 0, 0, 2.5f, 0, 0);
    o.max_distance = 1.5;
    assert_true(fabs(both_distance(&a, &b, &xf, &o, NULL) - 1.5) < EPS);
    o.max_distance = 1.4;
    assert_true(both_distance(&a, &b, &xf, &o, NULL) == -1.0);
    o.max_distance = 0.0;
    assert_true(both_distance(&a, &b, &xf, &o, NULL) == -1.0);
    /* tolerances: the answer stays within them */
    o = mq_default_distance_options();
    o.rel_tolerance = 0.5;
    o.abs_tolerance = 0.1;
    double d = both_distance(&a, &b, &xf, &o, NULL);
    assert_true(d >= 1.5 - EPS && d <= 1.5 * 1.5 + 0.1);

    /* invalid inputs: nothing found */
    mq_rigid bad[4] = {rigid(0, 0, 0, 0, 0, 0, 0), rigid(1, NAN, 0, 0, 0, 0, 0), rigid(1, 0, 0, 0, INFINITY, 0, 0),
                       rigid(INFINITY, 0, 0, 0, 0, 0, 0)};
    for (int i = 0; i < 4; i++)
        assert_true(both_distance(&a, &b, &bad[i], NULL, NULL) == -1.0);
    const mq_distance_options bad_opts[4] = {{-1.0, 0, 0}, {NAN, 0, 0}, {INFINITY, -1, 0}, {INFINITY, 0, NAN}};
    for (int i = 0; i < 4; i++)
        assert_true(both_distance(&a, &b, &xf, &bad_opts[i], NULL) == -1.0);
    assert_false(mq_obbtree_distance(NULL, b.obb, &xf, NULL, &r));
    assert_false(r.found);
    assert_false(mq_bvh_distance(a.bvh, NULL, &xf, NULL, NULL));
    assert_false(mq_bvh_distance(a.bvh, b.bvh, NULL, NULL, &r));
    assert_true(mq_obbtree_distance(a.obb, b.obb, &xf, NULL, NULL)); /* out may be NULL */

    /* the queries allocated nothing */
    assert_int_equal(g_count.allocs, allocs);

    /* a mesh with no finite triangle: nothing to measure */
    cube e;
    cube_make(&e, true);
    if (e.obb)
        assert_false(mq_obbtree_distance(a.obb, e.obb, &xf, NULL, &r));
    if (e.bvh)
        assert_false(mq_bvh_distance(e.bvh, a.bvh, &xf, NULL, &r));
    cube_free(&e);
    cube_free(&a);
    cube_free(&b);
    assert_int_equal(g_count.allocs, g_count.frees);
}

static bool stop_first(const mq_clearance_pair *p, void *user)
{
    (void)p;
    (*(size_t *)user)++;
    return false;
}

static bool all_zero(const mq_clearance_pair *p, void *user)
{
    (void)user;
    assert_true(p->distance == 0.0);
    assert_true(dist3(p->point_a, p->point_b) < 1e-6);
    return true;
}

static void cube_clearance(void **state)
{
    (void)state;
    cube a, b;
    cube_make(&a, false);
    cube_make(&b, false);
    size_t allocs = g_count.allocs;
    /* touching faces at x = 1: d = 0 finds exactly the pairs that touch */
    mq_rigid xf = rigid(1, 0, 0, 0, 1, 0, 0);
    size_t n0 = mq_obbtree_clearance(a.obb, b.obb, &xf, 0.0, all_zero, NULL);
    size_t n1 = mq_bvh_clearance(a.bvh, b.bvh, &xf, 0.0, all_zero, NULL);
    assert_true(n0 > 0);
    assert_int_equal(n0, n1);
    assert_int_equal(n0, mq_obbtree_collide_array(a.obb, b.obb, &xf, NULL, 0));
    assert_true(mq_obbtree_clearance_any(a.obb, b.obb, &xf, 0.0));
    assert_true(mq_bvh_clearance_any(a.bvh, b.bvh, &xf, 0.0));
    /* 1.5 apart: nothing below, the facing pairs at 1.5, every pair at INFINITY */
    xf = rigid(1, 0, 0, 0, 2.5f, 0, 0);
    assert_false(mq_obbtree_clearance_any(a.obb, b.obb, &xf, 1.49));
    assert_false(mq_bvh_clearance_any(a.bvh, b.bvh, &xf, 1.49));
    assert_int_equal(mq_obbtree_clearance_array(a.obb, b.obb, &xf, 1.49, NULL, 0), 0);
    size_t at = mq_obbtree_clearance_array(a.obb, b.obb, &xf, 1.5, NULL, 0);
    assert_true(at >= 4);
    assert_int_equal(mq_bvh_clearance_array(a.bvh, b.bvh, &xf, 1.5, NULL, 0), at);
    assert_int_equal(mq_obbtree_clearance_array(a.obb, b.obb, &xf, INFINITY, NULL, 0), 144);
    assert_int_equal(mq_bvh_clearance_array(a.bvh, b.bvh, &xf, INFINITY, NULL, 0), 144);
    /* a short array: the total is returned, only `capacity` written */
    mq_clearance_pair few[3];
    memset(few, 0xAB, sizeof few);
    assert_int_equal(mq_obbtree_clearance_array(a.obb, b.obb, &xf, INFINITY, few, 2), 144);
    assert_true(few[0].distance >= 1.5 - EPS && few[1].distance >= 1.5 - EPS);
    unsigned char guard[sizeof few[2]];
    memset(guard, 0xAB, sizeof guard);
    assert_memory_equal(&few[2], guard, sizeof guard);
    /* a callback that stops: one call */
    size_t calls = 0;
    assert_int_equal(mq_bvh_clearance(a.bvh, b.bvh, &xf, INFINITY, stop_first, &calls), 1);
    assert_int_equal(calls, 1);
    /* invalid d, transform or callback: nothing */
    assert_int_equal(mq_obbtree_clearance_array(a.obb, b.obb, &xf, -1.0, NULL, 0), 0);
    assert_int_equal(mq_obbtree_clearance_array(a.obb, b.obb, &xf, NAN, NULL, 0), 0);
    assert_int_equal(mq_bvh_clearance(a.bvh, b.bvh, &xf, 1.0, NULL, NULL), 0);
    mq_rigid zero = rigid(0, 0, 0, 0, 0, 0, 0);
    assert_false(mq_bvh_clearance_any(a.bvh, b.bvh, &zero, INFINITY));
    assert_int_equal(g_count.allocs, allocs);
    cube_free(&a);
    cube_free(&b);
}

static void shape_distances(void **state)
{
    (void)state;
    cube a;
    cube_make(&a, false);
    size_t allocs = g_count.allocs;
    mq_shape shapes[4];
    shapes[0] = mq_shape_sphere((mq_sphere){{3, 0.5f, 0.5f}, 0.5f});                    /* 1.5 from x = 1 */
    shapes[1] = mq_shape_capsule((mq_capsule){{0.5f, 0.5f, 3}, {0.5f, 0.5f, 5}, 0.5f}); /* 1.5 above z = 1 */
    shapes[2] = mq_shape_aabb((mq_aabb){{-3, 0, 0}, {-1.5f, 1, 1}});                    /* 1.5 left of x = 0 */
    mq_obb box;
    float q[4] = {0.92387953f, 0, 0, 0.38268343f}; /* 45 degrees about z: its edge at y = -1 */
    mq_obb_from_quat((vec3){0.5f, -1.70710678f, 0.5f}, (vec3){0.5f, 0.5f, 0.5f}, q, &box);
    shapes[3] = mq_shape_obb(box);
    const double expect[4] = {1.5, 1.5, 1.5, 1.0};
    for (int i = 0; i < 4; i++) {
        mq_shape_distance_result r1, r2;
        assert_true(mq_obbtree_shape_distance(a.obb, &shapes[i], NULL, &r1));
        assert_true(mq_bvh_shape_distance(a.bvh, &shapes[i], NULL, &r2));
        assert_true(fabs(r1.distance - expect[i]) < 1e-6);
        assert_true(fabs(r2.distance - expect[i]) < 1e-6);
        assert_true(fabs(dist3(r1.point_shape, r1.point_mesh) - r1.distance) < 1e-6);
        assert_true(r1.triangle < 12 && r2.triangle < 12);
        /* clearance just below and at the distance */
        assert_false(mq_obbtree_shape_clearance_any(a.obb, &shapes[i], expect[i] - 1e-3));
        assert_false(mq_bvh_shape_clearance_any(a.bvh, &shapes[i], expect[i] - 1e-3));
        size_t n = mq_obbtree_shape_clearance_array(a.obb, &shapes[i], expect[i] + 1e-6, NULL, 0);
        assert_true(n >= 1);
        assert_int_equal(mq_bvh_shape_clearance_array(a.bvh, &shapes[i], expect[i] + 1e-6, NULL, 0), n);
        mq_clearance_pair p;
        assert_int_equal(mq_bvh_shape_clearance_array(a.bvh, &shapes[i], expect[i] + 1e-6, &p, 1), n);
        assert_int_equal(p.triangle_a, MQ_NO_TRIANGLE);
        assert_true(p.triangle_b < 12);
        size_t calls = 0;
        assert_int_equal(mq_obbtree_shape_clearance(a.obb, &shapes[i], INFINITY, stop_first, &calls), 1);
        /* max_distance below the distance: nothing */
        mq_distance_options o = mq_default_distance_options();
        o.max_distance = expect[i] - 1e-3;
        assert_false(mq_obbtree_shape_distance(a.obb, &shapes[i], &o, &r1));
        assert_false(r1.found);
        assert_int_equal(r1.triangle, MQ_NO_TRIANGLE);
    }
    /* overlapping shapes: 0 with a common point */
    mq_shape in = mq_shape_sphere((mq_sphere){{0.5f, 0.5f, 1.2f}, 0.3f});
    mq_shape_distance_result r;
    assert_true(mq_bvh_shape_distance(a.bvh, &in, NULL, &r));
    assert_true(r.distance == 0.0 && dist3(r.point_shape, r.point_mesh) < 1e-6);
    mq_shape inside_box = mq_shape_aabb((mq_aabb){{0.9f, 0.9f, 0.9f}, {2, 2, 2}});
    assert_true(mq_obbtree_shape_distance(a.obb, &inside_box, NULL, &r));
    assert_true(r.distance == 0.0 && dist3(r.point_shape, r.point_mesh) < 1e-6);
    /* a shape deep inside the closed cube is still apart from its surface */
    mq_shape deep = mq_shape_sphere((mq_sphere){{0.5f, 0.5f, 0.5f}, 0.1f});
    assert_true(mq_obbtree_shape_distance(a.obb, &deep, NULL, &r));
    assert_true(fabs(r.distance - 0.4) < 1e-6);
    /* invalid shapes and an unknown kind: nothing */
    mq_shape bad[4];
    bad[0] = mq_shape_sphere((mq_sphere){{0, 0, 0}, -1.0f});
    bad[1] = mq_shape_capsule((mq_capsule){{NAN, 0, 0}, {0, 0, 0}, 1.0f});
    bad[2] = mq_shape_aabb((mq_aabb){{1, 1, 1}, {0, 0, 0}});
    bad[3] = in;
    bad[3].kind = (mq_shape_kind)77;
    for (int i = 0; i < 4; i++) {
        assert_false(mq_obbtree_shape_distance(a.obb, &bad[i], NULL, &r));
        assert_false(mq_bvh_shape_distance(a.bvh, &bad[i], NULL, NULL));
        assert_false(mq_bvh_shape_clearance_any(a.bvh, &bad[i], INFINITY));
        assert_int_equal(mq_obbtree_shape_clearance_array(a.obb, &bad[i], INFINITY, NULL, 0), 0);
    }
    assert_false(mq_bvh_shape_distance(NULL, &in, NULL, &r));
    assert_false(mq_bvh_shape_distance(a.bvh, NULL, NULL, &r));
    assert_int_equal(g_count.allocs, allocs);
    cube_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(triangle_pairs),
        cmocka_unit_test(cube_distances),
        cmocka_unit_test(cube_clearance),
        cmocka_unit_test(shape_distances),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
