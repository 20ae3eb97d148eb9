/*
 * An internal closest-hit entry point for callers that trace many rays into
 * one hierarchy and keep only the best answer (the scene raycasts): the
 * traversal of mq_bvh_raycast_closest without the hit record. It returns the
 * winning (t, triangle, u, v) and where its corners live; the full mq_hit,
 * bit-identical to what mq_bvh_raycast_closest reports for the same ray, is
 * made once at the end by mq_bvh_raw_hit_record.
 */
#ifndef MQ_TRAVERSE_RAYCAST_RAW_H
#define MQ_TRAVERSE_RAYCAST_RAW_H

#include "traverse/trace.h"

/* A raw closest hit. */
typedef struct mq_raw_hit {
    float t;          /* in the caller's ray parameter (un-rescaled) */
    uint32_t triangle;
    int t_shift;      /* the ray's rescaling (trace.h) */
    mq_best best;     /* the kernel's record (internal t) */
} mq_raw_hit;

/*
 * mq_bvh_raycast_closest(bvh, ray, q, NULL) with q = the defaults and
 * cull_back_faces: no filter, no counters. @return true on a hit (then *out is set).
 */
bool mq_bvh_raycast_closest_raw(const mq_bvh *bvh, const mq_ray *ray, bool cull_back_faces, mq_raw_hit *out);

/* The record mq_bvh_raycast_closest gives for the hit `h` of `ray` (same ray, any tmin/tmax). */
void mq_bvh_raw_hit_record(const mq_bvh *bvh, const mq_ray *ray, const mq_raw_hit *h, mq_hit *out);

#endif
