/*
 * OBB tree shape overlap vs brute force: on every test mesh, random spheres,
 * capsules, OBBs and AABBs (docs/formats.md "shape queries"), plus
 * zero-size shapes placed exactly on mesh vertices and edges (touching cases).
 * The tree's answer set must EQUAL the set of triangles whose primitive test
 * says "overlap", for trees built with every fit method and several leaf sizes.
 * MQ_TEST_SEED changes the queries; MQ_OBT_QUERIES the count per shape.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_diff_obbtree_common.h"

typedef enum shape_kind { SHAPE_SPHERE, SHAPE_CAPSULE, SHAPE_OBB, SHAPE_AABB, SHAPE_KINDS } shape_kind;
static const char *const shape_names[SHAPE_KINDS] = {"sphere", "capsule", "obb", "aabb"};

typedef struct query {
    shape_kind kind;
    union {
        mq_sphere s;
        mq_capsule c;
        mq_obb o;
        mq_aabb a;
    };
} query;

static bool prim_overlaps(const query *q, const mq_triangle *t)
{
    switch (q->kind) {
    case SHAPE_SPHERE:
        return mq_overlap_sphere_triangle(&q->s, t);
    case SHAPE_CAPSULE:
        return mq_overlap_capsule_triangle(&q->c, t);
    case SHAPE_OBB:
        return mq_overlap_triangle_obb(t, &q->o);
    default:
        return mq_overlap_triangle_aabb(t, &q->a);
    }
}

static void query_bounds(const query *q, mq_aabb *b)
{
    for (int k = 0; k < 3; k++) {
        switch (q->kind) {
        case SHAPE_SPHERE:
            b->min[k] = q->s.center[k] - q->s.radius;
            b->max[k] = q->s.center[k] + q->s.radius;
            break;
        case SHAPE_CAPSULE:
            b->min[k] = fminf(q->c.a[k], q->c.b[k]) - q->c.radius;
            b->max[k] = fmaxf(q->c.a[k], q->c.b[k]) + q->c.radius;
            break;
        case SHAPE_OBB: {
            float e = 0.0f;
            for (int i = 0; i < 3; i++)
                e += fabsf(q->o.axes[i][k]) * q->o.half[i];
            b->min[k] = q->o.center[k] - e;
            b->max[k] = q->o.center[k] + e;
            break;
        }
        default:
            b->min[k] = q->a.min[k];
            b->max[k] = q->a.max[k];
        }
    }
}

static size_t tree_array(const mq_obbtree *t, const query *q, uint32_t *out, size_t cap)
{
    switch (q->kind) {
    case SHAPE_SPHERE:
        return mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = q->s}}, out, cap);
    case SHAPE_CAPSULE:
        return mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = q->c}}, out, cap);
    case SHAPE_OBB:
        return mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = q->o}}, out, cap);
    default:
        return mq_obbtree_overlap_array(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = q->a}}, out, cap);
    }
}

static bool tree_any(const mq_obbtree *t, const query *q)
{
    switch (q->kind) {
    case SHAPE_SPHERE:
        return mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = q->s}});
    case SHAPE_CAPSULE:
        return mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = q->c}});
    case SHAPE_OBB:
        return mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = q->o}});
    default:
        return mq_obbtree_overlap_any(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = q->a}});
    }
}

typedef struct stop_after {
    size_t calls, limit;
} stop_after;

static bool count_and_stop(uint32_t tri, void *user)
{
    (void)tri;
    stop_after *s = user;
    return ++s->calls < s->limit;
}

static size_t tree_callback(const mq_obbtree *t, const query *q, stop_after *s)
{
    switch (q->kind) {
    case SHAPE_SPHERE:
        return mq_obbtree_overlap(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = q->s}}, count_and_stop, s);
    case SHAPE_CAPSULE:
        return mq_obbtree_overlap(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = q->c}}, count_and_stop, s);
    case SHAPE_OBB:
        return mq_obbtree_overlap(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = q->o}}, count_and_stop, s);
    default:
        return mq_obbtree_overlap(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = q->a}}, count_and_stop, s);
    }
}

/* Brute force: every triangle near the query's bounds, by the primitive. */
static size_t brute(const obt_tri_boxes *tb, const query *q, float margin, uint32_t *out)
{
    mq_aabb qb;
    query_bounds(q, &qb);
    size_t n = 0;
    for (size_t i = 0; i < tb->count; i++)
        if (!obt_far_apart(&tb->boxes[i], &qb, margin) && prim_overlaps(q, &tb->tris[i]))
            out[n++] = (uint32_t)i;
    return n;
}

static void random_query(mq_test_rng *r, shape_kind kind, const mq_aabb *box, double D, query *q)
{
    q->kind = kind;
    switch (kind) {
    case SHAPE_SPHERE:
        obt_random_sphere(r, box, D, &q->s);
        break;
    case SHAPE_CAPSULE:
        obt_random_capsule(r, box, D, &q->c);
        break;
    case SHAPE_OBB:
        obt_random_obb(r, box, D, &q->o);
        break;
    default:
        obt_random_aabb(r, box, D, &q->a);
    }
}

/* A zero-size shape exactly on a vertex (capsules: along an edge): it touches
 * the triangles there, the hardest case for a conservative node test. */
