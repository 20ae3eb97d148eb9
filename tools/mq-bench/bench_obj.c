/*
 * mq-bench obj — OBJ loading speed of meshquery beside tinyobjloader and Assimp
 * (when they were found at configure time), on the same files in one process.
 *
 *   mq-bench obj FILE.obj... [--threads N] [--reps R] [--no-refs] [--no-memory] [--json]
 *   mq-bench obj --subdivide K --out BIG.obj MESH.obj
 *
 * Every engine loads each file from its path --reps times (default 7, after one
 * untimed warm-up, so the page cache is warm for all alike), in turns, and the
 * median wall time counts: MB/s is the file size over it, Mtris/s the triangles
 * made. meshquery runs on 1 thread and on --threads threads (default: every
 * online CPU); the references are single-threaded. Peak memory is measured in a
 * child process per engine (the growth of its peak resident set during one load,
 * the mapped or read file included), with meshquery's mesh size beside it.
 *
 * --subdivide K writes MESH split into K*K triangles per triangle (vertices on
 * shared edges shared, as in a real mesh): stanford-bunny.obj with K = 6 gives a
 * 2.5M-triangle OBJ of about 100 MB, the "big file".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <meshquery/obj.h>

#include "bench.h"
#include "bench_obj_refs.h"

#define MAX_REPS 101

typedef struct options {
    unsigned threads, reps;
    bool refs, memory, json;
    unsigned subdivide;
    const char *out;
} options;

/* One way of loading a file: meshquery on some threads, or a reference library. */
typedef struct engine {
    const char *name;
    unsigned threads;
    bool (*load)(const struct engine *e, const char *path, size_t *tris, char *err, size_t n);
} engine;

static bool load_meshquery(const engine *e, const char *path, size_t *tris, char *err, size_t n)
{
    mq_obj_options o = mq_default_obj_options();
    o.threads = e->threads;
    mq_mesh *m;
    mq_diag d;
    if (mq_obj_load(path, &o, &m, NULL, &d) != MQ_OK) {
        snprintf(err, n, "%s:%llu:%u: %s", d.path, (unsigned long long)d.line, d.column, d.message);
        return false;
    }
    *tris = mq_mesh_triangle_count(m);
    mq_mesh_destroy(m);
    return true;
}

#ifdef MQ_HAVE_TINYOBJ
static bool load_tinyobj(const engine *e, const char *path, size_t *tris, char *err, size_t n)
{
    (void)e;
    return ref_tinyobj_load(path, tris, err, n);
}
#endif

#ifdef MQ_HAVE_ASSIMP
static bool load_assimp(const engine *e, const char *path, size_t *tris, char *err, size_t n)
{
    (void)e;
    return ref_assimp_load(path, tris, err, n);
}
#endif

static size_t make_engines(const options *o, engine *out)
{
    size_t n = 0;
    out[n++] = (engine){"meshquery", 1, load_meshquery};
    if (o->threads > 1)
        out[n++] = (engine){"meshquery", o->threads, load_meshquery};
    if (o->refs) {
#ifdef MQ_HAVE_TINYOBJ
        out[n++] = (engine){"tinyobjloader", 1, load_tinyobj};
#endif
#ifdef MQ_HAVE_ASSIMP
        out[n++] = (engine){"assimp", 1, load_assimp};
#endif
    }
    return n;
}

/* ---- peak memory of one load, in a child process ---- */

/* A field of /proc/self/status in kB (-1 when unavailable). */
static long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':')
            v = strtol(line + n + 1, NULL, 10);
    fclose(f);
    return v;
}

/* In a fresh process (mq-bench obj --peak-child ENGINE THREADS FILE): load once
 * and print the growth of the peak resident set in MB. A fresh process, so no
 * heap left over from earlier loads hides the growth. */
static int peak_child(const options *o, const char *name, unsigned threads, const char *path)
{
    engine engines[4];
    size_t ne = make_engines(o, engines);
    for (size_t k = 0; k < ne; k++) {
        if (strcmp(engines[k].name, name) || (engines[k].threads != threads && strcmp(name, "meshquery")))
            continue;
        engine e = engines[k];
        e.threads = threads;
        FILE *c = fopen("/proc/self/clear_refs", "w"); /* "5" resets the peak (VmHWM) */
        if (!c || fputs("5", c) < 0 || fclose(c) != 0)
            return 1;
        long before = status_kb("VmRSS");
        size_t tris;
        char err[512];
        if (!e.load(&e, path, &tris, err, sizeof err) || before < 0)
            return 1;
        printf("%.3f\n", (double)(status_kb("VmHWM") - before) / 1024.0);
        return 0;
    }
    return 1;
}

