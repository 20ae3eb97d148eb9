/*
 * AABB BVH shape overlap and closest point vs brute force: on every test
 * mesh, random spheres, capsules, OBBs and AABBs (docs/formats.md "shape
 * queries"; 10,000 per shape and mesh in optimised builds), plus zero-size
 * shapes placed exactly on mesh vertices and edges (touching cases). The BVH's
 * answer set must EQUAL the set of triangles whose primitive test says
 * "overlap" (and the _any and callback-stop forms must agree), for BVHs built
 * with several leaf sizes and qualities. Closest point: random points near and
 * far, the same triangle and bit-identical distance as brute force over
 * mq_closest_point_triangle (ties to the smaller id), and as the OBB tree.
 * Degenerate inputs: zero radius, zero-length capsules, flat and NaN boxes,
 * negative radii, and a mesh with zero-area triangles, duplicate vertices and
 * non-finite corners. MQ_TEST_SEED changes the queries; MQ_BVH_OVL_QUERIES
 * the count per shape.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_diff_obbtree_common.h"

static size_t bvh_array(const void *t, const mq_shape *q, uint32_t *out, size_t cap)
{
    return mq_bvh_overlap_array(t, q, out, cap);
}

static bool bvh_any(const void *t, const mq_shape *q)
{
    return mq_bvh_overlap_any(t, q);
}

static size_t bvh_each(const void *t, const mq_shape *q, mq_overlap_fn fn, void *user)
{
    return mq_bvh_overlap(t, q, fn, user);
}

static const gen_index_ops bvh_ops = {"bvh", bvh_array, bvh_any, bvh_each};

typedef struct bvh_variant {
    mq_build_quality quality;
    uint32_t leaf;
    const char *name;
} bvh_variant;

static const bvh_variant variants[] = {
    {MQ_BUILD_MEDIUM, 4, "medium/4"},
    {MQ_BUILD_LOW, 1, "low/1"},
    {MQ_BUILD_MEDIUM, 16, "medium/16"},
};
#define VARIANTS (sizeof variants / sizeof variants[0])

/* One shape on every BVH, against brute force (margin < 0: no prefilter). */
static void check_query(gen_check *cs, const gen_tri_boxes *tb, mq_bvh *const *bvhs, const mq_shape *q, float margin,
                        const char *mesh)
{
    const void *indexes[VARIANTS];
    const char *names[VARIANTS];
    for (size_t v = 0; v < VARIANTS; v++) {
        indexes[v] = bvhs[v];
        names[v] = variants[v].name;
    }
    gen_check_query(cs, tb, &bvh_ops, indexes, names, VARIANTS, q, margin, mesh);
}

static size_t queries_per_shape(void)
{
    const char *s = getenv("MQ_BVH_OVL_QUERIES");
    return s && *s ? (size_t)strtoul(s, NULL, 10) : (size_t)(10000 * OBT_SCALE);
}

static void build_variants(const mq_mesh *mesh, mq_bvh **bvhs)
{
    for (size_t v = 0; v < VARIANTS; v++) {
        mq_bvh_def def = mq_default_bvh_def();
        def.quality = variants[v].quality;
        def.max_leaf_size = variants[v].leaf;
        def.threads = 1;
        assert_int_equal(mq_bvh_build(mesh, &def, &bvhs[v], NULL), MQ_OK);
    }
}

/* Brute-force closest point with the documented rule (smallest float d2, then smallest id). */
static bool brute_closest(const gen_tri_boxes *tb, const float p[3], float max_d, float *d2_out, uint32_t *id_out)
{
    float best = max_d * max_d;
    uint32_t id = UINT32_MAX;
    for (size_t i = 0; i < tb->count; i++) {
        float d2 = mq_closest_point_triangle(p, &tb->tris[i], NULL, NULL);
        if (d2 < best || (d2 == best && id == UINT32_MAX)) {
            best = d2;
            id = (uint32_t)i;
        }
    }
    *d2_out = best;
    *id_out = id;
    return id != UINT32_MAX;
}

