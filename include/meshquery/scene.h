/**
 * @file
 * meshquery/scene.h — many meshes placed by transforms, queried as one world.
 *
 * Synopsis
 *   mq_scene_create(), mq_scene_destroy()
 *   mq_default_instance_def()                 hierarchy + transform + user id + mask
 *   mq_scene_add(), mq_scene_remove(), mq_scene_set_transform(), mq_scene_set_mask()
 *   mq_scene_commit()                         make the edits visible to queries
 *   mq_xform_identity(), mq_xform_from_trs(), mq_xform_apply_point()
 *
 *   Rays:     mq_scene_raycast_closest / _any / _all / _each
 *   Shapes:   mq_scene_overlap / _array / _any     any world shape (mq_dshape, types.h:
 *             sphere, capsule, OBB, AABB; mq_dshape_sphere(), ... build one)
 *   Distance: mq_scene_closest_point
 *   Casts:    mq_scene_shape_cast, mq_scene_shape_cast_batch   a sphere, capsule or placed
 *             convex swept along a world direction: its first contact
 *   Contacts: mq_scene_collide (instance vs instance), mq_scene_collide_array
 *   Batches:  mq_scene_raycast_closest_batch / _any_batch,
 *             mq_scene_overlap_any_batch, mq_scene_overlap_count_batch,
 *             mq_scene_closest_point_batch                 (N threads, a persistent pool)
 *
 * Instances. An instance is a built hierarchy (an AABB BVH or an OBB tree,
 * see bvh.h and obbtree.h) placed in the world by an affine transform, with a
 * 64-bit user id and a 32-bit query mask. One hierarchy may be instanced any
 * number of times. The scene REFERENCES the hierarchies (and through them
 * their meshes): they must outlive the scene, or at least the commit that
 * removes their last instance.
 *
 * Transforms. Any affine map world = A * local + t whose linear part A is
 * invertible and well conditioned: rotations, translations, uniform and
 * non-uniform scale, mirrors (negative determinant) and shear. Transforms are
 * kept in double precision; each mesh stays in float relative to its own
 * origin. A transform with a non-finite entry (linear part or translation),
 * or whose smallest singular value is below 1e-12 times its largest, is
 * rejected with MQ_ERR_INVALID_ARG.
 *
 * Large worlds. World-space inputs and outputs (rays, shapes, points, t,
 * distances) are doubles. A query is mapped into each instance's frame in
 * double precision, relative to that instance (a ray is first advanced, in
 * double, to where it enters the instance's bounding box), and only then
 * rounded to float. So an instance placed 1e7 units from the origin answers
 * like the same instance at the origin: the same triangles, and t, points and
 * distances that agree to the mesh's own float precision (micrometres for a
 * metre-sized mesh), not to float precision at 1e7 (about one unit).
 *
 * Answers. Every query answers as the brute-force loop would: over every
 * instance whose mask matches, over every triangle of its mesh mapped to the
 * world by the instance's transform, the primitive test of primitives.h.
 *   - A mirrored instance (negative determinant) reverses its triangles'
 *     winding in the world: the world normal is that of the mapped triangle,
 *     (w1-w0) x (w2-w0), and back_face / culling follow it.
 *   - Barycentrics (u, v) are the same in the world and in the mesh.
 *   - Ties in t (or in distance) go to the smallest instance id, then the
 *     smallest triangle id.
 *   - Invalid query inputs (NaN or infinite values, a zero direction,
 *     tmin > tmax, a negative radius, non-orthonormal box axes) match nothing.
 *   - Shapes of any finite size: only the part of a shape near an instance
 *     can meet its triangles, and that part is what is tested, so a shape
 *     far larger than the instances (a box of +-1e300 meaning "everything",
 *     a capsule along a line 1e39 long, a slab 1e12 wide) answers like any
 *     other. What must fit float is the shape's place relative to an
 *     instance: a sphere, capsule or oriented box whose centre (or axis)
 *     lies beyond float range (about 3.4e38) of an instance, yet reaches into
 *     it, meets nothing there; so does a closest-point query from that far.
 *     Likewise a triangle any of whose corners, centred on its instance's
 *     translation (A v), overflows float meets no shape and is no closest
 *     point (rays, tested in the mesh frame, still hit it).
 *
 * Committing. Edits (add, remove, set_transform, set_mask) are staged; queries
 * see the scene as of the last mq_scene_commit, which updates the top-level
 * hierarchy over the instances: a refit when only transforms or masks changed,
 * a rebuild when instances were added or removed. The instances' own
 * hierarchies are never rebuilt. A new scene, or one never committed, is
 * empty to queries.
 *
 * Thread safety. Queries on a scene allocate nothing and may run from any
 * number of threads at once, and at the same time as edits (which touch only
 * the staged state). mq_scene_commit and mq_scene_destroy must not run
 * concurrently with anything else on the same scene; edits must not run
 * concurrently with each other. Callbacks run on the querying thread (for
 * batches: on pool threads), inside the query.
 */
