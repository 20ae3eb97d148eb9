/*
 * Concurrency: the thread pool (core/pool.h) and queries from many threads.
 *
 *   - the pool runs every index exactly once, for any count, from many user
 *     threads at once and nested inside its own workers;
 *   - 8 threads query one BVH and one OBB tree at once (raycasts closest / any
 *     / all, shape overlaps, closest point), every answer checked against the
 *     single-threaded answer computed beforehand;
 *   - batches give identical answers on 1, 2 and 8 threads, from 4 user
 *     threads at once, and from inside a pool worker (a filter callback that
 *     itself runs a batch);
 *   - BVH builds and OBJ loads on several threads, from several user threads
 *     at once, give identical results;
 *   - 8 threads query a scene of 40 instances (meshquery/scene.h: BVHs and
 *     OBB trees, rotated, scaled, mirrored) against single-threaded answers,
 *     and scene batches give identical answers on 1, 2 and 8 threads.
 *
 * The soak sections run for MQ_SOAK_SECONDS each (default 2; the long
 * run: MQ_SOAK_SECONDS=60). Meant to run under ThreadSanitizer too
 * (-DMQ_SANITIZE_THREAD=ON). Worker threads never call cmocka (it is not
 * thread-safe): they count mismatches, the main thread asserts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <meshquery/meshquery.h>

#include "core/pool.h"
#include "test_support.h"

#define SOAK_THREADS 8

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double soak_seconds(void)
{
    const char *s = getenv("MQ_SOAK_SECONDS");
    double v = s ? atof(s) : 2.0;
    return v > 0.0 ? v : 2.0;
}

static void start_threads(pthread_t *ids, int n, void *(*fn)(void *), void *args, size_t arg_size)
{
    for (int i = 0; i < n; i++)
        assert_int_equal(pthread_create(&ids[i], NULL, fn, (char *)args + (size_t)i * arg_size), 0);
}

static void join_threads(pthread_t *ids, int n)
{
    for (int i = 0; i < n; i++)
        assert_int_equal(pthread_join(ids[i], NULL), 0);
}

/* ------------------------------------------------------------------------- */
/* The pool itself                                                           */
/* ------------------------------------------------------------------------- */

typedef struct count_job {
    atomic_uint calls[200];
    atomic_uint total;
    uint32_t nest; /* depth still to nest */
} count_job;

static void count_fn(void *arg, uint32_t index)
{
    count_job *j = arg;
    atomic_fetch_add(&j->calls[index], 1);
    atomic_fetch_add(&j->total, 1);
    if (j->nest > 0) {
        /* A worker that itself runs a parallel job (nested use). */
        count_job *inner = calloc(1, sizeof *inner);
        inner->nest = j->nest - 1;
        mq_run_parallel(3 + index % 3, count_fn, inner);
        for (uint32_t i = 0; i < 3 + index % 3; i++)
            if (atomic_load(&inner->calls[i]) != 1)
                atomic_fetch_add(&j->total, 1000000); /* flags an error */
        free(inner);
    }
}

static void pool_runs_every_index_once(void **state)
{
    (void)state;
    for (uint32_t count = 0; count <= 130; count += count < 10 ? 1 : 7) {
        count_job *j = calloc(1, sizeof *j);
        mq_run_parallel(count, count_fn, j);
        uint32_t expect = count ? count : 1;
        assert_int_equal(atomic_load(&j->total), expect);
        for (uint32_t i = 0; i < expect; i++)
            assert_int_equal(atomic_load(&j->calls[i]), 1);
        free(j);
    }
    assert_int_equal(mq_thread_count(5), 5);
    assert_int_equal(mq_thread_count(1000), MQ_POOL_MAX_THREADS);
    assert_true(mq_thread_count(0) >= 1);
}

static void pool_nested_calls(void **state)
{
    (void)state;
    count_job *j = calloc(1, sizeof *j);
    j->nest = 3; /* 8 x (3..5) x (3..5) x (3..5) calls, all nested in pool workers */
    mq_run_parallel(8, count_fn, j);
    for (uint32_t i = 0; i < 8; i++)
        assert_int_equal(atomic_load(&j->calls[i]), 1);
    assert_true(atomic_load(&j->total) < 1000000);
    free(j);
}

typedef struct pool_caller {
    double until;
    atomic_uint *errors;
    unsigned seed;
    unsigned calls;
} pool_caller;

static void *pool_caller_main(void *p)
{
    pool_caller *c = p;
    count_job *j = calloc(1, sizeof *j);
    unsigned s = c->seed;
    do {
        for (int rep = 0; rep < 20; rep++) {
            s = s * 1103515245u + 12345u;
            uint32_t count = 1 + (s >> 16) % 12;
            memset(j, 0, sizeof *j);
            j->nest = (s >> 8) % 7 == 0 ? 1 : 0;
            mq_run_parallel(count, count_fn, j);
            for (uint32_t i = 0; i < count; i++)
                if (atomic_load(&j->calls[i]) != 1)
                    atomic_fetch_add(c->errors, 1);
            if (atomic_load(&j->total) >= 1000000)
                atomic_fetch_add(c->errors, 1);
            c->calls++;
        }
    } while (now_seconds() < c->until);
    free(j);
    return NULL;
}

