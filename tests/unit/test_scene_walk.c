/*
 * The scene's hierarchy walkers (src/query/bvh_walk.h, closest_walk.h) and
 * the instance-level queries built on them (src/scene/instance_*.c):
 *   - the box walkers report EXACTLY the triangles whose own box overlaps the
 *     query box, on the BVH (leaf sizes 1, 4, 16) and the OBB tree, on a real
 *     mesh and on a soup with zero-area and non-finite triangles;
 *   - with a ball, they report a superset of the triangles whose box meets
 *     both, and nothing outside the box;
 *   - mq_instance_overlap and mq_instance_closest_point equal brute force over
 *     every triangle with the very same instance-centred computation, for
 *     rigid, scaled, sheared, mirrored and far-away (1e7) transforms: the
 *     pruning never loses or changes an answer.
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

#include "scene/instance_overlap.h"
#include "query/closest_walk.h"
#include "test_support.h"

#if defined(__OPTIMIZE__)
#define WALK_SCALE 1
#else
#define WALK_SCALE 4
#endif

/* ---- meshes -------------------------------------------------------------- */

static mq_mesh *load_spot(void)
{
    const char *path = mq_test_data_file("spot.obj");
    mq_mesh *m = NULL;
    assert_int_equal(mq_obj_load(path, NULL, &m, NULL, NULL), MQ_OK);
    return m;
}

/* 400 random triangles in [-1, 1]^3; one in eight has zero area (a repeated or
 * collinear corner), one in fifty a non-finite corner. */
static mq_mesh *make_soup(mq_test_rng *rng)
{
    enum { N = 400 };
    float *pos = malloc(N * 9 * sizeof *pos);
    uint32_t *idx = malloc(N * 3 * sizeof *idx);
    for (uint32_t t = 0; t < N; t++) {
        float c[3], *p = pos + 9 * t;
        for (int k = 0; k < 3; k++)
            c[k] = (float)mq_test_rng_range(rng, -1.0, 1.0);
        for (int v = 0; v < 3; v++)
            for (int k = 0; k < 3; k++)
                p[3 * v + k] = c[k] + (float)mq_test_rng_range(rng, -0.15, 0.15);
        if (t % 8 == 3)
            memcpy(p + 6, p, 3 * sizeof *p); /* v2 = v0 */
        if (t % 8 == 5)
            for (int k = 0; k < 3; k++) /* v2 - v1 = v1 - v0, exactly (power-of-two steps) */
                p[3 + k] = p[k] + 0.125f, p[6 + k] = p[k] + 0.25f;
        if (t % 50 == 7)
            p[4] = NAN;
        if (t % 50 == 17)
            p[0] = INFINITY;
        for (int v = 0; v < 3; v++)
            idx[3 * t + v] = 3 * t + (uint32_t)v;
    }
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(pos, N * 3, idx, N, NULL, &m, NULL), MQ_OK);
    free(pos);
    free(idx);
    return m;
}

static bool tri_finite(const mq_triangle *t)
{
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++)
            if (!isfinite(t->v[v][k]))
                return false;
    return true;
}

static void tri_box(const mq_triangle *t, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = fminf(fminf(t->v[0][k], t->v[1][k]), t->v[2][k]);
        hi[k] = fmaxf(fmaxf(t->v[0][k], t->v[1][k]), t->v[2][k]);
    }
}

/* ---- box walker ---------------------------------------------------------- */

static bool tri_meets_ball(const mq_triangle *t, const mq_walk_box *q, float r)
{
    mq_sphere s = {{q->c[0], q->c[1], q->c[2]}, r * 0.999f};
    return mq_overlap_sphere_triangle(&s, t);
}

static bool tri_meets_box(const mq_triangle *t, const mq_walk_box *q)
{
    mq_aabb b = {{q->lo[0], q->lo[1], q->lo[2]}, {q->hi[0], q->hi[1], q->hi[2]}};
    return mq_overlap_triangle_aabb(t, &b);
}

