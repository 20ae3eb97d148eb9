/*
 * The traversals of the shared skeleton (bvt.h), one per query family, each
 * instantiated by a tree kind with its own node predicate (always inlined,
 * so the predicate becomes a direct call): the leaf predicates are the
 * primitives of meshquery/primitives.h, so answers equal brute force as long
 * as every node predicate is conservative (never rejects a node holding a
 * triangle the primitive accepts).
 *
 *   mq_bvt_walk      shape overlaps: node test, leaf test, callback
 *   mq_bvt_ray_*     rays: clip(node) -> entry t, nearer child first
 *   mq_bvt_closest   closest point: bound(node) -> lower distance bound
 *   mq_bvt_collide   mesh vs mesh: pair(node a, node b) -> may overlap
 *
 * The loops live here, so no node test is an indirect call; the leaf tests
 * (once per leaf) and each query's set-up and answer (once per query) stay
 * out of line in bvt_queries.c.
 */
#ifndef MQ_KDOPTREE_BVT_WALK_H
#define MQ_KDOPTREE_BVT_WALK_H

#include <math.h>
#include <stdint.h>

#include <meshquery/primitives.h>

#include "core/vec3.h"
#include "kdoptree/bvt.h"
#include "obbtree/obbtree_rigid.h"

typedef bool (*mq_bvt_node_fn)(const void *ctx, uint32_t node);
typedef bool (*mq_bvt_tri_fn)(const mq_triangle *tri, const void *ctx);

/* Shape overlaps: every triangle passing `tri` in a leaf admitted by `node`. */
MQ_BVT_INLINE size_t mq_bvt_walk(const mq_bvt *t, const void *ctx, mq_bvt_node_fn node, mq_bvt_tri_fn tri,
                                 mq_overlap_fn fn, void *user)
{
    if (t->node_count == 0)
        return 0;
    uint32_t stack[MQ_BVT_STACK];
    int top = 0;
    uint32_t i = 0;
    size_t reported = 0;
    for (;;) {
        if (node(ctx, i)) {
            uint32_t d = t->data[i];
            if (!mq_bvt_is_leaf(d)) {
                stack[top++] = d;
                i++;
                continue;
            }
            uint32_t first = mq_bvt_first(d), end = first + mq_bvt_count(d);
            for (uint32_t k = first; k < end; k++)
                if (tri(&t->tris[k], ctx)) {
                    reported++;
                    if (!fn(t->ids[k], user))
                        return reported;
                }
        }
        if (top == 0)
            return reported;
        i = stack[--top];
    }
}

typedef struct mq_bvt_sink {
    uint32_t *out;
    size_t capacity;
    size_t count;
} mq_bvt_sink;

static inline bool mq_bvt_sink_push(uint32_t triangle, void *user)
{
    mq_bvt_sink *s = user;
    if (s->count < s->capacity)
        s->out[s->count] = triangle;
    s->count++;
    return true;
}

static inline bool mq_bvt_stop(uint32_t triangle, void *user)
{
    (void)triangle;
    (void)user;
    return false;
}

/* ---- rays ---- */

/* Clips the ray against node's volume over [tmin, limit]; the entry t in *t_enter. */
typedef bool (*mq_bvt_clip_fn)(const void *ctx, uint32_t node, float limit, float *t_enter);

/* A ray query's leaf-test inputs and counters (bvt_queries.c). */
typedef struct mq_bvt_ray_query {
    const mq_bvt *tree;
    const mq_ray *ray;
    bool cull_back_faces;
    mq_hit_filter_fn filter;
    void *filter_user;
    mq_ray_stats stats;
} mq_bvt_ray_query;

/* The closest accepted hit so far; tri in tree order. */
typedef struct mq_bvt_best_hit {
    bool found;
    uint32_t tri;
    mq_triangle_hit hit;
} mq_bvt_best_hit;

