/* The mesh's storage, visible to the library's own layers (io, build, traverse). */
#ifndef MQ_MESH_MESH_INTERNAL_H
#define MQ_MESH_MESH_INTERNAL_H

#include <meshquery/mesh.h>

/*
 * A table of names (OBJ groups, objects or materials). Entry 0 is always the
 * empty name: the state of a file before its first `g` / `o` / `usemtl`.
 * Names live back to back in `chars`, each NUL-terminated; offsets[i] is where
 * name i starts.
 */
typedef struct mq_name_table {
    char *chars;
    size_t chars_size;
    size_t *offsets;
    uint32_t count;
} mq_name_table;

/*
 * A per-face attribute id (group, object or material). When every face has the
 * same id, `ids` is NULL and `uniform` holds it: most files have one material
 * and no groups, and 4 bytes per face for a constant would be waste.
 */
typedef struct mq_face_ids {
    uint32_t *ids;    /* face_count entries, or NULL */
    uint32_t uniform; /* the id of every face when ids is NULL */
} mq_face_ids;

struct mq_mesh {
    mq_allocator alloc; /* copy of the user's hook (zeroed = default) */
    bool has_alloc;
    size_t vertex_count;
    size_t triangle_count;
    float *positions;      /* 3 * vertex_count */
    uint32_t *indices;     /* 3 * triangle_count */
    uint32_t *face_of_tri; /* triangle -> source face; NULL means identity */

    /* Faces: a face is one source polygon (an OBJ `f` statement). */
    size_t face_count;     /* == triangle_count for array meshes */
    uint32_t *face_line32; /* 1-based line of each face, when every line fits in 32 bits */
    uint64_t *face_line64; /* the same for files with more than 4G lines; both NULL: no lines */

    mq_name_table names[3]; /* indexed by mq_name_kind */
    mq_face_ids face_names[3];

    /* Shading attributes, each indexed per triangle corner (3 per triangle);
     * MQ_NO_INDEX marks a corner without one. NULL index arrays: none at all. */
    size_t normal_count;
    float *normals; /* 3 * normal_count, as written in the file (not renormalised) */
    uint32_t *corner_normals;
    size_t texcoord_count;
    float *texcoords; /* 2 * texcoord_count: u, v */
    uint32_t *corner_texcoords;
    float *colors; /* 3 * vertex_count (r, g, b) or NULL */
};

/* mq_mesh_face_index, inline: the hit records read it for every hit. */
static inline uint32_t mq_mesh_face_of(const mq_mesh *m, uint32_t tri)
{
    return m->face_of_tri ? m->face_of_tri[tri] : tri;
}

/* The allocator to pass to mq_alloc/mq_free for memory owned by this mesh. */
static inline const mq_allocator *mq_mesh_allocator(const mq_mesh *m)
{
    return m->has_alloc ? &m->alloc : NULL;
}

/* Allocates an empty mesh (all arrays NULL, counts 0, name tables empty) that
 * remembers `alloc`. Loaders fill its arrays with memory from the same hook and
 * free it with mq_mesh_destroy on failure. NULL when out of memory. */
mq_mesh *mq_mesh_alloc_empty(const mq_allocator *alloc);

/* Builds a name table from `count` names (pointers + lengths); entry 0 must be
 * the empty name. false when out of memory (the table is then left empty). */
bool mq_name_table_init(mq_name_table *t, const mq_allocator *alloc, const char *const *names, const size_t *lengths,
                        uint32_t count);
/* Frees a table built by mq_name_table_init (empty tables are a no-op). */
void mq_name_table_free(mq_name_table *t, const mq_allocator *alloc);

#endif
