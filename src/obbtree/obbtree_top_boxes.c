/*
 * An OBB tree's top boxes (bvh/top_boxes.h): the boxes of its deepest level
 * that fits, with their edge directions, for instances' world boxes.
 */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/mat3d.h"
#include "obbtree/obbtree_internal.h"

/* Node `node` of t as box k; false if its axes are degenerate. */
static bool obb_node_box(const mq_obbtree *t, uint32_t node, mq_box_scratch *out, uint32_t k)
{
    const mq_obbtree_node *nd = &t->nodes[node];
    double edges[3][3];
    for (int a = 0; a < 3; a++) {
        out->row[MQ_TOP_CENTER + a][k] = nd->center[a];
        out->row[MQ_TOP_HALF + a][k] = nd->half[a];
    }
    if (!mq_obb_axes_inverse(nd->axes, edges))
        return false;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            out->row[MQ_TOP_EDGE + 3 * j + i][k] = edges[j][i];
    return true;
}

mq_status mq_obbtree_set_top_boxes(mq_obbtree *t)
{
    mq_box_scratch s; /* rows of boxes after a degenerate one stay 0 */
    memset(&s, 0, sizeof s);
    s.ok = true;
    if (t->node_count > 0) {
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
        for (uint32_t i = 0; i < count && s.ok; i++)
            s.ok = obb_node_box(t, level[i], &s, i);
        s.n = count;
    }
    return mq_top_boxes_keep(mq_obbtree_allocator(t), &t->top, &s, MQ_TOP_ORIENTED_ROWS);
}
