/**
 * @file
 * meshquery/kdoptree.h — a tree of k-DOPs (discrete oriented polytopes:
 * Klosowski, Held, Mitchell, Sowizral & Zikan, "Efficient Collision Detection
 * Using Bounding Volume Hierarchies of k-DOPs", IEEE TVCG 1998) over a mesh,
 * with the OBB tree's query vocabulary (obbtree.h).
 *
 * Synopsis
 *   mq_default_kdoptree_def()      defaults: k = 18, 4 triangles per leaf
 *   mq_kdoptree_build()            build from a mesh (the mesh must outlive the tree)
 *   mq_kdoptree_destroy()          free it
 *   mq_kdoptree_refit()            vertices moved, same triangles: new volumes, same tree
 *   mq_kdoptree_get_stats()        counts, depth, bytes, volume and surface of the leaves
 *   mq_kdoptree_byte_count(), mq_kdoptree_mesh(), mq_kdoptree_k()
 *   Shape overlap: mq_kdoptree_overlap(), _array(), _any()   (sphere, capsule, OBB, AABB, convex)
 *   Rays:          mq_kdoptree_raycast_closest(), mq_kdoptree_raycast_any()
 *   Distance:      mq_kdoptree_closest_point()
 *   Mesh vs mesh:  mq_kdoptree_collide(), _collide_array(), mq_kdoptree_any_collide()
 *
 * The volume. A k-DOP is the intersection of k/2 slabs lo_i <= n_i . p <= hi_i
 * over fixed directions n_i with components in {-1, 0, 1}: k = 6 the three
 * axes (an AABB), k = 14 the axes and the 4 cube diagonals, k = 18 the axes
 * and the 6 face diagonals (x±y, x±z, y±z), k = 26 all 13. Every node stores
 * the k slab bounds of its triangles' corners, computed in double and rounded
 * outwards to float, so they enclose the triangles exactly.
 *
 * The node tests are slab tests. A query shape is projected once per query
 * onto the k/2 directions (in double, rounded outwards and widened), and a
 * node is entered when every interval meets the node's slab: k comparisons,
 * no products. Rays are clipped slab by slab (the ray–AABB slab test over k/2
 * slabs), closest point prunes by the largest slab gap (and the AABB part's
 * Euclidean gap). Every node test is widened by a few parts per million of the
 * coordinates involved (the mesh's and the query's), so float rounding never
 * culls a triangle the leaf primitive accepts; the leaf tests are the exact
 * primitives of primitives.h, so every query's answer is exactly brute force:
 * the same contract as obbtree.h ("Answers", "Shapes of any finite size",
 * triangle ids, invalid shapes and transforms match nothing).
 *
 * Rotation (mesh vs mesh). A k-DOP's directions are fixed in its mesh's frame,
 * so tree B placed by a rotation is no longer a k-DOP in A's frame.
 * Klosowski et al. re-bound the rotated volume (a hill climb over its
 * vertices); this tree does neither that nor map B's triangles. It tests each
 * pair of nodes with the separating directions of BOTH volumes: B's box (the
 * node's three axis slabs, an OBB once rotated into A's frame) projected onto
 * A's k/2 directions against A's slabs, then A's box projected onto B's k/2
 * directions (in B's frame) against B's slabs. Both projections are exact
 * bounds of a box, so the test is conservative; the leaves then test
 * triangle pairs exactly (mq_overlap_triangle_triangle on B's corners mapped by
 * mq_rigid_apply), as mq_obbtree_collide does. Trees of different k may be
 * paired.
 *
 * Lifetime: the tree REFERENCES its mesh (hit metadata, refit) and keeps its
 * own copy of the triangle corners in tree order. Allocations only while
 * building, through the def's allocator; queries allocate nothing.
 *
 * Thread safety: a built tree is immutable; any number of threads may query
 * it at once. mq_kdoptree_refit and mq_kdoptree_destroy must not race with
 * queries. Callbacks run on the calling thread, inside the query.
 */
#ifndef MESHQUERY_KDOPTREE_H
#define MESHQUERY_KDOPTREE_H

#include <meshquery/bvh.h>
#include <meshquery/mesh.h>
#include <meshquery/obbtree.h> /* mq_overlap_fn, mq_point_hit, mq_rigid, mq_tri_pair, mq_pair_fn */
#include <meshquery/types.h>

/** Opaque k-DOP tree. */
typedef struct mq_kdoptree mq_kdoptree;

