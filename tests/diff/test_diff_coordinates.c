/*
 * Huge and tiny coordinates: a test mesh (suzanne) scaled by 1e-20 ... 1e+18
 * and translated by 1e6 times its size, sliver and zero-area triangles, rays
 * grazing the shared edges of a closed mesh (spot), rays lying in a triangle's
 * plane, and shapes of zero extent. The BVH and the OBB tree (raycasts,
 * overlaps, closest point) are checked against brute force:
 *
 *   - the OBB tree against its leaf primitives over every triangle, EXACTLY
 *     (obbtree.h: "Every query gives exactly the answer of its leaf primitive
 *     applied to every triangle"), for coordinates up to 1e18;
 *   - the BVH, the primitives and so the tree, against a double-precision
 *     brute force (tests/support/oracle.h and a plane/barycentric ray test
 *     here), within docs/robustness.md "Tolerances": a hit/miss decision may differ only
 *     within 2e-6 of the case's scale of the triangle's boundary (or of tmin /
 *     tmax), hit positions (t * |dir|) and distances agree within 2e-6 of the
 *     scale, overlap answers differ only within the band of their family
 *     (1e-6 round shapes, 1e-11 boxes) of touching. The scale is the largest
 *     |coordinate| of the case relative to the ray origin or query point
 *     (the BVH's documented frame: "coordinates relative to the ray origin");
 *   - the documented special cases: zero-area triangles are never hit by a
 *     ray; a ray in the plane of an axis-aligned triangle does not hit it; a
 *     ray through a shared edge of a closed mesh hits one of its triangles;
 *   - beyond 1e18 (obbtree.h: "a hit may be missed", no exactness
 *     promised) only what still holds for the OBB tree: no crash, a valid
 *     tree, every reported hit a real one, every reported overlap one the
 *     primitive accepts;
 *   - the BVH over its whole documented range (bvh.h: meshes of any float
 *     magnitude, 1e-35 ... 1e35 here, rays from near them): every check above
 *     strictly, its refit moving the mesh across magnitudes (the arena's scale
 *     is re-chosen) and the saved-file round trip of a scaled BVH.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "oracle.h"
#include "test_support.h"

#define BAND_POS 2e-6   /* Tolerances: distances, closest points, hit positions */
#define BAND_ROUND 1e-6 /* Tolerances: sphere and capsule overlaps */
#define BAND_BOX 1e-11  /* Tolerances: triangle-box */
/* The BVH's t was T / det in float, compared as in the BVH's own differential
 * tests (1e-5 of the scale); it is now recomputed in double after the
 * decision (bvh.h), so the hit position band (BAND_POS) applies. */
#define BAND_BVH_T BAND_POS

static const double scales[] = {1e-20, 1e-15, 1e-10, 1e-5, 1.0, 1e5, 1e10, 1e15, 1e18};
/* The BVH alone (the OBB tree promises 1e18 at most). */
static const double bvh_scales[] = {1e-35, 1e-30, 1e-25, 1e-20, 1e20, 1e25, 1e30, 1e35};
#define NSCALES (sizeof scales / sizeof scales[0])
#define PRINT_CAP 8

/*
 * Known library bugs: checks in these cases are run and counted but fail the
 * test only with MQ_TEST_KNOWN_BUGS=1. None is left: the BVH's float t
 * overflowing / underflowing with the coordinates and being off on slivers
 * (fixed by the arena's power-of-two scaling and the double-precision t of
 * the record, bvh.h), and the OBB tree's closest point on coordinates below
 * 1e-17 (fixed: it decides on the primitive's float squared distance but
 * prunes and reports with its double value). What remains is documented, not
 * a bug: mq_closest_point_triangle returns a FLOAT squared distance, which is
 * subnormal below ~1.2e-38 (primitives.h); its point is checked there.
 */
static bool known_bvh_t(double scale)
{
    (void)scale;
    return false;
}
static bool known_tiny(double scale)
{
    (void)scale;
    return false;
}

/* Set by bvh_wide_range: only the BVH's checks (beyond the OBB tree's range). */
static bool g_bvh_only;

typedef struct failures {
    const char *what;
    long checks, fails, known_checks, known_fails;
} failures;

static bool vrecord(failures *f, bool known, bool ok, const char *fmt, va_list ap)
{
    f->checks++;
    f->known_checks += known;
    if (ok)
        return true;
    long n = known ? f->known_fails++ : f->fails++;
    if (n < PRINT_CAP) {
        fprintf(stderr, "%s%s: ", known ? "KNOWN BUG " : "", f->what);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
    }
    return false;
}

static bool record(failures *f, bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool r = vrecord(f, false, ok, fmt, ap);
    va_end(ap);
    return r;
}

/* A check in a case of a known bug (see above). */
static bool record_k(failures *f, bool known, bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool r = vrecord(f, known, ok, fmt, ap);
    va_end(ap);
    return r;
}

static void finish(const failures *f)
{
    printf("%-30s %8ld checks, %ld failures; known-bug cases: %ld checks, %ld failures\n", f->what, f->checks, f->fails,
           f->known_checks, f->known_fails);
    assert_int_equal(f->fails, 0);
    const char *strict = getenv("MQ_TEST_KNOWN_BUGS");
    if (strict && atoi(strict))
        assert_int_equal(f->known_fails, 0);
}

/* ------------------------------------------------------------------------- */
/* Meshes                                                                    */
/* ------------------------------------------------------------------------- */

typedef struct src_mesh {
    double *pos; /* normalised: centred, largest half extent 0.5 */
    uint32_t *idx;
    size_t nv, nt;
} src_mesh;

/* data/<name>, normalised; a missing file fails the test. */
static void load_src(const char *name, src_mesh *out)
{
    mq_mesh *m = mq_test_load_mesh(name);
    out->nv = mq_mesh_vertex_count(m);
    out->nt = mq_mesh_triangle_count(m);
    out->pos = malloc(3 * out->nv * sizeof(double));
    out->idx = malloc(3 * out->nt * sizeof(uint32_t));
    const float *p = mq_mesh_positions(m);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < out->nv; i++)
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(lo[k], p[3 * i + k]), hi[k] = fmax(hi[k], p[3 * i + k]);
    double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    for (size_t i = 0; i < out->nv; i++)
        for (int k = 0; k < 3; k++)
            out->pos[3 * i + k] = (p[3 * i + k] - 0.5 * (lo[k] + hi[k])) / ext;
    memcpy(out->idx, mq_mesh_indices(m), 3 * out->nt * sizeof(uint32_t));
    mq_mesh_destroy(m);
}

