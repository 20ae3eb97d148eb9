/*
 * Intersection segments (contacts.h: mq_intersect_triangles,
 * mq_obbtree_intersections, mq_bvh_intersections) against double oracles
 * (tests/support/oracle.c):
 *   - the pairs are exactly mq_obbtree_collide's (OBB trees) and
 *     mq_bvh_clearance's at d = 0 (BVHs);
 *   - both ends of every segment lie on both triangles (B's corners mapped by
 *     mq_rigid_apply), and the segment is maximal: just beyond either end
 *     one of the triangles is left;
 *   - random triangle pairs: a pair the oracle finds apart by more than the
 *     band has no segment, a pair it finds crossing has one;
 *   - hand-made cases: a known crossing, coplanar overlap, a touch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "oracle.h"
#include "test_support.h"

static oracle_v3 from_d(const double v[3])
{
    return oracle_v3_make(v[0], v[1], v[2]);
}

static double dist_to(const oracle_tri *t, oracle_v3 p)
{
    double u, v;
    return sqrt(oracle_dist2_point_triangle(p, t, &u, &v));
}

/* Failed properties of one segment of triangles a, b (same frame). */
static int check_segment(const mq_triangle *a, const mq_triangle *b, const mq_intersection_segment *s)
{
    oracle_tri ta = oracle_tri_from_mq(a), tb = oracle_tri_from_mq(b);
    double scale = fmax(oracle_tri_extent(&ta), oracle_tri_extent(&tb)) + 1e-30, tol = 1e-9 * scale;
    oracle_v3 p0 = from_d(s->p0), p1 = from_d(s->p1);
    int bad = 0;
    if (!(dist_to(&ta, p0) <= tol && dist_to(&tb, p0) <= tol && dist_to(&ta, p1) <= tol && dist_to(&tb, p1) <= tol))
        bad++;
    double len = oracle_dist(p0, p1);
    if (!s->coplanar && len > 1e-6 * scale) {
        oracle_v3 u = oracle_mul(oracle_sub(p1, p0), 1.0 / len);
        double eps = 1e-5 * scale;
        oracle_v3 q0 = oracle_madd(p0, u, -eps), q1 = oracle_madd(p1, u, eps);
        if (!(fmax(dist_to(&ta, q0), dist_to(&tb, q0)) > eps * 1e-3))
            bad++;
        if (!(fmax(dist_to(&ta, q1), dist_to(&tb, q1)) > eps * 1e-3))
            bad++;
    }
    return bad;
}

static void test_known(void **state)
{
    (void)state;
    mq_triangle a = {{{0, 0, 0}, {4, 0, 0}, {0, 4, 0}}};
    /* a vertical triangle through x = 1, crossing a's plane from y = -1 to y = 2 */
    mq_triangle b = {{{1, -1, -1}, {1, 2, -1}, {1, 0.5f, 2}}};
    mq_intersection_segment s;
    assert_true(mq_intersect_triangles(&a, &b, &s));
    assert_false(s.coplanar);
    double ylo = fmin(s.p0[1], s.p1[1]), yhi = fmax(s.p0[1], s.p1[1]);
    assert_true(fabs(s.p0[0] - 1) < 1e-12 && fabs(s.p1[0] - 1) < 1e-12 && s.p0[2] == 0.0 && s.p1[2] == 0.0);
    /* b meets z = 0 from y = -0.5 to y = 1.5 (its slanted edges); a spans y >= 0 */
    assert_true(fabs(ylo - 0.0) < 1e-12 && fabs(yhi - 1.5) < 1e-12);
    assert_int_equal(check_segment(&a, &b, &s), 0);
    /* coplanar overlap: one point of both */
    mq_triangle c = {{{1, 1, 0}, {5, 1, 0}, {1, 5, 0}}};
    assert_true(mq_intersect_triangles(&a, &c, &s));
    assert_true(s.coplanar);
    assert_int_equal(check_segment(&a, &c, &s), 0);
    /* touching at a vertex, from above */
    mq_triangle d = {{{1, 1, 0}, {2, 1, 1}, {1, 2, 1}}};
    assert_true(mq_intersect_triangles(&a, &d, &s));
    assert_true(fabs(s.p0[0] - 1) < 1e-12 && fabs(s.p0[1] - 1) < 1e-12 && fabs(s.p0[2]) < 1e-12);
    /* apart */
    mq_triangle e = {{{1, 1, 0.5f}, {2, 1, 1}, {1, 2, 1}}};
    memset(&s, 0x3c, sizeof s);
    mq_intersection_segment before = s;
    assert_false(mq_intersect_triangles(&a, &e, &s));
    assert_memory_equal(&s, &before, sizeof s);
}

