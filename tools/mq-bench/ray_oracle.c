/*
 * The double-precision oracle for the rays on which meshquery and Embree
 * disagree and that are not ties (ray_oracle.h): brute force over every
 * triangle of a set, the ray against each triangle by Möller–Trumbore
 * evaluated in double on the float inputs (which double holds exactly; in
 * `mq-bench scene` the instances' double transforms are applied in double,
 * rounding ~1e-16 relative). It is an oracle for this comparison only —
 * neither the library's intersector nor Embree's, and not watertight itself —
 * but its rounding (~1e-16 relative) is nine orders below the float
 * differences it judges, so only a ray passing within ~1e-15 of an edge could
 * be decided by its rounding; such rays are flagged grazing anyway.
 *
 * A ray is grazing when it crosses the plane of the oracle's closest
 * triangle, or of the triangle either engine reported, within ORACLE_GRAZE of
 * that triangle's boundary (an edge or vertex), relative to the triangle's
 * largest coordinate: ~8 float ulps of the coordinates, the scale at which the
 * float inputs cannot say on which side of a shared edge the ray passes. (The
 * barycentric margin — the smallest barycentric, negative outside — is that
 * distance over the triangle's height, so on small triangles far from the
 * origin a float-level distance is a large margin: 1e-5 on the bunny.) With
 * --any it is the most-inside triangle whose plane the ray crosses inside
 * [tmin, tmax].
 *
 * An engine's triangle that the oracle puts just outside, within that grazing
 * distance, at the oracle's closest t, is an edge tie: the neighbour across
 * the shared edge of the oracle's triangle, as right as the float input allows.
 */
#include "ray_oracle.h"

#include <math.h>

#include "dgeom.h"

/* Möller–Trumbore in double, the oracle. */
bool oracle_ray_plane(const dray *r, double v[3][3], double *t, double *margin)
{
    double e1[3], e2[3], p[3], s[3], q[3];
    d3_sub(v[1], v[0], e1), d3_sub(v[2], v[0], e2);
    d3_cross(r->d, e2, p);
    double det = d3_dot(e1, p);
    if (det == 0.0)
        return false;
    d3_sub(r->o, v[0], s);
    d3_cross(s, e1, q);
    double b1 = d3_dot(s, p) / det, b2 = d3_dot(r->d, q) / det;
    *t = d3_dot(e2, q) / det;
    *margin = fmin(fmin(b1, b2), 1.0 - b1 - b2);
    return true;
}

double oracle_boundary_distance(const dray *r, double v[3][3], double t)
{
    if (!isfinite(t))
        return INFINITY;
    double p[3], scale = 1e-30, d2 = INFINITY;
    for (int k = 0; k < 3; k++)
        p[k] = r->o[k] + t * r->d[k];
    for (int c = 0; c < 3; c++) {
        for (int k = 0; k < 3; k++)
            scale = fmax(scale, fabs(v[c][k]));
        d2 = fmin(d2, segment_segment_d2(p, p, v[c], v[(c + 1) % 3]));
    }
    return sqrt(d2) / scale;
}

/* Whether the ray hits triangle v inside its interval; its t, margin and
 * relative boundary distance. */
static bool ray_hits(const dray *r, double v[3][3], double *t, double *margin, double *edge)
{
    *margin = -INFINITY;
    *t = INFINITY;
    bool crosses = oracle_ray_plane(r, v, t, margin);
    *edge = crosses ? oracle_boundary_distance(r, v, *t) : INFINITY;
    return crosses && *margin >= 0.0 && *t >= r->tmin && *t <= r->tmax;
}

oracle_answer oracle_none(void)
{
    return (oracle_answer){UINT32_MAX, INFINITY, -INFINITY, INFINITY};
}

oracle_answer oracle_trace(const dray *r, const oracle_triangles *s)
{
    oracle_answer a = oracle_none();
    double best_margin = -INFINITY, best_t = INFINITY, v[3][3], t, m;
    uint32_t best = UINT32_MAX;
    for (size_t i = 0; i < s->count; i++) {
        s->corners(s->ctx, i, v);
        if (!oracle_ray_plane(r, v, &t, &m) || !(t >= r->tmin && t <= r->tmax))
            continue;
        if (m > best_margin)
            best_margin = m, best_t = t, best = (uint32_t)i;
        if (m >= 0.0 && t < a.t)
            a.id = (uint32_t)i, a.t = t, a.margin = m;
    }
    if (a.id == UINT32_MAX) {
        a.margin = best_margin;
        if (best != UINT32_MAX)
            s->corners(s->ctx, best, v), a.edge = oracle_boundary_distance(r, v, best_t);
    } else {
        s->corners(s->ctx, a.id, v);
        a.edge = oracle_boundary_distance(r, v, a.t);
    }
    return a;
}

