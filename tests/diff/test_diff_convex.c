/* Convex shapes against independent double-precision oracles, and the trees
 * and scenes against brute force.
 *
 * Oracle (tests/support/oracle_convex.h): the convex as half-spaces, from the public hull
 * (mq_convex_vertices / mq_convex_faces: each triangle's plane, its offset
 * the largest n . v over the vertices), and the triangle clipped by them
 * (Sutherland-Hodgman in double): they meet when something is left. A case
 * whose answer changes when every plane moves by 1e-9 of the scale either way
 * is within rounding of touching; it is counted, not compared (and must stay
 * rare). Everything else must agree exactly.
 *
 * Trees: mq_bvh_overlap*, mq_obbtree_overlap*, mq_kdoptree_overlap* (k = 6,
 * 14, 18, 26) and mq_spheretree_overlap* with mq_shape_convex give exactly the
 * set of triangles mq_overlap_convex_triangle accepts (all of them tried), on
 * every mesh in data/, for random hulls of points and boxes of several sizes. Scenes: placed convexes
 * (mq_dshape_convex) against instances under rigid transforms, judged by the oracle in world space. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/bvh.h>
#include <meshquery/convex.h>
#include <meshquery/kdoptree.h>
#include <meshquery/obbtree.h>
#include <meshquery/scene.h>
#include <meshquery/spheretree.h>

#include "oracle_convex.h"
#include "test_support.h"

/* ---- the half-space oracle (tests/support/oracle_convex.h) ------------------- */

/* -1: within rounding of touching (ambiguous); else 0 / 1. */
static int oracle(const oracle_hspace *h, const double tri[3][3])
{
    double e = 1e-9 * h->scale, flat[9];
    memcpy(flat, tri, sizeof flat);
    bool out = oracle_hspace_meets(h, flat, NULL, e), in = oracle_hspace_meets(h, flat, NULL, -e);
    if (out != in)
        return -1;
    return out ? 1 : 0;
}

/* ---- random hulls ----------------------------------------------------------- */

/* A hull around centre c of radius r: random points in a ball, on a sphere, a
 * random box, or a few points (a tetrahedron-like sliver). */
