/*
 * mq-bench overlap — shape queries against a mesh: every triangle overlapping
 * a sphere, capsule, OBB or AABB, with meshquery's OBB tree (or, with
 * --hierarchy aabb, its AABB BVH) beside FCL's
 * BVHModel<OBB> and BVHModel<OBBRSS> (when built with FCL), on the same
 * triangles and queries in one process.
 *
 *   mq-bench overlap MESH.obj [--queries IN.queries | --generate N] [--shape all|sphere|capsule|obb|aabb]
 *                    [--hierarchy aabb|obb] [--fit dito|pca|aabb] [--leaf N] [--reps R] [--seed S]
 *                    [--no-fcl] [--no-bullet] [--casts N] [--json]
 *
 * Queries come from a .queries file (../shared/FORMATS.md) or are generated
 * (N per shape, default 10000): centres uniform in the mesh's bounds, sizes
 * log-uniform in [0.002 D, 0.05 D], capsule segments up to 0.1 D, uniform
 * rotations. Every engine lists the overlapping triangles of every query
 * (ids into a buffer); the query loops run --reps times (at least 3, the median
 * counts) in turns, engine after engine, and are timed in process CPU time so
 * that other load on a shared machine does not count. Builds are timed in wall
 * time. Answers are compared query by query: FCL decides shape–triangle
 * overlap with GJK (libccd) in double and a tolerance, meshquery with exact
 * primitive tests, so sets may differ by triangles that (nearly) touch.
 * With Bullet (MQ_HAVE_BULLET) its contactTest on a btBvhTriangleMeshShape is
 * a further engine ("bullet").
 *
 * Sphere casts (--casts N, default 10000; 0: none): spheres as above moved
 * towards a random mesh vertex (tmax 1.5, so most hit), through
 * mq_bvh_sphere_cast and mq_obbtree_sphere_cast, and Bullet's convexSweepTest
 * when built with it; reported: casts per second, hits, and against Bullet
 * the casts that disagree on hit/miss and the median and largest
 * |t difference| * |dir| relative to the mesh's diagonal. Casts starting in
 * contact (meshquery: t = 0; Bullet's sweep ignores them) are counted apart.
 * Bullet's times come out EARLIER than the exact ones by up to a few percent
 * of the sweep: its conservative advancement stops once the sphere is within
 * its contact tolerance (checked with mq_bvh_closest_point: at meshquery's t
 * the distance is r to float rounding, at Bullet's it is still > r).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <meshquery/meshquery.h>
#include <meshquery/obbtree.h>
#include <meshquery/obj.h>

#include "bench.h"
#include "generate.h"
#include "queryfile.h"
#if defined(MQ_HAVE_FCL)
#include "ref_fcl.h"
#endif
#if defined(MQ_HAVE_BULLET)
#include "ref_bullet.h"
#endif
#include <meshquery/casts.h>

int bench_overlap_main(int argc, char **argv);

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

typedef struct overlap_opts {
    const char *mesh_path, *queries_path, *shape;
    size_t generate;
    mq_obb_fit fit;
    unsigned leaf, reps;
    uint64_t seed;
    bool fcl, json;
    bool bvh; /* --hierarchy aabb: the AABB BVH instead of the OBB tree */
    bool bullet;
    size_t casts;
} overlap_opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: mq-bench overlap MESH.obj [--queries IN.queries | --generate N]\n"
               "                        [--shape all|sphere|capsule|obb|aabb] [--hierarchy aabb|obb]\n"
               "                        [--fit dito|pca|aabb] [--leaf N] [--reps R] [--seed S] [--no-fcl]\n"
               "                        [--no-bullet] [--casts N] [--json]\n");
}

static bool parse_fit(const char *s, mq_obb_fit *fit)
{
    if (!strcmp(s, "dito"))
        *fit = MQ_OBB_FIT_DITO;
    else if (!strcmp(s, "pca"))
        *fit = MQ_OBB_FIT_PCA;
    else if (!strcmp(s, "aabb"))
        *fit = MQ_OBB_FIT_AABB;
    else
        return false;
    return true;
}

