/*
 * Saving and loading a BVH (meshquery/saved.h): the mesh, the BVH's counts and
 * its arena byte for byte. On load the arena's structure is walked once, while
 * it streams in: every reference inside the arena, nodes 64-byte aligned,
 * nodes and leaf blocks in depth-first address order and so never overlapping
 * or reached twice (the tree is a tree, and refit cannot write over a node),
 * empty slots with empty boxes (the traversal never takes them), every
 * triangle in exactly one leaf lane, depth within the traversal stack, and the
 * stored counts equal to what the walk finds.
 */
#include <math.h>
#include <string.h>

#include "bvh/bvh_internal.h"
#include "core/alloc.h"
#include "core/diag.h"
#include "saved/saved_format.h"
#include "mesh/mesh_internal.h"

static void plan_bvh(const mq_bvh *b, mq_saved_plan *p)
{
    memset(p, 0, sizeof *p);
    p->file_kind = MQ_SAVED_KIND_BVH;
    mq_saved_plan_mesh_info(p, b->mesh);
    mq_saved_bvh_info *i = &p->bvh_info;
    i->root = b->root;
    i->node_count = b->node_count;
    i->block_count = b->block_count;
    i->leaf_count = b->leaf_count;
    i->max_depth = b->max_depth;
    i->scale_exp = b->scale_exp;
    memcpy(i->root_box, b->root_box, sizeof i->root_box);
    i->build_ms = b->build_ms;
    i->arena_bytes = b->arena_bytes;
    mq_saved_plan_add(p, MQ_SEC_BVH_INFO, i, sizeof *i);
    mq_saved_plan_mesh_arrays(p, b->mesh);
    mq_saved_plan_add(p, MQ_SEC_BVH_ARENA, b->arena, b->arena ? b->arena_bytes : 0);
}

mq_status mq_bvh_save(const mq_bvh *bvh, const char *path, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!bvh || !path)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "%s is NULL", bvh ? "path" : "bvh");
    mq_saved_plan p;
    plan_bvh(bvh, &p);
    return mq_saved_write_file(&p, path, diag);
}

mq_status mq_bvh_save_memory(const mq_bvh *bvh, const mq_allocator *alloc, void **data, size_t *size, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (data)
        *data = NULL;
    if (size)
        *size = 0;
    if (!bvh || !data || !size)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "%s is NULL", !bvh ? "bvh" : !data ? "data" : "size");
    mq_saved_plan p;
    plan_bvh(bvh, &p);
    return mq_saved_write_memory(&p, alloc, data, size, diag);
}

void mq_saved_free(void *data, size_t size, const mq_allocator *alloc)
{
    mq_free(alloc, data, size);
}

/* ------------------------------------------------------------------------- */
/* Loading                                                                   */
/* ------------------------------------------------------------------------- */

/* The arena is checked while it streams in (mq_saved_read_visit), each node
 * and leaf as soon as its bytes have arrived, so the walk reads them from
 * cache. A depth-first walk that takes a node's children in address order
 * meets the nodes and leaves of a built arena in increasing address order
 * (bvh_layout.h: a node, its leaves' blocks, then its inner children's
 * subtrees); the walk requires exactly that: each node or leaf starts at or
 * after the end of the one before. That one comparison rules out overlaps,
 * anything reached twice and cycles, without a bitmap over the arena. */
typedef struct walk {
    mq_saved_reader *r;
    const mq_bvh *bvh;
    const unsigned char *arena;
    uint64_t arena_at; /* file offset of the arena, for messages */
    uint32_t units;    /* arena size in 32-byte units */
    uint32_t tris;
    uint32_t cursor;    /* first unit after the last node or leaf walked */
    uint32_t fetched;   /* units up to here have been prefetched */
    uint32_t top;       /* entries on the stack */
    uint64_t *tri_seen; /* bit per triangle */
    uint32_t nodes, blocks, leaves, max_depth;
    uint32_t pending; /* lanes in `lane` whose bit is not tested yet */
    /* Leaf lanes wait here between the prefetch of their bitmap word and its
     * test: the ids scatter over the bitmap, and testing each at once would
     * wait for a cache miss per triangle. */
    struct {
        uint32_t id, at; /* triangle id; (unit of its block << 2) | lane */
    } lane[256];
    struct {
        uint32_t ref, depth;
    } stack[MQ_TRAVERSAL_STACK];
} walk;

