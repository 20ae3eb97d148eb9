/*
 * mq-bench survey MESH.obj [--subdivide K] [--rays N] [--shapes N] [--points N]
 *                 [--xforms N] [--fcl-queries N] [--reps R] [--seed S] [--no-fcl] [--json]
 *
 * The survey's bounding volumes measured against each other on the same
 * work (docs/survey.md): meshquery's AABB BVH (bvh), OBB tree (obb), k-DOP
 * trees with k = 6 (the AABB tree on the k-DOP leaves), 14, 18, 26 (kdop6 ..
 * kdop26) and sphere tree (sphere), and FCL's BVHModel of KDOP<18>, kIOS, OBB
 * and OBBRSS (ref_fcl_survey.h), all on the same triangles.
 *
 * Per hierarchy: build time, bytes per triangle; the volume and surface area
 * of the leaf volumes (k-DOP and sphere trees: exact, from their statistics;
 * the OBB tree: the volume of all its boxes, its only statistic; FCL's leaves
 * hold one triangle each and are not measured); and the throughput
 * [Kqueries/s] of
 *   ray_closest, ray_any   incoherent rays (docs/formats.md), N of them
 *   sphere, capsule, obb, aabb   N shapes of each kind (docs/formats.md "shape queries"): all triangles
 *   closest_point          N points uniform in the box grown by 10% of D, unbounded
 *   collide_all, collide_any   the mesh against itself under N transforms (docs/formats.md)
 * The median of R timed runs. Every meshquery hierarchy must give the OBB
 * tree's answers (total overlaps, hits, distances, pairs): "agrees_with_obb"
 * is 1 when it does. FCL runs a prefix of each input (--fcl-queries: its
 * KDOP<18> answers a few hundred shape queries per second), and reports its
 * own overlap and pair counts (its tolerances differ from the primitives').
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>
#include <meshquery/kdoptree.h>
#include <meshquery/spheretree.h>

#include "bench.h"
#include "generate.h"
#include "subdivide.h"
#ifdef MQ_HAVE_FCL
#include "ref_fcl_survey.h"
#endif

typedef struct survey_opts {
    const char *mesh_path;
    unsigned subdivide;
    size_t rays, shapes, points, xforms, fcl_queries;
    unsigned reps;
    uint64_t seed;
    bool fcl, json;
} survey_opts;

typedef enum q_kind {
    Q_RAY_CLOSEST,
    Q_RAY_ANY,
    Q_SPHERE,
    Q_CAPSULE,
    Q_OBB,
    Q_AABB,
    Q_POINT,
    Q_ALL,
    Q_ANY,
    Q_KINDS
} q_kind;
static const char *const q_names[Q_KINDS] = {"ray_closest", "ray_any", "sphere",      "capsule",    "obb",
                                             "aabb",        "point",   "collide_all", "collide_any"};

typedef struct inputs {
    mq_ray *rays;
    mq_shape *shapes[4];
    vec3 *points;
    mq_rigid *xforms;
} inputs;

/* One meshquery hierarchy behind the survey's queries. */
typedef enum h_kind { H_BVH, H_OBB, H_KDOP, H_SPHERE } h_kind;
typedef struct hier {
    const char *name;
    h_kind kind;
    uint32_t k;
    mq_bvh *bvh;
    mq_obbtree *obb;
    mq_kdoptree *kdop;
    mq_spheretree *sphere;
    double build_ms;
} hier;

typedef struct run {
    const survey_opts *o;
    const mq_mesh *mesh;
    size_t triangles;
    inputs in;
    uint32_t *ids;
    double answers_obb[Q_KINDS]; /* the OBB tree's answer sums */
} run;

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void emit(const run *r, const char *engine, const char *metric, double value, const char *unit)
{
    if (r->o->json)
        printf("{\"bench\":\"survey\",\"engine\":\"%s\",\"mesh\":\"%s\",\"subdivide\":%u,\"triangles\":%zu,"
               "\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\"}\n",
               engine, base_name(r->o->mesh_path), r->o->subdivide, r->triangles, metric, value, unit);
    else
        printf("  %-12s %-28s %14.5g %s\n", engine, metric, value, unit);
    fflush(stdout);
}