static size_t check_closest(const gen_tri_boxes *tb, mq_bvh *const *bvhs, size_t nbvh, const mq_obbtree *tree,
                            const float p[3], float max_d, const char *mesh)
{
    float d2;
    uint32_t id;
    bool found = brute_closest(tb, p, max_d, &d2, &id);
    size_t bad = 0;
    for (size_t v = 0; v < nbvh + (tree != NULL); v++) {
        mq_point_hit h = {{0, 0, 0}, -1.0f, MQ_NO_TRIANGLE, 0, 0};
        bool got =
            v < nbvh ? mq_bvh_closest_point(bvhs[v], p, max_d, &h) : mq_obbtree_closest_point(tree, p, max_d, &h);
        bool ok = got == found && (!found || (h.triangle == id && h.distance == sqrtf(d2)));
        if (!ok && bad++ < 3)
            fprintf(stderr,
                    "  CLOSEST MISMATCH %s %s: p %.9g %.9g %.9g max %g: brute %d tri %u d %.9g, got %d tri %u d %.9g\n",
                    mesh, v < nbvh ? variants[v].name : "obbtree", (double)p[0], (double)p[1], (double)p[2],
                    (double)max_d, found, id, (double)sqrtf(d2), got, h.triangle, (double)h.distance);
    }
    return bad;
}

static void overlap_matches_brute_force(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xB7B0A001));
    size_t per_shape = queries_per_shape(), mismatches = 0, closest_bad = 0;
    for (size_t mi = 0; mi < OBT_MESH_COUNT; mi++) {
        mq_mesh *mesh = mq_test_load_mesh(obt_meshes[mi]);
        mq_aabb box;
        double D = gen_bounds(mesh, &box);
        gen_tri_boxes tb = gen_tri_boxes_make(mesh);
        mq_bvh *bvhs[VARIANTS];
        build_variants(mesh, bvhs);
        assert_int_equal(mq_bvh_validate(bvhs[0], NULL), MQ_OK);
        gen_check cs;
        gen_check_init(&cs, tb.count);
        for (int kind = 0; kind < GEN_SHAPE_KINDS; kind++) {
            size_t hits0 = cs.total_hits, nonempty0 = cs.nonempty;
            for (size_t i = 0; i < per_shape; i++) {
                mq_shape q;
                gen_shape_random(&rng, (mq_shape_kind)kind, &box, D, &q);
                check_query(&cs, &tb, bvhs, &q, (float)(1e-3 * D), obt_meshes[mi]);
            }
            for (size_t i = 0; i < per_shape / 5; i++) {
                mq_shape q;
                gen_shape_touching(&rng, (mq_shape_kind)kind, &tb, D, &q);
                check_query(&cs, &tb, bvhs, &q, (float)(1e-3 * D), obt_meshes[mi]);
            }
            fprintf(stderr, "  %-18s %-7s %zu queries: %zu non-empty, %zu overlaps\n", obt_meshes[mi],
                    gen_shape_names[kind], per_shape + per_shape / 5, cs.nonempty - nonempty0, cs.total_hits - hits0);
        }
        /* closest point: points in the box grown by D/2, half with a search radius */
        mq_obbtree *tree;
        assert_int_equal(mq_obbtree_build(mesh, NULL, &tree, NULL), MQ_OK);
        size_t cp_queries = per_shape / 20 + 20, bad = 0;
        for (size_t i = 0; i < cp_queries; i++) {
            float p[3];
            for (int k = 0; k < 3; k++)
                p[k] = (float)mq_test_rng_range(&rng, box.min[k] - 0.5 * D, box.max[k] + 0.5 * D);
            if (i % 4 == 0) /* exactly on a vertex */
                memcpy(p, tb.tris[mq_test_rng_u64(&rng) % tb.count].v[i % 3], sizeof p);
            float max_d = (i & 1) ? INFINITY : (float)(0.05 * D * mq_test_rng_unit(&rng));
            bad += check_closest(&tb, bvhs, VARIANTS, tree, p, max_d, obt_meshes[mi]);
        }
        fprintf(stderr, "  %-18s closest %zu points: %zu mismatches\n", obt_meshes[mi], cp_queries, bad);
        closest_bad += bad;
        mq_obbtree_destroy(tree);
        mismatches += cs.mismatches;
        gen_check_free(&cs);
        for (size_t v = 0; v < VARIANTS; v++)
            mq_bvh_destroy(bvhs[v]);
        gen_tri_boxes_free(&tb);
        mq_mesh_destroy(mesh);
    }
    assert_int_equal(mismatches, 0);
    assert_int_equal(closest_bad, 0);
}

