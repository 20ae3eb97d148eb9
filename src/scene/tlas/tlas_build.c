/*
 * The top-level hierarchy: a binary tree in double over the instances' world
 * boxes, built top-down with a 16-bin SAH on box centroids, one instance per
 * leaf, nodes in preorder. Below depth MQ_TLAS_SAH_DEPTH ranges are simply
 * halved, which bounds the depth for any input (coincident boxes included).
 * The binary tree is then collapsed into the committed wide float tree
 * (scene_internal.h) by a plan that minimises the wide nodes' summed area
 * (collapse_plan, below).
 */
#include <math.h>
#include <string.h>

#include "core/float_steps.h"
#include "scene/scene_internal.h"

#define BINS 16
#define BIN_LEAF UINT32_MAX

/* A node of the binary build (scratch only). */
typedef struct bin_node {
    double lo[3], hi[3];
    uint32_t mask;
    uint32_t left;   /* inner: left child; leaf: the instance id */
    uint32_t right;  /* inner: right child; leaf: BIN_LEAF */
    uint32_t leaves; /* instances below */
} bin_node;

float mq_tlas_round_lo(double x)
{
    if (!(x >= -MQ_TLAS_FLOAT_RANGE && x <= MQ_TLAS_FLOAT_RANGE))
        return x > 0.0 ? -INFINITY : (x < 0.0 ? -INFINITY : INFINITY); /* huge: infinite slab; NaN: empty */
    return mq_float_floor_of(x);
}

float mq_tlas_round_hi(double x)
{
    if (!(x >= -MQ_TLAS_FLOAT_RANGE && x <= MQ_TLAS_FLOAT_RANGE))
        return x > 0.0 ? INFINITY : (x < 0.0 ? INFINITY : -INFINITY);
    return mq_float_ceil_of(x);
}

typedef struct build_ctx {
    bin_node *nodes;
    mq_tlas_prim *prims; /* the instances' boxes, partitioned in place */
    uint32_t count;
} build_ctx;

static bool world_box_empty(const mq_daabb *b)
{
    return !(b->min[0] <= b->max[0] && b->min[1] <= b->max[1] && b->min[2] <= b->max[2]);
}

static void box_clear(double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
}

static void box_grow(double lo[3], double hi[3], const double blo[3], const double bhi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = blo[k] < lo[k] ? blo[k] : lo[k];
        hi[k] = bhi[k] > hi[k] ? bhi[k] : hi[k];
    }
}

static double half_area(const double lo[3], const double hi[3])
{
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = hi[k] > lo[k] ? hi[k] - lo[k] : 0.0;
    return d[0] * d[1] + d[1] * d[2] + d[2] * d[0];
}

static double centroid(const mq_tlas_prim *p, int axis)
{
    return 0.5 * (p->lo[axis] + p->hi[axis]);
}

/*
 * The split position of prims[begin, end): SAH over BINS bins of the widest
 * centroid axis; begin + half when the centroids coincide, the depth is too
 * large, or no bin boundary separates them.
 */
static uint32_t split(build_ctx *c, uint32_t begin, uint32_t end, uint32_t depth)
{
    uint32_t mid = begin + (end - begin) / 2;
    if (depth >= MQ_TLAS_SAH_DEPTH)
        return mid;
    double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = begin; i < end; i++) {
        for (int k = 0; k < 3; k++) {
            double x = centroid(&c->prims[i], k);
            clo[k] = x < clo[k] ? x : clo[k];
            chi[k] = x > chi[k] ? x : chi[k];
        }
    }
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (chi[k] - clo[k] > chi[axis] - clo[axis])
            axis = k;
    double extent = chi[axis] - clo[axis];
    if (!(extent > 0.0) || !isfinite(extent))
        return mid;
    double scale = BINS / extent;
    if (!isfinite(scale)) /* a subnormal extent: the bins cannot tell the centres apart */
        return mid;

    uint32_t count[BINS] = {0};
    double blo[BINS][3], bhi[BINS][3];
    for (int b = 0; b < BINS; b++)
        box_clear(blo[b], bhi[b]);
    for (uint32_t i = begin; i < end; i++) {
        const mq_tlas_prim *r = &c->prims[i];
        int b = (int)((centroid(r, axis) - clo[axis]) * scale);
        b = b < 0 ? 0 : (b >= BINS ? BINS - 1 : b);
        count[b]++;
        box_grow(blo[b], bhi[b], r->lo, r->hi);
    }
    /* Sweep from the right for the right-hand costs, then from the left. */
    double right_cost[BINS];
    double lo[3], hi[3];
    box_clear(lo, hi);
    uint32_t n = 0;
    for (int b = BINS - 1; b > 0; b--) {
        box_grow(lo, hi, blo[b], bhi[b]);
        n += count[b];
        right_cost[b] = n ? half_area(lo, hi) * n : 0.0;
    }
    box_clear(lo, hi);
    n = 0;
    int best = -1;
    double best_cost = INFINITY;
    for (int b = 1; b < BINS; b++) {
        box_grow(lo, hi, blo[b - 1], bhi[b - 1]);
        n += count[b - 1];
        if (n == 0 || n == end - begin)
            continue;
        double cost = half_area(lo, hi) * n + right_cost[b];
        if (cost < best_cost) {
            best_cost = cost;
            best = b;
        }
    }
    if (best < 0)
        return mid;
    /* Partition: bins below `best` to the left. */
    uint32_t i = begin, j = end;
    while (i < j) {
        const mq_tlas_prim *r = &c->prims[i];
        int b = (int)((centroid(r, axis) - clo[axis]) * scale);
        b = b < 0 ? 0 : (b >= BINS ? BINS - 1 : b);
        if (b < best) {
            i++;
        } else {
            mq_tlas_prim t = c->prims[i];
            c->prims[i] = c->prims[--j];
            c->prims[j] = t;
        }
    }
    return (i == begin || i == end) ? mid : i;
}

