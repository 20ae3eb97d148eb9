/* Worker threads over POSIX threads. */
#include "build/threads.h"

#include <pthread.h>
#include <unistd.h>

#define MQ_MAX_THREADS 64

typedef struct worker {
    pthread_t thread;
    void (*fn)(void *, uint32_t);
    void *arg;
    uint32_t index;
    int started;
} worker;

uint32_t mq_thread_count(uint32_t requested)
{
    long n = requested;
    if (n == 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 1)
            n = 1;
    }
    return (uint32_t)(n > MQ_MAX_THREADS ? MQ_MAX_THREADS : n);
}

static void *worker_main(void *p)
{
    worker *w = p;
    w->fn(w->arg, w->index);
    return NULL;
}

void mq_run_parallel(uint32_t count, void (*fn)(void *arg, uint32_t index), void *arg)
{
    worker workers[MQ_MAX_THREADS];
    if (count > MQ_MAX_THREADS)
        count = MQ_MAX_THREADS;
    for (uint32_t i = 1; i < count; i++) {
        workers[i] = (worker){.fn = fn, .arg = arg, .index = i};
        workers[i].started = pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) == 0;
    }
    fn(arg, 0);
    for (uint32_t i = 1; i < count; i++)
        if (workers[i].started)
            pthread_join(workers[i].thread, NULL);
}
