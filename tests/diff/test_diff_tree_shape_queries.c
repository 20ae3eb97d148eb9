/*
 * Shape distance, shape clearance and shape casts on the k-DOP tree and the
 * sphere tree (meshquery/proximity.h, meshquery/casts.h), on real meshes
 * (data/), against brute force over every triangle in double and against the
 * BVH's answers.
 *
 * Distance: random shapes of every kind (sphere, capsule, OBB, AABB: the
 * shared generator, some grown far from the mesh; touching shapes on mesh
 * vertices; random convex hulls, tests/support/gen_convex.h) on every k of the
 * k-DOP tree (6, 14, 18, 26; leaves of 1, 4 and 16) and on the sphere tree
 * (leaves of 1, 4, 16). Each tree must report the BVH's distance bit for bit;
 * its triangle is at that distance (the leaf distance is one function, so a
 * tie may name another triangle of the same distance: the oracle's distance
 * of the named triangle must equal the answer); and the distance must equal
 * the independent oracle's minimum over every triangle within 1e-6 of the
 * mesh's diagonal D (spheres and capsules: centre / axis against the triangle
 * less the radius; boxes: the oracle's box-triangle overlap, point-box and
 * segment-box distances and the box's edges against the triangle; convexes:
 * the hull's half-spaces clipping the triangle, else the least distance
 * between the triangle and a hull face). max_distance below the answer finds
 * nothing, at the answer finds it. Clearance: the array of every tree, sorted
 * by triangle, equals the BVH's exactly (triangles and distances), and _any
 * agrees with it.
 *
 * Casts: random spheres, capsules and hulls moved up to D, half aimed at a
 * mesh vertex; every tree's record equals the BVH's bit for bit (t, triangle,
 * point, normal, initially_overlapping). Brute force in double over every
 * triangle: no triangle is nearer than r (1 - 1e-5) - 1e-5 S to the sphere's
 * centre / capsule's axis at 0.999 t (no earlier contact the walk missed),
 * and the convex's t equals the smallest mq_convex_cast_triangle time over
 * every triangle (ties to the smaller id) exactly.
 *
 * Degenerate and bad input: NULL trees and shapes, NaN and negative options,
 * NaN shapes, NaN and infinite directions, empty trees. Memory: the queries
 * allocate nothing through the trees' allocators.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "gen_convex.h"
#include "gen_shapes.h"
#include "oracle.h"
#include "oracle_convex.h"
#include "test_support.h"

#if defined(__OPTIMIZE__)
#define TS_SCALE 1.0
#else
#define TS_SCALE 0.25
#endif

/* ---- the trees of one mesh ---- */

#define KDOP_VARIANTS 6
#define SPH_VARIANTS 3
#define TREES (KDOP_VARIANTS + SPH_VARIANTS)

typedef struct trees {
    gen_mesh_trees m; /* mesh, BVH, OBB tree */
    mq_kdoptree *kdop[KDOP_VARIANTS];
    mq_spheretree *sph[SPH_VARIANTS];
    oracle_tri *ot; /* every triangle in double */
    bool *ok;       /* finite corners */
    double S;       /* largest coordinate magnitude */
} trees;

static const uint32_t kdop_k[KDOP_VARIANTS] = {18, 18, 18, 6, 14, 26};
static const uint32_t kdop_leaf[KDOP_VARIANTS] = {4, 1, 16, 4, 4, 4};
static const uint32_t sph_leaf[SPH_VARIANTS] = {4, 1, 16};

static void trees_load(trees *t, const char *name)
{
    memset(t, 0, sizeof *t);
    gen_mesh_trees_load(&t->m, name);
    for (int v = 0; v < KDOP_VARIANTS; v++) {
        mq_kdoptree_def def = mq_default_kdoptree_def();
        def.k = kdop_k[v];
        def.max_leaf_size = kdop_leaf[v];
        assert_int_equal(mq_kdoptree_build(t->m.mesh, &def, &t->kdop[v], NULL), MQ_OK);
    }
    for (int v = 0; v < SPH_VARIANTS; v++) {
        mq_spheretree_def def = mq_default_spheretree_def();
        def.max_leaf_size = sph_leaf[v];
        assert_int_equal(mq_spheretree_build(t->m.mesh, &def, &t->sph[v], NULL), MQ_OK);
    }
    t->ot = malloc(t->m.nt * sizeof *t->ot);
    t->ok = malloc(t->m.nt * sizeof *t->ok);
    assert_non_null(t->ot);
    assert_non_null(t->ok);
    for (uint32_t i = 0; i < t->m.nt; i++) {
        double c[9];
        gen_mesh_corners(t->m.mesh, i, c);
        t->ok[i] = true;
        for (int v = 0; v < 3; v++) {
            t->ot[i].v[v] = oracle_v3_make(c[3 * v], c[3 * v + 1], c[3 * v + 2]);
            for (int k = 0; k < 3; k++) {
                t->ok[i] = t->ok[i] && isfinite(c[3 * v + k]);
                t->S = fmax(t->S, fabs(c[3 * v + k]));
            }
        }
    }
}

