/* Turning a winning leaf lane into the public mq_hit. */
#ifndef MQ_TRAVERSE_HIT_RECORD_H
#define MQ_TRAVERSE_HIT_RECORD_H

#include "traverse/hit_mesh.h"
#include "traverse/trace.h"

/* Fills `out` for the hit `b` of query `q`: t, u, v recomputed in double from
 * the triangle's corners and t clamped into [tmin, tmax] of q->user_ray (reads
 * only q->user_ray, q->bvh and q->ray.t_shift). */
void mq_hit_from_best(const mq_trace *q, const mq_best *b, mq_hit *out);

/* out->t := t and out->point := origin + t * dir (in float). */
void mq_hit_set_t(const mq_ray *ray, float t, mq_hit *out);

#endif
