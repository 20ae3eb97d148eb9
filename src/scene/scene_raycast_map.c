/* A world ray mapped into an instance's frame, traced there, mapped back (scene_raycast.h). */
#include <float.h>
#include <math.h>
#include <string.h>

#include <meshquery/primitives.h>

#include "scene/scene_raycast.h"

bool mq_dray_is_valid(const mq_dray *r)
{
    if (!r)
        return false;
    for (int k = 0; k < 3; k++)
        if (!isfinite(r->origin[k]) || !isfinite(r->dir[k]))
            return false;
    return (r->dir[0] != 0.0 || r->dir[1] != 0.0 || r->dir[2] != 0.0) && r->tmin <= r->tmax;
}

void mq_dray_prepare(const mq_dray *ray, mq_dray_prep *out)
{
    for (int k = 0; k < 3; k++) {
        out->org[k] = ray->origin[k];
        out->dir[k] = ray->dir[k];
        out->inv[k] = 1.0 / ray->dir[k];
    }
}

/* The slab clip; mq_dray_clip_box's arithmetic, inlined where it is hot. */
static inline __attribute__((always_inline)) bool clip_box(const mq_dray_prep *r, const double lo[3],
                                                           const double hi[3], double *t0, double *t1)
{
    double a = *t0, b = *t1;
    for (int k = 0; k < 3; k++) {
        if (!(lo[k] <= hi[k]))
            return false;
        if (r->dir[k] == 0.0) {
            /* Parallel to the slab: inside iff the origin is (no 0 * inf). */
            if (r->org[k] < lo[k] || r->org[k] > hi[k])
                return false;
            continue;
        }
        double u = (lo[k] - r->org[k]) * r->inv[k], v = (hi[k] - r->org[k]) * r->inv[k];
        /* Ordered without a branch (the sign of the direction is random); a NaN keeps the order. */
        double n = v < u ? v : u, f = v < u ? u : v;
        /* Three roundings at most: widening by 8 ulps keeps the slab conservative. */
        n -= fabs(n) * (8 * DBL_EPSILON);
        f += fabs(f) * (8 * DBL_EPSILON);
        a = n > a ? n : a;
        b = f < b ? f : b;
    }
    /* a only grows and b only shrinks: one test at the end decides. */
    if (a > b)
        return false;
    *t0 = a;
    *t1 = b;
    return true;
}

bool mq_dray_clip_box(const mq_dray_prep *r, const double lo[3], const double hi[3], double *t0, double *t1)
{
    return clip_box(r, lo, hi, t0, t1);
}

static inline bool fray_is_valid(const mq_ray *r)
{
    bool finite = true;
    for (int k = 0; k < 3; k++)
        finite &= isfinite(r->origin[k]) & isfinite(r->dir[k]);
    return finite && (r->dir[0] != 0.0f || r->dir[1] != 0.0f || r->dir[2] != 0.0f) && r->tmin <= r->tmax;
}

bool mq_inst_ray_init_scalar(mq_inst_ray *ir, const mq_instance_rec *inst, const mq_dray *ray)
{
    /* Only inst->ray is read here (its two cache lines, scene_internal.h). */
    const mq_inst_ray_data *d = &inst->ray;
    /* The whole ray in the local frame, in double: relative to the instance's
     * origin first, so the large terms of a far placement cancel exactly. */
    mq_dray_prep lr;
    double o[3];
    for (int k = 0; k < 3; k++)
        o[k] = ray->origin[k] - d->origin[k];
    for (int r = 0; r < 3; r++) {
        lr.org[r] = d->w2l[r][0] * o[0] + d->w2l[r][1] * o[1] + d->w2l[r][2] * o[2];
        lr.dir[r] = d->w2l[r][0] * ray->dir[0] + d->w2l[r][1] * ray->dir[1] + d->w2l[r][2] * ray->dir[2];
        lr.inv[r] = 1.0 / lr.dir[r];
    }
    /* The advance: where the ray enters the LOCAL root box (widened, see
     * mq_inst_ray_data). It depends only on the ray relative to the instance
     * (not on where the instance is placed, as the world box would) and never
     * on a query's shrinking interval, so every pass of raycast_each traces the
     * same float ray, and a far instance traces the ray its copy at the origin
     * traces. The world box is not tested: it contains the mapped local box,
     * so this clip is the more selective of the two. */
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = d->box_lo[k];
        hi[k] = d->box_hi[k];
    }
    double t0 = ray->tmin, t1 = ray->tmax;
    if (!clip_box(&lr, lo, hi, &t0, &t1))
        return false;
    ir->inst = inst;
    ir->world = ray;
    ir->advance = t0;
    for (int k = 0; k < 3; k++) {
        ir->local.origin[k] = (float)(lr.org[k] + t0 * lr.dir[k]);
        ir->local.dir[k] = (float)lr.dir[k];
    }
    ir->tmin = mq_inst_ray_local_ceil(ir, ray->tmin);
    ir->tmax = mq_inst_ray_local_floor(ir, ray->tmax);
    ir->local.tmin = ir->tmin;
    ir->local.tmax = ir->tmax;
    return fray_is_valid(&ir->local);
}

