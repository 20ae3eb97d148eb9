/* 3x3 matrices in double: what the scene's transforms and the instance boxes share. */
#ifndef MQ_CORE_MAT3D_H
#define MQ_CORE_MAT3D_H

#include <stdbool.h>

/* out = m * v for a 3x3 matrix. */
void mq_mat3d_apply(const double m[3][3], const double v[3], double out[3]);
/* The determinant of a 3x3 matrix. */
double mq_mat3d_det(double a[3][3]);
/* inv = a^-1 by cofactors, given det = mq_mat3d_det(a); false when det is 0
 * or the result is not finite. */
bool mq_mat3d_inverse(double a[3][3], double det, double inv[3][3]);

#endif