/* Peak resident growth (MB) during one load, or a negative value when it cannot be measured. */
static double peak_mb(const engine *e, const char *path)
{
    int fds[2];
    if (pipe(fds))
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        char threads[16];
        snprintf(threads, sizeof threads, "%u", e->threads);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl("/proc/self/exe", "mq-bench", "obj", "--peak-child", e->name, threads, path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[64] = {0};
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return n > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? strtod(buf, NULL) : -1;
}

/* Bytes of the arrays meshquery keeps for a mesh loaded from OBJ. */
static double mesh_mb(const char *path)
{
    mq_mesh *m;
    if (mq_obj_load(path, NULL, &m, NULL, NULL) != MQ_OK)
        return 0;
    size_t t = mq_mesh_triangle_count(m), f = mq_mesh_face_count(m);
    double bytes = 12.0 * (double)mq_mesh_vertex_count(m) + 12.0 * (double)t + 4.0 * (double)f +
                   (t != f ? 4.0 * (double)t : 0) + 12.0 * (double)mq_mesh_normal_count(m) +
                   8.0 * (double)mq_mesh_texcoord_count(m) + (mq_mesh_corner_normals(m) ? 12.0 * (double)t : 0) +
                   (mq_mesh_corner_texcoords(m) ? 12.0 * (double)t : 0) +
                   (mq_mesh_colors(m) ? 12.0 * (double)mq_mesh_vertex_count(m) : 0);
    mq_mesh_destroy(m);
    return bytes / (1024.0 * 1024.0);
}

/* ---- timing ---- */

typedef struct result {
    double seconds; /* median */
    size_t tris;
    double peak; /* MB, < 0 when not measured */
    bool ok;
    char err[512];
} result;

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void print_json(const char *file, const engine *e, const char *metric, double value, const char *unit)
{
    printf("{\"bench\":\"obj\",\"engine\":\"%s\",\"mesh\":\"%s\",\"input\":\"%s\",\"threads\":%u,"
           "\"metric\":\"%s\",\"value\":%.4g,\"unit\":\"%s\"}\n",
           e->name, file, file, e->threads, metric, value, unit);
}

static void report(const options *o, const char *path, double mb, const engine *e, const result *r)
{
    const char *file = base_name(path);
    if (!r->ok) {
        if (!o->json)
            printf("  %-14s %2u thr   failed: %s\n", e->name, e->threads, r->err);
        return;
    }
    double mbs = mb / r->seconds, mtris = (double)r->tris / r->seconds / 1e6;
    if (o->json) {
        print_json(file, e, "load_mb_per_s", mbs, "MB/s");
        print_json(file, e, "throughput", mtris, "Mtris/s");
        print_json(file, e, "load_ms", r->seconds * 1e3, "ms");
        if (r->peak >= 0)
            print_json(file, e, "peak_rss_mb", r->peak, "MB");
        return;
    }
    printf("  %-14s %2u thr %9.2f ms %9.1f MB/s %8.2f Mtris/s %10zu tris", e->name, e->threads, r->seconds * 1e3, mbs,
           mtris, r->tris);
    if (r->peak >= 0)
        printf("   peak +%.1f MB", r->peak);
    printf("\n");
}

static int bench_file(const options *o, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "mq-bench obj: cannot read %s\n", path);
        return 1;
    }
    double mb = (double)st.st_size / 1e6;
    engine engines[4];
    size_t ne = make_engines(o, engines);
    static double times[4][MAX_REPS];
    result res[4];
    memset(res, 0, sizeof res);
    for (size_t k = 0; k < ne; k++) /* warm-up: page cache, lazy symbol binding */
        res[k].ok = engines[k].load(&engines[k], path, &res[k].tris, res[k].err, sizeof res[k].err);
    for (unsigned r = 0; r < o->reps; r++) {
        for (size_t k = 0; k < ne; k++) { /* in turns: other load on the machine hits all alike */
            if (!res[k].ok)
                continue;
            double t0 = bench_now();
            res[k].ok = engines[k].load(&engines[k], path, &res[k].tris, res[k].err, sizeof res[k].err);
            times[k][r] = bench_now() - t0;
        }
    }
    if (!o->json)
        printf("%s: %.2f MB\n", base_name(path), mb);
    for (size_t k = 0; k < ne; k++) {
        res[k].seconds = bench_median(times[k], o->reps);
        res[k].peak = o->memory && res[k].ok ? peak_mb(&engines[k], path) : -1;
        report(o, path, mb, &engines[k], &res[k]);
    }
    if (o->memory && !o->json && res[0].ok)
        printf("  meshquery mesh: %.1f MB; file: %.1f MB\n", mesh_mb(path), (double)st.st_size / (1024.0 * 1024.0));
    return 0;
}

