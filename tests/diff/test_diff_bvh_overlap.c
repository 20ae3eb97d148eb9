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

static size_t bvh_array(const mq_bvh *t, const query *q, uint32_t *out, size_t cap)
{
    switch (q->kind) {
    case SHAPE_SPHERE:
        return mq_bvh_overlap_array(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = q->s}}, out, cap);
    case SHAPE_CAPSULE:
        return mq_bvh_overlap_array(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = q->c}}, out, cap);
    case SHAPE_OBB:
        return mq_bvh_overlap_array(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = q->o}}, out, cap);
    default:
        return mq_bvh_overlap_array(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = q->a}}, out, cap);
    }
}

static bool bvh_any(const mq_bvh *t, const query *q)
{
    switch (q->kind) {
    case SHAPE_SPHERE:
        return mq_bvh_overlap_any(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = q->s}});
    case SHAPE_CAPSULE:
        return mq_bvh_overlap_any(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = q->c}});
    case SHAPE_OBB:
        return mq_bvh_overlap_any(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = q->o}});
    default:
        return mq_bvh_overlap_any(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = q->a}});
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

static size_t bvh_callback(const mq_bvh *t, const query *q, stop_after *s)
{
    switch (q->kind) {
    case SHAPE_SPHERE:
        return mq_bvh_overlap(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = q->s}}, count_and_stop, s);
    case SHAPE_CAPSULE:
        return mq_bvh_overlap(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = q->c}}, count_and_stop, s);
    case SHAPE_OBB:
        return mq_bvh_overlap(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = q->o}}, count_and_stop, s);
    default:
        return mq_bvh_overlap(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = q->a}}, count_and_stop, s);
    }
}

/* Brute force: every triangle near the query's bounds, by the primitive
 * (margin < 0: no prefilter at all). */