static void free_src(src_mesh *s)
{
    free(s->pos);
    free(s->idx);
}

/* A placed copy: float positions s * p + off, its hierarchies and triangles. */
typedef struct placed {
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_obbtree *tree;
    mq_triangle *tri;
    size_t nt;
    double s, off[3];
    double lo[3], hi[3];
} placed;

static void place(const double *pos, size_t nv, const uint32_t *idx, size_t nt, double s, const double off[3],
                  placed *out)
{
    float *fp = malloc(3 * nv * sizeof(float));
    for (size_t i = 0; i < 3 * nv; i++)
        fp[i] = (float)(s * pos[i] + off[i % 3]);
    memset(out, 0, sizeof *out);
    assert_int_equal(mq_mesh_create(fp, nv, idx, nt, NULL, &out->mesh, NULL), MQ_OK);
    free(fp);
    mq_bvh_def bd = mq_default_bvh_def();
    bd.threads = 1;
    mq_diag d;
    assert_int_equal(mq_bvh_build(out->mesh, &bd, &out->bvh, &d), MQ_OK);
    assert_int_equal(mq_bvh_validate(out->bvh, &d), MQ_OK);
    assert_int_equal(mq_obbtree_build(out->mesh, NULL, &out->tree, &d), MQ_OK);
    out->nt = nt;
    out->tri = malloc(nt * sizeof *out->tri);
    for (int k = 0; k < 3; k++)
        out->lo[k] = INFINITY, out->hi[k] = -INFINITY;
    for (size_t i = 0; i < nt; i++) {
        mq_mesh_get_triangle(out->mesh, (uint32_t)i, &out->tri[i]);
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++) {
                out->lo[k] = fmin(out->lo[k], out->tri[i].v[c][k]);
                out->hi[k] = fmax(out->hi[k], out->tri[i].v[c][k]);
            }
    }
    out->s = s;
    memcpy(out->off, off, sizeof out->off);
}

static void unplace(placed *p)
{
    mq_obbtree_destroy(p->tree);
    mq_bvh_destroy(p->bvh);
    mq_mesh_destroy(p->mesh);
    free(p->tri);
}

/* Largest distance from `o` to a corner of the mesh's box: the case's scale for a query at o. */
static double scale_at(const placed *p, const float o[3])
{
    double m = 0.0;
    for (int k = 0; k < 3; k++)
        m = fmax(m, fmax(fabs(p->lo[k] - o[k]), fabs(p->hi[k] - o[k])));
    return m;
}

static void random_point_near(mq_test_rng *r, const placed *p, double grow, float out[3])
{
    for (int k = 0; k < 3; k++) {
        double e = p->hi[k] - p->lo[k];
        out[k] = (float)mq_test_rng_range(r, p->lo[k] - grow * e, p->hi[k] + grow * e);
    }
}

/* ------------------------------------------------------------------------- */
/* Double-precision ray vs triangle with boundary margins                    */
/* ------------------------------------------------------------------------- */

/* The ray's crossing of the triangle's plane: t, and the smallest signed
 * distance (world units, along the plane) from the crossing to the triangle's
 * edges (positive inside). False when the ray is parallel to the plane or the
 * triangle has zero area. */
typedef struct crossing {
    double t, margin, len; /* len: |dir| */
} crossing;

static bool ray_crossing(const mq_ray *ray, const mq_triangle *tri, crossing *out)
{
    oracle_v3 o = oracle_v3_f(ray->origin), d = oracle_v3_f(ray->dir);
    /* relative to the ray origin: the frame the BVH works in */
    oracle_v3 a = oracle_sub(oracle_v3_f(tri->v[0]), o), b = oracle_sub(oracle_v3_f(tri->v[1]), o),
              c = oracle_sub(oracle_v3_f(tri->v[2]), o);
    oracle_v3 n = oracle_cross(oracle_sub(b, a), oracle_sub(c, a));
    double n2 = oracle_len2(n);
    double dn = oracle_dot(d, n);
    if (n2 == 0.0 || !isfinite(n2) || dn == 0.0)
        return false;
    double t = oracle_dot(a, n) / dn;
    oracle_v3 x = oracle_mul(d, t);
    double nl = sqrt(n2), margin = INFINITY;
    const oracle_v3 v[3] = {a, b, c};
    for (int e = 0; e < 3; e++) {
        oracle_v3 p0 = v[e], p1 = v[(e + 1) % 3];
        oracle_v3 edge = oracle_sub(p1, p0);
        double el = oracle_len(edge);
        /* signed distance of x from the edge's line, inside positive */
        double sd = oracle_dot(oracle_cross(edge, oracle_sub(x, p0)), n) / nl / (el > 0.0 ? el : 1.0);
        margin = fmin(margin, sd);
    }
    out->t = t;
    out->margin = margin;
    out->len = oracle_len(d);
    return true;
}

/* What the double brute force says about a ray, with a tolerance `tol` (world units). */
typedef struct ray_truth {
    double strict_t; /* nearest crossing surely inside (margin > tol, t surely in range); INFINITY if none */
    double loose_t;  /* nearest crossing possibly inside; INFINITY if none */
} ray_truth;

static ray_truth ray_brute(const placed *p, const mq_ray *ray, double tol, crossing *cross, bool *has)
{
    ray_truth r = {INFINITY, INFINITY};
    for (size_t i = 0; i < p->nt; i++) {
        crossing c;
        has[i] = ray_crossing(ray, &p->tri[i], &c);
        if (!has[i])
            continue;
        cross[i] = c;
        double tt = tol / c.len;
        bool in_range_loose = c.t >= ray->tmin - tt && c.t <= ray->tmax + tt;
        bool in_range_strict = c.t >= ray->tmin + tt && c.t <= ray->tmax - tt;
        if (c.margin >= -tol && in_range_loose)
            r.loose_t = fmin(r.loose_t, fmax(c.t, ray->tmin));
        if (c.margin > tol && in_range_strict)
            r.strict_t = fmin(r.strict_t, c.t);
    }
    return r;
}

