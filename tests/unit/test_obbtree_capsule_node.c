/*
 * The OBB tree's capsule node predicate (mq_node_overlaps_capsule): the
 * segment against the node box grown by the radius, by separating axes in
 * float. Oracle: the same segment clipped against the same grown box in
 * double, from the same float inputs. The predicate must admit every case the
 * oracle admits (else the tree would lose triangles) and reject every case
 * the oracle rejects by more than a small margin (else it would not cull).
 * Cases graze the grown box's faces, edges and corners, where the face axes
 * alone cannot decide, on boxes far from the origin and of sizes 1e-25 to 1e18.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include <meshquery/primitives.h>

#include "obbtree/obbtree_node_tests.h"
#include "test_support.h"

#define CASES 200000
/* Rejections the oracle makes by more than this fraction of the box's scale
 * and distance from the origin must be rejections of the predicate too. */
#define MARGIN 1e-4

typedef struct node_case {
    mq_obbtree_node node;
    float a[3], b[3], r;
} node_case;

/* The predicate as the tree calls it: start point and half vector. */
static bool predicate(const node_case *c)
{
    float hv[3] = {0.5f * (c->b[0] - c->a[0]), 0.5f * (c->b[1] - c->a[1]), 0.5f * (c->b[2] - c->a[2])};
    return mq_node_overlaps_capsule(&c->node, c->a, hv, c->r);
}

static void local_point_d(const mq_obbtree_node *n, const float p[3], double out[3])
{
    for (int i = 0; i < 3; i++) {
        out[i] = 0.0;
        for (int k = 0; k < 3; k++)
            out[i] += ((double)p[k] - n->center[k]) * n->axes[i][k];
    }
}

/* The oracle: does segment a-b meet the node box grown by r + extra (double)? */
static bool oracle(const node_case *c, double extra)
{
    double la[3], lb[3], t0 = 0.0, t1 = 1.0;
    local_point_d(&c->node, c->a, la);
    local_point_d(&c->node, c->b, lb);
    for (int i = 0; i < 3; i++) {
        double h = (double)c->node.half[i] + c->r + extra;
        if (!mq_slab_clip_axis_d(la[i], lb[i] - la[i], -h, h, &t0, &t1))
            return false;
    }
    return true;
}

/* A node box with a random frame, size and place (float, as the tree stores it). */
static mq_obbtree_node random_node(mq_test_rng *rng, double scale, double offset)
{
    mq_obbtree_node n;
    memset(&n, 0, sizeof n);
    double q[4];
    mq_test_rng_quat(rng, q);
    mq_obb frame;
    vec3 zero = {0, 0, 0}, one = {1, 1, 1};
    mq_obb_from_quat(zero, one, (float[4]){(float)q[0], (float)q[1], (float)q[2], (float)q[3]}, &frame);
    for (int i = 0; i < 3; i++) {
        n.center[i] = (float)(offset * mq_test_rng_range(rng, -1, 1));
        n.half[i] = (float)(scale * mq_test_rng_range(rng, 0.001, 1.0));
        for (int k = 0; k < 3; k++)
            n.axes[i][k] = frame.axes[i][k];
    }
    /* Now and then a flat box, as a leaf of coplanar triangles has. */
    if (mq_test_rng_unit(rng) < 0.1)
        n.half[(int)(3 * mq_test_rng_unit(rng))] = 0.0f;
    return n;
}

/* Mesh-space point of box-local coordinates l (double, then rounded to float). */
static void to_mesh(const mq_obbtree_node *n, const double l[3], float out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = (float)(n->center[k] + n->axes[0][k] * l[0] + n->axes[1][k] * l[1] + n->axes[2][k] * l[2]);
}

/*
 * A segment grazing the grown box: through a point on one of its faces, edges
 * or corners (nudged in or out by up to `jitter`), along a direction that
 * leaves the box on both sides of that point, so the touch decides the answer.
 */
