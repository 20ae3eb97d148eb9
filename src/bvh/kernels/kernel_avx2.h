/*
 * The AVX2 kernel's per-ray constants, node test and leaf test (the kernel_*
 * names traverse_loop.h and traverse_lane.h expect), for *_avx2.c files only:
 * kernel_avx2.c instantiates the traversal loops with them, and the scene's
 * ray stream (scene/scene_stream_avx2.c) steps its instance traces with them.
 */
#ifndef MQ_BVH_KERNELS_KERNEL_AVX2_H
#define MQ_BVH_KERNELS_KERNEL_AVX2_H

#include <immintrin.h>

#include "bvh/kernels/leaf4_sse.h"
#include "bvh/kernels/prep1_avx2.h"
#include "bvh/kernels/traverse_common.h"

/*
 * Per-ray constants, with the axes in the order (kx, ky, kz) of the
 * watertight test: the dominant axis kz has a non-zero direction, so its slab
 * distances are never NaN, and it goes innermost in the min/max trees below,
 * which keeps NaN (0 * inf: origin on the plane of a slab the ray runs along)
 * out of the result. The exit planes' reciprocals carry Ize's widening.
 */
typedef struct kernel_ray {
    __m256 org[3], rd_near[3], rd_far[3];
    size_t near_off[3], far_off[3]; /* byte offsets of the entry / exit planes in a node */
    mq_leaf4_ray leaf;
} kernel_ray;

static inline void kernel_ray_init(const mq_trace *q, kernel_ray *kr)
{
    const mq_ray_prep *r = &q->ray;
    const int axis[3] = {r->kx, r->ky, r->kz};
    /* The widening rides on the exit reciprocal when every relevant distance is >= 0;
     * with a negative tmin the node test widens both ends instead. */
    float up = mq_trace_tmin(q) < 0.0f ? 1.0f : MQ_IZE_UP;
    for (int i = 0; i < 3; i++) {
        int k = axis[i];
        kr->org[i] = _mm256_set1_ps(r->org[k]);
        kr->rd_near[i] = _mm256_set1_ps(r->rdir[k]);
        kr->rd_far[i] = _mm256_set1_ps(r->rdir[k] * up);
        kr->near_off[i] = (size_t)r->near[k] * sizeof(float) * MQ_BVH_WIDTH;
        kr->far_off[i] = (size_t)(r->near[k] ^ 1) * sizeof(float) * MQ_BVH_WIDTH;
    }
    mq_leaf4_ray_init(r, q->cull, &kr->leaf);
}

/* kernel_ray_init for a query mq_prep1_avx2_out just wrote on its common
 * path, from its registers p (the same values: lanes picked by permutes
 * instead of reloading the query's fields), tmin its mq_trace_tmin. */
static inline __attribute__((always_inline)) void kernel_ray_from_prep1(const mq_prep1 *p, float tmin, bool cull,
                                                                        kernel_ray *kr)
{
    const int axis[3] = {p->kx, p->ky, p->kz};
    const __m256 o = _mm256_castps128_ps256(p->org), rdir = _mm256_castps128_ps256(p->rdir);
    const __m256 up = _mm256_set1_ps(tmin < 0.0f ? 1.0f : MQ_IZE_UP);
    for (int i = 0; i < 3; i++) {
        int k = axis[i];
        __m256i lane = _mm256_set1_epi32(k);
        kr->org[i] = _mm256_permutevar8x32_ps(o, lane);
        kr->rd_near[i] = _mm256_permutevar8x32_ps(rdir, lane);
        kr->rd_far[i] = _mm256_mul_ps(kr->rd_near[i], up);
        size_t near = (size_t)(2 * k) + (p->sign >> k & 1u);
        kr->near_off[i] = near * sizeof(float) * MQ_BVH_WIDTH;
        kr->far_off[i] = (near ^ 1u) * sizeof(float) * MQ_BVH_WIDTH;
    }
    const __m128 ok[3] = {_mm256_castps256_ps128(kr->org[0]), _mm256_castps256_ps128(kr->org[1]),
                          _mm256_castps256_ps128(kr->org[2])};
    const __m128 s[3] = {_mm_permute_ps(p->shear, 0x00), _mm_permute_ps(p->shear, 0x55),
                         _mm_permute_ps(p->shear, 0xAA)};
    mq_leaf4_ray_set(p->kx, p->ky, p->kz, ok, s, cull, &kr->leaf);
}

