/*
 * Primitive references: what the builder sees of a triangle — its bounding box
 * and its id, nothing else (madmann91/bvh's rule: builders take bounds and
 * centres, never triangles). The centroid is lo + hi (twice the box centre),
 * which saves a multiply and orders the same way.
 */
#ifndef MQ_BVH_PRIM_REF_H
#define MQ_BVH_PRIM_REF_H

#include <math.h>

#include <meshquery/mesh.h>

/* 32 bytes; lo and hi each load as one 4-float vector (lane 3 = id / pad). */
typedef struct mq_prim_ref {
    float lo[3];
    uint32_t id;
    float hi[3];
    uint32_t pad;
} mq_prim_ref;

/* A box and a centroid box, both as lo[3] / hi[3] (the builder's own format). */
typedef struct mq_bounds {
    float lo[4];
    float hi[4];
} mq_bounds;

static inline void mq_bounds_empty(mq_bounds *b)
{
    for (int i = 0; i < 4; i++) {
        b->lo[i] = INFINITY;
        b->hi[i] = -INFINITY;
    }
}

/* Half the surface area (the SAH only compares areas); 0 for an empty or flat-empty box. */
static inline float mq_bounds_half_area(const mq_bounds *b)
{
    float dx = b->hi[0] - b->lo[0], dy = b->hi[1] - b->lo[1], dz = b->hi[2] - b->lo[2];
    if (!(dx >= 0.0f && dy >= 0.0f && dz >= 0.0f))
        return 0.0f;
    return dx * dy + dy * dz + dz * dx;
}

/*
 * Fills refs[i] for every triangle i of the mesh, in id order, and the union of
 * their boxes (`box`) and centroids (`cbox`). A triangle with a non-finite
 * corner gets a point box at the centre of the finite triangles' box (so it
 * sits somewhere in the tree, for refit, without stretching any box); the leaf
 * packer makes it unhittable. Shared over `threads` (>= 1) threads; the result
 * does not depend on how many.
 */
void mq_prim_refs_from_positions(const float *positions, const uint32_t *indices, size_t triangle_count,
                                 mq_prim_ref *refs, uint32_t threads, mq_bounds *box, mq_bounds *cbox);

#endif
