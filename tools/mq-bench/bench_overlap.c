/*
 * mq-bench overlap — shape queries against a mesh: every triangle overlapping
 * a sphere, capsule, OBB or AABB, with meshquery's OBB tree (or, with
 * --hierarchy aabb, its AABB BVH) beside FCL's
 * BVHModel<OBB> and BVHModel<OBBRSS> (when built with FCL), on the same
 * triangles and queries in one process.
 *
 *   mq-bench overlap MESH.obj [--queries IN.queries | --generate N] [--shape all|sphere|capsule|obb|aabb]
 *                    [--hierarchy aabb|obb] [--fit dito|pca|aabb] [--leaf N] [--reps R] [--build-reps R]
 *                    [--seed S] [--subdivide K [--shrink nearest|centre]] [--no-fcl] [--no-bullet] [--bullet-scale S]
 *                    [--casts N] [--json]
 *
 * Queries come from a .queries file (docs/formats.md) or are generated
 * (N per shape, default 10000): centres uniform in the mesh's bounds, sizes
 * log-uniform in [0.002 D, 0.05 D] (D the bounds' diagonal), capsule segments
 * up to 0.1 D, uniform rotations.
 *
 * --subdivide K splits every triangle into K*K first (stanford-bunny.obj
 * --subdivide 6: 2.5M triangles): the same surface, with triangles K times
 * smaller. The queries generated as for the original mesh would then overlap
 * K*K times more triangles each; instead every one is shrunk by K about the
 * surface point nearest its centre (x -> p + (x - p) / K: sizes / K, the
 * centre K times nearer the surface). A query then touches the surface when
 * the original did, and where it does covers 1/(K*K) of the area, i.e. as
 * many triangles as the original (the surface is locally flat at that scale):
 * the large-mesh run asks the same kind of query of a deeper tree. With
 * --shrink centre queries shrink about their own centres instead: as many
 * triangles per touching query, but a small shape at a uniform centre
 * touches the surface about K times less often (hit_fraction says how often).
 * Sphere casts keep their paths, with radii / K.
 *
 * Every engine lists the overlapping triangles of every query
 * (ids into a buffer); the query loops run --reps times (at least 3, the median
 * counts) in turns, engine after engine, and are timed in process CPU time so
 * that other load on a shared machine does not count. Builds are timed in wall
 * time, --build-reps (default --reps) times in turns (meshquery, FCL's OBB,
 * FCL's OBBRSS): the medians and FCL's time over meshquery's
 * (build_speedup_vs_*: >= 1 means meshquery builds no slower). FCL's build is
 * beginModel / addSubModel / endModel on double vertices already converted.
 * Query throughput is also given as meshquery's over each reference's
 * (speedup_vs_*). Answers are compared query by query: FCL decides
 * shape–triangle overlap with GJK (libccd) in double and a tolerance,
 * meshquery with exact primitive tests, so sets may differ by triangles that
 * (nearly) touch; each triangle only one side reports is measured in double
 * (see "Differences" below) and the counts printed.
 * With Bullet (MQ_HAVE_BULLET) its contactTest on a btBvhTriangleMeshShape is
 * a further engine ("bullet"), in a world scaled by a power of two to suit
 * Bullet's absolute tolerances (ref_bullet.h: without it, the bunny's deep
 * box and capsule contacts get lost); --bullet-scale S sets the scale
 * (1: unscaled, to see that).
 *
 * Sphere casts (--casts N, default 10000; 0: none): spheres as above moved
 * towards a random mesh vertex (tmax 1.5, so most hit), through
 * mq_bvh_sphere_cast, mq_obbtree_sphere_cast, mq_kdoptree_sphere_cast (k = 18)
 * and mq_spheretree_sphere_cast, and Bullet's convexSweepTest
 * when built with it; reported: casts per second, hits, and against the BVH
 * the casts that disagree on hit/miss and the median and largest
 * |t difference| * |dir| relative to the mesh's diagonal. Casts starting in
 * contact (meshquery: t = 0; Bullet's sweep ignores them) are counted apart.
 * Bullet's times come out EARLIER than the exact ones: its conservative
 * advancement stops once the sphere is within its contact tolerance (checked
 * with mq_bvh_closest_point: at meshquery's t the distance is r to float
 * rounding, at Bullet's it is still > r). In its scaled world the median
 * difference is below 1e-4 D and a few casts stop up to a few percent of D
 * early (unscaled, on the bunny: median 0.004 D, up to 0.5 D).
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
#include "dgeom.h"
#include "generate.h"
#include "queryfile.h"
#include "subdivide.h"
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
    unsigned build_reps; /* builds per hierarchy; 0: --reps */
    uint64_t seed;
    bool fcl, json;
    bool bvh; /* --hierarchy aabb: the AABB BVH instead of the OBB tree */
    bool bullet;
    size_t casts;
    unsigned subdivide;  /* K: every triangle split into K*K; 1: the mesh as loaded */
    double bullet_scale; /* Bullet's world scale (ref_bullet.h); 0: automatic */
    bool shrink_centre;  /* --shrink centre: --subdivide shrinks queries about their centres */
} overlap_opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: mq-bench overlap MESH.obj [--queries IN.queries | --generate N]\n"
               "                        [--shape all|sphere|capsule|obb|aabb] [--hierarchy aabb|obb]\n"
               "                        [--fit dito|pca|aabb] [--leaf N] [--reps R] [--build-reps R] [--seed S]\n"
               "                        [--subdivide K [--shrink nearest|centre]]\n"
               "                        [--no-fcl] [--no-bullet] [--bullet-scale S] [--casts N] [--json]\n");
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
    else if (!strcmp(a, "--build-reps"))
        o->build_reps = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--seed"))
        o->seed = strtoull(v, NULL, 0);
    else if (!strcmp(a, "--casts"))
        o->casts = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--subdivide"))
        o->subdivide = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--bullet-scale"))
        o->bullet_scale = strtod(v, NULL);
    else if (!strcmp(a, "--shrink") && (!strcmp(v, "centre") || !strcmp(v, "nearest")))
        o->shrink_centre = !strcmp(v, "centre");
    else
        return false;
    return true;
}

