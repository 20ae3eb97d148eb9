/*
 * mq-bench convex — convex vs mesh: every triangle a convex hull overlaps.
 * meshquery's mq_bvh_overlap_array, mq_obbtree_overlap_array,
 * mq_kdoptree_overlap_array (k = 18) and mq_spheretree_overlap_array with
 * mq_shape_convex, beside FCL's fcl::Convex (fcl::collide against a
 * BVHModel<OBB> and <OBBRSS>) and Bullet's btConvexHullShape (contactTest
 * against a btBvhTriangleMeshShape), when built with them; same hulls, one
 * process.
 *
 *   mq-bench convex MESH.obj [--hulls N] [--points P] [--size F] [--reps R] [--seed S] [--no-refs] [--json]
 *
 * --json prints the shared JSON lines (docs/formats.md, "Benchmark output").
 *
 * Hulls (N, default 1000): centred on a point of a random triangle, of
 * radius F (default 0.03) times the mesh's diagonal times a uniform factor
 * in [0.5, 1.5); three in four are the hull of P (default 32) points in that
 * ball, one in four a randomly rotated box. Each engine gets the same hull
 * in its own form (built outside the timing, as a user keeps a shape).
 * Timing: process CPU time of all the hulls' queries (every engine runs on
 * one thread), the median of --reps (at least 3) runs; queries/s and
 * microseconds per query.
 * Answers: each engine's sorted triangle set against meshquery's BVH; every
 * triangle only one side reports is decided by a double-precision oracle
 * (the hull's half-spaces in double, the triangle clipped by them; a case
 * that changes when the planes move by 1e-9 of the hull's scale is
 * "touching"): "meets" means the side that reported it is right. The counts
 * per engine and the first differences are printed; mq_wrong must be 0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <meshquery/meshquery.h>

#include "bench.h"
#if defined(MQ_HAVE_FCL) || defined(MQ_HAVE_BULLET)
#include "ref_convex.h"
#endif

typedef struct cv_opts {
    const char *path;
    size_t hulls, points;
    double size;
    unsigned reps;
    uint64_t seed;
    bool refs, json;
} cv_opts;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

static void rng_dir(uint64_t *s, double u[3])
{
    for (;;) {
        double l = 0.0;
        for (int k = 0; k < 3; k++) {
            u[k] = 2.0 * rng_unit(s) - 1.0;
            l += u[k] * u[k];
        }
        if (l > 1e-6 && l <= 1.0) {
            l = sqrt(l);
            for (int k = 0; k < 3; k++)
                u[k] /= l;
            return;
        }
    }
}

static bool parse(int argc, char **argv, cv_opts *o)
{
    *o = (cv_opts){NULL, 1000, 32, 0.03, 3, 1, true, false};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--hulls") && v)
            o->hulls = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--points") && v)
            o->points = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--size") && v)
            o->size = strtod(argv[++i], NULL);
        else if (!strcmp(a, "--reps") && v)
            o->reps = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--seed") && v)
            o->seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(a, "--no-refs"))
            o->refs = false;
        else if (!strcmp(a, "--json"))
            o->json = true;
        else if (a[0] != '-' && !o->path)
            o->path = a;
        else {
            fprintf(stderr, "mq-bench convex: unexpected argument '%s'\n", a);
            return false;
        }
    }
    if (!o->path) {
        fprintf(stderr, "mq-bench convex: no MESH.obj\n");
        return false;
    }
    if (o->reps < 3)
        o->reps = 3;
    if (o->points < 4)
        o->points = 4;
    return o->hulls > 0;
}

/* ---- the double oracle ---------------------------------------------------- */

typedef struct hspace {
    double (*n)[3];
    double *d;
    size_t count;
    double scale;
} hspace;

