/**
 * @file
 * meshquery/casts.h — shape casts (sweeps) against a mesh, and inside/outside
 * and signed distance of closed meshes ("Solids", at the end), on both
 * hierarchies. Casts: a sphere, capsule or convex moved along a straight line, the first time
 * it touches the mesh, where, along which normal, and which triangle.
 *
 * Synopsis
 *   mq_bvh_sphere_cast(bvh, &sphere, dir, tmax, &hit)        BVH, sphere
 *   mq_obbtree_sphere_cast(tree, &sphere, dir, tmax, &hit)   OBB tree, sphere
 *   mq_bvh_capsule_cast(), mq_obbtree_capsule_cast()         capsules
 *   mq_bvh_convex_cast(), mq_obbtree_convex_cast()           convex hulls (convex.h)
 *   mq_kdoptree_{sphere,capsule,convex}_cast()               the same on a k-DOP tree
 *   mq_spheretree_{sphere,capsule,convex}_cast()             and on a sphere tree
 *   mq_bvh_winding_number(bvh, p), mq_bvh_signed_distance(bvh, p, &d, &closest)
 *   mq_obbtree_winding_number(), mq_obbtree_signed_distance()   closed meshes ("Solids")
 *
 * The moving shape at time t is the start shape translated by t * dir, for t in
 * [0, tmax] (t in units of dir, as for rays). The answer is the smallest t at
 * which it touches (closed sets: touching counts) some triangle of the mesh;
 * ties go to the smaller triangle id. A shape that overlaps the mesh at the
 * start reports t = 0 (see mq_cast_hit for the contact it then reports).
 *
 * Method (exact up to float rounding, no iteration): a sphere of radius r
 * touches triangle T at time t iff its centre's ray c + t*dir meets T ⊕ B(r),
 * the Minkowski sum of T and the ball, whose surface lies on the two copies of
 * T offset by ±r along its normal and on the three edge capsules (the corner
 * spheres are inside those): the time of impact is the nearest of the
 * watertight ray–triangle hits (mq_raycast_triangle) on the offset copies and
 * the ray–capsule entries (mq_raycast_capsule). A capsule with segment [a, b]
 * touches T at time t iff a + t*dir meets K ⊕ B(r), with K = T ⊕ [a - b, 0]
 * the (convex) prism T sweeps backwards along the segment; its surface lies on
 * the offset copies of K's five faces (T, T - (b - a) and three parallelograms,
 * each split in two triangles) and on the capsules around its nine edges, so
 * the capsule cast is the same exact construction with 16 ray–triangle and 9
 * ray–capsule tests per triangle. Zero-area triangles act as the segment or
 * point they span (their capsules alone cover them); triangles with a
 * non-finite corner are never hit. The float rounding of the offset copies
 * (about an ulp of the coordinates) is the only approximation: the reported t
 * lies between the exact times of impact of shapes with radius r ± 1e-5 of
 * the scene's coordinates (tests/diff/test_diff_casts.c checks this against a
 * double-precision root finder on the distance function).
 *
 * Pruning: nodes (and then each triangle's own box) are tested with the ray
 * of the shape's centre against the box grown by the shape's extent along
 * the box's axes (half the segment's projection plus the radius), widened by
 * 1e-5 of the magnitudes, nearest first, against the best time so far.
 *
 * Inputs: an invalid shape (types.h), a non-finite dir, or a NaN or negative
 * tmax hit nothing (false). tmax may be +INFINITY. dir = (0, 0, 0) is allowed:
 * only an initial overlap (t = 0) can then be reported.
 *
 * Thread safety: queries allocate nothing, use fixed stacks and write only
 * their output; any number of threads may cast against one hierarchy at once
 * (not concurrently with mq_bvh_refit or a destroy).
 */
#ifndef MESHQUERY_CASTS_H
#define MESHQUERY_CASTS_H

#include <meshquery/bvh.h>
#include <meshquery/kdoptree.h>
#include <meshquery/obbtree.h>
#include <meshquery/spheretree.h>
#include <meshquery/types.h>

/** Where a cast shape first touches the mesh. */
typedef struct mq_cast_hit {
    float t;                    /**< time of impact in [0, tmax]; INFINITY on a miss */
    vec3 point;                 /**< contact point on the mesh: the point of the triangle closest to the
                                     shape at time t (for an initial overlap: closest to the sphere's
                                     centre / the capsule's segment, a point inside the shape) */
    vec3 normal;                /**< unit contact normal, from the mesh towards the shape: (closest
                                     point of the shape's centre / segment at time t) minus `point`,
                                     normalised; when that is zero (an initial overlap through the
                                     centre or segment, or radius 0) the triangle's unit normal turned
                                     against dir (or, for zero-area triangles or dir = 0, -dir
                                     normalised, or (0, 0, 0) when that is zero too) */
    uint32_t triangle;          /**< the mesh id of the touched triangle; MQ_NO_TRIANGLE on a miss */
    bool initially_overlapping; /**< true when the shape already overlapped the mesh at t = 0 */
} mq_cast_hit;

