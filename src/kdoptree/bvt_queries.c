/*
 * The leaf tests, set-up and answers of the skeleton's ray, closest-point and
 * mesh-vs-mesh traversals (bvt_walk.h, where the loops are inlined into each
 * tree kind with its node test). They are the OBB tree's
 * (obbtree_raycast.c, obbtree_closest_point.c, obbtree_collide.c): the same
 * leaf tests (here) and tie rules (here and in bvt_walk.h), so the answers are
 * the same, bit for bit.
 */
#include <math.h>

#include "core/minmax.h"
#include "core/vec3.h"
#include "bvh/kernels/hit_mesh.h"
#include "primitives/closest_internal.h"
#include "kdoptree/bvt_walk.h"

/* ------------------------------------------------------------------------- */
/* Rays                                                                      */
/* ------------------------------------------------------------------------- */

void mq_bvt_ray_init(mq_bvt_ray_query *c, const mq_bvt *t, const mq_ray *ray, const mq_ray_query *q)
{
    *c =
        (mq_bvt_ray_query){t, ray, q && q->cull_back_faces, q ? q->filter : NULL, q ? q->filter_user : NULL, {0, 0, 0}};
}

void mq_bvt_ray_flush_stats(const mq_bvt_ray_query *c, const mq_ray_query *q)
{
    if (q && q->stats) {
        q->stats->node_visits += c->stats.node_visits;
        q->stats->leaf_visits += c->stats.leaf_visits;
        q->stats->triangle_tests += c->stats.triangle_tests;
    }
}

static void fill_hit(const mq_bvt *t, const mq_ray *ray, uint32_t k, const mq_triangle_hit *h, mq_hit *out)
{
    const mq_mesh *m = t->mesh;
    out->t = h->t;
    for (int i = 0; i < 3; i++)
        out->point[i] = ray->origin[i] + h->t * ray->dir[i];
    mq_hit_unit_normal(t->tris[k].v[0], t->tris[k].v[1], t->tris[k].v[2], out->normal);
    out->u = h->u;
    out->v = h->v;
    out->back_face = h->back_face;
    out->triangle = t->ids[k];
    out->face = mq_mesh_face_index(m, out->triangle);
    mq_hit_mesh_attributes(m, out);
}

static bool hit_triangle(mq_bvt_ray_query *c, uint32_t k, mq_triangle_hit *h)
{
    c->stats.triangle_tests++;
    return mq_raycast_triangle(c->ray, &c->tree->tris[k], h) && !(c->cull_back_faces && h->back_face);
}

static bool passes_filter(const mq_bvt_ray_query *c, uint32_t k, const mq_triangle_hit *h)
{
    if (!c->filter)
        return true;
    mq_hit full;
    fill_hit(c->tree, c->ray, k, h, &full);
    return c->filter(&full, c->filter_user);
}

void mq_bvt_ray_leaf_closest(mq_bvt_ray_query *c, uint32_t d, mq_bvt_best_hit *best)
{
    const mq_bvt *t = c->tree;
    uint32_t first = mq_bvt_first(d), end = first + mq_bvt_count(d);
    c->stats.leaf_visits++;
    for (uint32_t k = first; k < end; k++) {
        mq_triangle_hit h;
        if (!hit_triangle(c, k, &h))
            continue;
        bool closer = !best->found || h.t < best->hit.t || (h.t == best->hit.t && t->ids[k] < t->ids[best->tri]);
        if (closer && passes_filter(c, k, &h)) {
            best->found = true;
            best->tri = k;
            best->hit = h;
        }
    }
}

void mq_bvt_ray_record(const mq_bvt *t, const mq_ray *ray, const mq_bvt_best_hit *best, mq_hit *out)
{
    if (best->found)
        fill_hit(t, ray, best->tri, &best->hit, out);
    else
        mq_hit_miss(out);
}