static mq_convex *random_hull(mq_test_rng *rng, const double c[3], double r, int kind)
{
    float p[3 * 200];
    size_t n;
    if (kind == 0 || kind == 1) {
        n = 4 + (size_t)(mq_test_rng_unit(rng) * 150);
        for (size_t i = 0; i < n; i++) {
            double u[3];
            mq_test_rng_unit_vector(rng, u);
            double s = kind == 0 ? cbrt(mq_test_rng_unit(rng)) : 1.0;
            for (int k = 0; k < 3; k++)
                p[3 * i + k] = (float)(c[k] + r * s * u[k]);
        }
    } else if (kind == 2) {
        double q[4], h[3];
        mq_test_rng_quat(rng, q);
        for (int k = 0; k < 3; k++)
            h[k] = r * mq_test_rng_range(rng, 0.2, 1.0);
        n = 8;
        double w = q[0], x = q[1], y = q[2], z = q[3];
        double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                          {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                          {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
        for (size_t i = 0; i < 8; i++) {
            double l[3] = {(i & 1) ? h[0] : -h[0], (i & 2) ? h[1] : -h[1], (i & 4) ? h[2] : -h[2]};
            for (int k = 0; k < 3; k++)
                p[3 * i + k] = (float)(c[k] + R[k][0] * l[0] + R[k][1] * l[1] + R[k][2] * l[2]);
        }
    } else {
        n = 4 + (size_t)(mq_test_rng_unit(rng) * 3);
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++)
                p[3 * i + k] = (float)(c[k] + r * mq_test_rng_range(rng, -1, 1) * (k == 2 ? 0.05 : 1.0));
    }
    mq_convex *cv = NULL;
    mq_diag d;
    if (mq_convex_create(p, n, NULL, &cv, &d) != MQ_OK)
        fail_msg("random hull (kind %d, %zu points): %s", kind, n, d.message);
    return cv;
}

/* ---- the primitive against the oracle ------------------------------------------ */

static void primitive_vs_oracle(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(2501));
    long compared = 0, ambiguous = 0, hits = 0;
    for (int round = 0; round < 400; round++) {
        double scale = pow(10.0, mq_test_rng_range(&rng, -20, 20));
        double c[3] = {0, 0, 0};
        mq_convex *cv = random_hull(&rng, c, scale, round % 4);
        oracle_hspace h;
        oracle_hspace_make(cv, NULL, NULL, &h);
        for (int i = 0; i < 300; i++) {
            mq_triangle t;
            double d[3][3], centre[3], u[3];
            mq_test_rng_unit_vector(&rng, u);
            double dist = scale * mq_test_rng_range(&rng, 0.0, 1.6);
            double size = scale * pow(10.0, mq_test_rng_range(&rng, -2, 0.7));
            for (int k = 0; k < 3; k++)
                centre[k] = u[k] * dist;
            int degenerate = i % 10; /* 0: a segment, 1: a point */
            for (int v = 0; v < 3; v++) {
                double w[3];
                mq_test_rng_unit_vector(&rng, w);
                for (int k = 0; k < 3; k++) {
                    t.v[v][k] = (float)(centre[k] + size * w[k]);
                    if (degenerate == 0 && v == 2)
                        t.v[2][k] = t.v[1][k];
                    if (degenerate == 1 && v > 0)
                        t.v[v][k] = t.v[0][k];
                    d[v][k] = t.v[v][k];
                }
            }
            int want = oracle(&h, (const double(*)[3])d);
            if (want < 0) {
                ambiguous++;
                continue;
            }
            bool got = mq_overlap_convex_triangle(cv, &t);
            if (got != (want == 1))
                fail_msg("round %d case %d (scale %g): convex-triangle says %d, the oracle %d", round, i, scale, got,
                         want);
            compared++;
            hits += want;
        }
        /* touching by construction: a triangle with a hull vertex as a
         * corner, and each hull face itself, meet the hull (the oracle's band
         * cannot decide these; the answer is known) */
        const float *hv = mq_convex_vertices(cv);
        size_t nv = mq_convex_vertex_count(cv);
        for (int i = 0; i < 30; i++) {
            size_t j = (size_t)(mq_test_rng_unit(&rng) * (double)nv) % nv;
            mq_triangle t;
            memcpy(t.v[0], hv + 3 * j, sizeof(float[3]));
            for (int v = 1; v < 3; v++) {
                double w[3];
                mq_test_rng_unit_vector(&rng, w);
                for (int k = 0; k < 3; k++)
                    t.v[v][k] = (float)(hv[3 * j + k] * (1.0 + 0.5 * v) + scale * w[k]);
            }
            if (!mq_overlap_convex_triangle(cv, &t))
                fail_msg("round %d: a triangle with hull vertex %zu as a corner does not meet the hull", round, j);
        }
        const uint32_t *hf = mq_convex_faces(cv);
        for (size_t j = 0; j < mq_convex_face_count(cv); j++) {
            mq_triangle t;
            for (int v = 0; v < 3; v++)
                memcpy(t.v[v], hv + 3 * hf[3 * j + v], sizeof(float[3]));
            if (!mq_overlap_convex_triangle(cv, &t))
                fail_msg("round %d: hull face %zu does not meet the hull", round, j);
        }
        oracle_hspace_free(&h);
        mq_convex_destroy(cv);
    }
    print_message("convex-triangle: %ld compared (%ld meet), %ld within rounding of touching\n", compared, hits,
                  ambiguous);
    assert_true(hits > compared / 10 && hits < compared * 9 / 10);
    assert_true(ambiguous * 100 < compared);
}

/* Two convexes meet iff a face triangle of one meets the other or a vertex of
 * the other is inside the first (the oracle again). Point distances against
 * the minimum over the faces of the exact point-triangle distance. */
