/*
 * An instance's world box (mq_instance_rec.world_box): the union of the mapped
 * images of its hierarchy's top boxes (build/top_boxes.h), not the box of its
 * mapped root box. Under a rotation the root box's image is up to sqrt(3)
 * times wider per axis than the mesh's; the two top levels of the hierarchy
 * hug the mesh, so the top-level walk meets far fewer instances a ray or a
 * shape cannot touch.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "build/bvh_internal.h"
#include "build/top_boxes.h"
#include "scene/scene_internal.h"

/* Relative widening: far above the few-ulp error of the double arithmetic below. */
#define MQ_BOX_WIDEN 1e-12

/* The inverse of a box's axis rows: columns are the world directions of its
 * edges. The stored float axes are not exactly orthonormal, so the transpose
 * would not do: the box is the set where each |axes[i].(p - c)| <= half[i]. */
static bool axes_inverse(const double axes[3][3], double inv[3][3])
{
    double m[3][3];
    memcpy(m, axes, sizeof m);
    double det = mq_mat3d_det(m);
    return fabs(det) > 1e-6 && mq_mat3d_inverse(m, det, inv);
}

/* The world box of a local box { center + e : |e_i| <= half_i along the
 * columns of `edges` }, grown into [lo, hi], widened for the rounding. */
static void grow(const mq_xform *xf, const double center[3], const double half[3], double (*edges)[3],
                 double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        double c = xf->m[k][3], mag = fabs(xf->m[k][3]), h = 0.0;
        for (int j = 0; j < 3; j++) {
            c += xf->m[k][j] * center[j];
            mag += fabs(xf->m[k][j] * center[j]);
        }
        for (int i = 0; i < 3; i++) {
            double e = edges ? xf->m[k][0] * edges[0][i] + xf->m[k][1] * edges[1][i] + xf->m[k][2] * edges[2][i]
                             : xf->m[k][i];
            h += fabs(e) * half[i];
        }
        double pad = MQ_BOX_WIDEN * (mag + 2.0 * h) + DBL_MIN;
        double l = c - h - pad, u = c + h + pad;
        lo[k] = l < lo[k] ? l : lo[k];
        hi[k] = u > hi[k] ? u : hi[k];
    }
}

/* Grows [lo, hi] by the world image of one box; false if its axes are degenerate. */
static bool grow_by_box(const mq_xform *xf, const mq_top_box *b, double lo[3], double hi[3])
{
    if (b->aligned) {
        grow(xf, b->center, b->half, NULL, lo, hi);
        return true;
    }
    double edges[3][3]; /* column i: local direction of the box's axis i */
    if (!axes_inverse(b->axes, edges))
        return false;
    grow(xf, b->center, b->half, edges, lo, hi);
    return true;
}

/* The world box of the local root box (the box of its 8 mapped corners). */
static void root_box(const mq_instance_rec *rec, double lo[3], double hi[3])
{
    double c[3], h[3];
    for (int k = 0; k < 3; k++) {
        double l = rec->local_box.min[k], u = rec->local_box.max[k];
        c[k] = 0.5 * (l + u); /* exact: floats in double */
        h[k] = 0.5 * (u - l);
    }
    grow(&rec->to_world, c, h, NULL, lo, hi);
}

void mq_instance_world_box(mq_instance_rec *rec)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    mq_top_box boxes[MQ_TOP_BOXES_MAX];
    size_t n = rec->bvh ? mq_bvh_top_boxes(rec->bvh, boxes, MQ_TOP_BOXES_MAX)
                        : mq_obbtree_top_boxes(rec->obbtree, boxes, MQ_TOP_BOXES_MAX);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++)
        ok = grow_by_box(&rec->to_world, &boxes[i], lo, hi);
    /* Both boxes contain the mesh, so their intersection does: an OBB tree's
     * child boxes may stick out of the root's box, and then the root's wins. */
    double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (n > 0)
        root_box(rec, clo, chi);
    for (int k = 0; k < 3; k++) {
        rec->world_box.min[k] = ok && lo[k] > clo[k] ? lo[k] : clo[k];
        rec->world_box.max[k] = ok && hi[k] < chi[k] ? hi[k] : chi[k];
    }
}