static void trees_free(trees *t)
{
    for (int v = 0; v < KDOP_VARIANTS; v++)
        mq_kdoptree_destroy(t->kdop[v]);
    for (int v = 0; v < SPH_VARIANTS; v++)
        mq_spheretree_destroy(t->sph[v]);
    free(t->ot);
    free(t->ok);
    gen_mesh_trees_free(&t->m);
}

static const char *tree_name(int i)
{
    static char buf[TREES][32];
    if (i < KDOP_VARIANTS)
        snprintf(buf[i], sizeof buf[i], "kdop%u/leaf%u", kdop_k[i], kdop_leaf[i]);
    else
        snprintf(buf[i], sizeof buf[i], "sphere/leaf%u", sph_leaf[i - KDOP_VARIANTS]);
    return buf[i];
}

static bool tree_distance(const trees *t, int i, const mq_shape *q, const mq_distance_options *o,
                          mq_shape_distance_result *r)
{
    return i < KDOP_VARIANTS ? mq_kdoptree_shape_distance(t->kdop[i], q, o, r)
                             : mq_spheretree_shape_distance(t->sph[i - KDOP_VARIANTS], q, o, r);
}

static size_t tree_clearance(const trees *t, int i, const mq_shape *q, double d, mq_clearance_pair *out, size_t cap)
{
    return i < KDOP_VARIANTS ? mq_kdoptree_shape_clearance_array(t->kdop[i], q, d, out, cap)
                             : mq_spheretree_shape_clearance_array(t->sph[i - KDOP_VARIANTS], q, d, out, cap);
}

static bool tree_clearance_any(const trees *t, int i, const mq_shape *q, double d)
{
    return i < KDOP_VARIANTS ? mq_kdoptree_shape_clearance_any(t->kdop[i], q, d)
                             : mq_spheretree_shape_clearance_any(t->sph[i - KDOP_VARIANTS], q, d);
}

/* ---- the oracle's shape-triangle distance, in double ---- */

static double seg_tri(oracle_v3 p, oracle_v3 q, const oracle_tri *t)
{
    return sqrt(oracle_dist2_segment_triangle_direct(p, q, t));
}

/* Distance of two triangles that do not meet: the least of either one's edges against the other. */
static double tri_tri_apart(const oracle_tri *a, const oracle_tri *b)
{
    double best = INFINITY;
    for (int v = 0; v < 3; v++) {
        best = fmin(best, seg_tri(a->v[v], a->v[(v + 1) % 3], b));
        best = fmin(best, seg_tri(b->v[v], b->v[(v + 1) % 3], a));
    }
    return best;
}

typedef struct oshape {
    const mq_shape *q;
    oracle_hspace h; /* convex */
    bool has_h;
} oshape;

static double brute_shape_tri(const oshape *s, const oracle_tri *t)
{
    const mq_shape *q = s->q;
    switch (q->kind) {
    case MQ_SHAPE_SPHERE: {
        oracle_v3 c = oracle_v3_f(q->u.sphere.center);
        return fmax(sqrt(oracle_dist2_point_triangle(c, t, NULL, NULL)) - q->u.sphere.radius, 0.0);
    }
    case MQ_SHAPE_CAPSULE:
        return fmax(seg_tri(oracle_v3_f(q->u.capsule.a), oracle_v3_f(q->u.capsule.b), t) - q->u.capsule.radius, 0.0);
    case MQ_SHAPE_CONVEX: {
        double tri[9];
        for (int c = 0; c < 3; c++) {
            tri[3 * c] = t->v[c].x;
            tri[3 * c + 1] = t->v[c].y;
            tri[3 * c + 2] = t->v[c].z;
        }
        if (oracle_hspace_meets(&s->h, tri, NULL, 0.0))
            return 0.0;
        const float *v = mq_convex_vertices(q->u.convex);
        const uint32_t *f = mq_convex_faces(q->u.convex);
        double best = INFINITY;
        for (size_t j = 0; j < mq_convex_face_count(q->u.convex); j++) {
            oracle_tri ft;
            for (int c = 0; c < 3; c++)
                ft.v[c] = oracle_v3_f(v + 3 * f[3 * j + c]);
            best = fmin(best, tri_tri_apart(&ft, t));
        }
        return best;
    }
    default: {
        oracle_box b = q->kind == MQ_SHAPE_OBB ? oracle_box_from_obb(&q->u.obb) : oracle_box_from_aabb(&q->u.aabb);
        if (oracle_overlap_triangle_box(t, &b))
            return 0.0;
        double best = INFINITY;
        for (int v = 0; v < 3; v++) {
            best = fmin(best, oracle_dist2_point_box(t->v[v], &b, NULL));
            best = fmin(best, oracle_dist2_segment_box(t->v[v], t->v[(v + 1) % 3], &b, NULL));
        }
        oracle_v3 c[8];
        oracle_box_vertices(&b, c);
        for (int i = 0; i < 8; i++)
            for (int j = i + 1; j < 8; j++)
                if (__builtin_popcount((unsigned)(i ^ j)) == 1) {
                    double d = seg_tri(c[i], c[j], t);
                    best = fmin(best, d * d);
                }
        return sqrt(best);
    }
    }
}

