/*
 * The internal interface between the public raycast API and the traversal
 * kernels (one set per ISA level, core/isa.h: scalar, SSE2, AVX2).
 *
 * A query is prepared once (mq_trace_prepare): validity check, direction
 * rescaling, the slab test's reciprocals and near/far planes, and the
 * watertight test's axis permutation and shear. The kernels then walk the tree
 * with a fixed-size stack and report the winning (t, triangle) through
 * mq_best; the public layer turns that into an mq_hit.
 */
#ifndef MQ_BVH_KERNELS_TRACE_H
#define MQ_BVH_KERNELS_TRACE_H

#include <string.h>

#include <meshquery/bvh.h>

#include "core/isa.h"
#include "bvh/bvh_internal.h"

/* How mq_trace_prepare treats directions (ray_prep.c; prep8_avx2.h checks
 * the same for 8 rays at once). Directions whose largest component lies
 * outside [2^-16 D, 2^16 D] are rescaled, D = the scaled origin's largest |component| clamped to
 * [2^-64, 2^64] (the mesh's is below 1, bvh_internal.h). The lower clamp is
 * not 1: T ~ |v - o|^3 / D, so D = 1 made T underflow for triangles 1e-12 of
 * the mesh's magnitude from the origin (a mesh with a far outlier vertex hit
 * the wrong triangle); with 2^-64 they are safe down to ~2^-58. The leaf test's
 * Z = (v - o)_z / dir_z then stays within 2^17 of the points' distances to
 * the origin, and its T = U Z0 + V Z1 + W Z2 (U, V, W ~ D^2) stays finite for
 * origins up to ~2^53 times the mesh's magnitude away (the float range). */
#define MQ_DIR_WINDOW_EXP 16u
#define MQ_DIR_D_MIN 0x1p-64f
#define MQ_DIR_D_MAX 0x1p64f
/* Components below 2^-90 of the largest are zeroed: their reciprocal could
 * overflow, which would break the slab test's error bound. */
#define MQ_DIR_NEGLIGIBLE 0x1p-90f
#define MQ_DIR_NEGLIGIBLE_EXP 90u

/* Per-ray constants shared by every kernel. */
typedef struct mq_ray_prep {
    float org[3];     /* the caller's origin times the BVH's 2^scale_exp (bvh_internal.h) */
    float dir[3];     /* the caller's times 2^scale_exp, or rescaled (t_shift), negligible components zeroed */
    float rdir[3];    /* 1/dir: +-inf for a +-0 component */
    float tmin, tmax; /* in the rescaled parameter */
    int t_shift;      /* user t = internal t * 2^t_shift (0 unless dir was rescaled) */
    int kx, ky, kz;   /* watertight test: kz = dominant axis, (kx, ky) keep the winding */
    float sx, sy, sz; /* shear: dir[kx]/dir[kz], dir[ky]/dir[kz], 1/dir[kz] */
    int near[3];      /* node bound plane (MQ_LO_X..) entered first on each axis; far = near ^ 1 */
} mq_ray_prep;

/* One query: the ray, the options, and (for the all-hits iterator) a lower
 * bound: only hits (t, id) lexicographically after (after_t, after_id) count. */
typedef struct mq_trace {
    mq_ray_prep ray;
    bool cull; /* reject back faces */
    bool has_after;
    float after_t; /* internal t */
    uint32_t after_id;
    const mq_ray_query *query; /* for the filter; never NULL */
    const mq_bvh *bvh;
    const mq_ray *user_ray;
} mq_trace;

/* The best hit so far: t (internal), triangle id, where its corners live,
 * and its barycentrics and side from the leaf test. */
typedef struct mq_best {
    float t;
    uint32_t id;
    const mq_tri_block *block;
    int lane;
    float u, v;
    bool back_face;
} mq_best;

/* What a leaf test reports for the lanes of its mask. */
typedef struct mq_leaf_hits {
    _Alignas(16) float t[4];
    _Alignas(16) float u[4];
    _Alignas(16) float v[4];
    unsigned back; /* lanes hit from behind */
} mq_leaf_hits;

/* A fresh "no hit yet" best for a query. */
static inline mq_best mq_best_init(float tmax)
{
    return (mq_best){tmax, UINT32_MAX, NULL, 0, 0.0f, 0.0f, false};
}

/* Work counters a kernel accumulates for one query. */
typedef struct mq_trace_counts {
    uint64_t nodes, leaves, blocks;
} mq_trace_counts;

/* The query's lower t: the ray's tmin, raised to the iterator's bound. */
static inline float mq_trace_tmin(const mq_trace *q)
{
    return q->has_after && q->after_t > q->ray.tmin ? q->after_t : q->ray.tmin;
}

/* mq_ray_is_valid on the floats' bits (no isfinite calls): finite origin and
 * direction, direction != 0, tmin <= tmax. */
