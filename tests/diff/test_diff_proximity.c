/*
 * Distances and clearance (meshquery/proximity.h) against brute force in
 * double over every triangle pair, on both hierarchies.
 *
 * The brute force is written independently of the library: B's corners are
 * rotated by q v q* (the library builds a matrix), two triangles are at 0 when
 * the oracle's polytope test (tests/support/oracle.h) says they meet, else at
 * the smallest of the 6 vertex-triangle distances (the oracle's direct
 * projection) and the 9 segment-segment distances (endpoint-segment distances
 * and the interior critical point, not Ericson's clamping). Shapes: a sphere's
 * centre and a capsule's axis against the triangle minus the radius, boxes by
 * the oracle's point-box and segment-box distances and the box's edges
 * against the triangle.
 *
 * Checked for each placement (random rotations, offsets from touching to
 * several diagonals apart, the identity, near-identity): the distance within
 * 1e-6 of the scene's diagonal D; the witness points on their triangles and
 * their distance equal to the reported one; the two hierarchies agree;
 * max_distance and tolerances honoured; clearance pair lists equal to brute
 * force (pairs within 1e-9 D of d excepted: either answer is right there).
 * The internal walk (src/proximity/distance_walk.h), which the scene's clash
 * detection calls with affine maps, is checked the same way under random
 * rotations, scales and mirrors, on every pair of hierarchies.
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
#include "proximity/distance_walk.h"
#include "oracle.h"
#include "test_support.h"

#if defined(__OPTIMIZE__)
#define PX_SCALE 1.0
#else
#define PX_SCALE 0.25
#endif

/* ---- the independent brute force ---- */

static double ss2(oracle_v3 p0, oracle_v3 p1, oracle_v3 q0, oracle_v3 q1)
{
    double best = oracle_dist2_point_segment_direct(p0, q0, q1);
    best = fmin(best, oracle_dist2_point_segment_direct(p1, q0, q1));
    best = fmin(best, oracle_dist2_point_segment_direct(q0, p0, p1));
    best = fmin(best, oracle_dist2_point_segment_direct(q1, p0, p1));
    oracle_v3 d1 = oracle_sub(p1, p0), d2 = oracle_sub(q1, q0), r = oracle_sub(p0, q0);
    double a = oracle_dot(d1, d1), e = oracle_dot(d2, d2), b = oracle_dot(d1, d2);
    double c = oracle_dot(d1, r), f = oracle_dot(d2, r);
    double den = a * e - b * b;
    if (den > 1e-30 * a * e) {
        double s = (b * f - c * e) / den, t = (a * f - b * c) / den;
        if (s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0)
            best = fmin(best, oracle_len2(oracle_sub(oracle_madd(p0, d1, s), oracle_madd(q0, d2, t))));
    }
    return best;
}

/* The oracle's direct point-triangle distance projects on the triangle's
 * plane; for a triangle whose normal is rounding noise (a numerically
 * degenerate one: a segment or a point) that plane is arbitrary, so such a
 * triangle is measured as its three edges. */
static double pt_tri2(oracle_v3 p, const oracle_tri *t)
{
    oracle_v3 ab = oracle_sub(t->v[1], t->v[0]), ac = oracle_sub(t->v[2], t->v[0]);
    double n2 = oracle_len2(oracle_cross(ab, ac));
    if (n2 > 1e-24 * oracle_len2(ab) * oracle_len2(ac))
        return oracle_dist2_point_triangle_direct(p, t);
    double d = oracle_dist2_point_segment_direct(p, t->v[0], t->v[1]);
    d = fmin(d, oracle_dist2_point_segment_direct(p, t->v[1], t->v[2]));
    return fmin(d, oracle_dist2_point_segment_direct(p, t->v[2], t->v[0]));
}

static double brute_tri_tri(const oracle_tri *a, const oracle_tri *b)
{
    if (oracle_overlap_triangle_triangle(a, b))
        return 0.0;
    double best = INFINITY;
    for (int i = 0; i < 3; i++) {
        best = fmin(best, pt_tri2(a->v[i], b));
        best = fmin(best, pt_tri2(b->v[i], a));
        for (int j = 0; j < 3; j++)
            best = fmin(best, ss2(a->v[i], a->v[(i + 1) % 3], b->v[j], b->v[(j + 1) % 3]));
    }
    return sqrt(best);
}

/* Segment vs triangle: 0 when it crosses, else endpoints and edges. */
static double brute_seg_tri(oracle_v3 p, oracle_v3 q, const oracle_tri *t)
{
    oracle_tri degenerate = {{p, q, q}};
    return brute_tri_tri(&degenerate, t);
}

