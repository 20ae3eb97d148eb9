/*
 * Self-join of the top-level tree (tlas_selfjoin.h). A node is joined with
 * itself (each child with itself, each pair of its children whose boxes come
 * within the margin with each other, found by a sweep of the children sorted
 * along x); a pair of inner nodes by opening both, keeping each one's
 * children that come within the margin of the other node, and sweeping the
 * two sorted lists along x; a leaf and an inner node by opening the node.
 * Every unordered pair of leaves is reached along exactly one path, so each
 * instance pair is reported once. Nodes are compared with the node margin
 * (the caller's margin plus a bound of every pair's rounding slack), a pair
 * of instances with the margin plus its own slack. Recursion depth: at most twice the tree's
 * depth (mq_tlas_self_join's callers are scene queries, whose trees are at
 * most MQ_TLAS_SAH_DEPTH + 34 levels deep), each level's frame holding up to
 * two nodes' sorted children (about 3.5 KB).
 */
#include "scene/tlas/tlas_selfjoin.h"

#include <math.h>

#include "core/minmax.h"

typedef struct jbox {
    double lo[3], hi[3];
} jbox;

typedef struct join_ctx {
    const mq_scene *s;
    double margin;      /* the caller's */
    double node_margin; /* margin + the rounding slack of any pair (rounding_slack_bound) */
    uint32_t mask;
    mq_tlas_pair_fn fn;
    void *user;
} join_ctx;

static bool boxes_near(const jbox *a, const jbox *b, double m)
{
    for (int k = 0; k < 3; k++)
        if (!(a->lo[k] - m <= b->hi[k] && b->lo[k] - m <= a->hi[k]))
            return false;
    return true;
}

/* Slot i of node n: its child reference (MQ_TLAS_EMPTY when unused or masked out) and float box. */
static uint32_t slot(const join_ctx *c, const mq_tlas_block *n, int i, jbox *b)
{
    const mq_tlas_block *w = &n[i / MQ_TLAS_BLOCK];
    int j = i % MQ_TLAS_BLOCK;
    if (w->child[j] == MQ_TLAS_EMPTY || (w->mask[j] & c->mask) == 0)
        return MQ_TLAS_EMPTY;
    for (int k = 0; k < 3; k++) {
        b->lo[k] = w->lo[k][j];
        b->hi[k] = w->hi[k][j];
    }
    return w->child[j];
}

static double box_size(const jbox *b)
{
    return (b->hi[0] - b->lo[0]) + (b->hi[1] - b->lo[1]) + (b->hi[2] - b->lo[2]);
}

/* Relative rounding of a coordinate rounded to float once (2^-24), with a
 * wide margin; and an absolute floor for float's subnormal spacing (2^-149). */
#define MQ_JOIN_ROUNDING 0x1p-21
#define MQ_JOIN_ROUNDING_FLOOR 0x1p-146

/* The largest |coordinate| of box b shifted by minus r's translation. */
static double shifted_magnitude(const mq_daabb *b, const mq_instance_rec *r)
{
    double m = 0.0;
    for (int k = 0; k < 3; k++) {
        double lo = fabs(b->min[k] - r->to_world.m[k][3]), hi = fabs(b->max[k] - r->to_world.m[k][3]);
        m = lo > m ? lo : m;
        m = hi > m ? hi : m;
    }
    return m;
}

/*
 * The distance of two instances (clash.h) decides "intersect" on their
 * triangles rounded to float in the world shifted by the lower instance's
 * translation: instances whose world boxes are apart by up to that rounding
 * may still be at distance 0. A pair's slack: the rounding of both boxes'
 * coordinates in that frame.
 */
static double pair_slack(const mq_instance_rec *lower, const mq_instance_rec *upper)
{
    return MQ_JOIN_ROUNDING *
               (shifted_magnitude(&lower->world_box, lower) + shifted_magnitude(&upper->world_box, lower)) +
           MQ_JOIN_ROUNDING_FLOOR;
}

/*
 * At least the slack of every pair whose boxes are within margin + slack,
 * for the nodes' pruning. With C the largest shifted magnitude c of an
 * instance the mask lets in: a box's widths are at most 2 c, so every
 * coordinate of the upper box lies within c_L + 2 c_L + 2 c_U + margin +
 * slack of the lower's translation, and a pair's slack is at most R (6 C +
 * margin + slack) + floor: S = 2 R (6 C + margin) + 2 floor satisfies that
 * (R = MQ_JOIN_ROUNDING, far below 1/2). One instance far larger than the
 * others (or meshed far from its translation) widens every node pair's
 * margin by its rounding: slower, not wrong.
 */
static double rounding_slack_bound(const mq_scene *s, uint32_t mask, double margin)
{
    double c = 0.0;
    for (uint32_t i = 0; i < s->rec_slots; i++) {
        const mq_instance_rec *r = &s->recs[i];
        const mq_daabb *b = &r->world_box;
        if (mq_instance_rec_live(r) && (r->mask & mask) != 0 && b->min[0] <= b->max[0] && b->min[1] <= b->max[1] &&
            b->min[2] <= b->max[2])
            c = mq_fmax(c, shifted_magnitude(b, r));
    }
    return 2.0 * MQ_JOIN_ROUNDING * (6.0 * c + margin) + 2.0 * MQ_JOIN_ROUNDING_FLOOR;
}

