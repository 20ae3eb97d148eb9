/**
 * @file
 * meshquery/proximity.h — how far apart things are: the distance between two
 * meshes (with the closest pair of points and the two triangles), between a
 * shape and a mesh, and clearance ("is anything within d?", "every pair within
 * d"), on both hierarchies. docs/proximity.md states the semantics in full.
 *
 * Synopsis
 *   mq_obbtree_distance(a, b, &b_to_a, &opts, &res)       mesh vs mesh, OBB trees
 *   mq_bvh_distance(a, b, &b_to_a, &opts, &res)           mesh vs mesh, BVHs
 *   mq_obbtree_shape_distance(tree, &shape, &opts, &res)  shape vs mesh
 *   mq_bvh_shape_distance(bvh, &shape, &opts, &res)
 *   mq_obbtree_clearance_any / _clearance / _clearance_array     pairs within d
 *   mq_obbtree_shape_clearance_any / _shape_clearance / _array   shape: triangles within d
 *   and the same with mq_bvh_ for BVHs.
 *   mq_kdoptree_shape_distance / mq_spheretree_shape_distance, and
 *   mq_kdoptree_shape_clearance* / mq_spheretree_shape_clearance*: the shape
 *   queries on the k-DOP and sphere trees (kdoptree.h, spheretree.h).
 *
 * Frames. Mesh A is in its own mesh frame; mesh B's corners are mapped into
 * A's frame by b_to_a (the rotation is built from the normalised quaternion and
 * applied in DOUBLE, so this differs from the float mapping of
 * mq_obbtree_collide by float rounding). Every point these queries report is
 * in A's frame (for shapes: the mesh's frame), in double.
 *
 * Triangle distance (the one rule behind every query here). Two triangles are
 * at distance 0 when they intersect; that is decided exactly by
 * mq_overlap_triangle_triangle on their corners rounded to float (A's are
 * floats already; B's mapped corners round once). Otherwise their distance is
 * the smallest of the 6 vertex-triangle and 9 edge-edge distances, computed in
 * double from the unrounded corners. Closed sets: touching is distance 0.
 * Zero-area triangles act as the segment or point they span; triangles with a
 * non-finite corner (or whose mapped corners overflow) are ignored. A shape's
 * distance to a triangle is the exact distance between the solid shape and the
 * triangle, in double (0 when they overlap, decided by the shape's own overlap
 * primitive); for a convex (MQ_SHAPE_CONVEX) it is mq_convex_triangle_distance
 * (GJK in double, about 1e-12 of the shapes' extent; 0 exactly when
 * mq_overlap_convex_triangle says they meet, both points then one common
 * point).
 *
 * Ties: when several pairs share the smallest distance (for example many
 * intersecting pairs at 0), which of them is reported is unspecified; the
 * distance is not.
 *
 * Inputs: NULL trees, an empty tree, a NULL or non-finite transform, an
 * invalid shape (types.h: a convex shape with a NULL hull is one) or an unknown
 * shape kind give "nothing found"
 * (false, found = false, 0 pairs). A negative or NaN max_distance, tolerance
 * or clearance d gives nothing found as well.
 *
 * Thread safety and memory: the queries allocate nothing (fixed stacks), read
 * the hierarchies and write only their outputs; any number of threads may run
 * them on the same hierarchies at once (not concurrently with mq_bvh_refit or
 * a destroy).
 */
#ifndef MESHQUERY_PROXIMITY_H
#define MESHQUERY_PROXIMITY_H

#include <meshquery/bvh.h>
#include <meshquery/kdoptree.h>
#include <meshquery/obbtree.h>
#include <meshquery/spheretree.h>
#include <meshquery/types.h>

/* ------------------------------------------------------------------------- */
/* Distance                                                                  */
/* ------------------------------------------------------------------------- */

