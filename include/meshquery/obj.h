/**
 * @file
 * meshquery/obj.h — loading triangle meshes from Wavefront OBJ text.
 *
 * Synopsis
 *   mq_obj_options  mq_default_obj_options()   allocator, threads, strictness, limits
 *   mq_obj_load()         read a file by path
 *   mq_obj_load_memory()  read OBJ text already in memory
 *   mq_obj_stats          what the file contained (counts of every kind of statement)
 *
 * What is read
 *   v x y z [w]           a position; w is accepted and ignored
 *   v x y z r g b         a position with a colour (mq_mesh_colors)
 *   vt u [v [w]]          a texture coordinate (w ignored, v = 0 when absent)
 *   vn x y z              a normal
 *   f a b c ...           a polygon, corners in any of the forms v, v/vt, v//vn, v/vt/vn,
 *                         mixed freely; indices are 1-based, or negative = relative to
 *                         the last element defined so far (-1 = the latest). Positive
 *                         indices may refer to elements defined later in the file.
 *   g a b ...             the group of the following faces (several names are kept as
 *                         one name, separated by single spaces)
 *   o name, usemtl name   the object and the material of the following faces
 *   l ..., p ...          line and point elements: checked, counted, and kept out of
 *                         the triangle mesh
 *   mtllib, s, and the free-form geometry statements of the OBJ specification
 *   (vp, cstype, deg, curv, surf, parm, trim, hole, ...): accepted, counted, ignored.
 *   Any other statement (an unknown keyword) is an error when mq_obj_options.strict
 *   is set. Otherwise it is skipped and counted in mq_obj_stats.unknown_statements,
 *   unless the text makes no triangle at all: then it is no OBJ file (an STL or PLY
 *   file, prose) and the load fails (see Errors) rather than giving an empty mesh.
 *   # comments, also after the last number of a v/vt/vn/f/l/p statement. A comment
 *   ends at its line's end: a trailing `\` does not continue it.
 *   `\` at the very end of a line joins the next line to it (line continuation).
 *   Line ends LF, CRLF or CR (even mixed), no final newline, a UTF-8 byte order
 *   mark, tabs and runs of spaces anywhere.
 *   Names are trimmed, and each run of blanks (or line continuations) inside a
 *   name becomes one space.
 *
 * Numbers
 *   Every syntax strtod accepts, independent of the C locale: 1, -2.5, .5, +2., 1e-3,
 *   1E+2, hexadecimal 0x1.8p3, and inf / infinity / nan / nan(...) in any case.
 *   Non-finite values (inf, nan, and finite text beyond the float range, such as
 *   1e39) are REJECTED with MQ_ERR_PARSE by default; with allow_non_finite they are
 *   stored as is (triangles touching them are never hit) and counted in
 *   mq_obj_stats.non_finite_values.
 *   Conversion to float is hand-written (no strtod) and within 1 ulp of the
 *   correctly rounded value; it is correctly rounded whenever the digits fit 24
 *   bits and the decimal exponent is within +-10 (nearly every exported
 *   coordinate), and in practice almost always beyond that (tests compare it with
 *   strtof). The one deliberate difference: text that rounds, through double, to
 *   exactly the midpoint between FLT_MAX and 2^128 stays FLT_MAX instead of
 *   overflowing.
 *
 * Triangulation and triangle ids (see mesh.h)
 *   A face with n corners becomes n-2 consecutive triangles. Convex faces use the fan
 *   (v0,v1,v2), (v0,v2,v3), ..., and so do concave faces whose corner v0 sees every
 *   other corner (the fan is right for them too); any other face is cut by ear
 *   clipping in the plane of its Newell normal, keeping the face's winding, and
 *   counted in mq_obj_stats.clipped_faces. Faces that are not simple
 *   polygons (self-intersecting, or all corners on a line) still give n-2
 *   triangles, the best the clipper can do. mq_mesh_face_index, mq_mesh_face_line
 *   and mq_mesh_triangle_source map every triangle back to its face.
 *
 * Errors (status + mq_diag with path, 1-based line and column, and what was expected)
 *   MQ_ERR_IO           missing file, unreadable file, directory, read failure
 *   MQ_ERR_PARSE        malformed number, unknown index form, index 0, index out of
 *                       range, a face with fewer than 3 corners, a statement cut short
 *                       at the end of the file ("truncated?"), binary data (NUL bytes),
 *                       a file with no data at all (0 bytes or only blanks),
 *                       an unknown statement with mq_obj_options.strict ("unknown
 *                       statement 'k' (strict mode)"), and text that has at least one
 *                       unknown statement and makes 0 triangles: the error is at the
 *                       first unknown statement in file order, "unknown statement 'k'
 *                       and no faces: not an OBJ file?". Text of only comments, v/vt/vn,
 *                       l/p or known ignored statements (0 triangles, no unknown
 *                       statement) loads as an empty mesh, and so does text with
 *                       unknown statements beside at least one triangle. Any other
 *                       error in the text is reported instead, wherever it is.
 *   MQ_ERR_UNSUPPORTED  UTF-16 or UTF-32 text (with or without a byte order mark)
 *   MQ_ERR_LIMIT        more than 4294967294 vertices, normals, texture coordinates,
 *                       faces or triangles (32-bit indices), a face with more corners
 *                       than max_face_vertices, a file larger than the address space
 *   MQ_ERR_OUT_OF_MEMORY  nothing is leaked
 *   Files larger than 4 GiB are read correctly (64-bit offsets and line numbers).
 *   The first error in file order is reported (the "not an OBJ file?" error only
 *   when there is no other); no mesh is returned on error.
 *
 * Threads: files of 1 MiB and more are parsed on several threads by default (one
 * per online CPU, at most 16), in line-aligned chunks; the result is identical to a
 * single-threaded load. The loader is reentrant: any number of loads may run at once.
 *
 * Memory: a first pass counts every kind of statement, so the mesh's arrays are
 * allocated once at their final size; peak memory is the text (mapped from the
 * file, or the caller's buffer) plus the mesh plus a few small buffers (faces of
 * more than 3 corners need 8 bytes each until they are triangulated).
 */