#ifndef MESHQUERY_SCENE_H
#define MESHQUERY_SCENE_H

#include <meshquery/bvh.h>
#include <meshquery/obbtree.h>

/** Opaque scene of instances. */
typedef struct mq_scene mq_scene;

/** "No instance": the instance id of a miss. */
#define MQ_NO_INSTANCE UINT32_MAX

/**
 * An affine transform local -> world, row-major 3x4:
 * world[r] = m[r][0]*x + m[r][1]*y + m[r][2]*z + m[r][3].
 */
typedef struct mq_xform {
    double m[3][4]; /**< rows: linear part in columns 0..2, translation in column 3 */
} mq_xform;

/* ------------------------------------------------------------------------- */
/* Transforms                                                                */
/* ------------------------------------------------------------------------- */

/** The identity transform. */
MQ_API mq_xform mq_xform_identity(void);

/**
 * world = T * R * S * local: scale (may be negative: a mirror), then rotate by
 * the quaternion, then translate.
 * @param translation T.
 * @param rotation R as a quaternion in the order w, x, y, z (the scalar part
 *        first, as in the .xforms files and the tools' --place); normalised
 *        first. A zero or non-finite quaternion gives a transform with NaN
 *        entries, which mq_scene_add rejects.
 * @param scale S, per axis.
 */
MQ_API mq_xform mq_xform_from_trs(const mq_dvec3 translation, const double rotation[4], const mq_dvec3 scale);

/** out = xf applied to point p (in double). */
MQ_API void mq_xform_apply_point(const mq_xform *xf, const mq_dvec3 p, mq_dvec3 out);

/* ------------------------------------------------------------------------- */
/* Building a scene                                                          */
/* ------------------------------------------------------------------------- */

/** An instance to add. Start from mq_default_instance_def() and set exactly one hierarchy. */
typedef struct mq_instance_def {
    const mq_bvh *bvh;         /**< the instance's hierarchy, or NULL when obbtree is set */
    const mq_obbtree *obbtree; /**< or an OBB tree (then bvh is NULL) */
    mq_xform transform;        /**< local -> world; default identity */
    uint64_t user_id;          /**< reported with every answer; default 0 */
    uint32_t mask;             /**< a query sees the instance when (mask & query mask) != 0; default all ones */
} mq_instance_def;

/** Defaults: no hierarchy, identity transform, user id 0, mask 0xFFFFFFFF. */
MQ_API mq_instance_def mq_default_instance_def(void);

/**
 * Creates an empty scene.
 * @param alloc optional allocator (NULL: the default); copied.
 * @param[out] out receives the scene on MQ_OK, NULL otherwise.
 * @param diag optional failure detail.
 * @return MQ_OK; MQ_ERR_INVALID_ARG for a NULL out; MQ_ERR_OUT_OF_MEMORY.
 */
