/*
 * The sphere tree's queries (spheretree.h): node predicates are distances to
 * each node's ball in double, widened by the slack (kdoptree/bvt.h); the
 * skeleton's traversals (kdoptree/bvt_walk.h) with the primitives as leaf tests.
 * A convex: the ball against its box, then against its largest face planes;
 * leaves decided by the exact test of convex.h.
 */
#include <math.h>

#include "core/minmax.h"
#include "convex/convex_internal.h"
#include "core/vec3.h"
#include "primitives/shape_checks.h"
#include "primitives/shape_reduce.h"
#include "bvh/kernels/hit_mesh.h"
#include "kdoptree/bvt_walk.h"
#include "spheretree/spheretree_internal.h"

static double abs1(const float p[3])
{
    return fabs((double)p[0]) + fabs((double)p[1]) + fabs((double)p[2]);
}

/* ---- shape overlap ---- */

typedef struct shape_ctx {
    const mq_spheretree *t;
    double grow;                         /* added to every node radius: the query's reach plus the slack */
    double c[3], a[3], b[3], ab[3], ab2; /* sphere / capsule centre, segment; AABB min (a) max (b) */
    double axes[3][3], half[3];          /* OBB */
    mq_shape shape;                      /* cut down to the tree's region (a convex is kept whole) */
    mq_cpose pose;                       /* convex: identity (it is in the mesh's frame) */
    float clo[3], chi[3];                /* convex: its box as floats (exact: the corners are floats) */
} shape_ctx;

static const float *ball(const mq_spheretree *t, uint32_t node)
{
    return t->spheres + 4 * (size_t)node;
}

static bool within(const float *s, double d2, double grow)
{
    double r = (double)s[3] + grow;
    return r >= 0.0 && d2 <= r * r;
}

static bool node_sphere(const void *c, uint32_t node)
{
    const shape_ctx *q = c;
    const float *s = ball(q->t, node);
    double x = s[0] - q->c[0], y = s[1] - q->c[1], z = s[2] - q->c[2];
    return within(s, x * x + y * y + z * z, q->grow);
}

static bool node_capsule(const void *c, uint32_t node)
{
    const shape_ctx *q = c;
    const float *s = ball(q->t, node);
    double d[3] = {s[0] - q->a[0], s[1] - q->a[1], s[2] - q->a[2]};
    double u = q->ab2 > 0.0 ? (d[0] * q->ab[0] + d[1] * q->ab[1] + d[2] * q->ab[2]) / q->ab2 : 0.0;
    u = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
    double x = d[0] - u * q->ab[0], y = d[1] - u * q->ab[1], z = d[2] - u * q->ab[2];
    return within(s, x * x + y * y + z * z, q->grow);
}

static bool node_obb(const void *c, uint32_t node)
{
    const shape_ctx *q = c;
    const float *s = ball(q->t, node);
    double d[3] = {s[0] - q->c[0], s[1] - q->c[1], s[2] - q->c[2]}, d2 = 0.0;
    for (int i = 0; i < 3; i++) {
        double l = fabs(d[0] * q->axes[i][0] + d[1] * q->axes[i][1] + d[2] * q->axes[i][2]) - q->half[i];
        if (l > 0.0)
            d2 += l * l;
    }
    return within(s, d2, q->grow);
}

static bool node_aabb(const void *c, uint32_t node)
{
    const shape_ctx *q = c;
    const float *s = ball(q->t, node);
    double d2 = 0.0;
    for (int i = 0; i < 3; i++) {
        double e = mq_fmax(q->a[i] - s[i], s[i] - q->b[i]);
        if (e > 0.0)
            d2 += e * e;
    }
    return within(s, d2, q->grow);
}

/* A convex: the node's ball against the convex's box (q->a, q->b), then
 * against its largest face planes (a ball wholly above one is culled; in
 * double with the relative margin of mq_convex_box_may_meet, so a ball
 * holding a point of the convex is never culled). */
static bool node_convex(const void *c, uint32_t node)
{
    const shape_ctx *q = c;
    const float *s = ball(q->t, node);
    if (!node_aabb(c, node))
        return false;
    const mq_convex *cv = q->shape.u.convex;
    uint32_t np = cv->np < MQ_CONVEX_CULL_PLANES ? cv->np : MQ_CONVEX_CULL_PLANES;
    double r = (double)s[3] + q->grow;
    for (uint32_t i = 0; i < np; i++) {
        const mq_cplane *p = &cv->planes[i];
        double h = p->n[0] * s[0] + p->n[1] * s[1] + p->n[2] * s[2];
        if (h - r - p->d > 1e-7 * (fabs(h) + r + fabs(p->d)))
            return false;
    }
    return true;
}

