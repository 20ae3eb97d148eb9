/**
 * @file
 * meshquery/saved.h — saving a built hierarchy (with its mesh) to a file or a
 * memory block, and loading it back in a fraction of the build time.
 *
 * Synopsis
 *   mq_bvh_save(bvh, "model.mqh", &diag)                       file (temp + rename)
 *   mq_bvh_save_memory(bvh, alloc, &data, &size, &diag)        memory block; free with mq_saved_free
 *   mq_bvh_load("model.mqh", alloc, &bvh, &diag)               a BVH that OWNS its mesh
 *   mq_bvh_load_memory(data, size, alloc, &bvh, &diag)
 *   mq_obbtree_save(), mq_obbtree_save_memory(), mq_obbtree_load(), mq_obbtree_load_memory()
 *   mq_saved_free(data, size, alloc)                           frees a block from *_save_memory
 *
 * What is saved: the hierarchy exactly as built (the BVH's node and leaf arena
 * byte for byte, the OBB tree's nodes, triangle copies and ids) and the whole
 * mesh it references: positions, indices, the face of every triangle, face
 * lines, the group/object/material name tables and per-face ids, normals,
 * texture coordinates and their per-corner indices, colours. A loaded
 * hierarchy therefore answers every query bit for bit as the saved one did,
 * hit records (face, line, names, shading normal, uv) included.
 *
 * Ownership: a loaded hierarchy OWNS its mesh. mq_bvh_mesh() /
 * mq_obbtree_mesh() return it, and mq_bvh_destroy() / mq_obbtree_destroy()
 * free it; the caller must not destroy it. Every block of a loaded object
 * comes from `alloc` (NULL: the default allocator), which the object keeps.
 * mq_bvh_refit works on a loaded BVH as on a built one.
 *
 * Format (version 1; every integer in the saving machine's byte order):
 *   bytes 0..63   header: magic "\x89MQH\r\n\x1a\n", byte-order mark 0x01020304,
 *                 format version, kind (1 = BVH, 2 = OBB tree), section count,
 *                 file size, checksum of header and section table
 *   bytes 64..    section table: per section its kind, offset, size and checksum
 *   then          the sections, each at a 64-byte aligned offset, in table order,
 *                 back to back, zero padding in between: mesh counts, tree
 *                 counts, then one section per array (absent arrays have none)
 * The checksum is a 64-bit hash of 4 independent multiply–xorshift lanes over
 * 8-byte words (memory speed); every byte of the file is covered by the header
 * checksum or by its section's checksum (padding included).
 *
 * Loading checks, before the object is used: magic, byte order, version, the
 * header checksum, the section table (known kinds in increasing order, the
 * exact layout, no overflow), the file size, every section's size against the
 * counts, every section's checksum and zero padding, and then the structure:
 * vertex indices below the vertex count, face, normal, texture-coordinate and
 * name ids in range, name offsets inside their table and NUL-terminated, and
 * for the BVH every child reference and leaf inside the arena, nodes and
 * leaves never overlapping or reached twice, empty child slots with empty
 * boxes, every triangle in exactly one leaf lane, depth within the traversal
 * stack, the stored counts; for the OBB tree a well-formed pre-order tree,
 * leaf ranges inside the triangle copies, mesh ids in range, depth within the
 * stack. So a damaged file is rejected, and even a deliberately forged one
 * (correct checksums over a wrong structure) is rejected or queries safely.
 * Not checked on load (O(n) in floating point, for mq_bvh_validate): that the
 * boxes contain their triangles and that the triangle copies equal the mesh's
 * corners; a forged file may give wrong answers, never a crash.
 *
 * Errors: MQ_ERR_INVALID_ARG (NULL arguments; a file of the other hierarchy
 * kind); MQ_ERR_IO (open/read/write/fsync/rename failed, with the OS's reason
 * and the path in the diag; a file that shrank while being read; saving over
 * something that is not a regular file); MQ_ERR_CORRUPT (not a saved file,
 * truncated, trailing bytes, checksum mismatch, inconsistent structure: the
 * diag says what and at which byte offset); MQ_ERR_UNSUPPORTED (a newer format
 * version, a file saved with the other byte order, or a platform whose size_t
 * is not 64-bit); MQ_ERR_LIMIT (counts beyond the library's limits);
 * MQ_ERR_OUT_OF_MEMORY (nothing leaked). On failure *out is NULL.
 *
 * Saving a file writes `path.tmp-XXXXXX` in the same directory, fsyncs it and
 * renames it over `path`, then fsyncs the directory: a reader never sees a
 * half-written file, and on any failure the temporary file is removed and
 * `path` is left as it was. A symbolic link at `path` is replaced by the file.
 * Saving over an existing non-regular file (a directory, /dev/full, a pipe) is
 * refused with MQ_ERR_IO. Saving to a file allocates nothing.
 *
 * Thread safety: saving reads the hierarchy and its mesh only, so it may run
 * concurrently with queries and other saves (not with mq_bvh_refit or
 * destroy). Loads are independent of each other.
 */
