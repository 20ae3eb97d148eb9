/*
 * The saved-hierarchy file format (meshquery/saved.h), shared by the writer
 * (saved_write.c), the reader (saved_read.c) and the per-object parts
 * (saved_mesh.c, saved_bvh.c, saved_obbtree.c).
 *
 *   header (64 bytes) | section table (32 bytes per entry, padded to 64) | sections
 *
 * Sections sit at 64-byte aligned offsets, in table order, each directly after
 * the previous one's padding; their kinds increase strictly along the table.
 * Padding bytes are zero. The header checksum covers the header (with its own
 * checksum field zero) and the padded table; each section's checksum covers
 * its bytes and its padding. So every byte of a file is checksummed.
 *
 * Versions: 1 checksums each section (with its padding) as one stream with
 * the 4-lane hash. 2 (written since) cuts each padded section into blocks of
 * 2^block_log2 bytes (a header field, 6..30; 18 by default), checksums each
 * block on its own with the 8-lane hash and combines the block checksums
 * (mq_saved_sechash), so that several threads can copy and checksum a large
 * section at once, each the blocks it copied while they are in its cache.
 * The header checksum is the 4-lane hash in both. Both are read.
 */
#ifndef MQ_SAVED_SAVED_FORMAT_H
#define MQ_SAVED_SAVED_FORMAT_H

#include <sys/types.h>

#include <meshquery/saved.h>

#define MQ_SAVED_ALIGN 64u
#define MQ_SAVED_HEADER_SIZE 64u
#define MQ_SAVED_ENTRY_SIZE 32u
#define MQ_SAVED_MAX_SECTIONS 32u
#define MQ_SAVED_BOM 0x01020304u
#define MQ_SAVED_BOM_SWAPPED 0x04030201u

static const unsigned char mq_saved_magic[8] = {0x89, 'M', 'Q', 'H', '\r', '\n', 0x1a, '\n'};

/* File kinds. */
enum { MQ_SAVED_KIND_BVH = 1, MQ_SAVED_KIND_OBBTREE = 2 };

/* Section kinds, in the order they must appear. */
enum {
    MQ_SEC_MESH_INFO = 1,
    MQ_SEC_BVH_INFO = 2,
    MQ_SEC_OBB_INFO = 3,
    MQ_SEC_POSITIONS = 16,
    MQ_SEC_INDICES = 17,
    MQ_SEC_FACE_OF_TRI = 18,
    MQ_SEC_FACE_LINE32 = 19,
    MQ_SEC_FACE_LINE64 = 20,
    MQ_SEC_NAME_OFFSETS = 21,  /* + mq_name_kind (21..23) */
    MQ_SEC_NAME_CHARS = 24,    /* + mq_name_kind (24..26) */
    MQ_SEC_FACE_NAME_IDS = 27, /* + mq_name_kind (27..29) */
    MQ_SEC_NORMALS = 30,
    MQ_SEC_CORNER_NORMALS = 31,
    MQ_SEC_TEXCOORDS = 32,
    MQ_SEC_CORNER_TEXCOORDS = 33,
    MQ_SEC_COLORS = 34,
    MQ_SEC_BVH_ARENA = 48,
    MQ_SEC_OBB_NODES = 64,
    MQ_SEC_OBB_TRIS = 65,
    MQ_SEC_OBB_IDS = 66
};

typedef struct mq_saved_header {
    unsigned char magic[8];
    uint32_t bom;
    uint32_t version;
    uint32_t kind;
    uint32_t section_count;
    uint64_t file_size;
    uint64_t checksum;
    uint32_t header_size; /* 64 */
    uint32_t entry_size;  /* 32 */
    uint32_t block_log2;  /* version 2: log2 of the section checksum block size, 6..30; version 1: 0 */
    uint32_t reserved32;  /* 0 */
    uint64_t reserved;    /* 0 */
} mq_saved_header;

#define MQ_SAVED_BLOCK_LOG2_MIN 6u
#define MQ_SAVED_BLOCK_LOG2_MAX 30u
#define MQ_SAVED_BLOCK_LOG2_DEFAULT 18u

typedef struct mq_saved_entry {
    uint32_t kind;
    uint32_t reserved; /* 0 */
    uint64_t offset;
    uint64_t size;
    uint64_t checksum;
} mq_saved_entry;

/* MQ_SEC_MESH_INFO: the mesh's counts. */
typedef struct mq_saved_mesh_info {
    uint64_t vertex_count, triangle_count, face_count, normal_count, texcoord_count;
    uint64_t name_chars[3];   /* chars_size of each name table */
    uint32_t name_count[3];   /* 0: the empty table (only the implicit empty name) */
    uint32_t name_uniform[3]; /* mq_face_ids.uniform */
    uint64_t reserved[5];     /* 0 */
} mq_saved_mesh_info;