typedef struct collect {
    uint8_t *seen;
    size_t n, dup;
    const mq_mesh *mesh;
    size_t bad_corners;
} collect;

static bool collect_visit(uint32_t id, const mq_triangle *tri, void *user)
{
    collect *c = user;
    if (c->seen[id])
        c->dup++;
    c->seen[id] = 1;
    c->n++;
    mq_triangle m;
    mq_mesh_get_triangle(c->mesh, id, &m);
    if (memcmp(&m, tri, sizeof m) != 0)
        c->bad_corners++;
    return true;
}

typedef struct hier {
    const char *name;
    mq_bvh *bvh;
    mq_obbtree *obt;
} hier;

/* Set by box_walk_soup_refit: every BVH is refitted after its build, first
 * to the mesh moved (and scaled by 2^40: the arena's scale is re-chosen),
 * then back to the mesh's own positions. The walks must give what they give
 * on a fresh build: refit's boxes enclose zero-area triangles too. */
static bool g_refit;

static void refit_there_and_back(mq_bvh *bvh, const mq_mesh *m)
{
    size_t nv = mq_mesh_vertex_count(m);
    const float *pos = mq_mesh_positions(m);
    float *moved = malloc(3 * nv * sizeof *moved);
    for (size_t i = 0; i < 3 * nv; i++)
        moved[i] = ldexpf(pos[i], 40) + (i % 3 == 0 ? 0x1p38f : 0.0f);
    mq_diag d;
    assert_int_equal(mq_bvh_refit(bvh, moved, &d), MQ_OK);
    assert_int_equal(mq_bvh_validate(bvh, &d), MQ_OK);
    assert_int_equal(mq_bvh_refit(bvh, NULL, &d), MQ_OK);
    assert_int_equal(mq_bvh_validate(bvh, &d), MQ_OK);
    free(moved);
}

static size_t build_hiers(const mq_mesh *m, hier *h)
{
    static const uint32_t leaves[] = {1, 4, 16};
    size_t n = 0;
    for (size_t i = 0; i < 3; i++) {
        mq_bvh_def d = mq_default_bvh_def();
        d.max_leaf_size = leaves[i];
        d.threads = 1;
        h[n] = (hier){i == 0 ? "bvh/1" : i == 1 ? "bvh/4" : "bvh/16", NULL, NULL};
        assert_int_equal(mq_bvh_build(m, &d, &h[n].bvh, NULL), MQ_OK);
        if (g_refit)
            refit_there_and_back(h[n].bvh, m);
        n++;
    }
    mq_obbtree_def od = mq_default_obbtree_def();
    h[n] = (hier){"obb/4", NULL, NULL};
    assert_int_equal(mq_obbtree_build(m, &od, &h[n].obt, NULL), MQ_OK);
    n++;
    od.max_leaf_size = 1;
    od.fit = MQ_OBB_FIT_PCA;
    h[n] = (hier){"obb-pca/1", NULL, NULL};
    assert_int_equal(mq_obbtree_build(m, &od, &h[n].obt, NULL), MQ_OK);
    n++;
    return n;
}

static void free_hiers(hier *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        mq_bvh_destroy(h[i].bvh);
        mq_obbtree_destroy(h[i].obt);
    }
}

static void mesh_bounds(const mq_mesh *m, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++)
        lo[k] = INFINITY, hi[k] = -INFINITY;
    for (uint32_t t = 0; t < mq_mesh_triangle_count(m); t++) {
        mq_triangle tri;
        mq_mesh_get_triangle(m, t, &tri);
        if (!tri_finite(&tri))
            continue;
        float a[3], b[3];
        tri_box(&tri, a, b);
        for (int k = 0; k < 3; k++)
            lo[k] = fminf(lo[k], a[k]), hi[k] = fmaxf(hi[k], b[k]);
    }
}

