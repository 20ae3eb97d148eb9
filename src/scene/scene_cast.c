/*
 * Scene shape casts (scene.h "Casts"): a sphere, capsule or placed convex
 * moved along a world direction, the first time it touches any instance.
 *
 * The frames are those of the scene's shape overlaps (instance_overlap.h):
 * the shape is never mapped into an instance's mesh frame (under non-uniform
 * scale or shear a sphere's preimage is an ellipsoid, which no cast takes);
 * instead every candidate triangle is mapped into the instance-centred frame
 * (corners (float)(A v)) and the shape stays a world shape there, translated
 * by -t in double and rounded once to float. The motion is the world
 * direction, so the time of impact in that frame IS the world time.
 *
 * Per instance:
 *   1. t0: the time the shape's centre ray enters the instance's world box
 *      grown by the shape's half extents (double slab test); the shape is
 *      advanced to t0 in double before it is rounded, so a cast that starts
 *      far from an instance is as accurate there as one that starts at it
 *      (as the scene's rays are advanced to their box entry).
 *   2. Candidates: the instance's hierarchy walked nearest node first and
 *      pruned by the best time, with the centre's path and the shape's
 *      extent mapped to the mesh frame (see "the instance's hierarchy"),
 *      widened as instance_overlap.c widens its boxes. Should the mapped
 *      path not fit float: a box walk (query/bvh_walk.h) with the box of the
 *      sweep over [t0, t1] inside the instance's grown world box.
 *   3. Each candidate: the per-triangle cast of query/round_cast.h (sphere and
 *      capsule: the watertight ray against the offset faces and edge capsules
 *      of the Minkowski sum; convex: mq_convex_cast_tri_d, conservative
 *      advancement in double) on the centred float corners.
 * Instances are visited through the top-level hierarchy with the world box
 * of the whole sweep (conservative); each instance is skipped once its entry
 * time exceeds the best time so far, and the best (t, instance, triangle) is
 * kept. Fixed stacks, no allocation.
 */
#include <stdatomic.h>

#include "core/minmax.h"
#include "core/pool.h"
#include "core/vec3.h"
#include "primitives/ray_slab.h"
#include "primitives/shape_checks.h"
#include "query/cast_walk.h"
#include "query/round_cast.h"
#include "scene/instance_overlap.h"

/* The moving shape in one instance's centred frame, at time t0. */
typedef struct icast {
    mq_shape_kind kind;
    float a[3], b[3], e[3]; /* segment (a == b for a sphere), e = b - a */
    float r;
    float d[3];   /* motion per unit t */
    float c[3];   /* centre of the shape's box: the pre-filter ray's origin */
    float ext[3]; /* half extents around c, grown */
    const mq_convex *convex;
    mq_cpose pose; /* the convex's pose in the centred frame at t0 */
    double dd[3];  /* motion, double (convex) */
    double tmax;   /* local tmax (tmax - t0; may be INFINITY) */
    bool moving;
    /* best of this instance (local time) */
    float t;
    uint32_t id;
    mq_triangle tri; /* centred corners */
} icast;

/* ---- one triangle (the construction of query/round_cast.h, casts.h) ----- */

