/*
 * mq-bench prims: nanoseconds per call of every function in
 * meshquery/primitives.h, on pre-generated random inputs.
 *
 * Each predicate gets 4096 inputs from a fixed seed, placed so that a
 * realistic share of the calls hit: the shapes of one input slot (size
 * ~0.2..1) lie within +-0.6 of a common point, and rays start ~4 away aimed
 * within +-0.6 of their target (+-0.25 for triangles); a third of the rays are short segments. The
 * inputs are cycled in order, so they stay in L2 and the figure is the cost of
 * the test itself, not of cache misses. A run times --iterations calls; the
 * figure reported is the median of 7 runs, after one untimed warm-up pass.
 * Results are folded into a volatile sink so that no call can be optimised
 * away (the library is a separate translation unit anyway, but LTO builds
 * should not change what is measured).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/primitives.h>

#include "bench.h"

#define N_IN 4096 /* inputs per predicate; a power of two, cycled with a mask */
#define MASK (N_IN - 1)
#define REPS 7
#define DEFAULT_ITERATIONS 300000

/* ------------------------------------------------------------------------- */
/* Inputs                                                                    */
/* ------------------------------------------------------------------------- */

typedef struct inputs {
    /* one ray per target kind, aimed near that slot's shape */
    mq_ray ray_aabb[N_IN], ray_obb[N_IN], ray_sph[N_IN], ray_cap[N_IN], ray_tri[N_IN], ray_plane[N_IN];
    mq_aabb aabb[N_IN], aabb_b[N_IN];
    mq_obb obb[N_IN], obb_b[N_IN];
    mq_sphere sph[N_IN], sph_b[N_IN];
    mq_capsule cap[N_IN], cap_b[N_IN];
    mq_triangle tri[N_IN], tri_b[N_IN];
    mq_plane plane[N_IN];
    mq_aabb2 ab2[N_IN], ab2_b[N_IN];
    mq_rect2 r2[N_IN], r2_b[N_IN];
    vec3 pt[N_IN];
    float quat[N_IN][4]; /* w, x, y, z */
} inputs;

/* splitmix64: a fixed, portable stream, so every machine benchmarks the same inputs */
static uint64_t rng_state = 0x6D712D62656E6368ull; /* "mq-bench" */

static uint64_t rng_u64(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float frand(float lo, float hi)
{
    return lo + (hi - lo) * (float)((rng_u64() >> 40) * 0x1.0p-24);
}

static void rand_point(vec3 out, float spread)
{
    for (int i = 0; i < 3; i++)
        out[i] = frand(-spread, spread);
}

static void rand_unit(vec3 out)
{
    /* uniform on the sphere: z uniform, longitude uniform */
    float z = frand(-1, 1), phi = frand(0, 6.2831853f), r = sqrtf(fmaxf(0.0f, 1.0f - z * z));
    out[0] = r * cosf(phi);
    out[1] = r * sinf(phi);
    out[2] = z;
}

/* A random unit quaternion w, x, y, z. */
static void rand_quat(float q[4])
{
    vec3 u;
    rand_unit(u);
    float a = frand(0, 3.1415927f), s = sinf(a);
    q[0] = cosf(a);
    q[1] = u[0] * s;
    q[2] = u[1] * s;
    q[3] = u[2] * s;
}

/* Every shape of a slot sits within +-0.6 of the slot's centre, so pairs of
 * them overlap often enough to be realistic (both outcomes are common). */
static void near_point(vec3 out, const vec3 c)
{
    for (int i = 0; i < 3; i++)
        out[i] = c[i] + frand(-0.6f, 0.6f);
}

static void rand_obb(mq_obb *b, const vec3 c0)
{
    vec3 c, h;
    float q[4];
    near_point(c, c0);
    for (int i = 0; i < 3; i++)
        h[i] = frand(0.1f, 0.5f);
    rand_quat(q);
    mq_obb_from_quat(c, h, q, b);
}

static void rand_aabb(mq_aabb *b, const vec3 c0)
{
    vec3 c;
    near_point(c, c0);
    for (int i = 0; i < 3; i++) {
        float h = frand(0.1f, 0.5f);
        b->min[i] = c[i] - h;
        b->max[i] = c[i] + h;
    }
}

static void rand_triangle(mq_triangle *t, const vec3 c0)
{
    vec3 c;
    near_point(c, c0);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++)
            t->v[k][i] = c[i] + frand(-0.7f, 0.7f);
}