static void check_box_walk(const mq_mesh *m, mq_test_rng *rng, size_t queries)
{
    hier h[8];
    size_t nh = build_hiers(m, h);
    size_t nt = mq_mesh_triangle_count(m);
    float lo[3], hi[3];
    mesh_bounds(m, lo, hi);
    float D = fmaxf(fmaxf(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
    collect c = {calloc(nt, 1), 0, 0, m, 0};
    size_t total = 0, failures = 0;
    for (size_t q = 0; q < queries; q++) {
        mq_walk_box box;
        mq_triangle anchor;
        mq_mesh_get_triangle(m, (uint32_t)(mq_test_rng_u64(rng) % nt), &anchor);
        int mode = (int)(q % 4);
        for (int k = 0; k < 3; k++) {
            float ctr = (float)mq_test_rng_range(rng, lo[k], hi[k]);
            float half = (float)(D * exp(mq_test_rng_range(rng, log(1e-3), log(0.3))));
            if (mode == 1 && tri_finite(&anchor)) /* a zero-extent box on a vertex */
                ctr = anchor.v[0][k], half = 0.0f;
            if (mode == 2) /* flat box */
                half = k == 0 ? 0.0f : half;
            box.lo[k] = ctr - half;
            box.hi[k] = ctr + half;
            box.c[k] = ctr;
        }
        bool ball = mode == 3;
        float r = (float)(D * mq_test_rng_range(rng, 0.01, 0.2));
        box.r2 = ball ? r * r : INFINITY;
        /* expected: finite triangles whose box overlaps */
        for (size_t hi_ = 0; hi_ < nh; hi_++) {
            memset(c.seen, 0, nt);
            c.n = c.dup = 0;
            if (h[hi_].bvh)
                mq_bvh_walk_box(h[hi_].bvh, &box, collect_visit, &c);
            else
                mq_obbtree_walk_box(h[hi_].obt, &box, collect_visit, &c);
            size_t bad = c.dup;
            for (uint32_t t = 0; t < nt; t++) {
                mq_triangle tri;
                mq_mesh_get_triangle(m, t, &tri);
                bool inbox = false, inball = false;
                if (tri_finite(&tri)) {
                    float a[3], b[3];
                    tri_box(&tri, a, b);
                    inbox = true;
                    double d2 = 0;
                    for (int k = 0; k < 3; k++) {
                        inbox = inbox && a[k] <= box.hi[k] && b[k] >= box.lo[k];
                        double e = fmax(fmax((double)a[k] - box.c[k], (double)box.c[k] - b[k]), 0.0);
                        d2 += e * e;
                    }
                    inball = d2 <= (double)r * r * 0.999;
                }
                /* The BVH's node boxes are AABBs: exactly the triangles whose box
                 * overlaps. An OBB tree's node box holds the triangle, not its AABB:
                 * every triangle that itself meets the box (and ball), none whose
                 * box misses. */
                bool must = h[hi_].bvh ? inbox : inbox && tri_meets_box(&tri, &box);
                if (!ball)
                    bad += (c.seen[t] && !inbox) + (must && !c.seen[t]);
                else
                    bad += (c.seen[t] && !inbox) + (must && inball && tri_meets_ball(&tri, &box, r) && !c.seen[t]);
            }
            total += c.n;
            if (bad && failures++ < 5)
                fprintf(stderr, "  box walk %s query %zu mode %d: %zu wrong\n", h[hi_].name, q, mode, bad);
        }
    }
    fprintf(stderr, "  box walk: %zu queries x %zu hierarchies, %zu triangles reported, corners wrong %zu\n", queries,
            nh, total, c.bad_corners);
    assert_int_equal(failures, 0);
    assert_int_equal(c.bad_corners, 0);
    assert_true(total > 0);
    free(c.seen);
    free_hiers(h, nh);
}

static void box_walk_spot(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x5CE11));
    mq_mesh *m = load_spot();
    check_box_walk(m, &rng, 600 / WALK_SCALE);
    mq_mesh_destroy(m);
}

