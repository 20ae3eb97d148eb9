/*
 * The BVH and its raycasts on hand-made meshes: options and errors, the hit
 * record, invalid rays, signed zeros, exact edge and vertex hits of a grid,
 * all-hits de-duplication, filters, counters, refit, unhittable triangles,
 * allocation failures, batches on several threads, extreme directions, an
 * arena large enough for huge pages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/bvh.h>
#include <meshquery/meshquery.h>
#include <meshquery/obj.h>

#include "test_support.h"
#include "test_hits.h"
#include "bvh/kernels/trace.h"

/* ------------------------------------------------------------------------- */
/* Mesh helpers                                                              */
/* ------------------------------------------------------------------------- */

static mq_mesh *make_mesh(const float *p, size_t nv, const uint32_t *idx, size_t nt)
{
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(p, nv, idx, nt, NULL, &m, NULL), MQ_OK);
    return m;
}

static mq_bvh *build(const mq_mesh *m)
{
    mq_bvh *b = NULL;
    mq_diag d;
    assert_int_equal(mq_bvh_build(m, NULL, &b, &d), MQ_OK);
    assert_int_equal(mq_bvh_validate(b, &d), MQ_OK);
    return b;
}

static mq_ray ray_of(float ox, float oy, float oz, float dx, float dy, float dz)
{
    mq_ray r = {{ox, oy, oz}, 0.0f, {dx, dy, dz}, INFINITY};
    return r;
}

/* An n x n grid of unit squares in the z = 0 plane, corners at integers, two
 * triangles per square, counter-clockwise seen from +z. */
static mq_mesh *make_grid(int n)
{
    size_t nv = (size_t)(n + 1) * (n + 1), nt = 2 * (size_t)n * n;
    float *p = malloc(nv * 3 * sizeof *p);
    uint32_t *idx = malloc(nt * 3 * sizeof *idx);
    assert_non_null(p);
    assert_non_null(idx);
    for (int y = 0; y <= n; y++)
        for (int x = 0; x <= n; x++) {
            float *v = p + 3 * ((size_t)y * (n + 1) + x);
            v[0] = (float)x, v[1] = (float)y, v[2] = 0.0f;
        }
    size_t t = 0;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            uint32_t a = (uint32_t)(y * (n + 1) + x), b = a + 1, c = a + (uint32_t)n + 1, d = c + 1;
            uint32_t tri[6] = {a, b, d, a, d, c};
            memcpy(idx + 3 * t, tri, sizeof tri);
            t += 2;
        }
    mq_mesh *m = make_mesh(p, nv, idx, nt);
    free(p);
    free(idx);
    return m;
}

/* The unit cube [0,1]^3 as 12 triangles, normals outward. */
static mq_mesh *make_cube(void)
{
    static const float p[8 * 3] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
    static const uint32_t idx[12 * 3] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                         3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
    return make_mesh(p, 8, idx, 12);
}

/* ------------------------------------------------------------------------- */
/* Options and errors                                                        */
/* ------------------------------------------------------------------------- */

static void defaults_and_bad_arguments(void **state)
{
    (void)state;
    mq_bvh_def d = mq_default_bvh_def();
    assert_int_equal(d.quality, MQ_BUILD_MEDIUM);
    assert_int_equal(d.max_leaf_size, 4);
    assert_int_equal(d.threads, 0);
    assert_null(d.allocator);
    mq_ray_query q = mq_default_ray_query();
    assert_false(q.cull_back_faces);
    assert_null(q.filter);
    assert_null(q.stats);

    mq_mesh *m = make_cube();
    mq_bvh *b = (mq_bvh *)&d; /* must be reset to NULL on failure */
    mq_diag diag;
    assert_int_equal(mq_bvh_build(NULL, NULL, &b, &diag), MQ_ERR_INVALID_ARG);
    assert_null(b);
    assert_int_equal(mq_bvh_build(m, NULL, NULL, &diag), MQ_ERR_INVALID_ARG);
    mq_bvh_def bad = d;
    bad.internal_cookie = 0;
    assert_int_equal(mq_bvh_build(m, &bad, &b, &diag), MQ_ERR_INVALID_ARG);
    assert_non_null(strstr(diag.message, "mq_default_bvh_def"));
    bad = d;
    bad.max_leaf_size = 0;
    assert_int_equal(mq_bvh_build(m, &bad, &b, &diag), MQ_ERR_INVALID_ARG);
    bad.max_leaf_size = 17;
    assert_int_equal(mq_bvh_build(m, &bad, &b, &diag), MQ_ERR_INVALID_ARG);
    bad = d;
    bad.quality = (mq_build_quality)7;
    assert_int_equal(mq_bvh_build(m, &bad, &b, &diag), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_bvh_refit(NULL, NULL, &diag), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_bvh_validate(NULL, &diag), MQ_ERR_INVALID_ARG);
    mq_bvh_destroy(NULL);
    mq_mesh_destroy(m);
}