/** Largest allowed leaf size. */
#define MQ_KDOPTREE_MAX_LEAF_SIZE 16
/** Largest mesh the tree accepts, in (finite) triangles. */
#define MQ_KDOPTREE_MAX_TRIANGLES (1u << 27)

/** Build options. Start from mq_default_kdoptree_def() and change fields. */
typedef struct mq_kdoptree_def {
    uint32_t k;                    /**< 6, 14, 18 or 26 slab bounds per node (default 18) */
    uint32_t max_leaf_size;        /**< most triangles per leaf, 1..MQ_KDOPTREE_MAX_LEAF_SIZE (default 4) */
    const mq_allocator *allocator; /**< NULL: the library default. Copied into the tree */
    uint32_t internal_cookie;      /**< set by mq_default_kdoptree_def(); DO NOT SET */
} mq_kdoptree_def;

/** The default options: k = 18, leaves of up to 4 triangles, the default allocator. */
MQ_API mq_kdoptree_def mq_default_kdoptree_def(void);

/**
 * Builds a k-DOP tree over a mesh: top-down, binary, split by the binned
 * surface area heuristic over the triangles' boxes (16 bins per axis), at the
 * object median where that cannot separate them and below depth 30.
 * @param mesh the mesh; referenced by the tree, so it must outlive it.
 * @param def options; NULL means mq_default_kdoptree_def().
 * @param[out] out receives the tree on MQ_OK, NULL otherwise.
 * @param diag optional failure detail.
 * @return MQ_OK; MQ_ERR_INVALID_ARG for a NULL mesh or out, a def not made by
 *         mq_default_kdoptree_def(), a k other than 6, 14, 18, 26 or a
 *         max_leaf_size outside 1..16; MQ_ERR_LIMIT above
 *         MQ_KDOPTREE_MAX_TRIANGLES; MQ_ERR_OUT_OF_MEMORY (nothing leaked).
 * Triangles with a non-finite corner are left out; a mesh without finite
 * triangles gives an empty tree that matches nothing.
 */
MQ_API mq_status mq_kdoptree_build(const mq_mesh *mesh, const mq_kdoptree_def *def, mq_kdoptree **out, mq_diag *diag);

/** Frees a tree. NULL is a no-op. */
MQ_API void mq_kdoptree_destroy(mq_kdoptree *tree);

/**
 * Refits the tree after the mesh's vertices moved (same triangles): re-reads
 * the corners and recomputes every node's slabs, keeping the topology. O(n),
 * no allocation. Corners moved to non-finite places bound nothing (their
 * triangles then overlap nothing).
 * @param tree the tree; no query may run on it meanwhile.
 * @param positions 3 floats per mesh vertex, the new positions in mesh order;
 *        NULL re-reads the mesh's own. Read during the call only.
 * @param diag optional failure detail.
 * @return MQ_OK, or MQ_ERR_INVALID_ARG for a NULL tree.
 */
MQ_API mq_status mq_kdoptree_refit(mq_kdoptree *tree, const float *positions, mq_diag *diag);

/** The mesh the tree was built over. */
MQ_API const mq_mesh *mq_kdoptree_mesh(const mq_kdoptree *tree);
/** The tree's k (6, 14, 18 or 26). */
MQ_API uint32_t mq_kdoptree_k(const mq_kdoptree *tree);
/** Bytes the tree owns (slabs, topology, triangle copies, ids, the struct), excluding the mesh. */
MQ_API size_t mq_kdoptree_byte_count(const mq_kdoptree *tree);

/** Shape and size of a built tree. */
typedef struct mq_kdoptree_stats {
    uint64_t triangle_count;   /**< triangles in the tree */
    uint64_t node_count;       /**< nodes, inner and leaves (0 for an empty tree) */
    uint64_t leaf_count;       /**< leaves */
    uint32_t max_depth;        /**< depth of the deepest leaf (0 when the root is a leaf) */
    double total_volume;       /**< sum of the volumes of every node's polytope */
    double leaf_volume;        /**< sum of the volumes of the leaves' polytopes */
    double leaf_area;          /**< sum of the surface areas of the leaves' polytopes */
    double avg_leaf_size;      /**< triangles per leaf (0 for an empty tree) */
    double bytes_per_triangle; /**< mq_kdoptree_byte_count / triangle_count (0 for an empty tree) */
} mq_kdoptree_stats;

