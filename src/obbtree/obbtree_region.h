/*
 * The box every triangle of an OBB tree lies in, in double: what a shape
 * query cuts a huge shape down to before its float walk (primitives/
 * shape_reduce.h), so that a capsule along a line 1e30 long or a box of
 * +-FLT_MAX answers like the same shape clipped to the mesh's neighbourhood.
 */
#ifndef MQ_OBBTREE_OBBTREE_REGION_H
#define MQ_OBBTREE_OBBTREE_REGION_H

#include <math.h>
#include <stdbool.h>

#include "core/mat3d.h"
#include "obbtree/obbtree_internal.h"

/* The world-axes box of the OBB tree's root box (exact in double up to a
 * rounding of its extent, far inside the reduction's margin). False for an
 * empty tree. The tree's box is the slab set { p : |axes_i . (p - centre)| <=
 * half_i }, and its float axes are orthonormal only to float precision: its
 * corners are centre + E s, E the axes' inverse (as the top boxes' edges,
 * obbtree_top_boxes.c); the transpose would miss by about 1e-7 of their
 * distance from the centre. Degenerate axes (never built) fall back to it. */
static inline bool mq_obbtree_root_region(const mq_obbtree *t, double lo[3], double hi[3])
{
    mq_obb root;
    if (!mq_obbtree_root(t, &root))
        return false;
    double axes[3][3], edge[3][3];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            axes[i][k] = root.axes[i][k];
    double det = mq_mat3d_det(axes);
    if (!(fabs(det) > 1e-6 && mq_mat3d_inverse(axes, det, edge)))
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++)
                edge[k][i] = axes[i][k];
    for (int k = 0; k < 3; k++) {
        double ext = 0.0;
        for (int i = 0; i < 3; i++)
            ext += fabs(edge[k][i]) * root.half[i];
        lo[k] = root.center[k] - ext;
        hi[k] = root.center[k] + ext;
        if (!(lo[k] <= hi[k] && isfinite(lo[k]) && isfinite(hi[k])))
            return false;
    }
    return true;
}

#endif
