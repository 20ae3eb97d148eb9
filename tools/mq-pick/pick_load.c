#include "pick_load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <meshquery/obj.h>
#include <meshquery/saved.h>

#include "pick_shapes.h"

static const char saved_magic[8] = "\x89MQH\r\n\x1a\n";

/* True when the file starts with the saved-hierarchy magic. */
static bool is_saved(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false; /* the OBJ loader reports why */
    char head[sizeof saved_magic];
    bool saved = fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, saved_magic, sizeof head) == 0;
    fclose(f);
    return saved;
}

/* Mapped (no copy): the tool reads its input files for one run, as its OBJ
 * reader does, and a saved hierarchy opens in the time of its checks. */
static bool load_saved(pick_model *m)
{
    mq_diag diag = {0};
    mq_status st = mq_bvh_load_mapped(m->path, NULL, &m->bvh, &diag);
    if (st == MQ_OK) {
        m->origin = PICK_FROM_SAVED_BVH;
        m->mesh = mq_bvh_mesh(m->bvh);
        return true;
    }
    if (st == MQ_ERR_INVALID_ARG) { /* the other kind of saved hierarchy */
        diag = (mq_diag){0};
        st = mq_obbtree_load_mapped(m->path, NULL, &m->obbtree, &diag);
        if (st == MQ_OK) {
            m->origin = PICK_FROM_SAVED_OBBTREE;
            m->mesh = mq_obbtree_mesh(m->obbtree);
            return true;
        }
    }
    fprintf(stderr, "mq-pick: %s: cannot load the saved hierarchy: %s (%s)\n", m->path,
            diag.message[0] ? diag.message : "unknown error", mq_status_string(st));
    return false;
}

bool pick_model_load(pick_model *m, const char *path)
{
    *m = (pick_model){.path = path};
    if (is_saved(path))
        return load_saved(m);
    mq_diag diag = {0};
    if (mq_obj_load(path, NULL, &m->obj_mesh, NULL, &diag) != MQ_OK) {
        fprintf(stderr, "mq-pick: %s:%llu:%u: %s\n", diag.path[0] ? diag.path : path, (unsigned long long)diag.line,
                diag.column, diag.message);
        return false;
    }
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

void pick_model_free(pick_model *m)
{
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
