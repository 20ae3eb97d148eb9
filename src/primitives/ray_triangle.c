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
 * Beyond the paper: a ray in the triangle's plane or a zero-area triangle is
 * rejected explicitly (the contract says they are never hit; the sheared float
 * coordinates could make their determinant round to a non-zero value), and the
 * hit is LOCATED separately from the decision. The float edge functions decide
 * hit or miss exactly (their signs), but as weights they are poor on slivers:
 * each carries an absolute error of ~eps * edge^2 against a sum of twice the
 * projected area, which on a triangle of aspect 1e-4 put hit points 1e-3 off
 * the plane. Once a hit is decided, t comes from the plane,
 * t = n.(v0 - o) / n.d, and (u, v) from the hit point, all in double with n
 * computed from exact double differences of the vertices: accurate whatever
 * the triangle's shape. (Recomputing the edge functions exactly from the float
 * sheared coordinates is cheaper and names the right point, but its weights
 * inherit the coordinates' rounding, ill-conditioned along a sliver: 0.7% off
 * on the aspect-1e-4 case.)
 */
#include <meshquery/primitives.h>

#include "primitives/hit_weights.h"
#include "primitives/near_parallel.h"
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
static float edge_fn(float px, float py, float qx, float qy)
{
    return px * qy - py * qx;
}

/* The same in double: products of floats are exact there, so the sign is exact. */
static double edge_fn_exact(float px, float py, float qx, float qy)
{
    return (double)px * (double)qy - (double)py * (double)qx;
}

/*
 * dot(dir, n) in double, n = (v1-v0) x (v2-v0), or 0 when the triangle has zero
 * area; e1, e2 and n get v1-v0, v2-v0 and n. 0 means "never hit": zero area,
 * or a ray in (or parallel to) the plane. In double the differences of float
 * coordinates of similar magnitude are exact and their products nearly so, so
 * these two verdicts are exact for any coordinates of moderate dynamic range.
 */
