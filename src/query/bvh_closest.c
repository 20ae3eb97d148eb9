/*
 * The AABB BVH's closest point (bvh.h, mq_bvh_closest_point), with the
 * contract of mq_obbtree_closest_point: mq_closest_point_triangle on every
 * triangle, the smallest float squared distance within max_distance wins,
 * ties to the smaller triangle id.
 *
 * Walk: query/closest_walk.h (branch and bound, nearest child first, the
 * bound re-read after every visit), with the identity as the "transform":
 * sigma_min slightly below 1 and a slack covering the primitive's rounding
 * (its float squared distance may undershoot the exact one by a few ulp of
 * the coordinates), so no box holding a better answer is ever pruned.
 */
#include "core/vec3.h"
#include "query/closest_walk.h"

typedef struct cp_best {
    float p[3];
    float d2;     /* best squared distance (max_distance^2 at the start) */
    double bound; /* its square root: the walk's pruning bound */
    uint32_t id;  /* MQ_NO_TRIANGLE when none */
    vec3 point;
    vec2 uv;
} cp_best;

static void visit(uint32_t id, const mq_triangle *tri, void *ctx)
{
    cp_best *b = ctx;
    vec3 q;
    vec2 uv;
    float d2 = mq_closest_point_triangle(b->p, tri, q, uv);
    if (!(d2 < b->d2 || (d2 == b->d2 && (b->id == MQ_NO_TRIANGLE || id < b->id))))
        return;
    b->d2 = d2;
    b->bound = sqrt((double)d2);
    b->id = id;
    mq_v3_copy(b->point, q);
    b->uv[0] = uv[0];
    b->uv[1] = uv[1];
}

bool mq_bvh_closest_point(const mq_bvh *bvh, const vec3 p, float max_distance, mq_point_hit *out)
{
    if (!bvh || !p || !mq_v3_is_finite(p) || !(max_distance >= 0.0f))
        return false;
    cp_best b;
    mq_v3_copy(b.p, p);
    b.d2 = max_distance * max_distance;
    b.bound = (double)max_distance;
    b.id = MQ_NO_TRIANGLE;
    double pd[3] = {p[0], p[1], p[2]};
    double mag = fabs(pd[0]) + fabs(pd[1]) + fabs(pd[2]);
    /* the bound is entered up to (bound + slack) * (1 + 1e-5): the relative part
     * covers rounding on triangles of coordinates up to |p| + bound */
    mq_closest_prune pr = {&b.bound, 1.0 / (1.0 + 1e-5), 1e-5 * mag + 1e-35};
    mq_bvh_walk_closest(bvh, pd, &pr, visit, &b);
    if (b.id == MQ_NO_TRIANGLE)
        return false;
    if (out) {
        mq_v3_copy(out->point, b.point);
        out->distance = sqrtf(b.d2);
        out->triangle = b.id;
        out->u = b.uv[0];
        out->v = b.uv[1];
    }
    return true;
}