static double point_tri_dist(const double p[3], const double t[3][3])
{
    /* Ericson 5.1.5, in double */
    double ab[3], ac[3], ap[3], bp[3], cp[3], q[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = t[1][k] - t[0][k];
        ac[k] = t[2][k] - t[0][k];
        ap[k] = p[k] - t[0][k];
        bp[k] = p[k] - t[1][k];
        cp[k] = p[k] - t[2][k];
    }
#define DOT(a, b) ((a)[0] * (b)[0] + (a)[1] * (b)[1] + (a)[2] * (b)[2])
    double d1 = DOT(ab, ap), d2 = DOT(ac, ap), d3 = DOT(ab, bp), d4 = DOT(ac, bp), d5 = DOT(ab, cp), d6 = DOT(ac, cp);
    double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d1 <= 0 && d2 <= 0)
        memcpy(q, t[0], sizeof q);
    else if (d3 >= 0 && d4 <= d3)
        memcpy(q, t[1], sizeof q);
    else if (vc <= 0 && d1 >= 0 && d3 <= 0)
        for (int k = 0; k < 3; k++)
            q[k] = t[0][k] + d1 / (d1 - d3) * ab[k];
    else if (d6 >= 0 && d5 <= d6)
        memcpy(q, t[2], sizeof q);
    else if (vb <= 0 && d2 >= 0 && d6 <= 0)
        for (int k = 0; k < 3; k++)
            q[k] = t[0][k] + d2 / (d2 - d6) * ac[k];
    else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            q[k] = t[1][k] + w * (t[2][k] - t[1][k]);
    } else {
        double den = 1.0 / (va + vb + vc), v = vb * den, w = vc * den;
        for (int k = 0; k < 3; k++)
            q[k] = t[0][k] + ab[k] * v + ac[k] * w;
    }
    double e[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    return sqrt(DOT(e, e));
#undef DOT
}

static void face_tri(const mq_convex *c, size_t j, double t[3][3])
{
    const float *v = mq_convex_vertices(c);
    const uint32_t *f = mq_convex_faces(c);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            t[i][k] = v[3 * f[3 * j + i] + k];
}

static int pair_oracle(const mq_convex *a, const oracle_hspace *ha, const mq_convex *b, const oracle_hspace *hb)
{
    int amb = 0;
    for (int side = 0; side < 2; side++) {
        const mq_convex *x = side ? b : a;
        const oracle_hspace *hy = side ? ha : hb;
        for (size_t j = 0; j < mq_convex_face_count(x); j++) {
            double t[3][3];
            face_tri(x, j, t);
            int o = oracle(hy, (const double(*)[3])t);
            if (o == 1)
                return 1;
            amb |= o < 0;
        }
    }
    /* no boundaries meet: one inside the other? */
    const float *vb = mq_convex_vertices(b), *va = mq_convex_vertices(a);
    double pb[3] = {vb[0], vb[1], vb[2]}, pa[3] = {va[0], va[1], va[2]};
    double t[3][3] = {{pb[0], pb[1], pb[2]}, {pb[0], pb[1], pb[2]}, {pb[0], pb[1], pb[2]}};
    if (oracle(ha, (const double(*)[3])t) == 1)
        return amb ? -1 : 1;
    double s[3][3] = {{pa[0], pa[1], pa[2]}, {pa[0], pa[1], pa[2]}, {pa[0], pa[1], pa[2]}};
    if (oracle(hb, (const double(*)[3])s) == 1)
        return amb ? -1 : 1;
    return amb ? -1 : 0;
}