/* A reported hit (triangle k at t) agrees with the brute force within tol. */
static bool hit_plausible_t(const placed *p, const mq_ray *ray, double tol, const ray_truth *truth,
                            const crossing *cross, const bool *has, bool hit, uint32_t k, double t, bool check_t)
{
    if (!hit)
        return truth->strict_t == INFINITY;
    if (k >= p->nt || !has[k])
        return false;
    double tt = tol / cross[k].len;
    if (cross[k].margin < -tol || t < ray->tmin || t > ray->tmax)
        return false;
    if (!check_t) /* the decision only: k is (possibly) hit, and nothing surely nearer is */
        return cross[k].t <= truth->strict_t + tt;
    return fabs(cross[k].t - t) <= tt && t <= truth->strict_t + tt && t >= truth->loose_t - tt;
}

static bool hit_plausible(const placed *p, const mq_ray *ray, double tol, const ray_truth *truth, const crossing *cross,
                          const bool *has, bool hit, uint32_t k, double t)
{
    return hit_plausible_t(p, ray, tol, truth, cross, has, hit, k, t, true);
}

/* Set while the sliver mesh is checked. */
static bool g_slivers;

/* Closest hit of the primitive over every triangle (ties: smallest id). */
static bool prim_closest(const placed *p, const mq_ray *ray, bool cull, uint32_t *k, mq_triangle_hit *h)
{
    bool any = false;
    for (size_t i = 0; i < p->nt; i++) {
        mq_triangle_hit th;
        if (!mq_raycast_triangle(ray, &p->tri[i], &th) || (cull && th.back_face))
            continue;
        if (!any || th.t < h->t) {
            *h = th;
            *k = (uint32_t)i;
            any = true;
        }
    }
    return any;
}

/* ------------------------------------------------------------------------- */
/* The checks of one placed mesh                                             */
/* ------------------------------------------------------------------------- */

typedef struct checks {
    failures bvh_ray, prim_ray, tree_ray, tree_overlap, prim_overlap, tree_point, prim_point;
} checks;

static void make_ray(mq_test_rng *rng, const placed *p, mq_ray *r)
{
    float o[3], t[3];
    random_point_near(rng, p, 1.0, o);
    if (mq_test_rng_unit(rng) < 0.7) {
        const mq_triangle *tri = &p->tri[mq_test_rng_u64(rng) % p->nt];
        double u = mq_test_rng_unit(rng), v = mq_test_rng_unit(rng) * (1 - u);
        for (int k = 0; k < 3; k++)
            t[k] = (float)((1 - u - v) * tri->v[0][k] + u * tri->v[1][k] + v * tri->v[2][k]);
    } else {
        random_point_near(rng, p, 0.0, t);
    }
    for (int k = 0; k < 3; k++) {
        r->origin[k] = o[k];
        r->dir[k] = t[k] - o[k];
    }
    if (r->dir[0] == 0.0f && r->dir[1] == 0.0f && r->dir[2] == 0.0f)
        r->dir[2] = 1.0f;
    r->tmin = 0.0f;
    r->tmax = mq_test_rng_unit(rng) < 0.2 ? (float)mq_test_rng_range(rng, 0.5, 1.5) : INFINITY;
}

static void check_rays(const placed *p, mq_test_rng *rng, int nrays, checks *c, bool exact)
{
    crossing *cross = malloc(p->nt * sizeof *cross);
    bool *has = malloc(p->nt);
    for (int i = 0; i < nrays; i++) {
        mq_ray ray;
        make_ray(rng, p, &ray);
        double scale = scale_at(p, ray.origin);
        double tol = BAND_POS * scale, tol_bvh = BAND_BVH_T * scale;
        ray_truth truth = ray_brute(p, &ray, tol, cross, has);
        ray_truth truth_bvh = ray_brute(p, &ray, tol_bvh, cross, has);
        for (int cull = 0; cull < 2; cull++) {
            mq_ray_query q = mq_default_ray_query();
            q.cull_back_faces = cull;
            mq_hit bh;
            bool bhit = mq_bvh_raycast_closest(p->bvh, &ray, &q, &bh);
            if (!cull) {
                if (exact && g_slivers && !known_bvh_t(scale))
                    record(&c->bvh_ray,
                           hit_plausible_t(p, &ray, tol_bvh, &truth_bvh, cross, has, bhit, bh.triangle, bh.t, false),
                           "scale %g: bvh hit decision %d tri %u", p->s, bhit, bh.triangle);
                if (exact)
                    record_k(&c->bvh_ray, known_bvh_t(scale),
                             hit_plausible(p, &ray, tol_bvh, &truth_bvh, cross, has, bhit, bh.triangle, bh.t),
                             "scale %g off %g: bvh hit %d tri %u t %.9g, brute strict %.9g loose %.9g", p->s, p->off[0],
                             bhit, bh.triangle, (double)bh.t, truth.strict_t, truth.loose_t);
                else /* beyond the limit: hits may be missed, but a reported hit is real */
                    record_k(&c->bvh_ray, known_bvh_t(scale),
                             !bhit || hit_plausible(p, &ray, tol_bvh, &truth_bvh, cross, has, bhit, bh.triangle, bh.t),
                             "beyond limit, scale %g off %g: bvh reported tri %u t %.9g", p->s, p->off[0], bh.triangle,
                             (double)bh.t);
            }
            record(&c->bvh_ray, mq_bvh_raycast_any(p->bvh, &ray, &q) == bhit || !exact,
                   "scale %g: bvh any != closest found", p->s);
            if (exact) {
                /* all hits: sorted by t, the first is the closest */
                mq_hit all[16];
                size_t na = mq_bvh_raycast_all(p->bvh, &ray, &q, all, 16);
                bool sorted = (na > 0) == bhit && (!bhit || (all[0].t == bh.t && all[0].triangle == bh.triangle));
                for (size_t k = 1; k < na && k < 16; k++)
                    sorted = sorted && all[k - 1].t <= all[k].t && all[k].t >= ray.tmin && all[k].t <= ray.tmax;
                record(&c->bvh_ray, sorted, "scale %g: bvh all-hits (%zu) not sorted or first != closest", p->s, na);
            }
            if (g_bvh_only)
                continue;

            uint32_t pk = MQ_NO_TRIANGLE;
            mq_triangle_hit ph = {INFINITY, 0, 0, false};
            bool phit = prim_closest(p, &ray, cull, &pk, &ph);
            if (!cull)
                record(&c->prim_ray, hit_plausible(p, &ray, tol, &truth, cross, has, phit, pk, ph.t),
                       "scale %g off %g: primitive hit %d tri %u t %.9g, brute strict %.9g loose %.9g", p->s, p->off[0],
                       phit, pk, phit ? (double)ph.t : INFINITY, truth.strict_t, truth.loose_t);
            mq_hit oh;
            bool ohit = mq_obbtree_raycast_closest(p->tree, &ray, &q, &oh);
            if (exact)
                record(&c->tree_ray,
                       ohit == phit && (!ohit || (oh.triangle == pk && oh.t == ph.t && oh.u == ph.u && oh.v == ph.v)),
                       "scale %g off %g cull %d: tree hit %d tri %u t %.9g, primitives hit %d tri %u t %.9g", p->s,
                       p->off[0], cull, ohit, oh.triangle, (double)oh.t, phit, pk, phit ? (double)ph.t : INFINITY);
            else /* beyond: the tree may skip, but what it reports is a primitive hit */
                record(&c->tree_ray,
                       !ohit || (oh.triangle < p->nt && mq_raycast_triangle(&ray, &p->tri[oh.triangle], &ph)),
                       "beyond limit, scale %g: tree reported tri %u the primitive misses", p->s, oh.triangle);
        }
    }
    free(cross);
    free(has);
}

