/* A minimal parallel-for for the OBJ reader's passes, on the library's thread
 * pool (core/pool.h): tasks (chunks) are handed out in increasing order from
 * an atomic counter, so a slow chunk does not hold the others back, and a pool
 * thread that starts late (or never) only leaves its share to the others. */
#include <stdatomic.h>

#include "core/pool.h"
#include "obj/obj_internal.h"

typedef struct parallel_job {
    void (*fn)(void *ctx, size_t task);
    void *ctx;
    size_t tasks;
    atomic_size_t next;
    atomic_uint ran; /* workers that ran at least one task */
} parallel_job;

static void worker(void *arg, uint32_t index)
{
    (void)index;
    parallel_job *job = arg;
    bool counted = false;
    for (;;) {
        size_t t = atomic_fetch_add(&job->next, 1);
        if (t >= job->tasks)
            return;
        if (!counted) {
            atomic_fetch_add(&job->ran, 1);
            counted = true;
        }
        job->fn(job->ctx, t);
    }
}

unsigned mq_obj_parallel(unsigned threads, size_t tasks, void (*fn)(void *ctx, size_t task), void *ctx)
{
    parallel_job job = {.fn = fn, .ctx = ctx, .tasks = tasks};
    atomic_init(&job.next, 0);
    atomic_init(&job.ran, 0);
    if (threads > MQ_POOL_MAX_THREADS)
        threads = MQ_POOL_MAX_THREADS;
    if (threads > tasks)
        threads = (unsigned)tasks;
    mq_run_parallel(threads, worker, &job);
    unsigned ran = atomic_load(&job.ran);
    return ran ? ran : 1;
}