/* The triangle's box against the convex's, then the exact test (convex.h). */
static bool tri_convex(const mq_triangle *tri, const void *c)
{
    const shape_ctx *q = c;
    for (int k = 0; k < 3; k++) {
        float lo = mq_fminf(mq_fminf(tri->v[0][k], tri->v[1][k]), tri->v[2][k]);
        float hi = mq_fmaxf(mq_fmaxf(tri->v[0][k], tri->v[1][k]), tri->v[2][k]);
        if (lo > q->chi[k] || hi < q->clo[k])
            return false;
    }
    return mq_convex_overlap_tri_posed(q->shape.u.convex, &q->pose, tri);
}

static bool tri_sphere(const mq_triangle *tri, const void *c)
{
    return mq_overlap_sphere_triangle(&((const shape_ctx *)c)->shape.u.sphere, tri);
}
static bool tri_capsule(const mq_triangle *tri, const void *c)
{
    return mq_overlap_capsule_triangle(&((const shape_ctx *)c)->shape.u.capsule, tri);
}
static bool tri_obb(const mq_triangle *tri, const void *c)
{
    return mq_overlap_triangle_obb(tri, &((const shape_ctx *)c)->shape.u.obb);
}
static bool tri_aabb(const mq_triangle *tri, const void *c)
{
    return mq_overlap_triangle_aabb(tri, &((const shape_ctx *)c)->shape.u.aabb);
}

static void load3(double out[3], const float in[3])
{
    out[0] = in[0];
    out[1] = in[1];
    out[2] = in[2];
}

static bool prepare(const mq_spheretree *t, const mq_shape *shape, shape_ctx *q, mq_bvt_node_fn *node,
                    mq_bvt_tri_fn *tri)
{
    if (!t || !shape || t->bvt.node_count == 0)
        return false;
    const double *lo = t->bvt.lo, *hi = t->bvt.hi;
    q->t = t;
    q->shape.kind = shape->kind;
    double mag = 0.0, reach = 0.0;
    switch (shape->kind) {
    case MQ_SHAPE_SPHERE: {
        mq_sphere *s = &q->shape.u.sphere;
        if (!mq_sphere_ok(&shape->u.sphere) || !mq_sphere_reduce(&shape->u.sphere, lo, hi, s))
            return false;
        load3(q->c, s->center);
        reach = s->radius;
        mag = abs1(s->center) + s->radius;
        *node = node_sphere;
        *tri = tri_sphere;
        break;
    }
    case MQ_SHAPE_CAPSULE: {
        mq_capsule *s = &q->shape.u.capsule;
        if (!mq_capsule_ok(&shape->u.capsule) || !mq_capsule_reduce(&shape->u.capsule, lo, hi, s))
            return false;
        load3(q->a, s->a);
        load3(q->b, s->b);
        for (int k = 0; k < 3; k++)
            q->ab[k] = q->b[k] - q->a[k];
        q->ab2 = q->ab[0] * q->ab[0] + q->ab[1] * q->ab[1] + q->ab[2] * q->ab[2];
        reach = s->radius;
        mag = abs1(s->a) + abs1(s->b) + s->radius;
        *node = node_capsule;
        *tri = tri_capsule;
        break;
    }
    case MQ_SHAPE_OBB: {
        mq_obb *s = &q->shape.u.obb;
        if (!mq_obb_is_valid(&shape->u.obb) || !mq_obb_reduce(&shape->u.obb, lo, hi, s))
            return false;
        load3(q->c, s->center);
        double hsum = (double)s->half[0] + s->half[1] + s->half[2];
        for (int i = 0; i < 3; i++) {
            load3(q->axes[i], s->axes[i]);
            q->half[i] = s->half[i];
        }
        /* axes off orthonormal by up to MQ_OBB_AXIS_TOLERANCE move the faces (as the OBB tree widens) */
        reach = 8.0 * mq_obb_axes_deviation(s) * hsum;
        mag = abs1(s->center) + hsum;
        *node = node_obb;
        *tri = tri_obb;
        break;
    }
    case MQ_SHAPE_AABB: {
        mq_aabb *s = &q->shape.u.aabb;
        if (!mq_aabb_ok(&shape->u.aabb) || !mq_aabb_reduce(&shape->u.aabb, lo, hi, s))
            return false;
        load3(q->a, s->min);
        load3(q->b, s->max);
        mag = abs1(s->min) + abs1(s->max);
        *node = node_aabb;
        *tri = tri_aabb;
        break;
    }
    case MQ_SHAPE_CONVEX: {
        /* tested in double at any size, so kept whole */
        const mq_convex *cv = shape->u.convex;
        if (!cv)
            return false;
        q->shape.u.convex = cv;
        mq_cpose_identity(&q->pose);
        for (int k = 0; k < 3; k++) {
            q->a[k] = cv->lo[k];
            q->b[k] = cv->hi[k];
            q->clo[k] = (float)cv->lo[k];
            q->chi[k] = (float)cv->hi[k];
            mag += fabs(cv->lo[k]) + fabs(cv->hi[k]);
        }
        *node = node_convex;
        *tri = tri_convex;
        break;
    }
    default:
        return false; /* a kind this tree does not know: nothing */
    }
    q->grow = reach + mq_bvt_slack(&t->bvt, mag);
    return true;
}