static uint32_t build(build_ctx *c, uint32_t begin, uint32_t end, uint32_t depth)
{
    uint32_t index = c->count++;
    bin_node *node = &c->nodes[index];
    if (end - begin == 1) {
        const mq_tlas_prim *r = &c->prims[begin];
        for (int k = 0; k < 3; k++) {
            node->lo[k] = r->lo[k];
            node->hi[k] = r->hi[k];
        }
        node->mask = r->mask;
        node->left = r->id;
        node->right = BIN_LEAF;
        node->leaves = 1;
        return index;
    }
    uint32_t m = split(c, begin, end, depth);
    uint32_t l = build(c, begin, m, depth + 1);
    uint32_t r = build(c, m, end, depth + 1);
    node = &c->nodes[index];
    node->left = l;
    node->right = r;
    node->leaves = c->nodes[l].leaves + c->nodes[r].leaves;
    box_clear(node->lo, node->hi);
    box_grow(node->lo, node->hi, c->nodes[l].lo, c->nodes[l].hi);
    box_grow(node->lo, node->hi, c->nodes[r].lo, c->nodes[r].hi);
    node->mask = c->nodes[l].mask | c->nodes[r].mask;
    return index;
}

/* ---- the wide tree -------------------------------------------------------- */

/* Slot i of the node whose blocks start at n. */
static void slot_clear(mq_tlas_block *n, int i)
{
    mq_tlas_block *w = &n[i / MQ_TLAS_BLOCK];
    int j = i % MQ_TLAS_BLOCK;
    for (int k = 0; k < 3; k++) {
        w->lo[k][j] = INFINITY;
        w->hi[k][j] = -INFINITY;
    }
    w->child[j] = MQ_TLAS_EMPTY;
    w->mask[j] = 0;
}

/* Sets a slot's box and mask. A slot whose mask is 0 matches no query: its
 * box is left empty, so no walk ever enters it and a query with every mask
 * bit set needs no mask test (scene_internal.h). */
static void slot_set(mq_tlas_block *n, int i, const double lo[3], const double hi[3], uint32_t mask)
{
    mq_tlas_block *w = &n[i / MQ_TLAS_BLOCK];
    int j = i % MQ_TLAS_BLOCK;
    for (int k = 0; k < 3; k++) {
        w->lo[k][j] = mask ? mq_tlas_round_lo(lo[k]) : INFINITY;
        w->hi[k][j] = mask ? mq_tlas_round_hi(hi[k]) : -INFINITY;
    }
    w->mask[j] = mask;
}

/*
 * Which binary nodes become wide nodes: the choice that minimises the summed
 * surface area of the wide nodes (a ray's expected node visits; every
 * instance's box is tested in its parent's slot whatever the shape, so the
 * leaves cost the same in every choice), by dynamic programming over the
 * binary tree (Ylitie et al., "Efficient incoherent ray traversal on GPUs
 * through compressed wide BVHs", HPG 2017). A greedy collapse leaves many
 * wide nodes holding 2 or 3 slots (at 8 slots per node: 409 nodes for 1,000
 * instances, where 143 can do); this one fills nodes where that saves visits.
 *
 * cost[k-1] is the least cost of placing the subtree into at most k slots of
 * its parent: one slot (a leaf costs 0, an inner node its area plus the best
 * spread of its children over a node's MQ_TLAS_WIDTH slots), or, for an inner
 * node and k >= 2, its two children spread over the k slots.
 */
