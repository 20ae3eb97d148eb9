/*
 * Saving and loading an OBB tree (meshquery/saved.h): the mesh, the tree's
 * counts, its nodes, triangle copies and mesh ids. On load the node array is
 * walked once in pre-order: every node is visited exactly once and in order
 * (the left child is the next node, the right child's index is the node after
 * the left subtree), the leaves' triangle runs tile the triangle copies in
 * order, every mesh id is in range and the depth fits the query stacks.
 */
#include <string.h>

#include "obbtree/obbtree_internal.h"
#include "core/alloc.h"
#include "core/diag.h"
#include "saved/saved_format.h"
#include "mesh/mesh_internal.h"

static void plan_tree(const mq_obbtree *t, mq_saved_plan *p)
{
    memset(p, 0, sizeof *p);
    p->file_kind = MQ_SAVED_KIND_OBBTREE;
    mq_saved_plan_mesh_info(p, t->mesh);
    mq_saved_obb_info *i = &p->obb_info;
    i->fit = (uint32_t)t->fit;
    i->leaf_size = t->leaf_size;
    i->depth = t->depth;
    i->node_count = t->node_count;
    i->tri_count = t->tri_count;
    i->magnitude = t->magnitude;
    mq_saved_plan_add(p, MQ_SEC_OBB_INFO, i, sizeof *i);
    mq_saved_plan_mesh_arrays(p, t->mesh);
    mq_saved_plan_add(p, MQ_SEC_OBB_NODES, t->nodes, (uint64_t)t->node_count * sizeof *t->nodes);
    mq_saved_plan_add(p, MQ_SEC_OBB_TRIS, t->tris, (uint64_t)t->tri_count * sizeof *t->tris);
    mq_saved_plan_add(p, MQ_SEC_OBB_IDS, t->ids, (uint64_t)t->tri_count * sizeof *t->ids);
}

mq_status mq_obbtree_save(const mq_obbtree *tree, const char *path, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!tree || !path)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "%s is NULL", tree ? "path" : "tree");
    mq_saved_plan p;
    plan_tree(tree, &p);
    return mq_saved_write_file(&p, path, diag);
}

mq_status mq_obbtree_save_memory(const mq_obbtree *tree, const mq_allocator *alloc, void **data, size_t *size,
                                 mq_diag *diag)
{
    mq_diag_clear(diag);
    if (data)
        *data = NULL;
    if (size)
        *size = 0;
    if (!tree || !data || !size)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "%s is NULL",
                           !tree   ? "tree"
                           : !data ? "data"
                                   : "size");
    mq_saved_plan p;
    plan_tree(tree, &p);
    return mq_saved_write_memory(&p, alloc, data, size, diag);
}

/* ------------------------------------------------------------------------- */
/* Loading                                                                   */
/* ------------------------------------------------------------------------- */

static mq_status check_info(mq_saved_reader *r, const mq_saved_obb_info *i, const mq_saved_mesh_info *mi)
{
    uint64_t at = mq_saved_offset_of(r, MQ_SEC_OBB_INFO);
    for (int k = 0; k < 5; k++)
        if (i->reserved[k])
            return mq_saved_corrupt(r, at + offsetof(mq_saved_obb_info, reserved), "reserved tree fields not zero");
    if (i->fit > MQ_OBB_FIT_AABB || i->leaf_size < 1 || i->leaf_size > MQ_OBBTREE_MAX_LEAF_SIZE)
        return mq_saved_corrupt(r, at, "fit %u, leaf size %u", i->fit, i->leaf_size);
    if (i->tri_count > MQ_OBBTREE_MAX_TRIANGLES)
        return mq_diag_set(r->diag, MQ_ERR_LIMIT, r->path, 0, 0, "%u triangles exceed the OBB tree limit of %u",
                           i->tri_count, MQ_OBBTREE_MAX_TRIANGLES);
    if (i->tri_count > mi->triangle_count)
        return mq_saved_corrupt(r, at, "%u triangles in the tree, %llu in the mesh", i->tri_count,
                                (unsigned long long)mi->triangle_count);
    if ((i->tri_count == 0) != (i->node_count == 0) || (uint64_t)i->node_count > 2 * (uint64_t)i->tri_count)
        return mq_saved_corrupt(r, at, "%u nodes for %u triangles", i->node_count, i->tri_count);
    if (i->depth >= MQ_OBBTREE_STACK)
        return mq_saved_corrupt(r, at, "depth %u beyond the query stack's %d", i->depth, MQ_OBBTREE_STACK - 1);
    return MQ_OK;
}

