/*
 * Packets of 8 coherent rays, one ray per AVX2 lane (closest hit), for the
 * batch API: camera rays and other bundles that share an origin region and a
 * direction octant visit nearly the same nodes, so testing each child box and
 * each triangle against all 8 rays at once shares the loads, the branches and
 * the traversal bookkeeping among them (Wald et al., "Interactive rendering
 * with coherent ray tracing", 2001; Embree's packet kernels).
 *
 * A packet is taken only when its rays agree on what the per-ray code keys on:
 * the direction's sign on every axis (the near planes of the slab test) and
 * the watertight test's axis permutation (kx, ky, kz). Each lane then computes
 * exactly what the single-ray kernels compute for that ray — the same slab
 * distances (Ize-widened exits), the same watertight edge functions, divisions
 * and tie-break by triangle id, with mq_woop_lane for any lane that needs the
 * double-precision fallback — so every ray's answer equals its single-ray
 * answer bit for bit; only the visiting order of the nodes differs, which the
 * closest-hit answer does not depend on. Nodes are culled against every
 * lane's best t widened by mq_node_tmax (ties with a smaller id are entered).
 *
 * Before the per-lane slab tests, all 8 children of a node are tested at once
 * against the packet as one interval ray (packet_frustum, frustum_hits: the
 * extreme origins and reciprocals of its lanes; float rounding is monotone,
 * so the interval test misses only boxes every lane misses): on camera rays
 * most children fail it, and only the survivors get the 8-lane test. Its
 * entry bound also orders the children and culls them when popped (it is a
 * lower bound of every lane's entry).
 *
 * Two ways in: prepared queries (mq_trace, from mq_trace_prepare), or, for the
 * batch, the caller's rays themselves (mq_packet8_rays_avx2): 8 consecutive
 * rays are loaded, transposed and prepared together in vector registers — the
 * same float operations mq_trace_prepare does for each ray, 5 divisions per 8
 * rays instead of 16 — and their hit records are written straight from the
 * packet. A group that the vector setup cannot take exactly as the scalar one
 * (an invalid ray, tmin < 0, a direction that needs rescaling, rays that do
 * not share octant and permutation) is left to the caller's general path.
 * The hit records' double-precision refinement runs 4 hits at a time
 * (mq_hits4_avx2), in the same operations as hit_record.c.
 */
#include <immintrin.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "bvh/leaf_pack.h"
#include "bvh/kernels/hit_record.h"
#include "primitives/near_parallel.h"
#include "bvh/kernels/prep8_avx2.h"
#include "bvh/kernels/traverse_common.h"
#include "bvh/kernels/woop_lane.h"

typedef struct packet8 {
    __m256 org[3]; /* by world axis */
    __m256 rdn[3]; /* 1/d for entry planes */
    __m256 rdf[3]; /* 1/d * (1 + Ize's widening) for exit planes */
    __m256 tmin;
    __m256 sx, sy, sz; /* shear of the watertight test */
    int kx, ky, kz;    /* shared by all lanes */
    int near[3];       /* entry plane per axis, shared */
    unsigned cull;     /* 0xFF when culling back faces */
    /* The packet as one interval ray (frustum_hits), by world axis: the
     * origin that enters / leaves a box last / first, and the range of the
     * lanes' 1/d for entry and exit planes; set when `frustum`. */
    bool frustum;
    __m256 fo_near[3], fo_far[3];
    __m256 frn_lo[3], frn_hi[3], frf_lo[3], frf_hi[3];
    __m256 ftmin; /* smallest tmin */
} packet8;

static inline float hmin8(__m256 v)
{
    __m128 m = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_min_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_min_ss(m, _mm_shuffle_ps(m, m, 1)));
}

static inline float hmax8(__m256 v)
{
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_shuffle_ps(m, m, 1)));
}

/*
 * The interval ray of a packet: per axis, the extreme origins and the range
 * of the lanes' reciprocals. Rounding is monotone (fl(x - y) in each operand,
 * fl(x * r) in x for r of one sign and in r for x of one sign), so
 * fl(fl(b - o_l) * r_l) for any lane l lies between the products of the
 * extremes, and a box that the interval ray misses is missed by every lane
 * (frustum_hits). Only when every 1/d is finite (no zero direction
 * component: 0 * inf would make NaN, which orders nothing).
 */