static bool leaf_pair(const join_ctx *c, uint32_t x, uint32_t y)
{
    const mq_instance_rec *a = &c->s->recs[x & ~MQ_TLAS_LEAF_BIT], *b = &c->s->recs[y & ~MQ_TLAS_LEAF_BIT];
    if ((a->mask & c->mask) == 0 || (b->mask & c->mask) == 0)
        return true;
    if (b->id < a->id) {
        const mq_instance_rec *t = a;
        a = b;
        b = t;
    }
    jbox ba, bb;
    for (int k = 0; k < 3; k++) {
        ba.lo[k] = a->world_box.min[k];
        ba.hi[k] = a->world_box.max[k];
        bb.lo[k] = b->world_box.min[k];
        bb.hi[k] = b->world_box.max[k];
    }
    /* the pair's own slack only for the few boxes apart by less than the node margin's */
    if (!boxes_near(&ba, &bb, c->margin) &&
        (!boxes_near(&ba, &bb, c->node_margin) || !boxes_near(&ba, &bb, c->margin + pair_slack(a, b))))
        return true;
    return c->fn(a, b, c->user);
}

/* The used slots of inner node x whose boxes come within the node margin of box
 * `near`, sorted by their low x (insertion sort: at most MQ_TLAS_WIDTH), in
 * box and ref; NULL `near`: every used slot. Returns their number. */
static int gather(const join_ctx *c, uint32_t x, const jbox *near, jbox box[MQ_TLAS_WIDTH], uint32_t ref[MQ_TLAS_WIDTH])
{
    const mq_tlas_block *n = &c->s->nodes[mq_tlas_ref_first(x)];
    int slots = (int)mq_tlas_ref_blocks(x) * MQ_TLAS_BLOCK, m = 0;
    for (int i = 0; i < slots; i++) {
        jbox b;
        uint32_t r = slot(c, n, i, &b);
        if (r == MQ_TLAS_EMPTY || (near && !boxes_near(&b, near, c->node_margin)))
            continue;
        int j = m++;
        while (j > 0 && box[j - 1].lo[0] > b.lo[0]) {
            box[j] = box[j - 1];
            ref[j] = ref[j - 1];
            j--;
        }
        box[j] = b;
        ref[j] = r;
    }
    return m;
}

static bool join_pair(const join_ctx *c, uint32_t x, const jbox *bx, uint32_t y, const jbox *by)
{
    bool xl = (x & MQ_TLAS_LEAF_BIT) != 0, yl = (y & MQ_TLAS_LEAF_BIT) != 0;
    if (xl && yl)
        return leaf_pair(c, x, y);
    if (!xl && !yl) {
        /* two inner nodes: open both, keep the children near the other node,
         * and sweep the two lists along x (each child pair near in x once) */
        jbox ab[MQ_TLAS_WIDTH], bb[MQ_TLAS_WIDTH];
        uint32_t ar[MQ_TLAS_WIDTH], br[MQ_TLAS_WIDTH];
        int na = gather(c, x, by, ab, ar), nb = gather(c, y, bx, bb, br), p = 0, q = 0;
        double m = c->node_margin;
        while (p < na && q < nb) {
            if (ab[p].lo[0] <= bb[q].lo[0]) {
                for (int k = q; k < nb && bb[k].lo[0] - m <= ab[p].hi[0]; k++)
                    if (boxes_near(&ab[p], &bb[k], m) && !join_pair(c, ar[p], &ab[p], br[k], &bb[k]))
                        return false;
                p++;
            } else {
                for (int k = p; k < na && ab[k].lo[0] - m <= bb[q].hi[0]; k++)
                    if (boxes_near(&ab[k], &bb[q], m) && !join_pair(c, ar[k], &ab[k], br[q], &bb[q]))
                        return false;
                q++;
            }
        }
        return true;
    }
    /* open the larger node (a leaf is never opened) */
    if (xl || (!yl && box_size(by) > box_size(bx))) {
        uint32_t t = x;
        x = y;
        y = t;
        const jbox *tb = bx;
        bx = by;
        by = tb;
    }
    const mq_tlas_block *n = &c->s->nodes[mq_tlas_ref_first(x)];
    int slots = (int)mq_tlas_ref_blocks(x) * MQ_TLAS_BLOCK;
    for (int i = 0; i < slots; i++) {
        jbox bi;
        uint32_t ci = slot(c, n, i, &bi);
        if (ci != MQ_TLAS_EMPTY && boxes_near(&bi, by, c->node_margin) && !join_pair(c, ci, &bi, y, by))
            return false;
    }
    return true;
}

static bool join_self(const join_ctx *c, uint32_t x)
{
    if (x & MQ_TLAS_LEAF_BIT)
        return true;
    jbox box[MQ_TLAS_WIDTH];
    uint32_t ref[MQ_TLAS_WIDTH];
    int m = gather(c, x, NULL, box, ref);
    for (int i = 0; i < m; i++) {
        if (!join_self(c, ref[i]))
            return false;
        /* sweep along x: the later slots start at or after this one's low x, and
         * once one starts beyond its high x (plus the margin) so do the rest */
        for (int j = i + 1; j < m && box[j].lo[0] - c->node_margin <= box[i].hi[0]; j++)
            if (boxes_near(&box[i], &box[j], c->node_margin) && !join_pair(c, ref[i], &box[i], ref[j], &box[j]))
                return false;
    }
    return true;
}

bool mq_tlas_self_join(const mq_scene *s, double margin, uint32_t mask, mq_tlas_pair_fn fn, void *user)
{
    if (!s || !fn || s->node_count == 0 || !(margin >= 0.0))
        return true;
    join_ctx c = {s, margin, margin + rounding_slack_bound(s, mask, margin), mask, fn, user};
    return join_self(&c, s->root);
}
