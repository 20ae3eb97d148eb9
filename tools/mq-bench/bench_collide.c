/*
 * mq-bench collide — mesh vs mesh: a mesh and a second copy of it (or
 * another mesh) placed by rigid transforms; every intersecting triangle pair,
 * and yes/no. meshquery's OBB trees beside FCL's BVHModel<OBB> and
 * BVHModel<OBBRSS> (when built with FCL), on the same inputs in one process.
 *
 *   mq-bench collide MESH.obj [--other OTHER.obj] [--xforms IN.xforms | --generate N]
 *                    [--hierarchy aabb|obb] [--fit dito|pca|aabb] [--leaf N] [--reps R] [--seed S]
 *                    [--subdivide K] [--no-fcl] [--fcl-scale S] [--json]
 *
 * Transforms come from an .xforms file (docs/formats.md: tx ty tz qw qx
 * qy qz per line) or are generated (N, default 200): a uniform rotation, and
 * the second mesh's bounds centre placed at the first's plus an offset
 * uniform in [-0.3 D, 0.3 D] per axis, so that most placements intersect.
 * --subdivide K splits every triangle of both meshes into K*K
 * (stanford-bunny.obj --subdivide 6: 2.5M triangles each). The placements stay
 * as they are, relative to the shapes: the surfaces, and so their intersection
 * curves, are the same, crossed by K times more (K times smaller) triangles per
 * unit of length, so all-pairs lists about K times more pairs per placement
 * (not K*K) and yes/no answers as before.
 * Timing as in `mq-bench overlap`: in turns, median of --reps (at least 3),
 * process CPU time; builds (meshquery's OBB tree, FCL's OBB and OBBRSS
 * models: beginModel / addSubModel / endModel) --reps times in turns, median
 * wall time, with FCL's time over meshquery's (build_speedup_vs_*), and
 * queries with meshquery's throughput over each reference's (speedup_vs_*).
 * When OTHER is MESH (the default) both sides share one mesh and one tree
 * (one model per FCL bounding volume, placed through its own object). FCL's
 * placed object is kept and moved per query, as FCL is used (one made per
 * query recomputed the model's local AABB over every vertex: 80% of FCL's
 * yes/no time on the bunny), and all-pairs stores every pair on both sides
 * (meshquery into an array grown to the largest answer, FCL in its result).
 * Pair sets are compared transform by transform, and every pair only one side
 * reports is classified in double (see "Differences" below). FCL maps B's
 * corners in double and tests pairs with a 17-axis separating axis test in
 * double without tolerances (Intersect<S>::intersect_Triangle, no contact
 * data; its getEpsilon() 1e-5 and getNearZeroThreshold() 1e-7 serve other
 * tests); meshquery maps them in float (mq_rigid_apply) and decides exactly.
 * So pairs that touch within float rounding of B's placement may differ:
 * FCL's answer is the exact placement's, meshquery's the float placement's.
 * --fcl-scale S gives FCL the meshes scaled by S (0: the power of two that
 * makes the mean edge about half a unit, as Bullet's in `mq-bench overlap`;
 * default 1), to check that its answers do not depend on the mesh's size.
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

int bench_collide_main(int argc, char **argv);

typedef struct collide_opts {
    const char *mesh_path, *other_path, *xforms_path;
    size_t generate;
    mq_obb_fit fit;
    unsigned leaf, reps;
    uint64_t seed;
    bool fcl, json;
    unsigned subdivide; /* K: every triangle of both meshes split into K*K; 1: as loaded */
    double fcl_scale;   /* FCL's world scale (ref_fcl_create_scaled); 0: automatic */
} collide_opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: mq-bench collide MESH.obj [--other OTHER.obj] [--xforms IN.xforms | --generate N]\n"
               "                        [--hierarchy aabb|obb] [--fit dito|pca|aabb] [--leaf N] [--reps R] [--seed S]\n"
               "                        [--subdivide K] [--no-fcl] [--fcl-scale S] [--json]\n");
}