static void packet_frustum(packet8 *p)
{
    p->frustum = true;
    for (int k = 0; k < 3; k++) {
        __m256 rn = p->rdn[k], rf = p->rdf[k];
        __m256 fin = _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), rf), _mm256_set1_ps(INFINITY), _CMP_LT_OQ);
        if ((unsigned)_mm256_movemask_ps(fin) != 0xFFu) {
            p->frustum = false;
            return;
        }
        float omin = hmin8(p->org[k]), omax = hmax8(p->org[k]);
        bool pos = (p->near[k] & 1) == 0; /* entry plane lo: direction >= 0 */
        p->fo_near[k] = _mm256_set1_ps(pos ? omax : omin);
        p->fo_far[k] = _mm256_set1_ps(pos ? omin : omax);
        p->frn_lo[k] = _mm256_set1_ps(hmin8(rn));
        p->frn_hi[k] = _mm256_set1_ps(hmax8(rn));
        p->frf_lo[k] = _mm256_set1_ps(hmin8(rf));
        p->frf_hi[k] = _mm256_set1_ps(hmax8(rf));
    }
    p->ftmin = _mm256_set1_ps(hmin8(p->tmin));
}

/* Children of `n` whose box the packet's interval ray meets before `tfar` (a
 * bound on every lane's): a superset of the children any lane hits. */
static inline unsigned frustum_hits(const packet8 *p, const mq_node8 *n, __m256 tfar, __m256 *tn_out)
{
    __m256 tn = p->ftmin, tf = tfar;
    for (int k = 0; k < 3; k++) {
        __m256 dn = _mm256_sub_ps(_mm256_load_ps(n->bounds[p->near[k]]), p->fo_near[k]);
        __m256 df = _mm256_sub_ps(_mm256_load_ps(n->bounds[p->near[k] ^ 1]), p->fo_far[k]);
        tn = _mm256_max_ps(tn, _mm256_min_ps(_mm256_mul_ps(dn, p->frn_lo[k]), _mm256_mul_ps(dn, p->frn_hi[k])));
        tf = _mm256_min_ps(tf, _mm256_max_ps(_mm256_mul_ps(df, p->frf_lo[k]), _mm256_mul_ps(df, p->frf_hi[k])));
    }
    *tn_out = tn;
    return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(tn, tf, _CMP_LE_OQ));
}

/* The lanes' best hits, as vectors. */
typedef struct packet_best {
    __m256 t, u, v;
    __m256i id;
    __m256i where; /* arena unit of the block << 2 | lane in the block */
    __m256 back;   /* sign bit set: hit from behind */
} packet_best;

typedef struct packet_entry {
    uint32_t ref;
    uint32_t mask; /* lanes still interested */
    float dist;    /* smallest entry distance among them */
} packet_entry;

static __m256 lanes_of(const mq_trace *const *q, size_t field_offset)
{
    float v[8];
    for (int i = 0; i < 8; i++)
        memcpy(&v[i], (const char *)&q[i]->ray + field_offset, sizeof(float));
    return _mm256_loadu_ps(v);
}

#define LANES(q, field) lanes_of(q, offsetof(mq_ray_prep, field))

static void packet_init(packet8 *p, const mq_trace *const *q)
{
    const mq_ray_prep *r0 = &q[0]->ray;
    for (int k = 0; k < 3; k++) {
        p->org[k] = lanes_of(q, offsetof(mq_ray_prep, org) + (size_t)k * sizeof(float));
        p->rdn[k] = lanes_of(q, offsetof(mq_ray_prep, rdir) + (size_t)k * sizeof(float));
        /* Same product as the single-ray AVX2 kernel (rdir * MQ_IZE_UP), lane by lane. */
        p->rdf[k] = _mm256_mul_ps(p->rdn[k], _mm256_set1_ps(MQ_IZE_UP));
        p->near[k] = r0->near[k];
    }
    p->tmin = LANES(q, tmin);
    p->sx = LANES(q, sx);
    p->sy = LANES(q, sy);
    p->sz = LANES(q, sz);
    p->kx = r0->kx;
    p->ky = r0->ky;
    p->kz = r0->kz;
    p->cull = q[0]->cull ? 0xFFu : 0u;
    packet_frustum(p);
}

/*
 * Prepares rays[0..8) as one packet: lane by lane exactly what
 * mq_trace_prepare computes (prep8_avx2.h; then 1/d and the shear, in the
 * same float operations). Returns false, touching nothing the caller sees,
 * when the scalar path must decide: a lane prep8 leaves, tmin < 0, or lanes
 * that differ in direction octant or dominant axis.
 */
