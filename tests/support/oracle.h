/*
 * Double-precision oracles for the randomized differential tests (tests/diff/).
 *
 * Every oracle here is written from first principles with a method that is
 * deliberately DIFFERENT from the one a fast single-precision implementation
 * would use, so that a shared mistake is unlikely:
 *
 *   - distances: iterative minimisation over the shapes' parameters (golden
 *     section on convex 1D restrictions, exact clamped line minimisation for
 *     the innermost variable, coordinate descent for boxes);
 *   - polytope overlaps (box/box, triangle/box, triangle/triangle): the convex
 *     polytope test "a vertex of one lies in the other, or an edge of one
 *     crosses a face of the other" -- no separating axes anywhere;
 *   - 2D rectangles: Sutherland-Hodgman clipping;
 *   - rays: clipping against face planes (boxes), closest approach + half chord
 *     (spheres), bisection on the signed distance along the ray (capsules),
 *     Moller-Trumbore in double (triangles; the implementation is Woop's);
 *   - the tolerance band: the signed separation of two convex sets (distance
 *     when apart, minus the penetration depth when overlapping), found by a
 *     dense search over directions of the sets' support functions.
 *
 * Inputs are the implementation's float inputs widened to double, so both sides
 * see exactly the same sets. Nothing here calls the library's functions.
 */
#ifndef MQ_ORACLE_H
#define MQ_ORACLE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <meshquery/types.h>

#include "test_support.h"

/* ------------------------------------------------------------------------- */
/* Double vectors                                                            */
/* ------------------------------------------------------------------------- */

typedef struct oracle_v3 {
    double x, y, z;
} oracle_v3;

