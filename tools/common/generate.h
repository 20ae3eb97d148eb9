/*
 * Seeded, deterministic generators for the inputs described in
 * docs/formats.md ("Generated inputs"), for a mesh with bounding box
 * [lo, hi], centre c and diagonal length D.
 */
#ifndef MQ_TOOLS_GENERATE_H
#define MQ_TOOLS_GENERATE_H

#include <stddef.h>
#include <stdint.h>

#include <meshquery/types.h>

/* The bounding box of `vertex_count` packed xyz positions (NaN/Inf ignored). */
void mqt_bounds(const float *positions, size_t vertex_count, mq_aabb *out);

/* splitmix64: tiny, seedable, the same sequence everywhere. */
typedef struct mqt_rng {
    uint64_t state;
} mqt_rng;
void mqt_rng_seed(mqt_rng *rng, uint64_t seed);
double mqt_rng_unit(mqt_rng *rng); /* [0, 1) */

/* Origins uniform on the sphere of radius 1.5*D around c, aimed at uniform points of the box. */
void mqt_generate_incoherent(const mq_aabb *bounds, size_t count, uint64_t seed, mq_ray *out);

/* A width x height pinhole camera at c + 1.2*D*normalize(1, 0.6, 1.4) looking at c, up (0,1,0),
 * vertical field of view 45 degrees; rays row by row from the top-left pixel centre. */
void mqt_generate_primary(const mq_aabb *bounds, uint32_t width, uint32_t height, mq_ray *out);

/* Origins uniform in the box, uniform unit directions, tmin 0, tmax 0.02*D. */
void mqt_generate_short(const mq_aabb *bounds, size_t count, uint64_t seed, mq_ray *out);

#endif
