/*
 * Sphere and capsule casts (meshquery/casts.h) vs a double-precision oracle
 * that shares nothing with the implementation's method: for each triangle,
 * the distance from the moving shape, f(t) = dist(shape(t), T), is convex in
 * t (the distance from t*dir to the convex set T - shape), so its first time
 * at radius rho is found by golden-section minimisation and bisection
 * (oracle_dist2_point_triangle_direct / oracle_dist2_segment_triangle_direct,
 * in double). Casts are random on the test meshes (centres in the grown
 * bounds, radii log-uniform in [0.002 D, 0.05 D], motions up to D, half of
 * them aimed at a mesh vertex; zero radii and zero-length capsules included).
 *
 * Tolerance (documented in casts.h): the reported t must lie between the
 * oracle's times of impact for radii r_hi = r (1 + 1e-5) + 1e-5 S and
 * r_lo = r (1 - 1e-5) - 1e-5 S (S: the largest coordinate magnitude), each
 * +-1e-6 relative in t; the reported triangle must be at distance within
 * [r_lo, r_hi] of the shape at t (<= r_hi for t = 0); the normal is unit and
 * points from the contact point towards the shape; the BVH and the OBB tree
 * give the same t and the same triangle. Solids: winding numbers and signed
 * distances on the closed test meshes vs a brute-force generalized winding
 * number in double (winding_matches_gwn). MQ_TEST_SEED changes the casts;
 * MQ_CAST_QUERIES the number of sphere casts per mesh (capsules: a third).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <meshquery/casts.h>

#include "oracle.h"
#include "test_diff_obbtree_common.h"

typedef struct cast {
    oracle_v3 a, b; /* segment at t = 0 (a == b: sphere) */
    oracle_v3 d;
    double tmax;
} cast;

typedef struct fctx {
    const cast *c;
    const oracle_tri *t;
    bool sphere;
} fctx;

static double dist_at(double t, const void *p)
{
    const fctx *f = p;
    oracle_v3 a = oracle_madd(f->c->a, f->c->d, t);
    if (f->sphere)
        return sqrt(oracle_dist2_point_triangle_direct(a, f->t));
    oracle_v3 b = oracle_madd(f->c->b, f->c->d, t);
    return sqrt(oracle_dist2_segment_triangle_direct(a, b, f->t));
}

/* First t in [0, w] with dist(t) <= rho, or INFINITY. */
static double first_time(const fctx *f, double rho, double w)
{
    if (dist_at(0.0, f) <= rho)
        return 0.0;
    if (!(w > 0.0))
        return INFINITY;
    double tm;
    double fm = oracle_golden_min(dist_at, f, 0.0, w, 1e-13, &tm);
    if (dist_at(w, f) < fm) {
        fm = dist_at(w, f);
        tm = w;
    }
    if (fm > rho)
        return INFINITY;
    double lo = 0.0, hi = tm; /* dist(lo) > rho >= dist(hi) */
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
        double m = 0.5 * (lo + hi);
        if (dist_at(m, f) <= rho)
            hi = m;
        else
            lo = m;
    }
    return hi;
}

/* Cheap rigorous prefilter: the shape's centre ray over [0, w] against the
 * triangle's box grown by the shape's extent and rho. */
static bool may_touch(const cast *c, const mq_aabb *tb, double rho, double w)
{
    double t0 = 0.0, t1 = w;
    double o[3] = {0.5 * (c->a.x + c->b.x), 0.5 * (c->a.y + c->b.y), 0.5 * (c->a.z + c->b.z)};
    double h[3] = {0.5 * fabs(c->b.x - c->a.x), 0.5 * fabs(c->b.y - c->a.y), 0.5 * fabs(c->b.z - c->a.z)};
    double d[3] = {c->d.x, c->d.y, c->d.z};
    for (int k = 0; k < 3; k++) {
        double lo = tb->min[k] - h[k] - rho * 1.001 - 1e-9, hi = tb->max[k] + h[k] + rho * 1.001 + 1e-9;
        if (d[k] == 0.0) {
            if (o[k] < lo || o[k] > hi)
                return false;
            continue;
        }
        double ta = (lo - o[k]) / d[k], tb2 = (hi - o[k]) / d[k];
        if (ta > tb2) {
            double x = ta;
            ta = tb2;
            tb2 = x;
        }
        t0 = fmax(t0, ta);
        t1 = fmin(t1, tb2);
        if (t0 > t1)
            return false;
    }
    return true;
}