static void pool_many_callers(void **state)
{
    (void)state;
    atomic_uint errors;
    atomic_init(&errors, 0);
    pool_caller c[SOAK_THREADS];
    double until = now_seconds() + 0.5;
    for (int i = 0; i < SOAK_THREADS; i++)
        c[i] = (pool_caller){until, &errors, 17u * (unsigned)i + 1u, 0};
    pthread_t ids[SOAK_THREADS];
    start_threads(ids, SOAK_THREADS, pool_caller_main, c, sizeof c[0]);
    join_threads(ids, SOAK_THREADS);
    unsigned calls = 0;
    for (int i = 0; i < SOAK_THREADS; i++)
        calls += c[i].calls;
    printf("pool: %u calls from %d threads\n", calls, SOAK_THREADS);
    assert_int_equal(atomic_load(&errors), 0);
}

/* ------------------------------------------------------------------------- */
/* Fixture: one mesh, its BVH and OBB tree, queries and their answers        */
/* ------------------------------------------------------------------------- */

#define NRAYS 512
#define NSHAPES 128
#define NPOINTS 256
#define ALL_CAP 8
#define OVERLAP_CAP 4096

typedef struct ray_answer {
    mq_hit closest, obb_closest;
    bool any, obb_any;
    size_t all_total;
    mq_hit all[ALL_CAP];
} ray_answer;

typedef struct shape_answer {
    size_t total[4]; /* sphere, capsule, obb, aabb */
    uint32_t *ids[4];
    bool any[4];
} shape_answer;

typedef struct fixture {
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_obbtree *tree;
    mq_ray rays[NRAYS];
    mq_ray_query queries[2]; /* default, culling */
    ray_answer answer[2][NRAYS];
    mq_sphere spheres[NSHAPES];
    mq_capsule capsules[NSHAPES];
    mq_obb obbs[NSHAPES];
    mq_aabb aabbs[NSHAPES];
    shape_answer shapes[NSHAPES];
    float points[NPOINTS][3];
    bool point_got[NPOINTS];
    mq_point_hit point_answer[NPOINTS];
    float lo[3], hi[3];
} fixture;

static fixture *g_fx;

static bool same_hit(const mq_hit *a, const mq_hit *b)
{
    return a->triangle == b->triangle && a->face == b->face && memcmp(&a->t, &b->t, sizeof a->t) == 0 && a->u == b->u &&
           a->v == b->v && a->back_face == b->back_face && a->point[0] == b->point[0] && a->point[1] == b->point[1] &&
           a->point[2] == b->point[2] && a->normal[0] == b->normal[0] && a->normal[1] == b->normal[1] &&
           a->normal[2] == b->normal[2];
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static float rnd(mq_test_rng *r, float lo, float hi)
{
    return (float)mq_test_rng_range(r, lo, hi);
}

static void random_point(mq_test_rng *r, const fixture *f, float grow, float out[3])
{
    for (int k = 0; k < 3; k++) {
        float ext = f->hi[k] - f->lo[k];
        out[k] = rnd(r, f->lo[k] - grow * ext, f->hi[k] + grow * ext);
    }
}

/* Shape queries: overlap ids (sorted) through the array form. */
static size_t shape_ids(const fixture *f, int kind, int i, uint32_t *out, size_t cap)
{
    switch (kind) {
    case 0:
        return mq_obbtree_overlap_array(f->tree, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = f->spheres[i]}}, out, cap);
    case 1:
        return mq_obbtree_overlap_array(f->tree, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = f->capsules[i]}}, out, cap);
    case 2:
        return mq_obbtree_overlap_array(f->tree, &(mq_shape){MQ_SHAPE_OBB, {.obb = f->obbs[i]}}, out, cap);
    default:
        return mq_obbtree_overlap_array(f->tree, &(mq_shape){MQ_SHAPE_AABB, {.aabb = f->aabbs[i]}}, out, cap);
    }
}

static bool shape_any(const fixture *f, int kind, int i)
{
    switch (kind) {
    case 0:
        return mq_obbtree_overlap_any(f->tree, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = f->spheres[i]}});
    case 1:
        return mq_obbtree_overlap_any(f->tree, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = f->capsules[i]}});
    case 2:
        return mq_obbtree_overlap_any(f->tree, &(mq_shape){MQ_SHAPE_OBB, {.obb = f->obbs[i]}});
    default:
        return mq_obbtree_overlap_any(f->tree, &(mq_shape){MQ_SHAPE_AABB, {.aabb = f->aabbs[i]}});
    }
}

