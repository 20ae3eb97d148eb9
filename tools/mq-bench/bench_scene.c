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
 * mq_scene_raycast_any_batch and rtcOccluded1). Both on 1 thread (process CPU time)
 * and on --threads threads (0 = all cores; wall time); medians of --reps
 * repetitions, engines measured in turns.
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

static void emit(const scene_opts *o, const char *engine, unsigned threads, const char *metric, double value,
                 const char *unit)
{
    const char *slash = strrchr(o->mesh_path, '/');
    const char *mesh = slash ? slash + 1 : o->mesh_path;
    if (o->json)
        printf("{\"bench\":\"scene\",\"engine\":\"%s\",\"mesh\":\"%s\",\"instances\":%zu,\"transforms\":\"%s\","
               "\"input\":\"incoherent\",\"query\":\"%s\",\"threads\":%u,\"metric\":\"%s\",\"value\":%.6g,"
               "\"unit\":\"%s\"}\n",
               engine, mesh, o->instances, o->scale ? "rigid+scale" : "rigid", o->any ? "any" : "closest", threads,
               metric, value, unit);
    else
        printf("  %-10s %2u thread(s) %-22s %10.4f %s\n", engine, threads, metric, value, unit);
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
        mq_xform x = mq_xform_from_trs(t, q, sc);
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

static double median_of(double *v, unsigned n) { return bench_median(v, n); }

int bench_scene_main(int argc, char **argv)
{
    scene_opts o;
    bool done;
    int st = parse_args(argc, argv, &o, &done);
    if (st || done)
        return st;
    mq_mesh *mesh = NULL;
    mq_diag d;
    if (mq_obj_load(o.mesh_path, NULL, &mesh, NULL, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench scene: %s: %s\n", o.mesh_path, d.message);
        return 1;
    }
    mq_bvh *bvh = NULL;
    if (mq_bvh_build(mesh, NULL, &bvh, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench scene: %s\n", d.message);
        return 1;
    }
    mq_aabb box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    const float *p = mq_mesh_positions(mesh);
    for (size_t i = 0; i < mq_mesh_vertex_count(mesh); i++)
        for (int k = 0; k < 3; k++) {
            box.min[k] = fminf(box.min[k], p[3 * i + k]);
            box.max[k] = fmaxf(box.max[k], p[3 * i + k]);
        }
    double *xf = malloc(o.instances * 12 * sizeof *xf), half;
    mq_dray *rays = malloc(o.count * sizeof *rays);
    mq_scene_hit *hits = malloc(o.count * sizeof *hits);
    bool *occluded = malloc(o.count * sizeof *occluded);
    if (!xf || !rays || !hits || !occluded)
        return 1;
    make_transforms(&o, &box, xf, &half);
    make_rays(&o, half, rays);

    mq_scene *scene;
    mq_scene_create(NULL, &scene, NULL);
    double t0 = bench_now();
    for (size_t i = 0; i < o.instances; i++) {
        mq_instance_def def = mq_default_instance_def();
        def.bvh = bvh;
        memcpy(def.transform.m, xf + 12 * i, sizeof def.transform.m);
        uint32_t id;
        if (mq_scene_add(scene, &def, &id, &d) != MQ_OK) {
            fprintf(stderr, "mq-bench scene: %s\n", d.message);
            return 1;
        }
    }
    mq_scene_commit(scene, NULL);
    emit(&o, "meshquery", 1, "build_ms", 1e3 * (bench_now() - t0), "ms");

    unsigned tcounts[2] = {1, o.threads};
    int runs = o.threads > 1 ? 2 : 1;
    double *mq_s = calloc(o.reps, sizeof(double)), *em_s = calloc(o.reps, sizeof(double));
#if defined(MQ_HAVE_EMBREE)
    float *fx = malloc(o.instances * 12 * sizeof *fx), *et = malloc(o.count * sizeof(float));
    bool *eocc = malloc(o.count * sizeof *eocc);
    uint32_t *eid = malloc(o.count * sizeof(uint32_t));
    mq_ray *frays = malloc(o.count * sizeof *frays);
    for (size_t i = 0; i < 12 * o.instances; i++)
        fx[i] = (float)xf[i];
    for (size_t i = 0; i < o.count; i++) {
        for (int k = 0; k < 3; k++) {
            frays[i].origin[k] = (float)rays[i].origin[k];
            frays[i].dir[k] = (float)rays[i].dir[k];
        }
        frays[i].tmin = 0;
        frays[i].tmax = INFINITY;
    }
#endif
    for (int run = 0; run < runs; run++) {
        unsigned th = tcounts[run];
        bool have_embree = false;
#if defined(MQ_HAVE_EMBREE)
        ref_embree *e = NULL;
        if (o.embree) {
            double bms;
            e = ref_embree_create_instanced(mq_mesh_positions(mesh), mq_mesh_vertex_count(mesh), mq_mesh_indices(mesh),
                                            mq_mesh_triangle_count(mesh), fx, o.instances, th, &bms);
            if (e && run == 0)
                emit(&o, "embree", th, "build_ms", bms, "ms");
            have_embree = e != NULL;
        }
#endif
        size_t mq_hits = 0, em_hits = 0, agree = 0;
        for (unsigned r = 0; r < o.reps; r++) {
            double a = th == 1 ? cpu_now() : bench_now();
            mq_hits = o.any ? mq_scene_raycast_any_batch(scene, rays, o.count, NULL, th, occluded)
                            : mq_scene_raycast_closest_batch(scene, rays, o.count, NULL, th, hits);
            mq_s[r] = (th == 1 ? cpu_now() : bench_now()) - a;
#if defined(MQ_HAVE_EMBREE)
            if (have_embree) {
                a = th == 1 ? cpu_now() : bench_now();
                if (o.any)
                    ref_embree_occluded(e, frays, o.count, th, eocc);
                else
                    ref_embree_closest(e, frays, o.count, th, et, eid);
                em_s[r] = (th == 1 ? cpu_now() : bench_now()) - a;
            }
#endif
        }
        double mq_rate = o.count / median_of(mq_s, o.reps) / 1e6;
        emit(&o, "meshquery", th, "throughput", mq_rate, "Mrays/s");
#if defined(MQ_HAVE_EMBREE)
        if (have_embree) {
            for (size_t i = 0; i < o.count; i++) {
                if (o.any) {
                    em_hits += eocc[i];
                    agree += eocc[i] == occluded[i];
                    continue;
                }
                bool eh = eid[i] != UINT32_MAX;
                em_hits += eh;
                agree += eh == (hits[i].instance != MQ_NO_INSTANCE) &&
                         (!eh || (eid[i] == hits[i].triangle && fabs(et[i] - hits[i].t) <= 1e-3 * fabs(hits[i].t)));
            }
            double em_rate = o.count / median_of(em_s, o.reps) / 1e6;
            emit(&o, "embree", th, "throughput", em_rate, "Mrays/s");
            emit(&o, "meshquery", th, "ratio_vs_embree", mq_rate / em_rate, "x");
            if (!o.json)
                printf(o.any ? "  occluded: meshquery %zu, embree %zu, same answer: %.2f%%\n"
                             : "  hits: meshquery %zu, embree %zu, same triangle and t: %.2f%%\n",
                       mq_hits, em_hits, 100.0 * agree / o.count);
            ref_embree_destroy(e);
        }
#endif
        (void)have_embree;
        (void)em_hits;
        (void)agree;
        (void)mq_hits;
    }
#if defined(MQ_HAVE_EMBREE)
    free(fx);
    free(et);
    free(eocc);
    free(eid);
    free(frays);
#endif
    free(mq_s);
    free(em_s);
    free(xf);
    free(rays);
    free(hits);
    free(occluded);
    mq_scene_destroy(scene);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
    return 0;
}
