/* --distance and --clearance D (without --clash): two placed meshes, how far apart. */
#ifndef MQ_PICK_DISTANCE_H
#define MQ_PICK_DISTANCE_H

#include "pick_args.h"

/* True when the run asks for a distance or a clearance between two meshes. */
bool pick_wants_distance(const pick_options *o);

/* The usage check of such a run: exactly two meshes and nothing else to do. Returns 0 or 2. */
int pick_check_distance(const pick_options *o);

/* Runs it: loads both meshes, places them, answers (docs/formats.md). Returns 0, 1 or 2. */
int pick_run_distance(const pick_options *o);

#endif
