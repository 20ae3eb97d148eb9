/* Turning a winning leaf lane into the public mq_hit. */
#ifndef MQ_TRAVERSE_HIT_RECORD_H
#define MQ_TRAVERSE_HIT_RECORD_H

#include "traverse/hit_mesh.h"
#include "traverse/trace.h"

/* Fills `out` for the hit `b` of query `q`. */
void mq_hit_from_best(const mq_trace *q, const mq_best *b, mq_hit *out);

#endif
