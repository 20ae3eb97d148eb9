/* Source bookkeeping of a mesh: name tables (groups, objects, materials) and
 * the per-face ids that point into them, and the "where did this triangle come
 * from" answer a hit reporter prints. */
#include <string.h>

#include "core/alloc.h"
#include "mesh/mesh_internal.h"

bool mq_name_table_init(mq_name_table *t, const mq_allocator *alloc, const char *const *names, const size_t *lengths,
                        uint32_t count)
{
    memset(t, 0, sizeof *t);
    size_t chars = 0;
    for (uint32_t i = 0; i < count; i++)
        chars += lengths[i] + 1;
    t->offsets = mq_alloc(alloc, (size_t)count * sizeof *t->offsets, 16);
    t->chars = mq_alloc(alloc, chars, 16);
    if (!t->offsets || !t->chars) {
        mq_free(alloc, t->offsets, (size_t)count * sizeof *t->offsets);
        mq_free(alloc, t->chars, chars);
        memset(t, 0, sizeof *t);
        return false;
    }
    size_t at = 0;
    for (uint32_t i = 0; i < count; i++) {
        t->offsets[i] = at;
        if (lengths[i])
            memcpy(t->chars + at, names[i], lengths[i]);
        t->chars[at + lengths[i]] = '\0';
        at += lengths[i] + 1;
    }
    t->chars_size = chars;
    t->count = count;
    return true;
}

void mq_name_table_free(mq_name_table *t, const mq_allocator *alloc)
{
    mq_free(alloc, t->offsets, (size_t)t->count * sizeof *t->offsets);
    mq_free(alloc, t->chars, t->chars_size);
    memset(t, 0, sizeof *t);
}

static bool valid_kind(mq_name_kind kind)
{
    return (unsigned)kind < 3u;
}

/* An empty table stands for the one implicit entry, the empty name: array
 * meshes and files without names need no allocation for it. */
uint32_t mq_mesh_name_count(const mq_mesh *m, mq_name_kind kind)
{
    if (!valid_kind(kind))
        return 0;
    return m->names[kind].count ? m->names[kind].count : 1;
}

const char *mq_mesh_name(const mq_mesh *m, mq_name_kind kind, uint32_t id)
{
    if (!valid_kind(kind))
        return NULL;
    const mq_name_table *t = &m->names[kind];
    if (t->count == 0)
        return id == 0 ? "" : NULL;
    return id < t->count ? t->chars + t->offsets[id] : NULL;
}

uint32_t mq_mesh_face_name_id(const mq_mesh *m, mq_name_kind kind, uint32_t face)
{
    if (!valid_kind(kind))
        return 0;
    const mq_face_ids *f = &m->face_names[kind];
    return f->ids ? f->ids[face] : f->uniform;
}

void mq_mesh_triangle_source(const mq_mesh *m, uint32_t tri, mq_triangle_source *out)
{
    uint32_t face = mq_mesh_face_index(m, tri);
    out->face = face;
    out->line = mq_mesh_face_line(m, face);
    out->group_id = mq_mesh_face_name_id(m, MQ_NAME_GROUP, face);
    out->object_id = mq_mesh_face_name_id(m, MQ_NAME_OBJECT, face);
    out->material_id = mq_mesh_face_name_id(m, MQ_NAME_MATERIAL, face);
    out->group = mq_mesh_name(m, MQ_NAME_GROUP, out->group_id);
    out->object = mq_mesh_name(m, MQ_NAME_OBJECT, out->object_id);
    out->material = mq_mesh_name(m, MQ_NAME_MATERIAL, out->material_id);
}