static inline bool mq_trace_ray_ok(const mq_ray *r)
{
    uint32_t inf = 0, any = 0;
    for (int k = 0; k < 3; k++) {
        uint32_t o, d;
        memcpy(&o, &r->origin[k], sizeof o);
        memcpy(&d, &r->dir[k], sizeof d);
        inf |= ((o & 0x7F800000u) == 0x7F800000u) | ((d & 0x7F800000u) == 0x7F800000u);
        any |= d & 0x7FFFFFFFu;
    }
    return !inf & (any != 0) & (r->tmin <= r->tmax);
}

/* True when a query asks for no more than the kernel sets' closest_valid and
 * any_valid do: no filter, no stats (then only its culling matters). NULL is
 * the default query. */
static inline bool mq_ray_query_is_plain(const mq_ray_query *query)
{
    return !query || (!query->filter && !query->stats);
}

/*
 * Prepares a query. Returns false when the ray is not valid (mq_ray_is_valid),
 * which hits nothing. `query` may be NULL (defaults).
 */
bool mq_trace_prepare(mq_trace *restrict q, const mq_bvh *bvh, const mq_ray *restrict ray, const mq_ray_query *query);

/*
 * Internal, for scene instances (scene/scene_raycast_map.c): mq_trace_prepare
 * of a ray already known to be valid (mq_ray_is_valid; not checked again),
 * with the default query or its culling twin (no filter, no stats).
 */
void mq_trace_prepare_valid(mq_trace *restrict q, const mq_bvh *bvh, const mq_ray *restrict ray, bool cull);

/* Those two queries: the default, and the default culling back faces. */
extern const mq_ray_query mq_ray_query_both, mq_ray_query_cull;

/*
 * Internal: mq_bvh_raycast_closest for a ray known to be valid, with the
 * default query or its culling twin; the same answer, and *out is not written
 * on a miss.
 */
bool mq_bvh_closest_valid(const mq_bvh *bvh, const mq_ray *ray, bool cull, mq_hit *out);

/* Internal: mq_bvh_raycast_any for a ray known to be valid, with the default
 * query or its culling twin; the same answer. */
bool mq_bvh_any_valid(const mq_bvh *bvh, const mq_ray *ray, bool cull);

/* A kernel set: one const row per ISA level (dispatch.c), every slot
 * filled: where a level has no specialised version of a slot, it holds a
 * portable one giving the same answers (the "else" noted per slot), so no
 * caller tests for NULL.
 *
 * closest hit (fills *best, initialised by the caller with mq_best_init; true
 * on a hit), any hit, and a stream of prepared queries (all with tmin >= 0,
 * on a non-empty tree) traced interleaved: closest hits into best[i]
 * (initialised), or, when `hit` is not NULL, any-hit answers into hit[i]. */
typedef struct mq_kernels {
    bool (*closest)(const mq_trace *q, mq_best *best, mq_trace_counts *counts);
    bool (*any)(const mq_trace *q, mq_trace_counts *counts);
    void (*stream)(const mq_trace *q, mq_best *best, bool *hit, size_t n, mq_trace_counts *counts);
    /* Closest hits of `packets` coherent packets of 8 queries each (q[8*i..8*i+7],
     * see mq_packet8_coherent, tmin >= 0, a non-empty tree), several in flight
     * when `interleave`. Else (kernel_packet8_portable, traverse_loop.h): the
     * level's stream on trees of MQ_STREAM_MIN_BYTES or more, its closest-hit
     * loop on smaller ones, as the batch traces queries it does not pack. */
    void (*packet8)(const mq_trace *const *q, mq_best **best, size_t packets, bool interleave, mq_trace_counts *counts);
    /* Closest hits straight from the caller's rays (no filter, no lower
     * bound): each group g of 8 consecutive rays, rays[8g..8g+7], that the
     * kernel set takes as a packet (one it can trace with its rays prepared
     * exactly as mq_trace_prepare would) is traced (several in flight when
     * `interleave`) and its hit records written to hits[8g..8g+7], left[g] =
     * false; other groups get left[g] = true and nothing written. Returns the
     * number of hits written. Else (mq_packet8_rays_none): takes no group; the
     * batch then prepares them and hands coherent ones to packet8, which is
     * what a level without a packet kernel would do with them anyway. */
    size_t (*packet8_rays)(const mq_bvh *bvh, const mq_ray *rays, size_t groups, bool cull, bool interleave,
                           mq_hit *hits, bool *left, mq_trace_counts *counts);
    /* mq_trace_prepare of rays[l] into *q[l] for 8 rays at once, for the lanes
     * it returns (bit l; at least those valid and on the common path, no
     * direction rescaling); the others are not written. Else
     * (mq_trace_prepare8_each): mq_trace_prepare lane by lane, returning the
     * valid lanes. */
    unsigned (*prepare8)(mq_trace *const q[8], const mq_bvh *bvh, const mq_ray *const rays[8],
                         const mq_ray_query *query);
    /* mq_trace_prepare_valid in this level's registers (the same fields, bit
     * for bit). Else mq_trace_prepare_valid. */
    void (*prepare_valid)(mq_trace *restrict q, const mq_bvh *bvh, const mq_ray *restrict ray, bool cull);
    /* prepare_valid into *q, then closest into *best (initialised here), in
     * one call. Else kernel_closest_valid_portable (traverse_loop.h). */
    bool (*closest_valid)(const mq_bvh *bvh, const mq_ray *ray, bool cull, mq_trace *q, mq_best *best);
    /* prepare_valid, then any, in one call: mq_bvh_any_valid's answer. Else
     * kernel_any_valid_portable (traverse_loop.h). */
    bool (*any_valid)(const mq_bvh *bvh, const mq_ray *ray, bool cull);
    /* mq_hit_from_lane (t_shift 0) of 4 hits at once, the same bits. Used
     * through mq_hit_queue (hit_record.h). Else mq_hits4_each (4 x
     * mq_hit_from_lane). */
    void (*hits4)(const mq_bvh *bvh, const mq_ray *const ray[4], const mq_best best[4], mq_hit *const out[4]);
    /* mq_hit_from_lane in this level's registers (the same bits); mq_hit_from_best
     * takes it. Else mq_hit_from_lane. */
    void (*hit1)(const mq_bvh *bvh, const mq_ray *ray, int t_shift, const mq_best *b, mq_hit *out);
    mq_isa isa; /* the level whose kernels these are (mq_isa_name spells it) */
} mq_kernels;

