/*
 * Scene raycasts (meshquery/scene.h) against brute force in double: every
 * triangle of every instance mapped to the world by its transform (in double)
 * and intersected with the world ray in double (oracle_ray_triangle).
 *
 * Scenes: 36 instances of three test meshes (BVH and OBB-tree instances)
 * under rigid, uniformly scaled, non-uniformly scaled, mirrored and sheared
 * transforms, random masks; rays incoherent, aimed at triangles (direction
 * not unit length), starting inside instances, and with finite [tmin, tmax];
 * random query masks and back-face culling. Checks closest, any and all hits,
 * and that batches equal single queries on 1, 2 and 8 threads.
 *
 * Tolerances (docs/robustness.md "Tolerances", hit positions and ray spans): a case's
 * scale S is the largest |coordinate| of the scene box and the ray origin;
 * t agrees within 2e-6 S / |dir|. Where the double oracle and the float
 * traversal may legitimately decide differently, a difference is explained,
 * and not counted: a hit point within 2e-6 S of its triangle's boundary (the
 * ray grazes an edge: a neighbour, or nothing, may take the hit; and the
 * shared-edge de-duplication drops such hits), a ray within 1e-6 of the
 * triangle's plane (culling may go either way), a t within the band of tmin
 * or tmax, or two hits within the band of each other (a near tie).
 *
 * The large-world test: one mesh at the origin and at (1e7, -3e7, 2e7), the
 * same rotation, answers rays given relative to its placement with the same
 * triangle, and t and points within 1e-6 of the mesh size.
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
#include <meshquery/scene.h>

#include "oracle.h"
#include "test_hits.h"
#include "test_support.h"

#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
#define RAYS_PER_SCENE 400
#define LARGE_WORLD_RAYS 2000
#else
#define RAYS_PER_SCENE 4000
#define LARGE_WORLD_RAYS 20000
#endif
#define INSTANCES 36
#define MESHES 3

/* ---- meshes -------------------------------------------------------------- */

typedef struct tmesh {
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_obbtree *obb;
    double center[3], diag;
} tmesh;

/* data/<name>; a missing file fails the test. */
static void load_mesh(const char *name, tmesh *m)
{
    memset(m, 0, sizeof *m);
    m->mesh = mq_test_load_mesh(name);
    assert_int_equal(mq_bvh_build(m->mesh, NULL, &m->bvh, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(m->mesh, NULL, &m->obb, NULL), MQ_OK);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const float *p = mq_mesh_positions(m->mesh);
    for (size_t i = 0; i < mq_mesh_vertex_count(m->mesh); i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], p[3 * i + k]);
            hi[k] = fmax(hi[k], p[3 * i + k]);
        }
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
        m->center[k] = 0.5 * (lo[k] + hi[k]);
        d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    m->diag = sqrt(d2);
}

static void free_mesh(tmesh *m)
{
    mq_bvh_destroy(m->bvh);
    mq_obbtree_destroy(m->obb);
    mq_mesh_destroy(m->mesh);
}

/* ---- the world by brute force ------------------------------------------- */

typedef struct tinst {
    const tmesh *m;
    uint32_t id, mask;
    oracle_tri *tris; /* mapped to the world in double */
    size_t ntris;
    double lo[3], hi[3]; /* box of the mapped triangles */
} tinst;

typedef struct world {
    tmesh meshes[MESHES];
    tinst inst[INSTANCES];
    int n;
    mq_scene *scene;
    double lo[3], hi[3], extent; /* scene box, largest |coordinate| */
} world;

static oracle_v3 xf_point(const mq_xform *x, const float p[3])
{
    double d[3] = {p[0], p[1], p[2]}, w[3];
    mq_xform_apply_point(x, d, w);
    return oracle_v3_make(w[0], w[1], w[2]);
}

static void map_instance(tinst *t, const tmesh *m, const mq_xform *x)
{
    t->m = m;
    t->ntris = mq_mesh_triangle_count(m->mesh);
    t->tris = malloc(t->ntris * sizeof *t->tris);
    assert_non_null(t->tris);
    for (int k = 0; k < 3; k++) {
        t->lo[k] = INFINITY;
        t->hi[k] = -INFINITY;
    }
    for (size_t i = 0; i < t->ntris; i++) {
        mq_triangle tri;
        mq_mesh_get_triangle(m->mesh, (uint32_t)i, &tri);
        for (int c = 0; c < 3; c++) {
            oracle_v3 w = xf_point(x, tri.v[c]);
            t->tris[i].v[c] = w;
            double a[3] = {w.x, w.y, w.z};
            for (int k = 0; k < 3; k++) {
                t->lo[k] = fmin(t->lo[k], a[k]);
                t->hi[k] = fmax(t->hi[k], a[k]);
            }
        }
    }
}

