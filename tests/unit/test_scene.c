/*
 * The scene container (meshquery/scene.h): ids, staged edits vs the committed
 * state, transforms that are rejected, empty scenes, invalid rays, masks,
 * culling on mirrored instances, the top-level walks, and allocation failure
 * at every allocation of create, add and commit (no leak, previous state kept).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/scene.h>

#include "scene/scene_internal.h"
#include "scene/scene_raycast.h"
#include "scene/tlas/tlas_ray.h"
#include "test_support.h"

/* A unit square in the z = 0 plane, two triangles, normal +z; and a cube. */
static const float square_pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
static const uint32_t square_idx[] = {0, 1, 2, 0, 2, 3};

typedef struct fixture {
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_obbtree *obb;
    mq_mesh *empty_mesh;
    mq_bvh *empty_bvh;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_int_equal(mq_mesh_create(square_pos, 4, square_idx, 2, NULL, &f->mesh, NULL), MQ_OK);
    mq_bvh_def d = mq_default_bvh_def();
    d.threads = 1;
    assert_int_equal(mq_bvh_build(f->mesh, &d, &f->bvh, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(f->mesh, NULL, &f->obb, NULL), MQ_OK);
    assert_int_equal(mq_mesh_create(square_pos, 4, NULL, 0, NULL, &f->empty_mesh, NULL), MQ_OK);
    assert_int_equal(mq_bvh_build(f->empty_mesh, &d, &f->empty_bvh, NULL), MQ_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    mq_bvh_destroy(f->bvh);
    mq_obbtree_destroy(f->obb);
    mq_mesh_destroy(f->mesh);
    mq_bvh_destroy(f->empty_bvh);
    mq_mesh_destroy(f->empty_mesh);
    free(f);
    return 0;
}

static mq_instance_def def_at(const fixture *f, bool obb, double x, double y, double z)
{
    mq_instance_def d = mq_default_instance_def();
    if (obb)
        d.obbtree = f->obb;
    else
        d.bvh = f->bvh;
    d.transform.m[0][3] = x;
    d.transform.m[1][3] = y;
    d.transform.m[2][3] = z;
    return d;
}

/* A ray down -z through (x, y). */
static mq_dray down(double x, double y)
{
    mq_dray r = {{x, y, 10}, 0.0, {0, 0, -1}, INFINITY};
    return r;
}

static void test_defaults(void **state)
{
    (void)state;
    mq_instance_def d = mq_default_instance_def();
    assert_null(d.bvh);
    assert_null(d.obbtree);
    assert_int_equal(d.mask, 0xFFFFFFFFu);
    assert_true(d.user_id == 0);
    mq_xform id = mq_xform_identity();
    assert_memory_equal(&d.transform, &id, sizeof id);
    mq_scene_query q = mq_default_scene_query();
    assert_int_equal(q.mask, 0xFFFFFFFFu);
    assert_false(q.cull_back_faces);
}

static void test_xform(void **state)
{
    (void)state;
    /* q: w, x, y, z; 90 degrees about z, unnormalised */
    const double t[3] = {1, 2, 3}, s[3] = {2, -1, 0.5}, q[4] = {2, 0, 0, 2};
    mq_xform x = mq_xform_from_trs(t, q, s);
    const double p[3] = {1, 1, 1};
    double w[3];
    mq_xform_apply_point(&x, p, w);
    /* S: (2, -1, 0.5); R (90 deg about z): (x, y) -> (-y, x) => (1, 2, 0.5); T => (2, 4, 3.5) */
    assert_true(fabs(w[0] - 2) < 1e-12 && fabs(w[1] - 4) < 1e-12 && fabs(w[2] - 3.5) < 1e-12);
    const double zero[4] = {0, 0, 0, 0};
    mq_xform bad = mq_xform_from_trs(t, zero, s);
    assert_true(isnan(bad.m[0][0]));
}

static void test_record(void **state)
{
    fixture *f = *state;
    mq_instance_def d = def_at(f, false, 5, 0, 0);
    /* Non-uniform scale with a mirror: A = diag(2, -3, 4). */
    d.transform.m[0][0] = 2;
    d.transform.m[1][1] = -3;
    d.transform.m[2][2] = 4;
    mq_instance_rec r;
    assert_true(mq_instance_rec_init(&r, &d, 7));
    assert_int_equal(r.id, 7);
    assert_true(r.mirrored);
    assert_false(r.rigid);
    assert_true(r.sigma_min <= 2.0 && r.sigma_min > 2.0 * (1 - 1e-6));
    assert_true(r.sigma_max >= 4.0 && r.sigma_max < 4.0 * (1 + 1e-6));
    /* normal matrix = sign(det) A^-T = -diag(1/2, -1/3, 1/4) */
    assert_true(fabs(r.normal_to_world[0][0] + 0.5) < 1e-15);
    assert_true(fabs(r.normal_to_world[1][1] - 1.0 / 3) < 1e-15);
    assert_true(fabs(r.normal_to_world[2][2] + 0.25) < 1e-15);
    /* World box: x in [5, 7], y in [-3, 0], z = 0 (widened a little). */
    assert_true(r.world_box.min[0] <= 5 && r.world_box.min[0] > 5 - 1e-9);
    assert_true(r.world_box.max[0] >= 7 && r.world_box.max[0] < 7 + 1e-9);
    assert_true(r.world_box.min[1] <= -3 && r.world_box.max[1] >= 0);
    /* Inverse. */
    double w[3] = {6, -1.5, 0}, l[3];
    mq_xform_apply_point(&r.to_local, w, l);
    assert_true(fabs(l[0] - 0.5) < 1e-15 && fabs(l[1] - 0.5) < 1e-15 && fabs(l[2]) < 1e-15);

    mq_instance_def rig = def_at(f, true, 1, 2, 3);
    const double q[4] = {0.3, -0.2, 0.5, 0.7}, one[3] = {1, 1, 1}, tr[3] = {1, 2, 3};
    rig.transform = mq_xform_from_trs(tr, q, one);
    assert_true(mq_instance_rec_init(&r, &rig, 0));
    assert_true(r.rigid);
    assert_false(r.mirrored);
    assert_true(fabs(r.sigma_min - 1) < 1e-6 && fabs(r.sigma_max - 1) < 1e-6);
    assert_true(r.sigma_min <= 1 && r.sigma_max >= 1);

    /* Rejected: both or neither hierarchy, singular, ill-conditioned, non-finite. */
    mq_instance_def both = def_at(f, false, 0, 0, 0);
    both.obbtree = f->obb;
    assert_false(mq_instance_rec_init(&r, &both, 0));
    mq_instance_def none = mq_default_instance_def();
    assert_false(mq_instance_rec_init(&r, &none, 0));
    mq_instance_def sing = def_at(f, false, 0, 0, 0);
    sing.transform.m[2][2] = 0;
    assert_false(mq_instance_rec_init(&r, &sing, 0));
    sing.transform.m[2][2] = 1e-13;
    assert_false(mq_instance_rec_init(&r, &sing, 0));
    sing.transform.m[2][2] = 1e-11; /* condition 1e11: accepted */
    assert_true(mq_instance_rec_init(&r, &sing, 0));
    mq_instance_def nan = def_at(f, false, 0, 0, 0);
    nan.transform.m[0][1] = NAN;
    assert_false(mq_instance_rec_init(&r, &nan, 0));
    nan = def_at(f, false, INFINITY, 0, 0);
    assert_false(mq_instance_rec_init(&r, &nan, 0));
    /* Shear: accepted, not rigid. */
    mq_instance_def sh = def_at(f, false, 0, 0, 0);
    sh.transform.m[0][1] = 3;
    assert_true(mq_instance_rec_init(&r, &sh, 0));
    assert_false(r.rigid);
    assert_true(r.sigma_max >= 3.30277 && r.sigma_min <= 0.302776 && r.sigma_min > 0.3027);

    /* Empty hierarchy: an empty world box. */
    mq_instance_def e = mq_default_instance_def();
    e.bvh = f->empty_bvh;
    assert_true(mq_instance_rec_init(&r, &e, 0));
    assert_true(r.world_box.min[0] > r.world_box.max[0]);
}

static void test_ids_and_commit(void **state)
{
    fixture *f = *state;
    mq_scene *s;
    assert_int_equal(mq_scene_create(NULL, NULL, NULL), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_scene_create(NULL, &s, NULL), MQ_OK);
    assert_int_equal(mq_scene_instance_count(s), 0);
    mq_daabb b;
    assert_false(mq_scene_bounds(s, &b));
    mq_dray r = down(0.5, 0.5);
    assert_false(mq_scene_raycast_closest(s, &r, NULL, NULL)); /* empty scene */

    uint32_t id[5];
    for (int i = 0; i < 5; i++) {
        mq_instance_def d = def_at(f, i & 1, 2.0 * i, 0, 0);
        assert_int_equal(mq_scene_add(s, &d, &id[i], NULL), MQ_OK);
        assert_int_equal(id[i], (uint32_t)i);
    }
    /* Staged only: queries still see the empty scene. */
    assert_int_equal(mq_scene_instance_count(s), 0);
    assert_false(mq_scene_raycast_any(s, &r, NULL));
    assert_null(mq_scene_record(s, 0));
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    assert_int_equal(mq_scene_instance_count(s), 5);
    assert_non_null(mq_scene_record(s, 4));
    assert_null(mq_scene_record(s, 5));
    assert_true(mq_scene_bounds(s, &b));
    assert_true(b.min[0] <= 0 && b.max[0] >= 9 && b.max[0] < 9 + 1e-6);

    mq_scene_hit h;
    for (int i = 0; i < 5; i++) {
        r = down(2.0 * i + 0.25, 0.5);
        assert_true(mq_scene_raycast_closest(s, &r, NULL, &h));
        assert_int_equal(h.instance, (uint32_t)i);
        assert_true(fabs(h.t - 10) < 1e-6);
        assert_true(fabs(h.point[0] - (2.0 * i + 0.25)) < 1e-6);
        assert_true(fabs(h.normal[2] - 1) < 1e-12);
        assert_false(h.back_face);
    }

    /* Remove 1 and 3; ids come back smallest first; the committed state is unchanged until commit. */
    assert_int_equal(mq_scene_remove(s, 3), MQ_OK);
    assert_int_equal(mq_scene_remove(s, 1), MQ_OK);
    assert_int_equal(mq_scene_remove(s, 1), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_scene_remove(s, 99), MQ_ERR_INVALID_ARG);
    r = down(2.25, 0.5);
    assert_true(mq_scene_raycast_any(s, &r, NULL));
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    assert_false(mq_scene_raycast_any(s, &r, NULL));
    assert_int_equal(mq_scene_instance_count(s), 3);
    assert_false(mq_scene_instance(s, 1, NULL));
    mq_instance_def got;
    assert_true(mq_scene_instance(s, 2, &got));
    assert_true(got.transform.m[0][3] == 4.0 && got.bvh == f->bvh);

    uint32_t nid;
    mq_instance_def d = def_at(f, false, 100, 0, 0);
    d.user_id = 42;
    assert_int_equal(mq_scene_add(s, &d, &nid, NULL), MQ_OK);
    assert_int_equal(nid, 1);
    assert_int_equal(mq_scene_add(s, &d, &nid, NULL), MQ_OK);
    assert_int_equal(nid, 3);
    assert_int_equal(mq_scene_add(s, &d, &nid, NULL), MQ_OK);
    assert_int_equal(nid, 5);
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    r = down(100.5, 0.5);
    assert_true(mq_scene_raycast_closest(s, &r, NULL, &h));
    assert_int_equal(h.instance, 1); /* three coincident instances: the smallest id wins */
    assert_true(h.user_id == 42);

    /* Transforms and masks: staged until commit (a refit). */
    mq_xform x = mq_xform_identity();
    x.m[0][3] = 50;
    assert_int_equal(mq_scene_set_transform(s, 1, &x, NULL), MQ_OK);
    assert_int_equal(mq_scene_set_mask(s, 3, 2), MQ_OK);
    assert_true(mq_scene_raycast_closest(s, &r, NULL, &h) && h.instance == 1);
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    assert_true(mq_scene_raycast_closest(s, &r, NULL, &h) && h.instance == 3);
    mq_scene_query q = mq_default_scene_query();
    q.mask = 1;
    assert_true(mq_scene_raycast_closest(s, &r, &q, &h) && h.instance == 5);
    q.mask = 2;
    assert_true(mq_scene_raycast_closest(s, &r, &q, &h) && h.instance == 3);
    assert_int_equal(mq_scene_set_mask(s, 5, 1), MQ_OK);
    assert_int_equal(mq_scene_set_mask(s, 3, 1), MQ_OK);
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    assert_false(mq_scene_raycast_any(s, &r, &q));
    r = down(50.5, 0.5);
    assert_true(mq_scene_raycast_closest(s, &r, NULL, &h) && h.instance == 1);

    /* Rejected edits. */
    mq_xform bad = mq_xform_identity();
    bad.m[1][1] = 0;
    assert_int_equal(mq_scene_set_transform(s, 1, &bad, NULL), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_scene_set_transform(s, 77, &x, NULL), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_scene_set_mask(s, 77, 1), MQ_ERR_INVALID_ARG);
    mq_instance_def nodef = mq_default_instance_def();
    mq_diag diag;
    assert_int_equal(mq_scene_add(s, &nodef, &nid, &diag), MQ_ERR_INVALID_ARG);
    assert_true(diag.message[0] != 0);
    assert_int_equal(mq_scene_add(s, NULL, &nid, NULL), MQ_ERR_INVALID_ARG);
    assert_int_equal(mq_scene_add(s, &d, NULL, NULL), MQ_ERR_INVALID_ARG);
    assert_true(mq_scene_byte_count(s) > sizeof(mq_instance_rec) * 6);

    /* Remove everything: an empty committed scene. */
    for (uint32_t i = 0; i < 6; i++)
        mq_scene_remove(s, i);
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    assert_int_equal(mq_scene_instance_count(s), 0);
    assert_false(mq_scene_raycast_any(s, &r, NULL));
    assert_false(mq_scene_bounds(s, &b));
    mq_scene_destroy(s);
    mq_scene_destroy(NULL);
}

static void test_invalid_rays(void **state)
{
    fixture *f = *state;
    mq_scene *s;
    assert_int_equal(mq_scene_create(NULL, &s, NULL), MQ_OK);
    uint32_t id;
    mq_instance_def d = def_at(f, false, 0, 0, 0);
    assert_int_equal(mq_scene_add(s, &d, &id, NULL), MQ_OK);
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    mq_dray ok = down(0.5, 0.5);
    assert_true(mq_scene_raycast_any(s, &ok, NULL));
    mq_dray bad[6];
    for (int i = 0; i < 6; i++)
        bad[i] = ok;
    bad[0].origin[0] = NAN;
    bad[1].dir[2] = 0;
    bad[2].tmin = 11, bad[2].tmax = 10;
    bad[3].tmax = NAN;
    bad[4].dir[1] = INFINITY;
    bad[5].origin[2] = -INFINITY;
    for (int i = 0; i < 6; i++) {
        mq_scene_hit h;
        assert_false(mq_scene_raycast_closest(s, &bad[i], NULL, &h));
        assert_true(h.instance == MQ_NO_INSTANCE && h.triangle == MQ_NO_TRIANGLE && isinf(h.t));
        assert_false(mq_scene_raycast_any(s, &bad[i], NULL));
        assert_int_equal(mq_scene_raycast_all(s, &bad[i], NULL, NULL, 0), 0);
    }
    /* The interval: a hit at t = 10 is in [10, 10] and not in [0, 9.99]. */
    mq_dray r = ok;
    r.tmin = r.tmax = 10;
    assert_true(mq_scene_raycast_any(s, &r, NULL));
    r.tmin = 0, r.tmax = 9.99;
    assert_false(mq_scene_raycast_any(s, &r, NULL));
    mq_scene_destroy(s);
}

/* Culling follows the WORLD winding: a mirror (x -> -x) turns the square's front away from +z. */
static void test_mirror_culling(void **state)
{
    fixture *f = *state;
    for (int obb = 0; obb < 2; obb++) {
        mq_scene *s;
        assert_int_equal(mq_scene_create(NULL, &s, NULL), MQ_OK);
        uint32_t id;
        mq_instance_def d = def_at(f, obb, 0, 0, 0);
        d.transform.m[0][0] = -1; /* the square now spans x in [-1, 0] */
        assert_int_equal(mq_scene_add(s, &d, &id, NULL), MQ_OK);
        d = def_at(f, obb, 3, 0, 0); /* not mirrored */
        assert_int_equal(mq_scene_add(s, &d, &id, NULL), MQ_OK);
        assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
        mq_scene_query q = mq_default_scene_query();
        q.cull_back_faces = true;
        mq_scene_hit h;
        mq_dray r = down(-0.5, 0.5); /* from +z: the mirrored square's back */
        assert_true(mq_scene_raycast_closest(s, &r, NULL, &h));
        assert_true(h.back_face);
        assert_true(fabs(h.normal[2] + 1) < 1e-12);
        assert_false(mq_scene_raycast_closest(s, &r, &q, &h));
        assert_false(mq_scene_raycast_any(s, &r, &q));
        assert_int_equal(mq_scene_raycast_all(s, &r, &q, NULL, 0), 0);
        r.origin[2] = -10, r.dir[2] = 1; /* from -z: its front */
        assert_true(mq_scene_raycast_closest(s, &r, &q, &h));
        assert_false(h.back_face);
        r = down(3.5, 0.5); /* the plain one from +z: front */
        assert_true(mq_scene_raycast_closest(s, &r, &q, &h) && h.instance == 1 && !h.back_face);
        assert_true(mq_scene_raycast_any(s, &r, &q));
        mq_scene_destroy(s);
    }
}

/* A ray through the square's shared diagonal, or a shared corner, is one crossing: reported once. */
static void test_all_dedup(void **state)
{
    fixture *f = *state;
    for (int obb = 0; obb < 2; obb++) {
        mq_scene *s;
        assert_int_equal(mq_scene_create(NULL, &s, NULL), MQ_OK);
        uint32_t id;
        mq_instance_def d = def_at(f, obb, 0, 0, 0);
        assert_int_equal(mq_scene_add(s, &d, &id, NULL), MQ_OK);
        d = def_at(f, obb, 0, 0, -1); /* a second copy below: its own crossing */
        assert_int_equal(mq_scene_add(s, &d, &id, NULL), MQ_OK);
        assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
        const double at[3][2] = {{0.5, 0.5}, {1, 1}, {0.25, 0.25}};
        for (int i = 0; i < 3; i++) {
            mq_dray r = down(at[i][0], at[i][1]);
            mq_scene_hit h[4];
            assert_int_equal(mq_scene_raycast_all(s, &r, NULL, h, 4), 2);
            assert_int_equal(h[0].instance, 0);
            assert_int_equal(h[1].instance, 1);
            assert_true(h[0].t == 10 && h[1].t == 11);
            /* The first in (t, triangle) order is the one reported: triangle 0. */
            assert_int_equal(h[0].triangle, 0);
            mq_scene_hit c;
            assert_true(mq_scene_raycast_closest(s, &r, NULL, &c));
            assert_memory_equal(&c, &h[0], sizeof c);
        }
        mq_scene_destroy(s);
    }
}

/* ---- top-level walks -------------------------------------------------- */

static bool count_visit(const mq_instance_rec *inst, void *user)
{
    (void)inst;
    ++*(int *)user;
    return true;
}

typedef struct nearest_log {
    double p[3];
    double last;
    uint32_t last_id;
    int n;
    bool ordered;
} nearest_log;

static double box_d2(const mq_daabb *b, const double p[3])
{
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
        double d = fmax(fmax(b->min[k] - p[k], p[k] - b->max[k]), 0.0);
        d2 += d * d;
    }
    return d2;
}

static void nearest_visit(const mq_instance_rec *inst, void *user)
{
    nearest_log *l = user;
    double d = box_d2(&inst->world_box, l->p);
    if (l->n > 0 && (d < l->last || (d == l->last && inst->id <= l->last_id)))
        l->ordered = false;
    l->last = d;
    l->last_id = inst->id;
    l->n++;
}

/* The most walk stack entries below node `ref` (its slots but the one walked
 * next, plus the most of any inner child's), counted from the committed
 * blocks; *slots_seen: the instance slots met. */
static uint32_t stack_need(const mq_scene *s, uint32_t ref, uint32_t *slots_seen)
{
    const mq_tlas_block *n = &s->nodes[mq_tlas_ref_first(ref)];
    uint32_t blocks = mq_tlas_ref_blocks(ref), used = 0, below = 0;
    assert_true(blocks >= 1 && blocks <= MQ_TLAS_MAX_BLOCKS);
    assert_true(mq_tlas_ref_first(ref) + blocks <= s->node_count);
    for (int i = 0; i < (int)blocks * MQ_TLAS_BLOCK; i++) {
        uint32_t c = mq_tlas_slot_child(n, i);
        if (c == MQ_TLAS_EMPTY)
            continue;
        assert_int_equal(i, (int)used); /* slots packed from the first */
        used++;
        if (c & MQ_TLAS_LEAF_BIT) {
            (*slots_seen)++;
            continue;
        }
        assert_true(mq_tlas_ref_first(c) > mq_tlas_ref_first(ref)); /* preorder */
        uint32_t b = stack_need(s, c, slots_seen);
        below = b > below ? b : below;
    }
    assert_true(used > (blocks - 1) * MQ_TLAS_BLOCK); /* no empty block */
    return used - 1 + below;
}

static void test_tlas_walks(void **state)
{
    fixture *f = *state;
    mq_scene *s;
    assert_int_equal(mq_scene_create(NULL, &s, NULL), MQ_OK);
    mq_test_rng g;
    mq_test_rng_seed(&g, mq_test_seed(7));
    enum { N = 3000 };
    uint32_t id;
    for (int i = 0; i < N; i++) {
        /* Many coincident instances too (i % 7 == 0), which overflow the nearest walk's heap. */
        double x = i % 7 == 0 ? 0 : mq_test_rng_range(&g, -100, 100);
        double y = i % 7 == 0 ? 0 : mq_test_rng_range(&g, -100, 100);
        mq_instance_def d = def_at(f, i & 1, x, y, mq_test_rng_range(&g, -1, 1) * (i % 7 != 0));
        d.mask = 1u << (i % 3);
        assert_int_equal(mq_scene_add(s, &d, &id, NULL), MQ_OK);
    }
    mq_instance_def e = mq_default_instance_def();
    e.bvh = f->empty_bvh;
    assert_int_equal(mq_scene_add(s, &e, &id, NULL), MQ_OK);
    assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    /* The tree's shape: every non-empty instance once, the stack bound the
     * ray stream relies on (mq_scene.walk_stack) counted independently. */
    uint32_t seen = 0;
    assert_int_equal(s->walk_stack, stack_need(s, s->root, &seen) + 1);
    assert_int_equal(seen, N);
    assert_true(s->walk_stack <= MQ_TLAS_STACK);
    for (int rep = 0; rep < 2; rep++) {
        for (int k = 0; k < 50; k++) {
            double c[3] = {mq_test_rng_range(&g, -100, 100), mq_test_rng_range(&g, -100, 100), 0};
            double r = mq_test_rng_range(&g, 0, 30);
            if (k == 0)
                c[0] = c[1] = 0.5;
            mq_daabb box = {{c[0] - r, c[1] - r, -1}, {c[0] + r, c[1] + r, 1}};
            uint32_t mask = 1 + (uint32_t)(k % 7);
            int got = 0, want = 0;
            assert_true(mq_tlas_visit_box(s, &box, mask, count_visit, &got));
            double bound2 = r * r;
            nearest_log l = {{c[0], c[1], c[2]}, 0, 0, 0, true};
            mq_tlas_visit_nearest(s, c, mask, &bound2, nearest_visit, &l);
            int want_near = 0;
            for (uint32_t i = 0; i < N; i++) {
                const mq_instance_rec *rec = mq_scene_record(s, i);
                if (!(rec->mask & mask))
                    continue;
                const mq_daabb *b = &rec->world_box;
                bool o = true;
                for (int a = 0; a < 3; a++)
                    o = o && b->min[a] <= box.max[a] && box.min[a] <= b->max[a];
                want += o;
                want_near += box_d2(b, c) <= bound2;
            }
            assert_int_equal(got, want);
            assert_int_equal(l.n, want_near);
            assert_true(l.ordered);
        }
        /* Move everything (a refit) and check again. */
        for (uint32_t i = 0; i < N; i++) {
            mq_xform x = mq_xform_identity();
            x.m[0][3] = mq_test_rng_range(&g, -100, 100);
            x.m[1][3] = i % 5 == 0 ? 0.0 : mq_test_rng_range(&g, -100, 100);
            assert_int_equal(mq_scene_set_transform(s, i, &x, NULL), MQ_OK);
        }
        assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
    }
    mq_scene_destroy(s);
}

/* Marks the instances a ray walk visits. */
typedef struct walk_log {
    unsigned char *seen;
    bool twice;
} walk_log;

static bool walk_visit(const mq_instance_rec *inst, void *user)
{
    walk_log *w = user;
    w->twice |= w->seen[inst->id] != 0;
    w->seen[inst->id] = 1;
    return true;
}

/* A random placement: rotation, scale in [0.5, 3] per axis, translation in [-20, 20]^3. */
static mq_xform random_xform(mq_test_rng *g)
{
    double q[4], t[3], sc[3];
    for (int k = 0; k < 4; k++)
        q[k] = mq_test_rng_range(g, -1, 1);
    for (int k = 0; k < 3; k++) {
        t[k] = mq_test_rng_range(g, -20, 20);
        sc[k] = mq_test_rng_range(g, 0.5, 3);
    }
    return mq_xform_from_trs(t, q, sc);
}

static void assert_same_hit(const mq_scene_hit *a, const mq_scene_hit *b)
{
    assert_int_equal(a->instance, b->instance);
    assert_int_equal(a->triangle, b->triangle);
    assert_true(a->t == b->t || (isinf(a->t) && isinf(b->t)));
    for (int k = 0; k < 3; k++)
        assert_true(a->point[k] == b->point[k] || (a->instance == MQ_NO_INSTANCE && b->instance == MQ_NO_INSTANCE));
}

/* Ray batches of a scene whose tree needs more walk stack than the ray
 * stream holds per ray (forced here: no ordinary tree does) answer through
 * the single-ray path, with the same answers as the stream and single rays. */
static void check_stream_fallback(mq_scene *s, mq_test_rng *g)
{
    enum { R = 300 };
    mq_dray rays[R];
    mq_scene_hit single[R], stream[R], fallback[R];
    for (int i = 0; i < R; i++) {
        const mq_daabb *aim = &mq_scene_record(s, (uint32_t)i % 200)->world_box;
        for (int a = 0; a < 3; a++) {
            rays[i].origin[a] = mq_test_rng_range(g, -30, 30);
            rays[i].dir[a] = 0.5 * (aim->min[a] + aim->max[a]) - rays[i].origin[a];
        }
        rays[i].tmin = 0.0;
        rays[i].tmax = INFINITY;
        mq_scene_raycast_closest(s, &rays[i], NULL, &single[i]);
    }
    size_t found = mq_scene_raycast_closest_batch(s, rays, R, NULL, 1, stream);
    uint32_t need = s->walk_stack;
    s->walk_stack = MQ_SCENE_STREAM_STACK + 1;
    assert_int_equal(mq_scene_raycast_closest_batch(s, rays, R, NULL, 2, fallback), found);
    s->walk_stack = need;
    assert_true(found > 0);
    for (int i = 0; i < R; i++) {
        assert_same_hit(&stream[i], &single[i]);
        assert_same_hit(&fallback[i], &single[i]);
    }
}

/*
 * The ray walk of the top-level tree at sizes around its blocks (8 slots)
 * and nodes (32): it visits every instance whose double world box the ray
 * crosses in [tmin, tmax] and whose mask matches (the float test is
 * conservative, so it may visit more), none twice, none of another mask;
 * after a refit that moves everything and sets some masks to 0 too.
 */
static void test_tlas_ray_walks(void **state)
{
    fixture *f = *state;
    static const uint32_t sizes[] = {1, 2, 7, 8, 9, 31, 32, 33, 64, 65, 200, 1000};
    mq_test_rng g;
    mq_test_rng_seed(&g, mq_test_seed(11));
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        const uint32_t n = sizes[z];
        mq_scene *s;
        assert_int_equal(mq_scene_create(NULL, &s, NULL), MQ_OK);
        for (uint32_t i = 0; i < n; i++) {
            mq_instance_def d = def_at(f, i % 2, 0, 0, 0);
            d.transform = random_xform(&g);
            d.mask = 1u << (i % 3);
            uint32_t id;
            assert_int_equal(mq_scene_add(s, &d, &id, NULL), MQ_OK);
        }
        assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
        unsigned char *seen = calloc(n, 1);
        size_t must = 0;
        for (int rep = 0; rep < 2; rep++) {
            for (int k = 0; k < 300; k++) {
                /* Half the rays aim at an instance's box centre; some start
                 * beyond the float test's range (the slow walk). */
                const mq_daabb *aim = &mq_scene_record(s, (uint32_t)k % n)->world_box;
                mq_dray ray;
                double len = 0.0;
                for (int a = 0; a < 3; a++) {
                    ray.origin[a] = mq_test_rng_range(&g, -30, 30) * (k % 50 == 49 ? 1e18 : 1.0);
                    ray.dir[a] = k % 2 && aim->min[a] <= aim->max[a]
                                     ? 0.5 * (aim->min[a] + aim->max[a]) - ray.origin[a] + mq_test_rng_range(&g, -1, 1)
                                     : mq_test_rng_range(&g, -1, 1);
                    len += ray.dir[a] * ray.dir[a];
                }
                if (len == 0.0)
                    continue;
                ray.tmin = k % 3 == 0 ? 0.0 : mq_test_rng_range(&g, 0, 10);
                ray.tmax = k % 4 == 0 ? INFINITY : ray.tmin + mq_test_rng_range(&g, 0, 60);
                mq_dray_prep prep;
                mq_tlas_ray r;
                mq_tlas_ray_prepare(&r, &prep, &ray, ray.tmin);
                static const uint32_t masks[] = {UINT32_MAX, 1u, 6u};
                for (int m = 0; m < 3; m++) {
                    memset(seen, 0, n);
                    walk_log log = {seen, false};
                    double t_hi = ray.tmax;
                    assert_true(mq_tlas_walk(s, &r, ray.tmin, &t_hi, masks[m], m == 1, walk_visit, &log));
                    assert_false(log.twice);
                    for (uint32_t i = 0; i < n; i++) {
                        const mq_instance_rec *rec = mq_scene_record(s, i);
                        double t0 = ray.tmin, t1 = ray.tmax;
                        bool crosses = (rec->mask & masks[m]) &&
                                       mq_dray_clip_box(&prep, rec->world_box.min, rec->world_box.max, &t0, &t1);
                        must += crosses;
                        if (crosses)
                            assert_true(seen[i]);
                        if (seen[i])
                            assert_true(rec->mask & masks[m]);
                    }
                }
            }
            /* Move everything (a refit), some masks to 0. */
            for (uint32_t i = 0; i < n; i++) {
                mq_xform x = random_xform(&g);
                assert_int_equal(mq_scene_set_transform(s, i, &x, NULL), MQ_OK);
                assert_int_equal(mq_scene_set_mask(s, i, i % 5 == 0 ? 0u : 1u << (i % 3)), MQ_OK);
            }
            assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
        }
        assert_true(must > 0); /* the rays did cross instances */
        if (n == 200)
            check_stream_fallback(s, &g);
        free(seen);
        mq_scene_destroy(s);
    }
}

