/*
 * Scene rays (closest or any hit) traced as a stream (scene_batch_rays.c, at
 * ISA level AVX2 or above, core/isa.h): MQ_SCENE_LANES rays
 * in flight, each a resumable walk of the top-level hierarchy that, inside
 * an instance, holds a resumable trace of the instance's BVH
 * (bvh/kernels/traverse_lane.h). The loop advances each lane by one step in turn
 * (a descent of the top-level hierarchy to its next instance, an instance
 * entry, or one node or leaf of the instance's BVH), so the dependent loads
 * and cache misses of different rays overlap where a single ray leaves the
 * core waiting.
 *
 * Each ray takes exactly the steps of mq_scene_raycast_closest (or _any) on
 * that level (the AVX2 walk with mq_closest_leaf_avx2, or any_leaf): the same
 * instances in the same order with the same bounds, the same traces, the
 * same offers to the best hit, hence the same answer. Rays the walk does not take on its fast path
 * (invalid, or outside the float test's range, tlas_ray.h) and instances
 * traced through a filter go through the single-ray code.
 */
#include "scene/inst_ray_avx2.h"
#include "scene/tlas/tlas_node_avx2.h"
#include "bvh/kernels/hit_record.h"
#include "bvh/kernels/kernel_avx2.h"
#include "bvh/kernels/prep1_avx2.h"
#include "bvh/kernels/traverse_lane.h"

/* Rays in flight (see MQ_STREAM_LANES: the same trade-off). */
#define MQ_SCENE_LANES 8

typedef struct scene_lane {
    bool tracing;   /* inside an instance: `trace` is running */
    bool neg;       /* the instance trace's tmin is negative (kernel_node_hits) */
    bool occluded;  /* any hit: the answer */
    size_t index;   /* of the ray in the stream */
    mq_tlas_ray tr; /* the walk: ray constants, */
    tlas_vray tv;
    float tmin, tmax; /* float bounds (tmax follows the best hit), */
    uint32_t ref;     /* the next node or instance leaf, */
    int top;          /* and the stack */
    mq_tlas_entry *stack;
    mq_closest_ctx c; /* the ray, its culling, the best hit so far and the instance ray slots */
    mq_trace q;       /* the instance trace's query */
    stream_lane trace;
} scene_lane;

/* Pops the walk's next entry not beyond the best hit; false when none is left. */
static inline bool walk_pop(scene_lane *l)
{
    while (l->top > 0) {
        mq_tlas_entry e = l->stack[--l->top];
        if (!(e.dist > l->tmax)) {
            l->ref = e.ref;
            return true;
        }
    }
    return false;
}

/*
 * Walks down from node l->ref to the next instance leaf, the walk's state in
 * locals meanwhile (through l, every stack store would reload it): false when
 * the walk is over. Down to the leaf in one step: stepping node by node
 * measured slower (the upper levels stay in cache); the leaf's record is
 * prefetched, and gets a round of the other lanes to arrive.
 */
static inline __attribute__((always_inline)) bool walk_down(scene_lane *l, const mq_scene *s, uint32_t mask,
                                                            const bool any)
{
    uint32_t ref = l->ref;
    int top = l->top;
    mq_tlas_entry *stack = l->stack;
    const float tmin = l->tmin, tmax = l->tmax;
    do {
        const mq_tlas_block *n = &s->nodes[mq_tlas_ref_first(ref)];
        const unsigned blocks = mq_tlas_ref_blocks(ref);
        _Alignas(32) float dist[MQ_TLAS_WIDTH];
        /* Slots of mask 0 have empty boxes (scene_internal.h): all bits set needs no mask test. */
        unsigned live = mask == UINT32_MAX ? UINT32_MAX : tlas_live(n, blocks, mask);
        unsigned hit = live ? tlas_box_hits(n, blocks, &l->tr, &l->tv, tmin, tmax, dist) & live : 0;
        if (hit) {
            ref =
                any ? mq_tlas_push_any(s, n, hit, dist, stack, &top) : mq_tlas_push_hits(s, n, hit, dist, stack, &top);
            continue;
        }
        for (;;) { /* walk_pop */
            if (top == 0) {
                l->top = 0;
                return false;
            }
            mq_tlas_entry e = stack[--top];
            if (!(e.dist > tmax)) {
                ref = e.ref;
                break;
            }
        }
    } while (!(ref & MQ_TLAS_LEAF_BIT));
    l->ref = ref;
    l->top = top;
    mq_tlas_prefetch(s, ref);
    return true;
}

/* Back to the walk after an instance, its bound following the best hit. */
static inline bool instance_done(scene_lane *l)
{
    l->tracing = false;
    l->tmax = mq_float_ceil_of(l->c.t_hi);
    return walk_pop(l);
}