/* Pre-order walk with an explicit stack of pending right children. */
static mq_status check_tree(mq_saved_reader *r, const mq_obbtree *t)
{
    if (t->node_count == 0)
        return MQ_OK;
    uint64_t nodes_at = mq_saved_offset_of(r, MQ_SEC_OBB_NODES);
    uint32_t stack[MQ_OBBTREE_STACK];
    uint32_t depth_of[MQ_OBBTREE_STACK];
    int top = 0;
    uint32_t i = 0, depth = 0, expected = 0, cursor = 0, max_depth = 0;
    for (;;) {
        uint64_t at = nodes_at + (uint64_t)i * sizeof(mq_obbtree_node) + offsetof(mq_obbtree_node, data);
        if (i != expected || i >= t->node_count)
            return mq_saved_corrupt(r, at, "node %u is not where pre-order puts node %u", i, expected);
        expected++;
        const mq_obbtree_node *n = &t->nodes[i];
        if (depth > max_depth)
            max_depth = depth;
        if (mq_obbtree_node_is_leaf(n)) {
            uint32_t first = mq_obbtree_leaf_first(n), count = mq_obbtree_leaf_count(n);
            if (first != cursor || (uint64_t)first + count > t->tri_count)
                return mq_saved_corrupt(r, at, "leaf node %u holds triangles %u..%u, expected from %u (of %u)", i,
                                        first, first + count - 1, cursor, t->tri_count);
            cursor += count;
            if (top == 0)
                break;
            top--;
            i = stack[top];
            depth = depth_of[top];
            continue;
        }
        if (depth + 1 >= MQ_OBBTREE_STACK)
            return mq_saved_corrupt(r, at, "node %u deeper than the query stack allows", i);
        if (n->data <= i + 1 || n->data >= t->node_count)
            return mq_saved_corrupt(r, at, "node %u: right child %u out of range", i, n->data);
        stack[top] = n->data;
        depth_of[top] = depth + 1;
        top++;
        i++;
        depth++;
    }
    uint64_t info_at = mq_saved_offset_of(r, MQ_SEC_OBB_INFO);
    if (expected != t->node_count || cursor != t->tri_count || max_depth != t->depth)
        return mq_saved_corrupt(r, info_at, "counts say %u nodes, %u triangles, depth %u; the tree has %u, %u, %u",
                                t->node_count, t->tri_count, t->depth, expected, cursor, max_depth);
    uint32_t tris = (uint32_t)t->mesh->triangle_count, bad = 0;
    for (uint32_t k = 0; k < t->tri_count; k++)
        bad |= (uint32_t)(t->ids[k] >= tris);
    if (bad)
        for (uint32_t k = 0; k < t->tri_count; k++)
            if (t->ids[k] >= tris)
                return mq_saved_corrupt(r, mq_saved_offset_of(r, MQ_SEC_OBB_IDS) + 4 * (uint64_t)k,
                                        "triangle id %u beyond the mesh's %u triangles", t->ids[k], tris);
    return MQ_OK;
}

