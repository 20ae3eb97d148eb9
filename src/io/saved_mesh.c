/*
 * The mesh part of a saved hierarchy: its counts (one info section) and one
 * section per array, written from and read straight into the mesh's own
 * arrays; on load every id is checked against its table so that no accessor
 * or query can read outside an array.
 */
#include <string.h>

#include "core/alloc.h"
#include "core/diag.h"
#include "io/saved_format.h"
#include "mesh/mesh_internal.h"

void mq_saved_plan_mesh_info(mq_saved_plan *p, const mq_mesh *m)
{
    mq_saved_mesh_info *i = &p->mesh_info;
    memset(i, 0, sizeof *i);
    i->vertex_count = m->vertex_count;
    i->triangle_count = m->triangle_count;
    i->face_count = m->face_count;
    i->normal_count = m->normals ? m->normal_count : 0;
    i->texcoord_count = m->texcoords ? m->texcoord_count : 0;
    for (int k = 0; k < 3; k++) {
        i->name_chars[k] = m->names[k].count ? m->names[k].chars_size : 0;
        i->name_count[k] = m->names[k].count;
        i->name_uniform[k] = m->face_names[k].uniform;
    }
    mq_saved_plan_add(p, MQ_SEC_MESH_INFO, i, sizeof *i);
}

void mq_saved_plan_mesh_arrays(mq_saved_plan *p, const mq_mesh *m)
{
    uint64_t v = m->vertex_count, t = m->triangle_count, f = m->face_count;
    mq_saved_plan_add(p, MQ_SEC_POSITIONS, m->positions, m->positions ? v * 3 * sizeof(float) : 0);
    mq_saved_plan_add(p, MQ_SEC_INDICES, m->indices, m->indices ? t * 3 * sizeof(uint32_t) : 0);
    mq_saved_plan_add(p, MQ_SEC_FACE_OF_TRI, m->face_of_tri, m->face_of_tri ? t * sizeof(uint32_t) : 0);
    mq_saved_plan_add(p, MQ_SEC_FACE_LINE32, m->face_line32, m->face_line32 ? f * sizeof(uint32_t) : 0);
    /* The accessor prefers the 32-bit lines; save the 64-bit ones only when they are the ones used. */
    mq_saved_plan_add(p, MQ_SEC_FACE_LINE64, m->face_line64,
                      m->face_line64 && !m->face_line32 ? f * sizeof(uint64_t) : 0);
    for (int k = 0; k < 3; k++)
        if (m->names[k].count)
            mq_saved_plan_add(p, MQ_SEC_NAME_OFFSETS + (uint32_t)k, m->names[k].offsets,
                              (uint64_t)m->names[k].count * sizeof(uint64_t));
    for (int k = 0; k < 3; k++)
        if (m->names[k].count)
            mq_saved_plan_add(p, MQ_SEC_NAME_CHARS + (uint32_t)k, m->names[k].chars, m->names[k].chars_size);
    for (int k = 0; k < 3; k++)
        mq_saved_plan_add(p, MQ_SEC_FACE_NAME_IDS + (uint32_t)k, m->face_names[k].ids,
                          m->face_names[k].ids ? f * sizeof(uint32_t) : 0);
    mq_saved_plan_add(p, MQ_SEC_NORMALS, m->normals, m->normals ? (uint64_t)m->normal_count * 3 * sizeof(float) : 0);
    mq_saved_plan_add(p, MQ_SEC_CORNER_NORMALS, m->corner_normals, m->corner_normals ? t * 3 * sizeof(uint32_t) : 0);
    mq_saved_plan_add(p, MQ_SEC_TEXCOORDS, m->texcoords,
                      m->texcoords ? (uint64_t)m->texcoord_count * 2 * sizeof(float) : 0);
    mq_saved_plan_add(p, MQ_SEC_CORNER_TEXCOORDS, m->corner_texcoords,
                      m->corner_texcoords ? t * 3 * sizeof(uint32_t) : 0);
    mq_saved_plan_add(p, MQ_SEC_COLORS, m->colors, m->colors ? v * 3 * sizeof(float) : 0);
}