MQ_API mq_status mq_scene_create(const mq_allocator *alloc, mq_scene **out, mq_diag *diag);

/** Frees the scene (not the hierarchies or meshes it references). NULL is a no-op. */
MQ_API void mq_scene_destroy(mq_scene *scene);

/**
 * Stages a new instance. Ids are small integers, reused after removal (the
 * smallest free one is taken), so they can index the caller's own arrays.
 * @param scene the scene.
 * @param def the instance; its hierarchy is referenced, not copied.
 * @param[out] id receives the instance id on MQ_OK.
 * @param diag optional failure detail.
 * @return MQ_OK; MQ_ERR_INVALID_ARG (NULL scene/def/id, not exactly one
 *         hierarchy, a rejected transform: see "Transforms"); MQ_ERR_LIMIT
 *         (more than 2^24 instances); MQ_ERR_OUT_OF_MEMORY (scene unchanged).
 */
MQ_API mq_status mq_scene_add(mq_scene *scene, const mq_instance_def *def, uint32_t *id, mq_diag *diag);

/** Stages the removal of an instance. MQ_ERR_INVALID_ARG for an unknown id. */
MQ_API mq_status mq_scene_remove(mq_scene *scene, uint32_t id);

/** Stages a new transform for an instance. MQ_ERR_INVALID_ARG for an unknown id or a rejected transform. */
MQ_API mq_status mq_scene_set_transform(mq_scene *scene, uint32_t id, const mq_xform *transform, mq_diag *diag);

/** Stages a new query mask for an instance. MQ_ERR_INVALID_ARG for an unknown id. */
MQ_API mq_status mq_scene_set_mask(mq_scene *scene, uint32_t id, uint32_t mask);

/**
 * Makes all staged edits visible to queries and updates the top-level
 * hierarchy (refit or rebuild, see "Committing").
 * @return MQ_OK; MQ_ERR_OUT_OF_MEMORY (the previous committed state stays in
 *         force, and the edits stay staged).
 */
MQ_API mq_status mq_scene_commit(mq_scene *scene, mq_diag *diag);

/** Number of instances in the committed scene. */
MQ_API size_t mq_scene_instance_count(const mq_scene *scene);

/** The committed world bounding box of all instances; false when there are none. */
MQ_API bool mq_scene_bounds(const mq_scene *scene, mq_daabb *out);

/**
 * The committed definition of instance `id` (hierarchy, transform, user id, mask).
 * @return false for an id not in the committed scene.
 */
MQ_API bool mq_scene_instance(const mq_scene *scene, uint32_t id, mq_instance_def *out);

/** Bytes owned by the scene (instances and top-level hierarchy), excluding the hierarchies. */
MQ_API size_t mq_scene_byte_count(const mq_scene *scene);

/* ------------------------------------------------------------------------- */
/* Queries                                                                   */
/* ------------------------------------------------------------------------- */

/** Options shared by every scene query. Start from mq_default_scene_query(); NULL means the defaults. */
typedef struct mq_scene_query {
    uint32_t mask;        /**< only instances with (instance mask & mask) != 0 take part; default all ones */
    bool cull_back_faces; /**< raycasts: ignore triangles seen from behind (in the world); default false */
} mq_scene_query;

/** Defaults: mask 0xFFFFFFFF, both faces. */
MQ_API mq_scene_query mq_default_scene_query(void);

