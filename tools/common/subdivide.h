/* Large test meshes from small ones: every triangle split into K*K. */
#ifndef MQT_SUBDIVIDE_H
#define MQT_SUBDIVIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Plain triangle soup arrays (3 floats per vertex, 3 indices per triangle). */
typedef struct mqt_geometry {
    float *positions;
    uint32_t *indices;
    size_t vertex_count, triangle_count;
} mqt_geometry;

/* The same arrays, read only: the input of a subdivision. */
typedef struct mqt_geometry_view {
    const float *positions;
    const uint32_t *indices;
    size_t vertex_count, triangle_count;
} mqt_geometry_view;

/*
 * Splits every triangle of `g` into K*K on its barycentric grid into `out`
 * (new malloc'ed arrays; free them with free()). Each grid point is the
 * weighted corner sum in double with the terms in vertex-index order, so
 * neighbouring triangles compute the same floats on their shared edge and a
 * closed mesh stays watertight. Returns false when out of memory or beyond
 * 2^32 vertices (out is then empty).
 */
bool mqt_subdivide(const mqt_geometry_view *g, unsigned K, mqt_geometry *out);

struct mq_mesh;

/*
 * Replaces *mesh by its K*K subdivision (mqt_subdivide) as a new mesh of
 * positions and triangles only (the OBJ metadata does not survive); K <= 1
 * leaves it as it is. Returns false when out of memory or too large, with
 * *mesh destroyed and NULL.
 */
bool mqt_subdivide_mesh(struct mq_mesh **mesh, unsigned K);

#endif