static mq_status load(mq_saved_reader *r, const mq_allocator *alloc, mq_obbtree **out)
{
    mq_saved_mesh_info mi;
    mq_saved_obb_info oi;
    mq_status st = mq_saved_read_mesh_info(r, &mi);
    if (st == MQ_OK)
        st = mq_saved_read(r, MQ_SEC_OBB_INFO, &oi, sizeof oi);
    if (st == MQ_OK)
        st = check_info(r, &oi, &mi);
    if (st == MQ_OK && oi.node_count) {
        st = mq_saved_expect(r, MQ_SEC_OBB_NODES, (uint64_t)oi.node_count * sizeof(mq_obbtree_node));
        if (st == MQ_OK)
            st = mq_saved_expect(r, MQ_SEC_OBB_TRIS, (uint64_t)oi.tri_count * sizeof(mq_triangle));
        if (st == MQ_OK)
            st = mq_saved_expect(r, MQ_SEC_OBB_IDS, (uint64_t)oi.tri_count * sizeof(uint32_t));
    }
    mq_mesh *mesh = NULL;
    if (st == MQ_OK)
        st = mq_saved_read_mesh(r, &mi, alloc, &mesh);
    if (st != MQ_OK)
        return st;
    mq_obbtree *t = mq_alloc_zero(alloc, sizeof *t, MQ_CACHE_LINE);
    if (!t) {
        mq_saved_mesh_forget(mesh, r->mapped ? r->mem : NULL, (size_t)r->mem_size);
        mq_mesh_destroy(mesh);
        return mq_diag_set(r->diag, MQ_ERR_OUT_OF_MEMORY, r->path, 0, 0, "out of memory loading an OBB tree");
    }
    if (alloc) {
        t->alloc = *alloc;
        t->has_alloc = true;
    }
    t->mesh = t->owned_mesh = mesh;
    mq_saved_take_map(r, &t->map, &t->map_bytes); /* a mapped file's: freed with the tree from here on */
    t->release_map = mq_saved_release_map;
    t->fit = (mq_obb_fit)oi.fit;
    t->leaf_size = oi.leaf_size;
    t->depth = oi.depth;
    t->magnitude = oi.magnitude;
    if (oi.node_count) {
        /* Sizes first: mq_obbtree_destroy frees by them. */
        size_t node_bytes = (size_t)oi.node_count * sizeof *t->nodes;
        size_t tri_bytes = (size_t)oi.tri_count * sizeof *t->tris, id_bytes = (size_t)oi.tri_count * sizeof *t->ids;
        t->nodes = mq_saved_array(r, alloc, MQ_SEC_OBB_NODES, node_bytes);
        if (t->nodes)
            t->node_count = t->node_capacity = oi.node_count;
        t->tris = t->nodes ? mq_saved_array(r, alloc, MQ_SEC_OBB_TRIS, tri_bytes) : NULL;
        t->ids = t->tris ? mq_saved_array(r, alloc, MQ_SEC_OBB_IDS, id_bytes) : NULL;
        if (t->ids) {
            t->tri_count = oi.tri_count;
            st = mq_saved_read(r, MQ_SEC_OBB_NODES, t->nodes, node_bytes);
            if (st == MQ_OK)
                st = mq_saved_read(r, MQ_SEC_OBB_TRIS, t->tris, tri_bytes);
            if (st == MQ_OK)
                st = mq_saved_read(r, MQ_SEC_OBB_IDS, t->ids, id_bytes);
        } else {
            /* tri_count is still 0: free the triangle copies by hand, destroy frees the nodes.
             * (Never with a mapping: its arrays do not fail.) */
            mq_free(alloc, t->tris, tri_bytes);
            t->tris = NULL;
            st = mq_diag_set(r->diag, MQ_ERR_OUT_OF_MEMORY, r->path, 0, 0, "out of memory loading an OBB tree");
        }
    }
    if (st == MQ_OK)
        st = mq_saved_finish(r);
    if (st == MQ_OK)
        st = check_tree(r, t);
    if (st == MQ_OK && mq_obbtree_set_top_boxes(t) != MQ_OK) /* the tree is checked */
        st = mq_diag_set(r->diag, MQ_ERR_OUT_OF_MEMORY, r->path, 0, 0, "out of memory loading an OBB tree");
    if (st != MQ_OK) {
        mq_obbtree_destroy(t);
        return st;
    }
    *out = t;
    return MQ_OK;
}

/* Opens the input, loads, closes: what the three public loads share. */
static mq_status load_input(const mq_saved_input *in, const mq_allocator *alloc, mq_obbtree **out, mq_diag *diag)
{
    if (out)
        *out = NULL;
    mq_saved_reader r;
    mq_status st = mq_saved_open_input(&r, in, MQ_SAVED_KIND_OBBTREE, out != NULL, diag);
    if (st != MQ_OK)
        return st;
    st = load(&r, alloc, out);
    mq_saved_close(&r);
    return st;
}

mq_status mq_obbtree_load(const char *path, const mq_allocator *alloc, mq_obbtree **out, mq_diag *diag)
{
    return load_input(&(mq_saved_input){MQ_SAVED_FROM_FILE, path, NULL, 0}, alloc, out, diag);
}

mq_status mq_obbtree_load_mapped(const char *path, const mq_allocator *alloc, mq_obbtree **out, mq_diag *diag)
{
    return load_input(&(mq_saved_input){MQ_SAVED_FROM_MAPPED, path, NULL, 0}, alloc, out, diag);
}

mq_status mq_obbtree_load_memory(const void *data, size_t size, const mq_allocator *alloc, mq_obbtree **out,
                                 mq_diag *diag)
{
    return load_input(&(mq_saved_input){MQ_SAVED_FROM_MEMORY, NULL, data, size}, alloc, out, diag);
}
