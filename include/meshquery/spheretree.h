/**
 * @file
 * meshquery/spheretree.h — a tree of bounding spheres over a mesh (the
 * survey's third volume, after the AABB and the OBB; FCL's kIOS and Hubbard's
 * sphere trees are relatives) with the OBB tree's query vocabulary (obbtree.h).
 *
 * Synopsis
 *   mq_default_spheretree_def()    defaults: 4 triangles per leaf
 *   mq_spheretree_build()          build from a mesh (the mesh must outlive the tree)
 *   mq_spheretree_destroy()        free it
 *   mq_spheretree_refit()          vertices moved, same triangles: new spheres, same tree
 *   mq_spheretree_get_stats()      counts, depth, bytes, volume and surface of the leaves
 *   mq_spheretree_byte_count(), mq_spheretree_mesh()
 *   Shape overlap: mq_spheretree_overlap(), _array(), _any()   (sphere, capsule, OBB, AABB, convex)
 *   Rays:          mq_spheretree_raycast_closest(), mq_spheretree_raycast_any()
 *   Distance:      mq_spheretree_closest_point()
 *   Mesh vs mesh:  mq_spheretree_collide(), _collide_array(), mq_spheretree_any_collide()
 *
 * The volume. The tree has the k-DOP tree's topology (binned SAH over the
 * triangles' boxes, kdoptree.h), and each node a sphere around every corner
 * of its triangles: the smaller of the sphere centred on their box and
 * Ritter's sphere (1990), its centre stored in float and its radius the
 * largest corner distance from that centre, computed in double and rounded
 * up, so it encloses the triangles exactly. The loosest volume of the survey,
 * and the cheapest to test and to move: a sphere is the same under rotation,
 * so mesh vs mesh tests each node pair with one distance.
 *
 * Node tests are distances in double (sphere, capsule, box and ray against a
 * ball; a node's distance lower bound for closest point), widened by a few
 * parts per million of the coordinates involved so that float rounding never
 * culls a triangle the leaf primitive accepts; leaf tests are the exact
 * primitives of primitives.h. Every query's answer is exactly brute force,
 * under the contract of obbtree.h ("Answers", "Shapes of any finite size",
 * triangle ids, invalid shapes and transforms match nothing).
 *
 * Lifetime: the tree REFERENCES its mesh (hit metadata, refit) and keeps its
 * own copy of the triangle corners in tree order. Allocations only while
 * building (and refitting: none), through the def's allocator; queries
 * allocate nothing.
 *
 * Thread safety: a built tree is immutable; any number of threads may query
 * it at once. mq_spheretree_refit and mq_spheretree_destroy must not race
 * with queries. Callbacks run on the calling thread, inside the query.
 */
#ifndef MESHQUERY_SPHERETREE_H
#define MESHQUERY_SPHERETREE_H

#include <meshquery/bvh.h>
#include <meshquery/mesh.h>
#include <meshquery/obbtree.h> /* mq_overlap_fn, mq_point_hit, mq_rigid, mq_tri_pair, mq_pair_fn */
#include <meshquery/types.h>

/** Opaque sphere tree. */
typedef struct mq_spheretree mq_spheretree;

/** Largest allowed leaf size. */
#define MQ_SPHERETREE_MAX_LEAF_SIZE 16
/** Largest mesh the tree accepts, in (finite) triangles. */
#define MQ_SPHERETREE_MAX_TRIANGLES (1u << 27)

/** Build options. Start from mq_default_spheretree_def() and change fields. */
typedef struct mq_spheretree_def {
    uint32_t max_leaf_size;        /**< most triangles per leaf, 1..MQ_SPHERETREE_MAX_LEAF_SIZE (default 4) */
    const mq_allocator *allocator; /**< NULL: the library default. Copied into the tree */
    uint32_t internal_cookie;      /**< set by mq_default_spheretree_def(); DO NOT SET */
} mq_spheretree_def;

/** The default options: leaves of up to 4 triangles, the default allocator. */
MQ_API mq_spheretree_def mq_default_spheretree_def(void);

/**
 * Builds a sphere tree over a mesh (the topology of mq_kdoptree_build).
 * @param mesh the mesh; referenced by the tree, so it must outlive it.
 * @param def options; NULL means mq_default_spheretree_def().
 * @param[out] out receives the tree on MQ_OK, NULL otherwise.
 * @param diag optional failure detail.
 * @return MQ_OK; MQ_ERR_INVALID_ARG for a NULL mesh or out, a def not made by
 *         mq_default_spheretree_def() or a max_leaf_size outside 1..16;
 *         MQ_ERR_LIMIT above MQ_SPHERETREE_MAX_TRIANGLES; MQ_ERR_OUT_OF_MEMORY
 *         (nothing leaked). Triangles with a non-finite corner are left out; a
 *         mesh without finite triangles gives an empty tree.
 */
MQ_API mq_status mq_spheretree_build(const mq_mesh *mesh, const mq_spheretree_def *def, mq_spheretree **out,
                                     mq_diag *diag);

/** Frees a tree. NULL is a no-op. */
MQ_API void mq_spheretree_destroy(mq_spheretree *tree);

/**
 * Refits the tree after the mesh's vertices moved (same triangles): re-reads
 * the corners and recomputes every sphere, keeping the topology;
 * O(n log n), no allocation. Corners moved to non-finite places bound nothing.
 * @param tree the tree; no query may run on it meanwhile.
 * @param positions 3 floats per mesh vertex in mesh order; NULL re-reads the mesh's own.
 * @param diag optional failure detail.
 * @return MQ_OK, or MQ_ERR_INVALID_ARG for a NULL tree.
 */
