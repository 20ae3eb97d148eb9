/*
 * Batches of point queries (meshquery/batch.h): closest points, winding
 * numbers, inside tests and signed distances on either hierarchy. Each entry
 * is the single call's answer for its own point (query/batch_run.h).
 */
#include <math.h>
#include <string.h>

#include <meshquery/batch.h>

#include "query/batch_run.h"

/* Closest points and signed distances of 16 points per chunk: enough work
 * (a tree walk each) to keep the shared counter cold. */
#define CHUNK 16

typedef enum point_kind { P_CLOSEST, P_WINDING, P_INSIDE, P_SIGNED } point_kind;

typedef struct point_job {
    point_kind kind;
    const mq_bvh *bvh;      /* one of bvh, */
    const mq_obbtree *tree; /* tree */
    const float *points;
    float max_distance;
    mq_point_hit *hits;
    bool *flags;
    int32_t *winding;
    float *distance;
} point_job;

static void miss(mq_point_hit *h)
{
    memset(h, 0, sizeof *h);
    h->distance = INFINITY;
    h->triangle = MQ_NO_TRIANGLE;
}

static uint64_t closest(const point_job *j, size_t i, const float *p)
{
    mq_point_hit h;
    bool f = j->bvh ? mq_bvh_closest_point(j->bvh, p, j->max_distance, &h)
                    : mq_obbtree_closest_point(j->tree, p, j->max_distance, &h);
    if (!f)
        miss(&h);
    if (j->hits)
        j->hits[i] = h;
    if (j->flags)
        j->flags[i] = f;
    return f;
}

static uint64_t signed_distance(const point_job *j, size_t i, const float *p)
{
    mq_point_hit h;
    float d = NAN;
    bool f = j->bvh ? mq_bvh_signed_distance(j->bvh, p, &d, &h) : mq_obbtree_signed_distance(j->tree, p, &d, &h);
    if (!f) {
        d = NAN;
        miss(&h);
    }
    if (j->distance)
        j->distance[i] = d;
    if (j->hits)
        j->hits[i] = h;
    return f;
}

static uint64_t chunk(void *ctx, size_t begin, size_t end)
{
    const point_job *j = ctx;
    uint64_t sum = 0;
    for (size_t i = begin; i < end; i++) {
        const float *p = j->points + 3 * i;
        switch (j->kind) {
        case P_CLOSEST:
            sum += closest(j, i, p);
            break;
        case P_SIGNED:
            sum += signed_distance(j, i, p);
            break;
        case P_WINDING:
        case P_INSIDE:
        default: {
            int w = j->bvh ? mq_bvh_winding_number(j->bvh, p) : mq_obbtree_winding_number(j->tree, p);
            if (j->winding)
                j->winding[i] = w;
            if (j->flags)
                j->flags[i] = w != 0;
            sum += w != 0;
            break;
        }
        }
    }
    return sum;
}

static size_t run(point_job *j, size_t count, uint32_t threads)
{
    if ((!j->bvh && !j->tree) || !j->points)
        return 0;
    return (size_t)mq_batch_run(count, CHUNK, threads, chunk, j);
}

size_t mq_bvh_closest_point_batch(const mq_bvh *bvh, const float *points, size_t count, float max_distance,
                                  uint32_t threads, mq_point_hit *out, bool *found)
{
    point_job j = {
        .kind = P_CLOSEST, .bvh = bvh, .points = points, .max_distance = max_distance, .hits = out, .flags = found};
    return run(&j, count, threads);
}

size_t mq_obbtree_closest_point_batch(const mq_obbtree *tree, const float *points, size_t count, float max_distance,
                                      uint32_t threads, mq_point_hit *out, bool *found)
{
    point_job j = {
        .kind = P_CLOSEST, .tree = tree, .points = points, .max_distance = max_distance, .hits = out, .flags = found};
    return run(&j, count, threads);
}

size_t mq_bvh_winding_number_batch(const mq_bvh *bvh, const float *points, size_t count, uint32_t threads, int32_t *out)
{
    if (!out)
        return 0;
    point_job j = {.kind = P_WINDING, .bvh = bvh, .points = points, .winding = out};
    return run(&j, count, threads);
}

size_t mq_obbtree_winding_number_batch(const mq_obbtree *tree, const float *points, size_t count, uint32_t threads,
                                       int32_t *out)
{
    if (!out)
        return 0;
    point_job j = {.kind = P_WINDING, .tree = tree, .points = points, .winding = out};
    return run(&j, count, threads);
}

size_t mq_bvh_inside_batch(const mq_bvh *bvh, const float *points, size_t count, uint32_t threads, bool *inside)
{
    if (!inside)
        return 0;
    point_job j = {.kind = P_INSIDE, .bvh = bvh, .points = points, .flags = inside};
    return run(&j, count, threads);
}

size_t mq_obbtree_inside_batch(const mq_obbtree *tree, const float *points, size_t count, uint32_t threads,
                               bool *inside)
{
    if (!inside)
        return 0;
    point_job j = {.kind = P_INSIDE, .tree = tree, .points = points, .flags = inside};
    return run(&j, count, threads);
}

size_t mq_bvh_signed_distance_batch(const mq_bvh *bvh, const float *points, size_t count, uint32_t threads,
                                    float *distance, mq_point_hit *closest_out)
{
    point_job j = {.kind = P_SIGNED, .bvh = bvh, .points = points, .distance = distance, .hits = closest_out};
    return run(&j, count, threads);
}

size_t mq_obbtree_signed_distance_batch(const mq_obbtree *tree, const float *points, size_t count, uint32_t threads,
                                        float *distance, mq_point_hit *closest_out)
{
    point_job j = {.kind = P_SIGNED, .tree = tree, .points = points, .distance = distance, .hits = closest_out};
    return run(&j, count, threads);
}
