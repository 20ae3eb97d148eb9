/*
 * Sphere, capsule and convex casts on the BVH, the OBB tree, the k-DOP tree
 * and the sphere tree
 * (meshquery/casts.h, which explains the exact construction for spheres and
 * capsules: ray vs the triangle's Minkowski sum with the shape, as offset
 * triangles and edge capsules; convexes go through mq_convex_cast_triangle).
 *
 * One query struct serves every shape (a sphere is a capsule with a == b, but
 * spheres take the cheaper 2 + 3 test path; a convex is pruned as its
 * bounding box, or its bounding ball on the OBB tree); the leaf test is a direct call,
 * the walks are query/cast_walk.h's templates, one instance per hierarchy
 * (no per-node dispatch), fixed stacks, no allocation.
 */
#include <float.h>

#include <meshquery/casts.h>
#include <meshquery/convex.h>

#include "core/float_steps.h"
#include "core/minmax.h"
#include "convex/convex_internal.h"
#include "core/vec3.h"
#include "kdoptree/kdoptree_internal.h"
#include "primitives/ray_slab.h"
#include "primitives/shape_checks.h"
#include "query/bvh_walk.h"
#include "query/cast_walk.h"
#include "query/round_cast.h"
#include "spheretree/spheretree_internal.h"

typedef struct cast_q {
    float a[3], b[3], e[3]; /* segment [a, b] at t = 0, e = b - a (a == b for a sphere) */
    bool sphere;
    const mq_convex *convex; /* a convex cast (a == b == c, r its bounding radius), else NULL */
    float r;
    float d[3];   /* motion per unit t */
    float c[3];   /* centre (midpoint) at t = 0: the pruning ray's origin */
    float ext[3]; /* per-axis half extent of the shape around c, grown */
    float rho;    /* bounding radius around c, grown */
    bool moving;
    float tmax;
    /* best so far */
    float t;
    uint32_t id;
    mq_triangle tri;
} cast_q;

/* ---- one triangle ---------------------------------------------------------- */

/* First t in [0, limit] at which the shape touches `tri`; INFINITY when none. */
static inline float cast_triangle(const cast_q *q, const mq_triangle *tri, float limit)
{
    if (q->convex) {
        /* Always up to tmax, not the best time so far: the advancement's
         * tolerance scales with the sweep, and a triangle's time must not
         * depend on the order the walk met the others in. */
        float t;
        return mq_convex_cast_triangle(q->convex, q->d, q->tmax, tri, &t) && t <= limit ? t : INFINITY;
    }
    bool overlap;
    if (q->sphere) {
        mq_sphere s = {{q->a[0], q->a[1], q->a[2]}, q->r};
        overlap = mq_overlap_sphere_triangle(&s, tri);
    } else {
        mq_capsule c = {{q->a[0], q->a[1], q->a[2]}, {q->b[0], q->b[1], q->b[2]}, q->r};
        overlap = mq_overlap_capsule_triangle(&c, tri);
    }
    if (overlap)
        return 0.0f;
    if (!q->moving)
        return INFINITY;
    return mq_round_cast_triangle(q->a, q->e, !q->sphere, q->r, q->d, tri, limit);
}

static inline bool box_entry(const cast_q *q, const float lo[3], const float hi[3], float limit, float *t_in);
static float walk_limit(const void *q);

static inline void consider(cast_q *q, uint32_t id, const mq_triangle *tri)
{
    /* the node test on the triangle's own box first: most candidates end here */
    float lo[3], hi[3], te;
    for (int k = 0; k < 3; k++) {
        lo[k] = mq_fminf(mq_fminf(tri->v[0][k], tri->v[1][k]), tri->v[2][k]);
        hi[k] = mq_fmaxf(mq_fmaxf(tri->v[0][k], tri->v[1][k]), tri->v[2][k]);
    }
    if (!box_entry(q, lo, hi, walk_limit(q), &te))
        return;
    float t = cast_triangle(q, tri, q->t < q->tmax ? q->t : q->tmax);
    if (t < q->t || (t == q->t && t < INFINITY && id < q->id)) {
        q->t = t;
        q->id = id;
        q->tri = *tri;
    }
}

/* ---- set-up and result -------------------------------------------------------- */

