/* 3x3 matrices in double (mat3d.h). */
#include "core/mat3d.h"

#include <math.h>

void mq_mat3d_apply(const double m[3][3], const double v[3], double out[3])
{
    double r[3];
    for (int i = 0; i < 3; i++)
        r[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
    out[0] = r[0], out[1] = r[1], out[2] = r[2];
}

double mq_mat3d_det(double a[3][3])
{
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}

bool mq_mat3d_inverse(double a[3][3], double det, double inv[3][3])
{
    if (det == 0.0 || !isfinite(det))
        return false;
    double r = 1.0 / det;
    inv[0][0] = (a[1][1] * a[2][2] - a[1][2] * a[2][1]) * r;
    inv[0][1] = (a[0][2] * a[2][1] - a[0][1] * a[2][2]) * r;
    inv[0][2] = (a[0][1] * a[1][2] - a[0][2] * a[1][1]) * r;
    inv[1][0] = (a[1][2] * a[2][0] - a[1][0] * a[2][2]) * r;
    inv[1][1] = (a[0][0] * a[2][2] - a[0][2] * a[2][0]) * r;
    inv[1][2] = (a[0][2] * a[1][0] - a[0][0] * a[1][2]) * r;
    inv[2][0] = (a[1][0] * a[2][1] - a[1][1] * a[2][0]) * r;
    inv[2][1] = (a[0][1] * a[2][0] - a[0][0] * a[2][1]) * r;
    inv[2][2] = (a[0][0] * a[1][1] - a[0][1] * a[1][0]) * r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (!isfinite(inv[i][j]))
                return false;
    return true;
}
