/*
 * The differential tests of the k-DOP tree and the sphere tree (one
 * executable per tree: test_diff_kdoptree.c, test_diff_spheretree.c), both
 * trees reached through one table of their queries. Every query against brute
 * force over all triangles, on every test mesh (data/): shape overlaps (the
 * shared generator, tests/support/gen_shapes.h, random and touching shapes of
 * every kind, every form), closest-hit and any-hit rays (plain, back faces
 * culled, a filter), closest points (bounded, unbounded, on vertices), mesh
 * vs mesh under random rigid transforms and the identity, and refit.
 * Answers must be equal: the same sets, the same triangle, t, u, v, point.
 */
#ifndef MQ_TEST_DIFF_KDOPTREE_COMMON_H
#define MQ_TEST_DIFF_KDOPTREE_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>
#include <meshquery/kdoptree.h>
#include <meshquery/spheretree.h>

#include "gen_shapes.h"
#include "test_support.h"

#if defined(__OPTIMIZE__)
#define KT_SCALE 1.0
#else
#define KT_SCALE 0.25
#endif

static const char *const kt_meshes[] = {"suzanne.obj", "woody.obj",   "spot.obj",          "cow.obj",
                                        "teapot.obj",  "fandisk.obj", "stanford-bunny.obj"};
#define KT_MESH_COUNT (sizeof kt_meshes / sizeof kt_meshes[0])

/* One tree kind's queries, on an opaque tree. */
typedef struct kt_api {
    const char *name;
    void *(*build)(const mq_mesh *m, int variant); /* NULL: no such variant */
    void (*destroy)(void *t);
    size_t (*overlap)(const void *t, const mq_shape *q, mq_overlap_fn fn, void *user);
    size_t (*overlap_array)(const void *t, const mq_shape *q, uint32_t *out, size_t cap);
    bool (*overlap_any)(const void *t, const mq_shape *q);
    bool (*ray_closest)(const void *t, const mq_ray *r, const mq_ray_query *q, mq_hit *out);
    bool (*ray_any)(const void *t, const mq_ray *r, const mq_ray_query *q);
    bool (*closest)(const void *t, const vec3 p, float maxd, mq_point_hit *out);
    size_t (*collide_array)(const void *a, const void *b, const mq_rigid *xf, mq_tri_pair *out, size_t cap);
    bool (*any_collide)(const void *a, const void *b, const mq_rigid *xf);
    mq_status (*refit)(void *t, const float *positions);
} kt_api;

static const kt_api *kt_current;

static size_t kt_array(const void *t, const mq_shape *q, uint32_t *out, size_t cap)
{
    return kt_current->overlap_array(t, q, out, cap);
}
static bool kt_any(const void *t, const mq_shape *q)
{
    return kt_current->overlap_any(t, q);
}
static size_t kt_each(const void *t, const mq_shape *q, mq_overlap_fn fn, void *user)
{
    return kt_current->overlap(t, q, fn, user);
}

#define KT_VARIANTS 4

/* ---- shape overlaps ---- */