/* A random linear part of kind 0 rigid, 1 uniform scale, 2 non-uniform, 3 mirrored, 4 sheared. */
static void random_linear(mq_test_rng *g, int kind, double a[3][3])
{
    double q[4], s[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    mq_test_rng_quat(g, q);
    if (kind == 1)
        s[0] = s[1] = s[2] = mq_test_rng_range(g, 0.5, 2.0);
    if (kind >= 2)
        for (int k = 0; k < 3; k++)
            s[k] = mq_test_rng_range(g, 0.3, 3.0);
    if (kind == 3)
        s[mq_test_rng_u64(g) % 3] *= -1.0;
    mq_xform r = mq_xform_from_trs(zero, q, s);
    double shear[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    if (kind == 4) {
        shear[0][1] = mq_test_rng_range(g, -0.8, 0.8);
        shear[0][2] = mq_test_rng_range(g, -0.8, 0.8);
        shear[1][2] = mq_test_rng_range(g, -0.8, 0.8);
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            a[i][j] = r.m[i][0] * shear[0][j] + r.m[i][1] * shear[1][j] + r.m[i][2] * shear[2][j];
}

static void build_world(world *w, uint64_t seed, bool with_bunny)
{
    memset(w, 0, sizeof *w);
    const char *names[MESHES] = {"spot.obj", "suzanne.obj", with_bunny ? "stanford-bunny.obj" : "woody.obj"};
    for (int i = 0; i < MESHES; i++)
        load_mesh(names[i], &w->meshes[i]);
    mq_test_rng g;
    mq_test_rng_seed(&g, seed);
    assert_int_equal(mq_scene_create(NULL, &w->scene, NULL), MQ_OK);
    for (int k = 0; k < 3; k++) {
        w->lo[k] = INFINITY;
        w->hi[k] = -INFINITY;
    }
    for (int i = 0; i < INSTANCES; i++) {
        /* The bunny has 70k triangles: few of them keep brute force affordable. */
        int mi = i % 9 == 0 ? 2 : (i % 2);
        const tmesh *m = &w->meshes[mi];
        double a[3][3], pos[3];
        random_linear(&g, i % 5, a);
        for (int k = 0; k < 3; k++)
            pos[k] = mq_test_rng_range(&g, -4, 4);
        mq_instance_def d = mq_default_instance_def();
        if ((i / 5) % 2)
            d.obbtree = m->obb;
        else
            d.bvh = m->bvh;
        double norm = 1.0 / m->diag; /* every mesh about one unit across */
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++)
                d.transform.m[r][c] = a[r][c] * norm;
            d.transform.m[r][3] = pos[r] - (d.transform.m[r][0] * m->center[0] + d.transform.m[r][1] * m->center[1] +
                                            d.transform.m[r][2] * m->center[2]);
        }
        d.user_id = 1000 + (uint64_t)i;
        d.mask = (uint32_t)(1u << (mq_test_rng_u64(&g) % 4));
        uint32_t id;
        assert_int_equal(mq_scene_add(w->scene, &d, &id, NULL), MQ_OK);
        assert_int_equal(id, (uint32_t)i);
        tinst *t = &w->inst[i];
        t->id = id;
        t->mask = d.mask;
        map_instance(t, m, &d.transform);
        for (int k = 0; k < 3; k++) {
            w->lo[k] = fmin(w->lo[k], t->lo[k]);
            w->hi[k] = fmax(w->hi[k], t->hi[k]);
        }
    }
    w->n = INSTANCES;
    assert_int_equal(mq_scene_commit(w->scene, NULL), MQ_OK);
    w->extent = 0;
    for (int k = 0; k < 3; k++)
        w->extent = fmax(w->extent, fmax(fabs(w->lo[k]), fabs(w->hi[k])));
}

static void free_world(world *w)
{
    for (int i = 0; i < w->n; i++)
        free(w->inst[i].tris);
    for (int i = 0; i < MESHES; i++)
        free_mesh(&w->meshes[i]);
    mq_scene_destroy(w->scene);
}

typedef struct ohit {
    double t;
    uint32_t inst, tri;
    bool back;
} ohit;

typedef struct ohits {
    ohit *h;
    size_t n, cap;
} ohits;

static int ohit_cmp(const void *pa, const void *pb)
{
    const ohit *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->inst != b->inst)
        return a->inst < b->inst ? -1 : 1;
    return a->tri < b->tri ? -1 : a->tri > b->tri;
}