/* 0: go on; 1: --help printed; 2: usage error. */
static int parse_args(int argc, char **argv, overlap_opts *o)
{
    *o = (overlap_opts){.shape = "all",
                        .generate = 10000,
                        .fit = MQ_OBB_FIT_DITO,
                        .leaf = 4,
                        .reps = 5,
                        .seed = 1,
                        .fcl = true,
                        .bullet = true,
                        .casts = 10000,
                        .subdivide = 1};
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
    o->subdivide = o->subdivide < 1 ? 1 : o->subdivide;
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
                    "mq-bench overlap: %s:%lu: expected sphere (4 numbers), capsule (7), obb (10) or aabb (6)\n", path,
                    lineno);
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
    double unit; /* the diagonal / K: cast radii scale with it (see the top) */
} bounds;

static void random_point(mqt_rng *r, const bounds *b, vec3 out)
{
    for (int k = 0; k < 3; k++)
        out[k] = (float)(b->box.min[k] + (b->box.max[k] - b->box.min[k]) * mqt_rng_unit(r));
}

static float random_size(mqt_rng *r, double unit)
{
    return (float)(unit * exp(log(0.002) + (log(0.05) - log(0.002)) * mqt_rng_unit(r)));
}

/* Uniform rotation (Shoemake) as a quaternion w, x, y, z. */
static void random_quat(mqt_rng *r, float q[4])
{
    double u1 = mqt_rng_unit(r), u2 = 6.283185307179586 * mqt_rng_unit(r), u3 = 6.283185307179586 * mqt_rng_unit(r);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    q[0] = (float)(b * cos(u3));
    q[1] = (float)(a * sin(u2));
    q[2] = (float)(a * cos(u2));
    q[3] = (float)(b * sin(u3));
}