static void answer_ray(const fixture *f, int qk, int i, ray_answer *a)
{
    const mq_ray_query *q = &f->queries[qk];
    mq_bvh_raycast_closest(f->bvh, &f->rays[i], q, &a->closest);
    a->any = mq_bvh_raycast_any(f->bvh, &f->rays[i], q);
    a->all_total = mq_bvh_raycast_all(f->bvh, &f->rays[i], q, a->all, ALL_CAP);
    mq_obbtree_raycast_closest(f->tree, &f->rays[i], q, &a->obb_closest);
    a->obb_any = mq_obbtree_raycast_any(f->tree, &f->rays[i], q);
}

static bool same_ray_answer(const ray_answer *a, const ray_answer *b)
{
    if (!same_hit(&a->closest, &b->closest) || a->any != b->any || a->all_total != b->all_total ||
        !same_hit(&a->obb_closest, &b->obb_closest) || a->obb_any != b->obb_any)
        return false;
    for (size_t k = 0; k < a->all_total && k < ALL_CAP; k++)
        if (!same_hit(&a->all[k], &b->all[k]))
            return false;
    return true;
}

static fixture *make_fixture(void)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    mq_diag d;
    assert_int_equal(mq_obj_load(mq_test_data_file("spot.obj"), NULL, &f->mesh, NULL, &d), MQ_OK);
    mq_bvh_def bd = mq_default_bvh_def();
    bd.threads = 1;
    assert_int_equal(mq_bvh_build(f->mesh, &bd, &f->bvh, &d), MQ_OK);
    assert_int_equal(mq_obbtree_build(f->mesh, NULL, &f->tree, &d), MQ_OK);

    const float *pos = mq_mesh_positions(f->mesh);
    size_t nv = mq_mesh_vertex_count(f->mesh), nt = mq_mesh_triangle_count(f->mesh);
    for (int k = 0; k < 3; k++)
        f->lo[k] = INFINITY, f->hi[k] = -INFINITY;
    for (size_t v = 0; v < nv; v++)
        for (int k = 0; k < 3; k++) {
            f->lo[k] = fminf(f->lo[k], pos[3 * v + k]);
            f->hi[k] = fmaxf(f->hi[k], pos[3 * v + k]);
        }
    float size = fmaxf(f->hi[0] - f->lo[0], fmaxf(f->hi[1] - f->lo[1], f->hi[2] - f->lo[2]));

    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0xC0C0));
    for (int i = 0; i < NRAYS; i++) {
        mq_ray *r = &f->rays[i];
        float o[3], target[3];
        random_point(&rng, f, 1.0f, o);
        /* Aim at a random triangle's corner-ish point, so most rays hit. */
        mq_triangle t;
        mq_mesh_get_triangle(f->mesh, (uint32_t)(mq_test_rng_u64(&rng) % nt), &t);
        float u = rnd(&rng, 0, 1), v = rnd(&rng, 0, 1 - u);
        for (int k = 0; k < 3; k++)
            target[k] = t.v[0][k] + u * (t.v[1][k] - t.v[0][k]) + v * (t.v[2][k] - t.v[0][k]);
        for (int k = 0; k < 3; k++) {
            r->origin[k] = o[k];
            r->dir[k] = target[k] - o[k];
        }
        r->tmin = i % 7 == 0 ? 0.3f : 0.0f;
        r->tmax = i % 5 == 0 ? 0.9f : INFINITY;
    }
    f->queries[0] = mq_default_ray_query();
    f->queries[1] = mq_default_ray_query();
    f->queries[1].cull_back_faces = true;
    for (int qk = 0; qk < 2; qk++)
        for (int i = 0; i < NRAYS; i++)
            answer_ray(f, qk, i, &f->answer[qk][i]);

    for (int i = 0; i < NSHAPES; i++) {
        float c[3], b[3];
        random_point(&rng, f, 0.1f, c);
        random_point(&rng, f, 0.1f, b);
        float rad = rnd(&rng, 0.0f, 0.08f) * size;
        f->spheres[i] = (mq_sphere){{c[0], c[1], c[2]}, rad};
        for (int k = 0; k < 3; k++)
            b[k] = c[k] + 0.2f * (b[k] - c[k]);
        f->capsules[i] = (mq_capsule){{c[0], c[1], c[2]}, {b[0], b[1], b[2]}, rad * 0.5f};
        vec3 h = {rnd(&rng, 0, 0.1f) * size, rnd(&rng, 0, 0.1f) * size, rnd(&rng, 0, 0.1f) * size};
        double qd[4];
        mq_test_rng_quat(&rng, qd);
        float qv[4] = {(float)qd[0], (float)qd[1], (float)qd[2], (float)qd[3]};
        vec3 cv = {c[0], c[1], c[2]};
        mq_obb_from_quat(cv, h, qv, &f->obbs[i]);
        f->aabbs[i] = (mq_aabb){{c[0] - h[0], c[1] - h[1], c[2] - h[2]}, {c[0] + h[0], c[1] + h[1], c[2] + h[2]}};
        for (int kind = 0; kind < 4; kind++) {
            shape_answer *a = &f->shapes[i];
            a->ids[kind] = malloc(OVERLAP_CAP * sizeof(uint32_t));
            a->total[kind] = shape_ids(f, kind, i, a->ids[kind], OVERLAP_CAP);
            assert_true(a->total[kind] <= OVERLAP_CAP);
            qsort(a->ids[kind], a->total[kind], sizeof(uint32_t), cmp_u32);
            a->any[kind] = shape_any(f, kind, i);
        }
    }
    for (int i = 0; i < NPOINTS; i++) {
        random_point(&rng, f, 0.5f, f->points[i]);
        f->point_got[i] =
            mq_obbtree_closest_point(f->tree, f->points[i], i % 3 ? INFINITY : 0.05f * size, &f->point_answer[i]);
    }
    return f;
}

