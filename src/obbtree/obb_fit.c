/* Box fitting: the PCA frame (Gottschalk 1996), exact extents for any frame,
 * and the choice between candidate frames. DiTO-14 lives in obb_fit_dito.c. */
#include <float.h>
#include <math.h>

#include "obbtree/obb_fit.h"
#include "core/float_steps.h"

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void normalize3(double a[3])
{
    double n = sqrt(mq_fit_dot3(a, a));
    for (int k = 0; k < 3; k++)
        a[k] /= n;
}

/* Gram-Schmidt on the first two rows, third = their cross product: a
 * right-handed orthonormal frame, whatever small errors the input carries. */
static void orthonormalize(double in[3][3], double out[3][3])
{
    for (int k = 0; k < 3; k++) {
        out[0][k] = in[0][k];
        out[1][k] = in[1][k];
    }
    normalize3(out[0]);
    double d = mq_fit_dot3(out[0], out[1]);
    for (int k = 0; k < 3; k++)
        out[1][k] -= d * out[0][k];
    normalize3(out[1]);
    cross3(out[0], out[1], out[2]);
    normalize3(out[2]);
}

double mq_obb_fit_extents(const mq_fit_tris *t, double axes_in[3][3], mq_obb *out)
{
    double frame[3][3], ax[3][3];
    orthonormalize(axes_in, frame);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            out->axes[i][k] = (float)frame[i][k];
            ax[i][k] = out->axes[i][k]; /* measure against the float frame actually stored */
        }
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX}, scale = 0.0;
    for (size_t j = 0; j < t->count; j++)
        for (int k = 0; k < 3; k++) {
            const float *p = mq_fit_corner(t, j, k);
            double q[3] = {p[0], p[1], p[2]};
            scale = mq_max(scale, fabs(q[0]) + fabs(q[1]) + fabs(q[2]));
            for (int i = 0; i < 3; i++) {
                double s = mq_fit_dot3(ax[i], q);
                lo[i] = mq_min(lo[i], s);
                hi[i] = mq_max(hi[i], s);
            }
        }
    double c[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            c[k] += ax[i][k] * (0.5 * lo[i] + 0.5 * hi[i]);
    for (int k = 0; k < 3; k++)
        out->center[k] = (float)c[k];
    double cf[3] = {out->center[0], out->center[1], out->center[2]}, h[3];
    /* The double dot products above round by ~1e-16 of the coordinates' size;
     * pad by 1e-15 of it so the rounded-up float extents stay conservative. */
    double pad = 1e-15 * (scale + 1e-30);
    for (int i = 0; i < 3; i++) {
        double pc = mq_fit_dot3(ax[i], cf);
        h[i] = mq_max(hi[i] - pc, pc - lo[i]) + pad;
        out->half[i] = mq_float_ceil_of(h[i]);
    }
    return h[0] * h[1] + h[1] * h[2] + h[2] * h[0];
}

/* Accumulates one triangle's area-weighted moments, corners relative to `o`.
 * Second moment of a uniform triangle (Gottschalk's errata): E[x x^T] =
 * (9 m m^T + p p^T + q q^T + r r^T) / 12, m the centroid. */
static void add_triangle_moments(const mq_fit_tris *t, size_t j, const double o[3], double *area_sum, double mean[3],
                                 double second[3][3])
{
    double v[3][3];
    for (int k = 0; k < 3; k++) {
        const float *p = mq_fit_corner(t, j, k);
        for (int d = 0; d < 3; d++)
            v[k][d] = (double)p[d] - o[d];
    }
    double e1[3], e2[3], n[3], m[3];
    for (int d = 0; d < 3; d++) {
        e1[d] = v[1][d] - v[0][d];
        e2[d] = v[2][d] - v[0][d];
        m[d] = (v[0][d] + v[1][d] + v[2][d]) / 3.0;
    }
    cross3(e1, e2, n);
    double area = 0.5 * sqrt(mq_fit_dot3(n, n));
    *area_sum += area;
    for (int d = 0; d < 3; d++)
        mean[d] += area * m[d];
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++)
            second[r][s] +=
                area / 12.0 * (9.0 * m[r] * m[s] + v[0][r] * v[0][s] + v[1][r] * v[1][s] + v[2][r] * v[2][s]);
}

