/*
 * Convex shape vs mesh distance and clearance (meshquery/proximity.h with
 * MQ_SHAPE_CONVEX) on the BVH and the OBB tree, against brute force over
 * every triangle and an independent oracle, both in double.
 *
 * Brute force: mq_convex_triangle_distance (the leaf test) on every triangle
 * of the mesh. Both trees must report exactly its minimum (bit for bit, the
 * same value the reported triangle has), agree with each other, honour
 * max_distance (found at exactly the minimum, not below it) and a tolerance,
 * and their clearance must report exactly the triangles brute force puts
 * within d, each at its brute-force distance.
 *
 * Oracle (shares no code with the library): a triangle meets the hull when
 * the hull's half-spaces clip something of it (oracle_convex.h); otherwise
 * their distance is the least distance between the triangle and a hull face,
 * each pair of disjoint triangles measured as the least distance of either
 * one's edges to the other triangle (oracle.h, in double). Its minimum over
 * the mesh (triangles whose box is farther from the hull's box than the
 * answer plus the tolerance cannot hold it and are skipped) must equal the
 * trees' distance within 1e-6 of the mesh's size. Witnesses: the mesh point
 * on the reported triangle and the shape point in the hull (both within
 * 1e-6 D), their distance the reported one (1e-6 D), and distance 0 exactly
 * when mq_overlap_convex_triangle says the hull meets that triangle.
 *
 * Hulls: 4 to 40 points in a ball of radius 2% to 15% of the mesh's size,
 * centred in the mesh's bounds grown by 30% (most apart) or on a mesh vertex
 * (most meet); spot (closed), suzanne and cow. MQ_TEST_SEED changes them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "gen_convex.h"
#include "gen_shapes.h"
#include "oracle.h"
#include "oracle_convex.h"
#include "test_support.h"

#define HULLS 30

/* ---- the oracle's distances, in double (tests/support/oracle.h) ---- */

static double dist(const double a[3], const double b[3])
{
    return oracle_dist(oracle_v3_make(a[0], a[1], a[2]), oracle_v3_make(b[0], b[1], b[2]));
}

static oracle_tri tri_of(const double *t)
{
    oracle_tri o;
    for (int c = 0; c < 3; c++)
        o.v[c] = oracle_v3_make(t[3 * c], t[3 * c + 1], t[3 * c + 2]);
    return o;
}

/* Distance of two disjoint triangles (corners xyz, 3 each): the least over
 * each one's edges against the other triangle. */
static double tri_tri(const double *a, const double *b)
{
    oracle_tri ta = tri_of(a), tb = tri_of(b);
    double best = INFINITY;
    for (int v = 0; v < 3; v++) {
        best = fmin(best, oracle_dist2_segment_triangle_direct(ta.v[v], ta.v[(v + 1) % 3], &tb));
        best = fmin(best, oracle_dist2_segment_triangle_direct(tb.v[v], tb.v[(v + 1) % 3], &ta));
    }
    return sqrt(best);
}

/* The oracle's distance between the solid hull and triangle t. */
static double oracle_distance(const mq_convex *cv, const oracle_hspace *h, const double t[9])
{
    if (oracle_hspace_meets(h, t, NULL, 0.0))
        return 0.0;
    const float *v = mq_convex_vertices(cv);
    const uint32_t *f = mq_convex_faces(cv);
    double best = INFINITY;
    for (size_t j = 0; j < mq_convex_face_count(cv); j++) {
        double ft[9];
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                ft[3 * c + k] = v[3 * f[3 * j + c] + k];
        best = fmin(best, tri_tri(ft, t));
    }
    return best;
}

/* Distance between the hull's box and the triangle's box (a lower bound). */
static double box_gap(const mq_aabb *hb, const double t[9])
{
    double g2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double lo = fmin(t[k], fmin(t[3 + k], t[6 + k])), hi = fmax(t[k], fmax(t[3 + k], t[6 + k]));
        double g = fmax((double)hb->min[k] - hi, lo - (double)hb->max[k]);
        if (g > 0.0)
            g2 += g * g;
    }
    return sqrt(g2);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The trees' clearance at d equals brute force: the same triangles, each at its brute-force distance. */