/* Enters instance leaf l->ref (mq_closest_leaf_avx2's steps): starts the
 * trace of its BVH, or decides the instance at once. False when the walk is over. */
static inline bool enter_instance(scene_lane *l, const mq_scene *s)
{
    const mq_instance_rec *inst = &s->recs[l->ref & ~MQ_TLAS_LEAF_BIT];
    mq_closest_ctx *c = &l->c;
    int slot = c->best_slot ^ 1;
    mq_inst_ray *ir = &c->ir[slot];
    __m128 lorg, ldir;
    if (!mq_inst_ray_map_avx2_regs(ir, inst, l->c.ray, &lorg, &ldir))
        return instance_done(l);
    /* mq_inst_ray_closest, split where it would call the kernel */
    float lo = ir->tmin, hi = mq_closest_local_hi(c, ir);
    if (!(lo <= hi))
        return instance_done(l);
    ir->local.tmin = lo;
    ir->local.tmax = hi;
    const mq_bvh *bvh = inst->ray.bvh;
    if (!bvh || (c->cull && inst->mirrored)) {
        mq_inst_trace opt = {c->cull, NULL};
        if (mq_inst_ray_closest_filtered(ir, &opt, &c->hit[slot]))
            mq_closest_offer(c, inst);
        return instance_done(l);
    }
    /* kernel_closest_valid (bvh/kernels/kernel_avx2.c), as a lane */
    mq_prep1_avx2_regs(&l->q, bvh, &ir->local, lorg, ldir, c->cull);
    if (bvh->root == MQ_REF_EMPTY)
        return instance_done(l);
    lane_start(&l->trace, &l->q, 0, mq_best_init(l->q.ray.tmax), false);
    l->neg = mq_trace_tmin(&l->q) < 0.0f;
    l->tracing = true;
    return true;
}

/* Enters instance leaf l->ref for an any-hit query (mq_scene_raycast_any's
 * leaf: mq_inst_ray_init, mq_inst_ray_any): starts the trace of its BVH, or
 * decides the instance at once. False when the walk is over. */
static inline bool enter_instance_any(scene_lane *l, const mq_scene *s)
{
    const mq_instance_rec *inst = &s->recs[l->ref & ~MQ_TLAS_LEAF_BIT];
    mq_inst_ray *ir = &l->c.ir[0];
    __m128 lorg, ldir;
    if (!mq_inst_ray_map_avx2_regs(ir, inst, l->c.ray, &lorg, &ldir))
        return instance_done(l);
    const mq_bvh *bvh = inst->ray.bvh;
    if (!bvh || (l->c.cull && inst->mirrored)) {
        l->occluded = mq_inst_ray_any(ir, l->c.cull);
        return !l->occluded && instance_done(l);
    }
    /* mq_bvh_any_valid (bvh/kernels/raycast.c), as a lane */
    ir->local.tmin = ir->tmin;
    ir->local.tmax = ir->tmax;
    mq_prep1_avx2_regs(&l->q, bvh, &ir->local, lorg, ldir, l->c.cull);
    if (bvh->root == MQ_REF_EMPTY)
        return instance_done(l);
    lane_start(&l->trace, &l->q, 0, mq_best_init(l->q.ray.tmax), true);
    l->neg = mq_trace_tmin(&l->q) < 0.0f;
    l->tracing = true;
    return true;
}

/* One step of the instance trace; at its end, a closest hit is offered, an
 * any hit ends the ray. False when the walk is over. */
static inline __attribute__((always_inline)) bool trace_step(scene_lane *l, mq_trace_counts *counts, const bool any)
{
    const void *arena = l->q.bvh->arena;
    bool more =
        l->neg ? lane_step(&l->trace, arena, any, counts, true) : lane_step(&l->trace, arena, any, counts, false);
    if (more)
        return true;
    if (any) {
        l->occluded = l->trace.hit;
        return !l->occluded && instance_done(l);
    }
    if (l->trace.best.id != MQ_NO_TRIANGLE) {
        mq_closest_ctx *c = &l->c;
        mq_hit_from_lane_avx2(l->q.bvh, l->q.user_ray, l->q.ray.t_shift, &l->trace.best, &c->hit[c->best_slot ^ 1]);
        mq_closest_offer(c, c->ir[c->best_slot ^ 1].inst); /* the traced slot's instance */
    }
    return instance_done(l);
}

/* One step of lane l; false when its ray is finished. */
static inline __attribute__((always_inline)) bool lane_advance(scene_lane *l, const mq_scene *s, uint32_t mask,
                                                               mq_trace_counts *counts, const bool any)
{
    if (l->tracing)
        return trace_step(l, counts, any);
    if (l->ref & MQ_TLAS_LEAF_BIT)
        return any ? enter_instance_any(l, s) : enter_instance(l, s);
    return walk_down(l, s, mask, any);
}