static bool prepare(cast_q *q, const float a[3], const float b[3], float r, bool sphere, const vec3 dir, float tmax)
{
    if (!dir || !mq_v3_is_finite(dir) || !(tmax >= 0.0f) || !mq_radius_ok(r))
        return false;
    float mag = 0.0f;
    for (int k = 0; k < 3; k++) {
        q->a[k] = a[k];
        q->b[k] = b[k];
        q->e[k] = b[k] - a[k];
        q->d[k] = dir[k];
        q->c[k] = 0.5f * a[k] + 0.5f * b[k];
        float h = 0.5f * fabsf(q->e[k]);
        q->ext[k] = h;
        mag += fabsf(a[k]) + fabsf(b[k]);
    }
    if (!isfinite(q->e[0]) || !isfinite(q->e[1]) || !isfinite(q->e[2]))
        return false;
    float half = mq_float_ceil_of(mq_v3_len_d(q->ext)); /* a bounding radius: never rounded down */
    float g = MQ_CAST_SLACK * (mag + r + half) + FLT_MIN;
    for (int k = 0; k < 3; k++)
        q->ext[k] += r + g;
    q->rho = half + r + g;
    q->sphere = sphere;
    q->convex = NULL;
    q->r = r;
    q->moving = dir[0] != 0.0f || dir[1] != 0.0f || dir[2] != 0.0f;
    q->t = INFINITY;
    q->id = MQ_NO_TRIANGLE;
    q->tmax = tmax;
    return true;
}

/* A convex as the query: its box's centre and half extents (for the BVH's
 * boxes) and the ball around them (for the OBB tree's), grown by the slack. */
static bool prepare_convex(cast_q *q, const mq_convex *convex, const vec3 dir, float tmax)
{
    mq_aabb box;
    if (!convex || !mq_convex_bounds(convex, &box))
        return false;
    float c[3], h[3], mag = 0.0f;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * box.min[k] + 0.5f * box.max[k];
        h[k] = mq_fmaxf(box.max[k] - c[k], c[k] - box.min[k]);
        mag += fabsf(box.min[k]) + fabsf(box.max[k]);
    }
    float half = mq_float_ceil_of(mq_v3_len_d(h)); /* a bounding radius: never rounded down */
    if (!prepare(q, c, c, 0.0f, true, dir, tmax))
        return false;
    /* the leaf test counts contact within its tolerance: prune no less */
    mq_cpose identity;
    mq_cpose_identity(&identity);
    double dd[3] = {dir[0], dir[1], dir[2]};
    float g = MQ_CAST_SLACK * (mag + half) + (float)mq_convex_cast_tolerance(convex, &identity, dd, tmax) + FLT_MIN;
    for (int k = 0; k < 3; k++)
        q->ext[k] = mq_fmaxf(box.max[k] - c[k], c[k] - box.min[k]) + g;
    q->r = half + g;
    q->rho = q->r + g;
    q->sphere = false;
    q->convex = convex;
    return true;
}

/* The closest pair of the convex moved to time t and its triangle: s on the
 * convex, p on the triangle (the triangle is moved back by t * d instead). */
static void convex_contact(const cast_q *q, float s[3], float p[3])
{
    mq_triangle back;
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            back.v[c][k] = (float)((double)q->tri.v[c][k] - (double)q->t * q->d[k]);
    double oc[3], ot[3];
    if (mq_convex_triangle_distance(q->convex, &back, oc, ot) < 0.0) {
        mq_v3_copy(s, q->c);
        mq_closest_point_triangle(s, &q->tri, p, NULL);
        return;
    }
    for (int k = 0; k < 3; k++) {
        double shift = (double)q->t * q->d[k];
        s[k] = (float)(oc[k] + shift);
        p[k] = (float)(ot[k] + shift);
    }
}

static bool finish(const cast_q *q, float tmax, mq_cast_hit *out)
{
    bool hit = q->id != MQ_NO_TRIANGLE && q->t <= tmax;
    if (!out)
        return hit;
    if (!hit) {
        out->t = INFINITY;
        mq_v3_set(out->point, NAN, NAN, NAN);
        mq_v3_set(out->normal, 0, 0, 0);
        out->triangle = MQ_NO_TRIANGLE;
        out->initially_overlapping = false;
        return false;
    }
    float a[3], b[3], s[3], p[3];
    for (int k = 0; k < 3; k++) {
        a[k] = q->a[k] + q->t * q->d[k];
        b[k] = q->b[k] + q->t * q->d[k];
    }
    if (q->convex) {
        convex_contact(q, s, p);
    } else if (q->sphere) {
        mq_closest_point_triangle(a, &q->tri, p, NULL);
        mq_v3_copy(s, a);
    } else {
        mq_closest_points_segment_triangle(a, b, &q->tri, s, p);
    }
    out->t = q->t;
    out->triangle = q->id;
    out->initially_overlapping = q->t == 0.0f;
    mq_v3_copy(out->point, p);
    double n[3] = {(double)s[0] - p[0], (double)s[1] - p[1], (double)s[2] - p[2]};
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0.0)) {
        float e1[3], e2[3], fn[3];
        mq_v3_sub(e1, q->tri.v[1], q->tri.v[0]);
        mq_v3_sub(e2, q->tri.v[2], q->tri.v[0]);
        mq_v3_cross(fn, e1, e2);
        for (int k = 0; k < 3; k++)
            n[k] = fn[k];
        len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (len > 0.0 && n[0] * q->d[0] + n[1] * q->d[1] + n[2] * q->d[2] > 0.0)
            len = -len;
        if (!(len != 0.0) || !isfinite(len)) {
            for (int k = 0; k < 3; k++)
                n[k] = -(double)q->d[k];
            len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        }
    }
    for (int k = 0; k < 3; k++)
        out->normal[k] = len != 0.0 ? (float)(n[k] / len) : 0.0f;
    return true;
}

