/* OBB tree: the triangles an axis-aligned box overlaps. Node: the 15-axis
 * separating axis test with the query as a box of world axes (so R is the
 * node's own frame, no products needed); leaf: mq_overlap_triangle_aabb. */
#include "primitives/shape_checks.h"
#include "primitives/shape_reduce.h"
#include "obbtree/obbtree_walk.h"
#include "obbtree/obbtree_overlap_shapes.h"
#include "obbtree/obbtree_region.h"

typedef struct aabb_query {
    mq_aabb box;
    float center[3], half[3], half_sum;
    float rounding; /* what centre/half form may lose against min/max form */
} aabb_query;

static bool node_test(const mq_obbtree_node *n, const void *q)
{
    const aabb_query *a = q;
    float t[3], R[3][3]; /* R[i][j] = node axis i . world axis j */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[i][j] = n->axes[i][j];
    mq_node_local_point(n, a->center, t);
    float slack = MQ_OBBTREE_SLACK * (mq_abs_sum3(t) + mq_half_sum(n) + a->half_sum) + a->rounding;
    return mq_sat_overlap(n->half, a->half, R, t, slack);
}

static bool tri_test(const mq_triangle *tri, const void *q)
{
    const aabb_query *a = q;
    return mq_overlap_triangle_aabb(tri, &a->box);
}

static size_t walk(const mq_obbtree *t, const mq_aabb *box, mq_overlap_fn fn, void *user)
{
    if (!t || !box || !mq_aabb_ok(box))
        return 0;
    double lo[3], hi[3]; /* cut down to the root box: huge shapes answer exactly (shape_reduce.h) */
    mq_aabb cut;
    if (!mq_obbtree_root_region(t, lo, hi) || !mq_aabb_reduce(box, lo, hi, &cut))
        return 0;
    box = &cut;
    aabb_query q = {.box = *box};
    for (int i = 0; i < 3; i++) {
        q.center[i] = 0.5f * box->min[i] + 0.5f * box->max[i];
        q.half[i] = 0.5f * box->max[i] - 0.5f * box->min[i];
    }
    q.half_sum = q.half[0] + q.half[1] + q.half[2];
    q.rounding = MQ_OBBTREE_SLACK * (mq_abs_sum3(box->min) + mq_abs_sum3(box->max));
    return mq_obbtree_walk(t, &q, node_test, tri_test, fn, user);
}

size_t mq_obbtree_aabb_overlap(const mq_obbtree *t, const mq_aabb *box, mq_overlap_fn fn, void *user)
{
    return fn ? walk(t, box, fn, user) : 0;
}

size_t mq_obbtree_aabb_overlap_array(const mq_obbtree *t, const mq_aabb *box, uint32_t *out, size_t capacity)
{
    mq_id_sink sink = {out, out ? capacity : 0, 0};
    walk(t, box, mq_id_sink_push, &sink);
    return sink.count;
}

bool mq_obbtree_aabb_overlap_any(const mq_obbtree *t, const mq_aabb *box)
{
    return walk(t, box, mq_stop_at_first, NULL) > 0;
}
