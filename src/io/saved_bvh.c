/*
 * Saving and loading a BVH (meshquery/saved.h): the mesh, the BVH's counts and
 * its arena byte for byte. On load the arena's structure is walked once: every
 * reference inside the arena, nodes 64-byte aligned, nodes and leaf blocks
 * never overlapping or reached twice (so the tree is a tree, and refit cannot
 * write over a node), empty slots with empty boxes (the traversal never takes
 * them), every triangle in exactly one leaf lane, depth within the traversal
 * stack, and the stored counts equal to what the walk finds.
 */
#include <math.h>
#include <string.h>

#include "build/bvh_internal.h"
#include "build/leaf_pack.h"
#include "core/alloc.h"
#include "core/diag.h"
#include "io/saved_format.h"
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

void mq_saved_free(void *data, size_t size, const mq_allocator *alloc) { mq_free(alloc, data, size); }

/* ------------------------------------------------------------------------- */
/* Loading                                                                   */
/* ------------------------------------------------------------------------- */

typedef struct walk {
    mq_saved_reader *r;
    const mq_bvh *bvh;
    uint64_t arena_at; /* file offset of the arena, for messages */
    size_t units;
    uint64_t *claimed;  /* bit per 32-byte unit: part of a node or block already */
    uint64_t *tri_seen; /* bit per triangle */
    uint32_t nodes, blocks, leaves, max_depth;
} walk;

/* Marks units [unit, unit + n) (n <= 20, inside the arena) as taken; false when one already was. */
static inline bool claim_bits(uint64_t *bits, uint32_t unit, uint32_t n)
{
    size_t w = unit >> 6;
    unsigned s = unit & 63;
    uint64_t run = (1ull << n) - 1;
    uint64_t lo = run << s, hi = s + n > 64 ? run >> (64 - s) : 0;
    if ((bits[w] & lo) | (hi & bits[w + 1]))
        return false;
    bits[w] |= lo;
    if (hi)
        bits[w + 1] |= hi;
    return true;
}

static mq_status claim(walk *w, uint32_t unit, uint32_t n, const char *what)
{
    if (!claim_bits(w->claimed, unit, n))
        return mq_saved_corrupt(w->r, w->arena_at + (uint64_t)unit * MQ_ARENA_UNIT,
                                "%s at arena unit %u overlaps a node or leaf already reached", what, unit);
    return MQ_OK;
}

static mq_status walk_leaf(walk *w, uint32_t ref)
{
    const uint32_t per_block = sizeof(mq_tri_block) / MQ_ARENA_UNIT;
    uint32_t first = mq_ref_leaf_unit(ref), count = mq_ref_block_count(ref);
    if ((uint64_t)first + (uint64_t)count * per_block > w->units)
        return mq_saved_corrupt(w->r, w->arena_at, "leaf reference 0x%08x reaches beyond the %zu-unit arena", ref,
                                w->units);
    mq_status st = claim(w, first, count * per_block, "leaf");
    if (st != MQ_OK)
        return st;
    const mq_tri_block *blk = mq_arena_leaf(w->bvh->arena, ref);
    uint32_t tris = (uint32_t)w->bvh->mesh->triangle_count;
    for (uint32_t b = 0; b < count; b++)
        for (int lane = 0; lane < MQ_TRI_BLOCK; lane++) {
            if (mq_block_lane_is_pad(&blk[b], lane))
                continue;
            uint32_t id = blk[b].id[lane];
            uint64_t at = w->arena_at + ((uint64_t)first + (uint64_t)b * per_block) * MQ_ARENA_UNIT +
                          offsetof(mq_tri_block, id) + 4 * (uint64_t)lane;
            if (id >= tris)
                return mq_saved_corrupt(w->r, at, "triangle id %u beyond the mesh's %u triangles", id, tris);
            uint64_t bit = 1ull << (id & 63);
            if (w->tri_seen[id >> 6] & bit)
                return mq_saved_corrupt(w->r, at, "triangle %u is in two leaf lanes", id);
            w->tri_seen[id >> 6] |= bit;
        }
    w->leaves++;
    w->blocks += count;
    return MQ_OK;
}

