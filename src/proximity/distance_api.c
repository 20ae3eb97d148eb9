/*
 * The public entry points of meshquery/proximity.h: argument checks, the
 * rigid transform as a double matrix, and the calls into the distance walk
 * (distance_walk.h), with A's mesh frame as the common frame.
 */
#include <math.h>

#include <meshquery/proximity.h>

#include "proximity/distance_walk.h"

mq_distance_options mq_default_distance_options(void)
{
    mq_distance_options o = {INFINITY, 0.0, 0.0};
    return o;
}

/* B's map into A's frame: the normalised quaternion's rotation, then the translation, in double. */
bool mq_dist_rigid_matrix(const mq_rigid *x, double m[3][4])
{
    if (!x)
        return false;
    double w = x->rotation[0], qx = x->rotation[1], qy = x->rotation[2], qz = x->rotation[3];
    double n2 = w * w + qx * qx + qy * qy + qz * qz;
    if (!(n2 > 0.0) || !isfinite(n2))
        return false;
    for (int k = 0; k < 3; k++)
        if (!isfinite(x->translation[k]))
            return false;
    double s = 2.0 / n2;
    m[0][0] = 1.0 - s * (qy * qy + qz * qz);
    m[0][1] = s * (qx * qy - w * qz);
    m[0][2] = s * (qx * qz + w * qy);
    m[1][0] = s * (qx * qy + w * qz);
    m[1][1] = 1.0 - s * (qx * qx + qz * qz);
    m[1][2] = s * (qy * qz - w * qx);
    m[2][0] = s * (qx * qz - w * qy);
    m[2][1] = s * (qy * qz + w * qx);
    m[2][2] = 1.0 - s * (qx * qx + qy * qy);
    for (int k = 0; k < 3; k++)
        m[k][3] = x->translation[k];
    return true;
}

static void identity(double m[3][4])
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            m[r][c] = r == c ? 1.0 : 0.0;
}

/* The two sides of a mesh vs mesh query; false for a bad transform. */
static bool sides(const mq_bvh *ba, const mq_obbtree *oa, const mq_bvh *bb, const mq_obbtree *ob,
                  const mq_rigid *b_to_a, mq_dist_side *a, mq_dist_side *b)
{
    *a = (mq_dist_side){0};
    *b = (mq_dist_side){0};
    a->bvh = ba;
    a->obbtree = oa;
    b->bvh = bb;
    b->obbtree = ob;
    identity(a->m);
    return mq_dist_rigid_matrix(b_to_a, b->m);
}

static void copy3(mq_dvec3 o, const double a[3])
{
    o[0] = a[0];
    o[1] = a[1];
    o[2] = a[2];
}

static bool distance(const mq_bvh *ba, const mq_obbtree *oa, const mq_bvh *bb, const mq_obbtree *ob,
                     const mq_rigid *b_to_a, const mq_distance_options *opts, mq_distance_result *out)
{
    mq_distance_options o = opts ? *opts : mq_default_distance_options();
    mq_dist_side a, b;
    mq_dist_pair p;
    bool found = (ba || oa) && (bb || ob) && sides(ba, oa, bb, ob, b_to_a, &a, &b) &&
                 mq_dist_walk_nearest(&a, &b, o.max_distance, o.abs_tolerance, o.rel_tolerance, &p);
    if (out) {
        if (found) {
            out->distance = p.distance;
            copy3(out->point_a, p.point_a);
            copy3(out->point_b, p.point_b);
            out->triangle_a = p.triangle_a;
            out->triangle_b = p.triangle_b;
        } else {
            out->triangle_a = out->triangle_b = MQ_NO_TRIANGLE;
        }
        out->found = found;
    }
    return found;
}

bool mq_obbtree_distance(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a,
                         const mq_distance_options *opts, mq_distance_result *out)
{
    return distance(NULL, a, NULL, b, b_to_a, opts, out);
}

bool mq_bvh_distance(const mq_bvh *a, const mq_bvh *b, const mq_rigid *b_to_a, const mq_distance_options *opts,
                     mq_distance_result *out)
{
    return distance(a, NULL, b, NULL, b_to_a, opts, out);
}

/* The shape walk against side b (one hierarchy, any kind, in its own frame):
 * every tree kind answers through the same walk and leaf distances. */
static bool shape_distance(mq_dist_side *b, const mq_shape *shape, const mq_distance_options *opts,
                           mq_shape_distance_result *out)
{
    mq_distance_options o = opts ? *opts : mq_default_distance_options();
    identity(b->m);
    mq_dist_shape s;
    mq_dist_pair p;
    bool found = (b->bvh || b->obbtree || b->kdoptree || b->spheretree) && mq_dist_shape_from(shape, &s) &&
                 mq_dist_walk_shape_nearest(&s, b, o.max_distance, o.abs_tolerance, o.rel_tolerance, &p);
    if (out) {
        if (found) {
            out->distance = p.distance;
            copy3(out->point_shape, p.point_a);
            copy3(out->point_mesh, p.point_b);
            out->triangle = p.triangle_b;
        } else {
            out->triangle = MQ_NO_TRIANGLE;
        }
        out->found = found;
    }
    return found;
}

bool mq_obbtree_shape_distance(const mq_obbtree *tree, const mq_shape *shape, const mq_distance_options *opts,
                               mq_shape_distance_result *out)
{
    mq_dist_side b = {NULL, tree, {{0}}, NULL, NULL, false};
    return shape_distance(&b, shape, opts, out);
}

bool mq_bvh_shape_distance(const mq_bvh *bvh, const mq_shape *shape, const mq_distance_options *opts,
                           mq_shape_distance_result *out)
{
    mq_dist_side b = {bvh, NULL, {{0}}, NULL, NULL, false};
    return shape_distance(&b, shape, opts, out);
}

bool mq_kdoptree_shape_distance(const mq_kdoptree *tree, const mq_shape *shape, const mq_distance_options *opts,
                                mq_shape_distance_result *out)
{
    mq_dist_side b = {NULL, NULL, {{0}}, tree, NULL, false};
    return shape_distance(&b, shape, opts, out);
}

bool mq_spheretree_shape_distance(const mq_spheretree *tree, const mq_shape *shape, const mq_distance_options *opts,
                                  mq_shape_distance_result *out)
{
    mq_dist_side b = {NULL, NULL, {{0}}, NULL, tree, false};
    return shape_distance(&b, shape, opts, out);
}
