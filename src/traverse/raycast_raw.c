/* Closest hits without the hit record (traverse/raycast_raw.h). */
#include "traverse/raycast_raw.h"

#include <math.h>

#include "traverse/hit_record.h"

static const mq_ray_query query_both = {false, NULL, NULL, NULL};
static const mq_ray_query query_cull = {true, NULL, NULL, NULL};

bool mq_bvh_raycast_closest_raw(const mq_bvh *bvh, const mq_ray *ray, bool cull_back_faces, mq_raw_hit *out)
{
    mq_trace q;
    if (!bvh || !mq_trace_prepare(&q, bvh, ray, cull_back_faces ? &query_cull : &query_both))
        return false;
    mq_best best = mq_best_init(q.ray.tmax);
    mq_trace_counts counts = {0, 0, 0};
    if (!mq_kernels_active()->closest(&q, &best, &counts))
        return false;
    out->t = q.ray.t_shift ? ldexpf(best.t, q.ray.t_shift) : best.t;
    out->triangle = best.id;
    out->t_shift = q.ray.t_shift;
    out->best = best;
    return true;
}

void mq_bvh_raw_hit_record(const mq_bvh *bvh, const mq_ray *ray, const mq_raw_hit *h, mq_hit *out)
{
    /* The record needs only the rescaling, the caller's ray and the BVH. */
    mq_trace q;
    q.ray.t_shift = h->t_shift;
    q.user_ray = ray;
    q.bvh = bvh;
    mq_hit_from_best(&q, &h->best, out);
}
