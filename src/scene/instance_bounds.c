/*
 * An instance's world box (mq_instance_rec.world_box): the union of the mapped
 * images of its hierarchy's top boxes (bvh/top_boxes.h), not the box of its
 * mapped root box. Under a rotation the root box's image is up to sqrt(3)
 * times wider per axis than the mesh's; the two top levels of the hierarchy
 * hug the mesh, so the top-level walk meets far fewer instances a ray or a
 * shape cannot touch.
 */
#include <float.h>
#include <math.h>

#if defined(__SSE2__) && !defined(MQ_FORCE_SCALAR)
#include <emmintrin.h>
#define MQ_BOUNDS_SSE2 1
#endif

#include "bvh/bvh_internal.h"
#include "obbtree/obbtree_internal.h"
#include "bvh/top_boxes.h"
#include "core/isa.h"
#include "scene/instance_bounds.h"
#include "scene/scene_internal.h"

static void mq_xform_rows_init(const mq_xform *xf, mq_xform_rows *x)
{
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < 4; j++)
            x->m[k][j] = xf->m[k][j];
        for (int i = 0; i < 3; i++)
            x->axis_mag[k][i] = fabs(xf->m[k][i]);
        x->t_mag[k] = fabs(xf->m[k][3]);
    }
}

/* The world box of a local box { center + sum_i s_i E_i : |s_i| <= half_i },
 * whose world edge directions E_i have magnitudes edge_mag[3 k + i] along
 * world axis k, grown into [lo, hi], widened for the rounding. */
static void grow(const mq_xform_rows *x, const double center[3], const double half[3], const double *edge_mag,
                 double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        double c = x->m[k][3], mag = x->t_mag[k], h = 0.0;
        for (int j = 0; j < 3; j++) {
            double p = x->m[k][j] * center[j];
            c += p;
            mag += fabs(p);
        }
        for (int i = 0; i < 3; i++)
            h += edge_mag[3 * k + i] * half[i];
        double pad = MQ_BOX_WIDEN * (mag + 2.0 * h) + DBL_MIN;
        double l = c - h - pad, u = c + h + pad;
        lo[k] = l < lo[k] ? l : lo[k];
        hi[k] = u > hi[k] ? u : hi[k];
    }
}

/*
 * The top boxes' world bounds along the three world axes, without their
 * rounding pads: per box b and axis k, its centre c_b and half extent h_b
 * there (as grow() computes them), the lowest c_b - h_b into lo[k], the
 * highest c_b + h_b into hi[k], the largest h_b into big_h[k], and the
 * largest |local centre coordinate j| into big_c[j] (the caller pads once
 * for all boxes: top_pads). Each path does each box's operations in
 * the same order, and min/max do not depend on the order of the boxes, so
 * every path gives the same bits. A NaN bound never replaces one.
 */
#if defined(MQ_BOUNDS_SSE2)
static inline __m128d abs2(__m128d v)
{
    return _mm_and_pd(v, _mm_castsi128_pd(_mm_set1_epi64x(0x7FFFFFFFFFFFFFFFll)));
}

/* Both lanes' largest into *big (the first operand of max the new one). */
static void merge_max(__m128d v2, double *big)
{
    double v[2];
    _mm_storeu_pd(v, v2);
    for (int i = 0; i < 2; i++)
        *big = v[i] > *big ? v[i] : *big;
}

/* Both lanes' extremes into *lo, *hi, *big (the first operand of min/max the new one). */
static void merge_lanes(__m128d lo2, __m128d hi2, __m128d h2, double *lo, double *hi, double *big)
{
    double l[2], u[2], h[2];
    _mm_storeu_pd(l, lo2);
    _mm_storeu_pd(u, hi2);
    _mm_storeu_pd(h, h2);
    for (int i = 0; i < 2; i++) {
        *lo = l[i] < *lo ? l[i] : *lo;
        *hi = u[i] > *hi ? u[i] : *hi;
        *big = h[i] > *big ? h[i] : *big;
    }
}

