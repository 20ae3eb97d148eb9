/*
 * Scene closest point (scene.h "Distance"): instances come from the top-level
 * hierarchy nearest box first (mq_tlas_visit_nearest), while their box may
 * still hold a point within the best distance so far (the bound is re-read
 * after each instance); mq_instance_closest_point improves the best with the
 * exact per-instance answer (instance_closest.c). Ties go to the smaller
 * (instance, triangle), whatever order the instances come in.
 */
#include "scene/instance_overlap.h"

typedef struct closest_ctx {
    const double *p;
    double best_d2;
    double bound2; /* what the top level compares squared box distances with */
    mq_scene_point_hit best;
} closest_ctx;

/* The top level's bound: the best squared distance, widened by the rounding the
 * exact per-instance test may gain (MQ_SCENE_REL_SLACK, instance_overlap.h). */
static double widen(double d2)
{
    return d2 * (1.0 + 4.0 * MQ_SCENE_REL_SLACK);
}

static void visit_instance(const mq_instance_rec *inst, void *user)
{
    closest_ctx *c = user;
    if (mq_instance_closest_point(inst, c->p, &c->best_d2, &c->best))
        c->bound2 = widen(c->best_d2);
}

bool mq_scene_closest_point(const mq_scene *scene, const mq_dvec3 p, double max_distance, const mq_scene_query *query,
                            mq_scene_point_hit *out)
{
    if (!scene || !p || !isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]) || !(max_distance >= 0.0))
        return false;
    closest_ctx c;
    c.p = p;
    c.best_d2 = max_distance * max_distance;
    c.best.instance = MQ_NO_INSTANCE;
    c.best.triangle = MQ_NO_TRIANGLE;
    c.bound2 = widen(c.best_d2);
    mq_tlas_visit_nearest(scene, p, query ? query->mask : 0xFFFFFFFFu, &c.bound2, visit_instance, &c);
    if (c.best.instance == MQ_NO_INSTANCE)
        return false;
    if (out)
        *out = c.best;
    return true;
}