/* q v q*, q = (w, x, y, z) normalised. */
static oracle_v3 rotate(const double q[4], oracle_v3 v)
{
    oracle_v3 u = oracle_v3_make(q[1], q[2], q[3]);
    oracle_v3 t = oracle_mul(oracle_cross(u, v), 2.0);
    return oracle_add(oracle_add(v, oracle_mul(t, q[0])), oracle_cross(u, t));
}

typedef struct placed {
    oracle_tri *t;
    double (*lo)[3], (*hi)[3];
    bool *ok;
    size_t n;
} placed;

static void place_mesh(const gen_tri_boxes *tb, const mq_rigid *xf, placed *out)
{
    out->n = tb->count;
    out->t = malloc(tb->count * sizeof *out->t + 1);
    out->lo = malloc(tb->count * sizeof *out->lo + 1);
    out->hi = malloc(tb->count * sizeof *out->hi + 1);
    out->ok = malloc(tb->count * sizeof *out->ok + 1);
    double q[4], n = 0.0;
    for (int k = 0; k < 4; k++)
        n += (double)xf->rotation[k] * xf->rotation[k];
    for (int k = 0; k < 4; k++)
        q[k] = xf ? xf->rotation[k] / sqrt(n) : 0.0;
    for (size_t i = 0; i < tb->count; i++) {
        out->ok[i] = true;
        for (int v = 0; v < 3; v++) {
            oracle_v3 p = oracle_v3_f(tb->tris[i].v[v]);
            out->ok[i] = out->ok[i] && oracle_v3_finite(p);
            p = oracle_add(rotate(q, p), oracle_v3_f(xf->translation));
            out->t[i].v[v] = p;
        }
        for (int k = 0; k < 3; k++) {
            double a = (&out->t[i].v[0].x)[k], b = (&out->t[i].v[1].x)[k], c = (&out->t[i].v[2].x)[k];
            out->lo[i][k] = fmin(fmin(a, b), c);
            out->hi[i][k] = fmax(fmax(a, b), c);
        }
    }
}

static void placed_free(placed *p)
{
    free(p->t);
    free(p->lo);
    free(p->hi);
    free(p->ok);
}

static double gap(const double *alo, const double *ahi, const double *blo, const double *bhi)
{
    double g2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double g = fmax(alo[k] - bhi[k], blo[k] - ahi[k]);
        if (g > 0.0)
            g2 += g * g;
    }
    return sqrt(g2);
}

static double brute_distance(const placed *a, const placed *b)
{
    double best = INFINITY;
    for (size_t i = 0; i < a->n; i++) {
        if (!a->ok[i])
            continue;
        for (size_t j = 0; j < b->n; j++)
            if (b->ok[j] && gap(a->lo[i], a->hi[i], b->lo[j], b->hi[j]) <= best)
                best = fmin(best, brute_tri_tri(&a->t[i], &b->t[j]));
    }
    return best;
}

/* ---- checks ---- */

typedef struct stats {
    size_t cases, failures, band, pairs;
} stats;

#define FAIL(st, ...)                                                                                                  \
    do {                                                                                                               \
        if ((st)->failures++ < 8)                                                                                      \
            fprintf(stderr, "  FAIL " __VA_ARGS__);                                                                    \
    } while (0)

static double pt_dist(const double *p, const oracle_tri *t)
{
    return sqrt(pt_tri2(oracle_v3_make(p[0], p[1], p[2]), t));
}