static bool packet_prepare(packet8 *p, const mq_bvh *bvh, const mq_ray *rays, bool cull, __m256 *tmax_out)
{
    const mq_ray *const r8[8] = {rays, rays + 1, rays + 2, rays + 3, rays + 4, rays + 5, rays + 6, rays + 7};
    mq_prep8 r;
    mq_prep8_load(bvh, r8, &r);
    unsigned pos = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(r.tmin, _mm256_setzero_ps(), _CMP_GE_OQ));
    if ((r.ok & pos) != 0xFFu)
        return false;
    int kz = r.axis[0] == 0xFFu ? 0 : r.axis[1] == 0xFFu ? 1 : r.axis[2] == 0xFFu ? 2 : -1;
    if (kz < 0)
        return false;
    /* One octant: every axis's sign the same in all lanes (-0 counts as negative, as in finish()). */
    for (int k = 0; k < 3; k++)
        if (r.sign[k] != 0 && r.sign[k] != 0xFFu)
            return false;
    static const uint8_t perm[3][2][2] = {{{1, 2}, {2, 1}}, {{2, 0}, {0, 2}}, {{0, 1}, {1, 0}}};
    int down = r.sign[kz] != 0;
    int tx = perm[kz][down][0], ty = perm[kz][down][1];
    const __m256 one = _mm256_set1_ps(1.0f);
    for (int k = 0; k < 3; k++) {
        p->org[k] = r.org[k];
        p->rdn[k] = _mm256_div_ps(one, r.d[k]);
        p->rdf[k] = _mm256_mul_ps(p->rdn[k], _mm256_set1_ps(MQ_IZE_UP));
        p->near[k] = 2 * k + (r.sign[k] != 0);
    }
    p->tmin = r.tmin;
    p->sx = _mm256_div_ps(r.d[tx], r.d[kz]);
    p->sy = _mm256_div_ps(r.d[ty], r.d[kz]);
    p->sz = p->rdn[kz];
    p->kx = tx;
    p->ky = ty;
    p->kz = kz;
    p->cull = cull ? 0xFFu : 0u;
    packet_frustum(p);
    *tmax_out = r.tmax;
    return true;
}

static inline __m256 bcast(const float *p)
{
    return _mm256_broadcast_ss(p);
}

/* mq_node_tmax lane by lane (t >= 0 here: packets have tmin >= 0): the bound
 * nodes are culled against, so that a tie with a smaller id is entered. */
static inline __m256 node_tmax8(__m256 t)
{
    return _mm256_add_ps(t, _mm256_mul_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), t), _mm256_set1_ps(MQ_IZE_REL)));
}

/* Lanes of `active` whose ray meets child slot i's box before tfar (mq_node_tmax
 * of the lanes' best t), and their entry distances. */
static inline unsigned child_hits(const packet8 *p, const mq_node8 *n, int i, __m256 tfar, unsigned active,
                                  __m256 *tn_out)
{
    const int a = p->kx, b = p->ky, c = p->kz; /* c: non-zero direction, never NaN */
    __m256 na = _mm256_mul_ps(_mm256_sub_ps(bcast(&n->bounds[p->near[a]][i]), p->org[a]), p->rdn[a]);
    __m256 nb = _mm256_mul_ps(_mm256_sub_ps(bcast(&n->bounds[p->near[b]][i]), p->org[b]), p->rdn[b]);
    __m256 nc = _mm256_mul_ps(_mm256_sub_ps(bcast(&n->bounds[p->near[c]][i]), p->org[c]), p->rdn[c]);
    __m256 fa = _mm256_mul_ps(_mm256_sub_ps(bcast(&n->bounds[p->near[a] ^ 1][i]), p->org[a]), p->rdf[a]);
    __m256 fb = _mm256_mul_ps(_mm256_sub_ps(bcast(&n->bounds[p->near[b] ^ 1][i]), p->org[b]), p->rdf[b]);
    __m256 fc = _mm256_mul_ps(_mm256_sub_ps(bcast(&n->bounds[p->near[c] ^ 1][i]), p->org[c]), p->rdf[c]);
    __m256 tn = _mm256_max_ps(_mm256_max_ps(na, nc), _mm256_max_ps(nb, p->tmin));
    __m256 tf = _mm256_min_ps(_mm256_min_ps(fa, fc), _mm256_min_ps(fb, tfar));
    *tn_out = tn;
    return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(tn, tf, _CMP_LE_OQ)) & active;
}

/* Smallest of tn over the lanes of `mask` (not empty). */
static inline float masked_min(__m256 tn, unsigned mask)
{
    __m256i bits = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
    __m256i on = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)mask), bits), bits);
    __m256 v = _mm256_blendv_ps(_mm256_set1_ps(INFINITY), tn, _mm256_castsi256_ps(on));
    __m128 m = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_min_ps(m, _mm_movehl_ps(m, m));
    m = _mm_min_ss(m, _mm_shuffle_ps(m, m, 1));
    return _mm_cvtss_f32(m);
}

static inline __m256 lane_mask(unsigned mask)
{
    __m256i bits = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)mask), bits), bits));
}

/* Visits an inner node: pushes the hit children but the nearest, farthest
 * first, and returns the nearest with its lanes; false when none is hit. */
