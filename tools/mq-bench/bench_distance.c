/*
 * mq-bench distance — how far apart: mesh vs mesh (a mesh and a second copy
 * of it, or another mesh, placed by rigid transforms) and shape vs mesh
 * (spheres, capsules, OBBs, AABBs, convex hulls near the mesh). meshquery's OBB tree and
 * BVH (meshquery/proximity.h; for shapes also the 18-DOP tree and the sphere
 * tree, meshquery-kdop (k = 18) and meshquery-sphere) beside FCL's fcl::distance on
 * BVHModel<RSS> and BVHModel<OBBRSS> (when built with FCL), same inputs, one
 * process.
 *
 *   mq-bench distance MESH.obj [--other OTHER.obj] [--generate N] [--shapes N] [--reps R]
 *                     [--seed S] [--subdivide K] [--no-fcl] [--json]
 *
 * Placements (N, default 1000): a uniform rotation of the second mesh, its
 * bounds centre at the first's plus a uniform direction times a length
 * uniform in [0, 1.25 D] (D: the larger bounds diagonal), so the pairs run
 * from deeply intersecting through touching to about a diagonal apart.
 * Shapes (N of each kind, default 1000): centres uniform in the mesh's box
 * grown by D/4 on every side, sizes from D/100 to D/10 (capsule and box
 * directions uniform), so some overlap the mesh and most do not. A convex
 * is the hull of 16 points uniform in a ball of that size (radius), kept by
 * FCL as an fcl::Convex built once outside the timing; its oracle is
 * mq_convex_triangle_distance (GJK in double; convex.h).
 * Timing: every engine answers every query once per run, engines in turns,
 * process CPU time, the median of --reps runs (at least 3); builds are timed
 * once each (wall time). speedup_vs_<engine> is meshquery's throughput over
 * the reference's; speedup_vs_fcl_fastest over the faster of FCL's two.
 *
 * Answers: distances agree when they differ by at most 1e-6 D (FCL's
 * distance of intersecting meshes or an overlapping shape is not defined and
 * is read as 0). Every disagreement is decided by the double-precision
 * oracle: the distance of the triangle pair (or shape and triangle) each
 * engine reports, recomputed in double; the true distance is at most either,
 * so the engine whose reported pair is the closer is right, and one that
 * reports a distance its own pair does not have is wrong
 * (decided_meshquery_right, decided_reference_right, decided_neither).
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
#include "subdivide.h"
#if defined(MQ_HAVE_FCL)
#include "ref_fcl.h"
#endif

int bench_distance_main(int argc, char **argv);

typedef struct dist_opts {
    const char *mesh_path, *other_path;
    size_t placements, shapes;
    unsigned reps, subdivide;
    uint64_t seed;
    bool fcl, json;
} dist_opts;

typedef struct placed_mesh {
    mq_mesh *mesh;
    mq_aabb box;
    double diagonal;
} placed_mesh;

/* One answer: the distance (negative: nothing found) and the triangles (b: the mesh's, for shapes). */
typedef struct answer {
    double d;
    uint32_t ta, tb;
} answer;

/* Engine ids: 0 OBB tree, 1 BVH, 2 FCL RSS, 3 FCL OBBRSS, 4 18-DOP tree, 5 sphere tree. */
#define ENGINES_MAX 6
#define ENG_FCL_RSS 2
#define ENG_KDOP 4
#define ENG_SPHERE 5

static const char *const engine_names[ENGINES_MAX] = {"meshquery-obb", "meshquery-bvh",  "fcl-rss",
                                                      "fcl-obbrss",    "meshquery-kdop", "meshquery-sphere"};

static bool is_reference(int id)
{
    return id == 2 || id == 3;
}

typedef struct engine {
    const char *name;
    int id;
    double build_ms;
    answer *ans;
    double seconds[64];
} engine;

typedef struct workload {
    const dist_opts *o;
    const placed_mesh *a, *b;
    const char *mode; /* "mesh", "sphere", "capsule", "obb", "aabb", "convex" */
    const mq_rigid *xf;
    const mq_shape *shapes;
    size_t n;
#if defined(MQ_HAVE_FCL)
    ref_fcl_convex **fcl_hulls[2]; /* convex mode: each hull as FCL keeps it, per FCL engine */
#endif
} workload;

