/*
 * The skeleton's ray, closest-point and mesh-vs-mesh traversals (bvt_walk.h),
 * the OBB tree's (obbtree_raycast.c, obbtree_closest_point.c,
 * obbtree_collide.c) with the node test passed in: the leaf tests and the tie
 * rules are the same, so the answers are the same, bit for bit.
 */
#include <math.h>
#include <string.h>

#include "core/minmax.h"
#include "core/vec3.h"
#include "bvh/kernels/hit_mesh.h"
#include "primitives/closest_internal.h"
#include "kdoptree/bvt_walk.h"

/* ------------------------------------------------------------------------- */
/* Rays                                                                      */
/* ------------------------------------------------------------------------- */

typedef struct ray_ctx {
    const mq_bvt *tree;
    const mq_ray *ray;
    bool cull_back_faces;
    mq_hit_filter_fn filter;
    void *filter_user;
    mq_ray_stats stats;
    const void *ctx;
    mq_bvt_clip_fn clip;
} ray_ctx;

static void ctx_init(ray_ctx *c, const mq_bvt *t, const mq_ray *ray, const mq_ray_query *q, const void *ctx,
                     mq_bvt_clip_fn clip)
{
    *c = (ray_ctx){t,   ray, q && q->cull_back_faces, q ? q->filter : NULL, q ? q->filter_user : NULL, {0, 0, 0},
                   ctx, clip};
}

static void ctx_flush_stats(const ray_ctx *c, const mq_ray_query *q)
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

static bool hit_triangle(ray_ctx *c, uint32_t k, mq_triangle_hit *h)
{
    c->stats.triangle_tests++;
    return mq_raycast_triangle(c->ray, &c->tree->tris[k], h) && !(c->cull_back_faces && h->back_face);
}

static bool passes_filter(const ray_ctx *c, uint32_t k, const mq_triangle_hit *h)
{
    if (!c->filter)
        return true;
    mq_hit full;
    fill_hit(c->tree, c->ray, k, h, &full);
    return c->filter(&full, c->filter_user);
}

typedef struct closest_hit {
    bool found;
    uint32_t tri;
    mq_triangle_hit hit;
} closest_hit;

typedef struct ray_entry {
    uint32_t node;
    float t_enter;
} ray_entry;

static void test_leaf(ray_ctx *c, uint32_t d, closest_hit *best)
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

static bool pop(ray_entry *stack, int *top, const closest_hit *best, uint32_t *node)
{
    while (*top > 0) {
        const ray_entry *e = &stack[--*top];
        if (!best->found || e->t_enter <= best->hit.t) { /* ties enter: a smaller id may wait there */
            *node = e->node;
            return true;
        }
    }
    return false;
}

static void closest(ray_ctx *c, closest_hit *best)
{
    const mq_bvt *t = c->tree;
    ray_entry stack[MQ_BVT_STACK];
    int top = 0;
    float te;
    uint32_t i = 0;
    if (!c->clip(c->ctx, 0, c->ray->tmax, &te))
        return;
    for (;;) {
        uint32_t d = t->data[i];
        if (mq_bvt_is_leaf(d)) {
            test_leaf(c, d, best);
        } else {
            float limit = best->found ? best->hit.t : c->ray->tmax, tl = 0.0f, tr = 0.0f;
            uint32_t l = i + 1, r = d;
            bool hl = c->clip(c->ctx, l, limit, &tl), hr = c->clip(c->ctx, r, limit, &tr);
            c->stats.node_visits++;
            if (hl && hr) {
                bool left_first = tl <= tr;
                stack[top++] = (ray_entry){left_first ? r : l, left_first ? tr : tl};
                i = left_first ? l : r;
                continue;
            }
            if (hl || hr) {
                i = hl ? l : r;
                continue;
            }
        }
        if (!pop(stack, &top, best, &i))
            return;
    }
}

bool mq_bvt_ray_closest_with(const mq_bvt *t, const mq_ray *ray, const mq_ray_query *q, mq_hit *out, const void *ctx,
                             mq_bvt_clip_fn clip)
{
    closest_hit best = {false, 0, {0}};
    if (t->node_count > 0 && mq_ray_is_valid(ray)) {
        ray_ctx c;
        ctx_init(&c, t, ray, q, ctx, clip);
        closest(&c, &best);
        ctx_flush_stats(&c, q);
    }
    if (out) {
        if (best.found)
            fill_hit(t, ray, best.tri, &best.hit, out);
        else
            mq_hit_miss(out);
    }
    return best.found;
}

static bool any_in_leaf(ray_ctx *c, uint32_t d)
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

static bool any(ray_ctx *c)
{
    const mq_bvt *t = c->tree;
    uint32_t stack[MQ_BVT_STACK];
    int top = 0;
    uint32_t i = 0;
    for (;;) {
        float te;
        if (c->clip(c->ctx, i, c->ray->tmax, &te)) {
            uint32_t d = t->data[i];
            if (!mq_bvt_is_leaf(d)) {
                c->stats.node_visits++;
                stack[top++] = d;
                i++;
                continue;
            }
            if (any_in_leaf(c, d))
                return true;
        }
        if (top == 0)
            return false;
        i = stack[--top];
    }
}