/* A small mesh of every degenerate kind: duplicate vertices, zero-area
 * triangles (collinear corners, repeated indices, a point), non-finite corners. */
static mq_mesh *degenerate_mesh(void)
{
    static const float pos[] = {
        0,   0,  0,    1,        0, 0,    0, 1, 0,    /* 0-2: a proper triangle */
        1,   0,  0,    0,        1, 0,                /* 3-4: duplicates of 1, 2 */
        2,   0,  0,    3,        0, 0,    4, 0, 0,    /* 5-7: collinear */
        0,   2,  1,                                   /* 8: a lone point */
        NAN, 0,  0,    INFINITY, 1, 1,                /* 9-10: non-finite */
        1,   1,  0.5f, 2,        2, 0.5f, 1, 2, 0.5f, /* 11-13: another proper one */
        -1,  -1, -1,   5,        5, 5,                /* 14-15: a long diagonal segment */
    };
    static const uint32_t idx[] = {
        0,  1,  2,  0,  3,  4,  3,  4,  0,  /* proper + with duplicates */
        5,  6,  7,  5,  5,  6,  8,  8,  8,  /* segment, segment (repeated index), point */
        9,  1,  2,  10, 0,  1,  0,  9,  10, /* non-finite */
        11, 12, 13, 14, 15, 15, 14, 15, 14, 2, 2, 13,
    };
    mq_mesh *m = NULL;
    assert_int_equal(
        mq_mesh_create(pos, sizeof pos / sizeof pos[0] / 3, idx, sizeof idx / sizeof idx[0] / 3, NULL, &m, NULL),
        MQ_OK);
    return m;
}

