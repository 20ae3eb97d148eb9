/*
 * Closest-point walks of the scene (instance_closest.c): branch and bound on
 * the 8-wide BVH and on the OBB tree, nearest node first, where the bound is
 * a WORLD distance while the hierarchy is local.
 *
 * The query point p is given in the instance's local frame (double). For an
 * affine map world = A x + t with |A x| >= sigma_min |x|, every point of a
 * node box B satisfies |A (y - p)| >= sigma_min * dist(p, B), so
 *     world distance of anything in B >= sigma_min * dist_local(p, B).
 * A node (or a triangle, by its local box) is skipped when
 *     sigma_min * dist_local(p, B) - slack > *bound,
 * with *bound the current best world distance, RE-READ after every visit (the
 * visitor shrinks it), and `slack` covering the rounding of the exact test
 * the visitor runs (instance_closest.c). Ties (equal bound) are still entered:
 * they may hold a smaller triangle id. Distances are in double.
 *
 * Visitors get the triangle's id and local corners (bvh_walk.h explains where
 * the corners come from). Always inlined, fixed stacks, no allocation.
 */
#ifndef MQ_QUERY_CLOSEST_WALK_H
#define MQ_QUERY_CLOSEST_WALK_H

#include "core/minmax.h"
#include "query/bvh_walk.h"

typedef void (*mq_closest_tri_visit)(uint32_t id, const mq_triangle *tri, void *ctx);

/* The pruning rule: how far (squared, local) a box may be and still be entered. */
typedef struct mq_closest_prune {
    const double *bound; /* current best world distance (may be INFINITY) */
    double sigma_min;    /* world length per local length, a lower bound (> 0) */
    double slack;        /* world distance the visitor's rounding may lose */
} mq_closest_prune;

/* Largest squared local distance a box may have to be entered, for the current bound. */
static inline double mq_closest_limit2(const mq_closest_prune *pr)
{
    double b = (*pr->bound + pr->slack) / pr->sigma_min;
    return b * b * (1.0 + 1e-12);
}

static inline double mq_box_dist2_d(const double p[3], const float lo[3], const float hi[3])
{
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double e = mq_max(mq_max((double)lo[k] - p[k], p[k] - (double)hi[k]), 0.0);
        d2 += e * e;
    }
    return d2;
}

static inline double mq_tri_dist2_lb(const double p[3], const mq_triangle *t)
{
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = mq_minf(mq_minf(t->v[0][k], t->v[1][k]), t->v[2][k]);
        hi[k] = mq_maxf(mq_maxf(t->v[0][k], t->v[1][k]), t->v[2][k]);
    }
    return mq_box_dist2_d(p, lo, hi);
}

typedef struct mq_closest_entry {
    uint32_t ref;
    double d2; /* squared local distance of its box */
} mq_closest_entry;