static double dist3(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static void check_result(stats *st, const char *what, const mq_distance_result *r, double expect, const placed *pa,
                         const placed *pb, double tol)
{
    if (!r->found) {
        FAIL(st, "%s: nothing found, brute force %.17g\n", what, expect);
        return;
    }
    if (fabs(r->distance - expect) > tol)
        FAIL(st, "%s: distance %.17g, brute force %.17g\n", what, r->distance, expect);
    if (r->triangle_a >= pa->n || r->triangle_b >= pb->n) {
        FAIL(st, "%s: triangle ids %u %u out of range\n", what, r->triangle_a, r->triangle_b);
        return;
    }
    double ea = pt_dist(r->point_a, &pa->t[r->triangle_a]), eb = pt_dist(r->point_b, &pb->t[r->triangle_b]);
    if (ea > tol || eb > tol)
        FAIL(st, "%s: witness off its triangle by %.3g / %.3g\n", what, ea, eb);
    double pd = dist3(r->point_a, r->point_b);
    if (fabs(pd - r->distance) > tol)
        FAIL(st, "%s: points %.17g apart, distance %.17g\n", what, pd, r->distance);
    double bt = brute_tri_tri(&pa->t[r->triangle_a], &pb->t[r->triangle_b]);
    if (fabs(bt - r->distance) > tol)
        FAIL(st, "%s: the reported pair is at %.17g by brute force, reported %.17g\n", what, bt, r->distance);
}

typedef struct pair_list {
    mq_clearance_pair *p;
    size_t n;
} pair_list;

static int cmp_pair(const void *x, const void *y)
{
    const mq_clearance_pair *a = x, *b = y;
    if (a->triangle_a != b->triangle_a)
        return a->triangle_a < b->triangle_a ? -1 : 1;
    return a->triangle_b < b->triangle_b ? -1 : a->triangle_b > b->triangle_b;
}

/* Library pairs (sorted) against brute force pairs within d. */
static void check_clearance(stats *st, const char *what, mq_clearance_pair *got, size_t n, const placed *pa,
                            const placed *pb, double d, double tol, double band)
{
    qsort(got, n, sizeof *got, cmp_pair);
    size_t k = 0, expect = 0;
    for (size_t i = 0; i < pa->n; i++) {
        if (!pa->ok[i])
            continue;
        for (size_t j = 0; j < pb->n; j++) {
            if (!pb->ok[j] || gap(pa->lo[i], pa->hi[i], pb->lo[j], pb->hi[j]) > d + band)
                continue;
            double bd = brute_tri_tri(&pa->t[i], &pb->t[j]);
            bool in = k < n && got[k].triangle_a == i && got[k].triangle_b == j;
            bool want = bd <= d;
            if (in) {
                double e = pt_dist(got[k].point_a, &pa->t[i]) + pt_dist(got[k].point_b, &pb->t[j]);
                if (fabs(got[k].distance - bd) > tol || e > tol ||
                    fabs(dist3(got[k].point_a, got[k].point_b) - got[k].distance) > tol)
                    FAIL(st, "%s: pair %zu %zu at %.17g, brute %.17g (witness off by %.3g)\n", what, i, j,
                         got[k].distance, bd, e);
                k++;
            }
            expect += want;
            if (in != want) {
                if (fabs(bd - d) <= band)
                    st->band++;
                else
                    FAIL(st, "%s: pair %zu %zu at %.17g (d %.17g): %s\n", what, i, j, bd, d,
                         in ? "reported, not within d" : "missing");
            }
        }
    }
    if (k != n)
        FAIL(st, "%s: %zu pairs reported that brute force never saw near (d %.17g)\n", what, n - k, d);
    st->pairs += expect;
}

/* ---- meshes ---- */

/* A soup of random triangles in the unit cube, with degenerate ones (a point,
 * segments, a sliver) and one with a NaN corner (ignored by every query). */
static mq_mesh *soup(mq_test_rng *rng, size_t n)
{
    float *pos = malloc(9 * n * sizeof *pos);
    uint32_t *idx = malloc(3 * n * sizeof *idx);
    for (size_t i = 0; i < n; i++) {
        float c[3];
        for (int k = 0; k < 3; k++)
            c[k] = (float)mq_test_rng_unit(rng);
        double size = mq_test_rng_range(rng, 0.01, 0.3);
        for (int v = 0; v < 3; v++) {
            for (int k = 0; k < 3; k++)
                pos[9 * i + 3 * v + k] = c[k] + (float)mq_test_rng_range(rng, -size, size);
            idx[3 * i + v] = (uint32_t)(3 * i + v);
        }
        if (i % 17 == 3) /* a point */
            for (int v = 1; v < 3; v++)
                memcpy(&pos[9 * i + 3 * v], &pos[9 * i], 3 * sizeof(float));
        if (i % 17 == 5) /* a segment */
            memcpy(&pos[9 * i + 6], &pos[9 * i + 3], 3 * sizeof(float));
        if (i % 17 == 7) /* collinear corners */
            for (int k = 0; k < 3; k++)
                pos[9 * i + 6 + k] = 0.5f * (pos[9 * i + k] + pos[9 * i + 3 + k]);
        if (i == n / 2)
            pos[9 * i + 4] = NAN;
    }
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(pos, 3 * n, idx, n, NULL, &m, NULL), MQ_OK);
    free(pos);
    free(idx);
    return m;
}

typedef struct both {
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_obbtree *obb;
    gen_tri_boxes tb;
    mq_aabb box;
    double D;
} both;

