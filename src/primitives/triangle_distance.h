/*
 * Distances between triangles, segments and points in double precision, for
 * the proximity queries (src/proximity) and mq_closest_points_triangle_triangle.
 * Inputs are double corners (already mapped into a common frame); the
 * intersection decision of two triangles takes float copies of them, so that
 * it is the exact mq_overlap_triangle_triangle (docs/proximity.md).
 * Nothing here validates its input: callers pass finite corners. Names: mq_td_*.
 */
#ifndef MQ_PRIMITIVES_TRIANGLE_DISTANCE_H
#define MQ_PRIMITIVES_TRIANGLE_DISTANCE_H

#include <stdbool.h>

#include <meshquery/types.h>

/* A triangle of double corners, with its normal n = (v1 - v0) x (v2 - v0), n.n,
 * and whether it is numerically flat (then its edges stand for it); set v,
 * then call mq_td_tri_prepare. */
typedef struct mq_td_tri {
    double v[3][3];
    double n[3];
    double n2;
    bool flat;
} mq_td_tri;

/* Sets t->n, t->n2 and t->flat from t->v. */
void mq_td_tri_prepare(mq_td_tri *t);

/* A cheap lower bound of the distance between two prepared triangles: how far
 * all of one lies from the other's plane (0 when that says nothing). */
double mq_td_triangle_lower_bound(const mq_td_tri *a, const mq_td_tri *b);

/* Squared distance from p to segment [a, b] (a == b: a point); q = the closest point. */
double mq_td_point_segment2(const double p[3], const double a[3], const double b[3], double q[3]);

/* Squared distance from p to triangle t (a numerically flat one: its edges); q = the closest point. */
double mq_td_point_triangle2(const double p[3], const mq_td_tri *t, double q[3]);

/* Squared distance between segments [p0, p1] and [q0, q1]; a, b = the closest points. */
double mq_td_segment_segment2(const double p0[3], const double p1[3], const double q0[3], const double q1[3],
                              double a[3], double b[3]);

/* Where segment [p, q] meets the plane of triangle t inside t (to rounding): true and x = that point
 * when p and q lie on opposite sides (or one on the plane) and the crossing's closest point on t is
 * within rounding; a segment lying in the plane gives false (its edges decide). */
bool mq_td_segment_crossing(const double p[3], const double q[3], const mq_td_tri *t, double x[3]);

/*
 * Distance between two triangles of double corners a and b, whose float
 * copies are af and bf (the intersection decision): 0 when
 * mq_overlap_triangle_triangle(af, bf), with pa and pb a common point (to
 * rounding); else the smallest of the 6 vertex-triangle and 9 edge-edge
 * distances, with the closest points. Returns the distance (not squared).
 */
double mq_td_triangle_triangle(const mq_td_tri *a, const mq_triangle *af, const mq_td_tri *b, const mq_triangle *bf,
                               double pa[3], double pb[3]);

/* As mq_td_triangle_triangle without the intersection decision: the smallest of the 15
 * feature distances (exact when the triangles are disjoint). */
double mq_td_triangle_features(const mq_td_tri *a, const mq_td_tri *b, double pa[3], double pb[3]);

/* A common point of two intersecting triangles (edge crossings first, else the closest
 * feature pair's midpoint). */
void mq_td_triangle_witness(const mq_td_tri *a, const mq_td_tri *b, double pa[3], double pb[3]);

/* A box of centre c, unit axes ax (rows) and half extents h, for distances
 * worked in its frame (box_triangle_distance.c). */
typedef struct mq_td_box {
    double c[3];
    double ax[3][3];
    double h[3];
} mq_td_box;

/* How far from orthonormal (|a_i . a_j - [i == j]|) the axes of an mq_td_box
 * may be: the box of the frame then differs from the solid its corners span
 * by float rounding. */
#define MQ_TD_BOX_ORTHO 1e-6

/* Fills o; false when the axes are further from orthonormal than MQ_TD_BOX_ORTHO. */
bool mq_td_box_from(const double c[3], const double axes[3][3], const double half[3], mq_td_box *o);

/* Distance between the solid box and triangle t, with the closest points pb
 * on the box and pt on the triangle. When they meet it is 0 with pb = pt a
 * common point, or, where the frame's box and the solid its corners span
 * differ (by the axes' error times the distance from the centre), a distance
 * within that difference. */
double mq_td_box_triangle(const mq_td_box *b, const mq_td_tri *t, double pb[3], double pt[3]);

/* A lower bound of what mq_td_box_triangle returns (of the distance between
 * the solid the box's corners span and the triangle): their gap in the
 * frame, shrunk for axes orthonormal only to MQ_TD_BOX_ORTHO, and their gap
 * along the triangle's normal. */
double mq_td_box_triangle_lower_bound(const mq_td_box *b, const mq_td_tri *t);

/* A common point p of a box and a triangle that meet (a triangle edge inside
 * the box, else a box edge through the face, else, touching to rounding, the
 * triangle's point nearest to the box). */
void mq_td_box_triangle_witness(const mq_td_box *b, const mq_td_tri *t, double p[3]);

#endif