size_t mq_spheretree_overlap(const mq_spheretree *t, const mq_shape *shape, mq_overlap_fn fn, void *user)
{
    shape_ctx q;
    mq_bvt_node_fn node;
    mq_bvt_tri_fn tri;
    if (!fn || !prepare(t, shape, &q, &node, &tri))
        return 0;
    return mq_bvt_walk(&t->bvt, &q, node, tri, fn, user);
}

size_t mq_spheretree_overlap_array(const mq_spheretree *t, const mq_shape *shape, uint32_t *out, size_t capacity)
{
    shape_ctx q;
    mq_bvt_node_fn node;
    mq_bvt_tri_fn tri;
    if (!prepare(t, shape, &q, &node, &tri))
        return 0;
    mq_bvt_sink sink = {out, out ? capacity : 0, 0};
    mq_bvt_walk(&t->bvt, &q, node, tri, mq_bvt_sink_push, &sink);
    return sink.count;
}

bool mq_spheretree_overlap_any(const mq_spheretree *t, const mq_shape *shape)
{
    shape_ctx q;
    mq_bvt_node_fn node;
    mq_bvt_tri_fn tri;
    if (!prepare(t, shape, &q, &node, &tri))
        return false;
    return mq_bvt_walk(&t->bvt, &q, node, tri, mq_bvt_stop, NULL) > 0;
}

/* ---- rays ---- */

typedef struct ray_ctx {
    const mq_spheretree *t;
    double o[3], d[3], dd, tmin, grow;
} ray_ctx;

/* The ray against the widened ball: |o + t d - c|^2 <= R^2, a quadratic in t. */
static bool ray_clip(const void *c, uint32_t node, float limit, float *t_enter)
{
    const ray_ctx *r = c;
    const float *s = ball(r->t, node);
    double R = (double)s[3] + r->grow;
    if (!(R >= 0.0))
        return false;
    double w[3] = {r->o[0] - s[0], r->o[1] - s[1], r->o[2] - s[2]};
    double b = w[0] * r->d[0] + w[1] * r->d[1] + w[2] * r->d[2];
    double cc = w[0] * w[0] + w[1] * w[1] + w[2] * w[2] - R * R;
    double disc = b * b - r->dd * cc;
    if (disc < 0.0)
        return false;
    double sq = sqrt(disc), t0 = (-b - sq) / r->dd, t1 = (-b + sq) / r->dd;
    double lo = mq_fmax(t0, r->tmin), hi = mq_fmin(t1, (double)limit);
    if (lo > hi)
        return false;
    *t_enter = mq_bvt_down(lo);
    return true;
}

static void ray_prepare(const mq_spheretree *t, const mq_ray *ray, ray_ctx *r)
{
    r->t = t;
    load3(r->o, ray->origin);
    load3(r->d, ray->dir);
    r->dd = r->d[0] * r->d[0] + r->d[1] * r->d[1] + r->d[2] * r->d[2];
    r->tmin = ray->tmin;
    r->grow = mq_bvt_slack(&t->bvt, abs1(ray->origin));
}