static oracle_ray to_oracle(const mq_dray *r)
{
    oracle_ray o = {oracle_v3_make(r->origin[0], r->origin[1], r->origin[2]),
                    oracle_v3_make(r->dir[0], r->dir[1], r->dir[2]), r->tmin, r->tmax};
    return o;
}

static void brute_force(const world *w, const mq_dray *ray, const mq_scene_query *q, ohits *out)
{
    out->n = 0;
    oracle_ray r = to_oracle(ray);
    for (int i = 0; i < w->n; i++) {
        const tinst *t = &w->inst[i];
        if (!(t->mask & q->mask))
            continue;
        double t0, t1;
        if (!oracle_ray_aabb(&r, oracle_v3_make(t->lo[0], t->lo[1], t->lo[2]),
                             oracle_v3_make(t->hi[0], t->hi[1], t->hi[2]), &t0, &t1))
            continue;
        for (size_t k = 0; k < t->ntris; k++) {
            double th, u, v;
            bool back;
            if (!oracle_ray_triangle(&r, &t->tris[k], &th, &u, &v, &back))
                continue;
            if (q->cull_back_faces && back)
                continue;
            if (out->n == out->cap) {
                out->cap = out->cap ? 2 * out->cap : 64;
                out->h = realloc(out->h, out->cap * sizeof *out->h);
                assert_non_null(out->h);
            }
            out->h[out->n++] = (ohit){th, t->id, (uint32_t)k, back};
        }
    }
    if (out->n > 1)
        qsort(out->h, out->n, sizeof *out->h, ohit_cmp);
}

/* ---- explaining differences --------------------------------------------- */

typedef struct band {
    double len; /* world length */
    double t;   /* in units of t */
} band;

static band case_band(const world *w, const mq_dray *r)
{
    double s = w->extent, dl = 0;
    for (int k = 0; k < 3; k++) {
        s = fmax(s, fabs(r->origin[k]));
        dl += r->dir[k] * r->dir[k];
    }
    band b = {2e-6 * s, 2e-6 * s / sqrt(dl)};
    return b;
}

/* The hit at t on a triangle is within the band of the triangle's boundary,
 * grazes its plane, or lies within the band of tmin or tmax. */
static bool near_boundary(const world *w, const mq_dray *ray, band b, uint32_t inst, uint32_t tri, double t)
{
    const oracle_tri *tr = &w->inst[inst].tris[tri];
    if (fabs(t - ray->tmin) <= b.t || fabs(t - ray->tmax) <= b.t)
        return true;
    oracle_ray r = to_oracle(ray);
    oracle_v3 p = oracle_madd(r.o, r.d, t);
    for (int e = 0; e < 3; e++)
        if (oracle_dist2_point_segment(p, tr->v[e], tr->v[(e + 1) % 3], NULL) <= b.len * b.len)
            return true;
    oracle_v3 n = oracle_normalize(oracle_cross(oracle_sub(tr->v[1], tr->v[0]), oracle_sub(tr->v[2], tr->v[0])));
    return fabs(oracle_dot(oracle_normalize(r.d), n)) <= 1e-6;
}

/* The oracle hit on (inst, tri): a ray crosses a triangle's plane once, so there is at most one. */
static const ohit *find_oracle(const ohits *o, uint32_t inst, uint32_t tri)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->h[i].inst == inst && o->h[i].tri == tri)
            return &o->h[i];
    return NULL;
}

typedef struct stats {
    size_t rays, hits, all_hits, explained, errors;
} stats;

