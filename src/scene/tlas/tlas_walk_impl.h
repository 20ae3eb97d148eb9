/*
 * The walk of the top-level hierarchy along a ray, written once and
 * instantiated per ISA (no include guard on purpose). The including file
 * defines
 *   tlas_vray, tlas_vray_init(const mq_tlas_ray *, tlas_vray *)   broadcast constants
 *   tlas_box_hits(node, blocks, ray, vray, tmin, tmax, dist) -> the slots
 *       whose float box the ray may meet in [tmin, tmax] (conservative, see
 *       tlas_ray.h), with lower bounds of their entry distances in dist
 *   TLAS_WALK_HITS(node, blocks, ray, vray, tmin, tmax, live, dist)   the node test used
 *   TLAS_WALK_LIVE(node, blocks, mask)   the slots whose mask matches (mq_tlas_live)
 * and TLAS_WALK_NAME, the function to define.
 *
 * Order (`ordered`): the nearest hit child is walked next, the others are
 * pushed farthest first; popped entries whose entry lies beyond the best hit
 * so far are skipped (ties enter: a smaller id may wait). Unordered (a walk
 * that stops at any hit), the hit children are pushed as they come. Inlined
 * where it is called, with `ordered` a constant: each order gets its own loop.
 */

static inline __attribute__((always_inline)) bool TLAS_WALK_NAME(const mq_scene *s, const mq_tlas_ray *r, double t_lo,
                                                                 const double *t_hi, uint32_t mask, bool ordered,
                                                                 bool (*leaf)(const mq_instance_rec *inst, void *user),
                                                                 void *user)
{
    tlas_vray v;
    tlas_vray_init(r, &v);
    const float tmin = mq_float_floor_of(t_lo);
    float tmax = mq_float_ceil_of(*t_hi);
    mq_tlas_entry stack[MQ_TLAS_STACK];
    int top = 0;
    uint32_t ref = s->root;
    for (;;) {
        if (ref & MQ_TLAS_LEAF_BIT) {
            /* The mask was checked in the parent (a leaf slot's mask is its
             * instance's): the record is not read here, only by `leaf`. */
            if (!leaf(&s->recs[ref & ~MQ_TLAS_LEAF_BIT], user))
                return false;
            tmax = mq_float_ceil_of(*t_hi);
        } else {
            const mq_tlas_block *n = &s->nodes[mq_tlas_ref_first(ref)];
            const unsigned blocks = mq_tlas_ref_blocks(ref);
            _Alignas(32) float dist[MQ_TLAS_WIDTH];
            /* Slots of mask 0 have empty boxes (scene_internal.h): all bits set needs no mask test. */
            unsigned live = mask == UINT32_MAX ? UINT32_MAX : TLAS_WALK_LIVE(n, blocks, mask);
            unsigned hit = live ? TLAS_WALK_HITS(n, blocks, r, &v, tmin, tmax, live, dist) : 0;
            if (hit) {
                ref = ordered ? mq_tlas_push_hits(s, n, hit, dist, stack, &top)
                              : mq_tlas_push_any(s, n, hit, dist, stack, &top);
                continue;
            }
        }
        for (;;) {
            if (top == 0)
                return true;
            mq_tlas_entry e = stack[--top];
            if (!(e.dist > tmax)) {
                ref = e.ref;
                break;
            }
        }
    }
}