/* MQ_SEC_BVH_INFO. */
typedef struct mq_saved_bvh_info {
    uint32_t root, node_count, block_count, leaf_count, max_depth;
    /* k of the arena's scaling by 2^k (bvh/bvh_internal.h), -126..126, as
     * an int32. Was a reserved 0 before the scaling existed: such files hold
     * an unscaled arena, which k = 0 describes, so they still load; files
     * with k != 0 are rejected by older readers ("reserved BVH field"). */
    int32_t scale_exp;
    float root_box[6]; /* in the mesh's units */
    double build_ms;
    uint64_t arena_bytes;
} mq_saved_bvh_info;

/* MQ_SEC_OBB_INFO. */
typedef struct mq_saved_obb_info {
    uint32_t fit, leaf_size, depth, node_count, tri_count;
    float magnitude;
    uint64_t reserved[5];
} mq_saved_obb_info;

_Static_assert(sizeof(mq_saved_header) == MQ_SAVED_HEADER_SIZE, "header layout");
_Static_assert(sizeof(mq_saved_entry) == MQ_SAVED_ENTRY_SIZE, "entry layout");
_Static_assert(sizeof(mq_saved_mesh_info) == 128, "mesh info layout");
_Static_assert(sizeof(mq_saved_bvh_info) == 64, "bvh info layout");
_Static_assert(sizeof(mq_saved_obb_info) == 64, "obb info layout");

static inline uint64_t mq_saved_align(uint64_t x)
{
    return (x + (MQ_SAVED_ALIGN - 1)) & ~(uint64_t)(MQ_SAVED_ALIGN - 1);
}

/* ------------------------------------------------------------------------- */
/* Checksums: independent lanes of multiply-xorshift over 8-byte words, 4   */
/* lanes fed 32 bytes at a time (the header, version 1 sections) or 8 lanes  */
/* fed 64 bytes at a time (version 2 section blocks: the multiplies of 8     */
/* lanes overlap better, about 1.4 times the speed).                         */
/* ------------------------------------------------------------------------- */

typedef struct mq_saved_hash {
    uint64_t lane[4];
    uint64_t bytes;
} mq_saved_hash;

void mq_saved_hash_init(mq_saved_hash *h);
/* Feeds `n` bytes; n must be a multiple of 32. */
void mq_saved_hash_blocks(mq_saved_hash *h, const void *data, size_t n);
uint64_t mq_saved_hash_final(const mq_saved_hash *h);

typedef struct mq_saved_hash8 {
    uint64_t lane[8];
    uint64_t bytes;
} mq_saved_hash8;

void mq_saved_hash8_init(mq_saved_hash8 *h);
/* Feeds `n` bytes; n must be a multiple of 64. */
void mq_saved_hash8_blocks(mq_saved_hash8 *h, const void *data, size_t n);
uint64_t mq_saved_hash8_final(const mq_saved_hash8 *h);

/* A version 2 section checksum: the padded section in blocks of block_size
 * bytes, block i's 8-lane hash h_i folded in as mq_saved_block_term(h_i, i)
 * (a bijection of h_i, so a change inside one block always changes the sum),
 * the sum and the block count finalised by mq_saved_sechash_combine. Blocks
 * may be hashed in any order, by any thread. */
uint64_t mq_saved_block_term(uint64_t block_hash, uint64_t index);
uint64_t mq_saved_sechash_combine(uint64_t sum, uint64_t blocks);

/* The same, fed in order: bytes in multiples of 64, blocks closed as they fill. */
typedef struct mq_saved_sechash {
    mq_saved_hash8 block;
    uint64_t block_size, in_block, index, sum;
} mq_saved_sechash;

void mq_saved_sechash_init(mq_saved_sechash *s, uint64_t block_size);
void mq_saved_sechash_feed(mq_saved_sechash *s, const void *data, size_t n);
/* Closes the open block (if any) and returns the section checksum. */
uint64_t mq_saved_sechash_final(mq_saved_sechash *s);

/* The checksum, in format `version` (block size 2^block_log2 for version 2),
 * of `size` bytes followed by zeros up to the next multiple of 64 (a section
 * and its padding). */
uint64_t mq_saved_section_checksum(uint32_t version, uint32_t block_log2, const void *data, size_t size);
/* For tests and fuzzing: recomputes every section checksum whose section lies
 * inside the block (in the format of the header's version and block size),
 * then the header checksum, so that a deliberately altered file reaches the
 * structural checks. False when the header is unusable. */
