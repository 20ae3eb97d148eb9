/*
 * Ray tests against double-precision oracles: clipping by face planes (boxes),
 * closest approach + half chord (spheres), bisection on the signed distance
 * along the ray (capsules), Moller-Trumbore in double (triangles; the
 * implementation is Woop's watertight test), plane crossing in double.
 *
 * Hit / miss: a disagreement is tolerated only when the oracle's signed
 * separation of the ray SEGMENT [tmin, tmax] and the solid is within RAY_BAND *
 * scale (scale = largest |coordinate| of the origin and the shape). RAY_BAND is
 * 16 float ulps of the scale; the largest disagreement measured over 7 seeds x
 * 100k cases per predicate is 1.8e-7.
 *
 * Spans: rather than comparing t values (ill-conditioned for grazing rays), the
 * reported points are checked against the solid's signed distance phi along the
 * ray, which is convex: both ends of the reported span must lie within
 * RAY_TOL * scale of the surface (or be tmin / tmax), the span must contain
 * the deepest point of the true span, and a ray that starts (ends) deep inside
 * must report exactly tmin (tmax).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <meshquery/primitives.h>

#include "oracle.h"
#include "test_support.h"

#define RAY_BAND 1e-6
/* Positions of reported hits: 32 ulps of the scale (largest error measured over
 * 7 seeds: 6.7e-7, a grazing capsule hit). */
#define RAY_TOL 2e-6
#define N_CASES 100000

typedef oracle_run run;

static void strict(run *r, bool ok, const char *what)
{
    if (!oracle_stats_strict(&r->st, ok) && oracle_stats_should_print(&r->st)) {
        oracle_stats_printed(&r->st);
        printf("  STRICT FAILURE %s: %s\n", r->st.name, what);
    }
}

static void soft(run *r, bool ok, const char *what)
{
    if (!oracle_stats_soft(&r->st, ok))
        printf("  note %s: %s\n", r->st.name, what);
}

static double ray_scale(const mq_ray *ray, const oracle_hull *shape)
{
    return fmax(oracle_maxabs(oracle_v3_f(ray->origin)), oracle_hull_extent(shape)) + 1e-300;
}

/* Moves the ray so that its segment touches the shape, +- a small jitter. */
static void make_near(mq_test_rng *rng, mq_ray *ray, const oracle_hull *shape)
{
    oracle_ray r = oracle_ray_from_mq(ray);
    oracle_hull hr = oracle_hull_ray(&r, shape);
    oracle_translate_f(ray->origin, oracle_touch_shift(rng, shape, &hr, false, ray_scale(ray, shape)));
}

/* Signed distance of the solid along the ray. */
typedef struct phi_ctx {
    oracle_ray ray;
    double (*sdf)(oracle_v3 p, const void *shape);
    const void *shape;
} phi_ctx;

static double phi_at(double t, const void *vctx)
{
    const phi_ctx *c = vctx;
    return c->sdf(oracle_madd(c->ray.o, c->ray.d, t), c->shape);
}

/* True when the comparison passed; prints nothing. */
static bool check_hit_bool(run *r, oracle_distrib d, bool impl, bool orc, const mq_ray *ray, const oracle_hull *shape)
{
    double sep = 0.0;
    if (impl != orc) {
        oracle_ray o = oracle_ray_from_mq(ray);
        oracle_hull hr = oracle_hull_ray(&o, shape);
        sep = oracle_separation(&hr, shape, false, NULL);
    }
    bool ok = oracle_stats_bool(&r->st, d, impl, orc, sep, ray_scale(ray, shape));
    if (!ok && oracle_stats_should_print(&r->st))
        printf("  MISMATCH %s (%s): implementation %s, oracle %s, separation %.9g (scale %.6g)\n", r->st.name,
               oracle_dist_name(d), impl ? "hit" : "miss", orc ? "hit" : "miss", sep, ray_scale(ray, shape));
    return ok;
}

/*
 * Checks a reported span (see the file comment). o_t0 / o_t1: the oracle span,
 * when the oracle hits. Returns false (and counts) on a failure.
 */
