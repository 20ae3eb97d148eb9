/*
 * mq_inst_ray_init with AVX2 (inst_ray_avx2.h), called at ISA level AVX2 or
 * above (scene_raycast_map.c, core/isa.h), and the closest-hit walk's leaf
 * with it inlined.
 */
#include "scene/inst_ray_avx2.h"

bool mq_inst_ray_init_avx2(mq_inst_ray *ir, const mq_instance_rec *inst, const mq_dray *ray)
{
    return mq_inst_ray_map_avx2(ir, inst, ray);
}

bool mq_closest_leaf_avx2(const mq_instance_rec *inst, void *user)
{
    mq_closest_ctx *c = user;
    if (!mq_inst_ray_map_avx2(&c->ir[c->best_slot ^ 1], inst, c->ray))
        return true;
    return mq_closest_leaf_traced(c, inst);
}