/* Distance between two boxes (a lower bound of a shape-triangle distance). */
static double box_gap(const mq_aabb *a, const oracle_tri *t)
{
    double g2 = 0.0;
    double lo[3] = {fmin(t->v[0].x, fmin(t->v[1].x, t->v[2].x)), fmin(t->v[0].y, fmin(t->v[1].y, t->v[2].y)),
                    fmin(t->v[0].z, fmin(t->v[1].z, t->v[2].z))};
    double hi[3] = {fmax(t->v[0].x, fmax(t->v[1].x, t->v[2].x)), fmax(t->v[0].y, fmax(t->v[1].y, t->v[2].y)),
                    fmax(t->v[0].z, fmax(t->v[1].z, t->v[2].z))};
    for (int k = 0; k < 3; k++) {
        double g = fmax((double)a->min[k] - hi[k], lo[k] - (double)a->max[k]);
        if (g > 0.0)
            g2 += g * g;
    }
    return sqrt(g2);
}

typedef struct tally {
    size_t cases, pairs, failures;
} tally;

#define FAIL(ty, ...)                                                                                                  \
    do {                                                                                                               \
        if ((ty)->failures++ < 20)                                                                                     \
            fprintf(stderr, __VA_ARGS__);                                                                              \
    } while (0)

static int cmp_pair(const void *x, const void *y)
{
    const mq_clearance_pair *a = x, *b = y;
    return a->triangle_b < b->triangle_b ? -1 : a->triangle_b > b->triangle_b;
}

/* One shape: every tree's distance and clearance against the BVH's and the oracle's. */
static void check_shape(tally *ty, const trees *t, const mq_shape *q, mq_test_rng *rng, const char *mesh)
{
    oshape os = {q, {0}, false};
    mq_aabb sb;
    if (q->kind == MQ_SHAPE_CONVEX) {
        oracle_hspace_make(q->u.convex, NULL, NULL, &os.h); /* in the mesh's frame */
        os.has_h = true;
        assert_true(mq_convex_bounds(q->u.convex, &sb));
    } else {
        gen_shape_bounds(q, &sb);
    }
    const char *kind = q->kind == MQ_SHAPE_CONVEX ? "convex" : gen_shape_names[q->kind];
    double D = t->m.D, tol = 1e-6 * D;
    mq_shape_distance_result ref;
    bool found = mq_bvh_shape_distance(t->m.bvh, q, NULL, &ref);
    assert_true(found);
    /* the oracle's minimum over every triangle whose box may hold it */
    double expect = INFINITY;
    for (uint32_t i = 0; i < t->m.nt; i++)
        if (t->ok[i] && box_gap(&sb, &t->ot[i]) <= expect + tol)
            expect = fmin(expect, brute_shape_tri(&os, &t->ot[i]));
    ty->cases++;
    if (fabs(ref.distance - expect) > tol)
        FAIL(ty, "%s %s: BVH %.17g, oracle %.17g\n", mesh, kind, ref.distance, expect);
    for (int i = 0; i < TREES; i++) {
        mq_shape_distance_result r;
        memset(&r, 0xA5, sizeof r);
        if (!tree_distance(t, i, q, NULL, &r) || !r.found) {
            FAIL(ty, "%s %s %s: nothing found\n", mesh, tree_name(i), kind);
            continue;
        }
        if (r.distance != ref.distance)
            FAIL(ty, "%s %s %s: %.17g, BVH %.17g\n", mesh, tree_name(i), kind, r.distance, ref.distance);
        if (r.triangle >= t->m.nt || fabs(brute_shape_tri(&os, &t->ot[r.triangle]) - r.distance) > tol)
            FAIL(ty, "%s %s %s: triangle %u is not at the distance\n", mesh, tree_name(i), kind, r.triangle);
        if (r.triangle == ref.triangle && (memcmp(r.point_mesh, ref.point_mesh, sizeof r.point_mesh) != 0 ||
                                           memcmp(r.point_shape, ref.point_shape, sizeof r.point_shape) != 0))
            FAIL(ty, "%s %s %s: other points on the same triangle\n", mesh, tree_name(i), kind);
        /* max_distance: at the answer it is found, below it not */
        mq_distance_options o = mq_default_distance_options();
        o.max_distance = ref.distance;
        if (!tree_distance(t, i, q, &o, &r) || r.distance != ref.distance)
            FAIL(ty, "%s %s %s: not found at max_distance = the distance\n", mesh, tree_name(i), kind);
        if (ref.distance > 0.0) {
            o.max_distance = ref.distance * (1.0 - 1e-9);
            if (tree_distance(t, i, q, &o, &r) || r.found || r.triangle != MQ_NO_TRIANGLE)
                FAIL(ty, "%s %s %s: found below max_distance\n", mesh, tree_name(i), kind);
        }
        /* a tolerance: within it of the exact answer */
        o = mq_default_distance_options();
        o.abs_tolerance = 0.01 * D;
        o.rel_tolerance = 0.1;
        if (!tree_distance(t, i, q, &o, &r) || r.distance < ref.distance || r.distance > ref.distance * 1.1 + 0.011 * D)
            FAIL(ty, "%s %s %s: tolerance answer %.17g vs %.17g\n", mesh, tree_name(i), kind, r.distance, ref.distance);
    }
    /* clearance */
    double d = ref.distance + mq_test_rng_range(rng, 0.0, 0.05) * D;
    size_t n_ref = mq_bvh_shape_clearance_array(t->m.bvh, q, d, NULL, 0);
    mq_clearance_pair *want = malloc((n_ref + 1) * sizeof *want), *got = malloc((n_ref + 1) * sizeof *got);
    assert_non_null(want);
    assert_non_null(got);
    assert_int_equal(mq_bvh_shape_clearance_array(t->m.bvh, q, d, want, n_ref), n_ref);
    qsort(want, n_ref, sizeof *want, cmp_pair);
    ty->pairs += n_ref;
    for (int i = 0; i < TREES; i++) {
        size_t n = tree_clearance(t, i, q, d, got, n_ref + 1);
        if (n != n_ref) {
            FAIL(ty, "%s %s %s: clearance %zu pairs, BVH %zu\n", mesh, tree_name(i), kind, n, n_ref);
            continue;
        }
        qsort(got, n, sizeof *got, cmp_pair);
        for (size_t k = 0; k < n; k++)
            if (got[k].triangle_b != want[k].triangle_b || got[k].triangle_a != MQ_NO_TRIANGLE ||
                got[k].distance != want[k].distance) {
                FAIL(ty, "%s %s %s: clearance pair %zu differs\n", mesh, tree_name(i), kind, k);
                break;
            }
        if (tree_clearance_any(t, i, q, d) != (n_ref > 0))
            FAIL(ty, "%s %s %s: clearance_any\n", mesh, tree_name(i), kind);
    }
    free(want);
    free(got);
    if (os.has_h)
        oracle_hspace_free(&os.h);
}