static bool check_span(run *r, const mq_ray *ray, const mq_ray_span *sp, phi_ctx *pc, bool orc, double o_t0,
                       double o_t1, double scale)
{
    bool ok = true;
    double tol = RAY_TOL;
    double te = sp->t_enter, tx = sp->t_exit;
    /* ordered and clipped to [tmin, tmax]: the contract, exactly */
    ok =
        oracle_stats_strict(&r->st, ray->tmin <= sp->t_enter && sp->t_enter <= sp->t_exit && sp->t_exit <= ray->tmax) &&
        ok;
    double fe = phi_at(te, pc), fx = phi_at(tx, pc);
    /* both ends on or inside the solid, to tolerance */
    ok = oracle_stats_value(&r->st, fmax(fmax(fe, fx), 0.0) / scale, tol) && ok;
    /* an end that is not tmin / tmax is on the surface, not deep inside */
    if (te != ray->tmin)
        ok = oracle_stats_value(&r->st, fmax(-fe, 0.0) / scale, tol) && ok;
    if (tx != ray->tmax)
        ok = oracle_stats_value(&r->st, fmax(-fx, 0.0) / scale, tol) && ok;
    if (orc) {
        /* the deepest point of the true span is inside the reported one */
        double ts;
        double fs = oracle_golden_min(phi_at, pc, o_t0, o_t1, 1e-13, &ts);
        if (fs < -tol * scale)
            ok = oracle_stats_strict(&r->st, te <= ts && ts <= tx) && ok;
        /* starting (ending) deep inside reports exactly tmin (tmax) */
        if (isfinite(ray->tmin) && phi_at(ray->tmin, pc) < -tol * scale)
            ok = oracle_stats_strict(&r->st, sp->t_enter == ray->tmin) && ok;
        if (isfinite(ray->tmax) && phi_at(ray->tmax, pc) < -tol * scale)
            ok = oracle_stats_strict(&r->st, sp->t_exit == ray->tmax) && ok;
    }
    if (!ok && oracle_stats_should_print(&r->st))
        printf("  SPAN FAILURE %s: got [%.9g, %.9g] (phi %.3g, %.3g; scale %.3g), oracle %s [%.9g, "
               "%.9g]\n",
               r->st.name, te, tx, fe, fx, scale, orc ? "hit" : "miss", o_t0, o_t1);
    return ok;
}

/* ------------------------------------------------------------------------- */

static double sdf_box(oracle_v3 p, const void *b)
{
    return oracle_sdf_box(p, b);
}

typedef struct sphere_d {
    oracle_v3 c;
    double r;
} sphere_d;

static double sdf_sphere(oracle_v3 p, const void *vs)
{
    const sphere_d *s = vs;
    return oracle_dist(p, s->c) - s->r;
}

typedef struct capsule_d {
    oracle_v3 a, b;
    double r;
} capsule_d;

static double sdf_capsule(oracle_v3 p, const void *vc)
{
    const capsule_d *c = vc;
    return oracle_sdf_capsule(p, c->a, c->b, c->r);
}

static void diff_raycast_aabb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "raycast_aabb", RAY_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_aabb b;
        mq_ray ray;
        oracle_gen_aabb(&g, &b);
        oracle_box ob = oracle_box_from_aabb(&b);
        oracle_gen_ray(&g, ob.c, &ray);
        oracle_hull hb = oracle_hull_of_aabb(&b);
        if (d == ORACLE_NEAR)
            make_near(&r.rng, &ray, &hb);
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.3)) {
            /* parallel to a slab with the origin exactly on its boundary */
            int ax = (int)(mq_test_rng_u64(&r.rng) % 3);
            ray.dir[ax] = 0.0f;
            if (ray.dir[0] == 0.0f && ray.dir[1] == 0.0f && ray.dir[2] == 0.0f)
                ray.dir[(ax + 1) % 3] = 1.0f;
            ray.origin[ax] = (mq_test_rng_u64(&r.rng) & 1) ? b.max[ax] : b.min[ax];
        }
        oracle_ray orr = oracle_ray_from_mq(&ray);
        double t0 = 0, t1 = 0;
        bool orc = oracle_ray_aabb(&orr, oracle_v3_f(b.min), oracle_v3_f(b.max), &t0, &t1);
        mq_ray_span sp = {NAN, NAN};
        bool impl = mq_raycast_aabb(&ray, &b, &sp);
        bool ok = check_hit_bool(&r, d, impl, orc, &ray, &hb);
        ok = oracle_stats_strict(&r.st, mq_raycast_aabb(&ray, &b, NULL) == impl) && ok;
        phi_ctx pc = {orr, sdf_box, &ob};
        if (impl)
            ok = check_span(&r, &ray, &sp, &pc, orc, t0, t1, ray_scale(&ray, &hb)) && ok;
        if (!ok && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_ray("ray", &ray);
            oracle_print_aabb("box", &b);
        }
    }
    /* the documented parallel-slab rule, exactly: boundary included, one float step outside
     * excluded */
    mq_aabb box = {{0, 0, 0}, {1, 1, 1}};
    mq_ray on = {{0, 0.5f, -1}, 0, {0, 0, 1}, INFINITY}, on2 = {{1, 1, -1}, 0, {0, 0, 2}, INFINITY};
    mq_ray off = {{-0x1p-149f, 0.5f, -1}, 0, {0, 0, 1}, INFINITY};
    mq_ray_span sp;
    strict(&r, mq_raycast_aabb(&on, &box, &sp) && sp.t_enter == 1.0f && sp.t_exit == 2.0f,
           "ray parallel to a slab with origin on its boundary (expected [1, 2])");
    strict(&r, mq_raycast_aabb(&on2, &box, &sp), "ray along a box edge");
    strict(&r, !mq_raycast_aabb(&off, &box, &sp), "ray parallel to a slab, one denormal outside it");
    /* flat box: hit where crossed */
    mq_aabb flat = {{0, 0, 0.5f}, {1, 1, 0.5f}};
    mq_ray down = {{0.25f, 0.5f, 2}, 0, {0, 0, -1}, INFINITY};
    strict(&r, mq_raycast_aabb(&down, &flat, &sp) && sp.t_enter == 1.5f && sp.t_exit == 1.5f, "flat box crossing");
    mq_ray inside = {{0.5f, 0.5f, 0.5f}, -2, {1, 0, 0}, 0.25f};
    strict(&r, mq_raycast_aabb(&inside, &box, &sp) && sp.t_enter == -0.5f && sp.t_exit == 0.25f,
           "segment ending inside (expected [-0.5, tmax])");
    mq_aabb empty = {{0, 0, 0}, {1, -1, 1}};
    strict(&r, !mq_raycast_aabb(&down, &empty, &sp), "empty box hit");
    mq_ray bad[] = {{{0, 0, 0}, 0, {0, 0, 0}, INFINITY},
                    {{NAN, 0, 0}, 0, {1, 0, 0}, 1},
                    {{0.5f, 0.5f, 0.5f}, 1, {1, 0, 0}, 0},
                    {{0.5f, 0.5f, 0.5f}, 0, {1, 0, 0}, NAN}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        strict(&r, !mq_raycast_aabb(&bad[k], &box, &sp), "invalid ray hits");
    oracle_run_finish(&r);
}

