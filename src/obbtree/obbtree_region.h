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

#include "obbtree/obbtree_internal.h"

/* The world-axes box of the OBB tree's root box (exact in double up to a
 * rounding of its extent, far inside the reduction's margin), its corners
 * taken along the axes' inverse (mq_obb_axes_inverse). False for an empty
 * tree. Degenerate axes (only from a damaged saved file) fall back to the
 * transpose. */
static inline bool mq_obbtree_root_region(const mq_obbtree *t, double lo[3], double hi[3])
{
    mq_obb root;
    if (!mq_obbtree_root(t, &root))
        return false;
    double edge[3][3];
    if (!mq_obb_axes_inverse((const float(*)[3])root.axes, edge))
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++)
                edge[k][i] = root.axes[i][k];
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