/* Starts rays[i] in lane l (mq_scene_raycast_closest's and _any's set-up;
 * an any-hit query keeps t_hi at tmax); false when the ray is not for the
 * stream. */
static inline bool lane_begin(scene_lane *l, const mq_scene *s, const mq_dray *ray, size_t i, bool cull)
{
    if (s->node_count == 0 || !tlas_vray_begin(&l->tr, &l->tv, ray))
        return false;
    l->tmin = mq_float_floor_of(ray->tmin);
    l->tmax = mq_float_ceil_of(ray->tmax);
    l->ref = s->root;
    l->top = 0;
    l->tracing = false;
    l->occluded = false;
    l->index = i;
    mq_closest_ctx *c = &l->c;
    c->found = false;
    c->ray = ray;
    c->recs = s->recs;
    c->cull = cull;
    c->best_slot = 0;
    c->t_hi = ray->tmax;
    return true;
}

/* Writes lane l's answer; true on a hit. */
static inline bool lane_answer(const scene_lane *l, mq_scene_hit *hits, bool *occluded)
{
    if (occluded)
        return occluded[l->index] = l->occluded;
    const mq_closest_ctx *c = &l->c;
    if (c->found)
        mq_inst_ray_world_hit(&c->ir[c->best_slot], &c->hit[c->best_slot], &hits[l->index]);
    else
        mq_scene_hit_miss(&hits[l->index]);
    return c->found;
}

typedef struct stream_input {
    const mq_scene *s;
    const mq_dray *rays;
    size_t n, next, found;
    const mq_scene_query *query;
    bool cull;
    mq_scene_hit *hits; /* closest, or */
    bool *occluded;     /* any */
} stream_input;

/* Starts the next ray that takes the stream in lane l, answering the others
 * on the way with the single-ray query; false when no ray is left. */
static bool lane_refill(scene_lane *l, stream_input *in)
{
    while (in->next < in->n) {
        size_t i = in->next++;
        /* A ray a round of lanes ahead: its line is read at once when its turn comes. */
        if (i + MQ_SCENE_LANES < in->n)
            mq_prefetch(&in->rays[i + MQ_SCENE_LANES]);
        if (lane_begin(l, in->s, &in->rays[i], i, in->cull)) {
            /* The answer's three lines (a record spans 136 bytes), owned by
             * the time the ray ends: its stores then do not wait for them. */
            if (in->hits) {
                const char *out = (const char *)&in->hits[i];
                mq_prefetch_write(out);
                mq_prefetch_write(out + 64);
                mq_prefetch_write(out + sizeof in->hits[i] - 1);
            }
            return true;
        }
        if (in->occluded)
            in->found += in->occluded[i] = mq_scene_raycast_any(in->s, &in->rays[i], in->query);
        else
            in->found += mq_scene_raycast_closest(in->s, &in->rays[i], in->query, &in->hits[i]);
    }
    return false;
}

static inline __attribute__((always_inline)) size_t stream(stream_input *in, const bool any)
{
    enum { L = MQ_SCENE_LANES };
    mq_tlas_entry walk_stacks[L][MQ_SCENE_STREAM_STACK]; /* the caller checked s->walk_stack */
    mq_stack_entry trace_stacks[L][MQ_TRAVERSAL_STACK];
    scene_lane lanes[L];
    bool live[L];
    const uint32_t mask = in->query ? in->query->mask : UINT32_MAX;
    mq_trace_counts counts = {0, 0, 0}; /* not reported: the single-ray queries keep none either */
    int alive = 0;
    for (int i = 0; i < L; i++) {
        lanes[i].stack = walk_stacks[i];
        lanes[i].trace.stack = trace_stacks[i];
        live[i] = lane_refill(&lanes[i], in);
        alive += live[i];
    }
    while (alive > 0)
        for (int i = 0; i < L; i++) {
            if (!live[i] || lane_advance(&lanes[i], in->s, mask, &counts, any))
                continue;
            in->found += lane_answer(&lanes[i], in->hits, in->occluded);
            live[i] = lane_refill(&lanes[i], in);
            alive -= !live[i];
        }
    return in->found;
}

size_t mq_scene_stream_closest_avx2(const mq_scene *s, const mq_dray *rays, size_t n, const mq_scene_query *query,
                                    mq_scene_hit *hits)
{
    stream_input in = {s, rays, n, 0, 0, query, query ? query->cull_back_faces : false, hits, NULL};
    return stream(&in, false);
}

size_t mq_scene_stream_any_avx2(const mq_scene *s, const mq_dray *rays, size_t n, const mq_scene_query *query,
                                bool *occluded)
{
    stream_input in = {s, rays, n, 0, 0, query, query ? query->cull_back_faces : false, NULL, occluded};
    return stream(&in, true);
}