/** Fills `out` with the tree's statistics. The volumes clip each node's
 * polytope from its slabs (in double), O(nodes * k^2). All zero for a NULL
 * tree; a no-op for a NULL out. */
MQ_API void mq_kdoptree_get_stats(const mq_kdoptree *tree, mq_kdoptree_stats *out);

/**
 * Every triangle that overlaps the tagged shape (sphere, capsule, OBB, AABB,
 * convex: mq_shape_convex, in the mesh's frame, decided by the exact test of
 * convex.h; touching counts): calls `fn` with its mesh id until it returns
 * false. Leaf
 * test: the shape's primitive (as mq_obbtree_overlap).
 * @param tree the tree; NULL matches nothing.
 * @param shape the shape; NULL, an invalid one or a kind this tree does not
 *        know matches nothing.
 * @param fn called per triangle; NULL makes the call a no-op.
 * @param user passed to `fn`.
 * @return the number of calls made (including one that returned false).
 */
MQ_API size_t mq_kdoptree_overlap(const mq_kdoptree *tree, const mq_shape *shape, mq_overlap_fn fn, void *user);
/** Writes the first `capacity` overlapping triangle ids into `out` (no
 * particular order) and returns how many there are in total. `out` may be
 * NULL when `capacity` is 0. Unknown or invalid shapes: 0. */
MQ_API size_t mq_kdoptree_overlap_array(const mq_kdoptree *tree, const mq_shape *shape, uint32_t *out, size_t capacity);
/** True when some triangle overlaps the shape; stops at the first. */
MQ_API bool mq_kdoptree_overlap_any(const mq_kdoptree *tree, const mq_shape *shape);

/**
 * The nearest hit in [ray->tmin, ray->tmax], with mq_obbtree_raycast_closest's
 * contract (leaf test mq_raycast_triangle, ties in t: the smallest id, the
 * query's culling, filter and stats). Node test: the ray clipped by every slab.
 * @param tree the tree to query.
 * @param ray the ray; an invalid one hits nothing.
 * @param query NULL for the defaults.
 * @param[out] out the hit (may be NULL); on a miss t = INFINITY and
 *        triangle = face = MQ_NO_TRIANGLE.
 * @return true on a hit.
 */
MQ_API bool mq_kdoptree_raycast_closest(const mq_kdoptree *tree, const mq_ray *ray, const mq_ray_query *query,
                                        mq_hit *out);
/** True when some triangle is hit in [ray->tmin, ray->tmax] (stops at the first accepted one). */
MQ_API bool mq_kdoptree_raycast_any(const mq_kdoptree *tree, const mq_ray *ray, const mq_ray_query *query);

/**
 * The closest point of the mesh to `p` within max_distance, with
 * mq_obbtree_closest_point's contract (leaf test mq_closest_point_triangle,
 * ties: the smaller id).
 * @param tree the tree to query.
 * @param p the query point.
 * @param max_distance the search radius (>= 0, may be +INFINITY).
 * @param[out] out the result (untouched when none; may be NULL).
 * @return true when some triangle lies within max_distance; false otherwise
 *         and for a non-finite p or a NaN or negative max_distance.
 */
MQ_API bool mq_kdoptree_closest_point(const mq_kdoptree *tree, const vec3 p, float max_distance, mq_point_hit *out);

/**
 * Every pair (triangle of A, triangle of B placed by `b_to_a` in A's frame)
 * that intersects, with mq_obbtree_collide's contract and answers; node pairs
 * are tested as "Rotation" above says. `a` and `b` may be the same tree and
 * may have different k.
 * @return the number of calls made to `fn` (including one that returned
 *         false); 0 for an invalid transform or a NULL tree or fn.
 */
MQ_API size_t mq_kdoptree_collide(const mq_kdoptree *a, const mq_kdoptree *b, const mq_rigid *b_to_a, mq_pair_fn fn,
                                  void *user);
/** Writes up to `capacity` intersecting pairs and returns how many there are
 * in total. `out` may be NULL when `capacity` is 0. */
MQ_API size_t mq_kdoptree_collide_array(const mq_kdoptree *a, const mq_kdoptree *b, const mq_rigid *b_to_a,
                                        mq_tri_pair *out, size_t capacity);
/** True when some triangle pair intersects; stops at the first. */
MQ_API bool mq_kdoptree_any_collide(const mq_kdoptree *a, const mq_kdoptree *b, const mq_rigid *b_to_a);

#endif /* MESHQUERY_KDOPTREE_H */