static void both_make(both *b, mq_mesh *m)
{
    b->mesh = m;
    assert_int_equal(mq_bvh_build(m, NULL, &b->bvh, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(m, NULL, &b->obb, NULL), MQ_OK);
    b->tb = gen_tri_boxes_make(m);
    b->D = 0.0;
    /* bounds of the finite vertices */
    for (int k = 0; k < 3; k++) {
        b->box.min[k] = INFINITY;
        b->box.max[k] = -INFINITY;
    }
    for (size_t i = 0; i < b->tb.count; i++)
        for (int v = 0; v < 3; v++)
            for (int k = 0; k < 3; k++)
                if (isfinite(b->tb.tris[i].v[v][k])) {
                    b->box.min[k] = fminf(b->box.min[k], b->tb.tris[i].v[v][k]);
                    b->box.max[k] = fmaxf(b->box.max[k], b->tb.tris[i].v[v][k]);
                }
    double s = 0.0;
    for (int k = 0; k < 3; k++)
        s += ((double)b->box.max[k] - b->box.min[k]) * ((double)b->box.max[k] - b->box.min[k]);
    b->D = sqrt(s);
}

static void both_free(both *b)
{
    mq_bvh_destroy(b->bvh);
    mq_obbtree_destroy(b->obb);
    gen_tri_boxes_free(&b->tb);
    mq_mesh_destroy(b->mesh);
}

/* B's box centre onto A's, rotated by q, then moved by `off`. */
static mq_rigid placement(const both *a, const both *b, const double q[4], const double off[3])
{
    mq_rigid xf = {{(float)q[0], (float)q[1], (float)q[2], (float)q[3]}, {0, 0, 0}};
    double qn[4], n = 0.0;
    for (int k = 0; k < 4; k++)
        n += (double)xf.rotation[k] * xf.rotation[k];
    for (int k = 0; k < 4; k++)
        qn[k] = xf.rotation[k] / sqrt(n);
    oracle_v3 cb =
        oracle_v3_make(0.5 * ((double)b->box.min[0] + b->box.max[0]), 0.5 * ((double)b->box.min[1] + b->box.max[1]),
                       0.5 * ((double)b->box.min[2] + b->box.max[2]));
    oracle_v3 r = rotate(qn, cb);
    double ca[3];
    for (int k = 0; k < 3; k++)
        ca[k] = 0.5 * ((double)a->box.min[k] + a->box.max[k]);
    xf.translation[0] = (float)(ca[0] - r.x + off[0]);
    xf.translation[1] = (float)(ca[1] - r.y + off[1]);
    xf.translation[2] = (float)(ca[2] - r.z + off[2]);
    return xf;
}

static bool collect(const mq_clearance_pair *p, void *user)
{
    pair_list *l = user;
    l->p[l->n++] = *p;
    return true;
}

static void run_placement(stats *st, const both *a, const both *b, const mq_rigid *xf, const char *what,
                          mq_test_rng *rng)
{
    placed pa, pb;
    mq_rigid id = {{1, 0, 0, 0}, {0, 0, 0}};
    place_mesh(&a->tb, &id, &pa);
    place_mesh(&b->tb, xf, &pb);
    double D = fmax(a->D, b->D), tol = 1e-6 * D;
    double expect = brute_distance(&pa, &pb);
    mq_distance_result ro, rb;
    bool fo = mq_obbtree_distance(a->obb, b->obb, xf, NULL, &ro);
    bool fb = mq_bvh_distance(a->bvh, b->bvh, xf, NULL, &rb);
    st->cases++;
    char w[400];
    snprintf(w, sizeof w, "%s (obbtree)", what);
    check_result(st, w, &ro, expect, &pa, &pb, tol);
    snprintf(w, sizeof w, "%s (bvh)", what);
    check_result(st, w, &rb, expect, &pa, &pb, tol);
    if (fo != fb || fabs(ro.distance - rb.distance) > tol)
        FAIL(st, "%s: the trees disagree: %.17g vs %.17g\n", what, ro.distance, rb.distance);

    /* max_distance: below the answer finds nothing, at or above it finds it */
    if (expect > 10 * tol) {
        mq_distance_options o = mq_default_distance_options();
        o.max_distance = expect - 5 * tol;
        if (mq_obbtree_distance(a->obb, b->obb, xf, &o, NULL) || mq_bvh_distance(a->bvh, b->bvh, xf, &o, NULL))
            FAIL(st, "%s: found below max_distance %.17g (distance %.17g)\n", what, o.max_distance, expect);
    }
    {
        mq_distance_options o = mq_default_distance_options();
        o.max_distance = expect + tol;
        mq_distance_result r;
        if (!mq_bvh_distance(a->bvh, b->bvh, xf, &o, &r) || fabs(r.distance - expect) > tol)
            FAIL(st, "%s: not found within max_distance %.17g\n", what, o.max_distance);
        /* a relative tolerance of 10 %: within it */
        o = mq_default_distance_options();
        o.rel_tolerance = 0.1;
        o.abs_tolerance = 0.01 * D;
        if (!mq_obbtree_distance(a->obb, b->obb, xf, &o, &r) || r.distance < expect - tol ||
            r.distance > 1.1 * expect + 0.01 * D + tol)
            FAIL(st, "%s: tolerance answer %.17g for %.17g\n", what, r.distance, expect);
        else
            check_result(st, "tolerance witness", &r, r.distance, &pa, &pb, tol);
    }

    /* clearance at the distance plus a random margin, on both trees */
    double d = expect + mq_test_rng_range(rng, 0.0, 0.003) * D;
    if ((st->cases & 3) == 0)
        d = expect; /* exactly at the distance: the nearest pair itself counts */
    size_t n1 = mq_obbtree_clearance_array(a->obb, b->obb, xf, d, NULL, 0);
    size_t n2 = mq_bvh_clearance_array(a->bvh, b->bvh, xf, d, NULL, 0);
    if (n1 != n2)
        FAIL(st, "%s: clearance counts differ: %zu vs %zu\n", what, n1, n2);
    pair_list l = {malloc((n1 > n2 ? n1 : n2) * sizeof *l.p + 1), 0};
    size_t m1 = mq_obbtree_clearance_array(a->obb, b->obb, xf, d, l.p, n1);
    snprintf(w, sizeof w, "%s clearance (obbtree)", what);
    check_clearance(st, w, l.p, m1 < n1 ? m1 : n1, &pa, &pb, d, tol, 1e-9 * D + 1e-12);
    l.n = 0;
    size_t calls = mq_bvh_clearance(a->bvh, b->bvh, xf, d, collect, &l);
    snprintf(w, sizeof w, "%s clearance (bvh)", what);
    if (calls != l.n)
        FAIL(st, "%s: %zu calls, %zu pairs\n", w, calls, l.n);
    check_clearance(st, w, l.p, l.n, &pa, &pb, d, tol, 1e-9 * D + 1e-12);
    if (mq_obbtree_clearance_any(a->obb, b->obb, xf, d) != (n1 > 0) ||
        mq_bvh_clearance_any(a->bvh, b->bvh, xf, d) != (n2 > 0))
        FAIL(st, "%s: clearance_any disagrees with the count %zu\n", what, n1);
    free(l.p);
    placed_free(&pa);
    placed_free(&pb);
}

static void run_meshes(stats *st, const both *a, const both *b, const char *name, size_t count, mq_test_rng *rng)
{
    double D = fmax(a->D, b->D);
    count = (size_t)(count * PX_SCALE) + 6;
    for (size_t i = 0; i < count; i++) {
        double q[4] = {1, 0, 0, 0}, off[3] = {0, 0, 0};
        int kind = (int)(i % 6);
        double reach[4] = {0.05, 0.5, 1.0, 3.0}; /* touching to three diagonals apart */
        if (kind < 4) {
            mq_test_rng_quat(rng, q);
            double u[3];
            mq_test_rng_unit_vector(rng, u);
            double len = mq_test_rng_range(rng, 0.0, reach[kind]) * D;
            for (int k = 0; k < 3; k++)
                off[k] = u[k] * len;
        } else if (kind == 4) {
            double u[3], ang = mq_test_rng_range(rng, 0, 1e-3);
            mq_test_rng_unit_vector(rng, u);
            q[0] = cos(ang);
            for (int k = 0; k < 3; k++) {
                q[k + 1] = sin(ang) * u[k];
                off[k] = mq_test_rng_range(rng, -1e-3, 1e-3) * D;
            }
        }
        mq_rigid xf = placement(a, b, q, off);
        if (kind == 5)
            xf = (mq_rigid){{1, 0, 0, 0}, {0, 0, 0}};
        char what[320];
        snprintf(what, sizeof what, "%s #%zu t %.9g %.9g %.9g q %.9g %.9g %.9g %.9g", name, i,
                 (double)xf.translation[0], (double)xf.translation[1], (double)xf.translation[2],
                 (double)xf.rotation[0], (double)xf.rotation[1], (double)xf.rotation[2], (double)xf.rotation[3]);
        run_placement(st, a, b, &xf, what, rng);
    }
}

static void mesh_mesh_matches_brute_force(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xD157A4CE));
    both suz, woody, s1, s2;
    both_make(&suz, mq_test_load_mesh("suzanne.obj"));
    both_make(&woody, mq_test_load_mesh("woody.obj"));
    both_make(&s1, soup(&rng, 120));
    both_make(&s2, soup(&rng, 60));
    stats st = {0};
    run_meshes(&st, &s1, &s2, "soup vs soup", 36, &rng);
    run_meshes(&st, &s1, &s1, "soup vs itself", 12, &rng);
    run_meshes(&st, &suz, &suz, "suzanne vs suzanne", 12, &rng);
    run_meshes(&st, &suz, &woody, "suzanne vs woody", 6, &rng);
    run_meshes(&st, &s2, &suz, "soup vs suzanne", 6, &rng);
    fprintf(stderr, "  %zu placements, %zu clearance pairs, %zu in the band, %zu failures\n", st.cases, st.pairs,
            st.band, st.failures);
    both_free(&suz);
    both_free(&woody);
    both_free(&s1);
    both_free(&s2);
    assert_true(st.cases > 0);
    assert_int_equal(st.failures, 0);
}

