/*
 * The boxes of a hierarchy's top levels, in its mesh's units (top_boxes.h):
 * what an instance's world box is built from (src/scene/instance_bounds.c).
 */
#include <math.h>

#include "build/bvh_internal.h"
#include "build/obbtree_internal.h"
#include "build/top_boxes.h"
#include "core/mat3d.h"

/* Child slot `i` of a node as box k of `out`, in mesh units: exact (a power-of-two scale, in double). */
static void bvh_slot_box(const mq_bvh *b, const mq_node8 *n, int i, mq_aligned_boxes *out, uint32_t k)
{
    double s = (double)b->inv_scale;
    for (int a = 0; a < 3; a++) {
        double lo = (double)n->bounds[2 * a][i] * s, hi = (double)n->bounds[2 * a + 1][i] * s;
        out->center[a][k] = 0.5 * (lo + hi); /* exact: floats summed in double, halved */
        out->half[a][k] = 0.5 * (hi - lo);
    }
}

static uint32_t bvh_top_boxes(const mq_bvh *b, mq_aligned_boxes *out)
{
    const uint32_t cap = MQ_TOP_BOXES_MAX;
    if (b->root == MQ_REF_EMPTY)
        return 0;
    if (mq_ref_is_leaf(b->root)) {
        /* A single leaf: the root box (lo x, hi x, lo y, ...), already in mesh units. */
        for (int a = 0; a < 3; a++) {
            double lo = b->root_box[2 * a], hi = b->root_box[2 * a + 1];
            out->center[a][0] = 0.5 * (lo + hi);
            out->half[a][0] = 0.5 * (hi - lo);
        }
        return 1;
    }
    /* The root's child slots, then each inner child replaced by its own slots
     * while the total stays within cap: the two top levels for cap >= 64. */
    const mq_node8 *root = mq_arena_node(b->arena, b->root);
    uint32_t slots = 0;
    for (int i = 0; i < MQ_BVH_WIDTH; i++)
        slots += root->child[i] != MQ_REF_EMPTY;
    uint32_t n = 0;
    for (int i = 0; i < MQ_BVH_WIDTH; i++) {
        uint32_t ref = root->child[i];
        if (ref == MQ_REF_EMPTY)
            continue;
        slots--; /* the slots still to come after this one */
        const mq_node8 *c = mq_ref_is_leaf(ref) ? NULL : mq_arena_node(b->arena, ref);
        uint32_t grand = 0;
        for (int j = 0; c && j < MQ_BVH_WIDTH; j++)
            grand += c->child[j] != MQ_REF_EMPTY;
        if (c && n + grand + slots <= cap) {
            for (int j = 0; j < MQ_BVH_WIDTH; j++)
                if (c->child[j] != MQ_REF_EMPTY)
                    bvh_slot_box(b, c, j, out, n++);
        } else if (n < cap) {
            bvh_slot_box(b, root, i, out, n++);
        }
    }
    return n;
}

void mq_bvh_set_top_boxes(mq_bvh *b)
{
    b->top.n = bvh_top_boxes(b, &b->top);
}

/* Node `node` of t as box k of `out`; false if its axes are degenerate. */
static bool obb_node_box(const mq_obbtree *t, uint32_t node, mq_oriented_boxes *out, uint32_t k)
{
    const mq_obbtree_node *nd = &t->nodes[node];
    double axes[3][3], edges[3][3];
    for (int a = 0; a < 3; a++) {
        out->box.center[a][k] = nd->center[a];
        out->box.half[a][k] = nd->half[a];
        for (int j = 0; j < 3; j++)
            axes[a][j] = nd->axes[a][j];
    }
    double det = mq_mat3d_det(axes);
    if (!(fabs(det) > 1e-6 && mq_mat3d_inverse(axes, det, edges)))
        return false;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            out->edge[j][i][k] = edges[j][i];
    return true;
}

void mq_obbtree_set_top_boxes(mq_obbtree *t)
{
    mq_oriented_boxes *out = &t->top;
    out->box.n = 0;
    out->ok = true;
    if (t->node_count == 0)
        return;
    /* Breadth first from the root: a level replaces the one above while it fits. */
    uint32_t level[MQ_TOP_BOXES_MAX], next[MQ_TOP_BOXES_MAX];
    uint32_t count = 1;
    level[0] = 0;
    for (;;) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < count; i++)
            m += mq_obbtree_node_is_leaf(&t->nodes[level[i]]) ? 1 : 2;
        if (m == count || m > MQ_TOP_BOXES_MAX)
            break;
        m = 0;
        for (uint32_t i = 0; i < count; i++) {
            const mq_obbtree_node *nd = &t->nodes[level[i]];
            if (mq_obbtree_node_is_leaf(nd)) {
                next[m++] = level[i];
            } else {
                next[m++] = level[i] + 1;
                next[m++] = nd->data;
            }
        }
        for (uint32_t i = 0; i < m; i++)
            level[i] = next[i];
        count = m;
    }
    for (uint32_t i = 0; i < count && out->ok; i++)
        out->ok = obb_node_box(t, level[i], out, i);
    out->box.n = count;
}
