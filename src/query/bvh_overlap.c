/*
 * The AABB BVH's shape-overlap queries (bvh.h, "Shape overlap and closest
 * point"): every triangle a sphere, capsule, OBB, AABB or convex overlaps, with the
 * OBB tree's contract (obbtree.h). The public entry points take a tagged
 * mq_shape and switch on its kind once, at the entry, into the walk of that
 * kind.
 *
 * Walk: query/bvh_walk.h, always inlined with the predicates below as
 * compile-time constants (no per-node dispatch, fixed stack, no allocation).
 *   - node filter: the 8-lane box test against the query's bounding box,
 *     intersected with a bounding ball (sphere: the sphere itself, so the box
 *     and ball together are the exact sphere-AABB test; capsule: the ball around
 *     the segment's midpoint; OBB: the ball around its centre);
 *   - refinement of the survivors: capsule, the segment clipped against the
 *     child box grown by the radius (a superset of the box's r-neighbourhood);
 *     OBB, the 15-axis separating axis test in the query box's frame;
 *   - leaf: each triangle's own box against the query box, then the exact
 *     primitive (mq_overlap_sphere_triangle, ...), which alone decides.
 * Every filter is widened by MQ_BVH_OVERLAP_SLACK times the magnitudes that
 * enter it (and, for OBBs, by what the axes lose to orthonormality, as the OBB
 * tree does), so rounding never culls a triangle the primitive accepts.
 *
 * Every shape is first cut down to its part near the root box (primitives/
 * shape_reduce.h): a huge shape would overflow the filters or widen them to
 * everything, and its float primitive would round at its own scale. The cut
 * shape meets the mesh exactly where the given one does.
 */
#include <float.h>

#include "core/float_steps.h"
#include "core/minmax.h"
#include "convex/convex_internal.h"
#include "primitives/ray_slab.h"
#include "primitives/shape_checks.h"
#include "primitives/shape_reduce.h"
#include "query/bvh_walk.h"
#include "obbtree/obbtree_walk.h"
#include "bvh/bvh_region.h"

/* Relative widening of the filters: about 80 ulp of the magnitudes involved. */
#define MQ_BVH_OVERLAP_SLACK 1e-5f

static float maxabs3f(const float v[3])
{
    return mq_fmaxf(fabsf(v[0]), mq_fmaxf(fabsf(v[1]), fabsf(v[2])));
}

static float sq_or_inf(float x)
{
    double d = (double)x * (double)x * (1.0 + 1e-6);
    return d < (double)FLT_MAX ? (float)d : INFINITY;
}

/* ---- visitors: the exact primitive on each candidate -------------------- */

typedef struct visit_ctx {
    const void *shape;
    mq_overlap_fn fn;
    void *user;
    size_t calls;
} visit_ctx;

#define DEFINE_VISIT(name, test)                                                                                       \
    static bool name(uint32_t id, const mq_triangle *tri, void *ctx)                                                   \
    {                                                                                                                  \
        visit_ctx *c = ctx;                                                                                            \
        if (!(test))                                                                                                   \
            return true;                                                                                               \
        c->calls++;                                                                                                    \
        return c->fn(id, c->user);                                                                                     \
    }

/* Spheres: the triangle's box against the (widened) ball first, as the node test does. */
typedef struct sphere_shape {
    mq_sphere s;
    float g2; /* squared widened radius */
} sphere_shape;

static inline bool sphere_box_near(const sphere_shape *s, const mq_triangle *t)
{
    float d2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        float lo = mq_minf(mq_minf(t->v[0][k], t->v[1][k]), t->v[2][k]);
        float hi = mq_maxf(mq_maxf(t->v[0][k], t->v[1][k]), t->v[2][k]);
        float e = mq_maxf(mq_maxf(lo - s->s.center[k], s->s.center[k] - hi), 0.0f);
        d2 += e * e;
    }
    return d2 <= s->g2;
}

DEFINE_VISIT(visit_sphere, sphere_box_near((const sphere_shape *)c->shape, tri) &&
                               mq_overlap_sphere_triangle(&((const sphere_shape *)c->shape)->s, tri))