/* One option with a value; false on an unknown one or a bad value. */
/* "aabb": the 8-wide AABB BVH (mq_bvh_overlap_*; --fit is then ignored, --leaf
 * is its max_leaf_size); "obb": the OBB tree, fitted as --fit says (default DiTO). */
static bool parse_hierarchy(const char *v, bool *bvh)
{
    *bvh = !strcmp(v, "aabb");
    return !strcmp(v, "aabb") || !strcmp(v, "obb");
}

static bool parse_value(overlap_opts *o, const char *a, const char *v)
{
    if (!strcmp(a, "--queries"))
        o->queries_path = v;
    else if (!strcmp(a, "--generate"))
        o->generate = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--shape"))
        o->shape = v;
    else if (!strcmp(a, "--hierarchy"))
        return parse_hierarchy(v, &o->bvh);
    else if (!strcmp(a, "--fit"))
        return parse_fit(v, &o->fit);
    else if (!strcmp(a, "--leaf"))
        o->leaf = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--reps"))
        o->reps = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--seed"))
        o->seed = strtoull(v, NULL, 0);
    else if (!strcmp(a, "--casts"))
        o->casts = strtoull(v, NULL, 10);
    else
        return false;
    return true;
}

/* 0: go on; 1: --help printed; 2: usage error. */
static int parse_args(int argc, char **argv, overlap_opts *o)
{
    *o = (overlap_opts){.shape = "all", .generate = 10000, .fit = MQ_OBB_FIT_DITO, .leaf = 4, .reps = 5,
                        .seed = 1, .fcl = true, .bullet = true, .casts = 10000};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--no-fcl")) {
            o->fcl = false;
        } else if (!strcmp(a, "--no-bullet")) {
            o->bullet = false;
        } else if (a[0] != '-' && !o->mesh_path) {
            o->mesh_path = a;
        } else if (!v || !parse_value(o, a, v)) {
            fprintf(stderr, "mq-bench overlap: bad argument '%s'%s%s\n", a, v ? " " : "", v ? v : "");
            usage(stderr);
            return 2;
        } else {
            i++;
        }
    }
    if (!o->mesh_path) {
        usage(stderr);
        return 2;
    }
    o->reps = o->reps < 3 ? 3 : o->reps;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Queries: the .queries text format, or generated                           */
/* ------------------------------------------------------------------------- */

typedef struct query_list {
    query *q;
    size_t count, capacity;
} query_list;

static bool push_query(query_list *l, const query *q)
{
    if (l->count == l->capacity) {
        size_t cap = l->capacity ? 2 * l->capacity : 1024;
        query *n = realloc(l->q, cap * sizeof *n);
        if (!n)
            return false;
        l->q = n;
        l->capacity = cap;
    }
    l->q[l->count++] = *q;
    return true;
}

/* Parses one line with the shared .queries reader; false when it is malformed.
 * Blank and '#' lines give kind SHAPE_KINDS (the two enums list the shapes in one order). */
static bool parse_query(const char *line, query *q)
{
    _Static_assert((int)MQT_SPHERE == SHAPE_SPHERE && (int)MQT_CAPSULE == SHAPE_CAPSULE && (int)MQT_OBB == SHAPE_OBB &&
                       (int)MQT_AABB == SHAPE_AABB && (int)MQT_SHAPE_KINDS == SHAPE_KINDS,
                   "shape kinds in the same order");
    mqt_query m;
    if (!mqt_parse_query(line, &m))
        return false;
    q->kind = (shape_kind)m.kind;
    if (q->kind == SHAPE_SPHERE)
        q->s = m.s;
    else if (q->kind == SHAPE_CAPSULE)
        q->c = m.c;
    else if (q->kind == SHAPE_OBB)
        q->o = m.o;
    else if (q->kind == SHAPE_AABB)
        q->a = m.a;
    return true;
}