static void random_tri(mq_test_rng *r, mq_triangle *t, double spread)
{
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            t->v[i][k] = (float)mq_test_rng_range(r, -spread, spread);
}

static void test_random_pairs(void **state)
{
    (void)state;
    mq_test_rng r;
    mq_test_rng_seed(&r, mq_test_seed(0x5E65E6));
    int crossing = 0, failures = 0;
    for (int i = 0; i < 200000; i++) {
        mq_triangle a, b;
        random_tri(&r, &a, 1.0);
        random_tri(&r, &b, 1.0);
        oracle_tri ta = oracle_tri_from_mq(&a), tb = oracle_tri_from_mq(&b);
        bool orc = oracle_overlap_triangle_triangle(&ta, &tb);
        mq_intersection_segment s;
        bool got = mq_intersect_triangles(&a, &b, &s);
        if (got != orc) {
            /* allowed only when touching within the band */
            double d = INFINITY, u, v, ss, tt;
            for (int k = 0; k < 3; k++) {
                d = fmin(d, oracle_dist2_point_triangle(ta.v[k], &tb, &u, &v));
                d = fmin(d, oracle_dist2_point_triangle(tb.v[k], &ta, &u, &v));
                for (int j = 0; j < 3; j++)
                    d = fmin(d, oracle_dist2_segment_segment(ta.v[k], ta.v[(k + 1) % 3], tb.v[j], tb.v[(j + 1) % 3],
                                                             &ss, &tt));
            }
            if (!(sqrt(d) <= 1e-6)) {
                failures++;
                if (failures < 5)
                    printf("  case %d: oracle %d, segment %d, distance %.3g\n", i, orc, got, sqrt(d));
            }
        }
        if (got) {
            crossing++;
            if (check_segment(&a, &b, &s)) {
                failures++;
                if (failures < 5)
                    printf("  case %d: segment off its triangles or not maximal\n", i);
            }
        }
    }
    printf("  %d of 200000 random pairs meet, %d failures\n", crossing, failures);
    assert_true(crossing > 10000);
    assert_int_equal(failures, 0);
}

typedef struct seg_list {
    mq_intersection_segment *v;
    size_t n, cap;
} seg_list;

static bool take(const mq_intersection_segment *s, void *user)
{
    seg_list *l = user;
    if (l->n == l->cap)
        l->v = realloc(l->v, (l->cap = l->cap ? 2 * l->cap : 64) * sizeof *l->v);
    l->v[l->n++] = *s;
    return true;
}

