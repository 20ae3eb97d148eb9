/* Depth-first layout of the built tree into one arena (see flatten.h, bvh_layout.h). */
#include "bvh/flatten.h"

#include <stdatomic.h>
#include <string.h>

#include "bvh/leaf_pack.h"
#include "core/alloc.h"
#include "core/pool.h"
#include "core/prefetch.h"

/* A leaf to fill: its place in the arena and its refs. */
typedef struct leaf_job {
    uint32_t unit, first_ref, count;
} leaf_job;

typedef struct flat_ctx {
    const mq_wide_tree *tree;
    const mq_prim_ref *refs;
    const float *positions;
    const uint32_t *indices;
    float scale;    /* bvh->scale: the arena's geometry is written scaled (bvh_internal.h) */
    char *arena;    /* NULL in the sizing pass */
    leaf_job *jobs; /* NULL in the sizing pass */
    size_t units;   /* next free 32-byte unit */
    uint32_t nodes, blocks, leaves, max_depth;
} flat_ctx;

static uint32_t leaf_blocks(uint32_t count)
{
    return (count + MQ_TRI_BLOCK - 1) / MQ_TRI_BLOCK;
}

/* Reserves a leaf's blocks; they are filled later, in parallel (fill_leaves). */
static uint32_t emit_leaf(flat_ctx *c, uint32_t first_ref, uint32_t count)
{
    uint32_t nblocks = leaf_blocks(count);
    uint32_t unit = (uint32_t)c->units;
    c->units += nblocks * (sizeof(mq_tri_block) / MQ_ARENA_UNIT);
    c->blocks += nblocks;
    if (c->jobs)
        c->jobs[c->leaves] = (leaf_job){unit, first_ref, count};
    c->leaves++;
    return mq_ref_make_leaf(unit, nblocks);
}

static void fill_leaf(const flat_ctx *c, const leaf_job *j)
{
    mq_tri_block *blk = (mq_tri_block *)(c->arena + (size_t)j->unit * MQ_ARENA_UNIT);
    for (uint32_t i = 0; i < j->count; i++)
        mq_block_set_lane(&blk[i / MQ_TRI_BLOCK], (int)(i % MQ_TRI_BLOCK), c->refs[j->first_ref + i].id, c->positions,
                          c->indices, c->scale);
    if (j->count % MQ_TRI_BLOCK)
        mq_block_pad(&blk[leaf_blocks(j->count) - 1], (int)(j->count % MQ_TRI_BLOCK));
}

/* Leaves ahead of the one being filled whose triangles' index rows, and
 * whose corners, are asked for early: the refs are in tree order, the mesh's
 * arrays in file order, so each row and corner is mostly a cache miss, and
 * the index row must arrive before the corners can be asked for. */
#define FILL_AHEAD_INDICES 8
#define FILL_AHEAD_CORNERS 4

static void prefetch_indices(const flat_ctx *c, const leaf_job *j)
{
    for (uint32_t i = 0; i < j->count; i++)
        mq_prefetch(c->indices + 3 * (size_t)c->refs[j->first_ref + i].id);
}

static void prefetch_corners(const flat_ctx *c, const leaf_job *j)
{
    for (uint32_t i = 0; i < j->count; i++) {
        const uint32_t *tri = c->indices + 3 * (size_t)c->refs[j->first_ref + i].id;
        for (int k = 0; k < 3; k++)
            mq_prefetch(c->positions + 3 * (size_t)tri[k]);
    }
}

typedef struct fill_work {
    const flat_ctx *c;
    atomic_uint next;
} fill_work;

static void fill_worker(void *arg, uint32_t index)
{
    (void)index;
    fill_work *w = arg;
    const uint32_t chunk = 256;
    for (;;) {
        uint32_t begin = atomic_fetch_add(&w->next, chunk);
        if (begin >= w->c->leaves)
            break;
        uint32_t end = begin + chunk < w->c->leaves ? begin + chunk : w->c->leaves;
        const flat_ctx *c = w->c;
        for (uint32_t i = begin; i < end; i++) {
            if (i + FILL_AHEAD_INDICES < c->leaves)
                prefetch_indices(c, &c->jobs[i + FILL_AHEAD_INDICES]);
            if (i + FILL_AHEAD_CORNERS < c->leaves)
                prefetch_corners(c, &c->jobs[i + FILL_AHEAD_CORNERS]);
            fill_leaf(c, &c->jobs[i]);
        }
    }
}

/* Gathers every leaf's corners from the mesh: the costly part of the layout,
 * split over the build's threads (each leaf's blocks are its own). */
static void fill_leaves(const flat_ctx *c, uint32_t threads)
{
    fill_work w = {c, 0};
    atomic_init(&w.next, 0);
    uint32_t useful = c->leaves / 1024 + 1;
    mq_run_parallel(threads < useful ? threads : useful, fill_worker, &w);
}