/** One ray hit in the scene: world-space geometry plus where it is in which mesh. */
typedef struct mq_scene_hit {
    double t;        /**< world ray parameter in [tmin, tmax]; INFINITY on a miss */
    mq_dvec3 point;  /**< world point: the instance's transform of the mesh point */
    mq_dvec3 normal; /**< world unit geometric normal of the mapped triangle (see "Answers") */
    mq_dvec3
        shading_normal; /**< world unit interpolated vertex normal (inverse-transpose mapped); = normal when absent */
    float u;            /**< barycentric: point = (1-u-v)*w0 + u*w1 + v*w2 */
    float v;            /**< barycentric (see u) */
    vec2 uv;            /**< mesh texture coordinate at (u, v); (0, 0) when absent */
    uint32_t instance;  /**< instance id; MQ_NO_INSTANCE on a miss */
    uint32_t triangle;  /**< triangle id in the instance's mesh; MQ_NO_TRIANGLE on a miss */
    uint32_t face;      /**< OBJ face of that triangle (mq_mesh_face_index) */
    uint32_t group;     /**< group name id in the instance's mesh (mq_mesh_name), 0 = none */
    uint32_t object;    /**< object name id, 0 = none */
    uint32_t material;  /**< material name id, 0 = none */
    uint64_t user_id;   /**< the instance's user id */
    bool back_face;     /**< dir points along `normal` */
    bool has_shading_normal; /**< the mesh has normals at all three corners */
    bool has_uv;             /**< the mesh has texture coordinates at all three corners */
} mq_scene_hit;

/**
 * The nearest hit in [tmin, tmax] (ties: smallest instance, then triangle).
 * @param scene the committed scene.
 * @param ray the world ray.
 * @param query NULL for the defaults.
 * @param[out] out the hit (may be NULL); on a miss t = INFINITY and instance = MQ_NO_INSTANCE.
 * @return true on a hit.
 */
MQ_API bool mq_scene_raycast_closest(const mq_scene *scene, const mq_dray *ray, const mq_scene_query *query,
                                     mq_scene_hit *out);

/** True when anything is hit in [tmin, tmax]; stops at the first hit found. */
MQ_API bool mq_scene_raycast_any(const mq_scene *scene, const mq_dray *ray, const mq_scene_query *query);

/** Called per hit of mq_scene_raycast_each in increasing t; return false to stop. */
typedef bool (*mq_scene_hit_fn)(const mq_scene_hit *hit, void *user);

/**
 * Every hit along the ray in increasing t (ties: instance id, then triangle
 * id). Within one instance, hits on a shared edge or vertex are reported once
 * (as mq_bvh_raycast_each does). No allocation, no limit on the number of hits.
 * @return the number of calls made to fn.
 */
MQ_API size_t mq_scene_raycast_each(const mq_scene *scene, const mq_dray *ray, const mq_scene_query *query,
                                    mq_scene_hit_fn fn, void *user);

/**
 * Every hit as an array: the min(total, capacity) nearest, sorted as
 * mq_scene_raycast_each reports them. @return the TOTAL number of hits.
 * `hits` may be NULL when capacity is 0.
 */
MQ_API size_t mq_scene_raycast_all(const mq_scene *scene, const mq_dray *ray, const mq_scene_query *query,
                                   mq_scene_hit *hits, size_t capacity);

/** One triangle of one instance. */
typedef struct mq_instance_triangle {
    uint32_t instance; /**< instance id */
    uint32_t triangle; /**< triangle id in that instance's mesh */
} mq_instance_triangle;

/** Called once per overlapping (instance, triangle), in no particular order. Return false to stop. */
typedef bool (*mq_scene_overlap_fn)(uint32_t instance, uint32_t triangle, void *user);

/**
 * Every (instance, triangle) whose mapped triangle overlaps the world shape
 * (the primitive of its kind: mq_overlap_sphere_triangle,
 * mq_overlap_capsule_triangle, mq_overlap_triangle_obb or
 * mq_overlap_triangle_aabb semantics: closed sets, touching counts).
 * @param scene the committed scene; NULL matches nothing.
 * @param shape the world shape (types.h: mq_dshape_sphere(), ...); NULL, an
 *        invalid one or one of a kind this version does not know matches nothing.
 * @param query NULL for the defaults (only its mask applies).
 * @param fn called per pair; NULL makes the call a no-op.
 * @param user passed to `fn`.
 * @return the number of calls made (including one that returned false).
 */
