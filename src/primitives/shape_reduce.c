/*
 * A shape cut down to its part near a box W (shape_reduce.h), in double.
 *
 * Only the part of a shape near W can meet what lies in W, so the shape is
 * replaced by one that meets W exactly where the original does and whose
 * extent is that of W plus the distance to it (a shape of that size already
 * is left as it is):
 *   - a box is clipped to W widened by a margin;
 *   - a sphere's radius, or a capsule's, is capped at twice the largest
 *     distance from its centre (axis) to a corner of W, plus the margin: then
 *     either radius holds all of W;
 *   - a capsule's axis is clipped to W widened by the radius and the margin
 *     (farther points of the axis are farther than the radius from all of W),
 *     a new end placed on the axis to a rounding of W's coordinates however
 *     far the given ends are (clip_axis);
 *   - an oriented box's half extents are capped past W's extent along its
 *     axes, measured in the box's own (dual) coordinates: exact for the
 *     parallelepiped its axes span, which is what the float tests test for
 *     axes orthonormal only within MQ_OBB_AXIS_TOLERANCE.
 * Each step changes the shape only where it cannot meet W, so the answers
 * are those of the original shape. A shape found not to meet W at all is
 * reported so. What no reduction can shrink is a shape whose centre (or
 * axis) lies far from W yet whose surface cuts through W (a sphere of radius
 * 1e30 centred 1e30 away): no smaller shape of its kind has that surface, so
 * the tests that follow decide it at the scale of that distance.
 */
#include <math.h>

#include "core/minmax.h"
#include "primitives/shape_reduce.h"

/* W widened by a quarter of its largest extent, plus a few parts per trillion
 * of its magnitude (for a point-like W): room for the roundings of the float
 * tests and of the double arithmetic below. Returns that margin. */
static double region(const double wlo[3], const double whi[3], double lo[3], double hi[3])
{
    double ext = 0.0, mag = 0.0;
    for (int k = 0; k < 3; k++) {
        ext = mq_fmax(ext, whi[k] - wlo[k]);
        mag = mq_fmax(mag, mq_fmax(fabs(wlo[k]), fabs(whi[k])));
    }
    double m = 0.25 * ext + 1e-12 * mag;
    for (int k = 0; k < 3; k++) {
        lo[k] = wlo[k] - m;
        hi[k] = whi[k] + m;
    }
    return m;
}

/* |d|, scaled by its largest component so that no square overflows. */
static double length(const double d[3])
{
    double m = mq_fmax(fabs(d[0]), mq_fmax(fabs(d[1]), fabs(d[2])));
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
    double h = mq_fmax(fabs(s->half[0]), mq_fmax(fabs(s->half[1]), fabs(s->half[2])));
    double t = 0.0;
    if (h > 0.0) { /* scaled by 1/h so that squares cannot overflow */
        double uu = 0.0, du = 0.0;
        for (int k = 0; k < 3; k++) {
            double u = s->half[k] / h;
            uu += u * u;
            du += (p[k] - s->mid[k]) / h * u;
        }
        t = mq_fmin(mq_fmax(du / uu, -1.0), 1.0);
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
        d = mq_fmax(d, dist_point_seg(c, s));
    }
    return d;
}

/* The length of the diagonal of [lo, hi]: the largest distance from a corner
 * to a point of the box is at least half of it. */
