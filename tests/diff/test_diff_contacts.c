/*
 * Contacts (primitives.h mq_contact_shape_triangle, contacts.h) against
 * double-precision oracles (tests/support/oracle.c):
 *   - sphere and capsule whose core stays off the triangle: depth equals the
 *     radius minus the oracle's core-triangle distance;
 *   - every kind: the reported normal achieves the depth (the oracle's
 *     support gap along it), no direction does better (the gap along 500
 *     random directions and along the oracle's own separating-axis
 *     candidates is never below the depth), the points lie on their shapes
 *     and their gap along the normal is the depth;
 *   - meshes: the contacts of the BVH and the OBB tree are exactly the
 *     overlap walk's triangles, each with the primitive's contact.
 * Tolerance: 1e-6 of the case's scale (largest coordinate or size).
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

#include "gen_shapes.h"
#include "oracle.h"
#include "test_support.h"

#define TOL 1e-6
#define N_CASES 20000
#define N_DIRS 500

static oracle_v3 from_d(const double v[3])
{
    return oracle_v3_make(v[0], v[1], v[2]);
}

/* The least x.n over the shape (its support along -n), in double from the float fields. */
static double shape_min(const mq_shape *s, oracle_v3 n)
{
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        return oracle_dot(oracle_v3_f(s->u.sphere.center), n) - s->u.sphere.radius;
    case MQ_SHAPE_CAPSULE:
        return fmin(oracle_dot(oracle_v3_f(s->u.capsule.a), n), oracle_dot(oracle_v3_f(s->u.capsule.b), n)) -
               s->u.capsule.radius;
    default: {
        oracle_box b = s->kind == MQ_SHAPE_OBB ? oracle_box_from_obb(&s->u.obb) : oracle_box_from_aabb(&s->u.aabb);
        double r = 0.0;
        for (int i = 0; i < 3; i++)
            r += b.h[i] * fabs(oracle_dot(b.ax[i], n));
        return oracle_dot(b.c, n) - r;
    }
    }
}

static double tri_max(const oracle_tri *t, oracle_v3 n)
{
    return fmax(fmax(oracle_dot(t->v[0], n), oracle_dot(t->v[1], n)), oracle_dot(t->v[2], n));
}

/* The gap: how far the shape must move along n to clear the triangle. */
static double gap(const mq_shape *s, const oracle_tri *t, oracle_v3 n)
{
    return tri_max(t, n) - shape_min(s, n);
}

/* Signed distance of p from the shape (<= 0 inside). */
static double shape_sdf(const mq_shape *s, oracle_v3 p)
{
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        return oracle_dist(p, oracle_v3_f(s->u.sphere.center)) - s->u.sphere.radius;
    case MQ_SHAPE_CAPSULE:
        return oracle_sdf_capsule(p, oracle_v3_f(s->u.capsule.a), oracle_v3_f(s->u.capsule.b), s->u.capsule.radius);
    case MQ_SHAPE_OBB: {
        oracle_box b = oracle_box_from_obb(&s->u.obb);
        return oracle_sdf_box(p, &b);
    }
    default: {
        oracle_box b = oracle_box_from_aabb(&s->u.aabb);
        return oracle_sdf_box(p, &b);
    }
    }
}

static double case_scale(const mq_shape *s, const oracle_tri *t)
{
    double m = oracle_tri_extent(t);
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        m = fmax(m, oracle_maxabs(oracle_v3_f(s->u.sphere.center)) + s->u.sphere.radius);
        break;
    case MQ_SHAPE_CAPSULE:
        m = fmax(m, fmax(oracle_maxabs(oracle_v3_f(s->u.capsule.a)), oracle_maxabs(oracle_v3_f(s->u.capsule.b))) +
                        s->u.capsule.radius);
        break;
    case MQ_SHAPE_OBB: {
        oracle_box b = oracle_box_from_obb(&s->u.obb);
        m = fmax(m, oracle_box_extent(&b));
        break;
    }
    default: {
        oracle_box b = oracle_box_from_aabb(&s->u.aabb);
        m = fmax(m, oracle_box_extent(&b));
        break;
    }
    }
    return fmax(m, 1e-30);
}

