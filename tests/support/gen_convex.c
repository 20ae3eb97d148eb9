#include "gen_convex.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen_shapes.h"

void gen_mesh_trees_load(gen_mesh_trees *m, const char *name)
{
    m->mesh = mq_test_load_mesh(name);
    if (mq_bvh_build(m->mesh, NULL, &m->bvh, NULL) != MQ_OK ||
        mq_obbtree_build(m->mesh, NULL, &m->tree, NULL) != MQ_OK) {
        fprintf(stderr, "gen_mesh_trees_load: building the hierarchies of %s failed\n", name);
        abort();
    }
    m->D = gen_bounds(m->mesh, &m->box);
    m->nt = mq_mesh_triangle_count(m->mesh);
}

void gen_mesh_trees_free(gen_mesh_trees *m)
{
    mq_obbtree_destroy(m->tree);
    mq_bvh_destroy(m->bvh);
    mq_mesh_destroy(m->mesh);
}

void gen_mesh_corners(const mq_mesh *mesh, uint32_t id, double out[9])
{
    mq_triangle t;
    mq_mesh_get_triangle(mesh, id, &t);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            out[3 * c + k] = t.v[c][k];
}

mq_convex *gen_random_hull(mq_test_rng *r, const float c[3], double radius)
{
    float p[3 * 40];
    size_t n = 4 + (size_t)(mq_test_rng_unit(r) * 36);
    for (size_t i = 0; i < n; i++) {
        double u[3];
        mq_test_rng_unit_vector(r, u);
        double s = radius * cbrt(mq_test_rng_unit(r));
        for (int k = 0; k < 3; k++)
            p[3 * i + k] = (float)(c[k] + s * u[k]);
    }
    mq_convex *cv = NULL;
    mq_diag d;
    if (mq_convex_create(p, n, NULL, &cv, &d) != MQ_OK) {
        fprintf(stderr, "gen_random_hull: %s\n", d.message);
        abort();
    }
    return cv;
}
