/*
 * DiTO-14 box orientation (Larsson & Källberg, "Fast Computation of
 * Tight-Fitting Oriented Bounding Boxes", Game Engine Gems 2, 2011):
 *   1. the extremal corners along 7 fixed directions (the world axes and the
 *      cube diagonals): 14 points, and the exact AABB for free;
 *   2. a base triangle from them: the most distant extremal pair, then the point
 *      farthest from that line;
 *   3. the points farthest below and above its plane make a "ditetrahedron"
 *      of up to 7 triangles;
 *   4. every triangle gives 3 frames (edge, normal, edge x normal); the frame
 *      whose box around the 14 points has the smallest surface wins.
 * Linear time, no eigen solver, and defined for flat, collinear and coincident
 * point sets (which fall back to a line frame or the world axes).
 */
#include <float.h>
#include <math.h>

#include "obbtree/obb_fit.h"

#define DITO_DIRS 7
#define DITO_POINTS (2 * DITO_DIRS)

static void sub3(const double a[3], const double b[3], double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = a[k] - b[k];
}

static void copy3(double out[3], const double a[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = a[k];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void scale3(double a[3], double s)
{
    for (int k = 0; k < 3; k++)
        a[k] *= s;
}

/* pts[d] and pts[d + 7]: the corners with the smallest and largest projection
 * on direction d: the world axes and the cube diagonals (1,1,1), (1,1,-1),
 * (1,-1,1), (1,-1,-1), written out as sums. */
static void extremal_points(const mq_fit_tris *t, double pts[DITO_POINTS][3])
{
    double lo[DITO_DIRS], hi[DITO_DIRS];
    const float *arg_lo[DITO_DIRS], *arg_hi[DITO_DIRS];
    const float *p0 = mq_fit_corner(t, 0, 0);
    for (int d = 0; d < DITO_DIRS; d++) {
        lo[d] = DBL_MAX;
        hi[d] = -DBL_MAX;
        arg_lo[d] = arg_hi[d] = p0;
    }
    for (size_t j = 0; j < t->count; j++)
        for (int k = 0; k < 3; k++) {
            const float *p = mq_fit_corner(t, j, k);
            double x = p[0], y = p[1], z = p[2];
            double s[DITO_DIRS] = {x, y, z, x + y + z, x + y - z, x - y + z, x - y - z};
            for (int d = 0; d < DITO_DIRS; d++) {
                if (s[d] < lo[d]) {
                    lo[d] = s[d];
                    arg_lo[d] = p;
                }
                if (s[d] > hi[d]) {
                    hi[d] = s[d];
                    arg_hi[d] = p;
                }
            }
        }
    for (int d = 0; d < DITO_DIRS; d++)
        for (int k = 0; k < 3; k++) {
            pts[d][k] = arg_lo[d][k];
            pts[d + DITO_DIRS][k] = arg_hi[d][k];
        }
}

/* The extremal points without repeats (small nodes repeat most of them), so
 * every candidate frame projects each distinct point once. */
typedef struct dito_set {
    double p[DITO_POINTS][3];
    int count;
} dito_set;

static void unique_points(double pts[DITO_POINTS][3], dito_set *out)
{
    out->count = 0;
    for (int i = 0; i < DITO_POINTS; i++) {
        bool seen = false;
        for (int j = 0; j < out->count && !seen; j++)
            seen = pts[i][0] == out->p[j][0] && pts[i][1] == out->p[j][1] && pts[i][2] == out->p[j][2];
        if (!seen)
            copy3(out->p[out->count++], pts[i]);
    }
}

/* Half surface measure of the box around the points in the orthonormal frame (u, v, w). */
static double frame_measure(const dito_set *pts, const double u[3], const double v[3], const double w[3])
{
    const double *ax[3] = {u, v, w};
    double h[3];
    for (int i = 0; i < 3; i++) {
        double lo = DBL_MAX, hi = -DBL_MAX;
        for (int p = 0; p < pts->count; p++) {
            double s = mq_fit_dot3(ax[i], pts->p[p]);
            lo = mq_min(lo, s);
            hi = mq_max(hi, s);
        }
        h[i] = 0.5 * (hi - lo);
    }
    return h[0] * h[1] + h[1] * h[2] + h[2] * h[0];
}

typedef struct dito_best {
    double axes[3][3];
    double measure;
} dito_best;

/* Tries the three frames of triangle (a, b, c): each edge, the normal, and their cross product. */
static void try_triangle(const dito_set *pts, const double *a, const double *b, const double *c, dito_best *best)
{
    double e[3][3], w[3];
    sub3(b, a, e[0]);
    sub3(c, b, e[1]);
    sub3(a, c, e[2]);
    cross3(e[0], e[1], w);
    double ww = mq_fit_dot3(w, w), l0 = mq_fit_dot3(e[0], e[0]), l1 = mq_fit_dot3(e[1], e[1]);
    if (!(ww > 1e-24 * l0 * l1)) /* (nearly) collinear corners: no normal */
        return;
    scale3(w, 1.0 / sqrt(ww));
    for (int i = 0; i < 3; i++) {
        double u[3] = {e[i][0], e[i][1], e[i][2]}, v[3];
        scale3(u, 1.0 / sqrt(mq_fit_dot3(u, u)));
        cross3(w, u, v);
        double m = frame_measure(pts, u, v, w);
        if (m < best->measure) {
            best->measure = m;
            for (int k = 0; k < 3; k++) {
                best->axes[0][k] = u[k];
                best->axes[1][k] = v[k];
                best->axes[2][k] = w[k];
            }
        }
    }
}

/* A frame whose first axis is the unit vector u (for collinear point sets). */
static void line_frame(const double u[3], double axes[3][3])
{
    int m = fabs(u[0]) <= fabs(u[1]) && fabs(u[0]) <= fabs(u[2]) ? 0 : fabs(u[1]) <= fabs(u[2]) ? 1 : 2;
    double e[3] = {0, 0, 0}, v[3], w[3];
    e[m] = 1.0; /* the world axis least aligned with u */
    cross3(u, e, v);
    scale3(v, 1.0 / sqrt(mq_fit_dot3(v, v)));
    cross3(u, v, w);
    for (int k = 0; k < 3; k++) {
        axes[0][k] = u[k];
        axes[1][k] = v[k];
        axes[2][k] = w[k];
    }
}

/* Index of the point farthest from the line through p0 with direction e. */
static int farthest_from_line(const dito_set *pts, const double p0[3], const double e[3], double *dist2_times_ee)
{
    int best = 0;
    double best_d = -1.0;
    for (int p = 0; p < pts->count; p++) {
        double d[3], x[3];
        sub3(pts->p[p], p0, d);
        cross3(d, e, x);
        double s = mq_fit_dot3(x, x);
        if (s > best_d) {
            best_d = s;
            best = p;
        }
    }
    *dist2_times_ee = best_d;
    return best;
}

void mq_obb_fit_dito_axes(const mq_fit_tris *t, double axes[3][3], double *aabb_measure)
{
    double pts[DITO_POINTS][3];
    dito_set set;
    extremal_points(t, pts);
    unique_points(pts, &set);
    double h[3];
    for (int i = 0; i < 3; i++)
        h[i] = 0.5 * (pts[i + DITO_DIRS][i] - pts[i][i]);
    dito_best best = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, h[0] * h[1] + h[1] * h[2] + h[2] * h[0]};
    *aabb_measure = best.measure;

    int pair = 0; /* the most distant extremal pair */
    double pair_d = -1.0;
    for (int d = 0; d < DITO_DIRS; d++) {
        double e[3];
        sub3(pts[d + DITO_DIRS], pts[d], e);
        if (mq_fit_dot3(e, e) > pair_d) {
            pair_d = mq_fit_dot3(e, e);
            pair = d;
        }
    }
    const double *p0 = pts[pair], *p1 = pts[pair + DITO_DIRS];
    double e0[3], line_d;
    sub3(p1, p0, e0);
    if (pair_d > 0.0) {
        const double *p2 = set.p[farthest_from_line(&set, p0, e0, &line_d)];
        if (!(line_d > 1e-24 * pair_d * pair_d)) { /* collinear: any frame around the line */
            scale3(e0, 1.0 / sqrt(pair_d));
            line_frame(e0, best.axes);
        } else {
            try_triangle(&set, p0, p1, p2, &best);
            double n[3], e2[3];
            sub3(p2, p0, e2);
            cross3(e0, e2, n);
            int lo = 0, hi = 0;
            for (int p = 1; p < set.count; p++) {
                if (mq_fit_dot3(n, set.p[p]) < mq_fit_dot3(n, set.p[lo]))
                    lo = p;
                if (mq_fit_dot3(n, set.p[p]) > mq_fit_dot3(n, set.p[hi]))
                    hi = p;
            }
            double base = mq_fit_dot3(n, p0);
            const int apexes[2] = {lo, hi};
            for (int s = 0; s < 2; s++) {
                const double *q = set.p[apexes[s]];
                if (mq_fit_dot3(n, q) == base) /* on the base plane: no tetrahedron on this side */
                    continue;
                try_triangle(&set, p0, p1, q, &best);
                try_triangle(&set, p1, p2, q, &best);
                try_triangle(&set, p2, p0, q, &best);
            }
        }
    }
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            axes[i][k] = best.axes[i][k];
}
