/*
 * The watertight ray–triangle test on one lane of a leaf block (Woop, Benthin
 * & Wald, "Watertight Ray/Triangle Intersection", JCGT 2(1), 2013): the
 * reference every kernel reproduces bit for bit.
 *
 * Corners are translated to the ray origin and sheared so the ray becomes the
 * +z axis; the ray hits iff the 2D origin lies in the projected triangle, told
 * by the signs of the edge functions U, V, W. Each corner's projection depends
 * only on the corner and the ray, so neighbours compute a shared edge's
 * function from the same floats and get exactly opposite values: no ray slips
 * between them. Zeros (and infinities) are recomputed in double, where the
 * products of floats are exact (paper, sec. 3.4).
 *
 * The same float operations, in the same order, as mq_raycast_triangle up to
 * U, V, W (on coordinates scaled by the BVH's power of two, which changes no
 * sign), so both agree on which edges a ray crosses. t is T / det in float
 * (the paper's form), used to order and cull hits; the hit record recomputes
 * it in double (hit_record.c).
 *
 * The SIMD kernels compute the float path for four or eight lanes at once and
 * call this function for a block whenever a lane might need the double path
 * (U*V*W zero or not finite), so every kernel gives identical answers.
 */
#ifndef MQ_BVH_KERNELS_WOOP_LANE_H
#define MQ_BVH_KERNELS_WOOP_LANE_H

#include <math.h>

#include "bvh/kernels/trace.h"

typedef struct mq_lane_hit {
    float t;
    float u, v;     /* barycentrics of v1 and v2 */
    bool back_face; /* det < 0: dir along (v1-v0) x (v2-v0) */
    unsigned zeros; /* edge functions that are exactly 0: bit 0 U (edge v1v2), 1 V (v2v0), 2 W (v0v1) */
} mq_lane_hit;

/* Sign test and t for edge functions in double (the fallback). */
static inline bool mq_woop_finish_double(double U, double V, double W, const float Z[3], bool cull, float tmin,
                                         float tmax, mq_lane_hit *out)
{
    bool pos = U >= 0.0 && V >= 0.0 && W >= 0.0;
    bool neg = U <= 0.0 && V <= 0.0 && W <= 0.0;
    if (!(pos || (neg && !cull)))
        return false;
    double det = U + V + W;
    if (!(det != 0.0) || !isfinite(det) || (cull && !(det > 0.0)))
        return false;
    double T = U * Z[0] + V * Z[1] + W * Z[2];
    float t = (float)(T / det);
    if (!(t >= tmin && t <= tmax))
        return false;
    out->t = t;
    out->u = (float)(V / det);
    out->v = (float)(W / det);
    out->back_face = det < 0.0;
    out->zeros = (U == 0.0 ? 1u : 0u) | (V == 0.0 ? 2u : 0u) | (W == 0.0 ? 4u : 0u);
    return true;
}

/* True when the triangle in `lane` of `blk` is hit with t in [tmin, tmax]. */
static inline bool mq_woop_lane(const mq_ray_prep *r, bool cull, const mq_tri_block *blk, int lane, float tmin,
                                float tmax, mq_lane_hit *out)
{
    float X[3], Y[3], Z[3];
    for (int c = 0; c < 3; c++) {
        float px = blk->v[c][r->kx][lane] - r->org[r->kx];
        float py = blk->v[c][r->ky][lane] - r->org[r->ky];
        float pz = blk->v[c][r->kz][lane] - r->org[r->kz];
        X[c] = px - r->sx * pz;
        Y[c] = py - r->sy * pz;
        Z[c] = r->sz * pz;
    }
    float U = X[2] * Y[1] - Y[2] * X[1];
    float V = X[0] * Y[2] - Y[0] * X[2];
    float W = X[1] * Y[0] - Y[1] * X[0];
    if (U == 0.0f || V == 0.0f || W == 0.0f || !isfinite(U) || !isfinite(V) || !isfinite(W)) {
        double Ud = (double)X[2] * Y[1] - (double)Y[2] * X[1];
        double Vd = (double)X[0] * Y[2] - (double)Y[0] * X[2];
        double Wd = (double)X[1] * Y[0] - (double)Y[1] * X[0];
        return mq_woop_finish_double(Ud, Vd, Wd, Z, cull, tmin, tmax, out);
    }
    /* No zero: all positive (front) or all negative (back). */
    bool pos = U > 0.0f && V > 0.0f && W > 0.0f;
    bool neg = U < 0.0f && V < 0.0f && W < 0.0f;
    if (!(pos || (neg && !cull)))
        return false;
    float det = U + V + W;
    float T = U * Z[0] + V * Z[1] + W * Z[2];
    float t = T / det;
    if (!(t >= tmin && t <= tmax))
        return false;
    out->t = t;
    out->u = V / det;
    out->v = W / det;
    out->back_face = neg;
    out->zeros = 0;
    return true;
}

/* All four lanes of a block through mq_woop_lane; returns the hit mask. */
static inline unsigned mq_woop_block(const mq_ray_prep *r, bool cull, const mq_tri_block *blk, float tmin, float tmax,
                                     mq_leaf_hits *out)
{
    unsigned mask = 0;
    out->back = 0;
    for (int lane = 0; lane < MQ_TRI_BLOCK; lane++) {
        mq_lane_hit h;
        if (mq_woop_lane(r, cull, blk, lane, tmin, tmax, &h)) {
            out->t[lane] = h.t;
            out->u[lane] = h.u;
            out->v[lane] = h.v;
            out->back |= (unsigned)h.back_face << lane;
            mask |= 1u << lane;
        }
    }
    return mask;
}

#endif