static void box_walk_soup(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x5CE12));
    mq_mesh *m = make_soup(&rng);
    check_box_walk(m, &rng, 2000 / WALK_SCALE);
    mq_mesh_destroy(m);
}

static void box_walk_soup_refit(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x5CE15));
    mq_mesh *m = make_soup(&rng);
    g_refit = true;
    check_box_walk(m, &rng, 2000 / WALK_SCALE);
    g_refit = false;
    mq_mesh_destroy(m);
}

/* ---- instances ----------------------------------------------------------- */

typedef enum xf_kind { XF_IDENTITY, XF_RIGID, XF_UNIFORM, XF_NONUNIFORM, XF_MIRROR, XF_SHEAR, XF_KINDS } xf_kind;
static const char *const xf_names[XF_KINDS] = {"identity", "rigid", "uniform", "nonuniform", "mirror", "shear"};

/* The rotation matrix of a unit quaternion w, x, y, z. */
static void quat_matrix(const double q[4], double r[3][3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    r[0][0] = 1 - 2 * (y * y + z * z), r[0][1] = 2 * (x * y - z * w), r[0][2] = 2 * (x * z + y * w);
    r[1][0] = 2 * (x * y + z * w), r[1][1] = 1 - 2 * (x * x + z * z), r[1][2] = 2 * (y * z - x * w);
    r[2][0] = 2 * (x * z - y * w), r[2][1] = 2 * (y * z + x * w), r[2][2] = 1 - 2 * (x * x + y * y);
}

static mq_xform make_xform(mq_test_rng *rng, xf_kind kind, const double t[3])
{
    double q[4], r[3][3], s[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    mq_test_rng_quat(rng, q);
    quat_matrix(q, r);
    if (kind == XF_IDENTITY)
        memcpy(r, s, sizeof r);
    double u = exp(mq_test_rng_range(rng, log(0.3), log(3.0)));
    switch (kind) {
    case XF_UNIFORM:
        for (int i = 0; i < 3; i++)
            s[i][i] = u;
        break;
    case XF_NONUNIFORM:
    case XF_MIRROR:
        for (int i = 0; i < 3; i++)
            s[i][i] = exp(mq_test_rng_range(rng, log(0.3), log(3.0)));
        if (kind == XF_MIRROR) {
            int i = (int)(mq_test_rng_u64(rng) % 3);
            s[i][i] = -s[i][i];
        }
        break;
    case XF_SHEAR:
        s[0][1] = mq_test_rng_range(rng, -0.8, 0.8);
        s[1][2] = mq_test_rng_range(rng, -0.8, 0.8);
        s[0][2] = mq_test_rng_range(rng, -0.5, 0.5);
        break;
    default:
        break;
    }
    mq_xform x;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            x.m[i][j] = r[i][0] * s[0][j] + r[i][1] * s[1][j] + r[i][2] * s[2][j];
        x.m[i][3] = t[i];
    }
    return x;
}

/* The definition: the primitive on the instance-centred float inputs. */
static bool brute_overlap(const mq_instance_rec *r, const mq_inst_shape *s, const mq_triangle *local)
{
    mq_triangle w;
    mq_inst_triangle(r, local, &w);
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        return mq_overlap_sphere_triangle(&s->f.sphere, &w);
    case MQ_SHAPE_CAPSULE:
        return mq_overlap_capsule_triangle(&s->f.capsule, &w);
    case MQ_SHAPE_OBB:
        return mq_overlap_triangle_obb(&w, &s->f.obb);
    default:
        return mq_overlap_triangle_aabb(&w, &s->f.aabb);
    }
}

typedef struct ids {
    uint8_t *seen;
    size_t n;
} ids;

static bool ids_visit(uint32_t instance, uint32_t tri, void *user)
{
    (void)instance;
    ids *c = user;
    c->seen[tri]++;
    c->n++;
    return true;
}