/* Overlap shapes near the mesh, including zero extents. */
typedef struct shape {
    int kind; /* 0 sphere, 1 capsule, 2 obb, 3 aabb */
    mq_sphere s;
    mq_capsule c;
    mq_obb o;
    mq_aabb a;
} shape;

static void make_shape(mq_test_rng *rng, const placed *p, int kind, bool zero, shape *sh)
{
    memset(sh, 0, sizeof *sh);
    sh->kind = kind;
    float c[3], b[3];
    random_point_near(rng, p, 0.1, c);
    random_point_near(rng, p, 0.1, b);
    double size = p->s * (zero ? 0.0 : oracle_log_uniform(rng, 1e-3, 0.2));
    switch (kind) {
    case 0:
        sh->s = (mq_sphere){{c[0], c[1], c[2]}, (float)size};
        break;
    case 1:
        for (int k = 0; k < 3; k++)
            b[k] = zero ? c[k] : (float)(c[k] + 0.3 * (b[k] - c[k]));
        sh->c = (mq_capsule){{c[0], c[1], c[2]}, {b[0], b[1], b[2]}, (float)(0.5 * size)};
        break;
    case 2: {
        vec3 h = {(float)size, (float)(size * mq_test_rng_unit(rng)), zero ? 0.0f : (float)(0.5 * size)};
        if (zero && mq_test_rng_unit(rng) < 0.5)
            h[0] = (float)(0.05 * p->s); /* a flat box */
        double qd[4];
        mq_test_rng_quat(rng, qd);
        float qv[4] = {(float)qd[0], (float)qd[1], (float)qd[2], (float)qd[3]};
        vec3 cv = {c[0], c[1], c[2]};
        mq_obb_from_quat(cv, h, qv, &sh->o);
        break;
    }
    default:
        for (int k = 0; k < 3; k++) {
            double e = zero ? (k == 0 && mq_test_rng_unit(rng) < 0.5 ? 0.05 * p->s : 0.0) : size;
            sh->a.min[k] = c[k];
            sh->a.max[k] = (float)(c[k] + e);
        }
        break;
    }
}

static size_t tree_ids(const placed *p, const shape *sh, uint32_t *out, size_t cap)
{
    switch (sh->kind) {
    case 0:
        return mq_obbtree_overlap_array(p->tree, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = sh->s}}, out, cap);
    case 1:
        return mq_obbtree_overlap_array(p->tree, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = sh->c}}, out, cap);
    case 2:
        return mq_obbtree_overlap_array(p->tree, &(mq_shape){MQ_SHAPE_OBB, {.obb = sh->o}}, out, cap);
    default:
        return mq_obbtree_overlap_array(p->tree, &(mq_shape){MQ_SHAPE_AABB, {.aabb = sh->a}}, out, cap);
    }
}

static bool prim_overlap(const shape *sh, const mq_triangle *t)
{
    switch (sh->kind) {
    case 0:
        return mq_overlap_sphere_triangle(&sh->s, t);
    case 1:
        return mq_overlap_capsule_triangle(&sh->c, t);
    case 2:
        return mq_overlap_triangle_obb(t, &sh->o);
    default:
        return mq_overlap_triangle_aabb(t, &sh->a);
    }
}

/* The double oracle's signed separation of the shape and the triangle, and its band. */
static double oracle_sep(const shape *sh, const mq_triangle *t, double *band)
{
    oracle_tri ot = oracle_tri_from_mq(t);
    oracle_v3 ref = oracle_v3_f(t->v[0]); /* scale relative to the triangle */
    switch (sh->kind) {
    case 0: {
        oracle_v3 pc = oracle_v3_f(sh->s.center);
        *band = BAND_ROUND * fmax(oracle_maxabs(oracle_sub(pc, ref)) + sh->s.radius, oracle_tri_extent(&ot) - 0.0);
        return sqrt(oracle_dist2_point_triangle(pc, &ot, NULL, NULL)) - sh->s.radius;
    }
    case 1: {
        oracle_v3 a = oracle_v3_f(sh->c.a), b = oracle_v3_f(sh->c.b);
        *band =
            BAND_ROUND * fmax(fmax(oracle_maxabs(oracle_sub(a, ref)), oracle_maxabs(oracle_sub(b, ref))) + sh->c.radius,
                              oracle_tri_extent(&ot));
        return sqrt(oracle_dist2_segment_triangle(a, b, &ot, NULL, NULL, NULL)) - sh->c.radius;
    }
    default: {
        oracle_hull hb = sh->kind == 2 ? oracle_hull_of_obb(&sh->o) : oracle_hull_of_aabb(&sh->a);
        oracle_hull ht = oracle_hull_of_triangle(t);
        *band = BAND_BOX * fmax(oracle_hull_extent(&hb), oracle_hull_extent(&ht));
        return oracle_separation(&ht, &hb, false, NULL);
    }
    }
}