static size_t kt_run_overlaps(const kt_api *api)
{
    kt_current = api;
    const gen_index_ops ops = {api->name, kt_array, kt_any, kt_each};
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xD0B70001));
    size_t per_shape = (size_t)(1500 * KT_SCALE), mismatches = 0;
    for (size_t mi = 0; mi < KT_MESH_COUNT; mi++) {
        mq_mesh *mesh = mq_test_load_mesh(kt_meshes[mi]);
        mq_aabb box;
        double D = gen_bounds(mesh, &box);
        gen_tri_boxes tb = gen_tri_boxes_make(mesh);
        void *trees[KT_VARIANTS];
        const void *indexes[KT_VARIANTS];
        const char *names[KT_VARIANTS] = {"v0", "v1", "v2", "v3"};
        size_t nv = 0;
        for (int v = 0; v < KT_VARIANTS; v++) {
            void *t = api->build(mesh, v);
            if (t) {
                trees[nv] = t;
                indexes[nv] = t;
                nv++;
            }
        }
        gen_check cs;
        gen_check_init(&cs, tb.count);
        for (int kind = 0; kind < GEN_SHAPE_KINDS; kind++) {
            for (size_t i = 0; i < per_shape; i++) {
                mq_shape q;
                gen_shape_random(&rng, (mq_shape_kind)kind, &box, D, &q);
                gen_check_query(&cs, &tb, &ops, indexes, names, nv, &q, (float)(1e-3 * D), kt_meshes[mi]);
            }
            for (size_t i = 0; i < per_shape / 5; i++) {
                mq_shape q;
                gen_shape_touching(&rng, (mq_shape_kind)kind, &tb, 0.0, &q);
                gen_check_query(&cs, &tb, &ops, indexes, names, nv, &q, (float)(1e-3 * D), kt_meshes[mi]);
            }
        }
        fprintf(stderr, "  %s %-18s %zu non-empty, %zu overlaps, %zu mismatches\n", api->name, kt_meshes[mi],
                cs.nonempty, cs.total_hits, cs.mismatches);
        mismatches += cs.mismatches;
        gen_check_free(&cs);
        for (size_t v = 0; v < nv; v++)
            api->destroy(trees[v]);
        gen_tri_boxes_free(&tb);
        mq_mesh_destroy(mesh);
    }
    return mismatches;
}

/* ---- rays and closest points ---- */

typedef struct kt_hit {
    bool found;
    uint32_t tri;
    mq_triangle_hit h;
} kt_hit;

static bool kt_filter_odd(const mq_hit *h, void *user)
{
    (void)user;
    return (h->triangle & 1u) != 0;
}

static kt_hit kt_brute_ray(const gen_tri_boxes *tb, const mq_ray *ray, int mode)
{
    kt_hit best = {false, 0, {0}};
    for (size_t i = 0; i < tb->count; i++) {
        mq_triangle_hit h;
        if (!mq_raycast_triangle(ray, &tb->tris[i], &h))
            continue;
        if ((mode == 1 && h.back_face) || (mode == 2 && !(i & 1u)))
            continue;
        if (!best.found || h.t < best.h.t)
            best = (kt_hit){true, (uint32_t)i, h};
    }
    return best;
}

static size_t kt_check_ray(const kt_api *api, const void *t, const gen_tri_boxes *tb, const mq_ray *ray)
{
    size_t bad = 0;
    for (int mode = 0; mode < 3; mode++) {
        mq_ray_query q = {.cull_back_faces = mode == 1};
        q.filter = mode == 2 ? kt_filter_odd : NULL;
        kt_hit b = kt_brute_ray(tb, ray, mode);
        mq_hit h;
        bool hit = api->ray_closest(t, ray, &q, &h);
        bool ok = hit == b.found && api->ray_any(t, ray, &q) == b.found;
        if (ok && hit)
            ok = h.triangle == b.tri && h.t == b.h.t && h.u == b.h.u && h.v == b.h.v;
        if (ok && !hit)
            ok = h.triangle == MQ_NO_TRIANGLE;
        if (!ok && bad++ < 3)
            fprintf(stderr, "  %s ray mismatch (mode %d): %.9g %.9g %.9g  %.9g %.9g %.9g: got %d %u, want %d %u\n",
                    api->name, mode, (double)ray->origin[0], (double)ray->origin[1], (double)ray->origin[2],
                    (double)ray->dir[0], (double)ray->dir[1], (double)ray->dir[2], hit, h.triangle, b.found, b.tri);
    }
    return bad;
}

