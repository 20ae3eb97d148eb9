/*
 * mq-bench scene — closest-hit throughput of a scene of N instances of one
 * mesh (meshquery/scene.h) beside Embree's instancing, same rays, one process.
 *
 *   mq-bench scene MESH.obj --instances N [--threads N] [--count R] [--reps R]
 *                  [--scale] [--any] [--seed S] [--no-embree] [--json]
 *
 * Instances: random rotations (and with --scale a random non-uniform scale
 * per axis in [0.5, 2]), translated uniformly in a cube of side
 * 2 * cbrt(N) * mesh diagonal. Rays: incoherent, from a sphere of 1.5 scene
 * diagonals around the scene to a uniform point of the scene box.
 * meshquery: mq_scene_raycast_closest_batch; Embree: rtcIntersect1 per ray
 * on a device with the same thread count (with --any: occlusion,
 * mq_scene_raycast_any_batch and rtcOccluded1); on 1 thread also one
 * mq_scene_raycast_closest (_any) call per ray, the single-ray API. Both on 1 thread (process CPU time)
 * and on --threads threads (0 = all cores; wall time); medians of --reps
 * repetitions, engines measured in turns. The commit (every add and
 * mq_scene_commit, against Embree's instances and rtcCommitScene) is timed
 * the same way: --reps new scenes each, in turns, the median reported.
 *
 * The 1-thread run's answers are compared ray by ray as in `mq-bench rays`
 * (answers_differing_from_embree, ..._not_ties), and the rays that differ
 * and are no ties are judged by the double-precision oracle (ray_oracle.h)
 * over the scene meshquery is given: the mesh's float vertices mapped by the
 * double transforms in double (Embree gets rays and transforms in float).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <meshquery/meshquery.h>
#include <meshquery/obj.h>
#include <meshquery/scene.h>

#include "bench.h"
#include "ray_oracle.h"
#if defined(MQ_HAVE_EMBREE)
#include "ref_embree.h"
#endif

typedef struct scene_opts {
    const char *mesh_path;
    size_t instances, count;
    unsigned threads, reps;
    bool scale, json, embree, any;
    uint64_t seed;
} scene_opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: mq-bench scene MESH.obj --instances N [--threads N] [--count R] [--reps R]\n"
               "                      [--scale] [--any] [--seed S] [--no-embree] [--json]\n");
}

static int parse_args(int argc, char **argv, scene_opts *o, bool *done)
{
    *o = (scene_opts){.instances = 1000, .count = 100000, .threads = 0, .reps = 5, .embree = true, .seed = 1};
    *done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            *done = true;
            return 0;
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--scale")) {
            o->scale = true;
        } else if (!strcmp(a, "--any")) {
            o->any = true;
        } else if (!strcmp(a, "--no-embree")) {
            o->embree = false;
        } else if (a[0] == '-' && !v) {
            fprintf(stderr, "mq-bench scene: %s needs a value\n", a);
            return 2;
        } else if (!strcmp(a, "--instances")) {
            o->instances = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(a, "--count")) {
            o->count = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(a, "--threads")) {
            o->threads = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(a, "--reps")) {
            o->reps = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(a, "--seed")) {
            o->seed = strtoull(argv[++i], NULL, 0);
        } else if (a[0] != '-' && !o->mesh_path) {
            o->mesh_path = a;
        } else {
            fprintf(stderr, "mq-bench scene: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!o->mesh_path || o->instances == 0 || o->count == 0) {
        usage(stderr);
        return 2;
    }
    if (o->reps < 1)
        o->reps = 1;
    if (o->threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->threads = n > 0 ? (unsigned)n : 1;
    }
    return 0;
}

/* splitmix64: the bench's own deterministic generator. */
static double rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds of process CPU time for one mq_scene_raycast_closest (or _any) call
 * per ray: the single-ray API a picking program uses. Closest hits go to
 * `hits`, the same answers the batch gives. */