static void random_query(mqt_rng *r, const bounds *b, shape_kind kind, query *q)
{
    vec3 c, h;
    float rot[4];
    q->kind = kind;
    random_point(r, b, c);
    if (kind == SHAPE_SPHERE) {
        q->s = (mq_sphere){{c[0], c[1], c[2]}, random_size(r, b->diagonal)};
    } else if (kind == SHAPE_CAPSULE) {
        double z = 2.0 * mqt_rng_unit(r) - 1.0, phi = 6.283185307179586 * mqt_rng_unit(r), s = sqrt(1.0 - z * z);
        double len = 0.1 * b->diagonal * mqt_rng_unit(r), d[3] = {s * cos(phi), s * sin(phi), z};
        q->c = (mq_capsule){{c[0], c[1], c[2]},
                            {(float)(c[0] + len * d[0]), (float)(c[1] + len * d[1]), (float)(c[2] + len * d[2])},
                            random_size(r, b->diagonal)};
    } else {
        for (int k = 0; k < 3; k++)
            h[k] = random_size(r, b->diagonal);
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

/* The point generated queries shrink about (see the top): the surface point
 * nearest the query's centre, or with --shrink centre the centre itself. */
static void shrink_point(const overlap_opts *o, const void *tree, const void *bvh, const vec3 c, vec3 p)
{
    mq_point_hit hit;
    bool found = !o->shrink_centre && (tree ? mq_obbtree_closest_point(tree, c, INFINITY, &hit)
                                            : mq_bvh_closest_point(bvh, c, INFINITY, &hit));
    for (int k = 0; k < 3; k++)
        p[k] = found ? hit.point[k] : c[k];
}

/* x <- p + (x - p) / K */
static void shrink_vec(vec3 x, const vec3 p, float K)
{
    for (int k = 0; k < 3; k++)
        x[k] = p[k] + (x[k] - p[k]) / K;
}

static void shrink_query(query *q, const vec3 p, float K)
{
    if (q->kind == SHAPE_SPHERE) {
        shrink_vec(q->s.center, p, K);
        q->s.radius /= K;
    } else if (q->kind == SHAPE_CAPSULE) {
        shrink_vec(q->c.a, p, K);
        shrink_vec(q->c.b, p, K);
        q->c.radius /= K;
    } else if (q->kind == SHAPE_OBB) {
        shrink_vec(q->o.center, p, K);
        for (int k = 0; k < 3; k++)
            q->o.half[k] /= K;
    } else {
        shrink_vec(q->a.min, p, K);
        shrink_vec(q->a.max, p, K);
    }
}

static void query_centre(const query *q, vec3 c)
{
    for (int k = 0; k < 3; k++)
        c[k] = q->kind == SHAPE_SPHERE    ? q->s.center[k]
               : q->kind == SHAPE_CAPSULE ? 0.5f * (q->c.a[k] + q->c.b[k])
               : q->kind == SHAPE_OBB     ? q->o.center[k]
                                          : 0.5f * (q->a.min[k] + q->a.max[k]);
}

/* --subdivide K: every generated query shrunk by K (see the top). */
static void shrink_queries(const overlap_opts *o, const void *tree, const void *bvh, query_list *l)
{
    for (size_t i = 0; i < l->count; i++) {
        vec3 c, p;
        query_centre(&l->q[i], c);
        shrink_point(o, tree, bvh, c, p);
        shrink_query(&l->q[i], p, (float)o->subdivide);
    }
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
        return mq_obbtree_overlap(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = q->s}}, push_id, &b);
    case SHAPE_CAPSULE:
        return mq_obbtree_overlap(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = q->c}}, push_id, &b);
    case SHAPE_OBB:
        return mq_obbtree_overlap(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = q->o}}, push_id, &b);
    default:
        return mq_obbtree_overlap(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = q->a}}, push_id, &b);
    }
}

/* meshquery's AABB BVH: the same callback form. */
static size_t run_bvh(void *ctx, const query *q, uint32_t *out, size_t capacity)
{
    const mq_bvh *t = ctx;
    id_buf b = {out, 0, capacity};
    switch (q->kind) {
    case SHAPE_SPHERE:
        return mq_bvh_overlap(t, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = q->s}}, push_id, &b);
    case SHAPE_CAPSULE:
        return mq_bvh_overlap(t, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = q->c}}, push_id, &b);
    case SHAPE_OBB:
        return mq_bvh_overlap(t, &(mq_shape){MQ_SHAPE_OBB, {.obb = q->o}}, push_id, &b);
    default:
        return mq_bvh_overlap(t, &(mq_shape){MQ_SHAPE_AABB, {.aabb = q->a}}, push_id, &b);
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