/* Boxes [first, end) of t (end - first even), two at a time. */
static inline __attribute__((always_inline)) void extents_two(const mq_xform_rows *x, const mq_top_boxes *t,
                                                              const bool oriented, uint32_t first, uint32_t end,
                                                              double lo[3], double hi[3], double big_h[3],
                                                              double big_c[3])
{
    for (int j = 0; j < 3; j++) {
        __m128d c2 = _mm_setzero_pd();
        for (uint32_t b = first; b < end; b += 2)
            c2 = _mm_max_pd(abs2(_mm_loadu_pd(&t->center[j][b])), c2);
        merge_max(c2, &big_c[j]);
    }
    for (int k = 0; k < 3; k++) {
        __m128d m[3], amag[3];
        for (int j = 0; j < 3; j++) {
            m[j] = _mm_set1_pd(x->m[k][j]);
            amag[j] = _mm_set1_pd(x->axis_mag[k][j]);
        }
        const __m128d tr = _mm_set1_pd(x->m[k][3]);
        __m128d lo2 = _mm_set1_pd(INFINITY), hi2 = _mm_set1_pd(-INFINITY), h2 = _mm_setzero_pd();
        for (uint32_t b = first; b < end; b += 2) {
            __m128d em[3] = {amag[0], amag[1], amag[2]};
            if (oriented)
                for (int i = 0; i < 3; i++) {
                    __m128d e = _mm_add_pd(_mm_mul_pd(m[0], _mm_loadu_pd(&t->edge[0][i][b])),
                                           _mm_mul_pd(m[1], _mm_loadu_pd(&t->edge[1][i][b])));
                    em[i] = abs2(_mm_add_pd(e, _mm_mul_pd(m[2], _mm_loadu_pd(&t->edge[2][i][b]))));
                }
            __m128d c = _mm_add_pd(tr, _mm_mul_pd(m[0], _mm_loadu_pd(&t->center[0][b])));
            c = _mm_add_pd(c, _mm_mul_pd(m[1], _mm_loadu_pd(&t->center[1][b])));
            c = _mm_add_pd(c, _mm_mul_pd(m[2], _mm_loadu_pd(&t->center[2][b])));
            __m128d h = _mm_add_pd(_mm_setzero_pd(), _mm_mul_pd(em[0], _mm_loadu_pd(&t->half[0][b])));
            h = _mm_add_pd(h, _mm_mul_pd(em[1], _mm_loadu_pd(&t->half[1][b])));
            h = _mm_add_pd(h, _mm_mul_pd(em[2], _mm_loadu_pd(&t->half[2][b])));
            lo2 = _mm_min_pd(_mm_sub_pd(c, h), lo2);
            hi2 = _mm_max_pd(_mm_add_pd(c, h), hi2);
            h2 = _mm_max_pd(h, h2);
        }
        merge_lanes(lo2, hi2, h2, &lo[k], &hi[k], &big_h[k]);
    }
}
#endif

static inline __attribute__((always_inline)) void top_extents(const mq_xform_rows *x, const mq_top_boxes *t,
                                                              const bool oriented, double lo[3], double hi[3],
                                                              double big_h[3], double big_c[3])
{
    uint32_t b = 0;
#if defined(MQ_ISA_SIMD)
    if (mq_isa_active() >= MQ_ISA_AVX2)
        b = mq_top_extents_avx2(x, t, oriented, lo, hi, big_h, big_c);
#endif
#if defined(MQ_BOUNDS_SSE2)
    const uint32_t pairs = t->n & ~1u;
    if (b < pairs)
        extents_two(x, t, oriented, b, pairs, lo, hi, big_h, big_c);
    b = b > pairs ? b : pairs;
#endif
    for (; b < t->n; b++) {
        for (int j = 0; j < 3; j++) {
            double a = fabs(t->center[j][b]);
            big_c[j] = a > big_c[j] ? a : big_c[j];
        }
        for (int k = 0; k < 3; k++) {
            double c = x->m[k][3], h = 0.0;
            for (int j = 0; j < 3; j++)
                c += x->m[k][j] * t->center[j][b];
            for (int i = 0; i < 3; i++) {
                double em = oriented ? fabs(x->m[k][0] * t->edge[0][i][b] + x->m[k][1] * t->edge[1][i][b] +
                                            x->m[k][2] * t->edge[2][i][b])
                                     : x->axis_mag[k][i];
                h += em * t->half[i][b];
            }
            double l = c - h, u = c + h;
            lo[k] = l < lo[k] ? l : lo[k];
            hi[k] = u > hi[k] ? u : hi[k];
            big_h[k] = h > big_h[k] ? h : big_h[k];
        }
    }
}

