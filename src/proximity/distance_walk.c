/*
 * The dual-hierarchy distance walk (distance_walk.h): nearest pair and every
 * pair within d, between two hierarchies mapped into a common frame.
 *
 * A pair of nodes is the unit of work. Each node box (a BVH child's AABB or
 * an OBB-tree box, in its mesh frame) is mapped into the common frame as a
 * parallelepiped: centre c and half-axis vectors e[0..2]. The lower bound of
 * the distance between two such nodes is the larger of
 *   - the distance between their enclosing common-frame AABBs
 *     (half extent ext[k] = sum_i |e[i][k]|), and
 *   - their gap along the line of centres u: |d| - sum_i |u.eA[i]| - sum_i |u.eB[i]|,
 * both exact for the mapped boxes up to double rounding. A pair is entered
 * while its bound does not exceed the current limit plus `slack`, which
 * covers the float rounding of mapped corners in the intersection decision
 * (a pair the float test puts at 0 may be a float ulp apart in double).
 *
 * Order: depth first; the node with the larger enclosing common-frame AABB
 * is split (a rotated box, loose there, goes down first);
 * in nearest mode its children go on the stack farthest first, so the
 * nearest is walked next and the first descent reaches a close leaf pair,
 * whose distance then prunes the rest. A leaf maps its triangles into the
 * common frame (double, plus float copies) and fits a box to them turned to
 * their mean normal; in the nearest-pair search that box stands for the leaf
 * in its bounds (thin where two surfaces face each other, where a rotated
 * AABB is not). Two leaves test every pair whose triangle boxes are close
 * enough.
 *
 * In the nearest-pair search a pair of two inner OBB-tree nodes is split on
 * both sides at once (expand_both): the descent to a leaf pair takes half the
 * steps for about as many bounds, and the four children pairs share their
 * mapped boxes.
 *
 * Splitting an OBB-tree node maps its two children and bounds them against
 * the other node at once, two lanes of SSE2 doubles; a double split maps the
 * four children and bounds the four pairs in the four lanes of AVX2
 * (distance_walk_avx2.c). The level is the ISA switch's (core/isa.h), read
 * once per walk; scalar builds and MQ_ISA=scalar run the scalar code. Each
 * lane computes every value by the same operations in the same order as the
 * scalar code, which the build keeps free of fused multiply-adds, so the walk
 * and its answers are the same bits at every level.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/isa.h"
#include "core/prefetch.h"
#include "kdoptree/kdoptree_internal.h"
#include "primitives/triangle_distance.h"
#include "proximity/distance_walk.h"
#include "proximity/distance_walk_avx2.h"
#include "proximity/distance_walk_internal.h"
#include "proximity/distance_walk_lanes.h"
#include "query/bvh_walk.h"
#include "spheretree/spheretree_internal.h"

#if defined(MQ_ISA_SIMD)
#include <emmintrin.h>
#endif

static inline double dmin(double a, double b)
{
    return a < b ? a : b;
}
static inline double dmax(double a, double b)
{
    return a > b ? a : b;
}

/* Stack: each split leaves at most 7 (BVH) or 1 (OBB tree) siblings per level of
 * either hierarchy (3 for a double split of two OBB-tree nodes, which goes down
 * a level of both), and both depths are bounded (bvh_layout.h, obbtree_internal.h). */
#define DW_STACK (2 * MQ_TRAVERSAL_STACK)

typedef struct dw_entry {
    mq_dw_handle a, b;
    double lb;
} dw_entry;

/* One of a side's recently mapped leaves: the walk pairs the same leaf with
 * many leaves of the other side, so it is mapped once for them. */
typedef struct dw_leaf {
    bool valid;
    uint32_t ref;
    int n;
    double lo[3], hi[3]; /* the union of the triangles' boxes */
    mq_dw_nbox box;      /* a box around the triangles, turned to their mean normal */
    mq_dw_tri t[MQ_DW_LEAF_MAX];
} dw_leaf;

/* Mapped leaves kept per side, direct-mapped by leaf reference: best-first
 * order returns to a leaf after others, so one leaf per side is often gone.
 * The depth-first walk (pairs within d) keeps one, its next leaf pair being
 * mostly the same leaf's. */
#define DW_LCACHE_BITS 3
#define DW_LCACHE (1 << DW_LCACHE_BITS)

/* Recently mapped node boxes of each side, direct-mapped by node reference: a
 * node is paired with many nodes of the other side, so its box is mapped once.
 * 256 per side: best first comes back to pairs after long descents, and with
 * 64 their boxes were often gone. */
#define DW_NCACHE_BITS 8
#define DW_NCACHE (1 << DW_NCACHE_BITS)

typedef struct dw_nslot {
    uint32_t ref;
    mq_dw_nbox box;
} dw_nslot;

/* The walk's state. Only the fields before `leaf` are cleared when a walk
 * starts (dw_start): the caches are big (tens of KB) and a walk often touches
 * a few of their entries, so their validity lives apart, in nvalid. */
typedef struct dw_walk {
    const mq_dist_side *sa, *sb;
    bool nvalid[2][DW_NCACHE];
    bool nearest;
    double bound; /* nearest: best distance so far (max_distance at the start); within: d */
    bool found;
    double abs_tol, rel_tol;
    double slack;
    mq_dist_pair best;
    mq_dist_pair_fn fn;
    void *user;
    size_t calls;
    bool stop;
    bool pair_map; /* map two OBB-tree children at once (SSE2: the ISA switch allows it) */
    bool quad_map; /* the double split in AVX2 (the ISA switch is at AVX2 or above) */
    dw_leaf leaf[2][DW_LCACHE];
    dw_nslot ncache[2][DW_NCACHE];
} dw_walk;

/* Clears the walk's state up to its caches, and marks the caches empty. */
static void dw_start(dw_walk *w)
{
    memset(w, 0, offsetof(dw_walk, leaf));
    for (int i = 0; i < DW_LCACHE; i++)
        w->leaf[0][i].valid = w->leaf[1][i].valid = false;
}

/* Largest lower bound a pair (of nodes or triangles) may have to be entered. */
static inline double dw_limit(const dw_walk *w)
{
    if (w->nearest && w->found)
        return (w->bound - w->abs_tol) / (1.0 + w->rel_tol) + w->slack;
    return w->bound + w->slack;
}

/* The skeleton of a k-DOP or sphere tree side, NULL for the others. */
static const mq_bvt *side_bvt(const mq_dist_side *s)
{
    return s->kdoptree ? &s->kdoptree->bvt : s->spheretree ? &s->spheretree->bvt : NULL;
}

bool mq_dw_side_ok(const mq_dist_side *s)
{
    if (!s || (s->bvh != NULL) + (s->obbtree != NULL) + (s->kdoptree != NULL) + (s->spheretree != NULL) != 1)
        return false;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            if (!isfinite(s->m[r][c]))
                return false;
    if (s->bvh)
        return s->bvh->root != MQ_REF_EMPTY;
    const mq_bvt *t = side_bvt(s);
    if (t)
        return t->node_count > 0;
    return s->obbtree->node_count > 0;
}