/* ---- BVH walk: the centre's ray against child boxes grown by ext ---------------- */

/* Entry time of the ray c + t d, t in [0, limit], into [lo - g, hi + g]; false
 * when it misses. g is the shape's extent plus mq_cast_box_slack. */
static inline bool box_entry(const cast_q *q, const float lo[3], const float hi[3], float limit, float *t_in)
{
    float t0 = 0.0f, t1 = limit;
    float slack = mq_cast_box_slack(lo, hi);
    for (int k = 0; k < 3; k++) {
        float g = q->ext[k] + slack;
        if (!mq_slab_clip_axis(q->c[k], q->d[k], lo[k] - g, hi[k] + g, &t0, &t1))
            return false;
    }
    *t_in = t0;
    return true;
}

/* Pruning limit: the best time so far (ties still entered), or tmax. */
static inline float limit_of(const cast_q *q, float tmax)
{
    float l = q->t < tmax ? q->t : tmax;
    return l * (1.0f + 4.0f * FLT_EPSILON) + FLT_MIN;
}

static bool bvh_entry(const void *q, const float lo[3], const float hi[3], float limit, float *t_in)
{
    return box_entry(q, lo, hi, limit, t_in);
}

/* The walks' limit: limit_of tmax while moving, 0 (the start pose only) otherwise. */
static float walk_limit(const void *q)
{
    const cast_q *c = q;
    return c->moving ? limit_of(c, c->tmax) : 0.0f;
}

static void visit(void *q, uint32_t id, const mq_triangle *tri)
{
    consider(q, id, tri);
}

static void walk_bvh(const mq_bvh *bvh, cast_q *q)
{
    mq_cast_walk_bvh(bvh, q, q, bvh_entry, walk_limit, visit);
}

/* ---- OBB tree walk: the centre's ray against node boxes grown by rho ------------ */

static inline bool obb_entry(const cast_q *q, const mq_obbtree_node *n, float limit, float *t_in)
{
    /* the box grown on its axis i by the shape's extent along it: half the
     * segment's projection plus the radius (plus rounding slack) */
    float lo[3], ld[3], le[3];
    mq_node_local_point(n, q->c, lo);
    mq_node_local_dir(n, q->d, ld);
    mq_node_local_dir(n, q->e, le);
    float slack = MQ_CAST_SLACK * (mq_abs_sum3(lo) + mq_half_sum(n) + mq_abs_sum3(n->center) + q->rho);
    float t0 = 0.0f, t1 = limit;
    for (int i = 0; i < 3; i++) {
        float h = n->half[i] + 0.5f * fabsf(le[i]) + q->r + slack;
        if (!mq_slab_clip_axis(lo[i], ld[i], -h, h, &t0, &t1))
            return false;
    }
    *t_in = t0;
    return true;
}

static bool obbtree_entry(const void *q, const mq_obbtree_node *n, float limit, float *t_in)
{
    return obb_entry(q, n, limit, t_in);
}

static void walk_obbtree(const mq_obbtree *tree, cast_q *q)
{
    mq_cast_walk_obbtree(tree, q, q, obbtree_entry, walk_limit, visit);
}

/* ---- k-DOP and sphere trees (one walk over their shared skeleton) ----------------- */

/* The path c + t d, t in [0, limit], against every slab of the node grown by
 * the shape's extent along its direction (its grown box's: sum_k ext[k] |n_k|)
 * and by mq_cast_box_slack of the node's box (the first three directions are
 * the axes) on every axis, projected the same way: as the BVH's box test on
 * the axes, and a slab thin across a long node keeps the slack of all the
 * node's coordinates, which the leaf test's rounding follows. */
