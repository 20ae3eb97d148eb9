/*
 * mq-bench save — how much faster loading a saved hierarchy (meshquery/saved.h)
 * is than building it again.
 *
 *   mq-bench save MESH.obj [--subdivide K] [--reps R] [--dir DIR] [--json]
 *
 * For the BVH and the OBB tree: the build time (the BVH with the default
 * options, i.e. on all cores, and on 1 thread; the OBB tree builder is
 * single-threaded), the time mq_*_save takes to write the file (temporary file,
 * fsync, rename), the time mq_*_load takes to read it back (page cache warm,
 * as when a program opens a model it used recently), the time
 * mq_*_load_mapped takes (the file mapped, its arrays used in place) and
 * mq_*_load_memory from a block already in memory; all medians of R runs
 * (default 5, builds at most 3). Loading always runs as a program would call it: large sections are
 * copied on the library's thread pool (one thread per core) while the calling
 * thread checksums and checks them. The ratios are build / load: the build
 * with the default options (all cores) over the load, and the 1-thread build
 * over the same load, and the build over the mapped load. Each loaded
 * hierarchy (copied and mapped) is checked to save back to the very bytes it
 * was loaded from.
 *
 * --subdivide K splits every triangle into K*K first (stanford-bunny.obj
 * --subdivide 6 has 2.5M triangles); the subdivided mesh carries positions and
 * triangles only, the unsubdivided one everything the OBJ file had.
 * The file goes to a fresh directory under --dir (default $TMPDIR or /tmp),
 * removed afterwards.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <meshquery/meshquery.h>

#include "bench.h"
#include "subdivide.h"

typedef struct save_opts {
    const char *mesh_path, *dir;
    unsigned subdivide, reps;
    bool json;
} save_opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: mq-bench save MESH.obj [--subdivide K] [--reps R] [--dir DIR] [--json]\n");
}

static int parse_args(int argc, char **argv, save_opts *o, bool *done)
{
    const char *tmp = getenv("TMPDIR");
    *o = (save_opts){.reps = 5, .subdivide = 1, .dir = tmp && *tmp ? tmp : "/tmp"};
    *done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            *done = true;
            return 0;
        } else if (!strcmp(a, "--json")) {
            o->json = true, takes = false;
        } else if (a[0] == '-' && !v) {
            fprintf(stderr, "mq-bench save: %s needs a value\n", a);
            return 2;
        } else if (!strcmp(a, "--subdivide")) {
            o->subdivide = (unsigned)strtoul(v, NULL, 10);
        } else if (!strcmp(a, "--reps")) {
            o->reps = (unsigned)strtoul(v, NULL, 10);
        } else if (!strcmp(a, "--dir")) {
            o->dir = v;
        } else if (a[0] != '-' && !o->mesh_path) {
            o->mesh_path = a, takes = false;
        } else {
            fprintf(stderr, "mq-bench save: unknown argument '%s'\n", a);
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
    if (o->subdivide < 1)
        o->subdivide = 1;
    return 0;
}

static mq_mesh *load_mesh(const save_opts *o)
{
    mq_mesh *m = NULL;
    mq_diag d;
    if (mq_obj_load(o->mesh_path, NULL, &m, NULL, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench save: %s: %s\n", o->mesh_path, d.message);
        return NULL;
    }
    if (o->subdivide <= 1)
        return m;
    mqt_geometry_view g = {mq_mesh_positions(m), mq_mesh_indices(m), mq_mesh_vertex_count(m),
                           mq_mesh_triangle_count(m)};
    mqt_geometry s;
    bool ok = mqt_subdivide(&g, o->subdivide, &s);
    mq_mesh_destroy(m);
    m = NULL;
    if (!ok || mq_mesh_create(s.positions, s.vertex_count, s.indices, s.triangle_count, NULL, &m, &d) != MQ_OK)
        fprintf(stderr, "mq-bench save: cannot subdivide %s by %u\n", o->mesh_path, o->subdivide);
    free(s.positions);
    free(s.indices);
    return m;
}

/* ------------------------------------------------------------------------- */
/* Measurements                                                              */
/* ------------------------------------------------------------------------- */

typedef struct figures {
    double build_ms, build1_ms, save_ms, load_ms, load_mapped_ms, load_memory_ms;
    size_t bytes;
    bool same_bytes;
} figures;

/* The operations of one hierarchy kind, behind one interface. */
typedef struct kind_ops {
    const char *name;
    void *(*build)(const mq_mesh *m, uint32_t threads); /* threads 0: default options */
    void (*destroy)(void *h);
    mq_status (*save)(const void *h, const char *path, mq_diag *d);
    mq_status (*save_memory)(const void *h, void **data, size_t *size, mq_diag *d);
    mq_status (*load)(const char *path, void **out, mq_diag *d);
    mq_status (*load_mapped)(const char *path, void **out, mq_diag *d);
    mq_status (*load_memory)(const void *data, size_t size, void **out, mq_diag *d);
    bool threaded_build;
} kind_ops;