static mq_status walk_node(walk *w, uint32_t ref, uint32_t depth)
{
    uint64_t at = w->arena_at + (uint64_t)ref * MQ_ARENA_UNIT;
    if (depth > MQ_BVH_MAX_DEPTH)
        return mq_saved_corrupt(w->r, at, "node deeper than %d levels", MQ_BVH_MAX_DEPTH);
    if ((ref & 1) || (uint64_t)ref + sizeof(mq_node8) / MQ_ARENA_UNIT > w->units)
        return mq_saved_corrupt(w->r, w->arena_at, "node reference %u misaligned or beyond the %zu-unit arena", ref,
                                w->units);
    mq_status st = claim(w, ref, sizeof(mq_node8) / MQ_ARENA_UNIT, "node");
    if (st != MQ_OK)
        return st;
    w->nodes++;
    if (depth > w->max_depth)
        w->max_depth = depth;
    const mq_node8 *n = mq_arena_node(w->bvh->arena, ref);
    /* Start loading every child before the first is walked: the walk is bound
     * by cache misses over an arena far larger than the cache. */
    for (int i = 0; i < MQ_BVH_WIDTH; i++) {
        uint32_t c = n->child[i];
        if (c == MQ_REF_EMPTY)
            continue;
        size_t off = mq_ref_is_leaf(c) ? (size_t)mq_ref_leaf_unit(c) * MQ_ARENA_UNIT + offsetof(mq_tri_block, id)
                                       : (size_t)c * MQ_ARENA_UNIT + offsetof(mq_node8, child);
        if (off < w->bvh->arena_bytes)
            __builtin_prefetch((const char *)w->bvh->arena + off);
    }
    int used = 0;
    for (int i = 0; i < MQ_BVH_WIDTH; i++) {
        uint32_t c = n->child[i];
        if (c == MQ_REF_EMPTY) {
            /* The traversal relies on an empty slot's box (+inf..-inf) never being hit. */
            for (int pl = 0; pl < 6; pl++) {
                float want = (pl & 1) ? -INFINITY : INFINITY;
                if (memcmp(&n->bounds[pl][i], &want, sizeof want) != 0)
                    return mq_saved_corrupt(w->r, at + offsetof(mq_node8, bounds) + 4 * (uint64_t)(pl * 8 + i),
                                            "empty child slot %d with a non-empty box", i);
            }
            continue;
        }
        used++;
        st = mq_ref_is_leaf(c) ? walk_leaf(w, c) : walk_node(w, c, depth + 1);
        if (st != MQ_OK)
            return st;
    }
    if (!used)
        return mq_saved_corrupt(w->r, at, "inner node without children");
    return MQ_OK;
}

static mq_status check_tree(mq_saved_reader *r, const mq_bvh *b, const mq_allocator *a)
{
    uint64_t at = mq_saved_offset_of(r, MQ_SEC_BVH_ARENA);
    size_t tris = b->mesh->triangle_count;
    if (b->root == MQ_REF_EMPTY)
        return MQ_OK; /* the info check made sure there is nothing else */
    walk w = {r, b, at, b->arena_bytes / MQ_ARENA_UNIT, NULL, NULL, 0, 0, 0, 0};
    size_t unit_words = w.units / 64 + 2, bytes = (unit_words + tris / 64 + 1) * sizeof(uint64_t);
    uint64_t *seen = mq_alloc_zero(a, bytes, 64);
    if (!seen)
        return mq_diag_set(r->diag, MQ_ERR_OUT_OF_MEMORY, r->path, 0, 0, "out of memory checking a BVH");
    w.claimed = seen;
    w.tri_seen = seen + unit_words;
    mq_status st = walk_node(&w, b->root, 1);
    uint64_t info_at = mq_saved_offset_of(r, MQ_SEC_BVH_INFO);
    if (st == MQ_OK && (w.nodes != b->node_count || w.blocks != b->block_count || w.leaves != b->leaf_count ||
                        w.max_depth != b->max_depth))
        st = mq_saved_corrupt(r, info_at,
                              "counts say %u nodes, %u blocks, %u leaves, depth %u; the tree has %u, %u, %u, %u",
                              b->node_count, b->block_count, b->leaf_count, b->max_depth, w.nodes, w.blocks, w.leaves,
                              w.max_depth);
    for (size_t i = 0; i < tris && st == MQ_OK; i++)
        if (!(w.tri_seen[i >> 6] >> (i & 63) & 1))
            st = mq_saved_corrupt(r, at, "triangle %zu is in no leaf", i);
    mq_free(a, seen, bytes);
    return st;
}

