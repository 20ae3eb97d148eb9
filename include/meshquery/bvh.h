/**
 * @file
 * meshquery/bvh.h — an axis-aligned bounding volume hierarchy over a mesh, and
 * raycasts against it: closest hit, any hit (occlusion), all hits.
 *
 * Synopsis
 *   mq_bvh_def d = mq_default_bvh_def();      quality, leaf size, threads, allocator
 *   mq_bvh_build(mesh, &d, &bvh, &diag)       build (binned SAH, 8-wide nodes)
 *   mq_bvh_refit(bvh, new_positions, &diag)   vertices moved, same triangles: no rebuild
 *   mq_bvh_destroy(bvh)
 *   mq_bvh_byte_count(), mq_bvh_get_stats(), mq_bvh_validate(), mq_bvh_mesh()
 *
 *   mq_ray_query q = mq_default_ray_query();  back-face culling, filter, counters
 *   mq_bvh_raycast_closest(bvh, &ray, &q, &hit)   nearest hit
 *   mq_bvh_raycast_any(bvh, &ray, &q)             is anything in [tmin, tmax]?
 *   mq_bvh_raycast_all(bvh, &ray, &q, hits, cap)  every hit, sorted by t; returns the total
 *   mq_bvh_raycast_each(bvh, &ray, &q, fn, user)  every hit in t order to a callback, early stop
 *   mq_bvh_raycast_closest_batch(), mq_bvh_raycast_any_batch()   many rays on N threads
 *   mq_bvh_raycast_closest_batch_arrays(), _any_batch_arrays()     the same from N x 3 arrays
 *
 *   mq_shape s = mq_shape_sphere(sphere);     any shape kind (types.h)
 *   mq_bvh_overlap(bvh, &s, fn, user)         every triangle it overlaps, to a callback
 *   mq_bvh_overlap_array(bvh, &s, ids, cap)   ids into an array; returns the total
 *   mq_bvh_overlap_any(bvh, &s)               does it overlap anything?
 *   mq_bvh_closest_point(bvh, p, max, &hit)   nearest surface point
 *
 * Lifetime: a BVH REFERENCES its mesh (for face indices and per-vertex data of
 * hits) and keeps its own copy of the triangle corners for the leaf test. The
 * mesh must outlive the BVH. Destroying the BVH never touches the mesh.
 *
 * Thread safety: queries on a built BVH allocate nothing, use a fixed-size
 * stack and write only to their outputs, so any number of threads may query
 * one BVH at once. mq_bvh_refit and mq_bvh_destroy must not run concurrently
 * with queries on the same BVH.
 *
 * Exactness (the "Numeric robustness" contract; docs/robustness.md states it
 * in full, with its limits):
 *   - the ray–triangle test is watertight (Woop et al. 2013) and the node test
 *     conservative (Ize 2013): a ray through a shared edge or vertex of a
 *     closed mesh hits one of its triangles, and no hit is lost at a node;
 *   - an invalid ray (mq_ray_is_valid) hits nothing; meshes of any float
 *     magnitude work (geometry and rays are scaled by an exact power of two);
 *   - a reported t, u, v is recomputed in double from the triangle's corners,
 *     clamped into [tmin, tmax]; ties at equal t go to the smallest triangle
 *     id, whatever the ISA path or thread count.
 *
 * Triangle ids are the mesh's (input order; for OBJ the order of `f` lines),
 * never an internal order.
 */
#ifndef MESHQUERY_BVH_H
#define MESHQUERY_BVH_H

#include <meshquery/mesh.h>

/** Opaque bounding volume hierarchy over one mesh. */
typedef struct mq_bvh mq_bvh;

/** "No triangle": the triangle id of a miss. */
#define MQ_NO_TRIANGLE UINT32_MAX

/* ------------------------------------------------------------------------- */
/* Building                                                                  */
/* ------------------------------------------------------------------------- */

/** Build quality: build time against trace speed. */
typedef enum mq_build_quality {
    /** Binned SAH with 8 bins: the fastest build, for meshes rebuilt every frame. */
    MQ_BUILD_LOW = 0,
    /** Binned SAH with 32 bins (fewer on small nodes): the default. */
    MQ_BUILD_MEDIUM = 1,
    /** Exact full-sweep SAH on nodes of up to 4096 triangles, 64 bins above:
     *  about 7x the build time of MEDIUM. On the shared test meshes it finds
     *  trees of the same SAH cost (within 1%), so prefer MEDIUM; spatial
     *  splits are not implemented yet. */
    MQ_BUILD_HIGH = 2
} mq_build_quality;

