/*
 * A world ray prepared for the float slab tests of the top-level hierarchy
 * (scene_internal.h: a MQ_TLAS_WIDTH-wide tree with conservative float
 * boxes), shared by the walk's ISA variants (scene_raycast.c: SSE2 or scalar,
 * tlas_walk_avx2.c: AVX2).
 *
 * The float box test is conservative, so a walk only ever visits MORE
 * instances than the exact test would; each visited instance is then decided
 * in double (mq_inst_ray_init):
 *   - the origin is rounded towards the side that makes each distance err
 *     conservatively (up for entry planes of a positive direction, down for
 *     their exits, mirrored for a negative one);
 *   - (plane - origin) * (1/d) rounds three times (the reciprocal, from
 *     double, the subtraction, the product): a relative error below 4 * 2^-24,
 *     covered by widening 2^-21 relative, folded into the reciprocals (Ize
 *     2013; valid because every distance that decides is >= 0 when tmin >= 0:
 *     the entry is at least tmin, and a negative exit means a miss, whatever
 *     its error, as the rounding keeps signs); products that underflow lose
 *     at most 2^-149: the entry is lowered by FLT_MIN;
 *   - a zero direction component gives an infinite reciprocal: a NaN (origin
 *     exactly on a plane) drops out of the max/min (the accumulator is the
 *     second operand of maxps/minps), +-inf decide as the exact test would;
 *     an empty slot (lo = +inf, hi = -inf) has an exit of -inf: never hit;
 *   - rays whose origin exceeds 2^60 in magnitude, with a non-zero direction
 *     component outside [2^-60, 2^60], or with tmin < 0 could break those
 *     bounds: they walk with the double slab test on the float boxes instead
 *     ("slow", still exact at the leaves).
 */
#ifndef MQ_SCENE_TLAS_TLAS_RAY_H
#define MQ_SCENE_TLAS_TLAS_RAY_H

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "core/prefetch.h"
#include "scene/scene_raycast.h"
#include "bvh/kernels/traverse_common.h"

#define MQ_TLAS_WIDEN_REL 0x1p-21f
#define MQ_TLAS_RAY_RANGE 0x1p60

typedef struct mq_tlas_ray {
    bool fast;                      /* the float test applies (see above) */
    size_t near_off[3], far_off[3]; /* byte offsets of the entry / exit planes of an axis in a block */
    float o_near[3], o_far[3], rd_near[3], rd_far[3];
    const mq_dray_prep *prep;
} mq_tlas_ray;

static inline void mq_tlas_ray_init_scalar(mq_tlas_ray *r, const mq_dray_prep *prep, double t_lo)
{
    r->prep = prep;
    bool fast = t_lo >= 0.0;
    for (int k = 0; k < 3; k++) {
        double o = prep->org[k], d = prep->dir[k], ad = fabs(d);
        fast &= (fabs(o) <= MQ_TLAS_RAY_RANGE) &
                ((ad == 0.0) | ((ad >= 1.0 / MQ_TLAS_RAY_RANGE) & (ad <= MQ_TLAS_RAY_RANGE)));
        int neg = signbit(d) ? 1 : 0;     /* the entry plane is hi */
        float rinv = (float)prep->inv[k]; /* 1/d in double, rounded once */
        r->rd_near[k] = rinv * (1.0f - MQ_TLAS_WIDEN_REL);
        r->rd_far[k] = rinv * (1.0f + MQ_TLAS_WIDEN_REL);
        float f = (float)o; /* rounded to nearest: at most one of up, dn moves */
        float up = (double)f < o ? mq_float_next_up(f) : f;
        float dn = (double)f > o ? mq_float_next_down(f) : f;
        r->o_near[k] = neg ? dn : up;
        r->o_far[k] = neg ? up : dn;
        size_t lo = offsetof(mq_tlas_block, lo) + (size_t)k * MQ_TLAS_BLOCK * sizeof(float);
        size_t hi = offsetof(mq_tlas_block, hi) + (size_t)k * MQ_TLAS_BLOCK * sizeof(float);
        r->near_off[k] = neg ? hi : lo;
        r->far_off[k] = neg ? lo : hi;
    }
    r->fast = fast;
}

