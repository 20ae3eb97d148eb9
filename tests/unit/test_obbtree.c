/*
 * OBB tree: options and errors, allocation failure, the fitted boxes (eigen
 * solver, covariance, tightness of every node), tree shape (depth bound,
 * every triangle once), and hand-made query cases with known answers,
 * including the degenerate inputs the issue lists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>
#include <meshquery/obbtree.h>

#include "obbtree/obb_fit.h"
#include "obbtree/obbtree_internal.h"
#include "test_support.h"

/* The tree's statistics (mq_obbtree_get_stats) as a value. */
static mq_obbtree_stats stats_of(const mq_obbtree *t)
{
    mq_obbtree_stats st;
    mq_obbtree_get_stats(t, &st);
    return st;
}

/* ------------------------------------------------------------------------- */
/* Mesh makers                                                               */
/* ------------------------------------------------------------------------- */

static mq_mesh *make_mesh(const float *pos, size_t nv, const uint32_t *idx, size_t nt)
{
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(pos, nv, idx, nt, NULL, &m, NULL), MQ_OK);
    return m;
}

/* A box [-hx,hx] x [-hy,hy] x [-hz,hz], rotated by quaternion q (w, x, y, z) and moved by t: 12 triangles. */
static mq_mesh *make_box(const float h[3], const float q[4], const float t[3])
{
    mq_obb frame;
    vec3 zero = {0, 0, 0}, one = {1, 1, 1};
    mq_obb_from_quat(zero, one, q, &frame);
    float pos[8 * 3];
    for (int i = 0; i < 8; i++) {
        float l[3] = {(i & 1) ? h[0] : -h[0], (i & 2) ? h[1] : -h[1], (i & 4) ? h[2] : -h[2]};
        for (int k = 0; k < 3; k++)
            pos[3 * i + k] = t[k] + frame.axes[0][k] * l[0] + frame.axes[1][k] * l[1] + frame.axes[2][k] * l[2];
    }
    static const uint32_t idx[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                     2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    return make_mesh(pos, 8, idx, 12);
}

/* A UV sphere of radius r: (rings - 1) * segments * 2 triangles or so. */
static mq_mesh *make_sphere(int rings, int segments, float r)
{
    size_t nv = (size_t)(rings + 1) * (size_t)segments;
    float *pos = malloc(nv * 3 * sizeof *pos);
    uint32_t *idx = malloc((size_t)rings * (size_t)segments * 6 * sizeof *idx);
    for (int i = 0; i <= rings; i++)
        for (int j = 0; j < segments; j++) {
            double pi = 3.14159265358979323846, th = pi * i / rings, ph = 2 * pi * j / segments;
            float *p = pos + 3 * ((size_t)i * (size_t)segments + (size_t)j);
            p[0] = (float)(r * sin(th) * cos(ph));
            p[1] = (float)(r * sin(th) * sin(ph));
            p[2] = (float)(r * cos(th));
        }
    size_t nt = 0;
    for (int i = 0; i < rings; i++)
        for (int j = 0; j < segments; j++) {
            uint32_t a = (uint32_t)(i * segments + j), b = (uint32_t)(i * segments + (j + 1) % segments);
            uint32_t c = a + (uint32_t)segments, d = b + (uint32_t)segments;
            uint32_t *t = idx + 3 * nt;
            t[0] = a, t[1] = c, t[2] = b, t[3] = b, t[4] = c, t[5] = d;
            nt += 2; /* the pole rows make zero-area triangles: kept on purpose */
        }
    mq_mesh *m = make_mesh(pos, nv, idx, nt);
    free(pos);
    free(idx);
    return m;
}

static mq_obbtree *build(const mq_mesh *m, mq_obb_fit fit, uint32_t leaf)
{
    mq_obbtree_def d = mq_default_obbtree_def();
    d.fit = fit;
    d.max_leaf_size = leaf;
    mq_obbtree *t = NULL;
    assert_int_equal(mq_obbtree_build(m, &d, &t, NULL), MQ_OK);
    return t;
}

/* ------------------------------------------------------------------------- */
/* Options and errors                                                        */
/* ------------------------------------------------------------------------- */

static void defaults_and_bad_arguments(void **state)
{
    (void)state;
    mq_obbtree_def d = mq_default_obbtree_def();
    assert_int_equal(d.fit, MQ_OBB_FIT_DITO);
    assert_int_equal(d.max_leaf_size, 4);
    assert_null(d.allocator);
    /* NULL tree: zero statistics (a stale value would show); NULL out: no-op */
    mq_obbtree_stats st;
    memset(&st, 0xff, sizeof st);
    mq_obbtree_get_stats(NULL, &st);
    assert_int_equal(st.triangle_count, 0);
    assert_int_equal(st.node_count, 0);
    assert_true(st.total_volume == 0.0);
    mq_obbtree_get_stats(NULL, NULL);
    mq_shape none = mq_shape_sphere((mq_sphere){{0, 0, 0}, 1});
    assert_int_equal(mq_obbtree_overlap_array(NULL, &none, NULL, 0), 0);
    assert_false(mq_obbtree_overlap_any(NULL, &none));
    float q[4] = {1, 0, 0, 0}, h[3] = {1, 2, 3}, t[3] = {0, 0, 0};
    mq_mesh *m = make_box(h, q, t);
    mq_obbtree *tree = (mq_obbtree *)&d; /* must be reset to NULL on failure */
    mq_diag diag;
    assert_int_equal(mq_obbtree_build(NULL, NULL, &tree, &diag), MQ_ERR_INVALID_ARG);
    assert_null(tree);
    assert_int_equal(mq_obbtree_build(m, NULL, NULL, &diag), MQ_ERR_INVALID_ARG);
    mq_obbtree_def bad = d;
    bad.internal_cookie = 0;
    assert_int_equal(mq_obbtree_build(m, &bad, &tree, &diag), MQ_ERR_INVALID_ARG);
    assert_non_null(strstr(diag.message, "mq_default_obbtree_def"));
    bad = d;
    bad.max_leaf_size = 0;
    assert_int_equal(mq_obbtree_build(m, &bad, &tree, &diag), MQ_ERR_INVALID_ARG);
    bad.max_leaf_size = MQ_OBBTREE_MAX_LEAF_SIZE + 1;
    assert_int_equal(mq_obbtree_build(m, &bad, &tree, &diag), MQ_ERR_INVALID_ARG);
    bad = d;
    bad.fit = (mq_obb_fit)7;
    assert_int_equal(mq_obbtree_build(m, &bad, &tree, &diag), MQ_ERR_INVALID_ARG);
    assert_null(tree);
    mq_obbtree_destroy(NULL);
    assert_int_equal(mq_obbtree_build(m, NULL, &tree, &diag), MQ_OK);
    assert_string_equal(diag.message, "");
    assert_ptr_equal(mq_obbtree_mesh(tree), m);
    assert_int_equal(stats_of(tree).triangle_count, 12);
    mq_obbtree_destroy(tree);
    mq_mesh_destroy(m);
}

/* ------------------------------------------------------------------------- */
/* Allocation failure: fail the Nth allocation for N = 1, 2, ... until success */
/* ------------------------------------------------------------------------- */

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
    mq_mesh *m = make_sphere(24, 32, 1.0f); /* big enough that the node array grows */
    for (int fit = 0; fit < 3; fit++) {
        bool built = false;
        for (int n = 1; n < 1000 && !built; n++) {
            failing f = {0, 0, n};
            mq_allocator a = {failing_alloc, failing_free, &f};
            mq_obbtree_def d = mq_default_obbtree_def();
            d.allocator = &a;
            d.fit = (mq_obb_fit)fit;
            d.max_leaf_size = 1;
            mq_obbtree *t = NULL;
            mq_diag diag;
            mq_status st = mq_obbtree_build(m, &d, &t, &diag);
            if (st == MQ_OK) {
                built = true;
                assert_int_equal(f.live_bytes, (long)mq_obbtree_byte_count(t));
                mq_obbtree_destroy(t);
                assert_true(n > 5); /* it did fail at every earlier allocation */
            } else {
                assert_int_equal(st, MQ_ERR_OUT_OF_MEMORY);
                assert_null(t);
                assert_non_null(strstr(diag.message, "out of memory"));
            }
            assert_int_equal(f.live_bytes, 0);
        }
        assert_true(built);
    }
    mq_mesh_destroy(m);
}

