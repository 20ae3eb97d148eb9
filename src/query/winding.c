/*
 * Solids (meshquery/casts.h, "Solids"): the winding number of a closed mesh
 * around a point by signed ray crossings, and the signed distance built on it.
 *
 * The winding number is the signed count of surface crossings along any ray
 * from p to infinity: +1 for each triangle the ray leaves through (dir along
 * the triangle's normal, mq_triangle_hit.back_face), -1 for each it enters
 * through. Crossings are found with the watertight ray–triangle test
 * (mq_raycast_triangle) over every triangle whose (slightly widened) box the
 * ray meets. A ray through an edge or vertex, or nearly parallel to a triangle
 * it hits, could count a crossing twice or a silhouette graze once, so such a
 * direction is rejected (a hit within 1e-5 of an edge in barycentrics, or
 * |cos| below 1e-6 between the ray and the triangle) and the next of eight
 * fixed, generic directions is tried; in the (never observed) case that all
 * eight are rejected the last one's count is returned.
 */
#include <float.h>

#include <meshquery/casts.h>

#include "core/vec3.h"
#include "primitives/ray_slab.h"
#include "query/bvh_walk.h"

#define WIND_SLACK 1e-5f
#define WIND_EDGE 1e-5f
#define WIND_COS 1e-6f

/* Unit-ish directions with no simple ratios between their components. */
static const float wind_dirs[8][3] = {
    {0.5377f, 0.8336f, 0.1263f},    {-0.6418f, 0.2212f, 0.7344f},  {0.2843f, -0.7719f, 0.5686f},
    {-0.3093f, -0.4157f, -0.8553f}, {0.8817f, -0.1439f, -0.4493f}, {-0.1127f, 0.9623f, -0.2477f},
    {0.7071f, 0.3691f, -0.6031f},   {-0.8913f, -0.3347f, 0.3057f},
};

typedef struct wind_q {
    mq_ray ray;
    int w;
    bool degenerate;
} wind_q;

static inline void count_hit(wind_q *q, const mq_triangle *tri)
{
    mq_triangle_hit h;
    if (!mq_raycast_triangle(&q->ray, tri, &h))
        return;
    float e1[3], e2[3], n[3];
    mq_v3_sub(e1, tri->v[1], tri->v[0]);
    mq_v3_sub(e2, tri->v[2], tri->v[0]);
    mq_v3_cross(n, e1, e2);
    double c =
        fabs((double)mq_v3_dot(n, q->ray.dir)) / (sqrt((double)mq_v3_len2(n)) * sqrt((double)mq_v3_len2(q->ray.dir)));
    if (h.u < WIND_EDGE || h.v < WIND_EDGE || 1.0f - h.u - h.v < WIND_EDGE || !(c >= WIND_COS))
        q->degenerate = true;
    q->w += h.back_face ? 1 : -1;
}

/* Ray vs box [lo - g, hi + g] over [0, inf). */
static inline bool ray_meets_box(const mq_ray *r, const float lo[3], const float hi[3])
{
    float t0 = 0.0f, t1 = INFINITY;
    for (int k = 0; k < 3; k++) {
        float g = WIND_SLACK * (fabsf(lo[k]) + fabsf(hi[k]) + fabsf(r->origin[k])) + FLT_MIN;
        if (!mq_slab_clip_axis(r->origin[k], r->dir[k], lo[k] - g, hi[k] + g, &t0, &t1))
            return false;
    }
    return true;
}

static void crossings_bvh(const mq_bvh *bvh, wind_q *q)
{
    if (bvh->root == MQ_REF_EMPTY)
        return;
    uint32_t stack[MQ_TRAVERSAL_STACK];
    int top = 0;
    stack[top++] = bvh->root;
    while (top > 0) {
        uint32_t ref = stack[--top];
        if (mq_ref_is_leaf(ref)) {
            const mq_tri_block *blk = mq_arena_leaf(bvh->arena, ref);
            uint32_t nb = mq_ref_block_count(ref);
            for (uint32_t b = 0; b < nb; b++)
                for (int lane = 0; lane < MQ_TRI_BLOCK; lane++) {
                    mq_triangle t;
                    if (mq_walk_block_triangle(bvh, &blk[b], lane, &t))
                        count_hit(q, &t);
                }
            continue;
        }
        const mq_node8 *n = mq_arena_node(bvh->arena, ref);
        for (int i = 0; i < MQ_BVH_WIDTH; i++) {
            if (n->child[i] == MQ_REF_EMPTY)
                continue;
            float lo[3], hi[3];
            mq_walk_child_box(n, i, bvh->inv_scale, lo, hi);
            if (ray_meets_box(&q->ray, lo, hi))
                stack[top++] = n->child[i];
        }
    }
}

static void crossings_obbtree(const mq_obbtree *tree, wind_q *q)
{
    if (tree->node_count == 0)
        return;
    uint32_t stack[MQ_OBBTREE_STACK];
    int top = 0;
    uint32_t i = 0;
    for (;;) {
        const mq_obbtree_node *n = &tree->nodes[i];
        float t0 = 0.0f, t1 = INFINITY;
        if (mq_node_clip_ray(n, q->ray.origin, q->ray.dir, &t0, &t1)) {
            if (!mq_obbtree_node_is_leaf(n)) {
                stack[top++] = n->data;
                i++;
                continue;
            }
            uint32_t first = mq_obbtree_leaf_first(n), end = first + mq_obbtree_leaf_count(n);
            for (uint32_t k = first; k < end; k++)
                count_hit(q, &tree->tris[k]);
        }
        if (top == 0)
            return;
        i = stack[--top];
    }
}

#define DEFINE_WINDING(prefix, type, crossings)                                                                        \
    int mq_##prefix##_winding_number(const type *h, const vec3 p)                                                      \
    {                                                                                                                  \
        if (!h || !p || !mq_v3_is_finite(p))                                                                           \
            return 0;                                                                                                  \
        wind_q q = {{{p[0], p[1], p[2]}, 0.0f, {0, 0, 0}, INFINITY}, 0, false};                                        \
        for (int d = 0; d < 8; d++) {                                                                                  \
            mq_v3_copy(q.ray.dir, wind_dirs[d]);                                                                       \
            q.w = 0;                                                                                                   \
            q.degenerate = false;                                                                                      \
            crossings(h, &q);                                                                                          \
            if (!q.degenerate)                                                                                         \
                break;                                                                                                 \
        }                                                                                                              \
        return q.w;                                                                                                    \
    }                                                                                                                  \
    bool mq_##prefix##_signed_distance(const type *h, const vec3 p, float *distance, mq_point_hit *closest)            \
    {                                                                                                                  \
        mq_point_hit c;                                                                                                \
        if (!h || !p || !mq_##prefix##_closest_point(h, p, INFINITY, &c))                                              \
            return false;                                                                                              \
        if (distance)                                                                                                  \
            *distance = c.distance == 0.0f                        ? 0.0f                                               \
                        : mq_##prefix##_winding_number(h, p) != 0 ? -c.distance                                        \
                                                                  : c.distance;                                        \
        if (closest)                                                                                                   \
            *closest = c;                                                                                              \
        return true;                                                                                                   \
    }

DEFINE_WINDING(bvh, mq_bvh, crossings_bvh)
DEFINE_WINDING(obbtree, mq_obbtree, crossings_obbtree)
