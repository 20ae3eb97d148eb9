/*
 * A committed instance's precomputed data (scene_internal.h): inverse, normal
 * matrix, singular value bounds, rigidity and boxes, all in double.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/minmax.h"
#include "bvh/bvh_internal.h"
#include "core/float_steps.h"
#include "obbtree/obbtree_region.h"
#include "scene/scene_internal.h"

/*
 * Largest eigenvalue of a symmetric positive semi-definite 3x3 matrix
 * (Smith 1961, trigonometric form). It is the well-conditioned end of the
 * spectrum: its relative error is a few ulps whatever the condition number,
 * which is why sigma_min comes from the inverse's largest value, not from this
 * matrix's smallest.
 */
static double sym3_largest_eigenvalue(double a[3][3])
{
    double p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    double q = (a[0][0] + a[1][1] + a[2][2]) / 3.0;
    double d0 = a[0][0] - q, d1 = a[1][1] - q, d2 = a[2][2] - q;
    double p2 = d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * p1;
    if (!(p2 > 0.0))
        return q; /* a multiple of the identity */
    double p = sqrt(p2 / 6.0);
    double b[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            b[i][j] = (a[i][j] - (i == j ? q : 0.0)) / p;
    double det = b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) - b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0]) +
                 b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]);
    double r = det / 2.0;
    r = r < -1.0 ? -1.0 : (r > 1.0 ? 1.0 : r);
    return q + 2.0 * p * cos(acos(r) / 3.0);
}

/* Upper bound on the largest singular value of m: sqrt(lambda_max(m^T m)), with
 * a margin for the eigen solve, and never above the Frobenius norm (a true bound). */
static double sigma_max_bound(double m[3][3])
{
    double mtm[3][3], frob = 0.0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            mtm[i][j] = m[0][i] * m[0][j] + m[1][i] * m[1][j] + m[2][i] * m[2][j];
            frob += m[i][j] * m[i][j];
        }
    }
    double s = sqrt(mq_fmax(sym3_largest_eigenvalue(mtm), 0.0)) * (1.0 + 1e-9);
    frob = sqrt(frob);
    return s < frob ? s : frob;
}

/* A^T A = I and det > 0 within 1e-12: a rotation, so shape queries may map shapes rigidly. */
static bool is_rigid(double a[3][3], double det)
{
    if (!(det > 0.0))
        return false;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double d = a[0][i] * a[0][j] + a[1][i] * a[1][j] + a[2][i] * a[2][j] - (i == j ? 1.0 : 0.0);
            if (!(fabs(d) <= 1e-12))
                return false;
        }
    }
    return true;
}

static void empty_local_box(mq_aabb *b)
{
    for (int k = 0; k < 3; k++) {
        b->min[k] = INFINITY;
        b->max[k] = -INFINITY;
    }
}

/* The hierarchy's root box in its mesh frame; empty (min > max) for an empty hierarchy. */
static void local_root_box(const mq_instance_def *def, mq_aabb *out)
{
    empty_local_box(out);
    if (def->bvh) {
        const float *b = def->bvh->root_box; /* lo x, hi x, lo y, ... */
        if (def->bvh->root == MQ_REF_EMPTY)
            return;
        for (int k = 0; k < 3; k++) {
            out->min[k] = b[2 * k];
            out->max[k] = b[2 * k + 1];
        }
        return;
    }
    /* The root box's world-axes box in double, rounded outwards to float. */
    double lo[3], hi[3];
    if (!mq_obbtree_root_region(def->obbtree, lo, hi))
        return;
    for (int k = 0; k < 3; k++) {
        out->min[k] = mq_float_floor_of(lo[k]);
        out->max[k] = mq_float_ceil_of(hi[k]);
    }
}

/* The widening of the local root box for rays: the float ray traced may pass
 * a hair closer to a corner of the box than the double ray does. */
#define MQ_RAY_BOX_WIDEN 1e-6

/* rec->ray: what a ray reads of the instance (scene_internal.h). */
static void ray_data(mq_instance_rec *rec)
{
    mq_inst_ray_data *d = &rec->ray;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            d->w2l[r][c] = rec->to_local.m[r][c];
        d->origin[r] = rec->to_world.m[r][3];
        double lo = rec->local_box.min[r], hi = rec->local_box.max[r];
        double pad = MQ_RAY_BOX_WIDEN * (fabs(lo) + fabs(hi)) + 1e-30; /* inf - inf: NaN, an empty box */
        d->box_lo[r] = mq_float_floor_of(lo - pad);
        d->box_hi[r] = mq_float_ceil_of(hi + pad);
    }
    d->bvh = rec->bvh;
}

bool mq_instance_rec_init(mq_instance_rec *rec, const mq_instance_def *def, uint32_t id)
{
    if (!rec || !def || (def->bvh == NULL) == (def->obbtree == NULL))
        return false;
    double a[3][3], inv[3][3];
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            a[r][c] = def->transform.m[r][c];
        if (!isfinite(def->transform.m[r][3]))
            return false; /* a non-finite translation would put the instance nowhere */
    }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            if (!isfinite(a[r][c]))
                return false;
    double det = mq_mat3d_det(a);
    if (!mq_mat3d_inverse(a, det, inv))
        return false;
    bool rigid = is_rigid(a, det);
    double smax, smin;
    if (rigid) {
        /* |A^T A - I| <= 1e-12 entrywise puts A^T A's eigenvalues within 3e-12
         * of 1 (Gershgorin), so the singular values within 2e-12: no eigen
         * solve for the common rigid instance. */
        smax = 1.0 + 1e-9;
        smin = 1.0 - 1e-9;
    } else {
        smax = sigma_max_bound(a);
        smin = (1.0 / sigma_max_bound(inv)) * (1.0 - 1e-9);
        if (!(smax > 0.0) || !(smin >= 1e-12 * smax))
            return false;
    }

    memset(rec, 0, sizeof *rec);
    rec->bvh = def->bvh;
    rec->obbtree = def->obbtree;
    rec->mesh = def->bvh ? mq_bvh_mesh(def->bvh) : mq_obbtree_mesh(def->obbtree);
    rec->to_world = def->transform;
    double sign = det < 0.0 ? -1.0 : 1.0;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            rec->to_local.m[r][c] = inv[r][c];
            rec->normal_to_world[r][c] = sign * inv[c][r];
        }
        rec->to_local.m[r][3] = -(inv[r][0] * def->transform.m[0][3] + inv[r][1] * def->transform.m[1][3] +
                                  inv[r][2] * def->transform.m[2][3]);
    }
    rec->sigma_min = smin;
    rec->sigma_max = smax;
    rec->mirrored = det < 0.0;
    rec->rigid = rigid;
    local_root_box(def, &rec->local_box);
    mq_instance_world_box(rec);
    ray_data(rec);
    rec->user_id = def->user_id;
    rec->mask = def->mask;
    rec->id = id;
    return true;
}