/* ------------------------------------------------------------------------- */
/* Fitting                                                                   */
/* ------------------------------------------------------------------------- */

static void jacobi_eigen_decomposes_symmetric_matrices(void **state)
{
    (void)state;
    mq_test_rng r;
    mq_test_rng_seed(&r, 7);
    for (int iter = 0; iter < 2000; iter++) {
        double a[3][3], w[3], v[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = i; j < 3; j++)
                a[i][j] = a[j][i] = mq_test_rng_range(&r, -10, 10);
        if (iter % 4 == 1) { /* repeated eigenvalues: Q diag(s, s, u) Q^T */
            double s = mq_test_rng_range(&r, -5, 5), u = iter % 8 == 1 ? s : mq_test_rng_range(&r, -5, 5), q[4];
            mq_test_rng_quat(&r, q);
            mq_obb o;
            vec3 z = {0, 0, 0};
            float qf[4] = {(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
            mq_obb_from_quat(z, z, qf, &o);
            double d[3] = {s, s, u};
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    a[i][j] = 0;
                    for (int k = 0; k < 3; k++)
                        a[i][j] += (double)o.axes[k][i] * d[k] * (double)o.axes[k][j];
                }
            for (int i = 0; i < 3; i++) /* symmetrise the float rounding */
                for (int j = 0; j < i; j++)
                    a[i][j] = a[j][i];
        }
        mq_sym3_eigen(a, w, v);
        assert_true(w[0] >= w[1] && w[1] >= w[2]);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                double dot = v[i][0] * v[j][0] + v[i][1] * v[j][1] + v[i][2] * v[j][2];
                assert_true(fabs(dot - (i == j)) < 1e-12);
            }
            for (int k = 0; k < 3; k++) { /* A v = lambda v */
                double av = a[k][0] * v[i][0] + a[k][1] * v[i][1] + a[k][2] * v[i][2];
                assert_true(fabs(av - w[i] * v[i][k]) < 1e-10 * 30.0);
            }
        }
    }
}

