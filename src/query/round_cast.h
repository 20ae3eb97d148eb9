/*
 * The first time a sphere or capsule moving along a straight line touches
 * one triangle: the time its core point a (a sphere's centre, a capsule's
 * first end) meets the Minkowski sum of the triangle and the shape, with
 * watertight ray tests (mq_raycast_triangle, mq_raycast_capsule) against the
 * sum's pieces: the triangle's two copies offset by +-r along its normal and
 * the capsules of radius r around its edges, and for a capsule (segment
 * [a, a + e]) the same pieces of the triangle swept by -e. One construction
 * for the casts of every hierarchy (query/shape_cast.c) and of scenes
 * (scene/scene_cast.c), so that they give the same times.
 */
#ifndef MQ_QUERY_ROUND_CAST_H
#define MQ_QUERY_ROUND_CAST_H

#include <math.h>
#include <stdbool.h>

#include <meshquery/primitives.h>

#include "core/vec3.h"

/* Relative rounding slack of every node and box test of the casts (per-mesh
 * and scene), so that both prune alike. */
#define MQ_CAST_SLACK 1e-5f

/* The slack of box [lo, hi]: of its whole magnitude, for every axis. The
 * leaf test's tolerance follows all of a triangle's coordinates, so a
 * triangle flat in z at 1e-30 but 2.5 long in x touches a point 1e-30 off
 * its plane; a slack from the z extent alone would prune it. */
static inline float mq_cast_box_slack(const float lo[3], const float hi[3])
{
    float m = 0.0f;
    for (int k = 0; k < 3; k++)
        m += fabsf(lo[k]) + fabsf(hi[k]);
    return MQ_CAST_SLACK * m;
}

/* Ray vs the two copies of triangle (p, q, s) offset by +-r along its unit normal. */
static inline void mq_rc_offset_faces(const mq_ray *ray, const float p[3], const float q[3], const float s[3], float r,
                                      float *best)
{
    float e1[3], e2[3], n[3];
    mq_v3_sub(e1, q, p);
    mq_v3_sub(e2, s, p);
    mq_v3_cross(n, e1, e2);
    double len = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
    if (!(len > 0.0) || !isfinite(len))
        return; /* zero-area: its edge capsules cover it */
    for (int sgn = -1; sgn <= 1; sgn += 2) {
        mq_triangle t;
        for (int k = 0; k < 3; k++) {
            float off = (float)((double)sgn * r * n[k] / len);
            t.v[0][k] = p[k] + off;
            t.v[1][k] = q[k] + off;
            t.v[2][k] = s[k] + off;
        }
        mq_ray rr = *ray;
        rr.tmax = *best < rr.tmax ? *best : rr.tmax;
        mq_triangle_hit h;
        if (mq_raycast_triangle(&rr, &t, &h) && h.t < *best)
            *best = h.t;
    }
}

/* Ray vs the capsule of radius r around the edge [p, q]. */
static inline void mq_rc_edge_capsule(const mq_ray *ray, const float p[3], const float q[3], float r, float *best)
{
    mq_capsule cap = {{p[0], p[1], p[2]}, {q[0], q[1], q[2]}, r};
    mq_ray rr = *ray;
    rr.tmax = *best < rr.tmax ? *best : rr.tmax;
    mq_ray_span s;
    if (mq_raycast_capsule(&rr, &cap, &s) && s.t_enter < *best)
        *best = s.t_enter;
}

/* The first t in [0, limit] at which the sphere (capsule = false: centre a)
 * or the capsule (segment [a, a + e]) of radius r, moved by t * d, touches
 * `tri`, given that it does not at t = 0; INFINITY when it does not in
 * [0, limit]. */
static inline float mq_round_cast_triangle(const float a[3], const float e[3], bool capsule, float r, const float d[3],
                                           const mq_triangle *tri, float limit)
{
    float best = INFINITY;
    mq_ray ray = {{a[0], a[1], a[2]}, 0.0f, {d[0], d[1], d[2]}, limit};
    const float *v0 = tri->v[0], *v1 = tri->v[1], *v2 = tri->v[2];
    mq_rc_offset_faces(&ray, v0, v1, v2, r, &best);
    mq_rc_edge_capsule(&ray, v0, v1, r, &best);
    mq_rc_edge_capsule(&ray, v1, v2, r, &best);
    mq_rc_edge_capsule(&ray, v2, v0, r, &best);
    if (capsule) {
        /* K = T + [-e, 0]: the far copy T - e, the three side parallelograms, their edges */
        float w[3][3];
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                w[c][k] = tri->v[c][k] - e[k];
        mq_rc_offset_faces(&ray, w[0], w[1], w[2], r, &best);
        for (int c = 0; c < 3; c++) {
            const float *p = tri->v[c], *pn = tri->v[(c + 1) % 3];
            const float *wp = w[c], *wn = w[(c + 1) % 3];
            mq_rc_offset_faces(&ray, p, pn, wn, r, &best);
            mq_rc_offset_faces(&ray, p, wn, wp, r, &best);
            mq_rc_edge_capsule(&ray, wp, wn, r, &best);
            mq_rc_edge_capsule(&ray, p, wp, r, &best);
        }
    }
    return best <= limit ? best : INFINITY;
}

#endif /* MQ_QUERY_ROUND_CAST_H */
