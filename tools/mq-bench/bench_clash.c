/*
 * mq-bench clash — clash detection over a scene of placed meshes: every pair
 * of instances that intersect or come within a clearance. meshquery's
 * mq_scene_clash (meshquery/clash.h) beside FCL's DynamicAABBTreeCollisionManager
 * with fcl::collide (and fcl::distance for a clearance) as the narrowphase,
 * when built with FCL; same instances, one process.
 *
 *   mq-bench clash MESH.obj [MORE.obj ...] [--instances N] [--clearance D] [--spread S]
 *                  [--hierarchy aabb|obb] [--threads N] [--reps R] [--seed S] [--no-fcl] [--json]
 *
 * Instances (N, default 1000): instance i is mesh i mod M (the meshes in the
 * order given), scaled to a diagonal of 1 so mixed meshes are alike in size
 * (the scaling is applied to the vertices before anything is built), a
 * uniform rotation and a position uniform in a cube of side S * cbrt(N)
 * (default S = 1.5: a few neighbours each, some of them clashing). The
 * clearance D is in those units (a fraction of a diagonal; default 0:
 * intersecting or touching pairs).
 * Timing: the clash query proper, process CPU time, the median of --reps (at
 * least 3) runs in turns; meshquery's scene commit and FCL's broadphase
 * setup are reported apart (setup_ms). meshquery runs on --threads threads
 * (default 1, as FCL).
 * Answers: the sorted pair lists are compared; every pair only one engine
 * reports is decided in double with the triangle pair that engine names
 * (both triangles mapped to the world in double): the engine is right when
 * that pair is within the clearance (1e-6 of a diagonal allowed), so a pair
 * FCL names and meshquery misses is meshquery's error (decided_reference_right).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <meshquery/meshquery.h>

#include "bench.h"
#include "dgeom.h"
#include "generate.h"
#if defined(MQ_HAVE_FCL)
#include "ref_fcl.h"
#endif

int bench_clash_main(int argc, char **argv);

#define MESHES_MAX 16

typedef struct clash_opts {
    const char *paths[MESHES_MAX];
    int mesh_count;
    size_t instances;
    double clearance, spread;
    bool obb, fcl, json;
    unsigned threads, reps;
    uint64_t seed;
} clash_opts;

/* A pair of instances with the triangles that witness it. */
typedef struct clash_pair {
    uint32_t a, b, ta, tb;
    double distance;
} clash_pair;

typedef struct pair_list {
    clash_pair *p;
    size_t n, cap;
} pair_list;

typedef struct world {
    const clash_opts *o;
    mq_mesh *mesh[MESHES_MAX];
    mq_bvh *bvh[MESHES_MAX];
    mq_obbtree *tree[MESHES_MAX];
    double *xf; /* 12 per instance, row-major 3x4 */
    mq_scene *scene;
} world;

static void emit(const clash_opts *o, const char *engine, const char *metric, double value, const char *unit)
{
    if (o->json) {
        const char *slash = strrchr(o->paths[0], '/');
        printf("{\"bench\":\"clash\",\"engine\":\"%s\",\"mesh\":\"%s\",\"meshes\":%d,\"instances\":%zu,"
               "\"clearance\":%.6g,\"hierarchy\":\"%s\",\"threads\":%u,\"metric\":\"%s\",\"value\":%.6g,"
               "\"unit\":\"%s\"}\n",
               engine, slash ? slash + 1 : o->paths[0], o->mesh_count, o->instances, o->clearance,
               o->obb ? "obb" : "aabb", o->threads, metric, value, unit);
    } else {
        printf("  %-12s %-34s %14.4f %s\n", engine, metric, value, unit);
    }
}

