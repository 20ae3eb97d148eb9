/*
 * Instance world boxes (src/scene/instance_bounds.c) and slots of mask 0 in
 * the top-level hierarchy (tlas_build.c):
 *   - every vertex used by a triangle, mapped in double, lies inside its
 *     instance's world box, for BVH and OBB-tree instances of the test meshes
 *     under rotations, non-uniform scales, mirrors, shears and translations
 *     up to 1e7, and of slivers reaching 1e11 away; and the box is never wider than the box of the mapped root
 *     box's corners (the one it replaces); the same after the BVH is refit,
 *     and bit for bit the same boxes from a saved and loaded BVH;
 *   - an instance of mask 0 is never reported, before or after a refit turns
 *     its mask off, and is found again once its mask is back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/obj.h>
#include <meshquery/saved.h>
#include <meshquery/scene.h>

#include "scene/scene_internal.h"
#include "test_support.h"

static void random_linear(mq_test_rng *g, int kind, double a[3][3])
{
    double q[4], s[3] = {1, 1, 1};
    const mq_dvec3 zero = {0, 0, 0};
    mq_test_rng_quat(g, q);
    if (kind >= 1)
        for (int k = 0; k < 3; k++)
            s[k] = mq_test_rng_range(g, 0.2, 5.0);
    if (kind == 2)
        s[mq_test_rng_u64(g) % 3] *= -1.0;
    mq_xform r = mq_xform_from_trs(zero, q, s);
    double shear[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    if (kind == 3) {
        shear[0][1] = mq_test_rng_range(g, -0.8, 0.8);
        shear[1][2] = mq_test_rng_range(g, -0.8, 0.8);
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            a[i][j] = r.m[i][0] * shear[0][j] + r.m[i][1] * shear[1][j] + r.m[i][2] * shear[2][j];
}

/* A random linear part (random_linear's kind) and a translation in [-far, far]. */
static void random_placement(mq_test_rng *g, int kind, double far, mq_xform *xf)
{
    double a[3][3];
    random_linear(g, kind, a);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            xf->m[i][j] = a[i][j];
        xf->m[i][3] = mq_test_rng_range(g, -far, far);
    }
}

/* The box of the 8 mapped corners of the local root box: what world boxes used to be. */
static void corner_box(const mq_instance_rec *r, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (int c = 0; c < 8; c++) {
        double p[3], w[3];
        for (int k = 0; k < 3; k++)
            p[k] = (c >> k) & 1 ? r->local_box.max[k] : r->local_box.min[k];
        mq_xform_apply_point(&r->to_world, p, w);
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], w[k]);
            hi[k] = fmax(hi[k], w[k]);
        }
    }
}

/* Every corner of triangles idx over positions pos, mapped by d's transform in
 * double, lies inside r's world box; and that box is no wider than the box of
 * the mapped root box's corners (to within rounding). */
static void check_world_box(const mq_instance_rec *r, const mq_instance_def *d, const float *pos, const uint32_t *idx,
                            size_t tris, const char *what)
{
    for (size_t t = 0; t < tris; t++) {
        for (int c = 0; c < 3; c++) {
            const float *v = pos + 3 * (size_t)idx[3 * t + c];
            double p[3] = {v[0], v[1], v[2]}, w[3];
            mq_xform_apply_point(&d->transform, p, w);
            for (int k = 0; k < 3; k++)
                if (!(r->world_box.min[k] <= w[k] && w[k] <= r->world_box.max[k]))
                    fail_msg("%s: vertex %u of triangle %zu outside the world box on axis %d: %.17g not in "
                             "[%.17g, %.17g]",
                             what, idx[3 * t + c], t, k, w[k], r->world_box.min[k], r->world_box.max[k]);
        }
    }
    double lo[3], hi[3];
    corner_box(r, lo, hi);
    for (int k = 0; k < 3; k++) {
        /* (and a BVH's subnormal rounding: test_world_box_subnormal_corner) */
        double slack = 1e-9 * (fabs(lo[k]) + fabs(hi[k]) + (hi[k] - lo[k])) + 1e-40;
        assert_true(r->world_box.min[k] >= lo[k] - slack);
        assert_true(r->world_box.max[k] <= hi[k] + slack);
    }
}

/* check_world_box for `trials` random placements of the mesh, instanced by
 * bvh and obb in turn; translations up to 10, from trial `far_from` on up to 1e7. */
