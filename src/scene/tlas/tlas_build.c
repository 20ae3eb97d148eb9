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
    uint32_t left;     /* inner: left child; leaf: the instance id */
    uint32_t right;    /* inner: right child; leaf: BIN_LEAF */
    uint32_t leaves;   /* instances below */
    uint32_t plan;     /* inner: where its collapse plan starts in the plan pools */
    uint8_t wide_left; /* inner: as a wide node, the slots of its left child */
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

/* A reference to one instance during the build: its box centroid (computed
 * once) and the bin of the current split. The partition moves these 32-byte
 * references, not the boxes. */
typedef struct build_ref {
    double c[3];   /* the centroid of the instance's box */
    uint32_t prim; /* index into build_ctx.prims */
    uint32_t bin;  /* the bin of the split being made */
} build_ref;

/* The bounds of a range's centroids. */
typedef struct cbox {
    double lo[3], hi[3];
} cbox;

typedef struct build_ctx {
    bin_node *nodes;
    const mq_tlas_prim *prims; /* the instances' boxes */
    build_ref *refs;           /* partitioned in place */
    uint32_t count;            /* binary nodes made */
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

static void point_grow(cbox *b, const double x[3])
{
    for (int k = 0; k < 3; k++) {
        b->lo[k] = x[k] < b->lo[k] ? x[k] : b->lo[k];
        b->hi[k] = x[k] > b->hi[k] ? x[k] : b->hi[k];
    }
}

static double half_area(const double lo[3], const double hi[3])
{
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = hi[k] > lo[k] ? hi[k] - lo[k] : 0.0;
    return d[0] * d[1] + d[1] * d[2] + d[2] * d[0];
}

/*
 * The split position of refs[begin, end): SAH over BINS bins of the widest
 * centroid axis; begin + half when the centroids coincide, the depth is too
 * large, or no bin boundary separates them. `cb`: the range's centroid
 * bounds, or NULL (then computed here). When the range was partitioned,
 * *have is set and *lb, *rb hold the two sides' centroid bounds (gathered by
 * the partition, which reads every centroid anyway): a child then needs no
 * pass of its own for them.
 */
static uint32_t split(build_ctx *c, uint32_t begin, uint32_t end, uint32_t depth, const cbox *cb, cbox *lb, cbox *rb,
                      bool *have)
{
    uint32_t mid = begin + (end - begin) / 2;
    *have = false;
    if (depth >= MQ_TLAS_SAH_DEPTH)
        return mid;
    build_ref *refs = c->refs;
    cbox own;
    if (!cb) {
        box_clear(own.lo, own.hi);
        for (uint32_t i = begin; i < end; i++)
            point_grow(&own, refs[i].c);
        cb = &own;
    }
    const double *clo = cb->lo, *chi = cb->hi;
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
    if (end - begin == 2) {
        /* Two centroids apart along the axis fall into the first and the
         * last bin, and every boundary between them costs the same: the SAH
         * below would put the smaller centroid on the left. */
        if (refs[begin].c[axis] > refs[begin + 1].c[axis]) {
            build_ref t = refs[begin];
            refs[begin] = refs[begin + 1];
            refs[begin + 1] = t;
        }
        return begin + 1;
    }

    /* A bin's box is set by its first instance: the sweeps below read only
     * the boxes of non-empty bins (every range has some, and a small range
     * mostly empty ones). */
    uint32_t count[BINS] = {0};
    double blo[BINS][3], bhi[BINS][3];
    const double origin = clo[axis];
    for (uint32_t i = begin; i < end; i++) {
        build_ref *r = &refs[i];
        int b = (int)((r->c[axis] - origin) * scale);
        b = b < 0 ? 0 : (b >= BINS ? BINS - 1 : b);
        r->bin = (uint32_t)b;
        const mq_tlas_prim *p = &c->prims[r->prim];
        if (count[b]++ == 0) {
            for (int k = 0; k < 3; k++) {
                blo[b][k] = p->lo[k];
                bhi[b][k] = p->hi[k];
            }
        } else {
            box_grow(blo[b], bhi[b], p->lo, p->hi);
        }
    }
    /* Sweep from the right for the right-hand costs, then from the left. An
     * empty bin changes neither side's box nor count: its boundary costs
     * what the one after (right-hand) or before (left-hand) costs, and a
     * later boundary of equal cost is never taken. */
    double right_cost[BINS + 1];
    double lo[3], hi[3];
    box_clear(lo, hi);
    uint32_t n = 0;
    right_cost[BINS] = 0.0;
    for (int b = BINS - 1; b > 0; b--) {
        if (count[b] == 0) {
            right_cost[b] = right_cost[b + 1];
            continue;
        }
        box_grow(lo, hi, blo[b], bhi[b]);
        n += count[b];
        right_cost[b] = half_area(lo, hi) * n;
    }
    box_clear(lo, hi);
    n = 0;
    int best = -1;
    double best_cost = INFINITY;
    for (int b = 1; b < BINS; b++) {
        if (count[b - 1] == 0)
            continue;
        box_grow(lo, hi, blo[b - 1], bhi[b - 1]);
        n += count[b - 1];
        if (n == end - begin)
            break;
        double cost = half_area(lo, hi) * n + right_cost[b];
        if (cost < best_cost) {
            best_cost = cost;
            best = b;
        }
    }
    if (best < 0)
        return mid;
    /* Partition: bins below `best` to the left (the sides' bounds kept in
     * locals, which the stores into refs cannot alias). */
    cbox l, r;
    box_clear(l.lo, l.hi);
    box_clear(r.lo, r.hi);
    uint32_t i = begin, j = end;
    while (i < j) {
        build_ref *e = &refs[i];
        if (e->bin < (uint32_t)best) {
            point_grow(&l, e->c);
            i++;
        } else {
            point_grow(&r, e->c);
            build_ref t = *e;
            *e = refs[--j];
            refs[j] = t;
        }
    }
    if (i == begin || i == end)
        return mid;
    *lb = l;
    *rb = r;
    *have = true;
    return i;
}

static uint32_t build(build_ctx *c, uint32_t begin, uint32_t end, uint32_t depth, const cbox *cb)
{
    uint32_t index = c->count++;
    bin_node *node = &c->nodes[index];
    if (end - begin == 1) {
        const mq_tlas_prim *r = &c->prims[c->refs[begin].prim];
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
    cbox lb, rb;
    bool have;
    uint32_t m = split(c, begin, end, depth, cb, &lb, &rb, &have);
    uint32_t l = build(c, begin, m, depth + 1, have ? &lb : NULL);
    uint32_t r = build(c, m, end, depth + 1, have ? &rb : NULL);
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
 * node and k >= 2, its two children spread over the k slots. From k = m on
 * (m: the subtree's instances) every instance has a slot of its own and
 * nothing changes: an inner node's plan keeps plan_len = min(m,
 * MQ_TLAS_WIDTH) entries, packed one after the other in one pool, so the
 * plans of the many small subtrees take few bytes (and few fresh pages).
 */
typedef struct plan_entry {
    float cost;
    uint8_t left_slots; /* slots given to the left child (0: one slot) */
} plan_entry;

typedef struct collapse_plan {
    plan_entry *entry; /* inner node b, k slots: entry[bin[b].plan + k - 1] */
    uint32_t used;     /* entries handed out */
} collapse_plan;

static int plan_len(const bin_node *n)
{
    return n->leaves < MQ_TLAS_WIDTH ? (int)n->leaves : MQ_TLAS_WIDTH;
}

/* The plan of a leaf: 0 in any number of slots. */
static const plan_entry leaf_plan[MQ_TLAS_WIDTH];

static const plan_entry *plan_of(const bin_node *bin, const collapse_plan *plan, uint32_t b)
{
    return bin[b].right == BIN_LEAF ? leaf_plan : plan->entry + bin[b].plan;
}

/* The plan of inner node b (its children's plans made). Leaves have none. */
static void plan_node(bin_node *bin, collapse_plan *plan, uint32_t b)
{
    bin_node *n = &bin[b];
    const plan_entry *lp = plan_of(bin, plan, n->left), *rp = plan_of(bin, plan, n->right);
    /* A subtree of m instances costs 0 in m slots or more (each instance in
     * its own slot): a child never needs more slots than its instances, which
     * keeps the plan of the many small subtrees short. */
    const int nl = (int)bin[n->left].leaves, nr = (int)bin[n->right].leaves;
    float spread[MQ_TLAS_WIDTH + 1]; /* best spread of the children over j slots */
    uint8_t split[MQ_TLAS_WIDTH + 1];
    /* From nl + nr slots on every instance has its own slot: more slots
     * change nothing, so the DP stops there. */
    const int top = nl + nr < MQ_TLAS_WIDTH ? nl + nr : MQ_TLAS_WIDTH;
    for (int j = 2; j <= top; j++) {
        float best = INFINITY;
        uint8_t at = 1;
        int i_lo = j - nr > 1 ? j - nr : 1, i_hi = nl < j - 1 ? nl : j - 1;
        for (int i = i_lo; i <= i_hi; i++) {
            float c = lp[i - 1].cost + rp[j - i - 1].cost;
            if (c < best) {
                best = c;
                at = (uint8_t)i;
            }
        }
        spread[j] = best;
        split[j] = at;
    }
    float one = (float)half_area(n->lo, n->hi) + spread[top];
    n->wide_left = split[top];
    n->plan = plan->used; /* top == plan_len(n) */
    plan->used += (uint32_t)top;
    plan_entry *p = plan->entry + n->plan;
    p[0] = (plan_entry){one, 0};
    for (int k = 2; k <= top; k++) {
        bool spread_wins = spread[k] < one;
        p[k - 1] = (plan_entry){spread_wins ? spread[k] : one, spread_wins ? split[k] : 0};
    }
}

typedef struct collapse_ctx {
    const bin_node *bin;
    const collapse_plan *plan;
    mq_tlas_block *blocks;
    uint32_t count; /* blocks used */
} collapse_ctx;

/* Appends the slots of subtree b placed into at most k slots, as planned. */
static void plan_slots(const collapse_ctx *c, uint32_t b, int k, uint32_t *kids, int *n_kids)
{
    const bin_node *n = &c->bin[b];
    int len = plan_len(n);
    int left = n->right == BIN_LEAF ? 0 : c->plan->entry[n->plan + (k < len ? k : len) - 1].left_slots;
    if (left == 0) {
        kids[(*n_kids)++] = b;
        return;
    }
    plan_slots(c, n->left, left, kids, n_kids);
    plan_slots(c, n->right, k - left, kids, n_kids);
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
        int left = bn->wide_left;
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

/* The scratch's parts: the prims and their references, then the binary
 * tree (at most 2 * slots - 1 nodes). The plans (at most MQ_TLAS_WIDTH
 * entries for each of fewer than `slots` inner nodes) are made after the
 * binary build, when the prims and references are no longer read: their
 * pool starts where those were, on pages already touched. */
typedef struct scratch_parts {
    mq_tlas_prim *prims;
    build_ref *refs;
    plan_entry *plans;
    bin_node *bin;
} scratch_parts;

static size_t round64(size_t bytes)
{
    return (bytes + 63) & ~(size_t)63;
}

/* The scratch's size for `slots` instances; its parts' places in `base` when given. */
static size_t scratch_layout(uint32_t slots, char *base, scratch_parts *out)
{
    size_t n = slots;
    size_t refs = round64(n * sizeof(mq_tlas_prim));
    size_t build_end = refs + round64(n * sizeof(build_ref));
    size_t plans_end = round64(n * MQ_TLAS_WIDTH * sizeof(plan_entry));
    size_t bin = build_end > plans_end ? build_end : plans_end;
    if (base) {
        out->prims = (mq_tlas_prim *)(void *)base;
        out->refs = (build_ref *)(void *)(base + refs);
        out->plans = (plan_entry *)(void *)base;
        out->bin = (bin_node *)(void *)(base + bin);
    }
    return bin + round64(2 * n * sizeof(bin_node));
}

size_t mq_tlas_scratch_bytes(uint32_t slots)
{
    scratch_parts parts;
    return scratch_layout(slots, NULL, &parts);
}

uint32_t mq_tlas_build(const mq_instance_rec *recs, uint32_t slots, mq_tlas_block *nodes, void *scratch, uint32_t *root,
                       uint32_t *walk_stack)
{
    scratch_parts sp = {NULL, NULL, NULL, NULL};
    scratch_layout(slots, scratch, &sp);
    mq_tlas_prim *prims = sp.prims;
    build_ref *refs = sp.refs;
    bin_node *bin = sp.bin;
    uint32_t n = 0;
    /* Free ids and empty hierarchies can never be reached: leave them out. */
    for (uint32_t i = 0; i < slots; i++)
        if (mq_instance_rec_live(&recs[i]) && !world_box_empty(&recs[i].world_box)) {
            /* Compact copies: the build's passes then read 56 bytes per
             * instance instead of touching 576-byte records. */
            mq_tlas_prim *p = &prims[n];
            build_ref *r = &refs[n];
            for (int k = 0; k < 3; k++) {
                p->lo[k] = recs[i].world_box.min[k];
                p->hi[k] = recs[i].world_box.max[k];
                r->c[k] = 0.5 * (p->lo[k] + p->hi[k]);
            }
            p->id = recs[i].id;
            p->mask = recs[i].mask;
            r->prim = n;
            r->bin = 0;
            n++;
        }
    *root = 0;
    *walk_stack = 0;
    if (n == 0)
        return 0;
    build_ctx c = {bin, prims, refs, 0};
    build(&c, 0, n, 0, NULL);
    collapse_plan plan = {sp.plans, 0};  /* over the prims and references, read no more */
    for (uint32_t b = c.count; b-- > 0;) /* preorder: children after their parent */
        if (bin[b].right != BIN_LEAF)
            plan_node(bin, &plan, b);
    /* Every wide node but a one-instance root has at least 2 slots, so at most
     * n / 2 of them per block on average: n blocks always do. */
    collapse_ctx cc = {bin, &plan, nodes, 0};
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
