/*
 * The mesh part of a saved hierarchy: its counts (one info section) and one
 * section per array, written from and read straight into the mesh's own
 * arrays; on load every id is checked against its table so that no accessor
 * or query can read outside an array.
 */
#include <string.h>

#include "core/alloc.h"
#include "core/diag.h"
#include "saved/saved_format.h"
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
        return mq_saved_corrupt(r, at,
                                "counts beyond the 32-bit index range: %llu vertices, %llu triangles, "
                                "%llu faces, %llu normals, %llu texture coordinates",
                                (unsigned long long)info->vertex_count, (unsigned long long)info->triangle_count,
                                (unsigned long long)info->face_count, (unsigned long long)info->normal_count,
                                (unsigned long long)info->texcoord_count);
    for (int k = 0; k < 3; k++) {
        uint32_t n = info->name_count[k];
        if (n == 0 && (info->name_chars[k] != 0 || info->name_uniform[k] != 0))
            return mq_saved_corrupt(r, at + offsetof(mq_saved_mesh_info, name_count),
                                    "name table %d: no names, "
                                    "yet %llu characters / uniform id %u",
                                    k, (unsigned long long)info->name_chars[k], info->name_uniform[k]);
        if (n != 0 && (info->name_chars[k] < n || info->name_chars[k] > r->file_size))
            return mq_saved_corrupt(r, at + offsetof(mq_saved_mesh_info, name_chars),
                                    "name table %d: %u names in %llu characters", k, n,
                                    (unsigned long long)info->name_chars[k]);
    }
    return MQ_OK;
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

/* An id array's range check, run on each chunk as it arrives (mq_saved_read_visit). */
typedef struct id_check {
    mq_saved_reader *r;
    uint32_t kind;
    uint32_t limit;
    bool none_ok;
    const char *what;
    size_t done; /* elements checked */
} id_check;

static mq_status check_ids_visit(void *ctx, const void *dst, uint64_t have)
{
    id_check *c = ctx;
    const uint32_t *v = dst;
    size_t n = (size_t)(have / 4), i = c->done + first_bad(v + c->done, n - c->done, c->limit, c->none_ok);
    c->done = n;
    if (i == n)
        return MQ_OK;
    return mq_saved_corrupt(c->r, mq_saved_offset_of(c->r, c->kind) + 4 * (uint64_t)i,
                            "%s %zu is %u, beyond the %u available", c->what, i, v[i], c->limit);
}

/* Reads an array section when present: allocates `bytes` into *dst (or, from a
 * mapped file, points *dst at the section) and reads it.
 * Absent sections leave *dst NULL; `required` ones are an error then. With
 * `ids`, the array's elements are range-checked as they arrive. */
static mq_status read_array(mq_saved_reader *r, uint32_t kind, uint64_t bytes, bool required, const mq_allocator *a,
                            void **dst, id_check *ids)
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
    *dst = mq_saved_array(r, a, kind, (size_t)bytes);
    if (!*dst)
        return mq_diag_set(r->diag, MQ_ERR_OUT_OF_MEMORY, r->path, 0, 0, "out of memory loading %llu bytes",
                           (unsigned long long)bytes);
    if (!ids)
        return mq_saved_read(r, kind, *dst, bytes);
    ids->r = r;
    ids->kind = kind;
    ids->done = 0;
    return mq_saved_read_visit(r, kind, *dst, bytes, check_ids_visit, ids);
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
                                    "name %u of table %d starts at %zu, beyond its %zu characters", i, k, t->offsets[i],
                                    t->chars_size);
    if (t->chars[t->offsets[0]] != '\0')
        return mq_saved_corrupt(r, chars_at + t->offsets[0], "name 0 of table %d is not the empty name", k);
    return MQ_OK;
}

/* What the id checks on the fly leave: the name tables, and the uniform ids and
 * face counts that stand in for absent arrays. */
static mq_status check_mesh(mq_saved_reader *r, const mq_mesh *m)
{
    mq_status st = MQ_OK;
    for (int k = 0; k < 3 && st == MQ_OK; k++) {
        uint32_t names = m->names[k].count ? m->names[k].count : 1;
        if (!m->face_names[k].ids && m->face_names[k].uniform >= names)
            st = mq_saved_corrupt(
                r, mq_saved_offset_of(r, MQ_SEC_MESH_INFO) + offsetof(mq_saved_mesh_info, name_uniform),
                "uniform name id %u of table %d beyond its %u names", m->face_names[k].uniform, k, names);
        if (st == MQ_OK)
            st = check_names(r, &m->names[k], k);
    }
    if (st == MQ_OK && !m->face_of_tri && m->face_count < m->triangle_count)
        st = mq_saved_corrupt(r, mq_saved_offset_of(r, MQ_SEC_MESH_INFO), "%zu faces for %zu triangles, one each",
                              m->face_count, m->triangle_count);
    return st;
}