bool oracle_better(const oracle_answer *a, const oracle_answer *b)
{
    if (a->id != UINT32_MAX)
        return b->id == UINT32_MAX || a->t < b->t;
    return b->id == UINT32_MAX && a->margin > b->margin;
}

/* Whether an engine's closest answer (its triangle tri, NULL for a miss)
 * agrees with the oracle's: both miss, or the engine's triangle is hit in
 * double at the oracle's closest t (within ORACLE_TIE), or is an edge tie
 * there (*tie set). Its margin and relative boundary distance under the
 * oracle too. */
static bool closest_agrees(const dray *r, const oracle_answer *a, double (*tri)[3], double *margin, double *edge,
                           bool *tie)
{
    *margin = *edge = INFINITY;
    *tie = false;
    if (!tri)
        return a->id == UINT32_MAX;
    double t;
    bool hit = ray_hits(r, tri, &t, margin, edge);
    if (*margin == -INFINITY) /* parallel: no margin to speak of */
        *margin = INFINITY;
    if (a->id == UINT32_MAX || !(fabs(t - a->t) <= ORACLE_TIE * fmax(1.0, fabs(a->t))))
        return false;
    *tie = !hit && *edge < ORACLE_GRAZE;
    return hit || *tie;
}

oracle_verdict oracle_judge_closest(const dray *r, const oracle_answer *ans, double (*mq_tri)[3], double mq_t,
                                    double (*em_tri)[3], double em_t)
{
    oracle_verdict v;
    v.mq_right = closest_agrees(r, ans, mq_tri, &v.mq_margin, &v.mq_edge, &v.mq_tie);
    v.em_right = closest_agrees(r, ans, em_tri, &v.em_margin, &v.em_edge, &v.em_tie);
    if (v.mq_right && v.em_right) { /* both on triangles hit at the oracle's t: the nearer float t wins */
        v.mq_right = fabs(mq_t - ans->t) <= fabs(em_t - ans->t);
        v.em_right = !v.mq_right;
    }
    v.grazing = ans->edge < ORACLE_GRAZE || (v.mq_margin < 0.0 && v.mq_edge < ORACLE_GRAZE) ||
                (v.em_margin < 0.0 && v.em_edge < ORACLE_GRAZE);
    return v;
}

oracle_verdict oracle_judge_any(const oracle_answer *ans, bool mq_hit, bool em_hit)
{
    bool hit = ans->id != UINT32_MAX;
    return (oracle_verdict){.mq_right = mq_hit == hit,
                            .em_right = em_hit == hit,
                            .grazing = ans->edge < ORACLE_GRAZE,
                            .mq_margin = INFINITY,
                            .em_margin = INFINITY,
                            .mq_edge = INFINITY,
                            .em_edge = INFINITY};
}

void oracle_count(oracle_counts *c, const oracle_verdict *v)
{
    c->checked++;
    c->mq_right += v->mq_right && !v->em_right;
    c->em_right += v->em_right && !v->mq_right;
    c->neither += !v->mq_right && !v->em_right;
    c->grazing += v->grazing;
    c->edge_ties += (v->mq_right && v->mq_tie) || (v->em_right && v->em_tie);
}

void oracle_metrics(const oracle_counts *c, oracle_metric out[ORACLE_METRICS])
{
    out[0] = (oracle_metric){"not_ties_meshquery_right", (double)c->mq_right};
    out[1] = (oracle_metric){"not_ties_embree_right", (double)c->em_right};
    out[2] = (oracle_metric){"not_ties_neither", (double)c->neither};
    out[3] = (oracle_metric){"not_ties_grazing", (double)c->grazing};
    out[4] = (oracle_metric){"not_ties_right_by_edge_tie", (double)c->edge_ties};
}
