/* Validity checks and constructors for the value types (types.h conventions). */
#include <meshquery/primitives.h>

#include "core/vec3.h"
#include "primitives/shape_checks.h"

bool mq_ray_is_valid(const mq_ray *ray)
{
    return ray && mq_v3_is_finite(ray->origin) && mq_v3_is_finite(ray->dir) &&
           (ray->dir[0] != 0.0f || ray->dir[1] != 0.0f || ray->dir[2] != 0.0f) &&
           ray->tmin <= ray->tmax; /* false when either is NaN */
}

bool mq_obb_is_valid(const mq_obb *box)
{
    if (!box || !mq_v3_is_finite(box->center) || !mq_half_extents_ok(box->half))
        return false;
    const float tol = MQ_OBB_AXIS_TOLERANCE;
    for (int i = 0; i < 3; i++) {
        if (!mq_v3_is_finite(box->axes[i]) || !(fabsf(mq_v3_len2(box->axes[i]) - 1.0f) <= 2.0f * tol))
            return false;
        for (int j = i + 1; j < 3; j++)
            if (!(fabsf(mq_v3_dot(box->axes[i], box->axes[j])) <= tol))
                return false;
    }
    return true;
}

void mq_obb_from_quat(const vec3 center, const vec3 half, const float rotation[4], mq_obb *out)
{
    mq_v3_copy(out->center, center);
    mq_v3_copy(out->half, half);
    float w = rotation[0], x = rotation[1], y = rotation[2], z = rotation[3]; /* w first */
    float n2 = x * x + y * y + z * z + w * w;
    if (!(n2 > 0.0f) || !isfinite(n2)) {
        for (int i = 0; i < 3; i++)
            mq_v3_fill_nan(out->axes[i]);
        return;
    }
    float s = 2.0f / n2; /* normalises q implicitly */
    /* Columns of the rotation matrix = images of the world axes. */
    mq_v3_set(out->axes[0], 1.0f - s * (y * y + z * z), s * (x * y + w * z), s * (x * z - w * y));
    mq_v3_set(out->axes[1], s * (x * y - w * z), 1.0f - s * (x * x + z * z), s * (y * z + w * x));
    mq_v3_set(out->axes[2], s * (x * z + w * y), s * (y * z - w * x), 1.0f - s * (x * x + y * y));
}

void mq_obb_from_aabb(const mq_aabb *box, mq_obb *out)
{
    for (int i = 0; i < 3; i++) {
        out->center[i] = 0.5f * box->min[i] + 0.5f * box->max[i];
        /* An empty axis (min > max) gives a negative half extent: invalid, as documented. */
        out->half[i] = 0.5f * box->max[i] - 0.5f * box->min[i];
    }
    mq_v3_set(out->axes[0], 1, 0, 0);
    mq_v3_set(out->axes[1], 0, 1, 0);
    mq_v3_set(out->axes[2], 0, 0, 1);
}
