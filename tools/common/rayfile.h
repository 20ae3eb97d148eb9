/*
 * Reading and writing the exchange formats of docs/formats.md that carry
 * rays and ray answers: .rays (binary, 8 float32 per ray), the text ray form,
 * .hits (float32 t + uint32 triangle id per ray) and .occl (uint8 per ray).
 */
#ifndef MQ_TOOLS_RAYFILE_H
#define MQ_TOOLS_RAYFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <meshquery/types.h>

/* Triangle id written for "no hit" in .hits files. */
#define MQT_NO_HIT 0xFFFFFFFFu

/* True when `path` names the binary form (ends in ".rays"); "-" and anything else is text. */
bool mqt_is_binary_rays_path(const char *path);

/*
 * Reads rays from `path` ("-" = standard input, text form). Binary files must be
 * a whole number of 32-byte records; text lines hold 8 numbers
 * (ox oy oz tmin dx dy dz tmax) or 6 (tmin 0, tmax +inf); blank lines and lines
 * starting with '#' are skipped. On success *rays is malloc'ed (free() it).
 * On failure returns false and writes "path:line: what" into err.
 */
bool mqt_read_rays(const char *path, mq_ray **rays, size_t *count, char *err, size_t err_size);

/* The same from an open stream (not closed), in the binary form when `binary`,
 * else the text form; `name` stands for the path in messages. */
bool mqt_read_rays_stream(FILE *f, const char *name, bool binary, mq_ray **rays, size_t *count, char *err,
                          size_t err_size);

/* Writes rays in the binary .rays form. Returns false on a write error. */
bool mqt_write_rays_binary(FILE *f, const mq_ray *rays, size_t count);

/* One .hits record (little-endian float32 t, uint32 id). */
bool mqt_write_hit_record(FILE *f, float t, uint32_t triangle);

#endif
