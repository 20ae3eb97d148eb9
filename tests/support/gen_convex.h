/* Shared set-up of the convex tests against meshes: a test mesh with both
 * hierarchies, a triangle's corners in double, random hulls. Failures abort
 * the test (stderr says why). */
#ifndef MQ_GEN_CONVEX_H
#define MQ_GEN_CONVEX_H

#include <stdint.h>

#include <meshquery/meshquery.h>

#include "test_support.h"

typedef struct gen_mesh_trees {
    mq_mesh *mesh;
    mq_bvh *bvh;
    mq_obbtree *tree;
    mq_aabb box; /* the mesh's bounds */
    double D;    /* their diagonal */
    size_t nt;   /* triangles */
} gen_mesh_trees;

/* Loads data/<name> and builds its BVH and OBB tree; free with gen_mesh_trees_free. */
void gen_mesh_trees_load(gen_mesh_trees *m, const char *name);
void gen_mesh_trees_free(gen_mesh_trees *m);

/* Triangle id's corners, xyz each, in double. */
void gen_mesh_corners(const mq_mesh *mesh, uint32_t id, double out[9]);

/* The hull of 4 to 39 points uniform in the ball of `radius` around c. */
mq_convex *gen_random_hull(mq_test_rng *r, const float c[3], double radius);

#endif
