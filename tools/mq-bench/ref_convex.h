/*
 * The convex-vs-mesh references of `mq-bench convex`: FCL 0.7's fcl::Convex
 * against a BVHModel (OBB or OBBRSS) through fcl::collide (ref_fcl_convex.cpp),
 * and Bullet's btConvexHullShape against a btBvhTriangleMeshShape through
 * btCollisionWorld::contactTest (ref_bullet_convex.cpp). Both are C++ and
 * compiled only when CMake found the library (MQ_HAVE_FCL, MQ_HAVE_BULLET).
 *
 * A hull is given as its vertices and triangles (mq_convex_vertices /
 * mq_convex_faces), in the mesh's frame; the adapter builds the library's own
 * convex shape from them once (ref_*_convex_shape), outside the timing, as a
 * user keeps a shape and moves it.
 */
#ifndef MQ_BENCH_REF_CONVEX_H
#define MQ_BENCH_REF_CONVEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ref_fcl_cv ref_fcl_cv;
typedef struct ref_fcl_cv_shape ref_fcl_cv_shape;

/* The mesh in a BVHModel<OBB> (obb true) or BVHModel<OBBRSS>; NULL on failure. */
ref_fcl_cv *ref_fcl_cv_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                              size_t triangle_count, bool obb);
void ref_fcl_cv_destroy(ref_fcl_cv *f);
ref_fcl_cv_shape *ref_fcl_cv_shape_create(const float *vertices, size_t vertex_count, const uint32_t *tris,
                                          size_t tri_count);
void ref_fcl_cv_shape_destroy(ref_fcl_cv_shape *s);
/* Every triangle fcl::collide reports against the convex: up to capacity ids (distinct), the total. */
size_t ref_fcl_cv_overlap(ref_fcl_cv *f, const ref_fcl_cv_shape *s, uint32_t *out, size_t capacity);

typedef struct ref_bullet_cv ref_bullet_cv;
typedef struct ref_bullet_cv_shape ref_bullet_cv_shape;

/* The mesh in a btBvhTriangleMeshShape, in a world scaled by `scale` (0: the
 * automatic power of two of ref_bullet.h); NULL on failure. */
ref_bullet_cv *ref_bullet_cv_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                                    size_t triangle_count, double scale);
double ref_bullet_cv_scale(const ref_bullet_cv *b);
void ref_bullet_cv_destroy(ref_bullet_cv *b);
/* A btConvexHullShape of the vertices (times the world's scale), margin 0. */
ref_bullet_cv_shape *ref_bullet_cv_shape_create(const ref_bullet_cv *b, const float *vertices, size_t vertex_count);
void ref_bullet_cv_shape_destroy(ref_bullet_cv_shape *s);
/* Every triangle contactTest finds at distance <= 0: up to capacity ids (distinct), the total. */
size_t ref_bullet_cv_overlap(ref_bullet_cv *b, const ref_bullet_cv_shape *s, uint32_t *out, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif
