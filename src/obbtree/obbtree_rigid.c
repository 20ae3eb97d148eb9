/* mq_rigid_apply: the public face of the transform mesh vs mesh applies to tree B. */
#include "obbtree/obbtree_rigid.h"

void mq_rigid_apply(const mq_rigid *xf, const vec3 p, vec3 out)
{
    mq_rigid_m m;
    if (!xf || !mq_rigid_to_matrix(xf, &m)) {
        mq_v3_fill_nan(out);
        return;
    }
    mq_rigid_m_apply(&m, p, out);
}
