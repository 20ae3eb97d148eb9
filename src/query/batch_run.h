/*
 * The loop every batch of batch.h runs on: [0, count) cut into chunks handed
 * out by an atomic counter to the threads of the persistent pool
 * (core/pool.h). Each chunk's function writes only its own entries, so the
 * outputs do not depend on the thread count; the per-thread sums it returns
 * are added after the join.
 */
#ifndef MQ_QUERY_BATCH_RUN_H
#define MQ_QUERY_BATCH_RUN_H

#include <stddef.h>
#include <stdint.h>

/* Answers entries [begin, end) of the batch `ctx`; returns their sum. */
typedef uint64_t (*mq_batch_chunk_fn)(void *ctx, size_t begin, size_t end);

/* Runs fn over [0, count) in chunks of `chunk` entries on `threads` threads
 * (0 = all online cores); returns the sum of what the calls returned. */
uint64_t mq_batch_run(size_t count, size_t chunk, uint32_t threads, mq_batch_chunk_fn fn, void *ctx);

#endif