static double single_ray_seconds(const mq_scene *scene, const mq_dray *rays, size_t n, bool any, mq_scene_hit *hits)
{
    size_t occluded = 0;
    double a = cpu_now();
    for (size_t i = 0; i < n; i++) {
        if (any)
            occluded += mq_scene_raycast_any(scene, &rays[i], NULL);
        else
            mq_scene_raycast_closest(scene, &rays[i], NULL, &hits[i]);
    }
    double seconds = cpu_now() - a;
    volatile size_t sink = occluded; /* keeps the any-hit calls */
    (void)sink;
    return seconds;
}

static void emit(const scene_opts *o, const char *engine, unsigned threads, const char *metric, double value,
                 const char *unit)
{
    const char *slash = strrchr(o->mesh_path, '/');
    const char *mesh = slash ? slash + 1 : o->mesh_path;
    if (o->json)
        printf("{\"bench\":\"scene\",\"engine\":\"%s\",\"mesh\":\"%s\",\"instances\":%zu,\"transforms\":\"%s\","
               "\"input\":\"incoherent\",\"query\":\"%s\",\"threads\":%u,\"isa\":\"%s\",\"metric\":\"%s\","
               "\"value\":%.6g,\"unit\":\"%s\"}\n",
               engine, mesh, o->instances, o->scale ? "rigid+scale" : "rigid", o->any ? "any" : "closest", threads,
               bench_engine_isa(engine), metric, value, unit);
    else
        printf("  %-10s %2u thread(s) %-30s %10.4f %s\n", engine, threads, metric, value, unit);
}

/* Random transforms (row-major 3x4) placing the mesh (centred on its box) in the scene cube. */
static void make_transforms(const scene_opts *o, const mq_aabb *box, double *xf, double *half)
{
    uint64_t s = o->seed;
    double c[3], d2 = 0;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5 * ((double)box->min[k] + box->max[k]);
        d2 += ((double)box->max[k] - box->min[k]) * ((double)box->max[k] - box->min[k]);
    }
    *half = cbrt((double)o->instances) * sqrt(d2);
    for (size_t i = 0; i < o->instances; i++) {
        double q[4], n = 0, sc[3] = {1, 1, 1}, t[3];
        for (int k = 0; k < 4; k++) {
            q[k] = rnd(&s) * 2 - 1;
            n += q[k] * q[k];
        }
        if (n < 1e-6)
            q[3] = n = 1;
        if (o->scale)
            for (int k = 0; k < 3; k++)
                sc[k] = exp(log(0.5) + rnd(&s) * log(4.0));
        for (int k = 0; k < 3; k++)
            t[k] = (rnd(&s) * 2 - 1) * *half;
        /* q was drawn as (x, y, z, w): the scene stays the one earlier versions measured */
        const double wxyz[4] = {q[3], q[0], q[1], q[2]};
        mq_xform x = mq_xform_from_trs(t, wxyz, sc);
        double *m = xf + 12 * i;
        for (int r = 0; r < 3; r++) {
            for (int k = 0; k < 3; k++)
                m[4 * r + k] = x.m[r][k];
            m[4 * r + 3] = x.m[r][3] - (x.m[r][0] * c[0] + x.m[r][1] * c[1] + x.m[r][2] * c[2]);
        }
    }
}

static void make_rays(const scene_opts *o, double half, mq_dray *rays)
{
    uint64_t s = o->seed ^ 0xABCDEF;
    double radius = 1.5 * 2 * sqrt(3.0) * half;
    for (size_t i = 0; i < o->count; i++) {
        double u[3], n = 0;
        do {
            n = 0;
            for (int k = 0; k < 3; k++) {
                u[k] = rnd(&s) * 2 - 1;
                n += u[k] * u[k];
            }
        } while (n > 1 || n < 1e-6);
        n = sqrt(n);
        mq_dray *r = &rays[i];
        double len = 0;
        for (int k = 0; k < 3; k++) {
            r->origin[k] = radius * u[k] / n;
            r->dir[k] = (rnd(&s) * 2 - 1) * half - r->origin[k];
            len += r->dir[k] * r->dir[k];
        }
        for (int k = 0; k < 3; k++)
            r->dir[k] /= sqrt(len);
        r->tmin = 0;
        r->tmax = INFINITY;
    }
}

