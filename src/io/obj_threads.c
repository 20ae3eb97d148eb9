/* A minimal parallel-for for the OBJ reader's passes: tasks (chunks) are
 * handed out in increasing order from an atomic counter, so a slow chunk does
 * not hold the others back. Threads live for one pass: a pass over a file worth
 * threading takes milliseconds, thread start-up microseconds. */
#include <pthread.h>
#include <stdatomic.h>

#include "io/obj_internal.h"

#define OBJ_MAX_THREADS 64

typedef struct parallel_job {
    void (*fn)(void *ctx, size_t task);
    void *ctx;
    size_t tasks;
    atomic_size_t next;
} parallel_job;

static void *worker(void *arg)
{
    parallel_job *job = arg;
    for (;;) {
        size_t t = atomic_fetch_add(&job->next, 1);
        if (t >= job->tasks)
            return NULL;
        job->fn(job->ctx, t);
    }
}

unsigned mq_obj_parallel(unsigned threads, size_t tasks, void (*fn)(void *ctx, size_t task), void *ctx)
{
    parallel_job job = {fn, ctx, tasks, 0};
    if (threads > OBJ_MAX_THREADS)
        threads = OBJ_MAX_THREADS;
    if (threads > tasks)
        threads = (unsigned)tasks;
    pthread_t ids[OBJ_MAX_THREADS];
    unsigned started = 0;
    /* if a thread cannot start, the ones that did (and this one) do its share */
    while (started + 1 < threads && pthread_create(&ids[started], NULL, worker, &job) == 0)
        started++;
    worker(&job);
    for (unsigned i = 0; i < started; i++)
        pthread_join(ids[i], NULL);
    return started + 1;
}
