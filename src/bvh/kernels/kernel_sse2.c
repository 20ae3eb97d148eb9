/*
 * SSE2 kernels (the x86-64 baseline): an 8-wide node as two 4-wide slab
 * tests, 4-triangle blocks with leaf4_sse.h.
 */
#include "core/isa.h"
#if defined(MQ_ISA_SIMD)

#include "bvh/kernels/hit_record.h"
#include "bvh/kernels/leaf4_sse.h"
#include "bvh/kernels/traverse_common.h"

typedef struct kernel_ray {
    __m128 org[3], rdir[3];
    int near[3];
    mq_leaf4_ray leaf;
} kernel_ray;

static inline void kernel_ray_init(const mq_trace *q, kernel_ray *kr)
{
    for (int k = 0; k < 3; k++) {
        kr->org[k] = _mm_set1_ps(q->ray.org[k]);
        kr->rdir[k] = _mm_set1_ps(q->ray.rdir[k]);
        kr->near[k] = q->ray.near[k];
    }
    mq_leaf4_ray_init(&q->ray, q->cull, &kr->leaf);
}

/* SSE2 cannot index a lane by a variable: the distances go through memory. */
typedef struct kernel_dists {
    _Alignas(16) float v[MQ_BVH_WIDTH];
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

/* Entry and exit distances of 4 children on one axis. */
static inline void slab4(const mq_node8 *n, const kernel_ray *kr, int k, int off, __m128 *tn, __m128 *tf)
{
    *tn = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(&n->bounds[kr->near[k]][off]), kr->org[k]), kr->rdir[k]);
    *tf = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(&n->bounds[kr->near[k] ^ 1][off]), kr->org[k]), kr->rdir[k]);
}

static inline unsigned node4(const mq_node8 *n, const kernel_ray *kr, int off, __m128 vtmin, __m128 vtmax, float *dist,
                             bool neg)
{
    __m128 nx, fx, ny, fy, nz, fz;
    slab4(n, kr, 0, off, &nx, &fx);
    slab4(n, kr, 1, off, &ny, &fy);
    slab4(n, kr, 2, off, &nz, &fz);
    /* maxps/minps return the second operand when one is NaN: NaN distances drop out. */
    __m128 tn = _mm_max_ps(nx, _mm_max_ps(ny, _mm_max_ps(nz, vtmin)));
    __m128 tf = _mm_min_ps(fx, _mm_min_ps(fy, _mm_min_ps(fz, vtmax)));
    __m128 hit;
    if (neg) {
        __m128 sign = _mm_set1_ps(-0.0f), rel = _mm_set1_ps(MQ_IZE_REL);
        __m128 lo = _mm_sub_ps(tn, _mm_mul_ps(_mm_andnot_ps(sign, tn), rel));
        __m128 hi = _mm_add_ps(tf, _mm_mul_ps(_mm_andnot_ps(sign, tf), rel));
        hit = _mm_cmple_ps(lo, hi);
    } else {
        hit = _mm_cmple_ps(tn, _mm_mul_ps(tf, _mm_set1_ps(MQ_IZE_UP)));
    }
    _mm_store_ps(dist + off, tn);
    return (unsigned)_mm_movemask_ps(hit);
}

static inline unsigned kernel_node_hits(const mq_node8 *n, const kernel_ray *kr, float tmin, float tmax,
                                        kernel_dists *dist, bool neg)
{
    __m128 vtmin = _mm_set1_ps(tmin), vtmax = _mm_set1_ps(tmax);
    return node4(n, kr, 0, vtmin, vtmax, dist->v, neg) | node4(n, kr, 4, vtmin, vtmax, dist->v, neg) << 4;
}

static inline unsigned kernel_leaf_hits(const mq_tri_block *blk, const kernel_ray *kr, const mq_trace *q, float tmin,
                                        float tmax, mq_leaf_hits *out)
{
    return mq_leaf4_hits(&kr->leaf, q, blk, tmin, tmax, out);
}

#include "bvh/kernels/traverse_loop.h"

/* No packet kernel nor own preparation or hit records: the portable slots. */
const mq_kernels mq_kernels_sse2 = {.closest = kernel_closest,
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
                                    .isa = MQ_ISA_SSE2};

#else
typedef int mq_kernel_sse2_unused; /* ISO C forbids an empty translation unit */
#endif