static size_t kt_check_point(const kt_api *api, const void *t, const gen_tri_boxes *tb, const vec3 p, float maxd)
{
    bool found = false;
    float best = maxd * maxd;
    uint32_t tri = 0;
    vec3 bp = {0, 0, 0};
    for (size_t i = 0; i < tb->count; i++) {
        vec3 q;
        float d2 = mq_closest_point_triangle(p, &tb->tris[i], q, NULL);
        if (d2 < best || (d2 == best && !found)) {
            found = true;
            best = d2;
            tri = (uint32_t)i;
            memcpy(bp, q, sizeof bp);
        }
    }
    mq_point_hit h;
    bool got = api->closest(t, p, maxd, &h);
    bool ok = got == found && (!got || (h.triangle == tri && memcmp(h.point, bp, sizeof bp) == 0));
    if (!ok)
        fprintf(stderr, "  %s closest mismatch at %.9g %.9g %.9g (max %g): got %d %u, want %d %u\n", api->name,
                (double)p[0], (double)p[1], (double)p[2], (double)maxd, got, got ? h.triangle : 0, found, tri);
    return !ok;
}

static void kt_random_ray(mq_test_rng *rng, const mq_aabb *box, double D, mq_ray *r, int kind, const gen_tri_boxes *tb)
{
    double dir[3];
    mq_test_rng_unit_vector(rng, dir);
    vec3 p;
    gen_point_in(rng, box, p);
    if (kind == 0) { /* from outside, through the box */
        for (int k = 0; k < 3; k++) {
            r->origin[k] = (float)(p[k] - D * dir[k]);
            r->dir[k] = (float)dir[k];
        }
        r->tmin = 0.0f;
        r->tmax = INFINITY;
    } else if (kind == 1) { /* short segment inside */
        for (int k = 0; k < 3; k++) {
            r->origin[k] = p[k];
            r->dir[k] = (float)dir[k];
        }
        r->tmin = 0.0f;
        r->tmax = (float)(0.05 * D);
    } else { /* aimed exactly at a vertex */
        const mq_triangle *t = &tb->tris[mq_test_rng_u64(rng) % tb->count];
        const float *v = t->v[mq_test_rng_u64(rng) % 3];
        for (int k = 0; k < 3; k++) {
            r->origin[k] = (float)(v[k] - D * dir[k]);
            r->dir[k] = (float)dir[k];
        }
        r->tmin = 0.0f;
        r->tmax = INFINITY;
    }
}

static size_t kt_run_rays_points(const kt_api *api)
{
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xD0B70002));
    size_t n = (size_t)(300 * KT_SCALE), bad = 0;
    for (size_t mi = 0; mi < KT_MESH_COUNT; mi++) {
        mq_mesh *mesh = mq_test_load_mesh(kt_meshes[mi]);
        mq_aabb box;
        double D = gen_bounds(mesh, &box);
        gen_tri_boxes tb = gen_tri_boxes_make(mesh);
        for (int v = 0; v < KT_VARIANTS; v++) {
            void *t = api->build(mesh, v);
            if (!t)
                continue;
            for (size_t i = 0; i < n; i++) {
                mq_ray r;
                kt_random_ray(&rng, &box, D, &r, (int)(i % 3), &tb);
                bad += kt_check_ray(api, t, &tb, &r);
                vec3 p;
                gen_point_in(&rng, &box, p);
                float maxd = i % 4 == 0 ? INFINITY : (float)(D * pow(10.0, mq_test_rng_range(&rng, -3.0, -0.5)));
                if (i % 5 == 0) /* on a vertex: distance 0, ties */
                    memcpy(p, tb.tris[mq_test_rng_u64(&rng) % tb.count].v[0], sizeof p);
                bad += kt_check_point(api, t, &tb, p, maxd);
            }
            api->destroy(t);
        }
        gen_tri_boxes_free(&tb);
        mq_mesh_destroy(mesh);
    }
    return bad;
}

/* ---- mesh vs mesh ---- */