typedef struct collapse_plan {
    float cost[MQ_TLAS_WIDTH];
    uint8_t left_slots[MQ_TLAS_WIDTH]; /* per k: slots given to the left child (0: one slot) */
    uint8_t wide_left;                 /* as a wide node: slots of its left child */
} collapse_plan;

static void plan_node(const bin_node *bin, collapse_plan *plan, uint32_t b)
{
    const bin_node *n = &bin[b];
    collapse_plan *p = &plan[b];
    if (n->right == BIN_LEAF) {
        for (int k = 0; k < MQ_TLAS_WIDTH; k++) {
            p->cost[k] = 0.0f;
            p->left_slots[k] = 0;
        }
        p->wide_left = 0;
        return;
    }
    const collapse_plan *l = &plan[n->left], *r = &plan[n->right];
    /* A subtree of m instances costs 0 in m slots or more (each instance in
     * its own slot): a child never needs more slots than its instances, which
     * keeps the plan of the many small subtrees short. */
    const int nl = (int)bin[n->left].leaves, nr = (int)bin[n->right].leaves;
    float spread[MQ_TLAS_WIDTH + 1]; /* best spread of the children over j slots */
    uint8_t split[MQ_TLAS_WIDTH + 1];
    for (int j = 2; j <= MQ_TLAS_WIDTH; j++) {
        spread[j] = INFINITY;
        split[j] = 1;
        int i_lo = j - nr > 1 ? j - nr : 1, i_hi = nl < j - 1 ? nl : j - 1;
        if (i_lo > i_hi) { /* j > nl + nr: every instance had its own slot at j - 1 already */
            spread[j] = spread[j - 1];
            split[j] = split[j - 1];
            continue;
        }
        for (int i = i_lo; i <= i_hi; i++) {
            float c = l->cost[i - 1] + r->cost[j - i - 1];
            if (c < spread[j]) {
                spread[j] = c;
                split[j] = (uint8_t)i;
            }
        }
    }
    float one = (float)half_area(n->lo, n->hi) + spread[MQ_TLAS_WIDTH];
    p->wide_left = split[MQ_TLAS_WIDTH];
    p->cost[0] = one;
    p->left_slots[0] = 0;
    for (int k = 2; k <= MQ_TLAS_WIDTH; k++) {
        bool spread_wins = spread[k] < one;
        p->cost[k - 1] = spread_wins ? spread[k] : one;
        p->left_slots[k - 1] = spread_wins ? split[k] : 0;
    }
}

typedef struct collapse_ctx {
    const bin_node *bin;
    const collapse_plan *plan;
    mq_tlas_block *blocks;
    uint32_t count; /* blocks used */
} collapse_ctx;

/* Appends the slots of subtree b placed into at most k slots, as planned. */
static void plan_slots(const collapse_ctx *c, uint32_t b, int k, uint32_t *kids, int *n)
{
    int left = c->plan[b].left_slots[k - 1];
    if (left == 0) {
        kids[(*n)++] = b;
        return;
    }
    plan_slots(c, c->bin[b].left, left, kids, n);
    plan_slots(c, c->bin[b].right, k - left, kids, n);
}

/* Makes a wide node out of binary node b (inner, or a leaf only for a
 * one-instance tree): its blocks first, then its children's (preorder).
 * Returns its reference; *need: the most walk stack entries below it
 * (its slots but the one walked next, plus the most of any child's). */
static uint32_t collapse(collapse_ctx *c, uint32_t b, uint32_t *need)
{
    uint32_t kids[MQ_TLAS_WIDTH];
    int n = 0;
    const bin_node *bn = &c->bin[b];
    if (bn->right == BIN_LEAF) {
        kids[n++] = b;
    } else {
        int left = c->plan[b].wide_left;
        plan_slots(c, bn->left, left, kids, &n);
        plan_slots(c, bn->right, MQ_TLAS_WIDTH - left, kids, &n);
    }
    uint32_t blocks = (uint32_t)(n + MQ_TLAS_BLOCK - 1) / MQ_TLAS_BLOCK;
    uint32_t first = c->count;
    c->count += blocks;
    uint32_t ref[MQ_TLAS_WIDTH], below = 0;
    for (int i = 0; i < n; i++) {
        const bin_node *k = &c->bin[kids[i]];
        uint32_t child_need = 0;
        ref[i] = k->right == BIN_LEAF ? (MQ_TLAS_LEAF_BIT | k->left) : collapse(c, kids[i], &child_need);
        below = child_need > below ? child_need : below;
    }
    *need = (uint32_t)n - 1 + below;
    mq_tlas_block *w = &c->blocks[first];
    for (int i = 0; i < (int)blocks * MQ_TLAS_BLOCK; i++)
        slot_clear(w, i);
    for (int i = 0; i < n; i++) {
        const bin_node *k = &c->bin[kids[i]];
        slot_set(w, i, k->lo, k->hi, k->mask);
        w[i / MQ_TLAS_BLOCK].child[i % MQ_TLAS_BLOCK] = ref[i];
    }
    return mq_tlas_node_ref(first, blocks);
}

