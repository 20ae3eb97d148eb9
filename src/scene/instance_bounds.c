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

#include "build/bvh_internal.h"
#include "build/top_boxes.h"
#include "scene/scene_internal.h"

/* Relative widening: far above the few-ulp error of the double arithmetic below. */
#define MQ_BOX_WIDEN 1e-12

/* The inverse of a box's axis rows: columns are the world directions of its
 * edges. The stored float axes are not exactly orthonormal, so the transpose
 * would not do: the box is the set where each |axes[i].(p - c)| <= half[i]. */
static bool axes_inverse(const double m[3][3], double inv[3][3])
{
    double c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1];
    double c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2];
    double c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    double det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
    if (!(fabs(det) > 1e-6) || !isfinite(det))
        return false;
    double r = 1.0 / det;
    inv[0][0] = c00 * r;
    inv[1][0] = c01 * r;
    inv[2][0] = c02 * r;
    inv[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) * r;
    inv[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) * r;
    inv[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) * r;
    inv[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) * r;
    inv[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) * r;
    inv[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) * r;
    return true;
}

/* Grows [lo, hi] by the world image of one box; false if its axes are degenerate. */
static bool grow_by_box(const mq_xform *xf, const mq_top_box *b, double lo[3], double hi[3])
{
    double edges[3][3]; /* column i: local direction of the box's axis i */
    if (b->aligned) {
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                edges[i][j] = i == j ? 1.0 : 0.0;
    } else if (!axes_inverse(b->axes, edges)) {
        return false;
    }
    for (int k = 0; k < 3; k++) {
        double c = xf->m[k][3], mag = fabs(xf->m[k][3]), half = 0.0;
        for (int j = 0; j < 3; j++) {
            c += xf->m[k][j] * b->center[j];
            mag += fabs(xf->m[k][j] * b->center[j]);
        }
        for (int i = 0; i < 3; i++) {
            double e = xf->m[k][0] * edges[0][i] + xf->m[k][1] * edges[1][i] + xf->m[k][2] * edges[2][i];
            half += fabs(e) * b->half[i];
        }
        double pad = MQ_BOX_WIDEN * (mag + 2.0 * half) + DBL_MIN;
        lo[k] = fmin(lo[k], c - half - pad);
        hi[k] = fmax(hi[k], c + half + pad);
    }
    return true;
}

/* The box of the 8 mapped corners of the local root box, widened outwards. */
static void corners_box(const mq_instance_rec *rec, double lo[3], double hi[3])
{
    for (int c = 0; c < 8; c++) {
        double p[3], w[3];
        for (int k = 0; k < 3; k++)
            p[k] = (c >> k) & 1 ? rec->local_box.max[k] : rec->local_box.min[k];
        mq_xform_apply_point(&rec->to_world, p, w);
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], w[k]);
            hi[k] = fmax(hi[k], w[k]);
        }
    }
    for (int k = 0; k < 3; k++) {
        double pad = MQ_BOX_WIDEN * (fabs(lo[k]) + fabs(hi[k]) + (hi[k] - lo[k])) + DBL_MIN;
        lo[k] -= pad;
        hi[k] += pad;
    }
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
        corners_box(rec, clo, chi);
    for (int k = 0; k < 3; k++) {
        rec->world_box.min[k] = ok ? fmax(lo[k], clo[k]) : clo[k];
        rec->world_box.max[k] = ok ? fmin(hi[k], chi[k]) : chi[k];
    }
}
