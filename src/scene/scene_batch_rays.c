/*
 * Scene ray batches (meshquery/scene.h): chunks of consecutive rays handed
 * out by an atomic counter to the pool's threads. Each entry is the
 * single-ray query's answer (from ISA level AVX2 up, core/isa.h, they come
 * from the stream of scene_stream_avx2.c, which gives the same answers
 * faster), so the output
 * is the same for any thread count.
 */
#include <stdatomic.h>

#include "core/pool.h"
#include "scene/scene_raycast.h"

/* Rays per chunk: small enough to balance uneven rays, large enough that the
 * counter stays cold and the stream's lanes rarely run dry at a chunk's end. */
#define CHUNK 256

typedef struct batch {
    const mq_scene *scene;
    const mq_dray *rays;
    size_t count;
    const mq_scene_query *query;
    mq_scene_hit *hits; /* closest, or */
    bool *occluded;     /* any */
    bool stream;        /* through mq_scene_stream_closest_avx2 / _any_avx2 */
    atomic_size_t next;
    atomic_size_t found;
} batch;

static void worker(void *arg, uint32_t index)
{
    (void)index;
    batch *b = arg;
    size_t found = 0;
    for (;;) {
        size_t begin = atomic_fetch_add_explicit(&b->next, CHUNK, memory_order_relaxed);
        if (begin >= b->count)
            break;
        size_t end = begin + CHUNK < b->count ? begin + CHUNK : b->count;
#if defined(MQ_ISA_SIMD)
        if (b->stream) {
            found +=
                b->hits
                    ? mq_scene_stream_closest_avx2(b->scene, b->rays + begin, end - begin, b->query, b->hits + begin)
                    : mq_scene_stream_any_avx2(b->scene, b->rays + begin, end - begin, b->query, b->occluded + begin);
            continue;
        }
#endif
        for (size_t i = begin; i < end; i++) {
            if (b->hits) {
                found += mq_scene_raycast_closest(b->scene, &b->rays[i], b->query, &b->hits[i]);
            } else {
                b->occluded[i] = mq_scene_raycast_any(b->scene, &b->rays[i], b->query);
                found += b->occluded[i];
            }
        }
    }
    atomic_fetch_add_explicit(&b->found, found, memory_order_relaxed);
}

static size_t run(batch *b, uint32_t threads)
{
#if defined(MQ_ISA_SIMD)
    b->stream = b->scene && mq_isa_active() >= MQ_ISA_AVX2 && b->scene->walk_stack <= MQ_SCENE_STREAM_STACK;
#endif
    atomic_init(&b->next, 0);
    atomic_init(&b->found, 0);
    if (b->count == 0)
        return 0;
    uint32_t n = mq_thread_count(threads);
    size_t chunks = (b->count + CHUNK - 1) / CHUNK;
    if (n > chunks)
        n = (uint32_t)chunks;
    mq_run_parallel(n, worker, b);
    return atomic_load(&b->found);
}

size_t mq_scene_raycast_closest_batch(const mq_scene *s, const mq_dray *rays, size_t count, const mq_scene_query *query,
                                      uint32_t threads, mq_scene_hit *hits)
{
    if (!rays || !hits)
        return 0;
    batch b = {.scene = s, .rays = rays, .count = count, .query = query, .hits = hits};
    return run(&b, threads);
}

size_t mq_scene_raycast_any_batch(const mq_scene *s, const mq_dray *rays, size_t count, const mq_scene_query *query,
                                  uint32_t threads, bool *occluded)
{
    if (!rays || !occluded)
        return 0;
    batch b = {.scene = s, .rays = rays, .count = count, .query = query, .occluded = occluded};
    return run(&b, threads);
}