#define NODE_UNITS ((uint32_t)(sizeof(mq_node8) / MQ_ARENA_UNIT))
#define PREFETCH_UNITS 64u /* 2 KiB */
#define BLOCK_UNITS ((uint32_t)(sizeof(mq_tri_block) / MQ_ARENA_UNIT))

static inline uint32_t ref_unit(uint32_t ref)
{
    return mq_ref_is_leaf(ref) ? mq_ref_leaf_unit(ref) : ref;
}

/* Tests and sets the bitmap bits of the pending lanes, in walk order. */
static mq_status flush_lanes(walk *w)
{
    uint64_t *seen = w->tri_seen;
    for (uint32_t i = 0; i < w->pending; i++) {
        uint32_t id = w->lane[i].id;
        uint64_t bit = 1ull << (id & 63);
        if (seen[id >> 6] & bit) {
            uint32_t at = w->lane[i].at;
            return mq_saved_corrupt(w->r,
                                    w->arena_at + (uint64_t)(at >> 2) * MQ_ARENA_UNIT + offsetof(mq_tri_block, id) +
                                        4 * (uint64_t)(at & 3),
                                    "triangle %u is in two leaf lanes", id);
        }
        seen[id >> 6] |= bit;
    }
    w->pending = 0;
    return MQ_OK;
}

static mq_status walk_leaf(walk *w, uint32_t first, uint32_t count)
{
    const uint32_t lanes = sizeof w->lane / sizeof w->lane[0];
    if (w->pending + count * MQ_TRI_BLOCK > lanes) {
        mq_status st = flush_lanes(w);
        if (st != MQ_OK)
            return st;
    }
    const mq_tri_block *blk = (const mq_tri_block *)(w->arena + (size_t)first * MQ_ARENA_UNIT);
    const uint32_t tris = w->tris;
    const uint64_t *seen = w->tri_seen;
    uint32_t np = w->pending;
    for (uint32_t b = 0; b < count; b++) {
        uint32_t unit = first + b * BLOCK_UNITS, id[MQ_TRI_BLOCK];
        memcpy(id, blk[b].id, sizeof id);
        for (int lane = 0; lane < MQ_TRI_BLOCK; lane++) {
            if (lane > 0 && id[lane] == id[0])
                continue; /* padding (mq_block_lane_is_pad) */
            if (id[lane] >= tris)
                return mq_saved_corrupt(w->r,
                                        w->arena_at + (uint64_t)unit * MQ_ARENA_UNIT + offsetof(mq_tri_block, id) +
                                            4 * (uint64_t)lane,
                                        "triangle id %u beyond the mesh's %u triangles", id[lane], tris);
            __builtin_prefetch(&seen[id[lane] >> 6], 1);
            w->lane[np].id = id[lane];
            w->lane[np].at = unit << 2 | (uint32_t)lane;
            np++;
        }
    }
    w->pending = np;
    w->leaves++;
    w->blocks += count;
    return MQ_OK;
}

static mq_status walk_node(walk *w, uint32_t ref, uint32_t depth)
{
    uint64_t at = w->arena_at + (uint64_t)ref * MQ_ARENA_UNIT;
    w->nodes++;
    if (depth > w->max_depth)
        w->max_depth = depth;
    const mq_node8 *n = (const mq_node8 *)(w->arena + (size_t)ref * MQ_ARENA_UNIT);
    uint32_t kids[MQ_BVH_WIDTH], used = 0;
    for (int i = 0; i < MQ_BVH_WIDTH; i++) {
        uint32_t c = n->child[i];
        if (c != MQ_REF_EMPTY) {
            /* Insertion by decreasing address: the lowest is pushed last, so walked first. */
            uint32_t k = used++, u = ref_unit(c);
            for (; k > 0 && ref_unit(kids[k - 1]) < u; k--)
                kids[k] = kids[k - 1];
            kids[k] = c;
            continue;
        }
        /* The traversal relies on an empty slot's box (+inf..-inf) never being hit. */
        for (int pl = 0; pl < 6; pl++) {
            float want = (pl & 1) ? -INFINITY : INFINITY;
            if (memcmp(&n->bounds[pl][i], &want, sizeof want) != 0)
                return mq_saved_corrupt(w->r, at + offsetof(mq_node8, bounds) + 4 * (uint64_t)(pl * 8 + i),
                                        "empty child slot %d with a non-empty box", i);
        }
    }
    if (!used)
        return mq_saved_corrupt(w->r, at, "inner node without children");
    /* A built tree never needs more than MQ_TRAVERSAL_STACK pending children
     * (MQ_BVH_MAX_DEPTH levels of at most WIDTH - 1 siblings, plus WIDTH). */
    if (w->top + used > MQ_TRAVERSAL_STACK)
        return mq_saved_corrupt(w->r, at, "node %u: more pending children than the traversal stack holds", ref);
    for (uint32_t k = 0; k < used; k++) {
        uint32_t c = kids[k];
        w->stack[w->top].ref = c;
        w->stack[w->top].depth = depth + 1;
        w->top++;
    }
    return MQ_OK;
}

