/*
 * Clearance (meshquery/proximity.h): every pair within d, as a callback, an
 * array or a yes/no, for two meshes and for a shape and a mesh; the walk's
 * "within" mode (distance_walk.h) with A's mesh frame as the common frame.
 */
#include <math.h>

#include <meshquery/proximity.h>

#include "proximity/distance_walk.h"

typedef struct user_fn {
    mq_clearance_fn fn;
    void *user;
} user_fn;

static bool to_user(const mq_dist_pair *p, void *ctx)
{
    user_fn *u = ctx;
    mq_clearance_pair c;
    c.triangle_a = p->triangle_a;
    c.triangle_b = p->triangle_b;
    c.distance = p->distance;
    for (int k = 0; k < 3; k++) {
        c.point_a[k] = p->point_a[k];
        c.point_b[k] = p->point_b[k];
    }
    return u->fn(&c, u->user);
}

typedef struct sink {
    mq_clearance_pair *out;
    size_t capacity, count;
} sink;

static bool to_sink(const mq_clearance_pair *p, void *ctx)
{
    sink *s = ctx;
    if (s->count < s->capacity)
        s->out[s->count] = *p;
    s->count++;
    return true;
}

static bool stop_first(const mq_clearance_pair *p, void *ctx)
{
    (void)p;
    (void)ctx;
    return false;
}

static size_t pairs(const mq_bvh *ba, const mq_obbtree *oa, const mq_bvh *bb, const mq_obbtree *ob,
                    const mq_rigid *b_to_a, double d, mq_clearance_fn fn, void *user)
{
    if (!fn || !(ba || oa) || !(bb || ob))
        return 0;
    mq_dist_side a = {ba, oa, {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}, NULL, NULL, false},
                 b = {bb, ob, {{0}}, NULL, NULL, false};
    if (!mq_dist_rigid_matrix(b_to_a, b.m))
        return 0;
    user_fn u = {fn, user};
    return mq_dist_walk_within(&a, &b, d, to_user, &u);
}

/* The hierarchy of a shape query, any kind, in its own frame (one pointer set). */
static mq_dist_side own_frame(const mq_bvh *bvh, const mq_obbtree *obb, const mq_kdoptree *kdop,
                              const mq_spheretree *sph)
{
    mq_dist_side b = {bvh, obb, {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}, kdop, sph, false};
    return b;
}

static size_t shape_pairs(mq_dist_side b, const mq_shape *shape, double d, mq_clearance_fn fn, void *user)
{
    mq_dist_shape s;
    if (!fn || !(b.bvh || b.obbtree || b.kdoptree || b.spheretree) || !mq_dist_shape_from(shape, &s))
        return 0;
    user_fn u = {fn, user};
    return mq_dist_walk_shape_within(&s, &b, d, to_user, &u);
}

size_t mq_obbtree_clearance(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, double d,
                            mq_clearance_fn fn, void *user)
{
    return pairs(NULL, a, NULL, b, b_to_a, d, fn, user);
}

size_t mq_obbtree_clearance_array(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, double d,
                                  mq_clearance_pair *out, size_t capacity)
{
    sink s = {out, out ? capacity : 0, 0};
    pairs(NULL, a, NULL, b, b_to_a, d, to_sink, &s);
    return s.count;
}

bool mq_obbtree_clearance_any(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, double d)
{
    return pairs(NULL, a, NULL, b, b_to_a, d, stop_first, NULL) > 0;
}

size_t mq_bvh_clearance(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, double d, mq_clearance_fn fn,
                        void *user)
{
    return pairs(a, NULL, b, NULL, b_to_a, d, fn, user);
}

size_t mq_bvh_clearance_array(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, double d,
                              mq_clearance_pair *out, size_t capacity)
{
    sink s = {out, out ? capacity : 0, 0};
    pairs(a, NULL, b, NULL, b_to_a, d, to_sink, &s);
    return s.count;
}

bool mq_bvh_clearance_any(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, double d)
{
    return pairs(a, NULL, b, NULL, b_to_a, d, stop_first, NULL) > 0;
}

size_t mq_obbtree_shape_clearance(const mq_obbtree *tree, const mq_shape *shape, double d, mq_clearance_fn fn,
                                  void *user)
{
    return shape_pairs(own_frame(NULL, tree, NULL, NULL), shape, d, fn, user);
}

size_t mq_obbtree_shape_clearance_array(const mq_obbtree *tree, const mq_shape *shape, double d, mq_clearance_pair *out,
                                        size_t capacity)
{
    sink s = {out, out ? capacity : 0, 0};
    shape_pairs(own_frame(NULL, tree, NULL, NULL), shape, d, to_sink, &s);
    return s.count;
}

bool mq_obbtree_shape_clearance_any(const mq_obbtree *tree, const mq_shape *shape, double d)
{
    return shape_pairs(own_frame(NULL, tree, NULL, NULL), shape, d, stop_first, NULL) > 0;
}

size_t mq_bvh_shape_clearance(const mq_bvh *bvh, const mq_shape *shape, double d, mq_clearance_fn fn, void *user)
{
    return shape_pairs(own_frame(bvh, NULL, NULL, NULL), shape, d, fn, user);
}

size_t mq_bvh_shape_clearance_array(const mq_bvh *bvh, const mq_shape *shape, double d, mq_clearance_pair *out,
                                    size_t capacity)
{
    sink s = {out, out ? capacity : 0, 0};
    shape_pairs(own_frame(bvh, NULL, NULL, NULL), shape, d, to_sink, &s);
    return s.count;
}

bool mq_bvh_shape_clearance_any(const mq_bvh *bvh, const mq_shape *shape, double d)
{
    return shape_pairs(own_frame(bvh, NULL, NULL, NULL), shape, d, stop_first, NULL) > 0;
}

size_t mq_kdoptree_shape_clearance(const mq_kdoptree *tree, const mq_shape *shape, double d, mq_clearance_fn fn,
                                   void *user)
{
    return shape_pairs(own_frame(NULL, NULL, tree, NULL), shape, d, fn, user);
}

size_t mq_kdoptree_shape_clearance_array(const mq_kdoptree *tree, const mq_shape *shape, double d,
                                         mq_clearance_pair *out, size_t capacity)
{
    sink s = {out, out ? capacity : 0, 0};
    shape_pairs(own_frame(NULL, NULL, tree, NULL), shape, d, to_sink, &s);
    return s.count;
}

bool mq_kdoptree_shape_clearance_any(const mq_kdoptree *tree, const mq_shape *shape, double d)
{
    return shape_pairs(own_frame(NULL, NULL, tree, NULL), shape, d, stop_first, NULL) > 0;
}

size_t mq_spheretree_shape_clearance(const mq_spheretree *tree, const mq_shape *shape, double d, mq_clearance_fn fn,
                                     void *user)
{
    return shape_pairs(own_frame(NULL, NULL, NULL, tree), shape, d, fn, user);
}

size_t mq_spheretree_shape_clearance_array(const mq_spheretree *tree, const mq_shape *shape, double d,
                                           mq_clearance_pair *out, size_t capacity)
{
    sink s = {out, out ? capacity : 0, 0};
    shape_pairs(own_frame(NULL, NULL, NULL, tree), shape, d, to_sink, &s);
    return s.count;
}

bool mq_spheretree_shape_clearance_any(const mq_spheretree *tree, const mq_shape *shape, double d)
{
    return shape_pairs(own_frame(NULL, NULL, NULL, tree), shape, d, stop_first, NULL) > 0;
}