static void world_point_near(mq_test_rng *rng, const mq_instance_rec *r, const mq_mesh *m, double spread, double out[3])
{
    mq_triangle t;
    mq_mesh_get_triangle(m, (uint32_t)(mq_test_rng_u64(rng) % mq_mesh_triangle_count(m)), &t);
    double p[3];
    for (int k = 0; k < 3; k++)
        p[k] = t.v[0][k];
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
        p[0] = p[1] = p[2] = 0.0;
    mq_xform_apply_point(&r->to_world, p, out);
    double d[3];
    mq_test_rng_unit_vector(rng, d);
    double len = spread * mq_test_rng_unit(rng);
    for (int k = 0; k < 3; k++)
        out[k] += len * d[k];
}

static void random_dshape(mq_test_rng *rng, int kind, const double c[3], double size, mq_dshape *s)
{
    s->kind = (mq_shape_kind)kind;
    double q[4], r[3][3];
    switch (kind) {
    case MQ_SHAPE_SPHERE:
        memcpy(s->u.sphere.center, c, sizeof(double) * 3);
        s->u.sphere.radius = mq_test_rng_unit(rng) < 0.1 ? 0.0 : size * mq_test_rng_unit(rng);
        break;
    case MQ_SHAPE_CAPSULE: {
        double d[3];
        mq_test_rng_unit_vector(rng, d);
        for (int k = 0; k < 3; k++) {
            s->u.capsule.a[k] = c[k];
            s->u.capsule.b[k] = c[k] + 2 * size * d[k] * mq_test_rng_unit(rng);
        }
        s->u.capsule.radius = mq_test_rng_unit(rng) < 0.1 ? 0.0 : size * mq_test_rng_unit(rng);
        break;
    }
    case MQ_SHAPE_OBB:
        mq_test_rng_quat(rng, q);
        quat_matrix(q, r);
        for (int k = 0; k < 3; k++) {
            s->u.obb.center[k] = c[k];
            s->u.obb.half[k] = mq_test_rng_unit(rng) < 0.1 ? 0.0 : size * mq_test_rng_unit(rng);
            for (int i = 0; i < 3; i++)
                s->u.obb.axes[i][k] = r[k][i];
        }
        break;
    default:
        for (int k = 0; k < 3; k++) {
            double h = mq_test_rng_unit(rng) < 0.1 ? 0.0 : size * mq_test_rng_unit(rng);
            s->u.aabb.min[k] = c[k] - h;
            s->u.aabb.max[k] = c[k] + h;
        }
    }
}

