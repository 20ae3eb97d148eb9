/* OBB tree: the triangles a convex (meshquery/convex.h) overlaps. Node: the
 * 15-axis separating axis test against the convex's bounding box, then the
 * convex's face planes against the node box (convex_internal.h); leaf: the
 * triangle's box against the convex's box, then the exact convex-triangle
 * test, which alone decides. The convex's test runs in double, so no shape is
 * cut down here: a convex of any finite size answers exactly. */
#include "core/minmax.h"
#include "convex/convex_internal.h"
#include "obbtree/obbtree_walk.h"
#include "obbtree/obbtree_overlap_shapes.h"

typedef struct convex_query {
    const mq_convex *c;
    mq_cpose pose;
    float lo[3], hi[3]; /* the convex's box, as floats that hold it */
    float center[3], half[3], half_sum;
    float rounding;
} convex_query;

static bool node_test(const mq_obbtree_node *n, const void *q)
{
    const convex_query *a = q;
    float t[3], R[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[i][j] = n->axes[i][j];
    mq_node_local_point(n, a->center, t);
    float slack = MQ_OBBTREE_SLACK * (mq_abs_sum3(t) + mq_half_sum(n) + a->half_sum) + a->rounding;
    if (!mq_sat_overlap(n->half, a->half, R, t, slack))
        return false;
    /* the node's box grown by the walk's slack, as in the axis test above:
     * its float axes and extents hold the triangles only to that slack */
    double c[3] = {n->center[0], n->center[1], n->center[2]};
    double h[3] = {(double)n->half[0] + slack, (double)n->half[1] + slack, (double)n->half[2] + slack};
    return mq_convex_box_may_meet(a->c, c, (const float(*)[3])n->axes, h);
}

static bool tri_test(const mq_triangle *tri, const void *q)
{
    const convex_query *a = q;
    for (int k = 0; k < 3; k++) {
        float lo = mq_fminf(mq_fminf(tri->v[0][k], tri->v[1][k]), tri->v[2][k]);
        float hi = mq_fmaxf(mq_fmaxf(tri->v[0][k], tri->v[1][k]), tri->v[2][k]);
        if (lo > a->hi[k] || hi < a->lo[k])
            return false;
    }
    return mq_convex_overlap_tri_posed(a->c, &a->pose, tri);
}

static size_t walk(const mq_obbtree *t, const mq_convex *c, mq_overlap_fn fn, void *user)
{
    if (!t || !c)
        return 0;
    convex_query q = {.c = c};
    mq_cpose_identity(&q.pose);
    for (int k = 0; k < 3; k++) {
        /* the vertices are floats: the double box is exactly representable */
        q.lo[k] = (float)c->lo[k];
        q.hi[k] = (float)c->hi[k];
        q.center[k] = 0.5f * q.lo[k] + 0.5f * q.hi[k];
        q.half[k] = 0.5f * q.hi[k] - 0.5f * q.lo[k];
    }
    q.half_sum = q.half[0] + q.half[1] + q.half[2];
    q.rounding = MQ_OBBTREE_SLACK * (mq_abs_sum3(q.lo) + mq_abs_sum3(q.hi));
    return mq_obbtree_walk(t, &q, node_test, tri_test, fn, user);
}

size_t mq_obbtree_convex_overlap(const mq_obbtree *t, const mq_convex *c, mq_overlap_fn fn, void *user)
{
    return fn ? walk(t, c, fn, user) : 0;
}

size_t mq_obbtree_convex_overlap_array(const mq_obbtree *t, const mq_convex *c, uint32_t *out, size_t capacity)
{
    mq_id_sink sink = {out, out ? capacity : 0, 0};
    walk(t, c, mq_id_sink_push, &sink);
    return sink.count;
}

bool mq_obbtree_convex_overlap_any(const mq_obbtree *t, const mq_convex *c)
{
    return walk(t, c, mq_stop_at_first, NULL) > 0;
}