/* Gottschalk's errata formula = the covariance of the uniform distribution on
 * the triangle, checked against a dense barycentric quadrature. */
static void covariance_is_the_surface_covariance(void **state)
{
    (void)state;
    float pos[9] = {0.3f, -1.0f, 2.0f, 4.0f, 0.5f, 1.0f, -0.5f, 2.0f, -1.5f};
    uint32_t idx[3] = {0, 1, 2}, ids[1] = {0};
    mq_fit_tris t = {pos, idx, ids, 1};
    double cov[3][3], mean[3] = {0, 0, 0}, second[3][3] = {{0}};
    mq_obb_fit_covariance(&t, cov);
    int n = 400, count = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; i + j < n; j++) { /* midpoints of a regular subdivision */
            double u = (i + 1.0 / 3.0) / n, v = (j + 1.0 / 3.0) / n, p[3];
            for (int k = 0; k < 3; k++)
                p[k] = (1 - u - v) * pos[k] + u * pos[3 + k] + v * pos[6 + k];
            for (int a = 0; a < 3; a++) {
                mean[a] += p[a];
                for (int b = 0; b < 3; b++)
                    second[a][b] += p[a] * p[b];
            }
            count++;
        }
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double c = second[a][b] / count - mean[a] / count * mean[b] / count;
            assert_true(fabs(c - cov[a][b]) < 2e-3 * (1 + fabs(c)));
        }
}

static double box_volume(const mq_obb *b)
{
    return 8.0 * b->half[0] * b->half[1] * b->half[2];
}

/* A cube's covariance is isotropic: PCA alone picks arbitrary axes (drake#14067);
 * the fallback to candidate frames must still find the tight box, rotated or not.
 * DiTO finds it from the cube's own edges. */
static void fits_are_tight_on_rotated_boxes(void **state)
{
    (void)state;
    mq_test_rng r;
    mq_test_rng_seed(&r, 11);
    for (int iter = 0; iter < 50; iter++) {
        double qd[4];
        mq_test_rng_quat(&r, qd);
        float q[4] = {(float)qd[0], (float)qd[1], (float)qd[2], (float)qd[3]}, id[4] = {1, 0, 0, 0};
        float t[3] = {(float)mq_test_rng_range(&r, -50, 50), 3, 1};
        float cube[3] = {1, 1, 1}, brick[3] = {3, 1, 0.5f};
        for (int shape = 0; shape < 3; shape++) {
            mq_mesh *m = make_box(shape == 1 ? brick : cube, shape == 2 ? id : q, t);
            double exact = shape == 1 ? 8.0 * 3 * 1 * 0.5 : 8.0;
            for (int fit = 0; fit < 2; fit++) {
                mq_obbtree *tree = build(m, (mq_obb_fit)fit, 16);
                mq_obb root;
                assert_true(mq_obbtree_root(tree, &root));
                assert_true(mq_obb_is_valid(&root));
                assert_true(box_volume(&root) < exact * (1 + 1e-4));
                assert_true(box_volume(&root) > exact * (1 - 1e-4));
                mq_obbtree_destroy(tree);
            }
            mq_mesh_destroy(m);
        }
    }
}