static int parse_args(int argc, char **argv, survey_opts *o)
{
    *o = (survey_opts){.subdivide = 1,
                       .rays = 200000,
                       .shapes = 5000,
                       .points = 20000,
                       .xforms = 40,
                       .fcl_queries = 300,
                       .reps = 3,
                       .seed = 1,
                       .fcl = true};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json"))
            o->json = true;
        else if (!strcmp(a, "--no-fcl"))
            o->fcl = false;
        else if (!strcmp(a, "--subdivide") && v)
            o->subdivide = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--rays") && v)
            o->rays = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--shapes") && v)
            o->shapes = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--points") && v)
            o->points = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--xforms") && v)
            o->xforms = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--fcl-queries") && v)
            o->fcl_queries = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--reps") && v)
            o->reps = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--seed") && v)
            o->seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(a, "--isa") && v)
            i++; /* taken by main.c */
        else if (a[0] != '-' && !o->mesh_path)
            o->mesh_path = a;
        else {
            fprintf(stderr, "mq-bench survey: unknown argument '%s'\n", a);
            return 2;
        }
    }
    if (!o->mesh_path) {
        fprintf(stderr, "mq-bench survey: a mesh is needed\n");
        return 2;
    }
    o->reps = o->reps < 3 ? 3 : o->reps > 64 ? 64 : o->reps;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Inputs (docs/formats.md "Generated inputs")                               */
/* ------------------------------------------------------------------------- */

static float random_size(mqt_rng *r, double D)
{
    return (float)(D * exp(log(0.002) + (log(0.05) - log(0.002)) * mqt_rng_unit(r)));
}

static void random_rotation(mqt_rng *r, float q[4])
{
    double u1 = mqt_rng_unit(r), u2 = 6.283185307179586 * mqt_rng_unit(r), u3 = 6.283185307179586 * mqt_rng_unit(r);
    double s = sqrt(1.0 - u1), c = sqrt(u1);
    q[0] = (float)(c * cos(u3)), q[1] = (float)(s * sin(u2)), q[2] = (float)(s * cos(u2)), q[3] = (float)(c * sin(u3));
}

static void random_point(mqt_rng *r, const mq_aabb *b, double grow, vec3 out)
{
    for (int k = 0; k < 3; k++)
        out[k] = (float)(b->min[k] - grow + (b->max[k] - b->min[k] + 2.0 * grow) * mqt_rng_unit(r));
}

static bool make_inputs(const survey_opts *o, const mq_aabb *b, double D, inputs *in)
{
    mqt_rng r;
    mqt_rng_seed(&r, o->seed);
    in->rays = malloc((o->rays + 1) * sizeof *in->rays);
    in->points = malloc((o->points + 1) * sizeof *in->points);
    in->xforms = malloc((o->xforms + 1) * sizeof *in->xforms);
    if (!in->rays || !in->points || !in->xforms)
        return false;
    mqt_generate_incoherent(b, o->rays, o->seed, in->rays);
    for (int kind = 0; kind < 4; kind++) {
        in->shapes[kind] = malloc((o->shapes + 1) * sizeof(mq_shape));
        if (!in->shapes[kind])
            return false;
        for (size_t i = 0; i < o->shapes; i++) {
            mq_shape *s = &in->shapes[kind][i];
            vec3 c, h;
            random_point(&r, b, 0.0, c);
            if (kind == 0) {
                *s = mq_shape_sphere((mq_sphere){{c[0], c[1], c[2]}, random_size(&r, D)});
            } else if (kind == 1) {
                double z = 2.0 * mqt_rng_unit(&r) - 1.0, phi = 6.283185307179586 * mqt_rng_unit(&r);
                double sn = sqrt(1.0 - z * z), len = 0.1 * D * mqt_rng_unit(&r);
                double d[3] = {sn * cos(phi), sn * sin(phi), z};
                mq_capsule cap = {{c[0], c[1], c[2]},
                                  {(float)(c[0] + len * d[0]), (float)(c[1] + len * d[1]), (float)(c[2] + len * d[2])},
                                  random_size(&r, D)};
                *s = mq_shape_capsule(cap);
            } else {
                for (int k = 0; k < 3; k++)
                    h[k] = random_size(&r, D);
                if (kind == 2) {
                    float q[4];
                    mq_obb box;
                    random_rotation(&r, q);
                    mq_obb_from_quat(c, h, q, &box);
                    *s = mq_shape_obb(box);
                } else {
                    *s = mq_shape_aabb(
                        (mq_aabb){{c[0] - h[0], c[1] - h[1], c[2] - h[2]}, {c[0] + h[0], c[1] + h[1], c[2] + h[2]}});
                }
            }
        }
    }
    for (size_t i = 0; i < o->points; i++)
        random_point(&r, b, 0.1 * D, in->points[i]);
    for (size_t i = 0; i < o->xforms; i++) { /* "transforms for mesh vs mesh", the mesh against itself */
        mq_rigid x = {{1, 0, 0, 0}, {0, 0, 0}};
        random_rotation(&r, x.rotation);
        vec3 c, rc;
        for (int k = 0; k < 3; k++)
            c[k] = 0.5f * (b->min[k] + b->max[k]);
        mq_rigid_apply(&x, c, rc);
        for (int k = 0; k < 3; k++)
            x.translation[k] = (float)(c[k] - rc[k] + (2.0 * mqt_rng_unit(&r) - 1.0) * 0.3 * D);
        in->xforms[i] = x;
    }
    return true;
}

