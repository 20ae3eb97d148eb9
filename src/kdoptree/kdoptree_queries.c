/*
 * The k-DOP tree's queries (kdoptree.h): node predicates from slab tests,
 * on the skeleton's traversals (bvt_walk.h); leaf predicates the primitives.
 *
 * Shapes: the shape is projected once onto the tree's directions, in double,
 * rounded outwards and widened by the slack; a node is entered when each
 * interval meets the node's slab. A convex (its corners projected) is then
 * also tested by its face planes against the node's axis slabs, and decided
 * at the leaves by the exact test of convex.h. Rays: clipped by every widened slab.
 * Closest point: the largest slab gap (over |n|) and the axis slabs'
 * Euclidean gap bound the distance from below. Mesh vs mesh: the separating
 * directions of both volumes, each against the other's box (kdoptree.h,
 * "Rotation").
 */
#include <math.h>

#include "core/minmax.h"
#include "convex/convex_internal.h"
#include "core/vec3.h"
#include "primitives/ray_slab.h"
#include "primitives/shape_checks.h"
#include "primitives/shape_reduce.h"
#include "bvh/kernels/hit_mesh.h"
#include "kdoptree/bvt_walk.h"
#include "kdoptree/kdoptree_internal.h"

/* ---- shape overlap ---- */

typedef struct shape_ctx {
    const mq_kdoptree *t;
    float lo[MQ_KDOP_MAX_DIRS], hi[MQ_KDOP_MAX_DIRS];
    mq_shape shape; /* cut down to the tree's region (a convex is kept whole) */
    /* MQ_SHAPE_CONVEX: the hull (in the mesh's frame), its identity pose and
     * its box as floats (exact: the corners are floats) */
    mq_cpose pose;
    float clo[3], chi[3];
} shape_ctx;

MQ_BVT_INLINE bool node_meets(const void *c, uint32_t node)
{
    const shape_ctx *q = c;
    const mq_kdoptree *t = q->t;
    const float *s = t->slabs + (size_t)node * t->k;
    uint32_t m = t->m;
    bool ok = true;
    for (uint32_t i = 0; i < m; i++)
        ok &= !(q->lo[i] > s[m + i] || q->hi[i] < s[i]);
    return ok;
}

/* A convex: the slabs, then its face planes against the node's box (the
 * first three directions are the axes, so their slabs are that box). */