static void *bvh_build(const mq_mesh *m, uint32_t threads)
{
    mq_bvh_def def = mq_default_bvh_def();
    def.threads = threads;
    mq_bvh *b = NULL;
    return mq_bvh_build(m, &def, &b, NULL) == MQ_OK ? b : NULL;
}
static void bvh_destroy(void *h)
{
    mq_bvh_destroy(h);
}
static mq_status bvh_save(const void *h, const char *path, mq_diag *d)
{
    return mq_bvh_save(h, path, d);
}
static mq_status bvh_save_memory(const void *h, void **data, size_t *size, mq_diag *d)
{
    return mq_bvh_save_memory(h, NULL, data, size, d);
}
static mq_status bvh_load(const char *path, void **out, mq_diag *d)
{
    mq_bvh *b = NULL;
    mq_status st = mq_bvh_load(path, NULL, &b, d);
    *out = b;
    return st;
}
static mq_status bvh_load_mapped(const char *path, void **out, mq_diag *d)
{
    mq_bvh *b = NULL;
    mq_status st = mq_bvh_load_mapped(path, NULL, &b, d);
    *out = b;
    return st;
}
static mq_status bvh_load_memory(const void *data, size_t size, void **out, mq_diag *d)
{
    mq_bvh *b = NULL;
    mq_status st = mq_bvh_load_memory(data, size, NULL, &b, d);
    *out = b;
    return st;
}

static void *obb_build(const mq_mesh *m, uint32_t threads)
{
    (void)threads;
    mq_obbtree *t = NULL;
    return mq_obbtree_build(m, NULL, &t, NULL) == MQ_OK ? t : NULL;
}
static void obb_destroy(void *h)
{
    mq_obbtree_destroy(h);
}
static mq_status obb_save(const void *h, const char *path, mq_diag *d)
{
    return mq_obbtree_save(h, path, d);
}
static mq_status obb_save_memory(const void *h, void **data, size_t *size, mq_diag *d)
{
    return mq_obbtree_save_memory(h, NULL, data, size, d);
}
static mq_status obb_load(const char *path, void **out, mq_diag *d)
{
    mq_obbtree *t = NULL;
    mq_status st = mq_obbtree_load(path, NULL, &t, d);
    *out = t;
    return st;
}
static mq_status obb_load_mapped(const char *path, void **out, mq_diag *d)
{
    mq_obbtree *t = NULL;
    mq_status st = mq_obbtree_load_mapped(path, NULL, &t, d);
    *out = t;
    return st;
}
static mq_status obb_load_memory(const void *data, size_t size, void **out, mq_diag *d)
{
    mq_obbtree *t = NULL;
    mq_status st = mq_obbtree_load_memory(data, size, NULL, &t, d);
    *out = t;
    return st;
}

static const kind_ops kinds[2] = {
    {"bvh", bvh_build, bvh_destroy, bvh_save, bvh_save_memory, bvh_load, bvh_load_mapped, bvh_load_memory, true},
    {"obbtree", obb_build, obb_destroy, obb_save, obb_save_memory, obb_load, obb_load_mapped, obb_load_memory, false},
};

static double time_build(const kind_ops *k, const mq_mesh *m, uint32_t threads, unsigned reps, void **keep)
{
    double ms[16];
    for (unsigned r = 0; r < reps; r++) {
        double t0 = bench_now();
        void *h = k->build(m, threads);
        ms[r] = 1e3 * (bench_now() - t0);
        if (!h)
            return -1.0;
        if (keep && !*keep)
            *keep = h;
        else
            k->destroy(h);
    }
    return bench_median(ms, reps);
}

