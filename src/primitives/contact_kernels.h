/*
 * Double-precision kernels behind the contacts (primitives.h:
 * mq_contact_shape_triangle) and the intersection segments: closest points of
 * a point or a segment to a triangle, and the penetration of a convex
 * polytope "core" (a point, a segment or a box) into a triangle along the
 * separating-axis candidates. Inputs are doubles; nothing here validates.
 * Names: mq_ct_*.
 */
#ifndef MQ_PRIMITIVES_CONTACT_KERNELS_H
#define MQ_PRIMITIVES_CONTACT_KERNELS_H

#include <math.h>
#include <stdbool.h>

typedef double mq_ct_v3[3];

/* A triangle's corners (a struct, so that const pointers to it convert cleanly in C11). */
typedef struct mq_ct_tri {
    mq_ct_v3 v[3];
} mq_ct_tri;

static inline double mq_ct_dot(const mq_ct_v3 a, const mq_ct_v3 b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void mq_ct_sub(mq_ct_v3 out, const mq_ct_v3 a, const mq_ct_v3 b)
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}
/* out must not alias a or b */
static inline void mq_ct_cross(mq_ct_v3 out, const mq_ct_v3 a, const mq_ct_v3 b)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}
/* out = a + s*b */
static inline void mq_ct_madd(mq_ct_v3 out, const mq_ct_v3 a, const mq_ct_v3 b, double s)
{
    out[0] = a[0] + s * b[0];
    out[1] = a[1] + s * b[1];
    out[2] = a[2] + s * b[2];
}
static inline void mq_ct_copy(mq_ct_v3 out, const mq_ct_v3 a)
{
    out[0] = a[0];
    out[1] = a[1];
    out[2] = a[2];
}

/* Closest point of triangle t to p; returns the squared distance. */
double mq_ct_point_triangle(const mq_ct_v3 p, const mq_ct_tri *tri, mq_ct_v3 out);

/* Closest points of segments [p0, p1] and [q0, q1]; returns the squared distance. */
double mq_ct_segment_segment(const mq_ct_v3 p0, const mq_ct_v3 p1, const mq_ct_v3 q0, const mq_ct_v3 q1, mq_ct_v3 out_p,
                             mq_ct_v3 out_q);

/* Closest points of segment [a, b] and triangle t (0 when the segment meets it). */
double mq_ct_segment_triangle(const mq_ct_v3 a, const mq_ct_v3 b, const mq_ct_tri *tri, mq_ct_v3 out_seg,
                              mq_ct_v3 out_tri);

/*
 * A convex polytope core: `n` points spanning it (1: a point, 2: a segment,
 * 8: a box given by centre and three half-axis vectors).
 */
typedef struct mq_ct_core {
    int kind;         /* 0 point, 1 segment, 2 box */
    mq_ct_v3 p[2];    /* point: p[0]; segment: p[0], p[1]; box: p[0] = centre */
    mq_ct_v3 axis[3]; /* box: half-axis vectors (unit axis times half extent) */
    mq_ct_v3 edge[3]; /* box: unit axis directions (the edge directions) */
} mq_ct_core;

/*
 * The minimum over the separating-axis candidates of core and triangle of
 * h_T(n) + h_C(-n) (how far the core must move along the unit n to leave the
 * triangle's side: its penetration along n); writes the minimising n. The
 * value is negative when the candidate separates them. Returns false when no
 * candidate exists (degenerate input).
 */
bool mq_ct_core_penetration(const mq_ct_core *core, const mq_ct_tri *tri, double *depth, mq_ct_v3 n);

/* A point of the core with the least x.n (ties: the first point / the face centre). */
void mq_ct_core_support_min(const mq_ct_core *core, const mq_ct_v3 n, mq_ct_v3 out);

/* The triangle corner with the largest x.n (ties: the lowest index). */
void mq_ct_triangle_support_max(const mq_ct_tri *tri, const mq_ct_v3 n, mq_ct_v3 out);

#endif
