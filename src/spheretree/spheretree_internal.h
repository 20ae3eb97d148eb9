/*
 * The sphere tree's storage (spheretree.h): the k-DOP tree's skeleton
 * (kdoptree/bvt.h, the same floor) and one sphere per node, x, y, z, r.
 */
#ifndef MQ_SPHERETREE_SPHERETREE_INTERNAL_H
#define MQ_SPHERETREE_SPHERETREE_INTERNAL_H

#include <meshquery/spheretree.h>

#include "kdoptree/bvt.h"

#define MQ_SPHERETREE_DEF_COOKIE 0x5FE7DEF5u

struct mq_spheretree {
    mq_bvt bvt;
    float *spheres; /* node_count * 4: centre, radius */
};

#endif
