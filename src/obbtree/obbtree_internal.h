/*
 * The OBB tree's storage, shared by the builder (src/bvh, src/obbtree) and the queries
 * (src/bvh/kernels).
 *
 * Layout: one flat array of 64-byte nodes in depth-first pre-order, so a
 * node's left child is the next node and only the right child's index is
 * stored. Leaves point at a contiguous run of triangles, copied from the mesh
 * in tree order (36 B each) beside their mesh ids, so a leaf test reads one
 * block of memory instead of three scattered vertices per triangle.
 */
#ifndef MQ_OBBTREE_OBBTREE_INTERNAL_H
#define MQ_OBBTREE_OBBTREE_INTERNAL_H

#include <meshquery/obbtree.h>

#include <math.h>

#include "bvh/top_boxes.h"
#include "core/mat3d.h"

/* Below this depth splits go at the mean; from it on, at the median, which
 * halves the triangle count per level: with at most 2^27 triangles,
 * depth <= 30 + 27 < MQ_OBBTREE_STACK. */
#define MQ_OBBTREE_MEDIAN_DEPTH 30u
/* Traversal stack entries: enough for the deepest possible tree. */
#define MQ_OBBTREE_STACK 64

/* Cookie marking a def made by mq_default_obbtree_def() (box2d's internalValue). */
#define MQ_OBBTREE_DEF_COOKIE 0x0BB7DEF5u

/* Leaf encoding of mq_obbtree_node.data: bit 31 set, bits 27..30 = count - 1,
 * bits 0..26 = first triangle. Inner nodes store the right child's index. */
#define MQ_OBBTREE_LEAF_BIT 0x80000000u
#define MQ_OBBTREE_FIRST_MASK 0x07FFFFFFu

/* An oriented box { center + sum s_i axes[i] : |s_i| <= half[i] }. The stored
 * float frame is what queries use; half extents were computed in double against
 * exactly that frame, so every corner of the node's triangles projects within them. */
typedef struct mq_obbtree_node {
    float center[3];
    float half[3];
    float axes[3][3]; /* axes[i]: box axis i in mesh space (rows of the mesh-to-box rotation) */
    uint32_t data;    /* see MQ_OBBTREE_LEAF_BIT */
} mq_obbtree_node;

_Static_assert(sizeof(mq_obbtree_node) == 64, "one node per cache line");

struct mq_obbtree {
    mq_allocator alloc; /* copy of the user's hook (zeroed = default) */
    bool has_alloc;
    const mq_mesh *mesh; /* referenced, for raycast hit metadata */
    mq_mesh *owned_mesh; /* == mesh for a loaded tree (meshquery/saved.h), freed with it; else NULL */
    mq_obb_fit fit;
    uint32_t leaf_size;
    uint32_t depth;
    uint32_t node_count;
    uint32_t node_capacity; /* allocated nodes (== node_count after the final shrink, unless that failed) */
    uint32_t tri_count;
    mq_obbtree_node *nodes; /* node_capacity entries, root at 0 */
    mq_triangle *tris;      /* tri_count triangles in tree order */
    uint32_t *ids;          /* tri_count mesh ids, parallel to tris */
    /* A tree loaded by mq_obbtree_load_mapped: the file's private mapping,
     * which holds nodes, tris, ids and the owned mesh's large arrays (not
     * freed one by one), and the saved format's hook that frees the owned
     * mesh and unmaps it (called by mq_obbtree_destroy). NULL otherwise. */
    void *map;
    size_t map_bytes;
    void (*release_map)(mq_mesh *owned_mesh, void *map, size_t map_bytes);
    float magnitude;  /* max |x|+|y|+|z| over the corners: scale for rounding margins */
    mq_top_boxes top; /* the top boxes, for instances' world boxes (top_boxes.h) */
};

static inline const mq_allocator *mq_obbtree_allocator(const mq_obbtree *t)
{
    return t->has_alloc ? &t->alloc : NULL;
}

static inline bool mq_obbtree_node_is_leaf(const mq_obbtree_node *n)
{
    return (n->data & MQ_OBBTREE_LEAF_BIT) != 0;
}
static inline uint32_t mq_obbtree_leaf_first(const mq_obbtree_node *n)
{
    return n->data & MQ_OBBTREE_FIRST_MASK;
}
static inline uint32_t mq_obbtree_leaf_count(const mq_obbtree_node *n)
{
    return ((n->data >> 27) & 15u) + 1u;
}
static inline uint32_t mq_obbtree_leaf_data(uint32_t first, uint32_t count)
{
    return MQ_OBBTREE_LEAF_BIT | ((count - 1u) << 27) | first;
}

/* The corners' edge directions of a box whose float axes (rows) are
 * orthonormal only to float precision: as a slab set { p : |axes_i . (p -
 * centre)| <= half_i }, which is what its half extents bound, its corners are
 * centre + E s with E the axes' inverse (column i: box axis i); the
 * transpose would miss them by about 1e-7 of their distance from the centre.
 * False for degenerate axes (|det| <= 1e-6). */
static inline bool mq_obb_axes_inverse(const float axes[3][3], double edge[3][3])
{
    double a[3][3];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            a[i][k] = axes[i][k];
    double det = mq_mat3d_det(a);
    return fabs(det) > 1e-6 && mq_mat3d_inverse(a, det, edge);
}

/* Sets t->top from its nodes: the boxes of the deepest level (breadth first
 * from the root, leaves kept) that fits in MQ_TOP_BOXES_MAX. MQ_ERR_OUT_OF_MEMORY, t->top empty, when its block cannot
 * be allocated. */
mq_status mq_obbtree_set_top_boxes(mq_obbtree *t);

#endif
