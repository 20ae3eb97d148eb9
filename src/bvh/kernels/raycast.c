/* Single-ray queries: closest hit and any hit (meshquery/bvh.h). */
#include "bvh/kernels/hit_record.h"
#include "bvh/kernels/trace.h"

mq_ray_query mq_default_ray_query(void)
{
    return (mq_ray_query){false, NULL, NULL, NULL};
}

static void add_stats(const mq_trace *q, const mq_trace_counts *c)
{
    mq_ray_stats *s = q->query->stats;
    if (!s)
        return;
    s->node_visits += c->nodes;
    s->leaf_visits += c->leaves;
    s->triangle_tests += c->blocks * MQ_TRI_BLOCK;
}

bool mq_trace_filter_accepts(const mq_trace *q, const mq_best *candidate)
{
    mq_hit h;
    mq_hit_from_best(q, candidate, &h);
    return q->query->filter(&h, q->query->filter_user);
}

bool mq_bvh_raycast_closest(const mq_bvh *bvh, const mq_ray *ray, const mq_ray_query *query, mq_hit *out)
{
    mq_trace q;
    if (!bvh || !mq_trace_prepare(&q, bvh, ray, query)) {
        if (out)
            mq_hit_miss(out);
        return false;
    }
    mq_best best = mq_best_init(q.ray.tmax);
    mq_trace_counts counts = {0, 0, 0};
    bool hit = mq_kernels_active()->closest(&q, &best, &counts);
    add_stats(&q, &counts);
    if (out) {
        if (hit)
            mq_hit_from_best(&q, &best, out);
        else
            mq_hit_miss(out);
    }
    return hit;
}

bool mq_bvh_closest_valid(const mq_bvh *bvh, const mq_ray *ray, bool cull, mq_hit *out)
{
    const mq_kernels *k = mq_kernels_active();
    mq_trace q;
    mq_best best;
    if (!k->closest_valid(bvh, ray, cull, &q, &best))
        return false;
    mq_hit_from_best(&q, &best, out);
    return true;
}

bool mq_bvh_any_valid(const mq_bvh *bvh, const mq_ray *ray, bool cull)
{
    const mq_kernels *k = mq_kernels_active();
    mq_trace q;
    k->prepare_valid(&q, bvh, ray, cull);
    mq_trace_counts counts = {0, 0, 0};
    return k->any(&q, &counts);
}

bool mq_bvh_raycast_any(const mq_bvh *bvh, const mq_ray *ray, const mq_ray_query *query)
{
    mq_trace q;
    if (!bvh || !mq_trace_prepare(&q, bvh, ray, query))
        return false;
    mq_trace_counts counts = {0, 0, 0};
    bool hit = mq_kernels_active()->any(&q, &counts);
    add_stats(&q, &counts);
    return hit;
}