static bool visit_node(const packet8 *p, const void *arena, const mq_node8 *n, __m256 tfar, unsigned active,
                       packet_entry *stack, int *sp, packet_entry *next)
{
    packet_entry hit[MQ_BVH_WIDTH];
    int count = 0;
    /* Empty slots (+inf..-inf) never pass the interval test. */
    __m256 ftn = _mm256_setzero_ps();
    unsigned cand = p->frustum ? frustum_hits(p, n, _mm256_set1_ps(hmax8(tfar)), &ftn) : 0xFFu;
    while (cand) {
        int i = mq_ctz(cand);
        cand &= cand - 1;
        if (n->child[i] == MQ_REF_EMPTY)
            break; /* used slots come first */
        __m256 tn;
        unsigned m = child_hits(p, n, i, tfar, active, &tn);
        if (!m)
            continue;
        mq_prefetch_child(arena, n->child[i]);
        float dmin =
            p->frustum ? _mm256_cvtss_f32(_mm256_permutevar8x32_ps(ftn, _mm256_set1_epi32(i))) : masked_min(tn, m);
        packet_entry e = {n->child[i], m, dmin};
        int j = count++;
        while (j > 0 && hit[j - 1].dist < e.dist) { /* descending: nearest last */
            hit[j] = hit[j - 1];
            j--;
        }
        hit[j] = e;
    }
    if (!count)
        return false;
    for (int j = 0; j < count - 1; j++)
        stack[(*sp)++] = hit[j];
    *next = hit[count - 1];
    return true;
}

/* One triangle (lane j of blk) against the active rays; updates the best hits. */
static void test_triangle(const packet8 *p, const mq_tri_block *blk, uint32_t unit, int j, unsigned active,
                          packet_best *b)
{
    __m256 X[3], Y[3], Z[3];
    for (int c = 0; c < 3; c++) {
        __m256 px = _mm256_sub_ps(bcast(&blk->v[c][p->kx][j]), p->org[p->kx]);
        __m256 py = _mm256_sub_ps(bcast(&blk->v[c][p->ky][j]), p->org[p->ky]);
        __m256 pz = _mm256_sub_ps(bcast(&blk->v[c][p->kz][j]), p->org[p->kz]);
        X[c] = _mm256_sub_ps(px, _mm256_mul_ps(p->sx, pz));
        Y[c] = _mm256_sub_ps(py, _mm256_mul_ps(p->sy, pz));
        Z[c] = _mm256_mul_ps(p->sz, pz);
    }
    __m256 U = _mm256_sub_ps(_mm256_mul_ps(X[2], Y[1]), _mm256_mul_ps(Y[2], X[1]));
    __m256 V = _mm256_sub_ps(_mm256_mul_ps(X[0], Y[2]), _mm256_mul_ps(Y[0], X[2]));
    __m256 W = _mm256_sub_ps(_mm256_mul_ps(X[1], Y[0]), _mm256_mul_ps(Y[1], X[0]));
    unsigned same = ~(unsigned)_mm256_movemask_ps(_mm256_or_ps(_mm256_xor_ps(U, V), _mm256_xor_ps(U, W))) & 0xFFu;
    unsigned m = same & ~((unsigned)_mm256_movemask_ps(U) & p->cull) & active;
    __m256 P = _mm256_mul_ps(_mm256_mul_ps(U, V), W);
    __m256 absP = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), P);
    unsigned slow =
        (unsigned)_mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(P, _mm256_setzero_ps(), _CMP_EQ_OQ),
                                                  _mm256_cmp_ps(absP, _mm256_set1_ps(INFINITY), _CMP_NLT_UQ))) &
        active;
    m &= ~slow;
    uint32_t id = blk->id[j];
    __m256 t = _mm256_setzero_ps(), u = t, v = t, back = t;
    if (m) {
        __m256 det = _mm256_add_ps(_mm256_add_ps(U, V), W);
        __m256 T = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(U, Z[0]), _mm256_mul_ps(V, Z[1])), _mm256_mul_ps(W, Z[2]));
        t = _mm256_div_ps(T, det);
        __m256 in = _mm256_and_ps(_mm256_cmp_ps(t, p->tmin, _CMP_GE_OQ), _mm256_cmp_ps(t, b->t, _CMP_LE_OQ));
        m &= (unsigned)_mm256_movemask_ps(in);
        if (m) {
            u = _mm256_div_ps(V, det);
            v = _mm256_div_ps(W, det);
            back = U;
        }
    }
    /* Lanes whose edge functions need the exact fallback: the scalar reference. */
    if (slow) {
        float ts[8], us[8], vs[8], bk[8], bt[8], tm[8], lane[6][8];
        _mm256_storeu_ps(ts, t), _mm256_storeu_ps(us, u), _mm256_storeu_ps(vs, v), _mm256_storeu_ps(bk, back);
        _mm256_storeu_ps(bt, b->t), _mm256_storeu_ps(tm, p->tmin);
        for (int k = 0; k < 3; k++)
            _mm256_storeu_ps(lane[k], p->org[k]);
        _mm256_storeu_ps(lane[3], p->sx), _mm256_storeu_ps(lane[4], p->sy), _mm256_storeu_ps(lane[5], p->sz);
        for (int l = 0; l < 8; l++) {
            if (!((slow >> l) & 1))
                continue;
            /* The lane's ray as mq_woop_lane reads it (origin, permutation, shear). */
            mq_ray_prep r;
            memset(&r, 0, sizeof r);
            for (int k = 0; k < 3; k++)
                r.org[k] = lane[k][l];
            r.kx = p->kx, r.ky = p->ky, r.kz = p->kz;
            r.sx = lane[3][l], r.sy = lane[4][l], r.sz = lane[5][l];
            mq_lane_hit h;
            if (!mq_woop_lane(&r, p->cull != 0, blk, j, tm[l], bt[l], &h))
                continue;
            ts[l] = h.t, us[l] = h.u, vs[l] = h.v, bk[l] = h.back_face ? -1.0f : 1.0f;
            m |= 1u << l;
        }
        t = _mm256_loadu_ps(ts), u = _mm256_loadu_ps(us), v = _mm256_loadu_ps(vs), back = _mm256_loadu_ps(bk);
    }
    if (!m)
        return;
    /* Better: smaller t, or equal t and a smaller id (the single-ray tie-break). */
    __m256i vid = _mm256_set1_epi32((int)id);
    __m256i id_less = _mm256_cmpgt_epi32(_mm256_xor_si256(b->id, _mm256_set1_epi32(INT32_MIN)),
                                         _mm256_xor_si256(vid, _mm256_set1_epi32(INT32_MIN)));
    __m256 better = _mm256_or_ps(_mm256_cmp_ps(t, b->t, _CMP_LT_OQ),
                                 _mm256_and_ps(_mm256_cmp_ps(t, b->t, _CMP_EQ_OQ), _mm256_castsi256_ps(id_less)));
    better = _mm256_and_ps(better, lane_mask(m));
    __m256i bi = _mm256_castps_si256(better);
    b->t = _mm256_blendv_ps(b->t, t, better);
    b->u = _mm256_blendv_ps(b->u, u, better);
    b->v = _mm256_blendv_ps(b->v, v, better);
    b->back = _mm256_blendv_ps(b->back, back, better);
    b->id = _mm256_blendv_epi8(b->id, vid, bi);
    b->where = _mm256_blendv_epi8(b->where, _mm256_set1_epi32((int)(unit << 2 | (uint32_t)j)), bi);
}