/* Zero total area: the plain covariance of the corners, relative to `o`. */
static void corner_moments(const mq_fit_tris *t, const double o[3], double mean[3], double second[3][3])
{
    double w = 1.0 / (3.0 * (double)t->count);
    for (size_t j = 0; j < t->count; j++)
        for (int k = 0; k < 3; k++) {
            const float *p = mq_fit_corner(t, j, k);
            double q[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]};
            for (int r = 0; r < 3; r++) {
                mean[r] += w * q[r];
                for (int s = 0; s < 3; s++)
                    second[r][s] += w * q[r] * q[s];
            }
        }
}

void mq_obb_fit_covariance(const mq_fit_tris *t, double cov[3][3])
{
    /* Moments relative to a corner of the set: small numbers, little cancellation. */
    const float *p0 = mq_fit_corner(t, 0, 0);
    double o[3] = {p0[0], p0[1], p0[2]}, area = 0.0, mean[3] = {0, 0, 0}, second[3][3] = {{0}};
    for (size_t j = 0; j < t->count; j++)
        add_triangle_moments(t, j, o, &area, mean, second);
    if (area > 0.0) {
        for (int r = 0; r < 3; r++) {
            mean[r] /= area;
            for (int s = 0; s < 3; s++)
                second[r][s] /= area;
        }
    } else {
        for (int r = 0; r < 3; r++) {
            mean[r] = 0.0;
            for (int s = 0; s < 3; s++)
                second[r][s] = 0.0;
        }
        corner_moments(t, o, mean, second);
    }
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++)
            cov[r][s] = second[r][s] - mean[r] * mean[s];
}

bool mq_obb_fit_pca_axes(const mq_fit_tris *t, double axes[3][3])
{
    double cov[3][3], values[3];
    mq_obb_fit_covariance(t, cov);
    mq_sym3_eigen(cov, values, axes);
    /* Eigenvectors of (nearly) equal eigenvalues are ill-conditioned: any frame
     * of their eigenspace is as good to PCA, and the box in it can be loose
     * (a cube's covariance is isotropic). 1% of the largest counts as equal. */
    double tol = 1e-2 * fabs(values[0]);
    return values[0] > 0.0 && values[0] - values[1] > tol && values[1] - values[2] > tol;
}

static void world_axes(double axes[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            axes[i][k] = i == k ? 1.0 : 0.0;
}

/* Measures the box in `axes` and keeps it in `best` when it is smaller. */
static void try_frame(const mq_fit_tris *t, double axes[3][3], mq_obb *best, double *best_measure)
{
    mq_obb box;
    double m = mq_obb_fit_extents(t, axes, &box);
    if (m < *best_measure) {
        *best = box;
        *best_measure = m;
    }
}

static void fit_pca(const mq_fit_tris *t, mq_obb *out)
{
    double axes[3][3];
    bool distinct = mq_obb_fit_pca_axes(t, axes);
    double best = mq_obb_fit_extents(t, axes, out);
    if (distinct)
        return;
    double aabb_measure;
    world_axes(axes);
    try_frame(t, axes, out, &best);
    mq_obb_fit_dito_axes(t, axes, &aabb_measure);
    try_frame(t, axes, out, &best);
}

static void fit_dito(const mq_fit_tris *t, mq_obb *out)
{
    double axes[3][3], aabb_measure;
    mq_obb_fit_dito_axes(t, axes, &aabb_measure);
    double best = mq_obb_fit_extents(t, axes, out);
    if (aabb_measure < best) { /* the chapter's final check: DiTO's box can lose to the AABB */
        world_axes(axes);
        try_frame(t, axes, out, &best);
    }
}

void mq_obb_fit_box(mq_obb_fit method, const mq_fit_tris *t, mq_obb *out)
{
    double axes[3][3];
    switch (method) {
    case MQ_OBB_FIT_PCA:
        fit_pca(t, out);
        break;
    case MQ_OBB_FIT_AABB:
        world_axes(axes);
        mq_obb_fit_extents(t, axes, out);
        break;
    case MQ_OBB_FIT_DITO:
    default:
        fit_dito(t, out);
        break;
    }
}
