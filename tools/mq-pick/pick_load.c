#include "pick_load.h"

#include <stdio.h>
#include <string.h>

#include "meshload.h"
#include "pick_shapes.h"

bool pick_model_load(pick_model *m, const char *path, bool strict)
{
    *m = (pick_model){.path = path};
    if (mqt_is_saved_hierarchy(path)) {
        /* mapped (no copy): the tool reads its input files for one run, as its OBJ reader does */
        if (!mqt_load_saved("mq-pick", path, &m->bvh, &m->obbtree))
            return false;
        m->origin = m->bvh ? PICK_FROM_SAVED_BVH : PICK_FROM_SAVED_OBBTREE;
        m->mesh = m->bvh ? mq_bvh_mesh(m->bvh) : mq_obbtree_mesh(m->obbtree);
        return true;
    }
    if (!mqt_load_obj("mq-pick", path, strict, &m->obj_mesh))
        return false;
    m->mesh = m->obj_mesh;
    return true;
}

bool pick_model_bvh(pick_model *m, uint32_t threads)
{
    if (m->bvh)
        return true;
    mq_bvh_def def = mq_default_bvh_def();
    def.threads = threads;
    mq_diag diag = {0};
    mq_status st = mq_bvh_build(m->mesh, &def, &m->bvh, &diag);
    if (st != MQ_OK)
        fprintf(stderr, "mq-pick: %s: building the BVH failed: %s (%s)\n", m->path, diag.message, mq_status_string(st));
    return st == MQ_OK;
}

bool pick_model_obbtree(pick_model *m, const char *hierarchy)
{
    if (!m->obbtree)
        m->obbtree = pick_build_tree(m->mesh, hierarchy);
    return m->obbtree != NULL;
}

bool pick_model_tree(pick_model *m, const char *hierarchy)
{
    mq_diag diag = {0};
    mq_status st = MQ_OK;
    if (!strcmp(hierarchy, "kdop") && !m->kdop)
        st = mq_kdoptree_build(m->mesh, NULL, &m->kdop, &diag);
    else if (!strcmp(hierarchy, "sphere") && !m->sphere)
        st = mq_spheretree_build(m->mesh, NULL, &m->sphere, &diag);
    else if (strcmp(hierarchy, "kdop") && strcmp(hierarchy, "sphere"))
        return pick_model_obbtree(m, hierarchy);
    if (st != MQ_OK)
        fprintf(stderr, "mq-pick: %s: building the %s tree failed: %s (%s)\n", m->path, hierarchy, diag.message,
                mq_status_string(st));
    return st == MQ_OK;
}

void pick_model_free(pick_model *m)
{
    mq_kdoptree_destroy(m->kdop);
    mq_spheretree_destroy(m->sphere);
    if (m->origin == PICK_FROM_SAVED_OBBTREE) {
        mq_bvh_destroy(m->bvh);
        mq_obbtree_destroy(m->obbtree);
    } else {
        mq_obbtree_destroy(m->obbtree);
        mq_bvh_destroy(m->bvh);
    }
    mq_mesh_destroy(m->obj_mesh);
    *m = (pick_model){0};
}