/* The oracle's separating-axis candidates, written independently: face
 * normals of the box, the triangle's normal, edge x edge. */
static int candidate_axes(const mq_shape *s, const oracle_tri *t, oracle_v3 out[32])
{
    oracle_v3 te[3], se[3];
    int nse = 0, n = 0;
    for (int i = 0; i < 3; i++)
        te[i] = oracle_sub(t->v[(i + 1) % 3], t->v[i]);
    out[n++] = oracle_cross(te[0], te[1]);
    if (s->kind == MQ_SHAPE_CAPSULE) {
        se[nse++] = oracle_sub(oracle_v3_f(s->u.capsule.b), oracle_v3_f(s->u.capsule.a));
    } else if (s->kind == MQ_SHAPE_OBB || s->kind == MQ_SHAPE_AABB) {
        oracle_box b = s->kind == MQ_SHAPE_OBB ? oracle_box_from_obb(&s->u.obb) : oracle_box_from_aabb(&s->u.aabb);
        for (int i = 0; i < 3; i++) {
            se[nse++] = b.ax[i];
            out[n++] = oracle_cross(b.ax[(i + 1) % 3], b.ax[(i + 2) % 3]);
        }
    }
    for (int i = 0; i < nse; i++)
        for (int j = 0; j < 3; j++)
            out[n++] = oracle_cross(se[i], te[j]);
    return n;
}

/* A random shape of the kind near the unit triangle region. */
static void random_shape(mq_test_rng *r, mq_shape_kind kind, mq_shape *q)
{
    mq_aabb box = {{-1.2f, -1.2f, -1.2f}, {1.2f, 1.2f, 1.2f}};
    gen_shape_random(r, kind, &box, 30.0, q);
}

static void random_triangle(mq_test_rng *r, mq_triangle *t)
{
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            t->v[i][k] = (float)mq_test_rng_range(r, -1.0, 1.0);
    if (mq_test_rng_unit(r) < 0.05) /* some zero-area triangles: a repeated corner */
        memcpy(t->v[2], t->v[1], sizeof(vec3));
}

/* Checks one contact against the oracle; returns the number of failed properties. */
static int check_contact(const mq_shape *s, const mq_triangle *tri, const mq_contact *k, mq_test_rng *r)
{
    oracle_tri t = oracle_tri_from_mq(tri);
    double scale = case_scale(s, &t), tol = TOL * scale;
    int bad = 0;
    oracle_v3 n = from_d(k->normal);
    if (!(fabs(oracle_len(n) - 1.0) <= 1e-12))
        bad++;
    /* the normal achieves the depth */
    if (!(fabs(gap(s, &t, n) - k->depth) <= tol))
        bad++;
    /* nothing does better */
    for (int i = 0; i < N_DIRS; i++) {
        double d[3];
        mq_test_rng_unit_vector(r, d);
        if (gap(s, &t, oracle_v3_make(d[0], d[1], d[2])) < k->depth - tol) {
            bad++;
            break;
        }
    }
    oracle_v3 ax[32];
    int na = candidate_axes(s, &t, ax);
    for (int i = 0; i < na; i++) {
        if (!(oracle_len(ax[i]) > 1e-9))
            continue;
        oracle_v3 u = oracle_normalize(ax[i]);
        if (gap(s, &t, u) < k->depth - tol || gap(s, &t, oracle_mul(u, -1.0)) < k->depth - tol) {
            bad++;
            break;
        }
    }
    /* the points: on their shapes, and their gap along the normal is the depth */
    oracle_v3 pt = from_d(k->point_triangle), ps = from_d(k->point_shape);
    double uu, vv;
    if (!(sqrt(oracle_dist2_point_triangle(pt, &t, &uu, &vv)) <= tol))
        bad++;
    if (!(shape_sdf(s, ps) <= tol))
        bad++;
    if (!(fabs(oracle_dot(oracle_sub(pt, ps), n) - k->depth) <= tol))
        bad++;
    /* round shapes whose core is off the triangle: depth = radius - core distance */
    if (s->kind == MQ_SHAPE_SPHERE || s->kind == MQ_SHAPE_CAPSULE) {
        double core, rad;
        if (s->kind == MQ_SHAPE_SPHERE) {
            core = sqrt(oracle_dist2_point_triangle(oracle_v3_f(s->u.sphere.center), &t, &uu, &vv));
            rad = s->u.sphere.radius;
        } else {
            double ss;
            core = sqrt(oracle_dist2_segment_triangle(oracle_v3_f(s->u.capsule.a), oracle_v3_f(s->u.capsule.b), &t, &ss,
                                                      &uu, &vv));
            rad = s->u.capsule.radius;
        }
        if (core > tol && !(fabs(rad - core - k->depth) <= tol))
            bad++;
        if (core <= tol && !(k->depth >= rad - tol))
            bad++;
    }
    return bad;
}