static float cast_triangle(const icast *q, const mq_triangle *tri, float limit)
{
    if (q->kind == MQ_SHAPE_CONVEX) {
        /* up to tmax, not the best so far: the advancement's tolerance scales
         * with the sweep, and a triangle's time must not depend on the order */
        mq_dtri dt;
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                dt.v[c][k] = tri->v[c][k];
        double th;
        if (!mq_convex_cast_tri_d(q->convex, &q->pose, q->dd, q->tmax, &dt, &th))
            return INFINITY;
        float t = (float)th;
        return t <= limit ? t : INFINITY;
    }
    bool overlap;
    if (q->kind == MQ_SHAPE_SPHERE) {
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
    return mq_round_cast_triangle(q->a, q->e, q->kind == MQ_SHAPE_CAPSULE, q->r, q->d, tri, limit);
}

/* Entry of the ray c + t d, t in [0, limit], into the triangle's box grown by
 * ext and mq_cast_box_slack (as query/shape_cast.c's box_entry). */
static bool tri_box_entry(const icast *q, const mq_triangle *tri, float limit)
{
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = mq_fminf(mq_fminf(tri->v[0][k], tri->v[1][k]), tri->v[2][k]);
        hi[k] = mq_fmaxf(mq_fmaxf(tri->v[0][k], tri->v[1][k]), tri->v[2][k]);
    }
    float slack = mq_cast_box_slack(lo, hi);
    float t0 = 0.0f, t1 = limit;
    for (int k = 0; k < 3; k++) {
        float g = q->ext[k] + slack;
        if (!mq_slab_clip_axis(q->c[k], q->moving ? q->d[k] : 0.0f, lo[k] - g, hi[k] + g, &t0, &t1))
            return false;
    }
    return true;
}

typedef struct inst_walk {
    const mq_instance_rec *inst;
    icast *q;
    float limit; /* local: the global best (ties entered) or tmax */
} inst_walk;

static bool visit_triangle(uint32_t id, const mq_triangle *local, void *user)
{
    inst_walk *w = user;
    icast *q = w->q;
    mq_triangle tri;
    mq_inst_triangle(w->inst, local, &tri);
    if (!mq_triangle_ok(&tri))
        return true; /* centred corners beyond float: it meets nothing, as in the overlaps */
    float limit = q->t < w->limit ? q->t : w->limit;
    float lim_grown = q->moving ? limit * (1.0f + 4.0f * FLT_EPSILON) + FLT_MIN : 0.0f;
    if (!tri_box_entry(q, &tri, lim_grown))
        return true;
    float t = cast_triangle(q, &tri, limit);
    if (t < q->t || (t == q->t && t < INFINITY && id < q->id)) {
        q->t = t;
        q->id = id;
        q->tri = tri;
    }
    return true;
}

/* ---- the instance's hierarchy, nearest first --------------------------------
 *
 * An affine map keeps straight lines and their parameter: the centre's path
 * c + t d in the world is c_l + t d_l in the mesh frame, same t. So the casts'
 * walks (query/cast_walk.h) apply in the mesh frame with the shape's world box mapped
 * to a local half extent (|L| h, grown by the slack of instance_overlap.c):
 * node boxes by entry time, nearest first, pruned by the best time so far. */

typedef struct lray {
    float c[3], d[3], ext[3]; /* local centre at t0, local motion, local half extent (grown) */
    float slack;              /* absolute, for the rounding of the local centre */
} lray;

static float walk_limit(const void *walker)
{
    const inst_walk *w = walker;
    const icast *q = w->q;
    if (!q->moving)
        return 0.0f;
    float l = q->t < w->limit ? q->t : w->limit;
    return l * (1.0f + 4.0f * FLT_EPSILON) + FLT_MIN;
}

static bool lbox_entry(const void *path, const float lo[3], const float hi[3], float limit, float *t_in)
{
    const lray *r = path;
    float t0 = 0.0f, t1 = limit;
    float slack = r->slack + mq_cast_box_slack(lo, hi);
    for (int k = 0; k < 3; k++) {
        float g = r->ext[k] + slack;
        if (!mq_slab_clip_axis(r->c[k], limit == 0.0f ? 0.0f : r->d[k], lo[k] - g, hi[k] + g, &t0, &t1))
            return false;
    }
    *t_in = t0;
    return true;
}

static void visit(void *w, uint32_t id, const mq_triangle *local)
{
    visit_triangle(id, local, w);
}

static void walk_bvh_cast(const mq_bvh *bvh, const lray *r, inst_walk *w)
{
    mq_cast_walk_bvh(bvh, r, w, lbox_entry, walk_limit, visit);
}