/* Walks every node and leaf whose bytes lie in the first `have` units. */
static mq_status walk_some(walk *w, uint32_t have)
{
    while (w->top > 0) {
        uint32_t ref = w->stack[w->top - 1].ref, depth = w->stack[w->top - 1].depth, first, n;
        if (mq_ref_is_leaf(ref)) {
            first = mq_ref_leaf_unit(ref);
            n = mq_ref_block_count(ref) * BLOCK_UNITS;
            if ((uint64_t)first + n > w->units)
                return mq_saved_corrupt(w->r, w->arena_at, "leaf reference 0x%08x reaches beyond the %u-unit arena",
                                        ref, w->units);
        } else {
            first = ref;
            n = NODE_UNITS;
            if (depth > MQ_BVH_MAX_DEPTH)
                return mq_saved_corrupt(w->r, w->arena_at + (uint64_t)ref * MQ_ARENA_UNIT, "node deeper than %d levels",
                                        MQ_BVH_MAX_DEPTH);
            if ((ref & 1) || (uint64_t)ref + n > w->units)
                return mq_saved_corrupt(w->r, w->arena_at, "node reference %u misaligned or beyond the %u-unit arena",
                                        ref, w->units);
        }
        if (first < w->cursor)
            return mq_saved_corrupt(w->r, w->arena_at + (uint64_t)first * MQ_ARENA_UNIT,
                                    "%s at arena unit %u overlaps a node or leaf already reached, or is out of "
                                    "depth-first order",
                                    mq_ref_is_leaf(ref) ? "leaf" : "node", first);
        if (first + n > have)
            return MQ_OK; /* not here yet */
        w->top--;
        w->cursor = first + n;
        /* The walk moves forward through the arena, reading a line or two of
         * each node and leaf, often just copied there by another thread: keep
         * the lines some way ahead on their way into this core's cache. */
        uint32_t ahead = first + PREFETCH_UNITS < have ? first + PREFETCH_UNITS : have;
        for (uint32_t u = w->fetched > first ? w->fetched : first; u < ahead; u += 2)
            __builtin_prefetch(w->arena + (size_t)u * MQ_ARENA_UNIT);
        if (ahead > w->fetched)
            w->fetched = ahead;
        mq_status st = mq_ref_is_leaf(ref) ? walk_leaf(w, first, mq_ref_block_count(ref)) : walk_node(w, ref, depth);
        if (st != MQ_OK)
            return st;
    }
    return MQ_OK;
}

static mq_status walk_visit(void *ctx, const void *dst, uint64_t have)
{
    (void)dst;
    walk *w = ctx;
    return walk_some(w, (uint32_t)(have / MQ_ARENA_UNIT));
}