static void check_overlaps(const placed *p, mq_test_rng *rng, int nshapes, checks *c, bool exact)
{
    uint32_t *ids = malloc(p->nt * sizeof *ids);
    bool *in = malloc(p->nt);
    for (int i = 0; i < nshapes; i++) {
        shape sh;
        make_shape(rng, p, i % 4, i % 3 == 0, &sh);
        size_t n = tree_ids(p, &sh, ids, p->nt);
        memset(in, 0, p->nt);
        bool ids_ok = n <= p->nt;
        for (size_t j = 0; j < n && ids_ok; j++) {
            ids_ok = ids[j] < p->nt && !in[ids[j]];
            if (ids_ok)
                in[ids[j]] = true;
        }
        record(&c->tree_overlap, ids_ok, "scale %g: tree overlap ids invalid", p->s);
        for (size_t t = 0; t < p->nt && ids_ok; t++) {
            bool want = prim_overlap(&sh, &p->tri[t]);
            if (exact)
                record(&c->tree_overlap, in[t] == want, "scale %g off %g kind %d%s: triangle %zu tree %d primitive %d",
                       p->s, p->off[0], sh.kind, i % 3 == 0 ? " (zero extent)" : "", t, in[t], want);
            else
                record(&c->tree_overlap, !in[t] || want, "beyond limit, scale %g kind %d: tree reports %zu", p->s,
                       sh.kind, t);
            /* The primitive against the double oracle, within its family's band. */
            if (exact || p->s <= 1e18) {
                double band, sep = oracle_sep(&sh, &p->tri[t], &band);
                bool oracle = sep <= 0.0;
                record(&c->prim_overlap, want == oracle || fabs(sep) <= band,
                       "scale %g off %g kind %d%s: triangle %zu primitive %d, oracle separation %.3g (band %.3g)", p->s,
                       p->off[0], sh.kind, i % 3 == 0 ? " (zero extent)" : "", t, want, sep, band);
            }
        }
    }
    free(ids);
    free(in);
}

static void check_points(const placed *p, mq_test_rng *rng, int npoints, checks *c, bool exact)
{
    for (int i = 0; i < npoints; i++) {
        float q[3];
        random_point_near(rng, p, 0.3, q);
        float maxd = i % 4 == 0 ? (float)(0.05 * p->s) : INFINITY;
        if (g_bvh_only)
            return;
        mq_point_hit ph;
        bool got = mq_obbtree_closest_point(p->tree, q, maxd, &ph);
        /* brute force with the primitive (ties: smallest id), and in double */
        int best = -1;
        float bd2 = INFINITY;
        vec3 bpt;
        double od2 = INFINITY;
        oracle_v3 oq = oracle_v3_f(q);
        for (size_t t = 0; t < p->nt; t++) {
            vec3 pt;
            vec2 uv;
            float d2 = mq_closest_point_triangle(q, &p->tri[t], pt, uv);
            if (!isnan(d2) && (best < 0 || d2 < bd2)) {
                best = (int)t, bd2 = d2;
                memcpy(bpt, pt, sizeof bpt);
            }
            oracle_tri ot = oracle_tri_from_mq(&p->tri[t]);
            od2 = fmin(od2, oracle_dist2_point_triangle(oq, &ot, NULL, NULL));
        }
        double scale = scale_at(p, q);
        double lim = (double)maxd * maxd;
        bool near_limit = fabs(od2 - lim) <= 2.0 * BAND_POS * scale * sqrt(lim) + 1e-300;
        if (exact) {
            bool want = best >= 0 && (double)bd2 <= lim;
            record_k(&c->tree_point, known_tiny(scale), got == want && (!got || (ph.triangle == (uint32_t)best)),
                     "scale %g off %g: tree %d tri %u, primitives %d tri %d", p->s, p->off[0], got,
                     got ? ph.triangle : 0u, want, best);
            if (got && !near_limit) /* the reported distance, also where its square is subnormal */
                record(&c->tree_point, fabs((double)ph.distance - sqrt(od2)) <= BAND_POS * scale,
                       "scale %g off %g: tree distance %.9g, double %.9g", p->s, p->off[0], (double)ph.distance,
                       sqrt(od2));
        } else if (got) {
            vec3 pt;
            vec2 uv;
            float d2 = mq_closest_point_triangle(q, &p->tri[ph.triangle], pt, uv);
            (void)d2; /* beyond the limit squared distances may overflow: only a valid answer is promised */
            record(&c->tree_point, ph.triangle < p->nt && !(ph.distance < 0.0f),
                   "beyond limit, scale %g: tree point on no triangle", p->s);
        }
        if (best >= 0 && !near_limit && exact && bd2 >= FLT_MIN) {
            /* The float squared distance is subnormal below FLT_MIN
             * (primitives.h): not checked there; the tree's reported
             * distance (above) is. */
            double err = fabs(sqrt((double)bd2) - sqrt(od2));
            record_k(&c->prim_point, known_tiny(scale), err <= BAND_POS * scale,
                     "scale %g off %g: primitive distance %.9g, double %.9g (err %.3g of scale %.3g)", p->s, p->off[0],
                     sqrt((double)bd2), sqrt(od2), err / scale, scale);
        }
    }
}

