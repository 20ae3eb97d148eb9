/*
 * The hit record: geometry from the leaf block (so it follows refits),
 * barycentrics and side from the leaf test, ids and per-vertex attributes from
 * the mesh (traverse/hit_mesh.c, shared with the OBB tree).
 */
#include "traverse/hit_record.h"

#include <math.h>

void mq_hit_from_best(const mq_trace *q, const mq_best *b, mq_hit *out)
{
    const mq_ray *ray = q->user_ray;
    out->t = q->ray.t_shift ? ldexpf(b->t, q->ray.t_shift) : b->t;
    for (int k = 0; k < 3; k++)
        out->point[k] = ray->origin[k] + out->t * ray->dir[k];
    const mq_tri_block *blk = b->block;
    float v[3][3];
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            v[c][k] = blk->v[c][k][b->lane];
    mq_hit_unit_normal(v[0], v[1], v[2], out->normal);
    out->u = b->u;
    out->v = b->v;
    out->back_face = b->back_face;
    out->triangle = b->id;
    out->face = mq_mesh_face_index(q->bvh->mesh, b->id);
    mq_hit_mesh_attributes(q->bvh->mesh, out);
}
