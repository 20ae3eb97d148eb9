/*
 * Scene shape overlaps (scene.h "Shapes"): the shape's world box picks the
 * instances through the top-level hierarchy (mq_tlas_visit_box, with the
 * query's mask), and mq_instance_overlap answers for each, exactly, in the
 * instance-centred frame (instance_overlap.c). An invalid shape (NaN or
 * infinite values, a negative radius or half extent, min > max, axes not
 * orthonormal within MQ_OBB_AXIS_TOLERANCE) overlaps nothing.
 */
#include "core/minmax.h"
#include "scene/instance_overlap.h"

typedef struct scene_overlap_ctx {
    const mq_dshape *shape;
    mq_scene_overlap_fn fn;
    void *user;
    size_t calls;
} scene_overlap_ctx;

static bool visit_instance(const mq_instance_rec *inst, void *user)
{
    scene_overlap_ctx *c = user;
    return mq_instance_overlap(inst, c->shape, c->fn, c->user, &c->calls);
}

typedef struct pair_sink {
    mq_instance_triangle *out;
    size_t capacity, count;
} pair_sink;

static bool sink_push(uint32_t instance, uint32_t triangle, void *user)
{
    pair_sink *s = user;
    if (s->count < s->capacity)
        s->out[s->count] = (mq_instance_triangle){instance, triangle};
    s->count++;
    return true;
}

static bool stop_first(uint32_t instance, uint32_t triangle, void *user)
{
    (void)instance;
    (void)triangle;
    (void)user;
    return false;
}

/* Entry points. The kind is read by mq_dshape_valid (an unknown kind matches
 * nothing) and once per instance by mq_instance_overlap. mq_scene_overlap is
 * the body of every shape query: the _array and _any forms and the batches
 * (scene_batch_shapes.c) call it. */
size_t mq_scene_overlap(const mq_scene *scene, const mq_dshape *shape, const mq_scene_query *query,
                        mq_scene_overlap_fn fn, void *user)
{
    if (!scene || !fn || !mq_dshape_valid(shape))
        return 0;
    mq_daabb box;
    mq_dshape_bounds(shape, &box);
    /* widened a little: the float primitive may accept a triangle a few ulp
     * (of the instance-centred coordinates) outside the exact shape */
    double grow = 0.0;
    for (int k = 0; k < 3; k++)
        grow = mq_fmax(grow, box.max[k] - box.min[k]);
    grow *= MQ_SCENE_REL_SLACK;
    for (int k = 0; k < 3; k++) {
        box.min[k] -= grow;
        box.max[k] += grow;
    }
    scene_overlap_ctx c = {shape, fn, user, 0};
    mq_tlas_visit_box(scene, &box, query ? query->mask : 0xFFFFFFFFu, visit_instance, &c);
    return c.calls;
}

size_t mq_scene_overlap_array(const mq_scene *scene, const mq_dshape *shape, const mq_scene_query *query,
                              mq_instance_triangle *out, size_t capacity)
{
    pair_sink s = {out, out ? capacity : 0, 0};
    mq_scene_overlap(scene, shape, query, sink_push, &s);
    return s.count;
}

bool mq_scene_overlap_any(const mq_scene *scene, const mq_dshape *shape, const mq_scene_query *query)
{
    return mq_scene_overlap(scene, shape, query, stop_first, NULL) > 0;
}
