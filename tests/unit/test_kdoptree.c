/*
 * k-DOP tree and sphere tree: options and errors, empty and NULL trees,
 * allocation failure at every allocation of the build (nothing leaks, the
 * error says so), and the volumes the statistics measure on shapes whose
 * answer is known. The queries themselves are checked against brute force in
 * tests/diff/test_diff_kdoptree.c and test_diff_spheretree.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <meshquery/meshquery.h>
#include <meshquery/kdoptree.h>
#include <meshquery/spheretree.h>

#include "test_support.h"

static mq_mesh *one_triangle(void)
{
    const float p[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t ix[] = {0, 1, 2};
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(p, 3, ix, 1, NULL, &m, NULL), MQ_OK);
    return m;
}

static void kdop_bad_arguments(void **state)
{
    (void)state;
    mq_mesh *m = one_triangle();
    mq_kdoptree *t = (mq_kdoptree *)m;
    mq_diag diag;
    mq_kdoptree_def d = mq_default_kdoptree_def();
    assert_int_equal(d.k, 18);
    assert_int_equal(d.max_leaf_size, 4);
    assert_int_equal(mq_kdoptree_build(NULL, &d, &t, &diag), MQ_ERR_INVALID_ARG);
    assert_null(t);
    assert_int_equal(mq_kdoptree_build(m, &d, NULL, &diag), MQ_ERR_INVALID_ARG);
    d.k = 10;
    assert_int_equal(mq_kdoptree_build(m, &d, &t, &diag), MQ_ERR_INVALID_ARG);
    assert_non_null(strstr(diag.message, "k = 10"));
    d = mq_default_kdoptree_def();
    d.max_leaf_size = 17;
    assert_int_equal(mq_kdoptree_build(m, &d, &t, &diag), MQ_ERR_INVALID_ARG);
    mq_kdoptree_def raw = {18, 4, NULL, 0};
    assert_int_equal(mq_kdoptree_build(m, &raw, &t, &diag), MQ_ERR_INVALID_ARG);
    assert_non_null(strstr(diag.message, "mq_default_kdoptree_def"));
    assert_int_equal(mq_kdoptree_refit(NULL, NULL, &diag), MQ_ERR_INVALID_ARG);
    mq_kdoptree_destroy(NULL);
    mq_kdoptree_stats st;
    mq_kdoptree_get_stats(NULL, &st);
    assert_int_equal(st.node_count, 0);
    mq_shape s = mq_shape_sphere((mq_sphere){{0, 0, 0}, 1});
    assert_int_equal(mq_kdoptree_overlap_array(NULL, &s, NULL, 0), 0);
    assert_false(mq_kdoptree_overlap_any(NULL, &s));
    mq_mesh_destroy(m);
}

static void sphere_bad_arguments(void **state)
{
    (void)state;
    mq_mesh *m = one_triangle();
    mq_spheretree *t = (mq_spheretree *)m;
    mq_diag diag;
    mq_spheretree_def d = mq_default_spheretree_def();
    assert_int_equal(mq_spheretree_build(NULL, &d, &t, &diag), MQ_ERR_INVALID_ARG);
    assert_null(t);
    d.max_leaf_size = 0;
    assert_int_equal(mq_spheretree_build(m, &d, &t, &diag), MQ_ERR_INVALID_ARG);
    mq_spheretree_def raw = {4, NULL, 0};
    assert_int_equal(mq_spheretree_build(m, &raw, &t, &diag), MQ_ERR_INVALID_ARG);
    assert_non_null(strstr(diag.message, "mq_default_spheretree_def"));
    assert_int_equal(mq_spheretree_refit(NULL, NULL, &diag), MQ_ERR_INVALID_ARG);
    mq_spheretree_destroy(NULL);
    mq_mesh_destroy(m);
}

/* A mesh whose only triangle is not finite: an empty tree that matches nothing. */
static void empty_trees_match_nothing(void **state)
{
    (void)state;
    const float p[] = {0, 0, 0, NAN, 0, 0, 0, 1, 0};
    const uint32_t ix[] = {0, 1, 2};
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(p, 3, ix, 1, NULL, &m, NULL), MQ_OK);
    mq_kdoptree *k = NULL;
    mq_spheretree *s = NULL;
    assert_int_equal(mq_kdoptree_build(m, NULL, &k, NULL), MQ_OK);
    assert_int_equal(mq_spheretree_build(m, NULL, &s, NULL), MQ_OK);
    mq_shape q = mq_shape_sphere((mq_sphere){{0, 0, 0}, 10});
    mq_ray r = {{0, 0, -1}, 0, {0, 0, 1}, INFINITY};
    vec3 o = {0, 0, 0};
    mq_hit h;
    assert_int_equal(mq_kdoptree_overlap_array(k, &q, NULL, 0), 0);
    assert_int_equal(mq_spheretree_overlap_array(s, &q, NULL, 0), 0);
    assert_false(mq_kdoptree_raycast_closest(k, &r, NULL, &h));
    assert_int_equal(h.triangle, MQ_NO_TRIANGLE);
    assert_false(mq_spheretree_raycast_any(s, &r, NULL));
    assert_false(mq_kdoptree_closest_point(k, o, INFINITY, NULL));
    assert_false(mq_spheretree_closest_point(s, o, INFINITY, NULL));
    mq_rigid id = {{1, 0, 0, 0}, {0, 0, 0}};
    assert_false(mq_kdoptree_any_collide(k, k, &id));
    assert_false(mq_spheretree_any_collide(s, s, &id));
    assert_int_equal(mq_kdoptree_refit(k, NULL, NULL), MQ_OK);
    mq_kdoptree_destroy(k);
    mq_spheretree_destroy(s);
    mq_mesh_destroy(m);
}

