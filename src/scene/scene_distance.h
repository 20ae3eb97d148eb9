/*
 * The distance between two committed instances (clash.h), shared by
 * mq_scene_distance (scene_distance.c) and clash detection (scene_clash.c).
 */
#ifndef MQ_SCENE_SCENE_DISTANCE_H
#define MQ_SCENE_SCENE_DISTANCE_H

#include <meshquery/clash.h>

#include "proximity/distance_walk.h"
#include "scene/scene_internal.h"

/* The two sides of a walk between records a and b, in the world shifted by
 * a's translation (`shift` receives that translation). */
void mq_inst_dist_sides(const mq_instance_rec *a, const mq_instance_rec *b, mq_dist_side *sa, mq_dist_side *sb,
                        double shift[3]);

/* The distance of a and b if <= max_distance, with world points; false
 * otherwise. Measured in a's shifted world: clash.h's definition wants a to
 * be the lower id. */
bool mq_inst_distance(const mq_instance_rec *a, const mq_instance_rec *b, double max_distance,
                      mq_instance_distance *out);

#endif