size_t mq_tlas_scratch_bytes(uint32_t slots)
{
    /* The prims, then the binary tree (at most 2*slots - 1 nodes) and its collapse plan. */
    size_t prims = ((size_t)slots * sizeof(mq_tlas_prim) + 63) & ~(size_t)63;
    return prims + 2 * (size_t)slots * (sizeof(bin_node) + sizeof(collapse_plan));
}

uint32_t mq_tlas_build(const mq_instance_rec *recs, uint32_t slots, mq_tlas_block *nodes, void *scratch, uint32_t *root,
                       uint32_t *walk_stack)
{
    mq_tlas_prim *prims = scratch;
    bin_node *bin = (bin_node *)(void *)((char *)scratch + (((size_t)slots * sizeof *prims + 63) & ~(size_t)63));
    collapse_plan *plan = (collapse_plan *)(void *)(bin + 2 * (size_t)slots);
    build_ctx c = {bin, prims, 0};
    uint32_t n = 0;
    /* Free ids and empty hierarchies can never be reached: leave them out. */
    for (uint32_t i = 0; i < slots; i++)
        if (mq_instance_rec_live(&recs[i]) && !world_box_empty(&recs[i].world_box)) {
            /* Compact copies: the build's passes then stream 56 bytes per
             * instance instead of touching 576-byte records. */
            mq_tlas_prim *p = &prims[n++];
            for (int k = 0; k < 3; k++) {
                p->lo[k] = recs[i].world_box.min[k];
                p->hi[k] = recs[i].world_box.max[k];
            }
            p->id = recs[i].id;
            p->mask = recs[i].mask;
        }
    *root = 0;
    *walk_stack = 0;
    if (n == 0)
        return 0;
    build(&c, 0, n, 0);
    for (uint32_t b = c.count; b-- > 0;) /* preorder: children after their parent */
        plan_node(bin, plan, b);
    /* Every wide node but a one-instance root has at least 2 slots, so at most
     * n / 2 of them per block on average: n blocks always do. */
    collapse_ctx cc = {bin, plan, nodes, 0};
    *root = collapse(&cc, 0, walk_stack);
    *walk_stack += 1;
    return cc.count;
}

void mq_tlas_refit(const mq_instance_rec *recs, mq_tlas_block *blocks, uint32_t block_count)
{
    /* Backwards: a node's children (blocks after its own) are done before it. */
    for (uint32_t i = block_count; i-- > 0;) {
        mq_tlas_block *w = &blocks[i];
        for (int j = 0; j < MQ_TLAS_BLOCK; j++) {
            uint32_t ref = w->child[j];
            if (ref == MQ_TLAS_EMPTY)
                continue;
            if (ref & MQ_TLAS_LEAF_BIT) {
                const mq_instance_rec *r = &recs[ref & ~MQ_TLAS_LEAF_BIT];
                slot_set(w, j, r->world_box.min, r->world_box.max, r->mask);
                continue;
            }
            const mq_tlas_block *c = &blocks[mq_tlas_ref_first(ref)];
            int slots = (int)mq_tlas_ref_blocks(ref) * MQ_TLAS_BLOCK;
            uint32_t mask = 0;
            for (int k = 0; k < 3; k++) {
                float lo = INFINITY, hi = -INFINITY;
                for (int m = 0; m < slots; m++) {
                    float clo = c[m / MQ_TLAS_BLOCK].lo[k][m % MQ_TLAS_BLOCK];
                    float chi = c[m / MQ_TLAS_BLOCK].hi[k][m % MQ_TLAS_BLOCK];
                    lo = clo < lo ? clo : lo;
                    hi = chi > hi ? chi : hi;
                }
                w->lo[k][j] = lo;
                w->hi[k][j] = hi;
            }
            for (int m = 0; m < slots; m++)
                mask |= c[m / MQ_TLAS_BLOCK].mask[m % MQ_TLAS_BLOCK];
            w->mask[j] = mask;
        }
    }
}