static void diff_raycast_obb(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "raycast_obb", RAY_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_obb b;
        mq_ray ray;
        oracle_gen_obb(&g, &b);
        oracle_box ob = oracle_box_from_obb(&b);
        oracle_gen_ray(&g, ob.c, &ray);
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.3)) {
            /* along (float rounding of) a box axis: parallel to four faces */
            oracle_v3 ax = ob.ax[mq_test_rng_u64(&r.rng) % 3];
            oracle_v3 o = oracle_madd(oracle_v3_f(ray.origin), ax, 0.0);
            oracle_v3_to_f(oracle_mul(ax, oracle_len(oracle_v3_f(ray.dir))), ray.dir);
            oracle_v3_to_f(o, ray.origin);
        }
        oracle_hull hb = oracle_hull_of_obb(&b);
        if (d == ORACLE_NEAR)
            make_near(&r.rng, &ray, &hb);
        oracle_ray orr = oracle_ray_from_mq(&ray);
        double t0 = 0, t1 = 0;
        bool orc = oracle_ray_box(&orr, &ob, &t0, &t1);
        mq_ray_span sp = {NAN, NAN};
        bool impl = mq_raycast_obb(&ray, &b, &sp);
        bool ok = check_hit_bool(&r, d, impl, orc, &ray, &hb);
        ok = oracle_stats_strict(&r.st, mq_raycast_obb(&ray, &b, NULL) == impl) && ok;
        phi_ctx pc = {orr, sdf_box, &ob};
        if (impl)
            ok = check_span(&r, &ray, &sp, &pc, orc, t0, t1, ray_scale(&ray, &hb)) && ok;
        if (!ok && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_ray("ray", &ray);
            oracle_print_obb("box", &b);
        }
    }
    /* world axes, exact coordinates: the same answers as the AABB version (documented) */
    mq_obb box = {{0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    mq_aabb abox = {{0, 0, 0}, {1, 1, 1}};
    mq_ray rays[] = {{{0, 0.5f, -1}, 0, {0, 0, 1}, INFINITY},    {{1, 1, -1}, 0, {0, 0, 2}, INFINITY},
                     {{0.5f, 0.5f, 0.5f}, -2, {1, 0, 0}, 0.25f}, {{-1, 0.25f, 0.75f}, 0, {1, 0, 0}, INFINITY},
                     {{2, 2, 2}, 0, {-1, -1, -1}, INFINITY},     {{1.5f, 0.5f, 0.5f}, 0, {1, 0, 0}, INFINITY}};
    for (size_t k = 0; k < sizeof rays / sizeof rays[0]; k++) {
        mq_ray_span so = {NAN, NAN}, sa = {NAN, NAN};
        bool ho = mq_raycast_obb(&rays[k], &box, &so), ha = mq_raycast_aabb(&rays[k], &abox, &sa);
        strict(&r, ho == ha && (!ho || (so.t_enter == sa.t_enter && so.t_exit == sa.t_exit)),
               "world-axis OBB differs from the AABB on an exact case");
    }
    mq_obb skew = box;
    skew.axes[0][1] = 0.5f;
    mq_ray_span sp;
    strict(&r, !mq_raycast_obb(&rays[0], &skew, &sp), "non-orthonormal OBB hit");
    oracle_run_finish(&r);
}

static void diff_raycast_sphere(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "raycast_sphere", RAY_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_sphere s;
        mq_ray ray;
        oracle_gen_sphere(&g, &s);
        oracle_gen_ray(&g, oracle_v3_f(s.center), &ray);
        oracle_hull hs = oracle_hull_of_sphere(&s);
        if (d == ORACLE_NEAR)
            make_near(&r.rng, &ray, &hs);
        oracle_ray orr = oracle_ray_from_mq(&ray);
        double t0 = 0, t1 = 0;
        sphere_d sd = {oracle_v3_f(s.center), s.radius};
        bool orc = oracle_ray_sphere(&orr, sd.c, sd.r, &t0, &t1);
        mq_ray_span sp = {NAN, NAN};
        bool impl = mq_raycast_sphere(&ray, &s, &sp);
        bool ok = check_hit_bool(&r, d, impl, orc, &ray, &hs);
        ok = oracle_stats_strict(&r.st, mq_raycast_sphere(&ray, &s, NULL) == impl) && ok;
        phi_ctx pc = {orr, sdf_sphere, &sd};
        if (impl)
            ok = check_span(&r, &ray, &sp, &pc, orc, t0, t1, ray_scale(&ray, &hs)) && ok;
        if (!ok && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_ray("ray", &ray);
            oracle_print_sphere("sphere", &s);
        }
    }
    /* radius 0: hit through the centre (documented) */
    mq_sphere pt = {{1, 2, 3}, 0};
    mq_ray through[] = {{{1, 2, -5}, 0, {0, 0, 1}, INFINITY},
                        {{-3, 2, 3}, 0, {2, 0, 0}, INFINITY},
                        {{0, 1, 2}, 0, {1, 1, 1}, INFINITY},
                        {{1, 2, 3}, 0, {0, 1, 0}, 1}};
    mq_ray_span sp;
    for (size_t k = 0; k < sizeof through / sizeof through[0]; k++)
        strict(&r, mq_raycast_sphere(&through[k], &pt, &sp), "radius-0 sphere missed by a ray through its centre");
    mq_ray beside = {{1, 0x1.000002p+1f, -5}, 0, {0, 0, 1}, INFINITY};
    soft(&r, !mq_raycast_sphere(&beside, &pt, &sp), "radius-0 sphere hit by a ray one ulp beside its centre");
    mq_sphere unit = {{0, 0, 0}, 1};
    mq_ray in = {{0, 0, 0}, 0, {1, 0, 0}, INFINITY};
    strict(&r, mq_raycast_sphere(&in, &unit, &sp) && sp.t_enter == 0.0f, "origin inside: t_enter != tmin");
    mq_sphere neg = {{0, 0, 0}, -1};
    strict(&r, !mq_raycast_sphere(&in, &neg, &sp), "negative radius hit");
    oracle_run_finish(&r);
}