static void visit_leaf(const packet8 *p, const void *arena, uint32_t ref, unsigned active, packet_best *b,
                       mq_trace_counts *counts)
{
    const mq_tri_block *blk = mq_arena_leaf(arena, ref);
    uint32_t unit = mq_ref_leaf_unit(ref);
    counts->leaves++;
    for (uint32_t k = 0; k < mq_ref_block_count(ref); k++, blk++, unit += sizeof(mq_tri_block) / MQ_ARENA_UNIT) {
        counts->blocks++;
        for (int j = 0; j < MQ_TRI_BLOCK && !mq_block_lane_is_pad(blk, j); j++)
            test_triangle(p, blk, unit, j, active, b);
    }
}

/* Writes the lanes' answers in the single-ray format. */
static void packet_results(const packet_best *b, const void *arena, mq_best *best[8])
{
    float t[8], u[8], v[8], back[8];
    uint32_t id[8], where[8];
    _mm256_storeu_ps(t, b->t), _mm256_storeu_ps(u, b->u), _mm256_storeu_ps(v, b->v);
    _mm256_storeu_ps(back, b->back);
    _mm256_storeu_si256((__m256i *)id, b->id);
    _mm256_storeu_si256((__m256i *)where, b->where);
    for (int l = 0; l < 8; l++) {
        if (id[l] == MQ_NO_TRIANGLE)
            continue; /* best[l] keeps its "no hit" */
        const mq_tri_block *blk = (const mq_tri_block *)((const char *)arena + (size_t)(where[l] >> 2) * MQ_ARENA_UNIT);
        *best[l] = (mq_best){t[l], id[l], blk, (int)(where[l] & 3), u[l], v[l], signbit(back[l]) != 0};
    }
}

/* Dot products and cross products of 4 lanes of double 3-vectors, in the
 * order of hit_record.c's scalar code (d3_cross; left to right sums). */
