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

/* png_out.c: writes an 8-bit RGB PNG to `path` ("-" = standard output) via a
 * temporary file in the same directory that is renamed over `path` at the
 * end, so readers never see a half-written image. On failure returns false
 * with a message naming the path in err. */
bool render_write_png(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height, char *err,
                      size_t err_size);

#endif
