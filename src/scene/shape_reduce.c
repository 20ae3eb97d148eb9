/*
 * Huge world shapes on one instance (instance_overlap.h: mq_inst_shape_reduce).
 *
 * The exact tests run in float in the instance-centred frame, so a shape
 * reaching beyond float range there (a box of +-DBL_MAX meaning "everything",
 * a sphere of radius 1e300) has no float form. But only the part of a shape
 * near the instance can meet its triangles, and every triangle lies in the
 * instance's world box W (conservative, mq_instance_world_box). So every
 * shape is replaced by one that meets W, hence every triangle, exactly where
 * the original does, and whose extent is that of W plus the distance to it
 * (a shape of that size already is left as it is):
 *   - a box is clipped to W widened by a margin;
 *   - a sphere's radius, or a capsule's, is capped at twice the largest
 *     distance from its centre (axis) to a corner of W, plus the margin: then
 *     either radius holds all of W;
 *   - a capsule's axis is clipped to W widened by the radius and the margin
 *     (farther points of the axis are farther than the radius from all of W);
 *   - an oriented box's half extents are capped past the projection of W on
 *     its axes (exact for orthonormal axes; for axes within the tolerance of
 *     mq_obb_is_valid, within that tolerance of the box).
 * Each step changes the shape only where it cannot meet W, so the answers
 * are those of the original shape. A shape found not to meet W at all is
 * reported so. What remains out of float range (a centre itself beyond float
 * range of the instance whose shape still cuts through the instance) is left
 * as it is: it meets nothing there, as scene.h says.
 */
#include <math.h>

#include "scene/instance_overlap.h"

/* W widened by a quarter of its largest extent (or, for a point, a tiny
 * amount): room for the roundings of the centred float tests. Returns that
 * margin. */
static double region(const mq_instance_rec *r, double lo[3], double hi[3])
{
    double ext = 0.0, mag = 1.0;
    for (int k = 0; k < 3; k++) {
        ext = fmax(ext, r->world_box.max[k] - r->world_box.min[k]);
        mag = fmax(mag, fmax(fabs(r->world_box.min[k]), fabs(r->world_box.max[k])));
    }
    double m = 0.25 * ext + 1e-30 * mag;
    for (int k = 0; k < 3; k++) {
        lo[k] = r->world_box.min[k] - m;
        hi[k] = r->world_box.max[k] + m;
    }
    return m;
}

/* |d|, scaled by its largest component so that no square overflows. */
static double length(const double d[3])
{
    double m = fmax(fabs(d[0]), fmax(fabs(d[1]), fabs(d[2])));
    if (!(m > 0.0))
        return m;
    double d2 = 0.0;
    for (int k = 0; k < 3; k++)
        d2 += (d[k] / m) * (d[k] / m);
    return m * sqrt(d2);
}

/* A segment as mid + t * half, t in [-1, 1]: no overflow for any finite ends. */
typedef struct seg {
    double mid[3], half[3];
} seg;

static seg seg_of(const double a[3], const double b[3])
{
    seg s;
    for (int k = 0; k < 3; k++) {
        s.mid[k] = 0.5 * a[k] + 0.5 * b[k];
        s.half[k] = 0.5 * b[k] - 0.5 * a[k];
    }
    return s;
}

/* Distance from p to the segment (inf or NaN only for ends near DBL_MAX). */
static double dist_point_seg(const double p[3], const seg *s)
{
    double h = fmax(fabs(s->half[0]), fmax(fabs(s->half[1]), fabs(s->half[2])));
    double t = 0.0;
    if (h > 0.0) { /* scaled by 1/h so that squares cannot overflow */
        double uu = 0.0, du = 0.0;
        for (int k = 0; k < 3; k++) {
            double u = s->half[k] / h;
            uu += u * u;
            du += (p[k] - s->mid[k]) / h * u;
        }
        t = fmin(fmax(du / uu, -1.0), 1.0);
    }
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = p[k] - (s->mid[k] + t * s->half[k]);
    return length(d);
}

/* The largest distance from a corner of [lo, hi] to the segment. */
static double farthest_corner(const double lo[3], const double hi[3], const seg *s)
{
    double d = 0.0;
    for (int i = 0; i < 8; i++) {
        double c[3] = {(i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2]};
        d = fmax(d, dist_point_seg(c, s));
    }
    return d;
}