static int parse_args(int argc, char **argv, clash_opts *o)
{
    *o = (clash_opts){.instances = 1000, .spread = 1.5, .obb = true, .fcl = true, .threads = 1, .reps = 5, .seed = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--json"))
            o->json = true;
        else if (!strcmp(a, "--no-fcl"))
            o->fcl = false;
        else if (a[0] != '-') {
            if (o->mesh_count == MESHES_MAX) {
                fprintf(stderr, "mq-bench clash: at most %d meshes\n", MESHES_MAX);
                return 2;
            }
            o->paths[o->mesh_count++] = a;
        } else {
            i++;
            if (!strcmp(a, "--instances"))
                o->instances = strtoull(v, NULL, 10);
            else if (!strcmp(a, "--clearance"))
                o->clearance = strtod(v, NULL);
            else if (!strcmp(a, "--spread"))
                o->spread = strtod(v, NULL);
            else if (!strcmp(a, "--hierarchy"))
                o->obb = !strcmp(v, "obb");
            else if (!strcmp(a, "--threads"))
                o->threads = (unsigned)strtoul(v, NULL, 10);
            else if (!strcmp(a, "--reps"))
                o->reps = (unsigned)strtoul(v, NULL, 10);
            else if (!strcmp(a, "--seed"))
                o->seed = strtoull(v, NULL, 0);
        }
    }
    if (!o->mesh_count) {
        fprintf(stderr, "mq-bench clash: no MESH.obj given\nTry 'mq-bench clash --help'.\n");
        return 2;
    }
    o->reps = o->reps < 3 ? 3 : o->reps > 64 ? 64 : o->reps;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* The scene                                                                 */
/* ------------------------------------------------------------------------- */

/* Loads a mesh and scales it about its box centre to a diagonal of 1. */
static bool load_unit(const char *path, mq_mesh **out)
{
    mq_diag d;
    mq_mesh *m;
    if (mq_obj_load(path, NULL, &m, NULL, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench clash: %s: %s\n", path, d.message);
        return false;
    }
    mq_aabb box;
    size_t nv = mq_mesh_vertex_count(m), nt = mq_mesh_triangle_count(m);
    mqt_bounds(mq_mesh_positions(m), nv, &box);
    double d2 = 0, c[3];
    for (int k = 0; k < 3; k++) {
        d2 += ((double)box.max[k] - box.min[k]) * ((double)box.max[k] - box.min[k]);
        c[k] = 0.5 * ((double)box.min[k] + box.max[k]);
    }
    double s = d2 > 0 ? 1.0 / sqrt(d2) : 1.0;
    float *p = malloc(3 * nv * sizeof *p + 1);
    if (!p) {
        mq_mesh_destroy(m);
        return false;
    }
    const float *src = mq_mesh_positions(m);
    for (size_t i = 0; i < nv; i++)
        for (int k = 0; k < 3; k++)
            p[3 * i + (size_t)k] = (float)((src[3 * i + (size_t)k] - c[k]) * s);
    mq_status st = mq_mesh_create(p, nv, mq_mesh_indices(m), nt, NULL, out, &d);
    free(p);
    mq_mesh_destroy(m);
    if (st != MQ_OK)
        fprintf(stderr, "mq-bench clash: %s: %s\n", path, d.message);
    return st == MQ_OK;
}

static void make_transforms(const clash_opts *o, double *xf)
{
    mqt_rng r;
    mqt_rng_seed(&r, o->seed);
    double side = o->spread * cbrt((double)o->instances);
    for (size_t i = 0; i < o->instances; i++) {
        double u1 = mqt_rng_unit(&r), u2 = 6.283185307179586 * mqt_rng_unit(&r),
               u3 = 6.283185307179586 * mqt_rng_unit(&r);
        double s = sqrt(1.0 - u1), c = sqrt(u1);
        double w = c * cos(u3), x = s * sin(u2), y = s * cos(u2), z = c * sin(u3);
        double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                          {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                          {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
        double *m = xf + 12 * i;
        for (int row = 0; row < 3; row++) {
            for (int col = 0; col < 3; col++)
                m[4 * row + col] = R[row][col];
            m[4 * row + 3] = side * mqt_rng_unit(&r);
        }
    }
}

static bool build_world(const clash_opts *o, world *w)
{
    for (int k = 0; k < o->mesh_count; k++) {
        if (!load_unit(o->paths[k], &w->mesh[k]))
            return false;
        mq_obbtree_def od = mq_default_obbtree_def();
        mq_bvh_def bd = mq_default_bvh_def();
        if (o->obb ? mq_obbtree_build(w->mesh[k], &od, &w->tree[k], NULL) != MQ_OK
                   : mq_bvh_build(w->mesh[k], &bd, &w->bvh[k], NULL) != MQ_OK)
            return false;
    }
    w->xf = malloc(12 * o->instances * sizeof *w->xf);
    if (!w->xf || mq_scene_create(NULL, &w->scene, NULL) != MQ_OK)
        return false;
    make_transforms(o, w->xf);
    double t0 = bench_now();
    for (size_t i = 0; i < o->instances; i++) {
        mq_instance_def def = mq_default_instance_def();
        int k = (int)(i % (size_t)o->mesh_count);
        def.bvh = w->bvh[k];
        def.obbtree = w->tree[k];
        memcpy(def.transform.m, w->xf + 12 * i, sizeof def.transform.m);
        uint32_t id;
        if (mq_scene_add(w->scene, &def, &id, NULL) != MQ_OK)
            return false;
    }
    if (mq_scene_commit(w->scene, NULL) != MQ_OK)
        return false;
    emit(o, "meshquery", "setup_ms", 1e3 * (bench_now() - t0), "ms");
    return true;
}

static void free_world(world *w)
{
    mq_scene_destroy(w->scene);
    for (int k = 0; k < MESHES_MAX; k++) {
        mq_bvh_destroy(w->bvh[k]);
        mq_obbtree_destroy(w->tree[k]);
        mq_mesh_destroy(w->mesh[k]);
    }
    free(w->xf);
}

/* ------------------------------------------------------------------------- */
/* Engines                                                                   */
/* ------------------------------------------------------------------------- */

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool reserve(pair_list *l, size_t n)
{
    if (n <= l->cap)
        return true;
    clash_pair *p = realloc(l->p, n * sizeof *p);
    if (!p)
        return false;
    l->p = p, l->cap = n;
    return true;
}

static bool run_meshquery(const world *w, pair_list *out)
{
    mq_clash_options opts = mq_default_clash_options();
    opts.clearance = w->o->clearance;
    opts.threads = w->o->threads;
    mq_clash_list *list;
    if (mq_scene_clash(w->scene, &opts, &list, NULL) != MQ_OK)
        return false;
    size_t n = mq_clash_list_count(list);
    bool ok = reserve(out, n);
    out->n = ok ? n : 0;
    for (size_t i = 0; ok && i < n; i++) {
        const mq_clash *c = mq_clash_list_get(list, i);
        out->p[i] = (clash_pair){c->instance_a, c->instance_b, c->triangle_a, c->triangle_b, c->distance};
    }
    mq_clash_list_destroy(list);
    return ok;
}

#if defined(MQ_HAVE_FCL)
/* The pairs of the last timed FCL run, copied for the comparison (no query run again). */
static bool copy_fcl(const ref_fcl_scene *s, size_t n, pair_list *out)
{
    if (!reserve(out, n))
        return false;
    const ref_fcl_clash *p = ref_fcl_scene_pairs(s);
    for (size_t i = 0; i < n; i++)
        out->p[i] = (clash_pair){p[i].a, p[i].b, p[i].triangle_a, p[i].triangle_b, p[i].distance};
    out->n = n;
    return true;
}
#endif

#if defined(MQ_HAVE_FCL) /* the pairs are compared only with FCL's */
static int cmp_pair(const void *x, const void *y)
{
    const clash_pair *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* ------------------------------------------------------------------------- */
/* The double oracle                                                         */
/* ------------------------------------------------------------------------- */

static void world_triangle(const world *w, uint32_t inst, uint32_t t, double out[3][3])
{
    const mq_mesh *m = w->mesh[inst % (uint32_t)w->o->mesh_count];
    const float *p = mq_mesh_positions(m);
    const uint32_t *ix = mq_mesh_indices(m);
    const double *x = w->xf + 12 * (size_t)inst;
    for (int c = 0; c < 3; c++) {
        const float *v = p + 3 * (size_t)ix[3 * (size_t)t + (size_t)c];
        for (int r = 0; r < 3; r++)
            out[c][r] = x[4 * r] * v[0] + x[4 * r + 1] * v[1] + x[4 * r + 2] * v[2] + x[4 * r + 3];
    }
}

/* Whether the pair's named triangles are within the clearance, in double. */
static bool witness_holds(const world *w, const clash_pair *p)
{
    const mq_mesh *ma = w->mesh[p->a % (uint32_t)w->o->mesh_count], *mb = w->mesh[p->b % (uint32_t)w->o->mesh_count];
    if (p->ta >= mq_mesh_triangle_count(ma) || p->tb >= mq_mesh_triangle_count(mb))
        return false;
    double ta[3][3], tb[3][3];
    world_triangle(w, p->a, p->ta, ta);
    world_triangle(w, p->b, p->tb, tb);
    return triangle_distance(ta, tb) <= w->o->clearance + 1e-6;
}

typedef struct verdicts {
    size_t only_mine, only_theirs, mine_right, theirs_right;
} verdicts;

static verdicts compare(const world *w, pair_list *mine, pair_list *theirs)
{
    qsort(mine->p, mine->n, sizeof *mine->p, cmp_pair);
    qsort(theirs->p, theirs->n, sizeof *theirs->p, cmp_pair);
    verdicts v = {0};
    size_t i = 0, j = 0;
    while (i < mine->n || j < theirs->n) {
        int c = i == mine->n ? 1 : j == theirs->n ? -1 : cmp_pair(&mine->p[i], &theirs->p[j]);
        if (c == 0) {
            i++, j++;
        } else if (c < 0) {
            v.only_mine++;
            v.mine_right += witness_holds(w, &mine->p[i++]);
        } else {
            v.only_theirs++;
            v.theirs_right += witness_holds(w, &theirs->p[j++]);
        }
    }
    return v;
}
#endif

/* ------------------------------------------------------------------------- */
/* Run                                                                       */
/* ------------------------------------------------------------------------- */

static int run(const clash_opts *o, world *w)
{
    pair_list mine = {0}, theirs = {0};
    double mq_s[64], fcl_s[64];
    bool have_fcl = false, ok = true;
    size_t fcl_n = 0;
#if defined(MQ_HAVE_FCL)
    ref_fcl *models[MESHES_MAX] = {0};
    ref_fcl **per_instance = malloc(o->instances * sizeof *per_instance);
    ref_fcl_scene *fs = NULL;
    if (o->fcl && per_instance) {
        for (int k = 0; k < o->mesh_count; k++)
            models[k] =
                ref_fcl_create(mq_mesh_positions(w->mesh[k]), mq_mesh_vertex_count(w->mesh[k]),
                               mq_mesh_indices(w->mesh[k]), mq_mesh_triangle_count(w->mesh[k]), REF_FCL_OBBRSS, NULL);
        for (size_t i = 0; i < o->instances; i++)
            per_instance[i] = models[i % (size_t)o->mesh_count];
        double setup_ms = 0;
        fs = ref_fcl_scene_create(per_instance, w->xf, o->instances, o->clearance, &setup_ms);
        have_fcl = fs != NULL;
        if (have_fcl)
            emit(o, "fcl", "setup_ms", setup_ms, "ms");
    }
#endif
    for (unsigned r = 0; r < o->reps && ok; r++) {
        double t0 = cpu_now();
        ok = run_meshquery(w, &mine);
        mq_s[r] = cpu_now() - t0;
#if defined(MQ_HAVE_FCL)
        if (have_fcl) {
            t0 = cpu_now();
            fcl_n = ref_fcl_scene_clash(fs);
            fcl_s[r] = cpu_now() - t0;
        }
#endif
    }
    if (ok) {
        double mq_ms = 1e3 * bench_median(mq_s, o->reps);
        emit(o, "meshquery", "clash_ms", mq_ms, "ms");
        emit(o, "meshquery", "pairs", (double)mine.n, "pairs");
        size_t touching = 0;
        for (size_t i = 0; i < mine.n; i++)
            touching += mine.p[i].distance == 0;
        emit(o, "meshquery", "intersecting_pairs", (double)touching, "pairs");
#if defined(MQ_HAVE_FCL)
        if (have_fcl && copy_fcl(fs, fcl_n, &theirs)) {
            double fcl_ms = 1e3 * bench_median(fcl_s, o->reps);
            emit(o, "fcl", "clash_ms", fcl_ms, "ms");
            emit(o, "fcl", "pairs", (double)theirs.n, "pairs");
            emit(o, "meshquery", "speedup_vs_fcl", fcl_ms / mq_ms, "x");
            verdicts v = compare(w, &mine, &theirs);
            emit(o, "meshquery", "pairs_only_meshquery", (double)v.only_mine, "pairs");
            emit(o, "meshquery", "pairs_only_fcl", (double)v.only_theirs, "pairs");
            emit(o, "meshquery", "decided_meshquery_right", (double)v.mine_right, "pairs");
            emit(o, "meshquery", "decided_reference_right", (double)v.theirs_right, "pairs");
        }
#endif
    } else {
        fprintf(stderr, "mq-bench clash: out of memory\n");
    }
#if defined(MQ_HAVE_FCL)
    ref_fcl_scene_destroy(fs);
    for (int k = 0; k < MESHES_MAX; k++)
        ref_fcl_destroy(models[k]);
    free(per_instance);
#endif
    (void)fcl_s, (void)have_fcl, (void)fcl_n;
    free(mine.p);
    free(theirs.p);
    return ok ? 0 : 1;
}

int bench_clash_main(int argc, char **argv)
{
    clash_opts o;
    int st = parse_args(argc, argv, &o);
    if (st)
        return st;
    world w = {.o = &o};
    if (!o.json) {
        printf("mq-bench clash: %zu instances of %d mesh(es), clearance %g, %s trees\n", o.instances, o.mesh_count,
               o.clearance, o.obb ? "OBB" : "AABB");
    }
    st = build_world(&o, &w) ? run(&o, &w) : 1;
    if (st)
        fprintf(stderr, "mq-bench clash: a mesh did not load or a build failed\n");
    free_world(&w);
    return st;
}