bool mq_inst_ray_init(mq_inst_ray *ir, const mq_instance_rec *inst, const mq_dray *ray)
{
#if defined(MQ_ISA_SIMD)
    if (mq_isa_active() >= MQ_ISA_AVX2)
        return mq_inst_ray_init_avx2(ir, inst, ray);
#endif
    return mq_inst_ray_init_scalar(ir, inst, ray);
}

double mq_inst_ray_world_t(const mq_inst_ray *ir, float t_local)
{
    double t = ir->advance + (double)t_local;
    if (t < ir->world->tmin)
        t = ir->world->tmin;
    if (t > ir->world->tmax)
        t = ir->world->tmax;
    return t;
}

/* What the local filter needs: culling flipped for mirrors, and the lower key bound. */
typedef struct filter_ctx {
    const mq_inst_ray *ir;
    bool reject_local_front;
    const mq_ray_key *after;
} filter_ctx;

static bool local_filter(const mq_hit *h, void *user)
{
    const filter_ctx *f = user;
    if (f->reject_local_front && !h->back_face)
        return false;
    if (f->after) {
        mq_ray_key k = {mq_inst_ray_world_t(f->ir, h->t), f->ir->inst->id, h->triangle};
        if (!mq_ray_key_less(f->after, &k))
            return false;
    }
    return true;
}

/*
 * Back-face culling in the world: a mirrored instance reverses the winding,
 * so the world back faces are its local FRONT faces. The hierarchies cull by
 * the local winding, so for a mirrored instance they trace both sides and a
 * filter rejects the local front faces instead (a filter costs a hit record
 * per candidate, paid only by culling queries on mirrored instances).
 */
static void local_query(const mq_inst_ray *ir, const mq_inst_trace *opt, filter_ctx *f, mq_ray_query *q)
{
    *q = mq_default_ray_query();
    f->ir = ir;
    f->reject_local_front = opt->cull_back_faces && ir->inst->mirrored;
    f->after = opt->after;
    q->cull_back_faces = opt->cull_back_faces && !ir->inst->mirrored;
    if (f->reject_local_front || f->after) {
        q->filter = local_filter;
        q->filter_user = f;
    }
}

bool mq_inst_ray_closest_filtered(mq_inst_ray *ir, const mq_inst_trace *opt, mq_hit *out)
{
    filter_ctx f;
    mq_ray_query q;
    local_query(ir, opt, &f, &q);
    if (ir->inst->bvh)
        return mq_bvh_raycast_closest(ir->inst->bvh, &ir->local, &q, out);
    return mq_obbtree_raycast_closest(ir->inst->obbtree, &ir->local, &q, out);
}

bool mq_inst_ray_any(mq_inst_ray *ir, bool cull_back_faces)
{
    ir->local.tmin = ir->tmin;
    ir->local.tmax = ir->tmax;
    const mq_bvh *bvh = ir->inst->ray.bvh; /* in the line mq_inst_ray_init read */
    if (bvh && !(cull_back_faces && ir->inst->mirrored))
        return mq_bvh_any_valid(bvh, &ir->local, cull_back_faces); /* no filter: see mq_inst_ray_closest */
    mq_inst_trace opt = {cull_back_faces, NULL};
    filter_ctx f;
    mq_ray_query q;
    local_query(ir, &opt, &f, &q);
    if (ir->inst->bvh)
        return mq_bvh_raycast_any(ir->inst->bvh, &ir->local, &q);
    return mq_obbtree_raycast_any(ir->inst->obbtree, &ir->local, &q);
}

