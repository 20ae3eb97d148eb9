/*
 * All hits along a ray, nearest first (meshquery/bvh.h). Each next hit is a
 * closest-hit traversal restricted to hits (t, id) after the previous one in
 * lexicographic order: sorted output, early stop for free, no allocation, and
 * no limit on the number of hits.
 *
 * A ray through a shared edge or vertex has an exactly zero edge function in
 * every triangle around it (the watertight test's consistency), and hits them
 * all at (nearly) the same t. Such hits are recognised by the positions of the
 * edge's two corners (or the vertex), and only the first in (t, id) order is
 * reported. Duplicates come out next to each other, so a short ring of recent
 * edge/vertex keys suffices.
 */
#include <math.h>
#include <string.h>

#include "bvh/kernels/hit_record.h"
#include "bvh/kernels/trace.h"
#include "bvh/kernels/woop_lane.h"

#define MQ_RECENT_KEYS 16

/* An edge (two corners, ordered) or a vertex (one corner, the second all zero bits). */
typedef struct edge_key {
    float p[2][3];
    int corners;
} edge_key;

typedef struct recent_keys {
    edge_key key[MQ_RECENT_KEYS];
    int count, next;
} recent_keys;

static void copy_corner(const mq_tri_block *blk, int lane, int corner, float out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = blk->v[corner][k][lane];
}

/* The key of a hit on an edge or vertex; false for a hit inside the triangle. */
static bool hit_key(const mq_trace *q, const mq_best *b, edge_key *key)
{
    mq_lane_hit lh;
    if (!mq_woop_lane(&q->ray, q->cull, b->block, b->lane, b->t, b->t, &lh) || !lh.zeros)
        return false;
    /* Corners on the zero edge(s): U = 0 is edge v1v2, V = 0 is v2v0, W = 0 is v0v1. */
    static const int on_edge[8][2] = {{-1, -1}, {1, 2}, {2, 0}, {2, -1}, {0, 1}, {1, -1}, {0, -1}, {-1, -1}};
    const int *c = on_edge[lh.zeros];
    if (c[0] < 0)
        return false;
    memset(key, 0, sizeof *key);
    key->corners = c[1] < 0 ? 1 : 2;
    copy_corner(b->block, b->lane, c[0], key->p[0]);
    if (key->corners == 2) {
        copy_corner(b->block, b->lane, c[1], key->p[1]);
        if (memcmp(key->p[0], key->p[1], sizeof key->p[0]) > 0) { /* order-free */
            float t[3];
            memcpy(t, key->p[0], sizeof t);
            memcpy(key->p[0], key->p[1], sizeof t);
            memcpy(key->p[1], t, sizeof t);
        }
    }
    return true;
}

/* True when `key` was seen; otherwise remembers it. */
static bool seen_before(recent_keys *r, const edge_key *key)
{
    for (int i = 0; i < r->count; i++)
        if (!memcmp(&r->key[i], key, sizeof *key))
            return true;
    r->key[r->next] = *key;
    r->next = (r->next + 1) % MQ_RECENT_KEYS;
    if (r->count < MQ_RECENT_KEYS)
        r->count++;
    return false;
}

size_t mq_bvh_raycast_each(const mq_bvh *bvh, const mq_ray *ray, const mq_ray_query *query, mq_hit_fn fn, void *user)
{
    mq_trace q;
    if (!bvh || !fn || !mq_trace_prepare(&q, bvh, ray, query))
        return 0;
    const mq_kernels *k = mq_kernels_active();
    mq_trace_counts counts = {0, 0, 0};
    recent_keys recent = {.count = 0, .next = 0};
    size_t reported = 0;
    float last_t = -INFINITY;
    for (;;) {
        mq_best best = mq_best_init(q.ray.tmax);
        if (!k->closest(&q, &best, &counts))
            break;
        q.has_after = true;
        q.after_t = best.t;
        q.after_id = best.id;
        edge_key key;
        if (hit_key(&q, &best, &key) && seen_before(&recent, &key))
            continue;
        mq_hit h;
        mq_hit_from_best(&q, &best, &h);
        /* The traversal orders hits by its float t; the record's t is
         * recomputed in double (hit_record.c) and may come out a little
         * smaller than an earlier hit's. Keep the reported t non-decreasing. */
        if (h.t < last_t)
            mq_hit_set_t(ray, last_t, &h);
        last_t = h.t;
        reported++;
        if (!fn(&h, user))
            break;
    }
    if (q.query->stats) {
        q.query->stats->node_visits += counts.nodes;
        q.query->stats->leaf_visits += counts.leaves;
        q.query->stats->triangle_tests += counts.blocks * MQ_TRI_BLOCK;
    }
    return reported;
}

typedef struct array_sink {
    mq_hit *hits;
    size_t capacity, count;
} array_sink;

static bool to_array(const mq_hit *hit, void *user)
{
    array_sink *s = user;
    if (s->count < s->capacity)
        s->hits[s->count] = *hit;
    s->count++;
    return true;
}

size_t mq_bvh_raycast_all(const mq_bvh *bvh, const mq_ray *ray, const mq_ray_query *query, mq_hit *hits,
                          size_t capacity)
{
    array_sink s = {hits, hits ? capacity : 0, 0};
    mq_bvh_raycast_each(bvh, ray, query, to_array, &s);
    return s.count;
}
