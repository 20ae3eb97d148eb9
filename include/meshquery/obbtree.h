/**
 * @file
 * meshquery/obbtree.h — a tree of oriented bounding boxes over a mesh
 * (OBBTree: Gottschalk, Lin & Manocha, SIGGRAPH 1996) and the queries it answers.
 *
 * Synopsis
 *   mq_default_obbtree_def()       defaults: DiTO-14 fitting, 4 triangles per leaf
 *   mq_obbtree_build()             build from a mesh (the mesh must outlive the tree)
 *   mq_obbtree_destroy()           free it
 *   mq_obbtree_get_stats()         triangle, node and leaf counts, depth, total volume, bytes
 *   mq_obbtree_byte_count(), mq_obbtree_root(), mq_obbtree_mesh()
 *
 *   Shape overlap (every triangle that overlaps a tagged shape, mq_shape in
 *   types.h: sphere, capsule, OBB or AABB; touching counts):
 *     mq_obbtree_overlap()        callback per triangle, early stop
 *     mq_obbtree_overlap_array()  ids into a caller array, returns the total
 *     mq_obbtree_overlap_any()    yes/no, stops at the first
 *   Rays:        mq_obbtree_raycast_closest(), mq_obbtree_raycast_any()
 *   Distance:    mq_obbtree_closest_point()   nearest surface point within a maximum distance
 *   Mesh vs mesh: mq_obbtree_collide(), mq_obbtree_collide_array(), mq_obbtree_any_collide()
 *                with a rigid transform (mq_rigid) placing tree B in tree A's frame
 *
 * Answers. Every query gives exactly the answer of its leaf primitive from
 * meshquery/primitives.h applied to every triangle of the mesh (brute force;
 * for a shape reaching far beyond the mesh, applied to the shape cut down to
 * the mesh's neighbourhood, see "Shapes of any finite size"):
 * mq_overlap_sphere_triangle, mq_overlap_capsule_triangle, mq_overlap_triangle_obb,
 * mq_overlap_triangle_aabb, mq_raycast_triangle, mq_closest_point_triangle and
 * mq_overlap_triangle_triangle. The tree only skips triangles that cannot
 * qualify: its node boxes enclose their triangles exactly (extents computed in
 * double against the stored float frame) and every node test is widened by a
 * small relative margin (a few parts per million of the coordinates involved),
 * so float rounding never culls a triangle the primitive would accept (for
 * coordinates below about 1e18, where squared distances stay finite). Shapes
 * and triangles follow types.h: closed sets, touching counts; an invalid query
 * shape (NaN, negative radius, non-orthonormal OBB axes, an invalid ray or
 * transform) overlaps nothing. Triangles with a non-finite corner are left out
 * of the tree (they never overlap anything); zero-area triangles stay in and
 * act as the segment or point they span.
 *
 * Shapes of any finite size. A shape query first cuts the shape down, in
 * double precision, to its part near the tree's root box (a capsule's axis
 * clipped, a radius or an OBB's half extents capped once they hold the whole
 * mesh, an AABB clipped); the cut shape meets every triangle exactly where
 * the given one does, and is what the walk and the leaf primitive see. So a
 * capsule along a line 1e30 long, a slab of half extents 1e18 or a box of
 * +-FLT_MAX answers like the same shape clipped to the mesh's neighbourhood,
 * to the precision of the mesh's own scale. A shape with an infinite field
 * is still invalid (types.h) and matches nothing. The limit that remains: a
 * sphere or capsule of huge radius, or an OBB, whose centre (axis) lies far
 * from the mesh while its surface cuts through it (a sphere of radius 1e12
 * centred 1e12 away) is decided to about 1e-6 of that distance, the float
 * precision of its own coordinates.
 *
 * Triangle ids: every query reports triangles by their id in the mesh
 * (mesh.h: input order), never by the tree's internal order.
 *
 * Lifetime: like the BVH, the tree REFERENCES its mesh (for the face, normals
 * and names a raycast hit reports) and keeps its own copy of the triangle
 * corners, in tree order, for every leaf test. The mesh must outlive the tree.
 * The tree allocates only while building, through the def's allocator;
 * queries allocate nothing.
 *
 * Thread safety: a built tree is immutable; any number of threads may query it
 * at once. mq_obbtree_destroy must not race with queries. Callbacks run on the
 * calling thread, inside the query.
 */
