/*
 * The double split of the distance walk in AVX2 (distance_walk_avx2.h): the
 * four children [a0, a1, b0, b1] mapped in the four lanes of one vector, then
 * the four pairs [(a0, b0), (a0, b1), (a1, b0), (a1, b1)] bounded in the four
 * lanes. Each lane computes every value by the same operations in the same
 * order as the scalar code (mq_dw_nbox_of, mq_dw_nbox_finish and the lower
 * bound of distance_walk.c; the build has no fused multiply-add contraction),
 * so the walk makes the same decisions at every ISA level.
 */
#include "proximity/distance_walk_avx2.h"

#if defined(MQ_ISA_SIMD)
#include <immintrin.h>
#include <math.h>
#include <stddef.h>

#include "obbtree/obbtree_internal.h"
#include "proximity/distance_walk_lanes.h"

_Static_assert(offsetof(mq_obbtree_node, center) == 0 && offsetof(mq_obbtree_node, half) == 3 * sizeof(float) &&
                   offsetof(mq_obbtree_node, axes) == 6 * sizeof(float) &&
                   offsetof(mq_obbtree_node, data) == 15 * sizeof(float),
               "a node is read as 16 floats");
_Static_assert(sizeof(mq_dw_nbox) == 22 * sizeof(double) && offsetof(mq_dw_nbox, e) == 3 * sizeof(double) &&
                   offsetof(mq_dw_nbox, ext) == 12 * sizeof(double) &&
                   offsetof(mq_dw_nbox, size) == 15 * sizeof(double) &&
                   offsetof(mq_dw_nbox, len2) == 16 * sizeof(double) &&
                   offsetof(mq_dw_nbox, self) == 19 * sizeof(double),
               "a box is written as 22 doubles");

static inline __m256d abs4(__m256d x)
{
    return _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
}

static inline __m256d dot4(const __m256d a[3], const __m256d b[3])
{
    return _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a[0], b[0]), _mm256_mul_pd(a[1], b[1])),
                         _mm256_mul_pd(a[2], b[2]));
}

/* Where m is set, x; elsewhere y. */
static inline __m256d pick4(__m256d m, __m256d x, __m256d y)
{
    return _mm256_blendv_pd(y, x, m);
}

static inline __m256d gt4(__m256d a, __m256d b)
{
    return _mm256_cmp_pd(a, b, _CMP_GT_OQ);
}

/* Four boxes, lane by lane, as mq_dw_nbox's 22 doubles in order:
 * c[3], e[3][3], ext[3], size, len2[3], self[3]. */
typedef struct nbox4 {
    __m256d v[22];
} nbox4;

#define C(b, r) ((b)->v[(r)])
#define E(b, i, r) ((b)->v[3 + 3 * (i) + (r)])
#define EXT(b, r) ((b)->v[12 + (r)])
#define SIZE(b) ((b)->v[15])
#define LEN2(b, r) ((b)->v[16 + (r)])
#define SELF(b, r) ((b)->v[19 + (r)])

static void map4(const mq_obbtree_node *const n[4], const mq_dist_side *sa, const mq_dist_side *sb, nbox4 *o)
{
    /* the nodes' first 15 floats, field by field across the four lanes */
    __m256d f[16];
    for (int k = 0; k < 4; k++) {
        __m128 r0 = _mm_loadu_ps((const float *)n[0] + 4 * k), r1 = _mm_loadu_ps((const float *)n[1] + 4 * k);
        __m128 r2 = _mm_loadu_ps((const float *)n[2] + 4 * k), r3 = _mm_loadu_ps((const float *)n[3] + 4 * k);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        f[4 * k] = _mm256_cvtps_pd(r0);
        f[4 * k + 1] = _mm256_cvtps_pd(r1);
        f[4 * k + 2] = _mm256_cvtps_pd(r2);
        if (k < 3) /* the 16th float is the data word */
            f[4 * k + 3] = _mm256_cvtps_pd(r3);
    }
    const __m256d *cen = f, *half = f + 3, *ax = f + 6; /* ax[3 * i + j]: axes[i][j] */
    __m256d e[3][3];
    for (int r = 0; r < 3; r++) {
        __m256d m[4];
        for (int k = 0; k < 4; k++)
            m[k] = _mm256_setr_pd(sa->m[r][k], sa->m[r][k], sb->m[r][k], sb->m[r][k]);
        C(o, r) = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(m[0], cen[0]), _mm256_mul_pd(m[1], cen[1])),
                                              _mm256_mul_pd(m[2], cen[2])),
                                m[3]);
        for (int i = 0; i < 3; i++)
            e[i][r] = _mm256_mul_pd(
                _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(m[0], ax[3 * i]), _mm256_mul_pd(m[1], ax[3 * i + 1])),
                              _mm256_mul_pd(m[2], ax[3 * i + 2])),
                half[i]);
    }
    for (int i = 0; i < 3; i++)
        for (int r = 0; r < 3; r++)
            E(o, i, r) = e[i][r];
    for (int r = 0; r < 3; r++)
        EXT(o, r) = _mm256_add_pd(_mm256_add_pd(abs4(e[0][r]), abs4(e[1][r])), abs4(e[2][r]));
    __m256d g01 = abs4(dot4(e[0], e[1])), g02 = abs4(dot4(e[0], e[2])), g12 = abs4(dot4(e[1], e[2]));
    __m256d g0 = dot4(e[0], e[0]), g1 = dot4(e[1], e[1]), g2 = dot4(e[2], e[2]);
    SELF(o, 0) = _mm256_add_pd(_mm256_add_pd(g0, g01), g02);
    SELF(o, 1) = _mm256_add_pd(_mm256_add_pd(g1, g01), g12);
    SELF(o, 2) = _mm256_add_pd(_mm256_add_pd(g2, g02), g12);
    LEN2(o, 0) = g0;
    LEN2(o, 1) = g1;
    LEN2(o, 2) = g2;
    SIZE(o) = _mm256_add_pd(_mm256_add_pd(g0, g1), g2);
}