static void report(const char *what, size_t ray, const mq_dray *r, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s, ray %zu (o %.17g %.17g %.17g d %.17g %.17g %.17g [%g, %g]): ", what, ray, r->origin[0],
            r->origin[1], r->origin[2], r->dir[0], r->dir[1], r->dir[2], r->tmin, r->tmax);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The geometry of a matched hit: t, point, normal, side. */
static int check_geometry(const world *w, const mq_dray *ray, band b, const mq_scene_hit *h, const ohit *o)
{
    int err = 0;
    const oracle_tri *tr = &w->inst[h->instance].tris[h->triangle];
    oracle_ray r = to_oracle(ray);
    oracle_v3 p = oracle_madd(r.o, r.d, o->t);
    double dp = oracle_dist(p, oracle_v3_make(h->point[0], h->point[1], h->point[2]));
    oracle_v3 n = oracle_normalize(oracle_cross(oracle_sub(tr->v[1], tr->v[0]), oracle_sub(tr->v[2], tr->v[0])));
    double dn = oracle_dot(n, oracle_v3_make(h->normal[0], h->normal[1], h->normal[2]));
    double grazing = fabs(oracle_dot(oracle_normalize(r.d), n));
    /* A position error e moves t by e / cos(angle to the plane): grazing rays get a wider t band. */
    if (fabs(h->t - o->t) > b.t / fmax(grazing, 1e-3) || dp > b.len / fmax(grazing, 1e-3))
        err++;
    /* The local unit normal is float (6e-8): mapped, it stays that close, except on slivers
     * whose float corners hardly define a plane. */
    oracle_v3 e1 = oracle_sub(tr->v[1], tr->v[0]), e2 = oracle_sub(tr->v[2], tr->v[0]);
    double sliver = oracle_len(oracle_cross(e1, e2)) / fmax(oracle_len2(e1), oracle_len2(e2));
    if (!(dn > 1.0 - (sliver > 1e-3 ? 1e-9 : 1e-5)))
        err++;
    oracle_v3 hp = oracle_v3_make(h->point[0], h->point[1], h->point[2]);
    if (fabs(oracle_dot(oracle_sub(hp, tr->v[0]), n)) > b.len) /* on the plane, whatever the angle */
        err++;
    if (h->back_face != o->back && grazing > 1e-6)
        err++;
    double sl = sqrt(h->shading_normal[0] * h->shading_normal[0] + h->shading_normal[1] * h->shading_normal[1] +
                     h->shading_normal[2] * h->shading_normal[2]);
    if (fabs(sl - 1.0) > 1e-9 || h->user_id != 1000 + h->instance)
        err++;
    return err;
}

/* Closest hit against the oracle. */
static void check_closest(const world *w, size_t i, const mq_dray *ray, const mq_scene_query *q, const ohits *o,
                          const mq_scene_hit *h, bool hit, stats *st)
{
    band b = case_band(w, ray);
    const ohit *first = o->n ? &o->h[0] : NULL;
    if (!hit && !first)
        return;
    if (hit && first && h->instance == first->inst && h->triangle == first->tri) {
        st->hits++;
        if (check_geometry(w, ray, b, h, first)) {
            report("closest", i, ray, "geometry: t %.17g vs %.17g, normal %g %g %g", h->t, first->t, h->normal[0],
                   h->normal[1], h->normal[2]);
            st->errors++;
        }
        return;
    }
    /* Different answers: every oracle hit before the scene's must be a grazing one... */
    bool ok = true;
    for (size_t k = 0; k < o->n; k++) {
        const ohit *x = &o->h[k];
        if (hit && x->t >= h->t - b.t)
            break;
        if (!near_boundary(w, ray, b, x->inst, x->tri, x->t)) {
            ok = false;
            break;
        }
    }
    /* ...and the scene's hit one the oracle also has, or a grazing one. */
    if (ok && hit && !find_oracle(o, h->instance, h->triangle))
        ok = near_boundary(w, ray, b, h->instance, h->triangle, h->t);
    if (!ok) {
        report("closest", i, ray,
               "scene %s (inst %u tri %u t %.17g), oracle %s (inst %u tri %u t %.17g), mask %x cull %d",
               hit ? "hit" : "miss", h->instance, h->triangle, h->t, first ? "hit" : "miss", first ? first->inst : 0,
               first ? first->tri : 0, first ? first->t : 0.0, q->mask, q->cull_back_faces);
        st->errors++;
    } else {
        st->explained++;
    }
}

