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
 */
#ifndef MQ_KDOPTREE_BVT_WALK_H
#define MQ_KDOPTREE_BVT_WALK_H

#include <meshquery/primitives.h>

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

/* Clips the ray against node's volume over [t0, limit]; the entry t in *t_enter. */
typedef bool (*mq_bvt_clip_fn)(const void *ctx, uint32_t node, float limit, float *t_enter);

/* Closest hit (mq_obbtree_raycast_closest's contract) through `clip`. */
bool mq_bvt_ray_closest_with(const mq_bvt *t, const mq_ray *ray, const mq_ray_query *q, mq_hit *out, const void *ctx,
                             mq_bvt_clip_fn clip);
/* Any hit. */
bool mq_bvt_ray_any_with(const mq_bvt *t, const mq_ray *ray, const mq_ray_query *q, const void *ctx,
                         mq_bvt_clip_fn clip);

/* ---- closest point ---- */

/* A lower bound of the distance from the query point to anything in node. */
typedef float (*mq_bvt_bound_fn)(const void *ctx, uint32_t node);
bool mq_bvt_closest_with(const mq_bvt *t, const float p[3], float max_distance, mq_point_hit *out, const void *ctx,
                         mq_bvt_bound_fn bound);

/* ---- mesh vs mesh ---- */

/* May node a of tree A and node b of tree B (placed by the query's rigid) overlap? */
typedef bool (*mq_bvt_pair_fn)(const void *ctx, uint32_t a, uint32_t b);
/* A size of node i, to descend the larger of a pair. */
typedef float (*mq_bvt_size_fn)(const void *ctx, bool in_a, uint32_t node);
/* Every intersecting triangle pair (mq_obbtree_collide's contract); m maps B into A. */
size_t mq_bvt_collide_with(const mq_bvt *a, const mq_bvt *b, const mq_rigid_m *m, mq_pair_fn fn, void *user,
                           const void *ctx, mq_bvt_pair_fn pair, mq_bvt_size_fn size);

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
