/*
 * The parts of a hit record that do not depend on the hierarchy: the miss
 * record, the unit geometric normal, and the attributes read from the mesh.
 * The BVH and the OBB tree both fill their hits through these, so the two give
 * identical records for the same triangle and barycentrics.
 */
#ifndef MQ_BVH_KERNELS_HIT_MESH_H
#define MQ_BVH_KERNELS_HIT_MESH_H

#include <meshquery/bvh.h>

/* The record of a miss: t = INFINITY, triangle = face = MQ_NO_TRIANGLE, the rest zero. */
void mq_hit_miss(mq_hit *out);

/* Unit (v1-v0) x (v2-v0), computed in double; (0,0,0) for a zero-area triangle. */
void mq_hit_unit_normal(const float v0[3], const float v1[3], const float v2[3], vec3 out);

/* Fills shading_normal, uv, group, object and material (and their has_ flags) from the
 * mesh, for a hit whose triangle, face, u, v and normal are already set. */
void mq_hit_mesh_attributes(const mq_mesh *mesh, mq_hit *hit);

#endif