static void degenerate_inputs(void **state)
{
    (void)state;
    mq_mesh *mesh = degenerate_mesh();
    mq_bvh *bvhs[VARIANTS];
    build_variants(mesh, bvhs);
    gen_tri_boxes tb = gen_tri_boxes_make(mesh);
    mq_obbtree *tree;
    assert_int_equal(mq_obbtree_build(mesh, NULL, &tree, NULL), MQ_OK);
    gen_check cs;
    gen_check_init(&cs, tb.count);
    mq_aabb box = {{-1.5f, -1.5f, -1.5f}, {5.5f, 5.5f, 5.5f}};
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xB7B0A002));
    size_t cp_bad = 0;
    for (size_t i = 0; i < 4000; i++) {
        mq_shape q;
        mq_shape_kind kind = (mq_shape_kind)(i % GEN_SHAPE_KINDS);
        gen_shape_random(&rng, kind, &box, 8.0 * (1.0 + (double)(i % 7)), &q);
        if (i % 3 == 0)
            gen_shape_touching(&rng, kind, &tb, 8.0, &q);
        check_query(&cs, &tb, bvhs, &q, -1.0f, "degenerate");
        float p[3];
        for (int k = 0; k < 3; k++)
            p[k] = (float)mq_test_rng_range(&rng, -2.0, 6.0);
        cp_bad += check_closest(&tb, bvhs, VARIANTS, tree, p, (i & 1) ? INFINITY : 1.0f, "degenerate");
    }
    /* every zero-area triangle is found by a zero-radius sphere on its span */
    uint32_t ids[32];
    size_t n = mq_bvh_overlap_array(bvhs[0], &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = {{3, 0, 0}, 0}}}, ids, 32);
    assert_true(n == 2); /* 5-6-7 and 5-5-6 */
    n = mq_bvh_overlap_array(bvhs[0], &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = {{0, 2, 1}, 0}}}, ids, 32);
    assert_true(n == 1 && ids[0] == 5);
    n = mq_bvh_overlap_array(bvhs[0], &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = {{2, 2, 2}, {2, 2, 2}, 0}}}, ids, 32);
    assert_true(n == 2); /* on the diagonal segment (twice) */
    /* invalid shapes match nothing */
    assert_int_equal(mq_bvh_overlap_array(bvhs[0], &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = {{0, 0, 0}, -1}}}, ids, 32),
                     0);
    assert_int_equal(mq_bvh_overlap_array(bvhs[0], &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = {{NAN, 0, 0}, 1}}}, ids, 32),
                     0);
    assert_int_equal(mq_bvh_overlap_array(bvhs[0],
                                          &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = {{0, 0, 0}, {1, INFINITY, 0}, 1}}},
                                          ids, 32),
                     0);
    assert_int_equal(
        mq_bvh_overlap_array(bvhs[0], &(mq_shape){MQ_SHAPE_AABB, {.aabb = {{NAN, 0, 0}, {1, 1, 1}}}}, ids, 32), 0);
    assert_int_equal(
        mq_bvh_overlap_array(bvhs[0], &(mq_shape){MQ_SHAPE_AABB, {.aabb = {{1, 0, 0}, {0, 1, 1}}}}, ids, 32), 0);
    mq_obb bad_obb;
    mq_obb_from_aabb(&(mq_aabb){{0, 0, 0}, {1, 1, 1}}, &bad_obb);
    bad_obb.axes[0][0] = 2.0f;
    assert_int_equal(mq_bvh_overlap_array(bvhs[0], &(mq_shape){MQ_SHAPE_OBB, {.obb = bad_obb}}, ids, 32), 0);
    bad_obb.axes[0][0] = NAN;
    assert_false(mq_bvh_overlap_any(bvhs[0], &(mq_shape){MQ_SHAPE_OBB, {.obb = bad_obb}}));
    assert_int_equal(mq_bvh_overlap(bvhs[0], &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = {{0, 0, 0}, 100}}}, NULL, NULL),
                     0);
    /* a huge sphere: every finite triangle (not the three with non-finite corners) */
    assert_int_equal(
        mq_bvh_overlap_array(bvhs[0], &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = {{0, 0, 0}, 1e30f}}}, ids, 32),
        tb.count - 3);
    assert_int_equal(
        mq_bvh_overlap_array(bvhs[0], &(mq_shape){MQ_SHAPE_AABB, {.aabb = {{-INFINITY, 0, 0}, {1, 1, 1}}}}, ids, 32),
        0);
    /* closest point: invalid inputs */
    mq_point_hit h;
    assert_false(mq_bvh_closest_point(bvhs[0], (vec3){NAN, 0, 0}, INFINITY, &h));
    assert_false(mq_bvh_closest_point(bvhs[0], (vec3){0, 0, 0}, -1.0f, &h));
    assert_false(mq_bvh_closest_point(bvhs[0], (vec3){0, 0, 0}, NAN, &h));
    assert_true(mq_bvh_closest_point(bvhs[0], (vec3){0, 2, 1}, 0.0f, &h));
    assert_int_equal(h.triangle, 5);
    assert_true(h.distance == 0.0f);
    fprintf(stderr, "  degenerate mesh: %zu queries, %zu non-empty, %zu mismatches, closest %zu mismatches\n",
            cs.queries, cs.nonempty, cs.mismatches, cp_bad);
    assert_int_equal(cs.mismatches, 0);
    assert_int_equal(cp_bad, 0);
    /* an empty mesh */
    mq_mesh *empty;
    mq_bvh *eb;
    assert_int_equal(mq_mesh_create(NULL, 0, NULL, 0, NULL, &empty, NULL), MQ_OK);
    assert_int_equal(mq_bvh_build(empty, NULL, &eb, NULL), MQ_OK);
    assert_false(mq_bvh_overlap_any(eb, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = {{0, 0, 0}, 1e30f}}}));
    assert_false(mq_bvh_closest_point(eb, (vec3){0, 0, 0}, INFINITY, &h));
    mq_bvh_destroy(eb);
    mq_mesh_destroy(empty);
    gen_check_free(&cs);
    gen_tri_boxes_free(&tb);
    mq_obbtree_destroy(tree);
    for (size_t v = 0; v < VARIANTS; v++)
        mq_bvh_destroy(bvhs[v]);
    mq_mesh_destroy(mesh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(degenerate_inputs),
        cmocka_unit_test(overlap_matches_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