static int cmp_pair(const void *x, const void *y)
{
    const mq_tri_pair *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static void test_meshes(void **state)
{
    (void)state;
    mq_mesh *ma = mq_test_load_mesh("suzanne.obj"), *mb = mq_test_load_mesh("spot.obj");
    mq_obbtree *oa = NULL, *ob = NULL;
    mq_bvh *ba = NULL, *bb = NULL;
    mq_bvh_def bd = mq_default_bvh_def();
    assert_int_equal(mq_obbtree_build(ma, NULL, &oa, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(mb, NULL, &ob, NULL), MQ_OK);
    assert_int_equal(mq_bvh_build(ma, &bd, &ba, NULL), MQ_OK);
    assert_int_equal(mq_bvh_build(mb, &bd, &bb, NULL), MQ_OK);
    mq_test_rng r;
    mq_test_rng_seed(&r, mq_test_seed(0x5E65E7));
    size_t total = 0, coplanar = 0;
    int failures = 0;
    for (int it = 0; it < 40; it++) {
        mq_rigid xf;
        double q[4];
        mq_test_rng_quat(&r, q);
        for (int k = 0; k < 4; k++)
            xf.rotation[k] = (float)q[k];
        for (int k = 0; k < 3; k++)
            xf.translation[k] = (float)mq_test_rng_range(&r, -0.5, 0.5);
        if (it == 0) { /* a mesh against itself, unmoved: every pair coplanar or sharing corners */
            xf = (mq_rigid){{1, 0, 0, 0}, {0, 0, 0}};
        }
        const mq_obbtree *tb = it == 0 ? oa : ob;
        const mq_bvh *bvb = it == 0 ? ba : bb;
        const mq_mesh *mesh_b = it == 0 ? ma : mb;
        seg_list l = {0};
        size_t n = mq_obbtree_intersections(oa, tb, &xf, take, &l);
        assert_int_equal(n, l.n);
        size_t np = mq_obbtree_collide_array(oa, tb, &xf, NULL, 0);
        assert_int_equal(np, n);
        mq_tri_pair *pairs = malloc((np + 1) * sizeof *pairs);
        mq_obbtree_collide_array(oa, tb, &xf, pairs, np);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(l.v[i].triangle_a, pairs[i].a);
            assert_int_equal(l.v[i].triangle_b, pairs[i].b);
            mq_triangle a, b, bl;
            mq_mesh_get_triangle(ma, l.v[i].triangle_a, &a);
            mq_mesh_get_triangle(mesh_b, l.v[i].triangle_b, &bl);
            for (int v = 0; v < 3; v++)
                mq_rigid_apply(&xf, bl.v[v], b.v[v]);
            if (check_segment(&a, &b, &l.v[i]))
                failures++;
            coplanar += l.v[i].coplanar;
        }
        total += n;
        /* the BVH twin: the clearance pairs at 0, each with a segment on both triangles */
        seg_list lb = {0};
        size_t nb = mq_bvh_intersections(ba, bvb, &xf, take, &lb);
        size_t nc = mq_bvh_clearance_array(ba, bvb, &xf, 0.0, NULL, 0);
        assert_int_equal(nb, nc);
        mq_tri_pair *pb = malloc((nb + 1) * sizeof *pb);
        for (size_t i = 0; i < nb; i++)
            pb[i] = (mq_tri_pair){lb.v[i].triangle_a, lb.v[i].triangle_b};
        qsort(pb, nb, sizeof *pb, cmp_pair);
        qsort(pairs, np, sizeof *pairs, cmp_pair);
        size_t common = 0;
        for (size_t i = 0, j = 0; i < nb && j < np;) {
            int c = cmp_pair(&pb[i], &pairs[j]);
            common += c == 0;
            i += c <= 0;
            j += c >= 0;
        }
        /* the two decide touching pairs on different roundings: all but those agree */
        assert_true(common + 8 >= np && common + 8 >= nb);
        free(pb);
        free(lb.v);
        free(pairs);
        free(l.v);
    }
    printf("  %zu segments over 40 placements, %zu coplanar, %d failures\n", total, coplanar, failures);
    assert_true(total > 1000);
    assert_int_equal(failures, 0);
    mq_obbtree_destroy(oa);
    mq_obbtree_destroy(ob);
    mq_bvh_destroy(ba);
    mq_bvh_destroy(bb);
    mq_mesh_destroy(ma);
    mq_mesh_destroy(mb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known),
        cmocka_unit_test(test_random_pairs),
        cmocka_unit_test(test_meshes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