static void rand_capsule(mq_capsule *cp, const vec3 c0)
{
    vec3 d;
    near_point(cp->a, c0);
    rand_unit(d);
    float len = frand(0.1f, 1.0f);
    for (int i = 0; i < 3; i++)
        cp->b[i] = cp->a[i] + len * d[i];
    cp->radius = frand(0.05f, 0.4f);
}

static void rand_sphere(mq_sphere *s, const vec3 c0)
{
    near_point(s->center, c0);
    s->radius = frand(0.1f, 0.6f);
}

static void rand_rect2(mq_rect2 *r, const vec3 c0)
{
    float th = frand(0, 6.2831853f);
    r->center[0] = c0[0] + frand(-0.6f, 0.6f);
    r->center[1] = c0[1] + frand(-0.6f, 0.6f);
    r->half[0] = frand(0.1f, 0.6f);
    r->half[1] = frand(0.1f, 0.6f);
    r->axes[0][0] = cosf(th);
    r->axes[0][1] = sinf(th);
    r->axes[1][0] = -sinf(th);
    r->axes[1][1] = cosf(th);
}

static void rand_aabb2(mq_aabb2 *b, const vec3 c0)
{
    for (int k = 0; k < 2; k++) {
        float h = frand(0.1f, 0.6f), c = c0[k] + frand(-0.6f, 0.6f);
        b->min[k] = c - h;
        b->max[k] = c + h;
    }
}

/* A ray from ~4 away, aimed within `spread` of `target`; a third are short segments. */
static void rand_ray(mq_ray *r, const vec3 target, float spread)
{
    vec3 u, aim;
    rand_unit(u);
    for (int i = 0; i < 3; i++) {
        r->origin[i] = target[i] + 4.0f * u[i];
        aim[i] = target[i] + frand(-spread, spread);
        r->dir[i] = aim[i] - r->origin[i];
    }
    r->tmin = 0.0f;
    r->tmax = (rng_u64() % 3 == 0) ? frand(0.5f, 1.2f) : INFINITY;
}

static void make_inputs(inputs *in)
{
    for (int i = 0; i < N_IN; i++) {
        vec3 c, target;
        rand_point(c, 1.5f);
        rand_aabb(&in->aabb[i], c);
        rand_aabb(&in->aabb_b[i], c);
        rand_obb(&in->obb[i], c);
        rand_obb(&in->obb_b[i], c);
        rand_sphere(&in->sph[i], c);
        rand_sphere(&in->sph_b[i], c);
        rand_capsule(&in->cap[i], c);
        rand_capsule(&in->cap_b[i], c);
        rand_triangle(&in->tri[i], c);
        rand_triangle(&in->tri_b[i], c);
        rand_rect2(&in->r2[i], c);
        rand_rect2(&in->r2_b[i], c);
        rand_aabb2(&in->ab2[i], c);
        rand_aabb2(&in->ab2_b[i], c);
        near_point(in->pt[i], c);
        rand_quat(in->quat[i]);
        vec3 n;
        rand_unit(n);
        for (int k = 0; k < 3; k++)
            in->plane[i].normal[k] = n[k];
        in->plane[i].d = frand(-1.0f, 1.0f);
        for (int k = 0; k < 3; k++)
            target[k] = 0.5f * (in->aabb[i].min[k] + in->aabb[i].max[k]);
        rand_ray(&in->ray_aabb[i], target, 0.6f);
        rand_ray(&in->ray_obb[i], in->obb[i].center, 0.6f);
        rand_ray(&in->ray_sph[i], in->sph[i].center, 0.6f);
        for (int k = 0; k < 3; k++)
            target[k] = 0.5f * (in->cap[i].a[k] + in->cap[i].b[k]);
        rand_ray(&in->ray_cap[i], target, 0.6f);
        for (int k = 0; k < 3; k++)
            target[k] = (in->tri[i].v[0][k] + in->tri[i].v[1][k] + in->tri[i].v[2][k]) / 3.0f;
        rand_ray(&in->ray_tri[i], target, 0.25f); /* triangles are thin targets */
        rand_ray(&in->ray_plane[i], c, 0.6f);
    }
}

