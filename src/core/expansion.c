/* Expansion sums and products (see expansion.h). */
#include "core/expansion.h"

size_t mq_expansion_sum(size_t elen, const double *e, size_t flen, const double *f, double *h)
{
    size_t hlen = 0;
    for (size_t i = 0; i < elen; i++)
        if (e[i] != 0.0)
            h[hlen++] = e[i];
    for (size_t j = 0; j < flen; j++) {
        double q = f[j];
        size_t k = 0;
        for (size_t i = 0; i < hlen; i++) {
            double s, err;
            mq_two_sum(q, h[i], &s, &err);
            q = s;
            if (err != 0.0)
                h[k++] = err;
        }
        if (q != 0.0)
            h[k++] = q;
        hlen = k;
    }
    return hlen;
}

size_t mq_expansion_scale(size_t elen, const double *e, double b, double *h)
{
    if (elen == 0)
        return 0;
    size_t k = 0;
    double q, err;
    mq_two_product(e[0], b, &q, &err);
    if (err != 0.0)
        h[k++] = err;
    for (size_t i = 1; i < elen; i++) {
        double p1, p0, s;
        mq_two_product(e[i], b, &p1, &p0);
        mq_two_sum(q, p0, &s, &err);
        if (err != 0.0)
            h[k++] = err;
        mq_fast_two_sum(p1, s, &q, &err);
        if (err != 0.0)
            h[k++] = err;
    }
    if (q != 0.0)
        h[k++] = q;
    return k;
}

size_t mq_product_difference(double w, double x, double y, double z, double *h)
{
    double a[2], b[2];
    mq_two_product(w, x, &a[1], &a[0]);
    mq_two_product(-y, z, &b[1], &b[0]);
    return mq_expansion_sum(2, a, 2, b, h);
}