/* ---- shapes ---- */

static double brute_shape_tri(const mq_shape *q, const oracle_tri *t)
{
    switch (q->kind) {
    case MQ_SHAPE_SPHERE: {
        double d = sqrt(pt_tri2(oracle_v3_f(q->u.sphere.center), t));
        return fmax(d - q->u.sphere.radius, 0.0);
    }
    case MQ_SHAPE_CAPSULE: {
        double d = brute_seg_tri(oracle_v3_f(q->u.capsule.a), oracle_v3_f(q->u.capsule.b), t);
        return fmax(d - q->u.capsule.radius, 0.0);
    }
    default: {
        oracle_box b = q->kind == MQ_SHAPE_OBB ? oracle_box_from_obb(&q->u.obb) : oracle_box_from_aabb(&q->u.aabb);
        if (oracle_overlap_triangle_box(t, &b))
            return 0.0;
        double best = INFINITY;
        for (int v = 0; v < 3; v++) {
            best = fmin(best, oracle_dist2_point_box(t->v[v], &b, NULL));
            best = fmin(best, oracle_dist2_segment_box(t->v[v], t->v[(v + 1) % 3], &b, NULL));
        }
        oracle_v3 c[8];
        oracle_box_vertices(&b, c);
        for (int i = 0; i < 8; i++)
            for (int j = i + 1; j < 8; j++)
                if (__builtin_popcount((unsigned)(i ^ j)) == 1) { /* an edge of the box */
                    double d = brute_seg_tri(c[i], c[j], t);
                    best = fmin(best, d * d);
                }
        return sqrt(best);
    }
    }
}