static void empty_mesh_builds_and_hits_nothing(void **state)
{
    (void)state;
    mq_mesh *m = make_mesh(NULL, 0, NULL, 0);
    mq_bvh *b = build(m);
    mq_ray r = ray_of(0, 0, -1, 0, 0, 1);
    mq_hit h;
    assert_false(mq_bvh_raycast_closest(b, &r, NULL, &h));
    assert_true(isinf(h.t));
    assert_int_equal(h.triangle, MQ_NO_TRIANGLE);
    assert_false(mq_bvh_raycast_any(b, &r, NULL));
    assert_int_equal(mq_bvh_raycast_all(b, &r, NULL, NULL, 0), 0);
    assert_int_equal(mq_bvh_refit(b, NULL, NULL), MQ_OK);
    mq_bvh_stats s;
    memset(&s, 0xff, sizeof s);
    mq_bvh_get_stats(NULL, &s); /* NULL bvh: all zero; NULL out: no-op */
    assert_int_equal(s.triangle_count, 0);
    assert_true(s.sah_cost == 0.0);
    mq_bvh_get_stats(b, NULL);
    mq_bvh_get_stats(b, &s);
    assert_int_equal(s.triangle_count, 0);
    assert_int_equal(s.node_count, 0);
    assert_true(mq_bvh_byte_count(b) > 0);
    assert_ptr_equal(mq_bvh_mesh(b), m);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

/* ------------------------------------------------------------------------- */
/* The hit record                                                            */
/* ------------------------------------------------------------------------- */

static void single_triangle_hit_record(void **state)
{
    (void)state;
    static const float p[9] = {0, 0, 0, 2, 0, 0, 0, 2, 0};
    static const uint32_t idx[3] = {0, 1, 2};
    mq_mesh *m = make_mesh(p, 3, idx, 1);
    mq_bvh *b = build(m);
    /* From +z looking down: the back of a counter-clockwise (from +z) triangle? No:
     * its normal (v1-v0)x(v2-v0) is +z, and this ray points along -z, so it is the front. */
    mq_ray r = ray_of(0.5f, 0.25f, 3.0f, 0, 0, -1);
    mq_hit h;
    assert_true(mq_bvh_raycast_closest(b, &r, NULL, &h));
    assert_float_equal(h.t, 3.0f, 0.0f);
    assert_float_equal(h.point[0], 0.5f, 0.0f);
    assert_float_equal(h.point[1], 0.25f, 0.0f);
    assert_float_equal(h.point[2], 0.0f, 0.0f);
    assert_float_equal(h.normal[2], 1.0f, 0.0f);
    assert_float_equal(h.u, 0.25f, 1e-7f);
    assert_float_equal(h.v, 0.125f, 1e-7f);
    assert_false(h.back_face);
    assert_int_equal(h.triangle, 0);
    assert_int_equal(h.face, 0);
    assert_false(h.has_shading_normal);
    assert_false(h.has_uv);
    assert_float_equal(h.shading_normal[2], 1.0f, 0.0f);
    assert_true(mq_bvh_raycast_any(b, &r, NULL));

    /* From below: the back face, culled on request. */
    mq_ray up = ray_of(0.5f, 0.25f, -1.0f, 0, 0, 2);
    assert_true(mq_bvh_raycast_closest(b, &up, NULL, &h));
    assert_true(h.back_face);
    assert_float_equal(h.t, 0.5f, 0.0f);
    mq_ray_query cull = mq_default_ray_query();
    cull.cull_back_faces = true;
    assert_false(mq_bvh_raycast_closest(b, &up, &cull, &h));
    assert_false(mq_bvh_raycast_any(b, &up, &cull));
    assert_true(mq_bvh_raycast_closest(b, &r, &cull, &h));

    /* tmin and tmax are inclusive; a ray starting on the triangle hits at t = 0. */
    r.tmax = 3.0f;
    assert_true(mq_bvh_raycast_any(b, &r, NULL));
    r.tmax = nextafterf(3.0f, 0.0f);
    assert_false(mq_bvh_raycast_any(b, &r, NULL));
    assert_false(mq_bvh_raycast_closest(b, &r, NULL, &h));
    r.tmax = INFINITY;
    r.tmin = 3.0f;
    assert_true(mq_bvh_raycast_closest(b, &r, NULL, &h));
    r.tmin = nextafterf(3.0f, 4.0f);
    assert_false(mq_bvh_raycast_closest(b, &r, NULL, &h));
    mq_ray on = ray_of(0.5f, 0.5f, 0.0f, 0, 0, 1);
    assert_true(mq_bvh_raycast_closest(b, &on, NULL, &h));
    assert_float_equal(h.t, 0.0f, 0.0f);
    /* Outside the triangle, and in its plane: misses. */
    mq_ray out = ray_of(1.5f, 1.5f, 1.0f, 0, 0, -1);
    assert_false(mq_bvh_raycast_any(b, &out, NULL));
    mq_ray in_plane = ray_of(-1.0f, 0.5f, 0.0f, 1, 0, 0);
    assert_false(mq_bvh_raycast_any(b, &in_plane, NULL));
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

static void invalid_rays_hit_nothing(void **state)
{
    (void)state;
    mq_mesh *m = make_cube();
    mq_bvh *b = build(m);
    mq_ray good = ray_of(0.5f, 0.5f, -1.0f, 0, 0, 1);
    assert_true(mq_bvh_raycast_any(b, &good, NULL));
    mq_ray bad[7];
    for (int i = 0; i < 7; i++)
        bad[i] = good;
    bad[0].origin[1] = NAN;
    bad[1].dir[2] = NAN;
    bad[2].dir[2] = 0.0f; /* zero direction */
    bad[3].origin[0] = INFINITY;
    bad[4].dir[0] = -INFINITY;
    bad[5].tmin = 2.0f, bad[5].tmax = 1.0f;
    bad[6].tmax = NAN;
    for (int i = 0; i < 7; i++) {
        mq_hit h;
        assert_false(mq_bvh_raycast_closest(b, &bad[i], NULL, &h));
        assert_int_equal(h.triangle, MQ_NO_TRIANGLE);
        assert_false(mq_bvh_raycast_any(b, &bad[i], NULL));
        assert_int_equal(mq_bvh_raycast_all(b, &bad[i], NULL, NULL, 0), 0);
    }
    assert_false(mq_bvh_raycast_any(b, NULL, NULL));
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

/* Axis-aligned rays with +0 and -0 in their other components, from inside,
 * outside, and exactly on the planes of the cube's faces. */
static void signed_zero_directions(void **state)
{
    (void)state;
    mq_mesh *m = make_cube();
    mq_bvh *b = build(m);
    const float zeros[2] = {0.0f, -0.0f};
    for (int axis = 0; axis < 3; axis++)
        for (int sign = -1; sign <= 1; sign += 2)
            for (int z1 = 0; z1 < 2; z1++)
                for (int z2 = 0; z2 < 2; z2++)
                    for (int pos = 0; pos < 3; pos++) {
                        /* Origin 0.5 (inside the slab), 0 or 1 (on a face plane). */
                        const float across[3] = {0.5f, 0.0f, 1.0f};
                        float o[3], d[3];
                        int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
                        o[axis] = sign > 0 ? -2.0f : 3.0f;
                        o[a1] = across[pos];
                        o[a2] = 0.5f;
                        d[axis] = (float)sign;
                        d[a1] = zeros[z1];
                        d[a2] = zeros[z2];
                        mq_ray r = ray_of(o[0], o[1], o[2], d[0], d[1], d[2]);
                        mq_hit h;
                        assert_true(mq_bvh_raycast_closest(b, &r, NULL, &h));
                        assert_float_equal(h.t, 2.0f, 0.0f);
                        assert_true(mq_bvh_raycast_any(b, &r, NULL));
                        /* From inside the cube: one hit, on the far face. */
                        o[axis] = 0.25f;
                        r = ray_of(o[0], o[1], o[2], d[0], d[1], d[2]);
                        assert_true(mq_bvh_raycast_closest(b, &r, NULL, &h));
                        assert_float_equal(h.t, sign > 0 ? 0.75f : 0.25f, 0.0f);
                        /* Beside the cube: no hit. */
                        o[a2] = 1.5f;
                        r = ray_of(o[0], o[1], o[2], d[0], d[1], d[2]);
                        assert_false(mq_bvh_raycast_any(b, &r, NULL));
                    }
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

/* ------------------------------------------------------------------------- */
/* Watertightness on exact edges and vertices                                */
/* ------------------------------------------------------------------------- */

static bool count_hit(const mq_hit *h, void *user)
{
    (void)h;
    (*(int *)user)++;
    return true;
}

/* Rays aimed exactly at every vertex, every edge midpoint and every diagonal
 * midpoint of a 24 x 24 grid, from many directions: every ray hits, and the
 * all-hits query reports the single crossing once. */
static void grid_vertices_and_edges_always_hit(void **state)
{
    (void)state;
    const int n = 24;
    mq_mesh *m = make_grid(n);
    mq_bvh *b = build(m);
    static const float dirs[][3] = {{0, 0, -1},      {0.25f, 0, -1}, {0, -0.5f, -1}, {0.3f, 0.7f, -1},
                                    {-1, 1, -1},     {3, -2, -0.5f}, {1, 1, -1e-3f}, {-0.125f, 0.375f, 1},
                                    {0.5f, 0.5f, 1}, {-2, -3, 0.25f}};
    size_t rays = 0;
    for (int k = MQ_ISA_SCALAR; k <= MQ_ISA_AVX2; k++) {
        if (mq_isa_override((mq_isa)k) != (mq_isa)k)
            continue;                           /* not in this build or on this CPU */
        for (int y2 = 2; y2 <= 2 * n - 2; y2++) /* targets on the half-integer lattice */
            for (int x2 = 2; x2 <= 2 * n - 2; x2++)
                for (size_t di = 0; di < sizeof dirs / sizeof dirs[0]; di++) {
                    float tx = 0.5f * (float)x2, ty = 0.5f * (float)y2;
                    const float *d = dirs[di];
                    /* Origin exactly 4 steps back along d from the target. */
                    mq_ray r = ray_of(tx - 4 * d[0], ty - 4 * d[1], -4 * d[2], d[0], d[1], d[2]);
                    mq_hit h;
                    if (!mq_bvh_raycast_closest(b, &r, NULL, &h))
                        fail_msg("ray at (%g, %g) dir (%g %g %g) slipped through (kernel %s)", tx, ty, d[0], d[1], d[2],
                                 mq_isa_name((mq_isa)k));
                    assert_float_equal(h.t, 4.0f, 4e-6f);
                    int hits = 0;
                    assert_int_equal(mq_bvh_raycast_each(b, &r, NULL, count_hit, &hits), 1);
                    assert_int_equal(hits, 1);
                    assert_true(mq_bvh_raycast_any(b, &r, NULL));
                    rays++;
                }
    }
    mq_isa_override_clear();
    printf("[ info ] %zu rays at grid vertices and edges, all hit once\n", rays);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

/* ------------------------------------------------------------------------- */
/* All hits, filters, counters                                               */
/* ------------------------------------------------------------------------- */

/* Five parallel squares z = 0..4 (two triangles each, ids 2z and 2z+1). */
static mq_mesh *make_stack(void)
{
    float p[5 * 4 * 3];
    uint32_t idx[5 * 6];
    for (int z = 0; z < 5; z++) {
        const float c[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
        for (int k = 0; k < 4; k++) {
            p[3 * (4 * z + k)] = c[k][0];
            p[3 * (4 * z + k) + 1] = c[k][1];
            p[3 * (4 * z + k) + 2] = (float)z;
        }
        uint32_t a = (uint32_t)(4 * z);
        uint32_t t[6] = {a, a + 1, a + 2, a, a + 2, a + 3};
        memcpy(idx + 6 * z, t, sizeof t);
    }
    return make_mesh(p, 20, idx, 10);
}

static bool stop_after_three(const mq_hit *h, void *user)
{
    (void)h;
    return ++*(int *)user < 3;
}

static void all_hits_sorted_counted_and_stoppable(void **state)
{
    (void)state;
    mq_mesh *m = make_stack();
    mq_bvh *b = build(m);
    mq_ray r = ray_of(0.25f, 0.6f, -1.0f, 0, 0, 1); /* inside triangle 2z+1 of each square */
    mq_hit hits[8];
    assert_int_equal(mq_bvh_raycast_all(b, &r, NULL, hits, 8), 5);
    for (int i = 0; i < 5; i++) {
        assert_float_equal(hits[i].t, (float)(i + 1), 0.0f);
        assert_int_equal(hits[i].triangle, 2 * i + 1);
    }
    assert_int_equal(mq_bvh_raycast_all(b, &r, NULL, hits, 2), 5);
    assert_float_equal(hits[1].t, 2.0f, 0.0f);
    assert_int_equal(mq_bvh_raycast_all(b, &r, NULL, NULL, 0), 5);
    int seen = 0;
    assert_int_equal(mq_bvh_raycast_each(b, &r, NULL, stop_after_three, &seen), 3);
    /* Through the squares' shared diagonal: one hit per square, not two. */
    mq_ray diag = ray_of(0.5f, 0.5f, -1.0f, 0, 0, 1);
    assert_int_equal(mq_bvh_raycast_all(b, &diag, NULL, hits, 8), 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(hits[i].triangle / 2, i);
    /* A segment [1.5, 3.5] crosses two squares. */
    r.tmin = 2.5f, r.tmax = 4.5f;
    assert_int_equal(mq_bvh_raycast_all(b, &r, NULL, hits, 8), 2);
    assert_float_equal(hits[0].t, 3.0f, 0.0f);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

static bool reject_below_two(const mq_hit *h, void *user)
{
    (*(int *)user)++;
    return h->point[2] >= 2.0f;
}

static void filter_and_counters(void **state)
{
    (void)state;
    mq_mesh *m = make_stack();
    mq_bvh *b = build(m);
    int calls = 0;
    mq_ray_stats st = {0, 0, 0};
    mq_ray_query q = mq_default_ray_query();
    q.filter = reject_below_two;
    q.filter_user = &calls;
    q.stats = &st;
    mq_ray r = ray_of(0.25f, 0.6f, -1.0f, 0, 0, 1);
    mq_hit h;
    assert_true(mq_bvh_raycast_closest(b, &r, &q, &h));
    assert_float_equal(h.point[2], 2.0f, 0.0f);
    assert_true(calls >= 1);
    assert_true(st.node_visits >= 1);
    assert_true(st.leaf_visits >= 1);
    assert_true(st.triangle_tests >= 4);
    assert_true(mq_bvh_raycast_any(b, &r, &q));
    r.tmax = 2.5f; /* only squares 0 and 1 (rejected) remain */
    assert_false(mq_bvh_raycast_any(b, &r, &q));
    assert_false(mq_bvh_raycast_closest(b, &r, &q, &h));
    r.tmax = INFINITY;
    mq_hit all[8];
    assert_int_equal(mq_bvh_raycast_all(b, &r, &q, all, 8), 3);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

/* ------------------------------------------------------------------------- */
/* Refit, unhittable triangles                                               */
/* ------------------------------------------------------------------------- */

static void refit_matches_a_fresh_build(void **state)
{
    (void)state;
    mq_mesh *m = make_grid(16);
    mq_bvh *b = build(m);
    size_t nv = mq_mesh_vertex_count(m);
    float *moved = malloc(nv * 3 * sizeof *moved);
    assert_non_null(moved);
    mq_test_rng g;
    mq_test_rng_seed(&g, 5);
    memcpy(moved, mq_mesh_positions(m), nv * 3 * sizeof *moved);
    for (size_t i = 0; i < nv; i++) {
        moved[3 * i + 0] += 0.5f;
        moved[3 * i + 2] += (float)mq_test_rng_range(&g, -0.3, 0.3); /* a bumpy surface */
    }
    assert_int_equal(mq_bvh_refit(b, moved, NULL), MQ_OK);
    assert_int_equal(mq_bvh_validate(b, NULL), MQ_OK);
    mq_mesh *m2 = make_mesh(moved, nv, mq_mesh_indices(m), mq_mesh_triangle_count(m));
    mq_bvh *b2 = build(m2);
    for (int i = 0; i < 2000; i++) {
        double o[3], d[3];
        o[0] = mq_test_rng_range(&g, 0, 17), o[1] = mq_test_rng_range(&g, 0, 16), o[2] = 2;
        mq_test_rng_unit_vector(&g, d);
        d[2] = -fabs(d[2]) - 0.2;
        mq_ray r = ray_of((float)o[0], (float)o[1], (float)o[2], (float)d[0], (float)d[1], (float)d[2]);
        mq_hit h1, h2;
        bool a = mq_bvh_raycast_closest(b, &r, NULL, &h1), c = mq_bvh_raycast_closest(b2, &r, NULL, &h2);
        assert_int_equal(a, c);
        if (a) { /* the same leaf test on the same corners: bit-identical */
            assert_memory_equal(&h1.t, &h2.t, sizeof h1.t);
            assert_int_equal(h1.triangle, h2.triangle);
            assert_memory_equal(h1.point, h2.point, sizeof h1.point);
        }
    }
    /* NULL goes back to the mesh's own positions. */
    assert_int_equal(mq_bvh_refit(b, NULL, NULL), MQ_OK);
    mq_ray r = ray_of(3.25f, 4.5f, 1.0f, 0, 0, -1);
    mq_hit h;
    assert_true(mq_bvh_raycast_closest(b, &r, NULL, &h));
    assert_float_equal(h.t, 1.0f, 0.0f);
    mq_bvh_destroy(b2);
    mq_mesh_destroy(m2);
    free(moved);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

static void unhittable_triangles_are_skipped(void **state)
{
    (void)state;
    /* 0: fine; 1: a NaN corner; 2: zero area (collinear); 3: all corners equal; 4: an infinite corner */
    float p[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, NAN, 0, 0, 0, 0, 0.5f, 2, 0, 0.5f, 1, 0, 0.5f, INFINITY, 1, 1};
    uint32_t idx[] = {0, 1, 2, 3, 1, 2, 4, 5, 6, 0, 0, 0, 7, 1, 2};
    mq_mesh *m = make_mesh(p, 8, idx, 5);
    mq_bvh *b = build(m);
    mq_ray down = ray_of(0.25f, 0.25f, 1.0f, 0, 0, -1);
    mq_hit h;
    assert_true(mq_bvh_raycast_closest(b, &down, NULL, &h));
    assert_int_equal(h.triangle, 0);
    mq_hit all[8];
    assert_int_equal(mq_bvh_raycast_all(b, &down, NULL, all, 8), 1);
    mq_ray side = ray_of(0.5f, -1.0f, 0.5f, 0, 1, 0); /* through the collinear triangle's line */
    assert_false(mq_bvh_raycast_any(b, &side, NULL));
    /* Refit the NaN corner to a finite one: triangle 1 becomes hittable. */
    p[9] = 0.0f, p[10] = 0.0f, p[11] = 0.5f; /* vertex 3 */
    assert_int_equal(mq_bvh_refit(b, p, NULL), MQ_OK);
    assert_int_equal(mq_bvh_validate(b, NULL), MQ_OK);
    assert_true(mq_bvh_raycast_closest(b, &down, NULL, &h));
    assert_int_equal(h.triangle, 1);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

/* ------------------------------------------------------------------------- */
/* Allocation                                                                */
/* ------------------------------------------------------------------------- */

typedef struct counting {
    size_t live, allocs, fail_at;
} counting;

static void *count_alloc(size_t size, size_t align, void *user)
{
    counting *c = user;
    if (c->fail_at && ++c->allocs >= c->fail_at)
        return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size))
        return NULL;
    c->live += size;
    return p;
}

static void count_free(void *ptr, size_t size, void *user)
{
    counting *c = user;
    c->live -= size;
    free(ptr);
}

static void allocator_used_and_failures_leak_nothing(void **state)
{
    (void)state;
    mq_mesh *m = make_grid(64); /* big enough for several builder chunks */
    counting c = {0, 0, 0};
    mq_allocator a = {count_alloc, count_free, &c};
    mq_bvh_def d = mq_default_bvh_def();
    d.allocator = &a;
    d.threads = 2;
    mq_bvh *b = NULL;
    assert_int_equal(mq_bvh_build(m, &d, &b, NULL), MQ_OK);
    assert_true(c.live >= mq_bvh_byte_count(b));
    assert_int_equal(mq_bvh_validate(b, NULL), MQ_OK);
    mq_bvh_destroy(b);
    assert_int_equal(c.live, 0);
    /* Fail the k-th allocation for every k until the build succeeds. */
    int failures = 0;
    for (size_t k = 1; k < 1000; k++) {
        c = (counting){0, 0, k};
        mq_diag diag;
        mq_status st = mq_bvh_build(m, &d, &b, &diag);
        if (st == MQ_OK) {
            mq_bvh_destroy(b);
            assert_int_equal(c.live, 0);
            break;
        }
        assert_int_equal(st, MQ_ERR_OUT_OF_MEMORY);
        assert_null(b);
        assert_int_equal(c.live, 0);
        failures++;
    }
    assert_true(failures >= 3);
    mq_mesh_destroy(m);
}

/* ------------------------------------------------------------------------- */
/* Builds: every quality and leaf size, degenerate inputs                    */
/* ------------------------------------------------------------------------- */

static void every_quality_and_leaf_size_validates(void **state)
{
    (void)state;
    mq_mesh *m = make_grid(20);
    for (int q = MQ_BUILD_LOW; q <= MQ_BUILD_HIGH; q++)
        for (uint32_t leaf = 1; leaf <= 16; leaf++)
            for (uint32_t threads = 1; threads <= 2; threads++) {
                mq_bvh_def d = mq_default_bvh_def();
                d.quality = (mq_build_quality)q;
                d.max_leaf_size = leaf;
                d.threads = threads;
                mq_bvh *b = NULL;
                mq_diag diag;
                assert_int_equal(mq_bvh_build(m, &d, &b, &diag), MQ_OK);
                if (mq_bvh_validate(b, &diag) != MQ_OK)
                    fail_msg("quality %d leaf %u: %s", q, leaf, diag.message);
                mq_bvh_stats s;
                mq_bvh_get_stats(b, &s);
                assert_int_equal(s.triangle_count, mq_mesh_triangle_count(m));
                assert_true(s.avg_leaf_size <= leaf + 1e-9);
                assert_int_equal(s.width, 8);
                assert_true(s.sah_cost >= 1.0);
                mq_ray r = ray_of(7.3f, 11.6f, 2.0f, 0.1f, -0.2f, -1.0f);
                mq_hit h;
                assert_true(mq_bvh_raycast_closest(b, &r, NULL, &h));
                assert_float_equal(h.t, 2.0f, 1e-6f);
                mq_bvh_destroy(b);
            }
    mq_mesh_destroy(m);
}

/* 20,000 triangles on top of each other: no split separates their centroids;
 * the builder must still bound the depth and keep leaves small. */
static void coincident_triangles_bound_the_depth(void **state)
{
    (void)state;
    const size_t n = 20000;
    static const float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint32_t *idx = malloc(n * 3 * sizeof *idx);
    assert_non_null(idx);
    for (size_t i = 0; i < n; i++)
        idx[3 * i] = 0, idx[3 * i + 1] = 1, idx[3 * i + 2] = 2;
    mq_mesh *m = make_mesh(p, 3, idx, n);
    mq_bvh *b = build(m);
    mq_bvh_stats s;
    mq_bvh_get_stats(b, &s);
    assert_true(s.max_depth <= 64);
    mq_ray r = ray_of(0.25f, 0.25f, 1.0f, 0, 0, -1);
    mq_hit h;
    assert_true(mq_bvh_raycast_closest(b, &r, NULL, &h));
    assert_int_equal(h.triangle, 0); /* all at the same t: the smallest id */
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
    free(idx);
}

/* ------------------------------------------------------------------------- */
/* Batches and threads                                                       */
/* ------------------------------------------------------------------------- */

/* Over a small and a big tree (the batch streams rays over trees above 2 MiB,
 * bvh/kernels/raycast_batch.c): same answers as single rays, for any thread count. */
static void check_batches(int grid)
{
    mq_mesh *m = make_grid(grid);
    mq_bvh *b = build(m);
    const size_t n = 20000;
    mq_ray *rays = malloc(n * sizeof *rays);
    mq_hit *h1 = malloc(n * sizeof *h1), *h2 = malloc(n * sizeof *h2);
    bool *o1 = malloc(n), *o2 = malloc(n);
    assert_true(rays && h1 && h2 && o1 && o2);
    mq_test_rng g;
    mq_test_rng_seed(&g, 9);
    for (size_t i = 0; i < n; i++) {
        double d[3];
        mq_test_rng_unit_vector(&g, d);
        double s = grid / 40.0;
        rays[i] = ray_of((float)mq_test_rng_range(&g, -5, 45 * s), (float)mq_test_rng_range(&g, -5, 45 * s),
                         (float)mq_test_rng_range(&g, -3, 3), (float)d[0], (float)d[1], (float)d[2]);
        rays[i].tmax = (float)mq_test_rng_range(&g, 0.5, 20.0);
        if (i % 50 == 0)
            rays[i].tmin = -1.0f; /* these take the single-ray path inside a batch */
        if (i % 77 == 0)
            rays[i].dir[0] = NAN; /* invalid: a miss */
    }
    mq_ray_stats s1 = {0, 0, 0}, s2 = {0, 0, 0};
    mq_ray_query q = mq_default_ray_query();
    q.stats = &s1;
    size_t hits1 = mq_bvh_raycast_closest_batch(b, rays, n, &q, 1, h1);
    size_t occ1 = mq_bvh_raycast_any_batch(b, rays, n, NULL, 1, o1);
    assert_true(hits1 > 100 && hits1 < n);
    for (uint32_t threads = 0; threads <= 5; threads++) {
        memset(h2, 0xAB, n * sizeof *h2);
        q.stats = &s2;
        s2 = (mq_ray_stats){0, 0, 0};
        assert_int_equal(mq_bvh_raycast_closest_batch(b, rays, n, &q, threads, h2), hits1);
        for (size_t i = 0; i < n; i++)
            mq_test_assert_same_hit(&h1[i], &h2[i]);
        assert_int_equal(s1.node_visits, s2.node_visits);
        assert_int_equal(mq_bvh_raycast_any_batch(b, rays, n, NULL, threads, o2), occ1);
        assert_memory_equal(o1, o2, n);
    }
    for (size_t i = 0; i < n; i++) {
        mq_hit h;
        bool hit = mq_bvh_raycast_closest(b, &rays[i], NULL, &h);
        assert_int_equal(hit, h1[i].triangle != MQ_NO_TRIANGLE);
        mq_test_assert_same_hit(&h, &h1[i]);
        assert_int_equal(o1[i], mq_bvh_raycast_any(b, &rays[i], NULL));
        assert_int_equal(o1[i], hit);
    }
    free(rays), free(h1), free(h2), free(o1), free(o2);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

static void batches_do_not_depend_on_threads(void **state)
{
    (void)state;
    check_batches(40);  /* 3,200 triangles: rays one by one */
    check_batches(160); /* 51,200 triangles, a 3 MiB tree: streamed */
}

/* Rays sharing an octant and a dominant axis go through the batch's packets:
 * through every vertex and edge midpoint of a grid (exact zeros: the packets'
 * per-lane fallback), and a jittered camera; answers equal single rays'. */
static void packets_match_single_rays(void **state)
{
    (void)state;
    const int n = 24;
    mq_mesh *m = make_grid(n);
    mq_bvh *b = build(m);
    size_t count = (size_t)(2 * n - 1) * (2 * n - 1) + 4096;
    mq_ray *rays = malloc(count * sizeof *rays);
    mq_hit *hits = malloc(count * sizeof *hits);
    assert_true(rays && hits);
    size_t r = 0;
    for (int y2 = 1; y2 < 2 * n; y2++)
        for (int x2 = 1; x2 < 2 * n; x2++) /* origin below-left and high: +x +y -z, z dominant */
            rays[r++] = ray_of(-3.5f, -2.25f, 40.0f, 0.5f * x2 + 3.5f, 0.5f * y2 + 2.25f, -40.0f);
    mq_test_rng g;
    mq_test_rng_seed(&g, 12);
    while (r < count) {
        float x = (float)mq_test_rng_range(&g, 0, n), y = (float)mq_test_rng_range(&g, 0, n);
        rays[r++] = ray_of(-1.0f, -1.0f, 30.0f, x + 1.0f, y + 1.0f, -30.0f);
    }
    for (int cull = 0; cull < 2; cull++) {
        mq_ray_query q = mq_default_ray_query();
        q.cull_back_faces = cull;
        size_t h = mq_bvh_raycast_closest_batch(b, rays, count, &q, 1, hits);
        assert_int_equal(h, cull ? count : count);
        for (size_t i = 0; i < count; i++) {
            mq_hit one;
            assert_true(mq_bvh_raycast_closest(b, &rays[i], &q, &one));
            mq_test_assert_same_hit(&one, &hits[i]);
        }
        /* From below, culled: every ray misses. */
        for (size_t i = 0; i < count; i++) {
            rays[i].origin[2] = -rays[i].origin[2];
            rays[i].dir[2] = -rays[i].dir[2];
        }
        size_t below = mq_bvh_raycast_closest_batch(b, rays, count, &q, 1, hits);
        assert_int_equal(below, cull ? 0 : count);
        for (size_t i = 0; i < count; i++) {
            rays[i].origin[2] = -rays[i].origin[2];
            rays[i].dir[2] = -rays[i].dir[2];
        }
    }
    free(rays);
    free(hits);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

/* ------------------------------------------------------------------------- */
/* Extreme directions, negative tmin, mesh metadata                          */
/* ------------------------------------------------------------------------- */

static void extreme_directions_and_negative_tmin(void **state)
{
    (void)state;
    mq_mesh *m = make_grid(8);
    mq_bvh *b = build(m);
    const float scales[] = {1.0f, 1e-30f, 1e-12f, 1e12f, 1e30f, 1e-37f};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        float s = scales[i];
        mq_ray r = ray_of(2.3f, 4.6f, 3.0f, 0.125f * s, -0.25f * s, -1.0f * s);
        mq_hit h;
        assert_true(mq_bvh_raycast_closest(b, &r, NULL, &h));
        assert_float_equal(h.t * s, 3.0f, 3e-6f);
        assert_float_equal(h.point[0], 2.3f + 3.0f * 0.125f, 2e-6f);
        assert_float_equal(h.point[2], 0.0f, 2e-6f);
    }
    /* A component negligible against the others is taken as zero. */
    mq_ray r = ray_of(2.5f, 4.5f, 3.0f, 1e-35f, 0.0f, -1.0f);
    mq_hit h;
    assert_true(mq_bvh_raycast_closest(b, &r, NULL, &h));
    assert_float_equal(h.t, 3.0f, 0.0f);
    /* The hit lies behind the origin: found with a negative tmin, not without. */
    mq_ray back = ray_of(2.5f, 4.25f, 3.0f, 0.0f, 0.0f, 1.0f);
    assert_false(mq_bvh_raycast_any(b, &back, NULL));
    back.tmin = -10.0f;
    assert_true(mq_bvh_raycast_closest(b, &back, NULL, &h));
    assert_float_equal(h.t, -3.0f, 0.0f);
    assert_true(mq_bvh_raycast_any(b, &back, NULL));
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

/* Checks vertical rays down onto make_grid(n) at cell interiors: each hits
 * the triangle under it at t = 4. */
static void check_grid_rays(const mq_bvh *b, int n, unsigned rays)
{
    mq_test_rng rng;
    mq_test_rng_seed(&rng, 12345);
    for (unsigned i = 0; i < rays; i++) {
        int ix = (int)(mq_test_rng_u64(&rng) % (uint64_t)n), iy = (int)(mq_test_rng_u64(&rng) % (uint64_t)n);
        float fx = 0.125f + 0.25f * (float)(i % 3), fy = 0.2f + 0.25f * (float)(i % 2);
        mq_ray r = ray_of((float)ix + fx, (float)iy + fy, 4.0f, 0.0f, 0.0f, -1.0f);
        mq_hit h;
        assert_true(mq_bvh_raycast_closest(b, &r, NULL, &h));
        assert_float_equal(h.t, 4.0f, 1e-6f);
        uint32_t expected = 2u * (uint32_t)(iy * n + ix) + (fy > fx ? 1u : 0u); /* make_grid's order */
        assert_int_equal(h.triangle, expected);
    }
}

/* A tree whose arena reaches the size at which the default allocator asks
 * for huge pages (core/alloc.h, mq_advise_huge_pages: 8 MiB) answers as any
 * other, built and loaded from a saved copy (which is advised too). */
static void large_arena_answers_right(void **state)
{
    (void)state;
    const int n = 280; /* 156,800 triangles */
    mq_mesh *m = make_grid(n);
    mq_bvh *b = build(m);
    assert_true(mq_bvh_byte_count(b) >= ((size_t)8 << 20)); /* the advised path runs */
    check_grid_rays(b, n, 300);
    void *data = NULL;
    size_t size = 0;
    mq_diag d;
    assert_int_equal(mq_bvh_save_memory(b, NULL, &data, &size, &d), MQ_OK);
    mq_bvh *copy = NULL;
    assert_int_equal(mq_bvh_load_memory(data, size, NULL, &copy, &d), MQ_OK);
    assert_int_equal(mq_bvh_validate(copy, &d), MQ_OK);
    check_grid_rays(copy, n, 300);
    mq_bvh_destroy(copy);
    mq_saved_free(data, size, NULL);
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

static void hit_carries_mesh_metadata(void **state)
{
    (void)state;
    static const char obj[] = "v 0 0 0\nv 2 0 0\nv 2 2 0\nv 0 2 0\n"
                              "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                              "vn 0 0 1\nvn 0 0 1\nvn 0.6 0 0.8\nvn 0 0 1\n"
                              "g first\nusemtl red\nf 1/1/1 2/2/2 3/3/3 4/4/4\n"
                              "g second\no thing\nusemtl blue\nf 1 3 4\n";
    mq_mesh *m = NULL;
    assert_int_equal(mq_obj_load_memory(obj, sizeof obj - 1, "test.obj", NULL, &m, NULL, NULL), MQ_OK);
    assert_int_equal(mq_mesh_triangle_count(m), 3);
    mq_bvh *b = build(m);
    mq_ray r = ray_of(1.5f, 0.5f, 1.0f, 0, 0, -1); /* in the quad's first triangle only */
    mq_hit h;
    assert_true(mq_bvh_raycast_closest(b, &r, NULL, &h));
    assert_int_equal(h.triangle, 0);
    assert_int_equal(h.face, 0);
    assert_true(h.has_uv);
    assert_float_equal(h.uv[0], 0.75f, 1e-6f);
    assert_float_equal(h.uv[1], 0.25f, 1e-6f);
    assert_true(h.has_shading_normal);
    assert_true(h.shading_normal[0] > 0.0f);
    assert_float_equal(h.shading_normal[0] * h.shading_normal[0] + h.shading_normal[1] * h.shading_normal[1] +
                           h.shading_normal[2] * h.shading_normal[2],
                       1.0f, 1e-5f);
    assert_string_equal(mq_mesh_name(m, MQ_NAME_GROUP, h.group), "first");
    assert_string_equal(mq_mesh_name(m, MQ_NAME_MATERIAL, h.material), "red");
    /* The last face (triangle 2) lies on the quad's second triangle: both are
     * hit at the same t, listed by id. */
    mq_ray r2 = ray_of(0.25f, 1.5f, 1.0f, 0, 0, -1);
    mq_hit all[4];
    assert_int_equal(mq_bvh_raycast_all(b, &r2, NULL, all, 4), 2);
    assert_int_equal(all[0].triangle, 1);
    assert_int_equal(all[1].triangle, 2);
    assert_int_equal(all[1].face, 1);
    assert_false(all[1].has_uv);
    assert_false(all[1].has_shading_normal);
    assert_string_equal(mq_mesh_name(m, MQ_NAME_GROUP, all[1].group), "second");
    assert_string_equal(mq_mesh_name(m, MQ_NAME_OBJECT, all[1].object), "thing");
    assert_string_equal(mq_mesh_name(m, MQ_NAME_MATERIAL, all[1].material), "blue");
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

/* Rays within 1e-6 of parallel to a triangle's plane: the record is where the
 * traversal decided the hit (near_parallel.h), single and batch alike; the
 * same rays as test_ray_primitives' near-parallel test. */
static void near_parallel_hits_lie_on_the_triangle(void **state)
{
    (void)state;
    const float pos[] = {-3, -2, -2, -1, 0, 0, 1, 1, 1};
    const uint32_t idx[] = {0, 1, 2};
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(pos, 3, idx, 1, NULL, &m, NULL), MQ_OK);
    mq_bvh *b = NULL;
    assert_int_equal(mq_bvh_build(m, NULL, &b, NULL), MQ_OK);
    const mq_ray rays[2] = {{{-4, 0, 0x1.06080ap-113f}, 0.0f, {-0x1.0a0608p+49f, 3, 0}, INFINITY},
                            {{-4, 0, 0x1.06080ap-113f}, 0.0f, {0x1.0a0608p+49f, -3, 0}, INFINITY}};
    mq_hit one[2], batch[2];
    assert_false(mq_bvh_raycast_closest(b, &rays[0], NULL, &one[0])); /* the line meets it only at t < 0 */
    assert_true(mq_bvh_raycast_closest(b, &rays[1], NULL, &one[1]));
    assert_int_equal(mq_bvh_raycast_closest_batch(b, rays, 2, NULL, 1, batch), 1);
    mq_test_assert_same_hit(&batch[1], &one[1]);
    for (int k = 0; k < 3; k++) {
        float q = (1.0f - one[1].u - one[1].v) * pos[k] + one[1].u * pos[3 + k] + one[1].v * pos[6 + k];
        assert_true(fabsf(one[1].point[k] - q) < 1e-5f);
    }
    mq_bvh_destroy(b);
    mq_mesh_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_and_bad_arguments),
        cmocka_unit_test(empty_mesh_builds_and_hits_nothing),
        cmocka_unit_test(near_parallel_hits_lie_on_the_triangle),
        cmocka_unit_test(single_triangle_hit_record),
        cmocka_unit_test(invalid_rays_hit_nothing),
        cmocka_unit_test(signed_zero_directions),
        cmocka_unit_test(grid_vertices_and_edges_always_hit),
        cmocka_unit_test(all_hits_sorted_counted_and_stoppable),
        cmocka_unit_test(filter_and_counters),
        cmocka_unit_test(refit_matches_a_fresh_build),
        cmocka_unit_test(unhittable_triangles_are_skipped),
        cmocka_unit_test(allocator_used_and_failures_leak_nothing),
        cmocka_unit_test(every_quality_and_leaf_size_validates),
        cmocka_unit_test(coincident_triangles_bound_the_depth),
        cmocka_unit_test(batches_do_not_depend_on_threads),
        cmocka_unit_test(packets_match_single_rays),
        cmocka_unit_test(extreme_directions_and_negative_tmin),
        cmocka_unit_test(hit_carries_mesh_metadata),
        cmocka_unit_test(large_arena_answers_right),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
