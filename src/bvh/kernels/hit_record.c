/*
 * The hit record: geometry from the leaf block (so it follows refits; the
 * block's corners are scaled by the BVH's power of two, bvh_internal.h, and
 * are un-scaled here, exactly), ids and per-vertex attributes from the mesh
 * (bvh/kernels/hit_mesh.c, shared with the OBB tree).
 *
 * The traversal DECIDES the hit with the float watertight test; its float
 * t = T / det is only good for culling: on slivers T and det cancel (0.5% off
 * was seen). Once the winner is known, t, u and v are recomputed here in
 * double from the triangle's corners, as mq_raycast_triangle locates its hits
 * after its decision (primitives/ray_triangle.c: t from the plane,
 * t = n.(v0 - o) / n.d, (u, v) by the primitive's own mq_hit_weights), and
 * t is clamped into the caller's [tmin, tmax]. One
 * double computation per reported hit (per candidate with a filter). The
 * batch's packets do the same computation for 4 hits at once in AVX
 * registers (packet8_avx2.c, packet_hits: the same double operations in the
 * same order, so the same bits) and finish each with mq_hit_fill.
 */
#include "bvh/kernels/hit_record.h"

#include <math.h>

#include "primitives/hit_weights.h"
#include "primitives/near_parallel.h"

static void d3_cross(double out[3], const double a[3], const double b[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/*
 * The decided hit of `ray` on the triangle v[3][3] (mesh units), in double:
 * n = (v1-v0) x (v2-v0) and |n|^2 (for the normal too), then t, u, v with the
 * primitive's formulas. Returns false (keep the traversal's t, u, v) when the
 * plane test is degenerate in double (a grazing in-plane hit, bvh.h), the ray
 * is near parallel to the plane (near_parallel.h: the traversal's t is where
 * its decision put the hit, as the primitive's is), or t overflows. This is
 * the one place that decides: the AVX2 records send their lanes near that
 * bound here.
 */
static bool refine(const mq_ray *ray, float v[3][3], double n[3], double *nn_out, double *t_out, float *u_out,
                   float *v_out)
{
    double e1[3], e2[3], q[3];
    for (int i = 0; i < 3; i++) {
        e1[i] = (double)v[1][i] - (double)v[0][i];
        e2[i] = (double)v[2][i] - (double)v[0][i];
        q[i] = (double)v[0][i] - (double)ray->origin[i];
    }
    d3_cross(n, e1, e2);
    double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    *nn_out = nn;
    double dn = n[0] * (double)ray->dir[0] + n[1] * (double)ray->dir[1] + n[2] * (double)ray->dir[2];
    if (dn == 0.0 || !isfinite(dn))
        return false;
    double dd =
        (double)ray->dir[0] * ray->dir[0] + (double)ray->dir[1] * ray->dir[1] + (double)ray->dir[2] * ray->dir[2];
    if (mq_near_parallel(dn, nn, dd))
        return false;
    double td = (n[0] * q[0] + n[1] * q[1] + n[2] * q[2]) / dn;
    if (!isfinite(td))
        return false;
    mq_hit_weights(td, ray->dir, q, e1, e2, n, u_out, v_out);
    *t_out = td;
    return true;
}

void mq_hit_from_best(const mq_trace *q, const mq_best *b, mq_hit *out)
{
    mq_hit_from_lane_with(mq_kernels_active(), q->bvh, q->user_ray, q->ray.t_shift, b, out);
}

void mq_hit_from_lane(const mq_bvh *bvh, const mq_ray *ray, int t_shift, const mq_best *b, mq_hit *out)
{
    const float inv = bvh->inv_scale;
    const mq_tri_block *blk = b->block;
    float v[3][3];
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            v[c][k] = blk->v[c][k][b->lane] * inv;
    float t = t_shift ? ldexpf(b->t, t_shift) : b->t;
    out->u = b->u;
    out->v = b->v;
    double td, n[3], nn;
    if (refine(ray, v, n, &nn, &td, &out->u, &out->v)) {
        /* Into [tmin, tmax]; the float conversion is monotone, so the
         * clamped float stays inside. */
        float tf = (float)td;
        t = tf < ray->tmin ? ray->tmin : tf > ray->tmax ? ray->tmax : tf;
    }
    /* = mq_hit_unit_normal(v0, v1, v2), from the same n and |n|^2 */
    double len = sqrt(nn);
    float normal[3];
    for (int k = 0; k < 3; k++)
        normal[k] = len > 0.0 ? (float)(n[k] / len) : 0.0f;
    mq_hit_fill(bvh, ray, b, t, out->u, out->v, normal, out);
}
