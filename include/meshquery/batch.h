/**
 * @file
 * meshquery/batch.h — batches of the one-query calls of bvh.h, obbtree.h and
 * casts.h: closest points, winding numbers, inside tests, signed distances,
 * shape overlap counts and any-overlap answers, sphere and capsule casts, the
 * OBB tree's raycasts, and every hit of many rays (mq_bvh_raycast_all_batch).
 *
 * Every batch spreads `count` independent queries over `threads` threads
 * (0 = all online cores, 1 = the calling thread only) of the library's
 * persistent pool (no thread is created per call). Entry i of each output is
 * exactly what the single call gives for input i, whatever the thread count:
 * each entry is computed by that call on its own input and written to its own
 * slot. The inputs are read only, the outputs written only at their own
 * entries; no batch allocates memory, so none fails. NULL hierarchies, NULL
 * inputs or count 0 write nothing and return 0.
 *
 * Points are packed as `3 * count` floats (x, y, z of point 0, then point 1,
 * ...), as the vertex positions of mq_mesh_create are.
 *
 * Ray options (mq_ray_query) apply to every ray; their work counters
 * (query->stats) are not collected by these batches, and a filter is called
 * from several threads at once.
 *
 * Thread safety: as for the single calls, any number of batches and single
 * queries may run on one hierarchy at once from several threads.
 */
#ifndef MESHQUERY_BATCH_H
#define MESHQUERY_BATCH_H

#include <meshquery/bvh.h>
#include <meshquery/casts.h>
#include <meshquery/obbtree.h>

/* ------------------------------------------------------------------------- */
/* Closest points                                                            */
/* ------------------------------------------------------------------------- */

/**
 * found[i] = mq_bvh_closest_point(points + 3 i, max_distance, out + i).
 * @param bvh the BVH to query.
 * @param points 3 * count floats.
 * @param count the number of points.
 * @param max_distance the search radius of every point (>= 0, may be +INFINITY).
 * @param threads threads to use (0 = all online cores).
 * @param[out] out count records (may be NULL); where nothing is found, distance =
 *             INFINITY, triangle = MQ_NO_TRIANGLE and the rest zero.
 * @param[out] found count flags (may be NULL).
 * @return the number of points with a closest point.
 */
MQ_API size_t mq_bvh_closest_point_batch(const mq_bvh *bvh, const float *points, size_t count, float max_distance,
                                         uint32_t threads, mq_point_hit *out, bool *found);
/** As mq_bvh_closest_point_batch, with mq_obbtree_closest_point. */
MQ_API size_t mq_obbtree_closest_point_batch(const mq_obbtree *tree, const float *points, size_t count,
                                             float max_distance, uint32_t threads, mq_point_hit *out, bool *found);

/* ------------------------------------------------------------------------- */
/* Solids                                                                    */
/* ------------------------------------------------------------------------- */

/**
 * out[i] = mq_bvh_winding_number(points + 3 i) (casts.h, "Solids").
 * @param bvh the BVH of a closed mesh.
 * @param points 3 * count floats.
 * @param count the number of points.
 * @param threads threads to use (0 = all online cores).
 * @param[out] out count winding numbers.
 * @return the number of points with a non-zero winding number (inside).
 */
MQ_API size_t mq_bvh_winding_number_batch(const mq_bvh *bvh, const float *points, size_t count, uint32_t threads,
                                          int32_t *out);
/** As mq_bvh_winding_number_batch, with mq_obbtree_winding_number. */
MQ_API size_t mq_obbtree_winding_number_batch(const mq_obbtree *tree, const float *points, size_t count,
                                              uint32_t threads, int32_t *out);

/**
 * inside[i] = (mq_bvh_winding_number(points + 3 i) != 0).
 * @param bvh the BVH of a closed mesh.
 * @param points 3 * count floats.
 * @param count the number of points.
 * @param threads threads to use (0 = all online cores).
 * @param[out] inside count flags.
 * @return the number of points inside.
 */
