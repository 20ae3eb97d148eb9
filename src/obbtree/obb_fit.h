/*
 * Fitting an oriented box to a set of mesh triangles: choose a frame (PCA,
 * DiTO-14 or the world axes), then measure the extents exactly.
 *
 * Frames are chosen in double. The stored box is float; its half extents are
 * measured in double against exactly the stored float centre and axes and
 * rounded up, so every corner c of the triangles satisfies
 * |axes[i] . (c - center)| <= half[i] when evaluated exactly.
 */
#ifndef MQ_OBBTREE_OBB_FIT_H
#define MQ_OBBTREE_OBB_FIT_H

#include <meshquery/obbtree.h>

#include "core/minmax.h"

/* `count` triangles of a mesh, listed by id. */
typedef struct mq_fit_tris {
    const float *positions;  /* 3 floats per vertex */
    const uint32_t *indices; /* 3 per triangle */
    const uint32_t *ids;     /* the triangles to fit, count >= 1 */
    size_t count;
} mq_fit_tris;

/* Corner k (0..2) of the j-th listed triangle. */
static inline const float *mq_fit_corner(const mq_fit_tris *t, size_t j, int k)
{
    return t->positions + 3 * (size_t)t->indices[3 * (size_t)t->ids[j] + (size_t)k];
}

static inline double mq_fit_dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Fits a box with the given method. `out` gets a valid OBB (orthonormal axes to
 * float precision, a right-handed frame). */
void mq_obb_fit_box(mq_obb_fit method, const mq_fit_tris *tris, mq_obb *out);

/* Measures the box with the given frame (rows of `axes`, orthonormal in double;
 * they are re-orthonormalised and rounded to float first). Returns the box's
 * half surface measure hx*hy + hy*hz + hz*hx, used to compare candidate frames. */
double mq_obb_fit_extents(const mq_fit_tris *tris, double axes[3][3], mq_obb *out);

/* The covariance of the triangles' surface (area-weighted; Gottschalk 1996 with
 * the errata's formulas). When the total area is zero, the covariance of the
 * corners. */
void mq_obb_fit_covariance(const mq_fit_tris *tris, double cov[3][3]);

/* PCA frame: the eigenvectors of the covariance, largest eigenvalue first.
 * Returns false when two eigenvalues (nearly) coincide, so the frame is
 * arbitrary in their eigenspace (drake#14067) and other frames must be tried. */
bool mq_obb_fit_pca_axes(const mq_fit_tris *tris, double axes[3][3]);

/* DiTO-14 frame (Larsson & Källberg 2011). Also returns the half surface
 * measure of the exact AABB (known from the extremal points) so the caller can
 * keep the AABB when it is smaller. */
void mq_obb_fit_dito_axes(const mq_fit_tris *tris, double axes[3][3], double *aabb_measure);

/* Eigen decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations
 * (Golub & Van Loan §8.5) in double: a = sum_i values[i] vectors[i] vectors[i]^T,
 * values in decreasing order, vectors orthonormal (rows). */
void mq_sym3_eigen(double a[3][3], double values[3], double vectors[3][3]);

#endif
