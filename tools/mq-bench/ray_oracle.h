/*
 * The double-precision oracle of mq-bench's raycast comparisons with Embree
 * (bench_rays.c: one mesh; bench_scene.c: instances of one mesh). It judges
 * only the rays on which the engines disagree, by brute force over a set of
 * triangles given in double (ray_oracle.c has the details and thresholds).
 */
#ifndef MQ_BENCH_RAY_ORACLE_H
#define MQ_BENCH_RAY_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Distance to a triangle's boundary, relative to its largest coordinate,
 * under which a ray is grazing (see ray_oracle.c). */
#define ORACLE_GRAZE 1e-6
/* Relative t within which the oracle counts an engine's triangle as hit at
 * the oracle's own closest t (its ties: shared edges, duplicates). */
#define ORACLE_TIE 1e-6

/* A ray in double: origin, direction, and its interval [tmin, tmax]. */
typedef struct dray {
    double o[3], d[3], tmin, tmax;
} dray;

/* The triangles the oracle traces: triangle i < count has corners v, in double. */
typedef struct oracle_triangles {
    size_t count;
    void (*corners)(const void *ctx, size_t i, double v[3][3]);
    const void *ctx;
} oracle_triangles;

typedef struct oracle_answer {
    uint32_t id;   /* closest triangle, UINT32_MAX for none */
    double t;      /* its t, INFINITY for none */
    double margin; /* closest: its margin; on a miss: the best margin in the interval */
    double edge;   /* that triangle's relative boundary distance (oracle_boundary_distance) */
} oracle_answer;

/* The ray's line against triangle v: false when parallel to its plane; else
 * t, and the barycentric margin (the smallest barycentric, negative outside). */
bool oracle_ray_plane(const dray *r, double v[3][3], double *t, double *margin);

/* Distance from the ray's crossing of v's plane at t to v's boundary,
 * relative to v's largest coordinate (INFINITY when t is not finite). */
double oracle_boundary_distance(const dray *r, double v[3][3], double t);

/* The answer for no triangles at all: a miss, nothing crossed. */
oracle_answer oracle_none(void);

/* The closest triangle of s hit inside the ray's interval, by brute force. */
oracle_answer oracle_trace(const dray *r, const oracle_triangles *s);

/* Whether a, an answer over some triangles, replaces b, one over others, as
 * the answer over both: a hit nearer than b's, or both misses and a's margin
 * the better. Folding per-set answers with it gives oracle_trace's answer
 * over their union (up to which of exactly equal t wins). */
bool oracle_better(const oracle_answer *a, const oracle_answer *b);

/* One differing ray judged: who is right (both wrong: neither), whether it
 * grazes an edge, and per engine whether it is right only by an edge tie;
 * the margins and boundary distances of the engines' triangles (INFINITY
 * for none). mq = meshquery, em = Embree. */
typedef struct oracle_verdict {
    bool mq_right, em_right, mq_tie, em_tie, grazing;
    double mq_margin, em_margin, mq_edge, em_edge;
} oracle_verdict;

/* Closest hits: each engine's triangle in double (NULL when it reports a
 * miss) and its t, against the oracle's answer ans for the ray. */
oracle_verdict oracle_judge_closest(const dray *r, const oracle_answer *ans, double (*mq_tri)[3], double mq_t,
                                    double (*em_tri)[3], double em_t);

/* Occlusion: each engine's yes/no against the oracle's answer ans. */
oracle_verdict oracle_judge_any(const oracle_answer *ans, bool mq_hit, bool em_hit);

typedef struct oracle_counts {
    size_t checked, mq_right, em_right, neither, grazing, edge_ties;
} oracle_counts;

void oracle_count(oracle_counts *c, const oracle_verdict *v);

/* The counts as the benches' metrics (unit "rays"), in the order printed. */
#define ORACLE_METRICS 5
typedef struct oracle_metric {
    const char *name;
    double value;
} oracle_metric;

void oracle_metrics(const oracle_counts *c, oracle_metric out[ORACLE_METRICS]);

#endif
