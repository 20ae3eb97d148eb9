/*
 * Helpers shared by the OBB tree's differential tests (header-only: each test
 * is its own executable): the test meshes, the shape-query generator
 * of docs/formats.md, triangle bounds for brute-force prefilters.
 */
#ifndef MQ_TEST_DIFF_OBBTREE_COMMON_H
#define MQ_TEST_DIFF_OBBTREE_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>
#include <meshquery/obbtree.h>
#include <meshquery/obj.h>

#include "test_support.h"

/* Unoptimised (sanitizer) builds run a quarter of the queries: still
 * thousands per shape over the meshes, in a tolerable time. */
#if defined(__OPTIMIZE__)
#define OBT_SCALE 1.0
#else
#define OBT_SCALE 0.25
#endif

/* The meshes every differential test runs on (data/). */
static const char *const obt_meshes[] = {"suzanne.obj", "woody.obj",   "spot.obj",          "cow.obj",
                                         "teapot.obj",  "fandisk.obj", "stanford-bunny.obj"};
#define OBT_MESH_COUNT (sizeof obt_meshes / sizeof obt_meshes[0])

/* Bounding box of the mesh's vertices, its diagonal length D. */
static inline double obt_bounds(const mq_mesh *m, mq_aabb *box)
{
    const float *p = mq_mesh_positions(m);
    for (int k = 0; k < 3; k++) {
        box->min[k] = INFINITY;
        box->max[k] = -INFINITY;
    }
    for (size_t i = 0; i < mq_mesh_vertex_count(m); i++)
        for (int k = 0; k < 3; k++) {
            box->min[k] = fminf(box->min[k], p[3 * i + (size_t)k]);
            box->max[k] = fmaxf(box->max[k], p[3 * i + (size_t)k]);
        }
    double d2 = 0.0;
    for (int k = 0; k < 3; k++)
        d2 += ((double)box->max[k] - box->min[k]) * ((double)box->max[k] - box->min[k]);
    return sqrt(d2);
}

/* docs/formats.md "shape queries": centres uniform in the box, sizes log-uniform in [0.002 D, 0.05 D]. */
static inline float obt_size(mq_test_rng *r, double D)
{
    return (float)(D * exp(mq_test_rng_range(r, log(0.002), log(0.05))));
}

static inline void obt_point_in(mq_test_rng *r, const mq_aabb *box, vec3 out)
{
    for (int k = 0; k < 3; k++)
        out[k] = (float)mq_test_rng_range(r, box->min[k], box->max[k]);
}

static inline void obt_random_sphere(mq_test_rng *r, const mq_aabb *box, double D, mq_sphere *s)
{
    obt_point_in(r, box, s->center);
    s->radius = obt_size(r, D);
}

/* Capsule segments up to 0.1 D long, in a uniform direction. */
static inline void obt_random_capsule(mq_test_rng *r, const mq_aabb *box, double D, mq_capsule *c)
{
    double dir[3], len = mq_test_rng_range(r, 0.0, 0.1 * D);
    obt_point_in(r, box, c->a);
    mq_test_rng_unit_vector(r, dir);
    for (int k = 0; k < 3; k++)
        c->b[k] = (float)(c->a[k] + len * dir[k]);
    c->radius = obt_size(r, D);
}

static inline void obt_random_obb(mq_test_rng *r, const mq_aabb *box, double D, mq_obb *o)
{
    double q[4];
    vec3 c, h;
    obt_point_in(r, box, c);
    for (int k = 0; k < 3; k++)
        h[k] = obt_size(r, D);
    mq_test_rng_quat(r, q);
    versor qf = {(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
    mq_obb_from_quat(c, h, qf, o);
}

static inline void obt_random_aabb(mq_test_rng *r, const mq_aabb *box, double D, mq_aabb *a)
{
    vec3 c;
    obt_point_in(r, box, c);
    for (int k = 0; k < 3; k++) {
        float h = obt_size(r, D);
        a->min[k] = c[k] - h;
        a->max[k] = c[k] + h;
    }
}

static inline int obt_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Triangle bounds of a whole mesh, for brute-force prefilters that only skip
 * triangles farther than `margin` from the query's bounds (the primitives
 * decide everything else). */
typedef struct obt_tri_boxes {
    mq_triangle *tris;
    mq_aabb *boxes;
    size_t count;
} obt_tri_boxes;

static inline obt_tri_boxes obt_tri_boxes_make(const mq_mesh *m)
{
    obt_tri_boxes tb = {NULL, NULL, mq_mesh_triangle_count(m)};
    tb.tris = malloc(tb.count * sizeof *tb.tris + 1);
    tb.boxes = malloc(tb.count * sizeof *tb.boxes + 1);
    for (size_t i = 0; i < tb.count; i++) {
        mq_mesh_get_triangle(m, (uint32_t)i, &tb.tris[i]);
        for (int k = 0; k < 3; k++) {
            tb.boxes[i].min[k] = fminf(fminf(tb.tris[i].v[0][k], tb.tris[i].v[1][k]), tb.tris[i].v[2][k]);
            tb.boxes[i].max[k] = fmaxf(fmaxf(tb.tris[i].v[0][k], tb.tris[i].v[1][k]), tb.tris[i].v[2][k]);
        }
    }
    return tb;
}

static inline void obt_tri_boxes_free(obt_tri_boxes *tb)
{
    free(tb->tris);
    free(tb->boxes);
}

/* True when the two boxes are disjoint by more than `margin` on some axis. */
static inline bool obt_far_apart(const mq_aabb *a, const mq_aabb *b, float margin)
{
    for (int k = 0; k < 3; k++)
        if (a->min[k] > b->max[k] + margin || b->min[k] > a->max[k] + margin)
            return true;
    return false;
}

#endif