static void normalize3(double v[3])
{
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (len > 0.0)
        for (int k = 0; k < 3; k++)
            v[k] /= len;
}

/*
 * Zeroes the record's last 8 bytes: its three flags and the padding after
 * them, so records compare equal bytewise. The writers below set every field
 * one by one rather than clearing the whole record first: GCC compiles a
 * 136-byte memset or struct copy into `rep stos`, whose start-up cost was
 * measurable once per ray.
 */
static void clear_tail(mq_scene_hit *out)
{
    _Static_assert(sizeof(mq_scene_hit) - offsetof(mq_scene_hit, back_face) <= 8, "flags and padding in 8 bytes");
    /* The writers name every field: a new field must be added to them. */
    _Static_assert(sizeof(mq_scene_hit) == 136,
                   "mq_scene_hit changed: update mq_scene_hit_miss and mq_inst_ray_world_hit");
    memset((char *)out + offsetof(mq_scene_hit, back_face), 0, sizeof *out - offsetof(mq_scene_hit, back_face));
}

void mq_scene_hit_miss(mq_scene_hit *out)
{
    clear_tail(out);
    out->t = INFINITY;
    for (int k = 0; k < 3; k++)
        out->point[k] = out->normal[k] = out->shading_normal[k] = 0.0;
    out->u = out->v = 0.0f;
    out->uv[0] = out->uv[1] = 0.0f;
    out->instance = MQ_NO_INSTANCE;
    out->triangle = MQ_NO_TRIANGLE;
    out->face = MQ_NO_TRIANGLE;
    out->group = out->object = out->material = 0;
    out->user_id = 0;
}

void mq_inst_ray_world_hit(const mq_inst_ray *ir, const mq_hit *h, mq_scene_hit *out)
{
    const mq_instance_rec *inst = ir->inst;
    clear_tail(out); /* every other field is set below */
    out->t = mq_inst_ray_world_t(ir, h->t);
    /* The point on the traced float ray, mapped to the world: as precise as the
     * mesh's own coordinates, wherever the instance is. */
    double p[3], n[3], sn[3], ln[3] = {h->normal[0], h->normal[1], h->normal[2]};
    for (int k = 0; k < 3; k++)
        p[k] = (double)ir->local.origin[k] + (double)h->t * (double)ir->local.dir[k];
    mq_xform_apply_point(&inst->to_world, p, out->point);
    mq_mat3d_apply(inst->normal_to_world, ln, n);
    normalize3(n);
    memcpy(out->normal, n, sizeof n);
    if (h->has_shading_normal) {
        /* A^-T without the mirror's sign flip: shading normals keep their side. */
        double ls[3] = {h->shading_normal[0], h->shading_normal[1], h->shading_normal[2]};
        mq_mat3d_apply(inst->normal_to_world, ls, sn);
        double sign = inst->mirrored ? -1.0 : 1.0;
        for (int k = 0; k < 3; k++)
            sn[k] *= sign;
        normalize3(sn);
        memcpy(out->shading_normal, sn, sizeof sn);
    } else {
        memcpy(out->shading_normal, n, sizeof n);
    }
    /* The side the hierarchy decided (and culled by) in the instance's frame,
     * flipped by a mirror: recomputing it from the world normal could
     * disagree on a grazing ray, and a culling query then return a back face. */
    out->back_face = h->back_face != inst->mirrored;
    out->u = h->u;
    out->v = h->v;
    out->uv[0] = h->uv[0];
    out->uv[1] = h->uv[1];
    out->instance = inst->id;
    out->triangle = h->triangle;
    out->face = h->face;
    out->group = h->group;
    out->object = h->object;
    out->material = h->material;
    out->user_id = inst->user_id;
    out->has_shading_normal = h->has_shading_normal;
    out->has_uv = h->has_uv;
}
