/* Turning a winning leaf lane into the public mq_hit. */
#ifndef MQ_BVH_KERNELS_HIT_RECORD_H
#define MQ_BVH_KERNELS_HIT_RECORD_H

#include "bvh/kernels/hit_mesh.h"
#include "bvh/kernels/trace.h"

/* Fills `out` for the hit `b` of query `q`: t, u, v recomputed in double from
 * the triangle's corners and t clamped into [tmin, tmax] of q->user_ray (reads
 * only q->user_ray, q->bvh and q->ray.t_shift), with the active kernel set's hit1
 * where it has one (the same bits). */
void mq_hit_from_best(const mq_trace *q, const mq_best *b, mq_hit *out);

/* The same from its parts: the BVH, the caller's ray and the query's t_shift
 * (mq_ray_prep; 0 unless the direction was rescaled). */
void mq_hit_from_lane(const mq_bvh *bvh, const mq_ray *ray, int t_shift, const mq_best *b, mq_hit *out);

/* out->t := t and out->point := origin + t * dir (in float). */
static inline void mq_hit_set_t(const mq_ray *ray, float t, mq_hit *out)
{
    out->t = t;
    for (int k = 0; k < 3; k++)
        out->point[k] = ray->origin[k] + t * ray->dir[k];
}

/* The record from its computed parts: t (final, in [tmin, tmax]), u, v and the
 * unit normal; the point, side, ids and mesh attributes are filled here.
 * Inline: it runs once per reported hit, and a mesh without attributes
 * (mq_mesh_hits_are_bare) takes no call at all. */
static inline void mq_hit_fill(const mq_bvh *bvh, const mq_ray *ray, const mq_best *b, float t, float u, float v,
                               const float normal[3], mq_hit *out)
{
    const mq_mesh *m = bvh->mesh;
    mq_hit_set_t(ray, t, out);
    out->u = u;
    out->v = v;
    for (int k = 0; k < 3; k++)
        out->normal[k] = normal[k];
    out->back_face = b->back_face;
    out->triangle = b->id;
    out->face = mq_mesh_face_of(m, b->id);
    if (mq_mesh_hits_are_bare(m))
        mq_hit_bare_attributes(out);
    else
        mq_hit_mesh_attributes(m, out);
}

/*
 * Hit records written four at a time by the kernel set's hits4 (the same
 * bits as mq_hit_from_lane, fewer instructions per record), one by one (its hit1) for a single pending one. A record is
 * written when four are pending or at mq_hit_queue_flush, which the caller
 * runs before it reads or returns any.
 */
typedef struct mq_hit_queue {
    const mq_kernels *k;
    const mq_bvh *bvh;
    int n;
    const mq_ray *ray[4];
    mq_best best[4];
    mq_hit *out[4];
} mq_hit_queue;

/* Empties *hq for hits of `bvh`, written by kernel set k's functions (the
 * pending slots are left as they are: nothing reads them before a push). */
static inline void mq_hit_queue_start(mq_hit_queue *hq, const mq_bvh *bvh, const mq_kernels *k)
{
    hq->k = k;
    hq->bvh = bvh;
    hq->n = 0;
}

/* mq_hit_from_lane with kernel set k's hit1 (the same bits). */
static inline void mq_hit_from_lane_with(const mq_kernels *k, const mq_bvh *bvh, const mq_ray *ray, int t_shift,
                                         const mq_best *b, mq_hit *out)
{
    k->hit1(bvh, ray, t_shift, b, out);
}

/* Writes the pending records. */
static inline void mq_hit_queue_flush(mq_hit_queue *hq)
{
    if (hq->n == 1) {
        mq_hit_from_lane_with(hq->k, hq->bvh, hq->ray[0], 0, &hq->best[0], hq->out[0]);
    } else if (hq->n > 1) {
        /* Padded with copies of the first: its record is written twice, alike. */
        for (int l = hq->n; l < 4; l++) {
            hq->ray[l] = hq->ray[0];
            hq->best[l] = hq->best[0];
            hq->out[l] = hq->out[0];
        }
        hq->k->hits4(hq->bvh, hq->ray, hq->best, hq->out);
    }
    hq->n = 0;
}

/* mq_hit_from_lane(hq->bvh, ray, t_shift, b, out), now or by the next flush
 * (hits4 takes t_shift 0 only). */
static inline void mq_hit_queue_push(mq_hit_queue *hq, const mq_ray *ray, int t_shift, const mq_best *b, mq_hit *out)
{
    if (t_shift) {
        mq_hit_from_lane_with(hq->k, hq->bvh, ray, t_shift, b, out);
        return;
    }
    hq->ray[hq->n] = ray;
    hq->best[hq->n] = *b;
    hq->out[hq->n] = out;
    if (++hq->n == 4)
        mq_hit_queue_flush(hq);
}

#endif