static bool in_map(const void *p, const void *map, size_t bytes)
{
    return p && (uintptr_t)p >= (uintptr_t)map && (uintptr_t)p - (uintptr_t)map < bytes;
}

void mq_saved_mesh_forget(mq_mesh *m, const void *map, size_t bytes)
{
    if (!m || !map)
        return;
#define FORGET(field)                                                                                                  \
    do {                                                                                                               \
        if (in_map((field), map, bytes))                                                                               \
            (field) = NULL;                                                                                            \
    } while (0)
    FORGET(m->positions);
    FORGET(m->indices);
    FORGET(m->face_of_tri);
    FORGET(m->face_line32);
    FORGET(m->face_line64);
    for (int k = 0; k < 3; k++) {
        FORGET(m->names[k].offsets);
        FORGET(m->names[k].chars);
        FORGET(m->face_names[k].ids);
    }
    FORGET(m->normals);
    FORGET(m->corner_normals);
    FORGET(m->texcoords);
    FORGET(m->corner_texcoords);
    FORGET(m->colors);
#undef FORGET
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
#define READ_CHECKED(kind, bytes, required, field, ids)                                                                \
    do {                                                                                                               \
        if (st == MQ_OK) {                                                                                             \
            void *p_ = NULL;                                                                                           \
            st = read_array(r, (kind), (bytes), (required), a, &p_, (ids));                                            \
            (field) = p_;                                                                                              \
        }                                                                                                              \
    } while (0)
#define READ(kind, bytes, required, field) READ_CHECKED(kind, bytes, required, field, NULL)
    /* Every id array is range-checked as it streams in, against counts known from the info section. */
    id_check vertex_ids = {.limit = (uint32_t)v, .what = "vertex index"};
    id_check face_ids = {.limit = (uint32_t)f, .what = "face of triangle"};
    id_check normal_ids = {.limit = (uint32_t)info->normal_count, .none_ok = true, .what = "normal index"};
    id_check uv_ids = {.limit = (uint32_t)info->texcoord_count, .none_ok = true, .what = "texture coordinate index"};
    id_check name_ids[3];
    for (int k = 0; k < 3; k++)
        name_ids[k] = (id_check){.limit = m->names[k].count ? m->names[k].count : 1, .what = "face name id"};
    READ(MQ_SEC_POSITIONS, v * 12, true, m->positions);
    READ_CHECKED(MQ_SEC_INDICES, t * 12, true, m->indices, &vertex_ids);
    READ_CHECKED(MQ_SEC_FACE_OF_TRI, t * 4, false, m->face_of_tri, &face_ids);
    READ(MQ_SEC_FACE_LINE32, f * 4, false, m->face_line32);
    READ(MQ_SEC_FACE_LINE64, f * 8, false, m->face_line64);
    if (st == MQ_OK && m->face_line32 && m->face_line64)
        st = mq_saved_corrupt(r, mq_saved_offset_of(r, MQ_SEC_FACE_LINE64), "both 32- and 64-bit face lines");
    for (int k = 0; k < 3; k++)
        READ(MQ_SEC_NAME_OFFSETS + (uint32_t)k, (uint64_t)m->names[k].count * 8, true, m->names[k].offsets);
    for (int k = 0; k < 3; k++)
        READ(MQ_SEC_NAME_CHARS + (uint32_t)k, m->names[k].chars_size, true, m->names[k].chars);
    for (int k = 0; k < 3; k++)
        READ_CHECKED(MQ_SEC_FACE_NAME_IDS + (uint32_t)k, f * 4, false, m->face_names[k].ids, &name_ids[k]);
    READ(MQ_SEC_NORMALS, info->normal_count * 12, true, m->normals);
    READ_CHECKED(MQ_SEC_CORNER_NORMALS, t * 12, false, m->corner_normals, &normal_ids);
    READ(MQ_SEC_TEXCOORDS, info->texcoord_count * 8, true, m->texcoords);
    READ_CHECKED(MQ_SEC_CORNER_TEXCOORDS, t * 12, false, m->corner_texcoords, &uv_ids);
    READ(MQ_SEC_COLORS, v * 12, false, m->colors);
#undef READ_CHECKED
#undef READ
    if (st == MQ_OK)
        st = check_mesh(r, m);
    if (st != MQ_OK) {
        mq_saved_mesh_forget(m, r->mapped ? r->mem : NULL, (size_t)r->mem_size);
        mq_mesh_destroy(m);
        return st;
    }
    *out = m;
    return MQ_OK;
#endif
}

void mq_saved_release_map(mq_mesh *owned_mesh, void *map, size_t bytes)
{
    mq_saved_mesh_forget(owned_mesh, map, bytes);
    mq_mesh_destroy(owned_mesh);
    mq_saved_unmap(map, bytes);
}
