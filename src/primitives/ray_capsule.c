/*
 * Ray vs solid capsule, exactly: the capsule is the union of the two end balls
 * and the body, i.e. the infinite cylinder of the same radius around the axis
 * clipped to the slab between the planes through a and b perpendicular to it.
 * Each part gives a parameter interval; the capsule is convex, so their union is
 * one interval, their hull.
 *
 * The body reuses the sphere routine: projected along the axis, the cylinder is
 * the ball of radius r around the origin of the plane perpendicular to the axis,
 * and the ray projects to the ray f_perp + t*d_perp with the same parameter t.
 * Run on [lo, hi] = the slab interval, it yields the body interval directly.
 */
#include <meshquery/primitives.h>

#include "core/minmax.h"
#include "primitives/shape_checks.h"

/* Adds the interval s to the running hull (*found says whether it has one yet). */
static void hull_add(mq_ray_span *hull, bool *found, const mq_ray_span *s)
{
    if (!*found) {
        *hull = *s;
        *found = true;
        return;
    }
    if (s->t_enter < hull->t_enter)
        hull->t_enter = s->t_enter;
    if (s->t_exit > hull->t_exit)
        hull->t_exit = s->t_exit;
}

/* |p| <= r, compared after scaling both by a power of two so no square overflows. */
static bool within_radius(const vec3 p, float r)
{
    int k;
    (void)frexpf(mq_fmaxf(mq_fmaxf(fabsf(p[0]), fabsf(p[1])), mq_fmaxf(fabsf(p[2]), r)), &k);
    vec3 ps = {ldexpf(p[0], -k), ldexpf(p[1], -k), ldexpf(p[2], -k)};
    float rs = ldexpf(r, -k);
    return mq_v3_dot(ps, ps) <= rs * rs;
}

/*
 * The part of the ray inside the body (cylinder between the end planes), clipped
 * to [tmin, tmax]. `axis` is b - a scaled by a power of two to a largest
 * component in [0.5, 1), so that axis.axis neither underflows nor overflows.
 */
static bool body_span(const mq_ray *ray, const mq_capsule *cap, const vec3 ba, const vec3 axis, mq_ray_span *out)
{
    vec3 f;
    mq_v3_sub(f, ray->origin, cap->a);
    /* Slab: 0 <= (f + t*d).axis <= ba.axis (the end planes through a and b). */
    float s0 = mq_v3_dot(f, axis), sd = mq_v3_dot(ray->dir, axis), len = mq_v3_dot(ba, axis);
    float lo = ray->tmin, hi = ray->tmax;
    if (sd == 0.0f) {
        if (!(s0 >= 0.0f && s0 <= len))
            return false;
    } else {
        float t0 = -s0 / sd, t1 = (len - s0) / sd;
        if (sd < 0.0f) {
            float tmp = t0;
            t0 = t1;
            t1 = tmp;
        }
        if (t0 > lo)
            lo = t0;
        if (t1 < hi)
            hi = t1;
        if (!(lo <= hi))
            return false;
    }
    /* Components perpendicular to the axis. */
    float axax = mq_v3_dot(axis, axis);
    mq_ray proj;
    mq_v3_madd(proj.origin, f, axis, -s0 / axax);
    mq_v3_madd(proj.dir, ray->dir, axis, -sd / axax);
    proj.tmin = lo;
    proj.tmax = hi;
    if (proj.dir[0] == 0.0f && proj.dir[1] == 0.0f && proj.dir[2] == 0.0f) {
        /* Ray parallel to the axis: inside the cylinder for all t, or never. */
        if (!mq_v3_is_finite(proj.origin) || !within_radius(proj.origin, cap->radius))
            return false;
        out->t_enter = lo;
        out->t_exit = hi;
        return true;
    }
    const mq_sphere disc = {{0.0f, 0.0f, 0.0f}, cap->radius};
    return mq_raycast_sphere(&proj, &disc, out);
}

bool mq_raycast_capsule(const mq_ray *ray, const mq_capsule *capsule, mq_ray_span *out)
{
    if (!capsule || !mq_ray_is_valid(ray) || !mq_capsule_ok(capsule))
        return false;
    mq_ray_span hull = {0.0f, 0.0f}, part;
    bool found = false;

    const mq_sphere end_a = {{capsule->a[0], capsule->a[1], capsule->a[2]}, capsule->radius};
    if (mq_raycast_sphere(ray, &end_a, &part))
        hull_add(&hull, &found, &part);

    /* b - a is exactly zero only when a == b (gradual underflow): then the capsule
     * is the ball around a, done above. (It overflows only for ends ~FLT_MAX
     * apart, beyond the range this routine answers for.) */
    vec3 ba;
    mq_v3_sub(ba, capsule->b, capsule->a);
    if ((ba[0] != 0.0f || ba[1] != 0.0f || ba[2] != 0.0f) && mq_v3_is_finite(ba)) {
        const mq_sphere end_b = {{capsule->b[0], capsule->b[1], capsule->b[2]}, capsule->radius};
        if (mq_raycast_sphere(ray, &end_b, &part))
            hull_add(&hull, &found, &part);
        int e;
        (void)frexpf(mq_fmaxf(fabsf(ba[0]), mq_fmaxf(fabsf(ba[1]), fabsf(ba[2]))), &e);
        const vec3 axis = {ldexpf(ba[0], -e), ldexpf(ba[1], -e), ldexpf(ba[2], -e)};
        if (body_span(ray, capsule, ba, axis, &part))
            hull_add(&hull, &found, &part);
    }
    if (found && out)
        *out = hull;
    return found;
}
