/*
 * The library's one threading primitive: run a worker function on N threads
 * (the caller is one of them) and wait for all. Workers share their work
 * through the argument (a queue, an atomic counter), so a thread that could
 * not be started only costs speed, never correctness.
 */
#ifndef MQ_BUILD_THREADS_H
#define MQ_BUILD_THREADS_H

#include <stdint.h>

/* `requested`, or the number of online cores for 0; at least 1, at most 64. */
uint32_t mq_thread_count(uint32_t requested);

/* Calls fn(arg, i) for i = 0..count-1, each on its own thread (i = 0 on the
 * caller's), and returns when all have returned. */
void mq_run_parallel(uint32_t count, void (*fn)(void *arg, uint32_t index), void *arg);

#endif
