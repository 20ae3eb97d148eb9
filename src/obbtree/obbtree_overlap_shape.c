/*
 * The OBB tree's public shape-overlap entry points (obbtree.h, "Shape
 * overlap"): the tagged shape's kind is read once, here, and the walk of that
 * kind (obbtree_overlap_<kind>.c) answers. An unknown kind (a later version's
 * shape) overlaps nothing.
 */
#include "obbtree/obbtree_overlap_shapes.h"

size_t mq_obbtree_overlap(const mq_obbtree *t, const mq_shape *shape, mq_overlap_fn fn, void *user)
{
    if (!shape)
        return 0;
    switch (shape->kind) {
    case MQ_SHAPE_SPHERE:
        return mq_obbtree_sphere_overlap(t, &shape->u.sphere, fn, user);
    case MQ_SHAPE_CAPSULE:
        return mq_obbtree_capsule_overlap(t, &shape->u.capsule, fn, user);
    case MQ_SHAPE_OBB:
        return mq_obbtree_obb_overlap(t, &shape->u.obb, fn, user);
    case MQ_SHAPE_AABB:
        return mq_obbtree_aabb_overlap(t, &shape->u.aabb, fn, user);
    case MQ_SHAPE_CONVEX:
        return mq_obbtree_convex_overlap(t, shape->u.convex, fn, user);
    }
    return 0;
}

size_t mq_obbtree_overlap_array(const mq_obbtree *t, const mq_shape *shape, uint32_t *out, size_t capacity)
{
    if (!shape)
        return 0;
    switch (shape->kind) {
    case MQ_SHAPE_SPHERE:
        return mq_obbtree_sphere_overlap_array(t, &shape->u.sphere, out, capacity);
    case MQ_SHAPE_CAPSULE:
        return mq_obbtree_capsule_overlap_array(t, &shape->u.capsule, out, capacity);
    case MQ_SHAPE_OBB:
        return mq_obbtree_obb_overlap_array(t, &shape->u.obb, out, capacity);
    case MQ_SHAPE_AABB:
        return mq_obbtree_aabb_overlap_array(t, &shape->u.aabb, out, capacity);
    case MQ_SHAPE_CONVEX:
        return mq_obbtree_convex_overlap_array(t, shape->u.convex, out, capacity);
    }
    return 0;
}

bool mq_obbtree_overlap_any(const mq_obbtree *t, const mq_shape *shape)
{
    if (!shape)
        return false;
    switch (shape->kind) {
    case MQ_SHAPE_SPHERE:
        return mq_obbtree_sphere_overlap_any(t, &shape->u.sphere);
    case MQ_SHAPE_CAPSULE:
        return mq_obbtree_capsule_overlap_any(t, &shape->u.capsule);
    case MQ_SHAPE_OBB:
        return mq_obbtree_obb_overlap_any(t, &shape->u.obb);
    case MQ_SHAPE_AABB:
        return mq_obbtree_aabb_overlap_any(t, &shape->u.aabb);
    case MQ_SHAPE_CONVEX:
        return mq_obbtree_convex_overlap_any(t, shape->u.convex);
    }
    return false;
}
