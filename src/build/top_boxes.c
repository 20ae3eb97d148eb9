/*
 * The boxes of a hierarchy's top levels, in its mesh's units (top_boxes.h):
 * what an instance's world box is built from (src/scene/instance_bounds.c).
 */
#include <math.h>
#include <string.h>

#include "build/bvh_internal.h"
#include "build/obbtree_internal.h"
#include "build/top_boxes.h"
#include "core/alloc.h"
#include "core/mat3d.h"

/* The boxes as they are found, before their block is sized: rows 0-2 the
 * centre's coordinates, 3-5 the half extents, 6 + 3 j + i component j of
 * edge_i. */
enum { CENTER = 0, HALF = 3, EDGE = 6, ALIGNED_ROWS = 6, ORIENTED_ROWS = 15 };

typedef struct box_scratch {
    uint32_t n;
    bool ok;
    double row[ORIENTED_ROWS][MQ_TOP_BOXES_MAX];
} box_scratch;

/* Copies the first `rows` rows of s into t's block (reused when its size
 * fits, else allocated anew). */
static mq_status keep(const mq_allocator *a, mq_top_boxes *t, const box_scratch *s, int rows)
{
    size_t doubles = (size_t)rows * s->n;
    if (t->doubles != doubles) {
        mq_top_boxes_free(a, t);
        if (doubles) {
            t->data = mq_alloc(a, doubles * sizeof(double), MQ_CACHE_LINE);
            if (!t->data)
                return MQ_ERR_OUT_OF_MEMORY;
            t->doubles = doubles;
        }
    }
    for (int r = 0; r < rows; r++)
        for (uint32_t b = 0; b < s->n; b++)
            t->data[(size_t)r * s->n + b] = s->row[r][b];
    double *row[ORIENTED_ROWS] = {NULL};
    for (int r = 0; r < rows && s->n > 0; r++) /* no boxes: no block (and no offsets from NULL) */
        row[r] = t->data + (size_t)r * s->n;
    for (int k = 0; k < 3; k++) {
        t->center[k] = row[CENTER + k];
        t->half[k] = row[HALF + k];
        for (int i = 0; i < 3; i++)
            t->edge[k][i] = row[EDGE + 3 * k + i];
    }
    t->n = s->n;
    t->ok = s->ok;
    return MQ_OK;
}

void mq_top_boxes_free(const mq_allocator *a, mq_top_boxes *t)
{
    mq_free(a, t->data, t->doubles * sizeof(double));
    memset(t, 0, sizeof *t);
}

/* Child slot `i` of a node as box k, in mesh units: exact (a power-of-two scale, in double). */
static void bvh_slot_box(const mq_bvh *b, const mq_node8 *n, int i, box_scratch *out, uint32_t k)
{
    double s = (double)b->inv_scale;
    for (int a = 0; a < 3; a++) {
        double lo = (double)n->bounds[2 * a][i] * s, hi = (double)n->bounds[2 * a + 1][i] * s;
        out->row[CENTER + a][k] = 0.5 * (lo + hi); /* exact: floats summed in double, halved */
        out->row[HALF + a][k] = 0.5 * (hi - lo);
    }
}

static uint32_t bvh_top_boxes(const mq_bvh *b, box_scratch *out)
{
    const uint32_t cap = MQ_TOP_BOXES_MAX;
    if (b->root == MQ_REF_EMPTY)
        return 0;
    if (mq_ref_is_leaf(b->root)) {
        /* A single leaf: the root box (lo x, hi x, lo y, ...), already in mesh units. */
        for (int a = 0; a < 3; a++) {
            double lo = b->root_box[2 * a], hi = b->root_box[2 * a + 1];
            out->row[CENTER + a][0] = 0.5 * (lo + hi);
            out->row[HALF + a][0] = 0.5 * (hi - lo);
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

mq_status mq_bvh_set_top_boxes(mq_bvh *b)
{
    box_scratch s;
    memset(&s, 0, sizeof s);
    s.n = bvh_top_boxes(b, &s);
    s.ok = true;
    return keep(mq_bvh_allocator(b), &b->top, &s, ALIGNED_ROWS);
}

/* Node `node` of t as box k; false if its axes are degenerate. */
static bool obb_node_box(const mq_obbtree *t, uint32_t node, box_scratch *out, uint32_t k)
{
    const mq_obbtree_node *nd = &t->nodes[node];
    double axes[3][3], edges[3][3];
    for (int a = 0; a < 3; a++) {
        out->row[CENTER + a][k] = nd->center[a];
        out->row[HALF + a][k] = nd->half[a];
        for (int j = 0; j < 3; j++)
            axes[a][j] = nd->axes[a][j];
    }
    double det = mq_mat3d_det(axes);
    if (!(fabs(det) > 1e-6 && mq_mat3d_inverse(axes, det, edges)))
        return false;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            out->row[EDGE + 3 * j + i][k] = edges[j][i];
    return true;
}

mq_status mq_obbtree_set_top_boxes(mq_obbtree *t)
{
    box_scratch s; /* rows of boxes after a degenerate one stay 0 */
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
    return keep(mq_obbtree_allocator(t), &t->top, &s, ORIENTED_ROWS);
}