static bool shape_contains(const mq_shape *q, const double p[3], double tol)
{
    oracle_v3 x = oracle_v3_make(p[0], p[1], p[2]);
    switch (q->kind) {
    case MQ_SHAPE_SPHERE:
        return oracle_dist(x, oracle_v3_f(q->u.sphere.center)) <= q->u.sphere.radius + tol;
    case MQ_SHAPE_CAPSULE:
        return sqrt(oracle_dist2_point_segment_direct(x, oracle_v3_f(q->u.capsule.a), oracle_v3_f(q->u.capsule.b))) <=
               q->u.capsule.radius + tol;
    default: {
        oracle_box b = q->kind == MQ_SHAPE_OBB ? oracle_box_from_obb(&q->u.obb) : oracle_box_from_aabb(&q->u.aabb);
        return sqrt(oracle_dist2_point_box(x, &b, NULL)) <= tol;
    }
    }
}

static void shapes_match_brute_force(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xD157543A));
    both meshes[2];
    both_make(&meshes[0], mq_test_load_mesh("suzanne.obj"));
    both_make(&meshes[1], soup(&rng, 150));
    stats st = {0};
    mq_rigid id = {{1, 0, 0, 0}, {0, 0, 0}};
    size_t per = (size_t)(240 * PX_SCALE) + 8;
    for (int mi = 0; mi < 2; mi++) {
        both *m = &meshes[mi];
        placed pm;
        place_mesh(&m->tb, &id, &pm);
        double tol = 1e-6 * m->D;
        for (size_t i = 0; i < per; i++) {
            mq_shape q;
            mq_aabb grown = m->box;
            double spread = (i % 3) * 0.5 * m->D;
            for (int k = 0; k < 3; k++) {
                grown.min[k] -= (float)spread;
                grown.max[k] += (float)spread;
            }
            gen_shape_random(&rng, (mq_shape_kind)(i % 4), &grown, m->D, &q);
            double expect = INFINITY;
            uint32_t arg = 0;
            mq_aabb sb;
            gen_shape_bounds(&q, &sb);
            double slo[3] = {sb.min[0], sb.min[1], sb.min[2]}, shi[3] = {sb.max[0], sb.max[1], sb.max[2]};
            for (size_t t = 0; t < pm.n; t++)
                if (pm.ok[t] && gap(slo, shi, pm.lo[t], pm.hi[t]) <= expect) {
                    double d = brute_shape_tri(&q, &pm.t[t]);
                    if (d < expect) {
                        expect = d;
                        arg = (uint32_t)t;
                    }
                }
            (void)arg;
            mq_shape_distance_result r[2];
            bool f0 = mq_obbtree_shape_distance(m->obb, &q, NULL, &r[0]);
            bool f1 = mq_bvh_shape_distance(m->bvh, &q, NULL, &r[1]);
            st.cases++;
            for (int h = 0; h < 2; h++) {
                const char *tree = h ? "bvh" : "obbtree";
                if (!(h ? f1 : f0) || !r[h].found) {
                    FAIL(&st, "%s shape %zu (%s): nothing found, brute %.17g\n", tree, i, gen_shape_names[q.kind],
                         expect);
                    continue;
                }
                if (fabs(r[h].distance - expect) > tol)
                    FAIL(&st, "%s shape %zu (%s) mesh %d: %.17g, brute %.17g\n", tree, i, gen_shape_names[q.kind], mi,
                         r[h].distance, expect);
                if (r[h].triangle >= pm.n || pt_dist(r[h].point_mesh, &pm.t[r[h].triangle]) > tol ||
                    !shape_contains(&q, r[h].point_shape, tol) ||
                    fabs(dist3(r[h].point_shape, r[h].point_mesh) - r[h].distance) > tol)
                    FAIL(&st, "%s shape %zu (%s): bad witness (triangle %u)\n", tree, i, gen_shape_names[q.kind],
                         r[h].triangle);
            }
            /* clearance: every triangle within d */
            double d = expect + mq_test_rng_range(&rng, 0.0, 0.05) * m->D;
            size_t n0 = mq_obbtree_shape_clearance_array(m->obb, &q, d, NULL, 0);
            size_t n1 = mq_bvh_shape_clearance_array(m->bvh, &q, d, NULL, 0);
            mq_clearance_pair *got = malloc((n0 > n1 ? n0 : n1) * sizeof *got + 1);
            for (int h = 0; h < 2; h++) {
                size_t n = h ? mq_bvh_shape_clearance_array(m->bvh, &q, d, got, n1)
                             : mq_obbtree_shape_clearance_array(m->obb, &q, d, got, n0);
                qsort(got, n, sizeof *got, cmp_pair);
                size_t k = 0;
                for (size_t t = 0; t < pm.n; t++) {
                    if (!pm.ok[t] || gap(slo, shi, pm.lo[t], pm.hi[t]) > d + tol)
                        continue;
                    double bd = brute_shape_tri(&q, &pm.t[t]);
                    bool in = k < n && got[k].triangle_b == t;
                    if (in) {
                        if (got[k].triangle_a != MQ_NO_TRIANGLE || fabs(got[k].distance - bd) > tol)
                            FAIL(&st, "shape clearance %zu: triangle %zu at %.17g, brute %.17g\n", i, t,
                                 got[k].distance, bd);
                        k++;
                    }
                    if (in != (bd <= d)) {
                        if (fabs(bd - d) <= 1e-9 * m->D)
                            st.band++;
                        else
                            FAIL(&st, "shape clearance %zu (%s, %s): triangle %zu at %.17g, d %.17g: %s\n", i,
                                 h ? "bvh" : "obbtree", gen_shape_names[q.kind], t, bd, d, in ? "reported" : "missing");
                    }
                    st.pairs += bd <= d;
                }
                if (k != n)
                    FAIL(&st, "shape clearance %zu: %zu stray pairs\n", i, n - k);
            }
            if (mq_bvh_shape_clearance_any(m->bvh, &q, d) != (n1 > 0) ||
                mq_obbtree_shape_clearance_any(m->obb, &q, d) != (n0 > 0))
                FAIL(&st, "shape clearance_any %zu\n", i);
            free(got);
        }
        placed_free(&pm);
    }
    fprintf(stderr, "  %zu shapes, %zu clearance pairs, %zu in the band, %zu failures\n", st.cases, st.pairs, st.band,
            st.failures);
    both_free(&meshes[0]);
    both_free(&meshes[1]);
    assert_true(st.cases > 0);
    assert_int_equal(st.failures, 0);
}