static mq_status check_info(mq_saved_reader *r, const mq_saved_bvh_info *i, const mq_saved_mesh_info *mi)
{
    uint64_t at = mq_saved_offset_of(r, MQ_SEC_BVH_INFO);
    if (i->scale_exp < -126 || i->scale_exp > 126)
        return mq_saved_corrupt(r, at + offsetof(mq_saved_bvh_info, scale_exp), "BVH scale exponent %d outside -126..126",
                                (int)i->scale_exp);
    if (mi->triangle_count >= MQ_BVH_MAX_TRIANGLES)
        return mq_diag_set(r->diag, MQ_ERR_LIMIT, r->path, 0, 0, "%llu triangles exceed the BVH limit of %u",
                           (unsigned long long)mi->triangle_count, MQ_BVH_MAX_TRIANGLES - 1);
    if (i->arena_bytes % MQ_ARENA_UNIT || i->arena_bytes / MQ_ARENA_UNIT >= MQ_ARENA_MAX_UNITS ||
        i->arena_bytes > r->file_size)
        return mq_saved_corrupt(r, at + offsetof(mq_saved_bvh_info, arena_bytes), "arena of %llu bytes",
                                (unsigned long long)i->arena_bytes);
    bool empty = mi->triangle_count == 0;
    if (empty != (i->root == MQ_REF_EMPTY) || (empty && (i->arena_bytes || i->node_count || i->block_count ||
                                                          i->leaf_count || i->max_depth)))
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
        mq_mesh_destroy(mesh);
        return mq_diag_set(r->diag, MQ_ERR_OUT_OF_MEMORY, r->path, 0, 0, "out of memory loading a BVH");
    }
    if (alloc) {
        b->alloc = *alloc;
        b->has_alloc = true;
    }
    b->mesh = b->owned_mesh = mesh;
    b->root = bi.root;
    memcpy(b->root_box, bi.root_box, sizeof b->root_box);
    b->node_count = bi.node_count;
    b->block_count = bi.block_count;
    b->leaf_count = bi.leaf_count;
    b->max_depth = bi.max_depth;
    mq_bvh_set_scale(b, bi.scale_exp);
    b->build_ms = bi.build_ms;
    if (bi.arena_bytes) {
        b->arena = mq_alloc(alloc, (size_t)bi.arena_bytes, MQ_CACHE_LINE);
        if (!b->arena)
            st = mq_diag_set(r->diag, MQ_ERR_OUT_OF_MEMORY, r->path, 0, 0, "out of memory loading a %llu-byte BVH",
                             (unsigned long long)bi.arena_bytes);
        else
            b->arena_bytes = (size_t)bi.arena_bytes;
        if (st == MQ_OK)
            st = mq_saved_read(r, MQ_SEC_BVH_ARENA, b->arena, bi.arena_bytes);
    }
    if (st == MQ_OK)
        st = mq_saved_finish(r);
    if (st == MQ_OK)
        st = check_tree(r, b, alloc);
    if (st != MQ_OK) {
        mq_bvh_destroy(b);
        return st;
    }
    *out = b;
    return MQ_OK;
}

mq_status mq_bvh_load(const char *path, const mq_allocator *alloc, mq_bvh **out, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!out)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "out is NULL");
    *out = NULL;
    if (!path)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "path is NULL");
    mq_saved_reader r;
    mq_status st = mq_saved_open_file(&r, path, MQ_SAVED_KIND_BVH, diag);
    if (st != MQ_OK)
        return st;
    st = load(&r, alloc, out);
    mq_saved_close(&r);
    return st;
}

mq_status mq_bvh_load_memory(const void *data, size_t size, const mq_allocator *alloc, mq_bvh **out, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!out)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "out is NULL");
    *out = NULL;
    mq_saved_reader r;
    mq_status st = mq_saved_open_memory(&r, data, size, MQ_SAVED_KIND_BVH, diag);
    if (st != MQ_OK)
        return st;
    return load(&r, alloc, out);
}