/**
 * Sphere cast on the BVH: the first t in [0, tmax] at which the sphere moved
 * by t * dir touches a triangle (see the file comment).
 * @param bvh the BVH to query.
 * @param sphere the sphere at t = 0.
 * @param dir the motion per unit t (finite; may be zero).
 * @param tmax the end of the motion (>= 0, may be +INFINITY).
 * @param[out] out the hit (may be NULL); on a miss t = INFINITY and triangle = MQ_NO_TRIANGLE.
 * @return true when the sphere touches the mesh in [0, tmax].
 */
MQ_API bool mq_bvh_sphere_cast(const mq_bvh *bvh, const mq_sphere *sphere, const vec3 dir, float tmax,
                               mq_cast_hit *out);
/** As mq_bvh_sphere_cast, on the OBB tree (same answers: same triangle, same t). */
MQ_API bool mq_obbtree_sphere_cast(const mq_obbtree *tree, const mq_sphere *sphere, const vec3 dir, float tmax,
                                   mq_cast_hit *out);
/** As mq_bvh_sphere_cast, for a capsule moved by t * dir (both ends). */
MQ_API bool mq_bvh_capsule_cast(const mq_bvh *bvh, const mq_capsule *capsule, const vec3 dir, float tmax,
                                mq_cast_hit *out);
/** As mq_bvh_capsule_cast, on the OBB tree. */
MQ_API bool mq_obbtree_capsule_cast(const mq_obbtree *tree, const mq_capsule *capsule, const vec3 dir, float tmax,
                                    mq_cast_hit *out);

/**
 * Convex cast on the BVH: the first t in [0, tmax] at which the convex
 * (convex.h, in the mesh's frame) moved by t * dir touches a triangle, ties
 * in t going to the smallest triangle id. The leaf test is
 * mq_convex_cast_triangle (conservative advancement on GJK distances), so t
 * is within about 1e-9 of the sweep's length of the exact time of first
 * contact and never later by more; t = 0 when the convex already overlaps the
 * mesh (touching counts). Nodes are pruned with the convex's box (BVH) or
 * the ball around that box (OBB tree), grown by 1e-5 of the magnitudes.
 * The record: `point` on the triangle and `normal` from it towards the convex
 * at time t are the closest pair of the moved convex and the triangle
 * (mq_convex_triangle_distance), with the fallbacks of the other casts when
 * they coincide. A NULL hierarchy or convex, a non-finite dir, or a NaN or
 * negative tmax hit nothing (false; *out, if given, holds the miss record).
 * The convex is only read; thread safety as above.
 */
MQ_API bool mq_bvh_convex_cast(const mq_bvh *bvh, const mq_convex *convex, const vec3 dir, float tmax,
                               mq_cast_hit *out);
/** As mq_bvh_convex_cast, on the OBB tree (same triangle, same t). */
MQ_API bool mq_obbtree_convex_cast(const mq_obbtree *tree, const mq_convex *convex, const vec3 dir, float tmax,
                                   mq_cast_hit *out);

/**
 * As mq_bvh_sphere_cast, on a k-DOP tree (kdoptree.h): the same leaf test and
 * the same record, so the same t, triangle (ties: the smaller id), point and
 * normal. Nodes are entered where the path of the shape's centre meets every
 * slab grown by the shape's extent along its direction and by the slack.
 * @param tree the tree (borrowed); NULL or empty: a miss.
 * @param sphere the sphere at t = 0.
 * @param dir the motion per unit t (finite; may be zero).
 * @param tmax the end of the motion (>= 0, may be +INFINITY).
 * @param[out] out the hit (may be NULL); on a miss t = INFINITY and triangle = MQ_NO_TRIANGLE.
 * @return true when the sphere touches the mesh in [0, tmax]. Allocates nothing; thread-safe.
 */
MQ_API bool mq_kdoptree_sphere_cast(const mq_kdoptree *tree, const mq_sphere *sphere, const vec3 dir, float tmax,
                                    mq_cast_hit *out);
/** As mq_bvh_capsule_cast, on a k-DOP tree (same answers; see mq_kdoptree_sphere_cast). */
MQ_API bool mq_kdoptree_capsule_cast(const mq_kdoptree *tree, const mq_capsule *capsule, const vec3 dir, float tmax,
                                     mq_cast_hit *out);