static double mq_v3_dot_helper(const vec3 v)
{
    return (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2];
}

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

static void report(const overlap_opts *o, const char *engine_name, const char *shape, const char *metric, double value,
                   const char *unit)
{
    if (o->json)
        printf("{\"bench\":\"overlap\",\"engine\":\"%s\",\"mesh\":\"%s\",\"subdivide\":%u,\"input\":\"%s\","
               "\"shape\":\"%s\",\"threads\":1,\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\"}\n",
               engine_name, base_name(o->mesh_path), o->subdivide,
               o->queries_path ? base_name(o->queries_path) : "generated", shape, metric, value, unit);
    else
        printf("  %-12s %-8s %-20s %12.4f %s\n", engine_name, shape, metric, value, unit);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
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
    const mq_mesh *mesh;
    double diagonal;
} bench_state;

/* ------------------------------------------------------------------------- */
/* Differences, measured in double                                           */
/* ------------------------------------------------------------------------- */

/* Where two engines disagree on a triangle, its signed separation from the
 * shape, in double on the float inputs: > 0 the distance between them (the
 * engine that reports it errs, or its tolerance admits it), <= 0 they overlap
 * (the engine that misses it errs). Sphere and capsule: the exact distance
 * minus the radius. Boxes: the largest gap over the 13 separating axes, the
 * distance itself or a lower bound of it when > 0, minus the penetration along
 * the shallowest axis when <= 0. */

static void d3_from(const float *f, double *o)
{
    for (int k = 0; k < 3; k++)
        o[k] = f[k];
}

static double segment_triangle_dist(const double *a, const double *b, double t[3][3])
{
    return sqrt(segment_triangle_d2(a, b, t));
}

/* Gap between the box (centre c, axes u, half h) and triangle t along axis l (any length). */
static double axis_gap(const double *c, double u[3][3], const double *h, double t[3][3], const double *l)
{
    double len = sqrt(d3_dot(l, l));
    if (!(len > 1e-300))
        return -INFINITY;
    double lo = INFINITY, hi = -INFINITY, r = 0.0;
    for (int i = 0; i < 3; i++) {
        double p[3];
        d3_sub(t[i], c, p);
        lo = fmin(lo, d3_dot(p, l)), hi = fmax(hi, d3_dot(p, l));
        r += h[i] * fabs(d3_dot(u[i], l));
    }
    return fmax(lo - r, -r - hi) / len;
}

static double box_triangle_separation(const double *c, double u[3][3], const double *h, double t[3][3])
{
    double e[3][3], n[3], gap = -INFINITY;
    for (int i = 0; i < 3; i++)
        d3_sub(t[(i + 1) % 3], t[i], e[i]);
    d3_cross(e[0], e[1], n);
    gap = fmax(gap, axis_gap(c, u, h, t, n));
    for (int i = 0; i < 3; i++) {
        gap = fmax(gap, axis_gap(c, u, h, t, u[i]));
        for (int j = 0; j < 3; j++) {
            double l[3];
            d3_cross(u[i], e[j], l);
            gap = fmax(gap, axis_gap(c, u, h, t, l));
        }
    }
    return gap;
}

static double query_triangle_separation(const query *q, const mq_triangle *tri)
{
    double t[3][3], a[3], b[3], h[3], u[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < 3; i++)
        d3_from(tri->v[i], t[i]);
    switch (q->kind) {
    case SHAPE_SPHERE:
        d3_from(q->s.center, a);
        return sqrt(point_triangle_d2(a, t)) - q->s.radius;
    case SHAPE_CAPSULE:
        d3_from(q->c.a, a), d3_from(q->c.b, b);
        return segment_triangle_dist(a, b, t) - q->c.radius;
    case SHAPE_OBB:
        d3_from(q->o.center, a), d3_from(q->o.half, h);
        for (int i = 0; i < 3; i++)
            d3_from(q->o.axes[i], u[i]);
        return box_triangle_separation(a, u, h, t);
    default:
        for (int k = 0; k < 3; k++) /* centre and half extents exactly as the float box's */
            a[k] = 0.5 * ((double)q->a.min[k] + q->a.max[k]), h[k] = 0.5 * ((double)q->a.max[k] - q->a.min[k]);
        return box_triangle_separation(a, u, h, t);
    }
}