static void grazing_segment(mq_test_rng *rng, node_case *c, double scale, double jitter)
{
    double e[3], p[3], d[3], sign[3];
    int kind = (int)(3 * mq_test_rng_unit(rng)); /* 0 face, 1 edge, 2 corner */
    int free_axis = (int)(3 * mq_test_rng_unit(rng));
    for (int i = 0; i < 3; i++) {
        e[i] = (double)c->node.half[i] + c->r;
        sign[i] = mq_test_rng_unit(rng) < 0.5 ? -1.0 : 1.0;
        bool on = kind == 2 || (kind == 1 && i != free_axis) || (kind == 0 && i == free_axis);
        p[i] = on ? sign[i] * e[i] : mq_test_rng_range(rng, -e[i], e[i]);
        d[i] = mq_test_rng_range(rng, -1, 1);
    }
    /* Tangent to the face planes the point lies on: along a face the segment
     * slides on the plane; at an edge or corner it turns across the ridge. */
    if (kind == 0)
        d[free_axis] = 0.0;
    else
        for (int i = 0, flip = 0; i < 3; i++)
            if (kind == 2 || i != free_axis) {
                d[i] = (flip ? -1.0 : 1.0) * sign[i] * fabs(d[i]);
                flip = !flip;
            }
    double out = jitter * mq_test_rng_range(rng, -1, 1), len = scale * mq_test_rng_range(rng, 0.01, 2.0);
    double l0[3], l1[3];
    double u = mq_test_rng_range(rng, 0.0, 1.0); /* where along the segment the touch is */
    for (int i = 0; i < 3; i++) {
        bool on = kind == 2 || (kind == 1 && i != free_axis) || (kind == 0 && i == free_axis);
        double q = p[i] + (on ? sign[i] * out : 0.0);
        l0[i] = q - u * len * d[i];
        l1[i] = q + (1.0 - u) * len * d[i];
    }
    to_mesh(&c->node, l0, c->a);
    to_mesh(&c->node, l1, c->b);
}

static void random_segment(mq_test_rng *rng, node_case *c, double scale)
{
    double l0[3], l1[3];
    for (int i = 0; i < 3; i++) {
        l0[i] = 2.0 * scale * mq_test_rng_range(rng, -1, 1);
        l1[i] = 2.0 * scale * mq_test_rng_range(rng, -1, 1);
    }
    if (mq_test_rng_unit(rng) < 0.05) /* a point: the capsule is a sphere */
        memcpy(l1, l0, sizeof l0);
    to_mesh(&c->node, l0, c->a);
    to_mesh(&c->node, l1, c->b);
}

static void test_predicate_matches_double_oracle(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(20261128));
    static const double offsets[] = {0.0, 1.0, 1e3, 1e5};
    size_t admitted = 0, rejected = 0, near_rejected = 0;
    for (int k = 0; k < CASES; k++) {
        /* meshes from 1e-25 to 1e18: products of coordinates over- and
         * underflow float at the ends */
        double scale = pow(10.0, mq_test_rng_range(&rng, -25, 18));
        double offset = scale * offsets[k % 4];
        node_case c;
        c.node = random_node(&rng, scale, offset);
        c.r = mq_test_rng_unit(&rng) < 0.2 ? 0.0f : (float)(scale * mq_test_rng_range(&rng, 0.0, 0.5));
        if (k % 3 == 0)
            random_segment(&rng, &c, scale);
        else
            grazing_segment(&rng, &c, scale, k % 3 == 1 ? 1e-6 * scale : 1e-2 * scale);
        bool got = predicate(&c);
        double margin =
            MARGIN * (scale + offset + fabs(c.node.center[0]) + fabs(c.node.center[1]) + fabs(c.node.center[2]));
        if (oracle(&c, 0.0)) {
            admitted++;
            if (!got)
                fail_msg("case %d: the oracle admits, the predicate rejects (scale %g, offset %g)", k, scale, offset);
        } else if (!oracle(&c, margin)) {
            rejected++;
            if (got)
                fail_msg("case %d: the oracle rejects by a margin, the predicate admits (scale %g)", k, scale);
        } else {
            near_rejected++;
        }
    }
    /* Both sides are well exercised (not a degenerate generator). */
    assert_true(admitted > CASES / 10);
    assert_true(rejected > CASES / 10);
    (void)near_rejected;
}

/* Hand-made cases: a segment passing a box's edge diagonally, just outside
 * and just inside, where every face axis overlaps and a cross axis decides. */
static void test_edge_pass(void **state)
{
    (void)state;
    node_case c;
    memset(&c, 0, sizeof c);
    c.node.half[0] = c.node.half[1] = c.node.half[2] = 1.0f;
    c.node.axes[0][0] = c.node.axes[1][1] = c.node.axes[2][2] = 1.0f;
    /* The line x + y = 2 + s touches the edge x = y = 1 at s = 0. */
    float s[] = {0.01f, -0.01f};
    bool want[] = {false, true};
    for (int i = 0; i < 2; i++) {
        float w = 2.0f + s[i];
        memcpy(c.a, (float[3]){w + 1.0f, -1.0f, 0.0f}, sizeof c.a);
        memcpy(c.b, (float[3]){-1.0f, w + 1.0f, 0.0f}, sizeof c.b);
        c.r = 0.0f;
        assert_int_equal(predicate(&c), want[i]);
        /* The radius grows the box: 0.02 turns the miss into a hit. */
        c.r = 0.02f;
        assert_true(predicate(&c));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predicate_matches_double_oracle),
        cmocka_unit_test(test_edge_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