static bool read_queries(const char *path, query_list *l)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "mq-bench overlap: cannot open %s\n", path);
        return false;
    }
    char line[1024];
    unsigned long lineno = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        query q;
        lineno++;
        if (!parse_query(line, &q)) {
            fprintf(stderr,
                    "mq-bench overlap: %s:%lu: expected sphere (4 numbers), capsule (7), obb (10) or aabb (6)\n",
                    path, lineno);
            ok = false;
        } else if (q.kind != SHAPE_KINDS) {
            ok = push_query(l, &q);
        }
    }
    fclose(f);
    return ok;
}

typedef struct bounds {
    mq_aabb box;
    double diagonal;
} bounds;

static void random_point(mqt_rng *r, const bounds *b, vec3 out)
{
    for (int k = 0; k < 3; k++)
        out[k] = (float)(b->box.min[k] + (b->box.max[k] - b->box.min[k]) * mqt_rng_unit(r));
}

static float random_size(mqt_rng *r, const bounds *b)
{
    return (float)(b->diagonal * exp(log(0.002) + (log(0.05) - log(0.002)) * mqt_rng_unit(r)));
}

/* Uniform rotation (Shoemake), cglm order x, y, z, w. */
static void random_quat(mqt_rng *r, versor q)
{
    double u1 = mqt_rng_unit(r), u2 = 6.283185307179586 * mqt_rng_unit(r), u3 = 6.283185307179586 * mqt_rng_unit(r);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    q[0] = (float)(a * sin(u2));
    q[1] = (float)(a * cos(u2));
    q[2] = (float)(b * sin(u3));
    q[3] = (float)(b * cos(u3));
}

static void random_query(mqt_rng *r, const bounds *b, shape_kind kind, query *q)
{
    vec3 c, h;
    versor rot;
    q->kind = kind;
    random_point(r, b, c);
    if (kind == SHAPE_SPHERE) {
        q->s = (mq_sphere){{c[0], c[1], c[2]}, random_size(r, b)};
    } else if (kind == SHAPE_CAPSULE) {
        double z = 2.0 * mqt_rng_unit(r) - 1.0, phi = 6.283185307179586 * mqt_rng_unit(r), s = sqrt(1.0 - z * z);
        double len = 0.1 * b->diagonal * mqt_rng_unit(r), d[3] = {s * cos(phi), s * sin(phi), z};
        q->c = (mq_capsule){{c[0], c[1], c[2]},
                            {(float)(c[0] + len * d[0]), (float)(c[1] + len * d[1]), (float)(c[2] + len * d[2])},
                            random_size(r, b)};
    } else {
        for (int k = 0; k < 3; k++)
            h[k] = random_size(r, b);
        if (kind == SHAPE_OBB) {
            random_quat(r, rot);
            mq_obb_from_quat(c, h, rot, &q->o);
        } else {
            q->a = (mq_aabb){{c[0] - h[0], c[1] - h[1], c[2] - h[2]}, {c[0] + h[0], c[1] + h[1], c[2] + h[2]}};
        }
    }
}

static bool generate_queries(const bounds *b, size_t per_shape, uint64_t seed, query_list *l)
{
    mqt_rng r;
    mqt_rng_seed(&r, seed);
    for (int kind = 0; kind < SHAPE_KINDS; kind++)
        for (size_t i = 0; i < per_shape; i++) {
            query q;
            random_query(&r, b, (shape_kind)kind, &q);
            if (!push_query(l, &q))
                return false;
        }
    return true;
}

/* ------------------------------------------------------------------------- */
/* Engines                                                                   */
/* ------------------------------------------------------------------------- */

/* The answers of one engine: per query a count and the ids (as found). */
typedef struct answers {
    size_t *start; /* count + 1 offsets into ids */
    uint32_t *ids;
    size_t capacity;
} answers;

typedef struct engine {
    const char *name;
    void *ctx;
    /* ids of the triangles overlapping q (up to capacity), returns the total */
    size_t (*run)(void *ctx, const query *q, uint32_t *out, size_t capacity);
} engine;

typedef struct id_buf {
    uint32_t *ids;
    size_t count, capacity;
} id_buf;

static bool push_id(uint32_t tri, void *user)
{
    id_buf *b = user;
    if (b->count < b->capacity)
        b->ids[b->count] = tri;
    b->count++;
    return true;
}

