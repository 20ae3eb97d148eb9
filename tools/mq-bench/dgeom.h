/* Double-precision distances for classifying differences (dgeom.c). */
#ifndef MQ_BENCH_DGEOM_H
#define MQ_BENCH_DGEOM_H

#include <stdbool.h>

void d3_sub(const double *a, const double *b, double *o);
double d3_dot(const double *a, const double *b);
void d3_cross(const double *a, const double *b, double *o);
double d3_dist2(const double *a, const double *b);
/* Squared distance from p to triangle t (Ericson, Real-Time Collision Detection, 5.1.5). */
double point_triangle_d2(const double *p, double t[3][3]);
/* Squared distance between segments p0p1 and q0q1 (Ericson 5.1.9). */
double segment_segment_d2(const double *p0, const double *p1, const double *q0, const double *q1);
/* Whether segment ab crosses triangle t (signed volumes). */
bool segment_crosses_triangle(const double *a, const double *b, double t[3][3]);
/* Squared distance between segment ab and triangle t. */
double segment_triangle_d2(const double *a, const double *b, double t[3][3]);
/* Distance between triangles p and q: 0 when they meet. */
double triangle_distance(double p[3][3], double q[3][3]);

#endif