MQ_API mq_status mq_spheretree_refit(mq_spheretree *tree, const float *positions, mq_diag *diag);

/** The mesh the tree was built over. */
MQ_API const mq_mesh *mq_spheretree_mesh(const mq_spheretree *tree);
/** Bytes the tree owns (spheres, topology, triangle copies, ids, the struct), excluding the mesh. */
MQ_API size_t mq_spheretree_byte_count(const mq_spheretree *tree);

/** Shape and size of a built tree. */
typedef struct mq_spheretree_stats {
    uint64_t triangle_count;   /**< triangles in the tree */
    uint64_t node_count;       /**< nodes, inner and leaves (0 for an empty tree) */
    uint64_t leaf_count;       /**< leaves */
    uint32_t max_depth;        /**< depth of the deepest leaf */
    double total_volume;       /**< sum of the volumes of every node's sphere */
    double leaf_volume;        /**< sum of the volumes of the leaves' spheres */
    double leaf_area;          /**< sum of the surface areas of the leaves' spheres */
    double avg_leaf_size;      /**< triangles per leaf (0 for an empty tree) */
    double bytes_per_triangle; /**< mq_spheretree_byte_count / triangle_count (0 for an empty tree) */
} mq_spheretree_stats;

/** Fills `out` with the tree's statistics, O(nodes). All zero for a NULL tree; a no-op for a NULL out. */
MQ_API void mq_spheretree_get_stats(const mq_spheretree *tree, mq_spheretree_stats *out);

/**
 * Every triangle that overlaps the tagged shape (sphere, capsule, OBB, AABB,
 * convex: mq_shape_convex, in the mesh's frame, decided by the exact test of
 * convex.h; touching counts): calls `fn` with its mesh id until it returns
 * false.
 * @param tree the tree; NULL matches nothing.
 * @param shape the shape; NULL, an invalid one or a kind this tree does not
 *        know matches nothing.
 * @param fn called per triangle; NULL makes the call a no-op.
 * @param user passed to `fn`.
 * @return the number of calls made (including one that returned false).
 */
MQ_API size_t mq_spheretree_overlap(const mq_spheretree *tree, const mq_shape *shape, mq_overlap_fn fn, void *user);
/** Writes the first `capacity` overlapping triangle ids into `out` and returns
 * how many there are in total. `out` may be NULL when `capacity` is 0. */
MQ_API size_t mq_spheretree_overlap_array(const mq_spheretree *tree, const mq_shape *shape, uint32_t *out,
                                          size_t capacity);
/** True when some triangle overlaps the shape; stops at the first. */
MQ_API bool mq_spheretree_overlap_any(const mq_spheretree *tree, const mq_shape *shape);

/**
 * The nearest hit in [ray->tmin, ray->tmax], with mq_obbtree_raycast_closest's
 * contract. Node test: the ray against the ball (a quadratic in double).
 * @param tree the tree to query.
 * @param ray the ray; an invalid one hits nothing.
 * @param query NULL for the defaults.
 * @param[out] out the hit (may be NULL); on a miss t = INFINITY and
 *        triangle = face = MQ_NO_TRIANGLE.
 * @return true on a hit.
 */
MQ_API bool mq_spheretree_raycast_closest(const mq_spheretree *tree, const mq_ray *ray, const mq_ray_query *query,
                                          mq_hit *out);
/** True when some triangle is hit in [ray->tmin, ray->tmax] (stops at the first accepted one). */
MQ_API bool mq_spheretree_raycast_any(const mq_spheretree *tree, const mq_ray *ray, const mq_ray_query *query);

/**
 * The closest point of the mesh to `p` within max_distance, with
 * mq_obbtree_closest_point's contract.
 * @param tree the tree to query.
 * @param p the query point.
 * @param max_distance the search radius (>= 0, may be +INFINITY).
 * @param[out] out the result (untouched when none; may be NULL).
 * @return true when some triangle lies within max_distance.
 */
MQ_API bool mq_spheretree_closest_point(const mq_spheretree *tree, const vec3 p, float max_distance, mq_point_hit *out);

/**
 * Every intersecting triangle pair (A's triangle, B's triangle placed by
 * `b_to_a`), with mq_obbtree_collide's contract and answers. Node pairs: the
 * distance of the centres (B's mapped into A's frame) against the radii.
 * @return the number of calls made to `fn`; 0 for an invalid transform or a
 *         NULL tree or fn.
 */
MQ_API size_t mq_spheretree_collide(const mq_spheretree *a, const mq_spheretree *b, const mq_rigid *b_to_a,
                                    mq_pair_fn fn, void *user);
/** Writes up to `capacity` intersecting pairs and returns how many there are
 * in total. `out` may be NULL when `capacity` is 0. */
MQ_API size_t mq_spheretree_collide_array(const mq_spheretree *a, const mq_spheretree *b, const mq_rigid *b_to_a,
                                          mq_tri_pair *out, size_t capacity);
/** True when some triangle pair intersects; stops at the first. */
MQ_API bool mq_spheretree_any_collide(const mq_spheretree *a, const mq_spheretree *b, const mq_rigid *b_to_a);

#endif /* MESHQUERY_SPHERETREE_H */