/* The oracle's time of impact for radius rho over [0, w]. */
static double oracle_toi(const gen_tri_boxes *tb, const oracle_tri *otris, const cast *c, bool sphere, double rho,
                         double w)
{
    double best = INFINITY;
    for (size_t i = 0; i < tb->count; i++) {
        if (!may_touch(c, &tb->boxes[i], rho, fmin(w, best)))
            continue;
        fctx f = {c, &otris[i], sphere};
        double t = first_time(&f, rho, fmin(w, best));
        best = fmin(best, t);
    }
    return best;
}

typedef struct tally {
    size_t casts, hits, initial, bad;
} tally;

static void check_cast(tally *ty, const gen_tri_boxes *tb, const oracle_tri *otris, const mq_bvh *bvh,
                       const mq_obbtree *tree, bool sphere, const mq_capsule *shape, const vec3 dir, float tmax,
                       double S, const char *mesh)
{
    mq_cast_hit hb, ho;
    bool gb, go;
    if (sphere) {
        mq_sphere s = {{shape->a[0], shape->a[1], shape->a[2]}, shape->radius};
        gb = mq_bvh_sphere_cast(bvh, &s, dir, tmax, &hb);
        go = mq_obbtree_sphere_cast(tree, &s, dir, tmax, &ho);
    } else {
        gb = mq_bvh_capsule_cast(bvh, shape, dir, tmax, &hb);
        go = mq_obbtree_capsule_cast(tree, shape, dir, tmax, &ho);
    }
    ty->casts++;
    ty->hits += gb;
    ty->initial += gb && hb.initially_overlapping;
    cast c = {oracle_v3_f(shape->a), oracle_v3_f(shape->b), oracle_v3_f(dir), tmax};
    double r = shape->radius, r_hi = r * (1 + 1e-5) + 1e-5 * S, r_lo = fmax(0.0, r * (1 - 1e-5) - 1e-5 * S);
    double tl = gb ? hb.t : INFINITY;
    double et = 1e-6 * (gb ? tl : tmax) + 1e-12;
    double w = fmin((double)tmax, tl + et);
    double t_early = oracle_toi(tb, otris, &c, sphere, r_hi, w); /* earliest plausible */
    double t_late = oracle_toi(tb, otris, &c, sphere, r_lo, w);  /* latest plausible (INF: beyond w) */
    const char *why = NULL;
    if (gb != go || (gb && (hb.t != ho.t || hb.triangle != ho.triangle)))
        why = "bvh and obb tree differ";
    else if (gb && tl < t_early - et)
        why = "hit earlier than any shape of radius r_hi";
    else if (t_late < tl - et)
        why = "missed an earlier contact";
    else if (gb) {
        fctx f = {&c, &otris[hb.triangle], sphere};
        double dd = dist_at(tl, &f);
        oracle_v3 n = oracle_v3_f(hb.normal);
        if (dd > r_hi || (tl > 0.0 && dd < r_lo))
            why = "reported triangle not at distance r";
        else if (fabs(oracle_len(n) - 1.0) > 1e-5)
            why = "normal not unit";
        else if (!(hb.t >= 0.0f && hb.t <= tmax))
            why = "t outside [0, tmax]";
    }
    if (why && ty->bad++ < 10) {
        fprintf(stderr,
                "  CAST MISMATCH %s %s: %s\n    a %.9g %.9g %.9g b %.9g %.9g %.9g r %.9g dir %.9g %.9g %.9g "
                "tmax %.9g\n    got %d t %.9g tri %u (obb tree %d t %.9g tri %u); oracle [%.9g, %.9g]\n",
                mesh, sphere ? "sphere" : "capsule", why, (double)shape->a[0], (double)shape->a[1], (double)shape->a[2],
                (double)shape->b[0], (double)shape->b[1], (double)shape->b[2], r, (double)dir[0], (double)dir[1],
                (double)dir[2], (double)tmax, gb, tl, hb.triangle, go, (double)ho.t, ho.triangle, t_early, t_late);
    }
}

static size_t casts_per_mesh(void)
{
    const char *s = getenv("MQ_CAST_QUERIES");
    return s && *s ? (size_t)strtoul(s, NULL, 10) : (size_t)(600 * OBT_SCALE);
}