static int kt_cmp_pair(const void *x, const void *y)
{
    const mq_tri_pair *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static size_t kt_brute_pairs(const gen_tri_boxes *ta, const gen_tri_boxes *tb, const mq_rigid *xf, float margin,
                             mq_tri_pair **out)
{
    size_t cap = 1024, count = 0;
    *out = malloc(cap * sizeof **out);
    mq_triangle *moved = malloc(tb->count * sizeof *moved + 1);
    mq_aabb *boxes = malloc(tb->count * sizeof *boxes + 1);
    for (size_t j = 0; j < tb->count; j++) {
        for (int v = 0; v < 3; v++)
            mq_rigid_apply(xf, tb->tris[j].v[v], moved[j].v[v]);
        for (int k = 0; k < 3; k++) {
            boxes[j].min[k] = fminf(fminf(moved[j].v[0][k], moved[j].v[1][k]), moved[j].v[2][k]);
            boxes[j].max[k] = fmaxf(fmaxf(moved[j].v[0][k], moved[j].v[1][k]), moved[j].v[2][k]);
        }
    }
    for (size_t i = 0; i < ta->count; i++)
        for (size_t j = 0; j < tb->count; j++)
            if (!gen_far_apart(&ta->boxes[i], &boxes[j], margin) &&
                mq_overlap_triangle_triangle(&ta->tris[i], &moved[j])) {
                if (count == cap)
                    *out = realloc(*out, (cap *= 2) * sizeof **out);
                (*out)[count++] = (mq_tri_pair){(uint32_t)i, (uint32_t)j};
            }
    free(moved);
    free(boxes);
    return count;
}

static size_t kt_run_collide(const kt_api *api)
{
    static const char *const pairs[][2] = {
        {"suzanne.obj", "suzanne.obj"}, {"suzanne.obj", "woody.obj"}, {"woody.obj", "woody.obj"}};
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xD0B70003));
    size_t bad = 0, nonempty = 0, transforms = (size_t)(60 * KT_SCALE) + 4;
    for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        mq_mesh *ma = mq_test_load_mesh(pairs[pi][0]), *mb = mq_test_load_mesh(pairs[pi][1]);
        mq_aabb ba, bb;
        double D = gen_bounds(ma, &ba);
        gen_bounds(mb, &bb);
        gen_tri_boxes ta = gen_tri_boxes_make(ma), tb = gen_tri_boxes_make(mb);
        void *a = api->build(ma, 0), *b = api->build(mb, (int)(pi % KT_VARIANTS));
        if (!b)
            b = api->build(mb, 0);
        for (size_t i = 0; i < transforms; i++) {
            double q[4] = {1, 0, 0, 0}, off[3];
            if (i >= 2)
                mq_test_rng_quat(&rng, q);
            mq_test_rng_unit_vector(&rng, off);
            double s = i == 0 ? 0.0 : i == 1 ? 1e-4 * D : mq_test_rng_range(&rng, 0.0, 0.4) * D;
            mq_rigid xf = {{(float)q[0], (float)q[1], (float)q[2], (float)q[3]}, {0, 0, 0}};
            vec3 cb, rcb;
            for (int k = 0; k < 3; k++)
                cb[k] = 0.5f * (bb.min[k] + bb.max[k]);
            mq_rigid_apply(&xf, cb, rcb);
            for (int k = 0; k < 3; k++)
                xf.translation[k] = (float)(0.5 * ((double)ba.min[k] + ba.max[k]) - rcb[k] + s * off[k]);
            mq_tri_pair *want;
            size_t nw = kt_brute_pairs(&ta, &tb, &xf, (float)(1e-3 * D), &want);
            size_t ng = api->collide_array(a, b, &xf, NULL, 0);
            mq_tri_pair *got = malloc((ng + 1) * sizeof *got);
            api->collide_array(a, b, &xf, got, ng);
            qsort(want, nw, sizeof *want, kt_cmp_pair);
            qsort(got, ng, sizeof *got, kt_cmp_pair);
            bool ok = nw == ng && (nw == 0 || memcmp(want, got, nw * sizeof *got) == 0) &&
                      api->any_collide(a, b, &xf) == (nw > 0);
            if (!ok && bad++ < 3)
                fprintf(stderr, "  %s collide mismatch %s/%s transform %zu: got %zu pairs, want %zu\n", api->name,
                        pairs[pi][0], pairs[pi][1], i, ng, nw);
            nonempty += nw > 0;
            free(want);
            free(got);
        }
        api->destroy(a);
        api->destroy(b);
        gen_tri_boxes_free(&ta);
        gen_tri_boxes_free(&tb);
        mq_mesh_destroy(ma);
        mq_mesh_destroy(mb);
    }
    fprintf(stderr, "  %s collide: %zu non-empty transforms\n", api->name, nonempty);
    return bad + (nonempty == 0);
}