/* The node box grown on its axis i by the local box's extent along it. */
static bool lobb_entry(const void *path, const mq_obbtree_node *n, float limit, float *t_in)
{
    const lray *r = path;
    float lo[3], ld[3];
    mq_node_local_point(n, r->c, lo);
    mq_node_local_dir(n, r->d, ld);
    float slack =
        r->slack + MQ_CAST_SLACK * (mq_abs_sum3(lo) + mq_half_sum(n) + mq_abs_sum3(n->center) + mq_abs_sum3(r->ext));
    float t0 = 0.0f, t1 = limit;
    for (int i = 0; i < 3; i++) {
        const float *ax = n->axes[i];
        float h = n->half[i] + fabsf(ax[0]) * r->ext[0] + fabsf(ax[1]) * r->ext[1] + fabsf(ax[2]) * r->ext[2] + slack;
        if (!mq_slab_clip_axis(lo[i], limit == 0.0f ? 0.0f : ld[i], -h, h, &t0, &t1))
            return false;
    }
    *t_in = t0;
    return true;
}

static void walk_obb_cast(const mq_obbtree *tree, const lray *r, inst_walk *w)
{
    mq_cast_walk_obbtree(tree, r, w, lobb_entry, walk_limit, visit);
}

/* ---- the scene -------------------------------------------------------------- */

typedef struct scene_cast {
    const mq_dshape *shape;
    double dir[3];
    double tmax;
    double c0[3], h0[3]; /* the world shape's box: centre, half extents */
    double tol;          /* convex: the advancement's tolerance (0 otherwise) */
    mq_daabb box;        /* the world shape's box */
    double slack;        /* the sweep box's growth but the convex's tolerance (sweep_axis) */
    /* best so far */
    double t;
    uint32_t instance, triangle;
    const mq_instance_rec *rec;
    double t0;
    icast q; /* the winning instance's cast state */
} scene_cast;

static double dmaxabs3(const double v[3])
{
    return mq_fmax(fabs(v[0]), mq_fmax(fabs(v[1]), fabs(v[2])));
}

/* [*t0, *t1] clipped to the times the ray c + t d is inside [lo, hi] (closed, a
 * few ulp wider); false when it never is. */
static bool dslab(const double c[3], const double d[3], const double lo[3], const double hi[3], double *t0, double *t1)
{
    for (int k = 0; k < 3; k++) {
        if (d[k] == 0.0) {
            if (c[k] < lo[k] || c[k] > hi[k])
                return false;
            continue;
        }
        double ta = (lo[k] - c[k]) / d[k], tb = (hi[k] - c[k]) / d[k];
        if (ta > tb) {
            double x = ta;
            ta = tb;
            tb = x;
        }
        ta -= 4.0 * DBL_EPSILON * fabs(ta);
        tb += 4.0 * DBL_EPSILON * fabs(tb);
        *t0 = ta > *t0 ? ta : *t0;
        *t1 = tb < *t1 ? tb : *t1;
        if (!(*t0 <= *t1))
            return false;
    }
    return true;
}

/* The shape advanced to t0 and moved to the instance-centred frame. False when
 * its centred float form is not finite (it then meets nothing there, as the
 * overlaps' shapes beyond float range of an instance do). */