static inline __m256d dot4(const __m256d a[3], const __m256d b[3])
{
    return _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a[0], b[0]), _mm256_mul_pd(a[1], b[1])),
                         _mm256_mul_pd(a[2], b[2]));
}

static inline void cross4(__m256d out[3], const __m256d a[3], const __m256d b[3])
{
    out[0] = _mm256_sub_pd(_mm256_mul_pd(a[1], b[2]), _mm256_mul_pd(a[2], b[1]));
    out[1] = _mm256_sub_pd(_mm256_mul_pd(a[2], b[0]), _mm256_mul_pd(a[0], b[2]));
    out[2] = _mm256_sub_pd(_mm256_mul_pd(a[0], b[1]), _mm256_mul_pd(a[1], b[0]));
}

static inline __m256d finite4(__m256d x)
{
    return _mm256_cmp_pd(_mm256_andnot_pd(_mm256_set1_pd(-0.0), x), _mm256_set1_pd(INFINITY), _CMP_LT_OQ);
}

/*
 * The hit records of 4 hit lanes (hit_record.c's mq_hit_from_lane with
 * t_shift 0, 4 at a time): the refinement in double (t from the plane, u, v
 * from the hit point, the unit normal) with the same operations in the same
 * order as the scalar code, so the same bits; lanes whose refinement leaves
 * the common case (a degenerate plane test, a point outside the triangle)
 * go through mq_hit_from_lane itself.
 */
void mq_hits4_avx2(const mq_bvh *bvh, const mq_ray *const ray[4], const mq_best best[4], mq_hit *const out[4])
{
    const float inv = bvh->inv_scale;
    float cf[3][3][4], of[3][4], df[3][4], tmin[4], tmax[4];
    for (int l = 0; l < 4; l++) {
        const mq_tri_block *blk = best[l].block;
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                cf[c][k][l] = blk->v[c][k][best[l].lane];
        for (int k = 0; k < 3; k++) {
            of[k][l] = ray[l]->origin[k];
            df[k][l] = ray[l]->dir[k];
        }
        tmin[l] = ray[l]->tmin;
        tmax[l] = ray[l]->tmax;
    }
    __m256d v[3][3], o[3], d[3], e1[3], e2[3], q[3], n[3], m2[3], m1[3];
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++) /* the corner in mesh units (float), then in double */
            v[c][k] = _mm256_cvtps_pd(_mm_mul_ps(_mm_loadu_ps(cf[c][k]), _mm_set1_ps(inv)));
    for (int k = 0; k < 3; k++) {
        o[k] = _mm256_cvtps_pd(_mm_loadu_ps(of[k]));
        d[k] = _mm256_cvtps_pd(_mm_loadu_ps(df[k]));
        e1[k] = _mm256_sub_pd(v[1][k], v[0][k]);
        e2[k] = _mm256_sub_pd(v[2][k], v[0][k]);
        q[k] = _mm256_sub_pd(v[0][k], o[k]);
    }
    cross4(n, e1, e2);
    __m256d nn = dot4(n, n), dn = dot4(n, d);
    __m256d td = _mm256_div_pd(dot4(n, q), dn);
    cross4(m2, e2, n);
    cross4(m1, n, e1);
    __m256d rinv = _mm256_div_pd(_mm256_set1_pd(1.0), nn);
    __m256d u = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(td, dot4(d, m2)), dot4(q, m2)), rinv);
    __m256d w = _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(td, dot4(d, m1)), dot4(q, m1)), rinv);
    /* The common case: dn != 0 and finite, not near parallel (near_parallel.h's
     * wide band), td finite, (u, w) inside the triangle. */
    const __m256d zero = _mm256_setzero_pd();
    __m256d ok = _mm256_and_pd(_mm256_cmp_pd(dn, zero, _CMP_NEQ_UQ), _mm256_and_pd(finite4(dn), finite4(td)));
    __m256d wide =
        _mm256_mul_pd(_mm256_set1_pd(MQ_NEAR_PARALLEL_WIDE * MQ_NEAR_PARALLEL_WIDE), _mm256_mul_pd(nn, dot4(d, d)));
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_mul_pd(dn, dn), wide, _CMP_GT_OQ));
    ok = _mm256_and_pd(ok, _mm256_and_pd(_mm256_cmp_pd(u, zero, _CMP_GE_OQ), _mm256_cmp_pd(w, zero, _CMP_GE_OQ)));
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_add_pd(u, w), _mm256_set1_pd(1.0), _CMP_LE_OQ));
    unsigned common = (unsigned)_mm256_movemask_pd(ok);
    /* t into [tmin, tmax] (tf < tmin first, as the scalar ternary), the unit normal. */
    __m128 tf = _mm256_cvtpd_ps(td), tlo = _mm_loadu_ps(tmin), thi = _mm_loadu_ps(tmax);
    tf = _mm_blendv_ps(_mm_blendv_ps(tf, thi, _mm_cmpgt_ps(tf, thi)), tlo, _mm_cmplt_ps(tf, tlo));
    __m256d len = _mm256_sqrt_pd(nn), pos = _mm256_cmp_pd(len, zero, _CMP_GT_OQ);
    float tt[4], uu[4], ww[4], nf[3][4];
    _mm_storeu_ps(tt, tf);
    _mm_storeu_ps(uu, _mm256_cvtpd_ps(u));
    _mm_storeu_ps(ww, _mm256_cvtpd_ps(w));
    for (int k = 0; k < 3; k++)
        _mm_storeu_ps(nf[k], _mm256_cvtpd_ps(_mm256_and_pd(_mm256_div_pd(n[k], len), pos)));
    for (int l = 0; l < 4; l++) {
        if (!((common >> l) & 1)) {
            mq_hit_from_lane(bvh, ray[l], 0, &best[l], out[l]);
            continue;
        }
        const float normal[3] = {nf[0][l], nf[1][l], nf[2][l]};
        mq_hit_fill(bvh, ray[l], &best[l], tt[l], uu[l], ww[l], normal, out[l]);
    }
}

