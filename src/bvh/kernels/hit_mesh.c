#include "bvh/kernels/hit_mesh.h"

#include <math.h>
#include <string.h>

#include "mesh/mesh_internal.h"

void mq_hit_miss(mq_hit *out)
{
    memset(out, 0, sizeof *out);
    out->t = INFINITY;
    out->triangle = MQ_NO_TRIANGLE;
    out->face = MQ_NO_TRIANGLE;
}

void mq_hit_unit_normal(const float v0[3], const float v1[3], const float v2[3], vec3 out)
{
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)v1[k] - v0[k];
        e2[k] = (double)v2[k] - v0[k];
    }
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++)
        out[k] = len > 0.0 ? (float)(n[k] / len) : 0.0f;
}

/* Name id 0 is the empty name; a mesh with only that one has no names of the
 * kind (mq_mesh_name_count(m, kind) > 1, else 0; then mq_mesh_face_name_id),
 * read from the mesh directly: this runs for every reported hit. */
static uint32_t name_id(const mq_mesh *m, mq_name_kind kind, uint32_t face)
{
    if (m->names[kind].count <= 1)
        return 0;
    const mq_face_ids *f = &m->face_names[kind];
    return f->ids ? f->ids[face] : f->uniform;
}

void mq_hit_mesh_attributes(const mq_mesh *m, mq_hit *h)
{
    if (mq_mesh_hits_are_bare(m)) { /* the one definition of a bare mesh's fields */
        mq_hit_bare_attributes(h);
        return;
    }
    vec3 n;
    h->has_shading_normal = m->corner_normals && mq_mesh_shading_normal(m, h->triangle, h->u, h->v, n);
    memcpy(h->shading_normal, h->has_shading_normal ? n : h->normal, sizeof(vec3));
    h->uv[0] = h->uv[1] = 0.0f;
    h->has_uv = m->corner_texcoords && mq_mesh_texcoord_at(m, h->triangle, h->u, h->v, h->uv);
    h->group = name_id(m, MQ_NAME_GROUP, h->face);
    h->object = name_id(m, MQ_NAME_OBJECT, h->face);
    h->material = name_id(m, MQ_NAME_MATERIAL, h->face);
}