/* meshquery: the callback form, ids into the caller's buffer. */
static size_t run_obbtree(void *ctx, const query *q, uint32_t *out, size_t capacity)
{
    const mq_obbtree *t = ctx;
    id_buf b = {out, 0, capacity};
    switch (q->kind) {
    case SHAPE_SPHERE:
        return mq_obbtree_overlap_sphere(t, &q->s, push_id, &b);
    case SHAPE_CAPSULE:
        return mq_obbtree_overlap_capsule(t, &q->c, push_id, &b);
    case SHAPE_OBB:
        return mq_obbtree_overlap_obb(t, &q->o, push_id, &b);
    default:
        return mq_obbtree_overlap_aabb(t, &q->a, push_id, &b);
    }
}

/* meshquery's AABB BVH: the same callback form. */
static size_t run_bvh(void *ctx, const query *q, uint32_t *out, size_t capacity)
{
    const mq_bvh *t = ctx;
    id_buf b = {out, 0, capacity};
    switch (q->kind) {
    case SHAPE_SPHERE:
        return mq_bvh_overlap_sphere(t, &q->s, push_id, &b);
    case SHAPE_CAPSULE:
        return mq_bvh_overlap_capsule(t, &q->c, push_id, &b);
    case SHAPE_OBB:
        return mq_bvh_overlap_obb(t, &q->o, push_id, &b);
    default:
        return mq_bvh_overlap_aabb(t, &q->a, push_id, &b);
    }
}

#if defined(MQ_HAVE_BULLET)
static size_t run_bullet(void *ctx, const query *q, uint32_t *out, size_t capacity)
{
    ref_bullet *b = ctx;
    switch (q->kind) {
    case SHAPE_SPHERE:
        return ref_bullet_overlap_sphere(b, &q->s, out, capacity);
    case SHAPE_CAPSULE:
        return ref_bullet_overlap_capsule(b, &q->c, out, capacity);
    case SHAPE_OBB:
        return ref_bullet_overlap_obb(b, &q->o, out, capacity);
    default:
        return ref_bullet_overlap_aabb(b, &q->a, out, capacity);
    }
}
#endif

#if defined(MQ_HAVE_FCL)
static size_t run_fcl(void *ctx, const query *q, uint32_t *out, size_t capacity)
{
    ref_fcl *f = ctx;
    switch (q->kind) {
    case SHAPE_SPHERE:
        return ref_fcl_overlap_sphere(f, &q->s, out, capacity);
    case SHAPE_CAPSULE:
        return ref_fcl_overlap_capsule(f, &q->c, out, capacity);
    case SHAPE_OBB:
        return ref_fcl_overlap_obb(f, &q->o, out, capacity);
    default:
        return ref_fcl_overlap_aabb(f, &q->a, out, capacity);
    }
}
#endif

static double mq_v3_dot_helper(const vec3 v) { return (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]; }

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs every query of `kind` once; records the answers when `rec` is given. */
static double run_all(const engine *e, const query_list *l, shape_kind kind, uint32_t *scratch, size_t cap,
                      answers *rec)
{
    double t0 = cpu_now();
    size_t at = 0, k = 0;
    for (size_t i = 0; i < l->count; i++) {
        if (l->q[i].kind != kind)
            continue;
        size_t n = e->run(e->ctx, &l->q[i], scratch, cap);
        if (rec) {
            n = n < cap ? n : cap;
            if (at + n > rec->capacity) {
                rec->capacity = 2 * (at + n);
                rec->ids = realloc(rec->ids, rec->capacity * sizeof *rec->ids);
            }
            if (n) /* rec->ids is still NULL while nothing was recorded */
                memcpy(rec->ids + at, scratch, n * sizeof *scratch);
            rec->start[k++] = at;
            at += n;
        }
    }
    if (rec)
        rec->start[k] = at;
    return cpu_now() - t0;
}

