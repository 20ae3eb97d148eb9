/*
 * The library's one threading primitive: run a worker function N times in
 * parallel (the caller runs index 0) and wait for all, on a process-wide pool
 * of persistent threads.
 *
 * Workers share their work through the argument (a queue, an atomic counter):
 * an index may start late, or run on the same thread as another index after it
 * returned, so a worker must never wait for another index to be running at the
 * same time. That costs speed at worst, never correctness, and it is what
 * makes nested calls (a worker calling mq_run_parallel) and calls from any
 * number of user threads at once safe: a caller never waits for an index that
 * has not started, it runs such indices itself.
 *
 * The pool starts on first use, grows to the largest count requested (at most
 * MQ_POOL_MAX_THREADS threads in all, the callers included) and creates no
 * thread after that. A thread that cannot be created only means fewer threads.
 * Pool threads are detached and idle between calls; they end with the process.
 */
#ifndef MQ_CORE_POOL_H
#define MQ_CORE_POOL_H

#include <stdint.h>

#define MQ_POOL_MAX_THREADS 64

/* `requested`, or the number of online cores for 0; at least 1, at most 64. */
uint32_t mq_thread_count(uint32_t requested);

/* Calls fn(arg, i) once for every i = 0..count-1, i = 0 on the caller's thread
 * and the others on pool threads or, when none is free, on the caller's;
 * returns when all have returned. count 0 or 1 calls fn(arg, 0) only. */
void mq_run_parallel(uint32_t count, void (*fn)(void *arg, uint32_t index), void *arg);

#endif
