/*
 * Shape overlap on one instance (scene_internal.h: mq_instance_overlap), for
 * both hierarchies and any affine transform.
 *
 * 1. Candidates: the world shape's preimage in the mesh frame is bounded by a
 *    local box (exact bounds of the mapped shape: a sphere's preimage is an
 *    ellipsoid with half extent r * |row k of A^-1| on axis k, a box's is a
 *    parallelepiped, ...) and a local ball (the shape's bounding ball of
 *    radius R maps into a ball of radius R / sigma_min). Both are widened by
 *    MQ_SCENE_REL_SLACK of the magnitudes involved, so no triangle the exact
 *    test below could accept is ever culled. The hierarchy is walked with
 *    them (query/bvh_walk.h); each triangle's own local box is checked too.
 * 2. The exact test: each candidate's corners and the shape go to the
 *    instance-centred frame (instance_overlap.h: A v and shape - t in double,
 *    rounded once to float) and the primitive of primitives.h decides. A
 *    convex is not rounded: its pose is moved to the centred frame in double
 *    and the convex's double test (convex.h) decides.
 */
#include "core/minmax.h"
#include "scene/instance_overlap.h"

#include "primitives/shape_checks.h"
#include "primitives/shape_reduce.h"

static bool dvec_finite(const double v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

static double ddot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Orthonormal within MQ_OBB_AXIS_TOLERANCE, as mq_obb_is_valid checks it. */
static bool axes_ok(const double ax[3][3])
{
    for (int i = 0; i < 3; i++) {
        if (!dvec_finite(ax[i]))
            return false;
        if (!(fabs(sqrt(ddot(ax[i], ax[i])) - 1.0) <= MQ_OBB_AXIS_TOLERANCE))
            return false;
        for (int j = i + 1; j < 3; j++)
            if (!(fabs(ddot(ax[i], ax[j])) <= MQ_OBB_AXIS_TOLERANCE))
                return false;
    }
    return true;
}

static bool radius_ok(double r)
{
    return r >= 0.0 && isfinite(r);
}

bool mq_dshape_valid(const mq_dshape *s)
{
    if (!s)
        return false;
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        return dvec_finite(s->u.sphere.center) && radius_ok(s->u.sphere.radius);
    case MQ_SHAPE_CAPSULE:
        return dvec_finite(s->u.capsule.a) && dvec_finite(s->u.capsule.b) && radius_ok(s->u.capsule.radius);
    case MQ_SHAPE_OBB: {
        const mq_dobb *o = &s->u.obb;
        return dvec_finite(o->center) && dvec_finite(o->half) && o->half[0] >= 0.0 && o->half[1] >= 0.0 &&
               o->half[2] >= 0.0 && axes_ok(o->axes);
    }
    case MQ_SHAPE_AABB: {
        const mq_daabb *a = &s->u.aabb;
        return dvec_finite(a->min) && dvec_finite(a->max) && a->min[0] <= a->max[0] && a->min[1] <= a->max[1] &&
               a->min[2] <= a->max[2];
    }
    case MQ_SHAPE_CONVEX: {
        mq_cpose p;
        return s->u.convex.convex && mq_cpose_from_quat(s->u.convex.rotation, s->u.convex.translation, &p);
    }
    }
    return false;
}

void mq_dshape_bounds(const mq_dshape *s, mq_daabb *out)
{
    if (s->kind == MQ_SHAPE_CONVEX) {
        mq_cpose p;
        double c[3], r;
        mq_cpose_from_quat(s->u.convex.rotation, s->u.convex.translation, &p);
        mq_convex_placed_bounds(s->u.convex.convex, &p, out->min, out->max, c, &r);
        return;
    }
    for (int k = 0; k < 3; k++) {
        switch (s->kind) {
        case MQ_SHAPE_SPHERE:
            out->min[k] = s->u.sphere.center[k] - s->u.sphere.radius;
            out->max[k] = s->u.sphere.center[k] + s->u.sphere.radius;
            break;
        case MQ_SHAPE_CAPSULE:
            out->min[k] = mq_fmin(s->u.capsule.a[k], s->u.capsule.b[k]) - s->u.capsule.radius;
            out->max[k] = mq_fmax(s->u.capsule.a[k], s->u.capsule.b[k]) + s->u.capsule.radius;
            break;
        case MQ_SHAPE_OBB: {
            const mq_dobb *o = &s->u.obb;
            /* 1.01: also bounds the box an OBB with axes orthonormal only to
             * within MQ_OBB_AXIS_TOLERANCE stands for in the primitives */
            double e = 0.0;
            for (int i = 0; i < 3; i++)
                e += fabs(o->axes[i][k]) * o->half[i];
            e = e * 1.01 + 0.01 * (o->half[0] + o->half[1] + o->half[2]);
            out->min[k] = o->center[k] - e;
            out->max[k] = o->center[k] + e;
            break;
        }
        case MQ_SHAPE_AABB:
        default:
            out->min[k] = s->u.aabb.min[k];
            out->max[k] = s->u.aabb.max[k];
            break;
        }
    }
}