DEFINE_VISIT(visit_capsule, mq_overlap_capsule_triangle((const mq_capsule *)c->shape, tri))
DEFINE_VISIT(visit_obb, mq_overlap_triangle_obb(tri, (const mq_obb *)c->shape))
DEFINE_VISIT(visit_aabb, mq_overlap_triangle_aabb(tri, (const mq_aabb *)c->shape))

/* ---- sphere ---------------------------------------------------------------- */

static size_t walk_sphere(const mq_bvh *b, const mq_sphere *s, mq_overlap_fn fn, void *user)
{
    if (!b || !s || !mq_sphere_ok(s))
        return 0;
    double lo[3], hi[3];
    mq_sphere cut;
    if (!mq_bvh_root_region(b, lo, hi) || !mq_sphere_reduce(s, lo, hi, &cut))
        return 0;
    s = &cut;
    float g = s->radius + MQ_BVH_OVERLAP_SLACK * (mq_abs_sum3(s->center) + s->radius);
    mq_walk_box q;
    for (int k = 0; k < 3; k++) {
        q.lo[k] = s->center[k] - g;
        q.hi[k] = s->center[k] + g;
        q.c[k] = s->center[k];
    }
    q.r2 = sq_or_inf(g);
    sphere_shape ss = {*s, q.r2};
    visit_ctx c = {&ss, fn, user, 0};
    mq_bvh_walk_box(b, &q, visit_sphere, &c);
    return c.calls;
}

/* ---- capsule ------------------------------------------------------------------ */

typedef struct capsule_refine {
    float a[3], d[3]; /* segment a + t d, t in [0, 1] */
    float grow;       /* radius + rounding slack of the query */
    float mag;        /* |a| + |b| (sums of absolute coordinates) */
} capsule_refine;

/* The segment clipped against the child box grown by the radius (and the slack). */
static inline bool refine_capsule(const float lo[3], const float hi[3], const void *rq)
{
    const capsule_refine *c = rq;
    float g = c->grow + MQ_BVH_OVERLAP_SLACK * (mq_abs_sum3(lo) + mq_abs_sum3(hi));
    float t0 = 0.0f, t1 = 1.0f;
    for (int k = 0; k < 3; k++) {
        if (!mq_slab_clip_axis(c->a[k], c->d[k], lo[k] - g, hi[k] + g, &t0, &t1))
            return false;
    }
    return true;
}

static size_t walk_capsule(const mq_bvh *b, const mq_capsule *cap, mq_overlap_fn fn, void *user)
{
    if (!b || !cap || !mq_capsule_ok(cap))
        return 0;
    double lo[3], hi[3];
    mq_capsule cut;
    if (!mq_bvh_root_region(b, lo, hi) || !mq_capsule_reduce(cap, lo, hi, &cut))
        return 0;
    cap = &cut;
    capsule_refine rq;
    float mag = mq_abs_sum3(cap->a) + mq_abs_sum3(cap->b);
    float g = cap->radius + MQ_BVH_OVERLAP_SLACK * (mag + cap->radius);
    mq_walk_box q;
    for (int k = 0; k < 3; k++) {
        rq.a[k] = cap->a[k];
        rq.d[k] = cap->b[k] - cap->a[k];
        q.lo[k] = mq_fminf(cap->a[k], cap->b[k]) - g;
        q.hi[k] = mq_fmaxf(cap->a[k], cap->b[k]) + g;
        q.c[k] = 0.5f * cap->a[k] + 0.5f * cap->b[k];
    }
    rq.grow = g;
    rq.mag = mag;
    if (!isfinite(rq.d[0]) || !isfinite(rq.d[1]) || !isfinite(rq.d[2]))
        return 0;                                           /* b - a overflows: not representable as a query here */
    float half = mq_float_ceil_of(0.5 * mq_v3_len_d(rq.d)); /* in double: tiny squares underflow in float */
    q.r2 = sq_or_inf(half + g + MQ_BVH_OVERLAP_SLACK * mag);
    visit_ctx c = {cap, fn, user, 0};
    mq_bvh_walk_box_refined(b, &q, refine_capsule, &rq, visit_capsule, &c);
    return c.calls;
}

/* ---- oriented box --------------------------------------------------------------- */