bool mq_saved_fix_checksums(void *data, size_t size);

/* ------------------------------------------------------------------------- */
/* Writing: an object describes itself as a list of sections.               */
/* ------------------------------------------------------------------------- */

typedef struct mq_saved_out {
    uint32_t kind;
    const void *data;
    uint64_t size;
} mq_saved_out;

typedef struct mq_saved_plan {
    uint32_t file_kind;
    uint32_t count;
    mq_saved_out sec[MQ_SAVED_MAX_SECTIONS];
    /* Storage for the info sections the plan points at. */
    mq_saved_mesh_info mesh_info;
    mq_saved_bvh_info bvh_info;
    mq_saved_obb_info obb_info;
} mq_saved_plan;

/* Appends a section when size > 0 (empty arrays are absent). */
void mq_saved_plan_add(mq_saved_plan *p, uint32_t kind, const void *data, uint64_t size);
/* Adds the mesh info section (first), and the mesh arrays (after the tree's info, before its arrays). */
void mq_saved_plan_mesh_info(mq_saved_plan *p, const mq_mesh *m);
void mq_saved_plan_mesh_arrays(mq_saved_plan *p, const mq_mesh *m);

mq_status mq_saved_write_memory(const mq_saved_plan *p, const mq_allocator *alloc, void **data, size_t *size,
                                mq_diag *diag);
mq_status mq_saved_write_file(const mq_saved_plan *p, const char *path, mq_diag *diag);

/* ------------------------------------------------------------------------- */
/* Reading: header and table first, then the sections strictly in order.    */
/* ------------------------------------------------------------------------- */

typedef struct mq_saved_reader {
    int fd; /* -1 for a memory source (a mapped file included) */
    const unsigned char *mem;
    bool mapped; /* mem is a private mapping of the file: arrays stay in it (mq_saved_array) */
    void *map;   /* the mapping while the reader owns it (until mq_saved_take_map); else NULL */
    size_t map_bytes;
    uint64_t mem_size;
    const char *path;    /* for messages; NULL for memory */
    uint64_t pos;        /* bytes consumed so far */
    uint64_t file_size;  /* from the header */
    uint32_t version;    /* from the header: 1 or 2 */
    uint32_t block_log2; /* version 2: section checksum blocks of 2^block_log2 bytes */
    mq_diag *diag;
    uint32_t file_kind;
    uint32_t count, next; /* sections in the table, index of the next one to read */
    mq_saved_entry table[MQ_SAVED_MAX_SECTIONS];
} mq_saved_reader;

/* Opens a source and reads and checks the header and the table. `kind` is the
 * file kind the caller expects. On failure the reader is closed. */
mq_status mq_saved_open_file(mq_saved_reader *r, const char *path, uint32_t kind, mq_diag *diag);
mq_status mq_saved_open_memory(mq_saved_reader *r, const void *data, size_t size, uint32_t kind, mq_diag *diag);
void mq_saved_close(mq_saved_reader *r);
/* As mq_saved_open_file, mapping a regular file privately (copy-on-write) and
 * reading it in place; other files, and platforms without mmap, are read as
 * by mq_saved_open_file (r->mapped is false then). mq_saved_close unmaps it
 * unless an object took the mapping over (mq_saved_take_map). */
mq_status mq_saved_open_mapped(mq_saved_reader *r, const char *path, uint32_t kind, mq_diag *diag);
/* What a load (saved.h) reads: a file, copied or mapped, or a caller's buffer. */
typedef enum mq_saved_from { MQ_SAVED_FROM_FILE, MQ_SAVED_FROM_MAPPED, MQ_SAVED_FROM_MEMORY } mq_saved_from;
typedef struct mq_saved_input {
    mq_saved_from from;
    const char *path; /* the file's (FILE, MAPPED) */
    const void *data; /* the buffer (MEMORY) */
    size_t size;
} mq_saved_input;
/* The start of every load: the diagnostic cleared, the caller's out pointer
 * (have_out) and the path checked (MQ_ERR_INVALID_ARG), then the reader opened
 * on the input as the mq_saved_open_* above. */
mq_status mq_saved_open_input(mq_saved_reader *r, const mq_saved_input *in, uint32_t kind, bool have_out,
                              mq_diag *diag);
/* Hands the mapping (if the reader owns one) to the caller, who unmaps it with
 * mq_saved_unmap; the reader keeps reading from it. */
void mq_saved_take_map(mq_saved_reader *r, void **map, size_t *bytes);
void mq_saved_unmap(void *map, size_t bytes);
/* Sets to NULL every array of `m` inside [map, map + bytes), so that
 * mq_mesh_destroy frees only what was allocated (no-op without a mapping). */
