/*
 * Mesh vs mesh on two OBB trees: the bounding volume test tree of OBBTree
 * (Gottschalk, Lin & Manocha 1996, §5). Pairs of nodes (A, B) go on a stack;
 * for each, B's box is expressed in A's box frame once (R = A^T M B,
 * T = A^T (M cB + t - cA)) and the 15-axis separating axis test decides; an
 * overlapping pair descends the node with the larger box, and two leaves test
 * their triangles: B's corners mapped into A's frame (mq_rigid_apply's exact
 * operations), a box-overlap reject, then mq_overlap_triangle_triangle.
 */
#include "core/minmax.h"
#include "obbtree/obbtree_node_tests.h"
#include "obbtree/obbtree_rigid.h"

typedef struct pair_entry {
    uint32_t a, b;
} pair_entry;

typedef struct collide_ctx {
    const mq_obbtree *a, *b;
    mq_rigid_m m; /* B's frame -> A's frame */
    float slack;  /* rounding of coordinates of this size: MQ_OBBTREE_SLACK * (|t| + both magnitudes) */
    mq_pair_fn fn;
    void *user;
    size_t reported;
} collide_ctx;

static bool boxes_overlap(const collide_ctx *c, const mq_obbtree_node *na, const mq_obbtree_node *nb)
{
    float center[3], axes[3][3], R[3][3], t[3];
    mq_rigid_m_apply(&c->m, nb->center, center);
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++)
            axes[j][k] =
                c->m.col[0][k] * nb->axes[j][0] + c->m.col[1][k] * nb->axes[j][1] + c->m.col[2][k] * nb->axes[j][2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[i][j] = na->axes[i][0] * axes[j][0] + na->axes[i][1] * axes[j][1] + na->axes[i][2] * axes[j][2];
    mq_node_local_point(na, center, t);
    float slack = c->slack + MQ_OBBTREE_SLACK * (mq_abs_sum3(t) + mq_half_sum(na) + mq_half_sum(nb));
    return mq_sat_overlap(na->half, nb->half, R, t, slack);
}

/* Descend the node with the larger box (RAPID's rule): squared half diagonal. */
static float box_size(const mq_obbtree_node *n)
{
    return n->half[0] * n->half[0] + n->half[1] * n->half[1] + n->half[2] * n->half[2];
}

static void triangle_bounds(const mq_triangle *tri, float slack, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = mq_fminf(mq_fminf(tri->v[0][k], tri->v[1][k]), tri->v[2][k]) - slack;
        hi[k] = mq_fmaxf(mq_fmaxf(tri->v[0][k], tri->v[1][k]), tri->v[2][k]) + slack;
    }
}

static bool bounds_disjoint(const float alo[3], const float ahi[3], const float blo[3], const float bhi[3])
{
    return alo[0] > bhi[0] || alo[1] > bhi[1] || alo[2] > bhi[2] || blo[0] > ahi[0] || blo[1] > ahi[1] ||
           blo[2] > ahi[2];
}

/* All triangle pairs of two leaves. Returns false when the callback stopped the query. */
static bool leaf_pair(collide_ctx *c, const mq_obbtree_node *na, const mq_obbtree_node *nb)
{
    mq_triangle tb[MQ_OBBTREE_MAX_LEAF_SIZE];
    float blo[MQ_OBBTREE_MAX_LEAF_SIZE][3], bhi[MQ_OBBTREE_MAX_LEAF_SIZE][3];
    uint32_t fb = mq_obbtree_leaf_first(nb), nbc = mq_obbtree_leaf_count(nb);
    for (uint32_t j = 0; j < nbc; j++) {
        for (int v = 0; v < 3; v++)
            mq_rigid_m_apply(&c->m, c->b->tris[fb + j].v[v], tb[j].v[v]);
        triangle_bounds(&tb[j], 0.0f, blo[j], bhi[j]);
    }
    uint32_t fa = mq_obbtree_leaf_first(na), end = fa + mq_obbtree_leaf_count(na);
    for (uint32_t i = fa; i < end; i++) {
        float alo[3], ahi[3];
        triangle_bounds(&c->a->tris[i], c->slack, alo, ahi);
        for (uint32_t j = 0; j < nbc; j++) {
            if (bounds_disjoint(alo, ahi, blo[j], bhi[j]) || !mq_overlap_triangle_triangle(&c->a->tris[i], &tb[j]))
                continue;
            c->reported++;
            if (!c->fn(c->a->ids[i], c->b->ids[fb + j], c->user))
                return false;
        }
    }
    return true;
}

/* The stack holds one entry per level descended in A or in B along the current
 * path, so both trees' depth bounds together bound it. */
static void descend(collide_ctx *c)
{
    pair_entry stack[2 * MQ_OBBTREE_STACK];
    int top = 0;
    pair_entry p = {0, 0};
    for (;;) {
        const mq_obbtree_node *na = &c->a->nodes[p.a], *nb = &c->b->nodes[p.b];
        if (boxes_overlap(c, na, nb)) {
            bool la = mq_obbtree_node_is_leaf(na), lb = mq_obbtree_node_is_leaf(nb);
            if (la && lb) {
                if (!leaf_pair(c, na, nb))
                    return;
            } else if (lb || (!la && box_size(na) >= box_size(nb))) {
                stack[top++] = (pair_entry){na->data, p.b};
                p.a++;
                continue;
            } else {
                stack[top++] = (pair_entry){p.a, nb->data};
                p.b++;
                continue;
            }
        }
        if (top == 0)
            return;
        p = stack[--top];
    }
}

static size_t collide(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *xf, mq_pair_fn fn, void *user)
{
    collide_ctx c = {a, b, {{{0}}, {0}}, 0.0f, fn, user, 0};
    if (!a || !b || !xf || !mq_rigid_to_matrix(xf, &c.m) || a->node_count == 0 || b->node_count == 0)
        return 0;
    c.slack = MQ_OBBTREE_SLACK * (mq_abs_sum3(c.m.t) + a->magnitude + b->magnitude);
    descend(&c);
    return c.reported;
}

size_t mq_obbtree_collide(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, mq_pair_fn fn, void *user)
{
    return fn ? collide(a, b, b_to_a, fn, user) : 0;
}

typedef struct pair_sink {
    mq_tri_pair *out;
    size_t capacity;
    size_t count;
} pair_sink;

static bool pair_sink_push(uint32_t ta, uint32_t tb, void *user)
{
    pair_sink *s = user;
    if (s->count < s->capacity)
        s->out[s->count] = (mq_tri_pair){ta, tb};
    s->count++;
    return true;
}

size_t mq_obbtree_collide_array(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a, mq_tri_pair *out,
                                size_t capacity)
{
    pair_sink sink = {out, out ? capacity : 0, 0};
    collide(a, b, b_to_a, pair_sink_push, &sink);
    return sink.count;
}

static bool stop_at_first(uint32_t ta, uint32_t tb, void *user)
{
    (void)ta;
    (void)tb;
    (void)user;
    return false;
}

bool mq_obbtree_any_collide(const mq_obbtree *a, const mq_obbtree *b, const mq_rigid *b_to_a)
{
    return collide(a, b, b_to_a, stop_at_first, NULL) > 0;
}