static void pairs_and_distances(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(2502));
    long compared = 0, hits = 0, ambiguous = 0;
    for (int round = 0; round < 300; round++) {
        double scale = pow(10.0, mq_test_rng_range(&rng, -10, 10));
        double c0[3] = {0, 0, 0}, c1[3], u[3];
        mq_test_rng_unit_vector(&rng, u);
        double dist = scale * mq_test_rng_range(&rng, 0.0, 2.5);
        for (int k = 0; k < 3; k++)
            c1[k] = u[k] * dist;
        mq_convex *a = random_hull(&rng, c0, scale, round % 4);
        mq_convex *b = random_hull(&rng, c1, scale * mq_test_rng_range(&rng, 0.1, 1.2), (round / 4) % 4);
        oracle_hspace ha, hb;
        oracle_hspace_make(a, NULL, NULL, &ha);
        oracle_hspace_make(b, NULL, NULL, &hb);
        int want = pair_oracle(a, &ha, b, &hb);
        if (want < 0) {
            ambiguous++;
        } else {
            bool got = mq_overlap_convex_convex(a, b);
            if (got != (want == 1) || mq_overlap_convex_convex(b, a) != got)
                fail_msg("round %d: convex-convex says %d, the oracle %d", round, got, want);
            compared++;
            hits += want;
            double pa[3], pb[3];
            double d = mq_convex_convex_distance(a, b, pa, pb);
            assert_true(want ? d == 0.0 : d > 0.0);
        }
        /* point distances */
        for (int i = 0; i < 20; i++) {
            double w[3];
            mq_test_rng_unit_vector(&rng, w);
            double r = scale * mq_test_rng_range(&rng, 0.0, 3.0);
            vec3 p = {(float)(w[0] * r), (float)(w[1] * r), (float)(w[2] * r)};
            double pd[3] = {p[0], p[1], p[2]},
                   t[3][3] = {{pd[0], pd[1], pd[2]}, {pd[0], pd[1], pd[2]}, {pd[0], pd[1], pd[2]}};
            double best = INFINITY;
            for (size_t j = 0; j < mq_convex_face_count(a); j++) {
                double ft[3][3];
                face_tri(a, j, ft);
                best = fmin(best, point_tri_dist(pd, (const double(*)[3])ft));
            }
            int inside = oracle(&ha, (const double(*)[3])t);
            if (inside == 1)
                best = 0.0;
            vec3 q;
            float got = mq_convex_closest_point(a, p, q);
            if (inside < 0)
                continue;
            if (!(fabs(got - best) <= 1e-5 * scale + 1e-6 * best))
                fail_msg("round %d point %d: distance %.9g, the oracle %.9g", round, i, got, best);
        }
        oracle_hspace_free(&ha);
        oracle_hspace_free(&hb);
        mq_convex_destroy(a);
        mq_convex_destroy(b);
    }
    print_message("convex-convex: %ld compared (%ld meet), %ld within rounding\n", compared, hits, ambiguous);
    assert_true(hits > compared / 10 && hits < compared * 9 / 10);
    assert_true(ambiguous * 20 < compared);
}

/* ---- trees and scenes against brute force -------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static bool count_fn(uint32_t tri, void *user)
{
    (void)tri;
    (*(size_t *)user)++;
    return true;
}

/* The trees compared with brute force: the BVH, the OBB tree, the k-DOP tree
 * for each k and the sphere tree. */
enum { TREE_BVH, TREE_OBB, TREE_KDOP6, TREE_KDOP14, TREE_KDOP18, TREE_KDOP26, TREE_SPHERE, TREE_COUNT };
static const char *const tree_names[TREE_COUNT] = {"bvh",    "obbtree", "kdop6",     "kdop14",
                                                   "kdop18", "kdop26",  "spheretree"};

typedef struct trees {
    mq_bvh *b;
    mq_obbtree *o;
    mq_kdoptree *k[4];
    mq_spheretree *s;
} trees;

static size_t tree_array(const trees *t, int which, const mq_shape *s, uint32_t *out, size_t cap)
{
    switch (which) {
    case TREE_BVH:
        return mq_bvh_overlap_array(t->b, s, out, cap);
    case TREE_OBB:
        return mq_obbtree_overlap_array(t->o, s, out, cap);
    case TREE_SPHERE:
        return mq_spheretree_overlap_array(t->s, s, out, cap);
    default:
        return mq_kdoptree_overlap_array(t->k[which - TREE_KDOP6], s, out, cap);
    }
}

static bool tree_any(const trees *t, int which, const mq_shape *s)
{
    switch (which) {
    case TREE_BVH:
        return mq_bvh_overlap_any(t->b, s);
    case TREE_OBB:
        return mq_obbtree_overlap_any(t->o, s);
    case TREE_SPHERE:
        return mq_spheretree_overlap_any(t->s, s);
    default:
        return mq_kdoptree_overlap_any(t->k[which - TREE_KDOP6], s);
    }
}