typedef struct hierarchies {
    mq_obbtree *obb_a, *obb_b;
    mq_bvh *bvh_a, *bvh_b;
    mq_kdoptree *kdop_a; /* shapes only */
    mq_spheretree *sphere_a;
    double ms[ENGINES_MAX];
#if defined(MQ_HAVE_FCL)
    ref_fcl *rss_a, *rss_b, *obbrss_a, *obbrss_b;
#endif
} hierarchies;

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void emit(const workload *w, const char *who, const char *metric, double value, const char *unit)
{
    const dist_opts *o = w->o;
    if (o->json)
        printf("{\"bench\":\"distance\",\"engine\":\"%s\",\"mesh\":\"%s\",\"other\":\"%s\",\"subdivide\":%u,"
               "\"mode\":\"%s\",\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\"}\n",
               who, base_name(o->mesh_path), base_name(o->other_path ? o->other_path : o->mesh_path), o->subdivide,
               w->mode, metric, value, unit);
    else
        printf("  %-8s %-16s %-34s %12.4f %s\n", w->mode, who, metric, value, unit);
}

static int parse_args(int argc, char **argv, dist_opts *o)
{
    *o = (dist_opts){.placements = 1000, .shapes = 1000, .reps = 5, .subdivide = 1, .seed = 1, .fcl = true};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--json"))
            o->json = true;
        else if (!strcmp(a, "--no-fcl"))
            o->fcl = false;
        else if (a[0] != '-') {
            if (o->mesh_path) {
                fprintf(stderr, "mq-bench distance: one MESH.obj only (the second is --other)\n");
                return 2;
            }
            o->mesh_path = a;
        } else {
            i++;
            if (!strcmp(a, "--other"))
                o->other_path = v;
            else if (!strcmp(a, "--generate"))
                o->placements = strtoull(v, NULL, 10);
            else if (!strcmp(a, "--shapes"))
                o->shapes = strtoull(v, NULL, 10);
            else if (!strcmp(a, "--reps"))
                o->reps = (unsigned)strtoul(v, NULL, 10);
            else if (!strcmp(a, "--seed"))
                o->seed = strtoull(v, NULL, 0);
            else if (!strcmp(a, "--subdivide"))
                o->subdivide = (unsigned)strtoul(v, NULL, 10);
        }
    }
    if (!o->mesh_path) {
        fprintf(stderr, "mq-bench distance: no MESH.obj given\nTry 'mq-bench distance --help'.\n");
        return 2;
    }
    o->reps = o->reps < 3 ? 3 : o->reps > 64 ? 64 : o->reps;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Inputs                                                                    */
/* ------------------------------------------------------------------------- */

