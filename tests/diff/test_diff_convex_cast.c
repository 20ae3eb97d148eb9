/*
 * Convex casts on the BVH and the OBB tree (mq_bvh_convex_cast,
 * mq_obbtree_convex_cast) against brute force and an independent oracle.
 *
 * Brute force: mq_convex_cast_triangle on every triangle of the mesh, the
 * smallest t, ties to the smallest id. Both trees must give exactly that
 * triangle and that t (bit for bit), and agree with each other.
 *
 * Oracle (oracle_convex.h: the hull as half-spaces in double, a triangle
 * clipped by them): for a reported time t, the convex moved to t + dt meets
 * the reported triangle (planes moved out by 1e-9 of the scale), and moved
 * to t - dt it meets no triangle of the mesh (planes moved in), dt being
 * 1e-6 of the mesh's size along the motion; t = 0 only when the start
 * convex already meets the mesh. The contact point lies on the reported
 * triangle and the normal is unit (or zero). Casts: hulls of 4 to 40 points
 * in balls of radius 2% to 15% of the mesh's size, starting in its grown
 * bounds, moving towards a mesh vertex or anywhere, over a finite or an
 * infinite tmax; spot (closed), suzanne and cow. MQ_TEST_SEED changes them.
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
#include "oracle_convex.h"
#include "test_support.h"

#define CASTS 40

/* The brute-force answer: smallest t over every triangle, ties to the smallest id. */
static uint32_t brute(const gen_mesh_trees *m, const mq_convex *cv, const vec3 dir, float tmax, float *t_out)
{
    uint32_t best_id = MQ_NO_TRIANGLE;
    float best = INFINITY;
    for (uint32_t i = 0; i < m->nt; i++) {
        mq_triangle t;
        float th;
        mq_mesh_get_triangle(m->mesh, i, &t);
        if (mq_convex_cast_triangle(cv, dir, tmax, &t, &th) && th < best) {
            best = th;
            best_id = i;
        }
    }
    *t_out = best;
    return best_id;
}

static bool any_meets(const gen_mesh_trees *m, const oracle_hspace *h, const double back[3], double shift)
{
    for (uint32_t i = 0; i < m->nt; i++) {
        double t[9];
        gen_mesh_corners(m->mesh, i, t);
        if (oracle_hspace_meets(h, t, back, shift))
            return true;
    }
    return false;
}

