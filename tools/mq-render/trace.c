/*
 * Tracing the camera rays. Two paths:
 *  - the fast path hands rays to mq_bvh_raycast_closest_batch in 4x2 pixel
 *    tiles (the batch traces 8 coherent rays as one SIMD packet), a chunk at a
 *    time so only a chunk's full mq_hit records are ever in memory;
 *  - the heat path traces each ray alone on our own threads, because the
 *    batch sums its work counters over all rays (and counts a packet's node
 *    once), while a heat map needs every pixel's own count.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "render.h"

/* Rays per batch call: large enough to keep every thread busy, small enough
 * that the chunk's mq_hit records stay a few MiB. */
#define CHUNK_RAYS 65536u

static void store(render_sample *s, const mq_hit *hit, const mq_ray *ray, uint32_t visits)
{
    s->t = hit->t;
    s->triangle = hit->triangle;
    s->visits = visits;
    if (hit->triangle == MQ_NO_TRIANGLE) {
        s->normal[0] = s->normal[1] = s->normal[2] = 0.0f;
        return;
    }
    /* Shade the side the camera sees: an open mesh shows its back faces too. */
    float d = hit->normal[0] * ray->dir[0] + hit->normal[1] * ray->dir[1] + hit->normal[2] * ray->dir[2];
    float sign = d > 0.0f ? -1.0f : 1.0f;
    for (int k = 0; k < 3; k++)
        s->normal[k] = sign * hit->normal[k];
}

static bool trace_batched(const mq_bvh *bvh, const mq_ray *rays, uint32_t width, uint32_t height, uint32_t threads,
                          render_sample *samples)
{
    mq_ray *chunk = malloc(CHUNK_RAYS * sizeof *chunk);
    uint32_t *pixel = malloc(CHUNK_RAYS * sizeof *pixel);
    mq_hit *hits = malloc(CHUNK_RAYS * sizeof *hits);
    bool ok = chunk && pixel && hits;
    size_t n = 0;
    for (uint32_t ty = 0; ok && ty < height; ty += 2) {
        for (uint32_t tx = 0; tx < width; tx += 4) {
            for (uint32_t y = ty; y < ty + 2 && y < height; y++) {
                for (uint32_t x = tx; x < tx + 4 && x < width; x++) {
                    uint32_t p = y * width + x;
                    chunk[n] = rays[p];
                    pixel[n++] = p;
                }
            }
            /* Flush when the next tile might not fit, or at the very end. */
            bool last = ty + 2 >= height && tx + 4 >= width;
            if (n + 8 > CHUNK_RAYS || last) {
                mq_bvh_raycast_closest_batch(bvh, chunk, n, NULL, threads, hits);
                for (size_t i = 0; i < n; i++)
                    store(&samples[pixel[i]], &hits[i], &chunk[i], 0);
                n = 0;
            }
        }
    }
    free(hits);
    free(pixel);
    free(chunk);
    return ok;
}

typedef struct heat_job {
    const mq_bvh *bvh;
    const mq_ray *rays;
    uint32_t width, height;
    render_sample *samples;
    atomic_uint next_row; /* rows are handed out one at a time: cost varies a lot by row */
} heat_job;

static void *heat_worker(void *arg)
{
    heat_job *job = arg;
    for (;;) {
        uint32_t y = atomic_fetch_add(&job->next_row, 1u);
        if (y >= job->height)
            break;
        for (uint32_t x = 0; x < job->width; x++) {
            size_t p = (size_t)y * job->width + x;
            mq_ray_stats stats = {0, 0, 0};
            mq_ray_query q = mq_default_ray_query();
            q.stats = &stats;
            mq_hit hit;
            mq_bvh_raycast_closest(job->bvh, &job->rays[p], &q, &hit);
            uint64_t v = stats.node_visits + stats.leaf_visits;
            store(&job->samples[p], &hit, &job->rays[p], v > UINT32_MAX ? UINT32_MAX : (uint32_t)v);
        }
    }
    return NULL;
}

static bool trace_counted(const mq_bvh *bvh, const mq_ray *rays, uint32_t width, uint32_t height, uint32_t threads,
                          render_sample *samples)
{
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (uint32_t)n : 1u;
    }
    if (threads > height)
        threads = height;
    heat_job job = {bvh, rays, width, height, samples, 0};
    pthread_t *ids = malloc(threads * sizeof *ids);
    if (!ids)
        return false;
    /* The calling thread works too; extra threads that fail to start just
     * leave more rows to the others. */
    uint32_t started = 0;
    for (uint32_t i = 1; i < threads; i++)
        if (pthread_create(&ids[started], NULL, heat_worker, &job) == 0)
            started++;
    heat_worker(&job);
    for (uint32_t i = 0; i < started; i++)
        pthread_join(ids[i], NULL);
    free(ids);
    return true;
}

bool render_trace(const mq_bvh *bvh, const mq_ray *rays, uint32_t width, uint32_t height, bool count_visits,
                  uint32_t threads, render_sample *samples)
{
    return count_visits ? trace_counted(bvh, rays, width, height, threads, samples)
                        : trace_batched(bvh, rays, width, height, threads, samples);
}