/* ---- --subdivide: a big, realistic OBJ from a small one ---- */

/* Shared edge points: an open-addressing map from a vertex pair (a < b) to the
 * index of the first of the K-1 points on that edge, listed from a to b. */
typedef struct edge_map {
    uint64_t *keys;
    uint32_t *first;
    size_t mask;
} edge_map;

static uint32_t edge_points(edge_map *m, uint32_t a, uint32_t b, unsigned k, float *pos, uint32_t *count)
{
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    uint64_t key = ((uint64_t)lo << 32 | hi) + 1;
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & m->mask;
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & m->mask;
    if (!m->keys[i]) {
        m->keys[i] = key;
        m->first[i] = *count;
        for (unsigned s = 1; s < k; s++) {
            float t = (float)s / (float)k;
            for (int c = 0; c < 3; c++)
                pos[3 * (size_t)*count + c] = pos[3 * (size_t)lo + c] * (1 - t) + pos[3 * (size_t)hi + c] * t;
            ++*count;
        }
    }
    return m->first[i];
}

/* Index of grid point (i, j) (weights of corners 1 and 2) of a triangle split K ways. */
typedef struct split {
    uint32_t c[3], e[3]; /* corners; first point of edges 01, 12, 20 as stored (lo -> hi) */
    bool fwd[3];         /* the edge runs from its first to its second corner as stored */
    uint32_t interior;   /* first interior point */
    unsigned k;
} split;

static uint32_t on_edge(const split *s, int edge, unsigned step) /* step 1..k-1 from the edge's start */
{
    return s->e[edge] + (s->fwd[edge] ? step - 1 : s->k - 1 - step);
}

static uint32_t grid_point(const split *s, unsigned i, unsigned j)
{
    unsigned k = s->k, w0 = k - i - j;
    if (i == 0 && j == 0)
        return s->c[0];
    if (i == k)
        return s->c[1];
    if (j == k)
        return s->c[2];
    if (j == 0)
        return on_edge(s, 0, i);
    if (w0 == 0)
        return on_edge(s, 1, j);
    if (i == 0)
        return on_edge(s, 2, k - j);
    /* interior rows: j = 1..k-2, i = 1..k-1-j */
    uint32_t before = 0;
    for (unsigned r = 1; r < j; r++)
        before += k - 1 - r;
    return s->interior + before + (i - 1);
}