/* ------------------------------------------------------------------------- */
/* Differences from Embree, judged in double                                 */
/* ------------------------------------------------------------------------- */

#if defined(MQ_HAVE_EMBREE)
/* Both engines' answers to every ray of the 1-thread run. */
typedef struct answers {
    const mq_scene_hit *mq; /* closest */
    const bool *mq_occl;    /* --any */
    const float *em_t;
    const uint32_t *em_id, *em_inst;
    const bool *em_occl;
} answers;

/* The scene the oracle judges by: the mesh's float vertices mapped by each
 * instance's double transform, in double — the scene meshquery is given;
 * Embree gets it rounded to float. */
typedef struct dscene {
    const float *positions;
    const uint32_t *indices;
    size_t vertex_count, triangle_count, instances;
    const double *xf;
    double *boxes; /* per instance its world box: min[3], max[3] */
    double *world; /* scratch: one instance's vertices, mapped */
    struct crossing {
        double enter;
        uint32_t instance;
    } * crossed; /* scratch: the instances a ray crosses */
} dscene;

static void xf_apply(const double *m, const double p[3], double out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
}

/* World boxes from the mapped corners of the mesh's box (an affine map takes
 * the box to a parallelepiped that holds every mapped vertex). Padded by
 * 1e-12 of their largest coordinate: the corners and the vertices are mapped
 * with different roundings (~1e-16), and a vertex must never fall outside. */
static void world_boxes(dscene *s, const mq_aabb *box)
{
    for (size_t i = 0; i < s->instances; i++) {
        double *b = s->boxes + 6 * i, big = 0;
        for (int k = 0; k < 3; k++)
            b[k] = INFINITY, b[3 + k] = -INFINITY;
        for (int c = 0; c < 8; c++) {
            double p[3], w[3];
            for (int k = 0; k < 3; k++)
                p[k] = c >> k & 1 ? box->max[k] : box->min[k];
            xf_apply(s->xf + 12 * i, p, w);
            for (int k = 0; k < 3; k++)
                b[k] = fmin(b[k], w[k]), b[3 + k] = fmax(b[3 + k], w[k]), big = fmax(big, fabs(w[k]));
        }
        for (int k = 0; k < 3; k++)
            b[k] -= 1e-12 * big, b[3 + k] += 1e-12 * big;
    }
}

static bool dscene_init(dscene *s, const mq_mesh *mesh, const mq_aabb *box, const double *xf, size_t instances)
{
    *s = (dscene){mq_mesh_positions(mesh),
                  mq_mesh_indices(mesh),
                  mq_mesh_vertex_count(mesh),
                  mq_mesh_triangle_count(mesh),
                  instances,
                  xf,
                  NULL,
                  NULL,
                  NULL};
    s->boxes = malloc(instances * 6 * sizeof *s->boxes);
    s->world = malloc(s->vertex_count * 3 * sizeof *s->world + 1);
    s->crossed = malloc(instances * sizeof *s->crossed);
    if (!s->boxes || !s->world || !s->crossed)
        return false;
    world_boxes(s, box);
    return true;
}

static void dscene_free(dscene *s)
{
    free(s->boxes);
    free(s->world);
    free(s->crossed);
}

/* Whether the ray's [tmin, tmax] crosses box b (min[3], max[3]), boundary
 * included, and where it enters. */
static bool slab(const dray *r, const double *b, double *enter)
{
    double t0 = r->tmin, t1 = r->tmax;
    for (int k = 0; k < 3; k++) {
        if (r->d[k] == 0.0) { /* parallel to the slab: inside it or not at all */
            if (r->o[k] < b[k] || r->o[k] > b[3 + k])
                return false;
            continue;
        }
        double a = (b[k] - r->o[k]) / r->d[k], c = (b[3 + k] - r->o[k]) / r->d[k];
        t0 = fmax(t0, fmin(a, c));
        t1 = fmin(t1, fmax(a, c));
    }
    *enter = t0;
    return t0 <= t1;
}

static int cmp_crossing(const void *pa, const void *pb)
{
    const struct crossing *a = pa, *b = pb;
    if (a->enter != b->enter)
        return a->enter < b->enter ? -1 : 1;
    return (a->instance > b->instance) - (a->instance < b->instance);
}