static void diff_raycast_capsule(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "raycast_capsule", RAY_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_capsule c;
        mq_ray ray;
        oracle_gen_capsule(&g, &c);
        capsule_d cd = {oracle_v3_f(c.a), oracle_v3_f(c.b), c.radius};
        oracle_gen_ray(&g, oracle_mul(oracle_add(cd.a, cd.b), 0.5), &ray);
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.3)) {
            /* parallel to the axis (within rounding): the cylinder's degenerate case */
            oracle_v3 ax = oracle_sub(cd.b, cd.a);
            if (oracle_len2(ax) > 0.0)
                oracle_v3_to_f(oracle_mul(oracle_normalize(ax), oracle_len(oracle_v3_f(ray.dir))), ray.dir);
        }
        oracle_hull hc = oracle_hull_of_capsule(&c);
        if (d == ORACLE_NEAR)
            make_near(&r.rng, &ray, &hc);
        oracle_ray orr = oracle_ray_from_mq(&ray);
        double t0 = 0, t1 = 0;
        bool orc = oracle_ray_capsule(&orr, cd.a, cd.b, cd.r, &t0, &t1);
        mq_ray_span sp = {NAN, NAN};
        bool impl = mq_raycast_capsule(&ray, &c, &sp);
        bool ok = check_hit_bool(&r, d, impl, orc, &ray, &hc);
        ok = oracle_stats_strict(&r.st, mq_raycast_capsule(&ray, &c, NULL) == impl) && ok;
        phi_ctx pc = {orr, sdf_capsule, &cd};
        if (impl)
            ok = check_span(&r, &ray, &sp, &pc, orc, t0, t1, ray_scale(&ray, &hc)) && ok;
        if (!ok && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            oracle_print_ray("ray", &ray);
            oracle_print_capsule("capsule", &c);
        }
    }
    mq_capsule c = {{0, 0, 0}, {0, 0, 4}, 1};
    mq_ray along = {{0, 0, -3}, 0, {0, 0, 1}, INFINITY}, side = {{-3, 0, 2}, 0, {1, 0, 0}, INFINITY};
    mq_ray_span sp;
    strict(&r, mq_raycast_capsule(&along, &c, &sp) && sp.t_enter == 2.0f && sp.t_exit == 8.0f,
           "ray along the capsule axis (expected [2, 8])");
    strict(&r, mq_raycast_capsule(&side, &c, &sp) && sp.t_enter == 2.0f && sp.t_exit == 4.0f,
           "ray across the cylinder (expected [2, 4])");
    oracle_run_finish(&r);
}