MQ_API size_t mq_scene_overlap(const mq_scene *scene, const mq_dshape *shape, const mq_scene_query *query,
                               mq_scene_overlap_fn fn, void *user);
/**
 * Writes up to `capacity` overlapping pairs (in no particular order) and
 * returns the total. `out` may be NULL when capacity is 0.
 */
MQ_API size_t mq_scene_overlap_array(const mq_scene *scene, const mq_dshape *shape, const mq_scene_query *query,
                                     mq_instance_triangle *out, size_t capacity);
/** True when some triangle overlaps the shape; stops at the first. */
MQ_API bool mq_scene_overlap_any(const mq_scene *scene, const mq_dshape *shape, const mq_scene_query *query);

/** The nearest scene point to a query point. */
typedef struct mq_scene_point_hit {
    mq_dvec3 point;    /**< world point on the mapped triangle */
    double distance;   /**< world distance from the query point */
    float u;           /**< barycentric of `point` on the triangle (as mq_scene_hit) */
    float v;           /**< barycentric (see u) */
    uint32_t instance; /**< instance id (ties: smallest instance id, then triangle id) */
    uint32_t triangle; /**< triangle id in that instance's mesh */
    uint64_t user_id;  /**< the instance's user id */
} mq_scene_point_hit;

/**
 * The closest point of any (mask-matching) instance to `p` within
 * `max_distance` (may be INFINITY), measured in the world.
 * @param scene the committed scene.
 * @param p the world query point.
 * @param max_distance the largest distance searched.
 * @param query NULL for the defaults (only its mask applies).
 * @param out untouched when nothing lies within max_distance (may be NULL).
 * @return true when found; false otherwise and for a non-finite p or a NaN or
 *         negative max_distance.
 */
MQ_API bool mq_scene_closest_point(const mq_scene *scene, const mq_dvec3 p, double max_distance,
                                   const mq_scene_query *query, mq_scene_point_hit *out);

/** Called once per intersecting triangle pair of two instances; return false to stop. */
typedef bool (*mq_scene_pair_fn)(uint32_t triangle_a, uint32_t triangle_b, void *user);

/**
 * Every pair (triangle of instance a, triangle of instance b), both mapped to
 * the world, that intersects (mq_overlap_triangle_triangle semantics). `a`
 * and `b` may use the same hierarchy; a == b is allowed (self pairs, including
 * a triangle with itself and each unordered pair twice).
 * Exactness: decided exactly in the frame of instance a. a's triangles are
 * its mesh's float corners; b's corners are mapped into a's mesh frame by
 * to_local(a) o to_world(b), composed and applied in double (from the offset
 * of the two translations, so instances far from the origin collide as they
 * would at it) and rounded to float once; mq_overlap_triangle_triangle, exact
 * for float input, decides. Pairs within that one rounding (a few ulp of a's
 * mesh coordinates) of touching may go either way; with a == b or equal
 * transforms the mapping is exactly the identity.
 * @return the number of calls made; 0 when either id is not committed.
 */
MQ_API size_t mq_scene_collide(const mq_scene *scene, uint32_t a, uint32_t b, mq_scene_pair_fn fn, void *user);

/** Writes up to `capacity` pairs (a's triangle, b's triangle) and returns the total. */
MQ_API size_t mq_scene_collide_array(const mq_scene *scene, uint32_t a, uint32_t b, mq_tri_pair *out, size_t capacity);

/* ------------------------------------------------------------------------- */
/* Batches                                                                   */
/* ------------------------------------------------------------------------- */

/*
 * Batches spread `count` independent queries over `threads` threads (0 = all
 * online cores, 1 = the calling thread only) of a persistent pool started on
 * first use (no thread is created per call). Entry i of the output is exactly
 * what the single query gives for input i, whatever the thread count.
 *
 * Prefer the ray batches to a loop of single rays: on CPUs with AVX2 each
 * thread keeps several rays in flight and steps them in turn, so one ray's
 * cache misses overlap another's work (faster than single rays on large
 * scenes: docs/performance.md); the answers stay those of the single queries, bit for bit.
 * A batch call uses about 80 KB of the calling thread's stack.
 */