static void hspace_make(const mq_convex *c, hspace *h)
{
    size_t nv = mq_convex_vertex_count(c), nf = mq_convex_face_count(c);
    const float *v = mq_convex_vertices(c);
    const uint32_t *f = mq_convex_faces(c);
    h->n = malloc(nf * sizeof *h->n);
    h->d = malloc(nf * sizeof *h->d);
    h->count = nf;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < nv; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], v[3 * i + k]);
            hi[k] = fmax(hi[k], v[3 * i + k]);
        }
    h->scale = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    for (size_t j = 0; j < nf; j++) {
        const float *a = v + 3 * f[3 * j], *b = v + 3 * f[3 * j + 1], *cc = v + 3 * f[3 * j + 2];
        double e1[3], e2[3], n[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = (double)b[k] - a[k];
            e2[k] = (double)cc[k] - a[k];
        }
        n[0] = e1[1] * e2[2] - e1[2] * e2[1];
        n[1] = e1[2] * e2[0] - e1[0] * e2[2];
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), d = -INFINITY;
        for (int k = 0; k < 3; k++)
            h->n[j][k] = n[k] / l;
        for (size_t i = 0; i < nv; i++)
            d = fmax(d, h->n[j][0] * v[3 * i] + h->n[j][1] * v[3 * i + 1] + h->n[j][2] * v[3 * i + 2]);
        h->d[j] = d;
    }
}

static void hspace_free(hspace *h)
{
    free(h->n);
    free(h->d);
}

static bool clip_meets(const hspace *h, const mq_triangle *t, double shift)
{
    double poly[64][3], next[64][3];
    int n = 3;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            poly[i][k] = t->v[i][k];
    for (size_t j = 0; j < h->count && n > 0; j++) {
        int m = 0;
        const double *pn = h->n[j];
        double d = h->d[j] + shift;
        for (int i = 0; i < n && m < 62; i++) {
            const double *a = poly[i], *b = poly[(i + 1) % n];
            double sa = pn[0] * a[0] + pn[1] * a[1] + pn[2] * a[2] - d;
            double sb = pn[0] * b[0] + pn[1] * b[1] + pn[2] * b[2] - d;
            if (sa <= 0.0)
                memcpy(next[m++], a, sizeof(double[3]));
            if ((sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0)) {
                double s = sa / (sa - sb);
                for (int k = 0; k < 3; k++)
                    next[m][k] = a[k] + s * (b[k] - a[k]);
                m++;
            }
        }
        n = m;
        memcpy(poly, next, (size_t)n * sizeof(double[3]));
    }
    return n > 0;
}

/* 1 meets, 0 apart, -1 touching (within 1e-9 of the hull's scale). */
static int oracle(const hspace *h, const mq_triangle *t)
{
    double e = 1e-9 * h->scale;
    bool out = clip_meets(h, t, e), in = clip_meets(h, t, -e);
    return out != in ? -1 : out ? 1 : 0;
}

/* ---- hulls ------------------------------------------------------------------ */

