/*
 * Every hit along a scene ray, in increasing (t, instance, triangle), with no
 * allocation and no limit (meshquery/scene.h).
 *
 * Each next hit is one pass over the instances the ray reaches: per instance,
 * the closest local hit whose world key comes after the last one reported (a
 * filter; the local tmin is raised to the key's t so the hierarchy skips what
 * lies before), and the smallest of those wins. O(k) passes for k hits, as
 * mq_bvh_raycast_each does per mesh. The world t of a local hit depends only
 * on the ray and the instance (the advance never changes between passes), so
 * the order is consistent from pass to pass.
 *
 * De-duplication, as mq_bvh_raycast_each: a ray through a shared edge or
 * vertex has an exactly zero watertight edge function in each triangle around
 * it; such hits are keyed by (instance, corner positions of the edge or the
 * vertex) and only the first in key order is reported. The edge functions are
 * recomputed here with the float operations of mq_raycast_triangle (which the
 * BVH's leaf test reproduces bit for bit) on the local ray that was traced.
 */
#include <math.h>
#include <string.h>

#include "scene/scene_raycast.h"

#define RECENT_KEYS 32

typedef struct edge_key {
    uint32_t instance;
    int corners;
    float p[2][3];
} edge_key;

typedef struct recent_keys {
    edge_key key[RECENT_KEYS];
    int count, next;
} recent_keys;

static int largest_axis(const float d[3])
{
    float x = fabsf(d[0]), y = fabsf(d[1]), z = fabsf(d[2]);
    if (x >= y && x >= z)
        return 0;
    return y >= z ? 1 : 2;
}

/* Which edge functions are exactly zero: bit 0 U (edge v1v2), 1 V (v2v0), 2 W (v0v1). */
static unsigned edge_zeros(const mq_ray *ray, const mq_triangle *tri)
{
    const float *dir = ray->dir;
    int kz = largest_axis(dir), kx = kz == 2 ? 0 : kz + 1, ky = kx == 2 ? 0 : kx + 1;
    if (dir[kz] < 0.0f) {
        int t = kx;
        kx = ky;
        ky = t;
    }
    float sx = dir[kx] / dir[kz], sy = dir[ky] / dir[kz];
    float X[3], Y[3];
    for (int c = 0; c < 3; c++) {
        float px = tri->v[c][kx] - ray->origin[kx], py = tri->v[c][ky] - ray->origin[ky];
        float pz = tri->v[c][kz] - ray->origin[kz];
        X[c] = px - sx * pz;
        Y[c] = py - sy * pz;
    }
    /* The primitive takes a float edge function's sign when it is not 0, and
     * recomputes a 0 in double, where products of floats are exact. A float
     * result is 0 exactly when the two rounded products are equal, which an
     * exact 0 always gives; so "exactly zero" is decided here in double alone. */
    double U = (double)X[2] * Y[1] - (double)Y[2] * X[1];
    double V = (double)X[0] * Y[2] - (double)Y[0] * X[2];
    double W = (double)X[1] * Y[0] - (double)Y[1] * X[0];
    return (U == 0.0 ? 1u : 0u) | (V == 0.0 ? 2u : 0u) | (W == 0.0 ? 4u : 0u);
}

/* The key of a hit on an edge or a vertex; false for a hit inside the triangle. */
static bool hit_key(const mq_inst_ray *ir, uint32_t triangle, edge_key *key)
{
    mq_triangle tri;
    mq_mesh_get_triangle(ir->inst->mesh, triangle, &tri);
    unsigned zeros = edge_zeros(&ir->local, &tri);
    static const int on_edge[8][2] = {{-1, -1}, {1, 2}, {2, 0}, {2, -1}, {0, 1}, {1, -1}, {0, -1}, {-1, -1}};
    const int *c = on_edge[zeros];
    if (c[0] < 0)
        return false;
    memset(key, 0, sizeof *key);
    key->instance = ir->inst->id;
    key->corners = c[1] < 0 ? 1 : 2;
    memcpy(key->p[0], tri.v[c[0]], sizeof key->p[0]);
    if (key->corners == 2) {
        memcpy(key->p[1], tri.v[c[1]], sizeof key->p[1]);
        if (memcmp(key->p[0], key->p[1], sizeof key->p[0]) > 0) { /* order-free */
            float t[3];
            memcpy(t, key->p[0], sizeof t);
            memcpy(key->p[0], key->p[1], sizeof t);
            memcpy(key->p[1], t, sizeof t);
        }
    }
    return true;
}

