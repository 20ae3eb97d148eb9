/*
 * Internal interface of the scene raycasts (scene_raycast*.c): a world ray
 * mapped into one instance's frame, traced there, and its hits mapped back.
 *
 * Mapping (scene.h, "Large worlds"): the ray is first advanced in double to
 * where it enters the instance's root box (never before tmin; the clip is done
 * in the local frame, so it does not depend on the placement), so the local
 * origin lies near the mesh and rounds to float with the mesh's own
 * precision. The direction is mapped by A^-1 and NOT normalised, so the local
 * t is the world t minus the advance. World t = advance + local t, in double.
 */
#ifndef MQ_SCENE_SCENE_RAYCAST_H
#define MQ_SCENE_SCENE_RAYCAST_H

#include <math.h>

#include "core/isa.h"

/* The x86-64 baseline (SSE2) in the helpers below and in tlas_ray.h; the ISA
 * switch (core/isa.h) picks the walks and the mapping at run time. */
#if defined(MQ_ISA_SIMD)
#include <emmintrin.h>
#endif

#include "core/float_steps.h"
#include "scene/scene_internal.h"
#include "bvh/kernels/trace.h"

/* mq_dray_is_valid: finite origin and direction, a non-zero direction, tmin <= tmax. */
static inline bool mq_dray_ok(const mq_dray *r)
{
#if defined(MQ_ISA_SIMD)
    /* x * 0 == 0 exactly when x is finite */
    const __m128d z = _mm_setzero_pd();
    __m128d o01 = _mm_loadu_pd(r->origin), d01 = _mm_loadu_pd(r->dir);
    __m128d od2 = _mm_unpacklo_pd(_mm_load_sd(r->origin + 2), _mm_load_sd(r->dir + 2));
    __m128d fin = _mm_and_pd(_mm_and_pd(_mm_cmpeq_pd(_mm_mul_pd(o01, z), z), _mm_cmpeq_pd(_mm_mul_pd(d01, z), z)),
                             _mm_cmpeq_pd(_mm_mul_pd(od2, z), z));
    __m128d nz = _mm_or_pd(_mm_cmpneq_pd(d01, z), _mm_cmpneq_pd(_mm_unpackhi_pd(od2, od2), z));
    unsigned ok = (unsigned)(_mm_movemask_pd(fin) == 3); /* no branches: & on 0 / 1 */
    ok &= (unsigned)(_mm_movemask_pd(nz) != 0);
    ok &= (unsigned)(r->tmin <= r->tmax);
    return ok != 0;
#else
    return mq_dray_is_valid(r);
#endif
}

/* A world ray as one instance sees it. */
typedef struct mq_inst_ray {
    const mq_instance_rec *inst;
    const mq_dray *world; /* the caller's ray */
    double advance;       /* world t of the local origin */
    mq_ray local;         /* the float ray traced (tmin/tmax set per trace) */
    float tmin, tmax;     /* the caller's [tmin, tmax] in local t, rounded inwards */
} mq_inst_ray;

/* The scene ray key: ties in t go to the smaller instance, then triangle. */
typedef struct mq_ray_key {
    double t;
    uint32_t instance, triangle;
} mq_ray_key;

static inline bool mq_ray_key_less(const mq_ray_key *a, const mq_ray_key *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->instance != b->instance)
        return a->instance < b->instance;
    return a->triangle < b->triangle;
}

/*
 * Maps the ray into the instance's frame. @return false when the ray misses
 * the instance's world box in [tmin, tmax] or its local form is not a valid
 * float ray (then nothing of the instance can be hit).
 */
bool mq_inst_ray_init(mq_inst_ray *ir, const mq_instance_rec *inst, const mq_dray *ray);

/* Its two implementations (scene_raycast_map.c picks one by ISA level,
 * core/isa.h): the reference, and the same operations with AVX2
 * (scene_raycast_map_avx2.c; the same bits) from MQ_ISA_AVX2 up. */
bool mq_inst_ray_init_scalar(mq_inst_ray *ir, const mq_instance_rec *inst, const mq_dray *ray);
/* The walk stack entries the stream keeps per ray in flight: it takes scenes
 * whose tree needs no more (mq_scene.walk_stack; ordinary trees need far
 * fewer, see MQ_TLAS_STACK for the bound of any tree). */
#define MQ_SCENE_STREAM_STACK 512
#if defined(MQ_ISA_SIMD)
bool mq_inst_ray_init_avx2(mq_inst_ray *ir, const mq_instance_rec *inst, const mq_dray *ray);
/* The closest-hit walk's leaf with the AVX2 mapping inlined (user: an mq_closest_ctx). */
bool mq_closest_leaf_avx2(const mq_instance_rec *inst, void *user);
/* mq_scene_raycast_closest of rays[0..n) into hits[0..n), several rays
 * interleaved (scene_stream_avx2.c; s not NULL, s->walk_stack at most
 * MQ_SCENE_STREAM_STACK); the same answers. Only at ISA level MQ_ISA_AVX2 or
 * above (core/isa.h). @return the number of hits. */
size_t mq_scene_stream_closest_avx2(const mq_scene *s, const mq_dray *rays, size_t n, const mq_scene_query *query,
                                    mq_scene_hit *hits);
