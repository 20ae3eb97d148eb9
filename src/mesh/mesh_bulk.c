/* Per-triangle source attributes (face, line, group / object / material ids)
 * for a range of triangles in one call: what mq_mesh_face_index,
 * mq_mesh_face_line and mq_mesh_face_name_id give one triangle at a time, for
 * bindings that want whole arrays (Python's Mesh.faces on millions of triangles). */
#include <string.h>

#include "mesh/mesh_internal.h"

/* How many of [first, first + count) exist: 0 when first is past the end. */
static size_t clip(const mq_mesh *m, size_t first, size_t count)
{
    if (first >= m->triangle_count)
        return 0;
    size_t left = m->triangle_count - first;
    return count < left ? count : left;
}

size_t mq_mesh_copy_triangle_faces(const mq_mesh *m, size_t first, size_t count, uint32_t *out)
{
    if (!m || !out)
        return 0;
    size_t n = clip(m, first, count);
    if (m->face_of_tri) {
        if (n)
            memcpy(out, m->face_of_tri + first, n * sizeof *out);
    } else {
        for (size_t i = 0; i < n; i++)
            out[i] = (uint32_t)(first + i);
    }
    return n;
}

size_t mq_mesh_copy_triangle_lines(const mq_mesh *m, size_t first, size_t count, uint64_t *out)
{
    if (!m || !out)
        return 0;
    size_t n = clip(m, first, count);
    for (size_t i = 0; i < n; i++) {
        size_t tri = first + i;
        uint32_t face = m->face_of_tri ? m->face_of_tri[tri] : (uint32_t)tri;
        out[i] = m->face_line32 ? m->face_line32[face] : m->face_line64 ? m->face_line64[face] : 0;
    }
    return n;
}

size_t mq_mesh_copy_triangle_name_ids(const mq_mesh *m, mq_name_kind kind, size_t first, size_t count, uint32_t *out)
{
    if (!m || !out || (unsigned)kind >= 3u)
        return 0;
    size_t n = clip(m, first, count);
    const mq_face_ids *f = &m->face_names[kind];
    if (!f->ids) {
        for (size_t i = 0; i < n; i++)
            out[i] = f->uniform;
        return n;
    }
    for (size_t i = 0; i < n; i++) {
        size_t tri = first + i;
        out[i] = f->ids[m->face_of_tri ? m->face_of_tri[tri] : (uint32_t)tri];
    }
    return n;
}
