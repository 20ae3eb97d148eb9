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
#ifndef MQ_SCENE_TLAS_RAY_H
#define MQ_SCENE_TLAS_RAY_H

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "scene/scene_raycast.h"

#define MQ_TLAS_WIDEN_REL 0x1p-21f
#define MQ_TLAS_RAY_RANGE 0x1p60

typedef struct mq_tlas_ray {
    bool fast;                      /* the float test applies (see above) */
    int neg[3];                     /* direction component's sign bit: the entry plane is hi */
    size_t near_off[3], far_off[3]; /* byte offsets of the entry / exit planes of an axis in a node */
    float o_near[3], o_far[3], rd_near[3], rd_far[3];
    const mq_dray_prep *prep;
} mq_tlas_ray;

static inline void mq_tlas_ray_init(mq_tlas_ray *r, const mq_dray_prep *prep, double t_lo)
{
    r->prep = prep;
    bool fast = t_lo >= 0.0;
    for (int k = 0; k < 3; k++) {
        double o = prep->org[k], d = prep->dir[k], ad = fabs(d);
        fast &= (fabs(o) <= MQ_TLAS_RAY_RANGE) &
                ((ad == 0.0) | ((ad >= 1.0 / MQ_TLAS_RAY_RANGE) & (ad <= MQ_TLAS_RAY_RANGE)));
        int neg = signbit(d) ? 1 : 0;
        r->neg[k] = neg;
        float rinv = (float)prep->inv[k]; /* 1/d in double, rounded once */
        r->rd_near[k] = rinv * (1.0f - MQ_TLAS_WIDEN_REL);
        r->rd_far[k] = rinv * (1.0f + MQ_TLAS_WIDEN_REL);
        float f = (float)o, up = f, dn = f;
        if ((double)f < o)
            up = mq_float_next_up(f);
        else if ((double)f > o)
            dn = mq_float_next_down(f);
        r->o_near[k] = neg ? dn : up;
        r->o_far[k] = neg ? up : dn;
        size_t lo = offsetof(mq_tlas_node, lo) + (size_t)k * MQ_TLAS_WIDTH * sizeof(float);
        size_t hi = offsetof(mq_tlas_node, hi) + (size_t)k * MQ_TLAS_WIDTH * sizeof(float);
        r->near_off[k] = neg ? hi : lo;
        r->far_off[k] = neg ? lo : hi;
    }
    r->fast = fast;
}

static inline const float *mq_tlas_plane(const mq_tlas_node *n, size_t off)
{
    return (const float *)(const void *)((const char *)n + off);
}

/* Slots whose mask matches the query's. */
static inline unsigned mq_tlas_live(const mq_tlas_node *n, uint32_t qmask)
{
    unsigned live = 0;
    for (int i = 0; i < MQ_TLAS_WIDTH; i++)
        live |= (n->mask[i] & qmask) ? 1u << i : 0u;
    return live;
}

/* CMake compiles *_avx2.c (with -mavx2) exactly on x86-64 builds without MQ_FORCE_SCALAR. */
#if (defined(__x86_64__) || defined(_M_X64)) && !defined(MQ_FORCE_SCALAR)
#define MQ_TLAS_HAVE_AVX2 1
#endif

/* The AVX2 walk (tlas_walk_avx2.c) of a `fast` ray: visits the leaves as
 * mq_tlas_walk_ray (scene_raycast.h) says. Only on CPUs with AVX2. */
bool mq_tlas_walk_fast_avx2(const mq_scene *s, const mq_tlas_ray *r, double t_lo, const double *t_hi,
                            uint32_t mask, bool (*leaf)(const mq_instance_rec *inst, void *user), void *user);

#endif