typedef struct obb_refine {
    const mq_obb *box;
    float half_sum;
    float rel;   /* MQ_BVH_OVERLAP_SLACK + 8 * deviation of the axes from orthonormal */
    float c_mag; /* |centre| (sum of absolute coordinates) */
} obb_refine;

/* The 15-axis test with the query as box A (its own frame) and the child AABB as
 * box B: R[i][j] = query axis i . world axis j, t = the child's centre in A's frame. */
static inline bool refine_obb(const float lo[3], const float hi[3], const void *rq)
{
    const obb_refine *o = rq;
    float nc[3], nh[3], d[3], t[3], R[3][3];
    for (int k = 0; k < 3; k++) {
        nc[k] = 0.5f * lo[k] + 0.5f * hi[k];
        nh[k] = 0.5f * hi[k] - 0.5f * lo[k];
        d[k] = nc[k] - o->box->center[k];
    }
    for (int i = 0; i < 3; i++) {
        t[i] = d[0] * o->box->axes[i][0] + d[1] * o->box->axes[i][1] + d[2] * o->box->axes[i][2];
        for (int j = 0; j < 3; j++)
            R[i][j] = o->box->axes[i][j];
    }
    float nsum = nh[0] + nh[1] + nh[2];
    float slack = o->rel * (mq_abs_sum3(t) + nsum + o->half_sum) +
                  MQ_BVH_OVERLAP_SLACK * (mq_abs_sum3(lo) + mq_abs_sum3(hi) + o->c_mag);
    return mq_sat_overlap(o->box->half, nh, R, t, slack);
}

static size_t walk_obb(const mq_bvh *b, const mq_obb *box, mq_overlap_fn fn, void *user)
{
    if (!b || !box || !mq_obb_is_valid(box))
        return 0;
    double lo[3], hi[3];
    mq_obb cut;
    if (!mq_bvh_root_region(b, lo, hi) || !mq_obb_reduce(box, lo, hi, &cut))
        return 0;
    box = &cut;
    obb_refine rq = {box, box->half[0] + box->half[1] + box->half[2],
                     MQ_BVH_OVERLAP_SLACK + 8.0f * mq_obb_axes_deviation(box), mq_abs_sum3(box->center)};
    /* Bounding box and ball of the set the primitive tests, {p : |axes . (p - c)| <= half},
     * widened for axes that are orthonormal only to within the tolerance. */
    float grow = rq.rel * rq.half_sum + MQ_BVH_OVERLAP_SLACK * rq.c_mag;
    mq_walk_box q;
    for (int k = 0; k < 3; k++) {
        float e = fabsf(box->axes[0][k]) * box->half[0] + fabsf(box->axes[1][k]) * box->half[1] +
                  fabsf(box->axes[2][k]) * box->half[2];
        e = e * (1.0f + rq.rel) + grow;
        q.lo[k] = box->center[k] - e;
        q.hi[k] = box->center[k] + e;
        q.c[k] = box->center[k];
    }
    q.r2 = sq_or_inf(sqrtf(mq_v3_len2(box->half)) * (1.0f + rq.rel) + grow);
    visit_ctx c = {box, fn, user, 0};
    mq_bvh_walk_box_refined(b, &q, refine_obb, &rq, visit_obb, &c);
    return c.calls;
}

/* ---- axis-aligned box ---------------------------------------------------------- */

static size_t walk_aabb(const mq_bvh *b, const mq_aabb *box, mq_overlap_fn fn, void *user)
{
    if (!b || !box || !mq_aabb_ok(box))
        return 0;
    double lo[3], hi[3];
    mq_aabb cut;
    if (!mq_bvh_root_region(b, lo, hi) || !mq_aabb_reduce(box, lo, hi, &cut))
        return 0;
    box = &cut;
    float g = MQ_BVH_OVERLAP_SLACK * (maxabs3f(box->min) + maxabs3f(box->max));
    mq_walk_box q;
    for (int k = 0; k < 3; k++) {
        q.lo[k] = box->min[k] - g;
        q.hi[k] = box->max[k] + g;
        q.c[k] = 0.0f;
    }
    q.r2 = INFINITY;
    visit_ctx c = {box, fn, user, 0};
    mq_bvh_walk_box(b, &q, visit_aabb, &c);
    return c.calls;
}

