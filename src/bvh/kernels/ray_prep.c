/*
 * Per-ray setup shared by every kernel: validity, the BVH's power-of-two
 * scaling of origin and direction, an exact power-of-two rescaling of extreme
 * directions, the slab test's reciprocals and near planes,
 * and the watertight test's permutation and shear (Woop et al. 2013, sec. 3).
 *
 * It runs once per query, a large share of a short closest-hit query, so
 * it works on the floats' bit patterns where it can: |x| of finite floats orders like its
 * bits, and integer tests compile to far fewer instructions than isfinite and
 * signbit. Branches are replaced by tables (random directions would mispredict
 * them); the rare cases (extreme directions) take a separate path.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/vec4f.h"
#include "bvh/kernels/trace.h"

#define MQ_ABS_MASK 0x7FFFFFFFu

static inline uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/*
 * Scales [tmin, tmax] by 2^-t_shift. The scaled ends can round (underflow near
 * 0, overflow to inf), and a hit inside the rounded interval could then lie
 * outside the caller's. ldexpf is monotone, so nudging each scaled end inward
 * until it maps back inside [tmin, tmax] guarantees every reported
 * t = ldexpf(t', t_shift) is in range. One step suffices in practice; the bound
 * only guards the loop.
 */
static void scale_interval(mq_ray_prep *r)
{
    const float tmin = r->tmin, tmax = r->tmax;
    float lo = ldexpf(tmin, -r->t_shift), hi = ldexpf(tmax, -r->t_shift);
    for (int i = 0; i < 8 && ldexpf(lo, r->t_shift) < tmin; i++)
        lo = nextafterf(lo, INFINITY);
    for (int i = 0; i < 8 && ldexpf(hi, r->t_shift) > tmax; i++)
        hi = nextafterf(hi, -INFINITY);
    r->tmin = lo;
    r->tmax = hi;
}

/* The rare path, from the caller's direction d (not yet scaled by the BVH's
 * 2^k): scale it so its largest component is in [D/2, 2D) (`dmag` = D, see
 * MQ_DIR_WINDOW_EXP) when d * 2^k would be outside the window (then user
 * t = internal t * 2^t_shift, exactly), else by 2^k as the common path does
 * (t unchanged); then zero the components that are negligible against the
 * largest. */
static void normalize_direction(mq_ray_prep *r, float d[3], float largest, int k, float dmag)
{
    float scaled = ldexpf(largest, k);
    float lo = ldexpf(dmag, -(int)MQ_DIR_WINDOW_EXP), hi = ldexpf(dmag, (int)MQ_DIR_WINDOW_EXP);
    if (scaled < lo || scaled > hi) {
        int e, eo;
        frexpf(largest, &e);
        frexpf(dmag, &eo);
        /* d * 2^(eo-e) has its largest component in [2^(eo-1), 2^eo), as D.
         * The internal points are 2^k (o + t_user dir) = 2^k o + t_int dir
         * 2^(eo-e), so t_user = t_int * 2^(eo-e-k). */
        int sh = eo - e;
        for (int c = 0; c < 3; c++)
            d[c] = ldexpf(d[c], sh);
        r->t_shift = sh - k;
        scale_interval(r);
        largest = ldexpf(largest, sh);
    } else {
        for (int c = 0; c < 3; c++)
            d[c] = ldexpf(d[c], k); /* components that underflow are zeroed below */
        largest = scaled;
    }
    float floor_mag = largest * MQ_DIR_NEGLIGIBLE;
    for (int c = 0; c < 3; c++)
        if (fabsf(d[c]) < floor_mag)
            d[c] = copysignf(0.0f, d[c]);
}

/* Index of the largest |d_i| (given as the bits of |d_i|), ties to the lower
 * index (as mq_raycast_triangle). */
static inline int dominant_axis(uint32_t x, uint32_t y, uint32_t z)
{
    /* bit 0: x >= y, bit 1: x >= z, bit 2: y >= z */
    static const uint8_t axis[8] = {2, 2, 2, 0, 1, 1, 1, 0};
    return axis[(x >= y) | (x >= z) << 1 | (y >= z) << 2];
}

/* True when a non-zero component is below 2^-90 times the largest, or the
 * largest is outside [2^-16 D, 2^16 D] (given as the bits of D; then the
 * exponent arithmetic below is not needed to be meaningful: the slow path
 * runs anyway). */
static inline bool needs_normalizing(const uint32_t ab[3], uint32_t largest, uint32_t dmag)
{
    uint32_t floor_mag = largest - (MQ_DIR_NEGLIGIBLE_EXP << 23);
    int tiny = ((ab[0] != 0) & (ab[0] < floor_mag)) | ((ab[1] != 0) & (ab[1] < floor_mag)) |
               ((ab[2] != 0) & (ab[2] < floor_mag));
    uint32_t w = MQ_DIR_WINDOW_EXP << 23;
    return tiny | (largest < dmag - w) | (largest > dmag + w);
}

/* Fills r from a valid direction d (already normalised when needed):
 * rdir = 1/d, sx = d[kx]/d[kz], sy = d[ky]/d[kz], sz = 1/d[kz], correctly
 * rounded, the first four in one vector division. Everything is computed in
 * locals and stored once (no store-to-load round trips). */