static void casts_match_oracle(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xCA570001));
    size_t per_mesh = casts_per_mesh(), bad = 0;
    for (size_t mi = 0; mi < OBT_MESH_COUNT; mi++) {
        mq_mesh *mesh = mq_test_load_mesh(obt_meshes[mi]);
        mq_aabb box;
        double D = gen_bounds(mesh, &box);
        double S = 0.0;
        for (int k = 0; k < 3; k++)
            S = fmax(S, fmax(fabs(box.min[k]), fabs(box.max[k])));
        S += D;
        gen_tri_boxes tb = gen_tri_boxes_make(mesh);
        oracle_tri *otris = malloc(tb.count * sizeof *otris + 1);
        for (size_t i = 0; i < tb.count; i++)
            otris[i] = oracle_tri_from_mq(&tb.tris[i]);
        mq_bvh *bvh;
        mq_obbtree *tree;
        mq_bvh_def def = mq_default_bvh_def();
        def.threads = 1;
        assert_int_equal(mq_bvh_build(mesh, &def, &bvh, NULL), MQ_OK);
        assert_int_equal(mq_obbtree_build(mesh, NULL, &tree, NULL), MQ_OK);
        for (int sphere = 1; sphere >= 0; sphere--) {
            tally ty = {0, 0, 0, 0};
            size_t n = sphere ? per_mesh : per_mesh / 3;
            mq_aabb grown = box;
            for (int k = 0; k < 3; k++) {
                grown.min[k] -= (float)(0.2 * D);
                grown.max[k] += (float)(0.2 * D);
            }
            for (size_t i = 0; i < n; i++) {
                mq_capsule c;
                gen_random_capsule(&rng, &grown, D, &c);
                if (sphere || i % 8 == 0)
                    memcpy(c.b, c.a, sizeof c.b); /* spheres; and zero-length capsules */
                if (i % 16 == 1)
                    c.radius = 0.0f;
                double u[3];
                mq_test_rng_unit_vector(&rng, u);
                double len = D * mq_test_rng_unit(&rng);
                vec3 dir = {(float)(u[0] * len), (float)(u[1] * len), (float)(u[2] * len)};
                if (i % 32 == 2)
                    dir[0] = dir[1] = 0.0f; /* axis-parallel motion */
                float tmax = (float)mq_test_rng_range(&rng, 0.0, 1.5);
                if (i % 2 == 1) { /* aimed at a vertex (every 8th exactly reaching it at tmax) */
                    const float *v = tb.tris[mq_test_rng_u64(&rng) % tb.count].v[0];
                    for (int k = 0; k < 3; k++)
                        dir[k] = v[k] - c.a[k];
                    tmax = i % 8 == 1 ? 1.0f : (float)mq_test_rng_range(&rng, 0.3, 1.5);
                }
                check_cast(&ty, &tb, otris, bvh, tree, sphere, &c, dir, tmax, S, obt_meshes[mi]);
            }
            fprintf(stderr, "  %-18s %-7s %zu casts: %zu hits (%zu initially overlapping), %zu mismatches\n",
                    obt_meshes[mi], sphere ? "sphere" : "capsule", ty.casts, ty.hits, ty.initial, ty.bad);
            bad += ty.bad;
        }
        mq_bvh_destroy(bvh);
        mq_obbtree_destroy(tree);
        free(otris);
        gen_tri_boxes_free(&tb);
        mq_mesh_destroy(mesh);
    }
    assert_int_equal(bad, 0);
}

