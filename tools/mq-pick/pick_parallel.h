/* Writing the closest hits of many rays, formatted on several threads. */
#ifndef MQ_PICK_PARALLEL_H
#define MQ_PICK_PARALLEL_H

#include "pick_output.h"

/*
 * Writes hits[i] (a miss where triangle == MQ_NO_TRIANGLE) on instance instances[i]
 * (all 0 when instances is NULL) for rays 0..n-1,
 * exactly as n calls of pick_write_hit would, formatting JSON and CSV text on
 * `threads` threads (0 = all online cores; other formats, or threads <= 1: on this thread),
 * which also write it out, in order, while the others format the rest.
 * Returns false on a write or memory failure.
 */
bool pick_write_closest_hits(pick_writer *w, const mq_hit *hits, const uint32_t *instances, size_t n, uint32_t threads);

#endif
