/* Scene raycasts: closest hit and any hit (meshquery/scene.h). */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "scene/scene_raycast.h"
#include "scene/tlas/tlas_ray.h"

/* ---- the walk of the top-level hierarchy (tlas_ray.h, tlas_walk_impl.h) --- */

/* The slow path's node test: the double slab test on the float boxes. */
static unsigned node_hits_double(const mq_tlas_block *n, unsigned blocks, const mq_tlas_ray *r, float tmin, float tmax,
                                 unsigned live, float *dist)
{
    unsigned hit = 0;
    for (unsigned i = 0; i < blocks * MQ_TLAS_BLOCK; i++) {
        if (!(live >> i & 1))
            continue;
        const mq_tlas_block *b = &n[i / MQ_TLAS_BLOCK];
        double lo[3], hi[3], a = tmin, t = tmax;
        for (int k = 0; k < 3; k++) {
            lo[k] = b->lo[k][i % MQ_TLAS_BLOCK];
            hi[k] = b->hi[k][i % MQ_TLAS_BLOCK];
        }
        if (mq_dray_clip_box(r->prep, lo, hi, &a, &t)) {
            hit |= 1u << i;
            dist[i] = mq_float_floor_of(a);
        }
    }
    return hit;
}

/* The float test (tlas_ray.h), one slot at a time: the walk at ISA level
 * MQ_ISA_SCALAR (core/isa.h), and everywhere in a build without SIMD. */
typedef struct tlas_vray_scalar {
    int unused_;
} tlas_vray_scalar;

static inline void tlas_vray_init_scalar(const mq_tlas_ray *r, tlas_vray_scalar *v)
{
    (void)r;
    v->unused_ = 0;
}

static inline unsigned tlas_box_hits_scalar(const mq_tlas_block *n, unsigned blocks, const mq_tlas_ray *r,
                                            const tlas_vray_scalar *v, float tmin, float tmax, float *dist)
{
    (void)v;
    unsigned hit = 0;
    for (unsigned i = 0; i < blocks * MQ_TLAS_BLOCK; i++) {
        const mq_tlas_block *b = &n[i / MQ_TLAS_BLOCK];
        unsigned j = i % MQ_TLAS_BLOCK;
        float tn = tmin, tf = tmax;
        for (int k = 0; k < 3; k++) {
            float np = mq_tlas_plane(b, r->near_off[k])[j], fp = mq_tlas_plane(b, r->far_off[k])[j];
            float a = (np - r->o_near[k]) * r->rd_near[k], f = (fp - r->o_far[k]) * r->rd_far[k];
            tn = a > tn ? a : tn; /* NaN drops out */
            tf = f < tf ? f : tf;
        }
        tn -= FLT_MIN;
        dist[i] = tn;
        hit |= tn <= tf ? 1u << i : 0u;
    }
    return hit;
}

#define tlas_vray tlas_vray_scalar
#define tlas_vray_init tlas_vray_init_scalar
#define TLAS_WALK_LIVE(n, blocks, mask) mq_tlas_live(n, blocks, mask)
#define TLAS_WALK_NAME walk_fast_scalar
#define TLAS_WALK_HITS(n, blocks, r, v, tmin, tmax, live, dist)                                                        \
    (tlas_box_hits_scalar(n, blocks, r, v, tmin, tmax, dist) & (live))
#include "scene/tlas/tlas_walk_impl.h"
#undef TLAS_WALK_NAME
#undef TLAS_WALK_HITS
#undef TLAS_WALK_LIVE
#undef tlas_vray
#undef tlas_vray_init

#if defined(MQ_ISA_SIMD)
/* The float test four slots at a time: the walk at ISA level MQ_ISA_SSE2
 * (the same bits as the scalar one: the same operations per lane). */
typedef struct tlas_vray_sse2 {
    __m128 o_near[3], o_far[3], rd_near[3], rd_far[3];
} tlas_vray_sse2;

static inline void tlas_vray_init_sse2(const mq_tlas_ray *r, tlas_vray_sse2 *v)
{
    for (int k = 0; k < 3; k++) {
        v->o_near[k] = _mm_set1_ps(r->o_near[k]);
        v->o_far[k] = _mm_set1_ps(r->o_far[k]);
        v->rd_near[k] = _mm_set1_ps(r->rd_near[k]);
        v->rd_far[k] = _mm_set1_ps(r->rd_far[k]);
    }
}