/*
 * The pad of every box's bounds along world axis k: a box's rounding error
 * there is a few ulps of |its centre's terms| + 2 h_b (grow()'s `mag + 2 h`),
 * and its centre's terms are at most |t_k| + sum_j |m_kj| max_b |c_jb|. One
 * pad from those maxima is at least each box's own, so the bounds stay
 * conservative, and the boxes' loop has no pad to compute.
 */
static void top_pads(const mq_xform_rows *x, const double big_c[3], const double big_h[3], double pad[3])
{
    for (int k = 0; k < 3; k++) {
        double mag = x->t_mag[k];
        for (int j = 0; j < 3; j++)
            mag += x->axis_mag[k][j] * big_c[j];
        pad[k] = MQ_BOX_WIDEN * (mag + 2.0 * big_h[k]) + DBL_MIN;
    }
}

/* The world box of every box of t merged into [lo, hi]. An OBB tree's boxes
 * have their edges mapped to the world first; a BVH's edges are the local
 * axes. The boxes are many and the same for every instance of the
 * hierarchy, so this is most of an instance's set-up: four boxes at a time
 * with AVX2 (instance_bounds_avx2.c) when the ISA level has it, two at a time
 * with SSE2, the rest one by one. `oriented`: t is an OBB tree's (a constant
 * in each call, so each kind gets its own loop). */
static inline __attribute__((always_inline)) void grow_boxes(const mq_xform_rows *x, const mq_top_boxes *t,
                                                             const bool oriented, double lo[3], double hi[3])
{
    double l[3] = {INFINITY, INFINITY, INFINITY}, u[3] = {-INFINITY, -INFINITY, -INFINITY};
    double big_h[3] = {0, 0, 0}, big_c[3] = {0, 0, 0}, pad[3];
    top_extents(x, t, oriented, l, u, big_h, big_c);
    top_pads(x, big_c, big_h, pad);
    for (int k = 0; k < 3; k++) {
        double a = l[k] - pad[k], b = u[k] + pad[k];
        lo[k] = a < lo[k] ? a : lo[k];
        hi[k] = b > hi[k] ? b : hi[k];
    }
}

/* The world box of the local root box (the box of its 8 mapped corners). */
static void root_box(const mq_instance_rec *rec, const mq_xform_rows *x, double lo[3], double hi[3])
{
    double c[3], h[3];
    for (int k = 0; k < 3; k++) {
        double l = rec->local_box.min[k], u = rec->local_box.max[k];
        c[k] = 0.5 * (l + u); /* exact: floats in double */
        h[k] = 0.5 * (u - l);
    }
    grow(x, c, h, &x->axis_mag[0][0], lo, hi);
}

void mq_instance_world_box(mq_instance_rec *rec)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    mq_xform_rows x;
    mq_xform_rows_init(&rec->to_world, &x);
    const mq_top_boxes *top = rec->bvh ? &rec->bvh->top : &rec->obbtree->top;
    bool ok = top->ok;
    if (rec->bvh)
        grow_boxes(&x, top, false, lo, hi);
    else if (ok)
        grow_boxes(&x, top, true, lo, hi);
    /* Both boxes contain the mesh, so their intersection does: an OBB tree's
     * child boxes may stick out of the root's box, and then the root's wins. */
    double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (top->n > 0)
        root_box(rec, &x, clo, chi);
    for (int k = 0; k < 3; k++) {
        double l = ok && lo[k] > clo[k] ? lo[k] : clo[k], u = ok && hi[k] < chi[k] ? hi[k] : chi[k];
        if (!(l <= u) && ok && lo[k] <= hi[k] && clo[k] <= chi[k]) {
            /* Disjoint: the two boxes enclose the mesh as rounded differently
             * (a BVH's top boxes hold its corners scaled by 2^k, where a
             * subnormal one rounds; its root box holds the mesh's own), so
             * either may be what a query reads: their union. */
            l = lo[k] < clo[k] ? lo[k] : clo[k];
            u = hi[k] > chi[k] ? hi[k] : chi[k];
        }
        rec->world_box.min[k] = l;
        rec->world_box.max[k] = u;
    }
}