/* Flat, collinear and coincident point sets get valid boxes (zero extents allowed). */
static void fits_handle_degenerate_sets(void **state)
{
    (void)state;
    float flat[12] = {0, 0, 0, 1, 1, 0, 2, 0.5f, 0, 0.5f, 2, 0};
    float line[9] = {1, 1, 1, 2, 2, 2, 4, 4, 4};
    float point[9] = {3, -1, 2, 3, -1, 2, 3, -1, 2};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    const float *sets[3] = {flat, line, point};
    size_t nv[3] = {4, 3, 3}, nt[3] = {2, 1, 1};
    for (int s = 0; s < 3; s++)
        for (int fit = 0; fit < 3; fit++) {
            mq_mesh *m = make_mesh(sets[s], nv[s], idx, nt[s]);
            mq_obbtree *t = build(m, (mq_obb_fit)fit, 4);
            mq_obb root;
            assert_true(mq_obbtree_root(t, &root));
            assert_true(mq_obb_is_valid(&root));
            if (!(s == 1 && fit == MQ_OBB_FIT_AABB))    /* a diagonal line's AABB is not flat */
                assert_true(box_volume(&root) <= 1e-9); /* flat: one extent is (nearly) zero */
            mq_sphere probe = {{sets[s][0], sets[s][1], sets[s][2]}, 0.0f};
            assert_true(mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = probe}}));
            mq_obbtree_destroy(t);
            mq_mesh_destroy(m);
        }
}

/* ------------------------------------------------------------------------- */
/* Tree shape and box tightness                                              */
/* ------------------------------------------------------------------------- */

/* Checks node `i`: its box holds every corner of its subtree's triangles
 * (evaluated in double against the stored float frame: exactly, no tolerance),
 * its frame is orthonormal. Returns the subtree's triangle range. */
static void check_node(const mq_obbtree *t, uint32_t i, uint32_t depth, uint32_t *first, uint32_t *end)
{
    const mq_obbtree_node *n = &t->nodes[i];
    mq_obb box;
    memcpy(box.center, n->center, sizeof box.center);
    memcpy(box.half, n->half, sizeof box.half);
    memcpy(box.axes, n->axes, sizeof box.axes);
    assert_true(mq_obb_is_valid(&box));
    assert_true(depth <= stats_of(t).max_depth);
    if (mq_obbtree_node_is_leaf(n)) {
        *first = mq_obbtree_leaf_first(n);
        *end = *first + mq_obbtree_leaf_count(n);
        assert_true(mq_obbtree_leaf_count(n) <= t->leaf_size);
    } else {
        uint32_t f1, e1, f2, e2;
        assert_true(n->data > i + 1 && n->data < t->node_count);
        check_node(t, i + 1, depth + 1, &f1, &e1);
        check_node(t, n->data, depth + 1, &f2, &e2);
        assert_int_equal(e1, f2); /* depth-first layout: contiguous triangle ranges */
        *first = f1;
        *end = e2;
    }
    for (uint32_t k = *first; k < *end; k++)
        for (int v = 0; v < 3; v++)
            for (int a = 0; a < 3; a++) {
                double s = 0;
                for (int c = 0; c < 3; c++)
                    s += (double)n->axes[a][c] * ((double)t->tris[k].v[v][c] - (double)n->center[c]);
                assert_true(fabs(s) <= (double)n->half[a] * (1 + 1e-12) + 1e-30);
            }
}

static void check_tree(const mq_obbtree *t, const mq_mesh *m)
{
    uint32_t first, end;
    check_node(t, 0, 0, &first, &end);
    assert_int_equal(first, 0);
    assert_int_equal(end, t->tri_count);
    /* every finite triangle exactly once, stored as the mesh has it */
    size_t n = mq_mesh_triangle_count(m);
    unsigned char *seen = calloc(n, 1);
    for (uint32_t k = 0; k < t->tri_count; k++) {
        assert_true(t->ids[k] < n);
        assert_int_equal(seen[t->ids[k]], 0);
        seen[t->ids[k]] = 1;
        mq_triangle tri;
        mq_mesh_get_triangle(m, t->ids[k], &tri);
        assert_memory_equal(&tri, &t->tris[k], sizeof tri);
    }
    free(seen);
}