static double facing(const vec3 dir, const mq_triangle *tri, double e1[3], double e2[3], double n[3])
{
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

/* out = a x b in double; out must not alias a or b. */
static void mq_d3_cross(double out[3], const double a[3], const double b[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Parameter in [0, 1] of the point of segment [p0, p0 + e] nearest to h, and its squared distance. */
static double edge_param(const double h[3], const double p0[3], const double e[3], double *d2)
{
    double x[3], ee = 0.0, xe = 0.0, s;
    for (int i = 0; i < 3; i++) {
        x[i] = h[i] - p0[i];
        ee += e[i] * e[i];
        xe += x[i] * e[i];
    }
    s = xe <= 0.0 ? 0.0 : (xe >= ee ? 1.0 : xe / ee); /* ee = 0 gives s = 0, no division */
    *d2 = 0.0;
    for (int i = 0; i < 3; i++) {
        double r = x[i] - s * e[i];
        *d2 += r * r;
    }
    return s;
}

/*
 * Barycentrics (u, v) of the hit point h = o + td*d (relative to v0: h = td*d - q
 * with q = v0 - o), on the plane to rounding: for h = u e1 + v e2 (+ a height
 * along n), h x e2 = u n and e1 x h = v n (+ terms normal to n), so
 * u = n.(h x e2) / |n|^2 = h.m2 / |n|^2 with m2 = e2 x n, and likewise
 * v = h.m1 / |n|^2 with m1 = n x e1. Expanding h gives
 * u = (td (d.m2) - q.m2) / |n|^2: the dot products do not wait for td, so
 * only a multiply and a subtraction follow its division (the hit record's
 * latency; the rounding error is of the same order as forming h first, eps
 * times |td d| + |q| over the triangle's height). (Projecting on the
 * dominant plane of n is as accurate and fewer flops, but choosing that plane
 * per triangle costs more than it saves.)
 *
 * The hit is already decided, by the float edge functions, so h can fall just
 * outside the triangle: the ray passes within rounding of it, but on a sliver
 * that may be a large fraction of the barycentric range (a weight of -0.3 on a
 * triangle of aspect 1e-7 is still a point within rounding of an edge).
 * Clamping the weights would slide the point along the long edges; the nearest
 * point of the triangle is on its boundary, so take the nearest edge point.
 */
void mq_hit_weights(double td, const float d[3], const double q[3], const double e1[3], const double e2[3],
                    const double n[3], float *u_out, float *v_out)
{
    double m2[3], m1[3];
    mq_d3_cross(m2, e2, n);
    mq_d3_cross(m1, n, e1);
    double dm2 = (double)d[0] * m2[0] + (double)d[1] * m2[1] + (double)d[2] * m2[2];
    double qm2 = q[0] * m2[0] + q[1] * m2[1] + q[2] * m2[2];
    double dm1 = (double)d[0] * m1[0] + (double)d[1] * m1[1] + (double)d[2] * m1[2];
    double qm1 = q[0] * m1[0] + q[1] * m1[1] + q[2] * m1[2];
    double inv = 1.0 / (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double u = (td * dm2 - qm2) * inv;
    double v = (td * dm1 - qm1) * inv;
    if (!(u >= 0.0 && v >= 0.0 && u + v <= 1.0)) {
        static const double zero[3] = {0.0, 0.0, 0.0};
        double h[3];
        for (int c = 0; c < 3; c++)
            h[c] = td * (double)d[c] - q[c];
        double e12[3] = {e2[0] - e1[0], e2[1] - e1[1], e2[2] - e1[2]}, d01, d02, d12;
        double s01 = edge_param(h, zero, e1, &d01);
        double s02 = edge_param(h, zero, e2, &d02);
        double s12 = edge_param(h, e1, e12, &d12);
        if (d01 <= d02 && d01 <= d12) {
            u = s01;
            v = 0.0;
        } else if (d02 <= d12) {
            u = 0.0;
            v = s02;
        } else {
            u = 1.0 - s12;
            v = s12;
        }
    }
    *u_out = (float)u;
    *v_out = (float)v;
}

/* t of the plane crossing, q = v0 - origin; NaN when the ray is near
 * parallel to the plane (near_parallel.h; the caller then interpolates the
 * decision's point: the sheared depths weighted by U, V, W, as the paper does). */
static double located_t(const float dir[3], const double n[3], double dn, const double q[3])
{
    double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    double dd = (double)dir[0] * dir[0] + (double)dir[1] * dir[1] + (double)dir[2] * dir[2];
    if (mq_near_parallel(dn, nn, dd))
        return NAN;
    return (n[0] * q[0] + n[1] * q[1] + n[2] * q[2]) / dn;
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
    double e1[3], e2[3], n[3];
    double dn = facing(dir, tri, e1, e2, n);
    if (dn == 0.0 || isnan(dn))
        return false;

    /* Hit: t from the plane, in double. v0 - o is exact in double for coordinates of
     * moderate dynamic range, n is good to a rounding per component, and no
     * product can overflow or underflow (float inputs, double range). */
    double q[3]; /* v0 - origin */
    for (int i = 0; i < 3; i++)
        q[i] = (double)tri->v[0][i] - (double)ray->origin[i];
    double td = located_t(dir, n, dn, q);
    if (isnan(td)) /* near-parallel: where the decision put the hit */
        td = (U * (double)a[kz] + V * (double)b[kz] + W * (double)c[kz]) / (det * (double)dir[kz]);
    /* Beyond FLT_MAX the conversion gives +-inf (IEEE, C11 Annex F): a hit only
     * for tmax = +inf, which the exact t, too large for a float, also satisfies. */
    float t = (float)td;
    /* Checked on the float we return, so the reported t is always in range. */
    if (!(t >= ray->tmin && t <= ray->tmax))
        return false;
    if (out) {
        out->t = t;
        mq_hit_weights(td, dir, q, e1, e2, n, &out->u, &out->v);
        out->back_face = dn > 0.0;
    }
    return true;
}
