/*
 * The exact sign of orient3d by expansions (core/expansion.h).
 *
 * The determinant is taken in its 4x4 form (rows x, y, z, 1 of a, b, c, d),
 * from the coordinates themselves rather than from their differences, which
 * round: 2x2 minors of x and y, combined into 3x3 minors, each scaled by the
 * fourth point's z. That form is det[a - d; b - d; c - d], the negative of
 * det[b - a; c - a; d - a].
 *
 * Largest expansions: a 2x2 minor 4 components, a 3x3 minor 12, scaled 24,
 * the whole 96. When the three differences b - a, c - a, d - a happen to be
 * exact, the 3x3 form from them is taken instead (24 components).
 */
#include "core/orient3d.h"

#include <stdbool.h>

#include "core/expansion.h"

/* p.x q.y - q.x p.y, exactly: 4 components. */
static size_t minor2(const double p[3], const double q[3], double *h)
{
    return mq_product_difference(p[0], q[1], q[0], p[1], h);
}

/* x + y + z, for three 2x2 minors: 12 components. */
static size_t sum3(size_t xl, const double *x, size_t yl, const double *y, size_t zl, const double *z, double *h)
{
    double t[8];
    size_t tl = mq_expansion_sum(xl, x, yl, y, t);
    return mq_expansion_sum(tl, t, zl, z, h);
}

static void negate(size_t n, double *e)
{
    for (size_t i = 0; i < n; i++)
        e[i] = -e[i];
}

/* e3 . (e1 x e2) for differences that were exact: 24 components at most, a
 * quarter of the 4x4 form's work. Points on grids, and most points of CAD
 * models, have exact differences. */
static int sign_from_differences(const double e1[3], const double e2[3], const double e3[3])
{
    double m[4], t[3][8], s[16], det[24];
    size_t tl[3];
    for (int k = 0; k < 3; k++) {
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        size_t ml = mq_product_difference(e1[k1], e2[k2], e1[k2], e2[k1], m);
        tl[k] = mq_expansion_scale(ml, m, e3[k], t[k]);
    }
    size_t sl = mq_expansion_sum(tl[0], t[0], tl[1], t[1], s);
    return mq_expansion_sign(mq_expansion_sum(sl, s, tl[2], t[2], det), det);
}

int mq_orient3d_exact(const double a[3], const double b[3], const double c[3], const double d[3])
{
    double e[3][3];
    const double *q[3] = {b, c, d};
    bool exact = true;
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++) {
            double tail;
            mq_two_sum(q[j][k], -a[k], &e[j][k], &tail);
            exact = exact && tail == 0.0;
        }
    if (exact)
        return sign_from_differences(e[0], e[1], e[2]);
    double ab[4], bc[4], cd[4], da[4], ac[4], bd[4];
    size_t abl = minor2(a, b, ab), bcl = minor2(b, c, bc), cdl = minor2(c, d, cd);
    size_t dal = minor2(d, a, da), acl = minor2(a, c, ac), bdl = minor2(b, d, bd);
    double cda[12], dab[12], abc[12], bcd[12];
    size_t cdal = sum3(cdl, cd, dal, da, acl, ac, cda);
    size_t dabl = sum3(dal, da, abl, ab, bdl, bd, dab);
    negate(bdl, bd);
    negate(acl, ac);
    size_t abcl = sum3(abl, ab, bcl, bc, acl, ac, abc);
    size_t bcdl = sum3(bcl, bc, cdl, cd, bdl, bd, bcd);
    double ta[24], tb[24], tc[24], td[24], s1[48], s2[48], det[96];
    size_t tal = mq_expansion_scale(bcdl, bcd, a[2], ta);
    size_t tbl = mq_expansion_scale(cdal, cda, -b[2], tb);
    size_t tcl = mq_expansion_scale(dabl, dab, c[2], tc);
    size_t tdl = mq_expansion_scale(abcl, abc, -d[2], td);
    size_t s1l = mq_expansion_sum(tal, ta, tbl, tb, s1);
    size_t s2l = mq_expansion_sum(tcl, tc, tdl, td, s2);
    /* det[a - d; b - d; c - d] = -det[b - a; c - a; d - a] */
    return -mq_expansion_sign(mq_expansion_sum(s1l, s1, s2l, s2, det), det);
}
