/* Rigid transforms as a matrix, for mesh vs mesh (internal to the OBB tree queries). */
#ifndef MQ_OBBTREE_OBBTREE_RIGID_H
#define MQ_OBBTREE_OBBTREE_RIGID_H

#include <meshquery/obbtree.h>
#include <meshquery/primitives.h>

#include "core/vec3.h"

/* p -> col[0]*p[0] + col[1]*p[1] + col[2]*p[2] + t */
typedef struct mq_rigid_m {
    float col[3][3]; /* images of the world axes (the rotation's columns) */
    float t[3];
} mq_rigid_m;

/* False for a zero or non-finite quaternion or a non-finite translation. */
static inline bool mq_rigid_to_matrix(const mq_rigid *x, mq_rigid_m *out)
{
    const float *q = x->rotation; /* w, x, y, z; summed x, y, z, w as mq_obb_from_quat does */
    float n2 = q[1] * q[1] + q[2] * q[2] + q[3] * q[3] + q[0] * q[0];
    if (!(n2 > 0.0f) || !isfinite(n2) || !mq_v3_is_finite(x->translation))
        return false;
    mq_obb box; /* mq_obb_from_quat normalises q and yields the rotation's columns */
    vec3 zero = {0.0f, 0.0f, 0.0f};
    mq_obb_from_quat(zero, zero, x->rotation, &box);
    for (int j = 0; j < 3; j++)
        mq_v3_copy(out->col[j], box.axes[j]);
    mq_v3_copy(out->t, x->translation);
    return true;
}

/* The one sequence of float operations that maps B's corners (mq_rigid_apply documents it). */
static inline void mq_rigid_m_apply(const mq_rigid_m *m, const float p[3], float out[3])
{
    float r[3]; /* out may alias p */
    for (int k = 0; k < 3; k++)
        r[k] = m->t[k] + m->col[0][k] * p[0] + m->col[1][k] * p[1] + m->col[2][k] * p[2];
    mq_v3_copy(out, r);
}

#endif
