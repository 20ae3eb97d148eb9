/**
 * @file
 * meshquery/mesh.h — an immutable indexed triangle mesh.
 *
 * Synopsis
 *   mq_mesh_create()          copy plain arrays (positions + triangle indices) into a mesh
 *   mq_mesh_destroy()         free it
 *   mq_mesh_vertex_count(), mq_mesh_triangle_count()
 *   mq_mesh_positions(), mq_mesh_indices()   the flat arrays (owned by the mesh)
 *   mq_mesh_get_triangle()    the three corners of triangle i
 *   mq_mesh_face_index()      the OBJ face (0-based, in order of `f` lines) triangle i came from
 *   mq_mesh_face_count()      number of source faces (polygons)
 *   mq_mesh_face_line()       the 1-based OBJ line of a face's `f` statement
 *   mq_mesh_triangle_source() everything a hit reporter needs about triangle i, in the
 *                             file's own terms: face, line, group, object, material
 *   mq_mesh_name_count(), mq_mesh_name(), mq_mesh_face_name_id()   group/object/material tables
 *   mq_mesh_copy_triangle_faces(), mq_mesh_copy_triangle_lines(), mq_mesh_copy_triangle_name_ids()
 *                             the same per triangle, for a range of triangles in one call
 *   mq_mesh_normals(), mq_mesh_corner_normals(), mq_mesh_normal_count()
 *   mq_mesh_texcoords(), mq_mesh_corner_texcoords(), mq_mesh_texcoord_count()
 *   mq_mesh_colors()          per-vertex colours (OBJ `v x y z r g b`), or NULL
 *   mq_mesh_triangle_normal() geometric unit normal of triangle i
 *   mq_mesh_shading_normal()  interpolated vertex normal at barycentrics (u, v)
 *   mq_mesh_texcoord_at()     interpolated texture coordinate at barycentrics (u, v)
 *
 * Meshes loaded from OBJ files (meshquery/obj.h) carry more than positions and
 * triangles: the face each triangle came from and that face's line, group,
 * object and material names, normals and texture coordinates. Meshes built from
 * plain arrays have one face per triangle, no lines (0), only the empty name and
 * no normals or texture coordinates.
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

/** Marks a triangle corner without a normal / texture coordinate in the corner index arrays. */
#define MQ_NO_INDEX UINT32_MAX

/** The three kinds of names a face carries (OBJ `g`, `o` and `usemtl`). */
typedef enum mq_name_kind {
    MQ_NAME_GROUP = 0,   /**< `g name...`: several names on one line are kept as one, space-separated */
    MQ_NAME_OBJECT = 1,  /**< `o name` */
    MQ_NAME_MATERIAL = 2 /**< `usemtl name` */
} mq_name_kind;

/** Where a triangle came from, in the source file's own terms (see mq_mesh_triangle_source). */
typedef struct mq_triangle_source {
    uint32_t face;        /**< 0-based source face (order of `f` lines); the triangle id for array meshes */
    uint64_t line;        /**< 1-based line of the face's `f` statement; 0 when not loaded from a file */
    uint32_t group_id;    /**< index into the group table (0 = no group) */
    uint32_t object_id;   /**< index into the object table (0 = no object) */
    uint32_t material_id; /**< index into the material table (0 = no material) */
    const char *group;    /**< the group name, "" when none; owned by the mesh */
    const char *object;   /**< the object name, "" when none */
    const char *material; /**< the material name, "" when none */
} mq_triangle_source;

/**
 * Creates a mesh by copying `vertex_count` positions (xyz floats, packed) and
 * `triangle_count` index triples (uint32, packed). Face index of triangle i is i.
 * @param positions vertex_count * 3 floats (x, y, z per vertex); copied, read during the call only.
 * @param vertex_count number of vertices.
 * @param indices triangle_count * 3 vertex indices (counter-clockwise corners); copied.
 * @param triangle_count number of triangles.
 * @param alloc optional allocator (NULL: default); the mesh keeps a copy of it.
 * @param[out] out receives the mesh on MQ_OK, NULL otherwise.
 * @param[out] diag optional failure detail (may be NULL).
 * @return MQ_OK; MQ_ERR_INVALID_ARG for NULL arrays with non-zero counts, a NULL
 *         `out`, or an index >= vertex_count (diag names the triangle);
 *         MQ_ERR_LIMIT for counts beyond UINT32_MAX-1; MQ_ERR_OUT_OF_MEMORY.
 * Non-finite coordinates are accepted and stored; triangles touching them are
 * never hit and never overlap anything.
 */
MQ_API mq_status mq_mesh_create(const float *positions, size_t vertex_count, const uint32_t *indices,
                                size_t triangle_count, const mq_allocator *alloc, mq_mesh **out, mq_diag *diag);

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

/** Number of source faces (polygons); each contributes n-2 consecutive triangles. */
MQ_API size_t mq_mesh_face_count(const mq_mesh *mesh);
/** The 1-based line of face `face`'s `f` statement (its first line when continued with `\`); 0 for array meshes. */
MQ_API uint64_t mq_mesh_face_line(const mq_mesh *mesh, uint32_t face);
/** Fills `out` with the face, line, names and name ids of triangle `tri` (< triangle count). */
MQ_API void mq_mesh_triangle_source(const mq_mesh *mesh, uint32_t tri, mq_triangle_source *out);

/**
 * Number of names of a kind, including entry 0, the empty name that faces carry
 * before the file's first `g` / `o` / `usemtl` (so always >= 1).
 */