/* ------------------------------------------------------------------------- */
/* Kernels: one call each, returning something that depends on the output    */
/* ------------------------------------------------------------------------- */

enum { KIND_BOOL, KIND_VALUE }; /* KIND_BOOL kernels return 0 / 1: the hit rate */

#define K(name) static inline double k_##name(const inputs *in, size_t i)

K(ray_is_valid)
{
    return mq_ray_is_valid(&in->ray_obb[i]);
}
K(obb_is_valid)
{
    return mq_obb_is_valid(&in->obb[i]);
}
K(obb_from_quat)
{
    mq_obb o;
    mq_obb_from_quat(in->obb[i].center, in->obb[i].half, in->quat[i], &o);
    return o.axes[0][0];
}
K(obb_from_aabb)
{
    mq_obb o;
    mq_obb_from_aabb(&in->aabb[i], &o);
    return o.half[0];
}
K(raycast_aabb)
{
    mq_ray_span s;
    return mq_raycast_aabb(&in->ray_aabb[i], &in->aabb[i], &s);
}
K(raycast_obb)
{
    mq_ray_span s;
    return mq_raycast_obb(&in->ray_obb[i], &in->obb[i], &s);
}
K(raycast_sphere)
{
    mq_ray_span s;
    return mq_raycast_sphere(&in->ray_sph[i], &in->sph[i], &s);
}
K(raycast_capsule)
{
    mq_ray_span s;
    return mq_raycast_capsule(&in->ray_cap[i], &in->cap[i], &s);
}
K(raycast_triangle)
{
    mq_triangle_hit h;
    return mq_raycast_triangle(&in->ray_tri[i], &in->tri[i], &h);
}
K(raycast_plane)
{
    float t;
    return mq_raycast_plane(&in->ray_plane[i], &in->plane[i], &t);
}
K(overlap_sphere_sphere)
{
    return mq_overlap_sphere_sphere(&in->sph[i], &in->sph_b[i]);
}
K(overlap_sphere_aabb)
{
    return mq_overlap_sphere_aabb(&in->sph[i], &in->aabb[i]);
}
K(overlap_sphere_obb)
{
    return mq_overlap_sphere_obb(&in->sph[i], &in->obb[i]);
}
K(overlap_sphere_capsule)
{
    return mq_overlap_sphere_capsule(&in->sph[i], &in->cap[i]);
}
K(overlap_sphere_triangle)
{
    return mq_overlap_sphere_triangle(&in->sph[i], &in->tri[i]);
}
K(overlap_capsule_capsule)
{
    return mq_overlap_capsule_capsule(&in->cap[i], &in->cap_b[i]);
}
K(overlap_capsule_aabb)
{
    return mq_overlap_capsule_aabb(&in->cap[i], &in->aabb[i]);
}
K(overlap_capsule_obb)
{
    return mq_overlap_capsule_obb(&in->cap[i], &in->obb[i]);
}
K(overlap_capsule_triangle)
{
    return mq_overlap_capsule_triangle(&in->cap[i], &in->tri[i]);
}
K(overlap_aabb_aabb)
{
    return mq_overlap_aabb_aabb(&in->aabb[i], &in->aabb_b[i]);
}
K(overlap_aabb_obb)
{
    return mq_overlap_aabb_obb(&in->aabb[i], &in->obb[i]);
}
K(overlap_obb_obb)
{
    return mq_overlap_obb_obb(&in->obb[i], &in->obb_b[i]);
}
K(overlap_triangle_aabb)
{
    return mq_overlap_triangle_aabb(&in->tri[i], &in->aabb[i]);
}
K(overlap_triangle_obb)
{
    return mq_overlap_triangle_obb(&in->tri[i], &in->obb[i]);
}
K(overlap_triangle_triangle)
{
    return mq_overlap_triangle_triangle(&in->tri[i], &in->tri_b[i]);
}
K(overlap_aabb2_aabb2)
{
    return mq_overlap_aabb2_aabb2(&in->ab2[i], &in->ab2_b[i]);
}
K(overlap_rect2_rect2)
{
    return mq_overlap_rect2_rect2(&in->r2[i], &in->r2_b[i]);
}
K(closest_point_segment)
{
    vec3 o;
    float t;
    return mq_closest_point_segment(in->pt[i], in->cap[i].a, in->cap[i].b, o, &t) + o[0];
}
K(closest_point_aabb)
{
    vec3 o;
    return mq_closest_point_aabb(in->pt[i], &in->aabb[i], o) + o[0];
}
K(closest_point_obb)
{
    vec3 o;
    return mq_closest_point_obb(in->pt[i], &in->obb[i], o) + o[0];
}
K(closest_point_triangle)
{
    vec3 o;
    vec2 uv;
    return mq_closest_point_triangle(in->pt[i], &in->tri[i], o, uv) + o[0];
}
K(closest_points_segment_segment)
{
    vec3 oa, ob;
    return mq_closest_points_segment_segment(in->cap[i].a, in->cap[i].b, in->cap_b[i].a, in->cap_b[i].b, oa, ob) +
           oa[0];
}
K(closest_points_segment_triangle)
{
    vec3 os, ot;
    return mq_closest_points_segment_triangle(in->cap[i].a, in->cap[i].b, &in->tri[i], os, ot) + os[0];
}

