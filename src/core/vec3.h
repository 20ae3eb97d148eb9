/*
 * Const-correct vec3 helpers for internal code. cglm's glm_vec3_* take
 * non-const arrays (calling them on const inputs warns), so primitives use these
 * thin inline equivalents on cglm's vec3 type; cglm stays the public math type.
 */
#ifndef MQ_CORE_VEC3_H
#define MQ_CORE_VEC3_H

#include <cglm/types.h>
#include <math.h>
#include <stdbool.h>

static inline void mq_v3_set(vec3 out, float x, float y, float z)
{
    out[0] = x;
    out[1] = y;
    out[2] = z;
}
static inline void mq_v3_copy(vec3 out, const vec3 a)
{
    out[0] = a[0];
    out[1] = a[1];
    out[2] = a[2];
}
static inline void mq_v3_add(vec3 out, const vec3 a, const vec3 b)
{
    out[0] = a[0] + b[0];
    out[1] = a[1] + b[1];
    out[2] = a[2] + b[2];
}
static inline void mq_v3_sub(vec3 out, const vec3 a, const vec3 b)
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}
static inline void mq_v3_scale(vec3 out, const vec3 a, float s)
{
    out[0] = a[0] * s;
    out[1] = a[1] * s;
    out[2] = a[2] * s;
}
/* out = a + b*s */
static inline void mq_v3_madd(vec3 out, const vec3 a, const vec3 b, float s)
{
    out[0] = a[0] + b[0] * s;
    out[1] = a[1] + b[1] * s;
    out[2] = a[2] + b[2] * s;
}
static inline float mq_v3_dot(const vec3 a, const vec3 b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline float mq_v3_len2(const vec3 a)
{
    return mq_v3_dot(a, a);
}
/* out must not alias a or b */
/* |a| in double: a float component's square neither underflows nor
 * overflows there (a bound built from it stays a bound for tiny and huge
 * vectors; round it up with core/float_steps.h's mq_float_ceil_of). */
static inline double mq_v3_len_d(const vec3 a)
{
    return sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
}

static inline void mq_v3_cross(vec3 out, const vec3 a, const vec3 b)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}
static inline bool mq_v3_is_finite(const vec3 a)
{
    return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]);
}
static inline void mq_v3_fill_nan(vec3 out)
{
    if (out)
        out[0] = out[1] = out[2] = NAN;
}

#endif