/** Options for mq_bvh_build. Always start from mq_default_bvh_def(). */
typedef struct mq_bvh_def {
    mq_build_quality quality;      /**< default MQ_BUILD_MEDIUM */
    uint32_t max_leaf_size;        /**< most triangles per leaf, 1..16; default 4 (one SIMD block) */
    uint32_t threads;              /**< build threads; 0 = all online cores (default), 1 = this thread only.
                                        The tree does not depend on the thread count. */
    const mq_allocator *allocator; /**< NULL: the library default. Copied; must be thread-safe
                                        when threads != 1. */
    uint32_t internal_cookie;      /**< set by mq_default_bvh_def(); DO NOT SET */
} mq_bvh_def;

/** The default options (medium quality, leaves of up to 4 triangles, all cores). */
MQ_API mq_bvh_def mq_default_bvh_def(void);

/**
 * Builds a BVH over every triangle of `mesh`.
 * @param mesh the mesh; referenced by the BVH, so it must outlive it.
 * @param def NULL for the defaults; otherwise a struct from mq_default_bvh_def().
 * @param[out] out receives the BVH on MQ_OK, NULL otherwise.
 * @param[out] diag optional failure detail (may be NULL).
 * @return MQ_OK; MQ_ERR_INVALID_ARG (NULL mesh/out, a def not made by
 *         mq_default_bvh_def, max_leaf_size outside 1..16, unknown quality);
 *         MQ_ERR_LIMIT (more than 2^28 triangles); MQ_ERR_OUT_OF_MEMORY
 *         (nothing leaked). A mesh with no triangles gives an empty BVH that no ray hits.
 */
MQ_API mq_status mq_bvh_build(const mq_mesh *mesh, const mq_bvh_def *def, mq_bvh **out, mq_diag *diag);

/** Frees a BVH (not its mesh). NULL is a no-op. */
MQ_API void mq_bvh_destroy(mq_bvh *bvh);

/**
 * Refits the BVH after the mesh's vertices moved (same triangles, same
 * indices): recomputes the stored triangle corners and every node box, keeping
 * the tree's topology. O(n), no allocation. Trace speed degrades as the
 * geometry drifts from what the tree was built for; rebuild then.
 * @param bvh the BVH to refit; no query may run on it meanwhile.
 * @param positions mq_mesh_vertex_count(mesh) * 3 floats, the new xyz of every
 *        vertex in mesh order; NULL re-reads the mesh's own positions. The
 *        array is read during the call only. The mesh is NOT changed: hits
 *        report the new geometry (t, point, normal), while mq_mesh_positions()
 *        still returns the old one.
 * @param[out] diag optional failure detail (may be NULL).
 * @return MQ_OK, or MQ_ERR_INVALID_ARG for a NULL bvh.
 */
MQ_API mq_status mq_bvh_refit(mq_bvh *bvh, const float *positions, mq_diag *diag);

/** Bytes owned by the BVH (nodes, leaf triangle blocks, the struct), excluding the mesh. */
MQ_API size_t mq_bvh_byte_count(const mq_bvh *bvh);

/** The mesh the BVH was built over. */
MQ_API const mq_mesh *mq_bvh_mesh(const mq_bvh *bvh);

/** Shape and cost of a built tree. */
typedef struct mq_bvh_stats {
    uint64_t triangle_count;   /**< triangles in the mesh (all are in the tree) */
    uint64_t node_count;       /**< inner nodes (8-wide) */
    uint64_t leaf_count;       /**< leaves */
    uint64_t block_count;      /**< 4-triangle SIMD blocks in the leaves */
    uint32_t max_depth;        /**< deepest leaf, in inner nodes from the root (root = 1) */
    uint32_t width;            /**< children per inner node (8) */
    double sah_cost;           /**< SAH cost (node traversal 1, 4-triangle block 1), relative to the root box */
    double avg_leaf_size;      /**< triangles per leaf */
    double avg_children;       /**< used child slots per inner node */
    double bytes_per_triangle; /**< mq_bvh_byte_count / triangle_count */
    double build_ms;           /**< wall-clock time mq_bvh_build took */
} mq_bvh_stats;

/** Fills `out` with the tree's statistics; all zero for a NULL bvh, a no-op for a NULL out. */
MQ_API void mq_bvh_get_stats(const mq_bvh *bvh, mq_bvh_stats *out);

