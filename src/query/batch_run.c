/* The chunked parallel loop of the batches (query/batch_run.h). */
#include <stdatomic.h>

#include "core/pool.h"
#include "query/batch_run.h"

typedef struct run_job {
    mq_batch_chunk_fn fn;
    void *ctx;
    size_t count;
    size_t chunk;
    atomic_size_t next;
    uint64_t sums[MQ_POOL_MAX_THREADS];
} run_job;

static void worker(void *arg, uint32_t index)
{
    run_job *j = arg;
    uint64_t sum = 0;
    for (;;) {
        size_t begin = atomic_fetch_add_explicit(&j->next, j->chunk, memory_order_relaxed);
        if (begin >= j->count)
            break;
        size_t end = j->count - begin > j->chunk ? begin + j->chunk : j->count;
        sum += j->fn(j->ctx, begin, end);
    }
    j->sums[index] = sum;
}

uint64_t mq_batch_run(size_t count, size_t chunk, uint32_t threads, mq_batch_chunk_fn fn, void *ctx)
{
    if (count == 0)
        return 0;
    if (chunk == 0)
        chunk = 1;
    run_job j = {.fn = fn, .ctx = ctx, .count = count, .chunk = chunk};
    atomic_init(&j.next, 0);
    uint32_t n = mq_thread_count(threads);
    size_t chunks = (count - 1) / chunk + 1;
    if (n > chunks)
        n = (uint32_t)chunks;
    for (uint32_t t = 0; t < n; t++)
        j.sums[t] = 0;
    mq_run_parallel(n, worker, &j);
    uint64_t total = 0;
    for (uint32_t t = 0; t < n; t++)
        total += j.sums[t];
    return total;
}
