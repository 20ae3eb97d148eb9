/*
 * meshquery/mesh.h — an immutable indexed triangle mesh.
 *
 * Synopsis
 *   mq_mesh_create()          copy plain arrays (positions + triangle indices) into a mesh
 *   mq_mesh_destroy()         free it
 *   mq_mesh_vertex_count(), mq_mesh_triangle_count()
 *   mq_mesh_positions(), mq_mesh_indices()   the flat arrays (owned by the mesh)
 *   mq_mesh_get_triangle()    the three corners of triangle i
 *   mq_mesh_face_index()      the OBJ face (0-based, in order of `f` lines) triangle i came from
 *
 * Meshes loaded from OBJ files (meshquery/obj.h) carry more: face indices, group,
 * object and material names, normals and texture coordinates.
 *
 * Triangle ids: triangles are numbered in input order (for OBJ, the order of the
 * `f` lines, each n-gon contributing n-2 consecutive triangles). Every query
 * reports triangles by this id, never by an internal order.
 *
 * Thread safety: a mesh is immutable after creation; all accessors may be called
 * from any number of threads at once. mq_mesh_destroy must not race with them.
 */
#ifndef MESHQUERY_MESH_H
#define MESHQUERY_MESH_H

#include <meshquery/types.h>

/** Opaque immutable triangle mesh. */
typedef struct mq_mesh mq_mesh;

/**
 * Creates a mesh by copying `vertex_count` positions (xyz floats, packed) and
 * `triangle_count` index triples (uint32, packed). Face index of triangle i is i.
 * @param alloc optional allocator (NULL: default); the mesh keeps a copy of it.
 * @param[out] out receives the mesh on MQ_OK, NULL otherwise.
 * @return MQ_OK; MQ_ERR_INVALID_ARG for NULL arrays with non-zero counts, a NULL
 *         `out`, or an index >= vertex_count (diag names the triangle);
 *         MQ_ERR_LIMIT for counts beyond UINT32_MAX-1; MQ_ERR_OUT_OF_MEMORY.
 * Non-finite coordinates are accepted and stored; triangles touching them are
 * never hit and never overlap anything.
 */
MQ_API mq_status mq_mesh_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                                size_t triangle_count, const mq_allocator *alloc, mq_mesh **out,
                                mq_diag *diag);

/** Frees a mesh and everything it owns. NULL is a no-op. */
MQ_API void mq_mesh_destroy(mq_mesh *mesh);

/** Number of vertices. */
MQ_API size_t mq_mesh_vertex_count(const mq_mesh *mesh);
/** Number of triangles. */
MQ_API size_t mq_mesh_triangle_count(const mq_mesh *mesh);
/** Vertex positions, 3 floats per vertex; owned by the mesh, valid until it is destroyed. */
MQ_API const float *mq_mesh_positions(const mq_mesh *mesh);
/** Triangle corner indices, 3 per triangle; owned by the mesh. */
MQ_API const uint32_t *mq_mesh_indices(const mq_mesh *mesh);
/** Copies the corners of triangle `tri` (< triangle count) into `out`. */
MQ_API void mq_mesh_get_triangle(const mq_mesh *mesh, uint32_t tri, mq_triangle *out);
/** The 0-based source face of triangle `tri` (OBJ `f` line order; `tri` itself for array meshes). */
MQ_API uint32_t mq_mesh_face_index(const mq_mesh *mesh, uint32_t tri);

#endif /* MESHQUERY_MESH_H */
