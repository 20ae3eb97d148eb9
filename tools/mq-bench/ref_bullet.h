/*
 * Bullet Physics (2.8x/3.x collision module) as a reference for
 * `mq-bench overlap`: the same triangles in a btBvhTriangleMeshShape (its
 * quantized AABB tree), shape overlap through btCollisionWorld::contactTest and
 * sphere casts through btCollisionWorld::convexSweepTest. Bullet is C++ and
 * single precision here (Debian's build); ref_bullet.cpp implements this C
 * interface and is compiled only when CMake found Bullet (MQ_HAVE_BULLET).
 *
 * Semantics differ from meshquery's: contactTest runs Bullet's narrow phase
 * (GJK/EPA or its sphere/box–triangle special cases) with zero collision
 * margin on the query shapes and keeps contacts at distance <= 0, and
 * convexSweepTest is conservative advancement with Bullet's tolerances, so
 * answers may differ on (nearly) touching triangles; mq-bench counts those.
 */
#ifndef MQ_BENCH_REF_BULLET_H
#define MQ_BENCH_REF_BULLET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meshquery/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ref_bullet ref_bullet;

/* Builds the triangle mesh shape (copies the data) and reports the build's wall time. NULL on failure. */
ref_bullet *ref_bullet_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                              size_t triangle_count, double *build_ms);
void ref_bullet_destroy(ref_bullet *b);

/* Every triangle contactTest finds touching the shape: writes up to `capacity` ids (distinct), returns the total. */
size_t ref_bullet_overlap_sphere(ref_bullet *b, const mq_sphere *s, uint32_t *out, size_t capacity);
size_t ref_bullet_overlap_capsule(ref_bullet *b, const mq_capsule *c, uint32_t *out, size_t capacity);
size_t ref_bullet_overlap_obb(ref_bullet *b, const mq_obb *o, uint32_t *out, size_t capacity);
size_t ref_bullet_overlap_aabb(ref_bullet *b, const mq_aabb *a, uint32_t *out, size_t capacity);

/* Sphere moved from its centre by t * dir, t in [0, tmax] (tmax finite): the first hit's t and triangle. */
bool ref_bullet_sphere_cast(ref_bullet *b, const mq_sphere *s, const float dir[3], float tmax, float *t,
                            uint32_t *triangle);

/* Bullet's version number, e.g. 324. */
int ref_bullet_version(void);

#ifdef __cplusplus
}
#endif

#endif