static void touching_query(mq_test_rng *r, shape_kind kind, const obt_tri_boxes *tb, query *q)
{
    const mq_triangle *t = &tb->tris[mq_test_rng_u64(r) % tb->count];
    int k = (int)(mq_test_rng_u64(r) % 3);
    const float *v = t->v[k], *w = t->v[(k + 1) % 3];
    vec3 zero = {0, 0, 0};
    q->kind = kind;
    switch (kind) {
    case SHAPE_SPHERE:
        q->s = (mq_sphere){{v[0], v[1], v[2]}, 0.0f};
        break;
    case SHAPE_CAPSULE:
        q->c = (mq_capsule){{v[0], v[1], v[2]}, {w[0], w[1], w[2]}, 0.0f};
        break;
    case SHAPE_OBB: {
        double qd[4];
        mq_test_rng_quat(r, qd);
        versor qf = {(float)qd[0], (float)qd[1], (float)qd[2], (float)qd[3]};
        mq_obb_from_quat(v, zero, qf, &q->o);
        break;
    }
    default:
        q->a = (mq_aabb){{v[0], v[1], v[2]}, {v[0], v[1], v[2]}};
    }
}

typedef struct tree_variant {
    mq_obb_fit fit;
    uint32_t leaf;
    const char *name;
} tree_variant;

static const tree_variant variants[] = {
    {MQ_OBB_FIT_DITO, 4, "dito/4"},
    {MQ_OBB_FIT_PCA, 4, "pca/4"},
    {MQ_OBB_FIT_DITO, 1, "dito/1"},
    {MQ_OBB_FIT_AABB, 16, "aabb/16"},
};
#define VARIANTS (sizeof variants / sizeof variants[0])

typedef struct check_state {
    uint32_t *expect, *got;
    size_t cap;
    size_t mismatches, total_hits, nonempty, queries;
} check_state;

static void print_query(const query *q)
{
    const float *f = (const float *)&q->s;
    size_t n = q->kind == SHAPE_SPHERE ? 4 : q->kind == SHAPE_CAPSULE ? 7 : q->kind == SHAPE_OBB ? 15 : 6;
    fprintf(stderr, "    %s", shape_names[q->kind]);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " %.9g", (double)f[i]);
    fprintf(stderr, "\n");
}

/* One query against brute force on every tree. */
static void check_query(check_state *cs, const obt_tri_boxes *tb, mq_obbtree *const *trees, const query *q,
                        float margin, const char *mesh)
{
    size_t n = brute(tb, q, margin, cs->expect);
    cs->queries++;
    cs->total_hits += n;
    cs->nonempty += n > 0;
    for (size_t v = 0; v < VARIANTS; v++) {
        size_t m = tree_array(trees[v], q, cs->got, cs->cap);
        qsort(cs->got, m < cs->cap ? m : cs->cap, sizeof *cs->got, obt_cmp_u32);
        bool same = m == n && memcmp(cs->got, cs->expect, n * sizeof *cs->got) == 0;
        same = same && tree_any(trees[v], q) == (n > 0);
        stop_after s = {0, 1 + n / 2};
        same = same && tree_callback(trees[v], q, &s) == (n ? 1 + n / 2 : 0);
        if (!same && cs->mismatches++ < 10) {
            fprintf(stderr, "  MISMATCH %s %s tree %s: brute %zu, tree %zu\n", mesh, shape_names[q->kind],
                    variants[v].name, n, m);
            print_query(q);
        }
    }
}

static size_t queries_per_shape(void)
{
    const char *s = getenv("MQ_OBT_QUERIES");
    return s && *s ? (size_t)strtoul(s, NULL, 10) : (size_t)(2400 * OBT_SCALE);
}

static void overlap_matches_brute_force(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x0BB70001));
    size_t per_shape = queries_per_shape(), mismatches = 0;
    for (size_t mi = 0; mi < OBT_MESH_COUNT; mi++) {
        mq_mesh *mesh = mq_test_load_mesh(obt_meshes[mi]);
        mq_aabb box;
        double D = obt_bounds(mesh, &box);
        obt_tri_boxes tb = obt_tri_boxes_make(mesh);
        mq_obbtree *trees[VARIANTS];
        for (size_t v = 0; v < VARIANTS; v++) {
            mq_obbtree_def def = mq_default_obbtree_def();
            def.fit = variants[v].fit;
            def.max_leaf_size = variants[v].leaf;
            assert_int_equal(mq_obbtree_build(mesh, &def, &trees[v], NULL), MQ_OK);
        }
        check_state cs = {malloc(tb.count * 4 + 4), malloc(tb.count * 4 + 4), tb.count, 0, 0, 0, 0};
        for (int kind = 0; kind < SHAPE_KINDS; kind++) {
            size_t hits0 = cs.total_hits, nonempty0 = cs.nonempty;
            for (size_t i = 0; i < per_shape; i++) {
                query q;
                random_query(&rng, (shape_kind)kind, &box, D, &q);
                check_query(&cs, &tb, trees, &q, (float)(1e-3 * D), obt_meshes[mi]);
            }
            for (size_t i = 0; i < per_shape / 5; i++) {
                query q;
                touching_query(&rng, (shape_kind)kind, &tb, &q);
                check_query(&cs, &tb, trees, &q, (float)(1e-3 * D), obt_meshes[mi]);
            }
            fprintf(stderr, "  %-18s %-7s %zu queries: %zu non-empty, %zu overlaps\n", obt_meshes[mi],
                    shape_names[kind], per_shape + per_shape / 5, cs.nonempty - nonempty0, cs.total_hits - hits0);
        }
        mismatches += cs.mismatches;
        free(cs.expect);
        free(cs.got);
        for (size_t v = 0; v < VARIANTS; v++)
            mq_obbtree_destroy(trees[v]);
        obt_tri_boxes_free(&tb);
        mq_mesh_destroy(mesh);
    }
    assert_int_equal(mismatches, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overlap_matches_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