static bool icast_init(icast *q, const scene_cast *s, const mq_instance_rec *r, double t0)
{
    const mq_dshape *sh = s->shape;
    double sh_t[3];
    for (int k = 0; k < 3; k++)
        sh_t[k] = t0 * s->dir[k] - r->to_world.m[k][3]; /* shift: advance, then centre */
    q->kind = sh->kind;
    q->convex = NULL;
    double a[3], b[3];
    switch (sh->kind) {
    case MQ_SHAPE_SPHERE:
        for (int k = 0; k < 3; k++)
            a[k] = b[k] = sh->u.sphere.center[k] + sh_t[k];
        q->r = (float)sh->u.sphere.radius;
        break;
    case MQ_SHAPE_CAPSULE:
        for (int k = 0; k < 3; k++) {
            a[k] = sh->u.capsule.a[k] + sh_t[k];
            b[k] = sh->u.capsule.b[k] + sh_t[k];
        }
        q->r = (float)sh->u.capsule.radius;
        break;
    case MQ_SHAPE_CONVEX:
    default: {
        q->convex = sh->u.convex.convex;
        if (!mq_cpose_from_quat(sh->u.convex.rotation, sh->u.convex.translation, &q->pose))
            return false;
        for (int k = 0; k < 3; k++)
            q->pose.t[k] += sh_t[k];
        q->pose.identity = false;
        for (int k = 0; k < 3; k++)
            a[k] = b[k] = s->c0[k] + sh_t[k];
        q->r = 0.0f;
        break;
    }
    }
    for (int k = 0; k < 3; k++) {
        q->a[k] = (float)a[k];
        q->b[k] = (float)b[k];
        q->e[k] = (float)(b[k] - a[k]);
        q->d[k] = (float)s->dir[k];
        q->dd[k] = s->dir[k];
        q->c[k] = (float)(0.5 * a[k] + 0.5 * b[k]);
    }
    if (!mq_v3_is_finite(q->a) || !mq_v3_is_finite(q->b) || !mq_v3_is_finite(q->e) || !mq_v3_is_finite(q->d) ||
        !isfinite(q->r))
        return false;
    double mag = mq_fmax(dmaxabs3(a), dmaxabs3(b));
    for (int k = 0; k < 3; k++)
        q->ext[k] = (float)(s->h0[k] + s->tol + MQ_SCENE_REL_SLACK * (mag + s->h0[k])) + FLT_MIN;
    q->moving = q->d[0] != 0.0f || q->d[1] != 0.0f || q->d[2] != 0.0f;
    q->tmax = s->tmax - t0;
    if (!(q->tmax >= 0.0))
        q->tmax = 0.0;
    q->t = INFINITY;
    q->id = MQ_NO_TRIANGLE;
    return true;
}

/* Axis k of the sweep's world box up to tmax: the shape's box moved by
 * dir * [0, tmax], grown by `grow` and by the rounding of those sums (a
 * large start and a large motion that cancel must not move the box off the
 * instances). The one definition of it: mq_scene_shape_cast visits the
 * instances it meets, reach_time solves for the time it meets one. */
static void sweep_axis(const mq_daabb *b, double dir, double tmax, double grow, int k, double *lo, double *hi)
{
    double d = dir == 0.0 ? 0.0 : dir * tmax; /* +-inf for an endless sweep */
    double e = 8.0 * DBL_EPSILON * (fabs(b->min[k]) + fabs(b->max[k]) + (isfinite(d) ? fabs(d) : 0.0));
    *lo = (b->min[k] + mq_fmin(d, 0.0)) - (grow + e);
    *hi = (b->max[k] + mq_fmax(d, 0.0)) + (grow + e);
}

/* The first time from which the sweep's box (grown by s->slack) meets the
 * instance's world box on axis k; INFINITY if never. The box only grows with
 * tmax, so the answer is a threshold: solved in double, then raised a few
 * ulp until sweep_axis's own arithmetic agrees. */
static double axis_reach(const scene_cast *s, const mq_instance_rec *r, int k)
{
    double lo, hi, d = s->dir[k];
    sweep_axis(&s->box, d, 0.0, s->slack, k, &lo, &hi);
    bool below = hi < r->world_box.min[k];
    bool above = lo > r->world_box.max[k];
    if (!below && !above)
        return 0.0;
    if (below ? !(d > 0.0) : !(d < 0.0))
        return INFINITY; /* moving away, or not along k */
    double gap = below ? r->world_box.min[k] - hi : lo - r->world_box.max[k];
    double t = gap / (fabs(d) * (1.0 + 8.0 * DBL_EPSILON));
    for (int i = 0; i < 16 && isfinite(t); i++, t += 4.0 * DBL_EPSILON * t + DBL_MIN) {
        sweep_axis(&s->box, d, t, s->slack, k, &lo, &hi);
        if (lo <= r->world_box.max[k] && r->world_box.min[k] <= hi)
            return t;
    }
    return INFINITY;
}