static mq_convex *make_hull(const mq_mesh *m, double diag, const cv_opts *o, size_t index, uint64_t *rng)
{
    size_t nt = mq_mesh_triangle_count(m);
    mq_triangle t;
    mq_mesh_get_triangle(m, (uint32_t)(rng_next(rng) % nt), &t);
    double u = rng_unit(rng), v = rng_unit(rng);
    if (u + v > 1.0) {
        u = 1.0 - u;
        v = 1.0 - v;
    }
    double c[3], r = o->size * diag * (0.5 + rng_unit(rng));
    for (int k = 0; k < 3; k++)
        c[k] = t.v[0][k] + u * ((double)t.v[1][k] - t.v[0][k]) + v * ((double)t.v[2][k] - t.v[0][k]);
    size_t n = index % 4 == 3 ? 8 : o->points;
    float *p = malloc(n * sizeof(float[3]));
    if (index % 4 == 3) {
        double h[3], ax[3][3], a[3], b[3];
        rng_dir(rng, a);
        rng_dir(rng, b);
        /* an orthonormal frame from two random directions */
        memcpy(ax[0], a, sizeof a);
        double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2], l = 0.0;
        for (int k = 0; k < 3; k++) {
            ax[1][k] = b[k] - d * a[k];
            l += ax[1][k] * ax[1][k];
        }
        for (int k = 0; k < 3; k++)
            ax[1][k] /= sqrt(l);
        ax[2][0] = ax[0][1] * ax[1][2] - ax[0][2] * ax[1][1];
        ax[2][1] = ax[0][2] * ax[1][0] - ax[0][0] * ax[1][2];
        ax[2][2] = ax[0][0] * ax[1][1] - ax[0][1] * ax[1][0];
        for (int k = 0; k < 3; k++)
            h[k] = r * (0.3 + 0.7 * rng_unit(rng));
        for (size_t i = 0; i < 8; i++)
            for (int k = 0; k < 3; k++)
                p[3 * i + k] = (float)(c[k] + ((i & 1) ? h[0] : -h[0]) * ax[0][k] +
                                       ((i & 2) ? h[1] : -h[1]) * ax[1][k] + ((i & 4) ? h[2] : -h[2]) * ax[2][k]);
    } else {
        for (size_t i = 0; i < n; i++) {
            double w[3], s = cbrt(rng_unit(rng));
            rng_dir(rng, w);
            for (int k = 0; k < 3; k++)
                p[3 * i + k] = (float)(c[k] + r * s * w[k]);
        }
    }
    mq_convex *cv = NULL;
    mq_diag dg;
    if (mq_convex_create(p, n, NULL, &cv, &dg) != MQ_OK)
        fprintf(stderr, "mq-bench convex: hull %zu: %s\n", index, dg.message);
    free(p);
    return cv;
}

/* ---- engines ------------------------------------------------------------------ */

enum { ENG_BVH, ENG_OBB, ENG_KDOP, ENG_SPHERE, ENG_FCL_OBB, ENG_FCL_OBBRSS, ENG_BULLET, ENG_COUNT };
static const char *const eng_name[ENG_COUNT] = {
    "meshquery-bvh", "meshquery-obbtree", "meshquery-kdop18", "meshquery-sphere", "fcl-obb", "fcl-obbrss", "bullet"};

typedef struct world {
    mq_bvh *bvh;
    mq_obbtree *tree;
    mq_kdoptree *kdop;
    mq_spheretree *sphere;
    mq_convex **hulls;
    size_t count;
#if defined(MQ_HAVE_FCL)
    ref_fcl_cv *fcl[2];
    ref_fcl_cv_shape **fcl_shapes;
#endif
#if defined(MQ_HAVE_BULLET)
    ref_bullet_cv *bullet;
    ref_bullet_cv_shape **bullet_shapes;
#endif
} world;

static bool engine_present(const world *w, int e)
{
    switch (e) {
    case ENG_BVH:
    case ENG_OBB:
    case ENG_KDOP:
    case ENG_SPHERE:
        return true;
#if defined(MQ_HAVE_FCL)
    case ENG_FCL_OBB:
        return w->fcl[0] != NULL;
    case ENG_FCL_OBBRSS:
        return w->fcl[1] != NULL;
#endif
#if defined(MQ_HAVE_BULLET)
    case ENG_BULLET:
        return w->bullet != NULL;
#endif
    default:
        (void)w;
        return false;
    }
}