static size_t check_clearance(const gen_mesh_trees *m, const mq_shape *s, const double *brute, double d)
{
    size_t want = 0;
    for (size_t i = 0; i < m->nt; i++)
        want += brute[i] <= d;
    for (int h = 0; h < 2; h++) {
        size_t n = h ? mq_bvh_shape_clearance_array(m->bvh, s, d, NULL, 0)
                     : mq_obbtree_shape_clearance_array(m->tree, s, d, NULL, 0);
        assert_int_equal(n, want);
        mq_clearance_pair *got = calloc(n ? n : 1, sizeof *got);
        uint32_t *ids = calloc(n ? n : 1, sizeof *ids);
        assert_non_null(got);
        assert_non_null(ids);
        size_t again = h ? mq_bvh_shape_clearance_array(m->bvh, s, d, got, n)
                         : mq_obbtree_shape_clearance_array(m->tree, s, d, got, n);
        assert_int_equal(again, n);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(got[i].triangle_a, MQ_NO_TRIANGLE);
            assert_true(got[i].triangle_b < m->nt);
            assert_true(got[i].distance == brute[got[i].triangle_b]);
            assert_true(got[i].distance <= d);
            ids[i] = got[i].triangle_b;
        }
        qsort(ids, n, sizeof *ids, cmp_u32);
        for (size_t i = 1; i < n; i++)
            assert_true(ids[i] != ids[i - 1]); /* each triangle once */
        bool any = h ? mq_bvh_shape_clearance_any(m->bvh, s, d) : mq_obbtree_shape_clearance_any(m->tree, s, d);
        assert_int_equal(any, n > 0);
        free(got);
        free(ids);
    }
    return want;
}