/* The instances whose world box the ray crosses, nearest entry first. */
static size_t crossed_instances(dscene *s, const dray *r)
{
    size_t n = 0;
    for (size_t i = 0; i < s->instances; i++) {
        double enter;
        if (slab(r, s->boxes + 6 * i, &enter))
            s->crossed[n++] = (struct crossing){enter, (uint32_t)i};
    }
    qsort(s->crossed, n, sizeof *s->crossed, cmp_crossing);
    return n;
}

/* Maps every vertex of the mesh by instance i's transform into s->world. */
static void place_instance(dscene *s, uint32_t i)
{
    for (size_t v = 0; v < s->vertex_count; v++) {
        double p[3] = {s->positions[3 * v], s->positions[3 * v + 1], s->positions[3 * v + 2]};
        xf_apply(s->xf + 12 * (size_t)i, p, s->world + 3 * v);
    }
}

/* Triangle i of the placed instance (oracle_triangles). */
static void placed_corners(const void *ctx, size_t i, double v[3][3])
{
    const dscene *s = ctx;
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            v[c][k] = s->world[3 * (size_t)s->indices[3 * i + c] + k];
}

/* Triangle tri of instance inst in world space, for an engine's answer. */
static void world_triangle(const dscene *s, uint32_t inst, uint32_t tri, double v[3][3])
{
    for (int c = 0; c < 3; c++) {
        const float *q = s->positions + 3 * (size_t)s->indices[3 * (size_t)tri + c];
        double p[3] = {q[0], q[1], q[2]};
        xf_apply(s->xf + 12 * (size_t)inst, p, v[c]);
    }
}

/* The oracle over every triangle of the crossed instances, one instance at a
 * time, folded with oracle_better. Once a hit is found, instances entered
 * beyond it cannot hold a nearer one and are skipped; a miss tests them all. */
static oracle_answer dscene_trace(dscene *s, const dray *r)
{
    size_t n = crossed_instances(s, r);
    oracle_answer best = oracle_none();
    oracle_triangles tris = {s->triangle_count, placed_corners, s};
    for (size_t k = 0; k < n && !(best.id != UINT32_MAX && s->crossed[k].enter > best.t); k++) {
        place_instance(s, s->crossed[k].instance);
        oracle_answer a = oracle_trace(r, &tris);
        if (oracle_better(&a, &best))
            best = a;
    }
    return best;
}

/*
 * Closest hits on different triangles at the same t within SCENE_TIE
 * relative are ties (neighbours across a shared edge, coplanar duplicates).
 * Embree's t carries the rounding of its float rays and transforms, with
 * coordinates ~1.5 scene diagonals from the origin: ~1e-7 of t, more at
 * grazing angles. Measured ties stay under 1e-6; the next differences
 * (another point of the surface, or a triangle not hit) start at 5e-6.
 * `mq-bench rays` allows 1e-4 of max(1, t), ~1e-3 of its mesh; here t is
 * ~100 meshes long and 1e-4 of it would pass hits a few percent of the mesh
 * apart as ties. On the same triangle a t within SCENE_SAME_T is the same
 * answer: beyond SCENE_TIE it is only Embree's rounding at a grazing angle.
 */
#define SCENE_TIE 1e-6
#define SCENE_SAME_T 1e-4

/* Whether the engines' answers to ray i differ: occlusion, or whether the
 * closest hit exists, its instance, its triangle, or its t beyond
 * SCENE_SAME_T; *tie when both hit within SCENE_TIE of each other's t. */
static bool differs(const scene_opts *o, const answers *a, size_t i, bool *tie)
{
    *tie = false;
    if (o->any)
        return a->mq_occl[i] != a->em_occl[i];
    const mq_scene_hit *h = &a->mq[i];
    bool mh = h->instance != MQ_NO_INSTANCE, eh = a->em_id[i] != UINT32_MAX;
    if (!mh || !eh)
        return mh != eh;
    double dt = fabs(h->t - a->em_t[i]);
    *tie = dt <= SCENE_TIE * fabs(h->t);
    if (h->instance == a->em_inst[i] && h->triangle == a->em_id[i])
        return !(dt <= SCENE_SAME_T * fabs(h->t));
    return true;
}