/* Hand-made cases: exact answers on a unit square of two triangles in z = 0. */
static void casts_by_hand(void **state)
{
    (void)state;
    static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 5, 5, 5, 6, 6, 6, NAN, 0, 0};
    static const uint32_t idx[] = {0, 1, 2, 0, 2, 3, 4, 5, 5, 6, 0, 1};
    mq_mesh *m;
    assert_int_equal(mq_mesh_create(pos, 7, idx, 4, NULL, &m, NULL), MQ_OK);
    mq_bvh *bvh;
    mq_obbtree *tree;
    assert_int_equal(mq_bvh_build(m, NULL, &bvh, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(m, NULL, &tree, NULL), MQ_OK);
    mq_cast_hit h;
    /* straight down onto the face: t = (2 - 0.5) / 1 */
    mq_sphere s = {{0.25f, 0.5f, 2}, 0.5f};
    assert_true(mq_bvh_sphere_cast(bvh, &s, (vec3){0, 0, -1}, INFINITY, &h));
    assert_true(fabsf(h.t - 1.5f) < 1e-6f && h.triangle == 1 && !h.initially_overlapping);
    assert_true(fabsf(h.normal[2] - 1.0f) < 1e-6f && fabsf(h.point[2]) < 1e-6f);
    assert_true(mq_obbtree_sphere_cast(tree, &s, (vec3){0, 0, -1}, INFINITY, &h));
    assert_true(fabsf(h.t - 1.5f) < 1e-6f && h.triangle == 1);
    /* tmax too short */
    assert_false(mq_bvh_sphere_cast(bvh, &s, (vec3){0, 0, -1}, 1.4f, &h));
    assert_true(h.t == INFINITY && h.triangle == MQ_NO_TRIANGLE);
    /* sideways into the edge x = 1 from x = 3, in the plane: t = (3 - 1 - 0.5) / 2 */
    s = (mq_sphere){{3, 0.5f, 0}, 0.5f};
    assert_true(mq_bvh_sphere_cast(bvh, &s, (vec3){-2, 0, 0}, 10, &h));
    assert_true(fabsf(h.t - 0.75f) < 1e-6f && h.triangle == 0 && fabsf(h.normal[0] - 1) < 1e-6f);
    /* initially overlapping, and dir = 0 */
    s = (mq_sphere){{0.5f, 0.5f, 0.25f}, 0.5f};
    assert_true(mq_bvh_sphere_cast(bvh, &s, (vec3){0, 0, 0}, 1, &h));
    assert_true(h.t == 0.0f && h.initially_overlapping && h.triangle == 0);
    assert_true(fabsf(h.normal[2] - 1) < 1e-6f);
    s.center[2] = 2;
    assert_false(mq_bvh_sphere_cast(bvh, &s, (vec3){0, 0, 0}, 1, &h));
    /* a capsule lying flat, falling onto the square: t = 3 - 0.25 */
    mq_capsule c = {{-1, 0.5f, 3}, {2, 0.5f, 3}, 0.25f};
    assert_true(mq_bvh_capsule_cast(bvh, &c, (vec3){0, 0, -1}, 10, &h));
    assert_true(fabsf(h.t - 2.75f) < 1e-6f && fabsf(h.normal[2] - 1) < 1e-6f);
    assert_true(mq_obbtree_capsule_cast(tree, &c, (vec3){0, 0, -1}, 10, &h));
    assert_true(fabsf(h.t - 2.75f) < 1e-6f);
    /* the zero-area segment 5..6: a capsule moving sideways onto its end (6,6,6) */
    c = (mq_capsule){{6, 6, 8}, {6, 6, 9}, 0.5f};
    assert_true(mq_bvh_capsule_cast(bvh, &c, (vec3){0, 0, -1}, 10, &h));
    assert_true(fabsf(h.t - 1.5f) < 1e-6f && h.triangle == 2);
    /* invalid inputs */
    assert_false(mq_bvh_sphere_cast(bvh, &(mq_sphere){{0, 0, 2}, -1}, (vec3){0, 0, -1}, 10, &h));
    assert_false(mq_bvh_sphere_cast(bvh, &(mq_sphere){{0, 0, 2}, 1}, (vec3){0, NAN, -1}, 10, &h));
    assert_false(mq_bvh_sphere_cast(bvh, &(mq_sphere){{0, 0, 2}, 1}, (vec3){0, 0, -1}, -1, &h));
    assert_false(
        mq_obbtree_capsule_cast(tree, &(mq_capsule){{0, 0, 2}, {INFINITY, 0, 0}, 1}, (vec3){0, 0, -1}, 10, &h));
    assert_false(mq_bvh_capsule_cast(bvh, &c, (vec3){0, 0, -1}, NAN, NULL));
    mq_bvh_destroy(bvh);
    mq_obbtree_destroy(tree);
    mq_mesh_destroy(m);
}

/* ---- Solids: winding number and signed distance ------------------------------ */

/* Brute-force generalized winding number in double (Van Oosterom & Strackee's
 * solid angle of each triangle, summed, over 4 pi). */
static double gwn(const oracle_tri *t, size_t n, oracle_v3 p)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        oracle_v3 a = oracle_sub(t[i].v[0], p), b = oracle_sub(t[i].v[1], p), c = oracle_sub(t[i].v[2], p);
        double la = oracle_len(a), lb = oracle_len(b), lc = oracle_len(c);
        double det = oracle_dot(a, oracle_cross(b, c));
        double den = la * lb * lc + oracle_dot(a, b) * lc + oracle_dot(b, c) * la + oracle_dot(c, a) * lb;
        sum += 2.0 * atan2(det, den);
    }
    return sum / (4.0 * 3.14159265358979323846);
}