/** Options of the distance queries. Start from mq_default_distance_options(). */
typedef struct mq_distance_options {
    /** Stop early beyond this: when the distance exceeds it, nothing is found
     *  (found = false). Pairs at exactly max_distance are found. Default INFINITY. */
    double max_distance;
    /** Absolute tolerance: the reported distance may exceed the true one by up to
     *  abs_tolerance + rel_tolerance * (true distance). Default 0 (exact to rounding). */
    double abs_tolerance;
    /** Relative tolerance; see abs_tolerance. Default 0. */
    double rel_tolerance;
} mq_distance_options;

/** The defaults: max_distance INFINITY, both tolerances 0 (the exact distance, to float rounding). */
MQ_API mq_distance_options mq_default_distance_options(void);

/** The answer of a mesh vs mesh distance query. */
typedef struct mq_distance_result {
    double distance;     /**< the distance, >= 0 (0 when the meshes intersect or touch) */
    mq_dvec3 point_a;    /**< the closest point on mesh A (A's frame) */
    mq_dvec3 point_b;    /**< the closest point on mesh B, mapped into A's frame */
    uint32_t triangle_a; /**< mesh id of A's triangle that holds point_a (MQ_NO_TRIANGLE when not found) */
    uint32_t triangle_b; /**< mesh id of B's triangle that holds point_b (MQ_NO_TRIANGLE when not found) */
    bool found;          /**< false: nothing within max_distance, or invalid input; the rest is then unset */
} mq_distance_result;

/**
 * The distance between two meshes, given as OBB trees, with B placed by a
 * rigid transform into A's frame.
 * @param a       tree of mesh A (borrowed).
 * @param b       tree of mesh B (borrowed; may be the same tree as a).
 * @param b_to_a   maps B's mesh frame into A's (quaternion normalised first).
 * @param opts     NULL: mq_default_distance_options().
 * @param out      the answer; may be NULL (then only the return value).
 * @return true when a pair within opts->max_distance exists (out->found).
 * Allocates nothing; thread-safe for concurrent queries.
 */
MQ_API bool mq_obbtree_distance(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a,
                                const mq_distance_options *opts, mq_distance_result *out);

/** As mq_obbtree_distance, on two BVHs (the same answers: the distance is equal to rounding). */
MQ_API bool mq_bvh_distance(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, const mq_distance_options *opts,
                            mq_distance_result *out);

/** The answer of a shape vs mesh distance query. */
typedef struct mq_shape_distance_result {
    double distance;      /**< the distance between the solid shape and the mesh, >= 0 */
    mq_dvec3 point_shape; /**< the closest point of the shape (mesh frame) */
    mq_dvec3 point_mesh;  /**< the closest point of the mesh */
    uint32_t triangle;    /**< mesh id of the triangle that holds point_mesh (MQ_NO_TRIANGLE when not found) */
    bool found;           /**< false: nothing within max_distance, or invalid input; the rest is then unset */
} mq_shape_distance_result;

/**
 * The distance between a solid shape (sphere, capsule, OBB, AABB, convex; in
 * the mesh's frame; a convex is borrowed for the call) and the mesh of an OBB
 * tree. 0, with both points in the
 * overlap, when the shape overlaps the mesh.
 * @param tree   the tree (borrowed).
 * @param shape  the query shape; an invalid one or an unknown kind finds nothing.
 * @param opts   NULL: mq_default_distance_options().
 * @param out    the answer; may be NULL.
 * @return true when some triangle lies within opts->max_distance (out->found).
 * Allocates nothing; thread-safe.
 */
MQ_API bool mq_obbtree_shape_distance(const mq_obbtree *tree, const mq_shape *shape, const mq_distance_options *opts,
                                      mq_shape_distance_result *out);

/** As mq_obbtree_shape_distance, on a BVH. */
MQ_API bool mq_bvh_shape_distance(const mq_bvh *bvh, const mq_shape *shape, const mq_distance_options *opts,
                                  mq_shape_distance_result *out);

