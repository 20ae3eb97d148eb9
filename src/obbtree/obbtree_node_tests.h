/*
 * Node predicates of the OBB tree queries: validation-free, inlined, and
 * CONSERVATIVE. A node test may admit a node that holds no answer (the leaf
 * primitive then says no), but must never reject a node holding a triangle the
 * leaf primitive accepts, or the tree would disagree with brute force.
 *
 * Float rounding is what could make a test reject wrongly: the box frame is
 * exact (obb_fit.h), but a query computes p - center and its dot products with
 * the axes in float, an error of a few ulp of the magnitudes involved. Every
 * test therefore widens its threshold by MQ_OBBTREE_SLACK (about 30 ulp) times
 * the magnitudes that enter the computation: the query point in box
 * coordinates, the box and query extents. That costs a few parts per million
 * of box size in culling power and nothing in exactness.
 */
#ifndef MQ_OBBTREE_OBBTREE_NODE_TESTS_H
#define MQ_OBBTREE_OBBTREE_NODE_TESTS_H

#include <float.h>
#include <math.h>

#include <meshquery/primitives.h>

#include "obbtree/obbtree_internal.h"
#include "primitives/ray_slab.h"

/* Relative widening of every node test (see above). */
#define MQ_OBBTREE_SLACK 4e-6f
/* Absolute widening where subnormal coordinates round by 2^-149 whatever
 * their size (the capsule test; a few ulp of FLT_TRUE_MIN). */
#define MQ_OBBTREE_ABS_SLACK (16.0f * FLT_TRUE_MIN)
/* Added to |R| in the separating axis test, for near-parallel edges whose cross
 * product axis degenerates to ~0 (Ericson, Real-Time Collision Detection §4.4.1). */
#define MQ_OBBTREE_SAT_EPS 1e-6f

#if defined(__GNUC__)
#define MQ_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define MQ_ALWAYS_INLINE static inline
#endif

static inline float mq_abs_sum3(const float v[3])
{
    return fabsf(v[0]) + fabsf(v[1]) + fabsf(v[2]);
}
static inline float mq_half_sum(const mq_obbtree_node *n)
{
    return n->half[0] + n->half[1] + n->half[2];
}

/* p in the node's box coordinates: axes . (p - center). */
static inline void mq_node_local_point(const mq_obbtree_node *n, const float p[3], float out[3])
{
    float d0 = p[0] - n->center[0], d1 = p[1] - n->center[1], d2 = p[2] - n->center[2];
    for (int i = 0; i < 3; i++)
        out[i] = d0 * n->axes[i][0] + d1 * n->axes[i][1] + d2 * n->axes[i][2];
}

static inline void mq_node_local_dir(const mq_obbtree_node *n, const float v[3], float out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = v[0] * n->axes[i][0] + v[1] * n->axes[i][1] + v[2] * n->axes[i][2];
}

/* Squared distance from a box-local point to the box [-half, half]. */
static inline float mq_node_dist2_local(const mq_obbtree_node *n, const float l[3])
{
    float d2 = 0.0f;
    for (int i = 0; i < 3; i++) {
        float e = fabsf(l[i]) - n->half[i];
        if (e > 0.0f)
            d2 += e * e;
    }
    return d2;
}

/* Sphere (centre c, radius r) vs node box: the closest-point test (Ericson §5.2.5). */
static inline bool mq_node_overlaps_sphere(const mq_obbtree_node *n, const float c[3], float r)
{
    float l[3];
    mq_node_local_point(n, c, l);
    float rr = r + MQ_OBBTREE_SLACK * (mq_abs_sum3(l) + r);
    return mq_node_dist2_local(n, l) <= rr * rr;
}

/*
 * Clips the line o + t*d (box-local) against the slabs |x_i| <= h_i + grow and
 * the interval [*t0, *t1]; false when nothing is left. Division rather than a
 * precomputed reciprocal keeps 0 * inf (a ray starting on a slab plane with a
 * denormal direction component) from making NaN.
 */
static inline bool mq_node_clip_line(const mq_obbtree_node *n, const float o[3], const float d[3], float grow,
                                     float *t0, float *t1)
{
    float lo = *t0, hi = *t1;
    for (int i = 0; i < 3; i++) {
        float h = n->half[i] + grow;
        if (!mq_slab_clip_axis(o[i], d[i], -h, h, &lo, &hi))
            return false;
    }
    *t0 = lo;
    *t1 = hi;
    return true;
}