static bool measure(const save_opts *o, const kind_ops *k, const mq_mesh *m, const char *path, figures *f)
{
    unsigned build_reps = o->reps < 3 ? o->reps : 3, reps = o->reps < 16 ? o->reps : 16;
    void *h = NULL;
    f->build_ms = time_build(k, m, 0, build_reps, &h);
    f->build1_ms = k->threaded_build ? time_build(k, m, 1, build_reps, NULL) : f->build_ms;
    if (!h || f->build_ms < 0 || f->build1_ms < 0) {
        fprintf(stderr, "mq-bench save: building the %s failed\n", k->name);
        return false;
    }
    double save_ms[16], load_ms[16], map_ms[16], mem_ms[16];
    mq_diag d;
    void *data = NULL;
    size_t size = 0;
    bool ok = k->save_memory(h, &data, &size, &d) == MQ_OK;
    f->bytes = size;
    f->same_bytes = true;
    for (unsigned r = 0; r < reps && ok; r++) {
        double t0 = bench_now();
        ok = k->save(h, path, &d) == MQ_OK;
        save_ms[r] = 1e3 * (bench_now() - t0);
        for (int mapped = 0; mapped < 2; mapped++) {
            void *l = NULL;
            t0 = bench_now();
            ok = ok && (mapped ? k->load_mapped : k->load)(path, &l, &d) == MQ_OK;
            (mapped ? map_ms : load_ms)[r] = 1e3 * (bench_now() - t0);
            if (ok && r == 0) { /* what was loaded saves back to the same bytes */
                void *again = NULL;
                size_t again_size = 0;
                ok = k->save_memory(l, &again, &again_size, &d) == MQ_OK;
                f->same_bytes &= ok && again_size == size && memcmp(again, data, size) == 0;
                mq_saved_free(again, again_size, NULL);
            }
            if (l)
                k->destroy(l);
        }
        void *l = NULL;
        t0 = bench_now();
        ok = ok && k->load_memory(data, size, &l, &d) == MQ_OK;
        mem_ms[r] = 1e3 * (bench_now() - t0);
        if (l)
            k->destroy(l);
    }
    if (!ok)
        fprintf(stderr, "mq-bench save: %s: %s\n", k->name, d.message);
    mq_saved_free(data, size, NULL);
    k->destroy(h);
    unlink(path);
    if (!ok)
        return false;
    f->save_ms = bench_median(save_ms, reps);
    f->load_ms = bench_median(load_ms, reps);
    f->load_mapped_ms = bench_median(map_ms, reps);
    f->load_memory_ms = bench_median(mem_ms, reps);
    return true;
}

static void report(const save_opts *o, const kind_ops *k, const mq_mesh *m, const figures *f, long cores)
{
    double ratio = f->build_ms / f->load_ms, ratio1 = f->build1_ms / f->load_ms;
    double ratio_mapped = f->build_ms / f->load_mapped_ms;
    if (o->json) {
        printf("{\"bench\":\"save\",\"hierarchy\":\"%s\",\"mesh\":\"%s\",\"subdivide\":%u,\"triangles\":%zu,"
               "\"file_bytes\":%zu,\"cores\":%ld,\"build_ms\":%.3f,\"build_1thread_ms\":%.3f,\"save_ms\":%.3f,"
               "\"load_ms\":%.3f,\"load_mapped_ms\":%.3f,\"load_memory_ms\":%.3f,\"build_over_load\":%.2f,"
               "\"build_1thread_over_load\":%.2f,\"build_over_load_mapped\":%.2f,\"identical_resave\":%s}\n",
               k->name, o->mesh_path, o->subdivide, mq_mesh_triangle_count(m), f->bytes, cores, f->build_ms,
               f->build1_ms, f->save_ms, f->load_ms, f->load_mapped_ms, f->load_memory_ms, ratio, ratio1, ratio_mapped,
               f->same_bytes ? "true" : "false");
        return;
    }
    printf("%-8s build %9.1f ms", k->name, f->build_ms);
    if (k->threaded_build)
        printf(" (%ld cores), %9.1f ms (1 thread)", cores, f->build1_ms);
    else
        printf(" (single-threaded builder)           ");
    printf("  save %8.1f ms  load %7.1f ms  load_mapped %7.1f ms  load_memory %7.1f ms  %6.1f MB\n", f->save_ms,
           f->load_ms, f->load_mapped_ms, f->load_memory_ms, (double)f->bytes / 1e6);
    printf("%-8s build/load %.1fx", "", ratio);
    if (k->threaded_build)
        printf(" (1-thread build/load %.1fx)", ratio1);
    printf(", build/load_mapped %.1fx", ratio_mapped);
    printf("%s\n", f->same_bytes ? "" : "  LOADED FILE DOES NOT SAVE BACK IDENTICALLY");
}

int bench_save_main(int argc, char **argv)
{
    save_opts o;
    bool done;
    int st = parse_args(argc, argv, &o, &done);
    if (st || done)
        return st;
    mq_mesh *m = load_mesh(&o);
    if (!m)
        return 1;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/mq-bench-save-XXXXXX", o.dir);
    if (!mkdtemp(dir)) {
        perror("mq-bench save: cannot create a scratch directory");
        mq_mesh_destroy(m);
        return 1;
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/model.mqh", dir);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (!o.json)
        printf("mq-bench save: %s%s%.0u, %zu triangles, %zu vertices; median of %u (builds: of %u)\n", o.mesh_path,
               o.subdivide > 1 ? " subdivided x" : "", o.subdivide > 1 ? o.subdivide : 0u, mq_mesh_triangle_count(m),
               mq_mesh_vertex_count(m), o.reps, o.reps < 3 ? o.reps : 3);
    int status = 0;
    for (int i = 0; i < 2; i++) {
        figures f;
        if (!measure(&o, &kinds[i], m, path, &f)) {
            status = 1;
            break;
        }
        report(&o, &kinds[i], m, &f, cores);
        if (!f.same_bytes)
            status = 1;
    }
    rmdir(dir);
    mq_mesh_destroy(m);
    return status;
}
