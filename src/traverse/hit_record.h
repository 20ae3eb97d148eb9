/* Turning a winning leaf lane into the public mq_hit. */
#ifndef MQ_TRAVERSE_HIT_RECORD_H
#define MQ_TRAVERSE_HIT_RECORD_H

#include "traverse/hit_mesh.h"
#include "traverse/trace.h"

/* Fills `out` for the hit `b` of query `q`: t, u, v recomputed in double from
 * the triangle's corners and t clamped into [tmin, tmax] of q->user_ray (reads
 * only q->user_ray, q->bvh and q->ray.t_shift). */
void mq_hit_from_best(const mq_trace *q, const mq_best *b, mq_hit *out);

/* The same from its parts: the BVH, the caller's ray and the query's t_shift
 * (mq_ray_prep; 0 unless the direction was rescaled). */
void mq_hit_from_lane(const mq_bvh *bvh, const mq_ray *ray, int t_shift, const mq_best *b, mq_hit *out);

/* The record from its computed parts: t (final, in [tmin, tmax]), u, v and the
 * unit normal; the point, side, ids and mesh attributes are filled here. */
void mq_hit_fill(const mq_bvh *bvh, const mq_ray *ray, const mq_best *b, float t, float u, float v,
                 const float normal[3], mq_hit *out);

/* out->t := t and out->point := origin + t * dir (in float). */
void mq_hit_set_t(const mq_ray *ray, float t, mq_hit *out);

#endif