static size_t tree_calls(const trees *t, int which, const mq_shape *s, mq_overlap_fn fn, void *user)
{
    switch (which) {
    case TREE_BVH:
        return mq_bvh_overlap(t->b, s, fn, user);
    case TREE_OBB:
        return mq_obbtree_overlap(t->o, s, fn, user);
    case TREE_SPHERE:
        return mq_spheretree_overlap(t->s, s, fn, user);
    default:
        return mq_kdoptree_overlap(t->k[which - TREE_KDOP6], s, fn, user);
    }
}

/* Every tree's three entry points against brute force for one hull: the
 * number of triangles it overlaps. want, got: room for every triangle. */
static size_t check_hull(const trees *tr, const mq_mesh *m, const mq_convex *cv, const char *name, int r,
                         uint32_t *want, uint32_t *got)
{
    size_t n = 0, nt = mq_mesh_triangle_count(m);
    for (uint32_t t = 0; t < nt; t++) {
        mq_triangle tri;
        mq_mesh_get_triangle(m, t, &tri);
        if (mq_overlap_convex_triangle(cv, &tri))
            want[n++] = t;
    }
    mq_shape s = mq_shape_convex(cv);
    for (int tree = 0; tree < TREE_COUNT; tree++) {
        size_t k = tree_array(tr, tree, &s, got, nt);
        if (k != n)
            fail_msg("%s round %d %s: %zu triangles, brute force %zu", name, r, tree_names[tree], k, n);
        qsort(got, k, sizeof *got, cmp_u32);
        assert_memory_equal(got, want, n * sizeof *got);
        assert_true(tree_any(tr, tree, &s) == (n > 0));
        size_t calls = 0;
        size_t ret = tree_calls(tr, tree, &s, count_fn, &calls);
        assert_true(ret == n && calls == n);
    }
    return n;
}