/** hits[i] = mq_scene_raycast_closest(rays[i]). @return the number of rays that hit. */
MQ_API size_t mq_scene_raycast_closest_batch(const mq_scene *scene, const mq_dray *rays, size_t count,
                                             const mq_scene_query *query, uint32_t threads, mq_scene_hit *hits);

/** occluded[i] = mq_scene_raycast_any(rays[i]). @return the number of occluded rays. */
MQ_API size_t mq_scene_raycast_any_batch(const mq_scene *scene, const mq_dray *rays, size_t count,
                                         const mq_scene_query *query, uint32_t threads, bool *occluded);

/** out[i] = mq_scene_overlap_any(shapes + i). @return the number of shapes that overlap something. */
MQ_API size_t mq_scene_overlap_any_batch(const mq_scene *scene, const mq_dshape *shapes, size_t count,
                                         const mq_scene_query *query, uint32_t threads, bool *out);

/** counts[i] = number of (instance, triangle) overlapping shapes[i]. @return the sum of the counts. */
MQ_API uint64_t mq_scene_overlap_count_batch(const mq_scene *scene, const mq_dshape *shapes, size_t count,
                                             const mq_scene_query *query, uint32_t threads, uint64_t *counts);

/**
 * found[i] = mq_scene_closest_point(points[i], max_distance, out + i); out[i]
 * is untouched where found[i] is false. @return the number found.
 */
MQ_API size_t mq_scene_closest_point_batch(const mq_scene *scene, const mq_dvec3 *points, size_t count,
                                           double max_distance, const mq_scene_query *query, uint32_t threads,
                                           mq_scene_point_hit *out, bool *found);

/* ------------------------------------------------------------------------- */
/* Shape casts                                                               */
/* ------------------------------------------------------------------------- */

/** Where a world shape cast first touches the scene (mq_scene_shape_cast), in double. */
typedef struct mq_scene_cast_hit {
    double t;                   /**< world time of impact in [0, tmax]; INFINITY on a miss */
    mq_dvec3 point;             /**< world contact point on the mapped triangle (NaN on a miss) */
    mq_dvec3 normal;            /**< world unit contact normal, from the triangle towards the shape
                                     (the fallbacks of mq_cast_hit when the two touch at a
                                     single point through the shape's core); (0, 0, 0) on a miss */
    uint32_t instance;          /**< instance id; MQ_NO_INSTANCE on a miss */
    uint32_t triangle;          /**< triangle id in that instance's mesh; MQ_NO_TRIANGLE on a miss */
    uint64_t user_id;           /**< the instance's user id (0 on a miss) */
    bool initially_overlapping; /**< t == 0: the shape already touched the scene at the start */
} mq_scene_cast_hit;

