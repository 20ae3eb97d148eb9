/*
 * The ray walk of the top-level hierarchy with AVX2: one 8-wide float slab
 * test per node (tlas_ray.h). Compiled with -mavx2 -mfma (CMake, *_avx2.c)
 * and called only at ISA level AVX2 or above (scene_raycast.c, core/isa.h,
 * which checks the CPU); the node test
 * is tlas_node_avx2.h's.
 */
#include "scene/tlas/tlas_node_avx2.h"

#define TLAS_WALK_NAME walk_avx2
#define TLAS_WALK_LIVE(n, blocks, mask) tlas_live(n, blocks, mask)
#define TLAS_WALK_HITS(n, blocks, r, v, tmin, tmax, live, dist)                                                        \
    (tlas_box_hits(n, blocks, r, v, tmin, tmax, dist) & (live))
#include "scene/tlas/tlas_walk_impl.h"

bool mq_tlas_walk_fast_avx2(const mq_scene *s, const mq_tlas_ray *r, double t_lo, const double *t_hi, uint32_t mask,
                            bool ordered, bool (*leaf)(const mq_instance_rec *inst, void *user), void *user)
{
    return ordered ? walk_avx2(s, r, t_lo, t_hi, mask, true, leaf, user)
                   : walk_avx2(s, r, t_lo, t_hi, mask, false, leaf, user);
}
