/* Symmetric 3x3 eigen decomposition by cyclic Jacobi rotations (Golub & Van
 * Loan, Matrix Computations, §8.5.2). Jacobi is slow for big matrices but for
 * 3x3 it converges in a handful of sweeps, is unconditionally stable and always
 * returns an orthonormal eigenbasis, also for repeated eigenvalues. */
#include <math.h>
#include <string.h>

#include "obbtree/obb_fit.h"

/* Zeroes a[p][q] with the rotation J (J_pp = J_qq = c, J_pq = s, J_qp = -s):
 * a <- J^T a J, v <- v J. */
static void jacobi_rotate(double a[3][3], double v[3][3], int p, int q)
{
    if (a[p][q] == 0.0)
        return;
    double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
    /* the smaller root of t^2 + 2 theta t - 1 = 0 keeps the rotation under 45 degrees */
    double t =
        fabs(theta) > 1e150 ? 0.5 / theta : (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
    double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
    for (int k = 0; k < 3; k++) {
        double akp = a[k][p], akq = a[k][q];
        a[k][p] = c * akp - s * akq;
        a[k][q] = s * akp + c * akq;
    }
    for (int k = 0; k < 3; k++) {
        double apk = a[p][k], aqk = a[q][k];
        a[p][k] = c * apk - s * aqk;
        a[q][k] = s * apk + c * aqk;
    }
    for (int k = 0; k < 3; k++) {
        double vkp = v[k][p], vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
    }
    a[p][q] = a[q][p] = 0.0; /* exact by construction; clear the rounding residue */
}

void mq_sym3_eigen(double a_in[3][3], double values[3], double vectors[3][3])
{
    double a[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    memcpy(a, a_in, sizeof a);
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
        if (!(off > 1e-32 * diag)) /* also stops on NaN */
            break;
        jacobi_rotate(a, v, 0, 1);
        jacobi_rotate(a, v, 0, 2);
        jacobi_rotate(a, v, 1, 2);
    }
    int order[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++) /* sort by decreasing eigenvalue (3 elements: insertion) */
        for (int j = i; j > 0 && a[order[j]][order[j]] > a[order[j - 1]][order[j - 1]]; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    for (int i = 0; i < 3; i++) {
        values[i] = a[order[i]][order[i]];
        for (int k = 0; k < 3; k++)
            vectors[i][k] = v[k][order[i]]; /* eigenvectors are the columns of v */
    }
}