static inline void finish(mq_ray_prep *restrict r, const float d[3], int kz)
{
    /* (kx, ky) = the axes after kz, cyclically; swapped when the ray looks down
     * its dominant axis, which keeps the winding. */
    static const uint8_t perm[3][2][2] = {{{1, 2}, {2, 1}}, {{2, 0}, {0, 2}}, {{0, 1}, {1, 0}}};
    uint32_t db[3] = {bits_of(d[0]), bits_of(d[1]), bits_of(d[2])};
    int down = (int)(db[kz] >> 31);
    int tx = perm[kz][down][0], ty = perm[kz][down][1];
    float q[4];
    mq_f4_store(q, mq_f4_div(mq_f4_set(1.0f, 1.0f, 1.0f, d[tx]), mq_f4_set(d[0], d[1], d[2], d[kz])));
    for (int k = 0; k < 3; k++) {
        r->dir[k] = d[k];
        r->rdir[k] = q[k]; /* +-0 gives +-inf: the slab test handles it */
        r->near[k] = 2 * k + (int)(db[k] >> 31);
    }
    r->kx = tx;
    r->ky = ty;
    r->kz = kz;
    r->sx = q[3];
    r->sy = d[ty] / d[kz];
    r->sz = q[kz];
}

/*
 * A ray whose origin overflows when scaled by the BVH's 2^k (about 1e38 times
 * the mesh's magnitude away; docs/robustness.md, "Limits of the BVH") is a
 * miss: an infinite origin would make NaN entry distances, which empty child
 * slots pass. The origin becomes 0 and the interval empty, so every node test
 * fails; tmax is -FLT_MAX, not -inf, because a packet holding this ray takes
 * the largest node bound of its lanes, and -inf + inf would make it NaN. The
 * vector preparations send such rays here.
 */
static void empty_interval(mq_ray_prep *r)
{
    for (int k = 0; k < 3; k++)
        r->org[k] = 0.0f;
    r->tmin = INFINITY;
    r->tmax = -FLT_MAX;
}

/* mq_trace_prepare after its validity check (ray_ok holds). */
static inline __attribute__((always_inline)) void prepare_valid(mq_trace *restrict q, const mq_bvh *bvh,
                                                                const mq_ray *restrict ray, const uint32_t ab[3])
{
    mq_ray_prep *restrict r = &q->ray;
    /* The BVH's geometry is stored scaled by 2^k (bvh/bvh_internal.h): the
     * ray's origin and direction get the same exact scaling, so t, and every
     * sign the tests compute, stay what they are in the mesh's units. */
    const float s = bvh->scale;
    float d[3];
    uint32_t sb[3], om = bits_of(MQ_DIR_D_MIN);
    for (int k = 0; k < 3; k++) {
        r->org[k] = ray->origin[k] * s;
        d[k] = ray->dir[k] * s;
        sb[k] = bits_of(d[k]) & MQ_ABS_MASK;
        uint32_t a = bits_of(r->org[k]) & MQ_ABS_MASK;
        om = a > om ? a : om;
    }
    om = om < bits_of(MQ_DIR_D_MAX) ? om : bits_of(MQ_DIR_D_MAX); /* D, see MQ_DIR_WINDOW_EXP */
    r->tmin = ray->tmin;
    r->tmax = ray->tmax;
    r->t_shift = 0;
    int kz = dominant_axis(ab[0], ab[1], ab[2]); /* of the caller's direction: scaling may underflow */
    if (needs_normalizing(sb, sb[kz], om)) {
        float dmag;
        memcpy(&dmag, &om, sizeof dmag);
        for (int k = 0; k < 3; k++)
            d[k] = ray->dir[k];
        normalize_direction(r, d, fabsf(d[kz]), bvh->scale_exp, dmag); /* keeps the dominant axis */
    }
    finish(r, d, kz);
    if (!(isfinite(r->org[0]) && isfinite(r->org[1]) && isfinite(r->org[2])))
        empty_interval(r);
    q->has_after = false;
    q->after_t = 0.0f;
    q->after_id = 0;
    q->bvh = bvh;
    q->user_ray = ray;
}

bool mq_trace_prepare(mq_trace *restrict q, const mq_bvh *bvh, const mq_ray *restrict ray, const mq_ray_query *query)
{
    static const mq_ray_query defaults = {false, NULL, NULL, NULL};
    if (!ray)
        return false;
    if (!mq_trace_ray_ok(ray))
        return false;
    /* The kernel set's preparation (the same fields, bit for bit; AVX2: the
     * axes in one register, 1/d and the shear in two vector divisions). */
    mq_kernels_active()->prepare_valid(q, bvh, ray, false);
    q->query = query ? query : &defaults;
    q->cull = q->query->cull_back_faces;
    return true;
}

const mq_ray_query mq_ray_query_both = {false, NULL, NULL, NULL}, mq_ray_query_cull = {true, NULL, NULL, NULL};

void mq_trace_prepare_valid(mq_trace *restrict q, const mq_bvh *bvh, const mq_ray *restrict ray, bool cull)
{
    uint32_t ab[3];
    for (int k = 0; k < 3; k++)
        ab[k] = bits_of(ray->dir[k]) & MQ_ABS_MASK;
    prepare_valid(q, bvh, ray, ab);
    q->query = cull ? &mq_ray_query_cull : &mq_ray_query_both;
    q->cull = cull;
}