/**
 * As mq_obbtree_shape_distance, on a k-DOP tree (kdoptree.h): the same walk
 * and the same triangle distances, so the same distance as the BVH and the
 * OBB tree (exactly, with zero tolerances); on a tie in distance the triangle
 * may be another of the tied ones. Nodes are bounded by their slabs (widened
 * by the tree's slack) as well as by their axis box.
 * @param tree   the tree (borrowed); NULL or empty finds nothing.
 * @param shape  the query shape; an invalid one or an unknown kind finds nothing.
 * @param opts   NULL: mq_default_distance_options(); NaN or negative values find nothing.
 * @param out    the answer; may be NULL.
 * @return true when some triangle lies within opts->max_distance (out->found).
 * Allocates nothing; thread-safe (any number of queries on one tree).
 */
MQ_API bool mq_kdoptree_shape_distance(const mq_kdoptree *tree, const mq_shape *shape, const mq_distance_options *opts,
                                       mq_shape_distance_result *out);

/**
 * As mq_kdoptree_shape_distance, on a sphere tree (spheretree.h): nodes are
 * bounded by the distance from their ball's centre to the shape's core, less
 * the radii and the tree's slack, as well as by the box around the ball.
 * @param tree   the tree (borrowed); NULL or empty finds nothing.
 * @param shape  the query shape; an invalid one or an unknown kind finds nothing.
 * @param opts   NULL: mq_default_distance_options(); NaN or negative values find nothing.
 * @param out    the answer; may be NULL.
 * @return true when some triangle lies within opts->max_distance (out->found).
 * Allocates nothing; thread-safe.
 */
MQ_API bool mq_spheretree_shape_distance(const mq_spheretree *tree, const mq_shape *shape,
                                         const mq_distance_options *opts, mq_shape_distance_result *out);

/* ------------------------------------------------------------------------- */
/* Clearance: every pair within d                                            */
/* ------------------------------------------------------------------------- */

/**
 * One pair within the clearance d. For mesh vs mesh, triangle_a is A's and
 * triangle_b is B's; for a shape vs a mesh, triangle_a is MQ_NO_TRIANGLE,
 * point_a lies on the shape and triangle_b is the mesh's triangle.
 */
typedef struct mq_clearance_pair {
    uint32_t triangle_a; /**< mesh id of A's triangle (MQ_NO_TRIANGLE for a shape) */
    uint32_t triangle_b; /**< mesh id of B's triangle (the mesh's, for a shape) */
    double distance;     /**< their distance, 0 <= distance <= d */
    mq_dvec3 point_a;    /**< closest point on A's triangle (or on the shape), A's frame */
    mq_dvec3 point_b;    /**< closest point on B's triangle, A's frame */
} mq_clearance_pair;

/** Called once per pair within d. Return true to go on, false to stop the query. */
typedef bool (*mq_clearance_fn)(const mq_clearance_pair *pair, void *user);

/**
 * Every triangle pair of two OBB trees whose distance is at most d (closed:
 * pairs at exactly d count; d = 0 gives the pairs that touch or intersect).
 * @param a       tree of mesh A (borrowed).
 * @param b       tree of mesh B (borrowed; may be the same tree as a).
 * @param b_to_a  maps B's mesh frame into A's.
 * @param d       clearance, >= 0 (INFINITY: every pair); NaN or negative: none.
 * @param fn      called once per pair, in no particular order; required.
 * @param user    passed to fn.
 * @return the number of calls made (including the one that stopped the query).
 * Allocates nothing; thread-safe.
 */
MQ_API size_t mq_obbtree_clearance(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, double d,
                                   mq_clearance_fn fn, void *user);
/**
 * As mq_obbtree_clearance, into an array: writes up to `capacity` pairs to
 * `out` (NULL with capacity 0 just counts) and returns the TOTAL number of
 * pairs within d, which may exceed capacity (call again with a larger array).
 */
MQ_API size_t mq_obbtree_clearance_array(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, double d,
                                         mq_clearance_pair *out, size_t capacity);
/** True when some triangle pair lies within d (stops at the first). */
MQ_API bool mq_obbtree_clearance_any(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, double d);

