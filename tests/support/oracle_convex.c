#include "oracle_convex.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

void oracle_hspace_make(const mq_convex *c, const double R[3][3], const double t[3], oracle_hspace *h)
{
    size_t nv = mq_convex_vertex_count(c), nf = mq_convex_face_count(c);
    const float *fv = mq_convex_vertices(c);
    const uint32_t *f = mq_convex_faces(c);
    double(*v)[3] = malloc(nv * sizeof *v);
    h->n = malloc(nf * sizeof *h->n);
    h->d = malloc(nf * sizeof *h->d);
    if (!v || !h->n || !h->d)
        abort();
    h->scale = 0.0;
    h->count = nf;
    for (size_t i = 0; i < nv; i++) {
        double x[3] = {fv[3 * i], fv[3 * i + 1], fv[3 * i + 2]};
        for (int k = 0; k < 3; k++)
            v[i][k] = R ? R[k][0] * x[0] + R[k][1] * x[1] + R[k][2] * x[2] + (t ? t[k] : 0.0) : x[k];
        for (int k = 0; k < 3; k++)
            h->scale = fmax(h->scale, fabs(v[i][k]));
    }
    for (size_t j = 0; j < nf; j++) {
        const double *a = v[f[3 * j]], *b = v[f[3 * j + 1]], *cc = v[f[3 * j + 2]];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double e2[3] = {cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        double d = -INFINITY;
        for (int k = 0; k < 3; k++)
            h->n[j][k] = n[k] / l;
        for (size_t i = 0; i < nv; i++)
            d = fmax(d, h->n[j][0] * v[i][0] + h->n[j][1] * v[i][1] + h->n[j][2] * v[i][2]);
        h->d[j] = d;
    }
    free(v);
}

void oracle_hspace_free(oracle_hspace *h)
{
    free(h->n);
    free(h->d);
}

bool oracle_hspace_meets(const oracle_hspace *h, const double tri[9], const double back[3], double shift)
{
    double poly[64][3], next[64][3];
    int n = 3;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            poly[i][k] = tri[3 * i + k] - (back ? back[k] : 0.0);
    for (size_t j = 0; j < h->count && n > 0; j++) {
        int m = 0;
        const double *pn = h->n[j];
        double d = h->d[j] + shift;
        for (int i = 0; i < n && m <= 60; i++) {
            const double *a = poly[i], *b = poly[(i + 1) % n];
            double sa = pn[0] * a[0] + pn[1] * a[1] + pn[2] * a[2] - d;
            double sb = pn[0] * b[0] + pn[1] * b[1] + pn[2] * b[2] - d;
            if (sa <= 0.0)
                memcpy(next[m++], a, sizeof(double[3]));
            if ((sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0)) {
                double s = sa / (sa - sb);
                for (int k = 0; k < 3; k++)
                    next[m][k] = a[k] + s * (b[k] - a[k]);
                m++;
            }
        }
        n = m;
        memcpy(poly, next, (size_t)n * sizeof(double[3]));
    }
    return n > 0;
}