void mq_saved_mesh_forget(mq_mesh *m, const void *map, size_t bytes);
/* A mapped hierarchy's release hook: forgets the owned mesh's arrays inside
 * the mapping, destroys the mesh, then unmaps. */
void mq_saved_release_map(mq_mesh *owned_mesh, void *map, size_t bytes);

/* True when the next section is of kind `kind` (sets *size). */
bool mq_saved_next_is(const mq_saved_reader *r, uint32_t kind, uint64_t *size);
/* Reads the next section, which must be of `kind` and exactly `size` bytes,
 * into dst; checks its padding and checksum. */
mq_status mq_saved_read(mq_saved_reader *r, uint32_t kind, void *dst, uint64_t size);
/* As mq_saved_read, calling visit(ctx, dst, have) after each chunk of the
 * section arrived and was hashed, with `have` bytes of it now in dst (the last
 * call has have == size), so that structural checks run on data still in
 * cache. The first failure a visitor returns stops the calls; the section is
 * still read to its end and its padding and checksum checked first (a damaged
 * file reports the damage), then that failure is returned. */
typedef mq_status (*mq_saved_visit)(void *ctx, const void *dst, uint64_t have);
mq_status mq_saved_read_visit(mq_saved_reader *r, uint32_t kind, void *dst, uint64_t size, mq_saved_visit visit,
                              void *ctx);
/* mq_alloc(a, bytes, MQ_CACHE_LINE) for a section's array. */
void *mq_saved_alloc(const mq_allocator *a, size_t bytes);
/* The array that keeps section `kind` (in the table, `bytes` long, checked by
 * the caller): its place in the mapping for a mapped file (reading it then
 * copies nothing), else mq_saved_alloc(a, bytes). */
void *mq_saved_array(const mq_saved_reader *r, const mq_allocator *a, uint32_t kind, size_t bytes);
/* MQ_OK when every section was read. */
mq_status mq_saved_finish(mq_saved_reader *r);
/* Fills the diag with MQ_ERR_CORRUPT: "<source>: byte <offset>: <message>". */
mq_status mq_saved_corrupt(const mq_saved_reader *r, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The byte offset of section `kind` (for messages; 0 when absent). */
uint64_t mq_saved_offset_of(const mq_saved_reader *r, uint32_t kind);
/* MQ_OK when section `kind` is in the table with exactly `size` bytes (checked
 * before allocating its array, so forged counts never cause huge allocations). */
mq_status mq_saved_expect(const mq_saved_reader *r, uint32_t kind, uint64_t size);

/* Mesh loading (saved_mesh.c): reads the mesh info section, then (after the
 * caller read its tree info) the mesh arrays, and checks them. */
mq_status mq_saved_read_mesh_info(mq_saved_reader *r, mq_saved_mesh_info *info);
mq_status mq_saved_read_mesh(mq_saved_reader *r, const mq_saved_mesh_info *info, const mq_allocator *alloc,
                             mq_mesh **out);

/* The system calls behind file saving and loading. Tests replace them to
 * inject faults (short reads, read errors, a full disk); not to be changed
 * while a save or load runs. */
typedef struct mq_saved_sys {
    ssize_t (*read)(int fd, void *buf, size_t n);
    ssize_t (*write)(int fd, const void *buf, size_t n);
    int (*fsync)(int fd);
    ssize_t (*pread)(int fd, void *buf, size_t n, off_t offset); /* the parallel reads of large sections */
} mq_saved_sys;
extern mq_saved_sys mq_saved_sys_calls;

/* How sections are read and written. A version 2 section of at least
 * `parallel_min` bytes from a memory block or a regular file is copied and
 * checksummed by `threads` threads (0: one per core), each taking whole
 * checksum blocks, `chunk` bytes' worth at a time (at least one block), while
 * the calling thread also runs the section's structural checks in order;
 * smaller sections, version 1 files and streams are read by the calling
 * thread alone, `chunk` bytes at a time. Files are written with checksum
 * blocks of 2^block_log2 bytes. Tests shrink these to run small files through
 * every path; not to be changed while a load or save runs. */
typedef struct mq_saved_tuning {
    size_t chunk;          /* rounded down to a multiple of 64; default 256 KiB */
    uint64_t parallel_min; /* default 4 MiB */
    uint32_t threads;      /* default 0 */
    uint32_t block_log2;   /* default MQ_SAVED_BLOCK_LOG2_DEFAULT */
} mq_saved_tuning;
extern mq_saved_tuning mq_saved_tune;

#endif