static checks new_checks(void)
{
    checks c = {{"bvh raycasts vs double", 0, 0, 0, 0},        {"primitive raycasts vs double", 0, 0, 0, 0},
                {"obbtree raycasts vs primitive", 0, 0, 0, 0}, {"obbtree overlaps vs primitive", 0, 0, 0, 0},
                {"primitive overlaps vs double", 0, 0, 0, 0},  {"obbtree closest vs primitive", 0, 0, 0, 0},
                {"primitive distances vs double", 0, 0, 0, 0}};
    return c;
}

static void finish_checks(const checks *c)
{
    finish(&c->bvh_ray);
    finish(&c->prim_ray);
    finish(&c->tree_ray);
    finish(&c->tree_overlap);
    finish(&c->prim_overlap);
    finish(&c->tree_point);
    finish(&c->prim_point);
}

/* ------------------------------------------------------------------------- */
/* Tests                                                                     */
/* ------------------------------------------------------------------------- */

static void scaled_and_translated_mesh(void **state)
{
    (void)state;
    src_mesh src;
    load_src("suzanne.obj", &src);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xC00D));
    checks c = new_checks();
    for (size_t i = 0; i < NSCALES; i++)
        for (int shifted = 0; shifted < 2; shifted++) {
            double s = scales[i];
            double off[3] = {0, 0, 0};
            if (shifted) {
                off[0] = 1e6 * s, off[1] = -0.7e6 * s, off[2] = 0.3e6 * s;
                if (1e6 * s > 1e18)
                    continue; /* beyond the documented limit: test_beyond_the_limit */
            }
            placed p;
            place(src.pos, src.nv, src.idx, src.nt, s, off, &p);
            check_rays(&p, &rng, 60, &c, true);
            check_overlaps(&p, &rng, 24, &c, true);
            check_points(&p, &rng, 40, &c, true);
            unplace(&p);
        }
    finish_checks(&c);
    free_src(&src);
}

/* Rays aimed at points of shared edges of a closed mesh, from outside along
 * the edge's normal: each must hit (watertight), no farther than the edge. */
static void rays_through_shared_edges(void **state)
{
    (void)state;
    src_mesh src;
    load_src("spot.obj", &src);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xED6E));
    failures f = {"edge rays hit (bvh, obbtree)", 0, 0, 0, 0};
    for (size_t i = 0; i < NSCALES; i++)
        for (int shifted = 0; shifted < 2; shifted++) {
            double s = scales[i];
            double off[3] = {shifted ? 1e6 * s : 0.0, 0.0, shifted ? -1e6 * s : 0.0};
            if (1e6 * s > 1e18 && shifted)
                continue;
            placed p;
            place(src.pos, src.nv, src.idx, src.nt, s, off, &p);
            for (int r = 0; r < 150; r++) {
                size_t t = mq_test_rng_u64(&rng) % p.nt;
                int e = (int)(mq_test_rng_u64(&rng) % 3);
                const mq_triangle *tri = &p.tri[t];
                /* the other triangle on this edge (same two corner indices) */
                uint32_t i0 = src.idx[3 * t + e], i1 = src.idx[3 * t + (e + 1) % 3];
                size_t nb = p.nt;
                for (size_t j = 0; j < p.nt && nb == p.nt; j++)
                    for (int ej = 0; ej < 3; ej++)
                        if (j != t && src.idx[3 * j + ej] == i1 && src.idx[3 * j + (ej + 1) % 3] == i0)
                            nb = j;
                if (nb == p.nt)
                    continue;
                oracle_tri ta = oracle_tri_from_mq(tri), tb = oracle_tri_from_mq(&p.tri[nb]);
                oracle_v3 na = oracle_cross(oracle_sub(ta.v[1], ta.v[0]), oracle_sub(ta.v[2], ta.v[0]));
                oracle_v3 nbv = oracle_cross(oracle_sub(tb.v[1], tb.v[0]), oracle_sub(tb.v[2], tb.v[0]));
                if (oracle_len2(na) == 0.0 || oracle_len2(nbv) == 0.0)
                    continue; /* float rounding collapsed one of them */
                na = oracle_normalize(na), nbv = oracle_normalize(nbv);
                double w = mq_test_rng_unit(&rng) < 0.3 ? 0.5 : mq_test_rng_range(&rng, 0.05, 0.95);
                oracle_v3 target = oracle_add(oracle_mul(ta.v[e], 1 - w), oracle_mul(ta.v[(e + 1) % 3], w));
                /* from the front of both triangles, slightly tilted, at a tenth of the mesh size */
                oracle_v3 n = oracle_normalize(oracle_add(na, nbv));
                if (!oracle_v3_finite(n))
                    continue;
                double tilt[3];
                mq_test_rng_unit_vector(&rng, tilt);
                oracle_v3 dir = oracle_add(n, oracle_mul(oracle_v3_make(tilt[0], tilt[1], tilt[2]), 0.2));
                mq_ray ray;
                oracle_v3 o = oracle_madd(target, dir, 0.1 * s);
                oracle_v3_to_f(o, ray.origin);
                oracle_v3_to_f(oracle_sub(target, oracle_v3_f(ray.origin)), ray.dir);
                ray.tmin = 0.0f;
                ray.tmax = INFINITY;
                oracle_v3 d = oracle_v3_f(ray.dir), of = oracle_v3_f(ray.origin);
                /* a real crossing: the float ray goes from the front of both planes to the back of both */
                if (!(oracle_dot(oracle_sub(of, ta.v[0]), na) > 0 && oracle_dot(oracle_sub(of, tb.v[0]), nbv) > 0 &&
                      oracle_dot(d, na) < 0 && oracle_dot(d, nbv) < 0))
                    continue;
                /* where the ray meets the plane of the triangle: the surface is crossed at or before it */
                crossing cr;
                if (!ray_crossing(&ray, tri, &cr))
                    continue;
                double scale = scale_at(&p, ray.origin);
                double tol = BAND_POS * scale / cr.len + fabs(cr.margin) / cr.len * 10.0;
                mq_hit h;
                bool hit = mq_bvh_raycast_closest(p.bvh, &ray, NULL, &h);
                record_k(&f, known_bvh_t(scale), hit && h.t <= cr.t + tol,
                         "scale %g off %g: bvh edge ray hit %d t %.9g, edge at %.9g", s, off[0], hit,
                         hit ? (double)h.t : INFINITY, cr.t);
                hit = mq_obbtree_raycast_closest(p.tree, &ray, NULL, &h);
                record(&f, hit && h.t <= cr.t + tol, "scale %g off %g: obbtree edge ray hit %d t %.9g, edge at %.9g", s,
                       off[0], hit, hit ? (double)h.t : INFINITY, cr.t);
            }
            unplace(&p);
        }
    finish(&f);
    free_src(&src);
}

