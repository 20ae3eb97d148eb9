/*
 * Distances in double between points, segments and triangles, for the
 * benchmarks' classification of answers that differ from a reference library
 * (bench_overlap.c, bench_collide.c): an independent oracle, deliberately not
 * the library's own primitives.
 */
#include "dgeom.h"

#include <math.h>

void d3_sub(const double *a, const double *b, double *o)
{
    for (int k = 0; k < 3; k++)
        o[k] = a[k] - b[k];
}
double d3_dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
void d3_cross(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}
double d3_dist2(const double *a, const double *b)
{
    double d[3];
    d3_sub(a, b, d);
    return d3_dot(d, d);
}
static double clamp01(double x)
{
    return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

/* Squared distance from p to triangle t (Ericson, Real-Time Collision Detection, §5.1.5). */
double point_triangle_d2(const double *p, double t[3][3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3], q[3];
    d3_sub(t[1], t[0], ab), d3_sub(t[2], t[0], ac), d3_sub(p, t[0], ap);
    double d1 = d3_dot(ab, ap), d2 = d3_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0)
        return d3_dist2(p, t[0]);
    d3_sub(p, t[1], bp);
    double d3 = d3_dot(ab, bp), d4 = d3_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3)
        return d3_dist2(p, t[1]);
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++)
            q[k] = t[0][k] + v * ab[k];
        return d3_dist2(p, q);
    }
    d3_sub(p, t[2], cp);
    double d5 = d3_dot(ab, cp), d6 = d3_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6)
        return d3_dist2(p, t[2]);
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++)
            q[k] = t[0][k] + w * ac[k];
        return d3_dist2(p, q);
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            q[k] = t[1][k] + w * (t[2][k] - t[1][k]);
        return d3_dist2(p, q);
    }
    double den = 1.0 / (va + vb + vc), v = vb * den, w = vc * den;
    for (int k = 0; k < 3; k++)
        q[k] = t[0][k] + ab[k] * v + ac[k] * w;
    return d3_dist2(p, q);
}

/* Squared distance between segments p0p1 and q0q1 (Ericson §5.1.9). */
double segment_segment_d2(const double *p0, const double *p1, const double *q0, const double *q1)
{
    double d1[3], d2[3], r[3], a, e, f, s, t;
    d3_sub(p1, p0, d1), d3_sub(q1, q0, d2), d3_sub(p0, q0, r);
    a = d3_dot(d1, d1), e = d3_dot(d2, d2), f = d3_dot(d2, r);
    if (a <= 0 && e <= 0)
        return d3_dist2(p0, q0);
    if (a <= 0) {
        s = 0, t = clamp01(f / e);
    } else {
        double c = d3_dot(d1, r);
        if (e <= 0) {
            t = 0, s = clamp01(-c / a);
        } else {
            double b = d3_dot(d1, d2), den = a * e - b * b;
            s = den > 0 ? clamp01((b * f - c * e) / den) : 0.0;
            t = (b * s + f) / e;
            if (t < 0)
                t = 0, s = clamp01(-c / a);
            else if (t > 1)
                t = 1, s = clamp01((b - c) / a);
        }
    }
    double x[3], y[3];
    for (int k = 0; k < 3; k++)
        x[k] = p0[k] + d1[k] * s, y[k] = q0[k] + d2[k] * t;
    return d3_dist2(x, y);
}

/* Whether segment ab crosses triangle t (signed volumes, in double). */
bool segment_crosses_triangle(const double *a, const double *b, double t[3][3])
{
    double e1[3], e2[3], n[3], da[3], db[3];
    d3_sub(t[1], t[0], e1), d3_sub(t[2], t[0], e2), d3_cross(e1, e2, n);
    d3_sub(a, t[0], da), d3_sub(b, t[0], db);
    double sa = d3_dot(n, da), sb = d3_dot(n, db);
    if ((sa > 0 && sb > 0) || (sa < 0 && sb < 0) || sa == sb)
        return false;
    double x[3], s = sa / (sa - sb);
    for (int k = 0; k < 3; k++)
        x[k] = a[k] + s * (b[k] - a[k]);
    for (int i = 0; i < 3; i++) { /* x on the inner side of every edge */
        double e[3], xe[3], c[3];
        d3_sub(t[(i + 1) % 3], t[i], e), d3_sub(x, t[i], xe), d3_cross(e, xe, c);
        if (d3_dot(c, n) < 0)
            return false;
    }
    return true;
}

double segment_triangle_d2(const double *a, const double *b, double t[3][3])
{
    if (segment_crosses_triangle(a, b, t))
        return 0.0;
    double d2 = fmin(point_triangle_d2(a, t), point_triangle_d2(b, t));
    for (int i = 0; i < 3; i++)
        d2 = fmin(d2, segment_segment_d2(a, b, t[i], t[(i + 1) % 3]));
    return d2;
}

/* Distance between triangles: 0 when they meet, else attained on an edge of one. */
double triangle_distance(double p[3][3], double q[3][3])
{
    double d2 = INFINITY;
    for (int i = 0; i < 3; i++) {
        d2 = fmin(d2, segment_triangle_d2(p[i], p[(i + 1) % 3], q));
        d2 = fmin(d2, segment_triangle_d2(q[i], q[(i + 1) % 3], p));
    }
    return sqrt(d2);
}