/* ------------------------------------------------------------------------- */
/* Loading                                                                   */
/* ------------------------------------------------------------------------- */

mq_status mq_saved_read_mesh_info(mq_saved_reader *r, mq_saved_mesh_info *info)
{
    uint64_t at = r->count ? r->table[0].offset : 0;
    if (!mq_saved_next_is(r, MQ_SEC_MESH_INFO, NULL))
        return mq_saved_corrupt(r, MQ_SAVED_HEADER_SIZE, "the first section is not the mesh counts");
    mq_status st = mq_saved_read(r, MQ_SEC_MESH_INFO, info, sizeof *info);
    if (st != MQ_OK)
        return st;
    for (int i = 0; i < 5; i++)
        if (info->reserved[i])
            return mq_saved_corrupt(r, at + offsetof(mq_saved_mesh_info, reserved), "reserved mesh fields not zero");
    if (info->vertex_count >= UINT32_MAX || info->triangle_count >= UINT32_MAX || info->face_count >= UINT32_MAX ||
        info->normal_count >= UINT32_MAX || info->texcoord_count >= UINT32_MAX)
        return mq_saved_corrupt(r, at, "counts beyond the 32-bit index range: %llu vertices, %llu triangles, "
                                       "%llu faces, %llu normals, %llu texture coordinates",
                                (unsigned long long)info->vertex_count, (unsigned long long)info->triangle_count,
                                (unsigned long long)info->face_count, (unsigned long long)info->normal_count,
                                (unsigned long long)info->texcoord_count);
    for (int k = 0; k < 3; k++) {
        uint32_t n = info->name_count[k];
        if (n == 0 && (info->name_chars[k] != 0 || info->name_uniform[k] != 0))
            return mq_saved_corrupt(r, at + offsetof(mq_saved_mesh_info, name_count), "name table %d: no names, "
                                    "yet %llu characters / uniform id %u", k,
                                    (unsigned long long)info->name_chars[k], info->name_uniform[k]);
        if (n != 0 && (info->name_chars[k] < n || info->name_chars[k] > r->file_size))
            return mq_saved_corrupt(r, at + offsetof(mq_saved_mesh_info, name_chars),
                                    "name table %d: %u names in %llu characters", k, n,
                                    (unsigned long long)info->name_chars[k]);
    }
    return MQ_OK;
}

/* Reads an array section when present: allocates `bytes` into *dst and reads it.
 * Absent sections leave *dst NULL; `required` ones are an error then. */
static mq_status read_array(mq_saved_reader *r, uint32_t kind, uint64_t bytes, bool required, const mq_allocator *a,
                            void **dst)
{
    uint64_t size;
    if (!mq_saved_next_is(r, kind, &size)) {
        if (required && bytes)
            return mq_saved_corrupt(r, MQ_SAVED_HEADER_SIZE + (uint64_t)r->next * MQ_SAVED_ENTRY_SIZE,
                                    "missing section of kind %u (%llu bytes expected)", kind,
                                    (unsigned long long)bytes);
        return MQ_OK;
    }
    if (size != bytes)
        return mq_saved_corrupt(r, MQ_SAVED_HEADER_SIZE + (uint64_t)r->next * MQ_SAVED_ENTRY_SIZE,
                                "section of kind %u has %llu bytes, the counts give %llu", kind,
                                (unsigned long long)size, (unsigned long long)bytes);
    *dst = mq_alloc(a, (size_t)bytes, MQ_CACHE_LINE);
    if (!*dst)
        return mq_diag_set(r->diag, MQ_ERR_OUT_OF_MEMORY, r->path, 0, 0, "out of memory loading %llu bytes",
                           (unsigned long long)bytes);
    return mq_saved_read(r, kind, *dst, bytes);
}

