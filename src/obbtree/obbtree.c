/* The OBB tree object: default options, destruction and the read-only accessors. */
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
size_t mq_obbtree_node_count(const mq_obbtree *t)
{
    return t->node_count;
}
size_t mq_obbtree_triangle_count(const mq_obbtree *t)
{
    return t->tri_count;
}
uint32_t mq_obbtree_depth(const mq_obbtree *t)
{
    return t->depth;
}

double mq_obbtree_total_volume(const mq_obbtree *t)
{
    double v = 0.0;
    for (uint32_t i = 0; i < t->node_count; i++) {
        const float *h = t->nodes[i].half;
        v += 8.0 * (double)h[0] * (double)h[1] * (double)h[2];
    }
    return v;
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
