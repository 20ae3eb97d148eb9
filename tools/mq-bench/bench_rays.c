/*
 * mq-bench rays — raycast throughput of meshquery's BVH beside Embree, on the
 * same triangles and the same rays in one process.
 *
 *   mq-bench rays MESH.obj [--rays IN.rays | --generate incoherent|primary|short]
 *                 [--count N] [--any] [--threads N] [--reps R] [--quality low|medium|high]
 *                 [--leaf N] [--subdivide K] [--seed S] [--no-embree] [--json]
 *
 * Each engine builds its tree (median build time of the repetitions, on
 * --threads threads) and traces every ray --reps times (at least 5; the median
 * counts) with closest hit, or any hit with --any. meshquery runs its batch API
 * (mq_bvh_raycast_closest_batch / _any_batch), Embree rtcIntersect1 /
 * rtcOccluded1 per ray on the same number of threads (device "threads=N"), and
 * for closest hits also rtcIntersect16 on packets of 16 consecutive rays.
 * --subdivide K splits every triangle into K*K (for the large-mesh runs:
 * stanford-bunny.obj --subdivide 6 has 2.5M triangles).
 *
 * The engines are measured in turns, repetition by repetition, so that other
 * load on a shared machine hits both alike. Single-thread traces are timed in
 * process CPU time (time-slicing with other programs does not count); builds
 * and multi-thread traces in wall time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <meshquery/bvh.h>
#include <meshquery/meshquery.h>
#include <meshquery/obj.h>

#include "bench.h"
#include "dgeom.h"
#include "generate.h"
#include "ray_oracle.h"
#include "rayfile.h"
#include "subdivide.h"
#if defined(MQ_HAVE_EMBREE)
#include "ref_embree.h"
#endif

typedef struct rays_opts {
    const char *mesh_path, *rays_path, *generate;
    size_t count;
    bool any, json, embree, verbose;
    unsigned threads, reps, leaf, subdivide;
    mq_build_quality quality;
    uint64_t seed;
} rays_opts;

typedef struct geometry {
    float *positions;
    uint32_t *indices;
    size_t vertex_count, triangle_count;
} geometry;

static void usage(FILE *f)
{
    fprintf(f, "usage: mq-bench rays MESH.obj [--rays IN.rays | --generate incoherent|primary|short]\n"
               "                     [--count N] [--any] [--threads N] [--reps R] [--quality low|medium|high]\n"
               "                     [--leaf N] [--subdivide K] [--seed S] [--no-embree] [--json] [--verbose]\n"
               "  --verbose  also print the tree's shape and the work per ray\n");
}

static bool parse_quality(const char *s, mq_build_quality *q)
{
    if (!strcmp(s, "low"))
        *q = MQ_BUILD_LOW;
    else if (!strcmp(s, "medium"))
        *q = MQ_BUILD_MEDIUM;
    else if (!strcmp(s, "high"))
        *q = MQ_BUILD_HIGH;
    else
        return false;
    return true;
}

/* Returns 0 on success, else the exit status (2: usage error, 0 with *done: --help). */
static int parse_args(int argc, char **argv, rays_opts *o, bool *done)
{
    *o = (rays_opts){.generate = "incoherent",
                     .count = 1u << 20,
                     .embree = true,
                     .threads = 1,
                     .reps = 5,
                     .leaf = 4,
                     .quality = MQ_BUILD_MEDIUM,
                     .seed = 1};
    *done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            *done = true;
            return 0;
        } else if (!strcmp(a, "--any")) {
            o->any = true, takes = false;
        } else if (!strcmp(a, "--json")) {
            o->json = true, takes = false;
        } else if (!strcmp(a, "--verbose")) {
            o->verbose = true, takes = false;
        } else if (!strcmp(a, "--no-embree")) {
            o->embree = false, takes = false;
        } else if (a[0] == '-' && !v) {
            fprintf(stderr, "mq-bench rays: %s needs a value\n", a);
            return 2;
        } else if (!strcmp(a, "--rays"))
            o->rays_path = v;
        else if (!strcmp(a, "--generate"))
            o->generate = v;
        else if (!strcmp(a, "--count"))
            o->count = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--threads"))
            o->threads = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--reps"))
            o->reps = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--leaf"))
            o->leaf = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--subdivide"))
            o->subdivide = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--seed"))
            o->seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--quality")) {
            if (!parse_quality(v, &o->quality)) {
                fprintf(stderr, "mq-bench rays: unknown quality '%s'\n", v);
                return 2;
            }
        } else if (a[0] != '-' && !o->mesh_path) {
            o->mesh_path = a, takes = false;
        } else {
            fprintf(stderr, "mq-bench rays: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (takes)
            i++;
    }
    if (!o->mesh_path) {
        usage(stderr);
        return 2;
    }
    if (o->reps < 1)
        o->reps = 1;
    if (o->threads < 1)
        o->threads = 1;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Geometry: the OBJ's triangles, optionally subdivided                      */
/* ------------------------------------------------------------------------- */

static bool load_geometry(const char *path, geometry *g)
{
    mq_mesh *m = NULL;
    mq_diag d;
    if (mq_obj_load(path, NULL, &m, NULL, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench rays: %s: %s\n", path, d.message);
        return false;
    }
    g->vertex_count = mq_mesh_vertex_count(m);
    g->triangle_count = mq_mesh_triangle_count(m);
    g->positions = malloc(g->vertex_count * 3 * sizeof(float) + 1);
    g->indices = malloc(g->triangle_count * 3 * sizeof(uint32_t) + 1);
    if (g->positions && g->indices) {
        memcpy(g->positions, mq_mesh_positions(m), g->vertex_count * 3 * sizeof(float));
        memcpy(g->indices, mq_mesh_indices(m), g->triangle_count * 3 * sizeof(uint32_t));
    }
    mq_mesh_destroy(m);
    return g->positions && g->indices;
}

/* Replaces g by its K*K subdivision (tools/common/subdivide.h). */
static bool subdivide(geometry *g, unsigned K)
{
    mqt_geometry_view in = {g->positions, g->indices, g->vertex_count, g->triangle_count};
    mqt_geometry out;
    if (!mqt_subdivide(&in, K, &out))
        return false;
    free(g->positions);
    free(g->indices);
    *g = (geometry){out.positions, out.indices, out.vertex_count, out.triangle_count};
    return true;
}

/* ------------------------------------------------------------------------- */
/* Rays                                                                      */
/* ------------------------------------------------------------------------- */

static mq_ray *make_rays(const rays_opts *o, const geometry *g, size_t *count, const char **input)
{
    if (o->rays_path) {
        mq_ray *rays = NULL;
        char err[512];
        if (!mqt_read_rays(o->rays_path, &rays, count, err, sizeof err)) {
            fprintf(stderr, "mq-bench rays: %s\n", err);
            return NULL;
        }
        const char *slash = strrchr(o->rays_path, '/');
        *input = slash ? slash + 1 : o->rays_path;
        return rays;
    }
    mq_aabb box;
    mqt_bounds(g->positions, g->vertex_count, &box);
    bool primary = !strcmp(o->generate, "primary");
    if (!primary && strcmp(o->generate, "incoherent") && strcmp(o->generate, "short")) {
        fprintf(stderr, "mq-bench rays: unknown ray kind '%s'\n", o->generate);
        return NULL;
    }
    *count = primary ? 1024 * 1024 : o->count;
    mq_ray *rays = malloc(*count * sizeof *rays + 1);
    if (!rays)
        return NULL;
    if (primary)
        mqt_generate_primary(&box, 1024, 1024, rays);
    else if (!strcmp(o->generate, "incoherent"))
        mqt_generate_incoherent(&box, *count, o->seed, rays);
    else
        mqt_generate_short(&box, *count, o->seed, rays);
    *input = o->generate;
    return rays;
}

/* Primary rays regrouped in 4x4 pixel tiles, so 16 consecutive rays are a
 * coherent packet for rtcIntersect16 (and the same order for meshquery). */
static void tile_primary(mq_ray *rays, size_t count)
{
    if (count != 1024 * 1024)
        return;
    mq_ray *tmp = malloc(count * sizeof *tmp);
    if (!tmp)
        return;
    size_t o = 0;
    for (unsigned ty = 0; ty < 1024; ty += 4)
        for (unsigned tx = 0; tx < 1024; tx += 4)
            for (unsigned y = ty; y < ty + 4; y++)
                for (unsigned x = tx; x < tx + 4; x++)
                    tmp[o++] = rays[(size_t)y * 1024 + x];
    memcpy(rays, tmp, count * sizeof *tmp);
    free(tmp);
}

/* ------------------------------------------------------------------------- */
/* Measurements                                                              */
/* ------------------------------------------------------------------------- */

typedef struct engine_result {
    double build_ms, bytes_per_tri, mrays, mrays_alt;
    float *t;     /* closest: t per ray */
    uint32_t *id; /* closest: triangle per ray */
    bool *occl;   /* any */
} engine_result;

static void emit(const rays_opts *o, const char *engine, const char *input, const char *metric, double value,
                 const char *unit)
{
    const char *slash = strrchr(o->mesh_path, '/');
    const char *mesh = slash ? slash + 1 : o->mesh_path;
    if (o->json)
        printf("{\"bench\":\"rays\",\"engine\":\"%s\",\"mesh\":\"%s\",\"subdivide\":%u,\"input\":\"%s\","
               "\"query\":\"%s\",\"threads\":%u,\"isa\":\"%s\",\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\"}\n",
               engine, mesh, o->subdivide, input, o->any ? "any" : "closest", o->threads, bench_engine_isa(engine),
               metric, value, unit);
    else
        printf("  %-10s %-30s %10.4f %s\n", engine, metric, value, unit);
}

/* Tree shape and traversal work per ray (on stderr, beside the measurements). */
static void print_tree_stats(const mq_bvh *bvh, const mq_ray *rays, size_t n, bool any)
{
    mq_bvh_stats s;
    mq_bvh_get_stats(bvh, &s);
    fprintf(stderr,
            "  tree: %llu nodes, %llu leaves, %llu blocks, depth %u, SAH %.2f, %.2f tris/leaf, %.2f children/node\n",
            (unsigned long long)s.node_count, (unsigned long long)s.leaf_count, (unsigned long long)s.block_count,
            s.max_depth, s.sah_cost, s.avg_leaf_size, s.avg_children);
    mq_ray_stats rs = {0, 0, 0};
    mq_ray_query q = mq_default_ray_query();
    q.stats = &rs;
    size_t m = n < 100000 ? n : 100000;
    for (size_t i = 0; i < m; i++) {
        if (any)
            mq_bvh_raycast_any(bvh, &rays[i], &q);
        else
            mq_bvh_raycast_closest(bvh, &rays[i], &q, NULL);
    }
    fprintf(stderr, "  per ray: %.2f nodes, %.2f leaves, %.2f triangle tests\n", (double)rs.node_visits / m,
            (double)rs.leaf_visits / m, (double)rs.triangle_tests / m);
}

/*
 * An engine under test: build once (returns ms), trace all rays once (returns
 * seconds), optionally trace with packets. The measurement loop interleaves
 * the engines repetition by repetition, so load from other processes on a
 * shared machine hits both alike and the ratio stays meaningful.
 */
typedef struct engine {
    const char *name;
    void *ctx;
    bool (*build)(void *ctx, double *ms);
    double (*trace)(void *ctx);
    double (*trace_alt)(void *ctx); /* a second way to trace, NULL when not measured */
    const char *alt_metric;         /* its metric name */
    engine_result res;
} engine;

typedef struct job {
    const rays_opts *o;
    const geometry *g;
    const mq_ray *rays;
    size_t n;
} job;

typedef struct mq_engine_ctx {
    job j;
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_hit *hits;
    engine_result *res;
} mq_engine_ctx;

/* Seconds of CPU time of this process: single-thread traces are timed with it,
 * so other programs sharing the machine do not count against either engine. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The clock for traces: CPU time on one thread, wall time on several. */
static double trace_clock(const rays_opts *o)
{
    return o->threads == 1 ? cpu_now() : bench_now();
}

static bool mq_build(void *p, double *ms)
{
    mq_engine_ctx *c = p;
    const rays_opts *o = c->j.o;
    if (!c->mesh && mq_mesh_create(c->j.g->positions, c->j.g->vertex_count, c->j.g->indices, c->j.g->triangle_count,
                                   NULL, &c->mesh, NULL) != MQ_OK)
        return false;
    mq_bvh_def def = mq_default_bvh_def();
    def.quality = o->quality;
    def.max_leaf_size = o->leaf;
    def.threads = o->threads;
    mq_bvh_destroy(c->bvh);
    c->bvh = NULL;
    double t0 = bench_now();
    if (mq_bvh_build(c->mesh, &def, &c->bvh, NULL) != MQ_OK)
        return false;
    *ms = 1e3 * (bench_now() - t0);
    c->res->bytes_per_tri = (double)mq_bvh_byte_count(c->bvh) / (double)c->j.g->triangle_count;
    return true;
}

static double mq_trace(void *p)
{
    mq_engine_ctx *c = p;
    const job *j = &c->j;
    double t0 = trace_clock(j->o);
    if (j->o->any)
        mq_bvh_raycast_any_batch(c->bvh, j->rays, j->n, NULL, j->o->threads, c->res->occl);
    else
        mq_bvh_raycast_closest_batch(c->bvh, j->rays, j->n, NULL, j->o->threads, c->hits);
    return trace_clock(j->o) - t0;
}

/* The single-ray API in a plain loop (one thread), for comparison with the batch. */
static double mq_trace_single(void *p)
{
    mq_engine_ctx *c = p;
    const job *j = &c->j;
    double t0 = trace_clock(j->o);
    for (size_t i = 0; i < j->n; i++)
        if (j->o->any)
            c->res->occl[i] = mq_bvh_raycast_any(c->bvh, &j->rays[i], NULL);
        else
            mq_bvh_raycast_closest(c->bvh, &j->rays[i], NULL, &c->hits[i]);
    return trace_clock(j->o) - t0;
}

#if defined(MQ_HAVE_EMBREE)
typedef struct em_engine_ctx {
    job j;
    ref_embree *e;
    engine_result *res;
} em_engine_ctx;

static bool em_build(void *p, double *ms)
{
    em_engine_ctx *c = p;
    const geometry *g = c->j.g;
    size_t bytes = 0;
    ref_embree_destroy(c->e);
    c->e = ref_embree_create(g->positions, g->vertex_count, g->indices, g->triangle_count, c->j.o->threads, ms, &bytes);
    c->res->bytes_per_tri = (double)bytes / (double)g->triangle_count;
    return c->e != NULL;
}

static double em_trace(void *p)
{
    em_engine_ctx *c = p;
    const job *j = &c->j;
    double t0 = trace_clock(j->o);
    if (j->o->any)
        ref_embree_occluded(c->e, j->rays, j->n, j->o->threads, c->res->occl);
    else
        ref_embree_closest(c->e, j->rays, j->n, j->o->threads, c->res->t, c->res->id);
    return trace_clock(j->o) - t0;
}

static double em_trace16(void *p)
{
    em_engine_ctx *c = p;
    const job *j = &c->j;
    float *t = malloc(j->n * sizeof *t);
    uint32_t *id = malloc(j->n * sizeof *id);
    double t0 = trace_clock(j->o);
    ref_embree_closest16(c->e, j->rays, j->n, j->o->threads, t, id);
    double s = trace_clock(j->o) - t0;
    free(t);
    free(id);
    return s;
}
#endif

static bool alloc_answers(engine_result *r, size_t n, bool any)
{
    if (any)
        r->occl = malloc(n * sizeof *r->occl + 1);
    else {
        r->t = malloc(n * sizeof *r->t + 1);
        r->id = malloc(n * sizeof *r->id + 1);
    }
    return any ? r->occl != NULL : r->t && r->id;
}

/* Builds and traces every engine `reps` times, interleaved; fills each res. */
static bool measure(const rays_opts *o, engine *e, int count, size_t n)
{
    unsigned reps = o->reps;
    double *ms = calloc((size_t)reps * count, sizeof *ms), *rate = calloc((size_t)reps * count, sizeof *rate);
    double *prate = calloc((size_t)reps * count, sizeof *prate);
    bool ok = ms && rate && prate;
    for (unsigned k = 0; k < reps && ok; k++)
        for (int i = 0; i < count && ok; i++)
            ok = e[i].build(e[i].ctx, &ms[i * reps + k]);
    for (unsigned k = 0; k < reps && ok; k++)
        for (int i = 0; i < count; i++) {
            rate[i * reps + k] = (double)n / e[i].trace(e[i].ctx) * 1e-6;
            if (e[i].trace_alt)
                prate[i * reps + k] = (double)n / e[i].trace_alt(e[i].ctx) * 1e-6;
        }
    for (int i = 0; i < count && ok; i++) {
        e[i].res.build_ms = bench_median(ms + i * reps, reps);
        e[i].res.mrays = bench_median(rate + i * reps, reps);
        e[i].res.mrays_alt = e[i].trace_alt ? bench_median(prate + i * reps, reps) : 0.0;
    }
    free(ms);
    free(rate);
    free(prate);
    return ok;
}

/* Rays whose answers differ, and among them those that are not ties (same t
 * within 1e-4 relative: shared edges, coplanar duplicates). */
static void count_differences(const rays_opts *o, const engine_result *a, const engine_result *b, size_t n,
                              size_t *diff, size_t *real)
{
    *diff = *real = 0;
    for (size_t i = 0; i < n; i++) {
        if (o->any) {
            *diff += a->occl[i] != b->occl[i];
            *real += a->occl[i] != b->occl[i];
            continue;
        }
        if (a->id[i] == b->id[i])
            continue;
        (*diff)++;
        if (!(fabsf(a->t[i] - b->t[i]) <= 1e-4f * fmaxf(1.0f, fabsf(a->t[i]))))
            (*real)++;
    }
}

/* The mesh's triangle i in double, for the oracle (ray_oracle.h). */
static void dtriangle(const void *ctx, size_t i, double v[3][3])
{
    const geometry *g = ctx;
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            v[c][k] = (double)g->positions[3 * (size_t)g->indices[3 * i + c] + k];
}

/* Prints one judged ray (--verbose), with the |cos| of the angle between the
 * ray and the oracle's triangle (else the one engine's that is not right). */
static void print_verdict(const rays_opts *o, const geometry *g, const dray *r, size_t i, const engine_result *a,
                          const engine_result *b, const oracle_answer *ans, const oracle_verdict *v)
{
    double cosang = NAN;
    uint32_t nid = ans->id != UINT32_MAX ? ans->id : !o->any ? (v->mq_right ? b->id[i] : a->id[i]) : UINT32_MAX;
    if (nid != UINT32_MAX && nid < g->triangle_count) {
        double t[3][3], e1[3], e2[3], nn[3];
        dtriangle(g, nid, t);
        d3_sub(t[1], t[0], e1), d3_sub(t[2], t[0], e2), d3_cross(e1, e2, nn);
        cosang = fabs(d3_dot(nn, r->d)) / sqrt(d3_dot(nn, nn) * d3_dot(r->d, r->d));
    }
    if (o->any)
        fprintf(stderr, "  ray %zu: meshquery %s, embree %s, double %s (best margin %.3g, edge %.3g)%s\n", i,
                a->occl[i] ? "hit" : "miss", b->occl[i] ? "hit" : "miss", ans->id != UINT32_MAX ? "hit" : "miss",
                ans->margin, ans->edge, v->grazing ? " grazing" : "");
    else
        fprintf(stderr,
                "  ray %zu: meshquery tri %u t %.9g (margin %.3g), embree tri %u t %.9g (margin %.3g), "
                "double tri %u t %.9g (margin %.3g, edge %.3g), |cos| %.3g: %s%s%s\n",
                i, a->id[i], (double)a->t[i], v->mq_margin, b->id[i], (double)b->t[i], v->em_margin, ans->id, ans->t,
                ans->margin, ans->edge, cosang,
                v->mq_right   ? "meshquery right"
                : v->em_right ? "embree right"
                              : "neither",
                (v->mq_right && v->mq_tie) || (v->em_right && v->em_tie) ? " (edge tie)" : "",
                v->grazing ? ", grazing" : "");
}

/* Classifies each differing, non-tie ray (the `real` ones of
 * count_differences) by the double-precision brute-force oracle over the
 * mesh (ray_oracle.c). a = meshquery, b = Embree. */
static oracle_counts oracle_classify(const rays_opts *o, const geometry *g, const mq_ray *rays, const engine_result *a,
                                     const engine_result *b, size_t n)
{
    oracle_counts c = {0, 0, 0, 0, 0, 0};
    oracle_triangles mesh = {g->triangle_count, dtriangle, g};
    for (size_t i = 0; i < n; i++) {
        if (o->any ? a->occl[i] == b->occl[i]
                   : a->id[i] == b->id[i] || fabsf(a->t[i] - b->t[i]) <= 1e-4f * fmaxf(1.0f, fabsf(a->t[i])))
            continue;
        const mq_ray *fr = &rays[i];
        dray r = {
            {fr->origin[0], fr->origin[1], fr->origin[2]}, {fr->dir[0], fr->dir[1], fr->dir[2]}, fr->tmin, fr->tmax};
        oracle_answer ans = oracle_trace(&r, &mesh);
        oracle_verdict v;
        if (o->any) {
            v = oracle_judge_any(&ans, a->occl[i], b->occl[i]);
        } else {
            double ta[3][3], tb[3][3];
            bool ha = a->id[i] < g->triangle_count, hb = b->id[i] < g->triangle_count; /* else a miss */
            if (ha)
                dtriangle(g, a->id[i], ta);
            if (hb)
                dtriangle(g, b->id[i], tb);
            v = oracle_judge_closest(&r, &ans, ha ? ta : NULL, a->t[i], hb ? tb : NULL, b->t[i]);
        }
        oracle_count(&c, &v);
        if (o->verbose)
            print_verdict(o, g, &r, i, a, b, &ans, &v);
    }
    return c;
}

static void free_result(engine_result *r)
{
    free(r->t);
    free(r->id);
    free(r->occl);
}

static void report(const rays_opts *o, const geometry *g, const mq_ray *rays, const char *input, engine *e, int count,
                   size_t n)
{
    const engine_result *mq = &e[0].res;
    emit(o, "meshquery", input, "build_ms", mq->build_ms, "ms");
    emit(o, "meshquery", input, "bytes_per_triangle", mq->bytes_per_tri, "B");
    emit(o, "meshquery", input, "throughput", mq->mrays, "Mrays/s");
    if (e[0].trace_alt)
        emit(o, "meshquery", input, e[0].alt_metric, mq->mrays_alt, "Mrays/s");
    if (count < 2)
        return;
    const engine_result *em = &e[1].res;
    emit(o, "embree", input, "build_ms", em->build_ms, "ms");
    emit(o, "embree", input, "bytes_per_triangle", em->bytes_per_tri, "B");
    emit(o, "embree", input, "throughput", em->mrays, "Mrays/s");
    if (e[1].trace_alt)
        emit(o, "embree", input, e[1].alt_metric, em->mrays_alt, "Mrays/s");
    emit(o, "meshquery", input, "ratio_vs_embree", mq->mrays / em->mrays, "x");
    if (e[1].trace_alt)
        emit(o, "meshquery", input, "ratio_vs_embree_packet16", mq->mrays / em->mrays_alt, "x");
    if (e[0].trace_alt) {
        emit(o, "meshquery", input, "single_ray_api_ratio_vs_embree", mq->mrays_alt / em->mrays, "x");
        if (o->any) /* the same figure under its own name: one mq_bvh_raycast_any per ray vs rtcOccluded1 */
            emit(o, "meshquery", input, "any_hit_single_ray_api_ratio_vs_embree", mq->mrays_alt / em->mrays, "x");
    }
    emit(o, "meshquery", input, "build_ratio_vs_embree", mq->build_ms / em->build_ms, "x");
    emit(o, "meshquery", input, "memory_ratio_vs_embree", mq->bytes_per_tri / em->bytes_per_tri, "x");
    size_t diff, real;
    count_differences(o, mq, em, n, &diff, &real);
    emit(o, "meshquery", input, "answers_differing_from_embree", (double)diff, "rays");
    emit(o, "meshquery", input, "answers_differing_not_ties", (double)real, "rays");
    /* Who is right on those, by the double-precision brute-force oracle. */
    oracle_counts oc = oracle_classify(o, g, rays, mq, em, n);
    oracle_metric m[ORACLE_METRICS];
    oracle_metrics(&oc, m);
    for (int k = 0; k < ORACLE_METRICS; k++)
        emit(o, "meshquery", input, m[k].name, m[k].value, "rays");
}

static int run_engines(const rays_opts *o, const geometry *g, const mq_ray *rays, size_t n, const char *input)
{
    job j = {o, g, rays, n};
    engine e[2];
    int count = 0;
    mq_engine_ctx mqc = {.j = j};
    e[count++] = (engine){"meshquery",
                          &mqc,
                          mq_build,
                          mq_trace,
                          o->threads == 1 ? mq_trace_single : NULL,
                          "throughput_single_ray_api",
                          {0, 0, 0, 0, NULL, NULL, NULL}};
#if defined(MQ_HAVE_EMBREE)
    em_engine_ctx emc = {.j = j};
    if (o->embree)
        e[count++] = (engine){"embree",
                              &emc,
                              em_build,
                              em_trace,
                              o->any ? NULL : em_trace16,
                              "throughput_packet16",
                              {0, 0, 0, 0, NULL, NULL, NULL}};
    emc.res = &e[1].res;
#endif
    mqc.res = &e[0].res;
    bool ok = true;
    for (int i = 0; i < count; i++)
        ok = ok && alloc_answers(&e[i].res, n, o->any);
    mqc.hits = o->any ? NULL : malloc(n * sizeof *mqc.hits + 1);
    ok = ok && (o->any || mqc.hits) && measure(o, e, count, n);
    if (ok) {
        if (mqc.hits)
            for (size_t i = 0; i < n; i++) {
                e[0].res.t[i] = mqc.hits[i].t;
                e[0].res.id[i] = mqc.hits[i].triangle;
            }
        if (o->verbose)
            print_tree_stats(mqc.bvh, rays, n, o->any);
        report(o, g, rays, input, e, count, n);
    } else {
        fprintf(stderr, "mq-bench rays: out of memory or a build failed\n");
    }
    free(mqc.hits);
    mq_bvh_destroy(mqc.bvh);
    mq_mesh_destroy(mqc.mesh);
#if defined(MQ_HAVE_EMBREE)
    ref_embree_destroy(emc.e);
#endif
    for (int i = 0; i < count; i++)
        free_result(&e[i].res);
    return ok ? 0 : 1;
}

static int run(const rays_opts *o)
{
    geometry g = {0};
    if (!load_geometry(o->mesh_path, &g))
        return 1;
    if (o->subdivide > 1 && !subdivide(&g, o->subdivide)) {
        fprintf(stderr, "mq-bench rays: out of memory subdividing\n");
        return 1;
    }
    size_t n = 0;
    const char *input = NULL;
    mq_ray *rays = make_rays(o, &g, &n, &input);
    int status = 1;
    if (rays) {
        if (!strcmp(input, "primary"))
            tile_primary(rays, n);
        if (!o->json)
            printf("mq-bench rays: %s, %zu triangles; %zu %s rays, %s hit; %u thread(s), median of %u\n", o->mesh_path,
                   g.triangle_count, n, input, o->any ? "any" : "closest", o->threads, o->reps);
        status = run_engines(o, &g, rays, n, input);
    }
    free(rays);
    free(g.positions);
    free(g.indices);
    return status;
}

int bench_rays_main(int argc, char **argv)
{
    rays_opts o;
    bool done;
    int st = parse_args(argc, argv, &o, &done);
    if (st || done)
        return st;
    return run(&o);
}