static bool fvec_set(float out[3], const double v[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = (float)v[k];
    return isfinite(out[0]) && isfinite(out[1]) && isfinite(out[2]);
}

static double row_norm(const mq_xform *x, int k)
{
    const double *r = x->m[k];
    return sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
}

/* Local linear map (to_local's linear part) of a vector. */
static void lin_local(const mq_instance_rec *r, const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = r->to_local.m[i][0] * v[0] + r->to_local.m[i][1] * v[1] + r->to_local.m[i][2] * v[2];
}

static double maxabs3(const double v[3])
{
    return mq_fmax(fabs(v[0]), mq_fmax(fabs(v[1]), fabs(v[2])));
}

bool mq_inst_shape_prepare(const mq_instance_rec *r, const mq_dshape *s, mq_inst_shape *out)
{
    out->kind = s->kind;
    double lo[3], hi[3];      /* local box before widening */
    double wmag = 0.0;        /* largest |centred world coordinate| or size of the shape */
    double lmag = 0.0;        /* largest |local coordinate| of the local box */
    double ball_c[3], ball_r; /* centred world bounding ball */
    switch (s->kind) {
    case MQ_SHAPE_SPHERE: {
        double c[3], cl[3], rad = s->u.sphere.radius;
        mq_inst_centre_d(r, s->u.sphere.center, c);
        if (!fvec_set(out->f.sphere.center, c))
            return false;
        out->f.sphere.radius = (float)rad;
        if (!isfinite(out->f.sphere.radius))
            return false;
        lin_local(r, c, cl);
        for (int k = 0; k < 3; k++) {
            double h = rad * row_norm(&r->to_local, k);
            lo[k] = cl[k] - h;
            hi[k] = cl[k] + h;
            ball_c[k] = c[k];
        }
        ball_r = rad;
        wmag = maxabs3(c) + rad;
        break;
    }
    case MQ_SHAPE_CAPSULE: {
        double a[3], b[3], al[3], bl[3], rad = s->u.capsule.radius;
        mq_inst_centre_d(r, s->u.capsule.a, a);
        mq_inst_centre_d(r, s->u.capsule.b, b);
        if (!fvec_set(out->f.capsule.a, a) || !fvec_set(out->f.capsule.b, b))
            return false;
        out->f.capsule.radius = (float)rad;
        if (!isfinite(out->f.capsule.radius))
            return false;
        lin_local(r, a, al);
        lin_local(r, b, bl);
        double half_len2 = 0.0;
        for (int k = 0; k < 3; k++) {
            double h = rad * row_norm(&r->to_local, k);
            lo[k] = mq_fmin(al[k], bl[k]) - h;
            hi[k] = mq_fmax(al[k], bl[k]) + h;
            ball_c[k] = 0.5 * a[k] + 0.5 * b[k];
            half_len2 += 0.25 * (b[k] - a[k]) * (b[k] - a[k]);
        }
        ball_r = sqrt(half_len2) + rad;
        wmag = mq_fmax(maxabs3(a), maxabs3(b)) + rad;
        break;
    }
    case MQ_SHAPE_OBB: {
        const mq_dobb *o = &s->u.obb;
        double c[3], cl[3], axl[3][3];
        mq_inst_centre_d(r, o->center, c);
        if (!fvec_set(out->f.obb.center, c) || !fvec_set(out->f.obb.half, o->half))
            return false;
        for (int i = 0; i < 3; i++) {
            for (int k = 0; k < 3; k++)
                out->f.obb.axes[i][k] = (float)o->axes[i][k];
            lin_local(r, o->axes[i], axl[i]);
        }
        lin_local(r, c, cl);
        double hsum = o->half[0] + o->half[1] + o->half[2];
        for (int k = 0; k < 3; k++) {
            double h = 0.0;
            for (int i = 0; i < 3; i++)
                h += fabs(axl[i][k]) * o->half[i];
            /* nearly orthonormal axes: see mq_dshape_bounds */
            h = h * 1.01 + 0.01 * hsum * row_norm(&r->to_local, k);
            lo[k] = cl[k] - h;
            hi[k] = cl[k] + h;
            ball_c[k] = c[k];
        }
        ball_r = 1.02 * sqrt(ddot(o->half, o->half));
        wmag = maxabs3(c) + hsum;
        break;
    }
    case MQ_SHAPE_CONVEX: {
        /* the pose moved to the centred frame (translation - t, in double);
         * candidates: the local box of the placed convex's box, and its ball */
        mq_cpose *p = &out->f.convex.pose;
        double mn[3], mx[3], c[3], h[3], cl[3], bc[3];
        out->f.convex.c = s->u.convex.convex;
        if (!mq_cpose_from_quat(s->u.convex.rotation, s->u.convex.translation, p))
            return false;
        mq_inst_centre_d(r, s->u.convex.translation, p->t);
        p->identity = false;
        mq_convex_placed_bounds(out->f.convex.c, p, mn, mx, bc, &ball_r);
        for (int k = 0; k < 3; k++) {
            c[k] = 0.5 * mn[k] + 0.5 * mx[k];
            h[k] = 0.5 * mx[k] - 0.5 * mn[k];
        }
        lin_local(r, c, cl);
        for (int k = 0; k < 3; k++) {
            const double *row = r->to_local.m[k];
            double e = fabs(row[0]) * h[0] + fabs(row[1]) * h[1] + fabs(row[2]) * h[2];
            lo[k] = cl[k] - e;
            hi[k] = cl[k] + e;
            ball_c[k] = bc[k];
        }
        wmag = mq_fmax(maxabs3(mn), maxabs3(mx));
        if (!isfinite(wmag))
            return false;
        break;
    }
    case MQ_SHAPE_AABB:
    default: {
        const mq_daabb *a = &s->u.aabb;
        double mn[3], mx[3], c[3], h[3], cl[3];
        mq_inst_centre_d(r, a->min, mn);
        mq_inst_centre_d(r, a->max, mx);
        if (!fvec_set(out->f.aabb.min, mn) || !fvec_set(out->f.aabb.max, mx))
            return false;
        for (int k = 0; k < 3; k++) {
            c[k] = 0.5 * mn[k] + 0.5 * mx[k];
            h[k] = 0.5 * mx[k] - 0.5 * mn[k];
        }
        lin_local(r, c, cl);
        for (int k = 0; k < 3; k++) {
            const double *row = r->to_local.m[k];
            double e = fabs(row[0]) * h[0] + fabs(row[1]) * h[1] + fabs(row[2]) * h[2];
            lo[k] = cl[k] - e;
            hi[k] = cl[k] + e;
            ball_c[k] = c[k];
        }
        ball_r = sqrt(ddot(h, h));
        wmag = mq_fmax(maxabs3(mn), maxabs3(mx));
        break;
    }
    }
    for (int k = 0; k < 3; k++)
        lmag = mq_fmax(lmag, mq_fmax(fabs(lo[k]), fabs(hi[k])));
    double rel = mq_inst_rel_slack(r);
    double grow = rel * ((wmag + r->sigma_max * mq_inst_local_magnitude(r)) / r->sigma_min + lmag);
    if (!isfinite(grow))
        return false;
    mq_walk_box_set(&out->q, lo, hi, grow);
    /* The ball, in the local frame: centre mapped, radius over sigma_min. */
    double bl[3];
    lin_local(r, ball_c, bl);
    double br = ball_r / r->sigma_min + grow + rel * maxabs3(bl);
    for (int k = 0; k < 3; k++)
        out->q.c[k] = (float)bl[k];
    double br2 = br * br * (1.0 + 1e-6);
    out->q.r2 = br2 < (double)FLT_MAX ? (float)br2 : INFINITY;
    return true;
}

/* ---- the walk ------------------------------------------------------------ */

typedef struct overlap_ctx {
    const mq_instance_rec *inst;
    const mq_inst_shape *shape;
    mq_scene_overlap_fn fn;
    void *user;
    size_t calls;
} overlap_ctx;

static inline bool exact_overlap(const mq_inst_shape *s, const mq_triangle *w)
{
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        return mq_overlap_sphere_triangle(&s->f.sphere, w);
    case MQ_SHAPE_CAPSULE:
        return mq_overlap_capsule_triangle(&s->f.capsule, w);
    case MQ_SHAPE_OBB:
        return mq_overlap_triangle_obb(w, &s->f.obb);
    case MQ_SHAPE_CONVEX:
        return mq_convex_overlap_tri_posed(s->f.convex.c, &s->f.convex.pose, w);
    default:
        return mq_overlap_triangle_aabb(w, &s->f.aabb);
    }
}