/** As mq_bvh_convex_cast, on a k-DOP tree (same triangle, same t; the convex is pruned by its grown box). */
MQ_API bool mq_kdoptree_convex_cast(const mq_kdoptree *tree, const mq_convex *convex, const vec3 dir, float tmax,
                                    mq_cast_hit *out);

/**
 * As mq_bvh_sphere_cast, on a sphere tree (spheretree.h): the same t,
 * triangle, point and normal. Nodes are entered where the path of the shape's
 * centre meets the node's ball grown by the shape's bounding radius and the
 * slack (solved in double).
 * @param tree the tree (borrowed); NULL or empty: a miss.
 * @param sphere the sphere at t = 0.
 * @param dir the motion per unit t (finite; may be zero).
 * @param tmax the end of the motion (>= 0, may be +INFINITY).
 * @param[out] out the hit (may be NULL); on a miss t = INFINITY and triangle = MQ_NO_TRIANGLE.
 * @return true when the sphere touches the mesh in [0, tmax]. Allocates nothing; thread-safe.
 */
MQ_API bool mq_spheretree_sphere_cast(const mq_spheretree *tree, const mq_sphere *sphere, const vec3 dir, float tmax,
                                      mq_cast_hit *out);
/** As mq_bvh_capsule_cast, on a sphere tree (same answers; see mq_spheretree_sphere_cast). */
MQ_API bool mq_spheretree_capsule_cast(const mq_spheretree *tree, const mq_capsule *capsule, const vec3 dir, float tmax,
                                       mq_cast_hit *out);
/** As mq_bvh_convex_cast, on a sphere tree (same triangle, same t; the convex is pruned by its grown ball). */
MQ_API bool mq_spheretree_convex_cast(const mq_spheretree *tree, const mq_convex *convex, const vec3 dir, float tmax,
                                      mq_cast_hit *out);

/* ------------------------------------------------------------------------- */
/* Solids: inside / outside and signed distance of closed meshes             */
/* ------------------------------------------------------------------------- */
/*
 * For a closed, consistently oriented mesh (every edge shared by exactly two
 * triangles that traverse it in opposite directions; normals, by the
 * counter-clockwise winding, pointing out), the winding number is 1 inside,
 * 0 outside (-1 inside a mesh turned inside out; k inside k nested or
 * overlapping closed shells).
 *
 * Method, and why: signed RAY CROSSINGS with the watertight ray–triangle test
 * (+1 where the ray leaves through a triangle, -1 where it enters). It is
 * exact for closed meshes and needs no data beyond the hierarchy (a fast
 * winding number, Barill et al. 2018, would need per-node dipole sums stored
 * at build time, and is approximate), and costs one all-hits traversal. The
 * only failure of ray counting — a ray through an edge or vertex, or grazing
 * a triangle, counted twice or once where the surface is crossed once or not
 * at all — is detected (a hit within 1e-5 of a triangle's edge in
 * barycentrics, or within 1e-6 of parallel) and avoided by retrying along the
 * next of eight fixed generic directions. For meshes with holes the answer
 * depends on the direction (it is then the crossing count along the first
 * accepted direction), unlike the generalized winding number; close them
 * first. Points on the surface give either side (their distance is 0).
 * Thread safety as for the other queries; no allocation.
 */

/**
 * The winding number of the closed mesh around `p`, by signed ray crossings
 * (see above). 0 for a non-finite `p`, an empty mesh or a NULL hierarchy.
 */
MQ_API int mq_bvh_winding_number(const mq_bvh *bvh, const vec3 p);
/** As mq_bvh_winding_number, on the OBB tree. */
MQ_API int mq_obbtree_winding_number(const mq_obbtree *tree, const vec3 p);

/**
 * Signed distance from `p` to the closed mesh: the distance of
 * mq_bvh_closest_point, negative when the winding number around `p` is
 * non-zero (inside), 0 on the surface.
 * @param bvh the BVH of a closed mesh.
 * @param p the query point.
 * @param[out] distance the signed distance (may be NULL).
 * @param[out] closest the closest point, as mq_bvh_closest_point gives it (may be NULL).
 * @return false (outputs untouched) for a non-finite `p` or an empty mesh.
 */
MQ_API bool mq_bvh_signed_distance(const mq_bvh *bvh, const vec3 p, float *distance, mq_point_hit *closest);
/** As mq_bvh_signed_distance, on the OBB tree (mq_obbtree_closest_point, mq_obbtree_winding_number). */
MQ_API bool mq_obbtree_signed_distance(const mq_obbtree *tree, const vec3 p, float *distance, mq_point_hit *closest);

#endif /* MESHQUERY_CASTS_H */
