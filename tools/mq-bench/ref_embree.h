/*
 * Intel Embree 3 as the reference for `mq-bench rays` and `mq-bench scene`:
 * the same triangles and the same rays, traced with rtcIntersect1 /
 * rtcOccluded1 (single rays) and rtcIntersect16 (packets). Compiled only when
 * CMake found Embree (MQ_HAVE_EMBREE); the benches call nothing here otherwise.
 */
#ifndef MQ_BENCH_REF_EMBREE_H
#define MQ_BENCH_REF_EMBREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meshquery/types.h>

typedef struct ref_embree ref_embree;

/*
 * Builds an Embree scene (medium quality, the default) over the triangles on a
 * device with `threads` worker threads ("threads=N"). Reports the commit's
 * wall time and the bytes Embree kept after it (its memory monitor: the BVH,
 * excluding the vertex and index buffers). NULL on failure.
 */
ref_embree *ref_embree_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                              size_t triangle_count, unsigned threads, double *build_ms, size_t *bvh_bytes);
void ref_embree_destroy(ref_embree *e);

/* Closest hits (rtcIntersect1) of rays on `threads` threads: t (INFINITY on a
 * miss) and triangle id (UINT32_MAX on a miss). */
void ref_embree_closest(ref_embree *e, const mq_ray *rays, size_t count, unsigned threads, float *t, uint32_t *id);

/* Occlusion (rtcOccluded1) on `threads` threads. */
void ref_embree_occluded(ref_embree *e, const mq_ray *rays, size_t count, unsigned threads, bool *occluded);

/* Closest hits with 16-ray packets (rtcIntersect16) of consecutive rays. */
void ref_embree_closest16(ref_embree *e, const mq_ray *rays, size_t count, unsigned threads, float *t, uint32_t *id);

/*
 * An instanced scene for `mq-bench scene`: one triangle geometry in a base
 * scene, placed `count` times by RTC_GEOMETRY_TYPE_INSTANCE geometries with
 * the row-major 3x4 transforms xf[12*i..] (local -> world), instance i
 * attached with geometry id i. Reports the top-level commit's wall time.
 * Trace it with ref_embree_closest_instanced (or ref_embree_closest, which
 * reports the triangle only) and ref_embree_occluded. NULL on failure.
 */
ref_embree *ref_embree_create_instanced(const float *positions, size_t vertex_count, const uint32_t *indices,
                                        size_t triangle_count, const float *xf, size_t count, unsigned threads,
                                        double *build_ms);

/* Replaces the instanced scene of `e` by a new one over the same base scene
 * and device (as ref_embree_create_instanced makes it); reports the new
 * scene's creation, instances and commit in wall time. */
void ref_embree_reinstance(ref_embree *e, const float *xf, size_t count, double *build_ms);

/* ref_embree_closest on an instanced scene, with the instance hit (instID:
 * its index in xf) per ray, UINT32_MAX on a miss. */
void ref_embree_closest_instanced(ref_embree *e, const mq_ray *rays, size_t count, unsigned threads, float *t,
                                  uint32_t *id, uint32_t *instance);

/* Embree's version string. */
const char *ref_embree_version(void);

#endif