/* The timed loop, specialised per kernel so each call is direct (no function
 * pointer in the loop). */
#define RUN(name)                                                                                                      \
    static double run_##name(const inputs *in, size_t iters)                                                           \
    {                                                                                                                  \
        double acc = 0.0;                                                                                              \
        for (size_t n = 0; n < iters; n++)                                                                             \
            acc += k_##name(in, n & MASK);                                                                             \
        return acc;                                                                                                    \
    }                                                                                                                  \
    static double one_##name(const inputs *in, size_t i)                                                               \
    {                                                                                                                  \
        return k_##name(in, i);                                                                                        \
    }

RUN(ray_is_valid)
RUN(obb_is_valid)
RUN(obb_from_quat)
RUN(obb_from_aabb)
RUN(raycast_aabb)
RUN(raycast_obb)
RUN(raycast_sphere)
RUN(raycast_capsule)
RUN(raycast_triangle)
RUN(raycast_plane)
RUN(overlap_sphere_sphere)
RUN(overlap_sphere_aabb)
RUN(overlap_sphere_obb)
RUN(overlap_sphere_capsule)
RUN(overlap_sphere_triangle)
RUN(overlap_capsule_capsule)
RUN(overlap_capsule_aabb)
RUN(overlap_capsule_obb)
RUN(overlap_capsule_triangle)
RUN(overlap_aabb_aabb)
RUN(overlap_aabb_obb)
RUN(overlap_obb_obb)
RUN(overlap_triangle_aabb)
RUN(overlap_triangle_obb)
RUN(overlap_triangle_triangle)
RUN(overlap_aabb2_aabb2)
RUN(overlap_rect2_rect2)
RUN(closest_point_segment)
RUN(closest_point_aabb)
RUN(closest_point_obb)
RUN(closest_point_triangle)
RUN(closest_points_segment_segment)
RUN(closest_points_segment_triangle)

typedef struct prim {
    const char *name;
    int kind;
    double (*run)(const inputs *in, size_t iters);
    double (*one)(const inputs *in, size_t i);
} prim;

#define P(name, kind)                                                                                                  \
    {                                                                                                                  \
#name, kind, run_##name, one_##name                                                                            \
    }