static bool load(const char *path, unsigned K, placed_mesh *pm)
{
    mq_diag d;
    if (mq_obj_load(path, NULL, &pm->mesh, NULL, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench distance: %s: %s\n", path, d.message);
        return false;
    }
    if (!mqt_subdivide_mesh(&pm->mesh, K)) {
        fprintf(stderr, "mq-bench distance: cannot subdivide %s by %u\n", path, K);
        return false;
    }
    mqt_bounds(mq_mesh_positions(pm->mesh), mq_mesh_vertex_count(pm->mesh), &pm->box);
    double d2 = 0.0;
    for (int k = 0; k < 3; k++)
        d2 += ((double)pm->box.max[k] - pm->box.min[k]) * ((double)pm->box.max[k] - pm->box.min[k]);
    pm->diagonal = sqrt(d2);
    return true;
}

static void random_direction(mqt_rng *r, double out[3])
{
    double z = 2.0 * mqt_rng_unit(r) - 1.0, phi = 6.283185307179586 * mqt_rng_unit(r), s = sqrt(1.0 - z * z);
    out[0] = s * cos(phi), out[1] = s * sin(phi), out[2] = z;
}

/* A uniform rotation (Shoemake), w, x, y, z. */
static void random_rotation(mqt_rng *r, float q[4])
{
    double u1 = mqt_rng_unit(r), u2 = 6.283185307179586 * mqt_rng_unit(r), u3 = 6.283185307179586 * mqt_rng_unit(r);
    double s = sqrt(1.0 - u1), c = sqrt(u1);
    q[0] = (float)(c * cos(u3)), q[1] = (float)(s * sin(u2)), q[2] = (float)(s * cos(u2)), q[3] = (float)(c * sin(u3));
}

static void make_placements(const dist_opts *o, const placed_mesh *a, const placed_mesh *b, mq_rigid *xf)
{
    mqt_rng r;
    mqt_rng_seed(&r, o->seed);
    double D = fmax(a->diagonal, b->diagonal);
    for (size_t i = 0; i < o->placements; i++) {
        mq_rigid x = {{1, 0, 0, 0}, {0, 0, 0}};
        random_rotation(&r, x.rotation);
        vec3 cb, rcb;
        for (int k = 0; k < 3; k++)
            cb[k] = 0.5f * (b->box.min[k] + b->box.max[k]);
        mq_rigid_apply(&x, cb, rcb);
        double dir[3], len = 1.25 * D * mqt_rng_unit(&r);
        random_direction(&r, dir);
        for (int k = 0; k < 3; k++)
            x.translation[k] = (float)(0.5 * ((double)a->box.min[k] + a->box.max[k]) - rcb[k] + len * dir[k]);
        xf[i] = x;
    }
}

/* Shapes of one kind; convexes are built into hulls[] (the caller destroys them). */
static bool make_shapes(const dist_opts *o, const placed_mesh *m, mq_shape_kind kind, mq_shape *out, mq_convex **hulls)
{
    mqt_rng r;
    mqt_rng_seed(&r, o->seed * 31 + (uint64_t)kind);
    double D = m->diagonal;
    for (size_t i = 0; i < o->shapes; i++) {
        vec3 c;
        for (int k = 0; k < 3; k++)
            c[k] = (float)(m->box.min[k] - 0.25 * D + mqt_rng_unit(&r) * (m->box.max[k] - m->box.min[k] + 0.5 * D));
        float size = (float)(D * (0.01 + 0.09 * mqt_rng_unit(&r)));
        double dir[3];
        random_direction(&r, dir);
        if (kind == MQ_SHAPE_SPHERE) {
            out[i] = mq_shape_sphere((mq_sphere){{c[0], c[1], c[2]}, size});
        } else if (kind == MQ_SHAPE_CAPSULE) {
            mq_capsule cap = {{c[0], c[1], c[2]}, {c[0], c[1], c[2]}, 0.3f * size};
            for (int k = 0; k < 3; k++)
                cap.a[k] -= (float)(size * dir[k]), cap.b[k] += (float)(size * dir[k]);
            out[i] = mq_shape_capsule(cap);
        } else if (kind == MQ_SHAPE_OBB) {
            mq_obb box;
            float q[4];
            random_rotation(&r, q);
            vec3 half = {size, 0.6f * size, 0.3f * size};
            mq_obb_from_quat(c, half, q, &box);
            out[i] = mq_shape_obb(box);
        } else if (kind == MQ_SHAPE_AABB) {
            mq_aabb box = {{c[0] - size, c[1] - 0.5f * size, c[2] - 0.7f * size},
                           {c[0] + size, c[1] + 0.5f * size, c[2] + 0.7f * size}};
            out[i] = mq_shape_aabb(box);
        } else {
            float p[3 * 16];
            for (int j = 0; j < 16; j++) {
                double u[3], s = size * cbrt(mqt_rng_unit(&r));
                random_direction(&r, u);
                for (int k = 0; k < 3; k++)
                    p[3 * j + k] = (float)(c[k] + s * u[k]);
            }
            hulls[i] = NULL;
            if (mq_convex_create(p, 16, NULL, &hulls[i], NULL) != MQ_OK)
                return false;
            out[i] = mq_shape_convex(hulls[i]);
        }
    }
    return true;
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

static answer from_result(bool found, const mq_distance_result *r)
{
    return found ? (answer){r->distance, r->triangle_a, r->triangle_b} : (answer){-1, MQ_NO_TRIANGLE, MQ_NO_TRIANGLE};
}

static answer from_shape_result(bool found, const mq_shape_distance_result *r)
{
    return found ? (answer){r->distance, MQ_NO_TRIANGLE, r->triangle} : (answer){-1, MQ_NO_TRIANGLE, MQ_NO_TRIANGLE};
}

/* Answers query i with engine e (ids above; the k-DOP and sphere trees: shapes only). */
static answer run_one(const workload *w, const hierarchies *h, int e, size_t i)
{
    bool mesh = w->xf != NULL;
    if (e == ENG_KDOP || e == ENG_SPHERE) {
        mq_shape_distance_result r;
        bool f = e == ENG_KDOP ? mq_kdoptree_shape_distance(h->kdop_a, &w->shapes[i], NULL, &r)
                               : mq_spheretree_shape_distance(h->sphere_a, &w->shapes[i], NULL, &r);
        return from_shape_result(f, &r);
    }
    if (e == 0 || e == 1) {
        if (mesh) {
            mq_distance_result r;
            bool f = e == 0 ? mq_obbtree_distance(h->obb_a, h->obb_b, &w->xf[i], NULL, &r)
                            : mq_bvh_distance(h->bvh_a, h->bvh_b, &w->xf[i], NULL, &r);
            return from_result(f, &r);
        }
        mq_shape_distance_result r;
        bool f = e == 0 ? mq_obbtree_shape_distance(h->obb_a, &w->shapes[i], NULL, &r)
                        : mq_bvh_shape_distance(h->bvh_a, &w->shapes[i], NULL, &r);
        return from_shape_result(f, &r);
    }
#if defined(MQ_HAVE_FCL)
    ref_fcl *a = e == ENG_FCL_RSS ? h->rss_a : h->obbrss_a, *b = e == ENG_FCL_RSS ? h->rss_b : h->obbrss_b;
    double pa[3], pb[3];
    answer an = {0, MQ_NO_TRIANGLE, MQ_NO_TRIANGLE};
    if (mesh)
        an.d = ref_fcl_distance(a, b, &w->xf[i], pa, pb, &an.ta, &an.tb);
    else if (w->shapes[i].kind == MQ_SHAPE_CONVEX)
        an.d = ref_fcl_convex_distance(a, w->fcl_hulls[e - 2][i], pa, &an.tb);
    else
        an.d = ref_fcl_shape_distance(a, &w->shapes[i], pa, &an.tb);
    an.d = fmax(an.d, 0.0); /* FCL's distance of intersecting objects is not defined */
    return an;
#else
    (void)h, (void)i;
    return (answer){-1, MQ_NO_TRIANGLE, MQ_NO_TRIANGLE};
#endif
}

static void time_engines(const workload *w, const hierarchies *h, engine *e, int count)
{
    for (unsigned rep = 0; rep < w->o->reps; rep++)
        for (int k = 0; k < count; k++) {
            double t0 = cpu_now();
            for (size_t i = 0; i < w->n; i++)
                e[k].ans[i] = run_one(w, h, e[k].id, i);
            e[k].seconds[rep] = cpu_now() - t0;
        }
}

/* ------------------------------------------------------------------------- */
/* The double oracle                                                         */
/* ------------------------------------------------------------------------- */

static void mesh_triangle(const mq_mesh *m, uint32_t t, double out[3][3])
{
    const float *p = mq_mesh_positions(m);
    const uint32_t *ix = mq_mesh_indices(m);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            out[c][k] = p[3 * (size_t)ix[3 * (size_t)t + (size_t)c] + (size_t)k];
}

/* x mapped by the rigid transform in double (normalised quaternion). */
static void rigid_double(const mq_rigid *xf, const double x[3], double out[3])
{
    double w = xf->rotation[0], a = xf->rotation[1], b = xf->rotation[2], c = xf->rotation[3];
    double n = sqrt(w * w + a * a + b * b + c * c);
    w /= n, a /= n, b /= n, c /= n;
    double R[3][3] = {{1 - 2 * (b * b + c * c), 2 * (a * b - w * c), 2 * (a * c + w * b)},
                      {2 * (a * b + w * c), 1 - 2 * (a * a + c * c), 2 * (b * c - w * a)},
                      {2 * (a * c - w * b), 2 * (b * c + w * a), 1 - 2 * (a * a + b * b)}};
    for (int r = 0; r < 3; r++)
        out[r] = R[r][0] * x[0] + R[r][1] * x[1] + R[r][2] * x[2] + xf->translation[r];
}

/* Distance from p to a box given by centre, unit axes and half extents. */
static double point_box_distance(const double p[3], const double c[3], double ax[3][3], const double half[3])
{
    double d2 = 0;
    for (int i = 0; i < 3; i++) {
        double q = (p[0] - c[0]) * ax[i][0] + (p[1] - c[1]) * ax[i][1] + (p[2] - c[2]) * ax[i][2];
        double e = fabs(q) - half[i];
        d2 += e > 0 ? e * e : 0;
    }
    return sqrt(d2);
}

/* Distance between a box and a triangle in double: 0 when they overlap (the exact
 * float predicate), else the smallest vertex-solid, vertex-triangle and edge-edge
 * distance, which is where two convex polytopes come closest. */
static double box_triangle_distance(const mq_shape *s, double t[3][3], const mq_triangle *ft)
{
    mq_obb box;
    if (s->kind == MQ_SHAPE_AABB)
        mq_obb_from_aabb(&s->u.aabb, &box);
    else
        box = s->u.obb;
    if (mq_overlap_triangle_obb(ft, &box))
        return 0;
    double c[3], ax[3][3], half[3], corner[8][3];
    for (int i = 0; i < 3; i++) {
        c[i] = box.center[i], half[i] = box.half[i];
        for (int k = 0; k < 3; k++)
            ax[i][k] = box.axes[i][k];
    }
    for (int v = 0; v < 8; v++)
        for (int k = 0; k < 3; k++)
            corner[v][k] = c[k] + (v & 1 ? 1 : -1) * half[0] * ax[0][k] + (v & 2 ? 1 : -1) * half[1] * ax[1][k] +
                           (v & 4 ? 1 : -1) * half[2] * ax[2][k];
    double best = INFINITY;
    for (int v = 0; v < 3; v++)
        best = fmin(best, point_box_distance(t[v], c, ax, half));
    for (int v = 0; v < 8; v++)
        best = fmin(best, sqrt(point_triangle_d2(corner[v], t)));
    for (int v = 0; v < 8; v++)
        for (int bit = 1; bit < 8; bit <<= 1)
            if (!(v & bit))
                for (int e = 0; e < 3; e++)
                    best = fmin(best, sqrt(segment_segment_d2(corner[v], corner[v | bit], t[e], t[(e + 1) % 3])));
    return best;
}

/* The distance of what an answer names, in double; INFINITY when it names nothing. */
static double oracle(const workload *w, size_t i, const answer *an)
{
    if (an->tb == MQ_NO_TRIANGLE || an->tb >= mq_mesh_triangle_count(w->xf ? w->b->mesh : w->a->mesh))
        return INFINITY;
    double tb[3][3];
    if (w->xf) {
        if (an->ta >= mq_mesh_triangle_count(w->a->mesh))
            return INFINITY;
        double ta[3][3], raw[3][3];
        mesh_triangle(w->a->mesh, an->ta, ta);
        mesh_triangle(w->b->mesh, an->tb, raw);
        for (int c = 0; c < 3; c++)
            rigid_double(&w->xf[i], raw[c], tb[c]);
        return triangle_distance(ta, tb);
    }
    mesh_triangle(w->a->mesh, an->tb, tb);
    const mq_shape *s = &w->shapes[i];
    if (s->kind == MQ_SHAPE_SPHERE)
        return fmax(0.0, sqrt(point_triangle_d2(
                             (double[3]){s->u.sphere.center[0], s->u.sphere.center[1], s->u.sphere.center[2]}, tb)) -
                             s->u.sphere.radius);
    if (s->kind == MQ_SHAPE_CAPSULE) {
        const mq_capsule *cp = &s->u.capsule;
        double a[3] = {cp->a[0], cp->a[1], cp->a[2]}, b[3] = {cp->b[0], cp->b[1], cp->b[2]};
        return fmax(0.0, sqrt(segment_triangle_d2(a, b, tb)) - cp->radius);
    }
    mq_triangle ft;
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            ft.v[c][k] = (float)tb[c][k];
    if (s->kind == MQ_SHAPE_CONVEX)
        return mq_convex_triangle_distance(s->u.convex, &ft, NULL, NULL);
    return box_triangle_distance(s, tb, &ft);
}

typedef struct verdicts {
    size_t differ, mine, theirs, neither;
    double max_diff;
} verdicts;

static verdicts compare(const workload *w, const engine *mine, const engine *ref, double D)
{
    verdicts v = {0};
    double tol = 1e-6 * D;
    for (size_t i = 0; i < w->n; i++) {
        double a = mine->ans[i].d, b = ref->ans[i].d, diff = fabs(a - b);
        v.max_diff = fmax(v.max_diff, diff);
        if (diff <= tol)
            continue;
        v.differ++;
        /* The truth is at most either pair's distance; an engine is right when it
         * reports (within tol) the smaller of the two and its own pair has it. */
        double oa = oracle(w, i, &mine->ans[i]), ob = oracle(w, i, &ref->ans[i]), truth = fmin(oa, ob);
        bool mine_right = fabs(a - truth) <= tol && fabs(oa - a) <= tol;
        bool theirs_right = fabs(b - truth) <= tol && fabs(ob - b) <= tol;
        v.mine += mine_right;
        v.theirs += theirs_right && !mine_right;
        v.neither += !mine_right && !theirs_right;
    }
    return v;
}

/* ------------------------------------------------------------------------- */
/* Runs                                                                      */
/* ------------------------------------------------------------------------- */

static void report(const workload *w, engine *e, int count)
{
    double rate[ENGINES_MAX];
    for (int k = 0; k < count; k++) {
        rate[k] = (double)w->n / bench_median(e[k].seconds, w->o->reps) / 1e3;
        emit(w, e[k].name, "throughput", rate[k], "Kqueries/s");
        emit(w, e[k].name, "us_per_query", 1e3 / rate[k], "us");
    }
    size_t found = 0, zero = 0;
    for (size_t i = 0; i < w->n; i++)
        found += e[0].ans[i].d >= 0, zero += e[0].ans[i].d == 0;
    emit(w, e[0].name, "intersecting_fraction", (double)zero / (double)w->n, "");
    emit(w, e[0].name, "found_fraction", (double)found / (double)w->n, "");
    double D = fmax(w->a->diagonal, w->b->diagonal), fastest = 0;
    bool refs = false;
    for (int k = 0; k < count; k++)
        refs = refs || is_reference(e[k].id);
    for (int mine = 0; mine < count; mine++) {
        if (is_reference(e[mine].id))
            continue;
        for (int k = 0; k < count; k++) {
            if (!is_reference(e[k].id))
                continue;
            char metric[64];
            snprintf(metric, sizeof metric, "speedup_vs_%s", e[k].name);
            emit(w, e[mine].name, metric, rate[mine] / rate[k], "x");
            fastest = fmax(fastest, rate[k]);
        }
        if (refs)
            emit(w, e[mine].name, "speedup_vs_fcl_fastest", rate[mine] / fastest, "x");
    }
    for (int k = 1; k < count; k++) {
        verdicts v = compare(w, &e[0], &e[k], D);
        char metric[96];
        snprintf(metric, sizeof metric, "distances_differing_from_%s", e[k].name);
        emit(w, e[0].name, metric, (double)v.differ, "queries");
        snprintf(metric, sizeof metric, "max_difference_rel_diagonal_vs_%s", e[k].name);
        emit(w, e[0].name, metric, v.max_diff / D, "");
        if (!is_reference(e[k].id))
            continue;
        snprintf(metric, sizeof metric, "decided_meshquery_right_vs_%s", e[k].name);
        emit(w, e[0].name, metric, (double)v.mine, "queries");
        snprintf(metric, sizeof metric, "decided_reference_right_vs_%s", e[k].name);
        emit(w, e[0].name, metric, (double)v.theirs, "queries");
        snprintf(metric, sizeof metric, "decided_neither_vs_%s", e[k].name);
        emit(w, e[0].name, metric, (double)v.neither, "queries");
    }
}

/* Runs the engines ids[0..count) (ids[0]: the one the others are compared with). */
static int run_workload(const workload *w, const hierarchies *h, const int *ids, int count)
{
    engine e[ENGINES_MAX];
    bool ok = true;
    for (int k = 0; k < count; k++) {
        e[k] = (engine){.name = engine_names[ids[k]], .id = ids[k], .build_ms = h->ms[ids[k]]};
        e[k].ans = malloc((w->n ? w->n : 1) * sizeof *e[k].ans);
        ok = ok && e[k].ans;
    }
    if (ok) {
        time_engines(w, h, e, count);
        report(w, e, count);
    }
    for (int k = 0; k < count; k++)
        free(e[k].ans);
    if (!ok)
        fprintf(stderr, "mq-bench distance: out of memory\n");
    return ok ? 0 : 1;
}

static double wall_ms_since(double t0)
{
    return 1e3 * (bench_now() - t0);
}

static bool build(const dist_opts *o, const placed_mesh *a, const placed_mesh *b, hierarchies *h, int *count)
{
    bool same = b == a;
    double t0 = bench_now();
    mq_obbtree_def od = mq_default_obbtree_def();
    mq_bvh_def bd = mq_default_bvh_def();
    bool ok = mq_obbtree_build(a->mesh, &od, &h->obb_a, NULL) == MQ_OK;
    h->ms[0] = wall_ms_since(t0);
    ok = ok && (same ? (h->obb_b = h->obb_a, true) : mq_obbtree_build(b->mesh, &od, &h->obb_b, NULL) == MQ_OK);
    t0 = bench_now();
    ok = ok && mq_bvh_build(a->mesh, &bd, &h->bvh_a, NULL) == MQ_OK;
    h->ms[1] = wall_ms_since(t0);
    ok = ok && (same ? (h->bvh_b = h->bvh_a, true) : mq_bvh_build(b->mesh, &bd, &h->bvh_b, NULL) == MQ_OK);
    t0 = bench_now();
    ok = ok && mq_kdoptree_build(a->mesh, NULL, &h->kdop_a, NULL) == MQ_OK; /* k = 18 */
    h->ms[ENG_KDOP] = wall_ms_since(t0);
    t0 = bench_now();
    ok = ok && mq_spheretree_build(a->mesh, NULL, &h->sphere_a, NULL) == MQ_OK;
    h->ms[ENG_SPHERE] = wall_ms_since(t0);
    *count = 2;
#if defined(MQ_HAVE_FCL)
    if (ok && o->fcl) {
        ref_fcl **slot[2][2] = {{&h->rss_a, &h->rss_b}, {&h->obbrss_a, &h->obbrss_b}};
        ref_fcl_bv bv[2] = {REF_FCL_RSS, REF_FCL_OBBRSS};
        for (int k = 0; k < 2 && ok; k++)
            for (int side = 0; side < 2 && ok; side++) {
                const mq_mesh *m = side ? b->mesh : a->mesh;
                double ms = 0;
                *slot[k][side] = ref_fcl_create(mq_mesh_positions(m), mq_mesh_vertex_count(m), mq_mesh_indices(m),
                                                mq_mesh_triangle_count(m), bv[k], &ms);
                ok = *slot[k][side] != NULL;
                if (side == 0)
                    h->ms[2 + k] = ms;
            }
        *count = 4;
    }
#else
    (void)o;
#endif
    return ok;
}

static void destroy(hierarchies *h)
{
    if (h->obb_b != h->obb_a)
        mq_obbtree_destroy(h->obb_b);
    mq_obbtree_destroy(h->obb_a);
    if (h->bvh_b != h->bvh_a)
        mq_bvh_destroy(h->bvh_b);
    mq_bvh_destroy(h->bvh_a);
    mq_kdoptree_destroy(h->kdop_a);
    mq_spheretree_destroy(h->sphere_a);
#if defined(MQ_HAVE_FCL)
    ref_fcl_destroy(h->rss_a);
    ref_fcl_destroy(h->rss_b);
    ref_fcl_destroy(h->obbrss_a);
    ref_fcl_destroy(h->obbrss_b);
#endif
}

/* The shape workload of one kind (convexes: their hulls and FCL's copies made and freed here). */
static int run_shapes(const dist_opts *o, const placed_mesh *a, const hierarchies *h, int count, mq_shape_kind kind,
                      const char *name, mq_shape *shapes)
{
    size_t n = o->shapes ? o->shapes : 1;
    mq_convex **hulls = kind == MQ_SHAPE_CONVEX ? calloc(n, sizeof *hulls) : NULL;
    workload ws = {.o = o, .a = a, .b = a, .mode = name, .shapes = shapes, .n = o->shapes};
    bool ok = (kind != MQ_SHAPE_CONVEX || hulls) && make_shapes(o, a, kind, shapes, hulls);
#if defined(MQ_HAVE_FCL)
    if (ok && hulls && count > 2) {
        ref_fcl *models[2] = {h->rss_a, h->obbrss_a};
        for (int e = 0; e < 2 && ok; e++) {
            ws.fcl_hulls[e] = calloc(n, sizeof *ws.fcl_hulls[e]);
            ok = ws.fcl_hulls[e] != NULL;
            for (size_t i = 0; ok && i < o->shapes; i++)
                ok = (ws.fcl_hulls[e][i] = ref_fcl_convex_create(models[e], hulls[i])) != NULL;
        }
    }
#endif
    /* the OBB tree, the BVH, the 18-DOP and sphere trees, then FCL's (count - 2 of them) */
    int ids[ENGINES_MAX] = {0, 1, ENG_KDOP, ENG_SPHERE, 2, 3};
    int status = ok ? run_workload(&ws, h, ids, count + 2) : 1;
    if (!ok)
        fprintf(stderr, "mq-bench distance: out of memory or a hull failed (%s)\n", name);
#if defined(MQ_HAVE_FCL)
    for (int e = 0; e < 2; e++) {
        for (size_t i = 0; ws.fcl_hulls[e] && i < o->shapes; i++)
            ref_fcl_convex_destroy(ws.fcl_hulls[e][i]);
        free(ws.fcl_hulls[e]);
    }
#else
    (void)count;
#endif
    for (size_t i = 0; hulls && i < o->shapes; i++)
        mq_convex_destroy(hulls[i]);
    free(hulls);
    return status;
}

static int run(const dist_opts *o, const placed_mesh *a, const placed_mesh *b)
{
    hierarchies h = {0};
    int count = 0, status = 1;
    mq_rigid *xf = malloc((o->placements ? o->placements : 1) * sizeof *xf);
    mq_shape *shapes = malloc((o->shapes ? o->shapes : 1) * sizeof *shapes);
    if (xf && shapes && build(o, a, b, &h, &count)) {
        static const int ids[4] = {0, 1, 2, 3}; /* mesh vs mesh: no k-DOP or sphere tree distance */
        workload w = {.o = o, .a = a, .b = b, .mode = "mesh", .xf = xf, .n = o->placements};
        if (!o->json)
            printf("mq-bench distance: %s (%zu triangles) vs %s (%zu triangles)\n", o->mesh_path,
                   mq_mesh_triangle_count(a->mesh), o->other_path ? o->other_path : o->mesh_path,
                   mq_mesh_triangle_count(b->mesh));
        for (int k = 0; k < count; k++)
            emit(&w, engine_names[k], "build_ms", h.ms[k], "ms");
        emit(&w, engine_names[ENG_KDOP], "build_ms", h.ms[ENG_KDOP], "ms");
        emit(&w, engine_names[ENG_SPHERE], "build_ms", h.ms[ENG_SPHERE], "ms");
        make_placements(o, a, b, xf);
        status = run_workload(&w, &h, ids, count);
        static const char *kinds[5] = {"sphere", "capsule", "obb", "aabb", "convex"};
        for (int kind = 0; kind < 5 && status == 0; kind++)
            status = run_shapes(o, a, &h, count, (mq_shape_kind)kind, kinds[kind], shapes);
    } else {
        fprintf(stderr, "mq-bench distance: out of memory or a build failed\n");
    }
    destroy(&h);
    free(xf);
    free(shapes);
    return status;
}

int bench_distance_main(int argc, char **argv)
{
    dist_opts o;
    int st = parse_args(argc, argv, &o);
    if (st)
        return st;
    placed_mesh a = {0}, b = {0};
    bool other = o.other_path && strcmp(o.other_path, o.mesh_path) != 0;
    if (!load(o.mesh_path, o.subdivide, &a) || (other && !load(o.other_path, o.subdivide, &b))) {
        mq_mesh_destroy(a.mesh);
        return 1;
    }
    st = run(&o, &a, other ? &b : &a);
    mq_mesh_destroy(a.mesh);
    mq_mesh_destroy(b.mesh);
    return st;
}