/* Writes the lanes' answers as hit records of the caller's rays (t_shift 0);
 * returns how many hit. Groups its hits itself rather than through
 * mq_hit_queue (hit_record.h): the queue's copies and indirect call would
 * cost camera rays more than the grouping. */
static size_t packet_hits(const packet_best *b, const mq_bvh *bvh, const mq_ray *rays, mq_hit *hits)
{
    float t[8], u[8], v[8], back[8];
    uint32_t id[8], where[8];
    _mm256_storeu_ps(t, b->t), _mm256_storeu_ps(u, b->u), _mm256_storeu_ps(v, b->v);
    _mm256_storeu_ps(back, b->back);
    _mm256_storeu_si256((__m256i *)id, b->id);
    _mm256_storeu_si256((__m256i *)where, b->where);
    const mq_ray *ray[4];
    mq_best best[4];
    mq_hit *out[4];
    size_t n = 0;
    int pending = 0;
    /* = mq_hit_miss's record, copied (no call per miss). */
    static const mq_hit miss = {.t = INFINITY, .triangle = MQ_NO_TRIANGLE, .face = MQ_NO_TRIANGLE};
    for (int l = 0; l < 8; l++) {
        if (id[l] == MQ_NO_TRIANGLE) {
            hits[l] = miss;
            continue;
        }
        const mq_tri_block *blk =
            (const mq_tri_block *)((const char *)bvh->arena + (size_t)(where[l] >> 2) * MQ_ARENA_UNIT);
        ray[pending] = &rays[l];
        best[pending] = (mq_best){t[l], id[l], blk, (int)(where[l] & 3), u[l], v[l], signbit(back[l]) != 0};
        out[pending] = &hits[l];
        if (++pending == 4) {
            mq_hits4_avx2(bvh, ray, best, out);
            pending = 0;
        }
        n++;
    }
    if (pending == 1) {
        mq_hit_from_lane_avx2(bvh, ray[0], 0, &best[0], out[0]);
    } else if (pending) {
        /* Pad with copies of the first; their records are written twice, alike. */
        for (int l = pending; l < 4; l++)
            ray[l] = ray[0], best[l] = best[0], out[l] = out[0];
        mq_hits4_avx2(bvh, ray, best, out);
    }
    return n;
}

/* One packet in flight: its rays, best hits, stack and next entry, and where
 * its answers go: best[8] (prepared queries) or hits[8] of rays[8]. */
typedef struct packet_state {
    packet8 p;
    packet_best b;
    packet_entry cur;
    int sp;
    mq_best **out;
    const mq_ray *rays;
    mq_hit *hits;
    packet_entry *stack;
} packet_state;

static void packet_reset(packet_state *s, uint32_t root, __m256 tmax)
{
    s->b.t = tmax;
    s->b.u = s->b.v = s->b.back = _mm256_setzero_ps();
    s->b.id = _mm256_set1_epi32(-1);
    s->b.where = _mm256_setzero_si256();
    s->sp = 0;
    s->cur = (packet_entry){root, 0xFFu, -INFINITY};
}

static void packet_start(packet_state *s, const mq_trace *const *q, mq_best **best)
{
    packet_init(&s->p, q);
    packet_reset(s, q[0]->bvh->root, LANES(q, tmax));
    s->out = best;
}