static void instance_vs_brute(const mq_mesh *m, mq_test_rng *rng, size_t per_transform)
{
    hier h[8];
    size_t nh = build_hiers(m, h);
    size_t nt = mq_mesh_triangle_count(m);
    float lo[3], hi[3];
    mesh_bounds(m, lo, hi);
    double D = fmax(fmax(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
    ids c = {calloc(nt, 1), 0};
    size_t fail_overlap = 0, fail_closest = 0, overlaps = 0, closest_found = 0, cases = 0;
    for (int kind = 0; kind < XF_KINDS; kind++)
        for (int far = 0; far < 2; far++)
            for (size_t hx = 0; hx < nh; hx++) {
                double t[3] = {far ? 1e7 : mq_test_rng_range(rng, -2, 2), far ? -3e6 : 0.5, far ? 2.5e7 : 0};
                mq_instance_def def = mq_default_instance_def();
                def.bvh = h[hx].bvh;
                def.obbtree = h[hx].obt;
                def.transform = make_xform(rng, (xf_kind)kind, t);
                mq_instance_rec r;
                assert_true(mq_instance_rec_init(&r, &def, 7));
                double wsize = D * r.sigma_max;
                for (size_t q = 0; q < per_transform; q++) {
                    double p[3];
                    double spread = (q % 5 == 0) ? 5 * wsize : 0.05 * wsize;
                    world_point_near(rng, &r, m, spread, p);
                    /* overlap */
                    mq_dshape s;
                    random_dshape(rng, (int)(q % 4), p, 0.1 * wsize * (q % 7 == 0 ? 5 : 1), &s);
                    mq_inst_shape is;
                    assert_true(mq_dshape_valid(&s));
                    bool prepared = mq_inst_shape_prepare(&r, &s, &is);
                    memset(c.seen, 0, nt);
                    c.n = 0;
                    size_t calls = 0;
                    mq_instance_overlap(&r, &s, ids_visit, &c, &calls);
                    size_t bad = calls != c.n;
                    for (uint32_t i = 0; i < nt; i++) {
                        mq_triangle tri;
                        mq_mesh_get_triangle(m, i, &tri);
                        bool expect = prepared && brute_overlap(&r, &is, &tri);
                        bad += expect != (c.seen[i] == 1) || c.seen[i] > 1;
                        overlaps += expect;
                    }
                    if (bad && fail_overlap++ < 5)
                        fprintf(stderr, "  overlap %s %s far=%d shape %d: %zu wrong\n", xf_names[kind], h[hx].name, far,
                                (int)s.kind, bad);
                    /* closest point */
                    double maxd = (q % 3 == 0) ? 0.05 * wsize : INFINITY;
                    double best_d2 = maxd * maxd;
                    mq_scene_point_hit best = {.instance = MQ_NO_INSTANCE, .triangle = MQ_NO_TRIANGLE};
                    bool found = mq_instance_closest_point(&r, p, &best_d2, &best);
                    double e_d2 = maxd * maxd;
                    uint32_t e_tri = MQ_NO_TRIANGLE;
                    double pc[3];
                    float pcf[3];
                    mq_inst_centre_d(&r, p, pc);
                    for (int k = 0; k < 3; k++)
                        pcf[k] = (float)pc[k];
                    for (uint32_t i = 0; i < nt; i++) {
                        mq_triangle tri, w;
                        mq_mesh_get_triangle(m, i, &tri);
                        if (!tri_finite(&tri))
                            continue;
                        mq_inst_triangle(&r, &tri, &w);
                        vec3 qp;
                        vec2 uv;
                        mq_closest_point_triangle(pcf, &w, qp, uv);
                        double d2 = 0;
                        for (int k = 0; k < 3; k++)
                            d2 += (pc[k] - qp[k]) * (pc[k] - qp[k]);
                        if (d2 < e_d2 || (d2 == e_d2 && e_tri == MQ_NO_TRIANGLE))
                            e_d2 = d2, e_tri = i;
                    }
                    closest_found += found;
                    cases++;
                    bool ok = found == (e_tri != MQ_NO_TRIANGLE) &&
                              (!found || (best.triangle == e_tri && best_d2 == e_d2 && best.instance == 7));
                    if (!ok && fail_closest++ < 5)
                        fprintf(stderr, "  closest %s %s far=%d: got %u (%.17g) want %u (%.17g)\n", xf_names[kind],
                                h[hx].name, far, found ? best.triangle : MQ_NO_TRIANGLE, best_d2, e_tri, e_d2);
                }
            }
    fprintf(stderr, "  instances: %zu cases, %zu overlaps, %zu closest found; failures %zu overlap, %zu closest\n",
            cases, overlaps, closest_found, fail_overlap, fail_closest);
    assert_int_equal(fail_overlap, 0);
    assert_int_equal(fail_closest, 0);
    assert_true(overlaps > 0 && closest_found > 0);
    free(c.seen);
    free_hiers(h, nh);
}

static void instance_queries_spot(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x5CE13));
    mq_mesh *m = load_spot();
    instance_vs_brute(m, &rng, 40 / WALK_SCALE);
    mq_mesh_destroy(m);
}

static void instance_queries_soup(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x5CE14));
    mq_mesh *m = make_soup(&rng);
    instance_vs_brute(m, &rng, 200 / WALK_SCALE);
    mq_mesh_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(box_walk_spot),         cmocka_unit_test(box_walk_soup),
        cmocka_unit_test(box_walk_soup_refit),   cmocka_unit_test(instance_queries_spot),
        cmocka_unit_test(instance_queries_soup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
