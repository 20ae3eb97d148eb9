/*
 * The batches of meshquery/batch.h against the single calls they batch, and
 * the overlap counts against brute force (gen_brute: every triangle the
 * primitive test says overlaps). Each batch runs on 1, 2 and all threads and
 * must give, entry for entry and bit for bit, the single call's answer on
 * the BVH and on the OBB tree. Meshes: suzanne (open) and spot (closed, for
 * the solids). MQ_TEST_SEED changes the inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>

#include "gen_shapes.h"
#include "test_support.h"

#define N 1500

static const uint32_t thread_counts[] = {1, 2, 0};
#define THREAD_RUNS (sizeof thread_counts / sizeof thread_counts[0])

typedef struct fixture {
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_obbtree *tree;
    mq_aabb box; /* the mesh's bounds grown by 20% */
    double D;
} fixture;

static void fixture_make(fixture *f, const char *name)
{
    f->mesh = mq_test_load_mesh(name);
    mq_diag diag;
    assert_int_equal(mq_bvh_build(f->mesh, NULL, &f->bvh, &diag), MQ_OK);
    assert_int_equal(mq_obbtree_build(f->mesh, NULL, &f->tree, &diag), MQ_OK);
    f->D = gen_bounds(f->mesh, &f->box);
    for (int k = 0; k < 3; k++) {
        float g = 0.2f * (f->box.max[k] - f->box.min[k]);
        f->box.min[k] -= g;
        f->box.max[k] += g;
    }
}

static void fixture_free(fixture *f)
{
    mq_obbtree_destroy(f->tree);
    mq_bvh_destroy(f->bvh);
    mq_mesh_destroy(f->mesh);
}

static float *random_points(mq_test_rng *r, const fixture *f, size_t n)
{
    float *p = malloc(3 * n * sizeof *p);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        gen_point_in(r, &f->box, p + 3 * i);
    /* a non-finite point: every call's "no answer" */
    p[3 * 7] = NAN;
    return p;
}

static void miss_record(mq_point_hit *h)
{
    memset(h, 0, sizeof *h);
    h->distance = INFINITY;
    h->triangle = MQ_NO_TRIANGLE;
}

static void check_points(const fixture *f, const float *pts, size_t n, bool solid)
{
    mq_point_hit *want = calloc(n, sizeof *want), *got = calloc(n, sizeof *got);
    bool *wfound = calloc(n, 1), *gfound = calloc(n, 1);
    int32_t *wwind = calloc(n, sizeof *wwind), *gwind = calloc(n, sizeof *gwind);
    float *wdist = calloc(n, sizeof *wdist), *gdist = calloc(n, sizeof *gdist);
    assert_true(want && got && wfound && gfound && wwind && gwind && wdist && gdist);
    float maxd = (float)(0.05 * f->D);
    for (int h = 0; h < 2; h++) { /* 0: BVH, 1: OBB tree */
        size_t nfound = 0, ninside = 0, nsigned = 0;
        for (size_t i = 0; i < n; i++) {
            const float *p = pts + 3 * i;
            miss_record(&want[i]);
            wfound[i] = h ? mq_obbtree_closest_point(f->tree, p, maxd, &want[i])
                          : mq_bvh_closest_point(f->bvh, p, maxd, &want[i]);
            if (!wfound[i])
                miss_record(&want[i]);
            nfound += wfound[i];
        }
        for (size_t t = 0; t < THREAD_RUNS; t++) {
            memset(got, 0xAB, n * sizeof *got);
            size_t c = h ? mq_obbtree_closest_point_batch(f->tree, pts, n, maxd, thread_counts[t], got, gfound)
                         : mq_bvh_closest_point_batch(f->bvh, pts, n, maxd, thread_counts[t], got, gfound);
            assert_int_equal(c, nfound);
            assert_memory_equal(got, want, n * sizeof *got);
            assert_memory_equal(gfound, wfound, n);
        }
        if (!solid)
            continue;
        for (size_t i = 0; i < n; i++) {
            const float *p = pts + 3 * i;
            wwind[i] = h ? mq_obbtree_winding_number(f->tree, p) : mq_bvh_winding_number(f->bvh, p);
            ninside += wwind[i] != 0;
            miss_record(&want[i]);
            wdist[i] = NAN;
            bool ok = h ? mq_obbtree_signed_distance(f->tree, p, &wdist[i], &want[i])
                        : mq_bvh_signed_distance(f->bvh, p, &wdist[i], &want[i]);
            if (!ok) {
                wdist[i] = NAN;
                miss_record(&want[i]);
            }
            nsigned += ok;
        }
        assert_true(ninside > 0 && ninside < n);
        for (size_t t = 0; t < THREAD_RUNS; t++) {
            uint32_t th = thread_counts[t];
            size_t c = h ? mq_obbtree_winding_number_batch(f->tree, pts, n, th, gwind)
                         : mq_bvh_winding_number_batch(f->bvh, pts, n, th, gwind);
            assert_int_equal(c, ninside);
            assert_memory_equal(gwind, wwind, n * sizeof *gwind);
            c = h ? mq_obbtree_inside_batch(f->tree, pts, n, th, gfound)
                  : mq_bvh_inside_batch(f->bvh, pts, n, th, gfound);
            assert_int_equal(c, ninside);
            for (size_t i = 0; i < n; i++)
                assert_int_equal(gfound[i], wwind[i] != 0);
            c = h ? mq_obbtree_signed_distance_batch(f->tree, pts, n, th, gdist, got)
                  : mq_bvh_signed_distance_batch(f->bvh, pts, n, th, gdist, got);
            assert_int_equal(c, nsigned);
            assert_memory_equal(got, want, n * sizeof *got);
            for (size_t i = 0; i < n; i++) {
                if (isnan(wdist[i]))
                    assert_true(isnan(gdist[i]));
                else
                    assert_memory_equal(&gdist[i], &wdist[i], sizeof(float));
            }
        }
    }
    free(want), free(got), free(wfound), free(gfound), free(wwind), free(gwind), free(wdist), free(gdist);
}

