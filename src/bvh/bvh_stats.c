/* mq_bvh_get_stats: counts and the SAH cost of a built tree. */
#include "bvh/bvh_internal.h"
#include "mesh/mesh_internal.h"

/* Half area of child slot i of a node; 0 for an empty box. */
static double slot_area(const mq_node8 *n, int i)
{
    double dx = (double)n->bounds[MQ_HI_X][i] - n->bounds[MQ_LO_X][i];
    double dy = (double)n->bounds[MQ_HI_Y][i] - n->bounds[MQ_LO_Y][i];
    double dz = (double)n->bounds[MQ_HI_Z][i] - n->bounds[MQ_LO_Z][i];
    if (!(dx >= 0.0 && dy >= 0.0 && dz >= 0.0))
        return 0.0;
    return dx * dy + dy * dz + dz * dx;
}

/* Sum over the subtree of area * cost (node step 1, block test 1), excluding the node's own step. */
static double subtree_cost(const mq_bvh *bvh, uint32_t index, uint64_t *slots)
{
    const mq_node8 *n = mq_arena_node(bvh->arena, index);
    double c = 0.0;
    for (int i = 0; i < MQ_BVH_WIDTH; i++) {
        uint32_t ref = n->child[i];
        if (ref == MQ_REF_EMPTY)
            continue;
        (*slots)++;
        double a = slot_area(n, i);
        if (mq_ref_is_leaf(ref))
            c += a * mq_ref_block_count(ref);
        else
            c += a + subtree_cost(bvh, ref, slots);
    }
    return c;
}

void mq_bvh_get_stats(const mq_bvh *bvh, mq_bvh_stats *out)
{
    if (!out)
        return;
    *out = (mq_bvh_stats){0};
    if (!bvh)
        return;
    out->triangle_count = bvh->mesh->triangle_count;
    out->node_count = bvh->node_count;
    out->leaf_count = bvh->leaf_count;
    out->block_count = bvh->block_count;
    out->max_depth = bvh->max_depth;
    out->width = MQ_BVH_WIDTH;
    out->build_ms = bvh->build_ms;
    out->bytes_per_triangle = out->triangle_count ? (double)mq_bvh_byte_count(bvh) / (double)out->triangle_count : 0.0;
    if (bvh->root == MQ_REF_EMPTY)
        return;
    const float *b = bvh->root_box;
    double dx = (double)b[1] - b[0], dy = (double)b[3] - b[2], dz = (double)b[5] - b[4];
    /* root_box is in the mesh's units, the node boxes are scaled (bvh_internal.h). */
    double root_area = (dx * dy + dy * dz + dz * dx) * (double)bvh->scale * (double)bvh->scale;
    uint64_t slots = 0;
    double c = subtree_cost(bvh, bvh->root, &slots);
    out->sah_cost = root_area > 0.0 ? 1.0 + c / root_area : 0.0;
    out->avg_leaf_size = bvh->leaf_count ? (double)out->triangle_count / (double)bvh->leaf_count : 0.0;
    out->avg_children = bvh->node_count ? (double)slots / (double)bvh->node_count : 0.0;
}
