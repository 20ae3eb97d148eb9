/*
 * Mesh vs mesh on two OBB trees vs brute force over all triangle pairs:
 * B's corners mapped by mq_rigid_apply, every pair tested with
 * mq_overlap_triangle_triangle. Random rigid transforms that make the bounds
 * overlap, the identity (every triangle touches itself and its neighbours:
 * coplanar and shared-edge contacts) and tiny offsets of it (parallel close
 * proximity, OBBTree's hard case). The pair sets must be equal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_diff_obbtree_common.h"

static int cmp_pair(const void *x, const void *y)
{
    const mq_tri_pair *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

typedef struct pair_buf {
    mq_tri_pair *p;
    size_t count, capacity;
} pair_buf;

static void pair_push(pair_buf *b, uint32_t ta, uint32_t tb)
{
    if (b->count == b->capacity) {
        b->capacity = b->capacity ? 2 * b->capacity : 4096;
        b->p = realloc(b->p, b->capacity * sizeof *b->p);
        if (!b->p)
            abort();
    }
    b->p[b->count++] = (mq_tri_pair){ta, tb};
}

/* All pairs, in (a, b) order; triangle boxes that are far apart are skipped. */
static void brute_pairs(const gen_tri_boxes *ta, const gen_tri_boxes *tb, const mq_rigid *xf, float margin,
                        pair_buf *out)
{
    out->count = 0;
    mq_triangle *moved = malloc(tb->count * sizeof *moved + 1);
    mq_aabb *boxes = malloc(tb->count * sizeof *boxes + 1);
    for (size_t j = 0; j < tb->count; j++) {
        for (int v = 0; v < 3; v++)
            mq_rigid_apply(xf, tb->tris[j].v[v], moved[j].v[v]);
        for (int k = 0; k < 3; k++) {
            boxes[j].min[k] = fminf(fminf(moved[j].v[0][k], moved[j].v[1][k]), moved[j].v[2][k]);
            boxes[j].max[k] = fmaxf(fmaxf(moved[j].v[0][k], moved[j].v[1][k]), moved[j].v[2][k]);
        }
    }
    for (size_t i = 0; i < ta->count; i++)
        for (size_t j = 0; j < tb->count; j++)
            if (!gen_far_apart(&ta->boxes[i], &boxes[j], margin) &&
                mq_overlap_triangle_triangle(&ta->tris[i], &moved[j]))
                pair_push(out, (uint32_t)i, (uint32_t)j);
    free(moved);
    free(boxes);
}

static bool stop_after_half(uint32_t a, uint32_t b, void *user)
{
    (void)a;
    (void)b;
    size_t *left = user;
    return --*left > 0;
}

/* A transform placing B's bounds centre at A's, plus an offset, with rotation q (w, x, y, z). */
static mq_rigid place(const mq_aabb *ba, const mq_aabb *bb, const double q[4], const double offset[3])
{
    mq_rigid xf = {{(float)q[0], (float)q[1], (float)q[2], (float)q[3]}, {0, 0, 0}};
    vec3 cb, rcb;
    for (int k = 0; k < 3; k++)
        cb[k] = 0.5f * (bb->min[k] + bb->max[k]);
    mq_rigid_apply(&xf, cb, rcb); /* R cB (translation still 0) */
    for (int k = 0; k < 3; k++)
        xf.translation[k] = (float)(0.5 * ((double)ba->min[k] + ba->max[k]) - rcb[k] + offset[k]);
    return xf;
}

typedef struct mesh_pair {
    const char *a, *b;
    size_t transforms;
    mq_obb_fit fit_a, fit_b;
} mesh_pair;

static const mesh_pair pairs[] = {
    {"suzanne.obj", "suzanne.obj", 120, MQ_OBB_FIT_DITO, MQ_OBB_FIT_DITO},
    {"woody.obj", "woody.obj", 120, MQ_OBB_FIT_PCA, MQ_OBB_FIT_DITO},
    {"suzanne.obj", "woody.obj", 120, MQ_OBB_FIT_DITO, MQ_OBB_FIT_PCA},
    {"spot.obj", "cow.obj", 12, MQ_OBB_FIT_DITO, MQ_OBB_FIT_AABB},
};

typedef struct run_state {
    pair_buf expect;
    mq_tri_pair *got;
    size_t got_cap, mismatches, nonempty, total;
} run_state;

static void check_transform(run_state *rs, const gen_tri_boxes *ta, const gen_tri_boxes *tb, const mq_obbtree *a,
                            const mq_obbtree *b, const mq_rigid *xf, float margin, const char *what)
{
    brute_pairs(ta, tb, xf, margin, &rs->expect);
    size_t n = mq_obbtree_collide_array(a, b, xf, NULL, 0);
    if (n > rs->got_cap) {
        rs->got_cap = n;
        rs->got = realloc(rs->got, n * sizeof *rs->got + 1);
    }
    size_t m = mq_obbtree_collide_array(a, b, xf, rs->got, rs->got_cap);
    qsort(rs->got, m, sizeof *rs->got, cmp_pair);
    bool same = m == n && n == rs->expect.count && memcmp(rs->got, rs->expect.p, n * sizeof *rs->got) == 0;
    same = same && mq_obbtree_any_collide(a, b, xf) == (n > 0);
    size_t left = 1 + n / 2;
    same = same && mq_obbtree_collide(a, b, xf, stop_after_half, &left) == (n ? 1 + n / 2 : 0);
    rs->nonempty += n > 0;
    rs->total += n;
    if (!same && rs->mismatches++ < 10)
        fprintf(stderr, "  MISMATCH %s: brute %zu pairs, tree %zu; t %.9g %.9g %.9g q (wxyz) %.9g %.9g %.9g %.9g\n",
                what, rs->expect.count, m, (double)xf->translation[0], (double)xf->translation[1],
                (double)xf->translation[2], (double)xf->rotation[0], (double)xf->rotation[1], (double)xf->rotation[2],
                (double)xf->rotation[3]);
}