mq_dist_side mq_dw_side_ready(const mq_dist_side *s)
{
    mq_dist_side o = *s;
    o.identity = true;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            o.identity = o.identity && s->m[r][c] == (r == c ? 1.0 : 0.0);
    return o;
}

mq_dw_handle mq_dw_root(const mq_dist_side *s)
{
    mq_dw_handle h;
    if (s->bvh) {
        const float *rb = s->bvh->root_box;
        h.ref = s->bvh->root;
        for (int k = 0; k < 3; k++) {
            h.lo[k] = rb[2 * k];
            h.hi[k] = rb[2 * k + 1];
        }
    } else {
        h.ref = 0;
        for (int k = 0; k < 3; k++)
            h.lo[k] = h.hi[k] = 0.0f;
    }
    return h;
}

/* The local box of a k-DOP node (its axis slabs: the first three directions
 * are the axes) or of a sphere node's ball, as centre and half extents. */
static void bvt_box(const mq_dist_side *s, uint32_t node, double cl[3], double hl[3])
{
    if (s->kdoptree) {
        const mq_kdoptree *t = s->kdoptree;
        const float *sl = t->slabs + (size_t)node * t->k;
        for (int k = 0; k < 3; k++) {
            cl[k] = 0.5 * ((double)sl[k] + (double)sl[t->m + k]);
            hl[k] = 0.5 * ((double)sl[t->m + k] - (double)sl[k]);
        }
    } else {
        const float *b = s->spheretree->spheres + 4 * (size_t)node;
        for (int k = 0; k < 3; k++) {
            cl[k] = b[k];
            hl[k] = b[3]; /* -inf for a node without a finite corner: never entered */
        }
    }
}

void mq_dw_nbox_of(const mq_dist_side *s, const mq_dw_handle *h, mq_dw_nbox *o)
{
    const double(*m)[4] = s->m;
    if (s->identity && s->obbtree) {
        const mq_obbtree_node *n = &s->obbtree->nodes[h->ref];
        for (int i = 0; i < 3; i++) {
            o->c[i] = n->center[i];
            for (int r = 0; r < 3; r++)
                o->e[i][r] = (double)n->axes[i][r] * (double)n->half[i];
        }
    } else if (s->bvh || side_bvt(s)) {
        double cl[3], hl[3];
        if (s->bvh) {
            for (int k = 0; k < 3; k++) {
                cl[k] = 0.5 * ((double)h->lo[k] + (double)h->hi[k]);
                hl[k] = 0.5 * ((double)h->hi[k] - (double)h->lo[k]);
            }
        } else {
            bvt_box(s, h->ref, cl, hl);
        }
        for (int r = 0; r < 3; r++) {
            o->c[r] = s->identity ? cl[r] : m[r][0] * cl[0] + m[r][1] * cl[1] + m[r][2] * cl[2] + m[r][3];
            for (int i = 0; i < 3; i++)
                o->e[i][r] = s->identity ? (i == r ? hl[i] : 0.0) : m[r][i] * hl[i];
        }
    } else {
        const mq_obbtree_node *n = &s->obbtree->nodes[h->ref];
        for (int r = 0; r < 3; r++) {
            o->c[r] = m[r][0] * n->center[0] + m[r][1] * n->center[1] + m[r][2] * n->center[2] + m[r][3];
            for (int i = 0; i < 3; i++)
                o->e[i][r] =
                    (m[r][0] * n->axes[i][0] + m[r][1] * n->axes[i][1] + m[r][2] * n->axes[i][2]) * (double)n->half[i];
        }
    }
    mq_dw_nbox_finish(o);
}

static inline double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void mq_dw_nbox_finish(mq_dw_nbox *o)
{
    for (int r = 0; r < 3; r++)
        o->ext[r] = fabs(o->e[0][r]) + fabs(o->e[1][r]) + fabs(o->e[2][r]);
    double g01 = fabs(dot3(o->e[0], o->e[1])), g02 = fabs(dot3(o->e[0], o->e[2])), g12 = fabs(dot3(o->e[1], o->e[2]));
    double g[3] = {dot3(o->e[0], o->e[0]), dot3(o->e[1], o->e[1]), dot3(o->e[2], o->e[2])};
    o->self[0] = g[0] + g01 + g02;
    o->self[1] = g[1] + g01 + g12;
    o->self[2] = g[2] + g02 + g12;
    for (int i = 0; i < 3; i++)
        o->len2[i] = g[i];
    o->size = g[0] + g[1] + g[2];
}

/* Whether p / sqrt(len2) > limit, without the root (len2 > 0). */
static inline bool gap_above(double p, double limit, double len2)
{
    if (!(len2 > 0.0))
        return false;
    if (limit >= 0.0)
        return p > 0.0 && p * p > limit * limit * len2;
    return p >= 0.0 || p * p < limit * limit * len2;
}

/* A gap between boxes a and b (centres d = b.c - a.c apart) along one of their
 * half-axis directions that exceeds `limit`, or -INFINITY when none does;
 * da[i] = d.a.e[i], db[j] = d.b.e[j]. Along the unit direction u = e/|e|, box a
 * reaches sum_k |e.a.e[k]|/|e| from its centre and b likewise, so the gap
 * there is (|d.e| - sum_k |e.a.e[k]| - sum_k |e.b.e[k]|) / |e|. */