/* ---- convex ----------------------------------------------------------------------- */

/* The convex's box (its vertices are floats, so the box is exact) and the ball
 * around its centre filter the nodes; the child boxes that pass are culled by
 * the convex's face planes (convex_internal.h); each candidate triangle, its
 * box already checked by the walk, is decided by the exact test in double. No
 * cutting down: that test is exact at any size. */
typedef struct convex_visit {
    const mq_convex *c;
    mq_cpose pose;
} convex_visit;

static inline bool refine_convex(const float lo[3], const float hi[3], const void *rq)
{
    const mq_convex *c = rq;
    double ctr[3], half[3];
    for (int k = 0; k < 3; k++) {
        ctr[k] = 0.5 * (double)lo[k] + 0.5 * (double)hi[k];
        half[k] = 0.5 * (double)hi[k] - 0.5 * (double)lo[k];
    }
    return mq_convex_box_may_meet(c, ctr, NULL, half);
}

DEFINE_VISIT(visit_convex, mq_convex_overlap_tri_posed(((const convex_visit *)c->shape)->c,
                                                       &((const convex_visit *)c->shape)->pose, tri))

static size_t walk_convex(const mq_bvh *b, const mq_convex *cv, mq_overlap_fn fn, void *user)
{
    if (!b || !cv)
        return 0;
    convex_visit v = {cv, {{{0}}, {0}, true}};
    mq_cpose_identity(&v.pose);
    mq_walk_box q;
    double r = cv->radius * (1.0 + 1e-6);
    for (int k = 0; k < 3; k++) {
        float g = MQ_BVH_OVERLAP_SLACK * (fabsf((float)cv->lo[k]) + fabsf((float)cv->hi[k]));
        q.lo[k] = (float)cv->lo[k] - g;
        q.hi[k] = (float)cv->hi[k] + g;
        q.c[k] = (float)cv->center[k];
        r += MQ_BVH_OVERLAP_SLACK * fabs(cv->center[k]);
    }
    q.r2 = sq_or_inf((float)r * (1.0f + MQ_BVH_OVERLAP_SLACK));
    visit_ctx c = {&v, fn, user, 0};
    mq_bvh_walk_box_refined(b, &q, refine_convex, cv, visit_convex, &c);
    return c.calls;
}

/* ---- the public forms ----------------------------------------------------------- */

/* The kind is read once, here; each case is the walk specialised for it.
 * Always inlined, so each entry point below calls the walks with its own
 * callback as a constant, as the per-shape entry points did. An unknown kind
 * (a later version's shape) overlaps nothing. */
MQ_ALWAYS_INLINE size_t walk_shape(const mq_bvh *b, const mq_shape *shape, mq_overlap_fn fn, void *user)
{
    if (!shape)
        return 0;
    switch (shape->kind) {
    case MQ_SHAPE_SPHERE:
        return walk_sphere(b, &shape->u.sphere, fn, user);
    case MQ_SHAPE_CAPSULE:
        return walk_capsule(b, &shape->u.capsule, fn, user);
    case MQ_SHAPE_OBB:
        return walk_obb(b, &shape->u.obb, fn, user);
    case MQ_SHAPE_AABB:
        return walk_aabb(b, &shape->u.aabb, fn, user);
    case MQ_SHAPE_CONVEX:
        return walk_convex(b, shape->u.convex, fn, user);
    }
    return 0;
}

size_t mq_bvh_overlap(const mq_bvh *b, const mq_shape *shape, mq_overlap_fn fn, void *user)
{
    return fn ? walk_shape(b, shape, fn, user) : 0;
}

size_t mq_bvh_overlap_array(const mq_bvh *b, const mq_shape *shape, uint32_t *out, size_t capacity)
{
    mq_id_sink sink = {out, out ? capacity : 0, 0};
    walk_shape(b, shape, mq_id_sink_push, &sink);
    return sink.count;
}

bool mq_bvh_overlap_any(const mq_bvh *b, const mq_shape *shape)
{
    return walk_shape(b, shape, mq_stop_at_first, NULL) > 0;
}
