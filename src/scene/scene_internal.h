/*
 * The scene's storage, shared by the container and top-level hierarchy
 * (scene.c, tlas*.c), the raycasts (scene_raycast*.c) and the shape queries
 * (scene_overlap*.c, scene_closest.c, scene_collide.c, instance_*.c).
 *
 * Two layers:
 *   - the committed state (mq_instance_rec array + top-level hierarchy), read
 *     by queries, written only by mq_scene_commit;
 *   - the staged edits, written by add/remove/set_*, read by commit.
 */
#ifndef MQ_SCENE_INTERNAL_H
#define MQ_SCENE_INTERNAL_H

#include <meshquery/scene.h>

/* One committed instance, with everything a query needs precomputed in double. */
typedef struct mq_instance_rec {
    const mq_bvh *bvh;         /* exactly one of bvh / obbtree is set */
    const mq_obbtree *obbtree;
    const mq_mesh *mesh;       /* the hierarchy's mesh */
    mq_xform to_world;         /* local -> world */
    mq_xform to_local;         /* world -> local (inverse) */
    double normal_to_world[3][3]; /* sign(det A) * A^-T: maps a local geometric normal to the
                                     mapped triangle's winding normal (unnormalised) */
    double sigma_min;          /* lower bound on |A x| / |x| (world length per local length) */
    double sigma_max;          /* upper bound on |A x| / |x| */
    bool mirrored;             /* det A < 0 */
    bool rigid;                /* A orthonormal with det +1 (within 1e-12): local-frame shape
                                  queries and mq_obbtree_collide apply directly */
    mq_daabb world_box;        /* world box of the mapped local root box (conservative) */
    mq_aabb local_box;         /* the hierarchy's root box in its mesh frame */
    uint64_t user_id;
    uint32_t mask;
    uint32_t id;               /* the instance id */
} mq_instance_rec;

/*
 * Fills a record from a definition: inverse, normal matrix, singular value
 * bounds, rigidity, local and world boxes. @return false when the definition
 * is rejected (not exactly one hierarchy, a transform rejected as scene.h says).
 */
bool mq_instance_rec_init(mq_instance_rec *rec, const mq_instance_def *def, uint32_t id);

/*
 * Visits the committed instances whose world box overlaps `box` and whose
 * mask matches `mask`, in no particular order, until `visit` returns false.
 * @return false when a visit stopped the walk.
 */
bool mq_tlas_visit_box(const mq_scene *s, const mq_daabb *box, uint32_t mask,
                       bool (*visit)(const mq_instance_rec *inst, void *user), void *user);

/*
 * Visits the committed instances with a matching mask in increasing distance
 * of their world box from `p`, while that squared distance is <= *bound2
 * (re-read after every visit, so the visitor may shrink it). Instances at
 * equal box distance come in increasing id.
 */
void mq_tlas_visit_nearest(const mq_scene *s, const double p[3], uint32_t mask, const double *bound2,
                           void (*visit)(const mq_instance_rec *inst, void *user), void *user);

/* The committed record of instance `id`, or NULL. */
const mq_instance_rec *mq_scene_record(const mq_scene *s, uint32_t id);

/* ---- instance-level shape queries (instance_*.c) ------------------------ */

/*
 * Calls fn(inst->id, triangle, user) for every triangle of the instance whose
 * world image overlaps `shape`, until fn returns false. Adds the calls made
 * to *calls. @return false when fn stopped the query.
 */
bool mq_instance_overlap(const mq_instance_rec *inst, const mq_dshape *shape, mq_scene_overlap_fn fn, void *user,
                         size_t *calls);

/*
 * Improves *best (and *best_d2, its squared world distance) with the closest
 * point of the instance's world image to p whose squared distance is < *best_d2,
 * or equal with a smaller (instance, triangle). @return true when it improved.
 */
bool mq_instance_closest_point(const mq_instance_rec *inst, const double p[3], double *best_d2,
                               mq_scene_point_hit *best);

#endif