static void free_inputs(inputs *in)
{
    free(in->rays);
    free(in->points);
    free(in->xforms);
    for (int k = 0; k < 4; k++)
        free(in->shapes[k]);
}

/* ------------------------------------------------------------------------- */
/* meshquery's hierarchies                                                   */
/* ------------------------------------------------------------------------- */

static bool build(const mq_mesh *m, hier *h)
{
    mq_diag d;
    mq_status st = MQ_OK;
    double t0 = bench_now();
    if (h->kind == H_BVH) {
        st = mq_bvh_build(m, NULL, &h->bvh, &d);
    } else if (h->kind == H_OBB) {
        st = mq_obbtree_build(m, NULL, &h->obb, &d);
    } else if (h->kind == H_KDOP) {
        mq_kdoptree_def def = mq_default_kdoptree_def();
        def.k = h->k;
        st = mq_kdoptree_build(m, &def, &h->kdop, &d);
    } else {
        st = mq_spheretree_build(m, NULL, &h->sphere, &d);
    }
    h->build_ms = 1e3 * (bench_now() - t0);
    if (st != MQ_OK)
        fprintf(stderr, "mq-bench survey: building %s failed: %s\n", h->name, d.message);
    return st == MQ_OK;
}

static void destroy(hier *h)
{
    mq_bvh_destroy(h->bvh);
    mq_obbtree_destroy(h->obb);
    mq_kdoptree_destroy(h->kdop);
    mq_spheretree_destroy(h->sphere);
}

static bool has(const hier *h, q_kind q)
{
    return !(h->kind == H_BVH && (q == Q_ALL || q == Q_ANY)); /* the BVH has no mesh vs mesh */
}

/* Runs every query of kind q once; returns the sum of the answers (hits, overlaps, distances, pairs). */
static double run_kind(const run *r, const hier *h, q_kind q, size_t count)
{
    double sum = 0.0;
    const inputs *in = &r->in;
    size_t cap = r->triangles;
    for (size_t i = 0; i < count; i++) {
        switch (q) {
        case Q_RAY_CLOSEST: {
            mq_hit hit;
            bool got = h->bvh    ? mq_bvh_raycast_closest(h->bvh, &in->rays[i], NULL, &hit)
                       : h->obb  ? mq_obbtree_raycast_closest(h->obb, &in->rays[i], NULL, &hit)
                       : h->kdop ? mq_kdoptree_raycast_closest(h->kdop, &in->rays[i], NULL, &hit)
                                 : mq_spheretree_raycast_closest(h->sphere, &in->rays[i], NULL, &hit);
            sum += got ? 1.0 + hit.triangle * 1e-12 : 0.0;
            break;
        }
        case Q_RAY_ANY:
            sum += h->bvh    ? mq_bvh_raycast_any(h->bvh, &in->rays[i], NULL)
                   : h->obb  ? mq_obbtree_raycast_any(h->obb, &in->rays[i], NULL)
                   : h->kdop ? mq_kdoptree_raycast_any(h->kdop, &in->rays[i], NULL)
                             : mq_spheretree_raycast_any(h->sphere, &in->rays[i], NULL);
            break;
        case Q_SPHERE:
        case Q_CAPSULE:
        case Q_OBB:
        case Q_AABB: {
            const mq_shape *s = &in->shapes[q - Q_SPHERE][i];
            sum += (double)(h->bvh    ? mq_bvh_overlap_array(h->bvh, s, r->ids, cap)
                            : h->obb  ? mq_obbtree_overlap_array(h->obb, s, r->ids, cap)
                            : h->kdop ? mq_kdoptree_overlap_array(h->kdop, s, r->ids, cap)
                                      : mq_spheretree_overlap_array(h->sphere, s, r->ids, cap));
            break;
        }
        case Q_POINT: {
            mq_point_hit p;
            bool got = h->bvh    ? mq_bvh_closest_point(h->bvh, in->points[i], INFINITY, &p)
                       : h->obb  ? mq_obbtree_closest_point(h->obb, in->points[i], INFINITY, &p)
                       : h->kdop ? mq_kdoptree_closest_point(h->kdop, in->points[i], INFINITY, &p)
                                 : mq_spheretree_closest_point(h->sphere, in->points[i], INFINITY, &p);
            sum += got ? p.distance : -1.0;
            break;
        }
        case Q_ALL:
            sum += (double)(h->obb    ? mq_obbtree_collide_array(h->obb, h->obb, &in->xforms[i], NULL, 0)
                            : h->kdop ? mq_kdoptree_collide_array(h->kdop, h->kdop, &in->xforms[i], NULL, 0)
                                      : mq_spheretree_collide_array(h->sphere, h->sphere, &in->xforms[i], NULL, 0));
            break;
        case Q_ANY:
            sum += h->obb    ? mq_obbtree_any_collide(h->obb, h->obb, &in->xforms[i])
                   : h->kdop ? mq_kdoptree_any_collide(h->kdop, h->kdop, &in->xforms[i])
                             : mq_spheretree_any_collide(h->sphere, h->sphere, &in->xforms[i]);
            break;
        default:
            break;
        }
    }
    return sum;
}