static void random_hull_shape(mq_test_rng *rng, const trees *t, mq_shape *q, mq_convex **cv)
{
    float c[3];
    if (mq_test_rng_unit(rng) < 0.5) {
        mq_triangle tri;
        mq_mesh_get_triangle(t->m.mesh, (uint32_t)(mq_test_rng_u64(rng) % t->m.nt), &tri);
        memcpy(c, tri.v[0], sizeof c);
    } else {
        mq_aabb g = t->m.box;
        for (int k = 0; k < 3; k++) {
            float w = 0.3f * (g.max[k] - g.min[k]);
            g.min[k] -= w;
            g.max[k] += w;
        }
        gen_point_in(rng, &g, c);
    }
    *cv = gen_random_hull(rng, c, mq_test_rng_range(rng, 0.02, 0.15) * t->m.D);
    q->kind = MQ_SHAPE_CONVEX;
    q->u.convex = *cv;
}

static void distances_on(const char *name, size_t per_kind)
{
    trees t;
    trees_load(&t, name);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x7DEE5D15) ^ (uint64_t)strlen(name));
    gen_tri_boxes tb = gen_tri_boxes_make(t.m.mesh);
    tally ty = {0};
    for (int kind = 0; kind < GEN_SHAPE_KINDS; kind++)
        for (size_t i = 0; i < per_kind; i++) {
            mq_shape q;
            if (i % 4 == 3) {
                gen_shape_touching(&rng, (mq_shape_kind)kind, &tb, 0.0, &q);
            } else {
                mq_aabb grown = t.m.box;
                float spread = (float)((i % 3) * 0.5 * t.m.D);
                for (int k = 0; k < 3; k++) {
                    grown.min[k] -= spread;
                    grown.max[k] += spread;
                }
                gen_shape_random(&rng, (mq_shape_kind)kind, &grown, t.m.D, &q);
            }
            check_shape(&ty, &t, &q, &rng, name);
        }
    for (size_t i = 0; i < per_kind / 2 + 1; i++) {
        mq_shape q;
        mq_convex *cv;
        random_hull_shape(&rng, &t, &q, &cv);
        check_shape(&ty, &t, &q, &rng, name);
        mq_convex_destroy(cv);
    }
    fprintf(stderr, "  %s: %zu shapes, %zu clearance pairs, %zu failures\n", name, ty.cases, ty.pairs, ty.failures);
    gen_tri_boxes_free(&tb);
    trees_free(&t);
    assert_true(ty.cases > 0);
    assert_int_equal(ty.failures, 0);
}