static bool seen_before(recent_keys *r, const edge_key *key)
{
    for (int i = 0; i < r->count; i++)
        if (!memcmp(&r->key[i], key, sizeof *key))
            return true;
    r->key[r->next] = *key;
    r->next = (r->next + 1) % RECENT_KEYS;
    if (r->count < RECENT_KEYS)
        r->count++;
    return false;
}

typedef struct pass_ctx {
    const mq_dray *ray;
    bool cull;
    const mq_ray_key *after; /* NULL before the first hit */
    double t_hi;
    bool found;
    mq_ray_key best;
    mq_inst_ray best_ray;
    mq_hit best_hit;
} pass_ctx;

static bool pass_leaf(const mq_instance_rec *inst, void *user)
{
    pass_ctx *c = user;
    mq_inst_ray ir;
    if (!mq_inst_ray_init(&ir, inst, c->ray))
        return true;
    float lo = ir.tmin, hi = ir.tmax;
    if (c->after) {
        float a = mq_inst_ray_local_floor(&ir, c->after->t);
        lo = a > lo ? a : lo;
    }
    if (c->found) {
        float b = mq_inst_ray_local_ceil(&ir, c->t_hi);
        hi = b < hi ? b : hi;
    }
    mq_inst_trace opt = {c->cull, c->after};
    mq_hit h;
    if (!mq_inst_ray_closest(&ir, lo, hi, &opt, &h))
        return true;
    mq_ray_key k = {mq_inst_ray_world_t(&ir, h.t), inst->id, h.triangle};
    if (!c->found || mq_ray_key_less(&k, &c->best)) {
        c->found = true;
        c->best = k;
        c->best_ray = ir;
        c->best_hit = h;
        c->t_hi = k.t;
    }
    return true;
}

size_t mq_scene_raycast_each(const mq_scene *s, const mq_dray *ray, const mq_scene_query *query, mq_scene_hit_fn fn,
                             void *user)
{
    if (!s || !fn || !mq_dray_is_valid(ray))
        return 0;
    mq_scene_query q = query ? *query : mq_default_scene_query();
    mq_dray_prep prep;
    mq_dray_prepare(ray, &prep);
    recent_keys recent = {.count = 0, .next = 0};
    mq_ray_key last;
    bool has_last = false;
    size_t reported = 0;
    for (;;) {
        pass_ctx c;
        memset(&c, 0, sizeof c);
        c.ray = ray;
        c.cull = q.cull_back_faces;
        c.after = has_last ? &last : NULL;
        c.t_hi = ray->tmax;
        mq_tlas_walk_ray(s, &prep, has_last ? last.t : ray->tmin, &c.t_hi, q.mask, pass_leaf, &c);
        if (!c.found)
            break;
        last = c.best;
        has_last = true;
        edge_key key;
        if (hit_key(&c.best_ray, c.best.triangle, &key) && seen_before(&recent, &key))
            continue;
        mq_scene_hit h;
        mq_inst_ray_world_hit(&c.best_ray, &c.best_hit, &h);
        reported++;
        if (!fn(&h, user))
            break;
    }
    return reported;
}

typedef struct array_sink {
    mq_scene_hit *hits;
    size_t capacity, count;
} array_sink;

static bool to_array(const mq_scene_hit *hit, void *user)
{
    array_sink *a = user;
    if (a->count < a->capacity)
        a->hits[a->count] = *hit;
    a->count++;
    return true;
}

size_t mq_scene_raycast_all(const mq_scene *s, const mq_dray *ray, const mq_scene_query *query, mq_scene_hit *hits,
                            size_t capacity)
{
    array_sink a = {hits, hits ? capacity : 0, 0};
    mq_scene_raycast_each(s, ray, query, to_array, &a);
    return a.count;
}
