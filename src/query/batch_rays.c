/*
 * Ray batches of meshquery/batch.h: the OBB tree's closest and any hits, and
 * every hit of many rays on the BVH in two passes (counts, then hits at the
 * caller's offsets). Each entry is the single call's answer for its own ray
 * (query/batch_run.h). The query is copied without its work counters, which
 * several threads would otherwise add to at once.
 */
#include <meshquery/batch.h>

#include "query/batch_run.h"

#define CHUNK 64

typedef enum ray_kind { R_CLOSEST, R_ANY, R_ALL_COUNT, R_ALL } ray_kind;

typedef struct ray_job {
    ray_kind kind;
    const mq_bvh *bvh;
    const mq_obbtree *tree;
    const mq_ray *rays;
    mq_ray_query query;
    mq_hit *hits;
    bool *occluded;
    uint32_t *counts;
    const uint64_t *offsets;
} ray_job;

static uint64_t chunk(void *ctx, size_t begin, size_t end)
{
    const ray_job *j = ctx;
    const mq_ray_query *q = &j->query;
    uint64_t sum = 0;
    for (size_t i = begin; i < end; i++) {
        switch (j->kind) {
        case R_CLOSEST:
            sum += mq_obbtree_raycast_closest(j->tree, &j->rays[i], q, &j->hits[i]);
            break;
        case R_ANY: {
            bool o = mq_obbtree_raycast_any(j->tree, &j->rays[i], q);
            j->occluded[i] = o;
            sum += o;
            break;
        }
        case R_ALL_COUNT: {
            size_t n = mq_bvh_raycast_all(j->bvh, &j->rays[i], q, NULL, 0);
            if (j->counts)
                j->counts[i] = (uint32_t)n;
            sum += n;
            break;
        }
        case R_ALL:
        default: {
            uint64_t first = j->offsets[i];
            uint64_t cap = j->offsets[i + 1] > first ? j->offsets[i + 1] - first : 0;
            if (cap == 0)
                break;
            size_t n = mq_bvh_raycast_all(j->bvh, &j->rays[i], q, j->hits + first, (size_t)cap);
            sum += n < cap ? n : cap;
            break;
        }
        }
    }
    return sum;
}

static uint64_t run(ray_job *j, const mq_ray_query *query, size_t count, uint32_t threads)
{
    if ((!j->bvh && !j->tree) || !j->rays)
        return 0;
    j->query = query ? *query : mq_default_ray_query();
    j->query.stats = NULL;
    return mq_batch_run(count, CHUNK, threads, chunk, j);
}

size_t mq_obbtree_raycast_closest_batch(const mq_obbtree *tree, const mq_ray *rays, size_t count,
                                        const mq_ray_query *query, uint32_t threads, mq_hit *hits)
{
    if (!hits)
        return 0;
    ray_job j = {.kind = R_CLOSEST, .tree = tree, .rays = rays, .hits = hits};
    return (size_t)run(&j, query, count, threads);
}

size_t mq_obbtree_raycast_any_batch(const mq_obbtree *tree, const mq_ray *rays, size_t count, const mq_ray_query *query,
                                    uint32_t threads, bool *occluded)
{
    if (!occluded)
        return 0;
    ray_job j = {.kind = R_ANY, .tree = tree, .rays = rays, .occluded = occluded};
    return (size_t)run(&j, query, count, threads);
}

uint64_t mq_bvh_raycast_all_count_batch(const mq_bvh *bvh, const mq_ray *rays, size_t count, const mq_ray_query *query,
                                        uint32_t threads, uint32_t *counts)
{
    ray_job j = {.kind = R_ALL_COUNT, .bvh = bvh, .rays = rays, .counts = counts};
    return run(&j, query, count, threads);
}

uint64_t mq_bvh_raycast_all_batch(const mq_bvh *bvh, const mq_ray *rays, size_t count, const mq_ray_query *query,
                                  uint32_t threads, const uint64_t *offsets, mq_hit *hits)
{
    if (!offsets || !hits)
        return 0;
    ray_job j = {.kind = R_ALL, .bvh = bvh, .rays = rays, .hits = hits, .offsets = offsets};
    return run(&j, query, count, threads);
}