static const prim prims[] = {
    P(ray_is_valid, KIND_BOOL),
    P(obb_is_valid, KIND_BOOL),
    P(obb_from_quat, KIND_VALUE),
    P(obb_from_aabb, KIND_VALUE),
    P(raycast_aabb, KIND_BOOL),
    P(raycast_obb, KIND_BOOL),
    P(raycast_sphere, KIND_BOOL),
    P(raycast_capsule, KIND_BOOL),
    P(raycast_triangle, KIND_BOOL),
    P(raycast_plane, KIND_BOOL),
    P(overlap_sphere_sphere, KIND_BOOL),
    P(overlap_sphere_aabb, KIND_BOOL),
    P(overlap_sphere_obb, KIND_BOOL),
    P(overlap_sphere_capsule, KIND_BOOL),
    P(overlap_sphere_triangle, KIND_BOOL),
    P(overlap_capsule_capsule, KIND_BOOL),
    P(overlap_capsule_aabb, KIND_BOOL),
    P(overlap_capsule_obb, KIND_BOOL),
    P(overlap_capsule_triangle, KIND_BOOL),
    P(overlap_aabb_aabb, KIND_BOOL),
    P(overlap_aabb_obb, KIND_BOOL),
    P(overlap_obb_obb, KIND_BOOL),
    P(overlap_triangle_aabb, KIND_BOOL),
    P(overlap_triangle_obb, KIND_BOOL),
    P(overlap_triangle_triangle, KIND_BOOL),
    P(overlap_aabb2_aabb2, KIND_BOOL),
    P(overlap_rect2_rect2, KIND_BOOL),
    P(closest_point_segment, KIND_VALUE),
    P(closest_point_aabb, KIND_VALUE),
    P(closest_point_obb, KIND_VALUE),
    P(closest_point_triangle, KIND_VALUE),
    P(closest_points_segment_segment, KIND_VALUE),
    P(closest_points_segment_triangle, KIND_VALUE),
};

/* ------------------------------------------------------------------------- */
/* Driver                                                                    */
/* ------------------------------------------------------------------------- */

static volatile double sink;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mq-bench prims [--json] [--iterations N]\n\n"
            "Nanoseconds per call of every primitive test in meshquery/primitives.h, on %d\n"
            "pre-generated random inputs per test (fixed seed), cycled. Each figure is the\n"
            "median of %d runs of N calls.\n\n"
            "  --json           one JSON object per line instead of a table\n"
            "  --iterations N   calls per run (default %d)\n"
            "  -h, --help       this text\n",
            N_IN, REPS, DEFAULT_ITERATIONS);
}

int bench_prims_main(int argc, char **argv)
{
    bool json = false;
    size_t iterations = DEFAULT_ITERATIONS;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--json")) {
            json = true;
        } else if (!strcmp(argv[a], "--iterations")) {
            char *end = NULL;
            unsigned long long v = 0;
            if (a + 1 < argc && argv[a + 1][0] >= '0' && argv[a + 1][0] <= '9')
                v = strtoull(argv[a + 1], &end, 10);
            if (!end || *end || v == 0 || v > (1ull << 40)) {
                fprintf(stderr, "mq-bench prims: --iterations needs a positive integer (got '%s')\n",
                        a + 1 < argc ? argv[a + 1] : "");
                return 2;
            }
            iterations = (size_t)v;
            a++;
        } else if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "mq-bench prims: unknown argument '%s'\n", argv[a]);
            usage(stderr);
            return 2;
        }
    }

    inputs *in = malloc(sizeof *in);
    if (!in) {
        fprintf(stderr, "mq-bench prims: out of memory\n");
        return 1;
    }
    make_inputs(in);

    if (!json)
        printf("%-34s %10s %9s\n", "name", "ns/call", "hit-rate");
    for (size_t p = 0; p < sizeof prims / sizeof prims[0]; p++) {
        const prim *pr = &prims[p];
        double hits = 0.0;
        for (size_t i = 0; i < N_IN; i++)
            hits += pr->one(in, i);
        sink = sink + pr->run(in, N_IN); /* warm-up */
        double ns[REPS];
        for (int r = 0; r < REPS; r++) {
            double t0 = bench_now();
            double acc = pr->run(in, iterations);
            double t1 = bench_now();
            sink = sink + acc;
            ns[r] = (t1 - t0) * 1e9 / (double)iterations;
        }
        double med = bench_median(ns, REPS);
        if (json) {
            printf("{\"bench\":\"prims\",\"engine\":\"meshquery\",\"mesh\":\"\",\"input\":\"random\",\"threads\":1,"
                   "\"metric\":\"ns_per_call\",\"value\":%.2f,\"unit\":\"ns\",\"predicate\":\"%s\"}\n",
                   med, pr->name);
        } else if (pr->kind == KIND_BOOL) {
            printf("%-34s %10.2f %8.1f%%\n", pr->name, med, 100.0 * hits / N_IN);
        } else {
            printf("%-34s %10.2f %9s\n", pr->name, med, "-");
        }
        fflush(stdout);
    }
    free(in);
    return 0;
}
