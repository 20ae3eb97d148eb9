/*
 * FCL 0.7's hierarchies for `mq-bench survey`: BVHModel<KDOP<18>>, <kIOS>,
 * <OBB> and <OBBRSS> over the same triangles, answering what FCL can of the
 * survey's queries: shape overlaps (fcl::collide, all contacts), the distance
 * from a point (fcl::distance against a sphere of radius 0: only kIOS and
 * OBBRSS have a distance traversal) and mesh vs mesh (fcl::collide). FCL has
 * no raycast on a mesh. Compiled only with FCL (MQ_HAVE_FCL, ref_fcl_survey.cpp).
 */
#ifndef MQ_BENCH_REF_FCL_SURVEY_H
#define MQ_BENCH_REF_FCL_SURVEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meshquery/obbtree.h>
#include <meshquery/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ref_fcls ref_fcls;

typedef enum ref_fcls_bv { REF_FCLS_KDOP18 = 0, REF_FCLS_KIOS = 1, REF_FCLS_OBB = 2, REF_FCLS_OBBRSS = 3 } ref_fcls_bv;

/* "fcl-kdop18", "fcl-kios", "fcl-obb", "fcl-obbrss". */
const char *ref_fcls_name(ref_fcls_bv bv);
/* Builds the model (beginModel .. endModel timed into *build_ms). NULL on failure. */
ref_fcls *ref_fcls_create(const float *positions, size_t vertex_count, const uint32_t *indices, size_t triangle_count,
                          ref_fcls_bv bv, double *build_ms);
void ref_fcls_destroy(ref_fcls *f);
/* The model's memory as FCL's memUsage counts it (nodes, vertices, triangles, primitive indices), in bytes. */
double ref_fcls_bytes(const ref_fcls *f);
/* Contacts of the shape with the mesh (all of them): the number of overlapping triangles. */
size_t ref_fcls_overlap(ref_fcls *f, const mq_shape *shape);
/* Whether this volume has a distance traversal in FCL (kIOS, OBBRSS). */
bool ref_fcls_has_distance(ref_fcls_bv bv);
/* The distance from p to the mesh (fcl::distance with a sphere of radius 0). */
double ref_fcls_point_distance(ref_fcls *f, const float p[3]);
/* Mesh a (identity) vs mesh b placed by b_to_a: all pairs (their count) or yes/no (0/1). */
size_t ref_fcls_collide(ref_fcls *a, ref_fcls *b, const mq_rigid *b_to_a, bool all);

#ifdef __cplusplus
}
#endif

#endif