static bool key_less_or_equal(const mq_scene_hit *a, const mq_scene_hit *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->instance != b->instance)
        return a->instance < b->instance;
    return a->triangle <= b->triangle;
}

/* All hits against the oracle, as multisets within the band; sorted; first = closest. */
static void check_all(const world *w, size_t i, const mq_dray *ray, const ohits *o, const mq_scene_hit *all, size_t n,
                      const mq_scene_hit *closest, bool hit, stats *st)
{
    band b = case_band(w, ray);
    int err = 0;
    if ((n > 0) != hit || (hit && (all[0].t != closest->t || all[0].instance != closest->instance ||
                                   all[0].triangle != closest->triangle))) {
        report("all", i, ray, "first of %zu differs from closest", n);
        err++;
    }
    for (size_t k = 1; k < n; k++)
        if (!key_less_or_equal(&all[k - 1], &all[k]) ||
            (all[k - 1].instance == all[k].instance && all[k - 1].triangle == all[k].triangle &&
             all[k - 1].t == all[k].t)) {
            report("all", i, ray, "not sorted at %zu", k);
            err++;
        }
    for (size_t k = 0; k < n; k++) {
        const mq_scene_hit *h = &all[k];
        const ohit *x = find_oracle(o, h->instance, h->triangle);
        if (x) {
            if (check_geometry(w, ray, b, h, x)) {
                report("all", i, ray, "geometry of hit %zu", k);
                err++;
            }
        } else if (!near_boundary(w, ray, b, h->instance, h->triangle, h->t)) {
            report("all", i, ray, "extra hit inst %u tri %u t %.17g", h->instance, h->triangle, h->t);
            err++;
        } else {
            st->explained++;
        }
    }
    for (size_t k = 0; k < o->n; k++) {
        const ohit *x = &o->h[k];
        bool found = false;
        for (size_t j = 0; j < n && !found; j++)
            found = all[j].instance == x->inst && all[j].triangle == x->tri;
        if (found)
            continue;
        if (!near_boundary(w, ray, b, x->inst, x->tri, x->t)) {
            report("all", i, ray, "missing hit inst %u tri %u t %.17g", x->inst, x->tri, x->t);
            err++;
        } else {
            st->explained++;
        }
    }
    st->all_hits += n;
    st->errors += err != 0;
}

/* ---- rays ---------------------------------------------------------------- */

static void random_point_on(mq_test_rng *g, const tinst *t, double out[3])
{
    const oracle_tri *tr = &t->tris[mq_test_rng_u64(g) % t->ntris];
    double u = mq_test_rng_unit(g), v = mq_test_rng_unit(g);
    if (u + v > 1)
        u = 1 - u, v = 1 - v;
    oracle_v3 p =
        oracle_add(oracle_add(oracle_mul(tr->v[0], 1 - u - v), oracle_mul(tr->v[1], u)), oracle_mul(tr->v[2], v));
    out[0] = p.x, out[1] = p.y, out[2] = p.z;
}

static void random_ray(mq_test_rng *g, const world *w, size_t i, mq_dray *r)
{
    double d[3], o[3];
    const tinst *t = &w->inst[mq_test_rng_u64(g) % (uint64_t)w->n];
    r->tmin = 0;
    r->tmax = INFINITY;
    switch (i % 4) {
    case 0: /* incoherent: anywhere around the scene, any direction */
        for (int k = 0; k < 3; k++)
            o[k] = mq_test_rng_range(g, w->lo[k] - 2, w->hi[k] + 2);
        mq_test_rng_unit_vector(g, d);
        break;
    case 1: { /* aimed at a surface point, direction of length 0.1 to 10 */
        double target[3], u[3], len = exp(mq_test_rng_range(g, log(0.1), log(10.0)));
        random_point_on(g, t, target);
        mq_test_rng_unit_vector(g, u);
        double dist = mq_test_rng_range(g, 0.5, 12);
        for (int k = 0; k < 3; k++) {
            o[k] = target[k] + dist * u[k];
            d[k] = -u[k] * len;
        }
        break;
    }
    case 2: /* starting inside an instance's box */
        for (int k = 0; k < 3; k++)
            o[k] = mq_test_rng_range(g, t->lo[k], t->hi[k]);
        mq_test_rng_unit_vector(g, d);
        break;
    default: { /* a segment through a surface point */
        double target[3];
        random_point_on(g, t, target);
        mq_test_rng_unit_vector(g, d);
        for (int k = 0; k < 3; k++)
            o[k] = target[k] - 3 * d[k];
        r->tmin = mq_test_rng_range(g, 0, 3);
        r->tmax = r->tmin + mq_test_rng_range(g, 0, 3);
        break;
    }
    }
    for (int k = 0; k < 3; k++) {
        r->origin[k] = o[k];
        r->dir[k] = d[k];
    }
}

