/* Subcommands of mq-bench and the timing helpers they share. */
#ifndef MQ_BENCH_H
#define MQ_BENCH_H

#include <stddef.h>

/* Each subcommand gets argv with argv[0] = its own name. Returns the exit status. */
int bench_prims_main(int argc, char **argv);
int bench_obj_main(int argc, char **argv);
int bench_rays_main(int argc, char **argv);
int bench_overlap_main(int argc, char **argv);
int bench_collide_main(int argc, char **argv);
int bench_save_main(int argc, char **argv);
int bench_scene_main(int argc, char **argv);

/* Monotonic clock in seconds. */
double bench_now(void);
/* Median of n values (reorders the array). */
double bench_median(double *values, size_t n);

#endif