static void distances_suzanne(void **state)
{
    (void)state;
    distances_on("suzanne.obj", (size_t)(60 * TS_SCALE) + 4);
}

static void distances_spot(void **state)
{
    (void)state;
    distances_on("spot.obj", (size_t)(30 * TS_SCALE) + 4);
}

static void distances_fandisk(void **state)
{
    (void)state;
    distances_on("fandisk.obj", (size_t)(20 * TS_SCALE) + 4);
}

/* ---- casts ---- */

static bool same_hit(const mq_cast_hit *a, const mq_cast_hit *b)
{
    /* bit for bit, NaN points of a miss included */
    return memcmp(&a->t, &b->t, sizeof a->t) == 0 && a->triangle == b->triangle &&
           memcmp(a->point, b->point, sizeof a->point) == 0 && memcmp(a->normal, b->normal, sizeof a->normal) == 0 &&
           a->initially_overlapping == b->initially_overlapping;
}

static bool tree_cast(const trees *t, int i, int kind, const void *shape, const vec3 dir, float tmax, mq_cast_hit *out)
{
    if (i < KDOP_VARIANTS) {
        const mq_kdoptree *k = t->kdop[i];
        return kind == 0   ? mq_kdoptree_sphere_cast(k, shape, dir, tmax, out)
               : kind == 1 ? mq_kdoptree_capsule_cast(k, shape, dir, tmax, out)
                           : mq_kdoptree_convex_cast(k, shape, dir, tmax, out);
    }
    const mq_spheretree *s = t->sph[i - KDOP_VARIANTS];
    return kind == 0   ? mq_spheretree_sphere_cast(s, shape, dir, tmax, out)
           : kind == 1 ? mq_spheretree_capsule_cast(s, shape, dir, tmax, out)
                       : mq_spheretree_convex_cast(s, shape, dir, tmax, out);
}

/* No triangle within the round shape's radius (less the casts' tolerance)
 * at time t: brute force over every triangle, in double. */
static bool nothing_nearer(const trees *t, oracle_v3 a, oracle_v3 b, double r, uint32_t *culprit)
{
    double lo = r * (1.0 - 1e-5) - 1e-5 * t->S;
    for (uint32_t i = 0; i < t->m.nt; i++)
        if (t->ok[i] && seg_tri(a, b, &t->ot[i]) < lo) {
            *culprit = i;
            return false;
        }
    return true;
}

