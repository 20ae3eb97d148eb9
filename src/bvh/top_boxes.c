/*
 * The boxes of a hierarchy's top levels, in its mesh's units (top_boxes.h):
 * what an instance's world box is built from (src/scene/instance_bounds.c).
 */
#include <math.h>
#include <string.h>

#include "bvh/bvh_internal.h"
#include "bvh/top_boxes.h"
#include "core/alloc.h"
#include "core/mat3d.h"

mq_status mq_top_boxes_keep(const mq_allocator *a, mq_top_boxes *t, const mq_box_scratch *s, int rows)
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
    double *row[MQ_TOP_ORIENTED_ROWS] = {NULL};
    for (int r = 0; r < rows && s->n > 0; r++) /* no boxes: no block (and no offsets from NULL) */
        row[r] = t->data + (size_t)r * s->n;
    for (int k = 0; k < 3; k++) {
        t->center[k] = row[MQ_TOP_CENTER + k];
        t->half[k] = row[MQ_TOP_HALF + k];
        for (int i = 0; i < 3; i++)
            t->edge[k][i] = row[MQ_TOP_EDGE + 3 * k + i];
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
static void bvh_slot_box(const mq_bvh *b, const mq_node8 *n, int i, mq_box_scratch *out, uint32_t k)
{
    double s = (double)b->inv_scale;
    for (int a = 0; a < 3; a++) {
        double lo = (double)n->bounds[2 * a][i] * s, hi = (double)n->bounds[2 * a + 1][i] * s;
        out->row[MQ_TOP_CENTER + a][k] = 0.5 * (lo + hi); /* exact: floats summed in double, halved */
        out->row[MQ_TOP_HALF + a][k] = 0.5 * (hi - lo);
    }
}

static uint32_t bvh_top_boxes(const mq_bvh *b, mq_box_scratch *out)
{
    const uint32_t cap = MQ_TOP_BOXES_MAX;
    if (b->root == MQ_REF_EMPTY)
        return 0;
    if (mq_ref_is_leaf(b->root)) {
        /* A single leaf: the root box (lo x, hi x, lo y, ...), already in mesh units. */
        for (int a = 0; a < 3; a++) {
            double lo = b->root_box[2 * a], hi = b->root_box[2 * a + 1];
            out->row[MQ_TOP_CENTER + a][0] = 0.5 * (lo + hi);
            out->row[MQ_TOP_HALF + a][0] = 0.5 * (hi - lo);
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
    mq_box_scratch s;
    memset(&s, 0, sizeof s);
    s.n = bvh_top_boxes(b, &s);
    s.ok = true;
    return mq_top_boxes_keep(mq_bvh_allocator(b), &b->top, &s, MQ_TOP_ALIGNED_ROWS);
}