/* The time from which the sweep's box reaches the instance's world box: the
 * latest of the three axes' (mq_tlas_visit_box visits an instance when its
 * box meets the sweep's on every axis). A contact with the instance needs the
 * boxes to meet, so none comes sooner; the float cast's time (rounded at the
 * instance-centred magnitudes, where a corner may even lie outside the world
 * box by its rounding) may, and is raised to this one. Then the cast again
 * with tmax = t has a sweep box that reaches the instance and finds the same
 * t. The convex's tolerance, which depends on tmax, is left out of the
 * growth: a sweep box grown by it too meets the instance no later. */
static double reach_time(const scene_cast *s, const mq_instance_rec *r)
{
    double t = 0.0;
    for (int k = 0; k < 3; k++)
        t = mq_fmax(t, axis_reach(s, r, k));
    return t;
}

static bool visit_instance(const mq_instance_rec *r, void *user)
{
    scene_cast *s = user;
    double limit = s->t < s->tmax ? s->t : s->tmax;
    /* 1. entry (and exit) of the centre ray into the world box grown by the
     * shape's half extents and the slack */
    double lo[3], hi[3], mag = 0.0;
    for (int k = 0; k < 3; k++)
        mag = mq_fmax(mag, mq_fmax(fabs(r->world_box.min[k]), fabs(r->world_box.max[k])));
    for (int k = 0; k < 3; k++) {
        double g = s->h0[k] + s->tol + MQ_SCENE_REL_SLACK * (mag + s->h0[k]);
        lo[k] = r->world_box.min[k] - g;
        hi[k] = r->world_box.max[k] + g;
    }
    bool moving = s->dir[0] != 0.0 || s->dir[1] != 0.0 || s->dir[2] != 0.0;
    double t0 = 0.0, t1 = moving ? limit : 0.0;
    if (!dslab(s->c0, s->dir, lo, hi, &t0, &t1))
        return true;
    if (t0 > limit)
        return true;
    /* advance to the entry only when it is positive: at t0 = 0 the inputs are
     * exactly those of the overlap queries */
    icast q;
    if (!icast_init(&q, s, r, t0))
        return true;
    /* 2. the local candidate box: the shape's box swept over [t0, t1] (centred) */
    double clo[3], chi[3];
    for (int k = 0; k < 3; k++) {
        double c_0 = s->c0[k] + t0 * s->dir[k] - r->to_world.m[k][3];
        double c_1 = s->c0[k] + t1 * s->dir[k] - r->to_world.m[k][3];
        /* plus the rounding of those sums (large starts and motions cancel) */
        double g = s->h0[k] + s->tol +
                   8.0 * DBL_EPSILON *
                       (fabs(s->c0[k]) + mq_fmax(fabs(t0), fabs(t1)) * fabs(s->dir[k]) + fabs(r->to_world.m[k][3]));
        clo[k] = mq_fmin(c_0, c_1) - g;
        chi[k] = mq_fmax(c_0, c_1) + g;
        /* no further than the instance's own (centred) box */
        clo[k] = mq_fmax(clo[k], lo[k] - r->to_world.m[k][3]);
        chi[k] = mq_fmin(chi[k], hi[k] - r->to_world.m[k][3]);
    }
    double cc[3], ch[3], cl[3], llo[3], lhi[3], wmag = 0.0, lmag = 0.0;
    for (int k = 0; k < 3; k++) {
        cc[k] = 0.5 * clo[k] + 0.5 * chi[k];
        ch[k] = mq_fmax(0.0, 0.5 * chi[k] - 0.5 * clo[k]);
        wmag = mq_fmax(wmag, mq_fmax(fabs(clo[k]), fabs(chi[k])));
    }
    for (int i = 0; i < 3; i++)
        cl[i] = r->to_local.m[i][0] * cc[0] + r->to_local.m[i][1] * cc[1] + r->to_local.m[i][2] * cc[2];
    for (int k = 0; k < 3; k++) {
        const double *row = r->to_local.m[k];
        double e = fabs(row[0]) * ch[0] + fabs(row[1]) * ch[1] + fabs(row[2]) * ch[2];
        llo[k] = cl[k] - e;
        lhi[k] = cl[k] + e;
        lmag = mq_fmax(lmag, mq_fmax(fabs(llo[k]), fabs(lhi[k])));
    }
    double rel = mq_inst_rel_slack(r);
    double grow = rel * ((wmag + r->sigma_max * mq_inst_local_magnitude(r)) / r->sigma_min + lmag);
    if (!isfinite(grow))
        return true;
    mq_walk_box wb;
    mq_walk_box_set(&wb, llo, lhi, grow);
    /* 3. the walk; the local limit is the global best (ties entered) */
    /* grown by a few ulp of the limit: t0 + t_local must not be lost to the
     * rounding of that sum (the world time is checked against tmax below) */
    double llimit = limit - t0 + 4.0 * DBL_EPSILON * fabs(limit);
    inst_walk w = {r, &q, (float)llimit};
    if ((double)w.limit < llimit)
        w.limit = nextafterf(w.limit, INFINITY);
    /* the centre's path and the shape's extent in the mesh frame */
    lray lr;
    double cc0[3], lc[3], ld[3];
    bool ok = true;
    for (int k = 0; k < 3; k++)
        cc0[k] = s->c0[k] + t0 * s->dir[k] - r->to_world.m[k][3];
    for (int i = 0; i < 3; i++) {
        const double *row = r->to_local.m[i];
        lc[i] = row[0] * cc0[0] + row[1] * cc0[1] + row[2] * cc0[2];
        ld[i] = row[0] * s->dir[0] + row[1] * s->dir[1] + row[2] * s->dir[2];
        double e = 0.0;
        for (int j = 0; j < 3; j++)
            e += fabs(row[j]) *
                 (s->h0[j] + s->tol +
                  8.0 * DBL_EPSILON * (fabs(s->c0[j]) + fabs(t0 * s->dir[j]) + fabs(r->to_world.m[j][3])));
        lr.c[i] = (float)lc[i];
        lr.d[i] = (float)ld[i];
        lr.ext[i] = (float)(e + grow);
        ok = ok && isfinite(lr.c[i]) && isfinite(lr.d[i]) && isfinite(lr.ext[i]);
    }
    lr.slack = (float)(MQ_CAST_SLACK * dmaxabs3(lc)) + FLT_MIN;
    if (ok && r->bvh)
        walk_bvh_cast(r->bvh, &lr, &w);
    else if (ok)
        walk_obb_cast(r->obbtree, &lr, &w);
    else if (r->bvh) /* the path does not fit float in the mesh frame: every candidate near it */
        mq_bvh_walk_box(r->bvh, &wb, visit_triangle, &w);
    else
        mq_obbtree_walk_box(r->obbtree, &wb, visit_triangle, &w);
    if (q.id == MQ_NO_TRIANGLE)
        return true;
    double t = t0 + (double)q.t;
    if (moving)
        t = mq_fmax(t, reach_time(s, r));
    if (t > s->tmax)
        return true;
    if (t < s->t || (t == s->t && (r->id < s->instance || (r->id == s->instance && q.id < s->triangle)))) {
        s->t = t;
        s->instance = r->id;
        s->triangle = q.id;
        s->rec = r;
        s->t0 = t0;
        s->q = q;
    }
    return true;
}