/* A shape of a kind the trees do not know overlaps nothing. */
static void unknown_kinds_match_nothing(void **state)
{
    (void)state;
    mq_mesh *m = one_triangle();
    mq_kdoptree *k = NULL;
    mq_spheretree *s = NULL;
    assert_int_equal(mq_kdoptree_build(m, NULL, &k, NULL), MQ_OK);
    assert_int_equal(mq_spheretree_build(m, NULL, &s, NULL), MQ_OK);
    mq_shape q = mq_shape_sphere((mq_sphere){{0, 0, 0}, 10});
    assert_int_equal(mq_kdoptree_overlap_array(k, &q, NULL, 0), 1);
    assert_int_equal(mq_spheretree_overlap_array(s, &q, NULL, 0), 1);
    q.kind = (mq_shape_kind)77;
    assert_int_equal(mq_kdoptree_overlap_array(k, &q, NULL, 0), 0);
    assert_false(mq_spheretree_overlap_any(s, &q));
    mq_kdoptree_destroy(k);
    mq_spheretree_destroy(s);
    mq_mesh_destroy(m);
}

typedef struct failing {
    long live_bytes;
    int allocs, fail_at;
} failing;

static void *failing_alloc(size_t size, size_t align, void *user)
{
    failing *f = user;
    if (++f->allocs == f->fail_at)
        return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size))
        return NULL;
    f->live_bytes += (long)size;
    return p;
}

static void failing_free(void *ptr, size_t size, void *user)
{
    failing *f = user;
    f->live_bytes -= (long)size;
    free(ptr);
}

static void allocation_failures_leak_nothing(void **state)
{
    (void)state;
    mq_mesh *m = mq_test_load_mesh("suzanne.obj");
    for (int tree = 0; tree < 2; tree++) {
        bool built = false;
        for (int n = 1; n < 100 && !built; n++) {
            failing f = {0, 0, n};
            mq_allocator a = {failing_alloc, failing_free, &f};
            mq_diag diag;
            mq_status st;
            size_t bytes = 0;
            if (tree == 0) {
                mq_kdoptree_def d = mq_default_kdoptree_def();
                d.allocator = &a;
                mq_kdoptree *t = NULL;
                st = mq_kdoptree_build(m, &d, &t, &diag);
                if (st == MQ_OK) {
                    bytes = mq_kdoptree_byte_count(t);
                    assert_int_equal(f.live_bytes, (long)bytes);
                    mq_kdoptree_destroy(t);
                } else {
                    assert_null(t);
                }
            } else {
                mq_spheretree_def d = mq_default_spheretree_def();
                d.allocator = &a;
                mq_spheretree *t = NULL;
                st = mq_spheretree_build(m, &d, &t, &diag);
                if (st == MQ_OK) {
                    bytes = mq_spheretree_byte_count(t);
                    assert_int_equal(f.live_bytes, (long)bytes);
                    mq_spheretree_destroy(t);
                } else {
                    assert_null(t);
                }
            }
            if (st == MQ_OK) {
                built = true;
                assert_true(n > 5); /* it did fail at every earlier allocation */
            } else {
                assert_int_equal(st, MQ_ERR_OUT_OF_MEMORY);
                assert_non_null(strstr(diag.message, "out of memory"));
            }
            assert_int_equal(f.live_bytes, 0);
        }
        assert_true(built);
    }
    mq_mesh_destroy(m);
}

