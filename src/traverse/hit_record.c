/*
 * The hit record: geometry from the leaf block (so it follows refits),
 * barycentrics and side from the leaf test, ids and per-vertex attributes from
 * the mesh (only those it has, known since the build).
 */
#include "traverse/hit_record.h"

#include <math.h>
#include <string.h>

void mq_hit_miss(mq_hit *out)
{
    memset(out, 0, sizeof *out);
    out->t = INFINITY;
    out->triangle = MQ_NO_TRIANGLE;
    out->face = MQ_NO_TRIANGLE;
}

/* Unit (v1-v0) x (v2-v0) of the lane's corners, computed in double. */
static void lane_normal(const mq_tri_block *blk, int lane, vec3 out)
{
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)blk->v[1][k][lane] - blk->v[0][k][lane];
        e2[k] = (double)blk->v[2][k][lane] - blk->v[0][k][lane];
    }
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++)
        out[k] = len > 0.0 ? (float)(n[k] / len) : 0.0f;
}

/* Shading normal, texture coordinate, group/object/material from the mesh. */
static void mesh_attributes(const mq_bvh *bvh, mq_hit *h)
{
    const mq_mesh *m = bvh->mesh;
    memcpy(h->shading_normal, h->normal, sizeof h->normal);
    h->has_shading_normal = false;
    if (bvh->mesh_has_normals) {
        vec3 n;
        if (mq_mesh_shading_normal(m, h->triangle, h->u, h->v, n)) {
            memcpy(h->shading_normal, n, sizeof n);
            h->has_shading_normal = true;
        }
    }
    h->uv[0] = h->uv[1] = 0.0f;
    h->has_uv = bvh->mesh_has_uvs && mq_mesh_texcoord_at(m, h->triangle, h->u, h->v, h->uv);
    h->group = bvh->mesh_has_names[MQ_NAME_GROUP] ? mq_mesh_face_name_id(m, MQ_NAME_GROUP, h->face) : 0;
    h->object = bvh->mesh_has_names[MQ_NAME_OBJECT] ? mq_mesh_face_name_id(m, MQ_NAME_OBJECT, h->face) : 0;
    h->material = bvh->mesh_has_names[MQ_NAME_MATERIAL] ? mq_mesh_face_name_id(m, MQ_NAME_MATERIAL, h->face) : 0;
}

void mq_hit_from_best(const mq_trace *q, const mq_best *b, mq_hit *out)
{
    const mq_ray *ray = q->user_ray;
    out->t = q->ray.t_shift ? ldexpf(b->t, q->ray.t_shift) : b->t;
    for (int k = 0; k < 3; k++)
        out->point[k] = ray->origin[k] + out->t * ray->dir[k];
    lane_normal(b->block, b->lane, out->normal);
    out->u = b->u;
    out->v = b->v;
    out->back_face = b->back_face;
    out->triangle = b->id;
    out->face = mq_mesh_face_index(q->bvh->mesh, b->id);
    mesh_attributes(q->bvh, out);
}