static double diagonal(const double lo[3], const double hi[3])
{
    double d[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    return length(d);
}

/*
 * A capsule's axis for clipping: a + s h, s in [0, 2], with h = (b - a) / 2
 * held exactly as the sum of two doubles. A point of the axis is computed by
 * one fused multiply-add from a base point on the axis, so it lies on the
 * axis up to a rounding of its own coordinates however far the ends are
 * (from a mid/half form, an end at 1e18 would cost 100 units of error).
 */
typedef struct axis_line {
    double a[3], hi[3], lo[3];
} axis_line;

static axis_line axis_of(const double a[3], const double b[3])
{
    axis_line l;
    for (int k = 0; k < 3; k++) { /* two-sum: hi + lo = b/2 - a/2 exactly */
        double x = 0.5 * b[k], y = -0.5 * a[k], s = x + y, bb = s - x;
        l.a[k] = a[k];
        l.hi[k] = s;
        l.lo[k] = (x - (s - bb)) + (y - bb);
    }
    return l;
}

/* base + t h, base a point of the axis. */
static void axis_point(const axis_line *l, const double base[3], double t, double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = fma(t, l->hi[k], base[k]) + t * l->lo[k];
}

/* The parameter s in [0, 2] of the axis point nearest to p (scaled by the
 * largest |h| so that nothing overflows). */
static double axis_nearest(const axis_line *l, const double p[3])
{
    double m = mq_fmax(fabs(l->hi[0]), mq_fmax(fabs(l->hi[1]), fabs(l->hi[2])));
    if (!(m > 0.0))
        return 0.0;
    double uu = 0.0, du = 0.0;
    for (int k = 0; k < 3; k++) {
        double u = l->hi[k] / m;
        uu += u * u;
        du += (p[k] / m - l->a[k] / m) * u;
    }
    return mq_fmin(mq_fmax(du / uu, 0.0), 2.0);
}

/* Clips the capsule's axis to the box [lo, hi]: an end cut off is replaced in
 * a or b (the ends on entry), an end inside is kept as it is. The slabs are
 * crossed relative to the axis point nearest the box's centre, so the new
 * ends are placed to a rounding of the box's own coordinates along the axis
 * too. False when the axis misses the box. */
static bool clip_axis(const double lo[3], const double hi[3], double a[3], double b[3])
{
    axis_line l = axis_of(a, b);
    double c[3], p[3];
    for (int k = 0; k < 3; k++)
        c[k] = 0.5 * lo[k] + 0.5 * hi[k];
    double s = axis_nearest(&l, c);
    axis_point(&l, l.a, s, p);
    double t0 = -s, t1 = 2.0 - s; /* the segment is p + t h, t in [t0, t1] */
    for (int k = 0; k < 3; k++) {
        if (l.hi[k] == 0.0) { /* a_k == b_k: p_k is exact */
            if (!(p[k] >= lo[k] && p[k] <= hi[k]))
                return false;
            continue;
        }
        double u = (lo[k] - p[k]) / l.hi[k], v = (hi[k] - p[k]) / l.hi[k];
        t0 = mq_fmax(t0, mq_fmin(u, v));
        t1 = mq_fmin(t1, mq_fmax(u, v));
    }
    if (!(t0 <= t1))
        return false;
    if (t0 > -s)
        axis_point(&l, p, t0, a);
    if (t1 < 2.0 - s)
        axis_point(&l, p, t1, b);
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

/* A radius that holds all of [lo, hi] from the segment at twice the need:
 * the smaller of r and that (r itself unless r exceeds the box's diagonal,
 * below which the cap cannot bite). */
static double capped_radius(double r, const seg *axis, const double lo[3], const double hi[3], double m)
{
    if (!(r > diagonal(lo, hi)))
        return r;
    return mq_fmin(r, 2.0 * farthest_corner(lo, hi, axis) + m);
}

static bool reduce_sphere(mq_dsphere *o, const double lo[3], const double hi[3], double m)
{
    if (dist_point_box(o->center, lo, hi) > o->radius)
        return false;
    seg c = seg_of(o->center, o->center);
    o->radius = capped_radius(o->radius, &c, lo, hi, m);
    return true;
}

static bool reduce_capsule(mq_dcapsule *o, const double lo[3], const double hi[3], double m)
{
    seg axis = seg_of(o->a, o->b);
    o->radius = capped_radius(o->radius, &axis, lo, hi, m);
    double wlo[3], whi[3];
    for (int k = 0; k < 3; k++) {
        wlo[k] = lo[k] - (o->radius + m);
        whi[k] = hi[k] + (o->radius + m);
    }
    return clip_axis(wlo, whi, o->a, o->b);
}

/* Axis i's coordinate of a point p is n_i . (p - c) / det, with n_i = the
 * cross product of the other two axes (dual basis): W's points have
 * coordinates within s_i +- e_i, so a half extent past 2 (|s_i| + e_i) (and
 * the margin) reaches beyond W on both sides and is capped there. */
static void reduce_obb(mq_dobb *o, const double lo[3], const double hi[3], double m)
{
    double n[3][3];
    for (int i = 0; i < 3; i++) {
        const double *u = o->axes[(i + 1) % 3], *v = o->axes[(i + 2) % 3];
        n[i][0] = u[1] * v[2] - u[2] * v[1];
        n[i][1] = u[2] * v[0] - u[0] * v[2];
        n[i][2] = u[0] * v[1] - u[1] * v[0];
    }
    double det = fabs(o->axes[0][0] * n[0][0] + o->axes[0][1] * n[0][1] + o->axes[0][2] * n[0][2]);
    for (int i = 0; i < 3; i++) {
        double s_i = 0.0, e_i = 0.0;
        for (int k = 0; k < 3; k++) {
            s_i += n[i][k] * ((0.5 * lo[k] + 0.5 * hi[k]) - o->center[k]);
            e_i += fabs(n[i][k]) * (0.5 * hi[k] - 0.5 * lo[k]);
        }
        /* det ~ 1 for valid axes; a NaN cap (det 0) leaves the half extent alone */
        o->half[i] = mq_fmin(o->half[i], 2.0 * (fabs(s_i) + e_i) / det + m);
    }
}

static bool reduce_aabb(mq_daabb *o, const double lo[3], const double hi[3])
{
    for (int k = 0; k < 3; k++) {
        o->min[k] = mq_fmax(o->min[k], lo[k]);
        o->max[k] = mq_fmin(o->max[k], hi[k]);
        if (!(o->min[k] <= o->max[k]))
            return false;
    }
    return true;
}

bool mq_dshape_reduce(const mq_dshape *s, const double wlo[3], const double whi[3], mq_dshape *out)
{
    double lo[3], hi[3];
    double m = region(wlo, whi, lo, hi);
    *out = *s;
    switch (s->kind) {
    case MQ_SHAPE_SPHERE:
        return reduce_sphere(&out->u.sphere, lo, hi, m);
    case MQ_SHAPE_CAPSULE:
        return reduce_capsule(&out->u.capsule, lo, hi, m);
    case MQ_SHAPE_OBB:
        reduce_obb(&out->u.obb, lo, hi, m);
        return true;
    case MQ_SHAPE_CONVEX:
        return true; /* a convex is tested in double at any size: kept whole */
    case MQ_SHAPE_AABB:
    default:
        return reduce_aabb(&out->u.aabb, lo, hi);
    }
}