static void casts_on(const char *name, size_t count)
{
    trees t;
    trees_load(&t, name);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xCA575EE5) ^ (uint64_t)strlen(name));
    tally ty = {0};
    size_t hits = 0;
    double D = t.m.D;
    for (size_t i = 0; i < count; i++) {
        int kind = (int)(i % 3);
        mq_aabb g = t.m.box;
        for (int k = 0; k < 3; k++) {
            float w = 0.3f * (g.max[k] - g.min[k]);
            g.min[k] -= w;
            g.max[k] += w;
        }
        float c[3], e[3], dir[3];
        gen_point_in(&rng, &g, c);
        double u[3];
        mq_test_rng_unit_vector(&rng, u);
        float len = (float)(mq_test_rng_range(&rng, 0.0, 0.1) * D);
        for (int k = 0; k < 3; k++)
            e[k] = (float)(u[k] * len);
        if (i % 2 == 0) { /* aimed at a vertex */
            mq_triangle tri;
            mq_mesh_get_triangle(t.m.mesh, (uint32_t)(mq_test_rng_u64(&rng) % t.m.nt), &tri);
            for (int k = 0; k < 3; k++)
                dir[k] = tri.v[0][k] - c[k];
        } else {
            mq_test_rng_unit_vector(&rng, u);
            for (int k = 0; k < 3; k++)
                dir[k] = (float)(u[k] * D);
        }
        if (i % 17 == 5)
            dir[0] = dir[1] = dir[2] = 0.0f;
        float tmax = i % 5 == 0 ? INFINITY : (float)mq_test_rng_range(&rng, 0.2, 1.5);
        float r = i % 13 == 7 ? 0.0f : (float)(oracle_log_uniform(&rng, 0.002, 0.05) * D);
        mq_sphere sphere = {{c[0], c[1], c[2]}, r};
        mq_capsule cap = {{c[0] - e[0], c[1] - e[1], c[2] - e[2]}, {c[0] + e[0], c[1] + e[1], c[2] + e[2]}, r};
        mq_convex *cv = NULL;
        const void *shape = kind == 0 ? (const void *)&sphere : (const void *)&cap;
        mq_cast_hit ref;
        bool hit;
        if (kind == 2) {
            cv = gen_random_hull(&rng, c, mq_test_rng_range(&rng, 0.02, 0.1) * D);
            shape = cv;
            hit = mq_bvh_convex_cast(t.m.bvh, cv, dir, tmax, &ref);
        } else {
            hit = kind == 0 ? mq_bvh_sphere_cast(t.m.bvh, &sphere, dir, tmax, &ref)
                            : mq_bvh_capsule_cast(t.m.bvh, &cap, dir, tmax, &ref);
        }
        hits += hit;
        ty.cases++;
        for (int j = 0; j < TREES; j++) {
            mq_cast_hit h;
            memset(&h, 0x5A, sizeof h);
            bool got = tree_cast(&t, j, kind, shape, dir, tmax, &h);
            if (got != hit || !same_hit(&h, &ref))
                FAIL(&ty, "%s %s cast %zu (kind %d): t %.9g tri %u, BVH t %.9g tri %u\n", name, tree_name(j), i, kind,
                     h.t, h.triangle, ref.t, ref.triangle);
        }
        /* brute force over every triangle */
        if (kind == 2) {
            uint32_t best_id = MQ_NO_TRIANGLE;
            float best = INFINITY;
            for (uint32_t k = 0; k < t.m.nt; k++) {
                mq_triangle tri;
                float th;
                mq_mesh_get_triangle(t.m.mesh, k, &tri);
                if (mq_convex_cast_triangle(cv, dir, tmax, &tri, &th) && th < best) {
                    best = th;
                    best_id = k;
                }
            }
            if (best_id != ref.triangle || (hit && best != ref.t))
                FAIL(&ty, "%s convex cast %zu: brute t %.9g tri %u, trees t %.9g tri %u\n", name, i, best, best_id,
                     ref.t, ref.triangle);
            mq_convex_destroy(cv);
        } else {
            double tb = hit ? 0.999 * ref.t : (isfinite(tmax) ? tmax : 0.0);
            oracle_v3 a = oracle_v3_make(c[0] + tb * dir[0], c[1] + tb * dir[1], c[2] + tb * dir[2]), b = a;
            if (kind == 1) {
                a = oracle_v3_make(cap.a[0] + tb * dir[0], cap.a[1] + tb * dir[1], cap.a[2] + tb * dir[2]);
                b = oracle_v3_make(cap.b[0] + tb * dir[0], cap.b[1] + tb * dir[1], cap.b[2] + tb * dir[2]);
            }
            uint32_t culprit = 0;
            if ((!hit || ref.t > 0.0f) && !nothing_nearer(&t, a, b, r, &culprit))
                FAIL(&ty, "%s cast %zu (kind %d): triangle %u meets the shape at t = %.9g before the hit\n", name, i,
                     kind, culprit, tb);
            if (hit) {
                oracle_v3 ah = oracle_v3_make(c[0] + (double)ref.t * dir[0], c[1] + (double)ref.t * dir[1],
                                              c[2] + (double)ref.t * dir[2]),
                          bh = ah;
                if (kind == 1) {
                    ah = oracle_v3_make(cap.a[0] + (double)ref.t * dir[0], cap.a[1] + (double)ref.t * dir[1],
                                        cap.a[2] + (double)ref.t * dir[2]);
                    bh = oracle_v3_make(cap.b[0] + (double)ref.t * dir[0], cap.b[1] + (double)ref.t * dir[1],
                                        cap.b[2] + (double)ref.t * dir[2]);
                }
                double dh = seg_tri(ah, bh, &t.ot[ref.triangle]);
                if (dh > r * (1.0 + 1e-5) + 1e-5 * t.S)
                    FAIL(&ty, "%s cast %zu (kind %d): triangle %u at %.9g from the shape at the hit, r %.9g\n", name, i,
                         kind, ref.triangle, dh, r);
            }
        }
    }
    fprintf(stderr, "  %s: %zu casts, %zu hits, %zu failures\n", name, ty.cases, hits, ty.failures);
    trees_free(&t);
    assert_true(hits > 0);
    assert_int_equal(ty.failures, 0);
}

static void casts_suzanne(void **state)
{
    (void)state;
    casts_on("suzanne.obj", (size_t)(300 * TS_SCALE) + 12);
}

static void casts_cow(void **state)
{
    (void)state;
    casts_on("cow.obj", (size_t)(150 * TS_SCALE) + 12);
}

/* ---- bad and degenerate input ---- */

