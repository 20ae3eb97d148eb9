/* Subcommands of mq-bench and the timing helpers they share. */
#ifndef MQ_BENCH_H
#define MQ_BENCH_H

#include <stdbool.h>
#include <stddef.h>

/* Each subcommand gets argv with argv[0] = its own name. Returns the exit status. */
int bench_prims_main(int argc, char **argv);
int bench_obj_main(int argc, char **argv);
int bench_rays_main(int argc, char **argv);
int bench_overlap_main(int argc, char **argv);
int bench_collide_main(int argc, char **argv);
int bench_distance_main(int argc, char **argv);
int bench_clash_main(int argc, char **argv);
int bench_convex_main(int argc, char **argv);
int bench_save_main(int argc, char **argv);
int bench_scene_main(int argc, char **argv);
int bench_survey_main(int argc, char **argv);

/* `--isa NAME` (auto | scalar | sse2 | avx2 | avx512, pin_isa.c): holds
 * meshquery (MQ_ISA) and Embree (its device's "isa=") to that level. Call
 * before any query; false when meshquery cannot run at that level here
 * (mq_isa_in_use() then names the level it runs at). */
bool bench_pin_isa(const char *isa);
/* The level an engine ran at, for the JSON lines: meshquery's own choice, or
 * the pinned level (or "auto") for a reference library. */
const char *bench_engine_isa(const char *engine);
/* The "isa=" value for Embree's device configuration, NULL for its own choice. */
const char *bench_embree_isa(void);

/* Monotonic clock in seconds. */
double bench_now(void);
/* Median of n values (reorders the array). */
double bench_median(double *values, size_t n);

#endif
