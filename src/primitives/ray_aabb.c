/* Ray vs axis-aligned box: the slab test of ray_slab.h on the box's own planes. */
#include <meshquery/primitives.h>

#include "primitives/ray_slab.h"
#include "primitives/shape_checks.h"

bool mq_raycast_aabb(const mq_ray *ray, const mq_aabb *box, mq_ray_span *out)
{
    if (!box || !mq_ray_is_valid(ray) || !mq_aabb_ok(box))
        return false;
    /* Starting from [tmin, tmax] makes the clipping part of the slab test, and an
     * origin inside the box leaves t_enter = tmin untouched. */
    float t_enter = ray->tmin, t_exit = ray->tmax;
    if (!mq_slab_clip(ray->origin, ray->dir, box->min, box->max, &t_enter, &t_exit))
        return false;
    if (out) {
        out->t_enter = t_enter;
        out->t_exit = t_exit;
    }
    return true;
}