static inline oracle_v3 oracle_v3_make(double x, double y, double z)
{
    oracle_v3 r = {x, y, z};
    return r;
}
static inline oracle_v3 oracle_v3_f(const float *v)
{
    return oracle_v3_make(v[0], v[1], v[2]);
}
static inline void oracle_v3_to_f(oracle_v3 a, float *out)
{
    out[0] = (float)a.x;
    out[1] = (float)a.y;
    out[2] = (float)a.z;
}
static inline oracle_v3 oracle_add(oracle_v3 a, oracle_v3 b)
{
    return oracle_v3_make(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline oracle_v3 oracle_sub(oracle_v3 a, oracle_v3 b)
{
    return oracle_v3_make(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline oracle_v3 oracle_mul(oracle_v3 a, double s)
{
    return oracle_v3_make(a.x * s, a.y * s, a.z * s);
}
/* a + s*b */
static inline oracle_v3 oracle_madd(oracle_v3 a, oracle_v3 b, double s)
{
    return oracle_v3_make(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
static inline double oracle_dot(oracle_v3 a, oracle_v3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline oracle_v3 oracle_cross(oracle_v3 a, oracle_v3 b)
{
    return oracle_v3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double oracle_len2(oracle_v3 a)
{
    return oracle_dot(a, a);
}
static inline double oracle_len(oracle_v3 a)
{
    return sqrt(oracle_dot(a, a));
}
static inline double oracle_dist(oracle_v3 a, oracle_v3 b)
{
    return oracle_len(oracle_sub(a, b));
}
static inline double oracle_maxabs(oracle_v3 a)
{
    return fmax(fabs(a.x), fmax(fabs(a.y), fabs(a.z)));
}
static inline oracle_v3 oracle_normalize(oracle_v3 a)
{
    double l = oracle_len(a);
    return l > 0.0 ? oracle_mul(a, 1.0 / l) : a;
}
static inline bool oracle_v3_finite(oracle_v3 a)
{
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

/* ------------------------------------------------------------------------- */
/* Shapes in double                                                          */
/* ------------------------------------------------------------------------- */

/* { c + sum s_i*ax[i] : |s_i| <= h[i] }. For an OBB whose float axes are only
 * nearly orthonormal this is the parallelepiped the float fields literally
 * describe; the oracles never assume orthogonality. */
typedef struct oracle_box {
    oracle_v3 c;
    oracle_v3 ax[3];
    double h[3];
} oracle_box;

typedef struct oracle_tri {
    oracle_v3 v[3];
} oracle_tri;

typedef struct oracle_ray {
    oracle_v3 o, d;
    double tmin, tmax;
} oracle_ray;

oracle_box oracle_box_from_aabb(const mq_aabb *b);
oracle_box oracle_box_from_obb(const mq_obb *b);
oracle_tri oracle_tri_from_mq(const mq_triangle *t);
oracle_ray oracle_ray_from_mq(const mq_ray *r);
void oracle_box_vertices(const oracle_box *b, oracle_v3 out[8]);
/* Largest |coordinate| of the box's corners. */
double oracle_box_extent(const oracle_box *b);
double oracle_tri_extent(const oracle_tri *t);

/* ------------------------------------------------------------------------- */
/* Distances: iterative minimisers. Each returns the SQUARED distance.       */
/* ------------------------------------------------------------------------- */

/* Golden section on the segment parameter. */
double oracle_dist2_point_segment(oracle_v3 p, oracle_v3 a, oracle_v3 b, double *t_out);
/* Coordinate descent over the box parameters s_i in [-h_i, h_i]. */
double oracle_dist2_point_box(oracle_v3 p, const oracle_box *b, oracle_v3 *closest);
/* Golden section over u, exact clamped minimisation over v. */
double oracle_dist2_point_triangle(oracle_v3 p, const oracle_tri *t, double *u_out, double *v_out);
/* Golden section over s, exact clamped minimisation over t. */
double oracle_dist2_segment_segment(oracle_v3 a0, oracle_v3 a1, oracle_v3 b0, oracle_v3 b1, double *s_out,
                                    double *t_out);
/* Golden section over the segment parameter of the point-triangle minimiser. */
double oracle_dist2_segment_triangle(oracle_v3 a, oracle_v3 b, const oracle_tri *t, double *s_out, double *u_out,
                                     double *v_out);
/* Golden section over the segment parameter of the point-box minimiser. */
double oracle_dist2_segment_box(oracle_v3 a, oracle_v3 b, const oracle_box *box, double *s_out);

/* Golden-section minimisation of a convex function on [lo, hi] (both ends
 * evaluated too); stops when the bracket is `rel` of its start. */
double oracle_golden_min(double (*f)(double x, const void *ctx), const void *ctx, double lo, double hi, double rel,
                         double *xbest);

/* Direct projection-and-clamp point-segment distance, for inner loops (SDFs). */
double oracle_dist2_point_segment_direct(oracle_v3 p, oracle_v3 a, oracle_v3 b);

/* Signed distance functions of solids (negative inside). */
double oracle_sdf_box(oracle_v3 p, const oracle_box *b);
double oracle_sdf_capsule(oracle_v3 p, oracle_v3 a, oracle_v3 b, double r);

/* ------------------------------------------------------------------------- */
/* Polytope overlaps: vertex-inside + edge-face crossing                     */
/* ------------------------------------------------------------------------- */

bool oracle_overlap_box_box(const oracle_box *a, const oracle_box *b);
bool oracle_overlap_triangle_box(const oracle_tri *t, const oracle_box *b);
bool oracle_overlap_triangle_triangle(const oracle_tri *a, const oracle_tri *b);

/* 2D convex polygons (any orientation, possibly degenerate) by clipping. */
bool oracle_overlap_convex2(const double (*a)[2], int na, const double (*b)[2], int nb);

/* ------------------------------------------------------------------------- */
/* Rays. Each returns hit/miss and the span clipped to [tmin, tmax].         */
/* ------------------------------------------------------------------------- */

bool oracle_ray_aabb(const oracle_ray *r, oracle_v3 bmin, oracle_v3 bmax, double *t0, double *t1);
bool oracle_ray_box(const oracle_ray *r, const oracle_box *b, double *t0, double *t1);
bool oracle_ray_sphere(const oracle_ray *r, oracle_v3 c, double radius, double *t0, double *t1);
bool oracle_ray_capsule(const oracle_ray *r, oracle_v3 a, oracle_v3 b, double radius, double *t0, double *t1);
bool oracle_ray_triangle(const oracle_ray *r, const oracle_tri *t, double *t_out, double *u, double *v, bool *back);
bool oracle_ray_plane(const oracle_ray *r, oracle_v3 n, double d, double *t_out);

/* ------------------------------------------------------------------------- */
/* Signed separation of convex sets, from their support functions            */
/* ------------------------------------------------------------------------- */

/* The convex hull of up to 8 points, grown by a ball of radius r. */
typedef struct oracle_hull {
    oracle_v3 p[8];
    int n;
    double r;
} oracle_hull;

oracle_hull oracle_hull_points(const oracle_v3 *pts, int n, double r);
oracle_hull oracle_hull_box(const oracle_box *b);
oracle_hull oracle_hull_tri(const oracle_tri *t);
/* The ray segment, with infinite (or very distant) ends cut where they can no
 * longer matter for `other`: far enough that the cut never becomes the cheapest
 * way to separate the two. */
oracle_hull oracle_hull_ray(const oracle_ray *r, const oracle_hull *other);
double oracle_hull_extent(const oracle_hull *h);

/*
 * max over unit n of [ min_{y in B} n.y - max_{x in A} n.x ]: the distance
 * between A and B when they are apart, minus the penetration depth (shortest
 * translation that separates them) when they overlap; 0 when touching. `dir`
 * receives the maximising n (points from A towards B): translating B by
 * -sep*dir makes the sets touch. planar: only directions in the xy plane (for
 * 2D shapes embedded at z = 0).
 */
double oracle_separation(const oracle_hull *a, const oracle_hull *b, bool planar, oracle_v3 *dir);

/* ------------------------------------------------------------------------- */
/* Differential-test harness: distributions, counters, reporting             */
/* ------------------------------------------------------------------------- */

typedef enum oracle_distrib {
    ORACLE_GENERIC, /* shapes of size ~1 scattered in a box of size ~4 */
    ORACLE_NEAR,    /* constructed to touch, then moved by +-1e-9..1e-4 of their scale */
    ORACLE_SCALE,   /* sizes and positions from 1e-3 to 1e3 */
    ORACLE_DEGEN,   /* zero radii / extents, needles, (near) axis-aligned, parallel */
    ORACLE_DIST_COUNT
} oracle_distrib;

const char *oracle_dist_name(oracle_distrib d);

/* Number of random cases per predicate: `base` (100000) times MQ_DIFF_SCALE
 * from the environment; sanitizer builds default to a tenth. */
long oracle_case_count(long base);

/* Uniform in log space between lo and hi (both > 0). */
double oracle_log_uniform(mq_test_rng *rng, double lo, double hi);
/* A random magnitude for "near touching" offsets: 0 one time in eight, else
 * +-10^U(-9,-4) times `scale`. */
double oracle_jitter(mq_test_rng *rng, double scale);
/* A random rotation matrix (columns = axes). near_axis: within 1e-6 rad of a
 * signed axis permutation (or exactly one, one time in four). */
void oracle_random_axes(mq_test_rng *rng, bool near_axis, oracle_v3 ax[3]);
/* Round-trip to float (the inputs the implementation sees). */
oracle_v3 oracle_v3_round(oracle_v3 a);

typedef struct oracle_stats {
    const char *name;
    double band_rel; /* in-band: |separation| <= band_rel * scale */
    long cases;      /* random cases checked */
    long by_dist[ORACLE_DIST_COUNT];
    long positives;          /* oracle says hit / overlap */
    long disagreements;      /* hit/miss or overlap answers differ */
    long in_band;            /* ... and inside the band: tolerated */
    long mismatches;         /* ... outside the band: failures */
    double max_disagree_sep; /* largest |separation|/scale of any disagreement */
    long value_checks;       /* t / distance / point comparisons made */
    long value_failures;     /* comparisons outside tolerance */
    double max_value_err;    /* largest relative error seen in those comparisons */
    long strict_cases;       /* deterministic contract cases (exact, no band) */
    long strict_failures;
    long soft_cases;    /* exactly-touching cases beyond the contract's explicit */
    long soft_failures; /* promises: reported, not asserted (they are in the band) */
    int printed;        /* failure reports printed so far (capped) */
} oracle_stats;

void oracle_stats_init(oracle_stats *s, const char *name, double band_rel);

/*
 * One randomized differential run of a predicate: its counters, an RNG seeded
 * from MQ_TEST_SEED (default 0xD1FF) and the predicate's name, and the number of
 * cases (oracle_case_count(base_cases)).
 */
typedef struct oracle_run {
    oracle_stats st;
    mq_test_rng rng;
    long n;
} oracle_run;

void oracle_run_init(oracle_run *r, const char *name, double band_rel, long base_cases);
/* Prints the run's counts and fails the test (cmocka) unless every case ran and
 * there were no mismatches outside the band, no value failures and no strict failures. */
void oracle_run_finish(oracle_run *r);
/* Counts a case (oracle_stats_bool does it for boolean comparisons). */
void oracle_stats_case(oracle_stats *s, oracle_distrib d);
/* Records a boolean comparison. sep: the oracle's signed separation (only
 * needed when the answers differ), scale: the input scale. Returns false on a
 * mismatch outside the band (the caller then prints the inputs). */
bool oracle_stats_bool(oracle_stats *s, oracle_distrib d, bool impl, bool oracle, double sep, double scale);
/* Records a value comparison: |err| <= tol passes; err_rel is err / scale. */
bool oracle_stats_value(oracle_stats *s, double err_rel, double tol_rel);
bool oracle_stats_strict(oracle_stats *s, bool ok);
bool oracle_stats_soft(oracle_stats *s, bool ok);
/* True while failure reports should still be printed (the first few failing
 * cases per predicate; MQ_DIFF_PRINT=n for more). Does not count: call
 * oracle_stats_printed once the case's report is complete. */
bool oracle_stats_should_print(const oracle_stats *s);
void oracle_stats_printed(oracle_stats *s);
void oracle_stats_print(const oracle_stats *s);

/* Hex-float printers for reproducers. */
void oracle_print_v3f(const char *name, const float *v);
void oracle_print_f(const char *name, float v);
void oracle_print_ray(const char *name, const mq_ray *r);
void oracle_print_aabb(const char *name, const mq_aabb *b);
void oracle_print_obb(const char *name, const mq_obb *b);
void oracle_print_sphere(const char *name, const mq_sphere *s);
void oracle_print_capsule(const char *name, const mq_capsule *c);
void oracle_print_tri(const char *name, const mq_triangle *t);

/* Random shapes for one case. Every generator writes float inputs (what the
 * implementation sees); the oracles then read those exact floats back. */
typedef struct oracle_gen {
    mq_test_rng *rng;
    oracle_distrib dist;
    bool degen;       /* draw degenerate shapes (ORACLE_DEGEN, and some ORACLE_NEAR cases) */
    double size;      /* typical shape size */
    oracle_v3 center; /* where the shapes of the case are placed */
    double spread;    /* how far around the centre they scatter */
} oracle_gen;

void oracle_gen_begin(oracle_gen *g, mq_test_rng *rng, oracle_distrib d);
bool oracle_gen_chance(oracle_gen *g, double p);
/* A half extent or radius; exactly 0 a third of the time for degenerate cases. */
double oracle_gen_len(oracle_gen *g);
oracle_v3 oracle_gen_pos(oracle_gen *g);
void oracle_gen_aabb(oracle_gen *g, mq_aabb *out);
void oracle_gen_obb(oracle_gen *g, mq_obb *out);
void oracle_gen_sphere(oracle_gen *g, mq_sphere *out);
void oracle_gen_capsule(oracle_gen *g, mq_capsule *out);
void oracle_gen_triangle(oracle_gen *g, mq_triangle *out);
/* A point of the triangle (uniform barycentrics, sometimes on an edge or at a
 * vertex) moved by 10^U(-9,-2) of the case size in a random direction: the
 * configurations where thin triangles lose accuracy. */
oracle_v3 oracle_gen_point_near_triangle(oracle_gen *g, const mq_triangle *t);
/* A ray aimed near `target` (about half of them hit a shape of the case's size there). */
void oracle_gen_ray(oracle_gen *g, oracle_v3 target, mq_ray *out);

/* Hulls of the float shapes. */
oracle_hull oracle_hull_of_aabb(const mq_aabb *b);
oracle_hull oracle_hull_of_obb(const mq_obb *b);
oracle_hull oracle_hull_of_sphere(const mq_sphere *s);
oracle_hull oracle_hull_of_capsule(const mq_capsule *c);
oracle_hull oracle_hull_of_triangle(const mq_triangle *t);

/* The translation that makes B touch A, plus a random "near" offset along the
 * contact normal (oracle_jitter of `scale`). Shapes that overlap are first
 * pulled apart along a random direction, so the contact is a random one. */
oracle_v3 oracle_touch_shift(mq_test_rng *rng, const oracle_hull *a, const oracle_hull *b, bool planar, double scale);

void oracle_translate_f(float *p, oracle_v3 t);
void oracle_translate_aabb(mq_aabb *b, oracle_v3 t);
void oracle_translate_obb(mq_obb *b, oracle_v3 t);
void oracle_translate_sphere(mq_sphere *s, oracle_v3 t);
void oracle_translate_capsule(mq_capsule *c, oracle_v3 t);
void oracle_translate_triangle(mq_triangle *tri, oracle_v3 t);

/* 64-bit FNV-1a of a name: gives each predicate its own random stream. */
uint64_t oracle_name_seed(const char *name);

/* ------------------------------------------------------------------------- */
/* Fast direct distances (scene differential tests: brute force over many    */
/* triangles, where the iterative minimisers above are too slow)             */
/* ------------------------------------------------------------------------- */

/* Squared distance from p to a triangle by projection: the foot of p on the
 * triangle's plane when the three edge half-space signs put it inside, else
 * the nearest of the three edges (oracle_dist2_point_segment_direct). A
 * zero-area triangle is its edges. (Not Ericson's Voronoi-region walk.) */
double oracle_dist2_point_triangle_direct(oracle_v3 p, const oracle_tri *t);
/* Squared distance from segment [a, b] to a triangle: 0 when the segment
 * crosses it (signed volumes), else a golden-section minimisation of the
 * convex distance along the segment (oracle_dist2_point_triangle_direct). */
double oracle_dist2_segment_triangle_direct(oracle_v3 a, oracle_v3 b, const oracle_tri *t);

#endif