static void test_primitive(void **state)
{
    (void)state;
    mq_test_rng r;
    mq_test_rng_seed(&r, mq_test_seed(0xC0117AC7));
    for (int kind = 0; kind < GEN_SHAPE_KINDS; kind++) {
        int overlapping = 0, failures = 0, apart_checked = 0;
        for (int i = 0; i < N_CASES; i++) {
            mq_shape s;
            mq_triangle tri;
            random_triangle(&r, &tri);
            random_shape(&r, (mq_shape_kind)kind, &s);
            mq_contact k;
            memset(&k, 0, sizeof k);
            bool hit = mq_contact_shape_triangle(&s, &tri, &k);
            oracle_tri t = oracle_tri_from_mq(&tri);
            double tol = TOL * case_scale(&s, &t);
            /* the float overlap test agrees away from touching */
            mq_triangle one = tri;
            bool f;
            switch (s.kind) {
            case MQ_SHAPE_SPHERE:
                f = mq_overlap_sphere_triangle(&s.u.sphere, &one);
                break;
            case MQ_SHAPE_CAPSULE:
                f = mq_overlap_capsule_triangle(&s.u.capsule, &one);
                break;
            case MQ_SHAPE_OBB:
                f = mq_overlap_triangle_obb(&one, &s.u.obb);
                break;
            default:
                f = mq_overlap_triangle_aabb(&one, &s.u.aabb);
                break;
            }
            if (fabs(k.depth) > tol && f != hit) {
                failures++;
                printf("  %s case %d: overlap test %d, contact %d (depth %.9g)\n", gen_shape_names[kind], i, f, hit,
                       k.depth);
            }
            if (hit) {
                overlapping++;
                int b = check_contact(&s, &tri, &k, &r);
                if (b) {
                    failures++;
                    if (failures < 10)
                        printf("  %s case %d: %d properties fail (depth %.9g)\n", gen_shape_names[kind], i, b, k.depth);
                }
            } else if (s.kind == MQ_SHAPE_SPHERE || s.kind == MQ_SHAPE_CAPSULE) {
                /* apart: -depth is the distance, the points the closest points */
                double uu, vv, ss, dist;
                if (s.kind == MQ_SHAPE_SPHERE)
                    dist = sqrt(oracle_dist2_point_triangle(oracle_v3_f(s.u.sphere.center), &t, &uu, &vv)) -
                           s.u.sphere.radius;
                else
                    dist = sqrt(oracle_dist2_segment_triangle(oracle_v3_f(s.u.capsule.a), oracle_v3_f(s.u.capsule.b),
                                                              &t, &ss, &uu, &vv)) -
                           s.u.capsule.radius;
                apart_checked++;
                if (!(fabs(-k.depth - dist) <= tol) ||
                    !(fabs(oracle_dist(from_d(k.point_shape), from_d(k.point_triangle)) - dist) <= tol))
                    failures++;
            }
        }
        printf("  %s: %d of %d cases overlap, %d apart checked, %d failures\n", gen_shape_names[kind], overlapping,
               N_CASES, apart_checked, failures);
        assert_true(overlapping > N_CASES / 20);
        assert_int_equal(failures, 0);
    }
}