bool mq_bvt_ray_leaf_any(mq_bvt_ray_query *c, uint32_t d)
{
    uint32_t first = mq_bvt_first(d), end = first + mq_bvt_count(d);
    c->stats.leaf_visits++;
    for (uint32_t k = first; k < end; k++) {
        mq_triangle_hit h;
        if (hit_triangle(c, k, &h) && passes_filter(c, k, &h))
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------------- */
/* Closest point                                                             */
/* ------------------------------------------------------------------------- */

static bool better(const mq_bvt *t, float d2, uint32_t k, const mq_bvt_point_best *best)
{
    return d2 < best->d2 || (d2 == best->d2 && (best->tri == UINT32_MAX || t->ids[k] < t->ids[best->tri]));
}

void mq_bvt_point_leaf(const mq_bvt *t, uint32_t d, const float p[3], mq_bvt_point_best *best)
{
    uint32_t first = mq_bvt_first(d), end = first + mq_bvt_count(d);
    for (uint32_t k = first; k < end; k++) {
        vec3 q;
        vec2 uv;
        double d2d = mq_cl_closest_point_triangle_d(p, &t->tris[k], q, uv);
        float d2 = (float)d2d; /* = mq_closest_point_triangle */
        if (!better(t, d2, k, best))
            continue;
        best->d2 = d2;
        best->d2d = d2d;
        best->dist = (float)sqrt(d2d);
        best->tri = k;
        mq_v3_copy(best->point, q);
        best->uv[0] = uv[0];
        best->uv[1] = uv[1];
    }
}

bool mq_bvt_point_record(const mq_bvt *t, const mq_bvt_point_best *best, mq_point_hit *out)
{
    if (best->tri == UINT32_MAX)
        return false;
    if (out) {
        mq_v3_copy(out->point, best->point);
        out->distance = best->dist;
        out->triangle = t->ids[best->tri];
        out->u = best->uv[0];
        out->v = best->uv[1];
    }
    return true;
}

/* ------------------------------------------------------------------------- */
/* Mesh vs mesh                                                              */
/* ------------------------------------------------------------------------- */

static void triangle_bounds(const mq_triangle *tri, float slack, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = mq_fminf(mq_fminf(tri->v[0][k], tri->v[1][k]), tri->v[2][k]) - slack;
        hi[k] = mq_fmaxf(mq_fmaxf(tri->v[0][k], tri->v[1][k]), tri->v[2][k]) + slack;
    }
}

static bool bounds_disjoint(const float alo[3], const float ahi[3], const float blo[3], const float bhi[3])
{
    return alo[0] > bhi[0] || alo[1] > bhi[1] || alo[2] > bhi[2] || blo[0] > ahi[0] || blo[1] > ahi[1] ||
           blo[2] > ahi[2];
}

bool mq_bvt_pair_leaf(mq_bvt_collide_query *c, uint32_t da, uint32_t db)
{
    mq_triangle tb[MQ_BVT_MAX_LEAF];
    float blo[MQ_BVT_MAX_LEAF][3], bhi[MQ_BVT_MAX_LEAF][3];
    uint32_t fb = mq_bvt_first(db), nbc = mq_bvt_count(db);
    for (uint32_t j = 0; j < nbc; j++) {
        for (int v = 0; v < 3; v++)
            mq_rigid_m_apply(c->m, c->b->tris[fb + j].v[v], tb[j].v[v]);
        triangle_bounds(&tb[j], 0.0f, blo[j], bhi[j]);
    }
    uint32_t fa = mq_bvt_first(da), end = fa + mq_bvt_count(da);
    for (uint32_t i = fa; i < end; i++) {
        float alo[3], ahi[3];
        triangle_bounds(&c->a->tris[i], c->slack, alo, ahi);
        for (uint32_t j = 0; j < nbc; j++) {
            if (bounds_disjoint(alo, ahi, blo[j], bhi[j]) || !mq_overlap_triangle_triangle(&c->a->tris[i], &tb[j]))
                continue;
            c->reported++;
            if (!c->fn(c->a->ids[i], c->b->ids[fb + j], c->user))
                return false;
        }
    }
    return true;
}