/* ------------------------------------------------------------------------- */
/* Reporting                                                                 */
/* ------------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void report(const overlap_opts *o, const char *engine, const char *shape, const char *metric, double value,
                   const char *unit)
{
    if (o->json)
        printf("{\"bench\":\"overlap\",\"engine\":\"%s\",\"mesh\":\"%s\",\"input\":\"%s\",\"shape\":\"%s\","
               "\"threads\":1,\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\"}\n",
               engine, base_name(o->mesh_path), o->queries_path ? base_name(o->queries_path) : "generated", shape,
               metric, value, unit);
    else
        printf("  %-12s %-8s %-20s %12.4f %s\n", engine, shape, metric, value, unit);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Query by query: how many differ, and the triangles only one side reports. */
static void compare_answers(const overlap_opts *o, const char *name, size_t queries, answers *mine, answers *ref,
                            const char *shape)
{
    size_t differ = 0, only_mine = 0, only_ref = 0;
    for (size_t i = 0; i < queries; i++) {
        uint32_t *a = mine->ids + mine->start[i], *b = ref->ids + ref->start[i];
        size_t na = mine->start[i + 1] - mine->start[i], nb = ref->start[i + 1] - ref->start[i], x = 0, y = 0;
        qsort(a, na, sizeof *a, cmp_u32);
        qsort(b, nb, sizeof *b, cmp_u32);
        size_t before = only_mine + only_ref;
        while (x < na || y < nb) {
            if (y == nb || (x < na && a[x] < b[y]))
                only_mine++, x++;
            else if (x == na || b[y] < a[x])
                only_ref++, y++;
            else
                x++, y++;
        }
        differ += only_mine + only_ref > before;
    }
    if (!o->json)
        printf("  %-12s %-8s %zu of %zu queries answer differently: "
               "%zu triangles only meshquery reports, %zu only %s\n",
               name, shape, differ, queries, only_mine, only_ref, name);
}

/* ------------------------------------------------------------------------- */
/* The benchmark                                                             */
/* ------------------------------------------------------------------------- */

typedef struct bench_state {
    const overlap_opts *o;
    const query_list *queries;
    engine engines[4];
    int engine_count;
    uint32_t *scratch;
    size_t scratch_cap;
} bench_state;

static size_t count_kind(const query_list *l, shape_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++)
        n += l->q[i].kind == kind;
    return n;
}

static void bench_shape(bench_state *s, shape_kind kind)
{
    size_t n = count_kind(s->queries, kind);
    if (n == 0 || (strcmp(s->o->shape, "all") && strcmp(s->o->shape, shape_names[kind])))
        return;
    answers rec[4];
    double times[4][64];
    unsigned reps = s->o->reps > 64 ? 64 : s->o->reps;
    for (int e = 0; e < s->engine_count; e++) {
        rec[e] = (answers){calloc(n + 1, sizeof(size_t)), NULL, 0};
        run_all(&s->engines[e], s->queries, kind, s->scratch, s->scratch_cap, &rec[e]); /* warm-up + answers */
    }
    for (unsigned r = 0; r < reps; r++) /* in turns: machine load hits every engine alike */
        for (int e = 0; e < s->engine_count; e++)
            times[e][r] = run_all(&s->engines[e], s->queries, kind, s->scratch, s->scratch_cap, NULL);
    for (int e = 0; e < s->engine_count; e++) {
        double t = bench_median(times[e], reps);
        report(s->o, s->engines[e].name, shape_names[kind], "throughput", (double)n / t * 1e-3, "Kqueries/s");
        report(s->o, s->engines[e].name, shape_names[kind], "overlaps_per_query",
               (double)rec[e].start[n] / (double)n, "triangles");
        if (e > 0)
            compare_answers(s->o, s->engines[e].name, n, &rec[0], &rec[e], shape_names[kind]);
    }
    for (int e = 0; e < s->engine_count; e++) {
        free(rec[e].start);
        free(rec[e].ids);
    }
}