static void every_node_box_holds_its_triangles(void **state)
{
    (void)state;
    mq_mesh *m = make_sphere(40, 64, 3.0f);
    for (int fit = 0; fit < 3; fit++)
        for (uint32_t leaf = 1; leaf <= 16; leaf *= 2) {
            mq_obbtree *t = build(m, (mq_obb_fit)fit, leaf);
            check_tree(t, m);
            assert_true(stats_of(t).total_volume > 0);
            mq_obbtree_stats st = stats_of(t);
            assert_true(st.node_count >= 2 * (st.triangle_count / leaf) - 1);
            assert_int_equal(st.node_count, 2 * st.leaf_count - 1); /* binary: every inner node has two children */
            assert_true(st.avg_leaf_size >= 1.0 && st.avg_leaf_size <= (double)leaf);
            double bytes = (double)mq_obbtree_byte_count(t);
            assert_true(fabs(st.bytes_per_triangle * (double)st.triangle_count - bytes) <= 1e-9 * bytes);
            mq_obbtree_destroy(t);
        }
    mq_mesh_destroy(m);
}

/* Centroids spaced geometrically: the mean split peels off one triangle at a
 * time; the median below depth 30 must keep the depth within the stacks. */
static void depth_stays_bounded_on_skewed_input(void **state)
{
    (void)state;
    enum { N = 3000 };
    float *pos = malloc(N * 9 * sizeof *pos);
    uint32_t *idx = malloc(N * 3 * sizeof *idx);
    for (int i = 0; i < N; i++) {
        float x = powf(1.02f, (float)i);
        float tri[9] = {x, 0, 0, x, 1, 0, x, 0, 1};
        memcpy(pos + 9 * i, tri, sizeof tri);
        for (int k = 0; k < 3; k++)
            idx[3 * i + k] = (uint32_t)(3 * i + k);
    }
    mq_mesh *m = make_mesh(pos, 3 * N, idx, N);
    mq_obbtree *t = build(m, MQ_OBB_FIT_DITO, 1);
    assert_true(stats_of(t).max_depth < MQ_OBBTREE_STACK);
    check_tree(t, m);
    for (int i = 0; i < N; i += 97) { /* every triangle still found */
        mq_sphere s = {{pos[9 * i], 0.2f, 0.2f}, 0.0f};
        uint32_t out[4];
        size_t n = mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s}}, out, 4);
        assert_true(n >= 1);
    }
    mq_obbtree_destroy(t);
    mq_mesh_destroy(m);
    free(pos);
    free(idx);
}

/* ------------------------------------------------------------------------- */
/* Queries with known answers                                                */
/* ------------------------------------------------------------------------- */

/* Two triangles making the unit square in z = 0, ids 0 and 1, plus a third
 * far away (id 2) and a triangle with a NaN corner (id 3, never in the tree). */
static mq_mesh *make_square(void)
{
    float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 10, 10, 10, 11, 10, 10, 10, 11, 10, NAN, 0, 0};
    uint32_t idx[] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 7, 0, 1};
    return make_mesh(pos, 8, idx, 4);
}

static void empty_and_non_finite_meshes(void **state)
{
    (void)state;
    float pos[] = {NAN, 0, 0, 1, 0, 0, 0, 1, 0};
    uint32_t idx[] = {0, 1, 2};
    mq_mesh *meshes[2] = {make_mesh(NULL, 0, NULL, 0), make_mesh(pos, 3, idx, 1)};
    for (int i = 0; i < 2; i++) {
        mq_obbtree *t = build(meshes[i], MQ_OBB_FIT_DITO, 4);
        assert_int_equal(stats_of(t).node_count, 0);
        assert_int_equal(stats_of(t).triangle_count, 0);
        assert_int_equal(stats_of(t).max_depth, 0);
        assert_true(stats_of(t).total_volume == 0.0);
        mq_obb root;
        assert_false(mq_obbtree_root(t, &root));
        mq_sphere s = {{0, 0, 0}, 100};
        assert_false(mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s}}));
        mq_ray ray = {{0, 0, -1}, 0, {0, 0, 1}, INFINITY};
        mq_hit h;
        assert_false(mq_obbtree_raycast_closest(t, &ray, NULL, &h));
        assert_int_equal(h.triangle, MQ_NO_TRIANGLE);
        assert_false(mq_obbtree_raycast_any(t, &ray, NULL));
        vec3 p = {0, 0, 0};
        assert_false(mq_obbtree_closest_point(t, p, INFINITY, NULL));
        mq_rigid id = {{1, 0, 0, 0}, {0, 0, 0}};
        assert_false(mq_obbtree_any_collide(t, t, &id));
        mq_obbtree_destroy(t);
        mq_mesh_destroy(meshes[i]);
    }
}