/* A slot's box, scaled by s (a power of two: exact for normal results). */
static void write_slot(mq_node8 *n, int i, const mq_bounds *box, uint32_t ref, float s)
{
    bool used = ref != MQ_REF_EMPTY;
    n->bounds[MQ_LO_X][i] = used ? box->lo[0] * s : INFINITY;
    n->bounds[MQ_HI_X][i] = used ? box->hi[0] * s : -INFINITY;
    n->bounds[MQ_LO_Y][i] = used ? box->lo[1] * s : INFINITY;
    n->bounds[MQ_HI_Y][i] = used ? box->hi[1] * s : -INFINITY;
    n->bounds[MQ_LO_Z][i] = used ? box->lo[2] * s : INFINITY;
    n->bounds[MQ_HI_Z][i] = used ? box->hi[2] * s : -INFINITY;
    n->child[i] = ref;
    n->pad[i] = 0;
}

/* Lays out the subtree of bnode `id`: the node (64-byte aligned), its leaves'
 * blocks, then its inner children. Returns the node's reference. */
static uint32_t emit_node(flat_ctx *c, uint32_t id, uint32_t depth)
{
    const mq_bnode *b = mq_wide_node(c->tree, id);
    if (c->units & 1) { /* 64-byte alignment; the gap is zeroed so that saved files are reproducible */
        if (c->arena)
            memset(c->arena + c->units * MQ_ARENA_UNIT, 0, MQ_ARENA_UNIT);
        c->units++;
    }
    uint32_t ref = (uint32_t)c->units;
    c->units += sizeof(mq_node8) / MQ_ARENA_UNIT;
    c->nodes++;
    if (depth > c->max_depth)
        c->max_depth = depth;
    uint32_t child[MQ_BVH_WIDTH];
    for (uint32_t i = 0; i < MQ_BVH_WIDTH; i++)
        child[i] = i < b->n && b->count[i] ? emit_leaf(c, b->child[i], b->count[i]) : MQ_REF_EMPTY;
    for (uint32_t i = 0; i < b->n; i++)
        if (!b->count[i])
            child[i] = emit_node(c, b->child[i], depth + 1);
    if (c->arena) {
        mq_node8 *n = (mq_node8 *)(c->arena + (size_t)ref * MQ_ARENA_UNIT);
        for (int i = 0; i < MQ_BVH_WIDTH; i++)
            write_slot(n, i, &b->box[i], child[i], c->scale);
    }
    return ref;
}

/* The union of the root's child boxes, in the mesh's units (from the tree,
 * as the arena's are scaled). */
static void root_box(mq_bvh *bvh, const mq_bnode *root)
{
    for (int p = 0; p < 6; p++) {
        int k = p / 2;
        float v = (p & 1) ? -INFINITY : INFINITY;
        for (uint32_t i = 0; i < root->n; i++) {
            float x = (p & 1) ? root->box[i].hi[k] : root->box[i].lo[k];
            v = (p & 1) ? (x > v ? x : v) : (x < v ? x : v);
        }
        bvh->root_box[p] = v;
    }
}

mq_status mq_flatten(mq_bvh *bvh, const mq_wide_tree *tree, const mq_prim_ref *refs, const float *positions,
                     const uint32_t *indices, uint32_t threads)
{
    flat_ctx sizing = {tree, refs, positions, indices, bvh->scale, NULL, NULL, 0, 0, 0, 0, 0};
    emit_node(&sizing, tree->root, 1);
    if (sizing.units >= MQ_ARENA_MAX_UNITS)
        return MQ_ERR_LIMIT;
    const mq_allocator *a = mq_bvh_allocator(bvh);
    size_t bytes = sizing.units * MQ_ARENA_UNIT, job_bytes = (size_t)sizing.leaves * sizeof(leaf_job);
    char *arena = mq_alloc(a, bytes, MQ_CACHE_LINE);
    leaf_job *jobs = mq_alloc(a, job_bytes, 16);
    if (!arena || !jobs) {
        mq_free(a, arena, bytes);
        mq_free(a, jobs, job_bytes);
        return MQ_ERR_OUT_OF_MEMORY;
    }
    mq_advise_huge_pages(a, arena, bytes);
    flat_ctx c = {tree, refs, positions, indices, bvh->scale, arena, jobs, 0, 0, 0, 0, 0};
    bvh->root = emit_node(&c, tree->root, 1);
    fill_leaves(&c, threads);
    mq_free(a, jobs, job_bytes);
    bvh->arena = arena;
    bvh->arena_bytes = bytes;
    bvh->node_count = c.nodes;
    bvh->block_count = c.blocks;
    bvh->leaf_count = c.leaves;
    bvh->max_depth = c.max_depth;
    root_box(bvh, mq_wide_node(tree, tree->root));
    return MQ_OK;
}