/* After the whole arena was walked: the counts, and every triangle in a leaf. */
static mq_status walk_finish(walk *w)
{
    mq_saved_reader *r = w->r;
    const mq_bvh *b = w->bvh;
    if (w->top != 0) /* cannot happen: the whole arena was there for the last visit */
        return mq_saved_corrupt(r, w->arena_at, "the walk did not reach every node");
    mq_status st = flush_lanes(w);
    if (st != MQ_OK)
        return st;
    if (w->nodes != b->node_count || w->blocks != b->block_count || w->leaves != b->leaf_count ||
        w->max_depth != b->max_depth)
        return mq_saved_corrupt(r, mq_saved_offset_of(r, MQ_SEC_BVH_INFO),
                                "counts say %u nodes, %u blocks, %u leaves, depth %u; the tree has %u, %u, %u, %u",
                                b->node_count, b->block_count, b->leaf_count, b->max_depth, w->nodes, w->blocks,
                                w->leaves, w->max_depth);
    size_t words = w->tris / 64;
    for (size_t i = 0; i < words; i++)
        if (~w->tri_seen[i])
            return mq_saved_corrupt(r, w->arena_at, "triangle %zu is in no leaf",
                                    64 * i + (size_t)__builtin_ctzll(~w->tri_seen[i]));
    for (size_t i = 64 * words; i < w->tris; i++)
        if (!(w->tri_seen[i >> 6] >> (i & 63) & 1))
            return mq_saved_corrupt(r, w->arena_at, "triangle %zu is in no leaf", i);
    return MQ_OK;
}

static mq_status check_info(mq_saved_reader *r, const mq_saved_bvh_info *i, const mq_saved_mesh_info *mi)
{
    uint64_t at = mq_saved_offset_of(r, MQ_SEC_BVH_INFO);
    if (i->scale_exp < -126 || i->scale_exp > 126)
        return mq_saved_corrupt(r, at + offsetof(mq_saved_bvh_info, scale_exp),
                                "BVH scale exponent %d outside -126..126", (int)i->scale_exp);
    if (mi->triangle_count >= MQ_BVH_MAX_TRIANGLES)
        return mq_diag_set(r->diag, MQ_ERR_LIMIT, r->path, 0, 0, "%llu triangles exceed the BVH limit of %u",
                           (unsigned long long)mi->triangle_count, MQ_BVH_MAX_TRIANGLES - 1);
    if (i->arena_bytes % MQ_ARENA_UNIT || i->arena_bytes / MQ_ARENA_UNIT >= MQ_ARENA_MAX_UNITS ||
        i->arena_bytes > r->file_size)
        return mq_saved_corrupt(r, at + offsetof(mq_saved_bvh_info, arena_bytes), "arena of %llu bytes",
                                (unsigned long long)i->arena_bytes);
    bool empty = mi->triangle_count == 0;
    /* A non-empty BVH needs its arena: the walk that checks the root (and
     * everything below it) runs over the arena section only. */
    if (empty != (i->root == MQ_REF_EMPTY) || (!empty && !i->arena_bytes) ||
        (empty && (i->arena_bytes || i->node_count || i->block_count || i->leaf_count || i->max_depth)))
        return mq_saved_corrupt(r, at, "root 0x%08x, arena of %llu bytes for %llu triangles", i->root,
                                (unsigned long long)i->arena_bytes, (unsigned long long)mi->triangle_count);
    if (!empty && mq_ref_is_leaf(i->root))
        return mq_saved_corrupt(r, at, "the root 0x%08x is a leaf", i->root);
    return MQ_OK;
}