static int write_subdivided(const options *o, const char *in)
{
    mq_mesh *m;
    mq_diag d;
    if (mq_obj_load(in, NULL, &m, NULL, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench obj: %s:%llu:%u: %s\n", d.path, (unsigned long long)d.line, d.column, d.message);
        return 1;
    }
    unsigned k = o->subdivide;
    size_t nv = mq_mesh_vertex_count(m), nt = mq_mesh_triangle_count(m);
    size_t edges = 3 * nt, cap = nv + edges * (k - 1) + nt * (size_t)(k - 1) * (k - 2) / 2 + 1;
    float *pos = malloc(cap * 3 * sizeof(float));
    edge_map em = {0};
    for (em.mask = 1; em.mask < 2 * edges; em.mask <<= 1) {
    }
    em.keys = calloc(em.mask, sizeof *em.keys);
    em.first = malloc(em.mask * sizeof *em.first);
    em.mask--;
    FILE *f = fopen(o->out, "w");
    if (!pos || !em.keys || !em.first || !f) {
        fprintf(stderr, "mq-bench obj: cannot write %s\n", o->out);
        return 1;
    }
    memcpy(pos, mq_mesh_positions(m), nv * 3 * sizeof(float));
    uint32_t count = (uint32_t)nv;
    const uint32_t *idx = mq_mesh_indices(m);
    uint32_t *tris = malloc(nt * (size_t)k * k * 3 * sizeof(uint32_t));
    size_t out_tris = 0;
    for (size_t t = 0; t < nt; t++) {
        split s = {.k = k};
        for (int c = 0; c < 3; c++)
            s.c[c] = idx[3 * t + c];
        for (int e = 0; e < 3; e++) {
            uint32_t a = s.c[e], b = s.c[(e + 1) % 3];
            s.e[e] = k > 1 ? edge_points(&em, a, b, k, pos, &count) : 0;
            s.fwd[e] = a < b;
        }
        s.interior = count;
        for (unsigned j = 1; j + 1 < k; j++)
            for (unsigned i = 1; i + j < k; i++) {
                float w1 = (float)i / k, w2 = (float)j / k, w0 = 1 - w1 - w2;
                for (int c = 0; c < 3; c++)
                    pos[3 * (size_t)count + c] = pos[3 * (size_t)s.c[0] + c] * w0 + pos[3 * (size_t)s.c[1] + c] * w1 +
                                                 pos[3 * (size_t)s.c[2] + c] * w2;
                count++;
            }
        for (unsigned j = 0; j < k; j++)
            for (unsigned i = 0; i + j < k; i++) {
                uint32_t *o3 = tris + 3 * out_tris++;
                o3[0] = grid_point(&s, i, j), o3[1] = grid_point(&s, i + 1, j), o3[2] = grid_point(&s, i, j + 1);
                if (i + j + 1 < k) {
                    o3 = tris + 3 * out_tris++;
                    o3[0] = grid_point(&s, i + 1, j), o3[1] = grid_point(&s, i + 1, j + 1);
                    o3[2] = grid_point(&s, i, j + 1);
                }
            }
    }
    fprintf(f, "# %s subdivided %u x %u by mq-bench obj: %u vertices, %zu triangles\n", base_name(in), k, k, count,
            out_tris);
    for (uint32_t v = 0; v < count; v++)
        fprintf(f, "v %.6f %.6f %.6f\n", pos[3 * v], pos[3 * v + 1], pos[3 * v + 2]);
    for (size_t t = 0; t < out_tris; t++)
        fprintf(f, "f %u %u %u\n", tris[3 * t] + 1, tris[3 * t + 1] + 1, tris[3 * t + 2] + 1);
    int rc = fclose(f) == 0 ? 0 : 1;
    printf("%s: %u vertices, %zu triangles\n", o->out, count, out_tris);
    free(pos);
    free(tris);
    free(em.keys);
    free(em.first);
    mq_mesh_destroy(m);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: mq-bench obj FILE.obj... [--threads N] [--reps R] [--no-refs] [--no-memory] [--json]\n"
               "       mq-bench obj --subdivide K --out BIG.obj MESH.obj\n"
               "References compiled in:"
#ifdef MQ_HAVE_TINYOBJ
               " tinyobjloader"
#endif
#ifdef MQ_HAVE_ASSIMP
               " assimp"
#endif
               "\n");
}

static long online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

int bench_obj_main(int argc, char **argv)
{
    options o = {(unsigned)online_cpus(), 7, true, true, false, 0, NULL};
    const char *files[256];
    size_t nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--threads") && more) {
            o.threads = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(a, "--reps") && more) {
            o.reps = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(a, "--subdivide") && more) {
            o.subdivide = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(a, "--out") && more) {
            o.out = argv[++i];
        } else if (!strcmp(a, "--no-refs")) {
            o.refs = false;
        } else if (!strcmp(a, "--no-memory")) {
            o.memory = false;
        } else if (!strcmp(a, "--json")) {
            o.json = true;
        } else if (!strcmp(a, "--peak-child") && i + 3 < argc) {
            return peak_child(&o, argv[i + 1], (unsigned)strtoul(argv[i + 2], NULL, 10), argv[i + 3]);
        } else if (a[0] == '-' || nfiles == sizeof files / sizeof files[0]) {
            usage(stderr);
            return 2;
        } else {
            files[nfiles++] = a;
        }
    }
    if (o.reps < 1 || o.reps > MAX_REPS || o.threads < 1 || !nfiles) {
        usage(stderr);
        return 2;
    }
    if (o.subdivide) {
        if (!o.out || nfiles != 1 || o.subdivide > 64) {
            usage(stderr);
            return 2;
        }
        return write_subdivided(&o, files[0]);
    }
    int rc = 0;
    for (size_t i = 0; i < nfiles; i++)
        rc |= bench_file(&o, files[i]);
    return rc;
}