/* A square in the plane z = c (two triangles) and a tilted triangle, rays in
 * that plane: the axis-aligned triangles are never hit (bvh.h); the OBB tree
 * equals its primitive. */
static void rays_in_a_triangle_plane(void **state)
{
    (void)state;
    failures f = {"in-plane rays", 0, 0, 0, 0};
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x1F1A));
    const double pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, -0.5, 3, 0, 0.5, 2.5, 1, 0.5};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3, 4, 5, 6};
    for (size_t i = 0; i < NSCALES; i++)
        for (int shifted = 0; shifted < 2; shifted++) {
            double s = scales[i];
            double off[3] = {shifted ? 1e6 * s : 0.0, shifted ? 1e6 * s : 0.0, shifted ? 1e6 * s : 0.0};
            if (shifted && 1e6 * s > 1e18)
                continue;
            placed p;
            place(pos, 7, idx, 3, s, off, &p);
            float z = p.tri[0].v[0][2];
            for (int r = 0; r < 100; r++) {
                mq_ray ray;
                ray.origin[0] = (float)(off[0] + s * mq_test_rng_range(&rng, -1, 1.5));
                ray.origin[1] = (float)(off[1] + s * mq_test_rng_range(&rng, -1, 2));
                ray.origin[2] = z;
                double a = mq_test_rng_range(&rng, 0, 6.283185307179586);
                ray.dir[0] = (float)cos(a), ray.dir[1] = (float)sin(a), ray.dir[2] = 0.0f;
                if (r % 5 == 0)
                    ray.dir[1] = 0.0f; /* along an axis too */
                if (ray.dir[0] == 0.0f && ray.dir[1] == 0.0f)
                    ray.dir[0] = 1.0f;
                ray.tmin = 0.0f;
                ray.tmax = INFINITY;
                mq_hit h;
                bool hit = mq_bvh_raycast_closest(p.bvh, &ray, NULL, &h);
                record(&f, !hit || h.triangle == 2, "scale %g: bvh in-plane ray hit axis-aligned triangle %u", s,
                       h.triangle);
                uint32_t pk = MQ_NO_TRIANGLE;
                mq_triangle_hit ph;
                bool phit = prim_closest(&p, &ray, false, &pk, &ph);
                record(&f, !phit || pk == 2, "scale %g: primitive in-plane ray hit triangle %u", s, pk);
                bool ohit = mq_obbtree_raycast_closest(p.tree, &ray, NULL, &h);
                record(&f, ohit == phit && (!ohit || (h.triangle == pk && h.t == ph.t)),
                       "scale %g: obbtree in-plane %d tri %u, primitive %d tri %u", s, ohit, h.triangle, phit, pk);
            }
            unplace(&p);
        }
    finish(&f);
}

/* Needles, caps and zero-area triangles at every scale: the usual checks,
 * plus "zero-area triangles are never hit". */
static void slivers(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x511F));
    enum { NT = 60 };
    double pos[9 * NT];
    uint32_t idx[3 * NT];
    for (int t = 0; t < NT; t++) {
        double a[3], b[3], c[3];
        for (int k = 0; k < 3; k++) {
            a[k] = mq_test_rng_range(&rng, -0.5, 0.5);
            b[k] = mq_test_rng_range(&rng, -0.5, 0.5);
        }
        double w = mq_test_rng_unit(&rng), eps = pow(10.0, -mq_test_rng_range(&rng, 3, 9));
        double dir[3];
        mq_test_rng_unit_vector(&rng, dir);
        for (int k = 0; k < 3; k++) {
            switch (t % 4) {
            case 0: /* needle: c next to a */
                c[k] = a[k] + eps * dir[k];
                break;
            case 1: /* cap: c next to the segment ab */
                c[k] = (1 - w) * a[k] + w * b[k] + eps * dir[k];
                break;
            case 2: /* exactly collinear: zero area */
                c[k] = a[k] + 0.5 * (b[k] - a[k]);
                break;
            default: /* degenerate to a point */
                b[k] = a[k], c[k] = a[k];
                break;
            }
        }
        memcpy(&pos[9 * t], a, sizeof a);
        memcpy(&pos[9 * t + 3], b, sizeof b);
        memcpy(&pos[9 * t + 6], c, sizeof c);
        for (int k = 0; k < 3; k++)
            idx[3 * t + k] = (uint32_t)(3 * t + k);
    }
    checks c = new_checks();
    failures zero = {"zero-area never hit", 0, 0, 0, 0};
    g_slivers = true;
    for (size_t i = 0; i < NSCALES; i++) {
        double off[3] = {0, 0, 0};
        placed p;
        place(pos, 3 * NT, idx, NT, scales[i], off, &p);
        check_rays(&p, &rng, 120, &c, true);
        check_overlaps(&p, &rng, 24, &c, true);
        check_points(&p, &rng, 40, &c, true);
        for (int r = 0; r < 200; r++) {
            /* rays straight at zero-area triangles */
            size_t t = 2 + 4 * (mq_test_rng_u64(&rng) % (NT / 4));
            mq_ray ray;
            float o[3];
            random_point_near(&rng, &p, 1.0, o);
            for (int k = 0; k < 3; k++) {
                ray.origin[k] = o[k];
                ray.dir[k] = p.tri[t].v[2][k] - o[k];
            }
            ray.tmin = 0.0f, ray.tmax = INFINITY;
            double cr[3];
            for (int k = 0; k < 3; k++)
                cr[k] = (double)(p.tri[t].v[1][k] - p.tri[t].v[0][k]);
            (void)cr;
            oracle_tri ot = oracle_tri_from_mq(&p.tri[t]);
            oracle_v3 n = oracle_cross(oracle_sub(ot.v[1], ot.v[0]), oracle_sub(ot.v[2], ot.v[0]));
            if (oracle_len2(n) != 0.0)
                continue; /* rounding to float made it a (tiny) proper triangle */
            mq_hit h;
            if (mq_bvh_raycast_closest(p.bvh, &ray, NULL, &h))
                record(&zero, h.triangle != t, "scale %g: bvh hit zero-area triangle %zu", scales[i], t);
            else
                record(&zero, true, "");
            mq_triangle_hit th;
            record(&zero, !mq_raycast_triangle(&ray, &p.tri[t], &th), "scale %g: primitive hit zero-area %zu",
                   scales[i], t);
        }
        unplace(&p);
    }
    g_slivers = false;
    finish_checks(&c);
    finish(&zero);
}