/**
 * Checks the tree's invariants: every triangle is in exactly one leaf, every
 * child box contains its subtree's boxes and triangle corners, depth within the
 * traversal stack's limit, no empty inner node. For tests and debugging; O(n).
 * @return MQ_OK, or MQ_ERR_CORRUPT with the first violation in `diag`.
 */
MQ_API mq_status mq_bvh_validate(const mq_bvh *bvh, mq_diag *diag);

/* ------------------------------------------------------------------------- */
/* Raycasts                                                                  */
/* ------------------------------------------------------------------------- */

/**
 * One ray–triangle hit.
 * Fields marked "mesh metadata" are filled from the mesh when it carries that
 * data (meshes loaded from OBJ), otherwise they hold the stated defaults.
 */
typedef struct mq_hit {
    float t;     /**< ray parameter, in [tmin, tmax]; INFINITY for a miss */
    vec3 point;  /**< origin + t * dir (in float) */
    vec3 normal; /**< unit geometric normal along (v1-v0) x (v2-v0): the winding's side,
                      NOT flipped towards the ray (see back_face) */
    /** @{ */
    float u, v; /**< barycentrics: point = (1-u-v)*v0 + u*v1 + v*v2 */
    /** @} */
    uint32_t triangle;       /**< the mesh's triangle id; MQ_NO_TRIANGLE for a miss */
    uint32_t face;           /**< mq_mesh_face_index(mesh, triangle): the OBJ face */
    bool back_face;          /**< true when dir points along `normal` (the ray hit the back) */
    bool has_shading_normal; /**< mesh metadata: all three corners have normals (mq_mesh_shading_normal) */
    bool has_uv;             /**< mesh metadata: all three corners have texture coordinates */
    vec3 shading_normal;     /**< mesh metadata: interpolated corner normal, unit; = normal when absent */
    vec2 uv;                 /**< mesh metadata: interpolated texture coordinate; (0, 0) when absent */
    uint32_t group;          /**< mesh metadata: name id, mq_mesh_name(mesh, MQ_NAME_GROUP, group); 0 = none */
    uint32_t object;         /**< mesh metadata: name id of kind MQ_NAME_OBJECT; 0 = none */
    uint32_t material;       /**< mesh metadata: name id of kind MQ_NAME_MATERIAL; 0 = none */
} mq_hit;

/** Work counters of queries; queries ADD to them (zero them yourself). */
typedef struct mq_ray_stats {
    uint64_t node_visits;    /**< inner nodes whose child boxes were tested */
    uint64_t leaf_visits;    /**< leaves reached */
    uint64_t triangle_tests; /**< 4-triangle blocks tested, times 4 */
} mq_ray_stats;

/**
 * Accepts or rejects a candidate hit (before it can become the closest hit or
 * end an any-hit query). Called from the querying thread; must be thread-safe
 * for batch queries. Costs nothing when NULL.
 */
typedef bool (*mq_hit_filter_fn)(const mq_hit *candidate, void *user);

/** Options of a raycast. Start from mq_default_ray_query(); a NULL query means the defaults. */
typedef struct mq_ray_query {
    bool cull_back_faces;    /**< ignore triangles seen from behind (dir along their normal); default false */
    mq_hit_filter_fn filter; /**< optional per-hit filter; default NULL */
    void *filter_user;       /**< passed to `filter` */
    mq_ray_stats *stats;     /**< optional counters (added to); default NULL */
} mq_ray_query;

/** The default query: both faces count, no filter, no counters. */
MQ_API mq_ray_query mq_default_ray_query(void);

/**
 * The nearest hit in [ray->tmin, ray->tmax] (ties: smallest triangle id).
 * @param bvh the BVH to query.
 * @param ray the ray; an invalid one (mq_ray_is_valid) hits nothing.
 * @param query NULL for the defaults.
 * @param[out] out the hit (may be NULL); on a miss t = INFINITY and triangle = MQ_NO_TRIANGLE.
 * @return true on a hit.
 */
MQ_API bool mq_bvh_raycast_closest(const mq_bvh *bvh, const mq_ray *ray, const mq_ray_query *query, mq_hit *out);

/** True when some triangle is hit in [ray->tmin, ray->tmax] (stops at the first one found). */
MQ_API bool mq_bvh_raycast_any(const mq_bvh *bvh, const mq_ray *ray, const mq_ray_query *query);