static void check_against_oracle(const gen_mesh_trees *m, const mq_convex *cv, const vec3 dir, const mq_cast_hit *hit)
{
    oracle_hspace h;
    oracle_hspace_make(cv, NULL, NULL, &h);
    double len = sqrt((double)dir[0] * dir[0] + (double)dir[1] * dir[1] + (double)dir[2] * dir[2]);
    double e = 1e-9 * (h.scale + m->D);
    double dt = len > 0.0 ? 1e-6 * m->D / len : 0.0;
    double tri[9], after[3], before[3];
    gen_mesh_corners(m->mesh, hit->triangle, tri);
    for (int k = 0; k < 3; k++) {
        after[k] = ((double)hit->t + dt) * dir[k];
        before[k] = ((double)hit->t - dt) * dir[k];
    }
    assert_true(oracle_hspace_meets(&h, tri, after, e));
    if (hit->t > 0.0f)
        assert_false(any_meets(m, &h, before, -e));
    else
        assert_true(hit->initially_overlapping && any_meets(m, &h, NULL, e));
    /* the contact point on the triangle, the normal unit or zero */
    mq_triangle t;
    mq_mesh_get_triangle(m->mesh, hit->triangle, &t);
    vec3 on;
    mq_closest_point_triangle(hit->point, &t, on, NULL);
    double gap = sqrt(pow(on[0] - hit->point[0], 2) + pow(on[1] - hit->point[1], 2) + pow(on[2] - hit->point[2], 2));
    assert_true(gap <= 1e-5 * m->D);
    double nl = sqrt((double)hit->normal[0] * hit->normal[0] + (double)hit->normal[1] * hit->normal[1] +
                     (double)hit->normal[2] * hit->normal[2]);
    assert_true(nl == 0.0 || fabs(nl - 1.0) < 1e-5);
    oracle_hspace_free(&h);
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
    size_t hits = 0, starts_inside = 0;
    const float *pos = mq_mesh_positions(m.mesh);
    size_t nv = mq_mesh_vertex_count(m.mesh);
    for (int i = 0; i < CASTS; i++) {
        vec3 c, dir;
        gen_point_in(&r, &grown, c);
        mq_convex *cv = gen_random_hull(&r, c, m.D * mq_test_rng_range(&r, 0.02, 0.15));
        if (i % 2 == 0) { /* towards a vertex of the mesh */
            size_t v = (size_t)(mq_test_rng_unit(&r) * (double)nv) % nv;
            for (int k = 0; k < 3; k++)
                dir[k] = pos[3 * v + k] - c[k];
        } else {
            double u[3];
            mq_test_rng_unit_vector(&r, u);
            for (int k = 0; k < 3; k++)
                dir[k] = (float)(u[k] * m.D);
        }
        float tmax = i % 3 == 0 ? INFINITY : 1.5f;
        float bt;
        uint32_t bid = brute(&m, cv, dir, tmax, &bt);
        mq_cast_hit hb, ho;
        bool b = mq_bvh_convex_cast(m.bvh, cv, dir, tmax, &hb);
        bool o = mq_obbtree_convex_cast(m.tree, cv, dir, tmax, &ho);
        assert_int_equal(b, bid != MQ_NO_TRIANGLE);
        assert_int_equal(o, b);
        assert_int_equal(hb.triangle, bid);
        assert_int_equal(ho.triangle, bid);
        if (b) {
            assert_memory_equal(&hb.t, &bt, sizeof bt);
            assert_memory_equal(&ho.t, &bt, sizeof bt);
            check_against_oracle(&m, cv, dir, &hb);
            hits++;
            starts_inside += hb.initially_overlapping;
        } else {
            assert_true(isinf(hb.t) && isinf(ho.t));
        }
        mq_convex_destroy(cv);
    }
    print_message("%s: %zu of %d convex casts hit (%zu from an overlap)\n", name, hits, CASTS, starts_inside);
    assert_true(hits >= CASTS / 4 && hits < CASTS);
    gen_mesh_trees_free(&m);
}

static void casts_spot(void **state)
{
    (void)state;
    check_mesh("spot.obj", 0xC0C1);
}

static void casts_suzanne(void **state)
{
    (void)state;
    check_mesh("suzanne.obj", 0xC0C2);
}

static void casts_cow(void **state)
{
    (void)state;
    check_mesh("cow.obj", 0xC0C3);
}

/* Invalid input: no hit, the miss record. */
static void invalid_input(void **state)
{
    (void)state;
    mq_mesh *mesh = mq_test_load_mesh("spot.obj");
    mq_bvh *bvh = NULL;
    mq_obbtree *tree = NULL;
    assert_int_equal(mq_bvh_build(mesh, NULL, &bvh, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(mesh, NULL, &tree, NULL), MQ_OK);
    float p[] = {0, 0, 0, 0.1f, 0, 0, 0, 0.1f, 0, 0, 0, 0.1f};
    mq_convex *cv = NULL;
    assert_int_equal(mq_convex_create(p, 4, NULL, &cv, NULL), MQ_OK);
    mq_cast_hit h;
    vec3 d = {1, 0, 0}, bad = {NAN, 0, 0};
    assert_false(mq_bvh_convex_cast(bvh, NULL, d, 1.0f, &h));
    assert_int_equal(h.triangle, MQ_NO_TRIANGLE);
    assert_true(isinf(h.t));
    assert_false(mq_obbtree_convex_cast(tree, NULL, d, 1.0f, &h));
    assert_false(mq_bvh_convex_cast(bvh, cv, bad, 1.0f, &h));
    assert_false(mq_obbtree_convex_cast(tree, cv, d, NAN, &h));
    assert_false(mq_bvh_convex_cast(bvh, cv, d, -1.0f, &h));
    assert_false(mq_bvh_convex_cast(NULL, cv, d, 1.0f, NULL));
    mq_convex_destroy(cv);
    mq_obbtree_destroy(tree);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(casts_spot),
        cmocka_unit_test(casts_suzanne),
        cmocka_unit_test(casts_cow),
        cmocka_unit_test(invalid_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
