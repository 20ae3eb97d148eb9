/*
 * The portable kernels: plain C loops over the node's 8 children and the
 * block's 4 lanes. The reference for the SIMD kernels, and what builds with
 * MQ_FORCE_SCALAR or on architectures without SSE2.
 */
#include "bvh/kernels/hit_record.h"
#include "bvh/kernels/traverse_common.h"
#include "bvh/kernels/woop_lane.h"

typedef struct kernel_ray {
    const mq_trace *q;
} kernel_ray;

static inline void kernel_ray_init(const mq_trace *q, kernel_ray *kr)
{
    kr->q = q;
}

typedef struct kernel_dists {
    float v[MQ_BVH_WIDTH];
} kernel_dists;

static inline float kernel_dist_at(const kernel_dists *d, int i)
{
    return d->v[i];
}

static inline uint32_t kernel_push_many(const void *arena, const mq_node8 *n, unsigned mask, const kernel_dists *d,
                                        mq_stack_entry *stack, int *sp)
{
    return mq_push_sorted(arena, n, mask, d->v, stack, sp);
}

static inline unsigned kernel_node_hits(const mq_node8 *n, const kernel_ray *kr, float tmin, float tmax,
                                        kernel_dists *dist, bool neg)
{
    const mq_ray_prep *r = &kr->q->ray;
    unsigned mask = 0;
    for (int i = 0; i < MQ_BVH_WIDTH; i++) {
        float tn = tmin, tf = tmax;
        for (int k = 0; k < 3; k++) {
            /* (b - o) * (1/d): a NaN (0 * inf, origin on a plane of a slab the ray
             * runs along) loses every min/max below, as in SSE's minps/maxps. */
            float t0 = (n->bounds[r->near[k]][i] - r->org[k]) * r->rdir[k];
            float t1 = (n->bounds[r->near[k] ^ 1][i] - r->org[k]) * r->rdir[k];
            tn = t0 > tn ? t0 : tn;
            tf = t1 < tf ? t1 : tf;
        }
        bool hit = neg ? tn - fabsf(tn) * MQ_IZE_REL <= tf + fabsf(tf) * MQ_IZE_REL : tn <= tf * MQ_IZE_UP;
        dist->v[i] = tn;
        mask |= (unsigned)hit << i;
    }
    return mask;
}

static inline unsigned kernel_leaf_hits(const mq_tri_block *blk, const kernel_ray *kr, const mq_trace *q, float tmin,
                                        float tmax, mq_leaf_hits *out)
{
    (void)kr;
    return mq_woop_block(&q->ray, q->cull, blk, tmin, tmax, out);
}

#include "bvh/kernels/traverse_loop.h"

/* No packet kernel nor own preparation or hit records: the portable slots. */
const mq_kernels mq_kernels_scalar = {.closest = kernel_closest,
                                      .any = kernel_any,
                                      .stream = kernel_stream,
                                      .packet8 = kernel_packet8_portable,
                                      .packet8_rays = mq_packet8_rays_none,
                                      .prepare8 = mq_trace_prepare8_each,
                                      .prepare_valid = mq_trace_prepare_valid,
                                      .closest_valid = kernel_closest_valid_portable,
                                      .any_valid = kernel_any_valid_portable,
                                      .hits4 = mq_hits4_each,
                                      .hit1 = mq_hit_from_lane,
                                      .isa = MQ_ISA_SCALAR};