/* The double-precision separations of the triangles one side alone reports. */
typedef struct sep_stats {
    size_t overlap, apart;    /* separation <= 0, > 0 */
    double deepest, farthest; /* the smallest and largest separation */
} sep_stats;

static void add_separation(sep_stats *st, const mq_mesh *mesh, const query *q, uint32_t tri)
{
    mq_triangle t;
    mq_mesh_get_triangle(mesh, tri, &t);
    double sep = query_triangle_separation(q, &t);
    if (sep <= 0.0)
        st->overlap++;
    else
        st->apart++;
    st->deepest = fmin(st->deepest, sep);
    st->farthest = fmax(st->farthest, sep);
}

static void print_separations(const char *who, size_t count, const sep_stats *st, double diagonal)
{
    printf(" %zu only %s (%zu overlap in double", count, who, st->overlap);
    if (st->overlap)
        printf(", down to %.2g D", st->deepest / diagonal);
    printf("; %zu apart", st->apart);
    if (st->apart)
        printf(", by up to %.2g D", st->farthest / diagonal);
    printf(")");
}

/* Query by query: how many differ, and the triangles only one side reports,
 * with their separation from the shape in double (see above) in units of the
 * mesh's diagonal D. */
static void compare_answers(const bench_state *s, const char *name, shape_kind kind, size_t queries, answers *mine,
                            answers *ref)
{
    size_t differ = 0, only_mine = 0, only_ref = 0, qi = 0;
    sep_stats sm = {0, 0, INFINITY, -INFINITY}, sr = sm;
    for (size_t i = 0; i < queries; i++, qi++) {
        while (s->queries->q[qi].kind != kind)
            qi++;
        const query *q = &s->queries->q[qi];
        uint32_t *a = mine->ids + mine->start[i], *b = ref->ids + ref->start[i];
        size_t na = mine->start[i + 1] - mine->start[i], nb = ref->start[i + 1] - ref->start[i], x = 0, y = 0;
        qsort(a, na, sizeof *a, cmp_u32);
        qsort(b, nb, sizeof *b, cmp_u32);
        size_t before = only_mine + only_ref;
        while (x < na || y < nb) {
            if (y == nb || (x < na && a[x] < b[y]))
                only_mine++, add_separation(&sm, s->mesh, q, a[x++]);
            else if (x == na || b[y] < a[x])
                only_ref++, add_separation(&sr, s->mesh, q, b[y++]);
            else
                x++, y++;
        }
        differ += only_mine + only_ref > before;
    }
    if (s->o->json)
        return;
    printf("  %-12s %-8s %zu of %zu queries answer differently; triangles:", name, shape_names[kind], differ, queries);
    print_separations("meshquery reports", only_mine, &sm, s->diagonal);
    print_separations(name, only_ref, &sr, s->diagonal);
    printf("\n");
}

static size_t count_kind(const query_list *l, shape_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++)
        n += l->q[i].kind == kind;
    return n;
}

/* The fraction of the n queries that overlap at least one triangle. */
static double hit_fraction(const answers *a, size_t n)
{
    size_t hits = 0;
    for (size_t i = 0; i < n; i++)
        hits += a->start[i + 1] > a->start[i];
    return (double)hits / (double)n;
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
    double t[4];
    for (int e = 0; e < s->engine_count; e++) {
        t[e] = bench_median(times[e], reps);
        report(s->o, s->engines[e].name, shape_names[kind], "throughput", (double)n / t[e] * 1e-3, "Kqueries/s");
        report(s->o, s->engines[e].name, shape_names[kind], "overlaps_per_query", (double)rec[e].start[n] / (double)n,
               "triangles");
        if (e == 0)
            report(s->o, s->engines[e].name, shape_names[kind], "hit_fraction", hit_fraction(&rec[0], n), "queries");
        else
            compare_answers(s, s->engines[e].name, kind, n, &rec[0], &rec[e]);
    }
    for (int e = 1; e < s->engine_count; e++) {
        char metric[64];
        snprintf(metric, sizeof metric, "speedup_vs_%s", s->engines[e].name);
        report(s->o, "meshquery", shape_names[kind], metric, t[e] / t[0], "x");
    }
    for (int e = 0; e < s->engine_count; e++) {
        free(rec[e].start);
        free(rec[e].ids);
    }
}