/* A query's state for ray over t; q may be NULL (the defaults). */
void mq_bvt_ray_init(mq_bvt_ray_query *c, const mq_bvt *t, const mq_ray *ray, const mq_ray_query *q);
/* Adds the counters to q->stats when asked for. */
void mq_bvt_ray_flush_stats(const mq_bvt_ray_query *c, const mq_ray_query *q);
/* Tests leaf d's triangles against *best: nearer t, or the smaller mesh id at
 * an equal t, and past the query's filter. */
void mq_bvt_ray_leaf_closest(mq_bvt_ray_query *c, uint32_t d, mq_bvt_best_hit *best);
/* True when one of leaf d's triangles is a hit the query accepts. */
bool mq_bvt_ray_leaf_any(mq_bvt_ray_query *c, uint32_t d);
/* The hit record of *best (a miss when none was found). */
void mq_bvt_ray_record(const mq_bvt *t, const mq_ray *ray, const mq_bvt_best_hit *best, mq_hit *out);

typedef struct mq_bvt_ray_entry {
    uint32_t node;
    float t_enter;
} mq_bvt_ray_entry;

/* Pops the next node that may still hold the winner into *node. */
MQ_BVT_INLINE bool mq_bvt_ray_pop(mq_bvt_ray_entry *stack, int *top, const mq_bvt_best_hit *best, uint32_t *node)
{
    while (*top > 0) {
        const mq_bvt_ray_entry *e = &stack[--*top];
        if (!best->found || e->t_enter <= best->hit.t) { /* ties enter: a smaller id may wait there */
            *node = e->node;
            return true;
        }
    }
    return false;
}

/* The nearest accepted hit into *best: nearer child first, nodes entered
 * beyond the best t skipped. */
MQ_BVT_INLINE void mq_bvt_ray_closest_walk(mq_bvt_ray_query *c, const void *ctx, mq_bvt_clip_fn clip,
                                           mq_bvt_best_hit *best)
{
    const mq_bvt *t = c->tree;
    mq_bvt_ray_entry stack[MQ_BVT_STACK];
    int top = 0;
    float te;
    uint32_t i = 0;
    if (!clip(ctx, 0, c->ray->tmax, &te))
        return;
    for (;;) {
        uint32_t d = t->data[i];
        if (mq_bvt_is_leaf(d)) {
            mq_bvt_ray_leaf_closest(c, d, best);
        } else {
            float limit = best->found ? best->hit.t : c->ray->tmax, tl = 0.0f, tr = 0.0f;
            uint32_t l = i + 1, r = d;
            bool hl = clip(ctx, l, limit, &tl), hr = clip(ctx, r, limit, &tr);
            c->stats.node_visits++;
            if (hl && hr) {
                bool left_first = tl <= tr;
                stack[top++] = (mq_bvt_ray_entry){left_first ? r : l, left_first ? tr : tl};
                i = left_first ? l : r;
                continue;
            }
            if (hl || hr) {
                i = hl ? l : r;
                continue;
            }
        }
        if (!mq_bvt_ray_pop(stack, &top, best, &i))
            return;
    }
}

/* Closest hit (mq_obbtree_raycast_closest's contract) through `clip`. */
MQ_BVT_INLINE bool mq_bvt_ray_closest_with(const mq_bvt *t, const mq_ray *ray, const mq_ray_query *q, mq_hit *out,
                                           const void *ctx, mq_bvt_clip_fn clip)
{
    mq_bvt_best_hit best = {false, 0, {0}};
    if (t->node_count > 0 && mq_ray_is_valid(ray)) {
        mq_bvt_ray_query c;
        mq_bvt_ray_init(&c, t, ray, q);
        mq_bvt_ray_closest_walk(&c, ctx, clip, &best);
        mq_bvt_ray_flush_stats(&c, q);
    }
    if (out)
        mq_bvt_ray_record(t, ray, &best, out);
    return best.found;
}