static bool collect(uint32_t tri, void *user)
{
    uint32_t *mask = user;
    *mask |= 1u << tri;
    return true;
}

static void shape_queries_on_a_square(void **state)
{
    (void)state;
    mq_mesh *m = make_square();
    mq_obbtree *t = build(m, MQ_OBB_FIT_DITO, 1);
    assert_int_equal(stats_of(t).triangle_count, 3); /* the NaN triangle is left out */
    uint32_t mask = 0;
    /* touching from above at exactly the radius */
    mq_sphere touch = {{0.75f, 0.25f, 1.0f}, 1.0f};
    assert_int_equal(mq_obbtree_overlap(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = touch}}, collect, &mask), 1);
    assert_int_equal(mask, 1u);
    mq_sphere apart = {{0.75f, 0.25f, 1.0f}, 0.999f};
    assert_false(mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = apart}}));
    /* zero radius on the shared diagonal touches both */
    mq_sphere diag = {{0.5f, 0.5f, 0.0f}, 0.0f};
    uint32_t out[8];
    assert_int_equal(mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = diag}}, out, 8), 2);
    /* capacity smaller than the answer: total returned, capacity respected */
    out[1] = 99;
    assert_int_equal(mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = diag}}, out, 1), 2);
    assert_int_equal(out[1], 99);
    assert_int_equal(mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = diag}}, NULL, 5), 2);
    /* invalid spheres overlap nothing */
    mq_sphere nan_s = {{NAN, 0, 0}, 1}, neg = {{0.5f, 0.5f, 0}, -1};
    assert_int_equal(mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = nan_s}}, out, 8), 0);
    assert_false(mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = neg}}));
    assert_int_equal(mq_obbtree_overlap(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = diag}}, NULL, NULL), 0);
    /* capsules: zero length (a sphere), zero radius crossing the square, far away */
    mq_capsule point = {{0.2f, 0.1f, 0.5f}, {0.2f, 0.1f, 0.5f}, 0.5f};
    assert_int_equal(mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = point}}, out, 8), 1);
    assert_int_equal(out[0], 0);
    mq_capsule stick = {{0.1f, 0.9f, -1}, {0.1f, 0.9f, 1}, 0.0f};
    assert_int_equal(mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = stick}}, out, 8), 1);
    assert_int_equal(out[0], 1);
    mq_capsule both = {{10.2f, 10.2f, 10}, {0.5f, 0.5f, 0}, 0.0f};
    assert_int_equal(mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = both}}, out, 8), 3);
    mq_capsule bad = {{0, 0, 0}, {INFINITY, 0, 0}, 1};
    assert_false(mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = bad}}));
    /* boxes: a flat OBB lying in the square's plane, a rotated one, an empty AABB */
    mq_obb flat;
    vec3 c = {0.5f, 0.5f, 0}, h = {0.1f, 0.1f, 0}, h3 = {0.05f, 0.05f, 0.05f};
    float qid[4] = {1, 0, 0, 0}, q45[4] = {0.92387953f, 0, 0, 0.38268343f}; /* w, x, y, z */
    mq_obb_from_quat(c, h, qid, &flat);
    assert_int_equal(mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = flat}}, out, 8), 2);
    vec3 c2 = {10.2f, 10.2f, 10.06f};
    mq_obb rot;
    mq_obb_from_quat(c2, h3, q45, &rot);
    assert_false(mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = rot}})); /* 0.06 above, half extent 0.05 */
    rot.center[2] = 10.04f;
    assert_true(mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = rot}}));
    rot.half[0] = NAN;
    assert_false(mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = rot}}));
    mq_aabb touch_box = {{1, 0.2f, 0}, {2, 0.6f, 1}}; /* touches edge x = 1 of triangle 0 only */
    assert_int_equal(mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = touch_box}}, out, 8), 1);
    assert_int_equal(out[0], 0);
    mq_aabb empty = {{1, 1, 1}, {0, 0, 0}};
    assert_false(mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = empty}}));
    mq_aabb all = {{-1, -1, -1}, {20, 20, 20}};
    mask = 0;
    assert_int_equal(mq_obbtree_overlap(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = all}}, collect, &mask), 3);
    assert_int_equal(mask, 7u);
    mq_obbtree_destroy(t);
    mq_mesh_destroy(m);
}