static mq_scene_query random_query(mq_test_rng *g, size_t i)
{
    mq_scene_query q = mq_default_scene_query();
    if (i % 3 == 1)
        q.mask = (uint32_t)(1 + mq_test_rng_u64(g) % 15);
    q.cull_back_faces = i % 4 == 3;
    return q;
}

/*
 * Batches equal single queries whatever the thread count, for one query over
 * all rays: a mask, back-face culling (mirrored and OBB-tree instances take
 * the filtered path), and the defaults (NULL). The rays, with a few that the
 * batch must hand to the single-ray code: invalid ones, an origin beyond the
 * float walk's range, a negative tmin, an empty [tmin, tmax].
 */
static void check_batches(const world *w, mq_test_rng *g, const mq_dray *random_rays, size_t n_random)
{
    size_t n = n_random + 8;
    mq_dray *rays = malloc(n * sizeof *rays);
    mq_scene_hit *single = malloc(n * sizeof *single), *bh = malloc(n * sizeof *bh);
    bool *any = malloc(n * sizeof *any), *bo = malloc(n * sizeof *bo);
    assert_true(rays && single && bh && any && bo);
    memcpy(rays, random_rays, n_random * sizeof *rays);
    for (size_t i = n_random; i < n; i++)
        random_ray(g, w, i, &rays[i]);
    /* Specials at random places, among rays the batch traces interleaved. */
    mq_dray *sp[8];
    for (int k = 0; k < 8; k++)
        sp[k] = &rays[(size_t)(mq_test_rng_u64(g) % n)];
    sp[0]->dir[0] = NAN;
    sp[1]->dir[0] = sp[1]->dir[1] = sp[1]->dir[2] = 0.0;
    sp[2]->origin[1] = 1e20; /* beyond the float test's range: the double walk */
    sp[3]->tmin = -5.0;
    sp[4]->tmin = 3.0;
    sp[4]->tmax = 2.0;
    sp[5]->origin[2] = INFINITY;
    sp[6]->tmax = 0.5;
    sp[7]->dir[2] *= 1e-30;
    mq_scene_query mask = mq_default_scene_query(), cull = mq_default_scene_query();
    mask.mask = 0xB;
    cull.cull_back_faces = true;
    const mq_scene_query *queries[3] = {&mask, &cull, NULL};
    const uint32_t threads[3] = {1, 2, 8};
    for (int qi = 0; qi < 3; qi++) {
        const mq_scene_query *q = queries[qi];
        size_t want = 0, want_occ = 0;
        for (size_t i = 0; i < n; i++) {
            want += mq_scene_raycast_closest(w->scene, &rays[i], q, &single[i]);
            any[i] = mq_scene_raycast_any(w->scene, &rays[i], q);
            want_occ += any[i];
        }
        for (int t = 0; t < 3; t++) {
            memset(bh, 0xAB, n * sizeof *bh);
            assert_int_equal(mq_scene_raycast_closest_batch(w->scene, rays, n, q, threads[t], bh), want);
            for (size_t i = 0; i < n; i++)
                mq_test_assert_same_scene_hit(&bh[i], &single[i]);
            assert_int_equal(mq_scene_raycast_any_batch(w->scene, rays, n, q, threads[t], bo), want_occ);
            for (size_t i = 0; i < n; i++)
                assert_int_equal(bo[i], any[i]);
        }
    }
    free(rays);
    free(single);
    free(bh);
    free(any);
    free(bo);
}

/* ---- tests --------------------------------------------------------------- */