/* True at the first accepted hit, in depth-first order. */
MQ_BVT_INLINE bool mq_bvt_ray_any_walk(mq_bvt_ray_query *c, const void *ctx, mq_bvt_clip_fn clip)
{
    const mq_bvt *t = c->tree;
    uint32_t stack[MQ_BVT_STACK];
    int top = 0;
    uint32_t i = 0;
    for (;;) {
        float te;
        if (clip(ctx, i, c->ray->tmax, &te)) {
            uint32_t d = t->data[i];
            if (!mq_bvt_is_leaf(d)) {
                c->stats.node_visits++;
                stack[top++] = d;
                i++;
                continue;
            }
            if (mq_bvt_ray_leaf_any(c, d))
                return true;
        }
        if (top == 0)
            return false;
        i = stack[--top];
    }
}

/* Any hit. */
MQ_BVT_INLINE bool mq_bvt_ray_any_with(const mq_bvt *t, const mq_ray *ray, const mq_ray_query *q, const void *ctx,
                                       mq_bvt_clip_fn clip)
{
    if (t->node_count == 0 || !mq_ray_is_valid(ray))
        return false;
    mq_bvt_ray_query c;
    mq_bvt_ray_init(&c, t, ray, q);
    bool hit = mq_bvt_ray_any_walk(&c, ctx, clip);
    mq_bvt_ray_flush_stats(&c, q);
    return hit;
}

/* ---- closest point ---- */

/* A lower bound of the distance from the query point to anything in node. */
typedef float (*mq_bvt_bound_fn)(const void *ctx, uint32_t node);

/* The nearest triangle so far (tri in tree order, UINT32_MAX for none), its
 * squared distance in float and double and its distance. */
typedef struct mq_bvt_point_best {
    float d2;
    double d2d;
    float dist;
    uint32_t tri;
    vec3 point;
    vec2 uv;
} mq_bvt_point_best;

/* Tests leaf d's triangles against *best (ties: the smaller mesh id). */
void mq_bvt_point_leaf(const mq_bvt *t, uint32_t d, const float p[3], mq_bvt_point_best *best);
/* The answer from *best; false when no triangle was within reach. */
bool mq_bvt_point_record(const mq_bvt *t, const mq_bvt_point_best *best, mq_point_hit *out);

/* As the OBB tree's: ties still enter, and pruning needs both domains to agree. */
MQ_BVT_INLINE bool mq_bvt_point_may_improve(float bound, const mq_bvt_point_best *best)
{
    return !(bound > best->dist) || !(bound * bound > best->d2);
}

typedef struct mq_bvt_point_entry {
    uint32_t node;
    float bound;
} mq_bvt_point_entry;

/* The nearest triangle to p into *best: the child with the smaller bound
 * first, nodes that cannot improve on *best skipped. */