#ifndef MESHQUERY_OBBTREE_H
#define MESHQUERY_OBBTREE_H

#include <meshquery/bvh.h> /* mq_hit, mq_ray_query: raycasts share the BVH's API */
#include <meshquery/mesh.h>
#include <meshquery/types.h>

/** Opaque immutable OBB tree. */
typedef struct mq_obbtree mq_obbtree;

/** How node boxes are fitted to their triangles. */
typedef enum mq_obb_fit {
    /** DiTO-14 (Larsson & Källberg, Game Engine Gems 2, 2011): orientations from a
     *  "ditetrahedron" of 14 extremal points; the AABB when that is smaller. Default. */
    MQ_OBB_FIT_DITO = 0,
    /** Covariance of the area-weighted triangles (Gottschalk 1996, with the errata's
     *  formulas); axes = its eigenvectors. With repeated eigenvalues the axes are
     *  arbitrary, so then the AABB and DiTO frames are tried too and the smallest kept. */
    MQ_OBB_FIT_PCA = 1,
    /** World axes: an AABB tree with the same splits, to measure what orientation buys. */
    MQ_OBB_FIT_AABB = 2
} mq_obb_fit;

/** Largest allowed leaf size. */
#define MQ_OBBTREE_MAX_LEAF_SIZE 16
/** Largest mesh the tree accepts, in (finite) triangles. */
#define MQ_OBBTREE_MAX_TRIANGLES (1u << 27)

/** Build options. Start from mq_default_obbtree_def() and change fields. */
typedef struct mq_obbtree_def {
    mq_obb_fit fit;                /**< box fitting method (default MQ_OBB_FIT_DITO) */
    uint32_t max_leaf_size;        /**< most triangles per leaf, 1..MQ_OBBTREE_MAX_LEAF_SIZE (default 4) */
    const mq_allocator *allocator; /**< NULL: the library default. Copied into the tree */
    uint32_t internal_cookie;      /**< set by mq_default_obbtree_def(); DO NOT SET (catches uninitialised defs) */
} mq_obbtree_def;

/** The default options: MQ_OBB_FIT_DITO, leaves of up to 4 triangles, the default allocator. */
MQ_API mq_obbtree_def mq_default_obbtree_def(void);

/**
 * Builds an OBB tree over a mesh: top-down, binary; each node's box is fitted
 * to its triangles, then they are split perpendicular to the box's longest axis
 * at the mean of the triangle centroids (Gottschalk 1996), at the median when
 * the mean leaves one side empty (and always below depth 30, which bounds the
 * depth by 57 for the largest meshes allowed).
 * @param mesh the mesh; referenced by the tree, so it must outlive it.
 * @param def options; NULL means mq_default_obbtree_def().
 * @param[out] out receives the tree on MQ_OK, NULL otherwise.
 * @param diag optional failure detail.
 * @return MQ_OK; MQ_ERR_INVALID_ARG for a NULL mesh or out, a def not made by
 *         mq_default_obbtree_def(), a max_leaf_size outside 1..16 or an unknown fit;
 *         MQ_ERR_LIMIT for more than MQ_OBBTREE_MAX_TRIANGLES triangles;
 *         MQ_ERR_OUT_OF_MEMORY (nothing leaked).
 * A mesh without finite triangles gives an empty tree: every query answers "none".
 */
MQ_API mq_status mq_obbtree_build(const mq_mesh *mesh, const mq_obbtree_def *def, mq_obbtree **out, mq_diag *diag);

/** Frees a tree. NULL is a no-op. */
MQ_API void mq_obbtree_destroy(mq_obbtree *tree);