/* Lane l of the 22 vectors into out[l], four doubles at a time. */
static void store4(const nbox4 *b, mq_dw_nbox *const out[4])
{
    double *o[4] = {(double *)out[0], (double *)out[1], (double *)out[2], (double *)out[3]};
    for (int g = 0; g < 22; g += 4) {
        __m256d z = _mm256_setzero_pd();
        __m256d v0 = b->v[g], v1 = b->v[g + 1], v2 = g + 2 < 22 ? b->v[g + 2] : z, v3 = g + 3 < 22 ? b->v[g + 3] : z;
        __m256d t0 = _mm256_unpacklo_pd(v0, v1), t1 = _mm256_unpackhi_pd(v0, v1);
        __m256d t2 = _mm256_unpacklo_pd(v2, v3), t3 = _mm256_unpackhi_pd(v2, v3);
        __m256d l0 = _mm256_permute2f128_pd(t0, t2, 0x20), l1 = _mm256_permute2f128_pd(t1, t3, 0x20);
        __m256d l2 = _mm256_permute2f128_pd(t0, t2, 0x31), l3 = _mm256_permute2f128_pd(t1, t3, 0x31);
        if (g + 4 <= 22) {
            _mm256_storeu_pd(o[0] + g, l0);
            _mm256_storeu_pd(o[1] + g, l1);
            _mm256_storeu_pd(o[2] + g, l2);
            _mm256_storeu_pd(o[3] + g, l3);
        } else {
            _mm_storeu_pd(o[0] + g, _mm256_castpd256_pd128(l0));
            _mm_storeu_pd(o[1] + g, _mm256_castpd256_pd128(l1));
            _mm_storeu_pd(o[2] + g, _mm256_castpd256_pd128(l2));
            _mm_storeu_pd(o[3] + g, _mm256_castpd256_pd128(l3));
        }
    }
}

/* The lower bound of distance_walk.c (relative order values) for the four
 * pairs of mapped children kids = [a0, a1, b0, b1]: lane l bounds a's lane
 * A(l) = [0, 0, 1, 1][l] against b's lane [2, 3, 2, 3][l], picked as each field
 * is used. The kept lanes as bits, their values in out. */