#if defined(MQ_ISA_SIMD)
/* The bits of the next float above each lane (mq_float_next_up_bits). */
static inline __m128i mq_tlas_next_up_bits4(__m128i b)
{
    __m128i mag = _mm_and_si128(b, _mm_set1_epi32(0x7FFFFFFF));
    __m128i neg_nz = _mm_andnot_si128(_mm_cmpeq_epi32(mag, _mm_setzero_si128()), _mm_srai_epi32(b, 31));
    __m128i one = _mm_set1_epi32(1);
    return _mm_or_si128(_mm_and_si128(neg_nz, _mm_sub_epi32(b, one)),
                        _mm_andnot_si128(neg_nz, _mm_add_epi32(mag, one)));
}

/* The fast test's conditions on one or two axes (lanes of o, d): |o| <= 2^60,
 * and d is zero or of magnitude in [2^-60, 2^60]; NaN fails. */
static inline int mq_tlas_axes_ok(__m128d o, __m128d d)
{
    const __m128d absm = _mm_castsi128_pd(_mm_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
    const __m128d range = _mm_set1_pd(MQ_TLAS_RAY_RANGE), inv_range = _mm_set1_pd(1.0 / MQ_TLAS_RAY_RANGE);
    __m128d ao = _mm_and_pd(o, absm), ad = _mm_and_pd(d, absm);
    __m128d d_ok =
        _mm_or_pd(_mm_cmpeq_pd(ad, _mm_setzero_pd()), _mm_and_pd(_mm_cmpge_pd(ad, inv_range), _mm_cmple_pd(ad, range)));
    return _mm_movemask_pd(_mm_and_pd(_mm_cmple_pd(ao, range), d_ok));
}

/* Three doubles (the third lane of the second register) to four floats, the last 0. */
static inline __m128 mq_tlas_to_floats(__m128d v01, __m128d v2)
{
    return _mm_movelh_ps(_mm_cvtpd_ps(v01), _mm_cvtpd_ps(v2));
}

/* mq_tlas_ray_init_scalar with the three axes in the lanes of SSE2
 * registers (prep's org, dir and inv: x, y in the first register of each
 * pair, z in the low lane of the second, its high lane 0): the same
 * roundings (a double converted to float once, a float product), the same
 * next float up or down, so the same fields. */
static inline void mq_tlas_ray_init_sse2(mq_tlas_ray *r, const mq_dray_prep *prep, __m128d o01, __m128d o2, __m128d d01,
                                         __m128d d2, __m128d inv01, __m128d inv2, double t_lo)
{
    r->prep = prep;
    int ok = mq_tlas_axes_ok(o01, d01) | mq_tlas_axes_ok(o2, d2) << 2;
    r->fast = t_lo >= 0.0 && (ok & 7) == 7;
    unsigned neg = (unsigned)(_mm_movemask_pd(d01) | _mm_movemask_pd(d2) << 2); /* sign bits: the entry plane is hi */
    __m128 rinv = mq_tlas_to_floats(inv01, inv2);
    _Alignas(16) float rd_near[4], rd_far[4], o_near[4], o_far[4];
    _mm_store_ps(rd_near, _mm_mul_ps(rinv, _mm_set1_ps(1.0f - MQ_TLAS_WIDEN_REL)));
    _mm_store_ps(rd_far, _mm_mul_ps(rinv, _mm_set1_ps(1.0f + MQ_TLAS_WIDEN_REL)));
    /* The origin rounded to nearest, then one float up where it fell below, down where above. */
    __m128 f = mq_tlas_to_floats(o01, o2);
    __m128d below01 = _mm_cmplt_pd(_mm_cvtps_pd(f), o01), below2 = _mm_cmplt_pd(_mm_cvtps_pd(_mm_movehl_ps(f, f)), o2);
    __m128d above01 = _mm_cmpgt_pd(_mm_cvtps_pd(f), o01), above2 = _mm_cmpgt_pd(_mm_cvtps_pd(_mm_movehl_ps(f, f)), o2);
    /* 64-bit lane masks to 32-bit ones: the low halves of lanes 0, 1 and 2 */
    __m128i below =
        _mm_castps_si128(_mm_shuffle_ps(_mm_castpd_ps(below01), _mm_castpd_ps(below2), _MM_SHUFFLE(2, 0, 2, 0)));
    __m128i above =
        _mm_castps_si128(_mm_shuffle_ps(_mm_castpd_ps(above01), _mm_castpd_ps(above2), _MM_SHUFFLE(2, 0, 2, 0)));
    __m128i b = _mm_castps_si128(f), sign = _mm_set1_epi32((int)0x80000000u);
    __m128i up = mq_tlas_next_up_bits4(b);
    __m128i dn = _mm_xor_si128(mq_tlas_next_up_bits4(_mm_xor_si128(b, sign)), sign); /* -next_up(-f) */
    up = _mm_or_si128(_mm_and_si128(below, up), _mm_andnot_si128(below, b));
    dn = _mm_or_si128(_mm_and_si128(above, dn), _mm_andnot_si128(above, b));
    __m128i negm = _mm_srai_epi32(_mm_castps_si128(mq_tlas_to_floats(d01, d2)), 31); /* the float keeps the sign */
    _mm_store_ps(o_near, _mm_castsi128_ps(_mm_or_si128(_mm_and_si128(negm, dn), _mm_andnot_si128(negm, up))));
    _mm_store_ps(o_far, _mm_castsi128_ps(_mm_or_si128(_mm_and_si128(negm, up), _mm_andnot_si128(negm, dn))));
    for (int k = 0; k < 3; k++) {
        r->o_near[k] = o_near[k];
        r->o_far[k] = o_far[k];
        r->rd_near[k] = rd_near[k];
        r->rd_far[k] = rd_far[k];
        size_t lo = offsetof(mq_tlas_block, lo) + (size_t)k * MQ_TLAS_BLOCK * sizeof(float);
        size_t hi = offsetof(mq_tlas_block, hi) + (size_t)k * MQ_TLAS_BLOCK * sizeof(float);
        bool nk = neg >> k & 1u;
        r->near_off[k] = nk ? hi : lo;
        r->far_off[k] = nk ? lo : hi;
    }
}

static inline void mq_tlas_ray_init(mq_tlas_ray *r, const mq_dray_prep *prep, double t_lo)
{
    mq_tlas_ray_init_sse2(r, prep, _mm_loadu_pd(prep->org), _mm_load_sd(prep->org + 2), _mm_loadu_pd(prep->dir),
                          _mm_load_sd(prep->dir + 2), _mm_loadu_pd(prep->inv), _mm_load_sd(prep->inv + 2), t_lo);
}

/* mq_dray_prepare(ray, prep) then mq_tlas_ray_init(r, prep, t_lo), the ray
 * kept in registers between the two (two divisions instead of three, and no
 * reload of what was just stored). */
static inline void mq_tlas_ray_prepare(mq_tlas_ray *r, mq_dray_prep *prep, const mq_dray *ray, double t_lo)
{
    __m128d o01 = _mm_loadu_pd(ray->origin), o2 = _mm_load_sd(ray->origin + 2);
    __m128d d01 = _mm_loadu_pd(ray->dir), d2 = _mm_load_sd(ray->dir + 2);
    const __m128d one = _mm_set1_pd(1.0);
    __m128d inv01 = _mm_div_pd(one, d01), inv2 = _mm_move_sd(_mm_setzero_pd(), _mm_div_sd(one, d2));
    _mm_storeu_pd(prep->org, o01);
    _mm_store_sd(prep->org + 2, o2);
    _mm_storeu_pd(prep->dir, d01);
    _mm_store_sd(prep->dir + 2, d2);
    _mm_storeu_pd(prep->inv, inv01);
    _mm_store_sd(prep->inv + 2, inv2);
    mq_tlas_ray_init_sse2(r, prep, o01, o2, d01, d2, inv01, inv2, t_lo);
}
#else
static inline void mq_tlas_ray_init(mq_tlas_ray *r, const mq_dray_prep *prep, double t_lo)
{
    mq_tlas_ray_init_scalar(r, prep, t_lo);
}

static inline void mq_tlas_ray_prepare(mq_tlas_ray *r, mq_dray_prep *prep, const mq_dray *ray, double t_lo)
{
    mq_dray_prepare(ray, prep);
    mq_tlas_ray_init_scalar(r, prep, t_lo);
}
#endif

static inline const float *mq_tlas_plane(const mq_tlas_block *b, size_t off)
{
    return (const float *)(const void *)((const char *)b + off);
}

/* Slots of the node of `blocks` blocks at n whose mask matches the query's. */
static inline unsigned mq_tlas_live(const mq_tlas_block *n, unsigned blocks, uint32_t qmask)
{
    unsigned live = 0;
    for (unsigned i = 0; i < blocks * MQ_TLAS_BLOCK; i++)
        live |= (n[i / MQ_TLAS_BLOCK].mask[i % MQ_TLAS_BLOCK] & qmask) ? 1u << i : 0u;
    return live;
}

/* An entry of a walk's stack: a child and a lower bound of its entry
 * distance (the instance traversals' entry, so mq_keep_nearer serves both). */
typedef mq_stack_entry mq_tlas_entry;

/* Starts loading what visiting child `ref` will read (a node, or the ray
 * lines of an instance record) while the walk goes on elsewhere: over a large
 * scene these loads are mostly cache misses. Straight-line code: this runs
 * for every pushed child. */
static inline void mq_tlas_prefetch(const mq_scene *s, uint32_t ref)
{
    _Static_assert(sizeof(mq_tlas_block) == 256 && sizeof(mq_inst_ray_data) <= 128, "lines prefetched");
    /* Arithmetic, not a branch (GCC turns a ?: here into one), as which kind
     * comes is unpredictable: a node's first block, or a record's first four
     * lines (the ray data, then the start of what a hit reads). */
    uintptr_t leaf = ref >> 31, nodes = (uintptr_t)s->nodes, recs = (uintptr_t)s->recs;
    uintptr_t base = nodes + leaf * (recs - nodes);
    uintptr_t stride = sizeof *s->nodes + leaf * (sizeof *s->recs - sizeof *s->nodes);
    uintptr_t index = (ref & ~MQ_TLAS_LEAF_BIT) >> (2 * (1 - leaf)); /* a node's first block, or the instance */
    const char *p = (const char *)(base + index * stride);
    mq_prefetch(p);
    mq_prefetch(p + 64);
    mq_prefetch(p + 128);
    mq_prefetch(p + 192);
}

/*
 * The children of node n whose slots are set in `hit` (not 0), with entry
 * distances dist[slot]: pushes all but the nearest farthest-first above
 * stack[*top] (so they pop nearest first), prefetching each, and returns the
 * nearest, visited next (its loads start right away: no prefetch).
 */
static inline uint32_t mq_tlas_push_hits(const mq_scene *s, const mq_tlas_block *n, unsigned hit, const float *dist,
                                         mq_tlas_entry *stack, int *top)
{
    int i = __builtin_ctz(hit);
    hit &= hit - 1;
    mq_tlas_entry best = {mq_tlas_slot_child(n, i), dist[i]};
    const int base = *top;
    while (hit) {
        i = __builtin_ctz(hit);
        hit &= hit - 1;
        mq_tlas_entry x = mq_keep_nearer(&best, (mq_tlas_entry){mq_tlas_slot_child(n, i), dist[i]});
        mq_tlas_prefetch(s, x.ref);
        int j = (*top)++;
        while (j > base && stack[j - 1].dist < x.dist) {
            stack[j] = stack[j - 1];
            j--;
        }
        stack[j] = x;
    }
    return best.ref;
}

/* The same for an any-hit walk, where the order does not matter: the hit
 * children but the first pushed as they come (no sorting), each prefetched;
 * returns the first. */
static inline uint32_t mq_tlas_push_any(const mq_scene *s, const mq_tlas_block *n, unsigned hit, const float *dist,
                                        mq_tlas_entry *stack, int *top)
{
    int i = __builtin_ctz(hit);
    hit &= hit - 1;
    uint32_t first = mq_tlas_slot_child(n, i);
    while (hit) {
        i = __builtin_ctz(hit);
        hit &= hit - 1;
        mq_tlas_prefetch(s, mq_tlas_slot_child(n, i));
        stack[(*top)++] = (mq_tlas_entry){mq_tlas_slot_child(n, i), dist[i]};
    }
    return first;
}

/* mq_tlas_walk_ray (scene_raycast.h) of a ray prepared with the same t_lo;
 * unordered (`ordered` false, for a walk that stops at any hit), the leaves
 * come in no particular order. */
bool mq_tlas_walk(const mq_scene *s, const mq_tlas_ray *r, double t_lo, const double *t_hi, uint32_t mask, bool ordered,
                  bool (*leaf)(const mq_instance_rec *inst, void *user), void *user);

/* The AVX2 walk (tlas_walk_avx2.c) of a `fast` ray: visits the leaves as
 * mq_tlas_walk says. Only at ISA level MQ_ISA_AVX2 or above (core/isa.h;
 * CMake compiles *_avx2.c exactly when MQ_ISA_SIMD is defined). */
bool mq_tlas_walk_fast_avx2(const mq_scene *s, const mq_tlas_ray *r, double t_lo, const double *t_hi, uint32_t mask,
                            bool ordered, bool (*leaf)(const mq_instance_rec *inst, void *user), void *user);

#endif