static double axis_gap(const mq_dw_nbox *a, const mq_dw_nbox *b, const double da[3], const double db[3], double limit)
{
    double x[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            x[i][j] = fabs(dot3(a->e[i], b->e[j]));
    for (int i = 0; i < 3; i++) {
        double p = fabs(da[i]) - a->self[i] - (x[i][0] + x[i][1] + x[i][2]);
        if (gap_above(p, limit, a->len2[i]))
            return p / sqrt(a->len2[i]);
    }
    for (int j = 0; j < 3; j++) {
        double p = fabs(db[j]) - b->self[j] - (x[0][j] + x[1][j] + x[2][j]);
        if (gap_above(p, limit, b->len2[j]))
            return p / sqrt(b->len2[j]);
    }
    return -INFINITY;
}

/* mq_dw_lower_bound; with `relative`, the value of two boxes that overlap along
 * the line of centres is that (negative) gap divided by the two boxes' reach
 * along it, in [-1, 0): the nearest-pair walk orders by it, and the relative
 * overlap finds an intersecting pair in fewer steps than the absolute one,
 * which prefers the big boxes near the roots. Only the order changes: a value
 * that is negative stays negative, so every comparison with a limit (>= 0)
 * keeps the same pairs. */
static inline double lower_bound(const mq_dw_nbox *a, const mq_dw_nbox *b, double limit, bool axes, bool relative)
{
    double d[3], g2 = 0.0;
    for (int k = 0; k < 3; k++) {
        d[k] = b->c[k] - a->c[k];
        double g = dmax(fabs(d[k]) - a->ext[k] - b->ext[k], 0.0); /* adding +0 keeps the sum: no branch */
        g2 += g * g;
    }
    double lb = sqrt(g2);
    if (lb > limit)
        return lb;
    double da[3], db[3];
    for (int i = 0; i < 3; i++) {
        da[i] = dot3(d, a->e[i]);
        db[i] = dot3(d, b->e[i]);
    }
    double l2 = dot3(d, d), res = lb;
    if (l2 > 0.0) {
        /* the gap along the line of centres u = d/|d|: |d| - sum |u.e| over both boxes */
        double l = sqrt(l2);
        double r = (fabs(da[0]) + fabs(da[1]) + fabs(da[2]) + fabs(db[0]) + fabs(db[1]) + fabs(db[2])) / l;
        /* overlapping boxes: the (negative) gap along the line of centres, so that
         * the deeper overlap is walked first (intersections are found sooner) */
        res = lb > 0.0 ? (l - r > lb ? l - r : lb) : l - r;
        if (relative && res < 0.0)
            res /= r; /* r > -res > 0 */
    }
    if (!axes || res > limit || limit == INFINITY)
        return res;
    double g = axis_gap(a, b, da, db, limit);
    return g > limit ? g : res;
}

double mq_dw_lower_bound(const mq_dw_nbox *a, const mq_dw_nbox *b, double limit, bool axes)
{
    return lower_bound(a, b, limit, axes, false);
}

bool mq_dw_is_leaf(const mq_dist_side *s, const mq_dw_handle *h)
{
    if (s->bvh)
        return mq_ref_is_leaf(h->ref);
    const mq_bvt *t = side_bvt(s);
    if (t)
        return mq_bvt_is_leaf(t->data[h->ref]);
    return mq_obbtree_node_is_leaf(&s->obbtree->nodes[h->ref]);
}

int mq_dw_children(const mq_dist_side *s, const mq_dw_handle *h, mq_dw_handle out[MQ_BVH_WIDTH])
{
    int n = 0;
    if (s->bvh) {
        const mq_node8 *node = mq_arena_node(s->bvh->arena, h->ref);
        for (int i = 0; i < MQ_BVH_WIDTH; i++) {
            if (node->child[i] == MQ_REF_EMPTY)
                continue;
            out[n].ref = node->child[i];
            mq_walk_child_box(node, i, s->bvh->inv_scale, out[n].lo, out[n].hi);
            n++;
        }
    } else if (side_bvt(s)) {
        out[0] = (mq_dw_handle){h->ref + 1, {0, 0, 0}, {0, 0, 0}};
        out[1] = (mq_dw_handle){side_bvt(s)->data[h->ref], {0, 0, 0}, {0, 0, 0}};
        n = 2;
    } else {
        const mq_obbtree_node *node = &s->obbtree->nodes[h->ref];
        out[0] = (mq_dw_handle){h->ref + 1, {0, 0, 0}, {0, 0, 0}};
        out[1] = (mq_dw_handle){node->data, {0, 0, 0}, {0, 0, 0}};
        n = 2;
    }
    return n;
}

/* Maps one local triangle into the common frame; false when a mapped corner is
 * not finite in double or in float. */
static bool map_triangle(const mq_dist_side *s, const mq_triangle *t, uint32_t id, mq_dw_tri *o)
{
    const double(*m)[4] = s->m;
    for (int v = 0; v < 3; v++)
        for (int r = 0; r < 3; r++) {
            double x = s->identity ? (double)t->v[v][r]
                                   : m[r][0] * t->v[v][0] + m[r][1] * t->v[v][1] + m[r][2] * t->v[v][2] + m[r][3];
            float f = (float)x;
            if (!isfinite(f))
                return false;
            o->d.v[v][r] = x;
            o->f.v[v][r] = f;
        }
    mq_td_tri_prepare(&o->d);
    for (int r = 0; r < 3; r++) {
        o->lo[r] = dmin(dmin(o->d.v[0][r], o->d.v[1][r]), o->d.v[2][r]);
        o->hi[r] = dmax(dmax(o->d.v[0][r], o->d.v[1][r]), o->d.v[2][r]);
        o->c[r] = (o->d.v[0][r] + o->d.v[1][r] + o->d.v[2][r]) * (1.0 / 3.0);
    }
    o->id = id;
    return true;
}

int mq_dw_leaf_triangles(const mq_dist_side *s, const mq_dw_handle *h, mq_dw_tri out[MQ_DW_LEAF_MAX])
{
    int n = 0;
    if (s->bvh) {
        const mq_tri_block *blk = mq_arena_leaf(s->bvh->arena, h->ref);
        uint32_t nb = mq_ref_block_count(h->ref);
        for (uint32_t b = 0; b < nb; b++)
            for (int lane = 0; lane < MQ_TRI_BLOCK; lane++) {
                mq_triangle t;
                if (mq_walk_block_triangle(s->bvh, &blk[b], lane, &t) && map_triangle(s, &t, blk[b].id[lane], &out[n]))
                    n++;
            }
    } else if (side_bvt(s)) {
        const mq_bvt *t = side_bvt(s);
        uint32_t d = t->data[h->ref], first = mq_bvt_first(d), end = first + mq_bvt_count(d);
        for (uint32_t k = first; k < end; k++)
            if (map_triangle(s, &t->tris[k], t->ids[k], &out[n]))
                n++;
    } else {
        const mq_obbtree_node *node = &s->obbtree->nodes[h->ref];
        uint32_t first = mq_obbtree_leaf_first(node), end = first + mq_obbtree_leaf_count(node);
        for (uint32_t k = first; k < end; k++)
            if (map_triangle(s, &s->obbtree->tris[k], s->obbtree->ids[k], &out[n]))
                n++;
    }
    return n;
}

double mq_dw_box_gap(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3])
{
    double g2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double g = dmax(dmax(alo[k] - bhi[k], blo[k] - ahi[k]), 0.0); /* adding +0 keeps the sum: no branch */
        g2 += g * g;
    }
    return sqrt(g2);
}

double mq_dw_magnitude(const mq_dw_nbox *a, const mq_dw_nbox *b)
{
    double m = 0.0;
    for (int k = 0; k < 3; k++) {
        m = dmax(m, fabs(a->c[k]) + a->ext[k]);
        m = dmax(m, fabs(b->c[k]) + b->ext[k]);
    }
    return m;
}

/* Offers one triangle pair at distance d to the walk. */
static void offer(dw_walk *w, const mq_dw_tri *ta, const mq_dw_tri *tb, double d, const double pa[3],
                  const double pb[3])
{
    if (w->nearest) {
        if (w->found ? !(d < w->bound) : !(d <= w->bound))
            return;
        w->found = true;
        w->bound = d;
        w->best.triangle_a = ta->id;
        w->best.triangle_b = tb->id;
        w->best.distance = d;
        for (int k = 0; k < 3; k++) {
            w->best.point_a[k] = pa[k];
            w->best.point_b[k] = pb[k];
        }
        if (d == 0.0)
            w->stop = true;
        return;
    }
    if (!(d <= w->bound))
        return;
    mq_dist_pair p;
    p.triangle_a = ta->id;
    p.triangle_b = tb->id;
    p.distance = d;
    for (int k = 0; k < 3; k++) {
        p.point_a[k] = pa[k];
        p.point_b[k] = pb[k];
    }
    w->calls++;
    if (!w->fn(&p, w->user))
        w->stop = true;
}

