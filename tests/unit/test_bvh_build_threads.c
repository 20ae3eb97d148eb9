/*
 * The BVH does not depend on the build's thread count (meshquery/bvh.h):
 * every test mesh and generated ones built at every quality on 1 to 5
 * threads give the one-thread build's tree, byte for byte. Between them they
 * reach every parallel phase of the build: the references' boxes in chunks
 * (80,000 triangles), the top node's shared binning (from 4,096 references),
 * its items of 1,024 to 4,095 references split ahead on several threads (the
 * 5,000-triangle wave, the small meshes of data/), the subtrees as tasks, and
 * median splits (5,000 identical triangles).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "bvh/bvh_internal.h"
#include "test_support.h"

/* A w x w grid of quads (2 w^2 triangles) bent into a wave, so that every
 * axis matters to the splits. */
static mq_mesh *make_wave(uint32_t w)
{
    uint32_t nv = (w + 1) * (w + 1), nt = 2 * w * w;
    float *p = malloc(3 * sizeof *p * nv);
    uint32_t *ix = malloc(3 * sizeof *ix * nt);
    assert_non_null(p);
    assert_non_null(ix);
    for (uint32_t y = 0; y <= w; y++)
        for (uint32_t x = 0; x <= w; x++) {
            float *v = p + 3 * (y * (w + 1) + x);
            v[0] = (float)x;
            v[1] = (float)y;
            v[2] = 4.0f * sinf(0.05f * (float)x) * cosf(0.07f * (float)y);
        }
    for (uint32_t y = 0, t = 0; y < w; y++)
        for (uint32_t x = 0; x < w; x++, t += 2) {
            uint32_t a = y * (w + 1) + x, b = a + 1, c = a + w + 1, d = c + 1;
            uint32_t *q = ix + 3 * t;
            q[0] = a, q[1] = b, q[2] = d;
            q[3] = a, q[4] = d, q[5] = c;
        }
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(p, nv, ix, nt, NULL, &m, NULL), MQ_OK);
    free(p);
    free(ix);
    return m;
}

/* n copies of one triangle: every split finds identical centroids. */
static mq_mesh *make_stack(uint32_t n)
{
    const float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint32_t *ix = malloc(3 * sizeof *ix * n);
    assert_non_null(ix);
    for (uint32_t t = 0; t < n; t++)
        ix[3 * t] = 0, ix[3 * t + 1] = 1, ix[3 * t + 2] = 2;
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(p, 3, ix, n, NULL, &m, NULL), MQ_OK);
    free(ix);
    return m;
}

static mq_bvh *build(const mq_mesh *m, mq_build_quality q, uint32_t threads)
{
    mq_bvh_def d = mq_default_bvh_def();
    d.quality = q;
    d.threads = threads;
    mq_bvh *b = NULL;
    mq_diag diag;
    if (mq_bvh_build(m, &d, &b, &diag) != MQ_OK)
        fail_msg("build on %u threads: %s", threads, diag.message);
    return b;
}

/* The same tree: the same root, scale and counts, and the same arena bytes
 * (nodes and leaf blocks in depth-first order, bvh_layout.h). */
static bool same_tree(const mq_bvh *a, const mq_bvh *b)
{
    return a->root == b->root && a->scale_exp == b->scale_exp && a->node_count == b->node_count &&
           a->block_count == b->block_count && a->leaf_count == b->leaf_count && a->max_depth == b->max_depth &&
           memcmp(a->root_box, b->root_box, sizeof a->root_box) == 0 && a->arena_bytes == b->arena_bytes &&
           memcmp(a->arena, b->arena, a->arena_bytes) == 0;
}

static void same_tree_on_any_thread_count(const mq_mesh *m, const char *name)
{
    for (int q = MQ_BUILD_LOW; q <= MQ_BUILD_HIGH; q++) {
        mq_bvh *one = build(m, (mq_build_quality)q, 1);
        for (uint32_t threads = 2; threads <= 5; threads++) {
            mq_bvh *many = build(m, (mq_build_quality)q, threads);
            if (!same_tree(one, many))
                fail_msg("%s, quality %d: the tree built on %u threads differs from one thread's", name, q, threads);
            mq_bvh_destroy(many);
        }
        mq_bvh_destroy(one);
    }
}

static void data_meshes(void **state)
{
    (void)state;
    DIR *dir = opendir(MQ_DATA_DIR);
    assert_non_null(dir);
    int count = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ".obj") != 0)
            continue;
        mq_mesh *m = mq_test_load_mesh(e->d_name);
        same_tree_on_any_thread_count(m, e->d_name);
        mq_mesh_destroy(m);
        count++;
    }
    closedir(dir);
    assert_true(count >= 7);
}

static void generated_meshes(void **state)
{
    (void)state;
    mq_mesh *wave = make_wave(200); /* 80,000 triangles */
    same_tree_on_any_thread_count(wave, "wave");
    mq_mesh_destroy(wave);
    mq_mesh *small = make_wave(50); /* 5,000 */
    same_tree_on_any_thread_count(small, "small wave");
    mq_mesh_destroy(small);
    mq_mesh *stack = make_stack(5000);
    same_tree_on_any_thread_count(stack, "stack");
    mq_mesh_destroy(stack);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(data_meshes),
        cmocka_unit_test(generated_meshes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
