/* OBB tree: the closest point of the mesh to a point, within a maximum
 * distance. Branch and bound: a node is entered only if its box may hold a
 * point nearer than the best so far; children nearer first.
 * Leaf: mq_closest_point_triangle (its double-precision twin, whose float
 * rounding is the primitive's answer and decides, while the double value
 * gives the reported distance: accurate where the float squared distance is
 * subnormal, for coordinates down to ~1e-30). */
#include <math.h>

#include "core/vec3.h"
#include "primitives/closest_internal.h"
#include "obbtree/obbtree_node_tests.h"

typedef struct point_entry {
    uint32_t node;
    float bound; /* lower bound of the node's distance */
} point_entry;

typedef struct point_best {
    float d2;     /* squared distance of the best so far (max_distance^2 at the start) */
    double d2d;   /* the same in double (the primitive's before rounding) */
    float dist;   /* sqrt(d2): the pruning bound */
    uint32_t tri; /* tree order, UINT32_MAX when none */
    vec3 point;
    vec2 uv;
} point_best;

/* A lower bound of the distance from p to anything in the node, shaded down by
 * the rounding of its own computation (obbtree_node_tests.h). */
static float node_bound(const mq_obbtree_node *n, const float p[3])
{
    float l[3];
    mq_node_local_point(n, p, l);
    /* The squared distance in double: in float it turns subnormal (and
     * loses its relative precision) for distances below ~1e-19. */
    double d2 = 0.0;
    for (int i = 0; i < 3; i++) {
        float e = fabsf(l[i]) - n->half[i];
        if (e > 0.0f)
            d2 += (double)e * e;
    }
    float d = (float)sqrt(d2) - MQ_OBBTREE_SLACK * (mq_abs_sum3(l) + mq_half_sum(n));
    return d > 0.0f ? d : 0.0f;
}

static bool better(const mq_obbtree *t, float d2, uint32_t k, const point_best *best)
{
    return d2 < best->d2 || (d2 == best->d2 && (best->tri == UINT32_MAX || t->ids[k] < t->ids[best->tri]));
}

static void test_leaf(const mq_obbtree *t, const mq_obbtree_node *n, const float p[3], point_best *best)
{
    uint32_t first = mq_obbtree_leaf_first(n), end = first + mq_obbtree_leaf_count(n);
    for (uint32_t k = first; k < end; k++) {
        vec3 q;
        vec2 uv;
        double d2d = mq_cl_closest_point_triangle_d(p, &t->tris[k], q, uv);
        float d2 = (float)d2d; /* = mq_closest_point_triangle */
        if (!better(t, d2, k, best))
            continue;
        best->d2 = d2;
        best->d2d = d2d;
        best->dist = (float)sqrt(d2d);
        best->tri = k;
        mq_v3_copy(best->point, q);
        best->uv[0] = uv[0];
        best->uv[1] = uv[1];
    }
}

/* Ties with the best distance are still entered: they may hold a smaller id.
 * Pruned only when the bound also exceeds the best in the squared (float)
 * domain the decisions use: there rounding is monotone, so a node whose
 * triangles' squared distances may round to a tie (subnormal ones, below
 * ~1e-38) is still entered. */
static bool may_improve(float bound, const point_best *best)
{
    return !(bound > best->dist) || !(bound * bound > best->d2);
}

static void search(const mq_obbtree *t, const float p[3], point_best *best)
{
    point_entry stack[MQ_OBBTREE_STACK];
    int top = 0;
    if (!may_improve(node_bound(&t->nodes[0], p), best))
        return;
    uint32_t i = 0;
    for (;;) {
        const mq_obbtree_node *n = &t->nodes[i];
        if (mq_obbtree_node_is_leaf(n)) {
            test_leaf(t, n, p, best);
        } else {
            uint32_t l = i + 1, r = n->data;
            float bl = node_bound(&t->nodes[l], p), br = node_bound(&t->nodes[r], p);
            bool hl = may_improve(bl, best), hr = may_improve(br, best);
            if (hl && hr) {
                bool left_first = bl <= br;
                stack[top++] = (point_entry){left_first ? r : l, left_first ? br : bl};
                i = left_first ? l : r;
                continue;
            }
            if (hl || hr) {
                i = hl ? l : r;
                continue;
            }
        }
        do {
            if (top == 0)
                return;
            top--;
        } while (!may_improve(stack[top].bound, best));
        i = stack[top].node;
    }
}

bool mq_obbtree_closest_point(const mq_obbtree *t, const vec3 p, float max_distance, mq_point_hit *out)
{
    if (!t || !p || !mq_v3_is_finite(p) || !(max_distance >= 0.0f) || t->node_count == 0)
        return false;
    point_best best = {
        max_distance * max_distance, (double)max_distance * max_distance, max_distance, UINT32_MAX, {0, 0, 0}, {0, 0}};
    search(t, p, &best);
    if (best.tri == UINT32_MAX)
        return false;
    if (out) {
        mq_v3_copy(out->point, best.point);
        out->distance = best.dist;
        out->triangle = t->ids[best.tri];
        out->u = best.uv[0];
        out->v = best.uv[1];
    }
    return true;
}