static void check_shapes(const fixture *f, mq_test_rng *r, size_t n)
{
    mq_shape *shapes = malloc(n * sizeof *shapes);
    uint64_t *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    bool *wany = malloc(n), *gany = malloc(n);
    gen_tri_boxes tb = gen_tri_boxes_make(f->mesh);
    uint32_t *ids = malloc(tb.count * sizeof *ids);
    assert_true(shapes && want && got && wany && gany && ids);
    for (size_t i = 0; i < n; i++)
        gen_shape_random(r, (mq_shape_kind)(i % GEN_SHAPE_KINDS), &f->box, f->D, &shapes[i]);
    shapes[3].u.sphere.radius = -1.0f; /* invalid: counts 0 */
    uint64_t sum = 0, nany = 0;
    for (size_t i = 0; i < n; i++) {
        want[i] = i == 3 ? 0 : gen_brute(&tb, &shapes[i], -1.0f, ids);
        wany[i] = want[i] > 0;
        sum += want[i];
        nany += wany[i];
    }
    assert_true(nany > 0);
    for (size_t t = 0; t < THREAD_RUNS; t++) {
        for (int h = 0; h < 2; h++) {
            uint64_t s = h ? mq_obbtree_overlap_count_batch(f->tree, shapes, n, thread_counts[t], got)
                           : mq_bvh_overlap_count_batch(f->bvh, shapes, n, thread_counts[t], got);
            assert_int_equal(s, sum);
            assert_memory_equal(got, want, n * sizeof *got);
            size_t a = h ? mq_obbtree_overlap_any_batch(f->tree, shapes, n, thread_counts[t], gany)
                         : mq_bvh_overlap_any_batch(f->bvh, shapes, n, thread_counts[t], gany);
            assert_int_equal(a, nany);
            assert_memory_equal(gany, wany, n);
        }
    }
    assert_int_equal(mq_bvh_overlap_count_batch(f->bvh, shapes, n, 0, NULL), sum);
    gen_tri_boxes_free(&tb);
    free(shapes), free(want), free(got), free(wany), free(gany), free(ids);
}