static size_t count_of(const survey_opts *o, q_kind q)
{
    return q <= Q_RAY_ANY ? o->rays : q <= Q_AABB ? o->shapes : q == Q_POINT ? o->points : o->xforms;
}

static void measure(run *r, hier *h)
{
    if (!build(r->mesh, h))
        return;
    emit(r, h->name, "build_ms", h->build_ms, "ms");
    size_t bytes = h->bvh    ? mq_bvh_byte_count(h->bvh)
                   : h->obb  ? mq_obbtree_byte_count(h->obb)
                   : h->kdop ? mq_kdoptree_byte_count(h->kdop)
                             : mq_spheretree_byte_count(h->sphere);
    emit(r, h->name, "bytes_per_triangle", (double)bytes / (double)r->triangles, "B");
    if (h->obb) {
        mq_obbtree_stats st;
        mq_obbtree_get_stats(h->obb, &st);
        emit(r, h->name, "total_volume", st.total_volume, "units^3");
    } else if (h->kdop) {
        mq_kdoptree_stats st;
        mq_kdoptree_get_stats(h->kdop, &st);
        emit(r, h->name, "total_volume", st.total_volume, "units^3");
        emit(r, h->name, "leaf_volume", st.leaf_volume, "units^3");
        emit(r, h->name, "leaf_area", st.leaf_area, "units^2");
    } else if (h->sphere) {
        mq_spheretree_stats st;
        mq_spheretree_get_stats(h->sphere, &st);
        emit(r, h->name, "total_volume", st.total_volume, "units^3");
        emit(r, h->name, "leaf_volume", st.leaf_volume, "units^3");
        emit(r, h->name, "leaf_area", st.leaf_area, "units^2");
    }
    for (q_kind q = 0; q < Q_KINDS; q++) {
        size_t n = count_of(r->o, q);
        if (!has(h, q) || n == 0)
            continue;
        double times[64], sum = 0.0;
        for (unsigned rep = 0; rep < r->o->reps; rep++) {
            double t0 = bench_now();
            sum = run_kind(r, h, q, n);
            times[rep] = bench_now() - t0;
        }
        double t = bench_median(times, r->o->reps);
        emit(r, h->name, q_names[q], (double)n / t / 1e3, "Kqueries/s");
        if (h->obb)
            r->answers_obb[q] = sum;
        else if (q != Q_RAY_CLOSEST || h->kind != H_BVH) /* the BVH's SIMD leaf may round t at vertices */
            emit(r, h->name, "agrees_with_obb", sum == r->answers_obb[q] ? 1.0 : 0.0, q_names[q]);
    }
    destroy(h);
}

/* ------------------------------------------------------------------------- */
/* FCL                                                                       */
/* ------------------------------------------------------------------------- */