MQ_API size_t mq_bvh_inside_batch(const mq_bvh *bvh, const float *points, size_t count, uint32_t threads, bool *inside);
/** As mq_bvh_inside_batch, on the OBB tree. */
MQ_API size_t mq_obbtree_inside_batch(const mq_obbtree *tree, const float *points, size_t count, uint32_t threads,
                                      bool *inside);

/**
 * mq_bvh_signed_distance(points + 3 i, distance + i, closest + i) for every point;
 * where that call returns false (a non-finite point, an empty mesh) distance[i]
 * is NAN and closest[i] is as for a miss of mq_bvh_closest_point_batch.
 * @param bvh the BVH of a closed mesh.
 * @param points 3 * count floats.
 * @param count the number of points.
 * @param threads threads to use (0 = all online cores).
 * @param[out] distance count signed distances (may be NULL).
 * @param[out] closest count closest points (may be NULL).
 * @return the number of points with an answer.
 */
MQ_API size_t mq_bvh_signed_distance_batch(const mq_bvh *bvh, const float *points, size_t count, uint32_t threads,
                                           float *distance, mq_point_hit *closest);
/** As mq_bvh_signed_distance_batch, with mq_obbtree_signed_distance. */
MQ_API size_t mq_obbtree_signed_distance_batch(const mq_obbtree *tree, const float *points, size_t count,
                                               uint32_t threads, float *distance, mq_point_hit *closest);

/* ------------------------------------------------------------------------- */
/* Shape overlaps                                                            */
/* ------------------------------------------------------------------------- */

/**
 * counts[i] = the number of triangles overlapping shapes[i] (the total that
 * mq_bvh_overlap_array returns for it).
 * @param bvh the BVH to query.
 * @param shapes count tagged shapes (types.h); an invalid shape counts 0.
 * @param count the number of shapes.
 * @param threads threads to use (0 = all online cores).
 * @param[out] counts count counts (may be NULL: the sum only).
 * @return the sum of the counts.
 */
MQ_API uint64_t mq_bvh_overlap_count_batch(const mq_bvh *bvh, const mq_shape *shapes, size_t count, uint32_t threads,
                                           uint64_t *counts);
/** As mq_bvh_overlap_count_batch, with mq_obbtree_overlap_array. */
MQ_API uint64_t mq_obbtree_overlap_count_batch(const mq_obbtree *tree, const mq_shape *shapes, size_t count,
                                               uint32_t threads, uint64_t *counts);

/**
 * out[i] = mq_bvh_overlap_any(shapes + i).
 * @param bvh the BVH to query.
 * @param shapes count tagged shapes.
 * @param count the number of shapes.
 * @param threads threads to use (0 = all online cores).
 * @param[out] out count flags.
 * @return the number of shapes that overlap some triangle.
 */
MQ_API size_t mq_bvh_overlap_any_batch(const mq_bvh *bvh, const mq_shape *shapes, size_t count, uint32_t threads,
                                       bool *out);
/** As mq_bvh_overlap_any_batch, with mq_obbtree_overlap_any. */
MQ_API size_t mq_obbtree_overlap_any_batch(const mq_obbtree *tree, const mq_shape *shapes, size_t count,
                                           uint32_t threads, bool *out);

/* ------------------------------------------------------------------------- */
/* Sphere and capsule casts                                                  */
/* ------------------------------------------------------------------------- */

/**
 * mq_bvh_sphere_cast(spheres + i, dirs + 3 i, tmax, out + i) for every sphere.
 * @param bvh the BVH to query.
 * @param spheres count spheres at t = 0.
 * @param dirs 3 * count floats: the motion of each sphere per unit t.
 * @param count the number of casts.
 * @param tmax the end of every motion (>= 0, may be +INFINITY).
 * @param threads threads to use (0 = all online cores).
 * @param[out] out count cast hits (misses: t = INFINITY, triangle = MQ_NO_TRIANGLE).
 * @return the number of spheres that touch the mesh.
 */
MQ_API size_t mq_bvh_sphere_cast_batch(const mq_bvh *bvh, const mq_sphere *spheres, const float *dirs, size_t count,
                                       float tmax, uint32_t threads, mq_cast_hit *out);
