/**
 * @file
 * meshquery/contacts.h — where a shape overlaps a mesh: per triangle the
 * penetration depth, the contact normal and the contact points.
 *
 * Synopsis
 *   mq_bvh_contacts(), mq_bvh_contacts_array()           on an AABB BVH
 *   mq_obbtree_contacts(), mq_obbtree_contacts_array()   on an OBB tree
 *   mq_contact_shape_triangle() (primitives.h)            one triangle
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

#endif /* MESHQUERY_CONTACTS_H */