/* Beyond |coordinates| ~ 1e18 nothing is promised but: no crash, valid trees,
 * reported hits and overlaps are real (checked inside with exact = false). */
static void beyond_the_limit(void **state)
{
    (void)state;
    src_mesh src;
    load_src("suzanne.obj", &src);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xB10D));
    checks c = new_checks();
    const double big[][2] = {{1e18, 1e24}, {1e24, 0}, {1e30, 0}, {1e36, 0}, {1e12, 1e30}};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        double off[3] = {big[i][1], -big[i][1], 0.5 * big[i][1]};
        placed p;
        place(src.pos, src.nv, src.idx, src.nt, big[i][0], off, &p);
        check_rays(&p, &rng, 30, &c, false);
        check_overlaps(&p, &rng, 12, &c, false);
        check_points(&p, &rng, 12, &c, false);
        unplace(&p);
    }
    finish_checks(&c);
    free_src(&src);
}

/* Every BVH raycast of `a` equals that of `b` (same mesh geometry): closest
 * hits bit for bit (t, triangle, u, v, point, normal). Except at ties: two
 * trees of different shape may resolve hits at the same t (a ray through a
 * shared vertex) to different triangles -- a node's float entry distance can
 * round above the tied hit's t and prune it; the hit's t must agree. */
static void same_raycasts(const placed *p, mq_bvh *a, mq_bvh *b, mq_test_rng *rng, failures *f, const char *what)
{
    for (int i = 0; i < 60; i++) {
        mq_ray ray;
        make_ray(rng, p, &ray);
        mq_hit ha, hb;
        bool ia = mq_bvh_raycast_closest(a, &ray, NULL, &ha), ib = mq_bvh_raycast_closest(b, &ray, NULL, &hb);
        record(f,
               ia == ib &&
                   (!ia ||
                    (ha.triangle == hb.triangle && ha.t == hb.t && ha.u == hb.u && ha.v == hb.v &&
                     !memcmp(ha.point, hb.point, sizeof ha.point) && !memcmp(ha.normal, hb.normal, sizeof ha.normal)) ||
                    (ha.triangle != hb.triangle && ha.t == hb.t)),
               "scale %g: %s: hit %d tri %u t %.9g vs hit %d tri %u t %.9g", p->s, what, ia, ha.triangle, (double)ha.t,
               ib, hb.triangle, (double)hb.t);
    }
}

/* The BVH from 1e-35 to 1e35 (bvh.h: any float magnitude): the ray checks,
 * shared-edge rays, slivers; refit across magnitudes; saved round trip. */
static void bvh_wide_range(void **state)
{
    (void)state;
    src_mesh src;
    load_src("suzanne.obj", &src);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xB1D3));
    checks c = new_checks();
    failures same = {"bvh refit / saved round trip", 0, 0, 0, 0};
    g_bvh_only = true;
    for (size_t i = 0; i < sizeof bvh_scales / sizeof bvh_scales[0]; i++)
        for (int shifted = 0; shifted < 2; shifted++) {
            double s = bvh_scales[i];
            double off[3] = {shifted ? 1e6 * s : 0.0, shifted ? -0.7e6 * s : 0.0, shifted ? 0.3e6 * s : 0.0};
            if (1e6 * s > 1e37 && shifted)
                continue;
            placed p;
            place(src.pos, src.nv, src.idx, src.nt, s, off, &p);
            check_rays(&p, &rng, 60, &c, true);

            /* refit: a BVH built at another magnitude, refitted to this one */
            placed other;
            double s2 = s < 1.0 ? s * 1e30 : s * 1e-30, off2[3] = {0, 0, 0};
            place(src.pos, src.nv, src.idx, src.nt, s2, off2, &other);
            float *fp = malloc(3 * src.nv * sizeof(float));
            for (size_t k = 0; k < 3 * src.nv; k++)
                fp[k] = (float)(s * src.pos[k] + off[k % 3]);
            mq_diag d;
            assert_int_equal(mq_bvh_refit(other.bvh, fp, &d), MQ_OK);
            assert_int_equal(mq_bvh_validate(other.bvh, &d), MQ_OK);
            same_raycasts(&p, p.bvh, other.bvh, &rng, &same, "refit across magnitudes");
            assert_int_equal(mq_bvh_refit(other.bvh, NULL, &d), MQ_OK); /* and back */
            assert_int_equal(mq_bvh_validate(other.bvh, &d), MQ_OK);
            free(fp);
            unplace(&other);

            /* saved round trip */
            void *data = NULL;
            size_t size = 0;
            assert_int_equal(mq_bvh_save_memory(p.bvh, NULL, &data, &size, &d), MQ_OK);
            mq_bvh *loaded = NULL;
            assert_int_equal(mq_bvh_load_memory(data, size, NULL, &loaded, &d), MQ_OK);
            same_raycasts(&p, p.bvh, loaded, &rng, &same, "saved round trip");
            mq_bvh_destroy(loaded);
            mq_saved_free(data, size, NULL);
            unplace(&p);
        }
    g_bvh_only = false;
    finish_checks(&c);
    finish(&same);
    free_src(&src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scaled_and_translated_mesh), cmocka_unit_test(rays_through_shared_edges),
        cmocka_unit_test(rays_in_a_triangle_plane),   cmocka_unit_test(slivers),
        cmocka_unit_test(beyond_the_limit),           cmocka_unit_test(bvh_wide_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
