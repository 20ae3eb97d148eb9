/*
 * Batches of shape queries (meshquery/batch.h): overlap counts and
 * any-overlap answers of tagged shapes, sphere and capsule casts, on either
 * hierarchy. Each entry is the single call's answer for its own shape
 * (query/batch_run.h).
 */
#include <meshquery/batch.h>

#include "query/batch_run.h"

#define CHUNK 16

typedef enum shape_kind { S_COUNT, S_ANY, S_SPHERE_CAST, S_CAPSULE_CAST } shape_kind;

typedef struct shape_job {
    shape_kind kind;
    const mq_bvh *bvh;      /* one of bvh, */
    const mq_obbtree *tree; /* tree */
    const mq_shape *shapes;
    const mq_sphere *spheres;
    const mq_capsule *capsules;
    const float *dirs;
    float tmax;
    uint64_t *counts;
    bool *flags;
    mq_cast_hit *casts;
} shape_job;

static uint64_t cast_one(const shape_job *j, size_t i)
{
    const float *d = j->dirs + 3 * i;
    mq_cast_hit *out = &j->casts[i];
    if (j->kind == S_SPHERE_CAST)
        return j->bvh ? mq_bvh_sphere_cast(j->bvh, &j->spheres[i], d, j->tmax, out)
                      : mq_obbtree_sphere_cast(j->tree, &j->spheres[i], d, j->tmax, out);
    return j->bvh ? mq_bvh_capsule_cast(j->bvh, &j->capsules[i], d, j->tmax, out)
                  : mq_obbtree_capsule_cast(j->tree, &j->capsules[i], d, j->tmax, out);
}

static uint64_t chunk(void *ctx, size_t begin, size_t end)
{
    const shape_job *j = ctx;
    uint64_t sum = 0;
    for (size_t i = begin; i < end; i++) {
        switch (j->kind) {
        case S_COUNT: {
            size_t n = j->bvh ? mq_bvh_overlap_array(j->bvh, &j->shapes[i], NULL, 0)
                              : mq_obbtree_overlap_array(j->tree, &j->shapes[i], NULL, 0);
            if (j->counts)
                j->counts[i] = n;
            sum += n;
            break;
        }
        case S_ANY: {
            bool any =
                j->bvh ? mq_bvh_overlap_any(j->bvh, &j->shapes[i]) : mq_obbtree_overlap_any(j->tree, &j->shapes[i]);
            j->flags[i] = any;
            sum += any;
            break;
        }
        case S_SPHERE_CAST:
        case S_CAPSULE_CAST:
        default:
            sum += cast_one(j, i);
            break;
        }
    }
    return sum;
}

static uint64_t run(shape_job *j, size_t count, uint32_t threads)
{
    if (!j->bvh && !j->tree)
        return 0;
    return mq_batch_run(count, CHUNK, threads, chunk, j);
}

uint64_t mq_bvh_overlap_count_batch(const mq_bvh *bvh, const mq_shape *shapes, size_t count, uint32_t threads,
                                    uint64_t *counts)
{
    if (!shapes)
        return 0;
    shape_job j = {.kind = S_COUNT, .bvh = bvh, .shapes = shapes, .counts = counts};
    return run(&j, count, threads);
}

uint64_t mq_obbtree_overlap_count_batch(const mq_obbtree *tree, const mq_shape *shapes, size_t count, uint32_t threads,
                                        uint64_t *counts)
{
    if (!shapes)
        return 0;
    shape_job j = {.kind = S_COUNT, .tree = tree, .shapes = shapes, .counts = counts};
    return run(&j, count, threads);
}

size_t mq_bvh_overlap_any_batch(const mq_bvh *bvh, const mq_shape *shapes, size_t count, uint32_t threads, bool *out)
{
    if (!shapes || !out)
        return 0;
    shape_job j = {.kind = S_ANY, .bvh = bvh, .shapes = shapes, .flags = out};
    return (size_t)run(&j, count, threads);
}

size_t mq_obbtree_overlap_any_batch(const mq_obbtree *tree, const mq_shape *shapes, size_t count, uint32_t threads,
                                    bool *out)
{
    if (!shapes || !out)
        return 0;
    shape_job j = {.kind = S_ANY, .tree = tree, .shapes = shapes, .flags = out};
    return (size_t)run(&j, count, threads);
}

size_t mq_bvh_sphere_cast_batch(const mq_bvh *bvh, const mq_sphere *spheres, const float *dirs, size_t count,
                                float tmax, uint32_t threads, mq_cast_hit *out)
{
    if (!spheres || !dirs || !out)
        return 0;
    shape_job j = {.kind = S_SPHERE_CAST, .bvh = bvh, .spheres = spheres, .dirs = dirs, .tmax = tmax, .casts = out};
    return (size_t)run(&j, count, threads);
}

size_t mq_obbtree_sphere_cast_batch(const mq_obbtree *tree, const mq_sphere *spheres, const float *dirs, size_t count,
                                    float tmax, uint32_t threads, mq_cast_hit *out)
{
    if (!spheres || !dirs || !out)
        return 0;
    shape_job j = {.kind = S_SPHERE_CAST, .tree = tree, .spheres = spheres, .dirs = dirs, .tmax = tmax, .casts = out};
    return (size_t)run(&j, count, threads);
}

size_t mq_bvh_capsule_cast_batch(const mq_bvh *bvh, const mq_capsule *capsules, const float *dirs, size_t count,
                                 float tmax, uint32_t threads, mq_cast_hit *out)
{
    if (!capsules || !dirs || !out)
        return 0;
    shape_job j = {.kind = S_CAPSULE_CAST, .bvh = bvh, .capsules = capsules, .dirs = dirs, .tmax = tmax, .casts = out};
    return (size_t)run(&j, count, threads);
}

size_t mq_obbtree_capsule_cast_batch(const mq_obbtree *tree, const mq_capsule *capsules, const float *dirs,
                                     size_t count, float tmax, uint32_t threads, mq_cast_hit *out)
{
    if (!capsules || !dirs || !out)
        return 0;
    shape_job j = {
        .kind = S_CAPSULE_CAST, .tree = tree, .capsules = capsules, .dirs = dirs, .tmax = tmax, .casts = out};
    return (size_t)run(&j, count, threads);
}
