/*
 * Distance between two instances (clash.h: mq_scene_distance): the
 * dual-hierarchy walk of proximity/distance_walk.h with both meshes mapped by
 * their transforms into the world shifted by the lower instance's
 * translation (mq_inst_distance: its first argument's), so that only the
 * instances' offset enters the float rounding of the intersection test, as
 * in mq_scene_collide.
 */
#include <string.h>

#include "scene/scene_distance.h"

void mq_inst_dist_sides(const mq_instance_rec *a, const mq_instance_rec *b, mq_dist_side *sa, mq_dist_side *sb,
                        double shift[3])
{
    for (int r = 0; r < 3; r++)
        shift[r] = a->to_world.m[r][3];
    const mq_instance_rec *rec[2] = {a, b};
    mq_dist_side *side[2] = {sa, sb};
    for (int i = 0; i < 2; i++) {
        side[i]->bvh = rec[i]->bvh;
        side[i]->obbtree = rec[i]->obbtree;
        side[i]->kdoptree = NULL;
        side[i]->spheretree = NULL;
        side[i]->identity = false;
        for (int r = 0; r < 3; r++) {
            for (int k = 0; k < 3; k++)
                side[i]->m[r][k] = rec[i]->to_world.m[r][k];
            side[i]->m[r][3] = rec[i]->to_world.m[r][3] - shift[r];
        }
    }
}

bool mq_inst_distance(const mq_instance_rec *a, const mq_instance_rec *b, double max_distance,
                      mq_instance_distance *out)
{
    mq_dist_side sa, sb;
    double shift[3];
    mq_inst_dist_sides(a, b, &sa, &sb, shift);
    mq_dist_pair p;
    if (!mq_dist_walk_nearest(&sa, &sb, max_distance, 0.0, 0.0, &p))
        return false;
    if (out) {
        out->distance = p.distance;
        out->triangle_a = p.triangle_a;
        out->triangle_b = p.triangle_b;
        for (int k = 0; k < 3; k++) {
            out->point_a[k] = p.point_a[k] + shift[k];
            out->point_b[k] = p.point_b[k] + shift[k];
        }
    }
    return true;
}

bool mq_scene_distance(const mq_scene *scene, uint32_t a, uint32_t b, double max_distance, mq_instance_distance *out)
{
    if (!scene || !(max_distance >= 0.0))
        return false;
    const mq_instance_rec *ra = mq_scene_record(scene, a), *rb = mq_scene_record(scene, b);
    if (!ra || !rb)
        return false;
    if (a <= b)
        return mq_inst_distance(ra, rb, max_distance, out);
    /* measured in the lower instance's frame (clash.h), as mq_scene_clash does */
    mq_instance_distance d;
    if (!mq_inst_distance(rb, ra, max_distance, &d))
        return false;
    if (out) {
        *out = d;
        out->triangle_a = d.triangle_b;
        out->triangle_b = d.triangle_a;
        memcpy(out->point_a, d.point_b, sizeof out->point_a);
        memcpy(out->point_b, d.point_a, sizeof out->point_b);
    }
    return true;
}
