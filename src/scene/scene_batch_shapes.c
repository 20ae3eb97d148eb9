/*
 * Batches of shape queries and closest points (scene.h "Batches"): the
 * queries are cut into chunks taken from an atomic counter by the threads of
 * the persistent pool (core/pool.h); each entry is computed by the single
 * query on its own input and written to its own slot, so the results do not
 * depend on the thread count or on which thread ran what. The returned sums
 * are added up per thread and combined after the join.
 */
#include <stdatomic.h>

#include "core/pool.h"
#include "scene/instance_overlap.h"

#define MQ_BATCH_CHUNK 16u

typedef enum batch_kind { BATCH_ANY, BATCH_COUNT, BATCH_CLOSEST } batch_kind;

typedef struct batch_job {
    batch_kind kind;
    const mq_scene *scene;
    const mq_scene_query *query;
    size_t count;
    atomic_size_t next;
    /* inputs */
    const mq_dshape *shapes;
    const mq_dvec3 *points;
    double max_distance;
    /* outputs */
    bool *any_out;
    uint64_t *counts;
    mq_scene_point_hit *hits;
    bool *found;
    /* per-thread sums */
    uint64_t sums[MQ_POOL_MAX_THREADS];
} batch_job;

static bool count_all(uint32_t instance, uint32_t triangle, void *user)
{
    (void)instance;
    (void)triangle;
    (void)user;
    return true;
}

static uint64_t run_one(batch_job *j, size_t i)
{
    switch (j->kind) {
    case BATCH_ANY: {
        bool any = mq_scene_overlap_any(j->scene, &j->shapes[i], j->query);
        j->any_out[i] = any;
        return any;
    }
    case BATCH_COUNT: {
        uint64_t n = mq_scene_overlap(j->scene, &j->shapes[i], j->query, count_all, NULL);
        if (j->counts)
            j->counts[i] = n;
        return n;
    }
    case BATCH_CLOSEST:
    default: {
        mq_scene_point_hit *out = j->hits ? &j->hits[i] : NULL;
        bool f = mq_scene_closest_point(j->scene, j->points[i], j->max_distance, j->query, out);
        if (j->found)
            j->found[i] = f;
        return f;
    }
    }
}

static void worker(void *arg, uint32_t index)
{
    batch_job *j = arg;
    uint64_t sum = 0;
    for (;;) {
        size_t first = atomic_fetch_add_explicit(&j->next, MQ_BATCH_CHUNK, memory_order_relaxed);
        if (first >= j->count)
            break;
        size_t end = first + MQ_BATCH_CHUNK < j->count ? first + MQ_BATCH_CHUNK : j->count;
        for (size_t i = first; i < end; i++)
            sum += run_one(j, i);
    }
    j->sums[index] = sum;
}

static uint64_t run(batch_job *j, uint32_t threads)
{
    uint32_t n = mq_thread_count(threads);
    size_t chunks = (j->count + MQ_BATCH_CHUNK - 1) / MQ_BATCH_CHUNK;
    if (n > chunks)
        n = chunks ? (uint32_t)chunks : 1u;
    if (n > MQ_POOL_MAX_THREADS)
        n = MQ_POOL_MAX_THREADS;
    atomic_init(&j->next, 0);
    for (uint32_t t = 0; t < n; t++)
        j->sums[t] = 0;
    mq_run_parallel(n, worker, j);
    uint64_t total = 0;
    for (uint32_t t = 0; t < n; t++)
        total += j->sums[t];
    return total;
}

static void job_init(batch_job *j, batch_kind kind, const mq_scene *scene, const mq_scene_query *query, size_t count)
{
    j->kind = kind;
    j->scene = scene;
    j->query = query;
    j->count = count;
    j->shapes = NULL;
    j->points = NULL;
    j->max_distance = 0.0;
    j->any_out = NULL;
    j->counts = NULL;
    j->hits = NULL;
    j->found = NULL;
}

size_t mq_scene_overlap_any_batch(const mq_scene *scene, const mq_dshape *shapes, size_t count,
                                  const mq_scene_query *query, uint32_t threads, bool *out)
{
    if (!scene || !shapes || !out || count == 0)
        return 0;
    batch_job j;
    job_init(&j, BATCH_ANY, scene, query, count);
    j.shapes = shapes;
    j.any_out = out;
    return (size_t)run(&j, threads);
}

uint64_t mq_scene_overlap_count_batch(const mq_scene *scene, const mq_dshape *shapes, size_t count,
                                      const mq_scene_query *query, uint32_t threads, uint64_t *counts)
{
    if (!scene || !shapes || count == 0)
        return 0;
    batch_job j;
    job_init(&j, BATCH_COUNT, scene, query, count);
    j.shapes = shapes;
    j.counts = counts;
    return run(&j, threads);
}

size_t mq_scene_closest_point_batch(const mq_scene *scene, const mq_dvec3 *points, size_t count, double max_distance,
                                    const mq_scene_query *query, uint32_t threads, mq_scene_point_hit *out, bool *found)
{
    if (!scene || !points || count == 0)
        return 0;
    batch_job j;
    job_init(&j, BATCH_CLOSEST, scene, query, count);
    j.points = points;
    j.max_distance = max_distance;
    j.hits = out;
    j.found = found;
    return (size_t)run(&j, threads);
}