/**
 * Shape cast (sweep) through the scene: the smallest t in [0, tmax] at which
 * the world shape translated by t * dir touches a triangle of a
 * mask-matching instance (closed sets: touching counts), as the per-mesh
 * casts of casts.h define it for one mesh.
 *
 * Shapes: MQ_SHAPE_SPHERE, MQ_SHAPE_CAPSULE and MQ_SHAPE_CONVEX (an
 * mq_dconvex: a convex placed by a double rigid transform). Boxes
 * (MQ_SHAPE_OBB, MQ_SHAPE_AABB) and kinds this version does not know are
 * REJECTED: they hit nothing (false; a convex of the box's 8 corners casts a box).
 *
 * Frames (the rules of the shape overlaps, "Large worlds" and "Answers"):
 * the shape is never mapped into a mesh frame, so any accepted transform
 * works, non-uniform scale, mirrors and shear included (a sphere stays a
 * sphere in the world; its preimage would be an ellipsoid). Each candidate
 * triangle's corners are mapped into the instance-centred frame (the world
 * translated by minus the instance's translation: A v in double, rounded once
 * to float), the shape is first advanced in double to where it reaches the
 * instance's world box, then translated into that frame in double and
 * rounded once to float, and the per-triangle cast of casts.h decides there
 * (sphere and capsule: exact Minkowski construction in float; convex:
 * conservative advancement in double, within about 1e-9 of the sweep's
 * length of the exact time, never later). The motion is the world dir, so t
 * is the world time, measured in units of dir. A shape whose centred form is
 * not finite in float for some instance (its centre or segment beyond float
 * range of it) meets nothing there. Unlike the overlaps, a shape is not cut
 * down to the part near an instance first, so a capsule longer than float
 * range hits nothing.
 *
 * Answers: the smallest t; ties in t go to the smallest instance id, then the
 * smallest triangle id. At t = 0 (an initial overlap) the float inputs of a
 * sphere or capsule are exactly those of mq_scene_overlap, so the two agree
 * (for shapes mq_scene_overlap does not cut down); a convex counts contact
 * within its advancement tolerance, so it may report t = 0 for a convex that
 * mq_scene_overlap finds just apart.
 * Masks: query->mask selects instances; cull_back_faces does not apply (a
 * cast touches both faces).
 *
 * Pruning: instances through the top-level hierarchy with the world box of
 * the whole sweep (conservative, widened by MQ_SCENE_REL_SLACK), in no
 * particular order; an instance is skipped when the shape cannot reach its
 * world box before the best time so far; within an instance the hierarchy
 * is walked as the per-mesh casts walk it, nearest node first and pruned by
 * the best time, with the shape's path and extent mapped to the mesh frame
 * (an affine map keeps the path straight and its parameter t).
 *
 * @param scene the committed scene; NULL hits nothing.
 * @param shape the world shape at t = 0 (only read; a convex is borrowed for
 *        the call). NULL, an invalid shape (scene.h "Answers"), a box or an
 *        unknown kind hit nothing.
 * @param dir world motion per unit t: finite; (0, 0, 0) is allowed (only an
 *        initial overlap can then be reported).
 * @param tmax end of the motion: >= 0, may be +INFINITY; NaN or negative hit nothing.
 * @param query NULL for the defaults (only its mask applies).
 * @param[out] out the hit (may be NULL); on a miss t = INFINITY, instance =
 *        MQ_NO_INSTANCE, triangle = MQ_NO_TRIANGLE.
 * @return true on a hit. Allocates nothing; thread safety as for every query.
 */
MQ_API bool mq_scene_shape_cast(const mq_scene *scene, const mq_dshape *shape, const mq_dvec3 dir, double tmax,
                                const mq_scene_query *query, mq_scene_cast_hit *out);

/**
 * hits[i] = mq_scene_shape_cast(shapes[i], dirs[i], tmax) on `threads`
 * threads of the pool ("Batches"). One tmax for all: scale dirs[i] to give
 * each cast its own length (with tmax = 1, dirs[i] is the whole motion).
 * @param scene the committed scene (NULL: every cast misses).
 * @param shapes count world shapes, only read.
 * @param dirs count motions, dirs[i] for shapes[i].
 * @param count the number of casts.
 * @param tmax the end of every motion (as for the single cast).
 * @param query NULL for the defaults (only its mask applies).
 * @param threads 0 = all online cores, 1 = the calling thread only.
 * @param[out] hits count records (may be NULL: only the count is wanted).
 * @return the number of casts that hit; 0 for NULL shapes or dirs or count 0.
 */
MQ_API size_t mq_scene_shape_cast_batch(const mq_scene *scene, const mq_dshape *shapes, const mq_dvec3 *dirs,
                                        size_t count, double tmax, const mq_scene_query *query, uint32_t threads,
                                        mq_scene_cast_hit *hits);

#endif /* MESHQUERY_SCENE_H */
