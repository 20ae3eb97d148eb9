/**
 * @file
 * meshquery/contacts.h — where a shape overlaps a mesh: per triangle the
 * penetration depth, the contact normal and the contact points.
 *
 * Synopsis
 *   mq_bvh_contacts(), mq_bvh_contacts_array()           on an AABB BVH
 *   mq_obbtree_contacts(), mq_obbtree_contacts_array()   on an OBB tree
 *   mq_contact_shape_triangle() (primitives.h)            one triangle
 *   mq_obbtree_intersections(), mq_bvh_intersections()   where two meshes cut each other
 *   mq_intersect_triangles()                              one triangle pair
 *
 * Which triangles: exactly those mq_bvh_overlap / mq_obbtree_overlap report
 * for the same shape (closed sets: touching counts), in the same order (the
 * walk's, no particular one). For each, the contact of primitives.h's
 * mq_contact (its doc comment states depth, normal and points exactly),
 * computed in double from the float triangle and shape. Where the exact
 * float overlap test says "touching" but the double computation of the depth
 * rounds below zero, depth is reported as 0 (the normal and points as
 * computed); so depth >= 0 always.
 *
 * Shapes: sphere, capsule, OBB and AABB. Other kinds (a convex hull) have no
 * contact yet: the queries report nothing for them and return 0.
 *
 * Thread safety: the queries read the hierarchy only and allocate nothing;
 * any number may run at once. Callbacks run on the calling thread.
 */
#ifndef MESHQUERY_CONTACTS_H
#define MESHQUERY_CONTACTS_H

#include <meshquery/bvh.h>
#include <meshquery/obbtree.h>
#include <meshquery/primitives.h>

/** Called once per contact (one triangle); return false to stop the query. */
typedef bool (*mq_contact_fn)(const mq_contact *contact, void *user);

/**
 * Every triangle of the BVH's mesh that `shape` overlaps, with its contact.
 * @param bvh the hierarchy (NULL: nothing).
 * @param shape sphere, capsule, OBB or AABB (types.h rules: an invalid one overlaps nothing).
 * @param fn called per contact (NULL: nothing is reported and 0 returned).
 * @param user passed to fn.
 * @return the number of calls made.
 */
MQ_API size_t mq_bvh_contacts(const mq_bvh *bvh, const mq_shape *shape, mq_contact_fn fn, void *user);

/**
 * mq_bvh_contacts into an array: writes the first `capacity` contacts to
 * `out` (may be NULL when capacity is 0) and returns the total count, so a
 * caller may size the array with a first call.
 */
MQ_API size_t mq_bvh_contacts_array(const mq_bvh *bvh, const mq_shape *shape, mq_contact *out, size_t capacity);

/** mq_bvh_contacts on an OBB tree (same triangles as mq_obbtree_overlap). */
MQ_API size_t mq_obbtree_contacts(const mq_obbtree *tree, const mq_shape *shape, mq_contact_fn fn, void *user);

/** mq_bvh_contacts_array on an OBB tree. */
MQ_API size_t mq_obbtree_contacts_array(const mq_obbtree *tree, const mq_shape *shape, mq_contact *out,
                                        size_t capacity);

/* ------------------------------------------------------------------------- */
/* Intersection segments of two meshes                                       */
/* ------------------------------------------------------------------------- */

/**
 * Where two intersecting triangles meet, in the frame of mesh A (double).
 *   - Not coplanar: the intersection of two triangles in planes that cross
 *     is a segment (possibly a point: p0 == p1) on the line where the planes
 *     meet; p0 and p1 are its ends, both on both triangles (to the double
 *     rounding of the computation). coplanar is false.
 *   - Coplanar (the corners of each lie on the other's plane to within
 *     2^-44 of the coordinates), or a zero-area triangle: they share an area
 *     (or a point, a segment), not a curve. coplanar is true and p0 == p1 is
 *     one point common to both: the mean of the corners of A's triangle
 *     clipped to B's (for a zero-area triangle or a touch, the point where
 *     their edges meet).
 */
typedef struct mq_intersection_segment {
    uint32_t triangle_a; /**< A's triangle (mesh id) */
    uint32_t triangle_b; /**< B's triangle (mesh id) */
    double p0[3];        /**< one end, A's frame */
    double p1[3];        /**< the other end (== p0 for a point, and when coplanar) */
    bool coplanar;       /**< the pair shares an area (or meets in a degenerate way), see above */
} mq_intersection_segment;

/** Called once per intersecting triangle pair; return false to stop. */
typedef bool (*mq_segment_fn)(const mq_intersection_segment *segment, void *user);

/**
 * The common part of two triangles (see mq_intersection_segment), in double
 * from their float corners; out's triangle ids are left as they are.
 * @param a the first triangle.
 * @param b the second triangle, in the same frame.
 * @param[out] out written when they meet.
 * @return true when they meet (to the double rounding; pairs that only touch
 *         may go either way); false otherwise, out untouched.
 * Thread safety: pure function.
 */
MQ_API bool mq_intersect_triangles(const mq_triangle *a, const mq_triangle *b, mq_intersection_segment *out);

/**
 * The intersection segment of every intersecting triangle pair of two
 * meshes, B placed in A's frame by b_to_a: the pairs are exactly those of
 * mq_obbtree_collide (in its order), and each pair's segment is computed from
 * A's corners and B's corners mapped by mq_rigid_apply (the float corners
 * the pair was decided on). A pair decided as touching whose double segment
 * comes out empty (the two roundings differ) is reported with coplanar =
 * true at the midpoint of the triangles' closest points.
 * @param a tree of mesh A.
 * @param b tree of mesh B (may be a).
 * @param b_to_a maps B's mesh frame into A's.
 * @param fn called once per pair; required.
 * @param user passed to fn.
 * @return the number of calls made. Allocates nothing; thread-safe.
 */
MQ_API size_t mq_obbtree_intersections(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a,
                                       mq_segment_fn fn, void *user);

/**
 * As mq_obbtree_intersections on two BVHs: the pairs are those that
 * mq_bvh_clearance (proximity.h) reports at d = 0 (intersecting or touching).
 */
MQ_API size_t mq_bvh_intersections(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, mq_segment_fn fn,
                                   void *user);

#endif /* MESHQUERY_CONTACTS_H */