static void bad_input(void **state)
{
    (void)state;
    trees t;
    trees_load(&t, "suzanne.obj");
    mq_shape q;
    q.kind = MQ_SHAPE_SPHERE;
    q.u.sphere = (mq_sphere){{0, 0, 0}, 0.1f};
    mq_shape_distance_result r;
    mq_distance_options nan_opts = mq_default_distance_options(), neg = mq_default_distance_options();
    nan_opts.max_distance = NAN;
    neg.abs_tolerance = -1.0;
    mq_shape bad = q;
    bad.u.sphere.center[1] = NAN;
    mq_shape unknown = q;
    unknown.kind = (mq_shape_kind)77;
    for (int i = 0; i < TREES; i++) {
        assert_true(tree_distance(&t, i, &q, NULL, &r));
        assert_false(tree_distance(&t, i, NULL, NULL, &r));
        assert_int_equal(r.triangle, MQ_NO_TRIANGLE);
        assert_false(r.found);
        assert_false(tree_distance(&t, i, &bad, NULL, &r));
        assert_false(tree_distance(&t, i, &unknown, NULL, &r));
        assert_false(tree_distance(&t, i, &q, &nan_opts, &r));
        assert_false(tree_distance(&t, i, &q, &neg, &r));
        assert_int_equal(tree_clearance(&t, i, &q, NAN, NULL, 0), 0);
        assert_int_equal(tree_clearance(&t, i, &q, -1.0, NULL, 0), 0);
        assert_int_equal(tree_clearance(&t, i, &bad, 1.0, NULL, 0), 0);
        assert_false(tree_clearance_any(&t, i, &bad, INFINITY));
        assert_true(tree_clearance_any(&t, i, &q, INFINITY));
        assert_int_equal(tree_clearance(&t, i, &q, INFINITY, NULL, 0), t.m.nt);
        mq_cast_hit h;
        vec3 dir = {1, 0, 0}, nan_dir = {NAN, 0, 0}, inf_dir = {INFINITY, 0, 0};
        /* a ball of a quarter of the mesh's size, one size left of it, moving through its centre */
        float cy = 0.5f * (t.m.box.min[1] + t.m.box.max[1]), cz = 0.5f * (t.m.box.min[2] + t.m.box.max[2]);
        float x0 = t.m.box.min[0] - (float)t.m.D, r0 = (float)(0.25 * t.m.D);
        mq_sphere s = {{x0, cy, cz}, r0}, nan_s = {{NAN, 0, 0}, 0.1f}, neg_r = {{0, 0, 0}, -1.0f};
        mq_capsule c = {{x0, cy, cz}, {x0, cy + r0, cz}, r0};
        assert_true(tree_cast(&t, i, 0, &s, dir, INFINITY, &h));
        assert_true(h.t > 0.0f && h.triangle < t.m.nt);
        assert_true(tree_cast(&t, i, 1, &c, dir, INFINITY, &h));
        assert_false(tree_cast(&t, i, 0, &s, nan_dir, INFINITY, &h));
        assert_int_equal(h.triangle, MQ_NO_TRIANGLE);
        assert_true(isinf(h.t));
        assert_false(tree_cast(&t, i, 0, &s, inf_dir, INFINITY, &h));
        assert_false(tree_cast(&t, i, 0, &nan_s, dir, INFINITY, &h));
        assert_false(tree_cast(&t, i, 0, &neg_r, dir, INFINITY, &h));
        assert_false(tree_cast(&t, i, 0, &s, dir, NAN, &h));
        assert_false(tree_cast(&t, i, 0, &s, dir, -1.0f, &h));
        assert_false(tree_cast(&t, i, 0, NULL, dir, 1.0f, &h));
        assert_false(tree_cast(&t, i, 1, NULL, dir, 1.0f, &h));
        assert_false(tree_cast(&t, i, 2, NULL, dir, 1.0f, &h));
        assert_false(tree_cast(&t, i, 0, &s, NULL, 1.0f, NULL));
        assert_false(tree_cast(&t, i, 0, &s, dir, 0.5f * (float)t.m.D, NULL)); /* stops short of the mesh */
    }
    /* NULL trees */
    vec3 dir = {1, 0, 0};
    mq_sphere s = {{0, 0, 0}, 1.0f};
    assert_false(mq_kdoptree_shape_distance(NULL, &q, NULL, &r));
    assert_false(mq_spheretree_shape_distance(NULL, &q, NULL, &r));
    assert_int_equal(mq_kdoptree_shape_clearance_array(NULL, &q, 1.0, NULL, 0), 0);
    assert_int_equal(mq_spheretree_shape_clearance_array(NULL, &q, 1.0, NULL, 0), 0);
    assert_false(mq_kdoptree_shape_clearance_any(NULL, &q, 1.0));
    assert_false(mq_spheretree_shape_clearance_any(NULL, &q, 1.0));
    assert_int_equal(mq_kdoptree_shape_clearance(t.kdop[0], &q, 1.0, NULL, NULL), 0);
    assert_int_equal(mq_spheretree_shape_clearance(t.sph[0], &q, 1.0, NULL, NULL), 0);
    assert_false(mq_kdoptree_sphere_cast(NULL, &s, dir, 1.0f, NULL));
    assert_false(mq_spheretree_sphere_cast(NULL, &s, dir, 1.0f, NULL));
    trees_free(&t);

    /* an empty tree: a mesh whose triangles all have a non-finite corner */
    float v[9] = {0, 0, 0, 1, 0, 0, NAN, 1, 0};
    uint32_t idx[3] = {0, 1, 2};
    mq_mesh *m = NULL;
    assert_int_equal(mq_mesh_create(v, 3, idx, 1, NULL, &m, NULL), MQ_OK);
    mq_kdoptree *k = NULL;
    mq_spheretree *sp = NULL;
    assert_int_equal(mq_kdoptree_build(m, NULL, &k, NULL), MQ_OK);
    assert_int_equal(mq_spheretree_build(m, NULL, &sp, NULL), MQ_OK);
    assert_false(mq_kdoptree_shape_distance(k, &q, NULL, &r));
    assert_false(mq_spheretree_shape_distance(sp, &q, NULL, &r));
    assert_false(mq_kdoptree_shape_clearance_any(k, &q, INFINITY));
    assert_false(mq_spheretree_shape_clearance_any(sp, &q, INFINITY));
    assert_false(mq_kdoptree_sphere_cast(k, &s, dir, INFINITY, NULL));
    assert_false(mq_spheretree_sphere_cast(sp, &s, dir, INFINITY, NULL));
    mq_kdoptree_destroy(k);
    mq_spheretree_destroy(sp);
    mq_mesh_destroy(m);
}