static void run_world(bool with_bunny, uint64_t seed)
{
    world w;
    build_world(&w, mq_test_seed(seed), with_bunny);
    mq_test_rng g;
    mq_test_rng_seed(&g, mq_test_seed(seed) + 1);
    size_t n = RAYS_PER_SCENE;
    mq_dray *rays = calloc(n, sizeof *rays);
    mq_scene_query *qs = calloc(n, sizeof *qs);
    mq_scene_hit *single = calloc(n, sizeof *single);
    bool *any = calloc(n, sizeof *any);
    assert_true(rays && qs && single && any);
    ohits o = {NULL, 0, 0};
    size_t cap = 4096;
    mq_scene_hit *all = malloc(cap * sizeof *all);
    stats st = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        random_ray(&g, &w, i, &rays[i]);
        qs[i] = random_query(&g, i);
        const mq_dray *r = &rays[i];
        bool hit = mq_scene_raycast_closest(w.scene, r, &qs[i], &single[i]);
        any[i] = mq_scene_raycast_any(w.scene, r, &qs[i]);
        brute_force(&w, r, &qs[i], &o);
        check_closest(&w, i, r, &qs[i], &o, &single[i], hit, &st);
        if (any[i] != hit) {
            report("any", i, r, "any %d, closest %d", any[i], hit);
            st.errors++;
        }
        size_t total = mq_scene_raycast_all(w.scene, r, &qs[i], all, cap);
        assert_true(total <= cap);
        check_all(&w, i, r, &o, all, total, &single[i], hit, &st);
        st.rays++;
    }
    fprintf(stderr, "scene rays (%s): %zu rays, %zu closest hits matched, %zu all-hits, %zu explained, %zu errors\n",
            with_bunny ? "bunny" : "woody", st.rays, st.hits, st.all_hits, st.explained, st.errors);
    assert_int_equal(st.errors, 0);
    assert_true(st.hits > n / 8);

    check_batches(&w, &g, rays, n);
    free(all);
    free(o.h);
    free(rays);
    free(qs);
    free(single);
    free(any);
    free_world(&w);
}

static void test_scene_rays_small_meshes(void **state)
{
    (void)state;
    run_world(false, 0x5CE9E1);
}

static void test_scene_rays_with_bunny(void **state)
{
    (void)state;
    run_world(true, 0xB7AA7);
}

/* Early stop of each, and all with a small array: the nearest, and the total. */
typedef struct stop_ctx {
    size_t calls, stop_at;
} stop_ctx;

static bool stop_after(const mq_scene_hit *h, void *user)
{
    (void)h;
    stop_ctx *c = user;
    return ++c->calls < c->stop_at;
}

static void test_each_stop_and_capacity(void **state)
{
    (void)state;
    world w;
    build_world(&w, mq_test_seed(77), false);
    mq_test_rng g;
    mq_test_rng_seed(&g, 78);
    mq_scene_hit full[512], part[3];
    size_t tested = 0;
    for (int i = 0; i < 300; i++) {
        mq_dray r;
        random_ray(&g, &w, 2, &r); /* from inside: many hits */
        size_t total = mq_scene_raycast_all(w.scene, &r, NULL, full, 512);
        assert_true(total <= 512);
        assert_int_equal(mq_scene_raycast_all(w.scene, &r, NULL, NULL, 0), total);
        size_t got = mq_scene_raycast_all(w.scene, &r, NULL, part, 3);
        assert_int_equal(got, total);
        for (size_t k = 0; k < 3 && k < total; k++)
            assert_memory_equal(&part[k], &full[k], sizeof part[k]);
        if (total >= 2) {
            stop_ctx c = {0, 2};
            assert_int_equal(mq_scene_raycast_each(w.scene, &r, NULL, stop_after, &c), 2);
            tested++;
        }
    }
    assert_true(tested > 30);
    free_world(&w);
}