static void check_placements(const mq_mesh *mesh, const mq_bvh *bvh, const mq_obbtree *obb, mq_test_rng *g, int trials,
                             int far_from, const char *name)
{
    const float *pos = mq_mesh_positions(mesh);
    const uint32_t *idx = mq_mesh_indices(mesh);
    size_t tris = mq_mesh_triangle_count(mesh);
    for (int trial = 0; trial < trials; trial++) {
        mq_instance_def d = mq_default_instance_def();
        if (trial % 2)
            d.obbtree = obb;
        else
            d.bvh = bvh;
        random_placement(g, (trial / 2) % 4, trial < far_from ? 10.0 : 1e7, &d.transform);
        mq_instance_rec r;
        assert_true(mq_instance_rec_init(&r, &d, 0));
        char what[512];
        snprintf(what, sizeof what, "%s (trial %d)", name, trial);
        check_world_box(&r, &d, pos, idx, tris, what);
    }
}

static void check_mesh(const char *name, mq_test_rng *g)
{
    mq_mesh *mesh = mq_test_load_mesh(name);
    mq_bvh *bvh = NULL;
    mq_obbtree *obb = NULL;
    for (int leaf = 1; leaf <= 16; leaf *= 4) {
        mq_bvh_def bd = mq_default_bvh_def();
        bd.max_leaf_size = (uint32_t)leaf;
        assert_int_equal(mq_bvh_build(mesh, &bd, &bvh, NULL), MQ_OK);
        assert_int_equal(mq_obbtree_build(mesh, NULL, &obb, NULL), MQ_OK);
        char what[256];
        snprintf(what, sizeof what, "%s, leaf %d", name, leaf);
        check_placements(mesh, bvh, obb, g, 24, 12, what);
        mq_bvh_destroy(bvh);
        mq_obbtree_destroy(obb);
    }
    mq_mesh_destroy(mesh);
}