/* ---- the internal walk under affine maps (scale, mirror), as the scene's clash detection calls it ---- */

static void place_affine(const gen_tri_boxes *tb, const mq_dist_side *s, placed *out)
{
    out->n = tb->count;
    out->t = malloc(tb->count * sizeof *out->t + 1);
    out->lo = malloc(tb->count * sizeof *out->lo + 1);
    out->hi = malloc(tb->count * sizeof *out->hi + 1);
    out->ok = malloc(tb->count * sizeof *out->ok + 1);
    for (size_t i = 0; i < tb->count; i++) {
        out->ok[i] = true;
        for (int v = 0; v < 3; v++) {
            const float *p = tb->tris[i].v[v];
            out->ok[i] = out->ok[i] && isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
            double w[3];
            for (int r = 0; r < 3; r++)
                w[r] = s->m[r][0] * p[0] + s->m[r][1] * p[1] + s->m[r][2] * p[2] + s->m[r][3];
            out->t[i].v[v] = oracle_v3_make(w[0], w[1], w[2]);
        }
        for (int k = 0; k < 3; k++) {
            double a = (&out->t[i].v[0].x)[k], b = (&out->t[i].v[1].x)[k], c = (&out->t[i].v[2].x)[k];
            out->lo[i][k] = fmin(fmin(a, b), c);
            out->hi[i][k] = fmax(fmax(a, b), c);
        }
    }
}