static bool load(const char *path, unsigned K, mq_mesh **mesh, bounds *b)
{
    mq_diag d;
    if (mq_obj_load(path, NULL, mesh, NULL, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench overlap: %s: %s\n", path, d.message);
        return false;
    }
    if (!mqt_subdivide_mesh(mesh, K)) {
        fprintf(stderr, "mq-bench overlap: cannot subdivide %s by %u\n", path, K);
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
    b->unit = b->diagonal / K;
    return true;
}

/* The hierarchies under test: meshquery's (one of the two) and FCL's models. */
typedef struct built {
    mq_obbtree *tree;
    mq_bvh *bvh;
    void *fcl[2]; /* ref_fcl *: REF_FCL_OBB, REF_FCL_OBBRSS */
} built;

static const char *const fcl_names[2] = {"fcl-obb", "fcl-obbrss"};

/* One build of meshquery's hierarchy into h (replacing the last); wall ms, < 0 on failure. */
static double build_ours(const overlap_opts *o, const mq_mesh *mesh, built *h)
{
    mq_diag d;
    mq_status st;
    mq_obbtree_destroy(h->tree);
    mq_bvh_destroy(h->bvh);
    h->tree = NULL, h->bvh = NULL;
    double t0 = bench_now();
    if (o->bvh) {
        mq_bvh_def def = mq_default_bvh_def();
        def.max_leaf_size = o->leaf;
        def.threads = 1;
        st = mq_bvh_build(mesh, &def, &h->bvh, &d);
    } else {
        mq_obbtree_def def = mq_default_obbtree_def();
        def.fit = o->fit;
        def.max_leaf_size = o->leaf;
        st = mq_obbtree_build(mesh, &def, &h->tree, &d);
    }
    double ms = (bench_now() - t0) * 1e3;
    if (st != MQ_OK) {
        fprintf(stderr, "mq-bench overlap: build failed: %s\n", d.message);
        return -1.0;
    }
    return ms;
}

/* One build of FCL's model `bv` into h (replacing the last); its build ms, < 0 when FCL is absent or fails. */
static double build_fcl(const mq_mesh *mesh, int bv, built *h)
{
#if defined(MQ_HAVE_FCL)
    double ms = -1.0;
    ref_fcl_destroy(h->fcl[bv]);
    h->fcl[bv] = ref_fcl_create(mq_mesh_positions(mesh), mq_mesh_vertex_count(mesh), mq_mesh_indices(mesh),
                                mq_mesh_triangle_count(mesh), (ref_fcl_bv)bv, &ms);
    return h->fcl[bv] ? ms : -1.0;
#else
    (void)mesh, (void)bv, (void)h;
    return -1.0;
#endif
}

static void free_built(built *h)
{
    mq_obbtree_destroy(h->tree);
    mq_bvh_destroy(h->bvh);
#if defined(MQ_HAVE_FCL)
    ref_fcl_destroy(h->fcl[0]);
    ref_fcl_destroy(h->fcl[1]);
#endif
}

static void report_sizes(const overlap_opts *o, const mq_mesh *mesh, const built *h)
{
    double tris = (double)mq_mesh_triangle_count(mesh);
    size_t bytes = h->tree ? mq_obbtree_byte_count(h->tree) : mq_bvh_byte_count(h->bvh);
    report(o, "meshquery", "-", "bytes_per_triangle", (double)bytes / tris, "B");
    if (h->tree) /* what a faster build must not let grow: the boxes queries descend through */
    {
        mq_obbtree_stats st;
        mq_obbtree_get_stats(h->tree, &st);
        report(o, "meshquery", "-", "total_box_volume", st.total_volume, "units^3");
    }
}

/* --reps builds of each hierarchy in turns (meshquery, FCL OBB, FCL OBBRSS), so
 * that load on a shared machine hits them alike; the medians, and FCL's time
 * over meshquery's. The last build of each is kept in h. */
static bool build_all(const overlap_opts *o, const mq_mesh *mesh, built *h)
{
    double ms[3][64];
    unsigned reps = o->build_reps ? o->build_reps : o->reps;
    reps = reps > 64 ? 64 : reps;
    bool fcl[2] = {o->fcl, o->fcl};
    for (unsigned r = 0; r < reps; r++) {
        if ((ms[0][r] = build_ours(o, mesh, h)) < 0.0)
            return false;
        for (int bv = 0; bv < 2; bv++)
            if (fcl[bv])
                fcl[bv] = (ms[1 + bv][r] = build_fcl(mesh, bv, h)) >= 0.0;
    }
    double ours = bench_median(ms[0], reps);
    report(o, "meshquery", "-", "build_ms", ours, "ms");
    for (int bv = 0; bv < 2; bv++)
        if (fcl[bv])
            report(o, fcl_names[bv], "-", "build_ms", bench_median(ms[1 + bv], reps), "ms");
    for (int bv = 0; bv < 2; bv++)
        if (fcl[bv]) {
            char metric[64];
            snprintf(metric, sizeof metric, "build_speedup_vs_%s", fcl_names[bv]);
            report(o, "meshquery", "-", metric, bench_median(ms[1 + bv], reps) / ours, "x");
        }
    report_sizes(o, mesh, h);
    return true;
}

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

/* The engines sphere casts are timed on: 0 the BVH, 1 the OBB tree, 2 Bullet,
 * 3 the 18-DOP tree, 4 the sphere tree. */
typedef struct cast_engines {
    const mq_bvh *bvh;
    const mq_obbtree *tree;
    void *bullet;
    const mq_kdoptree *kdop;
    const mq_spheretree *sphere;
} cast_engines;

/* Times one engine over all casts (median of reps, CPU time); fills res from the first run. */
static double time_casts(int which, const cast_engines *en, const sphere_cast *c, size_t n, unsigned reps,
                         cast_result *res, size_t *hits)
{
    double times[64];
    for (unsigned r = 0; r <= reps; r++) {
        double t0 = cpu_now();
        size_t h = 0;
        for (size_t i = 0; i < n; i++) {
            cast_result cr = {false, INFINITY};
            if (which == 0) {
                mq_cast_hit ch;
                cr.hit = mq_bvh_sphere_cast(en->bvh, &c[i].s, c[i].dir, 1.5f, &ch);
                cr.t = ch.t;
            } else if (which == 1) {
                mq_cast_hit ch;
                cr.hit = mq_obbtree_sphere_cast(en->tree, &c[i].s, c[i].dir, 1.5f, &ch);
                cr.t = ch.t;
            } else if (which == 3) {
                mq_cast_hit ch;
                cr.hit = mq_kdoptree_sphere_cast(en->kdop, &c[i].s, c[i].dir, 1.5f, &ch);
                cr.t = ch.t;
            } else if (which == 4) {
                mq_cast_hit ch;
                cr.hit = mq_spheretree_sphere_cast(en->sphere, &c[i].s, c[i].dir, 1.5f, &ch);
                cr.t = ch.t;
            }
#if defined(MQ_HAVE_BULLET)
            else {
                uint32_t tri;
                cr.hit = ref_bullet_sphere_cast(en->bullet, &c[i].s, c[i].dir, 1.5f, &cr.t, &tri);
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
    mq_kdoptree *kdop = NULL;
    mq_spheretree *sphere = NULL;
    if (mq_kdoptree_build(mesh, NULL, &kdop, NULL) != MQ_OK ||
        mq_spheretree_build(mesh, NULL, &sphere, NULL) != MQ_OK) {
        mq_kdoptree_destroy(kdop);
        mq_bvh_destroy(own_bvh);
        mq_obbtree_destroy(own_tree);
        return;
    }
    sphere_cast *c = malloc(n * sizeof *c);
    cast_result *res[5];
    for (int e = 0; e < 5; e++)
        res[e] = malloc(n * sizeof **res);
    mqt_rng r;
    mqt_rng_seed(&r, o->seed + 77);
    const float *p = mq_mesh_positions(mesh);
    size_t nv = mq_mesh_vertex_count(mesh);
    for (size_t i = 0; i < n; i++) {
        random_point(&r, b, c[i].s.center);
        c[i].s.radius = random_size(&r, b->unit);
        size_t v = (size_t)(mqt_rng_unit(&r) * (double)nv) % (nv ? nv : 1);
        for (int k = 0; k < 3; k++)
            c[i].dir[k] = nv ? p[3 * v + (size_t)k] - c[i].s.center[k] : 1.0f;
    }
    unsigned reps = o->reps > 63 ? 63 : o->reps;
    static const char *const names[5] = {"meshquery-bvh", "meshquery-obb", "bullet", "meshquery-kdop",
                                         "meshquery-sphere"};
    const int ids[5] = {0, 1, 3, 4, 2}; /* Bullet last, when there */
    int engines = bullet ? 5 : 4;
    for (int k = 0; k < engines; k++) {
        int e = ids[k];
        size_t hits = 0;
        double t = time_casts(e, &(cast_engines){bvh, tree, bullet, kdop, sphere}, c, n, reps, res[e], &hits);
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
    for (int e = 0; e < 5; e++)
        free(res[e]);
    free(c);
    mq_kdoptree_destroy(kdop);
    mq_spheretree_destroy(sphere);
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
    if (!load(o.mesh_path, o.subdivide, &mesh, &b))
        return 1;
    bool ok =
        o.queries_path ? read_queries(o.queries_path, &queries) : generate_queries(&b, o.generate, o.seed, &queries);
    if (ok && !o.json)
        printf("mq-bench overlap %s: %zu triangles, %zu queries\n", o.mesh_path, mq_mesh_triangle_count(mesh),
               queries.count);
    built h = {NULL, NULL, {NULL, NULL}};
    if (!ok || !build_all(&o, mesh, &h)) {
        free_built(&h);
        free(queries.q);
        mq_mesh_destroy(mesh);
        return 1;
    }
    if (!o.queries_path && o.subdivide > 1)
        shrink_queries(&o, h.tree, h.bvh, &queries);
    bench_state s = {&o,   &queries,  {{"meshquery", h.tree, run_obbtree}}, 1, NULL, mq_mesh_triangle_count(mesh) + 1,
                     mesh, b.diagonal};
    if (h.bvh)
        s.engines[0] = (engine){"meshquery", h.bvh, run_bvh};
    s.scratch = malloc(s.scratch_cap * sizeof *s.scratch);
#if defined(MQ_HAVE_FCL)
    for (int bv = 0; bv < 2; bv++)
        if (h.fcl[bv])
            s.engines[s.engine_count++] = (engine){fcl_names[bv], h.fcl[bv], run_fcl};
#endif
    void *bullet = NULL;
#if defined(MQ_HAVE_BULLET)
    ref_bullet *rb = NULL;
    if (o.bullet) {
        double ms;
        rb = ref_bullet_create(mq_mesh_positions(mesh), mq_mesh_vertex_count(mesh), mq_mesh_indices(mesh),
                               mq_mesh_triangle_count(mesh), o.bullet_scale, &ms);
        if (rb) {
            report(&o, "bullet", "-", "build_ms", ms, "ms");
            report(&o, "bullet", "-", "world_scale", ref_bullet_scale(rb), "x");
            s.engines[s.engine_count++] = (engine){"bullet", rb, run_bullet};
            bullet = rb;
        }
    }
#endif
    for (int kind = 0; kind < SHAPE_KINDS; kind++)
        bench_shape(&s, (shape_kind)kind);
    if (o.casts)
        bench_casts(&o, mesh, &b, h.bvh, h.tree, bullet);
#if defined(MQ_HAVE_BULLET)
    ref_bullet_destroy(rb);
#endif
    free(s.scratch);
    free(queries.q);
    free_built(&h);
    mq_mesh_destroy(mesh);
    return 0;
}