static size_t run_one(world *w, int e, size_t i, uint32_t *out, size_t cap)
{
    mq_shape s = mq_shape_convex(w->hulls[i]);
    switch (e) {
    case ENG_BVH:
        return mq_bvh_overlap_array(w->bvh, &s, out, cap);
    case ENG_OBB:
        return mq_obbtree_overlap_array(w->tree, &s, out, cap);
    case ENG_KDOP:
        return mq_kdoptree_overlap_array(w->kdop, &s, out, cap);
    case ENG_SPHERE:
        return mq_spheretree_overlap_array(w->sphere, &s, out, cap);
#if defined(MQ_HAVE_FCL)
    case ENG_FCL_OBB:
        return ref_fcl_cv_overlap(w->fcl[0], w->fcl_shapes[i], out, cap);
    case ENG_FCL_OBBRSS:
        return ref_fcl_cv_overlap(w->fcl[1], w->fcl_shapes[i], out, cap);
#endif
#if defined(MQ_HAVE_BULLET)
    case ENG_BULLET:
        return ref_bullet_cv_overlap(w->bullet, w->bullet_shapes[i], out, cap);
#endif
    default:
        return 0;
    }
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One JSON line of the shared benchmark form (docs/formats.md, "Benchmark output"). */
static void emit(const cv_opts *o, const char *mesh, const char *engine, const char *metric, double value,
                 const char *unit)
{
    printf("{\"bench\":\"convex\",\"engine\":\"%s\",\"mesh\":\"%s\",\"hulls\":%zu,\"points\":%zu,\"size\":%.6g,"
           "\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\"}\n",
           engine, mesh, o->hulls, o->points, o->size, metric, value, unit);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int bench_convex_main(int argc, char **argv)
{
    cv_opts o;
    if (!parse(argc, argv, &o))
        return 2;
    mq_mesh *m = NULL;
    mq_diag d;
    if (mq_obj_load(o.path, NULL, &m, NULL, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench convex: %s: %s\n", o.path, d.message);
        return 1;
    }
    size_t nt = mq_mesh_triangle_count(m), nv = mq_mesh_vertex_count(m);
    const float *pos = mq_mesh_positions(m);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < nv; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], pos[3 * i + k]);
            hi[k] = fmax(hi[k], pos[3 * i + k]);
        }
    double diag =
        sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    world w;
    memset(&w, 0, sizeof w);
    if (mq_bvh_build(m, NULL, &w.bvh, &d) != MQ_OK || mq_obbtree_build(m, NULL, &w.tree, &d) != MQ_OK ||
        mq_kdoptree_build(m, NULL, &w.kdop, &d) != MQ_OK || mq_spheretree_build(m, NULL, &w.sphere, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench convex: build: %s\n", d.message);
        return 1;
    }
    w.count = o.hulls;
    w.hulls = calloc(o.hulls, sizeof *w.hulls);
    uint64_t rng = o.seed;
    for (size_t i = 0; i < o.hulls; i++)
        if (!(w.hulls[i] = make_hull(m, diag, &o, i, &rng)))
            return 1;
#if defined(MQ_HAVE_FCL)
    if (o.refs) {
        for (int b = 0; b < 2; b++)
            w.fcl[b] = ref_fcl_cv_create(pos, nv, mq_mesh_indices(m), nt, b == 0);
        w.fcl_shapes = calloc(o.hulls, sizeof *w.fcl_shapes);
        for (size_t i = 0; i < o.hulls; i++)
            w.fcl_shapes[i] =
                ref_fcl_cv_shape_create(mq_convex_vertices(w.hulls[i]), mq_convex_vertex_count(w.hulls[i]),
                                        mq_convex_faces(w.hulls[i]), mq_convex_face_count(w.hulls[i]));
    }
#endif
#if defined(MQ_HAVE_BULLET)
    if (o.refs) {
        w.bullet = ref_bullet_cv_create(pos, nv, mq_mesh_indices(m), nt, 0.0);
        if (w.bullet) {
            w.bullet_shapes = calloc(o.hulls, sizeof *w.bullet_shapes);
            for (size_t i = 0; i < o.hulls; i++)
                w.bullet_shapes[i] = ref_bullet_cv_shape_create(w.bullet, mq_convex_vertices(w.hulls[i]),
                                                                mq_convex_vertex_count(w.hulls[i]));
        }
    }
#endif
    uint32_t *ids = malloc(nt * sizeof(uint32_t));
    /* answers: meshquery's BVH as the baseline, per hull */
    uint32_t **base = calloc(o.hulls, sizeof *base);
    size_t *base_n = calloc(o.hulls, sizeof *base_n);
    size_t total = 0;
    for (size_t i = 0; i < o.hulls; i++) {
        size_t n = run_one(&w, ENG_BVH, i, ids, nt);
        qsort(ids, n, sizeof *ids, cmp_u32);
        base[i] = malloc((n ? n : 1) * sizeof(uint32_t));
        memcpy(base[i], ids, n * sizeof(uint32_t));
        base_n[i] = n;
        total += n;
    }
    const char *slash = strrchr(o.path, '/');
    const char *mesh_name = slash ? slash + 1 : o.path;
    if (!o.json)
        printf("mq-bench convex: %s, %zu triangles, %zu hulls (%zu points, size %.3g of the diagonal), %.1f "
               "triangles per hull\n",
               mesh_name, nt, o.hulls, o.points, o.size, (double)total / (double)o.hulls);
    double qps[ENG_COUNT] = {0};
    for (int e = 0; e < ENG_COUNT; e++) {
        if (!engine_present(&w, e))
            continue;
        /* timing */
        double *t = malloc(o.reps * sizeof(double));
        for (unsigned r = 0; r < o.reps; r++) {
            double t0 = cpu_now();
            size_t sink = 0;
            for (size_t i = 0; i < o.hulls; i++)
                sink += run_one(&w, e, i, ids, nt);
            t[r] = cpu_now() - t0;
            if (sink == (size_t)-1)
                printf("?");
        }
        double med = bench_median(t, o.reps);
        free(t);
        qps[e] = (double)o.hulls / med;
        /* answers against the baseline, differences decided by the oracle */
        long only_ref = 0, only_mq = 0, mq_wrong = 0, ref_miss_meets = 0, ref_extra_apart = 0, touching = 0;
        int shown = 0;
        for (size_t i = 0; i < o.hulls; i++) {
            size_t n = run_one(&w, e, i, ids, nt);
            qsort(ids, n, sizeof *ids, cmp_u32);
            size_t a = 0, b = 0;
            hspace h = {0};
            bool made = false;
            while (a < n || b < base_n[i]) {
                uint32_t tri;
                bool in_ref;
                if (b >= base_n[i] || (a < n && ids[a] < base[i][b])) {
                    tri = ids[a++];
                    in_ref = true;
                } else if (a >= n || base[i][b] < ids[a]) {
                    tri = base[i][b++];
                    in_ref = false;
                } else {
                    a++;
                    b++;
                    continue;
                }
                if (!made) {
                    hspace_make(w.hulls[i], &h);
                    made = true;
                }
                mq_triangle tt;
                mq_mesh_get_triangle(m, tri, &tt);
                int v = oracle(&h, &tt);
                double dist = mq_convex_triangle_distance(w.hulls[i], &tt, NULL, NULL);
                if (in_ref)
                    only_ref++;
                else
                    only_mq++;
                if (v < 0)
                    touching++;
                else if (in_ref && v == 0)
                    ref_extra_apart++;
                else if (in_ref && v == 1)
                    mq_wrong++; /* meshquery missed a triangle that meets the hull */
                else if (!in_ref && v == 1)
                    ref_miss_meets++;
                else
                    mq_wrong++; /* meshquery reported one that is apart */
                if (shown < 5 && !o.json) {
                    printf("  %-18s hull %zu triangle %u: only %s reports it; oracle: %s (distance %.3g, %.3g of "
                           "the hull)\n",
                           eng_name[e], i, tri, in_ref ? eng_name[e] : "meshquery",
                           v < 0 ? "touching"
                           : v   ? "meets"
                                 : "apart",
                           dist, dist / h.scale);
                    shown++;
                }
            }
            if (made)
                hspace_free(&h);
        }
        if (o.json) {
            emit(&o, mesh_name, eng_name[e], "throughput", qps[e] / 1e3, "Kqueries/s");
            emit(&o, mesh_name, eng_name[e], "us_per_query", 1e6 / qps[e], "us");
            emit(&o, mesh_name, eng_name[e], "triangles_per_query", (double)total / (double)o.hulls, "triangles");
            if (e != ENG_BVH) {
                emit(&o, mesh_name, eng_name[e], "only_engine", (double)only_ref, "triangles");
                emit(&o, mesh_name, eng_name[e], "only_meshquery", (double)only_mq, "triangles");
                emit(&o, mesh_name, eng_name[e], "decided_engine_missed_meeting", (double)ref_miss_meets, "triangles");
                emit(&o, mesh_name, eng_name[e], "decided_engine_extra_apart", (double)ref_extra_apart, "triangles");
                emit(&o, mesh_name, eng_name[e], "touching", (double)touching, "triangles");
            }
            emit(&o, mesh_name, eng_name[e], "decided_meshquery_wrong", (double)mq_wrong, "triangles");
        } else
            printf("%-18s %10.0f queries/s %9.2f us/query  differences: %ld only here, %ld only in meshquery "
                   "(oracle: %ld missed that meet, %ld extra that are apart, %ld touching; meshquery wrong %ld)\n",
                   eng_name[e], qps[e], 1e6 / qps[e], only_ref, only_mq, ref_miss_meets, ref_extra_apart, touching,
                   mq_wrong);
    }
    double best_ref = 0.0;
    int best = -1;
    for (int e = ENG_FCL_OBB; e < ENG_COUNT; e++)
        if (qps[e] > best_ref) {
            best_ref = qps[e];
            best = e;
        }
    if (best >= 0) {
        if (o.json) {
            emit(&o, mesh_name, "meshquery-bvh", "speedup_vs_fastest_reference", qps[ENG_BVH] / best_ref, "x");
            emit(&o, mesh_name, "meshquery-obbtree", "speedup_vs_fastest_reference", qps[ENG_OBB] / best_ref, "x");
            emit(&o, mesh_name, "meshquery-kdop18", "speedup_vs_fastest_reference", qps[ENG_KDOP] / best_ref, "x");
            emit(&o, mesh_name, "meshquery-sphere", "speedup_vs_fastest_reference", qps[ENG_SPHERE] / best_ref, "x");
            emit(&o, mesh_name, eng_name[best], "fastest_reference", best_ref / 1e3, "Kqueries/s");
        } else
            printf("fastest reference: %s; meshquery bvh %.2fx, obbtree %.2fx, kdop18 %.2fx, sphere %.2fx of it\n",
                   eng_name[best], qps[ENG_BVH] / best_ref, qps[ENG_OBB] / best_ref, qps[ENG_KDOP] / best_ref,
                   qps[ENG_SPHERE] / best_ref);
    }
    for (size_t i = 0; i < o.hulls; i++) {
        free(base[i]);
        mq_convex_destroy(w.hulls[i]);
#if defined(MQ_HAVE_FCL)
        if (w.fcl_shapes)
            ref_fcl_cv_shape_destroy(w.fcl_shapes[i]);
#endif
#if defined(MQ_HAVE_BULLET)
        if (w.bullet_shapes)
            ref_bullet_cv_shape_destroy(w.bullet_shapes[i]);
#endif
    }
#if defined(MQ_HAVE_FCL)
    ref_fcl_cv_destroy(w.fcl[0]);
    ref_fcl_cv_destroy(w.fcl[1]);
    free(w.fcl_shapes);
#endif
#if defined(MQ_HAVE_BULLET)
    ref_bullet_cv_destroy(w.bullet);
    free(w.bullet_shapes);
#endif
    free(base);
    free(base_n);
    free(ids);
    free(w.hulls);
    mq_bvh_destroy(w.bvh);
    mq_obbtree_destroy(w.tree);
    mq_kdoptree_destroy(w.kdop);
    mq_spheretree_destroy(w.sphere);
    mq_mesh_destroy(m);
    return 0;
}
