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
    /* The common call in one pass: the kernel set prepares the ray and traces
     * it in one function (closest_valid), and writes the record with its own
     * hit1; the same answer and record as the general path below. */
    if (bvh && ray && mq_ray_query_is_plain(query) && mq_trace_ray_ok(ray)) {
        const mq_kernels *k = mq_kernels_active();
        mq_trace q;
        mq_best best;
        if (k->closest_valid(bvh, ray, query && query->cull_back_faces, &q, &best)) {
            if (out)
                k->hit1(bvh, ray, q.ray.t_shift, &best, out);
            return true;
        }
        if (out)
            mq_hit_miss(out);
        return false;
    }
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
    return mq_kernels_active()->any_valid(bvh, ray, cull);
}

bool mq_bvh_raycast_any(const mq_bvh *bvh, const mq_ray *ray, const mq_ray_query *query)
{
    if (bvh && ray && mq_ray_query_is_plain(query) && mq_trace_ray_ok(ray))
        return mq_bvh_any_valid(bvh, ray, query && query->cull_back_faces);
    mq_trace q;
    if (!bvh || !mq_trace_prepare(&q, bvh, ray, query))
        return false;
    mq_trace_counts counts = {0, 0, 0};
    bool hit = mq_kernels_active()->any(&q, &counts);
    add_stats(&q, &counts);
    return hit;
}