MQ_ALWAYS_INLINE void mq_bvh_walk_closest(const mq_bvh *bvh, const double p[3], const mq_closest_prune *pr,
                                          mq_closest_tri_visit visit, void *ctx)
{
    if (bvh->root == MQ_REF_EMPTY)
        return;
    mq_closest_entry stack[MQ_TRAVERSAL_STACK];
    int top = 0;
    {
        const float *rb = bvh->root_box;
        float lo[3] = {rb[0], rb[2], rb[4]}, hi[3] = {rb[1], rb[3], rb[5]};
        stack[top++] = (mq_closest_entry){bvh->root, mq_box_dist2_d(p, lo, hi)};
    }
    while (top > 0) {
        mq_closest_entry e = stack[--top];
        if (e.d2 > mq_closest_limit2(pr))
            continue;
        if (mq_ref_is_leaf(e.ref)) {
            const mq_tri_block *blk = mq_arena_leaf(bvh->arena, e.ref);
            uint32_t nb = mq_ref_block_count(e.ref);
            for (uint32_t b = 0; b < nb; b++)
                for (int lane = 0; lane < MQ_TRI_BLOCK; lane++) {
                    mq_triangle t;
                    if (!mq_walk_block_triangle(bvh, &blk[b], lane, &t) ||
                        mq_tri_dist2_lb(p, &t) > mq_closest_limit2(pr))
                        continue;
                    visit(blk[b].id[lane], &t, ctx);
                }
            continue;
        }
        const mq_node8 *n = mq_arena_node(bvh->arena, e.ref);
        double limit = mq_closest_limit2(pr);
        const double inv = bvh->inv_scale;
        mq_closest_entry kids[MQ_BVH_WIDTH];
        int nk = 0;
        for (int i = 0; i < MQ_BVH_WIDTH; i++) {
            if (n->child[i] == MQ_REF_EMPTY)
                continue;
            double d2 = 0.0;
            for (int k = 0; k < 3; k++) {
                double lo = n->bounds[2 * k][i] * inv, hi = n->bounds[2 * k + 1][i] * inv; /* mesh units */
                double g = mq_max(mq_max(lo - p[k], p[k] - hi), 0.0);
                d2 += g * g;
            }
            if (!(d2 <= limit))
                continue;
            /* insertion: kids sorted by decreasing d2, so the nearest is pushed last */
            int j = nk++;
            while (j > 0 && kids[j - 1].d2 < d2) {
                kids[j] = kids[j - 1];
                j--;
            }
            kids[j] = (mq_closest_entry){n->child[i], d2};
        }
        for (int j = 0; j < nk; j++)
            stack[top++] = kids[j];
    }
}

/* Squared local distance from p to an OBB-tree node's box, in double. */
static inline double mq_obb_node_dist2_d(const mq_obbtree_node *n, const double p[3])
{
    double d[3] = {p[0] - n->center[0], p[1] - n->center[1], p[2] - n->center[2]};
    double d2 = 0.0;
    for (int i = 0; i < 3; i++) {
        double l = d[0] * n->axes[i][0] + d[1] * n->axes[i][1] + d[2] * n->axes[i][2];
        double e = fabs(l) - n->half[i];
        if (e > 0.0)
            d2 += e * e;
    }
    return d2;
}

MQ_ALWAYS_INLINE void mq_obbtree_walk_closest(const mq_obbtree *tree, const double p[3], const mq_closest_prune *pr,
                                              mq_closest_tri_visit visit, void *ctx)
{
    if (tree->node_count == 0)
        return;
    mq_closest_entry stack[MQ_OBBTREE_STACK];
    int top = 0;
    uint32_t i = 0;
    double di = mq_obb_node_dist2_d(&tree->nodes[0], p);
    if (di > mq_closest_limit2(pr))
        return;
    for (;;) {
        const mq_obbtree_node *n = &tree->nodes[i];
        if (mq_obbtree_node_is_leaf(n)) {
            uint32_t first = mq_obbtree_leaf_first(n), end = first + mq_obbtree_leaf_count(n);
            for (uint32_t k = first; k < end; k++)
                if (!(mq_tri_dist2_lb(p, &tree->tris[k]) > mq_closest_limit2(pr)))
                    visit(tree->ids[k], &tree->tris[k], ctx);
        } else {
            uint32_t l = i + 1, r = n->data;
            double bl = mq_obb_node_dist2_d(&tree->nodes[l], p), br = mq_obb_node_dist2_d(&tree->nodes[r], p);
            double limit = mq_closest_limit2(pr);
            bool hl = !(bl > limit), hr = !(br > limit);
            if (hl && hr) {
                bool left_first = bl <= br;
                stack[top++] = (mq_closest_entry){left_first ? r : l, left_first ? br : bl};
                i = left_first ? l : r;
                continue;
            }
            if (hl || hr) {
                i = hl ? l : r;
                continue;
            }
        }
        for (;;) {
            if (top == 0)
                return;
            top--;
            if (!(stack[top].d2 > mq_closest_limit2(pr)))
                break;
        }
        i = stack[top].ref;
    }
}

#endif