/* A random affine map: rotation q, per-axis scale in [0.5, 2] (a mirror sometimes), then t. */
static void random_affine(mq_test_rng *rng, const double t[3], double m[3][4])
{
    double q[4], s[3];
    mq_test_rng_quat(rng, q);
    for (int k = 0; k < 3; k++)
        s[k] = mq_test_rng_range(rng, 0.5, 2.0) * (mq_test_rng_unit(rng) < 0.2 ? -1.0 : 1.0);
    for (int c = 0; c < 3; c++) {
        oracle_v3 e = oracle_v3_make(c == 0, c == 1, c == 2);
        oracle_v3 r = rotate(q, oracle_mul(e, s[c]));
        m[0][c] = r.x;
        m[1][c] = r.y;
        m[2][c] = r.z;
    }
    for (int k = 0; k < 3; k++)
        m[k][3] = t[k];
}

static bool collect_dist(const mq_dist_pair *p, void *user)
{
    pair_list *l = user;
    mq_clearance_pair *c = &l->p[l->n++];
    c->triangle_a = p->triangle_a;
    c->triangle_b = p->triangle_b;
    c->distance = p->distance;
    memcpy(c->point_a, p->point_a, sizeof c->point_a);
    memcpy(c->point_b, p->point_b, sizeof c->point_b);
    return true;
}

static void internal_walk_affine_maps(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xD157AFF1));
    both m[2];
    both_make(&m[0], mq_test_load_mesh("suzanne.obj"));
    both_make(&m[1], soup(&rng, 90));
    stats st = {0};
    size_t count = (size_t)(40 * PX_SCALE) + 4;
    for (size_t i = 0; i < count; i++) {
        const both *a = &m[i % 2], *b = &m[(i / 2) % 2];
        double D = 2.0 * fmax(a->D, b->D); /* scales up to 2 */
        double ta[3], tb[3], u[3];
        mq_test_rng_unit_vector(&rng, u);
        double len = mq_test_rng_range(&rng, 0.0, 1.5) * D;
        for (int k = 0; k < 3; k++) {
            ta[k] = mq_test_rng_range(&rng, -0.1, 0.1) * D;
            tb[k] = ta[k] + u[k] * len;
        }
        mq_dist_side sa = {NULL, NULL, {{0}}, NULL, NULL, false}, sb = {NULL, NULL, {{0}}, NULL, NULL, false};
        random_affine(&rng, ta, sa.m);
        random_affine(&rng, tb, sb.m);
        placed pa, pb;
        place_affine(&a->tb, &sa, &pa);
        place_affine(&b->tb, &sb, &pb);
        double expect = brute_distance(&pa, &pb), tol = 1e-6 * D;
        char what[96];
        for (int h = 0; h < 4; h++) { /* every combination of hierarchies */
            sa.bvh = h & 1 ? a->bvh : NULL;
            sa.obbtree = h & 1 ? NULL : a->obb;
            sb.bvh = h & 2 ? b->bvh : NULL;
            sb.obbtree = h & 2 ? NULL : b->obb;
            mq_dist_pair p;
            st.cases++;
            snprintf(what, sizeof what, "affine #%zu trees %d", i, h);
            if (!mq_dist_walk_nearest(&sa, &sb, INFINITY, 0.0, 0.0, &p)) {
                FAIL(&st, "%s: nothing found, brute %.17g\n", what, expect);
                continue;
            }
            mq_distance_result r = {p.distance, {0}, {0}, p.triangle_a, p.triangle_b, true};
            memcpy(r.point_a, p.point_a, sizeof r.point_a);
            memcpy(r.point_b, p.point_b, sizeof r.point_b);
            check_result(&st, what, &r, expect, &pa, &pb, tol);
            /* every pair within d */
            double d = expect + mq_test_rng_range(&rng, 0.0, 0.002) * D;
            size_t cap = pa.n * pb.n;
            pair_list l = {malloc(cap * sizeof *l.p + 1), 0};
            size_t calls = mq_dist_walk_within(&sa, &sb, d, collect_dist, &l);
            if (calls != l.n)
                FAIL(&st, "%s: %zu calls, %zu pairs\n", what, calls, l.n);
            check_clearance(&st, what, l.p, l.n, &pa, &pb, d, tol, 1e-9 * D);
            free(l.p);
        }
        placed_free(&pa);
        placed_free(&pb);
    }
    fprintf(stderr, "  %zu affine walks, %zu pairs within d, %zu in the band, %zu failures\n", st.cases, st.pairs,
            st.band, st.failures);
    both_free(&m[0]);
    both_free(&m[1]);
    assert_true(st.cases > 0);
    assert_int_equal(st.failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mesh_mesh_matches_brute_force),
        cmocka_unit_test(shapes_match_brute_force),
        cmocka_unit_test(internal_walk_affine_maps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