static void test_world_boxes_contain_mesh(void **state)
{
    (void)state;
    mq_test_rng g;
    mq_test_rng_seed(&g, mq_test_seed(0xB0C5));
    const char *names[] = {"suzanne.obj", "teapot.obj", "fandisk.obj", "spot.obj"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        check_mesh(names[i], &g);
}

/* A sliver: a few triangles near the origin and one reaching 1e11 away. An
 * OBB tree's root box there is a slab set whose float axes are orthonormal
 * only to about 1e-7, so its corners, taken along the axes instead of the
 * axes' inverse, miss the mesh by about 1e4 (the root box is one of the two
 * boxes a world box is the intersection of). */
static void test_world_boxes_far_vertex(void **state)
{
    (void)state;
    mq_test_rng g;
    mq_test_rng_seed(&g, mq_test_seed(0xFA5));
    for (int mesh_i = 0; mesh_i < 8; mesh_i++) {
        float pos[3 * 4];
        for (int i = 0; i < 9; i++)
            pos[i] = (float)mq_test_rng_range(&g, -10.0, 10.0);
        double u[3];
        mq_test_rng_unit_vector(&g, u);
        for (int k = 0; k < 3; k++)
            pos[9 + k] = (float)(1e11 * u[k]);
        static const uint32_t idx[] = {0, 1, 2, 0, 2, 3, 1, 3, 0};
        mq_mesh *mesh = NULL;
        mq_obbtree *obb = NULL;
        mq_bvh *bvh = NULL;
        assert_int_equal(mq_mesh_create(pos, 4, idx, 3, NULL, &mesh, NULL), MQ_OK);
        assert_int_equal(mq_obbtree_build(mesh, NULL, &obb, NULL), MQ_OK);
        assert_int_equal(mq_bvh_build(mesh, NULL, &bvh, NULL), MQ_OK);
        char what[64];
        snprintf(what, sizeof what, "sliver %d", mesh_i);
        check_placements(mesh, bvh, obb, &g, 16, 16, what);
        mq_bvh_destroy(bvh);
        mq_obbtree_destroy(obb);
        mq_mesh_destroy(mesh);
    }
    /* the case fuzz_clash found: the world box began at x = 10396, the mesh at -135 */
    static const float pos[] = {1.75f,   -1.25f, -0.5f, -0.125f,        1.25f,   0.625f,
                                -1.125f, 6.5f,   10.5f, 2.37378068e10f, -4.125f, -1.03570022e11f};
    static const uint32_t idx[] = {1, 2, 0, 0, 0, 2, 2, 0, 0, 0, 2, 3, 1, 1, 2};
    static const double a[3][4] = {{0.438890907080694, -0.45488288345205546, -12.484008023628638, -0.5},
                                   {-12.484008023628638, 0.438890907080694, -0.45488288345205546, 0.75},
                                   {-0.45488288345205546, -12.484008023628638, 0.438890907080694, 1.125}};
    mq_mesh *mesh = NULL;
    mq_obbtree *obb = NULL;
    assert_int_equal(mq_mesh_create(pos, 4, idx, 5, NULL, &mesh, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(mesh, NULL, &obb, NULL), MQ_OK);
    mq_instance_def d = mq_default_instance_def();
    d.obbtree = obb;
    memcpy(d.transform.m, a, sizeof a);
    mq_instance_rec r;
    assert_true(mq_instance_rec_init(&r, &d, 0));
    check_world_box(&r, &d, pos, idx, 5, "fuzz_clash's sliver");
    mq_obbtree_destroy(obb);
    mq_mesh_destroy(mesh);
}

/*
 * A BVH keeps the boxes its instances' world boxes are made of: they follow
 * a refit (to positions moved, stretched and scaled by 2^20, then back), and
 * a saved and loaded BVH gives the same world boxes bit for bit; so does a
 * saved and loaded OBB tree.
 */
static void test_world_boxes_follow_refit_and_load(void **state)
{
    (void)state;
    mq_test_rng g;
    mq_test_rng_seed(&g, mq_test_seed(0xB0C6));
    mq_mesh *mesh = mq_test_load_mesh("spot.obj");
    const float *pos = mq_mesh_positions(mesh);
    const uint32_t *idx = mq_mesh_indices(mesh);
    size_t nv = mq_mesh_vertex_count(mesh), tris = mq_mesh_triangle_count(mesh);
    float *moved = malloc(3 * nv * sizeof *moved);
    assert_non_null(moved);
    for (size_t i = 0; i < nv; i++) {
        moved[3 * i] = ldexpf(3.0f * pos[3 * i] + 7.0f, 20);
        moved[3 * i + 1] = ldexpf(pos[3 * i + 2], 20); /* y and z swapped */
        moved[3 * i + 2] = ldexpf(-0.5f * pos[3 * i + 1], 20);
    }
    mq_bvh *bvh = NULL;
    assert_int_equal(mq_bvh_build(mesh, NULL, &bvh, NULL), MQ_OK);
    for (int trial = 0; trial < 16; trial++) {
        bool refit = trial % 2 == 0;
        assert_int_equal(mq_bvh_refit(bvh, refit ? moved : NULL, NULL), MQ_OK);
        mq_instance_def d = mq_default_instance_def();
        d.bvh = bvh;
        random_placement(&g, trial % 4, 1e7, &d.transform);
        mq_instance_rec r;
        assert_true(mq_instance_rec_init(&r, &d, 0));
        check_world_box(&r, &d, refit ? moved : pos, idx, tris, refit ? "refit to moved positions" : "refit back");

        void *data = NULL;
        size_t size = 0;
        assert_int_equal(mq_bvh_save_memory(bvh, NULL, &data, &size, NULL), MQ_OK);
        mq_bvh *loaded = NULL;
        assert_int_equal(mq_bvh_load_memory(data, size, NULL, &loaded, NULL), MQ_OK);
        d.bvh = loaded;
        mq_instance_rec lr;
        assert_true(mq_instance_rec_init(&lr, &d, 0));
        assert_memory_equal(&lr.world_box, &r.world_box, sizeof r.world_box);
        mq_bvh_destroy(loaded);
        mq_saved_free(data, size, NULL);
    }
    mq_bvh_destroy(bvh);
    free(moved);

    /* An OBB tree keeps its top boxes too: built and loaded, the same world boxes. */
    mq_obbtree *obb = NULL, *obb_loaded = NULL;
    assert_int_equal(mq_obbtree_build(mesh, NULL, &obb, NULL), MQ_OK);
    void *data = NULL;
    size_t size = 0;
    assert_int_equal(mq_obbtree_save_memory(obb, NULL, &data, &size, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_load_memory(data, size, NULL, &obb_loaded, NULL), MQ_OK);
    for (int trial = 0; trial < 8; trial++) {
        mq_instance_def d = mq_default_instance_def();
        random_placement(&g, trial % 4, 1e7, &d.transform);
        mq_instance_rec r, lr;
        d.obbtree = obb;
        assert_true(mq_instance_rec_init(&r, &d, 0));
        check_world_box(&r, &d, pos, idx, tris, "OBB tree");
        d.obbtree = obb_loaded;
        assert_true(mq_instance_rec_init(&lr, &d, 0));
        assert_memory_equal(&lr.world_box, &r.world_box, sizeof r.world_box);
    }
    mq_obbtree_destroy(obb_loaded);
    mq_obbtree_destroy(obb);
    mq_saved_free(data, size, NULL);
    mq_mesh_destroy(mesh);
}

/* One triangle (a single-leaf BVH) and an empty mesh: root-box cases. */
/* A BVH keeps its corners scaled by a power of two, where a subnormal
 * coordinate rounds (here z = 3.887e-41, scaled by 2^-4): its top boxes then
 * hold the rounded point and its root box the mesh's own, and the world box
 * (the two intersected) was empty. fuzz_clash found it (the clash list left
 * out instances at distance 0). */
static void test_world_box_subnormal_corner(void **state)
{
    (void)state;
    const float pos[] = {-11.5f, 3.88734207e-41f, -0.625f, 0.5f, 0.875f, -12.375f};
    const uint32_t idx[] = {0, 0, 0};
    mq_mesh *mesh = NULL;
    mq_bvh *bvh = NULL;
    assert_int_equal(mq_mesh_create(pos, 2, idx, 1, NULL, &mesh, NULL), MQ_OK);
    assert_int_equal(mq_bvh_build(mesh, NULL, &bvh, NULL), MQ_OK);
    mq_instance_def d = mq_default_instance_def();
    d.bvh = bvh;
    mq_instance_rec r;
    assert_true(mq_instance_rec_init(&r, &d, 0));
    check_world_box(&r, &d, pos, idx, 1, "a subnormal corner");
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
}

static void test_world_boxes_small(void **state)
{
    (void)state;
    static const float pos[] = {0, 0, 0, 2, 0, 0, 0, 3, 1};
    static const uint32_t idx[] = {0, 1, 2};
    mq_mesh *mesh = NULL, *empty = NULL;
    assert_int_equal(mq_mesh_create(pos, 3, idx, 1, NULL, &mesh, NULL), MQ_OK);
    assert_int_equal(mq_mesh_create(pos, 3, NULL, 0, NULL, &empty, NULL), MQ_OK);
    mq_bvh *bvh = NULL, *ebvh = NULL;
    assert_int_equal(mq_bvh_build(mesh, NULL, &bvh, NULL), MQ_OK);
    assert_int_equal(mq_bvh_build(empty, NULL, &ebvh, NULL), MQ_OK);
    mq_instance_def d = mq_default_instance_def();
    d.bvh = bvh;
    d.transform.m[0][3] = 5;
    mq_instance_rec r;
    assert_true(mq_instance_rec_init(&r, &d, 0));
    const double want_lo[3] = {5, 0, 0}, want_hi[3] = {7, 3, 1};
    for (int k = 0; k < 3; k++) {
        assert_true(r.world_box.min[k] <= want_lo[k] && r.world_box.min[k] > want_lo[k] - 1e-9);
        assert_true(r.world_box.max[k] >= want_hi[k] && r.world_box.max[k] < want_hi[k] + 1e-9);
    }
    d.bvh = ebvh;
    assert_true(mq_instance_rec_init(&r, &d, 1));
    for (int k = 0; k < 3; k++)
        assert_false(r.world_box.min[k] <= r.world_box.max[k]);
    mq_bvh_destroy(bvh);
    mq_bvh_destroy(ebvh);
    mq_mesh_destroy(mesh);
    mq_mesh_destroy(empty);
}

typedef struct seen {
    int count;
    uint32_t instance[64];
} seen;

static bool record_hit(const mq_scene_hit *h, void *user)
{
    seen *s = user;
    if (s->count < 64)
        s->instance[s->count++] = h->instance;
    return true;
}

static bool record_overlap(uint32_t instance, uint32_t triangle, void *user)
{
    (void)triangle;
    seen *s = user;
    if (s->count < 64)
        s->instance[s->count++] = instance;
    return true;
}

/* Instances 0..n-1 stacked along z (instance i at z = -i): a ray down hits all. */
static void check_masks(const mq_scene *s, const uint32_t *mask, int n)
{
    static const uint32_t queries[] = {0xFFFFFFFFu, 1u, 2u, 3u, 0x80000000u};
    for (size_t qi = 0; qi < sizeof queries / sizeof queries[0]; qi++) {
        mq_scene_query q = mq_default_scene_query();
        q.mask = queries[qi];
        int first = -1;
        for (int i = 0; i < n && first < 0; i++)
            if (mask[i] & q.mask)
                first = i;
        mq_dray ray = {{0.25, 0.25, 10}, 0.0, {0, 0, -1}, INFINITY};
        mq_scene_hit h;
        bool hit = mq_scene_raycast_closest(s, &ray, &q, &h);
        assert_int_equal(hit, first >= 0);
        if (hit)
            assert_int_equal(h.instance, (uint32_t)first);
        assert_int_equal(mq_scene_raycast_any(s, &ray, &q), first >= 0);
        seen all = {0, {0}};
        mq_scene_raycast_each(s, &ray, &q, record_hit, &all);
        seen over = {0, {0}};
        mq_dsphere sphere = {{0.25, 0.25, -2.0}, 100.0};
        mq_scene_overlap(s, &(mq_dshape){MQ_SHAPE_SPHERE, {.sphere = sphere}}, &q, record_overlap, &over);
        for (int j = 0; j < all.count; j++)
            assert_true(mask[all.instance[j]] & q.mask);
        for (int j = 0; j < over.count; j++)
            assert_true(mask[over.instance[j]] & q.mask);
        int expect = 0;
        for (int i = 0; i < n; i++)
            expect += (mask[i] & q.mask) != 0;
        assert_int_equal(all.count, expect);
        assert_int_equal(over.count, 2 * expect); /* two triangles each */
    }
}

static void test_mask_zero(void **state)
{
    (void)state;
    static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    mq_mesh *mesh = NULL;
    assert_int_equal(mq_mesh_create(pos, 4, idx, 2, NULL, &mesh, NULL), MQ_OK);
    mq_bvh *bvh = NULL;
    mq_obbtree *obb = NULL;
    assert_int_equal(mq_bvh_build(mesh, NULL, &bvh, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(mesh, NULL, &obb, NULL), MQ_OK);
    mq_scene *s = NULL;
    assert_int_equal(mq_scene_create(NULL, &s, NULL), MQ_OK);
    /* More instances than one node holds, so masks meet inner slots too. */
    enum { N = 20 };
    uint32_t mask[N];
    for (int i = 0; i < N; i++) {
        mq_instance_def d = mq_default_instance_def();
        if (i % 3 == 2)
            d.obbtree = obb;
        else
            d.bvh = bvh;
        d.transform.m[2][3] = -i;
        mask[i] = i % 4 == 0 ? 0u : (i % 4 == 1 ? 1u : (i % 4 == 2 ? 2u : 0xFFFFFFFFu));
        d.mask = mask[i];
        uint32_t id;
        assert_int_equal(mq_scene_add(s, &d, &id, NULL), MQ_OK);
        assert_int_equal(id, (uint32_t)i);
    }
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    check_masks(s, mask, N);
    /* A refit: masks switched off (a whole subtree's worth) and on. */
    for (int i = 0; i < N; i++) {
        mask[i] = i < 12 ? 0u : (i % 2 ? 1u : 2u);
        assert_int_equal(mq_scene_set_mask(s, (uint32_t)i, mask[i]), MQ_OK);
    }
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    check_masks(s, mask, N);
    for (int i = 0; i < N; i++) {
        mask[i] = i % 5 == 0 ? 0xFFFFFFFFu : 0u;
        assert_int_equal(mq_scene_set_mask(s, (uint32_t)i, mask[i]), MQ_OK);
    }
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    check_masks(s, mask, N);
    mq_scene_destroy(s);
    mq_bvh_destroy(bvh);
    mq_obbtree_destroy(obb);
    mq_mesh_destroy(mesh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_boxes_contain_mesh),   cmocka_unit_test(test_world_boxes_far_vertex),
        cmocka_unit_test(test_world_box_subnormal_corner), cmocka_unit_test(test_world_boxes_follow_refit_and_load),
        cmocka_unit_test(test_world_boxes_small),          cmocka_unit_test(test_mask_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
