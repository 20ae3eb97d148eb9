/*
 * mq-render's shared types: what tracing leaves per pixel, and the stages
 * main.c strings together (trace -> shade -> overlays -> PNG).
 */
#ifndef MQ_RENDER_H
#define MQ_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meshquery/bvh.h>
#include <meshquery/mesh.h>

#include "camera.h"

/* What one pixel's ray found. Kept small (24 bytes) instead of a full mq_hit,
 * so large images need little more memory than their rays. */
typedef struct render_sample {
    float t;           /* INFINITY for background */
    uint32_t triangle; /* MQ_NO_TRIANGLE for background */
    float normal[3];   /* unit geometric normal, turned to face the camera */
    uint32_t visits;   /* BVH nodes + leaves visited (only when counted) */
} render_sample;

typedef enum render_shade { SHADE_NORMAL, SHADE_DEPTH, SHADE_HEAT } render_shade;

/* trace.c: traces the width*height camera rays (row-major) on `threads`
 * threads (0 = all cores) into samples[] (row-major). With count_visits each
 * ray is traced alone so that its own BVH work can be counted (slower);
 * otherwise rays go through the SIMD batch path in 4x2 pixel tiles.
 * Returns false when out of memory. */
bool render_trace(const mq_bvh *bvh, const mq_ray *rays, uint32_t width, uint32_t height, bool count_visits,
                  uint32_t threads, render_sample *samples);

/* shade.c: colours every pixel (RGB, 3 bytes each, row-major). Returns, for
 * SHADE_HEAT, the visit count at the top of the colour ramp (the 99.5th
 * percentile; pixels above it saturate), else 0. */
uint32_t render_shade_image(const render_sample *samples, uint32_t width, uint32_t height, render_shade shade,
                            uint8_t *rgb);

/* shade.c: blends a highlight colour into pixels whose triangle is flagged
 * (flags indexed by triangle id, triangle_count entries). Returns how many pixels. */
size_t render_highlight(const render_sample *samples, uint32_t width, uint32_t height, const uint8_t *flags,
                        size_t triangle_count, uint8_t *rgb);

/* shade.c: a crosshair around pixel (x, y), leaving the pixel itself visible. */
void render_mark(uint8_t *rgb, uint32_t width, uint32_t height, uint32_t x, uint32_t y);

/* A segment between two world points (double). */
typedef struct render_line {
    double a[3], b[3];
} render_line;

/* What --segments and --closest found over every pair of meshes (i < j). */
typedef struct render_pairs {
    render_line *segments; /* intersection segments of every intersecting pair */
    size_t segment_count;  /* (a point, a == b, for coplanar or touching triangle pairs) */
    render_line *closest;  /* a: the closest point on mesh i, b: on mesh j; pairs that do not meet */
    size_t closest_count;
    size_t intersecting_pairs; /* mesh pairs that intersect or touch */
} render_pairs;

/* pairs.c: over every pair i < j of the `count` placed meshes (world coordinates), the
 * intersection segments (when `segments`) and, for pairs without any (when `closest`), the
 * closest pair of points at a distance > 0. False after an error message (out holds nothing
 * then). render_free_pairs frees what it holds. */
bool render_find_pairs(const mq_mesh *const *placed, size_t count, bool segments, bool closest, render_pairs *out);
void render_free_pairs(render_pairs *p);

/* draw3d.c: draws the segments as thick magenta lines (RENDER_SEGMENT_RGB) with a black outline
 * where the traced surface does not hide them (depth test against the samples, with a
 * tolerance of a few pixels' footprint), and as a thin dashed magenta line where it does.
 * Returns how many points along the segments were drawn visible (one per pixel stepped). */
size_t render_draw_segments(const mqt_camera *cam, const render_sample *samples, const render_line *lines, size_t n,
                            uint8_t *rgb);

/* draw3d.c: draws each closest pair on top of everything (no depth test): a white line with a
 * black outline between the two points and a cyan dot (RENDER_DOT_RGB) with a black outline on each. */
void render_draw_closest(const mqt_camera *cam, const render_line *lines, size_t n, uint8_t *rgb);

/* The overlay colours, chosen outside every colour the normal and depth shadings produce
 * (normal shading lies on a sphere around mid-grey, depth shading is grey). */
#define RENDER_SEGMENT_RGB                                                                                             \
    {                                                                                                                  \
        255, 0, 255                                                                                                    \
    }
#define RENDER_LINE_RGB                                                                                                \
    {                                                                                                                  \
        255, 255, 255                                                                                                  \
    }
#define RENDER_DOT_RGB                                                                                                 \
    {                                                                                                                  \
        0, 255, 255                                                                                                    \
    }

/* png_out.c: writes an 8-bit RGB PNG to `path` ("-" = standard output) via a
 * temporary file in the same directory that is renamed over `path` at the
 * end, so readers never see a half-written image. On failure returns false
 * with a message naming the path in err. */
bool render_write_png(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height, char *err,
                      size_t err_size);

#endif