/* The same for mq_scene_raycast_any into occluded[0..n); @return the number occluded. */
size_t mq_scene_stream_any_avx2(const mq_scene *s, const mq_dray *rays, size_t n, const mq_scene_query *query,
                                bool *occluded);
#endif

/* The world t of a local hit at local t, clamped into the caller's [tmin, tmax]. */
double mq_inst_ray_world_t(const mq_inst_ray *ir, float t_local);

/* The local float t at or below (or at or above) a world t: bounds for the traced interval. */
static inline float mq_inst_ray_local_floor(const mq_inst_ray *ir, double t_world)
{
    return mq_float_floor_of(t_world - ir->advance);
}

static inline float mq_inst_ray_local_ceil(const mq_inst_ray *ir, double t_world)
{
    return mq_float_ceil_of(t_world - ir->advance);
}

/* Per-trace options. `after` (when set) keeps only hits whose key comes after it. */
typedef struct mq_inst_trace {
    bool cull_back_faces;    /* in the world */
    const mq_ray_key *after; /* NULL: no lower bound */
} mq_inst_trace;

/* mq_inst_ray_closest's general case: a filter, or an OBB tree (local.tmin / tmax set). */
bool mq_inst_ray_closest_filtered(mq_inst_ray *ir, const mq_inst_trace *opt, mq_hit *out);

/*
 * The closest local hit with local t in [tmin, tmax] (already clipped by the
 * caller to the local bounds) that passes the options. @return true on a hit
 * (*out is not written on a miss).
 */
static inline bool mq_inst_ray_closest(mq_inst_ray *ir, float tmin, float tmax, const mq_inst_trace *opt, mq_hit *out)
{
    if (!(tmin <= tmax))
        return false;
    ir->local.tmin = tmin;
    ir->local.tmax = tmax;
    const mq_bvh *bvh = ir->inst->ray.bvh; /* in the line mq_inst_ray_init read */
    if (bvh && !opt->after && !(opt->cull_back_faces && ir->inst->mirrored)) {
        /* The common case: no filter (see mq_inst_ray_closest_filtered), no
         * query to set up; mq_bvh_raycast_closest without its validity check:
         * the local ray passed mq_inst_ray_init's with [ir->tmin, ir->tmax],
         * and [tmin, tmax] is a non-empty part of that. */
        return mq_bvh_closest_valid(bvh, &ir->local, opt->cull_back_faces, out);
    }
    return mq_inst_ray_closest_filtered(ir, opt, out);
}

/*
 * The closest-hit query's state (scene_raycast.c). The best instance's mapped
 * ray and local hit live in one of two slots; the next instance is mapped and
 * traced into the spare one (best_slot ^ 1), which becomes the best when it
 * wins, so nothing is copied; the world record is made once, at the end.
 */
typedef struct mq_closest_ctx {
    const mq_dray *ray;
    const mq_instance_rec *recs; /* the scene's: an instance's id is its index */
    bool cull;
    bool found;
    int best_slot; /* of the best hit, when found */
    double t_hi;   /* best t so far (the caller's tmax before any hit) */
    mq_ray_key best;
    mq_inst_ray ir[2];
    mq_hit hit[2];
} mq_closest_ctx;

/* The rest of a walk leaf once mq_inst_ray_init mapped the ray into the spare slot (true: go on). */
bool mq_closest_leaf_traced(mq_closest_ctx *c, const mq_instance_rec *inst);

/* The local upper t of a trace in the spare slot's mapped ray ir: up to the
 * best t so far rounded up (an equal world t with a smaller instance id still
 * wins), or the caller's tmax before any hit. */
static inline float mq_closest_local_hi(const mq_closest_ctx *c, const mq_inst_ray *ir)
{
    if (!c->found)
        return ir->tmax;
    float best = mq_inst_ray_local_ceil(ir, c->t_hi); /* neither is NaN: no fminf (a libm call) */
    return best < ir->tmax ? best : ir->tmax;
}

/* The spare slot's local hit (c->hit[best_slot ^ 1], of instance inst)
 * against the best so far: becomes the best when its key is smaller. */
void mq_closest_offer(mq_closest_ctx *c, const mq_instance_rec *inst);

/* True when the instance has any hit in the caller's [tmin, tmax]. */
bool mq_inst_ray_any(mq_inst_ray *ir, bool cull_back_faces);

/* Fills the world hit of a local hit. */
void mq_inst_ray_world_hit(const mq_inst_ray *ir, const mq_hit *h, mq_scene_hit *out);

/* The record of a miss. */
void mq_scene_hit_miss(mq_scene_hit *out);

/*
 * Walks the committed hierarchy along the ray: leaves (mask-matching
 * instances) whose box the ray enters in [t_lo, *t_hi], roughly near to far;
 * boxes entered after *t_hi (re-read as the walk goes) are skipped. Stops
 * when `leaf` returns false. @return false when stopped.
 */
bool mq_tlas_walk_ray(const mq_scene *s, const mq_dray_prep *prep, double t_lo, const double *t_hi, uint32_t mask,
                      bool (*leaf)(const mq_instance_rec *inst, void *user), void *user);

#endif