static void run_pair(const mesh_pair *mp, mq_test_rng *rng, run_state *rs)
{
    mq_mesh *ma = mq_test_load_mesh(mp->a), *mb = mq_test_load_mesh(mp->b);
    mq_aabb ba, bb;
    double Da = gen_bounds(ma, &ba), Db = gen_bounds(mb, &bb), D = Da > Db ? Da : Db;
    gen_tri_boxes ta = gen_tri_boxes_make(ma), tb = gen_tri_boxes_make(mb);
    mq_obbtree_def da = mq_default_obbtree_def(), db = mq_default_obbtree_def();
    da.fit = mp->fit_a;
    db.fit = mp->fit_b;
    mq_obbtree *a, *b;
    assert_int_equal(mq_obbtree_build(ma, &da, &a, NULL), MQ_OK);
    assert_int_equal(mq_obbtree_build(mb, &db, &b, NULL), MQ_OK);
    float margin = (float)(1e-3 * D);
    size_t nonempty0 = rs->nonempty, total0 = rs->total;
    char what[128];
    snprintf(what, sizeof what, "%s vs %s", mp->a, mp->b);
    size_t transforms = (size_t)((double)mp->transforms * OBT_SCALE);
    for (size_t i = 0; i < transforms; i++) {
        double q[4] = {1, 0, 0, 0}, off[3] = {0, 0, 0}; /* w, x, y, z */
        int kind = (int)(i % 6);
        if (kind < 4) { /* random rotation, offset up to 0.3 D */
            mq_test_rng_quat(rng, q);
            for (int k = 0; k < 3; k++)
                off[k] = mq_test_rng_range(rng, -0.3 * D, 0.3 * D);
        } else if (kind == 4) { /* near the identity: parallel close proximity */
            for (int k = 0; k < 3; k++)
                off[k] = mq_test_rng_range(rng, -1e-3 * D, 1e-3 * D);
            double ang = mq_test_rng_range(rng, 0, 1e-3), u[3];
            mq_test_rng_unit_vector(rng, u);
            q[0] = cos(ang);
            for (int k = 0; k < 3; k++)
                q[k + 1] = sin(ang) * u[k];
        }
        /* kind 5: the identity placement (exact coincidence when a == b) */
        bool identity = kind == 5 && strcmp(mp->a, mp->b) == 0;
        mq_rigid xf = identity ? (mq_rigid){{1, 0, 0, 0}, {0, 0, 0}} : place(&ba, &bb, q, off);
        check_transform(rs, &ta, &tb, a, b, &xf, margin, what);
    }
    fprintf(stderr, "  %-26s %zu transforms: %zu intersecting, %zu pairs\n", what, transforms, rs->nonempty - nonempty0,
            rs->total - total0);
    mq_obbtree_destroy(a);
    mq_obbtree_destroy(b);
    gen_tri_boxes_free(&ta);
    gen_tri_boxes_free(&tb);
    mq_mesh_destroy(ma);
    mq_mesh_destroy(mb);
}

static void collide_matches_brute_force(void **state)
{
    (void)state;
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x0BB70004));
    run_state rs = {{NULL, 0, 0}, NULL, 0, 0, 0, 0};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        run_pair(&pairs[i], &rng, &rs);
    free(rs.expect.p);
    free(rs.got);
    assert_int_equal(rs.mismatches, 0);
}

/* Invalid transforms collide with nothing; a tree with itself at the identity
 * reports every triangle against itself. */
static void invalid_transforms_and_self_pairs(void **state)
{
    (void)state;
    mq_mesh *m = mq_test_load_mesh("suzanne.obj");
    mq_obbtree *t;
    assert_int_equal(mq_obbtree_build(m, NULL, &t, NULL), MQ_OK);
    mq_rigid bad[3] = {{{0, 0, 0, 0}, {0, 0, 0}}, {{1, NAN, 0, 0}, {0, 0, 0}}, {{1, 0, 0, 0}, {INFINITY, 0, 0}}};
    for (int i = 0; i < 3; i++) {
        assert_false(mq_obbtree_any_collide(t, t, &bad[i]));
        assert_int_equal(mq_obbtree_collide_array(t, t, &bad[i], NULL, 0), 0);
        vec3 p = {1, 2, 3}, out;
        mq_rigid_apply(&bad[i], p, out);
        assert_true(isnan(out[0]) && isnan(out[1]) && isnan(out[2]));
    }
    assert_false(mq_obbtree_any_collide(t, t, NULL));
    mq_rigid id = {{2, 0, 0, 0}, {0, 0, 0}}; /* w = 2, not unit: normalised */
    size_t n = mq_obbtree_collide_array(t, t, &id, NULL, 0);
    mq_tri_pair *p = malloc(n * sizeof *p);
    assert_int_equal(mq_obbtree_collide_array(t, t, &id, p, n), n);
    size_t self = 0;
    for (size_t i = 0; i < n; i++)
        self += p[i].a == p[i].b;
    assert_int_equal(self, mq_mesh_triangle_count(m));
    free(p);
    mq_obbtree_destroy(t);
    mq_mesh_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(collide_matches_brute_force),
        cmocka_unit_test(invalid_transforms_and_self_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