/* Hand-made cases whose answers are known exactly. */
static void test_known(void **state)
{
    (void)state;
    mq_triangle t = {{{0, 0, 0}, {4, 0, 0}, {0, 4, 0}}};
    mq_contact k;
    /* a sphere half sunk below the face: moves up by radius - height */
    mq_shape s = mq_shape_sphere((mq_sphere){{1, 1, 0.25f}, 1.0f});
    assert_true(mq_contact_shape_triangle(&s, &t, &k));
    assert_true(fabs(k.depth - 0.75) < 1e-12 && fabs(k.normal[2] - 1.0) < 1e-12);
    assert_true(fabs(k.point_triangle[0] - 1.0) < 1e-12 && fabs(k.point_triangle[2]) < 1e-12);
    assert_true(fabs(k.point_shape[2] + 0.75) < 1e-12);
    /* centre on the face: depth = radius, along the face normal */
    s = mq_shape_sphere((mq_sphere){{1, 1, 0}, 0.5f});
    assert_true(mq_contact_shape_triangle(&s, &t, &k));
    assert_true(fabs(k.depth - 0.5) < 1e-12 && fabs(fabs(k.normal[2]) - 1.0) < 1e-12);
    /* touching exactly: depth 0 */
    s = mq_shape_sphere((mq_sphere){{1, 1, 2}, 2.0f});
    assert_true(mq_contact_shape_triangle(&s, &t, &k));
    assert_true(k.depth == 0.0);
    /* apart: negative depth = -distance */
    s = mq_shape_sphere((mq_sphere){{1, 1, 3}, 2.0f});
    assert_false(mq_contact_shape_triangle(&s, &t, &k));
    assert_true(fabs(k.depth + 1.0) < 1e-12);
    /* a vertical capsule piercing the face: it leaves upwards (its bottom end
     * is 0.5 under, plus the radius) */
    s = mq_shape_capsule((mq_capsule){{1, 1, -0.5f}, {1, 1, 3}, 0.25f});
    assert_true(mq_contact_shape_triangle(&s, &t, &k));
    assert_true(fabs(k.depth - 0.75) < 1e-12 && fabs(k.normal[2] - 1.0) < 1e-12);
    /* a unit cube sunk 0.1 into the face from above */
    s = mq_shape_aabb((mq_aabb){{0.5f, 0.5f, -0.125f}, {1.5f, 1.5f, 0.875f}});
    assert_true(mq_contact_shape_triangle(&s, &t, &k));
    assert_true(fabs(k.depth - 0.125) < 1e-12 && fabs(k.normal[2] - 1.0) < 1e-12);
    assert_true(fabs(k.point_shape[2] + 0.125) < 1e-12);
    /* invalid shapes and unknown kinds: false, out untouched */
    memset(&k, 0x5a, sizeof k);
    mq_contact before = k;
    s = mq_shape_sphere((mq_sphere){{1, 1, 0}, -1.0f});
    assert_false(mq_contact_shape_triangle(&s, &t, &k));
    s.kind = (mq_shape_kind)99;
    assert_false(mq_contact_shape_triangle(&s, &t, &k));
    assert_false(mq_contact_shape_triangle(NULL, &t, &k));
    assert_memory_equal(&k, &before, sizeof k);
}