/* Index of the first element >= limit (MQ_NO_INDEX excepted when `none_ok`), or n when none. */
static size_t first_bad(const uint32_t *v, size_t n, uint32_t limit, bool none_ok)
{
    uint32_t bad = 0, excuse = none_ok ? MQ_NO_INDEX : 0;
    for (size_t i = 0; i < n; i++) /* branch-free, vectorised: the common case is "all fine" */
        bad |= (uint32_t)(v[i] >= limit) & (uint32_t)(!none_ok | (v[i] != excuse));
    if (!bad)
        return n;
    for (size_t i = 0; i < n; i++)
        if (v[i] >= limit && !(none_ok && v[i] == MQ_NO_INDEX))
            return i;
    return n;
}

static mq_status check_ids(mq_saved_reader *r, uint32_t kind, const uint32_t *v, size_t n, uint32_t limit,
                           bool none_ok, const char *what)
{
    if (!v)
        return MQ_OK;
    size_t i = first_bad(v, n, limit, none_ok);
    if (i == n)
        return MQ_OK;
    return mq_saved_corrupt(r, mq_saved_offset_of(r, kind) + 4 * (uint64_t)i, "%s %zu is %u, beyond the %u available",
                            what, i, v[i], limit);
}

static mq_status check_names(mq_saved_reader *r, const mq_name_table *t, int k)
{
    if (t->count == 0)
        return MQ_OK;
    uint64_t chars_at = mq_saved_offset_of(r, MQ_SEC_NAME_CHARS + (uint32_t)k);
    if (t->chars[t->chars_size - 1] != '\0')
        return mq_saved_corrupt(r, chars_at + t->chars_size - 1, "name table %d does not end with a NUL", k);
    for (uint32_t i = 0; i < t->count; i++)
        if (t->offsets[i] >= t->chars_size)
            return mq_saved_corrupt(r, mq_saved_offset_of(r, MQ_SEC_NAME_OFFSETS + (uint32_t)k) + 8 * (uint64_t)i,
                                    "name %u of table %d starts at %zu, beyond its %zu characters", i, k,
                                    t->offsets[i], t->chars_size);
    if (t->chars[t->offsets[0]] != '\0')
        return mq_saved_corrupt(r, chars_at + t->offsets[0], "name 0 of table %d is not the empty name", k);
    return MQ_OK;
}

static mq_status check_mesh(mq_saved_reader *r, const mq_mesh *m)
{
    size_t corners = m->triangle_count * 3;
    mq_status st = check_ids(r, MQ_SEC_INDICES, m->indices, corners, (uint32_t)m->vertex_count, false,
                             "vertex index");
    if (st == MQ_OK)
        st = check_ids(r, MQ_SEC_FACE_OF_TRI, m->face_of_tri, m->triangle_count, (uint32_t)m->face_count,
                       false, "face of triangle");
    if (st == MQ_OK)
        st = check_ids(r, MQ_SEC_CORNER_NORMALS, m->corner_normals, corners, (uint32_t)m->normal_count, true,
                       "normal index");
    if (st == MQ_OK)
        st = check_ids(r, MQ_SEC_CORNER_TEXCOORDS, m->corner_texcoords, corners, (uint32_t)m->texcoord_count,
                       true, "texture coordinate index");
    for (int k = 0; k < 3 && st == MQ_OK; k++) {
        uint32_t names = m->names[k].count ? m->names[k].count : 1;
        st = check_ids(r, MQ_SEC_FACE_NAME_IDS + (uint32_t)k, m->face_names[k].ids, m->face_count, names, false,
                       "face name id");
        if (st == MQ_OK && !m->face_names[k].ids && m->face_names[k].uniform >= names)
            st = mq_saved_corrupt(r, mq_saved_offset_of(r, MQ_SEC_MESH_INFO) + offsetof(mq_saved_mesh_info, name_uniform),
                                  "uniform name id %u of table %d beyond its %u names", m->face_names[k].uniform, k,
                                  names);
        if (st == MQ_OK)
            st = check_names(r, &m->names[k], k);
    }
    if (st == MQ_OK && !m->face_of_tri && m->face_count < m->triangle_count)
        st = mq_saved_corrupt(r, mq_saved_offset_of(r, MQ_SEC_MESH_INFO), "%zu faces for %zu triangles, one each",
                              m->face_count, m->triangle_count);
    return st;
}