static void check_casts(const fixture *f, mq_test_rng *r, size_t n)
{
    mq_sphere *sph = malloc(n * sizeof *sph);
    mq_capsule *cap = malloc(n * sizeof *cap);
    float *dirs = malloc(3 * n * sizeof *dirs);
    mq_cast_hit *want = calloc(n, sizeof *want), *got = calloc(n, sizeof *got);
    assert_true(sph && cap && dirs && want && got);
    for (size_t i = 0; i < n; i++) {
        gen_random_sphere(r, &f->box, f->D, &sph[i]);
        gen_random_capsule(r, &f->box, f->D, &cap[i]);
        double u[3];
        mq_test_rng_unit_vector(r, u);
        for (int k = 0; k < 3; k++)
            dirs[3 * i + k] = (float)(u[k] * f->D * 0.3);
    }
    float tmax = 1.0f;
    for (int kind = 0; kind < 4; kind++) { /* sphere/capsule x BVH/OBB tree */
        size_t hits = 0;
        memset(want, 0, n * sizeof *want);
        for (size_t i = 0; i < n; i++) {
            const float *d = dirs + 3 * i;
            switch (kind) {
            case 0:
                hits += mq_bvh_sphere_cast(f->bvh, &sph[i], d, tmax, &want[i]);
                break;
            case 1:
                hits += mq_obbtree_sphere_cast(f->tree, &sph[i], d, tmax, &want[i]);
                break;
            case 2:
                hits += mq_bvh_capsule_cast(f->bvh, &cap[i], d, tmax, &want[i]);
                break;
            default:
                hits += mq_obbtree_capsule_cast(f->tree, &cap[i], d, tmax, &want[i]);
                break;
            }
        }
        assert_true(hits > 0);
        for (size_t t = 0; t < THREAD_RUNS; t++) {
            memset(got, 0, n * sizeof *got);
            uint32_t th = thread_counts[t];
            size_t c;
            switch (kind) {
            case 0:
                c = mq_bvh_sphere_cast_batch(f->bvh, sph, dirs, n, tmax, th, got);
                break;
            case 1:
                c = mq_obbtree_sphere_cast_batch(f->tree, sph, dirs, n, tmax, th, got);
                break;
            case 2:
                c = mq_bvh_capsule_cast_batch(f->bvh, cap, dirs, n, tmax, th, got);
                break;
            default:
                c = mq_obbtree_capsule_cast_batch(f->tree, cap, dirs, n, tmax, th, got);
                break;
            }
            assert_int_equal(c, hits);
            for (size_t i = 0; i < n; i++) {
                assert_memory_equal(&got[i].t, &want[i].t, sizeof(float));
                assert_int_equal(got[i].triangle, want[i].triangle);
                assert_memory_equal(got[i].point, want[i].point, sizeof(vec3));
                assert_memory_equal(got[i].normal, want[i].normal, sizeof(vec3));
                assert_int_equal(got[i].initially_overlapping, want[i].initially_overlapping);
            }
        }
    }
    free(sph), free(cap), free(dirs), free(want), free(got);
}

static bool hit_equal(const mq_hit *a, const mq_hit *b)
{
    return memcmp(&a->t, &b->t, sizeof a->t) == 0 && a->triangle == b->triangle &&
           memcmp(a->point, b->point, sizeof(vec3)) == 0 && memcmp(&a->u, &b->u, sizeof a->u) == 0 &&
           memcmp(&a->v, &b->v, sizeof a->v) == 0 && a->face == b->face && a->back_face == b->back_face;
}

static void check_rays(const fixture *f, mq_test_rng *r, size_t n)
{
    mq_ray *rays = malloc(n * sizeof *rays);
    mq_hit *want = calloc(n, sizeof *want), *got = calloc(n, sizeof *got);
    bool *wocc = malloc(n), *gocc = malloc(n);
    uint32_t *counts = malloc(n * sizeof *counts);
    uint64_t *offsets = malloc((n + 1) * sizeof *offsets);
    assert_true(rays && want && got && wocc && gocc && counts && offsets);
    for (size_t i = 0; i < n; i++) {
        vec3 a, b;
        gen_point_in(r, &f->box, a);
        gen_point_in(r, &f->box, b);
        rays[i] = (mq_ray){{a[0], a[1], a[2]}, 0.0f, {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, INFINITY};
    }
    mq_ray_query q = mq_default_ray_query();
    size_t nhit = 0, nocc = 0;
    for (size_t i = 0; i < n; i++) {
        nhit += mq_obbtree_raycast_closest(f->tree, &rays[i], &q, &want[i]);
        wocc[i] = mq_obbtree_raycast_any(f->tree, &rays[i], &q);
        nocc += wocc[i];
    }
    assert_true(nhit > 0);
    for (size_t t = 0; t < THREAD_RUNS; t++) {
        uint32_t th = thread_counts[t];
        assert_int_equal(mq_obbtree_raycast_closest_batch(f->tree, rays, n, &q, th, got), nhit);
        for (size_t i = 0; i < n; i++)
            assert_true(hit_equal(&got[i], &want[i]));
        assert_int_equal(mq_obbtree_raycast_any_batch(f->tree, rays, n, NULL, th, gocc), nocc);
        assert_memory_equal(gocc, wocc, n);
    }
    /* every hit: counts, offsets, hits, against mq_bvh_raycast_all ray by ray */
    uint64_t total = mq_bvh_raycast_all_count_batch(f->bvh, rays, n, &q, 2, counts);
    offsets[0] = 0;
    for (size_t i = 0; i < n; i++)
        offsets[i + 1] = offsets[i] + counts[i];
    assert_int_equal(offsets[n], total);
    assert_true(total > nhit);
    mq_hit *all = calloc(total, sizeof *all), *one = calloc(total, sizeof *one);
    assert_true(all && one);
    for (size_t t = 0; t < THREAD_RUNS; t++) {
        assert_int_equal(mq_bvh_raycast_all_count_batch(f->bvh, rays, n, &q, thread_counts[t], NULL), total);
        memset(all, 0, total * sizeof *all);
        assert_int_equal(mq_bvh_raycast_all_batch(f->bvh, rays, n, &q, thread_counts[t], offsets, all), total);
        for (size_t i = 0; i < n; i++) {
            size_t k = mq_bvh_raycast_all(f->bvh, &rays[i], &q, one, counts[i]);
            assert_int_equal(k, counts[i]);
            for (size_t h = 0; h < k; h++)
                assert_true(hit_equal(&all[offsets[i] + h], &one[h]));
        }
    }
    free(all), free(one);
    free(rays), free(want), free(got), free(wocc), free(gocc), free(counts), free(offsets);
}

static void test_batches_open_mesh(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, "suzanne.obj");
    mq_test_rng r;
    mq_test_rng_seed(&r, mq_test_seed(26));
    float *pts = random_points(&r, &f, N);
    check_points(&f, pts, N, false);
    check_shapes(&f, &r, N);
    check_casts(&f, &r, 300);
    check_rays(&f, &r, N);
    free(pts);
    fixture_free(&f);
}