#define A_(f) _mm256_permute4x64_pd(kids->v[(f)], 0x50) /* [a0, a0, a1, a1] */
#define B_(f) _mm256_permute4x64_pd(kids->v[(f)], 0xEE) /* [b0, b1, b0, b1] */
static int lower_bound4(const nbox4 *kids, double limit, bool axes, double out[4])
{
    const __m256d zero = _mm256_setzero_pd(), lim = _mm256_set1_pd(limit);
    __m256d d[3], g2 = zero;
    for (int k = 0; k < 3; k++) {
        d[k] = _mm256_sub_pd(B_(k), A_(k));
        __m256d g = _mm256_sub_pd(_mm256_sub_pd(abs4(d[k]), A_(12 + k)), B_(12 + k));
        g = _mm256_and_pd(gt4(g, zero), g); /* adding +0 for g <= 0 keeps the sum's bits */
        g2 = _mm256_add_pd(g2, _mm256_mul_pd(g, g));
    }
    __m256d lb = _mm256_sqrt_pd(g2);
    __m256d pruned = gt4(lb, lim);
    if (_mm256_movemask_pd(pruned) == 15)
        return 0;
    __m256d da[3], db[3];
    for (int i = 0; i < 3; i++) {
        __m256d ea[3] = {A_(3 + 3 * i), A_(4 + 3 * i), A_(5 + 3 * i)},
                eb[3] = {B_(3 + 3 * i), B_(4 + 3 * i), B_(5 + 3 * i)};
        da[i] = dot4(d, ea);
        db[i] = dot4(d, eb);
    }
    __m256d l2 = dot4(d, d), l = _mm256_sqrt_pd(l2);
    __m256d sum = _mm256_add_pd(
        _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_add_pd(abs4(da[0]), abs4(da[1])), abs4(da[2])), abs4(db[0])),
                      abs4(db[1])),
        abs4(db[2]));
    __m256d r = _mm256_div_pd(sum, l); /* inf or NaN where l2 == 0: not picked below */
    __m256d lr = _mm256_sub_pd(l, r);
    __m256d res = pick4(gt4(lb, zero), pick4(gt4(lr, lb), lr, lb), lr);
    res = pick4(_mm256_cmp_pd(res, zero, _CMP_LT_OQ), _mm256_div_pd(res, r), res);
    res = pick4(gt4(l2, zero), res, lb);
    pruned = _mm256_or_pd(pruned, gt4(res, lim));
    int kept = ~_mm256_movemask_pd(pruned) & 15;
    _mm256_storeu_pd(out, res);
    if (!kept || !axes || limit == INFINITY)
        return kept;
    /* the six axes of axis_gap: whether each one's gap is above the limit */
    __m256d x[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            __m256d ea[3] = {A_(3 + 3 * i), A_(4 + 3 * i), A_(5 + 3 * i)},
                    eb[3] = {B_(3 + 3 * j), B_(4 + 3 * j), B_(5 + 3 * j)};
            x[i][j] = abs4(dot4(ea, eb));
        }
    union { /* the six axes' values, read lane by lane at the end */
        __m256d v[6];
        double d[24];
    } p, len2;
    int above[6], any = 0;
    const __m256d ll = _mm256_mul_pd(lim, lim);
    for (int t = 0; t < 6; t++) {
        int i = t % 3;
        if (t < 3) {
            p.v[t] = _mm256_sub_pd(_mm256_sub_pd(abs4(da[i]), A_(19 + i)),
                                   _mm256_add_pd(_mm256_add_pd(x[i][0], x[i][1]), x[i][2]));
            len2.v[t] = A_(16 + i);
        } else {
            p.v[t] = _mm256_sub_pd(_mm256_sub_pd(abs4(db[i]), B_(19 + i)),
                                   _mm256_add_pd(_mm256_add_pd(x[0][i], x[1][i]), x[2][i]));
            len2.v[t] = B_(16 + i);
        }
        __m256d pp = _mm256_mul_pd(p.v[t], p.v[t]), lr2 = _mm256_mul_pd(ll, len2.v[t]), m;
        if (limit >= 0.0)
            m = _mm256_and_pd(gt4(p.v[t], zero), gt4(pp, lr2));
        else
            m = _mm256_or_pd(_mm256_cmp_pd(p.v[t], zero, _CMP_GE_OQ), _mm256_cmp_pd(pp, lr2, _CMP_LT_OQ));
        above[t] = _mm256_movemask_pd(_mm256_and_pd(m, gt4(len2.v[t], zero)));
        any |= above[t];
    }
    if (!(any & kept))
        return kept;
    return mq_dw_lanes_axis_prune(kept, any, above, p.d, len2.d, 4, limit);
}

#undef A_
#undef B_

int mq_dw_split_both_avx2(const mq_dist_side *sa, const mq_dist_side *sb, const uint32_t ka[2], const uint32_t kb[2],
                          mq_dw_nbox *const out[4], double limit, bool axes, double lv[4])
{
    const mq_obbtree_node *n[4] = {&sa->obbtree->nodes[ka[0]], &sa->obbtree->nodes[ka[1]], &sb->obbtree->nodes[kb[0]],
                                   &sb->obbtree->nodes[kb[1]]};
    nbox4 k;
    map4(n, sa, sb, &k);
    store4(&k, out);
    return lower_bound4(&k, limit, axes, lv);
}
#endif