/* Starts a packet on rays[0..8) if they qualify (packet_prepare). */
static bool packet_start_rays(packet_state *s, const mq_bvh *bvh, const mq_ray *rays, bool cull, mq_hit *hits)
{
    __m256 tmax;
    if (!packet_prepare(&s->p, bvh, rays, cull, &tmax))
        return false;
    packet_reset(s, bvh->root, tmax);
    s->rays = rays;
    s->hits = hits;
    return true;
}

/* Pops the next entry with lanes still interested; false when none is left. */
static inline bool packet_pop(packet_state *s)
{
    __m256 cut = node_tmax8(s->b.t);
    while (s->sp > 0) {
        packet_entry e = s->stack[--s->sp];
        /* Lanes whose best hit is nearer than the entry (the packet's smallest) drop out. */
        e.mask &= (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_set1_ps(e.dist), cut, _CMP_LE_OQ));
        if (e.mask) {
            s->cur = e;
            return true;
        }
    }
    return false;
}

/* Visits the packet's next node or leaf; false when the packet is finished. */
static bool packet_step(packet_state *s, const void *arena, mq_trace_counts *counts)
{
    packet_entry e = s->cur;
    if (!mq_ref_is_leaf(e.ref)) {
        counts->nodes++;
        if (visit_node(&s->p, arena, mq_arena_node(arena, e.ref), node_tmax8(s->b.t), e.mask, s->stack, &s->sp,
                       &s->cur))
            return true;
    } else {
        visit_leaf(&s->p, arena, e.ref, e.mask, &s->b, counts);
    }
    return packet_pop(s);
}

/* Packets in flight when interleaving (as the single-ray stream, for trees
 * beyond the caches): 4 gets nearly all of the overlap of cache misses that
 * 8 would and keeps the stacks at 22 KiB. */
#define MQ_PACKET_LANES 4

void mq_packet8_closest_avx2(const mq_trace *const *q, mq_best **best, size_t packets, bool interleave,
                             mq_trace_counts *counts)
{
    const void *arena = q[0]->bvh->arena;
    packet_entry stacks[MQ_PACKET_LANES][MQ_TRAVERSAL_STACK];
    packet_state lanes[MQ_PACKET_LANES];
    bool live[MQ_PACKET_LANES];
    int width = interleave ? MQ_PACKET_LANES : 1, alive = 0;
    size_t next = 0;
    for (int i = 0; i < width; i++) {
        lanes[i].stack = stacks[i];
        live[i] = next < packets;
        if (live[i]) {
            packet_start(&lanes[i], q + 8 * next, best + 8 * next);
            next++;
            alive++;
        }
    }
    while (alive > 0)
        for (int i = 0; i < width; i++) {
            if (!live[i] || packet_step(&lanes[i], arena, counts))
                continue;
            packet_results(&lanes[i].b, arena, lanes[i].out);
            live[i] = next < packets;
            if (live[i]) {
                packet_start(&lanes[i], q + 8 * next, best + 8 * next);
                next++;
            } else {
                alive--;
            }
        }
}

/* Starts slot s on the next group of rays that qualifies, marking the ones
 * that do not in `left`; false when no group remains. */
static bool next_group(packet_state *s, const mq_bvh *bvh, const mq_ray *rays, size_t groups, bool cull, mq_hit *hits,
                       bool *left, size_t *next)
{
    while (*next < groups) {
        size_t g = (*next)++;
        left[g] = !packet_start_rays(s, bvh, rays + 8 * g, cull, hits + 8 * g);
        if (!left[g])
            return true;
    }
    return false;
}

size_t mq_packet8_rays_avx2(const mq_bvh *bvh, const mq_ray *rays, size_t groups, bool cull, bool interleave,
                            mq_hit *hits, bool *left, mq_trace_counts *counts)
{
    const void *arena = bvh->arena;
    packet_entry stacks[MQ_PACKET_LANES][MQ_TRAVERSAL_STACK];
    packet_state lanes[MQ_PACKET_LANES];
    bool live[MQ_PACKET_LANES];
    int width = interleave ? MQ_PACKET_LANES : 1, alive = 0;
    size_t next = 0, hit = 0;
    for (int i = 0; i < width; i++) {
        lanes[i].stack = stacks[i];
        live[i] = next_group(&lanes[i], bvh, rays, groups, cull, hits, left, &next);
        alive += live[i];
    }
    while (alive > 0)
        for (int i = 0; i < width; i++) {
            if (!live[i] || packet_step(&lanes[i], arena, counts))
                continue;
            hit += packet_hits(&lanes[i].b, bvh, lanes[i].rays, lanes[i].hits);
            live[i] = next_group(&lanes[i], bvh, rays, groups, cull, hits, left, &next);
            alive -= !live[i];
        }
    return hit;
}