static inline unsigned tlas_box_hits_sse2(const mq_tlas_block *n, unsigned blocks, const mq_tlas_ray *r,
                                          const tlas_vray_sse2 *v, float tmin, float tmax, float *dist)
{
    unsigned hit = 0;
    for (unsigned h = 0; h < blocks * MQ_TLAS_BLOCK; h += 4) {
        const mq_tlas_block *b = &n[h / MQ_TLAS_BLOCK];
        unsigned j = h % MQ_TLAS_BLOCK;
        __m128 tn = _mm_set1_ps(tmin), tf = _mm_set1_ps(tmax);
        for (int k = 0; k < 3; k++) {
            __m128 a =
                _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(mq_tlas_plane(b, r->near_off[k]) + j), v->o_near[k]), v->rd_near[k]);
            __m128 f =
                _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(mq_tlas_plane(b, r->far_off[k]) + j), v->o_far[k]), v->rd_far[k]);
            tn = _mm_max_ps(a, tn); /* a NaN in a gives tn */
            tf = _mm_min_ps(f, tf);
        }
        tn = _mm_sub_ps(tn, _mm_set1_ps(FLT_MIN));
        _mm_storeu_ps(dist + h, tn);
        hit |= (unsigned)_mm_movemask_ps(_mm_cmple_ps(tn, tf)) << h;
    }
    return hit;
}

static inline unsigned tlas_live_sse2(const mq_tlas_block *n, unsigned blocks, uint32_t qmask)
{
    unsigned live = 0;
    __m128i q = _mm_set1_epi32((int)qmask), zero = _mm_setzero_si128();
    for (unsigned h = 0; h < blocks * MQ_TLAS_BLOCK; h += 4) {
        const uint32_t *m4 = n[h / MQ_TLAS_BLOCK].mask + h % MQ_TLAS_BLOCK;
        __m128i m = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)m4), q);
        live |= (~(unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(m, zero))) & 15u) << h;
    }
    return live;
}

#define tlas_vray tlas_vray_sse2
#define tlas_vray_init tlas_vray_init_sse2
#define TLAS_WALK_LIVE(n, blocks, mask) tlas_live_sse2(n, blocks, mask)
#define TLAS_WALK_NAME walk_fast_sse2
#define TLAS_WALK_HITS(n, blocks, r, v, tmin, tmax, live, dist)                                                        \
    (tlas_box_hits_sse2(n, blocks, r, v, tmin, tmax, dist) & (live))
#include "scene/tlas/tlas_walk_impl.h"
#undef TLAS_WALK_NAME
#undef TLAS_WALK_HITS
#undef TLAS_WALK_LIVE
#undef tlas_vray
#undef tlas_vray_init
#endif

/* The slow walk needs no ray constants. */
#define tlas_vray tlas_vray_scalar
#define tlas_vray_init tlas_vray_init_scalar
#define TLAS_WALK_NAME walk_slow
#define TLAS_WALK_LIVE(n, blocks, mask) mq_tlas_live(n, blocks, mask)
#define TLAS_WALK_HITS(n, blocks, r, v, tmin, tmax, live, dist) node_hits_double(n, blocks, r, tmin, tmax, live, dist)
#include "scene/tlas/tlas_walk_impl.h"
#undef TLAS_WALK_NAME
#undef TLAS_WALK_HITS
#undef TLAS_WALK_LIVE
#undef tlas_vray
#undef tlas_vray_init

bool mq_tlas_walk(const mq_scene *s, const mq_tlas_ray *r, double t_lo, const double *t_hi, uint32_t mask, bool ordered,
                  bool (*leaf)(const mq_instance_rec *inst, void *user), void *user)
{
    if (s->node_count == 0)
        return true;
    if (!r->fast)
        return ordered ? walk_slow(s, r, t_lo, t_hi, mask, true, leaf, user)
                       : walk_slow(s, r, t_lo, t_hi, mask, false, leaf, user);
        /* The fast walk of the active ISA level (core/isa.h); every one visits
         * the same leaves in the same order. */
#if defined(MQ_ISA_SIMD)
    mq_isa isa = mq_isa_active();
    if (isa >= MQ_ISA_AVX2)
        return mq_tlas_walk_fast_avx2(s, r, t_lo, t_hi, mask, ordered, leaf, user);
    if (isa >= MQ_ISA_SSE2)
        return ordered ? walk_fast_sse2(s, r, t_lo, t_hi, mask, true, leaf, user)
                       : walk_fast_sse2(s, r, t_lo, t_hi, mask, false, leaf, user);
#endif
    return ordered ? walk_fast_scalar(s, r, t_lo, t_hi, mask, true, leaf, user)
                   : walk_fast_scalar(s, r, t_lo, t_hi, mask, false, leaf, user);
}