static void union_box(const mq_dw_tri *t, int n, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = t[0].lo[k];
        hi[k] = t[0].hi[k];
    }
    for (int i = 1; i < n; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = dmin(lo[k], t[i].lo[k]);
            hi[k] = dmax(hi[k], t[i].hi[k]);
        }
}

/* A box around a leaf's mapped triangles, its first axis their area-weighted mean
 * normal: a patch of a smooth surface is thin along it, so the box is much
 * tighter than the node's rotated AABB where two surfaces face each other.
 * Any orthonormal axes give a valid box; without a usable normal, the union box. */
static void leaf_box(const mq_dw_tri *t, int n, const double lo[3], const double hi[3], mq_dw_nbox *o)
{
    double ax[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            ax[0][k] += t[i].d.n[k];
    double l2 = dot3(ax[0], ax[0]);
    if (!(l2 > 0.0) || !isfinite(l2)) {
        for (int k = 0; k < 3; k++) {
            o->c[k] = 0.5 * (lo[k] + hi[k]);
            for (int i = 0; i < 3; i++)
                o->e[i][k] = i == k ? 0.5 * (hi[k] - lo[k]) : 0.0;
        }
        mq_dw_nbox_finish(o);
        return;
    }
    double il = 1.0 / sqrt(l2);
    for (int k = 0; k < 3; k++)
        ax[0][k] *= il;
    /* a second axis perpendicular to the first, off its smallest component */
    int m = fabs(ax[0][0]) < fabs(ax[0][1]) ? (fabs(ax[0][0]) < fabs(ax[0][2]) ? 0 : 2)
                                            : (fabs(ax[0][1]) < fabs(ax[0][2]) ? 1 : 2);
    double v[3] = {0, 0, 0};
    v[m] = 1.0;
    ax[1][0] = ax[0][1] * v[2] - ax[0][2] * v[1];
    ax[1][1] = ax[0][2] * v[0] - ax[0][0] * v[2];
    ax[1][2] = ax[0][0] * v[1] - ax[0][1] * v[0];
    il = 1.0 / sqrt(dot3(ax[1], ax[1]));
    for (int k = 0; k < 3; k++)
        ax[1][k] *= il;
    ax[2][0] = ax[0][1] * ax[1][2] - ax[0][2] * ax[1][1];
    ax[2][1] = ax[0][2] * ax[1][0] - ax[0][0] * ax[1][2];
    ax[2][2] = ax[0][0] * ax[1][1] - ax[0][1] * ax[1][0];
    double pmin[3] = {INFINITY, INFINITY, INFINITY}, pmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++)
        for (int v3 = 0; v3 < 3; v3++)
            for (int a = 0; a < 3; a++) {
                double p = dot3(ax[a], t[i].d.v[v3]);
                pmin[a] = dmin(pmin[a], p);
                pmax[a] = dmax(pmax[a], p);
            }
    for (int k = 0; k < 3; k++)
        o->c[k] = 0.0;
    for (int a = 0; a < 3; a++) {
        /* widened by a few ulps of the coordinates: the projections round */
        double h = 0.5 * (pmax[a] - pmin[a]) + 0x1p-50 * (fabs(pmax[a]) + fabs(pmin[a]));
        double mid = 0.5 * (pmax[a] + pmin[a]);
        for (int k = 0; k < 3; k++) {
            o->c[k] += mid * ax[a][k];
            o->e[a][k] = h * ax[a][k];
        }
    }
    mq_dw_nbox_finish(o);
}

/* A lower bound of the distance between two triangles: their gap along the line
 * of their centroids (any direction's gap is one; this one is tight for small
 * triangles far apart). Not positive when it says nothing. */
static double centroid_gap(const mq_dw_tri *a, const mq_dw_tri *b)
{
    double u[3] = {b->c[0] - a->c[0], b->c[1] - a->c[1], b->c[2] - a->c[2]};
    double l2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    if (!(l2 > 0.0))
        return 0.0;
    double amax = -INFINITY, bmin = INFINITY;
    for (int v = 0; v < 3; v++) {
        double x = u[0] * a->d.v[v][0] + u[1] * a->d.v[v][1] + u[2] * a->d.v[v][2];
        double y = u[0] * b->d.v[v][0] + u[1] * b->d.v[v][1] + u[2] * b->d.v[v][2];
        amax = dmax(amax, x);
        bmin = dmin(bmin, y);
    }
    return (bmin - amax) / sqrt(l2);
}

/* The indices of the triangles within `limit` of the box [lo, hi]; returns their number. */
static int keep_near(const mq_dw_tri *t, int n, const double lo[3], const double hi[3], double limit,
                     int idx[MQ_DW_LEAF_MAX])
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!(mq_dw_box_gap(t[i].lo, t[i].hi, lo, hi) > limit))
            idx[m++] = i;
    return m;
}

/* The mapped triangles of leaf h of side `side` (0: a, 1: b), from the cache when it holds them. */
static const dw_leaf *leaf_of(dw_walk *w, int side, const mq_dw_handle *h)
{
    dw_leaf *c = &w->leaf[side][w->nearest ? (h->ref * 2654435761u) >> (32 - DW_LCACHE_BITS) : 0];
    if (c->valid && c->ref == h->ref)
        return c;
    c->valid = true;
    c->ref = h->ref;
    c->n = mq_dw_leaf_triangles(side ? w->sb : w->sa, h, c->t);
    if (c->n > 0) {
        union_box(c->t, c->n, c->lo, c->hi);
        if (w->nearest) /* the fitted box: see expand */
            leaf_box(c->t, c->n, c->lo, c->hi, &c->box);
    }
    return c;
}

static void leaf_pair(dw_walk *w, const mq_dw_handle *ha, const mq_dw_handle *hb)
{
    const dw_leaf *la = leaf_of(w, 0, ha);
    if (la->n == 0)
        return;
    const dw_leaf *lb = leaf_of(w, 1, hb);
    if (lb->n == 0)
        return;
    /* keep the triangles near the other leaf's triangles at all (big BVH leaves) */
    int ia[MQ_DW_LEAF_MAX], ib[MQ_DW_LEAF_MAX];
    double limit0 = dw_limit(w);
    if (w->nearest && mq_dw_lower_bound(&la->box, &lb->box, limit0, true) > limit0)
        return;
    int na = keep_near(la->t, la->n, lb->lo, lb->hi, limit0, ia);
    int nb = keep_near(lb->t, lb->n, la->lo, la->hi, limit0, ib);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            const mq_dw_tri *ta = &la->t[ia[i]], *tb = &lb->t[ib[j]];
            double limit = dw_limit(w);
            if (mq_dw_box_gap(ta->lo, ta->hi, tb->lo, tb->hi) > limit || centroid_gap(ta, tb) > limit ||
                mq_td_triangle_lower_bound(&ta->d, &tb->d) > limit)
                continue;
            double pa[3], pb[3];
            double d = mq_td_triangle_triangle(&ta->d, &ta->f, &tb->d, &tb->f, pa, pb);
            offer(w, ta, tb, d, pa, pb);
            if (w->stop)
                return;
        }
}