/* The entry distances stay in a register; one lane is picked with a permute. */
typedef __m256 kernel_dists;

static inline float kernel_dist_at(const kernel_dists *d, int i)
{
    return _mm256_cvtss_f32(_mm256_permutevar8x32_ps(*d, _mm256_set1_epi32(i)));
}

static inline __m256 plane(const mq_node8 *n, size_t off)
{
    return _mm256_load_ps((const float *)((const char *)n + off));
}

static inline __attribute__((always_inline)) unsigned
kernel_node_hits(const mq_node8 *n, const kernel_ray *kr, float tmin, float tmax, kernel_dists *dist, bool neg)
{
    /* The ray's constants stay in memory, read as memory operands of the
     * subtractions and multiplications: hidden behind this empty asm, the
     * pointer cannot be trusted to hold the same constants each node, so GCC
     * does not hoist them into nine registers, which it then spilled and
     * reloaded around every leaf test. */
    __asm__("" : "+r"(kr));
    __m256 na = _mm256_mul_ps(_mm256_sub_ps(plane(n, kr->near_off[0]), kr->org[0]), kr->rd_near[0]);
    __m256 nb = _mm256_mul_ps(_mm256_sub_ps(plane(n, kr->near_off[1]), kr->org[1]), kr->rd_near[1]);
    __m256 nc = _mm256_mul_ps(_mm256_sub_ps(plane(n, kr->near_off[2]), kr->org[2]), kr->rd_near[2]);
    __m256 fa = _mm256_mul_ps(_mm256_sub_ps(plane(n, kr->far_off[0]), kr->org[0]), kr->rd_far[0]);
    __m256 fb = _mm256_mul_ps(_mm256_sub_ps(plane(n, kr->far_off[1]), kr->org[1]), kr->rd_far[1]);
    __m256 fc = _mm256_mul_ps(_mm256_sub_ps(plane(n, kr->far_off[2]), kr->org[2]), kr->rd_far[2]);
    /* vmaxps/vminps return the second operand when one is NaN: a NaN first operand drops out. */
    __m256 tn = _mm256_max_ps(_mm256_max_ps(na, nc), _mm256_max_ps(nb, _mm256_set1_ps(tmin)));
    __m256 tf = _mm256_min_ps(_mm256_min_ps(fa, fc), _mm256_min_ps(fb, _mm256_set1_ps(tmax)));
    __m256 hit;
    if (neg) {
        __m256 sign = _mm256_set1_ps(-0.0f), rel = _mm256_set1_ps(MQ_IZE_REL);
        __m256 lo = _mm256_sub_ps(tn, _mm256_mul_ps(_mm256_andnot_ps(sign, tn), rel));
        __m256 hi = _mm256_add_ps(tf, _mm256_mul_ps(_mm256_andnot_ps(sign, tf), rel));
        hit = _mm256_cmp_ps(lo, hi, _CMP_LE_OQ);
    } else {
        hit = _mm256_cmp_ps(tn, tf, _CMP_LE_OQ);
    }
    *dist = tn;
    return (unsigned)_mm256_movemask_ps(hit);
}

/* One layer of the sorting network below: each lane meets its partner (perm),
 * the lanes of `hi` keep the larger key. */
#define MQ_SORT_LAYER(v, permuted, hi)                                                                                 \
    do {                                                                                                               \
        __m256i p_ = (permuted);                                                                                       \
        v = _mm256_blend_epi32(_mm256_min_epi32(v, p_), _mm256_max_epi32(v, p_), (hi));                                \
    } while (0)