bool mq_spheretree_raycast_closest(const mq_spheretree *t, const mq_ray *ray, const mq_ray_query *query, mq_hit *out)
{
    if (!t || !mq_ray_is_valid(ray)) {
        if (out)
            mq_hit_miss(out);
        return false;
    }
    ray_ctx r;
    ray_prepare(t, ray, &r);
    return mq_bvt_ray_closest_with(&t->bvt, ray, query, out, &r, ray_clip);
}

bool mq_spheretree_raycast_any(const mq_spheretree *t, const mq_ray *ray, const mq_ray_query *query)
{
    if (!t || !mq_ray_is_valid(ray))
        return false;
    ray_ctx r;
    ray_prepare(t, ray, &r);
    return mq_bvt_ray_any_with(&t->bvt, ray, query, &r, ray_clip);
}

/* ---- closest point ---- */

typedef struct point_ctx {
    const mq_spheretree *t;
    double p[3], slack;
} point_ctx;

static float point_bound(const void *c, uint32_t node)
{
    const point_ctx *q = c;
    const float *s = ball(q->t, node);
    if (!(s[3] >= 0.0f))
        return INFINITY;
    double x = s[0] - q->p[0], y = s[1] - q->p[1], z = s[2] - q->p[2];
    double d = sqrt(x * x + y * y + z * z) - s[3] - q->slack;
    return d > 0.0 ? mq_bvt_down(d) : 0.0f;
}

bool mq_spheretree_closest_point(const mq_spheretree *t, const vec3 p, float max_distance, mq_point_hit *out)
{
    if (!t || !p || !mq_v3_is_finite(p))
        return false;
    point_ctx q = {t, {p[0], p[1], p[2]}, 2.0 * mq_bvt_slack(&t->bvt, abs1(p))};
    return mq_bvt_closest_with(&t->bvt, p, max_distance, out, &q, point_bound);
}

/* ---- mesh vs mesh ---- */

typedef struct pair_ctx {
    const mq_spheretree *a, *b;
    double col[3][3], t[3];
    double slack;
} pair_ctx;

static bool pair_test(const void *c, uint32_t na, uint32_t nb)
{
    const pair_ctx *q = c;
    const float *sa = ball(q->a, na), *sb = ball(q->b, nb);
    double r = (double)sa[3] + sb[3] + q->slack, d2 = 0.0;
    if (!(sa[3] >= 0.0f) || !(sb[3] >= 0.0f))
        return false;
    for (int k = 0; k < 3; k++) {
        double x = q->t[k] + q->col[0][k] * sb[0] + q->col[1][k] * sb[1] + q->col[2][k] * sb[2] - sa[k];
        d2 += x * x;
    }
    return d2 <= r * r;
}

static float pair_size(const void *c, bool in_a, uint32_t node)
{
    const pair_ctx *q = c;
    return ball(in_a ? q->a : q->b, node)[3];
}

static size_t collide(const mq_spheretree *a, const mq_spheretree *b, const mq_rigid *xf, mq_pair_fn fn, void *user)
{
    mq_rigid_m m;
    if (!a || !b || !xf || !fn || !mq_rigid_to_matrix(xf, &m))
        return 0;
    pair_ctx q;
    q.a = a;
    q.b = b;
    for (int j = 0; j < 3; j++) {
        load3(q.col[j], m.col[j]);
        q.t[j] = m.t[j];
    }
    /* B's corners are mapped in float (mq_rigid_apply): the slack covers that rounding too */
    q.slack = 4.0 * mq_bvt_slack(&a->bvt, abs1(m.t) + b->bvt.magnitude);
    return mq_bvt_collide_with(&a->bvt, &b->bvt, &m, fn, user, &q, pair_test, pair_size);
}

size_t mq_spheretree_collide(const mq_spheretree *a, const mq_spheretree *b, const mq_rigid *b_to_a, mq_pair_fn fn,
                             void *user)
{
    return collide(a, b, b_to_a, fn, user);
}

size_t mq_spheretree_collide_array(const mq_spheretree *a, const mq_spheretree *b, const mq_rigid *b_to_a,
                                   mq_tri_pair *out, size_t capacity)
{
    mq_bvt_pair_sink sink = {out, out ? capacity : 0, 0};
    collide(a, b, b_to_a, mq_bvt_pair_push, &sink);
    return sink.count;
}

bool mq_spheretree_any_collide(const mq_spheretree *a, const mq_spheretree *b, const mq_rigid *b_to_a)
{
    return collide(a, b, b_to_a, mq_bvt_pair_stop, NULL) > 0;
}