/**
 * Called for each hit of mq_bvh_raycast_each, in increasing t (ties: increasing
 * triangle id), as the traversal orders them by its float t; the reported t
 * (recomputed in double, see "Exactness") never decreases from one hit to the
 * next. Return true to continue, false to stop.
 */
typedef bool (*mq_hit_fn)(const mq_hit *hit, void *user);

/**
 * Every hit along the ray, nearest first. A ray through a shared edge or vertex
 * crosses the surface once, so hits on the same edge (same two corner
 * positions) or the same vertex are reported once, by the triangle with the
 * nearest t (ties: smallest id); such duplicates are recognised among the last
 * 16 distinct edges/vertices hit, which always holds for a ray crossing a
 * surface (its duplicates come out next to each other). Finding each next hit
 * is one closest-hit traversal beyond the previous one: O(k) traversals for k
 * hits, no allocation, no limit on k.
 * @return the number of hits reported (those for which fn was called).
 */
MQ_API size_t mq_bvh_raycast_each(const mq_bvh *bvh, const mq_ray *ray, const mq_ray_query *query, mq_hit_fn fn,
                                  void *user);

/**
 * Every hit along the ray as an array: writes the min(total, capacity) nearest
 * hits to `hits`, sorted by t (same de-duplication as mq_bvh_raycast_each) and
 * returns the TOTAL number of hits, so a caller can retry with a bigger array.
 * `hits` may be NULL when capacity is 0 (count only).
 */
MQ_API size_t mq_bvh_raycast_all(const mq_bvh *bvh, const mq_ray *ray, const mq_ray_query *query, mq_hit *hits,
                                 size_t capacity);

/**
 * Closest hits of `count` rays on `threads` threads (0 = all online cores,
 * 1 = the calling thread only). hits[i] is exactly what mq_bvh_raycast_closest
 * gives for rays[i], whatever the thread count. The filter, if any, is called
 * from several threads.
 *
 * Faster than a loop of single queries: groups of 8 consecutive rays that
 * share a direction octant (camera rays, in tiles) are traced as SIMD packets,
 * and over trees larger than about 2 MiB the other rays are traced 8 at a time
 * interleaved, overlapping their cache misses. Order rays coherently (e.g.
 * 4x2 pixel tiles) to benefit. Uses about 64 KiB of each calling thread's
 * stack. Work counters (query->stats) count a packet's node as one visit.
 * @return the number of rays that hit.
 */
MQ_API size_t mq_bvh_raycast_closest_batch(const mq_bvh *bvh, const mq_ray *rays, size_t count,
                                           const mq_ray_query *query, uint32_t threads, mq_hit *hits);

/**
 * Any-hit (occlusion) answers for `count` rays: occluded[i] = mq_bvh_raycast_any(rays[i]).
 * @return the number of occluded rays.
 */
MQ_API size_t mq_bvh_raycast_any_batch(const mq_bvh *bvh, const mq_ray *rays, size_t count, const mq_ray_query *query,
                                       uint32_t threads, bool *occluded);

/**
 * The two batches above for rays given as two arrays, the layout of NumPy and
 * most ray generators: ray i starts at origins[3i..3i+2], goes along
 * dirs[3i..3i+2], and every ray shares the interval [tmin, tmax]. The answers
 * (hits[i], occluded[i]) and the return value are bit for bit those of the
 * record batch on the same rays; no copy of the rays is made (each thread
 * gathers the 128 rays it traces next). Returns 0 and writes nothing when
 * bvh or an array is NULL or count is 0; a ray the single-ray call rejects
 * as invalid is a miss, as in the record batch.
 * Same threads and thread safety as above.
 */
MQ_API size_t mq_bvh_raycast_closest_batch_arrays(const mq_bvh *bvh, const float *origins, const float *dirs,
                                                  size_t count, float tmin, float tmax, const mq_ray_query *query,
                                                  uint32_t threads, mq_hit *hits);

/** Any-hit answers of rays given as two arrays (see mq_bvh_raycast_closest_batch_arrays). */
MQ_API size_t mq_bvh_raycast_any_batch_arrays(const mq_bvh *bvh, const float *origins, const float *dirs, size_t count,
                                              float tmin, float tmax, const mq_ray_query *query, uint32_t threads,
                                              bool *occluded);