static mq_status load(mq_saved_reader *r, const mq_allocator *alloc, mq_bvh **out)
{
    mq_saved_mesh_info mi;
    mq_saved_bvh_info bi;
    mq_status st = mq_saved_read_mesh_info(r, &mi);
    if (st == MQ_OK)
        st = mq_saved_read(r, MQ_SEC_BVH_INFO, &bi, sizeof bi);
    if (st == MQ_OK)
        st = check_info(r, &bi, &mi);
    if (st == MQ_OK && bi.arena_bytes)
        st = mq_saved_expect(r, MQ_SEC_BVH_ARENA, bi.arena_bytes);
    mq_mesh *mesh = NULL;
    if (st == MQ_OK)
        st = mq_saved_read_mesh(r, &mi, alloc, &mesh);
    if (st != MQ_OK)
        return st;
    mq_bvh *b = mq_alloc_zero(alloc, sizeof *b, MQ_CACHE_LINE);
    if (!b) {
        mq_saved_mesh_forget(mesh, r->mapped ? r->mem : NULL, (size_t)r->mem_size);
        mq_mesh_destroy(mesh);
        return mq_diag_set(r->diag, MQ_ERR_OUT_OF_MEMORY, r->path, 0, 0, "out of memory loading a BVH");
    }
    if (alloc) {
        b->alloc = *alloc;
        b->has_alloc = true;
    }
    b->mesh = b->owned_mesh = mesh;
    mq_saved_take_map(r, &b->map, &b->map_bytes); /* a mapped file's: freed with the BVH from here on */
    b->release_map = mq_saved_release_map;
    b->root = bi.root;
    memcpy(b->root_box, bi.root_box, sizeof b->root_box);
    b->node_count = bi.node_count;
    b->block_count = bi.block_count;
    b->leaf_count = bi.leaf_count;
    b->max_depth = bi.max_depth;
    mq_bvh_set_scale(b, bi.scale_exp);
    b->build_ms = bi.build_ms;
    walk w; /* about 6 KB */
    w.tri_seen = NULL;
    size_t seen_bytes = ((size_t)mi.triangle_count / 64 + 1) * sizeof(uint64_t);
    if (bi.arena_bytes) {
        b->arena = mq_saved_array(r, alloc, MQ_SEC_BVH_ARENA, (size_t)bi.arena_bytes);
        if (b->arena) {
            b->arena_bytes = (size_t)bi.arena_bytes;
            if (!r->mapped) /* a copy, read at random as a built tree's (flatten.c) */
                mq_advise_huge_pages(alloc, b->arena, b->arena_bytes);
        }
        uint64_t *seen = b->arena ? mq_alloc_zero(alloc, seen_bytes, MQ_CACHE_LINE) : NULL;
        if (!seen) {
            st = mq_diag_set(r->diag, MQ_ERR_OUT_OF_MEMORY, r->path, 0, 0, "out of memory loading a %llu-byte BVH",
                             (unsigned long long)bi.arena_bytes);
        } else {
            memset(&w, 0, offsetof(walk, lane));
            w.r = r;
            w.bvh = b;
            w.arena = b->arena;
            w.arena_at = mq_saved_offset_of(r, MQ_SEC_BVH_ARENA);
            w.units = (uint32_t)(bi.arena_bytes / MQ_ARENA_UNIT);
            w.tris = (uint32_t)mi.triangle_count;
            w.tri_seen = seen;
            w.stack[0].ref = b->root; /* check_info: an inner node */
            w.stack[0].depth = 1;
            w.top = 1;
            st = mq_saved_read_visit(r, MQ_SEC_BVH_ARENA, b->arena, bi.arena_bytes, walk_visit, &w);
        }
    }
    if (st == MQ_OK)
        st = mq_saved_finish(r);
    if (st == MQ_OK && w.tri_seen)
        st = walk_finish(&w);
    mq_free(alloc, w.tri_seen, seen_bytes);
    if (st == MQ_OK && mq_bvh_set_top_boxes(b) != MQ_OK) /* the arena is checked */
        st = mq_diag_set(r->diag, MQ_ERR_OUT_OF_MEMORY, r->path, 0, 0, "out of memory loading a BVH");
    if (st != MQ_OK) {
        mq_bvh_destroy(b);
        return st;
    }
    *out = b;
    return MQ_OK;
}

/* Opens the input, loads, closes: what the three public loads share. */
static mq_status load_input(const mq_saved_input *in, const mq_allocator *alloc, mq_bvh **out, mq_diag *diag)
{
    if (out)
        *out = NULL;
    mq_saved_reader r;
    mq_status st = mq_saved_open_input(&r, in, MQ_SAVED_KIND_BVH, out != NULL, diag);
    if (st != MQ_OK)
        return st;
    st = load(&r, alloc, out);
    mq_saved_close(&r);
    return st;
}

mq_status mq_bvh_load(const char *path, const mq_allocator *alloc, mq_bvh **out, mq_diag *diag)
{
    return load_input(&(mq_saved_input){MQ_SAVED_FROM_FILE, path, NULL, 0}, alloc, out, diag);
}

mq_status mq_bvh_load_mapped(const char *path, const mq_allocator *alloc, mq_bvh **out, mq_diag *diag)
{
    return load_input(&(mq_saved_input){MQ_SAVED_FROM_MAPPED, path, NULL, 0}, alloc, out, diag);
}

mq_status mq_bvh_load_memory(const void *data, size_t size, const mq_allocator *alloc, mq_bvh **out, mq_diag *diag)
{
    return load_input(&(mq_saved_input){MQ_SAVED_FROM_MEMORY, NULL, data, size}, alloc, out, diag);
}