MQ_BVT_INLINE void mq_bvt_point_walk(const mq_bvt *t, const float p[3], const void *ctx, mq_bvt_bound_fn bound,
                                     mq_bvt_point_best *best)
{
    mq_bvt_point_entry stack[MQ_BVT_STACK];
    int top = 0;
    uint32_t i = 0;
    bool go = mq_bvt_point_may_improve(bound(ctx, 0), best);
    while (go) {
        uint32_t d = t->data[i];
        if (mq_bvt_is_leaf(d)) {
            mq_bvt_point_leaf(t, d, p, best);
        } else {
            uint32_t l = i + 1, r = d;
            float bl = bound(ctx, l), br = bound(ctx, r);
            bool hl = mq_bvt_point_may_improve(bl, best), hr = mq_bvt_point_may_improve(br, best);
            if (hl && hr) {
                bool left_first = bl <= br;
                stack[top++] = (mq_bvt_point_entry){left_first ? r : l, left_first ? br : bl};
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
            if (mq_bvt_point_may_improve(stack[--top].bound, best)) {
                i = stack[top].node;
                go = true;
                break;
            }
    }
}

/* Closest point (mq_obbtree_closest_point's contract) through `bound`. */
MQ_BVT_INLINE bool mq_bvt_closest_with(const mq_bvt *t, const float p[3], float max_distance, mq_point_hit *out,
                                       const void *ctx, mq_bvt_bound_fn bound)
{
    if (!p || !mq_v3_is_finite(p) || !(max_distance >= 0.0f) || t->node_count == 0)
        return false;
    mq_bvt_point_best best = {
        max_distance * max_distance, (double)max_distance * max_distance, max_distance, UINT32_MAX, {0, 0, 0}, {0, 0}};
    mq_bvt_point_walk(t, p, ctx, bound, &best);
    return mq_bvt_point_record(t, &best, out);
}

/* ---- mesh vs mesh ---- */

/* May node a of tree A and node b of tree B (placed by the query's rigid) overlap? */
typedef bool (*mq_bvt_pair_fn)(const void *ctx, uint32_t a, uint32_t b);
/* A size of node i, to descend the larger of a pair. */
typedef float (*mq_bvt_size_fn)(const void *ctx, bool in_a, uint32_t node);

/* A mesh-vs-mesh query's leaf-test inputs and its count of reported pairs. */
typedef struct mq_bvt_collide_query {
    const mq_bvt *a, *b;
    const mq_rigid_m *m;
    float slack;
    mq_pair_fn fn;
    void *user;
    size_t reported;
} mq_bvt_collide_query;

/* Tests leaf da of A against leaf db of B; false when the callback stopped. */
bool mq_bvt_pair_leaf(mq_bvt_collide_query *c, uint32_t da, uint32_t db);

typedef struct mq_bvt_pair_entry {
    uint32_t a, b;
} mq_bvt_pair_entry;

/* Every intersecting triangle pair (mq_obbtree_collide's contract); m maps B into A. */
MQ_BVT_INLINE size_t mq_bvt_collide_with(const mq_bvt *a, const mq_bvt *b, const mq_rigid_m *m, mq_pair_fn fn,
                                         void *user, const void *ctx, mq_bvt_pair_fn pair, mq_bvt_size_fn size)
{
    if (a->node_count == 0 || b->node_count == 0)
        return 0;
    mq_bvt_collide_query c = {a, b, m, 0.0f, fn, user, 0};
    c.slack = MQ_BVT_SLACK * (fabsf(m->t[0]) + fabsf(m->t[1]) + fabsf(m->t[2]) + a->magnitude + b->magnitude);
    mq_bvt_pair_entry stack[2 * MQ_BVT_STACK];
    int top = 0;
    mq_bvt_pair_entry p = {0, 0};
    for (;;) {
        if (pair(ctx, p.a, p.b)) {
            uint32_t da = a->data[p.a], db = b->data[p.b];
            bool la = mq_bvt_is_leaf(da), lb = mq_bvt_is_leaf(db);
            if (la && lb) {
                if (!mq_bvt_pair_leaf(&c, da, db))
                    return c.reported;
            } else if (lb || (!la && size(ctx, true, p.a) >= size(ctx, false, p.b))) {
                stack[top++] = (mq_bvt_pair_entry){da, p.b};
                p.a++;
                continue;
            } else {
                stack[top++] = (mq_bvt_pair_entry){p.a, db};
                p.b++;
                continue;
            }
        }
        if (top == 0)
            return c.reported;
        p = stack[--top];
    }
}

typedef struct mq_bvt_pair_sink {
    mq_tri_pair *out;
    size_t capacity;
    size_t count;
} mq_bvt_pair_sink;

static inline bool mq_bvt_pair_push(uint32_t ta, uint32_t tb, void *user)
{
    mq_bvt_pair_sink *s = user;
    if (s->count < s->capacity)
        s->out[s->count] = (mq_tri_pair){ta, tb};
    s->count++;
    return true;
}

static inline bool mq_bvt_pair_stop(uint32_t ta, uint32_t tb, void *user)
{
    (void)ta;
    (void)tb;
    (void)user;
    return false;
}

#endif
