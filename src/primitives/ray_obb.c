/* Ray vs oriented box: the slab test in the box's frame, where it is [-half, +half]. */
#include <meshquery/primitives.h>

#include "primitives/ray_slab.h"
#include "primitives/shape_checks.h"

bool mq_raycast_obb(const mq_ray *ray, const mq_obb *box, mq_ray_span *out)
{
    if (!mq_ray_is_valid(ray) || !mq_obb_is_valid(box))
        return false;
    /* The axes are orthonormal, so the change of frame keeps lengths and t means
     * the same in both frames. For a box with world axes the local direction
     * components are exact copies (d*1 + 0 + 0), so a ray parallel to a face stays
     * exactly parallel and takes the slab test's exact branch. */
    vec3 o, d, lo, hi;
    mq_obb_to_local(box, ray->origin, o);
    mq_obb_dir_to_local(box, ray->dir, d);
    /* Only coordinates near FLT_MAX overflow here; refuse rather than let inf/inf
     * = NaN slip through the slab comparisons. */
    if (!mq_v3_is_finite(o) || !mq_v3_is_finite(d))
        return false;
    for (int i = 0; i < 3; i++) {
        lo[i] = -box->half[i];
        hi[i] = box->half[i];
    }
    float t_enter = ray->tmin, t_exit = ray->tmax;
    if (!mq_slab_clip(o, d, lo, hi, &t_enter, &t_exit))
        return false;
    if (out) {
        out->t_enter = t_enter;
        out->t_exit = t_exit;
    }
    return true;
}
