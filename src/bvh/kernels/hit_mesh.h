/*
 * The parts of a hit record that do not depend on the hierarchy: the miss
 * record, the unit geometric normal, and the attributes read from the mesh.
 * The BVH and the OBB tree both fill their hits through these, so the two give
 * identical records for the same triangle and barycentrics.
 */
#ifndef MQ_BVH_KERNELS_HIT_MESH_H
#define MQ_BVH_KERNELS_HIT_MESH_H

#include <string.h>

#include <meshquery/bvh.h>

#include "mesh/mesh_internal.h"

/* The record of a miss: t = INFINITY, triangle = face = MQ_NO_TRIANGLE, the rest zero. */
void mq_hit_miss(mq_hit *out);

/* Unit (v1-v0) x (v2-v0), computed in double; (0,0,0) for a zero-area triangle. */
void mq_hit_unit_normal(const float v0[3], const float v1[3], const float v2[3], vec3 out);

/* Fills shading_normal, uv, group, object and material (and their has_ flags) from the
 * mesh, for a hit whose triangle, face, u, v and normal are already set; on a
 * mesh whose hits are bare (below), with mq_hit_bare_attributes. (A new
 * attribute goes into mq_mesh_hits_are_bare and mq_hit_bare_attributes too.) */
void mq_hit_mesh_attributes(const mq_mesh *mesh, mq_hit *hit);

/* True when hits on `m` carry no attributes: no corner normals, no texture
 * coordinates, no names of any kind. */
static inline bool mq_mesh_hits_are_bare(const mq_mesh *m)
{
    return !m->corner_normals && !m->corner_texcoords && m->names[MQ_NAME_GROUP].count <= 1 &&
           m->names[MQ_NAME_OBJECT].count <= 1 && m->names[MQ_NAME_MATERIAL].count <= 1;
}

/* The attribute fields of a hit on a mesh whose hits are bare: none set, the
 * shading normal the geometric one. Inline, for records that test
 * mq_mesh_hits_are_bare themselves rather than call mq_hit_mesh_attributes. */
static inline void mq_hit_bare_attributes(mq_hit *h)
{
    h->has_shading_normal = false;
    h->has_uv = false;
    memcpy(h->shading_normal, h->normal, sizeof(vec3));
    h->uv[0] = h->uv[1] = 0.0f;
    h->group = h->object = h->material = 0;
}

#endif