/* ---- allocation failure ------------------------------------------------ */

typedef struct counting {
    long allocs, fail_at;
    long long live;
} counting;

static void *count_alloc(size_t size, size_t align, void *user)
{
    counting *c = user;
    if (++c->allocs == c->fail_at)
        return NULL;
    c->live += (long long)size;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size))
        abort();
    return p;
}

static void count_free(void *ptr, size_t size, void *user)
{
    counting *c = user;
    c->live -= (long long)size;
    free(ptr);
}

/*
 * Create, 40 adds (the staged array grows), commit, 10 removes + 5 adds,
 * commit. Failing allocation k (for every k) must give MQ_ERR_OUT_OF_MEMORY
 * from exactly the call that allocated, leave the committed state as it was,
 * and leak nothing; retrying the failed call then succeeds.
 */
static void test_alloc_failures(void **state)
{
    fixture *f = *state;
    long total = 0;
    for (long fail_at = 1;; fail_at++) {
        counting c = {0, fail_at, 0};
        mq_allocator a = {count_alloc, count_free, &c};
        mq_scene *s = NULL;
        int failures = 0;
        mq_status st = mq_scene_create(&a, &s, NULL);
        if (st != MQ_OK) {
            assert_int_equal(st, MQ_ERR_OUT_OF_MEMORY);
            assert_null(s);
            assert_true(c.live == 0);
            failures++;
            assert_int_equal(mq_scene_create(&a, &s, NULL), MQ_OK);
        }
        uint32_t id;
        for (int i = 0; i < 40; i++) {
            mq_instance_def d = def_at(f, i & 1, i, 0, 0);
            st = mq_scene_add(s, &d, &id, NULL);
            if (st != MQ_OK) {
                assert_int_equal(st, MQ_ERR_OUT_OF_MEMORY);
                failures++;
                assert_int_equal(mq_scene_add(s, &d, &id, NULL), MQ_OK);
            }
            assert_int_equal(id, (uint32_t)i);
        }
        st = mq_scene_commit(s, NULL);
        if (st != MQ_OK) {
            assert_int_equal(st, MQ_ERR_OUT_OF_MEMORY);
            failures++;
            assert_int_equal(mq_scene_instance_count(s), 0); /* still the (empty) previous state */
            assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
        }
        assert_int_equal(mq_scene_instance_count(s), 40);
        for (uint32_t i = 0; i < 10; i++)
            assert_int_equal(mq_scene_remove(s, 3 * i), MQ_OK);
        for (int i = 0; i < 5; i++) {
            mq_instance_def d = def_at(f, false, 1000, 0, 0);
            assert_int_equal(mq_scene_add(s, &d, &id, NULL), MQ_OK); /* no growth: slots are free */
        }
        st = mq_scene_commit(s, NULL);
        mq_dray r = down(3.5, 0.5);
        if (st != MQ_OK) {
            assert_int_equal(st, MQ_ERR_OUT_OF_MEMORY);
            failures++;
            /* Previous state intact: 40 instances, id 3 still at x = 3. */
            assert_int_equal(mq_scene_instance_count(s), 40);
            mq_scene_hit h;
            assert_true(mq_scene_raycast_closest(s, &r, NULL, &h) && h.instance == 3);
            assert_int_equal(mq_scene_commit(s, NULL), MQ_OK);
        }
        assert_int_equal(mq_scene_instance_count(s), 35);
        assert_false(mq_scene_raycast_any(s, &r, NULL));
        mq_scene_destroy(s);
        assert_true(c.live == 0);
        if (failures == 0) {
            total = c.allocs;
            break;
        }
        assert_int_equal(failures, 1);
    }
    assert_true(total >= 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),       cmocka_unit_test(test_xform),
        cmocka_unit_test(test_record),         cmocka_unit_test(test_ids_and_commit),
        cmocka_unit_test(test_invalid_rays),   cmocka_unit_test(test_mirror_culling),
        cmocka_unit_test(test_all_dedup),      cmocka_unit_test(test_tlas_walks),
        cmocka_unit_test(test_tlas_ray_walks), cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