MQ_BVT_INLINE bool node_convex(const void *c, uint32_t node)
{
    if (!node_meets(c, node))
        return false;
    const shape_ctx *q = c;
    const float *s = q->t->slabs + (size_t)node * q->t->k;
    uint32_t m = q->t->m;
    double centre[3], half[3];
    for (int k = 0; k < 3; k++) {
        centre[k] = 0.5 * (double)s[k] + 0.5 * (double)s[m + k];
        half[k] = 0.5 * (double)s[m + k] - 0.5 * (double)s[k];
    }
    return mq_convex_box_may_meet(q->shape.u.convex, centre, NULL, half);
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

static double dproj(const float n[3], const float p[3])
{
    return (double)n[0] * p[0] + (double)n[1] * p[1] + (double)n[2] * p[2];
}

static double abs1(const float p[3])
{
    return fabs((double)p[0]) + fabs((double)p[1]) + fabs((double)p[2]);
}

/* Cuts the shape down to the tree's region and projects it; false when it
 * matches nothing (invalid, unknown kind, outside the region). */
static bool prepare(const mq_kdoptree *t, const mq_shape *shape, shape_ctx *q, mq_bvt_tri_fn *tri)
{
    if (!t || !shape || t->bvt.node_count == 0)
        return false;
    const double *lo = t->bvt.lo, *hi = t->bvt.hi;
    q->t = t;
    q->shape.kind = shape->kind;
    double mag = 0.0, dlo[MQ_KDOP_MAX_DIRS], dhi[MQ_KDOP_MAX_DIRS];
    switch (shape->kind) {
    case MQ_SHAPE_SPHERE: {
        mq_sphere *s = &q->shape.u.sphere;
        if (!mq_sphere_ok(&shape->u.sphere) || !mq_sphere_reduce(&shape->u.sphere, lo, hi, s))
            return false;
        for (uint32_t i = 0; i < t->m; i++) {
            double c = dproj(t->dirs[i], s->center), r = (double)s->radius / t->inv_norm[i];
            dlo[i] = c - r;
            dhi[i] = c + r;
        }
        mag = abs1(s->center) + s->radius;
        *tri = tri_sphere;
        break;
    }
    case MQ_SHAPE_CAPSULE: {
        mq_capsule *s = &q->shape.u.capsule;
        if (!mq_capsule_ok(&shape->u.capsule) || !mq_capsule_reduce(&shape->u.capsule, lo, hi, s))
            return false;
        for (uint32_t i = 0; i < t->m; i++) {
            double a = dproj(t->dirs[i], s->a), b = dproj(t->dirs[i], s->b), r = (double)s->radius / t->inv_norm[i];
            dlo[i] = mq_fmin(a, b) - r;
            dhi[i] = mq_fmax(a, b) + r;
        }
        mag = abs1(s->a) + abs1(s->b) + s->radius;
        *tri = tri_capsule;
        break;
    }
    case MQ_SHAPE_OBB: {
        mq_obb *s = &q->shape.u.obb;
        if (!mq_obb_is_valid(&shape->u.obb) || !mq_obb_reduce(&shape->u.obb, lo, hi, s))
            return false;
        /* A valid box's axes may be off orthonormal by MQ_OBB_AXIS_TOLERANCE: its
         * faces then move by about that fraction of its extents (as the OBB tree widens). */
        double hsum = (double)s->half[0] + s->half[1] + s->half[2];
        double widen = 8.0 * mq_obb_axes_deviation(s) * hsum;
        for (uint32_t i = 0; i < t->m; i++) {
            double c = dproj(t->dirs[i], s->center), r = 0.0;
            for (int j = 0; j < 3; j++)
                r += (double)s->half[j] * fabs(dproj(t->dirs[i], s->axes[j]));
            r += widen / t->inv_norm[i];
            dlo[i] = c - r;
            dhi[i] = c + r;
        }
        mag = abs1(s->center) + hsum;
        *tri = tri_obb;
        break;
    }
    case MQ_SHAPE_AABB: {
        mq_aabb *s = &q->shape.u.aabb;
        if (!mq_aabb_ok(&shape->u.aabb) || !mq_aabb_reduce(&shape->u.aabb, lo, hi, s))
            return false;
        for (uint32_t i = 0; i < t->m; i++) {
            double a = 0.0, b = 0.0;
            for (int j = 0; j < 3; j++) {
                double n = t->dirs[i][j];
                a += n * (n > 0 ? s->min[j] : s->max[j]);
                b += n * (n > 0 ? s->max[j] : s->min[j]);
            }
            dlo[i] = a;
            dhi[i] = b;
        }
        mag = abs1(s->min) + abs1(s->max);
        *tri = tri_aabb;
        break;
    }
    case MQ_SHAPE_CONVEX: {
        /* tested in double at any size, so kept whole; its projections are
         * those of its corners (floats), in double */
        const mq_convex *cv = shape->u.convex;
        if (!cv)
            return false;
        q->shape.u.convex = cv;
        mq_cpose_identity(&q->pose);
        for (uint32_t i = 0; i < t->m; i++) {
            double a = INFINITY, b = -INFINITY;
            for (uint32_t v = 0; v < cv->nv; v++) {
                double x = dproj(t->dirs[i], cv->fv + 3 * (size_t)v);
                a = mq_fmin(a, x);
                b = mq_fmax(b, x);
            }
            dlo[i] = a;
            dhi[i] = b;
        }
        for (int k = 0; k < 3; k++) {
            q->clo[k] = (float)cv->lo[k];
            q->chi[k] = (float)cv->hi[k];
            mag += fabs(cv->lo[k]) + fabs(cv->hi[k]);
        }
        *tri = tri_convex;
        break;
    }
    default:
        return false; /* a kind this tree does not know: nothing */
    }
    double g = mq_bvt_slack(&t->bvt, mag);
    for (uint32_t i = 0; i < t->m; i++) {
        q->lo[i] = mq_bvt_down(dlo[i] - g);
        q->hi[i] = mq_bvt_up(dhi[i] + g);
    }
    return true;
}

/* The walk with the node test of the shape's kind (each a direct call). */
MQ_BVT_INLINE size_t walk(const mq_kdoptree *t, const shape_ctx *q, mq_bvt_tri_fn tri, mq_overlap_fn fn, void *user)
{
    if (q->shape.kind == MQ_SHAPE_CONVEX)
        return mq_bvt_walk(&t->bvt, q, node_convex, tri, fn, user);
    return mq_bvt_walk(&t->bvt, q, node_meets, tri, fn, user);
}

size_t mq_kdoptree_overlap(const mq_kdoptree *t, const mq_shape *shape, mq_overlap_fn fn, void *user)
{
    shape_ctx q;
    mq_bvt_tri_fn tri;
    if (!fn || !prepare(t, shape, &q, &tri))
        return 0;
    return walk(t, &q, tri, fn, user);
}

size_t mq_kdoptree_overlap_array(const mq_kdoptree *t, const mq_shape *shape, uint32_t *out, size_t capacity)
{
    shape_ctx q;
    mq_bvt_tri_fn tri;
    if (!prepare(t, shape, &q, &tri))
        return 0;
    mq_bvt_sink sink = {out, out ? capacity : 0, 0};
    walk(t, &q, tri, mq_bvt_sink_push, &sink);
    return sink.count;
}

bool mq_kdoptree_overlap_any(const mq_kdoptree *t, const mq_shape *shape)
{
    shape_ctx q;
    mq_bvt_tri_fn tri;
    if (!prepare(t, shape, &q, &tri))
        return false;
    return walk(t, &q, tri, mq_bvt_stop, NULL) > 0;
}

/* ---- rays ---- */

typedef struct ray_ctx {
    const mq_kdoptree *t;
    float tmin, grow;
    float od[MQ_KDOP_MAX_DIRS], dd[MQ_KDOP_MAX_DIRS];
} ray_ctx;

static bool ray_clip(const void *c, uint32_t node, float limit, float *t_enter)
{
    const ray_ctx *r = c;
    const mq_kdoptree *t = r->t;
    const float *s = t->slabs + (size_t)node * t->k;
    uint32_t m = t->m;
    float lo = r->tmin, hi = limit;
    for (uint32_t i = 0; i < m; i++) {
        if (!mq_slab_clip_axis(r->od[i], r->dd[i], s[i] - r->grow, s[m + i] + r->grow, &lo, &hi))
            return false;
    }
    *t_enter = lo;
    return true;
}

static void ray_prepare(const mq_kdoptree *t, const mq_ray *ray, ray_ctx *r)
{
    r->t = t;
    r->tmin = ray->tmin;
    for (uint32_t i = 0; i < t->m; i++) {
        r->od[i] = (float)dproj(t->dirs[i], ray->origin);
        r->dd[i] = (float)dproj(t->dirs[i], ray->dir);
    }
    r->grow = mq_bvt_slack(&t->bvt, abs1(ray->origin));
}

bool mq_kdoptree_raycast_closest(const mq_kdoptree *t, const mq_ray *ray, const mq_ray_query *query, mq_hit *out)
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

bool mq_kdoptree_raycast_any(const mq_kdoptree *t, const mq_ray *ray, const mq_ray_query *query)
{
    if (!t || !mq_ray_is_valid(ray))
        return false;
    ray_ctx r;
    ray_prepare(t, ray, &r);
    return mq_bvt_ray_any_with(&t->bvt, ray, query, &r, ray_clip);
}

/* ---- closest point ---- */

typedef struct point_ctx {
    const mq_kdoptree *t;
    float pp[MQ_KDOP_MAX_DIRS];
    float slack;
} point_ctx;

static float point_bound(const void *c, uint32_t node)
{
    const point_ctx *q = c;
    const mq_kdoptree *t = q->t;
    const float *s = t->slabs + (size_t)node * t->k;
    uint32_t m = t->m;
    double axes2 = 0.0;
    float gap = 0.0f;
    for (uint32_t i = 0; i < m; i++) {
        float e = mq_maxf(s[i] - q->pp[i], q->pp[i] - s[m + i]); /* all finite: plain compares */
        if (e > 0.0f) {
            if (i < 3)
                axes2 += (double)e * e;
            gap = mq_maxf(gap, e * t->inv_norm[i]);
        }
    }
    float d = mq_maxf((float)sqrt(axes2), gap) - q->slack;
    return d > 0.0f ? d : 0.0f;
}

bool mq_kdoptree_closest_point(const mq_kdoptree *t, const vec3 p, float max_distance, mq_point_hit *out)
{
    if (!t || !p || !mq_v3_is_finite(p))
        return false;
    point_ctx q = {t, {0}, 0.0f};
    for (uint32_t i = 0; i < t->m; i++)
        q.pp[i] = (float)dproj(t->dirs[i], p);
    q.slack = 2.0f * mq_bvt_slack(&t->bvt, abs1(p));
    return mq_bvt_closest_with(&t->bvt, p, max_distance, out, &q, point_bound);
}

/* ---- mesh vs mesh ---- */

typedef struct pair_ctx {
    const mq_kdoptree *a, *b;
    mq_rigid_m m;
    float wa[MQ_KDOP_MAX_DIRS][3]; /* |n_i(A) . M e_j|: B's box axis j on A's direction i */
    float wb[MQ_KDOP_MAX_DIRS][3]; /* |n_i(B) . M^T e_j|: A's box axis j on B's direction i */
    float slack;
} pair_ctx;

static void box_of(const mq_kdoptree *t, uint32_t node, float c[3], float h[3])
{
    const float *s = t->slabs + (size_t)node * t->k;
    for (int j = 0; j < 3; j++) {
        c[j] = 0.5f * s[j] + 0.5f * s[t->m + j];
        h[j] = 0.5f * s[t->m + j] - 0.5f * s[j];
    }
}

/* Is the box (c, h, axis weights w) separated from node's slabs of tree t? */
static bool separated(const mq_kdoptree *t, uint32_t node, const float c[3], const float h[3], const float w[][3],
                      float slack)
{
    const float *s = t->slabs + (size_t)node * t->k;
    uint32_t m = t->m;
    for (uint32_t i = 0; i < m; i++) {
        float x = t->dirs[i][0] * c[0] + t->dirs[i][1] * c[1] + t->dirs[i][2] * c[2];
        float r = h[0] * w[i][0] + h[1] * w[i][1] + h[2] * w[i][2] + slack;
        if (x - r > s[m + i] || x + r < s[i])
            return true;
    }
    return false;
}

static bool pair_test(const void *c, uint32_t na, uint32_t nb)
{
    const pair_ctx *q = c;
    float cb[3], hb[3], ca[3], ha[3], x[3];
    box_of(q->b, nb, cb, hb);
    mq_rigid_m_apply(&q->m, cb, x); /* B's box centre in A's frame */
    if (separated(q->a, na, x, hb, (const float(*)[3])q->wa, q->slack))
        return false;
    box_of(q->a, na, ca, ha);
    float d[3] = {ca[0] - q->m.t[0], ca[1] - q->m.t[1], ca[2] - q->m.t[2]};
    for (int k = 0; k < 3; k++) /* A's box centre in B's frame: M^T (c - t) */
        x[k] = q->m.col[k][0] * d[0] + q->m.col[k][1] * d[1] + q->m.col[k][2] * d[2];
    return !separated(q->b, nb, x, ha, (const float(*)[3])q->wb, q->slack);
}

static float pair_size(const void *c, bool in_a, uint32_t node)
{
    const pair_ctx *q = c;
    const mq_kdoptree *t = in_a ? q->a : q->b;
    const float *s = t->slabs + (size_t)node * t->k;
    float x = s[t->m] - s[0], y = s[t->m + 1] - s[1], z = s[t->m + 2] - s[2];
    return x * x + y * y + z * z;
}

static size_t collide(const mq_kdoptree *a, const mq_kdoptree *b, const mq_rigid *xf, mq_pair_fn fn, void *user)
{
    pair_ctx q;
    if (!a || !b || !xf || !fn || !mq_rigid_to_matrix(xf, &q.m))
        return 0;
    q.a = a;
    q.b = b;
    for (uint32_t i = 0; i < a->m; i++)
        for (int j = 0; j < 3; j++)
            q.wa[i][j] =
                fabsf(a->dirs[i][0] * q.m.col[j][0] + a->dirs[i][1] * q.m.col[j][1] + a->dirs[i][2] * q.m.col[j][2]);
    for (uint32_t i = 0; i < b->m; i++)
        for (int j = 0; j < 3; j++)
            q.wb[i][j] =
                fabsf(b->dirs[i][0] * q.m.col[0][j] + b->dirs[i][1] * q.m.col[1][j] + b->dirs[i][2] * q.m.col[2][j]);
    double tmag = fabs((double)q.m.t[0]) + fabs((double)q.m.t[1]) + fabs((double)q.m.t[2]);
    q.slack = 4.0f * mq_bvt_slack(&a->bvt, tmag + b->bvt.magnitude);
    return mq_bvt_collide_with(&a->bvt, &b->bvt, &q.m, fn, user, &q, pair_test, pair_size);
}

size_t mq_kdoptree_collide(const mq_kdoptree *a, const mq_kdoptree *b, const mq_rigid *b_to_a, mq_pair_fn fn,
                           void *user)
{
    return collide(a, b, b_to_a, fn, user);
}

size_t mq_kdoptree_collide_array(const mq_kdoptree *a, const mq_kdoptree *b, const mq_rigid *b_to_a, mq_tri_pair *out,
                                 size_t capacity)
{
    mq_bvt_pair_sink sink = {out, out ? capacity : 0, 0};
    collide(a, b, b_to_a, mq_bvt_pair_push, &sink);
    return sink.count;
}

bool mq_kdoptree_any_collide(const mq_kdoptree *a, const mq_kdoptree *b, const mq_rigid *b_to_a)
{
    return collide(a, b, b_to_a, mq_bvt_pair_stop, NULL) > 0;
}