/* ------------------------------------------------------------------------- */

static void diff_raycast_triangle(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "raycast_triangle", RAY_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_triangle t;
        mq_ray ray;
        oracle_gen_triangle(&g, &t);
        oracle_tri ot = oracle_tri_from_mq(&t);
        oracle_v3 cen = oracle_mul(oracle_add(oracle_add(ot.v[0], ot.v[1]), ot.v[2]), 1.0 / 3.0);
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.5))
            cen = oracle_gen_point_near_triangle(&g, &t); /* through / beside a needle or tiny triangle */
        oracle_gen_ray(&g, cen, &ray);
        if (d == ORACLE_DEGEN && oracle_v3_finite(cen) && oracle_gen_chance(&g, 0.5)) {
            /* exactly at that point (to rounding), not just near it */
            oracle_v3 o = oracle_v3_f(ray.origin);
            oracle_v3_to_f(oracle_mul(oracle_normalize(oracle_sub(cen, o)), oracle_len(oracle_v3_f(ray.dir))), ray.dir);
        }
        oracle_hull ht = oracle_hull_of_triangle(&t);
        bool coplanar = false;
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.2)) {
            /* exactly in the triangle's plane: z = const, dir.z = 0 */
            for (int k = 0; k < 3; k++)
                t.v[k][2] = t.v[0][2];
            ray.origin[2] = t.v[0][2];
            ray.dir[2] = 0.0f;
            if (ray.dir[0] == 0.0f && ray.dir[1] == 0.0f)
                ray.dir[0] = 1.0f;
            ot = oracle_tri_from_mq(&t);
            ht = oracle_hull_of_triangle(&t);
            coplanar = true;
        }
        if (d == ORACLE_NEAR)
            make_near(&r.rng, &ray, &ht);
        oracle_ray orr = oracle_ray_from_mq(&ray);
        double ot_t = 0, ou = 0, ov = 0;
        bool oback = false;
        bool orc = oracle_ray_triangle(&orr, &ot, &ot_t, &ou, &ov, &oback);
        mq_triangle_hit h = {NAN, NAN, NAN, false};
        bool impl = mq_raycast_triangle(&ray, &t, &h);
        bool ok = check_hit_bool(&r, d, impl, orc, &ray, &ht);
        ok = oracle_stats_strict(&r.st, mq_raycast_triangle(&ray, &t, NULL) == impl) && ok;
        /* zero area and in-plane rays never hit: the contract, exactly */
        oracle_v3 n = oracle_cross(oracle_sub(ot.v[1], ot.v[0]), oracle_sub(ot.v[2], ot.v[0]));
        bool zero_area =
            (t.v[0][0] == t.v[1][0] && t.v[0][1] == t.v[1][1] && t.v[0][2] == t.v[1][2]) ||
            (t.v[0][0] == t.v[2][0] && t.v[0][1] == t.v[2][1] && t.v[0][2] == t.v[2][2]) ||
            (t.v[1][0] == t.v[2][0] && t.v[1][1] == t.v[2][1] && t.v[1][2] == t.v[2][2]) ||
            (t.v[0][1] == t.v[1][1] && t.v[1][1] == t.v[2][1] && t.v[0][2] == t.v[1][2] && t.v[1][2] == t.v[2][2]);
        if (zero_area || coplanar)
            ok = oracle_stats_strict(&r.st, !impl) && ok;
        if (impl) {
            double scale = ray_scale(&ray, &ht);
            double tol = RAY_TOL;
            ok = oracle_stats_strict(&r.st, ray.tmin <= h.t && h.t <= ray.tmax) && ok;
            /* How steeply the ray meets the plane: a grazing ray's hit point slides
             * along the plane by rounding / sin, so in-plane positions are compared
             * to tolerance / sin. Off-plane errors stay within the tolerance. */
            double sn = fabs(oracle_dot(oracle_normalize(n), oracle_normalize(orr.d)));
            /* t names a point on the plane */
            oracle_v3 pr = oracle_madd(orr.o, orr.d, h.t);
            ok = oracle_stats_value(&r.st, fabs(oracle_dot(oracle_normalize(n), oracle_sub(pr, ot.v[0]))) / scale,
                                    tol) &&
                 ok;
            /* t and (u, v) name the same point, and it is on the triangle */
            oracle_v3 pb =
                oracle_add(oracle_add(oracle_mul(ot.v[0], 1.0 - (double)h.u - (double)h.v), oracle_mul(ot.v[1], h.u)),
                           oracle_mul(ot.v[2], h.v));
            ok = oracle_stats_value(&r.st, oracle_dist(pr, pb) * sn / scale, tol) && ok;
            double off = 0.0;
            if (h.u < 0 || h.v < 0 || h.u + h.v > 1)
                off = sqrt(oracle_dist2_point_triangle(pb, &ot, NULL, NULL));
            ok = oracle_stats_value(&r.st, off * sn / scale, tol) && ok;
            if (orc) {
                /* the same point as the oracle's */
                oracle_v3 po = oracle_madd(orr.o, orr.d, ot_t);
                ok = oracle_stats_value(&r.st, oracle_dist(pb, po) * fmax(sn, 1e-300) / scale, tol) && ok;
                if (sn > 1e-4)
                    ok = oracle_stats_strict(&r.st, h.back_face == oback) && ok;
            }
        }
        if (!ok && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            /* aspect: twice the area over the longest edge squared (~1 for a fat triangle,
             * 1e-7 for a sliver); steepness: sin of the angle between ray and plane */
            double le =
                fmax(oracle_dist(ot.v[0], ot.v[1]), fmax(oracle_dist(ot.v[1], ot.v[2]), oracle_dist(ot.v[2], ot.v[0])));
            double thin = oracle_len(n) / fmax(le * le, 1e-300);
            double steep = fabs(oracle_dot(oracle_normalize(n), oracle_normalize(orr.d)));
            printf("  FAILURE raycast_triangle (%s): got %d t %.9g u %.9g v %.9g back %d; oracle "
                   "%d t %.9g u %.9g v "
                   "%.9g back %d; aspect %.3g steepness %.3g\n",
                   oracle_dist_name(d), impl, h.t, h.u, h.v, h.back_face, orc, ot_t, ou, ov, oback, thin, steep);
            oracle_print_ray("ray", &ray);
            oracle_print_tri("tri", &t);
        }
    }
    oracle_run_finish(&r);
}