static size_t brute(const obt_tri_boxes *tb, const query *q, float margin, uint32_t *out)
{
    mq_aabb qb;
    query_bounds(q, &qb);
    size_t n = 0;
    for (size_t i = 0; i < tb->count; i++)
        if ((margin < 0.0f || !obt_far_apart(&tb->boxes[i], &qb, margin)) && prim_overlaps(q, &tb->tris[i]))
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

/* A zero-size shape exactly on a vertex (capsules: along an edge; boxes: flat
 * ones through it): it touches the triangles there. */
static void touching_query(mq_test_rng *r, shape_kind kind, const obt_tri_boxes *tb, double D, query *q)
{
    const mq_triangle *t = &tb->tris[mq_test_rng_u64(r) % tb->count];
    int k = (int)(mq_test_rng_u64(r) % 3);
    const float *v = t->v[k], *w = t->v[(k + 1) % 3];
    vec3 half = {0, 0, 0};
    if (mq_test_rng_u64(r) & 1) /* flat box: one zero extent */
        for (int i = 0; i < 3; i++)
            half[i] = i == k ? 0.0f : (float)(0.01 * D * mq_test_rng_unit(r));
    q->kind = kind;
    switch (kind) {
    case SHAPE_SPHERE:
        q->s = (mq_sphere){{v[0], v[1], v[2]}, 0.0f};
        break;
    case SHAPE_CAPSULE:
        q->c = (mq_capsule){{v[0], v[1], v[2]}, {w[0], w[1], w[2]}, 0.0f};
        if (mq_test_rng_u64(r) & 1) /* zero length */
            memcpy(q->c.b, q->c.a, sizeof q->c.b);
        break;
    case SHAPE_OBB: {
        double qd[4];
        mq_test_rng_quat(r, qd);
        versor qf = {(float)qd[0], (float)qd[1], (float)qd[2], (float)qd[3]};
        mq_obb_from_quat(v, half, qf, &q->o);
        break;
    }
    default:
        q->a = (mq_aabb){{v[0] - half[0], v[1] - half[1], v[2] - half[2]},
                         {v[0] + half[0], v[1] + half[1], v[2] + half[2]}};
    }
}

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

static void check_query(check_state *cs, const obt_tri_boxes *tb, mq_bvh *const *bvhs, size_t nbvh, const query *q,
                        float margin, const char *mesh)
{
    size_t n = brute(tb, q, margin, cs->expect);
    cs->queries++;
    cs->total_hits += n;
    cs->nonempty += n > 0;
    for (size_t v = 0; v < nbvh; v++) {
        size_t m = bvh_array(bvhs[v], q, cs->got, cs->cap);
        qsort(cs->got, m < cs->cap ? m : cs->cap, sizeof *cs->got, obt_cmp_u32);
        bool same = m == n && memcmp(cs->got, cs->expect, n * sizeof *cs->got) == 0;
        same = same && bvh_any(bvhs[v], q) == (n > 0);
        stop_after s = {0, 1 + n / 2};
        same = same && bvh_callback(bvhs[v], q, &s) == (n ? 1 + n / 2 : 0);
        if (!same && cs->mismatches++ < 10) {
            fprintf(stderr, "  MISMATCH %s %s bvh %s: brute %zu, bvh %zu\n", mesh, shape_names[q->kind],
                    variants[v].name, n, m);
            print_query(q);
        }
    }
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
static bool brute_closest(const obt_tri_boxes *tb, const float p[3], float max_d, float *d2_out, uint32_t *id_out)
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

static size_t check_closest(const obt_tri_boxes *tb, mq_bvh *const *bvhs, size_t nbvh, const mq_obbtree *tree,
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
        double D = obt_bounds(mesh, &box);
        obt_tri_boxes tb = obt_tri_boxes_make(mesh);
        mq_bvh *bvhs[VARIANTS];
        build_variants(mesh, bvhs);
        assert_int_equal(mq_bvh_validate(bvhs[0], NULL), MQ_OK);
        check_state cs = {malloc(tb.count * 4 + 4), malloc(tb.count * 4 + 4), tb.count, 0, 0, 0, 0};
        for (int kind = 0; kind < SHAPE_KINDS; kind++) {
            size_t hits0 = cs.total_hits, nonempty0 = cs.nonempty;
            for (size_t i = 0; i < per_shape; i++) {
                query q;
                random_query(&rng, (shape_kind)kind, &box, D, &q);
                check_query(&cs, &tb, bvhs, VARIANTS, &q, (float)(1e-3 * D), obt_meshes[mi]);
            }
            for (size_t i = 0; i < per_shape / 5; i++) {
                query q;
                touching_query(&rng, (shape_kind)kind, &tb, D, &q);
                check_query(&cs, &tb, bvhs, VARIANTS, &q, (float)(1e-3 * D), obt_meshes[mi]);
            }
            fprintf(stderr, "  %-18s %-7s %zu queries: %zu non-empty, %zu overlaps\n", obt_meshes[mi],
                    shape_names[kind], per_shape + per_shape / 5, cs.nonempty - nonempty0, cs.total_hits - hits0);
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
        free(cs.expect);
        free(cs.got);
        for (size_t v = 0; v < VARIANTS; v++)
            mq_bvh_destroy(bvhs[v]);
        obt_tri_boxes_free(&tb);
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
    obt_tri_boxes tb = obt_tri_boxes_make(mesh);
    mq_obbtree *tree;
    assert_int_equal(mq_obbtree_build(mesh, NULL, &tree, NULL), MQ_OK);
    check_state cs = {malloc(tb.count * 4 + 4), malloc(tb.count * 4 + 4), tb.count, 0, 0, 0, 0};
    mq_aabb box = {{-1.5f, -1.5f, -1.5f}, {5.5f, 5.5f, 5.5f}};
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xB7B0A002));
    size_t cp_bad = 0;
    for (size_t i = 0; i < 4000; i++) {
        query q;
        shape_kind kind = (shape_kind)(i % SHAPE_KINDS);
        random_query(&rng, kind, &box, 8.0 * (1.0 + (double)(i % 7)), &q);
        if (i % 3 == 0)
            touching_query(&rng, kind, &tb, 8.0, &q);
        check_query(&cs, &tb, bvhs, VARIANTS, &q, -1.0f, "degenerate");
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
    free(cs.expect);
    free(cs.got);
    obt_tri_boxes_free(&tb);
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