/*
 * Pushes the hit children of `n` (three or more bits of `mask`), nearest on
 * top, and returns the nearest one's ref (popped already), as push_ordered
 * does, without its data-dependent loops: keys (the entry distance as an
 * ordered integer, its low 3 bits the slot) sorted in one register by a
 * 19-comparator network, all eight (ref, distance) entries stored at once,
 * the stack pointer moved by the count (MQ_TRAVERSAL_STACK keeps room).
 */
static inline __attribute__((always_inline)) uint32_t kernel_push_many(const void *arena, const mq_node8 *n,
                                                                       unsigned mask, const kernel_dists *d,
                                                                       mq_stack_entry *stack, int *sp)
{
    const __m256i slot = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256 tn = *d;
    __m256i b = _mm256_castps_si256(tn);
    __m256i key = _mm256_xor_si256(b, _mm256_srli_epi32(_mm256_srai_epi32(b, 31), 1));
    key = _mm256_or_si256(_mm256_andnot_si256(_mm256_set1_epi32(7), key), slot);
    __m256i hit = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)mask), bit), bit);
    key = _mm256_blendv_epi8(_mm256_set1_epi32(INT32_MIN), key, hit);
    /* descending: the farthest in lane 0, the nearest hit in lane count - 1 */
    MQ_SORT_LAYER(key, _mm256_shuffle_epi32(key, _MM_SHUFFLE(1, 0, 3, 2)), 0x33);
    MQ_SORT_LAYER(key, _mm256_permute2x128_si256(key, key, 0x01), 0x0F);
    MQ_SORT_LAYER(key, _mm256_shuffle_epi32(key, _MM_SHUFFLE(2, 3, 0, 1)), 0x55);
    MQ_SORT_LAYER(key, _mm256_permutevar8x32_epi32(key, _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7)), 0x0C);
    MQ_SORT_LAYER(key, _mm256_permutevar8x32_epi32(key, _mm256_setr_epi32(0, 4, 2, 6, 1, 5, 3, 7)), 0x0A);
    MQ_SORT_LAYER(key, _mm256_permutevar8x32_epi32(key, _mm256_setr_epi32(0, 2, 1, 4, 3, 6, 5, 7)), 0x2A);
    __m256i idx = _mm256_and_si256(key, _mm256_set1_epi32(7));
    __m256i refs = _mm256_permutevar8x32_epi32(_mm256_load_si256((const __m256i *)n->child), idx);
    __m256i dists = _mm256_permutevar8x32_epi32(_mm256_castps_si256(tn), idx);
    __m256i lo = _mm256_unpacklo_epi32(refs, dists), hi = _mm256_unpackhi_epi32(refs, dists);
    mq_stack_entry *top = stack + *sp;
    _mm256_storeu_si256((__m256i *)top, _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256((__m256i *)(top + 4), _mm256_permute2x128_si256(lo, hi, 0x31));
    int count = __builtin_popcount(mask);
    *sp += count - 1;
    for (unsigned m = mask; m; m &= m - 1)
        mq_prefetch_child(arena, n->child[mq_ctz(m)]);
    return top[count - 1].ref;
}

/* The leaf test takes the permuted origin from the node test's registers
 * (org[] is in (kx, ky, kz) order, as the leaf test wants it). */
static inline __attribute__((always_inline)) unsigned kernel_leaf_hits(const mq_tri_block *blk, const kernel_ray *kr,
                                                                       const mq_trace *q, float tmin, float tmax,
                                                                       mq_leaf_hits *out)
{
    return mq_leaf4_hits_at(&kr->leaf, _mm256_castps256_ps128(kr->org[0]), _mm256_castps256_ps128(kr->org[1]),
                            _mm256_castps256_ps128(kr->org[2]), q, blk, tmin, tmax, out);
}

#endif
