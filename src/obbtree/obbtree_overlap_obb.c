/* OBB tree: the triangles an oriented box overlaps. Node: the 15-axis separating
 * axis test, the query box expressed in the node's frame; leaf:
 * mq_overlap_triangle_obb. */
#include "primitives/shape_checks.h"
#include "primitives/shape_reduce.h"
#include "obbtree/obbtree_walk.h"
#include "obbtree/obbtree_overlap_shapes.h"
#include "obbtree/obbtree_region.h"

typedef struct obb_query {
    mq_obb box;
    float half_sum;
    /* MQ_OBBTREE_SLACK, plus what the query's axes lose to orthonormality: a valid
     * OBB's axes may be off by up to MQ_OBB_AXIS_TOLERANCE, which moves its faces
     * by about that fraction of its extents and skews its projections. */
    float slack;
} obb_query;

static bool node_test(const mq_obbtree_node *n, const void *q)
{
    const obb_query *o = q;
    float R[3][3], t[3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[i][j] = n->axes[i][0] * o->box.axes[j][0] + n->axes[i][1] * o->box.axes[j][1] +
                      n->axes[i][2] * o->box.axes[j][2];
    mq_node_local_point(n, o->box.center, t);
    float slack = o->slack * (mq_abs_sum3(t) + mq_half_sum(n) + o->half_sum);
    return mq_sat_overlap(n->half, o->box.half, R, t, slack);
}

static bool tri_test(const mq_triangle *tri, const void *q)
{
    const obb_query *o = q;
    return mq_overlap_triangle_obb(tri, &o->box);
}

static size_t walk(const mq_obbtree *t, const mq_obb *box, mq_overlap_fn fn, void *user)
{
    if (!t || !box || !mq_obb_is_valid(box))
        return 0;
    double lo[3], hi[3]; /* cut down to the root box: huge shapes answer exactly (shape_reduce.h) */
    mq_obb cut;
    if (!mq_obbtree_root_region(t, lo, hi) || !mq_obb_reduce(box, lo, hi, &cut))
        return 0;
    box = &cut;
    obb_query q = {*box, box->half[0] + box->half[1] + box->half[2],
                   MQ_OBBTREE_SLACK + 8.0f * mq_obb_axes_deviation(box)};
    return mq_obbtree_walk(t, &q, node_test, tri_test, fn, user);
}

size_t mq_obbtree_obb_overlap(const mq_obbtree *t, const mq_obb *box, mq_overlap_fn fn, void *user)
{
    return fn ? walk(t, box, fn, user) : 0;
}

size_t mq_obbtree_obb_overlap_array(const mq_obbtree *t, const mq_obb *box, uint32_t *out, size_t capacity)
{
    mq_id_sink sink = {out, out ? capacity : 0, 0};
    walk(t, box, mq_id_sink_push, &sink);
    return sink.count;
}

bool mq_obbtree_obb_overlap_any(const mq_obbtree *t, const mq_obb *box)
{
    return walk(t, box, mq_stop_at_first, NULL) > 0;
}
