/*
 * The OBB tree's shape-overlap walks, one file per kind
 * (obbtree_overlap_<kind>.c), each in the three forms of the public API:
 * callback, array, yes/no. mq_obbtree_overlap / _array / _any
 * (obbtree_overlap_shape.c) switch on the tagged shape's kind once and call
 * the matching one, so every form keeps its own specialised walk.
 */
#ifndef MQ_OBBTREE_OBBTREE_OVERLAP_SHAPES_H
#define MQ_OBBTREE_OBBTREE_OVERLAP_SHAPES_H

#include <meshquery/obbtree.h>

size_t mq_obbtree_sphere_overlap(const mq_obbtree *t, const mq_sphere *s, mq_overlap_fn fn, void *user);
size_t mq_obbtree_sphere_overlap_array(const mq_obbtree *t, const mq_sphere *s, uint32_t *out, size_t capacity);
bool mq_obbtree_sphere_overlap_any(const mq_obbtree *t, const mq_sphere *s);

size_t mq_obbtree_capsule_overlap(const mq_obbtree *t, const mq_capsule *c, mq_overlap_fn fn, void *user);
size_t mq_obbtree_capsule_overlap_array(const mq_obbtree *t, const mq_capsule *c, uint32_t *out, size_t capacity);
bool mq_obbtree_capsule_overlap_any(const mq_obbtree *t, const mq_capsule *c);

size_t mq_obbtree_obb_overlap(const mq_obbtree *t, const mq_obb *box, mq_overlap_fn fn, void *user);
size_t mq_obbtree_obb_overlap_array(const mq_obbtree *t, const mq_obb *box, uint32_t *out, size_t capacity);
bool mq_obbtree_obb_overlap_any(const mq_obbtree *t, const mq_obb *box);

size_t mq_obbtree_aabb_overlap(const mq_obbtree *t, const mq_aabb *box, mq_overlap_fn fn, void *user);
size_t mq_obbtree_aabb_overlap_array(const mq_obbtree *t, const mq_aabb *box, uint32_t *out, size_t capacity);
bool mq_obbtree_aabb_overlap_any(const mq_obbtree *t, const mq_aabb *box);

size_t mq_obbtree_convex_overlap(const mq_obbtree *t, const mq_convex *c, mq_overlap_fn fn, void *user);
size_t mq_obbtree_convex_overlap_array(const mq_obbtree *t, const mq_convex *c, uint32_t *out, size_t capacity);
bool mq_obbtree_convex_overlap_any(const mq_obbtree *t, const mq_convex *c);

#endif