static void miss_record(mq_scene_cast_hit *out)
{
    if (!out)
        return;
    out->t = INFINITY;
    for (int k = 0; k < 3; k++) {
        out->point[k] = NAN;
        out->normal[k] = 0.0;
    }
    out->instance = MQ_NO_INSTANCE;
    out->triangle = MQ_NO_TRIANGLE;
    out->user_id = 0;
    out->initially_overlapping = false;
}

/* The contact of the winning instance: the closest pair of the shape at the hit
 * time and the triangle, in the centred frame, then moved to the world. */
static void finish(const scene_cast *s, mq_scene_cast_hit *out)
{
    const icast *q = &s->q;
    const mq_instance_rec *r = s->rec;
    double sp[3], pp[3]; /* shape point, triangle point (centred) */
    float tl = q->t;
    if (q->kind == MQ_SHAPE_CONVEX) {
        mq_cpose p = q->pose;
        for (int k = 0; k < 3; k++)
            p.t[k] += (double)tl * q->dd[k];
        double pts[9];
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                pts[3 * c + k] = q->tri.v[c][k];
        if (mq_convex_gjk_points(q->convex, &p, pts, 3, sp, pp) < 0.0) {
            float fc[3], fp[3];
            for (int k = 0; k < 3; k++)
                fc[k] = (float)((double)q->c[k] + (double)tl * q->dd[k]);
            mq_closest_point_triangle(fc, &q->tri, fp, NULL);
            for (int k = 0; k < 3; k++)
                sp[k] = fc[k], pp[k] = fp[k];
        }
    } else {
        float a[3], b[3], fs[3], fp[3];
        for (int k = 0; k < 3; k++) {
            a[k] = q->a[k] + tl * q->d[k];
            b[k] = q->b[k] + tl * q->d[k];
        }
        if (q->kind == MQ_SHAPE_SPHERE) {
            mq_closest_point_triangle(a, &q->tri, fp, NULL);
            mq_v3_copy(fs, a);
        } else {
            mq_closest_points_segment_triangle(a, b, &q->tri, fs, fp);
        }
        for (int k = 0; k < 3; k++)
            sp[k] = fs[k], pp[k] = fp[k];
    }
    double n[3] = {sp[0] - pp[0], sp[1] - pp[1], sp[2] - pp[2]};
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0.0) || !isfinite(len)) {
        /* the mapped triangle's normal turned against dir, else -dir */
        double e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = (double)q->tri.v[1][k] - q->tri.v[0][k];
            e2[k] = (double)q->tri.v[2][k] - q->tri.v[0][k];
        }
        n[0] = e1[1] * e2[2] - e1[2] * e2[1];
        n[1] = e1[2] * e2[0] - e1[0] * e2[2];
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (len > 0.0 && n[0] * s->dir[0] + n[1] * s->dir[1] + n[2] * s->dir[2] > 0.0)
            len = -len;
        if (!(len != 0.0) || !isfinite(len)) {
            for (int k = 0; k < 3; k++)
                n[k] = -s->dir[k];
            len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        }
    }
    out->t = s->t;
    for (int k = 0; k < 3; k++) {
        out->point[k] = pp[k] + r->to_world.m[k][3];
        out->normal[k] = len != 0.0 && isfinite(len) ? n[k] / len : 0.0;
    }
    out->instance = s->instance;
    out->triangle = s->triangle;
    out->user_id = r->user_id;
    out->initially_overlapping = s->t == 0.0;
}

