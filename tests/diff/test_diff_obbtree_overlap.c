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

static size_t tree_array(const void *t, const mq_shape *q, uint32_t *out, size_t cap)
{
    return mq_obbtree_overlap_array(t, q, out, cap);
}

static bool tree_any(const void *t, const mq_shape *q)
{
    return mq_obbtree_overlap_any(t, q);
}

static size_t tree_each(const void *t, const mq_shape *q, mq_overlap_fn fn, void *user)
{
    return mq_obbtree_overlap(t, q, fn, user);
}

static const gen_index_ops tree_ops = {"tree", tree_array, tree_any, tree_each};

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
        double D = gen_bounds(mesh, &box);
        gen_tri_boxes tb = gen_tri_boxes_make(mesh);
        mq_obbtree *trees[VARIANTS];
        const void *indexes[VARIANTS];
        const char *names[VARIANTS];
        for (size_t v = 0; v < VARIANTS; v++) {
            mq_obbtree_def def = mq_default_obbtree_def();
            def.fit = variants[v].fit;
            def.max_leaf_size = variants[v].leaf;
            assert_int_equal(mq_obbtree_build(mesh, &def, &trees[v], NULL), MQ_OK);
            indexes[v] = trees[v];
            names[v] = variants[v].name;
        }
        gen_check cs;
        gen_check_init(&cs, tb.count);
        for (int kind = 0; kind < GEN_SHAPE_KINDS; kind++) {
            size_t hits0 = cs.total_hits, nonempty0 = cs.nonempty;
            for (size_t i = 0; i < per_shape; i++) {
                mq_shape q;
                gen_shape_random(&rng, (mq_shape_kind)kind, &box, D, &q);
                gen_check_query(&cs, &tb, &tree_ops, indexes, names, VARIANTS, &q, (float)(1e-3 * D), obt_meshes[mi]);
            }
            for (size_t i = 0; i < per_shape / 5; i++) {
                mq_shape q;
                gen_shape_touching(&rng, (mq_shape_kind)kind, &tb, 0.0, &q);
                gen_check_query(&cs, &tb, &tree_ops, indexes, names, VARIANTS, &q, (float)(1e-3 * D), obt_meshes[mi]);
            }
            fprintf(stderr, "  %-18s %-7s %zu queries: %zu non-empty, %zu overlaps\n", obt_meshes[mi],
                    gen_shape_names[kind], per_shape + per_shape / 5, cs.nonempty - nonempty0, cs.total_hits - hits0);
        }
        mismatches += cs.mismatches;
        gen_check_free(&cs);
        for (size_t v = 0; v < VARIANTS; v++)
            mq_obbtree_destroy(trees[v]);
        gen_tri_boxes_free(&tb);
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