/* One triangle (0,0,0) (1,0,0) (0,1,0): its AABB is the unit square (area 2
 * counted on both faces, volume 0); every k with the x+y slab cuts it to the
 * triangle itself (area 1); its bounding sphere holds the three corners. */
static void statistics_measure_known_volumes(void **state)
{
    (void)state;
    mq_mesh *m = one_triangle();
    static const uint32_t ks[] = {6, 14, 18, 26};
    static const double areas[] = {2.0, 0.0, 1.0, 1.0}; /* k = 14: not checked */
    for (int i = 0; i < 4; i++) {
        mq_kdoptree_def d = mq_default_kdoptree_def();
        d.k = ks[i];
        mq_kdoptree *t = NULL;
        assert_int_equal(mq_kdoptree_build(m, &d, &t, NULL), MQ_OK);
        assert_int_equal(mq_kdoptree_k(t), ks[i]);
        mq_kdoptree_stats st;
        mq_kdoptree_get_stats(t, &st);
        assert_int_equal(st.node_count, 1);
        assert_int_equal(st.leaf_count, 1);
        assert_true(fabs(st.leaf_volume) < 1e-12);
        if (ks[i] != 14) /* the cube diagonals do not cut a triangle in z = 0 to itself */
            assert_true(fabs(st.leaf_area - areas[i]) < 1e-6);
        assert_true(st.bytes_per_triangle > 0.0);
        mq_kdoptree_destroy(t);
    }
    mq_spheretree *s = NULL;
    assert_int_equal(mq_spheretree_build(m, NULL, &s, NULL), MQ_OK);
    mq_spheretree_stats ss;
    mq_spheretree_get_stats(s, &ss);
    double r_min = sqrt(0.5); /* the smallest sphere: centred on the hypotenuse's midpoint */
    double r = cbrt(ss.leaf_volume * 3.0 / (4.0 * 3.14159265358979323846));
    assert_true(r >= r_min * (1 - 1e-6) && r <= 1.0);
    mq_spheretree_destroy(s);
    mq_mesh_destroy(m);
}

/* On one partition, more slabs never enclose more: volumes shrink from k = 6 to 26. */
static void more_slabs_are_tighter(void **state)
{
    (void)state;
    mq_mesh *m = mq_test_load_mesh("stanford-bunny.obj");
    double vol[4], area[4];
    static const uint32_t ks[] = {6, 14, 18, 26};
    for (int i = 0; i < 4; i++) {
        mq_kdoptree_def d = mq_default_kdoptree_def();
        d.k = ks[i];
        mq_kdoptree *t = NULL;
        assert_int_equal(mq_kdoptree_build(m, &d, &t, NULL), MQ_OK);
        mq_kdoptree_stats st;
        mq_kdoptree_get_stats(t, &st);
        vol[i] = st.leaf_volume;
        area[i] = st.leaf_area;
        mq_kdoptree_destroy(t);
    }
    for (int i = 1; i < 4; i++) {
        assert_true(vol[i] <= vol[0] * (1 + 1e-9));
        assert_true(area[i] <= area[0] * (1 + 1e-9));
    }
    assert_true(vol[3] <= vol[1] * (1 + 1e-9) && vol[3] <= vol[2] * (1 + 1e-9));
    mq_mesh_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kdop_bad_arguments),
        cmocka_unit_test(sphere_bad_arguments),
        cmocka_unit_test(empty_trees_match_nothing),
        cmocka_unit_test(unknown_kinds_match_nothing),
        cmocka_unit_test(allocation_failures_leak_nothing),
        cmocka_unit_test(statistics_measure_known_volumes),
        cmocka_unit_test(more_slabs_are_tighter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