static bool visit(uint32_t id, const mq_triangle *local, void *user)
{
    overlap_ctx *c = user;
    mq_triangle w;
    mq_inst_triangle(c->inst, local, &w);
    if (!exact_overlap(c->shape, &w))
        return true;
    c->calls++;
    return c->fn(c->inst->id, id, c->user);
}

bool mq_instance_overlap(const mq_instance_rec *inst, const mq_dshape *shape, mq_scene_overlap_fn fn, void *user,
                         size_t *calls)
{
    mq_inst_shape s;
    mq_dshape reduced;
    if (!inst || !shape || !fn || !mq_dshape_valid(shape))
        return true;
    /* Only the shape's part near the instance's world box, which holds every
     * triangle of it (primitives/shape_reduce.h): that keeps the float test
     * accurate (and possible) for shapes far larger than the instance. A
     * centre or axis itself beyond float range of the instance, whose shape
     * still cuts through it, stays as it is and meets nothing (scene.h). */
    if (!mq_dshape_reduce(shape, inst->world_box.min, inst->world_box.max, &reduced) ||
        !mq_inst_shape_prepare(inst, &reduced, &s))
        return true;
    overlap_ctx c = {inst, &s, fn, user, 0};
    bool go_on =
        inst->bvh ? mq_bvh_walk_box(inst->bvh, &s.q, visit, &c) : mq_obbtree_walk_box(inst->obbtree, &s.q, visit, &c);
    if (calls)
        *calls += c.calls;
    return go_on;
}