#ifndef MESHQUERY_OBJ_H
#define MESHQUERY_OBJ_H

#include <meshquery/mesh.h>

/** Default limit on the corners of one face (mq_obj_options.max_face_vertices). */
#define MQ_OBJ_DEFAULT_MAX_FACE_VERTICES 65536u

/** Options of a load; get defaults from mq_default_obj_options(). A NULL options pointer means the defaults. */
typedef struct mq_obj_options {
    const mq_allocator *allocator; /**< for every allocation of the load and of the mesh; NULL: default */
    uint32_t threads;              /**< 0: automatic (1 below 1 MiB, else one per CPU); N: exactly N (max 64) */
    bool allow_non_finite;         /**< store inf/nan/out-of-range numbers instead of failing */
    bool strict;                   /**< every unknown statement is an error (not only in text making no triangle) */
    uint32_t max_face_vertices;    /**< faces with more corners fail with MQ_ERR_LIMIT; 0: the default */
} mq_obj_options;

/** What a load found. Counts are of statements in the file, whatever was kept.
 *  Filled on success; zeroed on failure. */
typedef struct mq_obj_stats {
    uint64_t bytes;              /**< size of the input */
    uint64_t lines;              /**< physical lines */
    uint64_t vertices;           /**< v */
    uint64_t texcoords;          /**< vt */
    uint64_t normals;            /**< vn */
    uint64_t faces;              /**< f */
    uint64_t triangles;          /**< triangles made from the faces */
    uint64_t clipped_faces;      /**< faces cut by ear clipping because their fan would be wrong */
    uint64_t line_elements;      /**< l statements */
    uint64_t point_elements;     /**< p statements */
    uint64_t colored_vertices;   /**< v statements with a colour */
    uint64_t non_finite_values;  /**< inf/nan/out-of-range numbers stored (allow_non_finite) */
    uint64_t ignored_statements; /**< known statements that carry nothing for the mesh (s, mtllib, vp, ...) */
    uint64_t unknown_statements; /**< statements with an unknown keyword, skipped (the load fails if no triangle) */
    uint64_t first_unknown_line; /**< line of the first unknown statement, 0 if none */
    uint32_t groups;             /**< distinct group names (without the empty one) */
    uint32_t objects;            /**< distinct object names */
    uint32_t materials;          /**< distinct material names */
    uint32_t threads;            /**< threads the parse ran on */
} mq_obj_stats;

/** The default options: default allocator, automatic threads, non-finite numbers rejected, not strict. */
MQ_API mq_obj_options mq_default_obj_options(void);

/**
 * Loads an OBJ file.
 * @param path     the file (opened read-only; memory-mapped when possible, else read
 *                 into a buffer from the allocator)
 * @param options  NULL for the defaults
 * @param[out] out receives the mesh on MQ_OK, NULL otherwise
 * @param[out] stats optional; filled on success, zeroed on failure
 * @param[out] diag  optional; on failure says what, where (path:line:column) and what was expected
 */
MQ_API mq_status mq_obj_load(const char *path, const mq_obj_options *options, mq_mesh **out, mq_obj_stats *stats,
                             mq_diag *diag);

/**
 * Loads OBJ text from memory (`size` bytes at `data`; no terminating NUL needed, and
 * the buffer is never read beyond `size`). `name` is what diagnostics call the
 * input (e.g. the file it came from); NULL gives "<memory>".
 */
MQ_API mq_status mq_obj_load_memory(const void *data, size_t size, const char *name, const mq_obj_options *options,
                                    mq_mesh **out, mq_obj_stats *stats, mq_diag *diag);

#endif /* MESHQUERY_OBJ_H */