typedef struct collect {
    mq_contact *c;
    size_t n, cap;
} collect;

static bool take(const mq_contact *k, void *user)
{
    collect *c = user;
    if (c->n < c->cap)
        c->c[c->n] = *k;
    c->n++;
    return true;
}

static int cmp_contact(const void *a, const void *b)
{
    uint32_t x = ((const mq_contact *)a)->triangle, y = ((const mq_contact *)b)->triangle;
    return x < y ? -1 : x > y;
}

static void test_meshes(void **state)
{
    (void)state;
    const char *names[] = {"stanford-bunny.obj", "suzanne.obj"};
    mq_test_rng r;
    mq_test_rng_seed(&r, mq_test_seed(0xC0117AC8));
    for (int m = 0; m < 2; m++) {
        mq_mesh *mesh = mq_test_load_mesh(names[m]);
        mq_bvh *bvh = NULL;
        mq_obbtree *obt = NULL;
        mq_bvh_def bd = mq_default_bvh_def();
        mq_obbtree_def od = mq_default_obbtree_def();
        assert_int_equal(mq_bvh_build(mesh, &bd, &bvh, NULL), MQ_OK);
        assert_int_equal(mq_obbtree_build(mesh, &od, &obt, NULL), MQ_OK);
        mq_aabb box;
        double D = gen_bounds(mesh, &box);
        size_t total = 0;
        for (int i = 0; i < 400; i++) {
            mq_shape s;
            gen_shape_random(&r, (mq_shape_kind)(i % GEN_SHAPE_KINDS), &box, D, &s);
            size_t nt = mq_bvh_overlap_array(bvh, &s, NULL, 0);
            uint32_t *ids = malloc((nt + 1) * sizeof *ids);
            mq_bvh_overlap_array(bvh, &s, ids, nt);
            qsort(ids, nt, sizeof *ids, gen_cmp_u32);
            for (int h = 0; h < 2; h++) {
                collect c = {malloc((nt + 1) * sizeof(mq_contact)), 0, nt};
                size_t calls = h == 0 ? mq_bvh_contacts(bvh, &s, take, &c) : mq_obbtree_contacts(obt, &s, take, &c);
                assert_int_equal(calls, nt);
                assert_int_equal(c.n, nt);
                qsort(c.c, nt, sizeof *c.c, cmp_contact);
                for (size_t j = 0; j < nt; j++) {
                    assert_int_equal(c.c[j].triangle, ids[j]);
                    mq_triangle t;
                    mq_mesh_get_triangle(mesh, ids[j], &t);
                    mq_contact k;
                    mq_contact_shape_triangle(&s, &t, &k);
                    assert_true(c.c[j].depth >= 0.0);
                    assert_true(c.c[j].depth == fmax(k.depth, 0.0));
                    assert_memory_equal(c.c[j].normal, k.normal, sizeof k.normal);
                }
                /* the array form: the same total, the first `capacity` written */
                mq_contact *arr = malloc((nt + 1) * sizeof *arr);
                size_t cap = nt / 2;
                size_t tot =
                    h == 0 ? mq_bvh_contacts_array(bvh, &s, arr, cap) : mq_obbtree_contacts_array(obt, &s, arr, cap);
                assert_int_equal(tot, nt);
                free(arr);
                free(c.c);
            }
            total += nt;
            free(ids);
        }
        printf("  %s: %zu contacts over 400 shapes\n", names[m], total);
        assert_true(total > 100);
        /* NULL inputs */
        assert_int_equal(mq_bvh_contacts(NULL, NULL, take, NULL), 0);
        assert_int_equal(mq_obbtree_contacts_array(NULL, NULL, NULL, 0), 0);
        mq_bvh_destroy(bvh);
        mq_obbtree_destroy(obt);
        mq_mesh_destroy(mesh);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known),
        cmocka_unit_test(test_primitive),
        cmocka_unit_test(test_meshes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