/** The mesh the tree was built over. */
MQ_API const mq_mesh *mq_obbtree_mesh(const mq_obbtree *tree);
/** Bytes the tree owns (nodes, triangle copies, ids and the tree itself), excluding the mesh. */
MQ_API size_t mq_obbtree_byte_count(const mq_obbtree *tree);
/** Shape and size of a built tree. */
typedef struct mq_obbtree_stats {
    uint64_t triangle_count;   /**< triangles in the tree (the mesh's finite triangles) */
    uint64_t node_count;       /**< nodes, inner and leaves (0 for an empty tree) */
    uint64_t leaf_count;       /**< leaves */
    uint32_t max_depth;        /**< depth of the deepest leaf (0 when the root is a leaf or the tree is empty) */
    double total_volume;       /**< sum of the volumes of all node boxes: a tree-quality measure (smaller is tighter) */
    double avg_leaf_size;      /**< triangles per leaf (0 for an empty tree) */
    double bytes_per_triangle; /**< mq_obbtree_byte_count / triangle_count (0 for an empty tree) */
} mq_obbtree_stats;

/** Fills `out` with the tree's statistics (as mq_bvh_get_stats does for a BVH); O(nodes). All zero
 * for a NULL tree, a no-op for a NULL out. */
MQ_API void mq_obbtree_get_stats(const mq_obbtree *tree, mq_obbtree_stats *out);
/** The root box (encloses every triangle of the tree). Returns false for an empty tree. */
MQ_API bool mq_obbtree_root(const mq_obbtree *tree, mq_obb *out);

/* ------------------------------------------------------------------------- */
/* Shape overlap                                                             */
/* ------------------------------------------------------------------------- */

/**
 * Called once per overlapping triangle with its mesh id. Return true to go on,
 * false to stop the query. Triangles come in no particular order.
 */
typedef bool (*mq_overlap_fn)(uint32_t triangle, void *user);

/**
 * Every triangle that overlaps the shape: calls `fn` for each until it returns
 * false. The leaf test is the shape's primitive: mq_overlap_sphere_triangle,
 * mq_overlap_capsule_triangle, mq_overlap_triangle_obb or
 * mq_overlap_triangle_aabb. The kind is read once per query; the walk is the
 * one specialised for that kind.
 * @param tree the tree to query; NULL matches nothing.
 * @param shape the shape (types.h: mq_shape_sphere(), ...); NULL, an invalid one
 *        or one of a kind this version does not know matches nothing.
 * @param fn called with each triangle's mesh id; NULL makes the call a no-op.
 * @param user passed to `fn`.
 * @return the number of calls made (including the one that returned false).
 */
MQ_API size_t mq_obbtree_overlap(const mq_obbtree *tree, const mq_shape *shape, mq_overlap_fn fn, void *user);
/**
 * Writes the ids of the triangles that overlap the shape into `out` (the first
 * `capacity` found, in no particular order) and returns how many there are in
 * total; when that exceeds `capacity`, call again with a larger array.
 * `out` may be NULL when `capacity` is 0. An invalid shape or an unknown kind: 0.
 */
MQ_API size_t mq_obbtree_overlap_array(const mq_obbtree *tree, const mq_shape *shape, uint32_t *out, size_t capacity);
/** True when some triangle overlaps the shape; stops at the first. An invalid shape or an unknown kind: false. */
MQ_API bool mq_obbtree_overlap_any(const mq_obbtree *tree, const mq_shape *shape);

/* ------------------------------------------------------------------------- */
/* Rays                                                                      */
/* ------------------------------------------------------------------------- */

/**
 * The nearest hit in [ray->tmin, ray->tmax], with the contract of
 * mq_bvh_raycast_closest (bvh.h) on the OBB tree: the same hit or miss, the
 * same triangle and the same record fields. Leaf test: mq_raycast_triangle
 * (watertight, both faces unless query->cull_back_faces), so t, u and v are
 * bit for bit the primitive's; the BVH's SIMD leaf test may round them a few
 * ulp differently, and may then differ on a hit within that rounding of tmin
 * or tmax (e.g. a ray starting on the surface). Node test: the ray–OBB slab
 * test in the box frame, children near to far. Ties in t: the smallest id.
 * @param tree the tree to query.
 * @param ray the ray; an invalid one (mq_ray_is_valid) hits nothing.
 * @param query NULL for the defaults; its filter sees each candidate that would
 *        become the closest hit; its stats count inner nodes visited (child
 *        boxes tested), leaves visited and triangles tested.
 * @param[out] out the hit with the mesh's metadata, filled as the BVH fills it
 *        (may be NULL); on a miss t = INFINITY and triangle = face = MQ_NO_TRIANGLE.
 * @return true on a hit; false on a miss or an invalid ray.
 */