/* On the closed test meshes (spot, cow, fandisk: every edge, welded by
 * position, shared by two opposite half-edges): random points in the grown
 * bounds and points just off the surface (a vertex moved by +-1e-3 D along a
 * random direction). Where the brute-force distance exceeds 1e-6 D the GWN
 * is an integer to 1e-6; both hierarchies' winding numbers must equal it, and
 * the signed distance must be the closest-point distance with the sign of
 * (winding != 0). */
static void winding_matches_gwn(void **state)
{
    (void)state;
    static const char *const closed[] = {"spot.obj", "cow.obj", "fandisk.obj"};
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xCA570002));
    size_t points = (size_t)(1500 * OBT_SCALE), bad = 0;
    for (size_t mi = 0; mi < 3; mi++) {
        mq_mesh *mesh = mq_test_load_mesh(closed[mi]);
        mq_aabb box;
        double D = gen_bounds(mesh, &box);
        gen_tri_boxes tb = gen_tri_boxes_make(mesh);
        oracle_tri *otris = malloc(tb.count * sizeof *otris + 1);
        for (size_t i = 0; i < tb.count; i++)
            otris[i] = oracle_tri_from_mq(&tb.tris[i]);
        mq_bvh *bvh;
        mq_obbtree *tree;
        assert_int_equal(mq_bvh_build(mesh, NULL, &bvh, NULL), MQ_OK);
        assert_int_equal(mq_obbtree_build(mesh, NULL, &tree, NULL), MQ_OK);
        size_t inside = 0, checked = 0;
        for (size_t i = 0; i < points; i++) {
            float p[3];
            if (i % 2) {
                const float *v = tb.tris[mq_test_rng_u64(&rng) % tb.count].v[i % 3];
                double u[3];
                mq_test_rng_unit_vector(&rng, u);
                for (int k = 0; k < 3; k++)
                    p[k] = (float)(v[k] + 1e-3 * D * u[k]);
            } else {
                for (int k = 0; k < 3; k++)
                    p[k] = (float)mq_test_rng_range(&rng, box.min[k] - 0.1 * D, box.max[k] + 0.1 * D);
            }
            oracle_v3 op = oracle_v3_f(p);
            double dmin = INFINITY;
            for (size_t t = 0; t < tb.count; t++)
                dmin = fmin(dmin, oracle_dist2_point_triangle_direct(op, &otris[t]));
            dmin = sqrt(dmin);
            if (dmin < 1e-6 * D)
                continue;
            checked++;
            double g = gwn(otris, tb.count, op);
            int w = (int)lround(g);
            int wb = mq_bvh_winding_number(bvh, p), wo = mq_obbtree_winding_number(tree, p);
            float sb, so;
            mq_point_hit cb, co;
            bool ok = fabs(g - w) < 1e-6 && wb == w && wo == w;
            ok = ok && mq_bvh_signed_distance(bvh, p, &sb, &cb) && mq_obbtree_signed_distance(tree, p, &so, &co);
            ok = ok && sb == (w ? -cb.distance : cb.distance) && so == sb && cb.triangle == co.triangle;
            ok = ok && fabs(fabs((double)sb) - dmin) <= 1e-5 * D;
            inside += w != 0;
            if (!ok && bad++ < 10)
                fprintf(stderr,
                        "  WINDING MISMATCH %s p %.9g %.9g %.9g: gwn %.9f, bvh %d, obb tree %d, sd %g / %g, dist %g\n",
                        closed[mi], (double)p[0], (double)p[1], (double)p[2], g, wb, wo, (double)sb, (double)so, dmin);
        }
        fprintf(stderr, "  %-18s winding: %zu points checked, %zu inside\n", closed[mi], checked, inside);
        mq_bvh_destroy(bvh);
        mq_obbtree_destroy(tree);
        free(otris);
        gen_tri_boxes_free(&tb);
        mq_mesh_destroy(mesh);
    }
    assert_int_equal(bad, 0);
    /* invalid inputs */
    assert_int_equal(mq_bvh_winding_number(NULL, (vec3){0, 0, 0}), 0);
    assert_false(mq_bvh_signed_distance(NULL, (vec3){0, 0, 0}, NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(casts_by_hand),
        cmocka_unit_test(casts_match_oracle),
        cmocka_unit_test(winding_matches_gwn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
