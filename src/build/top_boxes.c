/*
 * The boxes of a hierarchy's top levels, in its mesh's units (top_boxes.h):
 * what an instance's world box is built from (src/scene/instance_bounds.c).
 */
#include <math.h>

#include "build/bvh_internal.h"
#include "build/obbtree_internal.h"
#include "build/top_boxes.h"

/* Child slot `i` of a node, in mesh units: exact (a power-of-two scale, in double). */
static void bvh_slot_box(const mq_bvh *b, const mq_node8 *n, int i, mq_top_box *out)
{
    double s = (double)b->inv_scale;
    out->aligned = true; /* axes left unset */
    for (int k = 0; k < 3; k++) {
        double lo = (double)n->bounds[2 * k][i] * s, hi = (double)n->bounds[2 * k + 1][i] * s;
        out->center[k] = 0.5 * (lo + hi); /* exact: floats summed in double, halved */
        out->half[k] = 0.5 * (hi - lo);
    }
}

size_t mq_bvh_top_boxes(const mq_bvh *b, mq_top_box *out, size_t cap)
{
    if (cap == 0 || b->root == MQ_REF_EMPTY)
        return 0;
    if (mq_ref_is_leaf(b->root)) {
        /* A single leaf: the root box (lo x, hi x, lo y, ...), already in mesh units. */
        out[0].aligned = true;
        for (int k = 0; k < 3; k++) {
            double lo = b->root_box[2 * k], hi = b->root_box[2 * k + 1];
            out[0].center[k] = 0.5 * (lo + hi);
            out[0].half[k] = 0.5 * (hi - lo);
        }
        return 1;
    }
    /* The root's child slots, then each inner child replaced by its own slots
     * while the total stays within cap: the two top levels for cap >= 64. */
    const mq_node8 *root = mq_arena_node(b->arena, b->root);
    size_t slots = 0;
    for (int i = 0; i < MQ_BVH_WIDTH; i++)
        slots += root->child[i] != MQ_REF_EMPTY;
    size_t n = 0;
    for (int i = 0; i < MQ_BVH_WIDTH; i++) {
        uint32_t ref = root->child[i];
        if (ref == MQ_REF_EMPTY)
            continue;
        slots--; /* the slots still to come after this one */
        const mq_node8 *c = mq_ref_is_leaf(ref) ? NULL : mq_arena_node(b->arena, ref);
        size_t grand = 0;
        for (int j = 0; c && j < MQ_BVH_WIDTH; j++)
            grand += c->child[j] != MQ_REF_EMPTY;
        if (c && n + grand + slots <= cap) {
            for (int j = 0; j < MQ_BVH_WIDTH; j++)
                if (c->child[j] != MQ_REF_EMPTY)
                    bvh_slot_box(b, c, j, &out[n++]);
        } else if (n < cap) {
            bvh_slot_box(b, root, i, &out[n++]);
        }
    }
    return n;
}

static mq_top_box obb_node_box(const mq_obbtree_node *nd)
{
    mq_top_box box;
    box.aligned = false;
    for (int k = 0; k < 3; k++) {
        box.center[k] = nd->center[k];
        box.half[k] = nd->half[k];
        for (int j = 0; j < 3; j++)
            box.axes[k][j] = nd->axes[k][j];
    }
    return box;
}

size_t mq_obbtree_top_boxes(const mq_obbtree *t, mq_top_box *out, size_t cap)
{
    if (cap == 0 || t->node_count == 0)
        return 0;
    /* Breadth first from the root: a level replaces the one above while it fits. */
    uint32_t level[MQ_TOP_BOXES_MAX], next[MQ_TOP_BOXES_MAX];
    size_t count = 1;
    level[0] = 0;
    if (cap > MQ_TOP_BOXES_MAX)
        cap = MQ_TOP_BOXES_MAX;
    for (;;) {
        size_t m = 0;
        for (size_t i = 0; i < count; i++)
            m += mq_obbtree_node_is_leaf(&t->nodes[level[i]]) ? 1 : 2;
        if (m == count || m > cap)
            break;
        m = 0;
        for (size_t i = 0; i < count; i++) {
            const mq_obbtree_node *nd = &t->nodes[level[i]];
            if (mq_obbtree_node_is_leaf(nd)) {
                next[m++] = level[i];
            } else {
                next[m++] = level[i] + 1;
                next[m++] = nd->data;
            }
        }
        for (size_t i = 0; i < m; i++)
            level[i] = next[i];
        count = m;
    }
    for (size_t i = 0; i < count; i++)
        out[i] = obb_node_box(&t->nodes[level[i]]);
    return count;
}