static void check_mesh(const char *name, uint64_t seed)
{
    gen_mesh_trees m;
    gen_mesh_trees_load(&m, name);
    mq_aabb grown = m.box;
    for (int k = 0; k < 3; k++) {
        grown.min[k] -= (float)(0.3 * m.D);
        grown.max[k] += (float)(0.3 * m.D);
    }
    mq_test_rng r;
    mq_test_rng_seed(&r, mq_test_seed(seed));
    const float *pos = mq_mesh_positions(m.mesh);
    size_t nv = mq_mesh_vertex_count(m.mesh), meet = 0, pairs = 0, oracle_tris = 0;
    double tol = 1e-6 * m.D, worst = 0.0;
    double *brute = malloc(m.nt * sizeof *brute);
    assert_non_null(brute);
    for (int i = 0; i < HULLS; i++) {
        vec3 c;
        if (i % 3 == 0) {
            size_t v = (size_t)(mq_test_rng_unit(&r) * (double)nv) % nv;
            memcpy(c, pos + 3 * v, sizeof c);
        } else {
            gen_point_in(&r, &grown, c);
        }
        mq_convex *cv = gen_random_hull(&r, c, m.D * mq_test_rng_range(&r, 0.02, 0.15));
        mq_shape s = mq_shape_convex(cv);
        /* brute force with the leaf test */
        double bmin = INFINITY;
        for (uint32_t t = 0; t < m.nt; t++) {
            mq_triangle tri;
            mq_mesh_get_triangle(m.mesh, t, &tri);
            brute[t] = mq_convex_triangle_distance(cv, &tri, NULL, NULL);
            assert_true(brute[t] >= 0.0);
            bmin = fmin(bmin, brute[t]);
        }
        /* nearest, both trees */
        mq_shape_distance_result res[2];
        assert_true(mq_obbtree_shape_distance(m.tree, &s, NULL, &res[0]));
        assert_true(mq_bvh_shape_distance(m.bvh, &s, NULL, &res[1]));
        for (int h = 0; h < 2; h++) {
            const mq_shape_distance_result *q = &res[h];
            assert_true(q->found);
            assert_true(q->distance == bmin);
            assert_true(q->triangle < m.nt);
            assert_true(brute[q->triangle] == bmin);
            double t[9];
            gen_mesh_corners(m.mesh, q->triangle, t);
            /* witnesses: on the triangle, in the hull, at the distance */
            oracle_tri ot = tri_of(t);
            oracle_v3 pm = oracle_v3_make(q->point_mesh[0], q->point_mesh[1], q->point_mesh[2]);
            assert_true(sqrt(oracle_dist2_point_triangle_direct(pm, &ot)) <= tol);
            assert_true(fabs(dist(q->point_shape, q->point_mesh) - q->distance) <= tol);
            vec3 ps = {(float)q->point_shape[0], (float)q->point_shape[1], (float)q->point_shape[2]};
            vec3 on;
            assert_true(mq_convex_closest_point(cv, ps, on) <= tol);
            mq_triangle tri;
            mq_mesh_get_triangle(m.mesh, q->triangle, &tri);
            assert_int_equal(q->distance == 0.0, mq_overlap_convex_triangle(cv, &tri));
        }
        assert_true(res[0].distance == res[1].distance);
        assert_int_equal(bmin == 0.0, mq_bvh_overlap_any(m.bvh, &s));
        meet += bmin == 0.0;
        /* the independent oracle's minimum */
        oracle_hspace hs;
        oracle_hspace_make(cv, NULL, NULL, &hs);
        mq_aabb hb;
        assert_true(mq_convex_bounds(cv, &hb));
        double omin = INFINITY;
        for (uint32_t t = 0; t < m.nt; t++) {
            double tc[9];
            gen_mesh_corners(m.mesh, t, tc);
            if (box_gap(&hb, tc) > bmin + tol)
                continue;
            oracle_tris++;
            omin = fmin(omin, oracle_distance(cv, &hs, tc));
        }
        oracle_hspace_free(&hs);
        worst = fmax(worst, fabs(omin - bmin));
        assert_true(fabs(omin - bmin) <= tol);
        /* max_distance: found at exactly the minimum, not below it */
        mq_distance_options o = mq_default_distance_options();
        mq_shape_distance_result q;
        o.max_distance = bmin;
        assert_true(mq_bvh_shape_distance(m.bvh, &s, &o, &q) && q.distance == bmin);
        assert_true(mq_obbtree_shape_distance(m.tree, &s, &o, &q) && q.distance == bmin);
        if (bmin > 0.0) {
            o.max_distance = nextafter(bmin, 0.0);
            assert_false(mq_bvh_shape_distance(m.bvh, &s, &o, &q));
            assert_false(q.found);
            assert_false(mq_obbtree_shape_distance(m.tree, &s, &o, &q));
        }
        /* a tolerance: within it of the minimum, the reported triangle at that distance */
        o = mq_default_distance_options();
        o.abs_tolerance = 0.02 * m.D;
        o.rel_tolerance = 0.1;
        for (int h = 0; h < 2; h++) {
            assert_true(h ? mq_bvh_shape_distance(m.bvh, &s, &o, &q) : mq_obbtree_shape_distance(m.tree, &s, &o, &q));
            assert_true(q.distance >= bmin && q.distance <= bmin + o.abs_tolerance + o.rel_tolerance * bmin);
            assert_true(brute[q.triangle] == q.distance);
        }
        /* clearance at the minimum and beyond it */
        pairs += check_clearance(&m, &s, brute, bmin);
        pairs += check_clearance(&m, &s, brute, bmin + 0.03 * m.D);
        if (i % 5 == 0)
            pairs += check_clearance(&m, &s, brute, 0.0);
        mq_convex_destroy(cv);
    }
    print_message("%s: %d hulls (%zu meet the mesh), %zu clearance pairs, %zu oracle triangles, worst oracle "
                  "difference %.3g of D\n",
                  name, HULLS, meet, pairs, oracle_tris, worst / m.D);
    assert_true(meet > 0 && meet < HULLS);
    free(brute);
    gen_mesh_trees_free(&m);
}

static void distance_spot(void **state)
{
    (void)state;
    check_mesh("spot.obj", 0xCD01);
}

static void distance_suzanne(void **state)
{
    (void)state;
    check_mesh("suzanne.obj", 0xCD02);
}

static void distance_cow(void **state)
{
    (void)state;
    check_mesh("cow.obj", 0xCD03);
}