/* ---- refit: moved vertices, same answers as brute force on the moved mesh ---- */

static size_t kt_run_refit(const kt_api *api)
{
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xD0B70004));
    mq_mesh *mesh = mq_test_load_mesh("suzanne.obj");
    size_t nv = mq_mesh_vertex_count(mesh);
    const float *pos = mq_mesh_positions(mesh);
    float *moved = malloc(nv * 3 * sizeof *moved);
    for (size_t i = 0; i < nv; i++) /* a shear and a wobble: the old volumes no longer hold */
        for (int k = 0; k < 3; k++)
            moved[3 * i + k] = pos[3 * i + k] * 1.3f + 0.4f * pos[3 * i + (k + 1) % 3] +
                               0.05f * (float)mq_test_rng_range(&rng, -1.0, 1.0);
    void *t = api->build(mesh, 0);
    size_t bad = api->refit(t, moved) != MQ_OK;
    /* the moved triangles, as brute force sees them */
    gen_tri_boxes tb = gen_tri_boxes_make(mesh);
    for (size_t i = 0; i < tb.count; i++) {
        const uint32_t *ix = mq_mesh_indices(mesh) + 3 * i;
        for (int v = 0; v < 3; v++) {
            for (int k = 0; k < 3; k++)
                tb.tris[i].v[v][k] = moved[3 * (size_t)ix[v] + (size_t)k];
        }
        for (int k = 0; k < 3; k++) {
            tb.boxes[i].min[k] = fminf(fminf(tb.tris[i].v[0][k], tb.tris[i].v[1][k]), tb.tris[i].v[2][k]);
            tb.boxes[i].max[k] = fmaxf(fmaxf(tb.tris[i].v[0][k], tb.tris[i].v[1][k]), tb.tris[i].v[2][k]);
        }
    }
    mq_aabb box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (size_t i = 0; i < tb.count; i++)
        for (int k = 0; k < 3; k++) {
            box.min[k] = fminf(box.min[k], tb.boxes[i].min[k]);
            box.max[k] = fmaxf(box.max[k], tb.boxes[i].max[k]);
        }
    double D =
        sqrt(pow(box.max[0] - box.min[0], 2) + pow(box.max[1] - box.min[1], 2) + pow(box.max[2] - box.min[2], 2));
    uint32_t *want = malloc(tb.count * sizeof *want), *got = malloc(tb.count * sizeof *got);
    for (int i = 0; i < 400; i++) {
        mq_shape q;
        gen_shape_random(&rng, (mq_shape_kind)(i % GEN_SHAPE_KINDS), &box, D, &q);
        size_t nw = gen_brute(&tb, &q, (float)(1e-3 * D), want);
        size_t ng = api->overlap_array(t, &q, got, tb.count);
        qsort(want, nw, sizeof *want, gen_cmp_u32);
        qsort(got, ng < tb.count ? ng : tb.count, sizeof *got, gen_cmp_u32);
        bad += !(nw == ng && (nw == 0 || memcmp(want, got, nw * sizeof *got) == 0));
        mq_ray r;
        kt_random_ray(&rng, &box, D, &r, i % 3, &tb);
        bad += kt_check_ray(api, t, &tb, &r);
        vec3 p;
        gen_point_in(&rng, &box, p);
        bad += kt_check_point(api, t, &tb, p, INFINITY);
    }
    free(want);
    free(got);
    gen_tri_boxes_free(&tb);
    api->destroy(t);
    free(moved);
    mq_mesh_destroy(mesh);
    return bad;
}

#endif