/** As mq_bvh_sphere_cast_batch, with mq_obbtree_sphere_cast. */
MQ_API size_t mq_obbtree_sphere_cast_batch(const mq_obbtree *tree, const mq_sphere *spheres, const float *dirs,
                                           size_t count, float tmax, uint32_t threads, mq_cast_hit *out);
/** As mq_bvh_sphere_cast_batch, for capsules (mq_bvh_capsule_cast). */
MQ_API size_t mq_bvh_capsule_cast_batch(const mq_bvh *bvh, const mq_capsule *capsules, const float *dirs, size_t count,
                                        float tmax, uint32_t threads, mq_cast_hit *out);
/** As mq_bvh_capsule_cast_batch, with mq_obbtree_capsule_cast. */
MQ_API size_t mq_obbtree_capsule_cast_batch(const mq_obbtree *tree, const mq_capsule *capsules, const float *dirs,
                                            size_t count, float tmax, uint32_t threads, mq_cast_hit *out);

/* ------------------------------------------------------------------------- */
/* Rays                                                                      */
/* ------------------------------------------------------------------------- */

/**
 * OBB tree raycasts: hits[i] = mq_obbtree_raycast_closest(rays + i).
 * @param tree the OBB tree to query.
 * @param rays count rays.
 * @param count the number of rays.
 * @param query options (NULL: mq_default_ray_query()); a filter is called from several threads.
 * @param threads threads to use (0 = all online cores).
 * @param[out] hits count hits (misses: t = INFINITY, triangle = MQ_NO_TRIANGLE).
 * @return the number of rays that hit.
 */
MQ_API size_t mq_obbtree_raycast_closest_batch(const mq_obbtree *tree, const mq_ray *rays, size_t count,
                                               const mq_ray_query *query, uint32_t threads, mq_hit *hits);
/** occluded[i] = mq_obbtree_raycast_any(rays + i). @return the number of occluded rays. */
MQ_API size_t mq_obbtree_raycast_any_batch(const mq_obbtree *tree, const mq_ray *rays, size_t count,
                                           const mq_ray_query *query, uint32_t threads, bool *occluded);

/**
 * Every hit of many rays, first pass: counts[i] = the total mq_bvh_raycast_all
 * gives for rays[i]. Sum the counts into offsets (offsets[0] = 0, offsets[i + 1] =
 * offsets[i] + counts[i]), allocate offsets[count] hits, then call
 * mq_bvh_raycast_all_batch: two traversals per ray in all, no guessed capacity.
 * @param bvh the BVH to query.
 * @param rays count rays.
 * @param count the number of rays.
 * @param query options (NULL: the defaults).
 * @param threads threads to use (0 = all online cores).
 * @param[out] counts count hit counts (may be NULL: the sum only).
 * @return the sum of the counts.
 */
MQ_API uint64_t mq_bvh_raycast_all_count_batch(const mq_bvh *bvh, const mq_ray *rays, size_t count,
                                               const mq_ray_query *query, uint32_t threads, uint32_t *counts);

/**
 * Every hit of many rays, second pass: writes the hits of rays[i], nearest first
 * (mq_bvh_raycast_all with capacity offsets[i + 1] - offsets[i]), to
 * hits[offsets[i]] .. hits[offsets[i + 1] - 1]. With the offsets of
 * mq_bvh_raycast_all_count_batch every hit of every ray is written; the ray of
 * hit k is the i with offsets[i] <= k < offsets[i + 1].
 * @param bvh the BVH to query.
 * @param rays count rays.
 * @param count the number of rays.
 * @param query options (NULL: the defaults); the same as for the count pass.
 * @param threads threads to use (0 = all online cores).
 * @param offsets count + 1 non-decreasing offsets into hits, offsets[0] = 0.
 * @param[out] hits offsets[count] hits.
 * @return the number of hits written (offsets[count] with the first pass's offsets).
 */
MQ_API uint64_t mq_bvh_raycast_all_batch(const mq_bvh *bvh, const mq_ray *rays, size_t count, const mq_ray_query *query,
                                         uint32_t threads, const uint64_t *offsets, mq_hit *hits);

#endif /* MESHQUERY_BATCH_H */
