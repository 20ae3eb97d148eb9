/*
 * Closest point on one instance (scene_internal.h: mq_instance_closest_point).
 *
 * The query point goes to the local frame (double) for the walk
 * (query/closest_walk.h), whose bound is the current best WORLD distance:
 * a box at local distance d holds nothing nearer than sigma_min * d in the
 * world, whatever the transform. Each candidate is decided in the
 * instance-centred frame (instance_overlap.h): mq_closest_point_triangle on
 * the float triangle (A v) and the float point (p - t); the reported distance
 * is then measured in double from the unrounded p - t to that closest point,
 * and the world point is t + point, in double. Ties in that double distance go
 * to the smaller (instance, triangle).
 */
#include "core/minmax.h"
#include "scene/instance_overlap.h"
#include "query/closest_walk.h"

typedef struct closest_ctx {
    const mq_instance_rec *inst;
    double pc[3]; /* p - t, double */
    float pcf[3]; /* p - t, float: the primitive's input */
    double *best_d2;
    double bound; /* sqrt(*best_d2) */
    mq_scene_point_hit *best;
    bool improved;
} closest_ctx;

static void visit(uint32_t id, const mq_triangle *local, void *user)
{
    closest_ctx *c = user;
    mq_triangle w;
    mq_inst_triangle(c->inst, local, &w);
    vec3 q;
    vec2 uv;
    float f2 = mq_closest_point_triangle(c->pcf, &w, q, uv);
    if (!(f2 == f2))
        return;
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double e = c->pc[k] - (double)q[k];
        d2 += e * e;
    }
    mq_scene_point_hit *b = c->best;
    if (!(d2 < *c->best_d2)) {
        if (!(d2 == *c->best_d2))
            return;
        if (b->instance != MQ_NO_INSTANCE &&
            (c->inst->id > b->instance || (c->inst->id == b->instance && id >= b->triangle)))
            return;
    }
    *c->best_d2 = d2;
    c->bound = sqrt(d2);
    for (int k = 0; k < 3; k++)
        b->point[k] = c->inst->to_world.m[k][3] + (double)q[k];
    b->distance = c->bound;
    b->u = uv[0];
    b->v = uv[1];
    b->instance = c->inst->id;
    b->triangle = id;
    b->user_id = c->inst->user_id;
    c->improved = true;
}

bool mq_instance_closest_point(const mq_instance_rec *inst, const double p[3], double *best_d2,
                               mq_scene_point_hit *best)
{
    if (!inst || !p || !best_d2 || !best || !(*best_d2 >= 0.0))
        return false;
    closest_ctx c;
    c.inst = inst;
    mq_inst_centre_d(inst, p, c.pc);
    for (int k = 0; k < 3; k++) {
        c.pcf[k] = (float)c.pc[k];
        if (!isfinite(c.pcf[k]))
            return false;
    }
    double pl[3];
    for (int i = 0; i < 3; i++)
        pl[i] = inst->to_local.m[i][0] * c.pc[0] + inst->to_local.m[i][1] * c.pc[1] + inst->to_local.m[i][2] * c.pc[2];
    c.best_d2 = best_d2;
    c.bound = sqrt(*best_d2);
    c.best = best;
    c.improved = false;
    double pmag = mq_fmax(fabs(c.pc[0]), mq_fmax(fabs(c.pc[1]), fabs(c.pc[2])));
    double lmag = mq_fmax(fabs(pl[0]), mq_fmax(fabs(pl[1]), fabs(pl[2])));
    double rel = mq_inst_rel_slack(inst);
    mq_closest_prune pr = {&c.bound, inst->sigma_min * (1.0 - 1e-9),
                           rel * (pmag + inst->sigma_max * (mq_inst_local_magnitude(inst) + lmag))};
    if (inst->bvh)
        mq_bvh_walk_closest(inst->bvh, pl, &pr, visit, &c);
    else
        mq_obbtree_walk_closest(inst->obbtree, pl, &pr, visit, &c);
    return c.improved;
}