bool mq_tlas_walk_ray(const mq_scene *s, const mq_dray_prep *prep, double t_lo, const double *t_hi, uint32_t mask,
                      bool (*leaf)(const mq_instance_rec *inst, void *user), void *user)
{
    mq_tlas_ray r;
    mq_tlas_ray_init(&r, prep, t_lo);
    return mq_tlas_walk(s, &r, t_lo, t_hi, mask, true, leaf, user);
}

/* ---- closest ------------------------------------------------------------ */

void mq_closest_offer(mq_closest_ctx *c, const mq_instance_rec *inst)
{
    int slot = c->best_slot ^ 1;
    const mq_hit *h = &c->hit[slot];
    /* The id from the index: inst->id lies lines away from the ray data. */
    mq_ray_key k = {mq_inst_ray_world_t(&c->ir[slot], h->t), (uint32_t)(inst - c->recs), h->triangle};
    if (!c->found || mq_ray_key_less(&k, &c->best)) {
        c->found = true;
        c->best = k;
        c->best_slot = slot;
        c->t_hi = k.t;
        /* What the world record reads beyond the ray data, on its way while the walk goes on. */
        mq_prefetch(&inst->to_world);
        mq_prefetch((const char *)&inst->to_world + 64);
        mq_prefetch(&inst->normal_to_world);
        mq_prefetch((const char *)&inst->normal_to_world + 64);
        mq_prefetch(&inst->user_id);
    }
}

bool mq_closest_leaf_traced(mq_closest_ctx *c, const mq_instance_rec *inst)
{
    int slot = c->best_slot ^ 1;
    mq_inst_ray *ir = &c->ir[slot];
    mq_inst_trace opt = {c->cull, NULL};
    if (mq_inst_ray_closest(ir, ir->tmin, mq_closest_local_hi(c, ir), &opt, &c->hit[slot]))
        mq_closest_offer(c, inst);
    return true;
}

static bool closest_leaf(const mq_instance_rec *inst, void *user)
{
    mq_closest_ctx *c = user;
    if (!mq_inst_ray_init(&c->ir[c->best_slot ^ 1], inst, c->ray))
        return true;
    return mq_closest_leaf_traced(c, inst);
}

bool mq_scene_raycast_closest(const mq_scene *s, const mq_dray *ray, const mq_scene_query *query, mq_scene_hit *out)
{
    mq_closest_ctx c;
    c.found = false;
    if (s && ray && mq_dray_ok(ray)) {
        mq_dray_prep prep;
        mq_tlas_ray r;
        mq_tlas_ray_prepare(&r, &prep, ray, ray->tmin);
        c.ray = ray;
        c.recs = s->recs;
        c.cull = query ? query->cull_back_faces : false;
        c.best_slot = 0;
        c.t_hi = ray->tmax;
        /* The leaf with the ISA level's mapping inlined (core/isa.h). */
        bool (*leaf)(const mq_instance_rec *, void *) = closest_leaf;
#if defined(MQ_ISA_SIMD)
        if (mq_isa_active() >= MQ_ISA_AVX2)
            leaf = mq_closest_leaf_avx2;
#endif
        mq_tlas_walk(s, &r, ray->tmin, &c.t_hi, query ? query->mask : 0xFFFFFFFFu, true, leaf, &c);
    }
    if (out) {
        if (c.found)
            mq_inst_ray_world_hit(&c.ir[c.best_slot], &c.hit[c.best_slot], out);
        else
            mq_scene_hit_miss(out);
    }
    return c.found;
}

/* ---- any ---------------------------------------------------------------- */

typedef struct any_ctx {
    const mq_dray *ray;
    bool cull;
} any_ctx;

static bool any_leaf(const mq_instance_rec *inst, void *user)
{
    any_ctx *c = user;
    mq_inst_ray ir;
    return !(mq_inst_ray_init(&ir, inst, c->ray) && mq_inst_ray_any(&ir, c->cull));
}

bool mq_scene_raycast_any(const mq_scene *s, const mq_dray *ray, const mq_scene_query *query)
{
    if (!s || !ray || !mq_dray_ok(ray))
        return false;
    mq_scene_query q = query ? *query : mq_default_scene_query();
    mq_dray_prep prep;
    mq_tlas_ray r;
    mq_tlas_ray_prepare(&r, &prep, ray, ray->tmin);
    any_ctx c = {ray, q.cull_back_faces};
    double t_hi = ray->tmax;
    return !mq_tlas_walk(s, &r, ray->tmin, &t_hi, q.mask, false, any_leaf, &c);
}