static bool load(const char *path, mq_mesh **mesh, bounds *b)
{
    mq_diag d;
    if (mq_obj_load(path, NULL, mesh, NULL, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench overlap: %s: %s\n", path, d.message);
        return false;
    }
    const float *p = mq_mesh_positions(*mesh);
    b->box = (mq_aabb){{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (size_t i = 0; i < mq_mesh_vertex_count(*mesh); i++)
        for (int k = 0; k < 3; k++)
            if (isfinite(p[3 * i + (size_t)k])) {
                b->box.min[k] = fminf(b->box.min[k], p[3 * i + (size_t)k]);
                b->box.max[k] = fmaxf(b->box.max[k], p[3 * i + (size_t)k]);
            }
    double d2 = 0.0;
    for (int k = 0; k < 3; k++)
        d2 += ((double)b->box.max[k] - b->box.min[k]) * ((double)b->box.max[k] - b->box.min[k]);
    b->diagonal = sqrt(d2);
    return true;
}

/* Median wall-clock build time of --reps builds; keeps the last tree. */
static mq_obbtree *build_tree(const overlap_opts *o, const mq_mesh *mesh)
{
    mq_obbtree_def def = mq_default_obbtree_def();
    def.fit = o->fit;
    def.max_leaf_size = o->leaf;
    double ms[64];
    unsigned reps = o->reps > 64 ? 64 : o->reps;
    mq_obbtree *t = NULL;
    for (unsigned r = 0; r < reps; r++) {
        mq_obbtree_destroy(t);
        mq_diag d;
        double t0 = bench_now();
        if (mq_obbtree_build(mesh, &def, &t, &d) != MQ_OK) {
            fprintf(stderr, "mq-bench overlap: build failed: %s\n", d.message);
            return NULL;
        }
        ms[r] = (bench_now() - t0) * 1e3;
    }
    report(o, "meshquery", "-", "build_ms", bench_median(ms, reps), "ms");
    report(o, "meshquery", "-", "bytes_per_triangle",
           (double)mq_obbtree_byte_count(t) / (double)mq_mesh_triangle_count(mesh), "B");
    report(o, "meshquery", "-", "total_box_volume", mq_obbtree_total_volume(t), "units^3");
    return t;
}

/* The BVH, built like build_tree (median of --reps builds, one thread). */
static mq_bvh *build_bvh(const overlap_opts *o, const mq_mesh *mesh)
{
    mq_bvh_def def = mq_default_bvh_def();
    def.max_leaf_size = o->leaf;
    def.threads = 1;
    double ms[64];
    unsigned reps = o->reps > 64 ? 64 : o->reps;
    mq_bvh *t = NULL;
    for (unsigned r = 0; r < reps; r++) {
        mq_bvh_destroy(t);
        mq_diag d;
        double t0 = bench_now();
        if (mq_bvh_build(mesh, &def, &t, &d) != MQ_OK) {
            fprintf(stderr, "mq-bench overlap: build failed: %s\n", d.message);
            return NULL;
        }
        ms[r] = (bench_now() - t0) * 1e3;
    }
    report(o, "meshquery", "-", "build_ms", bench_median(ms, reps), "ms");
    report(o, "meshquery", "-", "bytes_per_triangle",
           (double)mq_bvh_byte_count(t) / (double)mq_mesh_triangle_count(mesh), "B");
    return t;
}

#if defined(MQ_HAVE_FCL)
static void add_fcl(bench_state *s, const mq_mesh *mesh, ref_fcl **refs)
{
    static const char *const names[2] = {"fcl-obb", "fcl-obbrss"};
    for (int bv = 0; bv < 2; bv++) {
        double ms;
        refs[bv] = ref_fcl_create(mq_mesh_positions(mesh), mq_mesh_vertex_count(mesh), mq_mesh_indices(mesh),
                                  mq_mesh_triangle_count(mesh), (ref_fcl_bv)bv, &ms);
        if (!refs[bv])
            continue;
        report(s->o, names[bv], "-", "build_ms", ms, "ms");
        s->engines[s->engine_count++] = (engine){names[bv], refs[bv], run_fcl};
    }
}
#endif

/* ------------------------------------------------------------------------- */
/* Sphere casts                                                              */
/* ------------------------------------------------------------------------- */

typedef struct sphere_cast {
    mq_sphere s;
    vec3 dir;
} sphere_cast;

typedef struct cast_result {
    bool hit;
    float t;
} cast_result;

/* Times one engine over all casts (median of reps, CPU time); fills res from the first run. */
static double time_casts(int engine, const void *ctx, const sphere_cast *c, size_t n, unsigned reps,
                         cast_result *res, size_t *hits)
{
    double times[64];
    for (unsigned r = 0; r <= reps; r++) {
        double t0 = cpu_now();
        size_t h = 0;
        for (size_t i = 0; i < n; i++) {
            cast_result cr = {false, INFINITY};
            if (engine == 0) {
                mq_cast_hit ch;
                cr.hit = mq_bvh_sphere_cast(ctx, &c[i].s, c[i].dir, 1.5f, &ch);
                cr.t = ch.t;
            } else if (engine == 1) {
                mq_cast_hit ch;
                cr.hit = mq_obbtree_sphere_cast(ctx, &c[i].s, c[i].dir, 1.5f, &ch);
                cr.t = ch.t;
            }
#if defined(MQ_HAVE_BULLET)
            else {
                uint32_t tri;
                cr.hit = ref_bullet_sphere_cast((ref_bullet *)ctx, &c[i].s, c[i].dir, 1.5f, &cr.t, &tri);
            }
#endif
            h += cr.hit;
            if (r == 0)
                res[i] = cr;
        }
        if (r == 0)
            *hits = h; /* the first run is the warm-up */
        else
            times[r - 1] = cpu_now() - t0;
    }
    return bench_median(times, reps);
}

static void bench_casts(const overlap_opts *o, const mq_mesh *mesh, const bounds *b, const mq_bvh *bvh0,
                        const mq_obbtree *tree0, void *bullet)
{
    size_t n = o->casts;
    mq_bvh *own_bvh = NULL;
    mq_obbtree *own_tree = NULL;
    if (!bvh0 && mq_bvh_build(mesh, NULL, &own_bvh, NULL) != MQ_OK)
        return;
    if (!tree0 && mq_obbtree_build(mesh, NULL, &own_tree, NULL) != MQ_OK) {
        mq_bvh_destroy(own_bvh);
        return;
    }
    const mq_bvh *bvh = bvh0 ? bvh0 : own_bvh;
    const mq_obbtree *tree = tree0 ? tree0 : own_tree;
    sphere_cast *c = malloc(n * sizeof *c);
    cast_result *res[3] = {malloc(n * sizeof **res), malloc(n * sizeof **res), malloc(n * sizeof **res)};
    mqt_rng r;
    mqt_rng_seed(&r, o->seed + 77);
    const float *p = mq_mesh_positions(mesh);
    size_t nv = mq_mesh_vertex_count(mesh);
    for (size_t i = 0; i < n; i++) {
        random_point(&r, b, c[i].s.center);
        c[i].s.radius = random_size(&r, b);
        size_t v = (size_t)(mqt_rng_unit(&r) * (double)nv) % (nv ? nv : 1);
        for (int k = 0; k < 3; k++)
            c[i].dir[k] = nv ? p[3 * v + (size_t)k] - c[i].s.center[k] : 1.0f;
    }
    unsigned reps = o->reps > 63 ? 63 : o->reps;
    static const char *const names[3] = {"meshquery-bvh", "meshquery-obb", "bullet"};
    int engines = bullet ? 3 : 2;
    for (int e = 0; e < engines; e++) {
        size_t hits = 0;
        const void *ctx = e == 0 ? (const void *)bvh : e == 1 ? (const void *)tree : bullet;
        double t = time_casts(e, ctx, c, n, reps, res[e], &hits);
        report(o, names[e], "cast", "throughput", (double)n / t * 1e-3, "Kcasts/s");
        report(o, names[e], "cast", "hit_fraction", (double)hits / (double)(n ? n : 1), "casts");
        if (e == 0)
            continue;
        /* Bullet's sweep ignores a start in contact (meshquery reports t = 0): those are
         * counted apart and left out of the t comparison. */
        size_t disagree = 0, initial = 0, nd = 0;
        double *dts = malloc((n ? n : 1) * sizeof *dts);
        for (size_t i = 0; i < n; i++) {
            if (res[0][i].hit && res[0][i].t == 0.0f) {
                initial++;
                continue;
            }
            if (res[e][i].hit != res[0][i].hit) {
                disagree++;
                continue;
            }
            if (res[e][i].hit)
                dts[nd++] = fabs((double)res[e][i].t - res[0][i].t) * sqrt(mq_v3_dot_helper(c[i].dir)) / b->diagonal;
        }
        double worst = 0.0;
        for (size_t i = 0; i < nd; i++)
            worst = dts[i] > worst ? dts[i] : worst;
        report(o, names[e], "cast", "initially_overlapping", (double)initial, "casts");
        report(o, names[e], "cast", "hit_miss_disagreements", (double)disagree, "casts");
        report(o, names[e], "cast", "median_abs_dt_rel_diagonal", nd ? bench_median(dts, nd) : 0.0, "D");
        report(o, names[e], "cast", "max_abs_dt_rel_diagonal", worst, "D");
        free(dts);
    }
    for (int e = 0; e < 3; e++)
        free(res[e]);
    free(c);
    mq_bvh_destroy(own_bvh);
    mq_obbtree_destroy(own_tree);
}

int bench_overlap_main(int argc, char **argv)
{
    overlap_opts o;
    int st = parse_args(argc, argv, &o);
    if (st)
        return st == 1 ? 0 : st;
    mq_mesh *mesh = NULL;
    bounds b;
    query_list queries = {NULL, 0, 0};
    if (!load(o.mesh_path, &mesh, &b))
        return 1;
    bool ok = o.queries_path ? read_queries(o.queries_path, &queries)
                             : generate_queries(&b, o.generate, o.seed, &queries);
    if (ok && !o.json)
        printf("mq-bench overlap %s: %zu triangles, %zu queries\n", o.mesh_path, mq_mesh_triangle_count(mesh),
               queries.count);
    mq_obbtree *tree = ok && !o.bvh ? build_tree(&o, mesh) : NULL;
    mq_bvh *bvh = ok && o.bvh ? build_bvh(&o, mesh) : NULL;
    if (!tree && !bvh) {
        free(queries.q);
        mq_mesh_destroy(mesh);
        return 1;
    }
    bench_state s = {&o, &queries, {{"meshquery", tree, run_obbtree}}, 1, NULL, mq_mesh_triangle_count(mesh) + 1};
    if (bvh)
        s.engines[0] = (engine){"meshquery", bvh, run_bvh};
    s.scratch = malloc(s.scratch_cap * sizeof *s.scratch);
#if defined(MQ_HAVE_FCL)
    ref_fcl *refs[2] = {NULL, NULL};
    if (o.fcl)
        add_fcl(&s, mesh, refs);
#endif
    void *bullet = NULL;
#if defined(MQ_HAVE_BULLET)
    ref_bullet *rb = NULL;
    if (o.bullet) {
        double ms;
        rb = ref_bullet_create(mq_mesh_positions(mesh), mq_mesh_vertex_count(mesh), mq_mesh_indices(mesh),
                               mq_mesh_triangle_count(mesh), &ms);
        if (rb) {
            report(&o, "bullet", "-", "build_ms", ms, "ms");
            s.engines[s.engine_count++] = (engine){"bullet", rb, run_bullet};
            bullet = rb;
        }
    }
#endif
    for (int kind = 0; kind < SHAPE_KINDS; kind++)
        bench_shape(&s, (shape_kind)kind);
    if (o.casts)
        bench_casts(&o, mesh, &b, bvh, tree, bullet);
#if defined(MQ_HAVE_FCL)
    ref_fcl_destroy(refs[0]);
    ref_fcl_destroy(refs[1]);
#endif
#if defined(MQ_HAVE_BULLET)
    ref_bullet_destroy(rb);
#endif
    free(s.scratch);
    free(queries.q);
    mq_obbtree_destroy(tree);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
    return 0;
}