static inline bool kdop_entry(const cast_q *q, const mq_kdoptree *tree, uint32_t node, float limit, float *t_in)
{
    const float *s = tree->slabs + (size_t)node * tree->k;
    uint32_t m = tree->m;
    double grow[3], t0 = 0.0, t1 = limit, slack = mq_cast_box_slack(s, s + m);
    for (int k = 0; k < 3; k++)
        grow[k] = (double)q->ext[k] + slack;
    for (uint32_t j = 0; j < m; j++) {
        const float *n = tree->dirs[j];
        double c = 0.0, d = 0.0, h = 0.0;
        for (int k = 0; k < 3; k++) {
            c += (double)n[k] * q->c[k];
            d += (double)n[k] * q->d[k];
            h += fabs((double)n[k]) * grow[k];
        }
        /* with d == 0, an empty node (+inf, -inf) is missed too */
        if (!mq_slab_clip_axis_d(c, d, (double)s[j] - h, (double)s[m + j] + h, &t0, &t1))
            return false;
    }
    *t_in = (float)t0; /* <= limit: rounding to nearest keeps the order with a float */
    return true;
}

/* The path c + t d, t in [0, limit], against the node's ball grown by the
 * shape's bounding radius rho and the slack; in double. */
static inline bool ball_entry(const cast_q *q, const mq_spheretree *tree, uint32_t node, float limit, float *t_in)
{
    const float *b = tree->spheres + 4 * (size_t)node;
    if (!(b[3] >= 0.0f))
        return false; /* no finite corner below */
    double f[3], a = 0.0, bd = 0.0, ff = 0.0, mag = 0.0;
    for (int k = 0; k < 3; k++) {
        f[k] = (double)q->c[k] - b[k];
        a += (double)q->d[k] * q->d[k];
        bd += f[k] * q->d[k];
        ff += f[k] * f[k];
        mag += fabs((double)b[k]);
    }
    double r = (double)b[3] + q->rho + MQ_CAST_SLACK * (mag + b[3] + q->rho);
    double cc = ff - r * r;
    if (a == 0.0) {
        if (!(cc <= 0.0))
            return false;
        *t_in = 0.0f;
        return true;
    }
    double disc = bd * bd - a * cc;
    if (!(disc >= 0.0))
        return false;
    double sq = sqrt(disc), t0 = (-bd - sq) / a, t1 = (-bd + sq) / a;
    t0 = t0 > 0.0 ? t0 : 0.0;
    t1 = t1 < limit ? t1 : limit;
    if (!(t0 <= t1))
        return false;
    *t_in = (float)t0;
    return true;
}

/* The k-DOP and sphere walks' paths: the query and the tree its node test reads. */
typedef struct kdop_path {
    const cast_q *q;
    const mq_kdoptree *tree;
} kdop_path;

typedef struct ball_path {
    const cast_q *q;
    const mq_spheretree *tree;
} ball_path;

static bool kdoptree_entry(const void *path, uint32_t node, float limit, float *t_in)
{
    const kdop_path *p = path;
    return kdop_entry(p->q, p->tree, node, limit, t_in);
}

static bool spheretree_entry(const void *path, uint32_t node, float limit, float *t_in)
{
    const ball_path *p = path;
    return ball_entry(p->q, p->tree, node, limit, t_in);
}

static void walk_kdoptree(const mq_kdoptree *tree, cast_q *q)
{
    kdop_path p = {q, tree};
    mq_cast_walk_bvt(&tree->bvt, &p, q, kdoptree_entry, walk_limit, visit);
}

static void walk_spheretree(const mq_spheretree *tree, cast_q *q)
{
    ball_path p = {q, tree};
    mq_cast_walk_bvt(&tree->bvt, &p, q, spheretree_entry, walk_limit, visit);
}

/* ---- public ---------------------------------------------------------------------- */

static bool miss(mq_cast_hit *out)
{
    cast_q q;
    q.id = MQ_NO_TRIANGLE;
    return finish(&q, 0.0f, out);
}

bool mq_bvh_sphere_cast(const mq_bvh *bvh, const mq_sphere *s, const vec3 dir, float tmax, mq_cast_hit *out)
{
    cast_q q;
    if (!bvh || !s || !mq_sphere_ok(s) || !prepare(&q, s->center, s->center, s->radius, true, dir, tmax))
        return miss(out);
    walk_bvh(bvh, &q);
    return finish(&q, tmax, out);
}