/* Judges ray i, one that differs and is no tie, by the oracle. */
static oracle_verdict judge(const scene_opts *o, dscene *s, const mq_dray *ray, const answers *a, size_t i)
{
    dray r = {{ray->origin[0], ray->origin[1], ray->origin[2]},
              {ray->dir[0], ray->dir[1], ray->dir[2]},
              ray->tmin,
              ray->tmax};
    oracle_answer ans = dscene_trace(s, &r);
    if (o->any)
        return oracle_judge_any(&ans, a->mq_occl[i], a->em_occl[i]);
    const mq_scene_hit *h = &a->mq[i];
    double mt[3][3], et[3][3];
    bool mh = h->instance < s->instances && h->triangle < s->triangle_count;
    bool eh = a->em_inst[i] < s->instances && a->em_id[i] < s->triangle_count;
    if (mh)
        world_triangle(s, h->instance, h->triangle, mt);
    if (eh)
        world_triangle(s, a->em_inst[i], a->em_id[i], et);
    return oracle_judge_closest(&r, &ans, mh ? mt : NULL, h->t, eh ? et : NULL, a->em_t[i]);
}

/*
 * The 1-thread run's differences from Embree, as in `mq-bench rays`: rays
 * whose answers differ, those that are no tie, and who is right on those by
 * the double-precision brute-force oracle (ray_oracle.c) over the triangles
 * of every instance whose world box the ray crosses. Only differing rays
 * meet the oracle; without them nothing is set up and no summary printed.
 */
static void report_differences(const scene_opts *o, const mq_mesh *mesh, const mq_aabb *box, const double *xf,
                               const mq_dray *rays, const answers *a)
{
    size_t diff = 0, real = 0;
    for (size_t i = 0; i < o->count; i++) {
        bool tie;
        if (differs(o, a, i, &tie))
            diff++, real += !tie;
    }
    oracle_counts c = {0, 0, 0, 0, 0, 0};
    double t0 = bench_now();
    dscene s = {0};
    if (real && !dscene_init(&s, mesh, box, xf, o->instances)) {
        fprintf(stderr, "mq-bench scene: out of memory for the oracle\n");
        real = 0;
    }
    for (size_t i = 0; i < o->count && real; i++) {
        bool tie;
        if (differs(o, a, i, &tie) && !tie) {
            oracle_verdict v = judge(o, &s, &rays[i], a, i);
            oracle_count(&c, &v);
        }
    }
    dscene_free(&s);
    double secs = bench_now() - t0;
    if (!o->json && !diff)
        return; /* JSON always has the metrics, as `mq-bench rays`; people need no zeros */
    emit(o, "meshquery", 1, "answers_differing_from_embree", (double)diff, "rays");
    emit(o, "meshquery", 1, "answers_differing_not_ties", (double)real, "rays");
    oracle_metric m[ORACLE_METRICS];
    oracle_metrics(&c, m);
    for (int k = 0; k < ORACLE_METRICS; k++)
        emit(o, "meshquery", 1, m[k].name, m[k].value, "rays");
    if (!o->json)
        printf("  differing from embree: %zu rays, %zu not ties; by the double oracle (%.2f s): meshquery right "
               "%zu, embree right %zu, neither %zu; grazing %zu, right by an edge tie %zu\n",
               diff, real, secs, c.mq_right, c.em_right, c.neither, c.grazing, c.edge_ties);
}
#endif

static double median_of(double *v, unsigned n)
{
    return bench_median(v, n);
}

/* A new scene of o->instances instances of `bvh` placed by xf, committed;
 * *ms is the time of the adds and the commit. NULL on failure (reported). */