/* A NULL hull finds nothing; a hull far away is beyond a small max_distance. */
static void invalid_and_far(void **state)
{
    (void)state;
    mq_mesh *mesh = mq_test_load_mesh("spot.obj");
    mq_bvh *bvh = NULL;
    mq_obbtree *tree = NULL;
    assert_int_equal(mq_bvh_build(mesh, NULL, &bvh, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(mesh, NULL, &tree, NULL), MQ_OK);
    mq_shape none = mq_shape_convex(NULL);
    mq_shape_distance_result q;
    assert_false(mq_bvh_shape_distance(bvh, &none, NULL, &q));
    assert_false(q.found);
    assert_false(mq_obbtree_shape_distance(tree, &none, NULL, &q));
    assert_int_equal(mq_bvh_shape_clearance_array(bvh, &none, INFINITY, NULL, 0), 0);
    assert_false(mq_obbtree_shape_clearance_any(tree, &none, INFINITY));
    float p[] = {100, 0, 0, 100.1f, 0, 0, 100, 0.1f, 0, 100, 0, 0.1f};
    mq_convex *cv = NULL;
    assert_int_equal(mq_convex_create(p, 4, NULL, &cv, NULL), MQ_OK);
    mq_shape s = mq_shape_convex(cv);
    mq_distance_options o = mq_default_distance_options();
    o.max_distance = 1.0;
    assert_false(mq_bvh_shape_distance(bvh, &s, &o, &q));
    assert_false(mq_obbtree_shape_distance(tree, &s, &o, &q));
    o.max_distance = -1.0;
    assert_false(mq_bvh_shape_distance(bvh, &s, &o, &q));
    assert_true(mq_bvh_shape_distance(bvh, &s, NULL, &q));
    assert_true(q.distance > 90.0);
    assert_int_equal(mq_obbtree_shape_clearance_array(tree, &s, 1.0, NULL, 0), 0);
    assert_int_equal(mq_bvh_shape_clearance_array(bvh, &s, NAN, NULL, 0), 0);
    mq_convex_destroy(cv);
    mq_obbtree_destroy(tree);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
}

/* A point 1e-28 above a hull's face near (-3, 0, 0), below GJK's precision
 * (found by fuzz_convex_queries): the exact test keeps it apart, so its
 * distance is positive (never 0) in the primitive and in both trees. */
static void gap_below_gjk(void **state)
{
    (void)state;
    const float hp[] = {-1, -1,     -1, 1,  1,     -4, -1.5f, -2, -2, 1, 2, -3.5f,
                        -4, -2.25f, -4, -4, 3.25f, -4, -4,    1,  1,  1, 3, 1};
    mq_convex *cv = NULL;
    assert_int_equal(mq_convex_create(hp, 8, NULL, &cv, NULL), MQ_OK);
    const float z = 0x1.dfdfc6p-94f;
    const float pos[] = {-3, 0, z, -3, 0, z, -3, 0, z};
    const uint32_t idx[] = {0, 1, 2};
    mq_triangle tri = {{{-3, 0, z}, {-3, 0, z}, {-3, 0, z}}};
    assert_false(mq_overlap_convex_triangle(cv, &tri));
    double a[3], b[3], d = mq_convex_triangle_distance(cv, &tri, a, b);
    assert_true(d > 0.0 && d < 1e-20);
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(pos, 3, idx, 1, NULL, &m, NULL), MQ_OK);
    mq_bvh *bvh = NULL;
    mq_obbtree *tree = NULL;
    assert_int_equal(mq_bvh_build(m, NULL, &bvh, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(m, NULL, &tree, NULL), MQ_OK);
    mq_shape s = mq_shape_convex(cv);
    mq_shape_distance_result q;
    assert_true(mq_bvh_shape_distance(bvh, &s, NULL, &q) && q.distance == d);
    assert_true(mq_obbtree_shape_distance(tree, &s, NULL, &q) && q.distance == d);
    assert_int_equal(mq_bvh_shape_clearance_array(bvh, &s, 0.0, NULL, 0), 0);
    assert_int_equal(mq_obbtree_shape_clearance_array(tree, &s, d, NULL, 0), 1);
    mq_obbtree_destroy(tree);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(m);
    mq_convex_destroy(cv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(distance_spot),   cmocka_unit_test(distance_suzanne), cmocka_unit_test(distance_cow),
        cmocka_unit_test(invalid_and_far), cmocka_unit_test(gap_below_gjk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