/* Node h of side `side` (0: a, 1: b) mapped into the common frame, from the cache when it holds it. */
static const mq_dw_nbox *nbox_cached(dw_walk *w, int side, const mq_dw_handle *h)
{
    uint32_t slot = (h->ref * 2654435761u) >> (32 - DW_NCACHE_BITS);
    dw_nslot *c = &w->ncache[side][slot];
    if (!w->nvalid[side][slot] || c->ref != h->ref) {
        w->nvalid[side][slot] = true;
        c->ref = h->ref;
        mq_dw_nbox_of(side ? w->sb : w->sa, h, &c->box);
    }
    return &c->box;
}

#if defined(MQ_ISA_SIMD)
/* Loads floats 0 and 1 of x and y as doubles, lane 0 from x: [x0, y0] in *lo,
 * [x1, y1] in *hi. */
static inline void cvt2(__m128 x, __m128 y, __m128d *lo, __m128d *hi)
{
    __m128 t = _mm_unpacklo_ps(x, y);
    *lo = _mm_cvtps_pd(t);
    *hi = _mm_cvtps_pd(_mm_movehl_ps(t, t));
}

static inline __m128d dot3x2(const __m128d a[3], const __m128d b[3])
{
    return _mm_add_pd(_mm_add_pd(_mm_mul_pd(a[0], b[0]), _mm_mul_pd(a[1], b[1])), _mm_mul_pd(a[2], b[2]));
}

/* Two node boxes in the common frame, lane by lane (mq_dw_nbox's fields). */
typedef struct dw_nbox2 {
    __m128d c[3], e[3][3], ext[3], len2[3], self[3];
} dw_nbox2;

static inline __m128d abs2(__m128d x)
{
    return _mm_andnot_pd(_mm_set1_pd(-0.0), x);
}

/* Where m is set, x; elsewhere y. */
static inline __m128d pick2(__m128d m, __m128d x, __m128d y)
{
    return _mm_or_pd(_mm_and_pd(m, x), _mm_andnot_pd(m, y));
}

/* OBB-tree nodes p (lane 0) and q (lane 1) of side s mapped into the common
 * frame at once, into *op, *oq and the packed *o: mq_dw_nbox_of and
 * mq_dw_nbox_finish lane by lane, each value by the same operations in the
 * same order (no fused multiply-add), so the boxes are the same bits as the
 * scalar code's. */
_Static_assert(offsetof(mq_obbtree_node, center) == 0 && offsetof(mq_obbtree_node, half) == 3 * sizeof(float) &&
                   offsetof(mq_obbtree_node, axes) == 6 * sizeof(float) &&
                   offsetof(mq_obbtree_node, data) == 15 * sizeof(float),
               "nbox_of_obb2 reads a node as 16 floats");

static void nbox_of_obb2(const mq_dist_side *s, uint32_t p, uint32_t q, mq_dw_nbox *op, mq_dw_nbox *oq, dw_nbox2 *o)
{
    const float *fp = (const float *)&s->obbtree->nodes[p], *fq = (const float *)&s->obbtree->nodes[q];
    /* the node's first 15 floats: center[3], half[3], axes[3][3] (row by row);
     * the 16th, the data word, is loaded but not converted */
    __m128d v[16];
    for (int k = 0; k < 4; k++) {
        __m128 x = _mm_loadu_ps(fp + 4 * k), y = _mm_loadu_ps(fq + 4 * k);
        cvt2(x, y, &v[4 * k], &v[4 * k + 1]);
        x = _mm_movehl_ps(x, x);
        y = _mm_movehl_ps(y, y);
        if (k < 3)
            cvt2(x, y, &v[4 * k + 2], &v[4 * k + 3]);
        else
            v[14] = _mm_cvtps_pd(_mm_unpacklo_ps(x, y));
    }
    const __m128d *cen = v, *half = v + 3, *ax = v + 6; /* ax[3 * i + j]: axes[i][j] */
    const __m128d sign = _mm_set1_pd(-0.0);
    __m128d c[3], e[3][3];
    for (int r = 0; r < 3 && s->identity; r++) { /* as mq_dw_nbox_of: the same values */
        c[r] = cen[r];
        for (int i = 0; i < 3; i++)
            e[i][r] = _mm_mul_pd(ax[3 * i + r], half[i]);
    }
    for (int r = 0; r < 3 && !s->identity; r++) {
        __m128d m0 = _mm_set1_pd(s->m[r][0]), m1 = _mm_set1_pd(s->m[r][1]), m2 = _mm_set1_pd(s->m[r][2]);
        c[r] =
            _mm_add_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(m0, cen[0]), _mm_mul_pd(m1, cen[1])), _mm_mul_pd(m2, cen[2])),
                       _mm_set1_pd(s->m[r][3]));
        for (int i = 0; i < 3; i++)
            e[i][r] = _mm_mul_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(m0, ax[3 * i]), _mm_mul_pd(m1, ax[3 * i + 1])),
                                            _mm_mul_pd(m2, ax[3 * i + 2])),
                                 half[i]);
    }
    __m128d ext[3];
    for (int r = 0; r < 3; r++)
        ext[r] = _mm_add_pd(_mm_add_pd(_mm_andnot_pd(sign, e[0][r]), _mm_andnot_pd(sign, e[1][r])),
                            _mm_andnot_pd(sign, e[2][r]));
    __m128d g01 = _mm_andnot_pd(sign, dot3x2(e[0], e[1])), g02 = _mm_andnot_pd(sign, dot3x2(e[0], e[2])),
            g12 = _mm_andnot_pd(sign, dot3x2(e[1], e[2]));
    __m128d g[3] = {dot3x2(e[0], e[0]), dot3x2(e[1], e[1]), dot3x2(e[2], e[2])};
    __m128d self[3] = {_mm_add_pd(_mm_add_pd(g[0], g01), g02), _mm_add_pd(_mm_add_pd(g[1], g01), g12),
                       _mm_add_pd(_mm_add_pd(g[2], g02), g12)};
    __m128d size = _mm_add_pd(_mm_add_pd(g[0], g[1]), g[2]);
    for (int r = 0; r < 3; r++) {
        _mm_storel_pd(&op->c[r], c[r]);
        _mm_storeh_pd(&oq->c[r], c[r]);
        _mm_storel_pd(&op->ext[r], ext[r]);
        _mm_storeh_pd(&oq->ext[r], ext[r]);
        _mm_storel_pd(&op->len2[r], g[r]);
        _mm_storeh_pd(&oq->len2[r], g[r]);
        _mm_storel_pd(&op->self[r], self[r]);
        _mm_storeh_pd(&oq->self[r], self[r]);
        for (int i = 0; i < 3; i++) {
            _mm_storel_pd(&op->e[i][r], e[i][r]);
            _mm_storeh_pd(&oq->e[i][r], e[i][r]);
        }
    }
    _mm_storel_pd(&op->size, size);
    _mm_storeh_pd(&oq->size, size);
    for (int r = 0; r < 3; r++) {
        o->c[r] = c[r];
        o->ext[r] = ext[r];
        o->len2[r] = g[r];
        o->self[r] = self[r];
        for (int i = 0; i < 3; i++)
            o->e[i][r] = e[i][r];
    }
}