/*
 * Capsule vs node box, conservative by construction: the segment against the
 * box grown by r on every side, a superset of the box's r-neighbourhood (exact
 * but for the 8 corner and 12 edge regions, where only the leaf test decides).
 * Segment vs box is the separating axis test on the box's 3 face normals and
 * the 3 cross products of the segment with them (Ericson §5.3.3): no division.
 * The caller passes the segment's start a and half vector hv = (b - a) / 2 in
 * mesh space. The midpoint is formed in box coordinates (a's local point plus
 * the local half vector), so a mesh far from the origin loses nothing to a
 * midpoint rounded in mesh space.
 *
 * Rounding: m and h carry errors of a few ulp of |m| and |h| (and of the
 * query's own (b - a) / 2); grow's slack covers them on the face axes, and the
 * cross axes (in double) add the same relative slack times the magnitudes
 * they multiply.
 */
static inline bool mq_node_overlaps_capsule(const mq_obbtree_node *n, const float a[3], const float hv[3], float r)
{
    float la[3], h[3], m[3], ah[3], e[3];
    mq_node_local_point(n, a, la);
    mq_node_local_dir(n, hv, h);
    for (int i = 0; i < 3; i++) {
        m[i] = la[i] + h[i];
        ah[i] = fabsf(h[i]);
    }
    float msum = mq_abs_sum3(m), hsum = ah[0] + ah[1] + ah[2];
    float grow = r + MQ_OBBTREE_SLACK * (2.0f * (msum + hsum) + r + mq_half_sum(n)) + MQ_OBBTREE_ABS_SLACK;
    for (int i = 0; i < 3; i++) {
        e[i] = n->half[i] + grow;
        if (fabsf(m[i]) > e[i] + ah[i])
            return false;
    }
    /* The cross axes in double: products of floats are exact there, and
     * neither overflow (coordinates near 1e20) nor underflow (meshes near
     * 1e-21), which in float rejected nodes that overlap. */
    double md[3] = {m[0], m[1], m[2]}, hd[3] = {h[0], h[1], h[2]};
    double esum = (double)e[0] + e[1] + e[2];
    double cross_slack = (double)MQ_OBBTREE_SLACK * ((double)msum + esum) * (double)hsum +
                         (double)MQ_OBBTREE_ABS_SLACK * ((double)msum + esum + (double)hsum);
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        if (fabs(md[j] * hd[k] - md[k] * hd[j]) > (double)e[j] * ah[k] + (double)e[k] * ah[j] + cross_slack)
            return false;
    }
    return true;
}

/* Ray (mesh space) vs node box over [*t0, *t1]: the slab test in the box frame.
 * On success [*t0, *t1] is narrowed to the part inside the (slightly grown) box. */
static inline bool mq_node_clip_ray(const mq_obbtree_node *n, const float origin[3], const float dir[3], float *t0,
                                    float *t1)
{
    float lo[3], ld[3];
    mq_node_local_point(n, origin, lo);
    mq_node_local_dir(n, dir, ld);
    float grow = MQ_OBBTREE_SLACK * (mq_abs_sum3(lo) + mq_half_sum(n));
    return mq_node_clip_line(n, lo, ld, grow, t0, t1);
}

/*
 * Separating axis test of two boxes (Gottschalk 1996; Ericson §4.4.1), in A's
 * frame: A has half extents a and the identity frame; B has half extents b,
 * rotation R (R[i][j] = A axis i . B axis j) and centre t. The 15 axes are A's
 * and B's face normals and the 9 edge cross products; B counts as separated
 * only when it is farther than `slack` beyond A on some axis.
 */
static inline bool mq_sat_overlap(const float a[3], const float b[3], float R[3][3], const float t[3], float slack)
{
    float AR[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            AR[i][j] = fabsf(R[i][j]) + MQ_OBBTREE_SAT_EPS;
    for (int i = 0; i < 3; i++) /* A's face normals */
        if (fabsf(t[i]) > a[i] + b[0] * AR[i][0] + b[1] * AR[i][1] + b[2] * AR[i][2] + slack)
            return false;
    for (int j = 0; j < 3; j++) /* B's face normals */
        if (fabsf(t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j]) >
            a[0] * AR[0][j] + a[1] * AR[1][j] + a[2] * AR[2][j] + b[j] + slack)
            return false;
    /* A_i x B_j: with (i, u, v) and (j, p, q) cyclic, the axis's projections are
     * t: t[v] R[u][j] - t[u] R[v][j]; A: a[u] |R[v][j]| + a[v] |R[u][j]|;
     * B: b[p] |R[i][q]| + b[q] |R[i][p]|. */
    for (int i = 0; i < 3; i++) {
        int u = (i + 1) % 3, v = (i + 2) % 3;
        for (int j = 0; j < 3; j++) {
            int p = (j + 1) % 3, q = (j + 2) % 3;
            float ra = a[u] * AR[v][j] + a[v] * AR[u][j];
            float rb = b[p] * AR[i][q] + b[q] * AR[i][p];
            if (fabsf(t[v] * R[u][j] - t[u] * R[v][j]) > ra + rb + slack)
                return false;
        }
    }
    return true;
}

#endif