bool mq_obbtree_sphere_cast(const mq_obbtree *tree, const mq_sphere *s, const vec3 dir, float tmax, mq_cast_hit *out)
{
    cast_q q;
    if (!tree || !s || !mq_sphere_ok(s) || !prepare(&q, s->center, s->center, s->radius, true, dir, tmax))
        return miss(out);
    walk_obbtree(tree, &q);
    return finish(&q, tmax, out);
}

bool mq_bvh_capsule_cast(const mq_bvh *bvh, const mq_capsule *c, const vec3 dir, float tmax, mq_cast_hit *out)
{
    cast_q q;
    if (!bvh || !c || !mq_capsule_ok(c) || !prepare(&q, c->a, c->b, c->radius, false, dir, tmax))
        return miss(out);
    walk_bvh(bvh, &q);
    return finish(&q, tmax, out);
}

bool mq_obbtree_capsule_cast(const mq_obbtree *tree, const mq_capsule *c, const vec3 dir, float tmax, mq_cast_hit *out)
{
    cast_q q;
    if (!tree || !c || !mq_capsule_ok(c) || !prepare(&q, c->a, c->b, c->radius, false, dir, tmax))
        return miss(out);
    walk_obbtree(tree, &q);
    return finish(&q, tmax, out);
}

bool mq_bvh_convex_cast(const mq_bvh *bvh, const mq_convex *convex, const vec3 dir, float tmax, mq_cast_hit *out)
{
    cast_q q;
    if (!bvh || !prepare_convex(&q, convex, dir, tmax))
        return miss(out);
    walk_bvh(bvh, &q);
    return finish(&q, tmax, out);
}

bool mq_obbtree_convex_cast(const mq_obbtree *tree, const mq_convex *convex, const vec3 dir, float tmax,
                            mq_cast_hit *out)
{
    cast_q q;
    if (!tree || !prepare_convex(&q, convex, dir, tmax))
        return miss(out);
    walk_obbtree(tree, &q);
    return finish(&q, tmax, out);
}

bool mq_kdoptree_sphere_cast(const mq_kdoptree *tree, const mq_sphere *s, const vec3 dir, float tmax, mq_cast_hit *out)
{
    cast_q q;
    if (!tree || !s || !mq_sphere_ok(s) || !prepare(&q, s->center, s->center, s->radius, true, dir, tmax))
        return miss(out);
    walk_kdoptree(tree, &q);
    return finish(&q, tmax, out);
}

bool mq_kdoptree_capsule_cast(const mq_kdoptree *tree, const mq_capsule *c, const vec3 dir, float tmax,
                              mq_cast_hit *out)
{
    cast_q q;
    if (!tree || !c || !mq_capsule_ok(c) || !prepare(&q, c->a, c->b, c->radius, false, dir, tmax))
        return miss(out);
    walk_kdoptree(tree, &q);
    return finish(&q, tmax, out);
}

bool mq_kdoptree_convex_cast(const mq_kdoptree *tree, const mq_convex *convex, const vec3 dir, float tmax,
                             mq_cast_hit *out)
{
    cast_q q;
    if (!tree || !prepare_convex(&q, convex, dir, tmax))
        return miss(out);
    walk_kdoptree(tree, &q);
    return finish(&q, tmax, out);
}

bool mq_spheretree_sphere_cast(const mq_spheretree *tree, const mq_sphere *s, const vec3 dir, float tmax,
                               mq_cast_hit *out)
{
    cast_q q;
    if (!tree || !s || !mq_sphere_ok(s) || !prepare(&q, s->center, s->center, s->radius, true, dir, tmax))
        return miss(out);
    walk_spheretree(tree, &q);
    return finish(&q, tmax, out);
}

bool mq_spheretree_capsule_cast(const mq_spheretree *tree, const mq_capsule *c, const vec3 dir, float tmax,
                                mq_cast_hit *out)
{
    cast_q q;
    if (!tree || !c || !mq_capsule_ok(c) || !prepare(&q, c->a, c->b, c->radius, false, dir, tmax))
        return miss(out);
    walk_spheretree(tree, &q);
    return finish(&q, tmax, out);
}

bool mq_spheretree_convex_cast(const mq_spheretree *tree, const mq_convex *convex, const vec3 dir, float tmax,
                               mq_cast_hit *out)
{
    cast_q q;
    if (!tree || !prepare_convex(&q, convex, dir, tmax))
        return miss(out);
    walk_spheretree(tree, &q);
    return finish(&q, tmax, out);
}