#ifdef MQ_HAVE_FCL
static void measure_fcl(run *r, ref_fcls_bv bv)
{
    const char *name = ref_fcls_name(bv);
    double ms = 0.0;
    ref_fcls *f = ref_fcls_create(mq_mesh_positions(r->mesh), mq_mesh_vertex_count(r->mesh), mq_mesh_indices(r->mesh),
                                  r->triangles, bv, &ms);
    if (!f) {
        fprintf(stderr, "mq-bench survey: FCL could not build %s\n", name);
        return;
    }
    emit(r, name, "build_ms", ms, "ms");
    emit(r, name, "bytes_per_triangle", ref_fcls_bytes(f) / (double)r->triangles, "B");
    const survey_opts *o = r->o;
    for (q_kind q = Q_SPHERE; q < Q_KINDS; q++) {
        size_t n = count_of(o, q);
        n = n < o->fcl_queries ? n : o->fcl_queries;
        if (q == Q_ALL || q == Q_ANY)
            n = n < 10 ? n : 10; /* FCL's all-pairs mesh vs mesh takes seconds per transform on large meshes */
        if (n == 0 || (q == Q_POINT && !ref_fcls_has_distance(bv)))
            continue;
        double times[64], sum = 0.0;
        for (unsigned rep = 0; rep < o->reps; rep++) {
            double t0 = bench_now();
            sum = 0.0;
            for (size_t i = 0; i < n; i++) {
                if (q == Q_POINT)
                    sum += ref_fcls_point_distance(f, r->in.points[i]);
                else if (q == Q_ALL || q == Q_ANY)
                    sum += (double)ref_fcls_collide(f, f, &r->in.xforms[i], q == Q_ALL);
                else
                    sum += (double)ref_fcls_overlap(f, &r->in.shapes[q - Q_SPHERE][i]);
            }
            times[rep] = bench_now() - t0;
        }
        emit(r, name, q_names[q], (double)n / bench_median(times, o->reps) / 1e3, "Kqueries/s");
        emit(r, name, "answers_per_query", sum / (double)n, q_names[q]);
    }
    ref_fcls_destroy(f);
}
#endif

int bench_survey_main(int argc, char **argv)
{
    survey_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    mq_mesh *mesh = NULL;
    mq_diag d;
    if (mq_obj_load(o.mesh_path, NULL, &mesh, NULL, &d) != MQ_OK) {
        fprintf(stderr, "mq-bench survey: %s: %s\n", o.mesh_path, d.message);
        return 1;
    }
    if (!mqt_subdivide_mesh(&mesh, o.subdivide)) {
        fprintf(stderr, "mq-bench survey: cannot subdivide %s by %u\n", o.mesh_path, o.subdivide);
        mq_mesh_destroy(mesh);
        return 1;
    }
    run r;
    memset(&r, 0, sizeof r);
    r.o = &o;
    r.mesh = mesh;
    r.triangles = mq_mesh_triangle_count(mesh);
    mq_aabb box;
    mqt_bounds(mq_mesh_positions(mesh), mq_mesh_vertex_count(mesh), &box);
    double D = 0.0;
    for (int k = 0; k < 3; k++)
        D += ((double)box.max[k] - box.min[k]) * ((double)box.max[k] - box.min[k]);
    D = sqrt(D);
    r.ids = malloc((r.triangles + 1) * sizeof *r.ids);
    if (!r.ids || !make_inputs(&o, &box, D, &r.in)) {
        fprintf(stderr, "mq-bench survey: out of memory\n");
        free(r.ids);
        free_inputs(&r.in);
        mq_mesh_destroy(mesh);
        return 1;
    }
    if (!o.json)
        printf("mq-bench survey: %s (subdivide %u): %zu triangles, %zu rays, %zu shapes per kind, %zu points, "
               "%zu transforms, median of %u runs\n",
               o.mesh_path, o.subdivide, r.triangles, o.rays, o.shapes, o.points, o.xforms, o.reps);
    hier hs[] = {{"obb", H_OBB, 0, NULL, NULL, NULL, NULL, 0},      {"bvh", H_BVH, 0, NULL, NULL, NULL, NULL, 0},
                 {"kdop6", H_KDOP, 6, NULL, NULL, NULL, NULL, 0},   {"kdop14", H_KDOP, 14, NULL, NULL, NULL, NULL, 0},
                 {"kdop18", H_KDOP, 18, NULL, NULL, NULL, NULL, 0}, {"kdop26", H_KDOP, 26, NULL, NULL, NULL, NULL, 0},
                 {"sphere", H_SPHERE, 0, NULL, NULL, NULL, NULL, 0}};
    for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++) /* the OBB tree first: the answers to agree with */
        measure(&r, &hs[i]);
#ifdef MQ_HAVE_FCL
    if (o.fcl)
        for (int bv = 0; bv < 4; bv++)
            measure_fcl(&r, (ref_fcls_bv)bv);
#endif
    free(r.ids);
    free_inputs(&r.in);
    mq_mesh_destroy(mesh);
    return 0;
}