MQ_API bool mq_obbtree_raycast_closest(const mq_obbtree *tree, const mq_ray *ray, const mq_ray_query *query,
                                       mq_hit *out);
/** True when some triangle is hit in [ray->tmin, ray->tmax] (stops at the first accepted one). */
MQ_API bool mq_obbtree_raycast_any(const mq_obbtree *tree, const mq_ray *ray, const mq_ray_query *query);

/* ------------------------------------------------------------------------- */
/* Closest point                                                             */
/* ------------------------------------------------------------------------- */

/** The nearest point of the mesh to a query point. */
typedef struct mq_point_hit {
    vec3 point;        /**< the closest point on the mesh */
    float distance;    /**< its distance from the query point (>= 0) */
    uint32_t triangle; /**< mesh id of the triangle it lies on (ties: the smaller id) */
    /** @{ */
    float u, v; /**< its barycentrics on that triangle: point = (1-u-v)*v0 + u*v1 + v*v2 */
    /** @} */
} mq_point_hit;

/**
 * The closest point of the mesh to `p` (mq_closest_point_triangle on every
 * triangle) whose squared distance is at most max_distance² — what picking with
 * a tolerance and snapping need. max_distance may be +INFINITY.
 * @param tree the tree to query.
 * @param p the query point.
 * @param max_distance the search radius (>= 0, may be +INFINITY).
 * @param[out] out the result (untouched when none; may be NULL).
 * @return true when some triangle lies within max_distance; false otherwise, and
 *         for a non-finite `p` or a NaN or negative max_distance.
 */
MQ_API bool mq_obbtree_closest_point(const mq_obbtree *tree, const vec3 p, float max_distance, mq_point_hit *out);

/* ------------------------------------------------------------------------- */
/* Mesh vs mesh                                                              */
/* ------------------------------------------------------------------------- */

/**
 * A rigid transform p -> R(rotation) p + translation. `rotation` is a unit
 * quaternion w, x, y, z (the scalar part first, as in mq_obb_from_quat and
 * mq_xform_from_trs; not cglm's versor order); it is normalised before use. A
 * zero or non-finite quaternion or translation is invalid.
 */
typedef struct mq_rigid {
    float rotation[4]; /**< unit quaternion w, x, y, z; normalised first */
    vec3 translation;  /**< applied after the rotation */
} mq_rigid;

/**
 * Applies a rigid transform to a point with exactly the float operations that
 * mq_obbtree_collide applies to tree B's triangle corners (so brute-force checks
 * can reproduce its answers bit for bit). An invalid transform gives NaN.
 */
MQ_API void mq_rigid_apply(const mq_rigid *xf, const vec3 p, vec3 out);

/** One intersecting pair: a triangle of tree A and one of tree B (mesh ids). */
typedef struct mq_tri_pair {
    uint32_t a; /**< triangle id in tree A's mesh */
    uint32_t b; /**< triangle id in tree B's mesh */
} mq_tri_pair;

/** Called once per intersecting triangle pair. Return true to go on, false to stop. */
typedef bool (*mq_pair_fn)(uint32_t triangle_a, uint32_t triangle_b, void *user);

/**
 * Every pair (triangle of A, triangle of B placed by `b_to_a` in A's frame) that
 * intersects (mq_overlap_triangle_triangle on A's triangle and B's triangle with
 * its corners mapped by mq_rigid_apply). Both trees are descended together,
 * always splitting the node with the larger box; B's box is expressed in A's
 * box frame once per node pair and tested with the 15-axis separating axis test.
 * `a` and `b` may be the same tree.
 * @return the number of calls made to `fn` (including one that returned false);
 *         0 for an invalid transform.
 */
MQ_API size_t mq_obbtree_collide(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, mq_pair_fn fn,
                                 void *user);
/**
 * Writes up to `capacity` intersecting pairs (in no particular order) and
 * returns how many there are in total. `out` may be NULL when `capacity` is 0.
 */
MQ_API size_t mq_obbtree_collide_array(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a,
                                       mq_tri_pair *out, size_t capacity);
/** True when some triangle pair intersects; stops at the first. */
MQ_API bool mq_obbtree_any_collide(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a);

#endif /* MESHQUERY_OBBTREE_H */