static void check_mesh(const char *name, int rounds, uint64_t seed)
{
    mq_mesh *m = mq_test_load_mesh(name);
    trees tr = {0};
    assert_int_equal(mq_bvh_build(m, NULL, &tr.b, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(m, NULL, &tr.o, NULL), MQ_OK);
    const uint32_t ks[4] = {6, 14, 18, 26};
    for (int i = 0; i < 4; i++) {
        mq_kdoptree_def kd = mq_default_kdoptree_def();
        kd.k = ks[i];
        assert_int_equal(mq_kdoptree_build(m, &kd, &tr.k[i], NULL), MQ_OK);
    }
    assert_int_equal(mq_spheretree_build(m, NULL, &tr.s, NULL), MQ_OK);
    size_t nt = mq_mesh_triangle_count(m);
    uint32_t *want = malloc(nt * sizeof(uint32_t)), *got = malloc(nt * sizeof(uint32_t));
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(seed));
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const float *pos = mq_mesh_positions(m);
    for (size_t i = 0; i < mq_mesh_vertex_count(m); i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], pos[3 * i + k]);
            hi[k] = fmaxf(hi[k], pos[3 * i + k]);
        }
    double diag =
        sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    long total = 0;
    for (int r = 0; r < rounds; r++) {
        double c[3];
        for (int k = 0; k < 3; k++)
            c[k] = mq_test_rng_range(&rng, lo[k], hi[k]);
        double size = diag * pow(10.0, mq_test_rng_range(&rng, -2.5, -0.3));
        mq_convex *cv = random_hull(&rng, c, size, r % 4);
        size_t n = check_hull(&tr, m, cv, name, r, want, got);
        total += (long)n;
        mq_convex_destroy(cv);
    }
    /* hulls of extreme sizes: one 2e30 across holding everything, one a float
     * ulp around a vertex (its triangles touch it), one 1e30 away, a slab
     * 2e6 meshes wide and 1e-3 of the mesh thick through its middle (2e-9 of
     * its width: as thin as a hull can be, 1e-13, with room to spare) */
    const float *v0 = pos + 3 * (size_t)(mq_test_rng_u64(&rng) % mq_mesh_vertex_count(m));
    float xlo[4][3], xhi[4][3];
    float u = fmaxf(fabsf(v0[0]), fmaxf(fabsf(v0[1]), fabsf(v0[2])));
    float ulp = u > 0.0f ? nextafterf(u, INFINITY) - u : 1e-30f; /* of the vertex's largest coordinate */
    for (int k = 0; k < 3; k++) {
        xlo[0][k] = -1e30f;
        xhi[0][k] = 1e30f;
        xlo[1][k] = v0[k] - ulp;
        xhi[1][k] = v0[k] + ulp;
        xlo[2][k] = 1e30f;
        xhi[2][k] = 1e30f + 1e24f;
        float mid = 0.5f * lo[k] + 0.5f * hi[k];
        xlo[3][k] = k == 2 ? mid - (float)(5e-4 * diag) : (float)(-1e6 * diag);
        xhi[3][k] = k == 2 ? mid + (float)(5e-4 * diag) : (float)(1e6 * diag);
    }
    size_t extreme[4];
    for (int e = 0; e < 4; e++) {
        float pts[8 * 3];
        for (int i = 0; i < 8; i++)
            for (int k = 0; k < 3; k++)
                pts[3 * i + k] = i >> k & 1 ? xhi[e][k] : xlo[e][k];
        mq_convex *cv = NULL;
        assert_int_equal(mq_convex_create(pts, 8, NULL, &cv, NULL), MQ_OK);
        extreme[e] = check_hull(&tr, m, cv, name, rounds + e, want, got);
        mq_convex_destroy(cv);
    }
    assert_int_equal(extreme[0], nt);
    assert_true(extreme[1] > 0 && extreme[2] == 0 && extreme[3] > 0);
    print_message("%s: %d hulls, %ld triangles overlapped, trees equal brute force\n", name, rounds, total);
    assert_true(total > 0);
    free(want);
    free(got);
    mq_bvh_destroy(tr.b);
    mq_obbtree_destroy(tr.o);
    for (int i = 0; i < 4; i++)
        mq_kdoptree_destroy(tr.k[i]);
    mq_spheretree_destroy(tr.s);
    mq_mesh_destroy(m);
}

static void trees_bunny(void **state)
{
    (void)state;
    check_mesh("stanford-bunny.obj", 60, 2503);
}