/* Every field of *o, in both lanes: the same field of box b when b is given,
 * else lane `lane` of *p (one list of the fields for both uses below). */
static inline void nbox2_fill(dw_nbox2 *o, const mq_dw_nbox *b, const dw_nbox2 *p, int lane)
{
#define MQ_DW_FIELD(f) (b ? _mm_set1_pd(b->f) : lane ? _mm_unpackhi_pd(p->f, p->f) : _mm_unpacklo_pd(p->f, p->f))
    for (int r = 0; r < 3; r++) {
        o->c[r] = MQ_DW_FIELD(c[r]);
        o->ext[r] = MQ_DW_FIELD(ext[r]);
        o->len2[r] = MQ_DW_FIELD(len2[r]);
        o->self[r] = MQ_DW_FIELD(self[r]);
        for (int i = 0; i < 3; i++)
            o->e[i][r] = MQ_DW_FIELD(e[i][r]);
    }
#undef MQ_DW_FIELD
}

/* One box in both lanes. */
static void nbox_bcast(const mq_dw_nbox *b, dw_nbox2 *o)
{
    nbox2_fill(o, b, NULL, 0);
}

/* Lane `lane` of *p in both lanes of *o. */
static void nbox2_lane(const dw_nbox2 *p, int lane, dw_nbox2 *o)
{
    nbox2_fill(o, NULL, p, lane);
}

/* lower_bound for two pairs of boxes at once (lane i: a's lane i against b's
 * lane i), by the same operations in the same order, so each lane makes the
 * same decision and a kept pair gets the same value. Returns the lanes whose
 * pair is kept (bit i: lane i; its value in out[i]); a pruned lane's value is
 * not given. */
