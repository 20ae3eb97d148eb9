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
#include "scene/scene_internal.h"

/* Relative widening: far above the few-ulp error of the double arithmetic below. */
#define MQ_BOX_WIDEN 1e-12

/* A transform's rows and their magnitudes, read once per instance (the
 * boxes are many, and through pointers every box would reload them). */
typedef struct xform_rows {
    double m[3][4];        /* local -> world */
    double axis_mag[3][3]; /* |m[k][i]|: the magnitudes of the local axes along the world's */
    double t_mag[3];       /* |m[k][3]| */
} xform_rows;

static void xform_rows_init(const mq_xform *xf, xform_rows *x)
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
static void grow(const xform_rows *x, const double center[3], const double half[3], const double *edge_mag,
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

#if defined(MQ_BOUNDS_SSE2)
/* World axis k of a transform (xform_rows), each term in both lanes. */
typedef struct axis2 {
    __m128d m[3], t, axis_mag[3], t_mag;
} axis2;

static axis2 axis2_of(const xform_rows *x, int k)
{
    axis2 r;
    for (int j = 0; j < 3; j++) {
        r.m[j] = _mm_set1_pd(x->m[k][j]);
        r.axis_mag[j] = _mm_set1_pd(x->axis_mag[k][j]);
    }
    r.t = _mm_set1_pd(x->m[k][3]);
    r.t_mag = _mm_set1_pd(x->t_mag[k]);
    return r;
}

static inline __m128d abs2(__m128d v)
{
    return _mm_and_pd(v, _mm_castsi128_pd(_mm_set1_epi64x(0x7FFFFFFFFFFFFFFFll)));
}

/* Boxes b and b + 1 of `a` along world axis x, their edges' magnitudes along
 * it em[i], as grow() computes them (lane by lane the same operations in the
 * same order, so the same bits), merged into the lanes of *lo and *hi
 * (minpd(l, lo) is `l < lo ? l : lo`). */
static inline void grow_two(const axis2 *x, const mq_top_boxes *a, uint32_t b, const __m128d em[3], __m128d *lo,
                            __m128d *hi)
{
    __m128d p0 = _mm_mul_pd(x->m[0], _mm_loadu_pd(&a->center[0][b]));
    __m128d p1 = _mm_mul_pd(x->m[1], _mm_loadu_pd(&a->center[1][b]));
    __m128d p2 = _mm_mul_pd(x->m[2], _mm_loadu_pd(&a->center[2][b]));
    __m128d c = _mm_add_pd(_mm_add_pd(_mm_add_pd(x->t, p0), p1), p2);
    __m128d mag = _mm_add_pd(_mm_add_pd(_mm_add_pd(x->t_mag, abs2(p0)), abs2(p1)), abs2(p2));
    __m128d h = _mm_add_pd(_mm_setzero_pd(), _mm_mul_pd(em[0], _mm_loadu_pd(&a->half[0][b])));
    h = _mm_add_pd(h, _mm_mul_pd(em[1], _mm_loadu_pd(&a->half[1][b])));
    h = _mm_add_pd(h, _mm_mul_pd(em[2], _mm_loadu_pd(&a->half[2][b])));
    __m128d pad =
        _mm_add_pd(_mm_mul_pd(_mm_set1_pd(MQ_BOX_WIDEN), _mm_add_pd(mag, _mm_add_pd(h, h))), _mm_set1_pd(DBL_MIN));
    *lo = _mm_min_pd(_mm_sub_pd(_mm_sub_pd(c, h), pad), *lo);
    *hi = _mm_max_pd(_mm_add_pd(_mm_add_pd(c, h), pad), *hi);
}

/* The magnitudes along world axis x of the edges of OBB-tree boxes b, b + 1
 * (grow_boxes', lane by lane). */
static inline void edge_mags_two(const axis2 *x, const mq_top_boxes *o, uint32_t b, __m128d em[3])
{
    for (int i = 0; i < 3; i++) {
        __m128d e = _mm_add_pd(_mm_mul_pd(x->m[0], _mm_loadu_pd(&o->edge[0][i][b])),
                               _mm_mul_pd(x->m[1], _mm_loadu_pd(&o->edge[1][i][b])));
        em[i] = abs2(_mm_add_pd(e, _mm_mul_pd(x->m[2], _mm_loadu_pd(&o->edge[2][i][b]))));
    }
}

/* Both lanes' bounds into lo, hi. */
static void merge_lanes(__m128d lo2, __m128d hi2, double *lo, double *hi)
{
    double l[2], u[2];
    _mm_storeu_pd(l, lo2);
    _mm_storeu_pd(u, hi2);
    *lo = l[1] < l[0] ? l[1] : l[0];
    *hi = u[1] > u[0] ? u[1] : u[0];
}
#endif

/* grow() of every box of t: their world box merged into [lo, hi]. An OBB
 * tree's boxes have their edges mapped to the world first; a BVH's edges are
 * the local axes. The boxes are many and the same for every instance of the
 * hierarchy, so this is most of an instance's set-up: two boxes at a time
 * with SSE2. `oriented`: t is an OBB tree's (a constant in each call, so each
 * kind gets its own loop). */
static inline __attribute__((always_inline)) void grow_boxes(const xform_rows *x, const mq_top_boxes *t,
                                                             const bool oriented, double lo[3], double hi[3])
{
    uint32_t b = 0;
#if defined(MQ_BOUNDS_SSE2)
    const uint32_t pairs = t->n & ~1u;
    for (int k = 0; k < 3; k++) {
        const axis2 xk = axis2_of(x, k);
        __m128d lo2 = _mm_set1_pd(lo[k]), hi2 = _mm_set1_pd(hi[k]);
        for (uint32_t p = 0; p < pairs; p += 2) {
            __m128d em[3] = {xk.axis_mag[0], xk.axis_mag[1], xk.axis_mag[2]};
            if (oriented)
                edge_mags_two(&xk, t, p, em);
            grow_two(&xk, t, p, em, &lo2, &hi2);
        }
        merge_lanes(lo2, hi2, &lo[k], &hi[k]);
    }
    b = pairs;
#endif
    for (; b < t->n; b++) {
        double c[3] = {t->center[0][b], t->center[1][b], t->center[2][b]};
        double h[3] = {t->half[0][b], t->half[1][b], t->half[2][b]};
        double em[3][3];
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 3; i++)
                em[k][i] = oriented ? fabs(x->m[k][0] * t->edge[0][i][b] + x->m[k][1] * t->edge[1][i][b] +
                                           x->m[k][2] * t->edge[2][i][b])
                                    : x->axis_mag[k][i];
        grow(x, c, h, &em[0][0], lo, hi);
    }
}

/* The world box of the local root box (the box of its 8 mapped corners). */
static void root_box(const mq_instance_rec *rec, const xform_rows *x, double lo[3], double hi[3])
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
    xform_rows x;
    xform_rows_init(&rec->to_world, &x);
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
        rec->world_box.min[k] = ok && lo[k] > clo[k] ? lo[k] : clo[k];
        rec->world_box.max[k] = ok && hi[k] < chi[k] ? hi[k] : chi[k];
    }
}