static void trees_other_meshes(void **state)
{
    (void)state;
    const char *names[] = {"cow.obj", "fandisk.obj", "spot.obj", "suzanne.obj", "teapot.obj", "woody.obj"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        check_mesh(names[i], 15, 2504 + i);
}

typedef struct pair_set {
    uint64_t *keys;
    size_t n, cap;
} pair_set;

static bool pair_fn(uint32_t inst, uint32_t tri, void *user)
{
    pair_set *s = user;
    if (s->n < s->cap)
        s->keys[s->n] = (uint64_t)inst << 32 | tri;
    s->n++;
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void quat_matrix(const double q[4], double R[3][3])
{
    double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double w = q[0] / l, x = q[1] / l, y = q[2] / l, z = q[3] / l;
    double M[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    memcpy(R, M, sizeof M);
}

static void scenes(void **state)
{
    (void)state;
    mq_mesh *m = mq_test_load_mesh("spot.obj");
    mq_bvh *b = NULL;
    mq_obbtree *o = NULL;
    assert_int_equal(mq_bvh_build(m, NULL, &b, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(m, NULL, &o, NULL), MQ_OK);
    mq_scene *sc = NULL;
    assert_int_equal(mq_scene_create(NULL, &sc, NULL), MQ_OK);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(2510));
    mq_xform xf[2];
    for (int i = 0; i < 2; i++) {
        double q[4], t[3] = {1e4 + 0.7 * i, -3e3, 0.3 * i}, one[3] = {1, 1, 1};
        mq_test_rng_quat(&rng, q);
        xf[i] = mq_xform_from_trs(t, q, one);
        mq_instance_def d = mq_default_instance_def();
        if (i == 0)
            d.bvh = b;
        else
            d.obbtree = o;
        d.transform = xf[i];
        uint32_t id;
        assert_int_equal(mq_scene_add(sc, &d, &id, NULL), MQ_OK);
    }
    assert_int_equal(mq_scene_commit(sc, NULL), MQ_OK);
    size_t nt = mq_mesh_triangle_count(m);
    pair_set got = {malloc(2 * nt * sizeof(uint64_t)), 0, 2 * nt};
    uint64_t *want = malloc(2 * nt * sizeof(uint64_t));
    long total = 0, ambiguous = 0;
    for (int r = 0; r < 40; r++) {
        double c0[3] = {0, 0, 0};
        mq_convex *cv = random_hull(&rng, c0, mq_test_rng_range(&rng, 0.02, 0.4), r % 4);
        mq_dconvex pc;
        pc.convex = cv;
        mq_test_rng_quat(&rng, pc.rotation);
        int inst = r % 2;
        double local[3] = {mq_test_rng_range(&rng, -0.5, 0.5), mq_test_rng_range(&rng, -0.2, 1.0),
                           mq_test_rng_range(&rng, -0.8, 0.8)};
        mq_xform_apply_point(&xf[inst], local, pc.translation);
        double R[3][3];
        quat_matrix(pc.rotation, R);
        oracle_hspace h;
        oracle_hspace_make(cv, (const double(*)[3])R, pc.translation, &h);
        size_t n = 0;
        bool skip = false;
        for (int i = 0; i < 2 && !skip; i++)
            for (uint32_t t = 0; t < nt; t++) {
                mq_triangle tri;
                mq_mesh_get_triangle(m, t, &tri);
                double w[3][3];
                for (int v = 0; v < 3; v++) {
                    double p[3] = {tri.v[v][0], tri.v[v][1], tri.v[v][2]};
                    mq_xform_apply_point(&xf[i], p, w[v]);
                }
                int o1 = oracle(&h, (const double(*)[3])w);
                if (o1 < 0) {
                    skip = true;
                    break;
                }
                if (o1)
                    want[n++] = (uint64_t)i << 32 | t;
            }
        /* the world-space oracle's rounding band: 1e-9 of 1e4 here, wider
         * than the scene's own (instance-centred) rounding */
        if (skip) {
            ambiguous++;
        } else {
            mq_dshape s = mq_dshape_convex(pc);
            got.n = 0;
            mq_scene_overlap(sc, &s, NULL, pair_fn, &got);
            qsort(got.keys, got.n, sizeof(uint64_t), cmp_u64);
            if (got.n != n)
                fail_msg("scene round %d: %zu pairs, the oracle %zu", r, got.n, n);
            assert_memory_equal(got.keys, want, n * sizeof(uint64_t));
            assert_true(mq_scene_overlap_any(sc, &s, NULL) == (n > 0));
            total += (long)n;
        }
        oracle_hspace_free(&h);
        mq_convex_destroy(cv);
    }
    print_message("scene: %ld pairs equal the oracle, %ld hulls within rounding skipped\n", total, ambiguous);
    assert_true(total > 0 && ambiguous < 8);
    /* invalid placements overlap nothing */
    mq_convex *cv = random_hull(&rng, (double[3]){0, 0, 0}, 1.0, 2);
    mq_dshape bad = mq_dshape_convex((mq_dconvex){cv, {1e4, -3e3, 0}, {0, 0, 0, 0}});
    assert_false(mq_scene_overlap_any(sc, &bad, NULL));
    bad = mq_dshape_convex((mq_dconvex){NULL, {1e4, -3e3, 0}, {1, 0, 0, 0}});
    assert_false(mq_scene_overlap_any(sc, &bad, NULL));
    mq_convex_destroy(cv);
    free(got.keys);
    free(want);
    mq_scene_destroy(sc);
    mq_bvh_destroy(b);
    mq_obbtree_destroy(o);
    mq_mesh_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(primitive_vs_oracle),
        cmocka_unit_test(pairs_and_distances),
        cmocka_unit_test(trees_bunny),
        cmocka_unit_test(trees_other_meshes),
        cmocka_unit_test(scenes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