bool mq_scene_shape_cast(const mq_scene *scene, const mq_dshape *shape, const mq_dvec3 dir, double tmax,
                         const mq_scene_query *query, mq_scene_cast_hit *out)
{
    miss_record(out);
    if (!scene || !shape || !dir || !(tmax >= 0.0) || !isfinite(dir[0]) || !isfinite(dir[1]) || !isfinite(dir[2]))
        return false;
    if (shape->kind != MQ_SHAPE_SPHERE && shape->kind != MQ_SHAPE_CAPSULE && shape->kind != MQ_SHAPE_CONVEX)
        return false;
    if (!mq_dshape_valid(shape))
        return false;
    scene_cast s;
    s.shape = shape;
    s.tmax = tmax;
    s.tol = 0.0;
    for (int k = 0; k < 3; k++)
        s.dir[k] = dir[k];
    mq_daabb b;
    mq_dshape_bounds(shape, &b);
    for (int k = 0; k < 3; k++) {
        s.c0[k] = 0.5 * b.min[k] + 0.5 * b.max[k];
        s.h0[k] = mq_fmax(b.max[k] - s.c0[k], s.c0[k] - b.min[k]);
    }
    if (!isfinite(s.h0[0]) || !isfinite(s.h0[1]) || !isfinite(s.h0[2]))
        return false;
    if (shape->kind == MQ_SHAPE_CONVEX) {
        mq_cpose p;
        mq_cpose_from_quat(shape->u.convex.rotation, shape->u.convex.translation, &p);
        s.tol = mq_convex_cast_tolerance(shape->u.convex.convex, &p, s.dir, tmax);
        if (!isfinite(s.tol))
            s.tol = 0.0;
    }
    /* the world box of the whole sweep, widened as the overlaps widen theirs */
    double ext = 0.0;
    for (int k = 0; k < 3; k++)
        ext = mq_fmax(ext, b.max[k] - b.min[k]);
    s.box = b;
    s.slack = ext * MQ_SCENE_REL_SLACK;
    mq_daabb sw;
    for (int k = 0; k < 3; k++)
        sweep_axis(&b, s.dir[k], tmax, s.slack + s.tol, k, &sw.min[k], &sw.max[k]);
    s.t = INFINITY;
    s.instance = MQ_NO_INSTANCE;
    s.triangle = MQ_NO_TRIANGLE;
    s.rec = NULL;
    s.t0 = 0.0;
    mq_tlas_visit_box(scene, &sw, query ? query->mask : 0xFFFFFFFFu, visit_instance, &s);
    if (!s.rec)
        return false;
    if (out)
        finish(&s, out);
    return true;
}