/* Trees from this size up trace several prepared queries at once (a stream):
 * below it they mostly sit in cache, and single-ray loops are as fast. */
#define MQ_STREAM_MIN_BYTES (2u << 20)

/* True when 8 prepared queries (tmin >= 0, no filter, no lower bound) may be
 * traced as one packet: same direction octant and watertight permutation. */
static inline bool mq_packet8_coherent(const mq_trace *const q[8])
{
    const mq_ray_prep *a = &q[0]->ray;
    for (int i = 1; i < 8; i++) {
        const mq_ray_prep *b = &q[i]->ray;
        if (a->kx != b->kx || a->ky != b->ky || a->kz != b->kz || a->near[0] != b->near[0] ||
            a->near[1] != b->near[1] || a->near[2] != b->near[2])
            return false;
    }
    return true;
}

/* The kernel sets per ISA level (dispatch.c): the one table; index it with
 * mq_isa_active() (core/isa.h), which is what mq_kernels_active does. */
extern const mq_kernels *const mq_kernels_table[MQ_ISA_COUNT];

/* The kernels of the active level (core/isa.h: the CPU's best, MQ_ISA, or a
 * test's mq_isa_override). */
static inline const mq_kernels *mq_kernels_active(void)
{
    return mq_kernels_table[mq_isa_active()];
}

/* Kernel sets (defined in their own files). */
extern const mq_kernels mq_kernels_scalar;
#if defined(MQ_ISA_SIMD)
extern const mq_kernels mq_kernels_sse2;
extern const mq_kernels mq_kernels_avx2;
void mq_packet8_closest_avx2(const mq_trace *const *q, mq_best **best, size_t packets, bool interleave,
                             mq_trace_counts *counts);
unsigned mq_trace_prepare8_avx2(mq_trace *const q[8], const mq_bvh *bvh, const mq_ray *const rays[8],
                                const mq_ray_query *query);
void mq_trace_prepare_valid_avx2(mq_trace *restrict q, const mq_bvh *bvh, const mq_ray *restrict ray, bool cull);
size_t mq_packet8_rays_avx2(const mq_bvh *bvh, const mq_ray *rays, size_t groups, bool cull, bool interleave,
                            mq_hit *hits, bool *left, mq_trace_counts *counts);
void mq_hits4_avx2(const mq_bvh *bvh, const mq_ray *const ray[4], const mq_best best[4], mq_hit *const out[4]);
void mq_hit_from_lane_avx2(const mq_bvh *bvh, const mq_ray *ray, int t_shift, const mq_best *b, mq_hit *out);
#endif

/* The portable slot fillers (dispatch.c; see mq_kernels). */
unsigned mq_trace_prepare8_each(mq_trace *const q[8], const mq_bvh *bvh, const mq_ray *const rays[8],
                                const mq_ray_query *query);
size_t mq_packet8_rays_none(const mq_bvh *bvh, const mq_ray *rays, size_t groups, bool cull, bool interleave,
                            mq_hit *hits, bool *left, mq_trace_counts *counts);
void mq_hits4_each(const mq_bvh *bvh, const mq_ray *const ray[4], const mq_best best[4], mq_hit *const out[4]);

/* Called for a candidate when the query has a filter: builds the hit and asks it. */
bool mq_trace_filter_accepts(const mq_trace *q, const mq_best *candidate);

#endif
