/*
 * Huge world shapes on one instance (instance_overlap.h: mq_inst_shape_reduce).
 *
 * The exact tests run in float in the instance-centred frame, so a shape
 * reaching beyond float range there (a box of +-DBL_MAX meaning "everything",
 * a sphere of radius 1e300) has no float form. But only the part of a shape
 * near the instance can meet its triangles, and every triangle lies in the
 * instance's world box W (conservative, mq_instance_world_box). So every
 * shape is cut down to W by the reduction the single-mesh queries and the
 * primitives share (primitives/shape_reduce.c, which says how and why it is
 * exact). What remains out of float range (a centre itself beyond float
 * range of the instance whose shape still cuts through the instance) is left
 * as it is: it meets nothing there, as scene.h says.
 */
#include "primitives/shape_reduce.h"
#include "scene/instance_overlap.h"

bool mq_inst_shape_reduce(const mq_instance_rec *r, const mq_dshape *s, mq_dshape *out)
{
    return mq_dshape_reduce(s, r->world_box.min, r->world_box.max, out);
}
