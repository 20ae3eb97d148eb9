/*
 * Volume and surface area of a k-DOP, for the statistics (kdoptree.h): the
 * box of the three axis slabs, clipped in double by the two planes of every
 * further slab (Sutherland–Hodgman on each face; the cut's points, ordered by
 * angle, become the new face). Volume by the divergence theorem: the sum over
 * faces of area * (outward unit normal . a face point) / 3.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kdoptree/kdoptree_internal.h"

#define MAXF 32
#define MAXV 40
#define MAXCAP 96

typedef struct face {
    double n[3]; /* outward unit normal */
    int count;
    double p[MAXV][3];
} face;

typedef struct poly {
    int count;
    face f[MAXF];
} poly;

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void box(poly *P, const float *lo, const float *hi)
{
    P->count = 0;
    for (int a = 0; a < 3; a++) {
        int b = (a + 1) % 3, c = (a + 2) % 3;
        for (int s = 0; s < 2; s++) {
            face *f = &P->f[P->count++];
            memset(f->n, 0, sizeof f->n);
            f->n[a] = s ? 1.0 : -1.0;
            f->count = 4;
            double bb[4] = {lo[b], hi[b], hi[b], lo[b]}, cc[4] = {lo[c], lo[c], hi[c], hi[c]};
            for (int k = 0; k < 4; k++) {
                f->p[k][a] = s ? hi[a] : lo[a];
                f->p[k][b] = bb[k];
                f->p[k][c] = cc[k];
            }
        }
    }
}

typedef struct angled {
    double angle;
    double p[3];
} angled;

static int by_angle(const void *x, const void *y)
{
    double a = ((const angled *)x)->angle, b = ((const angled *)y)->angle;
    return a < b ? -1 : a > b;
}

/* Keeps the part of P with n . x <= d (n unit). */
static void clip(poly *P, const double n[3], double d)
{
    static _Thread_local angled cap[MAXCAP];
    int caps = 0;
    bool cut = false;
    poly out;
    out.count = 0;
    for (int i = 0; i < P->count; i++) {
        const face *f = &P->f[i];
        face g;
        memcpy(g.n, f->n, sizeof g.n);
        g.count = 0;
        for (int k = 0; k < f->count; k++) {
            const double *p = f->p[k], *q = f->p[(k + 1) % f->count];
            double dp = dot(n, p) - d, dq = dot(n, q) - d;
            if (dp > 0.0)
                cut = true;
            if (dp <= 0.0 && g.count < MAXV) {
                memcpy(g.p[g.count++], p, sizeof g.p[0]);
                if (dp == 0.0 && caps < MAXCAP)
                    memcpy(cap[caps++].p, p, sizeof cap[0].p);
            }
            if ((dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0)) {
                double s = dp / (dp - dq), x[3];
                for (int j = 0; j < 3; j++)
                    x[j] = p[j] + s * (q[j] - p[j]);
                if (g.count < MAXV)
                    memcpy(g.p[g.count++], x, sizeof x);
                if (caps < MAXCAP)
                    memcpy(cap[caps++].p, x, sizeof x);
            }
        }
        if (g.count >= 3 && out.count < MAXF)
            out.f[out.count++] = g;
    }
    if (cut && caps >= 3 && out.count < MAXF) {
        double c[3] = {0, 0, 0}, u[3], v[3];
        for (int i = 0; i < caps; i++)
            for (int j = 0; j < 3; j++)
                c[j] += cap[i].p[j] / caps;
        /* u: any unit vector normal to n; v = n x u */
        double a[3] = {fabs(n[0]) < 0.9 ? 1.0 : 0.0, fabs(n[0]) < 0.9 ? 0.0 : 1.0, 0.0};
        double ad = dot(a, n);
        for (int j = 0; j < 3; j++)
            u[j] = a[j] - ad * n[j];
        double ul = sqrt(dot(u, u));
        for (int j = 0; j < 3; j++)
            u[j] /= ul;
        v[0] = n[1] * u[2] - n[2] * u[1];
        v[1] = n[2] * u[0] - n[0] * u[2];
        v[2] = n[0] * u[1] - n[1] * u[0];
        for (int i = 0; i < caps; i++) {
            double w[3] = {cap[i].p[0] - c[0], cap[i].p[1] - c[1], cap[i].p[2] - c[2]};
            cap[i].angle = atan2(dot(w, v), dot(w, u));
        }
        qsort(cap, (size_t)caps, sizeof cap[0], by_angle);
        face *g = &out.f[out.count++];
        memcpy(g->n, n, sizeof g->n);
        g->count = caps < MAXV ? caps : MAXV;
        for (int i = 0; i < g->count; i++)
            memcpy(g->p[i], cap[i].p, sizeof g->p[0]);
    }
    *P = out;
}

static double face_area(const face *f)
{
    double s[3] = {0, 0, 0};
    for (int k = 0; k < f->count; k++) {
        const double *p = f->p[k], *q = f->p[(k + 1) % f->count];
        s[0] += p[1] * q[2] - p[2] * q[1];
        s[1] += p[2] * q[0] - p[0] * q[2];
        s[2] += p[0] * q[1] - p[1] * q[0];
    }
    return 0.5 * fabs(dot(s, f->n));
}

void mq_kdop_measure(const float dirs[][3], uint32_t m, const float *lo, const float *hi, double *volume, double *area)
{
    *volume = 0.0;
    *area = 0.0;
    for (uint32_t j = 0; j < m; j++)
        if (!(lo[j] <= hi[j]) || !isfinite(lo[j]) || !isfinite(hi[j]))
            return;
    static _Thread_local poly P;
    box(&P, lo, hi);
    for (uint32_t j = 3; j < m && P.count > 0; j++) {
        double n[3] = {dirs[j][0], dirs[j][1], dirs[j][2]}, len = sqrt(dot(n, n));
        for (int k = 0; k < 3; k++)
            n[k] /= len;
        clip(&P, n, hi[j] / len);
        double neg[3] = {-n[0], -n[1], -n[2]};
        clip(&P, neg, -(double)lo[j] / len);
    }
    for (int i = 0; i < P.count; i++) {
        double a = face_area(&P.f[i]);
        *area += a;
        *volume += a * dot(P.f[i].n, P.f[i].p[0]) / 3.0;
    }
    if (*volume < 0.0)
        *volume = 0.0;
}