/** As mq_obbtree_clearance, on two BVHs. */
MQ_API size_t mq_bvh_clearance(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, double d, mq_clearance_fn fn,
                               void *user);
/** As mq_obbtree_clearance_array, on two BVHs. */
MQ_API size_t mq_bvh_clearance_array(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, double d,
                                     mq_clearance_pair *out, size_t capacity);
/** As mq_obbtree_clearance_any, on two BVHs. */
MQ_API bool mq_bvh_clearance_any(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, double d);

/**
 * Every triangle of an OBB tree within d of a solid shape (pairs with
 * triangle_a = MQ_NO_TRIANGLE; see mq_clearance_pair). Same d rules as
 * mq_obbtree_clearance. @return the number of calls made.
 */
MQ_API size_t mq_obbtree_shape_clearance(const mq_obbtree *tree, const mq_shape *shape, double d, mq_clearance_fn fn,
                                         void *user);
/** As mq_obbtree_shape_clearance, into an array; returns the total count (see mq_obbtree_clearance_array). */
MQ_API size_t mq_obbtree_shape_clearance_array(const mq_obbtree *tree, const mq_shape *shape, double d,
                                               mq_clearance_pair *out, size_t capacity);
/** True when some triangle lies within d of the shape. */
MQ_API bool mq_obbtree_shape_clearance_any(const mq_obbtree *tree, const mq_shape *shape, double d);

/** As mq_obbtree_shape_clearance, on a BVH. */
MQ_API size_t mq_bvh_shape_clearance(const mq_bvh *bvh, const mq_shape *shape, double d, mq_clearance_fn fn,
                                     void *user);
/** As mq_obbtree_shape_clearance_array, on a BVH. */
MQ_API size_t mq_bvh_shape_clearance_array(const mq_bvh *bvh, const mq_shape *shape, double d, mq_clearance_pair *out,
                                           size_t capacity);
/** As mq_obbtree_shape_clearance_any, on a BVH. */
MQ_API bool mq_bvh_shape_clearance_any(const mq_bvh *bvh, const mq_shape *shape, double d);

/**
 * As mq_obbtree_shape_clearance, on a k-DOP tree: the same set of triangles
 * and distances as the BVH and the OBB tree (the calls may come in another
 * order). NULL tree, shape or fn, an invalid shape, or a NaN or negative d:
 * no calls. @return the number of calls made. Allocates nothing; thread-safe.
 */
MQ_API size_t mq_kdoptree_shape_clearance(const mq_kdoptree *tree, const mq_shape *shape, double d, mq_clearance_fn fn,
                                          void *user);
/** As mq_obbtree_shape_clearance_array, on a k-DOP tree (returns the total count). */
MQ_API size_t mq_kdoptree_shape_clearance_array(const mq_kdoptree *tree, const mq_shape *shape, double d,
                                                mq_clearance_pair *out, size_t capacity);
/** As mq_obbtree_shape_clearance_any, on a k-DOP tree. */
MQ_API bool mq_kdoptree_shape_clearance_any(const mq_kdoptree *tree, const mq_shape *shape, double d);

/** As mq_kdoptree_shape_clearance, on a sphere tree (same set of triangles and distances). */
MQ_API size_t mq_spheretree_shape_clearance(const mq_spheretree *tree, const mq_shape *shape, double d,
                                            mq_clearance_fn fn, void *user);
/** As mq_obbtree_shape_clearance_array, on a sphere tree (returns the total count). */
MQ_API size_t mq_spheretree_shape_clearance_array(const mq_spheretree *tree, const mq_shape *shape, double d,
                                                  mq_clearance_pair *out, size_t capacity);
/** As mq_obbtree_shape_clearance_any, on a sphere tree. */
MQ_API bool mq_spheretree_shape_clearance_any(const mq_spheretree *tree, const mq_shape *shape, double d);

#endif /* MESHQUERY_PROXIMITY_H */
