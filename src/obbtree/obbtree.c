/* The OBB tree object: default options, destruction, statistics and the read-only accessors. */
#include "obbtree/obbtree_internal.h"
#include "core/alloc.h"

mq_obbtree_def mq_default_obbtree_def(void)
{
    mq_obbtree_def def = {MQ_OBB_FIT_DITO, 4, NULL, MQ_OBBTREE_DEF_COOKIE};
    return def;
}

void mq_obbtree_destroy(mq_obbtree *t)
{
    if (!t)
        return;
    mq_allocator copy = t->alloc; /* the struct itself is freed last, through the same hook */
    const mq_allocator *a = t->has_alloc ? &copy : NULL;
    mq_top_boxes_free(a, &t->top);
    if (t->map) { /* mq_obbtree_load_mapped: the arrays and the mesh's are in the mapping */
        t->release_map(t->owned_mesh, t->map, t->map_bytes);
    } else {
        mq_free(a, t->nodes, (size_t)t->node_capacity * sizeof *t->nodes);
        mq_free(a, t->tris, (size_t)t->tri_count * sizeof *t->tris);
        mq_free(a, t->ids, (size_t)t->tri_count * sizeof *t->ids);
        mq_mesh_destroy(t->owned_mesh);
    }
    mq_free(a, t, sizeof *t);
}

size_t mq_obbtree_byte_count(const mq_obbtree *t)
{
    return sizeof *t + (size_t)t->node_capacity * sizeof *t->nodes +
           (size_t)t->tri_count * (sizeof *t->tris + sizeof *t->ids) + t->top.doubles * sizeof(double);
}

const mq_mesh *mq_obbtree_mesh(const mq_obbtree *t)
{
    return t->mesh;
}
void mq_obbtree_get_stats(const mq_obbtree *t, mq_obbtree_stats *out)
{
    if (!out)
        return;
    mq_obbtree_stats st = {0};
    if (!t) {
        *out = st;
        return;
    }
    st.triangle_count = t->tri_count;
    st.node_count = t->node_count;
    st.max_depth = t->depth;
    for (uint32_t i = 0; i < t->node_count; i++) {
        const mq_obbtree_node *n = &t->nodes[i];
        st.total_volume += 8.0 * (double)n->half[0] * (double)n->half[1] * (double)n->half[2];
        st.leaf_count += mq_obbtree_node_is_leaf(n);
    }
    st.avg_leaf_size = st.leaf_count ? (double)st.triangle_count / (double)st.leaf_count : 0.0;
    st.bytes_per_triangle = t->tri_count ? (double)mq_obbtree_byte_count(t) / (double)t->tri_count : 0.0;
    *out = st;
}

bool mq_obbtree_root(const mq_obbtree *t, mq_obb *out)
{
    if (t->node_count == 0)
        return false;
    const mq_obbtree_node *n = &t->nodes[0];
    for (int i = 0; i < 3; i++) {
        out->center[i] = n->center[i];
        out->half[i] = n->half[i];
        for (int k = 0; k < 3; k++)
            out->axes[i][k] = n->axes[i][k];
    }
    return true;
}
