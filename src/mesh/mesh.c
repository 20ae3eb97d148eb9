/* The immutable indexed triangle mesh: creation from arrays, accessors. */
#include <string.h>

#include "core/alloc.h"
#include "core/diag.h"
#include "core/vec3.h"
#include "mesh/mesh_internal.h"

static mq_status validate_arrays(const float *positions, size_t vertex_count, const uint32_t *indices,
                                 size_t triangle_count, mq_diag *diag)
{
    if ((vertex_count && !positions) || (triangle_count && !indices))
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "NULL array with a non-zero count");
    if (vertex_count >= UINT32_MAX || triangle_count >= UINT32_MAX)
        return mq_diag_set(diag, MQ_ERR_LIMIT, NULL, 0, 0, "%zu vertices / %zu triangles exceed the 32-bit index range",
                           vertex_count, triangle_count);
    for (size_t t = 0; t < triangle_count; t++)
        for (int k = 0; k < 3; k++)
            if (indices[3 * t + k] >= vertex_count)
                return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0,
                                   "triangle %zu corner %d: index %u out of range (%zu vertices)", t, k,
                                   indices[3 * t + k], vertex_count);
    return MQ_OK;
}

mq_status mq_mesh_create(const float *positions, size_t vertex_count, const uint32_t *indices, size_t triangle_count,
                         const mq_allocator *alloc, mq_mesh **out, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!out)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "out is NULL");
    *out = NULL;
    mq_status st = validate_arrays(positions, vertex_count, indices, triangle_count, diag);
    if (st != MQ_OK)
        return st;

    mq_mesh *m = mq_mesh_alloc_empty(alloc);
    if (!m)
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory creating a mesh");
    m->vertex_count = vertex_count;
    m->triangle_count = triangle_count;
    m->face_count = triangle_count;
    size_t pos_bytes = vertex_count * 3 * sizeof(float);
    size_t idx_bytes = triangle_count * 3 * sizeof(uint32_t);
    m->positions = mq_alloc(alloc, pos_bytes, 64);
    m->indices = mq_alloc(alloc, idx_bytes, 64);
    if ((pos_bytes && !m->positions) || (idx_bytes && !m->indices)) {
        mq_mesh_destroy(m);
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory creating a mesh");
    }
    if (pos_bytes)
        memcpy(m->positions, positions, pos_bytes);
    if (idx_bytes)
        memcpy(m->indices, indices, idx_bytes);
    *out = m;
    return MQ_OK;
}

mq_mesh *mq_mesh_alloc_empty(const mq_allocator *alloc)
{
    mq_mesh *m = mq_alloc_zero(alloc, sizeof *m, 64);
    if (m && alloc) {
        m->alloc = *alloc;
        m->has_alloc = true;
    }
    return m;
}

/* Frees every array; sizes follow from the counts, which loaders set before
 * they allocate, so a half-built mesh is freed correctly too. */
void mq_mesh_destroy(mq_mesh *m)
{
    if (!m)
        return;
    const mq_allocator *a = mq_mesh_allocator(m);
    mq_allocator copy = m->alloc; /* the struct itself is freed last, through the same hook */
    bool has = m->has_alloc;
    size_t corners = m->triangle_count * 3;
    mq_free(a, m->positions, m->vertex_count * 3 * sizeof(float));
    mq_free(a, m->indices, corners * sizeof(uint32_t));
    mq_free(a, m->face_of_tri, m->triangle_count * sizeof(uint32_t));
    mq_free(a, m->face_line32, m->face_count * sizeof(uint32_t));
    mq_free(a, m->face_line64, m->face_count * sizeof(uint64_t));
    for (int k = 0; k < 3; k++) {
        mq_name_table_free(&m->names[k], a);
        mq_free(a, m->face_names[k].ids, m->face_count * sizeof(uint32_t));
    }
    mq_free(a, m->normals, m->normal_count * 3 * sizeof(float));
    mq_free(a, m->corner_normals, corners * sizeof(uint32_t));
    mq_free(a, m->texcoords, m->texcoord_count * 2 * sizeof(float));
    mq_free(a, m->corner_texcoords, corners * sizeof(uint32_t));
    mq_free(a, m->colors, m->vertex_count * 3 * sizeof(float));
    mq_free(has ? &copy : NULL, m, sizeof *m);
}

size_t mq_mesh_vertex_count(const mq_mesh *m)
{
    return m->vertex_count;
}
size_t mq_mesh_triangle_count(const mq_mesh *m)
{
    return m->triangle_count;
}
const float *mq_mesh_positions(const mq_mesh *m)
{
    return m->positions;
}
const uint32_t *mq_mesh_indices(const mq_mesh *m)
{
    return m->indices;
}

void mq_mesh_get_triangle(const mq_mesh *m, uint32_t tri, mq_triangle *out)
{
    const uint32_t *idx = m->indices + 3 * (size_t)tri;
    for (int k = 0; k < 3; k++)
        mq_v3_copy(out->v[k], m->positions + 3 * (size_t)idx[k]);
}

uint32_t mq_mesh_face_index(const mq_mesh *m, uint32_t tri)
{
    return mq_mesh_face_of(m, tri);
}
size_t mq_mesh_face_count(const mq_mesh *m)
{
    return m->face_count;
}

uint64_t mq_mesh_face_line(const mq_mesh *m, uint32_t face)
{
    if (m->face_line32)
        return m->face_line32[face];
    return m->face_line64 ? m->face_line64[face] : 0;
}
