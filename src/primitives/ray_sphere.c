/*
 * Ray vs solid sphere: |o + t*d - c|^2 <= r^2, a quadratic in t solved in the
 * form of Haines, Guenther & Akenine-Moeller, "Precision Improvements for
 * Ray/Sphere Intersection", Ray Tracing Gems ch. 7 (2019):
 *   - the discriminant b^2 - a*c is computed as a * (r^2 - |l|^2), where l is
 *     the vector from the centre to the closest point of the line, so a far
 *     origin does not cancel it away (the naive form loses every digit once
 *     |o - c|^2 dwarfs r^2 by 2^24);
 *   - the roots are c/q and q/a with q = -(b + sign(b) sqrt(disc)), so the
 *     smaller root is not a difference of nearly equal numbers either.
 */
#include <meshquery/primitives.h>

#include "core/minmax.h"
#include "primitives/shape_checks.h"

/* The exponent e with max |x_i| = m * 2^e, m in [0.5, 1) (e = 0 for all zeros). */
static int max_exponent(float x, float y, float z)
{
    int e;
    (void)frexpf(mq_fmaxf(fabsf(x), mq_fmaxf(fabsf(y), fabsf(z))), &e);
    return e;
}

/*
 * The interval [*t0, *t1] of t with |f + t*d| <= r (f = origin - centre), or false
 * when the line misses the ball. The problem is first rescaled by powers of
 * two, which is exact (only exponents change; a component more than 2^125
 * below the largest may lose bits as a subnormal, far below the largest one's
 * rounding): d to a largest component in [0.5, 1), so a = d.d lies in
 * [0.25, 3); f and r to at most 1, so no square overflows. The answer then
 * holds for any finite input whose difference o - c is finite, tiny or huge
 * directions and radii included.
 */
static bool ball_interval(const vec3 f, const vec3 d, float r, float *t0, float *t1)
{
    int e = max_exponent(d[0], d[1], d[2]);
    int k = max_exponent(f[0], f[1], mq_fmaxf(fabsf(f[2]), r));
    vec3 ds = {ldexpf(d[0], -e), ldexpf(d[1], -e), ldexpf(d[2], -e)};
    vec3 fs = {ldexpf(f[0], -k), ldexpf(f[1], -k), ldexpf(f[2], -k)};
    float rs = ldexpf(r, -k);

    float a = mq_v3_dot(ds, ds);
    float b = mq_v3_dot(fs, ds); /* half the linear coefficient */
    float c = mq_v3_dot(fs, fs) - rs * rs;
    vec3 l;
    mq_v3_madd(l, fs, ds, -b / a);
    float h = rs * rs - mq_v3_dot(l, l); /* (b^2 - a*c) / a, without the cancellation */
    if (!(h >= 0.0f))                    /* also rejects NaN, should anything overflow */
        return false;
    float q = -(b + copysignf(sqrtf(a * h), b));
    float s0, s1;
    if (q == 0.0f) {
        /* b == 0 and a tangent line: the double root is the closest approach, s = 0. */
        s0 = s1 = 0.0f;
    } else {
        s0 = c / q;
        s1 = q / a;
    }
    if (s0 > s1) {
        float tmp = s0;
        s0 = s1;
        s1 = tmp;
    }
    if (!(s0 <= s1))
        return false;
    /* |f + t*d| = 2^k |fs + t * 2^(e-k) * ds|, so s = t * 2^(e-k) and t = s * 2^(k-e). */
    *t0 = ldexpf(s0, k - e);
    *t1 = ldexpf(s1, k - e);
    return true;
}

bool mq_raycast_sphere(const mq_ray *ray, const mq_sphere *sphere, mq_ray_span *out)
{
    if (!sphere || !mq_ray_is_valid(ray) || !mq_sphere_ok(sphere))
        return false;
    vec3 f;
    mq_v3_sub(f, ray->origin, sphere->center);
    float t0, t1;
    if (!ball_interval(f, ray->dir, sphere->radius, &t0, &t1))
        return false;
    float t_enter = t0 > ray->tmin ? t0 : ray->tmin;
    float t_exit = t1 < ray->tmax ? t1 : ray->tmax;
    if (!(t_enter <= t_exit))
        return false;
    if (out) {
        out->t_enter = t_enter;
        out->t_exit = t_exit;
    }
    return true;
}