static bool parse_value(collide_opts *o, const char *a, const char *v)
{
    if (!strcmp(a, "--other"))
        o->other_path = v;
    else if (!strcmp(a, "--xforms"))
        o->xforms_path = v;
    else if (!strcmp(a, "--generate"))
        o->generate = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--hierarchy")) {
        /* "aabb": the tree with world-axis boxes (same answers; the AABB BVH has no
         * mesh-vs-mesh query yet); "obb": oriented boxes fitted as --fit says. */
        if (!strcmp(v, "aabb"))
            o->fit = MQ_OBB_FIT_AABB;
        return !strcmp(v, "aabb") || !strcmp(v, "obb");
    } else if (!strcmp(a, "--fit"))
        o->fit = !strcmp(v, "pca") ? MQ_OBB_FIT_PCA : !strcmp(v, "aabb") ? MQ_OBB_FIT_AABB : MQ_OBB_FIT_DITO;
    else if (!strcmp(a, "--leaf"))
        o->leaf = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--reps"))
        o->reps = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--seed"))
        o->seed = strtoull(v, NULL, 0);
    else if (!strcmp(a, "--subdivide"))
        o->subdivide = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--fcl-scale"))
        o->fcl_scale = strtod(v, NULL);
    else
        return false;
    return true;
}

