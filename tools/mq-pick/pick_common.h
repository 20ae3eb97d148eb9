/* What mq-pick's single-mesh and scene runs share: rays in, output files, formats, timing. */
#ifndef MQ_PICK_COMMON_H
#define MQ_PICK_COMMON_H

#include <stdio.h>

#include "pick_args.h"
#include "pick_output.h"
#include "pick_shapes.h"

/* Rays are traced in chunks of this many, so the progress bar can move (the answers are the same). */
#define PICK_TRACE_CHUNK 65536

/* The ray output's format (from --json/--csv/--table or --out's extension), or -1 after a usage
 * error (a .hits file needs closest hits, an .occl file --any). */
int pick_ray_format(const pick_options *o, pick_format *format);

/* The shape / closest-point output's format. */
pick_shape_format pick_shape_format_of(const pick_options *o);

/* The rays of --rays FILE, or a copy of the --ray rays (malloc'ed). False after an error message. */
bool pick_read_rays(const pick_options *o, mq_ray **rays, size_t *count);

/* Appends the rays through the --pixel pixels of the camera (the default one frames `bounds`). */
bool pick_add_pixel_rays(const pick_options *o, const mq_aabb *bounds, mq_ray **rays, size_t *count);

/* Opens --out ('-': standard output, with a 1 MiB buffer). NULL after an error message. */
FILE *pick_open_out(const char *path, bool binary);

/* Flushes and closes (not stdout) `out`; false when that failed (after an error message) or
 * `ok` is false (the run failed and said why). Either way a regular output file is then
 * removed: a failed run leaves no output file. */
bool pick_close_out(FILE *out, const char *path, bool ok);

/* --timing's line on standard error. */
void pick_print_timing(size_t rays, size_t triangles, double read_s, double load_s, double build_s, double trace_s,
                       double write_s);

#endif