static int lower_bound2(const dw_nbox2 *a, const dw_nbox2 *b, double limit, bool axes, bool relative, double out[2])
{
    const __m128d zero = _mm_setzero_pd(), lim = _mm_set1_pd(limit);
    __m128d d[3], g2 = zero;
    for (int k = 0; k < 3; k++) {
        d[k] = _mm_sub_pd(b->c[k], a->c[k]);
        __m128d g = _mm_sub_pd(_mm_sub_pd(abs2(d[k]), a->ext[k]), b->ext[k]);
        g = _mm_and_pd(_mm_cmpgt_pd(g, zero), g); /* adding +0 for g <= 0 keeps the sum's bits */
        g2 = _mm_add_pd(g2, _mm_mul_pd(g, g));
    }
    __m128d lb = _mm_sqrt_pd(g2);
    __m128d pruned = _mm_cmpgt_pd(lb, lim);
    if (_mm_movemask_pd(pruned) == 3)
        return 0;
    __m128d da[3], db[3];
    for (int i = 0; i < 3; i++) {
        da[i] = dot3x2(d, a->e[i]);
        db[i] = dot3x2(d, b->e[i]);
    }
    __m128d l2 = dot3x2(d, d), l = _mm_sqrt_pd(l2);
    __m128d sum = _mm_add_pd(
        _mm_add_pd(_mm_add_pd(_mm_add_pd(_mm_add_pd(abs2(da[0]), abs2(da[1])), abs2(da[2])), abs2(db[0])), abs2(db[1])),
        abs2(db[2]));
    __m128d r = _mm_div_pd(sum, l); /* inf or NaN where l2 == 0: not picked below */
    __m128d lr = _mm_sub_pd(l, r);
    __m128d res = pick2(_mm_cmpgt_pd(lb, zero), pick2(_mm_cmpgt_pd(lr, lb), lr, lb), lr);
    if (relative)
        res = pick2(_mm_cmplt_pd(res, zero), _mm_div_pd(res, r), res);
    res = pick2(_mm_cmpgt_pd(l2, zero), res, lb);
    pruned = _mm_or_pd(pruned, _mm_cmpgt_pd(res, lim));
    int kept = ~_mm_movemask_pd(pruned) & 3;
    _mm_storel_pd(&out[0], res);
    _mm_storeh_pd(&out[1], res);
    if (!kept || !axes || limit == INFINITY)
        return kept;
    /* the six axes of axis_gap: whether each one's gap is above the limit */
    __m128d x[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            x[i][j] = abs2(dot3x2(a->e[i], b->e[j]));
    union { /* the six axes' values, read lane by lane at the end */
        __m128d v[6];
        double d[12];
    } p, len2;
    int above[6];
    const __m128d ll = _mm_mul_pd(lim, lim);
    int any = 0;
    for (int t = 0; t < 6; t++) {
        int i = t % 3;
        if (t < 3) {
            p.v[t] = _mm_sub_pd(_mm_sub_pd(abs2(da[i]), a->self[i]), _mm_add_pd(_mm_add_pd(x[i][0], x[i][1]), x[i][2]));
            len2.v[t] = a->len2[i];
        } else {
            p.v[t] = _mm_sub_pd(_mm_sub_pd(abs2(db[i]), b->self[i]), _mm_add_pd(_mm_add_pd(x[0][i], x[1][i]), x[2][i]));
            len2.v[t] = b->len2[i];
        }
        __m128d pp = _mm_mul_pd(p.v[t], p.v[t]), lr2 = _mm_mul_pd(ll, len2.v[t]), m;
        if (limit >= 0.0)
            m = _mm_and_pd(_mm_cmpgt_pd(p.v[t], zero), _mm_cmpgt_pd(pp, lr2));
        else
            m = _mm_or_pd(_mm_cmpge_pd(p.v[t], zero), _mm_cmplt_pd(pp, lr2));
        above[t] = _mm_movemask_pd(_mm_and_pd(m, _mm_cmpgt_pd(len2.v[t], zero)));
        any |= above[t];
    }
    if (!(any & kept))
        return kept;
    return mq_dw_lanes_axis_prune(kept, any, above, p.d, len2.d, 2, limit);
}
#endif

int mq_dw_obb_kids_bound(const mq_dist_side *s, const mq_dw_handle kids[2], const mq_dw_nbox *a, double limit,
                         mq_dw_nbox out[2], double lb[2])
{
#if defined(MQ_ISA_SIMD)
    if (mq_isa_active() >= MQ_ISA_SSE2) {
        dw_nbox2 kp, ap;
        nbox_of_obb2(s, kids[0].ref, kids[1].ref, &out[0], &out[1], &kp);
        nbox_bcast(a, &ap);
        return lower_bound2(&ap, &kp, limit, true, false, lb);
    }
#endif
    int kept = 0;
    for (int i = 0; i < 2; i++) {
        mq_dw_nbox_of(s, &kids[i], &out[i]);
        lb[i] = lower_bound(a, &out[i], limit, true, false);
        kept |= !(lb[i] > limit) << i;
    }
    return kept;
}

/* Maps both children of an OBB-tree node into side `side`'s cache, and into *o,
 * at once when neither is there and they take different slots; false
 * otherwise (nbox_cached then maps them one by one). */
#if defined(MQ_ISA_SIMD)
static bool nbox_cache_pair(dw_walk *w, int side, const mq_dw_handle kids[2], dw_nbox2 *o)
{
    uint32_t s0 = (kids[0].ref * 2654435761u) >> (32 - DW_NCACHE_BITS);
    uint32_t s1 = (kids[1].ref * 2654435761u) >> (32 - DW_NCACHE_BITS);
    bool *valid = w->nvalid[side];
    dw_nslot *c = w->ncache[side];
    if (s0 == s1 || (valid[s0] && c[s0].ref == kids[0].ref) || (valid[s1] && c[s1].ref == kids[1].ref))
        return false;
    valid[s0] = valid[s1] = true;
    c[s0].ref = kids[0].ref;
    c[s1].ref = kids[1].ref;
    nbox_of_obb2(side ? w->sb : w->sa, kids[0].ref, kids[1].ref, &c[s0].box, &c[s1].box, o);
    return true;
}
#endif

/* Starts loading the nodes that splitting OBB-tree node h will read (its two
 * children): a kept pair is often split soon after, and over large trees
 * those loads miss the cache. Other hierarchies: nothing. */
static inline void prefetch_split(const mq_dist_side *s, const mq_dw_handle *h)
{
    if (!s->obbtree)
        return;
    const mq_obbtree_node *n = &s->obbtree->nodes[h->ref];
    if (!mq_obbtree_node_is_leaf(n)) {
        mq_prefetch(n + 1);
        mq_prefetch(&s->obbtree->nodes[n->data]);
    }
}

/* Adds the pair of child `kid` (of side a when split_a, else b) and the other
 * node of e, of bound l, to the n pairs in ke (nearest mode: sorted farthest
 * first, so the nearest is popped next). */
static inline void keep_kid(const dw_walk *w, const dw_entry *e, bool split_a, const mq_dw_handle *kid, double l,
                            dw_entry *ke, int *n)
{
    prefetch_split(split_a ? w->sa : w->sb, kid);
    dw_entry x = split_a ? (dw_entry){*kid, e->b, l} : (dw_entry){e->a, *kid, l};
    int j = (*n)++;
    if (w->nearest)
        while (j > 0 && ke[j - 1].lb < l) {
            ke[j] = ke[j - 1];
            j--;
        }
    ke[j] = x;
}

/* Adds the pair (ha, hb) of bound l to the n pairs in ke, as keep_kid. */
static inline void keep_both(const dw_walk *w, const mq_dw_handle *ha, const mq_dw_handle *hb, double l, dw_entry *ke,
                             int *n)
{
    prefetch_split(w->sa, ha);
    prefetch_split(w->sb, hb);
    dw_entry x = {*ha, *hb, l};
    int j = (*n)++;
    if (w->nearest)
        while (j > 0 && ke[j - 1].lb < l) {
            ke[j] = ke[j - 1];
            j--;
        }
    ke[j] = x;
}

/* Nearest pair, both nodes inner OBB-tree nodes: both are split, and the four
 * children pairs bounded in the order (a0, b0), (a0, b1), (a1, b0), (a1, b1).
 * Half the splits of splitting one side at a time for about as many bounds
 * (the descent to a leaf pair goes down both trees at once), and the four
 * bounds share two mapped pairs of children. Pairs within d (depth first)
 * keep splitting one side, so their order of pairs stays as documented. */
static int expand_both(dw_walk *w, const dw_entry *e, dw_entry ke[MQ_BVH_WIDTH])
{
    mq_dw_handle ka[MQ_BVH_WIDTH], kb[MQ_BVH_WIDTH];
    mq_dw_children(w->sa, &e->a, ka);
    mq_dw_children(w->sb, &e->b, kb);
    double limit = dw_limit(w);
    bool axes = !w->found;
    int n = 0;
#if defined(MQ_ISA_SIMD)
    if (w->quad_map) {
        uint32_t ia[2], ib[2], sl[4];
        for (int i = 0; i < 2; i++) {
            ia[i] = ka[i].ref;
            ib[i] = kb[i].ref;
            sl[i] = (ia[i] * 2654435761u) >> (32 - DW_NCACHE_BITS);
            sl[2 + i] = (ib[i] * 2654435761u) >> (32 - DW_NCACHE_BITS);
        }
        if (sl[0] != sl[1] && sl[2] != sl[3]) {
            mq_dw_nbox *out[4];
            for (int k = 0; k < 4; k++) {
                int side = k >> 1;
                w->nvalid[side][sl[k]] = true;
                w->ncache[side][sl[k]].ref = side ? ib[k & 1] : ia[k & 1];
                out[k] = &w->ncache[side][sl[k]].box;
            }
            double lv[4];
            int kept = mq_dw_split_both_avx2(w->sa, w->sb, ia, ib, out, limit, axes, lv);
            for (int q = 0; q < 4; q++)
                if (kept & (1 << q))
                    keep_both(w, &ka[q >> 1], &kb[q & 1], lv[q], ke, &n);
            return n;
        }
    }
    dw_nbox2 pa, pb, ai;
    if (w->pair_map && nbox_cache_pair(w, 0, ka, &pa) && nbox_cache_pair(w, 1, kb, &pb)) {
        for (int i = 0; i < 2; i++) {
            double lv[2];
            nbox2_lane(&pa, i, &ai);
            int kept = lower_bound2(&ai, &pb, limit, axes, true, lv);
            for (int j = 0; j < 2; j++)
                if (kept & (1 << j))
                    keep_both(w, &ka[i], &kb[j], lv[j], ke, &n);
        }
        return n;
    }
#endif
    mq_dw_nbox ba[2]; /* copies: the children's slots may be the same */
    for (int i = 0; i < 2; i++)
        ba[i] = *nbox_cached(w, 0, &ka[i]);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double l = lower_bound(&ba[i], nbox_cached(w, 1, &kb[j]), limit, axes, true);
            if (!(l > limit))
                keep_both(w, &ka[i], &kb[j], l, ke, &n);
        }
    return n;
}

/* The children pairs of node pair e that may hold a pair within the limit, in
 * ke (nearest mode: sorted farthest first); a leaf pair is measured at once.
 * Returns their number. */
