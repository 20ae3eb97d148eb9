/*
 * The skeleton shared by the k-DOP tree and the sphere tree (src/kdoptree,
 * src/spheretree, one floor): a binary tree over a mesh's triangles whose
 * bounding volumes live in a separate array owned by each tree kind.
 *
 * Layout: node i's topology word data[i] in depth-first pre-order, so a
 * node's left child is i + 1, its right child is data[i], and every child
 * has a larger index than its parent (a reverse loop over the nodes visits
 * children before parents: what the volume passes and refit use). Leaves
 * point at a contiguous run of triangles, copied from the mesh in tree order
 * beside their mesh ids, as in the OBB tree (obbtree_internal.h).
 *
 * Both trees are built over the same partition (bvt_build.c: binned SAH on the
 * triangles' boxes), so their volumes can be compared leaf for leaf.
 */
#ifndef MQ_KDOPTREE_BVT_H
#define MQ_KDOPTREE_BVT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <meshquery/obbtree.h>

#if defined(__GNUC__)
#define MQ_BVT_INLINE static inline __attribute__((always_inline))
#else
#define MQ_BVT_INLINE static inline
#endif

/* Below this depth splits follow the SAH; from it on the object median,
 * which halves the triangle count per level: with at most 2^27 triangles the
 * depth stays below 30 + 27 < MQ_BVT_STACK. */
#define MQ_BVT_MEDIAN_DEPTH 30u
/* Traversal stack entries: enough for the deepest possible tree. */
#define MQ_BVT_STACK 64
/* Largest leaf and largest mesh, as the OBB tree's. */
#define MQ_BVT_MAX_LEAF 16u
#define MQ_BVT_MAX_TRIANGLES (1u << 27)

/* Relative widening of every node test: float rounding of the query's
 * projections and of the node volumes is a few ulp of the coordinates
 * involved, far below this fraction of them (obbtree_node_tests.h). */
#define MQ_BVT_SLACK 4e-6f

/* Leaf encoding of data[i]: bit 31 set, bits 27..30 = count - 1, bits 0..26 = first. */
#define MQ_BVT_LEAF_BIT 0x80000000u
#define MQ_BVT_FIRST_MASK 0x07FFFFFFu

typedef struct mq_bvt {
    mq_allocator alloc; /* copy of the user's hook (zeroed = default) */
    bool has_alloc;
    const mq_mesh *mesh; /* referenced: hit metadata, refit's indices */
    uint32_t leaf_size;
    uint32_t depth;
    uint32_t node_count;
    uint32_t node_capacity; /* entries allocated in data */
    uint32_t tri_count;
    uint32_t *data;      /* node_capacity topology words, root at 0 */
    mq_triangle *tris;   /* tri_count triangles in tree order */
    uint32_t *ids;       /* tri_count mesh ids, parallel to tris */
    float magnitude;     /* max |x|+|y|+|z| over the corners: scale of rounding margins */
    double lo[3], hi[3]; /* box of every corner (valid when tri_count > 0) */
} mq_bvt;

static inline const mq_allocator *mq_bvt_allocator(const mq_bvt *t)
{
    return t->has_alloc ? &t->alloc : NULL;
}
static inline bool mq_bvt_is_leaf(uint32_t data)
{
    return (data & MQ_BVT_LEAF_BIT) != 0;
}
static inline uint32_t mq_bvt_first(uint32_t data)
{
    return data & MQ_BVT_FIRST_MASK;
}
static inline uint32_t mq_bvt_count(uint32_t data)
{
    return ((data >> 27) & 15u) + 1u;
}

/* Builds the topology and the triangle copies over t->mesh's finite
 * triangles (t->alloc, t->leaf_size and t->mesh set by the caller).
 * MQ_ERR_LIMIT above MQ_BVT_MAX_TRIANGLES, MQ_ERR_OUT_OF_MEMORY (what was
 * allocated stays in t for mq_bvt_free). */
mq_status mq_bvt_build(mq_bvt *t);
/* Frees what mq_bvt_build allocated. */
void mq_bvt_free(mq_bvt *t);
/* Bytes of the topology and triangle arrays. */
size_t mq_bvt_bytes(const mq_bvt *t);
/* Refit: re-reads every triangle's corners from `positions` (3 floats per
 * mesh vertex, NULL for the mesh's own) and recomputes magnitude and box. */
void mq_bvt_reload(mq_bvt *t, const float *positions);
/* The triangles of node i: [*first, *end) in tree order (a reverse pass). */
void mq_bvt_node_ranges(const mq_bvt *t, uint32_t *first, uint32_t *end);

/* Widening of a node test: MQ_BVT_SLACK times the coordinates involved
 * (the tree's corners and the query's own magnitude). */
static inline float mq_bvt_slack(const mq_bvt *t, double query_magnitude)
{
    return (float)(3.0 * MQ_BVT_SLACK * ((double)t->magnitude + query_magnitude));
}

/* Rounding a double outward to float. */
static inline float mq_bvt_down(double x)
{
    float f = (float)x;
    return (double)f > x ? nextafterf(f, -INFINITY) : f;
}
static inline float mq_bvt_up(double x)
{
    float f = (float)x;
    return (double)f < x ? nextafterf(f, INFINITY) : f;
}

#endif
