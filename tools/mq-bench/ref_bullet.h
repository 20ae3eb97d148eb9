/*
 * Bullet Physics (2.8x/3.x collision module) as a reference for
 * `mq-bench overlap`: the same triangles in a btBvhTriangleMeshShape (its
 * quantized AABB tree), shape overlap through btCollisionWorld::contactTest and
 * sphere casts through btCollisionWorld::convexSweepTest. Bullet is C++ and
 * single precision here (Debian's build); ref_bullet.cpp implements this C
 * interface and is compiled only when CMake found Bullet (MQ_HAVE_BULLET).
 *
 * Semantics differ from meshquery's: contactTest runs Bullet's narrow phase
 * (its sphere–triangle special case, GJK/EPA for capsules and boxes) with
 * zero collision margin on the boxes and keeps contacts at distance <= 0, and
 * convexSweepTest is conservative advancement with Bullet's tolerances, so
 * answers may differ on (nearly) touching triangles; mq-bench counts those.
 *
 * Scale: Bullet's narrow phase has absolute tolerances (GJK/EPA's 1e-4,
 * gGjkEpaPenetrationTolerance 1e-3, the contact breaking threshold), made for
 * features of about 0.05 to 10 units; its manual's advice for other sizes is
 * to scale the world. Unscaled, the 0.25-unit bunny (mean edge 0.0015) loses
 * most deep contacts: for a triangle well inside a box or a capsule, GJK stops
 * on a degenerate simplex and EPA (where it runs) fails, so a positive
 * distance comes out, which is then dropped as "no contact" or, beyond the
 * contact breaking threshold, not reported at all (2/3 of the triangles in
 * boxes and 1/6 of those in capsules were missing; every one of them overlaps
 * the shape in double, down to 0.04 of the bunny's size). So the Bullet world
 * is the caller's times a power of two (exact in float): by default the one
 * that brings the mesh's mean triangle edge nearest half a unit (the bunny:
 * 256; its 6*6 subdivision: 2048); answers then agree with meshquery's but for
 * a few touching triangles and, for boxes, a few deep misses that no scale
 * cures (mq-bench overlap prints both kinds, measured in double).
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

/* Builds the triangle mesh shape (copies the data, times `scale`; 0: the
 * automatic power of two above) and reports the build's wall time. Meshes of
 * more than 2^20 triangles go in several parts (the quantized BVH holds 2^21
 * per part). NULL on failure. */
ref_bullet *ref_bullet_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                              size_t triangle_count, double scale, double *build_ms);
/* The scale of the Bullet world (see above). */
double ref_bullet_scale(const ref_bullet *b);
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