static mq_scene *make_scene(const scene_opts *o, const mq_bvh *bvh, const double *xf, double *ms)
{
    mq_scene *scene;
    mq_diag d;
    if (mq_scene_create(NULL, &scene, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench scene: %s\n", d.message);
        return NULL;
    }
    double t0 = bench_now();
    for (size_t i = 0; i < o->instances; i++) {
        mq_instance_def def = mq_default_instance_def();
        def.bvh = bvh;
        memcpy(def.transform.m, xf + 12 * i, sizeof def.transform.m);
        uint32_t id;
        if (mq_scene_add(scene, &def, &id, &d) != MQ_OK) {
            fprintf(stderr, "mq-bench scene: %s\n", d.message);
            mq_scene_destroy(scene);
            return NULL;
        }
    }
    if (mq_scene_commit(scene, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench scene: %s\n", d.message);
        mq_scene_destroy(scene);
        return NULL;
    }
    *ms = 1e3 * (bench_now() - t0);
    return scene;
}

/* The inputs, answers and timings the steps share, freed by
 * scene_bench_free whichever step failed; each step frees its own scratch. */
typedef struct scene_bench {
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_aabb box;
    double *xf;
    mq_dray *rays;
    mq_scene_hit *hits;
    bool *occluded;
    double *mq_s, *em_s, *one_s; /* per repetition */
    mq_scene *scene;             /* the last one committed, the one traced */
#if defined(MQ_HAVE_EMBREE)
    float *fx; /* Embree takes float transforms and rays */
    mq_ray *frays;
    float *et;
    bool *eocc;
    uint32_t *eid, *einst;
#endif
} scene_bench;

static void scene_bench_free(scene_bench *b)
{
#if defined(MQ_HAVE_EMBREE)
    free(b->fx);
    free(b->frays);
    free(b->et);
    free(b->eocc);
    free(b->eid);
    free(b->einst);
#endif
    free(b->mq_s);
    free(b->em_s);
    free(b->one_s);
    free(b->xf);
    free(b->rays);
    free(b->hits);
    free(b->occluded);
    mq_scene_destroy(b->scene);
    mq_bvh_destroy(b->bvh);
    mq_mesh_destroy(b->mesh);
}

static int out_of_memory(void)
{
    fprintf(stderr, "mq-bench scene: out of memory\n");
    return 1;
}

/* The mesh, its BVH and box, the transforms (Embree's in float too) and
 * rays, and our answer and timing arrays. 0, or 1 after a message. */
static int load_inputs(const scene_opts *o, scene_bench *b)
{
    mq_diag d;
    if (mq_obj_load(o->mesh_path, NULL, &b->mesh, NULL, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench scene: %s: %s\n", o->mesh_path, d.message);
        return 1;
    }
    if (mq_bvh_build(b->mesh, NULL, &b->bvh, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench scene: %s\n", d.message);
        return 1;
    }
    b->box = (mq_aabb){{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    const float *p = mq_mesh_positions(b->mesh);
    for (size_t i = 0; i < mq_mesh_vertex_count(b->mesh); i++)
        for (int k = 0; k < 3; k++) {
            b->box.min[k] = fminf(b->box.min[k], p[3 * i + k]);
            b->box.max[k] = fmaxf(b->box.max[k], p[3 * i + k]);
        }
    b->xf = malloc(o->instances * 12 * sizeof *b->xf);
    b->rays = malloc(o->count * sizeof *b->rays);
    b->hits = malloc(o->count * sizeof *b->hits);
    b->occluded = malloc(o->count * sizeof *b->occluded);
    b->mq_s = calloc(o->reps, sizeof *b->mq_s);
    b->em_s = calloc(o->reps, sizeof *b->em_s);
    b->one_s = calloc(o->reps, sizeof *b->one_s);
    if (!b->xf || !b->rays || !b->hits || !b->occluded || !b->mq_s || !b->em_s || !b->one_s)
        return out_of_memory();
    double half;
    make_transforms(o, &b->box, b->xf, &half);
    make_rays(o, half, b->rays);
#if defined(MQ_HAVE_EMBREE)
    if (o->embree) {
        b->fx = malloc(o->instances * 12 * sizeof *b->fx);
        if (!b->fx)
            return out_of_memory();
        for (size_t i = 0; i < 12 * o->instances; i++)
            b->fx[i] = (float)b->xf[i];
    }
#endif
    return 0;
}

/* The commit, ours and Embree's, --reps times in turn, the medians reported:
 * each round a new scene of ours (the previous one destroyed) and a new
 * top-level scene of Embree's on the same device and base scene (the first
 * of each is a first commit); our last scene stays in b->scene. 0, or 1. */
static int time_commits(const scene_opts *o, scene_bench *b)
{
    double *mq_ms = calloc(o->reps, sizeof *mq_ms), *em_ms = calloc(o->reps, sizeof *em_ms);
    if (!mq_ms || !em_ms) {
        free(mq_ms);
        free(em_ms);
        return out_of_memory();
    }
    bool ok = true, have_embree = false;
#if defined(MQ_HAVE_EMBREE)
    ref_embree *commits = NULL; /* Embree's scenes of this loop */
#endif
    for (unsigned r = 0; r < o->reps && ok; r++) {
        mq_scene_destroy(b->scene);
        b->scene = make_scene(o, b->bvh, b->xf, &mq_ms[r]);
        ok = b->scene != NULL;
#if defined(MQ_HAVE_EMBREE)
        if (ok && o->embree && r == 0)
            commits = ref_embree_create_instanced(mq_mesh_positions(b->mesh), mq_mesh_vertex_count(b->mesh),
                                                  mq_mesh_indices(b->mesh), mq_mesh_triangle_count(b->mesh), b->fx,
                                                  o->instances, 1, &em_ms[r]);
        else if (ok && commits)
            ref_embree_reinstance(commits, b->fx, o->instances, &em_ms[r]);
#endif
    }
#if defined(MQ_HAVE_EMBREE)
    have_embree = commits != NULL;
    ref_embree_destroy(commits);
#endif
    if (ok) {
        double mq_build_ms = median_of(mq_ms, o->reps);
        emit(o, "meshquery", 1, "build_ms", mq_build_ms, "ms");
        if (have_embree) {
            double em_build_ms = median_of(em_ms, o->reps);
            emit(o, "embree", 1, "build_ms", em_build_ms, "ms");
            emit(o, "meshquery", 1, "build_ratio_vs_embree", mq_build_ms / em_build_ms, "x");
        }
    }
    free(mq_ms);
    free(em_ms);
    return ok ? 0 : 1;
}

#if defined(MQ_HAVE_EMBREE)
/* Embree's rays (in float) and answer arrays, when Embree runs. 0, or 1. */
static int load_embree_rays(const scene_opts *o, scene_bench *b)
{
    if (!o->embree)
        return 0;
    b->frays = malloc(o->count * sizeof *b->frays);
    b->et = malloc(o->count * sizeof *b->et);
    b->eocc = malloc(o->count * sizeof *b->eocc);
    b->eid = malloc(o->count * sizeof *b->eid);
    b->einst = malloc(o->count * sizeof *b->einst);
    if (!b->frays || !b->et || !b->eocc || !b->eid || !b->einst)
        return out_of_memory();
    for (size_t i = 0; i < o->count; i++) {
        for (int k = 0; k < 3; k++) {
            b->frays[i].origin[k] = (float)b->rays[i].origin[k];
            b->frays[i].dir[k] = (float)b->rays[i].dir[k];
        }
        b->frays[i].tmin = 0;
        b->frays[i].tmax = INFINITY;
    }
    return 0;
}

/* Embree's throughput and the ratios of a run on th threads, how many rays
 * the two answer alike, and on 1 thread the differences judged by the
 * oracle. */
static void compare_with_embree(const scene_opts *o, const scene_bench *b, unsigned th, double mq_rate, double one_rate,
                                size_t mq_hits)
{
    size_t em_hits = 0, agree = 0;
    for (size_t i = 0; i < o->count; i++) {
        if (o->any) {
            em_hits += b->eocc[i];
            agree += b->eocc[i] == b->occluded[i];
            continue;
        }
        bool eh = b->eid[i] != UINT32_MAX;
        em_hits += eh;
        agree +=
            eh == (b->hits[i].instance != MQ_NO_INSTANCE) &&
            (!eh || (b->eid[i] == b->hits[i].triangle && fabs(b->et[i] - b->hits[i].t) <= 1e-3 * fabs(b->hits[i].t)));
    }
    double em_rate = o->count / median_of(b->em_s, o->reps) / 1e6;
    emit(o, "embree", th, "throughput", em_rate, "Mrays/s");
    emit(o, "meshquery", th, "ratio_vs_embree", mq_rate / em_rate, "x");
    if (th == 1)
        emit(o, "meshquery", th, "single_ray_api_ratio_vs_embree", one_rate / em_rate, "x");
    if (!o->json)
        printf(o->any ? "  occluded: meshquery %zu, embree %zu, same answer: %.2f%%\n"
                      : "  hits: meshquery %zu, embree %zu, same triangle and t: %.2f%%\n",
               mq_hits, em_hits, 100.0 * agree / o->count);
    if (th == 1) {
        answers ans = {b->hits, b->occluded, b->et, b->eid, b->einst, b->eocc};
        report_differences(o, b->mesh, &b->box, b->xf, b->rays, &ans);
    }
}
#endif

/* Ray throughput on 1 thread (batch and one call per ray) and on --threads,
 * beside Embree's on the same scene, in turns, repetition by repetition. */
static void time_traces(const scene_opts *o, scene_bench *b)
{
    unsigned tcounts[2] = {1, o->threads};
    int runs = o->threads > 1 ? 2 : 1;
    for (int run = 0; run < runs; run++) {
        unsigned th = tcounts[run];
#if defined(MQ_HAVE_EMBREE)
        ref_embree *e = NULL;
        if (o->embree) {
            double bms;
            e = ref_embree_create_instanced(mq_mesh_positions(b->mesh), mq_mesh_vertex_count(b->mesh),
                                            mq_mesh_indices(b->mesh), mq_mesh_triangle_count(b->mesh), b->fx,
                                            o->instances, th, &bms);
        }
#endif
        size_t mq_hits = 0;
        for (unsigned r = 0; r < o->reps; r++) {
            double a = th == 1 ? cpu_now() : bench_now();
            mq_hits = o->any ? mq_scene_raycast_any_batch(b->scene, b->rays, o->count, NULL, th, b->occluded)
                             : mq_scene_raycast_closest_batch(b->scene, b->rays, o->count, NULL, th, b->hits);
            b->mq_s[r] = (th == 1 ? cpu_now() : bench_now()) - a;
            if (th == 1)
                b->one_s[r] = single_ray_seconds(b->scene, b->rays, o->count, o->any, b->hits);
#if defined(MQ_HAVE_EMBREE)
            if (e) {
                a = th == 1 ? cpu_now() : bench_now();
                if (o->any)
                    ref_embree_occluded(e, b->frays, o->count, th, b->eocc);
                else
                    ref_embree_closest_instanced(e, b->frays, o->count, th, b->et, b->eid, b->einst);
                b->em_s[r] = (th == 1 ? cpu_now() : bench_now()) - a;
            }
#endif
        }
        double mq_rate = o->count / median_of(b->mq_s, o->reps) / 1e6;
        double one_rate = th == 1 ? o->count / median_of(b->one_s, o->reps) / 1e6 : 0;
        emit(o, "meshquery", th, "throughput", mq_rate, "Mrays/s");
        if (th == 1)
            emit(o, "meshquery", th, "throughput_single_ray_api", one_rate, "Mrays/s");
#if defined(MQ_HAVE_EMBREE)
        if (e)
            compare_with_embree(o, b, th, mq_rate, one_rate, mq_hits);
        ref_embree_destroy(e);
#endif
        (void)mq_hits;
    }
}

int bench_scene_main(int argc, char **argv)
{
    scene_opts o;
    bool done;
    int st = parse_args(argc, argv, &o, &done);
    if (st || done)
        return st;
    scene_bench b;
    memset(&b, 0, sizeof b);
    st = load_inputs(&o, &b);
    if (!st)
        st = time_commits(&o, &b);
#if defined(MQ_HAVE_EMBREE)
    if (!st)
        st = load_embree_rays(&o, &b);
#endif
    if (!st)
        time_traces(&o, &b);
    scene_bench_free(&b);
    return st;
}