static void free_fixture(fixture *f)
{
    for (int i = 0; i < NSHAPES; i++)
        for (int kind = 0; kind < 4; kind++)
            free(f->shapes[i].ids[kind]);
    mq_obbtree_destroy(f->tree);
    mq_bvh_destroy(f->bvh);
    mq_mesh_destroy(f->mesh);
    free(f);
}

static int setup(void **state)
{
    (void)state;
    g_fx = make_fixture();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free_fixture(g_fx);
    g_fx = NULL;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* 8 threads querying one BVH and one OBB tree                               */
/* ------------------------------------------------------------------------- */

typedef struct soak_arg {
    const fixture *f;
    double until;
    unsigned start;
    unsigned long queries, errors;
} soak_arg;

static void *soak_main(void *p)
{
    soak_arg *s = p;
    const fixture *f = s->f;
    uint32_t *ids = malloc(OVERLAP_CAP * sizeof *ids);
    unsigned i = s->start;
    do {
        for (int rep = 0; rep < 16; rep++, i += 7) {
            int qk = (int)(i / 3 % 2), r = (int)(i % NRAYS);
            ray_answer a;
            answer_ray(f, qk, r, &a);
            s->errors += !same_ray_answer(&a, &f->answer[qk][r]);

            int sh = (int)(i % NSHAPES), kind = (int)(i / 5 % 4);
            const shape_answer *want = &f->shapes[sh];
            size_t total = shape_ids(f, kind, sh, ids, OVERLAP_CAP);
            qsort(ids, total < OVERLAP_CAP ? total : OVERLAP_CAP, sizeof *ids, cmp_u32);
            s->errors += total != want->total[kind] || memcmp(ids, want->ids[kind], total * sizeof *ids) != 0;
            s->errors += shape_any(f, kind, sh) != want->any[kind];

            int pt = (int)(i % NPOINTS);
            mq_point_hit ph;
            float size = fmaxf(f->hi[0] - f->lo[0], fmaxf(f->hi[1] - f->lo[1], f->hi[2] - f->lo[2]));
            bool got = mq_obbtree_closest_point(f->tree, f->points[pt], pt % 3 ? INFINITY : 0.05f * size, &ph);
            const mq_point_hit *w = &f->point_answer[pt];
            s->errors += got != f->point_got[pt] ||
                         (got && (ph.triangle != w->triangle || ph.distance != w->distance ||
                                  memcmp(ph.point, w->point, sizeof ph.point) != 0 || ph.u != w->u || ph.v != w->v));
            s->queries += 8;
        }
    } while (now_seconds() < s->until);
    free(ids);
    return NULL;
}

static void threads_query_one_bvh_and_obbtree(void **state)
{
    (void)state;
    soak_arg args[SOAK_THREADS];
    double secs = soak_seconds();
    double until = now_seconds() + secs;
    for (int i = 0; i < SOAK_THREADS; i++)
        args[i] = (soak_arg){g_fx, until, (unsigned)i * 997u, 0, 0};
    pthread_t ids[SOAK_THREADS];
    start_threads(ids, SOAK_THREADS, soak_main, args, sizeof args[0]);
    join_threads(ids, SOAK_THREADS);
    unsigned long queries = 0, errors = 0;
    for (int i = 0; i < SOAK_THREADS; i++)
        queries += args[i].queries, errors += args[i].errors;
    printf("bvh+obbtree soak: %d threads, %.1f s, %lu queries, %lu mismatches\n", SOAK_THREADS, secs, queries, errors);
    assert_true(queries > 0);
    assert_int_equal(errors, 0);
}

/* ------------------------------------------------------------------------- */
/* Batches                                                                   */
/* ------------------------------------------------------------------------- */

#define BATCH 6000 /* > 5 * 1024: batches really use several threads */

static mq_ray *batch_rays(const fixture *f)
{
    mq_ray *r = malloc(BATCH * sizeof *r);
    for (int i = 0; i < BATCH; i++)
        r[i] = f->rays[(i * 31) % NRAYS];
    return r;
}

static bool batch_matches(const fixture *f, const mq_ray *rays, const mq_ray_query *q, uint32_t threads,
                          const mq_hit *want_hits, const bool *want_occl, mq_hit *hits, bool *occl)
{
    size_t nh = mq_bvh_raycast_closest_batch(f->bvh, rays, BATCH, q, threads, hits);
    size_t no = mq_bvh_raycast_any_batch(f->bvh, rays, BATCH, q, threads, occl);
    size_t want_nh = 0, want_no = 0;
    bool ok = true;
    for (int i = 0; i < BATCH; i++) {
        ok = ok && same_hit(&hits[i], &want_hits[i]) && occl[i] == want_occl[i];
        want_nh += want_hits[i].triangle != MQ_NO_TRIANGLE;
        want_no += want_occl[i];
    }
    return ok && nh == want_nh && no == want_no;
}

static void batches_match_on_1_2_8_threads(void **state)
{
    (void)state;
    const fixture *f = g_fx;
    mq_ray *rays = batch_rays(f);
    mq_hit *want = malloc(BATCH * sizeof *want), *hits = malloc(BATCH * sizeof *hits);
    bool *want_occl = malloc(BATCH), *occl = malloc(BATCH);
    for (int qk = 0; qk < 2; qk++) {
        for (int i = 0; i < BATCH; i++) {
            const ray_answer *a = &f->answer[qk][(i * 31) % NRAYS];
            want[i] = a->closest;
            want_occl[i] = a->any;
        }
        const uint32_t threads[] = {1, 2, 8, 0};
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
            assert_true(batch_matches(f, rays, &f->queries[qk], threads[t], want, want_occl, hits, occl));
    }
    free(rays), free(want), free(hits), free(want_occl), free(occl);
}

typedef struct batch_arg {
    const fixture *f;
    const mq_ray *rays;
    const mq_hit *want;
    const bool *want_occl;
    double until;
    uint32_t threads;
    unsigned long calls, errors;
} batch_arg;

static void *batch_main(void *p)
{
    batch_arg *b = p;
    mq_hit *hits = malloc(BATCH * sizeof *hits);
    bool *occl = malloc(BATCH);
    do {
        b->errors += !batch_matches(b->f, b->rays, &b->f->queries[0], b->threads, b->want, b->want_occl, hits, occl);
        b->calls++;
    } while (now_seconds() < b->until);
    free(hits), free(occl);
    return NULL;
}

static void batches_from_4_user_threads(void **state)
{
    (void)state;
    const fixture *f = g_fx;
    mq_ray *rays = batch_rays(f);
    mq_hit *want = malloc(BATCH * sizeof *want);
    bool *want_occl = malloc(BATCH);
    for (int i = 0; i < BATCH; i++) {
        want[i] = f->answer[0][(i * 31) % NRAYS].closest;
        want_occl[i] = f->answer[0][(i * 31) % NRAYS].any;
    }
    enum { USERS = 4 };
    batch_arg args[USERS];
    double until = now_seconds() + 0.5 * soak_seconds();
    const uint32_t threads[USERS] = {2, 8, 3, 1};
    for (int i = 0; i < USERS; i++)
        args[i] = (batch_arg){f, rays, want, want_occl, until, threads[i], 0, 0};
    pthread_t ids[USERS];
    start_threads(ids, USERS, batch_main, args, sizeof args[0]);
    join_threads(ids, USERS);
    unsigned long calls = 0, errors = 0;
    for (int i = 0; i < USERS; i++)
        calls += args[i].calls, errors += args[i].errors;
    printf("batches: %lu calls from %d user threads, %lu mismatches\n", calls, USERS, errors);
    assert_int_equal(errors, 0);
    free(rays), free(want), free(want_occl);
}

/* A filter that accepts everything (so answers equal the unfiltered ones) and,
 * on some calls, runs a whole batch itself: nested use of the pool from its
 * own workers. */
typedef struct nest_ctx {
    const fixture *f;
    const mq_ray *rays;
    const mq_hit *want;
    const bool *want_occl;
    atomic_int budget;
    atomic_int nested, errors;
} nest_ctx;

static bool nesting_filter(const mq_hit *candidate, void *user)
{
    (void)candidate;
    nest_ctx *n = user;
    if (atomic_fetch_sub(&n->budget, 1) > 0) {
        mq_hit *hits = malloc(BATCH * sizeof *hits);
        bool *occl = malloc(BATCH);
        if (!batch_matches(n->f, n->rays, &n->f->queries[0], 2 + (uint32_t)atomic_load(&n->nested) % 3, n->want,
                           n->want_occl, hits, occl))
            atomic_fetch_add(&n->errors, 1);
        atomic_fetch_add(&n->nested, 1);
        free(hits), free(occl);
    }
    return true;
}

static void batch_inside_a_pool_worker(void **state)
{
    (void)state;
    const fixture *f = g_fx;
    mq_ray *rays = batch_rays(f);
    mq_hit *want = malloc(BATCH * sizeof *want), *hits = malloc(BATCH * sizeof *hits);
    bool *want_occl = malloc(BATCH);
    for (int i = 0; i < BATCH; i++) {
        want[i] = f->answer[0][(i * 31) % NRAYS].closest;
        want_occl[i] = f->answer[0][(i * 31) % NRAYS].any;
    }
    nest_ctx n = {.f = f, .rays = rays, .want = want, .want_occl = want_occl};
    atomic_init(&n.budget, 24);
    atomic_init(&n.nested, 0);
    atomic_init(&n.errors, 0);
    mq_ray_query q = mq_default_ray_query();
    q.filter = nesting_filter;
    q.filter_user = &n;
    mq_bvh_raycast_closest_batch(f->bvh, rays, BATCH, &q, 4, hits);
    for (int i = 0; i < BATCH; i++)
        assert_true(same_hit(&hits[i], &want[i]));
    assert_int_equal(atomic_load(&n.nested), 24);
    assert_int_equal(atomic_load(&n.errors), 0);
    free(rays), free(want), free(hits), free(want_occl);
}

/* ------------------------------------------------------------------------- */
/* Builds and loads on the pool, from several user threads                   */
/* ------------------------------------------------------------------------- */

typedef struct build_arg {
    const mq_mesh *mesh;
    const mq_ray *rays;
    const mq_hit *want;
    uint32_t threads;
    int errors;
} build_arg;

static void *build_main(void *p)
{
    build_arg *b = p;
    for (int rep = 0; rep < 2; rep++) {
        mq_bvh_def d = mq_default_bvh_def();
        d.threads = b->threads;
        mq_bvh *bvh = NULL;
        if (mq_bvh_build(b->mesh, &d, &bvh, NULL) != MQ_OK || mq_bvh_validate(bvh, NULL) != MQ_OK) {
            b->errors++;
            mq_bvh_destroy(bvh);
            continue;
        }
        for (int i = 0; i < NRAYS; i++) {
            mq_hit h;
            mq_bvh_raycast_closest(bvh, &b->rays[i], NULL, &h);
            b->errors += !same_hit(&h, &b->want[i]);
        }
        mq_bvh_destroy(bvh);
    }
    return NULL;
}

static void builds_from_several_user_threads(void **state)
{
    (void)state;
    const fixture *f = g_fx;
    /* A bigger mesh, so the build really spreads subtrees over threads. */
    mq_mesh *mesh = mq_test_load_mesh("stanford-bunny.obj");
    const mq_mesh *use = mesh;
    mq_bvh_def d = mq_default_bvh_def();
    d.threads = 1;
    mq_bvh *ref = NULL;
    assert_int_equal(mq_bvh_build(use, &d, &ref, NULL), MQ_OK);
    mq_ray rays[NRAYS];
    mq_hit want[NRAYS];
    /* The fixture's rays, moved and scaled onto this mesh's box. */
    mq_aabb box;
    {
        const float *pos = mq_mesh_positions(use);
        for (int k = 0; k < 3; k++)
            box.min[k] = INFINITY, box.max[k] = -INFINITY;
        for (size_t v = 0; v < mq_mesh_vertex_count(use); v++)
            for (int k = 0; k < 3; k++) {
                box.min[k] = fminf(box.min[k], pos[3 * v + k]);
                box.max[k] = fmaxf(box.max[k], pos[3 * v + k]);
            }
    }
    for (int i = 0; i < NRAYS; i++) {
        rays[i] = f->rays[i];
        for (int k = 0; k < 3; k++) {
            float s = (box.max[k] - box.min[k]) / (f->hi[k] - f->lo[k]);
            rays[i].origin[k] = box.min[k] + (f->rays[i].origin[k] - f->lo[k]) * s;
            rays[i].dir[k] *= s;
        }
        mq_bvh_raycast_closest(ref, &rays[i], NULL, &want[i]);
    }
    enum { USERS = 3 };
    build_arg args[USERS];
    const uint32_t threads[USERS] = {2, 4, 8};
    for (int i = 0; i < USERS; i++)
        args[i] = (build_arg){use, rays, want, threads[i], 0};
    pthread_t ids[USERS];
    start_threads(ids, USERS, build_main, args, sizeof args[0]);
    join_threads(ids, USERS);
    for (int i = 0; i < USERS; i++)
        assert_int_equal(args[i].errors, 0);
    mq_bvh_destroy(ref);
    mq_mesh_destroy(mesh);
}

typedef struct load_arg {
    const char *text;
    size_t size;
    const mq_mesh *want;
    uint32_t threads;
    int errors;
} load_arg;

static void *load_main(void *p)
{
    load_arg *l = p;
    for (int rep = 0; rep < 3; rep++) {
        mq_obj_options o = mq_default_obj_options();
        o.threads = l->threads;
        mq_mesh *m = NULL;
        if (mq_obj_load_memory(l->text, l->size, "spot.obj", &o, &m, NULL, NULL) != MQ_OK) {
            l->errors++;
            continue;
        }
        size_t nv = mq_mesh_vertex_count(m), nt = mq_mesh_triangle_count(m);
        if (nv != mq_mesh_vertex_count(l->want) || nt != mq_mesh_triangle_count(l->want) ||
            memcmp(mq_mesh_positions(m), mq_mesh_positions(l->want), 3 * nv * sizeof(float)) != 0 ||
            memcmp(mq_mesh_indices(m), mq_mesh_indices(l->want), 3 * nt * sizeof(uint32_t)) != 0)
            l->errors++;
        mq_mesh_destroy(m);
    }
    return NULL;
}

static void obj_loads_from_several_user_threads(void **state)
{
    (void)state;
    FILE *fp = fopen(mq_test_data_file("spot.obj"), "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *text = malloc((size_t)size);
    assert_int_equal(fread(text, 1, (size_t)size, fp), (size_t)size);
    fclose(fp);
    enum { USERS = 4 };
    load_arg args[USERS];
    const uint32_t threads[USERS] = {1, 2, 4, 8};
    for (int i = 0; i < USERS; i++)
        args[i] = (load_arg){text, (size_t)size, g_fx->mesh, threads[i], 0};
    pthread_t ids[USERS];
    start_threads(ids, USERS, load_main, args, sizeof args[0]);
    join_threads(ids, USERS);
    for (int i = 0; i < USERS; i++)
        assert_int_equal(args[i].errors, 0);
    free(text);
}

/* ------------------------------------------------------------------------- */
/* A scene of a few dozen instances, 8 threads                               */
/* ------------------------------------------------------------------------- */

#define SCENE_INSTANCES 40
#define SCENE_RAYS 256
#define SCENE_SPHERES 96
#define SCENE_POINTS 128
#define SCENE_CAP 20000

typedef struct scene_fx {
    mq_scene *scene;
    mq_dray rays[SCENE_RAYS];
    mq_scene_hit hit[SCENE_RAYS];
    bool got[SCENE_RAYS], any[SCENE_RAYS];
    mq_dsphere spheres[SCENE_SPHERES];
    size_t overlaps[SCENE_SPHERES];
    bool overlap_any[SCENE_SPHERES];
    mq_dvec3 points[SCENE_POINTS];
    mq_scene_point_hit point[SCENE_POINTS];
    bool point_got[SCENE_POINTS];
} scene_fx;

static bool same_scene_hit(const mq_scene_hit *a, const mq_scene_hit *b)
{
    return a->instance == b->instance && a->triangle == b->triangle && memcmp(&a->t, &b->t, sizeof a->t) == 0 &&
           a->u == b->u && a->v == b->v && a->back_face == b->back_face && a->user_id == b->user_id &&
           memcmp(a->point, b->point, sizeof a->point) == 0;
}

static double drange(mq_test_rng *r, double lo, double hi)
{
    return mq_test_rng_range(r, lo, hi);
}

static scene_fx *make_scene(const fixture *f)
{
    scene_fx *s = calloc(1, sizeof *s);
    assert_non_null(s);
    mq_diag d;
    assert_int_equal(mq_scene_create(NULL, &s->scene, &d), MQ_OK);
    mq_test_rng rng;
    mq_test_rng_seed(&rng, mq_test_seed(0x5CE7));
    for (int i = 0; i < SCENE_INSTANCES; i++) {
        mq_instance_def def = mq_default_instance_def();
        if (i % 2)
            def.obbtree = f->tree;
        else
            def.bvh = f->bvh;
        double q[4];
        mq_test_rng_quat(&rng, q);
        mq_dvec3 t = {drange(&rng, -6, 6), drange(&rng, -6, 6), drange(&rng, -6, 6)};
        double k = drange(&rng, 0.5, 2.0);
        mq_dvec3 sc = {k, i % 5 == 0 ? -k : k, k}; /* some mirrored */
        def.transform = mq_xform_from_trs(t, q, sc);
        def.user_id = 1000u + (uint64_t)i;
        uint32_t id;
        assert_int_equal(mq_scene_add(s->scene, &def, &id, &d), MQ_OK);
    }
    assert_int_equal(mq_scene_commit(s->scene, &d), MQ_OK);
    for (int i = 0; i < SCENE_RAYS; i++) {
        mq_dray *r = &s->rays[i];
        double dir[3];
        mq_test_rng_unit_vector(&rng, dir);
        for (int k = 0; k < 3; k++) {
            r->origin[k] = -12.0 * dir[k] + drange(&rng, -3, 3);
            r->dir[k] = dir[k];
        }
        r->tmin = 0.0;
        r->tmax = i % 4 ? INFINITY : 15.0;
        s->got[i] = mq_scene_raycast_closest(s->scene, r, NULL, &s->hit[i]);
        s->any[i] = mq_scene_raycast_any(s->scene, r, NULL);
    }
    for (int i = 0; i < SCENE_SPHERES; i++) {
        s->spheres[i] =
            (mq_dsphere){{drange(&rng, -7, 7), drange(&rng, -7, 7), drange(&rng, -7, 7)}, drange(&rng, 0, 1.5)};
        s->overlaps[i] =
            mq_scene_overlap_array(s->scene, &(mq_dshape){MQ_SHAPE_SPHERE, {.sphere = s->spheres[i]}}, NULL, NULL, 0);
        s->overlap_any[i] =
            mq_scene_overlap_any(s->scene, &(mq_dshape){MQ_SHAPE_SPHERE, {.sphere = s->spheres[i]}}, NULL);
    }
    for (int i = 0; i < SCENE_POINTS; i++) {
        for (int k = 0; k < 3; k++)
            s->points[i][k] = drange(&rng, -9, 9);
        s->point_got[i] = mq_scene_closest_point(s->scene, s->points[i], i % 3 ? INFINITY : 1.0, NULL, &s->point[i]);
    }
    return s;
}

typedef struct scene_arg {
    const scene_fx *s;
    double until;
    unsigned start;
    unsigned long queries, errors;
} scene_arg;

static void *scene_main(void *p)
{
    scene_arg *a = p;
    const scene_fx *s = a->s;
    unsigned i = a->start;
    do {
        for (int rep = 0; rep < 8; rep++, i += 7) {
            int r = (int)(i % SCENE_RAYS);
            mq_scene_hit h;
            bool got = mq_scene_raycast_closest(s->scene, &s->rays[r], NULL, &h);
            a->errors += got != s->got[r] || (got && !same_scene_hit(&h, &s->hit[r]));
            a->errors += mq_scene_raycast_any(s->scene, &s->rays[r], NULL) != s->any[r];
            int k = (int)(i % SCENE_SPHERES);
            a->errors += mq_scene_overlap_array(s->scene, &(mq_dshape){MQ_SHAPE_SPHERE, {.sphere = s->spheres[k]}},
                                                NULL, NULL, 0) != s->overlaps[k];
            a->errors += mq_scene_overlap_any(s->scene, &(mq_dshape){MQ_SHAPE_SPHERE, {.sphere = s->spheres[k]}},
                                              NULL) != s->overlap_any[k];
            int q = (int)(i % SCENE_POINTS);
            mq_scene_point_hit ph;
            got = mq_scene_closest_point(s->scene, s->points[q], q % 3 ? INFINITY : 1.0, NULL, &ph);
            a->errors += got != s->point_got[q] ||
                         (got && (ph.instance != s->point[q].instance || ph.triangle != s->point[q].triangle ||
                                  ph.distance != s->point[q].distance));
            a->queries += 5;
        }
    } while (now_seconds() < a->until);
    return NULL;
}

static void threads_query_one_scene(void **state)
{
    (void)state;
    scene_fx *s = make_scene(g_fx);
    size_t hits = 0;
    for (int i = 0; i < SCENE_RAYS; i++)
        hits += s->got[i];
    assert_true(hits > SCENE_RAYS / 4); /* the rays do meet the instances */

    /* Batches on 1, 2 and 8 threads equal the single queries. */
    mq_scene_hit *bh = malloc(SCENE_RAYS * sizeof *bh);
    bool occl[SCENE_RAYS];
    const uint32_t threads[] = {1, 2, 8};
    for (int t = 0; t < 3; t++) {
        size_t n = mq_scene_raycast_closest_batch(s->scene, s->rays, SCENE_RAYS, NULL, threads[t], bh);
        assert_int_equal(n, hits);
        mq_scene_raycast_any_batch(s->scene, s->rays, SCENE_RAYS, NULL, threads[t], occl);
        for (int i = 0; i < SCENE_RAYS; i++) {
            assert_true(!s->got[i] || same_scene_hit(&bh[i], &s->hit[i]));
            assert_int_equal(occl[i], s->any[i]);
        }
    }
    free(bh);

    scene_arg args[SOAK_THREADS];
    double secs = soak_seconds();
    double until = now_seconds() + secs;
    for (int i = 0; i < SOAK_THREADS; i++)
        args[i] = (scene_arg){s, until, (unsigned)i * 131u, 0, 0};
    pthread_t ids[SOAK_THREADS];
    start_threads(ids, SOAK_THREADS, scene_main, args, sizeof args[0]);
    join_threads(ids, SOAK_THREADS);
    unsigned long queries = 0, errors = 0;
    for (int i = 0; i < SOAK_THREADS; i++)
        queries += args[i].queries, errors += args[i].errors;
    printf("scene soak: %d instances, %d threads, %.1f s, %lu queries, %lu mismatches\n", SCENE_INSTANCES, SOAK_THREADS,
           secs, queries, errors);
    assert_true(queries > 0);
    assert_int_equal(errors, 0);
    mq_scene_destroy(s->scene);
    free(s);
}

/* ------------------------------------------------------------------------- */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pool_runs_every_index_once),
        cmocka_unit_test(pool_nested_calls),
        cmocka_unit_test(pool_many_callers),
        cmocka_unit_test(threads_query_one_bvh_and_obbtree),
        cmocka_unit_test(batches_match_on_1_2_8_threads),
        cmocka_unit_test(batches_from_4_user_threads),
        cmocka_unit_test(batch_inside_a_pool_worker),
        cmocka_unit_test(builds_from_several_user_threads),
        cmocka_unit_test(obj_loads_from_several_user_threads),
        cmocka_unit_test(threads_query_one_scene),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