/* ---- the queries allocate nothing ---- */

static size_t g_allocs;

static void *count_alloc(size_t size, size_t align, void *user)
{
    (void)user;
    g_allocs++;
    void *p = NULL;
    if (align < sizeof(void *))
        align = sizeof(void *);
    return posix_memalign(&p, align, size) == 0 ? p : NULL;
}

static void count_free(void *ptr, size_t size, void *user)
{
    (void)size;
    (void)user;
    free(ptr);
}

static bool count_pair(const mq_clearance_pair *p, void *user)
{
    (void)p;
    ++*(size_t *)user;
    return true;
}

static void queries_allocate_nothing(void **state)
{
    (void)state;
    const mq_allocator alloc = {count_alloc, count_free, NULL};
    mq_mesh *mesh = mq_test_load_mesh("suzanne.obj");
    mq_kdoptree_def kd = mq_default_kdoptree_def();
    kd.allocator = &alloc;
    mq_spheretree_def sd = mq_default_spheretree_def();
    sd.allocator = &alloc;
    mq_kdoptree *k = NULL;
    mq_spheretree *sp = NULL;
    assert_int_equal(mq_kdoptree_build(mesh, &kd, &k, NULL), MQ_OK);
    assert_int_equal(mq_spheretree_build(mesh, &sd, &sp, NULL), MQ_OK);
    size_t built = g_allocs;
    assert_true(built > 0);
    float pts[12] = {0, 0, 0, 0.3f, 0, 0, 0, 0.3f, 0, 0, 0, 0.3f};
    mq_convex *cv = NULL;
    assert_int_equal(mq_convex_create(pts, 4, NULL, &cv, NULL), MQ_OK);
    mq_shape shapes[2];
    shapes[0].kind = MQ_SHAPE_CAPSULE;
    shapes[0].u.capsule = (mq_capsule){{-1, 0, 0}, {1, 0, 0}, 0.2f};
    shapes[1] = mq_shape_convex(cv);
    vec3 dir = {0, 0, 1};
    size_t pairs = 0;
    for (int i = 0; i < 2; i++) {
        mq_shape_distance_result r;
        assert_true(mq_kdoptree_shape_distance(k, &shapes[i], NULL, &r));
        assert_true(mq_spheretree_shape_distance(sp, &shapes[i], NULL, &r));
        pairs += mq_kdoptree_shape_clearance(k, &shapes[i], INFINITY, count_pair, &pairs);
        pairs += mq_spheretree_shape_clearance(sp, &shapes[i], INFINITY, count_pair, &pairs);
        (void)mq_kdoptree_shape_clearance_any(k, &shapes[i], 0.5);
        (void)mq_spheretree_shape_clearance_any(sp, &shapes[i], 0.5);
    }
    mq_cast_hit h;
    (void)mq_kdoptree_capsule_cast(k, &shapes[0].u.capsule, dir, INFINITY, &h);
    (void)mq_spheretree_capsule_cast(sp, &shapes[0].u.capsule, dir, INFINITY, &h);
    (void)mq_kdoptree_convex_cast(k, cv, dir, INFINITY, &h);
    (void)mq_spheretree_convex_cast(sp, cv, dir, INFINITY, &h);
    mq_sphere s = {{0, 0, -2}, 0.1f};
    (void)mq_kdoptree_sphere_cast(k, &s, dir, INFINITY, &h);
    (void)mq_spheretree_sphere_cast(sp, &s, dir, INFINITY, &h);
    assert_true(pairs > 0);
    assert_int_equal(g_allocs, built);
    mq_convex_destroy(cv);
    mq_kdoptree_destroy(k);
    mq_spheretree_destroy(sp);
    mq_mesh_destroy(mesh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(distances_suzanne),
        cmocka_unit_test(distances_spot),
        cmocka_unit_test(distances_fandisk),
        cmocka_unit_test(casts_suzanne),
        cmocka_unit_test(casts_cow),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(queries_allocate_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