static bool reject_all(const mq_hit *h, void *user)
{
    (void)h;
    (*(int *)user)++;
    return false;
}

static void raycasts_on_a_square(void **state)
{
    (void)state;
    mq_mesh *m = make_square();
    mq_obbtree *t = build(m, MQ_OBB_FIT_PCA, 1);
    mq_ray down = {{0.75f, 0.25f, 2.0f}, 0.0f, {0, 0, -2.0f}, INFINITY};
    mq_hit h;
    assert_true(mq_obbtree_raycast_closest(t, &down, NULL, &h));
    assert_int_equal(h.triangle, 0);
    assert_int_equal(h.face, 0);
    assert_float_equal(h.t, 1.0f, 1e-6f);
    assert_float_equal(h.point[2], 0.0f, 1e-6f);
    assert_float_equal(h.normal[2], 1.0f, 1e-6f);
    assert_true(h.back_face == false); /* dir against the normal (0,0,1): the front */
    assert_int_equal(h.group, 0);      /* no names: 0, as the BVH reports it */
    assert_false(h.has_uv);
    assert_false(h.has_shading_normal);
    assert_memory_equal(h.shading_normal, h.normal, sizeof h.normal);
    /* culling the front... the hit is a front face, so it stays */
    mq_ray_query q = {.cull_back_faces = true};
    mq_ray_stats stats = {0, 0, 0};
    q.stats = &stats;
    assert_true(mq_obbtree_raycast_closest(t, &down, &q, &h));
    assert_true(stats.triangle_tests >= 1 && stats.leaf_visits >= 1);
    /* from below it is a back face: culled */
    mq_ray up = {{0.75f, 0.25f, -2.0f}, 0.0f, {0, 0, 1}, INFINITY};
    assert_false(mq_obbtree_raycast_closest(t, &up, &q, &h));
    assert_true(isinf(h.t));
    assert_false(mq_obbtree_raycast_any(t, &up, &q));
    assert_true(mq_obbtree_raycast_any(t, &up, NULL));
    /* the filter sees the candidate and can refuse it */
    int calls = 0;
    mq_ray_query f = {.filter = reject_all, .filter_user = &calls};
    assert_false(mq_obbtree_raycast_closest(t, &down, &f, NULL));
    assert_true(calls >= 1);
    /* the segment ends before the square; an invalid ray */
    mq_ray shorter = down;
    shorter.tmax = 0.999f;
    assert_false(mq_obbtree_raycast_any(t, &shorter, NULL));
    mq_ray zero = {{0, 0, 1}, 0, {0, 0, 0}, 1};
    assert_false(mq_obbtree_raycast_closest(t, &zero, NULL, &h));
    /* through the shared diagonal: the smaller id wins the tie */
    mq_ray diag = {{0.5f, 0.5f, 1}, 0, {0, 0, -1}, INFINITY};
    assert_true(mq_obbtree_raycast_closest(t, &diag, NULL, &h));
    assert_int_equal(h.triangle, 0);
    mq_obbtree_destroy(t);
    mq_mesh_destroy(m);
}

static void closest_points_on_a_square(void **state)
{
    (void)state;
    mq_mesh *m = make_square();
    mq_obbtree *t = build(m, MQ_OBB_FIT_DITO, 1);
    vec3 above = {0.75f, 0.25f, 0.5f};
    mq_point_hit h;
    assert_true(mq_obbtree_closest_point(t, above, INFINITY, &h));
    assert_int_equal(h.triangle, 0);
    assert_float_equal(h.distance, 0.5f, 1e-6f);
    assert_float_equal(h.point[0], 0.75f, 1e-6f);
    assert_true(mq_obbtree_closest_point(t, above, 0.5f, &h)); /* exactly at the limit counts */
    assert_false(mq_obbtree_closest_point(t, above, 0.49f, &h));
    vec3 corner = {0, 0, 0}; /* a vertex of both: the tie goes to id 0 */
    assert_true(mq_obbtree_closest_point(t, corner, 0.0f, &h));
    assert_int_equal(h.triangle, 0);
    assert_true(h.distance == 0.0f);
    vec3 nan_p = {NAN, 0, 0};
    assert_false(mq_obbtree_closest_point(t, nan_p, 1, &h));
    assert_false(mq_obbtree_closest_point(t, above, -1, &h));
    assert_false(mq_obbtree_closest_point(t, above, NAN, &h));
    vec3 near_far = {10.2f, 10.2f, 11.0f};
    assert_true(mq_obbtree_closest_point(t, near_far, INFINITY, NULL));
    mq_obbtree_destroy(t);
    mq_mesh_destroy(m);
}

