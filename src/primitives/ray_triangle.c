/*
 * Ray vs triangle, watertight: Woop, Benthin & Wald, "Watertight Ray/Triangle
 * Intersection", JCGT 2(1), 2013.
 *
 * The ray is mapped to the +z axis by a permutation of the coordinates and a
 * shear; the vertices are mapped the same way, and the hit test becomes "is
 * the 2D origin inside the projected triangle", decided by the signs of three
 * 2D edge functions. Why this is watertight: a vertex's projected (x, y)
 * depends only on the vertex and the ray, so two triangles sharing an edge
 * compute that edge's function from the same floats, and get exactly opposite
 * values (IEEE rounding is symmetric and -ffp-contract=off forbids FMA from
 * breaking that). A non-zero float result also has the exact sign (rounding is
 * monotone), and an exact 0 is recomputed in double, where the two products
 * are exact. So for any ray, the edge is claimed by one side, or by both.
 *
 * Beyond the paper: t, u, v are computed in double from the edge functions (a
 * correctly rounded quotient each, no reciprocal), and a ray in the triangle's
 * plane or a zero-area triangle is rejected explicitly (the contract says they
 * are never hit; the sheared float coordinates could make their determinant
 * round to a non-zero value).
 */
#include <meshquery/primitives.h>

#include "primitives/shape_checks.h"

/* Index of the largest |d_i| (ties: the lower index). */
static int largest_axis(const vec3 d)
{
    float x = fabsf(d[0]), y = fabsf(d[1]), z = fabsf(d[2]);
    if (x >= y && x >= z)
        return 0;
    return y >= z ? 1 : 2;
}

/* 2D edge function p x q = px*qy - py*qx in float; see edge_fn_exact for the fallback. */
static float edge_fn(float px, float py, float qx, float qy) { return px * qy - py * qx; }

/* The same in double: products of floats are exact there, so the sign is exact. */
static double edge_fn_exact(float px, float py, float qx, float qy)
{
    return (double)px * (double)qy - (double)py * (double)qx;
}

/*
 * dot(dir, (v1-v0) x (v2-v0)) in double, or 0 when the triangle has zero area.
 * 0 means "never hit": zero area, or a ray in (or parallel to) the plane. In
 * double the differences of float coordinates of similar magnitude are exact
 * and their products nearly so, so these two verdicts are exact for any
 * coordinates of moderate dynamic range.
 */
static double facing(const vec3 dir, const mq_triangle *tri)
{
    double e1[3], e2[3], n[3];
    for (int i = 0; i < 3; i++) {
        e1[i] = (double)tri->v[1][i] - (double)tri->v[0][i];
        e2[i] = (double)tri->v[2][i] - (double)tri->v[0][i];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    if (n[0] == 0.0 && n[1] == 0.0 && n[2] == 0.0)
        return 0.0;
    return n[0] * (double)dir[0] + n[1] * (double)dir[1] + n[2] * (double)dir[2];
}

bool mq_raycast_triangle(const mq_ray *ray, const mq_triangle *tri, mq_triangle_hit *out)
{
    if (!tri || !mq_ray_is_valid(ray) || !mq_triangle_ok(tri))
        return false;
    const float *dir = ray->dir;

    /* Permutation: z is the dominant direction axis; swapping x and y when it
     * points down keeps the frame's handedness, hence the winding. */
    int kz = largest_axis(dir);
    int kx = kz == 2 ? 0 : kz + 1;
    int ky = kx == 2 ? 0 : kx + 1;
    if (dir[kz] < 0.0f) {
        int tmp = kx;
        kx = ky;
        ky = tmp;
    }
    /* Shear that maps dir onto the z axis; |sx|, |sy| <= 1 as dir[kz] dominates. */
    float sx = dir[kx] / dir[kz], sy = dir[ky] / dir[kz];

    /* Vertices relative to the origin, sheared into the ray's frame (2D part). */
    vec3 a, b, c;
    mq_v3_sub(a, tri->v[0], ray->origin);
    mq_v3_sub(b, tri->v[1], ray->origin);
    mq_v3_sub(c, tri->v[2], ray->origin);
    float ax = a[kx] - sx * a[kz], ay = a[ky] - sy * a[kz];
    float bx = b[kx] - sx * b[kz], by = b[ky] - sy * b[kz];
    float cx = c[kx] - sx * c[kz], cy = c[ky] - sy * c[kz];

    /* Edge functions: U is opposite v0, V opposite v1, W opposite v2, so U, V, W
     * over their sum are the barycentric weights of v0, v1, v2. */
    float uf = edge_fn(cx, cy, bx, by), vf = edge_fn(ax, ay, cx, cy), wf = edge_fn(bx, by, ax, ay);
    double U = (double)uf, V = (double)vf, W = (double)wf;
    /* An exact 0 may be a rounded-away sign: recompute in double (paper, sec. 3.4).
     * Non-finite values (overflowing coordinates) get the same treatment. */
    if (uf == 0.0f || vf == 0.0f || wf == 0.0f || !isfinite(uf) || !isfinite(vf) || !isfinite(wf)) {
        U = edge_fn_exact(cx, cy, bx, by);
        V = edge_fn_exact(ax, ay, cx, cy);
        W = edge_fn_exact(bx, by, ax, ay);
    }
    /* Closed triangle: the origin may lie on an edge (0) but not outside one. */
    if ((U < 0.0 || V < 0.0 || W < 0.0) && (U > 0.0 || V > 0.0 || W > 0.0))
        return false;
    double det = U + V + W;
    if (det == 0.0 || !isfinite(det))
        return false;

    /* Only candidates pay for the plane test. */
    double dn = facing(dir, tri);
    if (dn == 0.0 || isnan(dn))
        return false;

    /* The hit's z in the sheared frame is (U*az + V*bz + W*cz) / det / dir[kz]:
     * dividing instead of pre-scaling by 1/dir[kz] as the paper does cannot
     * overflow for tiny directions. */
    double tz = U * (double)a[kz] + V * (double)b[kz] + W * (double)c[kz];
    /* Beyond FLT_MAX the conversion gives +-inf (IEEE, C11 Annex F): a hit only
     * for tmax = +inf, which the exact t, too large for a float, also satisfies. */
    float t = (float)(tz / (det * (double)dir[kz]));
    /* Checked on the float we return, so the reported t is always in range. */
    if (!(t >= ray->tmin && t <= ray->tmax))
        return false;
    if (out) {
        out->t = t;
        out->u = (float)(V / det);
        out->v = (float)(W / det);
        out->back_face = dn > 0.0;
    }
    return true;
}