/* ========================================================================= */
/* Shape overlap and closest point on the BVH                                */
/* ========================================================================= */
/*
 * The OBB tree's shape queries (obbtree.h, "Shape overlap", "Closest point")
 * on the AABB BVH: mq_bvh_overlap / _array / _any take any tagged shape
 * (mq_shape, types.h), with exactly the same contracts: the same answer sets, so
 * either hierarchy may serve them. Leaf tests are the primitives
 * (mq_overlap_sphere_triangle, mq_overlap_capsule_triangle,
 * mq_overlap_triangle_obb, mq_overlap_triangle_aabb,
 * mq_closest_point_triangle) on the BVH's current triangle corners; the node
 * tests (sphere–box distance, the capsule's segment against the box grown by
 * its radius, the 15-axis OBB–box test, box–box) are widened by about 80 ulp
 * of the magnitudes involved, so rounding never culls a triangle the
 * primitive accepts. Shapes are closed (touching counts); an invalid shape
 * (types.h) matches nothing; a zero-area triangle acts as the segment or point
 * it spans (after mq_bvh_refit with new positions it is tested at its mesh
 * corners: the BVH stores no corners for triangles a ray cannot hit); a
 * triangle with a non-finite corner never matches. Shapes of any finite
 * size are answered exactly, as on the OBB tree ("Shapes of any finite size"
 * in obbtree.h): the shape is first cut down to its part near the BVH's root
 * box, and the walk and the leaf primitive see that cut shape. No allocation,
 * fixed stacks; safe from any number of threads. Triangles come in no
 * particular order. The types below are those of obbtree.h, repeated here so
 * this header stands alone (mq_point_hit's fields are defined in obbtree.h).
 */

/** Called once per overlapping triangle with its mesh id; return false to stop (as in obbtree.h). */
typedef bool (*mq_overlap_fn)(uint32_t triangle, void *user);
/** The nearest point of the mesh to a query point (defined in obbtree.h). */
typedef struct mq_point_hit mq_point_hit;

/**
 * Every triangle that overlaps the shape: calls `fn` for each until it returns
 * false. The leaf test is the shape's primitive: mq_overlap_sphere_triangle,
 * mq_overlap_capsule_triangle, mq_overlap_triangle_obb or
 * mq_overlap_triangle_aabb. The kind is read once per query; the walk is the
 * one specialised for that kind.
 * @param bvh the BVH to query; NULL matches nothing.
 * @param shape the shape (types.h: mq_shape_sphere(), ...); NULL, an invalid one
 *        (NaN, negative radius, ...) or one of a kind this version does not
 *        know matches nothing.
 * @param fn called with each triangle's mesh id; NULL makes the call a no-op.
 * @param user passed to `fn`.
 * @return the number of calls made (including the one that returned false).
 */
MQ_API size_t mq_bvh_overlap(const mq_bvh *bvh, const mq_shape *shape, mq_overlap_fn fn, void *user);
/**
 * Writes the ids of the triangles that overlap the shape into `out` (the
 * first `capacity` found, in no particular order) and returns how many there
 * are in total; when that exceeds `capacity`, call again with a larger array.
 * `out` may be NULL when `capacity` is 0. An invalid shape or an unknown kind: 0.
 */
MQ_API size_t mq_bvh_overlap_array(const mq_bvh *bvh, const mq_shape *shape, uint32_t *out, size_t capacity);
/** True when some triangle overlaps the shape; stops at the first. An invalid shape or an unknown kind: false. */
MQ_API bool mq_bvh_overlap_any(const mq_bvh *bvh, const mq_shape *shape);

/**
 * The closest point of the mesh to `p` (mq_closest_point_triangle on every
 * triangle) whose squared distance is at most max_distance², with the contract
 * of mq_obbtree_closest_point: the smallest squared distance wins, ties go to
 * the smaller triangle id; distance = sqrtf of that squared distance.
 * Branch and bound over the boxes, nearest child first. Include obbtree.h (or
 * meshquery.h) for mq_point_hit's fields.
 * @param bvh the BVH to query.
 * @param p the query point.
 * @param max_distance the search radius (>= 0, may be +INFINITY).
 * @param[out] out the result (untouched when none; may be NULL).
 * @return true when some triangle lies within max_distance; false otherwise, and
 *         for a non-finite `p` or a NaN or negative max_distance.
 */
MQ_API bool mq_bvh_closest_point(const mq_bvh *bvh, const vec3 p, float max_distance, mq_point_hit *out);

#endif /* MESHQUERY_BVH_H */