/*
 * Watertightness (documented): a ray from inside a closed mesh leaves through
 * at least one triangle, even when aimed exactly (to float rounding) at a
 * shared vertex or edge. Closed meshes: random tetrahedra and octahedra.
 */
static void watertight_closed_meshes(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "raycast_triangle_watertight", 0.0, N_CASES);
    static const int tet[4][3] = {{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {2, 3, 0}};
    static const int oct[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                                  {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    long misses = 0;
    for (long i = 0; i < r.n; i++) {
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng,
                         (oracle_distrib)(i % ORACLE_DIST_COUNT == ORACLE_SCALE ? ORACLE_SCALE : ORACLE_GENERIC));
        bool octa = i % 2;
        int nt = octa ? 8 : 4;
        const int(*idx)[3] = octa ? oct : tet;
        oracle_v3 v[6];
        oracle_v3 c = g.center;
        if (octa) {
            for (int k = 0; k < 6; k++) {
                double s = (k % 2 ? -1.0 : 1.0) * g.size * mq_test_rng_range(&r.rng, 0.5, 1.5);
                oracle_v3 e = oracle_v3_make(k / 2 == 0, k / 2 == 1, k / 2 == 2);
                v[k] = oracle_v3_round(
                    oracle_add(oracle_madd(c, e, s), oracle_mul(oracle_v3_make(mq_test_rng_range(&r.rng, -0.1, 0.1),
                                                                               mq_test_rng_range(&r.rng, -0.1, 0.1),
                                                                               mq_test_rng_range(&r.rng, -0.1, 0.1)),
                                                                g.size)));
            }
        } else {
            for (int k = 0; k < 4; k++) {
                double u[3];
                mq_test_rng_unit_vector(&r.rng, u);
                v[k] = oracle_v3_round(oracle_madd(c, oracle_v3_make(u[0], u[1], u[2]), g.size));
            }
            double vol =
                fabs(oracle_dot(oracle_sub(v[1], v[0]), oracle_cross(oracle_sub(v[2], v[0]), oracle_sub(v[3], v[0]))));
            if (vol < 0.2 * g.size * g.size * g.size) {
                i--; /* too flat to have a well-inside point: draw again */
                continue;
            }
        }
        mq_triangle tris[8];
        for (int k = 0; k < nt; k++) {
            bool flip = mq_test_rng_u64(&r.rng) & 1; /* both faces count: winding must not matter */
            for (int j = 0; j < 3; j++)
                oracle_v3_to_f(v[idx[k][flip ? 2 - j : j]], tris[k].v[j]);
        }
        /* origin well inside: a convex combination of the vertices with every
         * weight >= 0.1 (a tetrahedron), or the centre nudged by far less than
         * the inradius (an octahedron, whose vertices are >= 0.5 size away) */
        oracle_v3 o = oracle_v3_make(0, 0, 0);
        if (octa) {
            o = oracle_madd(c,
                            oracle_v3_make(mq_test_rng_range(&r.rng, -1, 1), mq_test_rng_range(&r.rng, -1, 1),
                                           mq_test_rng_range(&r.rng, -1, 1)),
                            0.02 * g.size);
        } else {
            double w[4], sum = 0.0;
            for (int k = 0; k < 4; k++)
                sum += w[k] = mq_test_rng_range(&r.rng, 1.0, 2.0);
            for (int k = 0; k < 4; k++)
                o = oracle_madd(o, v[k], w[k] / sum);
        }
        /* target: a vertex, or a point of an edge */
        oracle_v3 target;
        const int *tri = idx[mq_test_rng_u64(&r.rng) % nt];
        int e = (int)(mq_test_rng_u64(&r.rng) % 3);
        if (mq_test_rng_u64(&r.rng) % 3 == 0)
            target = v[tri[e]];
        else
            target = oracle_madd(v[tri[e]], oracle_sub(v[tri[(e + 1) % 3]], v[tri[e]]),
                                 (mq_test_rng_u64(&r.rng) & 1) ? 0.5 : mq_test_rng_unit(&r.rng));
        mq_ray ray;
        oracle_v3_to_f(o, ray.origin);
        oracle_v3 dir = oracle_sub(target, oracle_v3_f(ray.origin));
        oracle_v3_to_f(oracle_mul(dir, oracle_log_uniform(&r.rng, 0.1, 10.0)), ray.dir);
        ray.tmin = 0.0f;
        ray.tmax = INFINITY;
        int hits = 0;
        for (int k = 0; k < nt; k++) {
            mq_triangle_hit h;
            hits += mq_raycast_triangle(&ray, &tris[k], &h);
        }
        oracle_stats_case(&r.st, g.dist);
        if (!oracle_stats_strict(&r.st, hits >= 1)) {
            misses++;
            if (oracle_stats_should_print(&r.st)) {
                oracle_stats_printed(&r.st);
                printf("  LEAK: ray from inside a closed %s hit none of its triangles\n",
                       octa ? "octahedron" : "tetrahedron");
                oracle_print_ray("ray", &ray);
                for (int k = 0; k < nt; k++)
                    oracle_print_tri("tri", &tris[k]);
            }
        }
    }
    printf("[diff] raycast_triangle watertight: %ld rays from inside closed meshes aimed at "
           "vertices / edges, %ld leaked\n",
           r.st.cases, misses);
    assert_int_equal(r.st.strict_failures, 0);
}

/* ------------------------------------------------------------------------- */

static void diff_raycast_plane(void **state)
{
    (void)state;
    run r;
    oracle_run_init(&r, "raycast_plane", RAY_BAND, N_CASES);
    for (long i = 0; i < r.n; i++) {
        oracle_distrib d = (oracle_distrib)(i % ORACLE_DIST_COUNT);
        oracle_gen g;
        oracle_gen_begin(&g, &r.rng, d);
        mq_plane pl;
        mq_ray ray;
        oracle_v3 p0 = oracle_gen_pos(&g);
        double u[3];
        mq_test_rng_unit_vector(&r.rng, u);
        oracle_v3 nrm = oracle_mul(oracle_v3_make(u[0], u[1], u[2]), oracle_log_uniform(&r.rng, 1e-2, 1e2));
        bool exact_in_plane = false;
        if (d == ORACLE_DEGEN && oracle_gen_chance(&g, 0.5))
            nrm = oracle_v3_make(0, 0, (mq_test_rng_u64(&r.rng) & 1) ? 2.0 : -0.5); /* exact axis normal */
        oracle_v3_to_f(nrm, pl.normal);
        pl.d = (float)oracle_dot(oracle_v3_f(pl.normal), p0);
        oracle_gen_ray(&g, p0, &ray);
        if (d == ORACLE_DEGEN && pl.normal[0] == 0.0f && pl.normal[1] == 0.0f) {
            ray.dir[2] = 0.0f; /* parallel, exactly */
            if (ray.dir[0] == 0.0f && ray.dir[1] == 0.0f)
                ray.dir[0] = 1.0f;
            if (oracle_gen_chance(&g, 0.5)) {
                /* and in the plane, exactly: z = d / nz with a power-of-two nz */
                ray.origin[2] = pl.d / pl.normal[2];
                exact_in_plane = (double)ray.origin[2] * pl.normal[2] == pl.d;
            }
        }
        if (d == ORACLE_NEAR) {
            /* put the far end (or the start) of the segment near the plane */
            oracle_ray o = oracle_ray_from_mq(&ray);
            oracle_v3 n = oracle_v3_f(pl.normal);
            double nd = oracle_dot(n, o.d);
            if (nd != 0.0) {
                double tc = (pl.d - oracle_dot(n, o.o)) / nd;
                double jit = oracle_jitter(&r.rng, 1.0);
                if (oracle_gen_chance(&g, 0.5)) {
                    ray.tmax = (float)(tc * (1.0 + jit));
                    if (ray.tmax < ray.tmin)
                        ray.tmin = ray.tmax;
                } else {
                    ray.tmin = (float)(tc * (1.0 + jit));
                    if (ray.tmax < ray.tmin)
                        ray.tmax = ray.tmin;
                }
            }
        }
        oracle_ray orr = oracle_ray_from_mq(&ray);
        oracle_v3 n = oracle_v3_f(pl.normal);
        double nl = oracle_len(n);
        double ot = 0.0;
        bool orc = oracle_ray_plane(&orr, n, pl.d, &ot);
        float t = NAN;
        bool impl = mq_raycast_plane(&ray, &pl, &t);
        double scale = fmax(oracle_maxabs(orr.o), fabs(pl.d) / nl);
        if (isfinite(orr.tmin))
            scale = fmax(scale, oracle_maxabs(oracle_madd(orr.o, orr.d, orr.tmin)));
        scale += 1e-300;
        /* separation of the segment from the plane: signed distances of its ends */
        double nd = oracle_dot(n, orr.d);
        double f0 = (oracle_dot(n, orr.o) - pl.d) / nl;
        double fa = isfinite(orr.tmin) ? f0 + orr.tmin * nd / nl : (nd == 0.0 ? f0 : -copysign(INFINITY, nd));
        double fb = isfinite(orr.tmax) ? f0 + orr.tmax * nd / nl : (nd == 0.0 ? f0 : copysign(INFINITY, nd));
        double sep =
            (fa <= 0.0) != (fb <= 0.0) || fa == 0.0 || fb == 0.0 ? -fmin(fabs(fa), fabs(fb)) : fmin(fabs(fa), fabs(fb));
        bool ok = oracle_stats_bool(&r.st, d, impl, orc, sep, scale);
        if (!ok && oracle_stats_should_print(&r.st))
            printf("  MISMATCH raycast_plane (%s): implementation %d, oracle %d, separation %.9g "
                   "(scale %.3g)\n",
                   oracle_dist_name(d), impl, orc, sep, scale);
        ok = oracle_stats_strict(&r.st, mq_raycast_plane(&ray, &pl, NULL) == impl) && ok;
        if (exact_in_plane)
            ok = oracle_stats_strict(&r.st, impl && t == ray.tmin) && ok;
        if (impl) {
            ok = oracle_stats_strict(&r.st, ray.tmin <= t && t <= ray.tmax) && ok;
            double ft = (oracle_dot(n, oracle_madd(orr.o, orr.d, t)) - pl.d) / nl;
            ok = oracle_stats_value(&r.st, fabs(ft) / scale, RAY_TOL) && ok;
        }
        if (!ok && oracle_stats_should_print(&r.st)) {
            oracle_stats_printed(&r.st);
            printf("  FAILURE raycast_plane: got %d t %.9g, oracle %d t %.9g\n", impl, t, orc, ot);
            oracle_print_ray("ray", &ray);
            printf("    plane: normal {%a, %a, %a} d %a\n", pl.normal[0], pl.normal[1], pl.normal[2], pl.d);
        }
    }
    mq_plane zero = {{0, 0, 0}, 0}, nanp = {{0, NAN, 1}, 0}, infd = {{0, 0, 1}, INFINITY};
    mq_ray down = {{0, 0, 1}, 0, {0, 0, -1}, INFINITY};
    float t;
    strict(&r,
           !mq_raycast_plane(&down, &zero, &t) && !mq_raycast_plane(&down, &nanp, &t) &&
               !mq_raycast_plane(&down, &infd, &t),
           "invalid plane hit");
    mq_plane z0 = {{0, 0, 4}, 0};
    mq_ray in = {{3, 4, 0}, -1.5f, {1, 1, 0}, 7}, par = {{3, 4, 0.5f}, 0, {1, 1, 0}, INFINITY};
    strict(&r, mq_raycast_plane(&in, &z0, &t) && t == -1.5f, "ray lying in the plane must hit at tmin");
    strict(&r, !mq_raycast_plane(&par, &z0, &t), "ray parallel to and off the plane hits");
    strict(&r, mq_raycast_plane(&down, &z0, &t) && t == 1.0f, "simple crossing");
    oracle_run_finish(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diff_raycast_aabb),     cmocka_unit_test(diff_raycast_obb),
        cmocka_unit_test(diff_raycast_sphere),   cmocka_unit_test(diff_raycast_capsule),
        cmocka_unit_test(diff_raycast_triangle), cmocka_unit_test(watertight_closed_meshes),
        cmocka_unit_test(diff_raycast_plane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
