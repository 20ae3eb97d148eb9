/*
 * The public entry points of meshquery/proximity.h: argument checks, the
 * rigid transform in double, and the calls into the distance walk
 * (distance_walk.h). (First commit: the API only; the walk follows.)
 */
#include <math.h>

#include <meshquery/proximity.h>

#include "proximity/distance_walk.h"

mq_distance_options mq_default_distance_options(void)
{
    mq_distance_options o = {INFINITY, 0.0, 0.0};
    return o;
}

#define UNUSED4(a, b, c, d) ((void)(a), (void)(b), (void)(c), (void)(d))

bool mq_obbtree_distance(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a,
                         const mq_distance_options *opts, mq_distance_result *out)
{
    UNUSED4(a, b, b_to_a, opts);
    if (out)
        out->found = false;
    return false;
}
bool mq_bvh_distance(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, const mq_distance_options *opts,
                     mq_distance_result *out)
{
    UNUSED4(a, b, b_to_a, opts);
    if (out)
        out->found = false;
    return false;
}
bool mq_obbtree_shape_distance(const mq_obbtree *tree, const mq_shape *shape, const mq_distance_options *opts,
                               mq_shape_distance_result *out)
{
    UNUSED4(tree, shape, opts, 0);
    if (out)
        out->found = false;
    return false;
}
bool mq_bvh_shape_distance(const mq_bvh *bvh, const mq_shape *shape, const mq_distance_options *opts,
                           mq_shape_distance_result *out)
{
    UNUSED4(bvh, shape, opts, 0);
    if (out)
        out->found = false;
    return false;
}
size_t mq_obbtree_clearance(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, double d,
                            mq_clearance_fn fn, void *user)
{
    UNUSED4(a, b, b_to_a, d);
    UNUSED4(fn, user, 0, 0);
    return 0;
}
size_t mq_obbtree_clearance_array(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, double d,
                                  mq_clearance_pair *out, size_t capacity)
{
    UNUSED4(a, b, b_to_a, d);
    UNUSED4(out, capacity, 0, 0);
    return 0;
}
bool mq_obbtree_clearance_any(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, double d)
{
    UNUSED4(a, b, b_to_a, d);
    return false;
}
size_t mq_bvh_clearance(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, double d, mq_clearance_fn fn,
                        void *user)
{
    UNUSED4(a, b, b_to_a, d);
    UNUSED4(fn, user, 0, 0);
    return 0;
}
size_t mq_bvh_clearance_array(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, double d,
                              mq_clearance_pair *out, size_t capacity)
{
    UNUSED4(a, b, b_to_a, d);
    UNUSED4(out, capacity, 0, 0);
    return 0;
}
bool mq_bvh_clearance_any(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, double d)
{
    UNUSED4(a, b, b_to_a, d);
    return false;
}
size_t mq_obbtree_shape_clearance(const mq_obbtree *tree, const mq_shape *shape, double d, mq_clearance_fn fn,
                                  void *user)
{
    UNUSED4(tree, shape, d, fn);
    (void)user;
    return 0;
}
size_t mq_obbtree_shape_clearance_array(const mq_obbtree *tree, const mq_shape *shape, double d, mq_clearance_pair *out,
                                        size_t capacity)
{
    UNUSED4(tree, shape, d, out);
    (void)capacity;
    return 0;
}
bool mq_obbtree_shape_clearance_any(const mq_obbtree *tree, const mq_shape *shape, double d)
{
    UNUSED4(tree, shape, d, 0);
    return false;
}
size_t mq_bvh_shape_clearance(const mq_bvh *bvh, const mq_shape *shape, double d, mq_clearance_fn fn, void *user)
{
    UNUSED4(bvh, shape, d, fn);
    (void)user;
    return 0;
}
size_t mq_bvh_shape_clearance_array(const mq_bvh *bvh, const mq_shape *shape, double d, mq_clearance_pair *out,
                                    size_t capacity)
{
    UNUSED4(bvh, shape, d, out);
    (void)capacity;
    return 0;
}
bool mq_bvh_shape_clearance_any(const mq_bvh *bvh, const mq_shape *shape, double d)
{
    UNUSED4(bvh, shape, d, 0);
    return false;
}

/* The walk, stubbed until the next commit. */
bool mq_dist_walk_nearest(const mq_dist_side *a, const mq_dist_side *b, double max_distance, double abs_tol,
                          double rel_tol, mq_dist_pair *out)
{
    UNUSED4(a, b, max_distance, abs_tol);
    UNUSED4(rel_tol, out, 0, 0);
    return false;
}
size_t mq_dist_walk_within(const mq_dist_side *a, const mq_dist_side *b, double d, mq_dist_pair_fn fn, void *user)
{
    UNUSED4(a, b, d, fn);
    (void)user;
    return 0;
}
