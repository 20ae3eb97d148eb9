/*
 * The instance-centred frame shared by the scene's shape queries, closest
 * point and collision (instance_overlap.c, instance_closest.c, scene_collide.c).
 *
 * Exact tests on an instance run in its INSTANCE-CENTRED frame: the world
 * translated by -t, where world = A x + t is the instance's transform.
 *   - A triangle corner v (float, mesh frame) becomes (float)(A v), the
 *     product computed in double and rounded once to float;
 *   - a world query (double) is translated by -t in double and only then
 *     rounded to float (radii and box axes are rounded as they are);
 *   - the float primitive of primitives.h decides on those float inputs.
 * Neither side ever holds a world coordinate in float, so an instance 1e7
 * units from the origin gets exactly the float inputs, hence exactly the
 * answers, of the same instance at the origin queried with the same shape
 * relative to it: exact to the mesh's own precision, not to float at 1e7.
 * What the primitive sees differs from the exact world geometry only by
 * those roundings (a few ulp of the instance-centred coordinates), which is
 * the tolerance band the differential tests state.
 */
#ifndef MQ_SCENE_INSTANCE_OVERLAP_H
#define MQ_SCENE_INSTANCE_OVERLAP_H

#include <float.h>
#include <math.h>

#include <meshquery/primitives.h>

#include "convex/convex_internal.h"
#include "core/float_steps.h"
#include "scene/scene_internal.h"
#include "query/bvh_walk.h"

/* Relative widening of every local candidate box / pruning bound: covers the
 * float rounding of the centred inputs (2^-24) and the float primitives'
 * own rounding (docs/robustness.md, "Tolerances": below 1e-6 of the case's scale) with a
 * wide margin. It costs a few parts per million of culling power. */
#define MQ_SCENE_REL_SLACK 1e-5

/* A corner in the instance-centred frame: (float)(A v). */
static inline void mq_inst_corner(const mq_instance_rec *r, const float v[3], float out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = (float)(r->to_world.m[i][0] * v[0] + r->to_world.m[i][1] * v[1] + r->to_world.m[i][2] * v[2]);
}

static inline void mq_inst_triangle(const mq_instance_rec *r, const mq_triangle *local, mq_triangle *out)
{
    for (int c = 0; c < 3; c++)
        mq_inst_corner(r, local->v[c], out->v[c]);
}

/* A world point relative to the instance's translation, in double. */
static inline void mq_inst_centre_d(const mq_instance_rec *r, const double p[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = p[i] - r->to_world.m[i][3];
}

/* World point -> local frame, in double. */
static inline void mq_inst_to_local_d(const mq_instance_rec *r, const double p[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] =
            r->to_local.m[i][0] * p[0] + r->to_local.m[i][1] * p[1] + r->to_local.m[i][2] * p[2] + r->to_local.m[i][3];
}

/* Largest |coordinate| of the instance's local root box (0 when empty). */
static inline double mq_inst_local_magnitude(const mq_instance_rec *r)
{
    double m = 0.0;
    for (int k = 0; k < 3; k++) {
        double a = fabs((double)r->local_box.min[k]), b = fabs((double)r->local_box.max[k]);
        if (a > m && isfinite(a))
            m = a;
        if (b > m && isfinite(b))
            m = b;
    }
    return m;
}

/* Relative error of to_local as the inverse of to_world, on top of the fixed slack. */
static inline double mq_inst_rel_slack(const mq_instance_rec *r)
{
    return MQ_SCENE_REL_SLACK + 1e-14 * (r->sigma_max / r->sigma_min);
}

/* The walker box [lo - grow, hi + grow] in float, rounded outwards; no ball. */
static inline void mq_walk_box_set(mq_walk_box *q, const double lo[3], const double hi[3], double grow)
{
    for (int k = 0; k < 3; k++) {
        q->lo[k] = mq_float_floor_of(lo[k] - grow);
        q->hi[k] = mq_float_ceil_of(hi[k] + grow);
        q->c[k] = 0.0f;
    }
    q->r2 = INFINITY;
}

/* The local frame's conservative view of a world shape. */
typedef struct mq_inst_shape {
    mq_shape_kind kind;
    union {
        mq_sphere sphere;
        mq_capsule capsule;
        mq_obb obb;
        mq_aabb aabb;
        struct {
            const mq_convex *c;
            mq_cpose pose; /* convex frame -> instance-centred frame, double */
        } convex;
    } f;           /* the shape in the instance-centred frame, float (a convex: placed in double) */
    mq_walk_box q; /* local candidate volume */
} mq_inst_shape;

/* Validity of world shapes (scene.h "Answers"; types.h). */
bool mq_dshape_valid(const mq_dshape *s);
/* World box of a valid shape. */
void mq_dshape_bounds(const mq_dshape *s, mq_daabb *out);

/* Prepares a valid world shape for one instance: its centred float form and
 * its local candidate volume. False when it cannot overlap (e.g. it overflows
 * float in the centred frame, where the primitive would call it invalid). */
bool mq_inst_shape_prepare(const mq_instance_rec *r, const mq_dshape *s, mq_inst_shape *out);

#endif