/* The same mesh at the origin and 1e7 away (same rotation): the same answers, relative to the placement. */
static void test_large_world(void **state)
{
    (void)state;
    tmesh m;
    load_mesh("spot.obj", &m);
    mq_test_rng g;
    mq_test_rng_seed(&g, mq_test_seed(0x1E7));
    const double far[3] = {1e7, -3e7, 2e7};
    for (int variant = 0; variant < 4; variant++) {
        bool obb = variant & 1, scaled = variant & 2;
        double q[4], s[3] = {1, 1, 1};
        mq_test_rng_quat(&g, q);
        if (scaled)
            s[0] = 0.5, s[1] = 2.0, s[2] = -1.5;
        const double zero[3] = {0, 0, 0};
        mq_xform near_xf = mq_xform_from_trs(zero, q, s), far_xf = mq_xform_from_trs(far, q, s);
        mq_scene *sn, *sf;
        assert_int_equal(mq_scene_create(NULL, &sn, NULL), MQ_OK);
        assert_int_equal(mq_scene_create(NULL, &sf, NULL), MQ_OK);
        mq_instance_def d = mq_default_instance_def();
        if (obb)
            d.obbtree = m.obb;
        else
            d.bvh = m.bvh;
        uint32_t id;
        d.transform = near_xf;
        assert_int_equal(mq_scene_add(sn, &d, &id, NULL), MQ_OK);
        d.transform = far_xf;
        assert_int_equal(mq_scene_add(sf, &d, &id, NULL), MQ_OK);
        assert_int_equal(mq_scene_commit(sn, NULL), MQ_OK);
        assert_int_equal(mq_scene_commit(sf, NULL), MQ_OK);
        tinst t;
        map_instance(&t, &m, &near_xf);
        double size = 0;
        for (int k = 0; k < 3; k++)
            size = fmax(size, t.hi[k] - t.lo[k]);
        size_t hits = 0, skipped = 0;
        for (int i = 0; i < LARGE_WORLD_RAYS; i++) {
            /* Aimed at a point well inside a triangle: no edge decisions. */
            const oracle_tri *tr = &t.tris[mq_test_rng_u64(&g) % t.ntris];
            double u = mq_test_rng_range(&g, 0.15, 0.45), v = mq_test_rng_range(&g, 0.15, 0.45), dir[3];
            oracle_v3 p = oracle_add(oracle_add(oracle_mul(tr->v[0], 1 - u - v), oracle_mul(tr->v[1], u)),
                                     oracle_mul(tr->v[2], v));
            mq_test_rng_unit_vector(&g, dir);
            double dist = mq_test_rng_range(&g, 0.5, 3) * size;
            mq_dray rn = {{p.x + dist * dir[0], p.y + dist * dir[1], p.z + dist * dir[2]},
                          0,
                          {-dir[0], -dir[1], -dir[2]},
                          INFINITY};
            mq_dray rf = rn;
            for (int k = 0; k < 3; k++)
                rf.origin[k] += far[k];
            mq_scene_hit hn, hf;
            bool an = mq_scene_raycast_closest(sn, &rn, NULL, &hn), af = mq_scene_raycast_closest(sf, &rf, NULL, &hf);
            assert_int_equal(an, af);
            if (!an)
                continue;
            /* At grazing angles any rounding of the local origin moves t by 1/cos: compare the rest. */
            double cosine = fabs(hn.normal[0] * dir[0] + hn.normal[1] * dir[1] + hn.normal[2] * dir[2]);
            if (cosine < 0.1) {
                skipped++;
                continue;
            }
            /* A hit near another triangle's edge may legitimately go either way: skip those. */
            if (hn.triangle != hf.triangle && fabs(hn.t - hf.t) <= 1e-6 * size) {
                skipped++;
                continue;
            }
            if (hn.triangle != hf.triangle || fabs(hn.t - hf.t) > 1e-6 * size) {
                fprintf(stderr, "large world variant %d ray %d: tri %u vs %u, t %.17g vs %.17g\n", variant, i,
                        hn.triangle, hf.triangle, hn.t, hf.t);
                fail();
            }
            for (int k = 0; k < 3; k++)
                assert_true(fabs((hf.point[k] - far[k]) - hn.point[k]) <= 1e-6 * size);
            for (int k = 0; k < 3; k++)
                assert_true(fabs(hf.normal[k] - hn.normal[k]) <= 1e-6);
            hits++;
        }
        fprintf(stderr, "large world variant %d: %zu hits equal, %zu grazing or edge ties skipped\n", variant, hits,
                skipped);
        assert_true(hits > LARGE_WORLD_RAYS / 2);
        free(t.tris);
        mq_scene_destroy(sn);
        mq_scene_destroy(sf);
    }
    free_mesh(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scene_rays_small_meshes),
        cmocka_unit_test(test_scene_rays_with_bunny),
        cmocka_unit_test(test_each_stop_and_capacity),
        cmocka_unit_test(test_large_world),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
