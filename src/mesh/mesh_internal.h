/* The mesh's storage, visible to the library's own layers (io, build, traverse). */
#ifndef MQ_MESH_INTERNAL_H
#define MQ_MESH_INTERNAL_H

#include <meshquery/mesh.h>

struct mq_mesh {
    mq_allocator alloc;      /* copy of the user's hook (zeroed = default) */
    bool has_alloc;
    size_t vertex_count;
    size_t triangle_count;
    float *positions;        /* 3 * vertex_count */
    uint32_t *indices;       /* 3 * triangle_count */
    uint32_t *face_of_tri;   /* triangle -> source face; NULL means identity */
};

/* The allocator to pass to mq_alloc/mq_free for memory owned by this mesh. */
static inline const mq_allocator *mq_mesh_allocator(const mq_mesh *m) { return m->has_alloc ? &m->alloc : NULL; }

#endif
