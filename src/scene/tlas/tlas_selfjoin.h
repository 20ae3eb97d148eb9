/*
 * The self-join of the top-level tree (tlas_selfjoin.c): every pair of
 * committed instances whose world boxes come within a margin, without an
 * all-pairs loop, for clash detection (scene_clash.c).
 */
#ifndef MQ_SCENE_TLAS_TLAS_SELFJOIN_H
#define MQ_SCENE_TLAS_TLAS_SELFJOIN_H

#include "scene/scene_internal.h"

/* Called once per unordered pair (a->id < b->id); return false to stop. */
typedef bool (*mq_tlas_pair_fn)(const mq_instance_rec *a, const mq_instance_rec *b, void *user);

/*
 * Calls fn for every pair of committed instances whose masks both match
 * `mask` and whose double world boxes are within `margin` (>= 0, finite) on
 * every axis (lo_a - m <= hi_b and lo_b - m <= hi_a), each pair once, in no
 * particular order. m is the margin plus the pair's rounding slack: instance
 * distances (clash.h) decide "intersect" on float triangles in the lower
 * instance's shifted world, so boxes apart by up to that rounding may still
 * be at distance 0. Pairs of the tree's nodes are pruned with their float
 * boxes, conservatively. @return false when fn stopped the join.
 */
bool mq_tlas_self_join(const mq_scene *s, double margin, uint32_t mask, mq_tlas_pair_fn fn, void *user);

#endif