static int expand(dw_walk *w, const dw_entry *e, dw_entry ke[MQ_BVH_WIDTH])
{
    bool la = mq_dw_is_leaf(w->sa, &e->a), lb = mq_dw_is_leaf(w->sb, &e->b);
    if (la && lb) {
        leaf_pair(w, &e->a, &e->b);
        return 0;
    }
    if (w->nearest && !la && !lb && w->sa->obbtree && w->sb->obbtree)
        return expand_both(w, e, ke);
    const mq_dw_nbox *na = nbox_cached(w, 0, &e->a), *nb = nbox_cached(w, 1, &e->b);
    /* split the node whose enclosing common-frame AABB is larger: a box rotated
     * into the common frame bounds loosely, so its side goes down first */
    bool split_a = lb || (!la && dot3(na->ext, na->ext) >= dot3(nb->ext, nb->ext));
    const mq_dw_nbox *other = split_a ? nb : na; /* the kids' cache is the other side's */
    if (w->nearest && (split_a ? lb : la)) {
        /* the unsplit side is a leaf: its triangles' box is tighter than its node
         * box. Nearest mode only: pairs within d (clash) mostly touch or
         * intersect, and there mapping leaves early costs more than it prunes. */
        const dw_leaf *l = leaf_of(w, split_a ? 1 : 0, split_a ? &e->b : &e->a);
        if (l->n == 0)
            return 0;
        other = &l->box;
    }
    mq_dw_handle kids[MQ_BVH_WIDTH];
    int nk = mq_dw_children(split_a ? w->sa : w->sb, split_a ? &e->a : &e->b, kids);
    int n = 0;
    double limit = dw_limit(w);
    /* the separating axes pay while the limit is the caller's d (clash, pairs
     * within d); once a nearest pair is known they seldom prune more, except
     * against a leaf's fitted box, whose normal often separates the pair */
    bool axes = !(w->nearest && w->found) || other != (split_a ? nb : na);
#if defined(MQ_ISA_SIMD)
    dw_nbox2 kp, op;
    if (w->pair_map && (split_a ? w->sa : w->sb)->obbtree && nbox_cache_pair(w, split_a ? 0 : 1, kids, &kp)) {
        /* both children mapped at once: their bounds at once too */
        double lv[2];
        nbox_bcast(other, &op);
        int kept = split_a ? lower_bound2(&kp, &op, limit, axes, w->nearest, lv)
                           : lower_bound2(&op, &kp, limit, axes, w->nearest, lv);
        for (int i = 0; i < 2; i++)
            if (kept & (1 << i))
                keep_kid(w, e, split_a, &kids[i], lv[i], ke, &n);
        return n;
    }
#endif
    for (int i = 0; i < nk; i++) {
        const mq_dw_nbox *kb = nbox_cached(w, split_a ? 0 : 1, &kids[i]);
        double l =
            split_a ? lower_bound(kb, other, limit, axes, w->nearest) : lower_bound(other, kb, limit, axes, w->nearest);
        if (!(l > limit))
            keep_kid(w, e, split_a, &kids[i], l, ke, &n);
    }
    return n;
}

/* Depth first from one pair, on the caller's stack of DW_STACK entries. */
static void dfs(dw_walk *w, dw_entry start, dw_entry *stack)
{
    int top = 0;
    stack[top++] = start;
    while (top > 0 && !w->stop) {
        dw_entry e = stack[--top];
        if (e.lb > dw_limit(w))
            continue;
        top += expand(w, &e, &stack[top]);
    }
}

/* Pairs waiting in the nearest-pair search's heap; beyond it, a pair is walked depth first at once. */
#define DW_HEAP 256

static void heap_push(dw_entry *h, int *n, dw_entry x)
{
    int i = (*n)++;
    while (i > 0 && h[(i - 1) / 2].lb > x.lb) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

static dw_entry heap_pop(dw_entry *h, int *n)
{
    dw_entry top = h[0], x = h[--*n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].lb < h[c].lb)
            c++;
        if (!(h[c].lb < x.lb))
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0)
        h[i] = x;
    return top;
}

/* Nearest pair: best first with greedy descents. From the waiting pair of
 * smallest lower bound, descend to a leaf pair by the nearest children (the
 * siblings wait in the heap), then take the next waiting pair. The first
 * descent gives an upper bound (or an intersection) early; best first then
 * splits only pairs whose bound is below the answer. When the heap is full,
 * the surplus pairs are walked depth first. */
static void best_first(dw_walk *w, dw_entry root, dw_entry *stack)
{
    dw_entry heap[DW_HEAP];
    int n = 0;
    bool descending = true;
    dw_entry e = root;
    while (!w->stop) {
        if (!descending) {
            if (n == 0)
                break;
            e = heap_pop(heap, &n);
            if (e.lb > dw_limit(w))
                break; /* every other waiting pair is at least as far */
        }
        dw_entry ke[MQ_BVH_WIDTH];
        int nk = expand(w, &e, ke);
        descending = nk > 0;
        if (descending)
            e = ke[--nk];
        for (int i = nk - 1; i >= 0 && !w->stop; i--) {
            if (n < DW_HEAP)
                heap_push(heap, &n, ke[i]);
            else
                dfs(w, ke[i], stack);
        }
        if (descending && e.lb > dw_limit(w))
            descending = false; /* a pair walked depth first just now may have lowered the bound */
    }
}

static void walk(dw_walk *w)
{
#if defined(MQ_ISA_SIMD)
    w->pair_map = mq_isa_active() >= MQ_ISA_SSE2;
    w->quad_map = mq_isa_active() >= MQ_ISA_AVX2;
#endif
    dw_entry stack[DW_STACK];
    mq_dw_nbox ra, rb;
    mq_dw_handle ha = mq_dw_root(w->sa), hb = mq_dw_root(w->sb);
    mq_dw_nbox_of(w->sa, &ha, &ra);
    mq_dw_nbox_of(w->sb, &hb, &rb);
    /* the float rounding of mapped corners (< 2^-23 of the magnitude per coordinate) */
    w->slack = 0x1p-21 * mq_dw_magnitude(&ra, &rb) + 1e-300;
    double limit = dw_limit(w);
    dw_entry root = {ha, hb, mq_dw_lower_bound(&ra, &rb, limit, true)};
    if (root.lb > limit)
        return; /* nothing within the limit (clash: the instances' root boxes are apart) */
    if (w->nearest)
        best_first(w, root, stack);
    else
        dfs(w, root, stack);
}

static bool tol_ok(double x)
{
    return x >= 0.0 && isfinite(x);
}

bool mq_dist_walk_nearest(const mq_dist_side *a, const mq_dist_side *b, double max_distance, double abs_tol,
                          double rel_tol, mq_dist_pair *out)
{
    if (!mq_dw_side_ok(a) || !mq_dw_side_ok(b) || !(max_distance >= 0.0) || !tol_ok(abs_tol) || !tol_ok(rel_tol))
        return false;
    mq_dist_side ra = mq_dw_side_ready(a), rb = mq_dw_side_ready(b);
    dw_walk w;
    dw_start(&w);
    w.sa = &ra;
    w.sb = &rb;
    w.nearest = true;
    w.bound = max_distance;
    w.abs_tol = abs_tol;
    w.rel_tol = rel_tol;
    walk(&w);
    if (w.found && out)
        *out = w.best;
    return w.found;
}

size_t mq_dist_walk_within(const mq_dist_side *a, const mq_dist_side *b, double d, mq_dist_pair_fn fn, void *user)
{
    if (!fn || !mq_dw_side_ok(a) || !mq_dw_side_ok(b) || !(d >= 0.0))
        return 0;
    mq_dist_side ra = mq_dw_side_ready(a), rb = mq_dw_side_ready(b);
    dw_walk w;
    dw_start(&w);
    w.sa = &ra;
    w.sb = &rb;
    w.nearest = false;
    w.bound = d;
    w.fn = fn;
    w.user = user;
    walk(&w);
    return w.calls;
}