/* The length of the diagonal of [lo, hi]: the largest distance from a corner
 * to a point of the box is at least half of it. */
static double diagonal(const double lo[3], const double hi[3])
{
    double d2 = 0.0;
    for (int k = 0; k < 3; k++)
        d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    return sqrt(d2);
}

/* Clips the segment to the box [lo, hi]: an end cut off is replaced in a or
 * b (the segment's ends on entry), an end inside is kept as it is. False
 * when the segment misses the box. */
static bool clip_segment(const seg *s, const double lo[3], const double hi[3], double a[3], double b[3])
{
    double t0 = -1.0, t1 = 1.0;
    for (int k = 0; k < 3; k++) {
        if (s->half[k] == 0.0) {
            if (!(s->mid[k] >= lo[k] && s->mid[k] <= hi[k]))
                return false;
            continue;
        }
        double u = (lo[k] - s->mid[k]) / s->half[k], v = (hi[k] - s->mid[k]) / s->half[k];
        t0 = fmax(t0, fmin(u, v));
        t1 = fmin(t1, fmax(u, v));
    }
    if (!(t0 <= t1))
        return false;
    for (int k = 0; k < 3; k++) { /* clamped: the roundings cannot leave the box */
        if (t0 > -1.0)
            a[k] = fmin(fmax(s->mid[k] + t0 * s->half[k], lo[k]), hi[k]);
        if (t1 < 1.0)
            b[k] = fmin(fmax(s->mid[k] + t1 * s->half[k], lo[k]), hi[k]);
    }
    return true;
}

/* max(0, distance from p to the box [lo, hi]) */
static double dist_point_box(const double p[3], const double lo[3], const double hi[3])
{
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = p[k] < lo[k] ? lo[k] - p[k] : (p[k] > hi[k] ? p[k] - hi[k] : 0.0);
    return length(d);
}

bool mq_inst_shape_reduce(const mq_instance_rec *r, const mq_dshape *s, mq_dshape *out)
{
    double lo[3], hi[3];
    double m = region(r, lo, hi);
    *out = *s;
    switch (s->kind) {
    case MQ_SHAPE_SPHERE: {
        mq_dsphere *o = &out->u.sphere;
        if (dist_point_box(o->center, lo, hi) > o->radius)
            return false;
        if (o->radius > diagonal(lo, hi)) { /* else the cap below, >= the diagonal, is not reached */
            seg c = seg_of(o->center, o->center);
            o->radius = fmin(o->radius, 2.0 * farthest_corner(lo, hi, &c) + m);
        }
        return true;
    }
    case MQ_SHAPE_CAPSULE: {
        mq_dcapsule *o = &out->u.capsule;
        seg axis = seg_of(o->a, o->b);
        if (o->radius > diagonal(lo, hi))
            o->radius = fmin(o->radius, 2.0 * farthest_corner(lo, hi, &axis) + m);
        double wlo[3], whi[3];
        for (int k = 0; k < 3; k++) {
            wlo[k] = lo[k] - (o->radius + m);
            whi[k] = hi[k] + (o->radius + m);
        }
        return clip_segment(&axis, wlo, whi, o->a, o->b);
    }
    case MQ_SHAPE_OBB: {
        mq_dobb *o = &out->u.obb;
        for (int i = 0; i < 3; i++) {
            double s_i = 0.0, e_i = 0.0; /* W's projection on axis i, relative to the centre: s_i +- e_i */
            for (int k = 0; k < 3; k++) {
                s_i += o->axes[i][k] * ((0.5 * lo[k] + 0.5 * hi[k]) - o->center[k]);
                e_i += fabs(o->axes[i][k]) * (0.5 * hi[k] - 0.5 * lo[k]);
            }
            o->half[i] = fmin(o->half[i], 2.0 * (fabs(s_i) + e_i) + m);
        }
        return true;
    }
    case MQ_SHAPE_AABB:
    default: {
        mq_daabb *o = &out->u.aabb;
        for (int k = 0; k < 3; k++) {
            o->min[k] = fmax(o->min[k], lo[k]);
            o->max[k] = fmin(o->max[k], hi[k]);
            if (!(o->min[k] <= o->max[k]))
                return false;
        }
        return true;
    }
    }
}