bool mq_bvt_ray_any_with(const mq_bvt *t, const mq_ray *ray, const mq_ray_query *q, const void *ctx,
                         mq_bvt_clip_fn clip)
{
    if (t->node_count == 0 || !mq_ray_is_valid(ray))
        return false;
    ray_ctx c;
    ctx_init(&c, t, ray, q, ctx, clip);
    bool hit = any(&c);
    ctx_flush_stats(&c, q);
    return hit;
}

/* ------------------------------------------------------------------------- */
/* Closest point                                                             */
/* ------------------------------------------------------------------------- */

typedef struct point_entry {
    uint32_t node;
    float bound;
} point_entry;

typedef struct point_best {
    float d2;
    double d2d;
    float dist;
    uint32_t tri;
    vec3 point;
    vec2 uv;
} point_best;

static bool better(const mq_bvt *t, float d2, uint32_t k, const point_best *best)
{
    return d2 < best->d2 || (d2 == best->d2 && (best->tri == UINT32_MAX || t->ids[k] < t->ids[best->tri]));
}

static void point_leaf(const mq_bvt *t, uint32_t d, const float p[3], point_best *best)
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

/* As the OBB tree's: ties still enter, and pruning needs both domains to agree. */
static bool may_improve(float bound, const point_best *best)
{
    return !(bound > best->dist) || !(bound * bound > best->d2);
}

bool mq_bvt_closest_with(const mq_bvt *t, const float p[3], float max_distance, mq_point_hit *out, const void *ctx,
                         mq_bvt_bound_fn bound)
{
    if (!p || !mq_v3_is_finite(p) || !(max_distance >= 0.0f) || t->node_count == 0)
        return false;
    point_best best = {
        max_distance * max_distance, (double)max_distance * max_distance, max_distance, UINT32_MAX, {0, 0, 0}, {0, 0}};
    point_entry stack[MQ_BVT_STACK];
    int top = 0;
    uint32_t i = 0;
    bool go = may_improve(bound(ctx, 0), &best);
    while (go) {
        uint32_t d = t->data[i];
        if (mq_bvt_is_leaf(d)) {
            point_leaf(t, d, p, &best);
        } else {
            uint32_t l = i + 1, r = d;
            float bl = bound(ctx, l), br = bound(ctx, r);
            bool hl = may_improve(bl, &best), hr = may_improve(br, &best);
            if (hl && hr) {
                bool left_first = bl <= br;
                stack[top++] = (point_entry){left_first ? r : l, left_first ? br : bl};
                i = left_first ? l : r;
                continue;
            }
            if (hl || hr) {
                i = hl ? l : r;
                continue;
            }
        }
        go = false;
        while (top > 0)
            if (may_improve(stack[--top].bound, &best)) {
                i = stack[top].node;
                go = true;
                break;
            }
    }
    if (best.tri == UINT32_MAX)
        return false;
    if (out) {
        mq_v3_copy(out->point, best.point);
        out->distance = best.dist;
        out->triangle = t->ids[best.tri];
        out->u = best.uv[0];
        out->v = best.uv[1];
    }
    return true;
}

/* ------------------------------------------------------------------------- */
/* Mesh vs mesh                                                              */
/* ------------------------------------------------------------------------- */

typedef struct collide_ctx {
    const mq_bvt *a, *b;
    const mq_rigid_m *m;
    float slack;
    mq_pair_fn fn;
    void *user;
    size_t reported;
} collide_ctx;

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

static bool leaf_pair(collide_ctx *c, uint32_t da, uint32_t db)
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

typedef struct pair_entry {
    uint32_t a, b;
} pair_entry;

size_t mq_bvt_collide_with(const mq_bvt *a, const mq_bvt *b, const mq_rigid_m *m, mq_pair_fn fn, void *user,
                           const void *ctx, mq_bvt_pair_fn pair, mq_bvt_size_fn size)
{
    if (a->node_count == 0 || b->node_count == 0)
        return 0;
    collide_ctx c = {a, b, m, 0.0f, fn, user, 0};
    c.slack = MQ_BVT_SLACK * (fabsf(m->t[0]) + fabsf(m->t[1]) + fabsf(m->t[2]) + a->magnitude + b->magnitude);
    pair_entry stack[2 * MQ_BVT_STACK];
    int top = 0;
    pair_entry p = {0, 0};
    for (;;) {
        if (pair(ctx, p.a, p.b)) {
            uint32_t da = a->data[p.a], db = b->data[p.b];
            bool la = mq_bvt_is_leaf(da), lb = mq_bvt_is_leaf(db);
            if (la && lb) {
                if (!leaf_pair(&c, da, db))
                    return c.reported;
            } else if (lb || (!la && size(ctx, true, p.a) >= size(ctx, false, p.b))) {
                stack[top++] = (pair_entry){da, p.b};
                p.a++;
                continue;
            } else {
                stack[top++] = (pair_entry){p.a, db};
                p.b++;
                continue;
            }
        }
        if (top == 0)
            return c.reported;
        p = stack[--top];
    }
}
