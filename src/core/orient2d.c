/*
 * The exact sign of orient2d by expansions (core/expansion.h): from the
 * differences a - c and b - c when both were exact (one product difference, 4
 * components), else from the coordinates, as the three 2x2 minors
 * a x b + b x c + c x a (12 components).
 */
#include "core/orient2d.h"

#include <stdbool.h>

#include "core/expansion.h"

int mq_orient2d_exact(const double a[2], const double b[2], const double c[2])
{
    double e[2][2];
    const double *q[2] = {a, b};
    bool exact = true;
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < 2; k++) {
            double tail;
            mq_two_sum(q[j][k], -c[k], &e[j][k], &tail);
            exact = exact && tail == 0.0;
        }
    double m[12];
    if (exact)
        return mq_expansion_sign(mq_product_difference(e[0][0], e[1][1], e[0][1], e[1][0], m), m);
    double ab[4], bc[4], ca[4], t[8];
    size_t abl = mq_product_difference(a[0], b[1], b[0], a[1], ab);
    size_t bcl = mq_product_difference(b[0], c[1], c[0], b[1], bc);
    size_t cal = mq_product_difference(c[0], a[1], a[0], c[1], ca);
    size_t tl = mq_expansion_sum(abl, ab, bcl, bc, t);
    return mq_expansion_sign(mq_expansion_sum(tl, t, cal, ca, m), m);
}
