/*
 * Helpers shared by the BVH differential tests (header-only: each test is its
 * own executable): mesh loading, the ray generators of docs/formats.md,
 * and the brute-force reference — every triangle through the public scalar
 * mq_raycast_triangle, which shares nothing with the BVH's kernels but the
 * watertight test's edge functions.
 *
 * Tolerance: the BVH computes t = T / det in float (Woop et al.), the
 * primitive divides in double; the two may differ in the last bits. Hits are
 * matched when |t1 - t2| <= bvh_tol(t) = 1e-5 * (|t| + D) (D = mesh diagonal,
 * rays of unit direction), which is ~100 ulp: far above that disagreement,
 * far below the spacing of distinct surfaces in the test meshes. Answers that
 * differ only by a hit within that tolerance of tmin or tmax, or by a tie
 * between two triangles at equal t, are not errors.
 */
#ifndef MQ_TEST_DIFF_BVH_COMMON_H
#define MQ_TEST_DIFF_BVH_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/bvh.h>
#include <meshquery/meshquery.h>
#include <meshquery/obj.h>

#include "test_support.h"

static const char *const bvh_meshes[] = {"suzanne.obj", "woody.obj",   "spot.obj",          "cow.obj",
                                         "teapot.obj",  "fandisk.obj", "stanford-bunny.obj"};
#define BVH_MESH_COUNT (sizeof bvh_meshes / sizeof bvh_meshes[0])

typedef struct bvh_box {
    double lo[3], hi[3], c[3], diag;
} bvh_box;

static bvh_box bvh_mesh_box(const mq_mesh *m)
{
    bvh_box b;
    for (int k = 0; k < 3; k++) {
        b.lo[k] = INFINITY;
        b.hi[k] = -INFINITY;
    }
    const float *p = mq_mesh_positions(m);
    for (size_t i = 0; i < mq_mesh_vertex_count(m); i++)
        for (int k = 0; k < 3; k++) {
            b.lo[k] = fmin(b.lo[k], p[3 * i + k]);
            b.hi[k] = fmax(b.hi[k], p[3 * i + k]);
        }
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
        b.c[k] = 0.5 * (b.lo[k] + b.hi[k]);
        d2 += (b.hi[k] - b.lo[k]) * (b.hi[k] - b.lo[k]);
    }
    b.diag = sqrt(d2);
    return b;
}

static void bvh_set_ray(mq_ray *r, const double o[3], const double d[3], float tmin, float tmax)
{
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int k = 0; k < 3; k++) {
        r->origin[k] = (float)o[k];
        r->dir[k] = (float)(d[k] / len);
    }
    r->tmin = tmin;
    r->tmax = tmax;
}

/* docs/formats.md "incoherent": from the sphere of radius 1.5 D at a random point in the box. */
static void bvh_ray_incoherent(mq_test_rng *g, const bvh_box *b, mq_ray *r)
{
    double u[3], o[3], target[3], d[3];
    mq_test_rng_unit_vector(g, u);
    for (int k = 0; k < 3; k++) {
        o[k] = b->c[k] + 1.5 * b->diag * u[k];
        target[k] = mq_test_rng_range(g, b->lo[k], b->hi[k]);
        d[k] = target[k] - o[k];
    }
    bvh_set_ray(r, o, d, 0.0f, INFINITY);
}

/* docs/formats.md "short": origin in the box, random unit direction, tmax 0.02 D. */
static void bvh_ray_short(mq_test_rng *g, const bvh_box *b, mq_ray *r)
{
    double o[3], d[3];
    for (int k = 0; k < 3; k++)
        o[k] = mq_test_rng_range(g, b->lo[k], b->hi[k]);
    mq_test_rng_unit_vector(g, d);
    bvh_set_ray(r, o, d, 0.0f, (float)(0.02 * b->diag));
}

/* Origin in the box, random direction, unbounded: many hits per ray. */
static void bvh_ray_inside(mq_test_rng *g, const bvh_box *b, mq_ray *r)
{
    double o[3], d[3];
    for (int k = 0; k < 3; k++)
        o[k] = mq_test_rng_range(g, b->lo[k], b->hi[k]);
    mq_test_rng_unit_vector(g, d);
    bvh_set_ray(r, o, d, 0.0f, INFINITY);
}

/* A mix of the three kinds, by index. */
static void bvh_ray_mixed(mq_test_rng *g, const bvh_box *b, size_t i, mq_ray *r)
{
    switch (i % 3) {
    case 0:
        bvh_ray_incoherent(g, b, r);
        break;
    case 1:
        bvh_ray_short(g, b, r);
        break;
    default:
        bvh_ray_inside(g, b, r);
        break;
    }
}

static double bvh_tol(const bvh_box *b, double t)
{
    return 1e-5 * (fabs(t) + b->diag);
}

/* Every hit of one ray by brute force, sorted by (t, id). */
typedef struct bf_hit {
    float t;
    uint32_t id;
} bf_hit;

typedef struct bf_hits {
    bf_hit *h;
    size_t count, capacity;
} bf_hits;

static int bf_cmp(const void *a, const void *b)
{
    const bf_hit *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static void bf_push(bf_hits *s, float t, uint32_t id)
{
    if (s->count == s->capacity) {
        s->capacity = s->capacity ? 2 * s->capacity : 16;
        s->h = realloc(s->h, s->capacity * sizeof *s->h);
        if (!s->h)
            abort();
    }
    s->h[s->count++] = (bf_hit){t, id};
}

/* positions: NULL for the mesh's own (else a replacement, for refit tests). */
static void bf_all(const mq_mesh *m, const float *positions, const mq_ray *r, bool cull, bf_hits *out)
{
    out->count = 0;
    const float *p = positions ? positions : mq_mesh_positions(m);
    const uint32_t *idx = mq_mesh_indices(m);
    size_t n = mq_mesh_triangle_count(m);
    for (size_t i = 0; i < n; i++) {
        mq_triangle tri;
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                tri.v[c][k] = p[3 * (size_t)idx[3 * i + c] + k];
        mq_triangle_hit h;
        if (mq_raycast_triangle(r, &tri, &h) && !(cull && h.back_face))
            bf_push(out, h.t, (uint32_t)i);
    }
    if (out->count > 1)
        qsort(out->h, out->count, sizeof *out->h, bf_cmp);
}

/* True when triangle `id` is in the brute-force set with t within tolerance of `t`. */
static bool bf_has_near(const bf_hits *s, uint32_t id, double t, double tol)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->h[i].id == id && fabs(s->h[i].t - t) <= tol)
            return true;
    return false;
}

/* True when t is within tolerance of the ray's tmin or (finite) tmax. */
static bool bvh_near_ends(const bvh_box *b, const mq_ray *r, double t)
{
    return fabs(t - r->tmin) <= bvh_tol(b, t) || (isfinite(r->tmax) && fabs(t - r->tmax) <= bvh_tol(b, t));
}

#endif
