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
 * Format (version 2; every integer in the saving machine's byte order):
 *   bytes 0..63   header: magic "\x89MQH\r\n\x1a\n", byte-order mark 0x01020304,
 *                 format version, kind (1 = BVH, 2 = OBB tree), section count,
 *                 file size, checksum of header and section table, log2 of
 *                 the section checksum block size (6..30, 18 when written)
 *   bytes 64..    section table: per section its kind, offset, size and checksum
 *   then          the sections, each at a 64-byte aligned offset, in table order,
 *                 back to back, zero padding in between: mesh counts, tree
 *                 counts, then one section per array (absent arrays have none)
 * The header checksum is a 64-bit hash of 4 independent multiply–xorshift
 * lanes over 8-byte words. A section's checksum combines the checksums of its
 * blocks (256 KiB by default; the last one shorter), each an 8-lane hash of
 * the same kind, so that several threads can checksum one section at once.
 * Every byte of the file is covered by the header checksum or by its
 * section's checksum (padding included), and a change to any one byte always
 * changes it. Version 1 files (written by earlier builds of this library: the
 * same layout, each section checksummed as one 4-lane stream, no block size)
 * still load.
 *
 * Loading checks, before the object is used: magic, byte order, version, the
 * header checksum, the section table (known kinds in increasing order, the
 * exact layout, no overflow), the file size, every section's size against the
 * counts, every section's checksum and zero padding, and then the structure:
 * vertex indices below the vertex count, face, normal, texture-coordinate and
 * name ids in range, name offsets inside their table and NUL-terminated, and
 * for the BVH every child reference and leaf inside the arena, nodes and
 * leaves in the builder's depth-first address order (each one after the end
 * of the one walked before it, so none overlaps another or is reached twice),
 * empty child slots with empty boxes, every triangle in exactly one leaf
 * lane, depth within the traversal stack, the stored counts; for the OBB tree
 * a well-formed pre-order tree, leaf ranges inside the triangle copies, mesh
 * ids in range, depth within the stack. So a damaged file is rejected, and
 * even a deliberately forged one (correct checksums over a wrong structure) is
 * rejected or queries safely. A checksum mismatch is reported before any
 * structural fault found in the same section.
 *
 * How loading reads: each section goes straight into the array that keeps
 * it, in chunks that are checksummed and structurally checked while they are
 * still in cache, so every byte is read from memory once after it is copied.
 * Sections of 4 MiB and more from a memory block or a regular file (version 2)
 * are copied and checksummed block by block on the library's thread pool (one
 * thread per core, as builds use; the calling thread takes part) while the
 * calling thread also runs their structural checks in order; pipes, other
 * streams and version 1 files are read by the calling thread alone. The
 * arrays are ordinary allocations (aligned to a 64-byte cache line) from
 * `alloc`; the library gives the operating system no paging hints for them.
 *
 * Mapped loading (mq_bvh_load_mapped, mq_obbtree_load_mapped; opt-in): the
 * file is mapped privately (copy-on-write) and, after the same checksums and
 * checks, the large arrays (the BVH arena, the OBB tree's nodes, triangle
 * copies and ids, the mesh's arrays) are used where they lie in the mapping:
 * nothing is copied and no fresh memory is filled, so a cold load costs about
 * the checks alone. The object unmaps the file when destroyed; mq_bvh_refit's
 * writes go to private copies of the pages they touch, never to the file.
 * Only the object structs come from `alloc` (and, for the BVH, a temporary
 * bitmap of the checks). The caveat: the file must not be truncated or
 * rewritten in place while the object lives. A file cut short under the
 * mapping makes later queries fault (SIGBUS), and bytes rewritten in place
 * may show through pages not yet copied, bypassing the checks made on load.
 * Files written by mq_bvh_save and mq_obbtree_save are safe (a save writes a
 * new file and renames it over the old one, which stays intact for as long as
 * it is mapped), and so are files nobody writes to; for files that other
 * programs may modify, use mq_bvh_load (which is why it is the default). On
 * platforms without mmap, and for files that are not regular files (pipes,
 * devices), the mapped functions read and copy as mq_bvh_load does.
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
 * destroy). Loads are independent of each other (and may run on any thread,
 * pool threads included); mq_*_load_memory reads `data` from several threads
 * during the call.
 */
#ifndef MESHQUERY_SAVED_H
#define MESHQUERY_SAVED_H

#include <meshquery/bvh.h>
#include <meshquery/obbtree.h>

/** The version of the format this library writes (and the newest it reads; it reads every older one too). */
#define MQ_SAVED_FORMAT_VERSION 2

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

/**
 * As mq_bvh_load, but the file is mapped and the BVH's and its mesh's large
 * arrays stay in the mapping (see "Mapped loading" above: faster cold loads,
 * but the file must not be truncated or modified in place while the BVH
 * lives). mq_bvh_destroy unmaps it.
 */
MQ_API mq_status mq_bvh_load_mapped(const char *path, const mq_allocator *alloc, mq_bvh **out, mq_diag *diag);

/** As mq_bvh_load, from `size` bytes at `data` (any alignment; read during the call only). */
MQ_API mq_status mq_bvh_load_memory(const void *data, size_t size, const mq_allocator *alloc, mq_bvh **out,
                                    mq_diag *diag);

/** As mq_bvh_save, for an OBB tree and its mesh. */
MQ_API mq_status mq_obbtree_save(const mq_obbtree *tree, const char *path, mq_diag *diag);
/** As mq_bvh_save_memory, for an OBB tree and its mesh. */
MQ_API mq_status mq_obbtree_save_memory(const mq_obbtree *tree, const mq_allocator *alloc, void **data, size_t *size,
                                        mq_diag *diag);
/** As mq_bvh_load, for an OBB tree saved by mq_obbtree_save; the tree owns the loaded mesh. */
MQ_API mq_status mq_obbtree_load(const char *path, const mq_allocator *alloc, mq_obbtree **out, mq_diag *diag);
/** As mq_bvh_load_mapped, for an OBB tree; mq_obbtree_destroy unmaps the file. */
MQ_API mq_status mq_obbtree_load_mapped(const char *path, const mq_allocator *alloc, mq_obbtree **out, mq_diag *diag);
/** As mq_bvh_load_memory, for an OBB tree. */
MQ_API mq_status mq_obbtree_load_memory(const void *data, size_t size, const mq_allocator *alloc, mq_obbtree **out,
                                        mq_diag *diag);

/** Frees a block from mq_bvh_save_memory / mq_obbtree_save_memory, with the allocator and size it was made with.
 *  NULL is a no-op. */
MQ_API void mq_saved_free(void *data, size_t size, const mq_allocator *alloc);

#endif /* MESHQUERY_SAVED_H */