#ifndef MESHQUERY_SAVED_H
#define MESHQUERY_SAVED_H

#include <meshquery/bvh.h>
#include <meshquery/obbtree.h>

/** The version of the format this library writes (and the newest it reads). */
#define MQ_SAVED_FORMAT_VERSION 1

/**
 * Saves `bvh` and its mesh to `path` (atomically: temporary file, fsync, rename).
 * @return MQ_OK; MQ_ERR_INVALID_ARG for a NULL bvh or path; MQ_ERR_IO with the
 *         OS's reason (no temporary file is left behind).
 */
MQ_API mq_status mq_bvh_save(const mq_bvh *bvh, const char *path, mq_diag *diag);

/**
 * Saves `bvh` and its mesh into a new memory block from `alloc` (NULL: the
 * default), 64-byte aligned; the bytes are those mq_bvh_save would write.
 * @param bvh the BVH to save (with its mesh); read only.
 * @param alloc allocator of the block (NULL: the default); pass the same one to mq_saved_free.
 * @param[out] data receives the block (NULL on failure); free it with mq_saved_free.
 * @param[out] size receives its size in bytes (0 on failure).
 * @param diag optional failure detail.
 * @return MQ_OK; MQ_ERR_INVALID_ARG; MQ_ERR_OUT_OF_MEMORY.
 */
MQ_API mq_status mq_bvh_save_memory(const mq_bvh *bvh, const mq_allocator *alloc, void **data, size_t *size,
                                    mq_diag *diag);

/**
 * Loads a BVH saved by mq_bvh_save. The BVH owns the loaded mesh (see above).
 * @param path the saved file.
 * @param alloc allocator for everything the BVH owns (NULL: the default); copied.
 * @param[out] out receives the BVH on MQ_OK, NULL otherwise.
 * @param diag optional failure detail: what is wrong and at which byte offset.
 * @return MQ_OK or an error listed in this header's description.
 */
MQ_API mq_status mq_bvh_load(const char *path, const mq_allocator *alloc, mq_bvh **out, mq_diag *diag);

/** As mq_bvh_load, from `size` bytes at `data` (any alignment; read during the call only). */
MQ_API mq_status mq_bvh_load_memory(const void *data, size_t size, const mq_allocator *alloc, mq_bvh **out,
                                    mq_diag *diag);

/** As mq_bvh_save, for an OBB tree and its mesh. */
MQ_API mq_status mq_obbtree_save(const mq_obbtree *tree, const char *path, mq_diag *diag);
/** As mq_bvh_save_memory, for an OBB tree and its mesh. */
MQ_API mq_status mq_obbtree_save_memory(const mq_obbtree *tree, const mq_allocator *alloc, void **data,
                                        size_t *size, mq_diag *diag);
/** As mq_bvh_load, for an OBB tree saved by mq_obbtree_save; the tree owns the loaded mesh. */
MQ_API mq_status mq_obbtree_load(const char *path, const mq_allocator *alloc, mq_obbtree **out, mq_diag *diag);
/** As mq_bvh_load_memory, for an OBB tree. */
MQ_API mq_status mq_obbtree_load_memory(const void *data, size_t size, const mq_allocator *alloc,
                                        mq_obbtree **out, mq_diag *diag);

/** Frees a block from mq_bvh_save_memory / mq_obbtree_save_memory, with the allocator and size it was made with.
 *  NULL is a no-op. */
MQ_API void mq_saved_free(void *data, size_t size, const mq_allocator *alloc);

#endif /* MESHQUERY_SAVED_H */
