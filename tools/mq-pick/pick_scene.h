/* mq-pick with several meshes or a --place: the meshes as instances of one scene. */
#ifndef MQ_PICK_SCENE_H
#define MQ_PICK_SCENE_H

#include "pick_args.h"

/* Runs the rays, shapes or --closest of `o` on the scene of its meshes; returns the exit status. */
int pick_run_scene(const pick_options *o);

#endif