/* 0: go on; 1: --help printed; 2: usage error. */
static int parse_args(int argc, char **argv, collide_opts *o)
{
    *o = (collide_opts){.generate = 200,
                        .fit = MQ_OBB_FIT_DITO,
                        .leaf = 4,
                        .reps = 5,
                        .seed = 1,
                        .fcl = true,
                        .subdivide = 1,
                        .fcl_scale = 1.0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--no-fcl")) {
            o->fcl = false;
        } else if (a[0] != '-' && !o->mesh_path) {
            o->mesh_path = a;
        } else if (!v || !parse_value(o, a, v)) {
            fprintf(stderr, "mq-bench collide: bad argument '%s'%s%s\n", a, v ? " " : "", v ? v : "");
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
    o->other_path = o->other_path ? o->other_path : o->mesh_path;
    o->reps = o->reps < 3 ? 3 : o->reps;
    o->subdivide = o->subdivide < 1 ? 1 : o->subdivide;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Meshes and transforms                                                     */
/* ------------------------------------------------------------------------- */

typedef struct placed_mesh {
    mq_mesh *mesh;
    mq_aabb box;
    double diagonal;
} placed_mesh;

static bool load(const char *path, unsigned K, placed_mesh *pm)
{
    mq_diag d;
    if (mq_obj_load(path, NULL, &pm->mesh, NULL, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench collide: %s: %s\n", path, d.message);
        return false;
    }
    if (!mqt_subdivide_mesh(&pm->mesh, K)) {
        fprintf(stderr, "mq-bench collide: cannot subdivide %s by %u\n", path, K);
        return false;
    }
    const float *p = mq_mesh_positions(pm->mesh);
    pm->box = (mq_aabb){{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (size_t i = 0; i < mq_mesh_vertex_count(pm->mesh); i++)
        for (int k = 0; k < 3; k++)
            if (isfinite(p[3 * i + (size_t)k])) {
                pm->box.min[k] = fminf(pm->box.min[k], p[3 * i + (size_t)k]);
                pm->box.max[k] = fmaxf(pm->box.max[k], p[3 * i + (size_t)k]);
            }
    double d2 = 0.0;
    for (int k = 0; k < 3; k++)
        d2 += ((double)pm->box.max[k] - pm->box.min[k]) * ((double)pm->box.max[k] - pm->box.min[k]);
    pm->diagonal = sqrt(d2);
    return true;
}

typedef struct xform_list {
    mq_rigid *x;
    size_t count, capacity;
} xform_list;

static bool push_xform(xform_list *l, const mq_rigid *x)
{
    if (l->count == l->capacity) {
        size_t cap = l->capacity ? 2 * l->capacity : 256;
        mq_rigid *n = realloc(l->x, cap * sizeof *n);
        if (!n)
            return false;
        l->x = n;
        l->capacity = cap;
    }
    l->x[l->count++] = *x;
    return true;
}

static bool read_xforms(const char *path, xform_list *l)
{
    char err[512];
    if (!mqt_read_xforms(path, &l->x, &l->count, err, sizeof err)) {
        fprintf(stderr, "mq-bench collide: %s\n", err);
        return false;
    }
    l->capacity = l->count;
    return true;
}

/* A uniform rotation (Shoemake); B's bounds centre to A's plus an offset. */
static mq_rigid random_placement(mqt_rng *r, const placed_mesh *a, const placed_mesh *b)
{
    double u1 = mqt_rng_unit(r), u2 = 6.283185307179586 * mqt_rng_unit(r), u3 = 6.283185307179586 * mqt_rng_unit(r);
    double s = sqrt(1.0 - u1), c = sqrt(u1), D = fmax(a->diagonal, b->diagonal);
    /* w, x, y, z: the same quaternion as when mq_rigid took x, y, z, w, so figures stay comparable */
    mq_rigid x = {{(float)(c * cos(u3)), (float)(s * sin(u2)), (float)(s * cos(u2)), (float)(c * sin(u3))}, {0, 0, 0}};
    vec3 cb, rcb;
    for (int k = 0; k < 3; k++)
        cb[k] = 0.5f * (b->box.min[k] + b->box.max[k]);
    mq_rigid_apply(&x, cb, rcb);
    for (int k = 0; k < 3; k++)
        x.translation[k] =
            (float)(0.5 * ((double)a->box.min[k] + a->box.max[k]) - rcb[k] + (mqt_rng_unit(r) - 0.5) * 0.6 * D);
    return x;
}

/* ------------------------------------------------------------------------- */
/* Engines                                                                   */
/* ------------------------------------------------------------------------- */

typedef struct engine {
    const char *name;
    void *a, *b;
    /* pairs (all) or 0/1 (!all); up to capacity written */
    size_t (*run)(void *a, void *b, const mq_rigid *x, bool all, mq_tri_pair *out, size_t capacity);
} engine;

static size_t run_obbtree(void *a, void *b, const mq_rigid *x, bool all, mq_tri_pair *out, size_t capacity)
{
    if (!all)
        return mq_obbtree_any_collide(a, b, x);
    return mq_obbtree_collide_array(a, b, x, out, capacity);
}

#if defined(MQ_HAVE_FCL)
static size_t run_fcl(void *a, void *b, const mq_rigid *x, bool all, mq_tri_pair *out, size_t capacity)
{
    return ref_fcl_collide(a, b, x, all, out, capacity);
}
#endif

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct pair_buf {
    mq_tri_pair *p;
    size_t capacity;
} pair_buf;

/* Every transform once; returns the CPU seconds, the pair total in *pairs and
 * the largest answer of one transform in *largest. */
static double run_all(const engine *e, const xform_list *l, bool all, pair_buf *buf, size_t *pairs, size_t *largest)
{
    double t0 = cpu_now();
    size_t total = 0, most = 0;
    for (size_t i = 0; i < l->count; i++) {
        size_t n = e->run(e->a, e->b, &l->x[i], all, buf->p, buf->capacity);
        total += n;
        most = n > most ? n : most;
    }
    *pairs = total;
    *largest = most;
    return cpu_now() - t0;
}

/* Room for the largest answer: the timed runs store every pair, as FCL's result does. */
static bool reserve_pairs(pair_buf *buf, size_t n)
{
    if (n <= buf->capacity)
        return true;
    mq_tri_pair *p = realloc(buf->p, n * sizeof *p);
    if (!p)
        return false;
    buf->p = p;
    buf->capacity = n;
    return true;
}

static int cmp_pair(const void *x, const void *y)
{
    const mq_tri_pair *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

/* The pairs of one engine for one transform, sorted, into *out (malloc'ed). */
static size_t sorted_pairs(const engine *e, const mq_rigid *x, mq_tri_pair **out)
{
    size_t n = e->run(e->a, e->b, x, true, NULL, 0);
    *out = malloc((n + 1) * sizeof **out);
    n = e->run(e->a, e->b, x, true, *out, n);
    qsort(*out, n, sizeof **out, cmp_pair);
    return n;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void report(const collide_opts *o, const char *engine_name, const char *mode, const char *metric, double value,
                   const char *unit)
{
    if (o->json)
        printf("{\"bench\":\"collide\",\"engine\":\"%s\",\"mesh\":\"%s\",\"other\":\"%s\",\"subdivide\":%u,"
               "\"input\":\"%s\",\"mode\":\"%s\",\"threads\":1,\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\"}\n",
               engine_name, base_name(o->mesh_path), base_name(o->other_path), o->subdivide,
               o->xforms_path ? base_name(o->xforms_path) : "generated", mode, metric, value, unit);
    else
        printf("  %-12s %-10s %-20s %12.4f %s\n", engine_name, mode, metric, value, unit);
}

/* ------------------------------------------------------------------------- */
/* Differences, measured in double                                           */
/* ------------------------------------------------------------------------- */

/* A pair only one side reports is judged on the exact placement: B's corners
 * mapped in double with the quaternion normalised in double (what FCL
 * computes, up to double rounding), and the signed separation of the two
 * triangles there: > 0 their distance (whoever reports them errs), <= 0 minus
 * their penetration depth (whoever misses them errs). meshquery's contract is
 * on B's corners mapped by mq_rigid_apply in float, so each pair is also
 * tested there with mq_overlap_triangle_triangle: a pair that meshquery alone
 * reports and that is apart only by float rounding (<= 1e-6 D) is meshquery
 * keeping its contract, not a miss of FCL's. The distances come from dgeom.c. */

/* The overlap of the two triangles' projections on axis l (< 0: a gap), per unit
 * of length; INFINITY for an axis too short to have a direction (parallel edges). */
static double axis_overlap(double p[3][3], double q[3][3], const double *l, double scale2)
{
    double len2 = d3_dot(l, l);
    if (!(len2 > 1e-24 * scale2))
        return INFINITY;
    double lp = INFINITY, hp = -INFINITY, lq = INFINITY, hq = -INFINITY;
    for (int i = 0; i < 3; i++) {
        lp = fmin(lp, d3_dot(p[i], l)), hp = fmax(hp, d3_dot(p[i], l));
        lq = fmin(lq, d3_dot(q[i], l)), hq = fmax(hq, d3_dot(q[i], l));
    }
    return fmin(hp - lq, hq - lp) / sqrt(len2);
}

/* Penetration depth of meeting triangles: the smallest overlap over the 17
 * axes FCL's test uses (both normals, the 9 edge-edge cross products, the 6
 * in-plane edge normals), each a translation that separates them. */
static double triangle_depth(double p[3][3], double q[3][3])
{
    double e[3][3], f[3][3], n[3], m[3], l[3], depth = INFINITY;
    for (int i = 0; i < 3; i++)
        d3_sub(p[(i + 1) % 3], p[i], e[i]), d3_sub(q[(i + 1) % 3], q[i], f[i]);
    d3_cross(e[0], e[1], n), d3_cross(f[0], f[1], m);
    double se = d3_dot(e[0], e[0]), sf = d3_dot(f[0], f[0]);
    depth = fmin(depth, axis_overlap(p, q, n, se * se));
    depth = fmin(depth, axis_overlap(p, q, m, sf * sf));
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            d3_cross(e[i], f[j], l), depth = fmin(depth, axis_overlap(p, q, l, se * sf));
        d3_cross(e[i], n, l), depth = fmin(depth, axis_overlap(p, q, l, se * se * se));
        d3_cross(f[i], m, l), depth = fmin(depth, axis_overlap(p, q, l, sf * sf * sf));
    }
    return depth;
}

/* B's point placed exactly (up to double rounding): the quaternion normalised
 * in double, v + 2w (u x v) + 2 u x (u x v). */
static void place_double(const mq_rigid *x, const float *v, double *out)
{
    const float *r = x->rotation; /* w, x, y, z */
    double n = sqrt((double)r[1] * r[1] + (double)r[2] * r[2] + (double)r[3] * r[3] + (double)r[0] * r[0]);
    double u[3] = {r[1] / n, r[2] / n, r[3] / n}, w = r[0] / n, p[3] = {v[0], v[1], v[2]}, t[3], t2[3];
    d3_cross(u, p, t);
    d3_cross(u, t, t2);
    for (int k = 0; k < 3; k++)
        out[k] = p[k] + 2.0 * w * t[k] + 2.0 * t2[k] + x->translation[k];
}

/* Pairs one side alone reports, by their signed separation at the exact placement. */
typedef struct diff_stats {
    size_t meet;              /* separation <= 0: they intersect */
    size_t near, far;         /* apart by <= 1e-6 D (float rounding), by more */
    size_t float_meet;        /* intersect with B mapped in float (meshquery's contract) */
    double deepest, farthest; /* largest depth, largest distance */
} diff_stats;

static void classify_pair(diff_stats *st, const placed_mesh *pa, const placed_mesh *pb, const mq_rigid *x,
                          mq_tri_pair pair)
{
    mq_triangle ta, tb, tf;
    double p[3][3], q[3][3];
    mq_mesh_get_triangle(pa->mesh, pair.a, &ta);
    mq_mesh_get_triangle(pb->mesh, pair.b, &tb);
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++)
            p[i][k] = ta.v[i][k];
        place_double(x, tb.v[i], q[i]);
        mq_rigid_apply(x, tb.v[i], tf.v[i]);
    }
    st->float_meet += mq_overlap_triangle_triangle(&ta, &tf);
    double dist = triangle_distance(p, q), D = fmax(pa->diagonal, pb->diagonal);
    if (dist > 0.0) {
        st->near += dist <= 1e-6 * D, st->far += dist > 1e-6 * D;
        st->farthest = fmax(st->farthest, dist);
    } else {
        st->meet++;
        st->deepest = fmax(st->deepest, triangle_depth(p, q));
    }
}

static void print_diff(const char *who, size_t count, const diff_stats *st, double D)
{
    printf("    only %-10s %8zu pairs: %zu intersect", who, count, st->meet);
    if (st->meet)
        printf(" (depth up to %.2g D)", st->deepest / D);
    printf(", %zu apart <= 1e-6 D, %zu apart farther", st->near, st->far);
    if (st->near + st->far)
        printf(" (up to %.2g D)", st->farthest / D);
    printf("; with B mapped in float %zu intersect\n", st->float_meet);
}

/* Transform by transform: pair sets that differ, and pairs only one side
 * reports, classified in double (see above). */
static void compare(const collide_opts *o, const engine *mine, const engine *ref, const xform_list *l,
                    const placed_mesh *pa, const placed_mesh *pb)
{
    size_t differ = 0, only_mine = 0, only_ref = 0;
    diff_stats sm = {0, 0, 0, 0, 0.0, 0.0}, sr = sm;
    for (size_t i = 0; i < l->count; i++) {
        mq_tri_pair *a, *b;
        size_t na = sorted_pairs(mine, &l->x[i], &a), nb = sorted_pairs(ref, &l->x[i], &b), x = 0, y = 0;
        size_t before = only_mine + only_ref;
        while (x < na || y < nb) {
            int c = x == na ? 1 : y == nb ? -1 : cmp_pair(&a[x], &b[y]);
            if (c < 0)
                only_mine++, classify_pair(&sm, pa, pb, &l->x[i], a[x++]);
            else if (c > 0)
                only_ref++, classify_pair(&sr, pa, pb, &l->x[i], b[y++]);
            else
                x++, y++;
        }
        differ += only_mine + only_ref > before;
        free(a);
        free(b);
    }
    if (o->json)
        return;
    double D = fmax(pa->diagonal, pb->diagonal);
    printf("  %-12s %zu of %zu transforms give other pairs; at the exact placement (D = %.4g):\n", ref->name, differ,
           l->count, D);
    print_diff("meshquery", only_mine, &sm, D);
    print_diff(ref->name, only_ref, &sr, D);
}

static void bench_mode(const collide_opts *o, const engine *engines, int count, const xform_list *l, bool all,
                       pair_buf *buf)
{
    double times[3][64], t[3];
    size_t pairs[3], largest;
    unsigned reps = o->reps > 64 ? 64 : o->reps;
    for (int e = 0; e < count; e++) { /* warm-up */
        run_all(&engines[e], l, all, buf, &pairs[e], &largest);
        if (!reserve_pairs(buf, largest))
            return;
    }
    for (unsigned r = 0; r < reps; r++)
        for (int e = 0; e < count; e++)
            times[e][r] = run_all(&engines[e], l, all, buf, &pairs[e], &largest);
    const char *mode = all ? "all-pairs" : "yes-no";
    for (int e = 0; e < count; e++) {
        t[e] = bench_median(times[e], reps);
        report(o, engines[e].name, mode, "throughput", (double)l->count / t[e] * 1e-3, "Kqueries/s");
        report(o, engines[e].name, mode, "us_per_query", t[e] / (double)l->count * 1e6, "us");
        report(o, engines[e].name, mode, all ? "pairs_per_query" : "hit_fraction", (double)pairs[e] / (double)l->count,
               all ? "pairs" : "");
    }
    for (int e = 1; e < count; e++) {
        char metric[64];
        snprintf(metric, sizeof metric, "speedup_vs_%s", engines[e].name);
        report(o, "meshquery", mode, metric, t[e] / t[0], "x");
    }
}

/* Both sides' hierarchies; side 1 is side 0's when OTHER is MESH. */
typedef struct built {
    mq_obbtree *tree[2];
    void *fcl[2][2]; /* ref_fcl *, [bounding volume][side] */
    bool shared;
} built;

static const char *const fcl_names[2] = {"fcl-obb", "fcl-obbrss"};

/* One OBB tree build (replacing *t); wall ms, < 0 on failure. */
static double build_tree(const collide_opts *o, const mq_mesh *m, mq_obbtree **t)
{
    mq_obbtree_def def = mq_default_obbtree_def();
    def.fit = o->fit;
    def.max_leaf_size = o->leaf;
    mq_diag d;
    mq_obbtree_destroy(*t);
    *t = NULL;
    double t0 = bench_now();
    if (mq_obbtree_build(m, &def, t, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench collide: build failed: %s\n", d.message);
        return -1.0;
    }
    return (bench_now() - t0) * 1e3;
}

/* One FCL model build (replacing *f); its build ms, < 0 when FCL is absent or fails. */
static double build_fcl(const mq_mesh *m, int bv, double scale, void **f)
{
#if defined(MQ_HAVE_FCL)
    double ms = -1.0;
    ref_fcl_destroy(*f);
    *f = ref_fcl_create_scaled(mq_mesh_positions(m), mq_mesh_vertex_count(m), mq_mesh_indices(m),
                               mq_mesh_triangle_count(m), (ref_fcl_bv)bv, scale, &ms);
    return *f ? ms : -1.0;
#else
    (void)m, (void)bv, (void)scale, (void)f;
    return -1.0;
#endif
}

static void free_built(built *h)
{
    int sides = h->shared ? 1 : 2;
    for (int s = 0; s < sides; s++) {
        mq_obbtree_destroy(h->tree[s]);
#if defined(MQ_HAVE_FCL)
        ref_fcl_destroy(h->fcl[0][s]);
        ref_fcl_destroy(h->fcl[1][s]);
#endif
    }
}

static void report_builds(const collide_opts *o, double ms[3][64], unsigned reps, const bool fcl[2])
{
    double ours = bench_median(ms[0], reps);
    report(o, "meshquery", "mesh", "build_ms", ours, "ms");
    for (int bv = 0; bv < 2; bv++)
        if (fcl[bv])
            report(o, fcl_names[bv], "mesh", "build_ms", bench_median(ms[1 + bv], reps), "ms");
    for (int bv = 0; bv < 2; bv++)
        if (fcl[bv]) {
            char metric[64];
            snprintf(metric, sizeof metric, "build_speedup_vs_%s", fcl_names[bv]);
            report(o, "meshquery", "mesh", metric, bench_median(ms[1 + bv], reps) / ours, "x");
        }
}

/* FCL's world scale (the automatic one resolved), that side 1 must share; 1 without FCL. */
static double fcl_world_scale(const built *h, int side)
{
#if defined(MQ_HAVE_FCL)
    for (int bv = 0; bv < 2; bv++)
        if (h->fcl[bv][side])
            return ref_fcl_scale(h->fcl[bv][side]);
#endif
    (void)h, (void)side;
    return 1.0;
}

/* Side 0 built --reps times in turns (meshquery, FCL OBB, FCL OBBRSS), medians
 * reported; side 1 is side 0's or built once. */
static bool build_all(const collide_opts *o, const placed_mesh *pa, const placed_mesh *pb, built *h)
{
    double ms[3][64];
    unsigned reps = o->reps > 64 ? 64 : o->reps;
    bool fcl[2] = {o->fcl, o->fcl};
    for (unsigned r = 0; r < reps; r++) {
        if ((ms[0][r] = build_tree(o, pa->mesh, &h->tree[0])) < 0.0)
            return false;
        for (int bv = 0; bv < 2; bv++)
            if (fcl[bv])
                fcl[bv] = (ms[1 + bv][r] = build_fcl(pa->mesh, bv, o->fcl_scale, &h->fcl[bv][0])) >= 0.0;
    }
    report_builds(o, ms, reps, fcl);
    if (fcl[0] || fcl[1])
        report(o, "fcl", "mesh", "world_scale", fcl_world_scale(h, 0), "x");
    if (h->shared) {
        h->tree[1] = h->tree[0];
        h->fcl[0][1] = h->fcl[0][0], h->fcl[1][1] = h->fcl[1][0];
        return true;
    }
    double other = build_tree(o, pb->mesh, &h->tree[1]);
    if (other < 0.0)
        return false;
    report(o, "meshquery", "other", "build_ms", other, "ms");
    for (int bv = 0; bv < 2; bv++)
        if (fcl[bv] && build_fcl(pb->mesh, bv, fcl_world_scale(h, 0), &h->fcl[bv][1]) < 0.0)
            return false;
    return true;
}

static int run(const collide_opts *o, placed_mesh *pa, placed_mesh *pb, const xform_list *l)
{
    built h = {{NULL, NULL}, {{NULL, NULL}, {NULL, NULL}}, pa->mesh == pb->mesh};
    if (!build_all(o, pa, pb, &h)) {
        free_built(&h);
        return 1;
    }
    engine engines[3] = {{"meshquery", h.tree[0], h.tree[1], run_obbtree}};
    int count = 1;
#if defined(MQ_HAVE_FCL)
    for (int bv = 0; bv < 2; bv++)
        if (h.fcl[bv][0] && h.fcl[bv][1])
            engines[count++] = (engine){fcl_names[bv], h.fcl[bv][0], h.fcl[bv][1], run_fcl};
#endif
    pair_buf buf = {NULL, 0};
    bench_mode(o, engines, count, l, false, &buf);
    bench_mode(o, engines, count, l, true, &buf);
    for (int e = 1; e < count; e++)
        compare(o, &engines[0], &engines[e], l, pa, pb);
    free(buf.p);
    free_built(&h);
    return 0;
}

int bench_collide_main(int argc, char **argv)
{
    collide_opts o;
    int st = parse_args(argc, argv, &o);
    if (st)
        return st == 1 ? 0 : st;
    placed_mesh pa = {0}, pb = {0};
    xform_list l = {NULL, 0, 0};
    bool same = !strcmp(o.mesh_path, o.other_path); /* one mesh for both sides */
    bool ok = load(o.mesh_path, o.subdivide, &pa);
    if (ok && same)
        pb = pa;
    else if (ok)
        ok = load(o.other_path, o.subdivide, &pb);
    if (ok && o.xforms_path) {
        ok = read_xforms(o.xforms_path, &l);
    } else if (ok) {
        mqt_rng r;
        mqt_rng_seed(&r, o.seed);
        for (size_t i = 0; i < o.generate && ok; i++) {
            mq_rigid x = random_placement(&r, &pa, &pb);
            ok = push_xform(&l, &x);
        }
    }
    if (ok && !o.json)
        printf("mq-bench collide %s vs %s: %zu + %zu triangles, %zu transforms\n", o.mesh_path, o.other_path,
               mq_mesh_triangle_count(pa.mesh), mq_mesh_triangle_count(pb.mesh), l.count);
    st = ok ? run(&o, &pa, &pb, &l) : 1;
    free(l.x);
    mq_mesh_destroy(pa.mesh);
    if (!same)
        mq_mesh_destroy(pb.mesh);
    return st;
}