/* ---- batch ------------------------------------------------------------------ */

#define CAST_CHUNK 8u

typedef struct cast_job {
    const mq_scene *scene;
    const mq_dshape *shapes;
    const mq_dvec3 *dirs;
    double tmax;
    const mq_scene_query *query;
    size_t count;
    mq_scene_cast_hit *hits;
    atomic_size_t next;
    size_t sums[MQ_POOL_MAX_THREADS];
} cast_job;

static void cast_worker(void *arg, uint32_t index)
{
    cast_job *j = arg;
    size_t sum = 0;
    for (;;) {
        size_t first = atomic_fetch_add_explicit(&j->next, CAST_CHUNK, memory_order_relaxed);
        if (first >= j->count)
            break;
        size_t end = first + CAST_CHUNK < j->count ? first + CAST_CHUNK : j->count;
        for (size_t i = first; i < end; i++)
            sum += mq_scene_shape_cast(j->scene, &j->shapes[i], j->dirs[i], j->tmax, j->query,
                                       j->hits ? &j->hits[i] : NULL);
    }
    j->sums[index] = sum;
}

size_t mq_scene_shape_cast_batch(const mq_scene *scene, const mq_dshape *shapes, const mq_dvec3 *dirs, size_t count,
                                 double tmax, const mq_scene_query *query, uint32_t threads, mq_scene_cast_hit *hits)
{
    if (!shapes || !dirs || count == 0)
        return 0;
    cast_job j;
    j.scene = scene;
    j.shapes = shapes;
    j.dirs = dirs;
    j.tmax = tmax;
    j.query = query;
    j.count = count;
    j.hits = hits;
    uint32_t n = mq_thread_count(threads);
    size_t chunks = (count + CAST_CHUNK - 1) / CAST_CHUNK;
    if (n > chunks)
        n = (uint32_t)chunks;
    if (n > MQ_POOL_MAX_THREADS)
        n = MQ_POOL_MAX_THREADS;
    if (n == 0)
        n = 1;
    atomic_init(&j.next, 0);
    for (uint32_t t = 0; t < n; t++)
        j.sums[t] = 0;
    mq_run_parallel(n, cast_worker, &j);
    size_t total = 0;
    for (uint32_t t = 0; t < n; t++)
        total += j.sums[t];
    return total;
}
