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
 */
#ifndef MQ_IO_SAVED_FORMAT_H
#define MQ_IO_SAVED_FORMAT_H

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
    uint64_t reserved[2]; /* 0 */
} mq_saved_header;

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
    /* k of the arena's scaling by 2^k (build/bvh_internal.h), -126..126, as
     * an int32. Was a reserved 0 before the scaling existed: such files hold
     * an unscaled arena, which k = 0 describes, so they still load; files
     * with k != 0 are rejected by older readers ("reserved BVH field"). */
    int32_t scale_exp;
    float root_box[6];  /* in the mesh's units */
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

static inline uint64_t mq_saved_align(uint64_t x) { return (x + (MQ_SAVED_ALIGN - 1)) & ~(uint64_t)(MQ_SAVED_ALIGN - 1); }

/* ------------------------------------------------------------------------- */
/* Checksum: 4 independent lanes of multiply-xorshift over 8-byte words,     */
/* fed 32 bytes at a time, so it runs at memory speed.                       */
/* ------------------------------------------------------------------------- */

typedef struct mq_saved_hash {
    uint64_t lane[4];
    uint64_t bytes;
} mq_saved_hash;

void mq_saved_hash_init(mq_saved_hash *h);
/* Feeds `n` bytes; n must be a multiple of 32. */
void mq_saved_hash_blocks(mq_saved_hash *h, const void *data, size_t n);
uint64_t mq_saved_hash_final(const mq_saved_hash *h);
/* The checksum of `size` bytes followed by zeros up to the next multiple of 64
 * (a section and its padding). */
uint64_t mq_saved_hash_padded(const void *data, size_t size);
/* For tests and fuzzing: recomputes every section checksum whose section lies
 * inside the block, then the header checksum, so that a deliberately altered
 * file reaches the structural checks. False when the header is unusable. */
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
    int fd;                 /* -1 for a memory source */
    const unsigned char *mem;
    uint64_t mem_size;
    const char *path;       /* for messages; NULL for memory */
    uint64_t pos;           /* bytes consumed so far */
    uint64_t file_size;     /* from the header */
    mq_diag *diag;
    uint32_t file_kind;
    uint32_t count, next;   /* sections in the table, index of the next one to read */
    mq_saved_entry table[MQ_SAVED_MAX_SECTIONS];
} mq_saved_reader;

/* Opens a source and reads and checks the header and the table. `kind` is the
 * file kind the caller expects. On failure the reader is closed. */
mq_status mq_saved_open_file(mq_saved_reader *r, const char *path, uint32_t kind, mq_diag *diag);
mq_status mq_saved_open_memory(mq_saved_reader *r, const void *data, size_t size, uint32_t kind, mq_diag *diag);
void mq_saved_close(mq_saved_reader *r);

/* True when the next section is of kind `kind` (sets *size). */
bool mq_saved_next_is(const mq_saved_reader *r, uint32_t kind, uint64_t *size);
/* Reads the next section, which must be of `kind` and exactly `size` bytes,
 * into dst; checks its padding and checksum. */
mq_status mq_saved_read(mq_saved_reader *r, uint32_t kind, void *dst, uint64_t size);
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
} mq_saved_sys;
extern mq_saved_sys mq_saved_sys_calls;

#endif