mq_status mq_saved_read_mesh(mq_saved_reader *r, const mq_saved_mesh_info *info, const mq_allocator *a, mq_mesh **out)
{
    *out = NULL;
#if SIZE_MAX != UINT64_MAX
    return mq_diag_set(r->diag, MQ_ERR_UNSUPPORTED, r->path, 0, 0, "saved files need a 64-bit size_t");
#else
    mq_mesh *m = mq_mesh_alloc_empty(a);
    if (!m)
        return mq_diag_set(r->diag, MQ_ERR_OUT_OF_MEMORY, r->path, 0, 0, "out of memory loading a mesh");
    /* Counts first: mq_mesh_destroy frees every array by the sizes they give. */
    m->vertex_count = (size_t)info->vertex_count;
    m->triangle_count = (size_t)info->triangle_count;
    m->face_count = (size_t)info->face_count;
    m->normal_count = (size_t)info->normal_count;
    m->texcoord_count = (size_t)info->texcoord_count;
    for (int k = 0; k < 3; k++) {
        m->names[k].count = info->name_count[k];
        m->names[k].chars_size = (size_t)info->name_chars[k];
        m->face_names[k].uniform = info->name_uniform[k];
    }
    uint64_t v = info->vertex_count, t = info->triangle_count, f = info->face_count;
    mq_status st = MQ_OK;
    /* The array is stored in the mesh even when its read fails, so mq_mesh_destroy frees it. */
#define READ(kind, bytes, required, field)                                                                             \
    do {                                                                                                               \
        if (st == MQ_OK) {                                                                                             \
            void *p_ = NULL;                                                                                           \
            st = read_array(r, (kind), (bytes), (required), a, &p_);                                                   \
            (field) = p_;                                                                                              \
        }                                                                                                              \
    } while (0)
    READ(MQ_SEC_POSITIONS, v * 12, true, m->positions);
    READ(MQ_SEC_INDICES, t * 12, true, m->indices);
    READ(MQ_SEC_FACE_OF_TRI, t * 4, false, m->face_of_tri);
    READ(MQ_SEC_FACE_LINE32, f * 4, false, m->face_line32);
    READ(MQ_SEC_FACE_LINE64, f * 8, false, m->face_line64);
    if (st == MQ_OK && m->face_line32 && m->face_line64)
        st = mq_saved_corrupt(r, mq_saved_offset_of(r, MQ_SEC_FACE_LINE64), "both 32- and 64-bit face lines");
    for (int k = 0; k < 3; k++)
        READ(MQ_SEC_NAME_OFFSETS + (uint32_t)k, (uint64_t)m->names[k].count * 8, true, m->names[k].offsets);
    for (int k = 0; k < 3; k++)
        READ(MQ_SEC_NAME_CHARS + (uint32_t)k, m->names[k].chars_size, true, m->names[k].chars);
    for (int k = 0; k < 3; k++)
        READ(MQ_SEC_FACE_NAME_IDS + (uint32_t)k, f * 4, false, m->face_names[k].ids);
    READ(MQ_SEC_NORMALS, info->normal_count * 12, true, m->normals);
    READ(MQ_SEC_CORNER_NORMALS, t * 12, false, m->corner_normals);
    READ(MQ_SEC_TEXCOORDS, info->texcoord_count * 8, true, m->texcoords);
    READ(MQ_SEC_CORNER_TEXCOORDS, t * 12, false, m->corner_texcoords);
    READ(MQ_SEC_COLORS, v * 12, false, m->colors);
#undef READ
    if (st == MQ_OK)
        st = check_mesh(r, m);
    if (st != MQ_OK) {
        mq_mesh_destroy(m);
        return st;
    }
    *out = m;
    return MQ_OK;
#endif
}