MQ_API uint32_t mq_mesh_name_count(const mq_mesh *mesh, mq_name_kind kind);
/** Name `id` (< mq_mesh_name_count) of a kind; owned by the mesh. NULL for an id out of range. */
MQ_API const char *mq_mesh_name(const mq_mesh *mesh, mq_name_kind kind, uint32_t id);
/** The name id of a kind that face `face` (< face count) carries. */
MQ_API uint32_t mq_mesh_face_name_id(const mq_mesh *mesh, mq_name_kind kind, uint32_t face);

/**
 * The source face (mq_mesh_face_index) of triangles first .. first + count - 1,
 * in one call: out[i] is the face of triangle first + i.
 * @param mesh the mesh (NULL: nothing written, 0 returned).
 * @param first the first triangle.
 * @param count how many triangles; clipped to the mesh's end.
 * @param[out] out room for `count` entries (NULL: nothing written, 0 returned).
 * @return the number of entries written: min(count, triangle count - first), 0 when first is past the end.
 * Thread safety: reads the immutable mesh only; any number of calls at once. Allocates nothing.
 */
MQ_API size_t mq_mesh_copy_triangle_faces(const mq_mesh *mesh, size_t first, size_t count, uint32_t *out);
/**
 * The 1-based OBJ line of each triangle's face (mq_mesh_face_line of its face;
 * 0 for array meshes) for triangles first .. first + count - 1: out[i] belongs to
 * triangle first + i.
 * @param mesh the mesh (NULL: nothing written, 0 returned).
 * @param first the first triangle.
 * @param count how many triangles; clipped to the mesh's end.
 * @param[out] out room for `count` entries (NULL: nothing written, 0 returned).
 * @return the number of entries written, as mq_mesh_copy_triangle_faces.
 * Thread safety: as mq_mesh_copy_triangle_faces.
 */
MQ_API size_t mq_mesh_copy_triangle_lines(const mq_mesh *mesh, size_t first, size_t count, uint64_t *out);
/**
 * The name id of a kind (mq_mesh_face_name_id of its face) of triangles
 * first .. first + count - 1: out[i] belongs to triangle first + i.
 * @param mesh the mesh (NULL: nothing written, 0 returned).
 * @param kind MQ_NAME_GROUP, MQ_NAME_OBJECT or MQ_NAME_MATERIAL (another value: nothing written, 0 returned).
 * @param first the first triangle.
 * @param count how many triangles; clipped to the mesh's end.
 * @param[out] out room for `count` entries (NULL: nothing written, 0 returned).
 * @return the number of entries written, as mq_mesh_copy_triangle_faces.
 * Thread safety: as mq_mesh_copy_triangle_faces.
 */
MQ_API size_t mq_mesh_copy_triangle_name_ids(const mq_mesh *mesh, mq_name_kind kind, size_t first, size_t count,
                                             uint32_t *out);

/** Number of normals (OBJ `vn`); 0 when the mesh has none. */
MQ_API size_t mq_mesh_normal_count(const mq_mesh *mesh);
/** Normals, 3 floats each, as written in the file (not renormalised); NULL when none. */
MQ_API const float *mq_mesh_normals(const mq_mesh *mesh);
/** Normal index of each triangle corner (3 per triangle, MQ_NO_INDEX where a corner has none); NULL when no face has
 * normals. */
MQ_API const uint32_t *mq_mesh_corner_normals(const mq_mesh *mesh);
/** Number of texture coordinates (OBJ `vt`); 0 when the mesh has none. */
MQ_API size_t mq_mesh_texcoord_count(const mq_mesh *mesh);
/** Texture coordinates, 2 floats (u, v) each; NULL when none. A `vt` with only u has v = 0. */
MQ_API const float *mq_mesh_texcoords(const mq_mesh *mesh);
/** Texture coordinate index of each triangle corner (3 per triangle, MQ_NO_INDEX where none); NULL when no face has
 * them. */
MQ_API const uint32_t *mq_mesh_corner_texcoords(const mq_mesh *mesh);
/** Per-vertex colours (r, g, b per vertex) from `v x y z r g b` lines, or NULL. Vertices without a colour are white. */
MQ_API const float *mq_mesh_colors(const mq_mesh *mesh);

/**
 * The geometric unit normal of triangle `tri`: normalize((v1-v0) x (v2-v0)), so a
 * counter-clockwise triangle faces the viewer. A degenerate triangle gives (0,0,0).
 */
MQ_API void mq_mesh_triangle_normal(const mq_mesh *mesh, uint32_t tri, vec3 out);
/**
 * The shading normal at barycentrics (u, v) of triangle `tri` (point =
 * (1-u-v)*v0 + u*v1 + v*v2): the normalised blend of its corners' normals.
 * Returns true when all three corners have normals; otherwise, or when the blend
 * is zero, writes the geometric normal (mq_mesh_triangle_normal) and returns false.
 */
MQ_API bool mq_mesh_shading_normal(const mq_mesh *mesh, uint32_t tri, float u, float v, vec3 out);
/**
 * The texture coordinate at barycentrics (u, v) of triangle `tri`. Returns true
 * when all three corners have one; otherwise writes (0, 0) and returns false.
 */
MQ_API bool mq_mesh_texcoord_at(const mq_mesh *mesh, uint32_t tri, float u, float v, vec2 out);

#endif /* MESHQUERY_MESH_H */
