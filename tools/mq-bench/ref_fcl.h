/*
 * FCL (the Flexible Collision Library, 0.7) as the reference for
 * `mq-bench overlap` and `mq-bench collide`: the same triangles, shapes and
 * transforms, through fcl::collide on a BVHModel<OBB> or BVHModel<OBBRSS>.
 * FCL is C++; ref_fcl.cpp implements this C interface and is compiled only
 * when CMake found FCL (MQ_HAVE_FCL); the benches call nothing here otherwise.
 */
#ifndef MQ_BENCH_REF_FCL_H
#define MQ_BENCH_REF_FCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meshquery/obbtree.h>
#include <meshquery/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ref_fcl ref_fcl;

/* FCL's bounding volumes: FCL's fastest for overlap is usually OBB, its
 * recommended one OBBRSS; RSS (rectangle swept spheres) and OBBRSS are the
 * ones FCL's distance queries take. */
typedef enum ref_fcl_bv { REF_FCL_OBB = 0, REF_FCL_OBBRSS = 1, REF_FCL_RSS = 2 } ref_fcl_bv;

/* Builds a BVHModel over the triangles (FCL's default split rule) and reports
 * the build's wall time (beginModel / addSubModel / endModel; converting the
 * floats to FCL's doubles before is not counted). NULL on failure. */
ref_fcl *ref_fcl_create(const float *positions, size_t vertex_count, const uint32_t *indices, size_t triangle_count,
                        ref_fcl_bv bv, double *build_ms);
/* The same in a world scaled by `scale` (vertices and, in ref_fcl_collide,
 * translations multiplied by it; ids and yes/no answers are scale-free): 1 is
 * ref_fcl_create, 0 the power of two (exact in float and double) that makes
 * the mean triangle edge about half a unit, as ref_bullet.h's default. It
 * tests whether FCL's answers depend on the mesh's absolute size; both sides
 * of ref_fcl_collide must share one scale. */
ref_fcl *ref_fcl_create_scaled(const float *positions, size_t vertex_count, const uint32_t *indices,
                               size_t triangle_count, ref_fcl_bv bv, double scale, double *build_ms);
double ref_fcl_scale(const ref_fcl *f);
void ref_fcl_destroy(ref_fcl *f);

/* Every triangle FCL finds overlapping the shape (fcl::collide, no contact
 * data, unlimited contacts): writes up to `capacity` ids, returns the total. */
size_t ref_fcl_overlap_sphere(ref_fcl *f, const mq_sphere *s, uint32_t *out, size_t capacity);
size_t ref_fcl_overlap_capsule(ref_fcl *f, const mq_capsule *c, uint32_t *out, size_t capacity);
size_t ref_fcl_overlap_obb(ref_fcl *f, const mq_obb *b, uint32_t *out, size_t capacity);
size_t ref_fcl_overlap_aabb(ref_fcl *f, const mq_aabb *b, uint32_t *out, size_t capacity);

/* Mesh a (identity) vs mesh b placed by `b_to_a`: all intersecting triangle
 * pairs (all = true; up to `capacity` written, the total returned) or whether
 * there is one (all = false: FCL's num_max_contacts = 1; returns 0 or 1). */
size_t ref_fcl_collide(ref_fcl *a, ref_fcl *b, const mq_rigid *b_to_a, bool all, mq_tri_pair *out, size_t capacity);

/* fcl::distance of mesh a (identity) and mesh b placed by `b_to_a`, with
 * nearest points (models built with REF_FCL_RSS or REF_FCL_OBBRSS): the
 * distance (0 or below when they intersect: FCL's distance is then not
 * defined), the nearest points in a's frame and the two triangle ids. */
double ref_fcl_distance(ref_fcl *a, ref_fcl *b, const mq_rigid *b_to_a, double point_a[3], double point_b[3],
                        uint32_t *triangle_a, uint32_t *triangle_b);

/* fcl::distance of the mesh and a sphere, capsule, OBB or AABB (mq_shape):
 * the distance (0 or below when they overlap), the mesh's nearest point and
 * triangle. */
double ref_fcl_shape_distance(ref_fcl *f, const mq_shape *shape, double point_mesh[3], uint32_t *triangle);

/* A convex hull (meshquery/convex.h) as an fcl::Convex of its vertices and
 * triangles in f's world scale, built once (outside the timing, as a user
 * keeps a shape); NULL on failure. ref_fcl_convex_distance is
 * ref_fcl_shape_distance for it. */
typedef struct ref_fcl_convex ref_fcl_convex;
ref_fcl_convex *ref_fcl_convex_create(const ref_fcl *f, const mq_convex *hull);
void ref_fcl_convex_destroy(ref_fcl_convex *c);
double ref_fcl_convex_distance(ref_fcl *f, const ref_fcl_convex *c, double point_mesh[3], uint32_t *triangle);

/* Clash detection over placed instances, as FCL users build it: one
 * CollisionObject per instance (sharing its mesh's model), a
 * DynamicAABBTreeCollisionManager for the broadphase and fcl::collide (one
 * contact) as the narrowphase; with a clearance d > 0 the broadphase runs on
 * the instances' world boxes grown by d (box proxies) and a candidate pair
 * that does not intersect is measured with fcl::distance. */
typedef struct ref_fcl_scene ref_fcl_scene;

/* One clashing pair: instances a < b, distance (0 intersecting), the triangles FCL names. */
typedef struct ref_fcl_clash {
    uint32_t a, b, triangle_a, triangle_b;
    double distance;
} ref_fcl_clash;

/* `count` instances: instance i is models[i] placed by the row-major 3x4
 * rigid transform xf[12 i..] (local -> world). Reports the broadphase's
 * setup time (registering the objects and setup()). NULL on failure. */
ref_fcl_scene *ref_fcl_scene_create(ref_fcl *const *models, const double *xf, size_t count, double clearance,
                                    double *setup_ms);
/* Runs the clash query: every clashing pair (in no particular order), kept in
 * the scene until the next call; returns how many. */
size_t ref_fcl_scene_clash(ref_fcl_scene *s);
/* The pairs the last ref_fcl_scene_clash found (ref_fcl_scene_clash's count of them). */
const ref_fcl_clash *ref_fcl_scene_pairs(const ref_fcl_scene *s);
void ref_fcl_scene_destroy(ref_fcl_scene *s);

/* "0.7.0" etc. */
const char *ref_fcl_version(void);

#ifdef __cplusplus
}
#endif

#endif
