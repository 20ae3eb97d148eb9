/* OBB tree raycasts, with the BVH's API (bvh.h). Node: the ray–OBB slab test in
 * the box frame; leaf: mq_raycast_triangle (watertight). Closest hit visits the
 * nearer child first and skips boxes entered beyond the best hit; any hit stops
 * at the first accepted triangle. */
#include <math.h>
#include <string.h>

#include "core/vec3.h"
#include "bvh/kernels/hit_mesh.h"
#include "obbtree/obbtree_node_tests.h"

typedef struct ray_entry {
    uint32_t node;
    float t_enter;
} ray_entry;

typedef struct ray_ctx {
    const mq_obbtree *tree;
    const mq_ray *ray;
    bool cull_back_faces;
    mq_hit_filter_fn filter;
    void *filter_user;
    mq_ray_stats stats;
} ray_ctx;

static void ctx_init(ray_ctx *c, const mq_obbtree *t, const mq_ray *ray, const mq_ray_query *q)
{
    *c = (ray_ctx){t, ray, q && q->cull_back_faces, q ? q->filter : NULL, q ? q->filter_user : NULL, {0, 0, 0}};
}

static void ctx_flush_stats(const ray_ctx *c, const mq_ray_query *q)
{
    if (q && q->stats) {
        q->stats->node_visits += c->stats.node_visits;
        q->stats->leaf_visits += c->stats.leaf_visits;
        q->stats->triangle_tests += c->stats.triangle_tests;
    }
}

/* The ray clipped against a node over [tmin, limit]; t_enter where it enters. */
static bool clip(const mq_obbtree_node *n, const mq_ray *ray, float limit, float *t_enter)
{
    float t0 = ray->tmin, t1 = limit;
    if (!mq_node_clip_ray(n, ray->origin, ray->dir, &t0, &t1))
        return false;
    *t_enter = t0;
    return true;
}

/* The hit record through the same shared code as the BVH's (bvh/kernels/hit_mesh.c),
 * so both hierarchies give identical records. */
static void fill_hit(const mq_obbtree *t, const mq_ray *ray, uint32_t k, const mq_triangle_hit *h, mq_hit *out)
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

/* The triangle test with the query's culling. Every triangle is tested with
 * the caller's full ray (never one clipped to the best t so far), so t, u, v
 * are bit for bit what brute force computes. */
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
    uint32_t tri; /* tree order */
    mq_triangle_hit hit;
} closest_hit;

static void test_leaf(ray_ctx *c, const mq_obbtree_node *n, closest_hit *best)
{
    const mq_obbtree *t = c->tree;
    uint32_t first = mq_obbtree_leaf_first(n), end = first + mq_obbtree_leaf_count(n);
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

/* Pops the next pushed node not entered beyond the best hit; false when none is left. */
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
    const mq_obbtree *t = c->tree;
    const mq_ray *ray = c->ray;
    ray_entry stack[MQ_OBBTREE_STACK];
    int top = 0;
    float te;
    uint32_t i = 0;
    if (!clip(&t->nodes[0], ray, ray->tmax, &te))
        return;
    for (;;) {
        const mq_obbtree_node *n = &t->nodes[i];
        if (mq_obbtree_node_is_leaf(n)) {
            test_leaf(c, n, best);
        } else {
            float limit = best->found ? best->hit.t : ray->tmax, tl = 0.0f, tr = 0.0f;
            uint32_t l = i + 1, r = n->data;
            bool hl = clip(&t->nodes[l], ray, limit, &tl), hr = clip(&t->nodes[r], ray, limit, &tr);
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

bool mq_obbtree_raycast_closest(const mq_obbtree *t, const mq_ray *ray, const mq_ray_query *query, mq_hit *out)
{
    closest_hit best = {false, 0, {0}};
    if (t && t->node_count > 0 && mq_ray_is_valid(ray)) {
        ray_ctx c;
        ctx_init(&c, t, ray, query);
        closest(&c, &best);
        ctx_flush_stats(&c, query);
    }
    if (out) {
        if (best.found)
            fill_hit(t, ray, best.tri, &best.hit, out);
        else
            mq_hit_miss(out);
    }
    return best.found;
}

static bool any_in_leaf(ray_ctx *c, const mq_obbtree_node *n)
{
    uint32_t first = mq_obbtree_leaf_first(n), end = first + mq_obbtree_leaf_count(n);
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
    const mq_obbtree *t = c->tree;
    uint32_t stack[MQ_OBBTREE_STACK];
    int top = 0;
    uint32_t i = 0;
    for (;;) {
        const mq_obbtree_node *n = &t->nodes[i];
        float te;
        if (clip(n, c->ray, c->ray->tmax, &te)) {
            if (!mq_obbtree_node_is_leaf(n)) {
                c->stats.node_visits++;
                stack[top++] = n->data;
                i++;
                continue;
            }
            if (any_in_leaf(c, n))
                return true;
        }
        if (top == 0)
            return false;
        i = stack[--top];
    }
}

bool mq_obbtree_raycast_any(const mq_obbtree *t, const mq_ray *ray, const mq_ray_query *query)
{
    if (!t || t->node_count == 0 || !mq_ray_is_valid(ray))
        return false;
    ray_ctx c;
    ctx_init(&c, t, ray, query);
    bool hit = any(&c);
    ctx_flush_stats(&c, query);
    return hit;
}