/* Zero-area triangles and duplicate vertices: defined answers. */
static void degenerate_triangles_act_as_segments(void **state)
{
    (void)state;
    float pos[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 0, 5, 5, 5};
    uint32_t idx[] = {0, 1, 2, 0, 3, 1, 4, 4, 4}; /* collinear; repeated vertex; a point */
    mq_mesh *m = make_mesh(pos, 5, idx, 3);
    for (int fit = 0; fit < 3; fit++) {
        mq_obbtree *t = build(m, (mq_obb_fit)fit, 1);
        check_tree(t, m);
        mq_sphere on_segment = {{1.5f, 0, 0}, 0}, at_point = {{5, 5, 5}, 0}, off = {{1.5f, 0.01f, 0}, 0.005f};
        uint32_t out[4];
        assert_int_equal(mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = on_segment}}, out, 4), 1);
        assert_int_equal(out[0], 0);
        assert_int_equal(mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = at_point}}, out, 4), 1);
        assert_int_equal(out[0], 2);
        assert_false(mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = off}}));
        mq_ray ray = {{1.5f, 0, 1}, 0, {0, 0, -1}, INFINITY}; /* rays never hit zero-area triangles */
        assert_false(mq_obbtree_raycast_any(t, &ray, NULL));
        vec3 p = {5, 5, 6};
        mq_point_hit h;
        assert_true(mq_obbtree_closest_point(t, p, 2, &h));
        assert_int_equal(h.triangle, 2);
        mq_obbtree_destroy(t);
    }
    mq_mesh_destroy(m);
}

/* Many threads querying one tree get the answers one thread gets. */
typedef struct thread_job {
    const mq_obbtree *t;
    uint64_t seed;
    size_t sum;
} thread_job;

static void *thread_run(void *arg)
{
    thread_job *j = arg;
    mq_test_rng r;
    mq_test_rng_seed(&r, j->seed);
    for (int i = 0; i < 2000; i++) {
        mq_sphere s = {{(float)mq_test_rng_range(&r, -3, 3), (float)mq_test_rng_range(&r, -3, 3),
                        (float)mq_test_rng_range(&r, -3, 3)},
                       (float)mq_test_rng_range(&r, 0, 0.5)};
        j->sum +=
            mq_obbtree_overlap_array(j->t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = s}}, NULL, 0) * (size_t)(i + 1);
    }
    return NULL;
}

static void concurrent_queries_agree(void **state)
{
    (void)state;
    mq_mesh *m = make_sphere(30, 40, 2.5f);
    mq_obbtree *t = build(m, MQ_OBB_FIT_DITO, 4);
    thread_job solo = {t, 5, 0}, jobs[4];
    thread_run(&solo);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (thread_job){t, 5, 0};
        assert_int_equal(pthread_create(&th[i], NULL, thread_run, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(jobs[i].sum, solo.sum);
    }
    assert_true(solo.sum > 0);
    mq_obbtree_destroy(t);
    mq_mesh_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_and_bad_arguments),
        cmocka_unit_test(allocation_failures_leak_nothing),
        cmocka_unit_test(jacobi_eigen_decomposes_symmetric_matrices),
        cmocka_unit_test(covariance_is_the_surface_covariance),
        cmocka_unit_test(fits_are_tight_on_rotated_boxes),
        cmocka_unit_test(fits_handle_degenerate_sets),
        cmocka_unit_test(every_node_box_holds_its_triangles),
        cmocka_unit_test(depth_stays_bounded_on_skewed_input),
        cmocka_unit_test(empty_and_non_finite_meshes),
        cmocka_unit_test(shape_queries_on_a_square),
        cmocka_unit_test(raycasts_on_a_square),
        cmocka_unit_test(closest_points_on_a_square),
        cmocka_unit_test(degenerate_triangles_act_as_segments),
        cmocka_unit_test(concurrent_queries_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
