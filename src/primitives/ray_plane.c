/*
 * Ray vs plane dot(n, p) = d: t = (d - dot(n, o)) / dot(n, dir).
 * Both dot products are taken in double, where the float products are exact, so
 * "parallel" (dot(n, dir) == 0) and "lying in the plane" are decided exactly
 * up to the rounding of the 3-term sums, and the t we return is the correctly
 * rounded quotient of nearly exact numbers.
 */
#include <meshquery/primitives.h>

#include "primitives/shape_checks.h"

static bool plane_ok(const mq_plane *p)
{
    return mq_v3_is_finite(p->normal) && isfinite(p->d) &&
           (p->normal[0] != 0.0f || p->normal[1] != 0.0f || p->normal[2] != 0.0f);
}

static double dot_d(const vec3 a, const vec3 b)
{
    return (double)a[0] * (double)b[0] + (double)a[1] * (double)b[1] + (double)a[2] * (double)b[2];
}

bool mq_raycast_plane(const mq_ray *ray, const mq_plane *plane, float *t)
{
    if (!plane || !mq_ray_is_valid(ray) || !plane_ok(plane))
        return false;
    double den = dot_d(plane->normal, ray->dir);
    double num = (double)plane->d - dot_d(plane->normal, ray->origin);
    float hit;
    if (den == 0.0) {
        if (num != 0.0) /* parallel and off the plane */
            return false;
        hit = ray->tmin; /* the whole ray lies in the plane: its first point */
    } else {
        /* A quotient beyond FLT_MAX becomes +-inf (IEEE conversion, C11 Annex F);
         * it is in range only when tmax is infinite, as the true t is. */
        hit = (float)(num / den);
        if (!(hit >= ray->tmin && hit <= ray->tmax))
            return false;
    }
    if (t)
        *t = hit;
    return true;
}