static void test_batches_closed_mesh(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, "spot.obj");
    mq_test_rng r;
    mq_test_rng_seed(&r, mq_test_seed(2026));
    float *pts = random_points(&r, &f, N);
    check_points(&f, pts, N, true);
    check_rays(&f, &r, 500);
    free(pts);
    fixture_free(&f);
}

static void test_batches_null_inputs(void **state)
{
    (void)state;
    float p[3] = {0, 0, 0};
    mq_point_hit h;
    bool b;
    int32_t w;
    float d;
    uint64_t c;
    uint32_t n;
    mq_hit hit;
    mq_shape s = mq_shape_sphere((mq_sphere){{0, 0, 0}, 1});
    mq_ray ray = {{0, 0, 0}, 0, {0, 0, 1}, INFINITY};
    uint64_t off[2] = {0, 1};
    assert_int_equal(mq_bvh_closest_point_batch(NULL, p, 1, INFINITY, 0, &h, &b), 0);
    assert_int_equal(mq_obbtree_closest_point_batch(NULL, p, 1, INFINITY, 0, &h, &b), 0);
    assert_int_equal(mq_bvh_winding_number_batch(NULL, p, 1, 0, &w), 0);
    assert_int_equal(mq_bvh_inside_batch(NULL, p, 1, 0, &b), 0);
    assert_int_equal(mq_bvh_signed_distance_batch(NULL, p, 1, 0, &d, &h), 0);
    assert_int_equal(mq_bvh_overlap_count_batch(NULL, &s, 1, 0, &c), 0);
    assert_int_equal(mq_bvh_overlap_any_batch(NULL, &s, 1, 0, &b), 0);
    assert_int_equal(mq_obbtree_raycast_closest_batch(NULL, &ray, 1, NULL, 0, &hit), 0);
    assert_int_equal(mq_bvh_raycast_all_count_batch(NULL, &ray, 1, NULL, 0, &n), 0);
    assert_int_equal(mq_bvh_raycast_all_batch(NULL, &ray, 1, NULL, 0, off, &hit), 0);
    fixture f;
    fixture_make(&f, "spot.obj");
    assert_int_equal(mq_bvh_closest_point_batch(f.bvh, NULL, 1, INFINITY, 0, &h, &b), 0);
    assert_int_equal(mq_bvh_closest_point_batch(f.bvh, p, 0, INFINITY, 0, &h, &b), 0);
    assert_int_equal(mq_bvh_winding_number_batch(f.bvh, p, 1, 0, NULL), 0);
    assert_int_equal(mq_bvh_overlap_count_batch(f.bvh, NULL, 1, 0, &c), 0);
    assert_int_equal(mq_bvh_raycast_all_batch(f.bvh, &ray, 1, NULL, 0, NULL, &hit), 0);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batches_open_mesh),
        cmocka_unit_test(test_batches_closed_mesh),
        cmocka_unit_test(test_batches_null_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
