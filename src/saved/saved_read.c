/*
 * Reading a saved hierarchy: the header and section table are read and
 * checked first (magic, byte order, version, header checksum, exact layout,
 * size against the real file or block), then the sections are streamed in
 * order straight into the arrays that keep them, each checksummed chunk by
 * chunk while it is still in cache, its padding checked to be zero; a
 * section's structural checks can run on each chunk too (mq_saved_read_visit),
 * so the data is read from memory once.
 */
#define _DEFAULT_SOURCE 1 /* MAP_POPULATE */
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#if defined(MAP_FAILED)
#define MQ_SAVED_CAN_MAP 1
#endif
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/diag.h"
#include "core/pool.h"
#include "saved/saved_format.h"

mq_saved_tuning mq_saved_tune = {(size_t)1 << 18, (uint64_t)4 << 20, 0, MQ_SAVED_BLOCK_LOG2_DEFAULT};

/* Sections are read (and checksummed) in chunks of this many bytes (a multiple of 64). */
static size_t chunk_size(void)
{
    size_t c = mq_saved_tune.chunk & ~(size_t)63;
    return c ? c : 64;
}

static const char *kind_name(uint32_t kind)
{
    switch (kind) {
    case MQ_SEC_MESH_INFO:
        return "mesh counts";
    case MQ_SEC_BVH_INFO:
        return "BVH counts";
    case MQ_SEC_OBB_INFO:
        return "OBB tree counts";
    case MQ_SEC_POSITIONS:
        return "positions";
    case MQ_SEC_INDICES:
        return "indices";
    case MQ_SEC_FACE_OF_TRI:
        return "face of each triangle";
    case MQ_SEC_FACE_LINE32:
        return "face lines";
    case MQ_SEC_FACE_LINE64:
        return "face lines (64-bit)";
    case MQ_SEC_NAME_OFFSETS:
        return "group name offsets";
    case MQ_SEC_NAME_OFFSETS + 1:
        return "object name offsets";
    case MQ_SEC_NAME_OFFSETS + 2:
        return "material name offsets";
    case MQ_SEC_NAME_CHARS:
        return "group names";
    case MQ_SEC_NAME_CHARS + 1:
        return "object names";
    case MQ_SEC_NAME_CHARS + 2:
        return "material names";
    case MQ_SEC_FACE_NAME_IDS:
        return "face group ids";
    case MQ_SEC_FACE_NAME_IDS + 1:
        return "face object ids";
    case MQ_SEC_FACE_NAME_IDS + 2:
        return "face material ids";
    case MQ_SEC_NORMALS:
        return "normals";
    case MQ_SEC_CORNER_NORMALS:
        return "corner normal indices";
    case MQ_SEC_TEXCOORDS:
        return "texture coordinates";
    case MQ_SEC_CORNER_TEXCOORDS:
        return "corner texture coordinate indices";
    case MQ_SEC_COLORS:
        return "colours";
    case MQ_SEC_BVH_ARENA:
        return "BVH nodes and leaves";
    case MQ_SEC_OBB_NODES:
        return "OBB tree nodes";
    case MQ_SEC_OBB_TRIS:
        return "OBB tree triangles";
    case MQ_SEC_OBB_IDS:
        return "OBB tree triangle ids";
    default:
        return NULL;
    }
}

static bool kind_allowed(uint32_t file_kind, uint32_t kind)
{
    if (!kind_name(kind))
        return false;
    if (kind == MQ_SEC_BVH_INFO || kind == MQ_SEC_BVH_ARENA)
        return file_kind == MQ_SAVED_KIND_BVH;
    if (kind == MQ_SEC_OBB_INFO || kind >= MQ_SEC_OBB_NODES)
        return file_kind == MQ_SAVED_KIND_OBBTREE;
    return true;
}

mq_status mq_saved_corrupt(const mq_saved_reader *r, uint64_t offset, const char *fmt, ...)
{
    if (!r->diag)
        return MQ_ERR_CORRUPT;
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return mq_diag_set(r->diag, MQ_ERR_CORRUPT, r->path, 0, 0, "corrupt saved file: byte %llu: %s",
                       (unsigned long long)offset, what);
}

uint64_t mq_saved_offset_of(const mq_saved_reader *r, uint32_t kind)
{
    for (uint32_t i = 0; i < r->count; i++)
        if (r->table[i].kind == kind)
            return r->table[i].offset;
    return 0;
}

mq_status mq_saved_expect(const mq_saved_reader *r, uint32_t kind, uint64_t size)
{
    for (uint32_t i = 0; i < r->count; i++)
        if (r->table[i].kind == kind) {
            if (r->table[i].size == size)
                return MQ_OK;
            return mq_saved_corrupt(r, MQ_SAVED_HEADER_SIZE + (uint64_t)i * MQ_SAVED_ENTRY_SIZE,
                                    "section %u (%s) has %llu bytes, the counts give %llu", i, kind_name(kind),
                                    (unsigned long long)r->table[i].size, (unsigned long long)size);
        }
    return mq_saved_corrupt(r, MQ_SAVED_HEADER_SIZE, "no %s section (%llu bytes expected)", kind_name(kind),
                            (unsigned long long)size);
}

static mq_status io_error(const mq_saved_reader *r, const char *what, int err)
{
    char reason[128];
    if (strerror_r(err, reason, sizeof reason) != 0)
        snprintf(reason, sizeof reason, "error %d", err);
    return mq_diag_set(r->diag, MQ_ERR_IO, r->path, 0, 0, "%s: %s", what, reason);
}

/* Bytes the source holds, when known (memory blocks, regular files); else UINT64_MAX. */
static uint64_t known_size(const mq_saved_reader *r)
{
    return r->mem_size;
}

/* Reads exactly n bytes at the current position. The caller has checked that
 * the source is long enough when its size is known, so running out here means
 * a file that shrank while it was read (or a stream that ended early). */
static mq_status raw_read(mq_saved_reader *r, void *dst, size_t n)
{
    if (r->fd < 0) {
        if (r->pos > r->mem_size || n > r->mem_size - r->pos)
            return mq_saved_corrupt(r, r->mem_size, "truncated: the data ends here");
        if (dst != r->mem + r->pos) /* in place (a mapped file's arrays): nothing to copy */
            memcpy(dst, r->mem + r->pos, n);
        r->pos += n;
        return MQ_OK;
    }
    unsigned char *p = dst;
    while (n > 0) {
        size_t step = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
        ssize_t got = mq_saved_sys_calls.read(r->fd, p, step);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return io_error(r, "cannot read the file", errno);
        if (got == 0) {
            if (known_size(r) != UINT64_MAX)
                return mq_diag_set(r->diag, MQ_ERR_IO, r->path, 0, 0,
                                   "the file ended at byte %llu, before the %llu bytes it had when opened "
                                   "(did it shrink while being read?)",
                                   (unsigned long long)r->pos, (unsigned long long)known_size(r));
            return mq_saved_corrupt(r, r->pos, "truncated: the stream ends here");
        }
        p += got;
        n -= (size_t)got;
        r->pos += (uint64_t)got;
    }
    return MQ_OK;
}

void mq_saved_close(mq_saved_reader *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    mq_saved_unmap(r->map, r->map_bytes);
    r->map = NULL;
    r->map_bytes = 0;
}

void mq_saved_take_map(mq_saved_reader *r, void **map, size_t *bytes)
{
    *map = r->map;
    *bytes = r->map_bytes;
    r->map = NULL;
    r->map_bytes = 0;
}

void mq_saved_unmap(void *map, size_t bytes)
{
#if defined(MQ_SAVED_CAN_MAP)
    if (map)
        munmap(map, bytes);
#else
    (void)map;
    (void)bytes;
#endif
}

static mq_status check_header(mq_saved_reader *r, uint32_t expected_kind)
{
    uint64_t avail = known_size(r);
    if (avail < MQ_SAVED_HEADER_SIZE)
        return mq_saved_corrupt(r, avail, "truncated: %llu bytes, too short for the %u-byte header",
                                (unsigned long long)avail, MQ_SAVED_HEADER_SIZE);
    unsigned char raw[MQ_SAVED_HEADER_SIZE + MQ_SAVED_ENTRY_SIZE * MQ_SAVED_MAX_SECTIONS];
    mq_status st = raw_read(r, raw, MQ_SAVED_HEADER_SIZE);
    if (st != MQ_OK)
        return st;
    mq_saved_header h;
    memcpy(&h, raw, sizeof h);
    if (memcmp(h.magic, mq_saved_magic, sizeof h.magic) != 0)
        return mq_saved_corrupt(r, 0, "not a meshquery saved hierarchy (wrong magic bytes)");
    if (h.bom == MQ_SAVED_BOM_SWAPPED)
        return mq_diag_set(r->diag, MQ_ERR_UNSUPPORTED, r->path, 0, 0,
                           "the file was saved on a machine of the other byte order; save it again here");
    if (h.bom != MQ_SAVED_BOM)
        return mq_saved_corrupt(r, 8, "bad byte-order mark 0x%08x", h.bom);
    if (h.version > MQ_SAVED_FORMAT_VERSION)
        return mq_diag_set(r->diag, MQ_ERR_UNSUPPORTED, r->path, 0, 0,
                           "format version %u is newer than this library's (%u); upgrade meshquery", h.version,
                           MQ_SAVED_FORMAT_VERSION);
    if (h.version == 0)
        return mq_saved_corrupt(r, 12, "format version 0");
    if (h.header_size != MQ_SAVED_HEADER_SIZE || h.entry_size != MQ_SAVED_ENTRY_SIZE)
        return mq_saved_corrupt(r, 40, "header size %u / table entry size %u, expected %u / %u", h.header_size,
                                h.entry_size, MQ_SAVED_HEADER_SIZE, MQ_SAVED_ENTRY_SIZE);
    if (h.section_count == 0 || h.section_count > MQ_SAVED_MAX_SECTIONS)
        return mq_saved_corrupt(r, 20, "%u sections (1..%u allowed)", h.section_count, MQ_SAVED_MAX_SECTIONS);
    uint64_t table_end = mq_saved_align(MQ_SAVED_HEADER_SIZE + (uint64_t)MQ_SAVED_ENTRY_SIZE * h.section_count);
    if (avail < table_end)
        return mq_saved_corrupt(r, avail, "truncated: %llu bytes, too short for the %u-entry section table",
                                (unsigned long long)avail, h.section_count);
    st = raw_read(r, raw + MQ_SAVED_HEADER_SIZE, (size_t)table_end - MQ_SAVED_HEADER_SIZE);
    if (st != MQ_OK)
        return st;
    uint64_t stored = h.checksum;
    memset(raw + offsetof(mq_saved_header, checksum), 0, sizeof h.checksum);
    mq_saved_hash hs;
    mq_saved_hash_init(&hs);
    mq_saved_hash_blocks(&hs, raw, (size_t)table_end);
    if (mq_saved_hash_final(&hs) != stored)
        return mq_saved_corrupt(r, 0, "header checksum mismatch (the header or section table is damaged)");
    if (h.reserved32 || h.reserved || (h.version == 1 && h.block_log2))
        return mq_saved_corrupt(r, 48, "reserved header bytes are not zero");
    if (h.version >= 2 && (h.block_log2 < MQ_SAVED_BLOCK_LOG2_MIN || h.block_log2 > MQ_SAVED_BLOCK_LOG2_MAX))
        return mq_saved_corrupt(r, 48, "checksum blocks of 2^%u bytes (2^%u..2^%u allowed)", h.block_log2,
                                MQ_SAVED_BLOCK_LOG2_MIN, MQ_SAVED_BLOCK_LOG2_MAX);
    for (size_t i = MQ_SAVED_HEADER_SIZE + (size_t)MQ_SAVED_ENTRY_SIZE * h.section_count; i < table_end; i++)
        if (raw[i] != 0)
            return mq_saved_corrupt(r, i, "padding after the section table is not zero");
    if (h.kind != MQ_SAVED_KIND_BVH && h.kind != MQ_SAVED_KIND_OBBTREE)
        return mq_saved_corrupt(r, 16, "unknown hierarchy kind %u", h.kind);
    if (h.kind != expected_kind)
        return mq_diag_set(r->diag, MQ_ERR_INVALID_ARG, r->path, 0, 0, "the file holds %s, not %s",
                           h.kind == MQ_SAVED_KIND_BVH ? "a BVH" : "an OBB tree",
                           expected_kind == MQ_SAVED_KIND_BVH ? "a BVH" : "an OBB tree");
    r->file_kind = h.kind;
    r->version = h.version;
    r->block_log2 = h.block_log2;
    r->count = h.section_count;
    r->next = 0;
    uint64_t at = table_end;
    for (uint32_t i = 0; i < r->count; i++) {
        mq_saved_entry *e = &r->table[i];
        memcpy(e, raw + MQ_SAVED_HEADER_SIZE + (size_t)i * MQ_SAVED_ENTRY_SIZE, sizeof *e);
        uint64_t where = MQ_SAVED_HEADER_SIZE + (uint64_t)i * MQ_SAVED_ENTRY_SIZE;
        if (!kind_allowed(h.kind, e->kind))
            return mq_saved_corrupt(r, where, "section %u: unknown kind %u", i, e->kind);
        if (i > 0 && e->kind <= r->table[i - 1].kind)
            return mq_saved_corrupt(r, where, "section %u (%s) out of order", i, kind_name(e->kind));
        if (e->reserved)
            return mq_saved_corrupt(r, where, "section %u: reserved field not zero", i);
        if (e->offset != at)
            return mq_saved_corrupt(r, where, "section %u (%s) at offset %llu, expected %llu", i, kind_name(e->kind),
                                    (unsigned long long)e->offset, (unsigned long long)at);
        if (e->size == 0 || e->size > h.file_size || at > h.file_size - e->size)
            return mq_saved_corrupt(r, where, "section %u (%s): %llu bytes at offset %llu overrun the %llu-byte file",
                                    i, kind_name(e->kind), (unsigned long long)e->size, (unsigned long long)e->offset,
                                    (unsigned long long)h.file_size);
        at = mq_saved_align(at + e->size);
    }
    if (at != h.file_size)
        return mq_saved_corrupt(r, 24, "file size %llu in the header, the sections end at %llu",
                                (unsigned long long)h.file_size, (unsigned long long)at);
    r->file_size = h.file_size;
    if (avail != UINT64_MAX && avail < h.file_size)
        return mq_saved_corrupt(r, avail, "truncated: %llu bytes of the %llu the header announces",
                                (unsigned long long)avail, (unsigned long long)h.file_size);
    if (avail != UINT64_MAX && avail > h.file_size)
        return mq_saved_corrupt(r, h.file_size, "%llu unexpected bytes after the end of the saved data",
                                (unsigned long long)(avail - h.file_size));
    return MQ_OK;
}

mq_status mq_saved_open_memory(mq_saved_reader *r, const void *data, size_t size, uint32_t kind, mq_diag *diag)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->mem = data;
    r->mem_size = size;
    r->diag = diag;
    if (!data && size)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "data is NULL");
    return check_header(r, kind);
}

/* Resets the reader for `path` and opens it: *fd and *st on MQ_OK. */
static mq_status open_path(mq_saved_reader *r, const char *path, mq_diag *diag, int *fd, struct stat *st)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->path = path;
    r->diag = diag;
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
        return io_error(r, "cannot open", errno);
    if (fstat(*fd, st) != 0) {
        int err = errno;
        close(*fd);
        return io_error(r, "cannot stat", err);
    }
    return MQ_OK;
}

mq_status mq_saved_open_file(mq_saved_reader *r, const char *path, uint32_t kind, mq_diag *diag)
{
    int fd;
    struct stat st;
    mq_status s = open_path(r, path, diag, &fd, &st);
    if (s != MQ_OK)
        return s;
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return io_error(r, "cannot read", EISDIR);
    }
    r->fd = fd;
    r->mem_size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
    s = check_header(r, kind);
    if (s != MQ_OK)
        mq_saved_close(r);
    return s;
}

mq_status mq_saved_open_mapped(mq_saved_reader *r, const char *path, uint32_t kind, mq_diag *diag)
{
#if defined(MQ_SAVED_CAN_MAP)
    int fd;
    struct stat st;
    mq_status s = open_path(r, path, diag, &fd, &st);
    if (s != MQ_OK)
        return s;
    /* Too short for a header (the copying reader says so), not a regular file
     * (nothing to map), or too large to map: read as usual. */
    if (!S_ISREG(st.st_mode) || st.st_size < (off_t)MQ_SAVED_HEADER_SIZE || (uint64_t)st.st_size > SIZE_MAX) {
        close(fd);
        return mq_saved_open_file(r, path, kind, diag);
    }
    size_t bytes = (size_t)st.st_size;
    /* Read-only while it is populated and checked: populating a writable
     * private mapping would copy every page (breaking copy-on-write up front). */
    int flags = MAP_PRIVATE;
#if defined(MAP_POPULATE)
    flags |= MAP_POPULATE;
#endif
    void *map = mmap(NULL, bytes, PROT_READ, flags, fd, 0);
    int err = errno;
    close(fd); /* the mapping keeps the file */
    if (map == MAP_FAILED)
        return io_error(r, "cannot map the file", err);
    /* Writable from now on: the loaded object's writes (mq_bvh_refit) copy
     * the pages they touch; the file never changes. */
    if (mprotect(map, bytes, PROT_READ | PROT_WRITE) != 0) {
        err = errno;
        munmap(map, bytes);
        return io_error(r, "cannot map the file", err);
    }
    r->mem = map;
    r->mem_size = bytes;
    r->mapped = true;
    r->map = map;
    r->map_bytes = bytes;
    s = check_header(r, kind);
    if (s != MQ_OK)
        mq_saved_close(r);
    return s;
#else
    return mq_saved_open_file(r, path, kind, diag);
#endif
}

mq_status mq_saved_open_input(mq_saved_reader *r, const mq_saved_input *in, uint32_t kind, bool have_out, mq_diag *diag)
{
    mq_diag_clear(diag);
    if (!have_out)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "out is NULL");
    if (in->from == MQ_SAVED_FROM_MEMORY)
        return mq_saved_open_memory(r, in->data, in->size, kind, diag);
    if (!in->path)
        return mq_diag_set(diag, MQ_ERR_INVALID_ARG, NULL, 0, 0, "path is NULL");
    return in->from == MQ_SAVED_FROM_MAPPED ? mq_saved_open_mapped(r, in->path, kind, diag)
                                            : mq_saved_open_file(r, in->path, kind, diag);
}

void *mq_saved_array(const mq_saved_reader *r, const mq_allocator *a, uint32_t kind, size_t bytes)
{
    if (r->mapped) {
        uint64_t at = mq_saved_offset_of(r, kind);
        return at ? (void *)(uintptr_t)(r->mem + at) : NULL;
    }
    return mq_saved_alloc(a, bytes);
}

bool mq_saved_next_is(const mq_saved_reader *r, uint32_t kind, uint64_t *size)
{
    if (r->next >= r->count || r->table[r->next].kind != kind)
        return false;
    if (size)
        *size = r->table[r->next].size;
    return true;
}

mq_status mq_saved_read(mq_saved_reader *r, uint32_t kind, void *dst, uint64_t size)
{
    return mq_saved_read_visit(r, kind, dst, size, NULL, NULL);
}

/* ------------------------------------------------------------------------- */
/* Large version 2 sections: several threads copy and checksum whole blocks  */
/* (each hashes what it copied while it is in its cache); the calling        */
/* thread also runs the section's structural checks, in order.              */
/* ------------------------------------------------------------------------- */

/* Units copied ahead of the structural checks at most: bounds the ring of
 * copied flags; and about WINDOW_BYTES, which keeps them in the shared cache
 * until they are checked. */
#define WINDOW 32u
#define WINDOW_BYTES ((size_t)8 << 20)

typedef struct par_read {
    mq_saved_reader *r;
    unsigned char *dst;
    uint64_t base; /* source offset of dst[0] */
    size_t n;      /* bytes of data */
    size_t whole;  /* n rounded down to 64: what the blocks hash (the tail goes with the padding) */
    size_t block;  /* checksum block size */
    size_t unit;   /* bytes claimed, copied then checksummed at a time: whole blocks, about a chunk */
    size_t count;  /* units */
    size_t window; /* units copied ahead of the visitor at most (<= WINDOW) */
    mq_saved_visit visit;
    void *ctx;
    mq_status found;
    mq_saved_hash8 partial;     /* the block that `whole` ends inside, if any: hashed up to `whole` */
    atomic_uint_fast64_t sum;   /* mq_saved_block_term of every complete block */
    atomic_size_t next;         /* next unit to claim */
    atomic_size_t visited;      /* units visited (by index 0, in order) */
    atomic_size_t done[WINDOW]; /* unit u + 1 in slot u % WINDOW once u is copied */
    atomic_int failed;          /* 1: a copy failed, everyone stops; its details follow */
    int err;                    /* errno, or 0 for a file that ended early */
    uint64_t err_pos;
} par_read;

static void relax(unsigned *spins)
{
    if (++*spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    } else {
        sched_yield(); /* the machine may have fewer free cores than threads */
    }
}

static void par_fail(par_read *p, int err, uint64_t pos)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&p->failed, &expected, 2)) {
        p->err = err;
        p->err_pos = pos;
        atomic_store_explicit(&p->failed, 1, memory_order_release);
    }
}

/* Copies bytes [off, off + len) into place; false (and the failure recorded)
 * when the file fails or ends early. */
static bool par_copy_bytes(par_read *p, size_t off, size_t len)
{
    mq_saved_reader *r = p->r;
    if (r->fd < 0) {
        if (p->dst + off != r->mem + p->base + off) /* in place (a mapped file's arrays): nothing to copy */
            memcpy(p->dst + off, r->mem + p->base + off, len);
        return true;
    }
    for (size_t got_all = 0; got_all < len;) {
        ssize_t got =
            mq_saved_sys_calls.pread(r->fd, p->dst + off + got_all, len - got_all, (off_t)(p->base + off + got_all));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            par_fail(p, got < 0 ? (errno ? errno : EIO) : 0, p->base + off + got_all);
            return false;
        }
        got_all += (size_t)got;
    }
    return true;
}

/* Copies unit u into place and checksums its blocks while they are in cache;
 * false (and the failure recorded) when the file fails or ends early. */
static bool par_copy(par_read *p, size_t u)
{
    size_t start = u * p->unit, stop = p->n - start < p->unit ? p->n : start + p->unit;
    uint64_t sum = 0;
    if (!par_copy_bytes(p, start, stop - start))
        return false;
    for (size_t b = start; b < stop && b < p->whole; b += p->block) {
        size_t end = b + p->block < p->whole ? b + p->block : p->whole;
        mq_saved_hash8 h;
        mq_saved_hash8_init(&h);
        mq_saved_hash8_blocks(&h, p->dst + b, end - b);
        if (end - b == p->block)
            sum += mq_saved_block_term(mq_saved_hash8_final(&h), b / p->block);
        else
            p->partial = h; /* the one block cut short by `whole`: the tail and padding complete it */
    }
    atomic_fetch_add_explicit(&p->sum, sum, memory_order_relaxed);
    return true;
}

/* Claims the next unit when one is left, within the window when there is a
 * visitor; SIZE_MAX otherwise. */
static size_t par_claim(par_read *p)
{
    size_t u = atomic_load_explicit(&p->next, memory_order_relaxed);
    while (u < p->count && (!p->visit || u < atomic_load_explicit(&p->visited, memory_order_acquire) + p->window))
        if (atomic_compare_exchange_weak_explicit(&p->next, &u, u + 1, memory_order_relaxed, memory_order_relaxed))
            return u;
    return SIZE_MAX;
}

static bool par_copy_claimed(par_read *p, size_t u)
{
    if (!par_copy(p, u))
        return false;
    atomic_store_explicit(&p->done[u % WINDOW], u + 1, memory_order_release);
    return true;
}

/* Every index copies and checksums units; index 0 (the caller) also runs the
 * visitor over the units in order. Index 0 only ever waits for a unit another
 * index is copying, the others only for index 0 (which is always running):
 * nobody waits for an index to start. */
static void par_worker(void *arg, uint32_t index)
{
    par_read *p = arg;
    unsigned spins = 0;
    if (index > 0) {
        while (!atomic_load_explicit(&p->failed, memory_order_relaxed) &&
               atomic_load_explicit(&p->next, memory_order_relaxed) < p->count) {
            size_t u = par_claim(p);
            if (u == SIZE_MAX) {
                relax(&spins); /* index 0 is checking */
                continue;
            }
            spins = 0;
            if (!par_copy_claimed(p, u))
                return;
        }
        return;
    }
    size_t v = 0;
    while (!atomic_load_explicit(&p->failed, memory_order_acquire)) {
        if (p->visit && v < p->count && atomic_load_explicit(&p->done[v % WINDOW], memory_order_acquire) == v + 1) {
            size_t end = (v + 1) * p->unit < p->n ? (v + 1) * p->unit : p->n;
            if (p->found == MQ_OK)
                p->found = p->visit(p->ctx, p->dst, end);
            atomic_store_explicit(&p->visited, ++v, memory_order_release);
            spins = 0;
            continue;
        }
        size_t u = par_claim(p);
        if (u != SIZE_MAX) {
            if (!par_copy_claimed(p, u))
                return;
            spins = 0;
            continue;
        }
        if (p->visit ? v == p->count : atomic_load_explicit(&p->next, memory_order_relaxed) >= p->count)
            return;    /* without a visitor, mq_run_parallel waits for the units others are copying */
        relax(&spins); /* unit v is being copied by another index */
    }
}

/* Reads the section's n bytes into dst on `threads` threads; leaves in *h the
 * checksum state of the bytes up to n rounded down to 64. */
static mq_status read_parallel(mq_saved_reader *r, unsigned char *dst, size_t n, size_t unit, uint32_t threads,
                               mq_saved_sechash *h, mq_saved_visit visit, void *ctx, mq_status *found)
{
    par_read *p = &(par_read){.r = r,
                              .dst = dst,
                              .base = r->pos,
                              .n = n,
                              .whole = n & ~(size_t)63,
                              .block = (size_t)h->block_size,
                              .unit = unit,
                              .visit = visit,
                              .ctx = ctx,
                              .found = MQ_OK};
    p->count = (n + unit - 1) / unit;
    p->window = WINDOW_BYTES / unit < 2 ? 2 : WINDOW_BYTES / unit > WINDOW ? WINDOW : WINDOW_BYTES / unit;
    mq_saved_hash8_init(&p->partial);
    atomic_init(&p->sum, 0);
    atomic_init(&p->next, 0);
    atomic_init(&p->visited, 0);
    for (unsigned i = 0; i < WINDOW; i++)
        atomic_init(&p->done[i], 0);
    atomic_init(&p->failed, 0);
    mq_run_parallel(threads, par_worker, p);
    *found = p->found;
    if (atomic_load_explicit(&p->failed, memory_order_acquire)) {
        if (p->err)
            return io_error(r, "cannot read the file", p->err);
        return mq_diag_set(r->diag, MQ_ERR_IO, r->path, 0, 0,
                           "the file ended at byte %llu, before the %llu bytes it had when opened "
                           "(did it shrink while being read?)",
                           (unsigned long long)p->err_pos, (unsigned long long)known_size(r));
    }
    /* As if fed in order: the complete blocks, then the block `whole` ends in, if any. */
    h->sum = atomic_load_explicit(&p->sum, memory_order_relaxed);
    h->index = p->whole / p->block;
    h->in_block = p->whole % p->block;
    h->block = p->partial;
    r->pos += n;
    if (r->fd >= 0 && lseek(r->fd, (off_t)r->pos, SEEK_SET) != (off_t)r->pos)
        return io_error(r, "cannot seek in the file", errno);
    return MQ_OK;
}

/* True when the section's bytes can be copied out of order: a memory block or
 * a regular file, holding them all (check_header compared the sizes). */
static bool random_access(const mq_saved_reader *r, uint64_t n)
{
    return known_size(r) != UINT64_MAX && r->pos <= known_size(r) && n <= known_size(r) - r->pos;
}

mq_status mq_saved_read_visit(mq_saved_reader *r, uint32_t kind, void *dst, uint64_t size, mq_saved_visit visit,
                              void *ctx)
{
    uint64_t sz;
    if (!mq_saved_next_is(r, kind, &sz) || sz != size)
        return mq_saved_corrupt(r, MQ_SAVED_HEADER_SIZE + (uint64_t)r->next * MQ_SAVED_ENTRY_SIZE,
                                "expected %llu bytes of %s", (unsigned long long)size, kind_name(kind));
    const mq_saved_entry *e = &r->table[r->next];
    unsigned char *p = dst;
    bool v1 = r->version == 1;
    mq_saved_hash h1;    /* version 1: the section as one stream */
    mq_saved_sechash h2; /* version 2: in blocks */
    mq_saved_hash_init(&h1);
    mq_saved_sechash_init(&h2, v1 ? 64 : (uint64_t)1 << r->block_log2);
    mq_status found = MQ_OK; /* the visitor's verdict, returned once the checksum is known to match */
    size_t n = (size_t)size, chunk = chunk_size(), whole = n & ~(size_t)63;
    /* Parallel units: whole blocks, about `chunk` bytes. */
    size_t unit = chunk > h2.block_size ? chunk & ~(size_t)(h2.block_size - 1) : (size_t)h2.block_size;
    uint32_t threads = mq_thread_count(mq_saved_tune.threads);
    if (!v1 && threads > 1 && size >= mq_saved_tune.parallel_min && size > unit && random_access(r, size)) {
        uint64_t units = (size + unit - 1) / unit;
        mq_status st =
            read_parallel(r, p, n, unit, units < threads ? (uint32_t)units : threads, &h2, visit, ctx, &found);
        if (st != MQ_OK)
            return st;
    } else {
        for (size_t done = 0; done < n;) {
            size_t step = n - done < chunk ? n - done : chunk;
            mq_status st = raw_read(r, p + done, step);
            if (st != MQ_OK)
                return st;
            size_t hashed = done + step < whole ? step : whole - done; /* a multiple of 64 */
            if (v1)
                mq_saved_hash_blocks(&h1, p + done, hashed);
            else
                mq_saved_sechash_feed(&h2, p + done, hashed);
            if (visit && found == MQ_OK)
                found = visit(ctx, dst, done + step);
            done += step;
        }
    }
    /* The tail (n % 64 bytes) and the zero padding: 64 bytes, or none. */
    size_t tail = n - whole, pad = (size_t)(mq_saved_align(n) - n);
    unsigned char buf[64];
    memcpy(buf, p + whole, tail);
    mq_status st = raw_read(r, buf + tail, pad);
    if (st != MQ_OK)
        return st;
    for (size_t i = 0; i < pad; i++)
        if (buf[tail + i] != 0)
            return mq_saved_corrupt(r, e->offset + n + i, "padding after %s is not zero", kind_name(kind));
    uint64_t sum;
    if (v1) {
        mq_saved_hash_blocks(&h1, buf, tail + pad);
        sum = mq_saved_hash_final(&h1);
    } else {
        mq_saved_sechash_feed(&h2, buf, tail + pad);
        sum = mq_saved_sechash_final(&h2);
    }
    if (sum != e->checksum)
        return mq_saved_corrupt(r, e->offset, "checksum mismatch in section %u (%s, %llu bytes)", r->next,
                                kind_name(kind), (unsigned long long)size);
    if (found != MQ_OK)
        return found;
    r->next++;
    return MQ_OK;
}

void *mq_saved_alloc(const mq_allocator *a, size_t bytes)
{
    return mq_alloc(a, bytes, MQ_CACHE_LINE);
}

mq_status mq_saved_finish(mq_saved_reader *r)
{
    if (r->next < r->count)
        return mq_saved_corrupt(r, r->table[r->next].offset, "unexpected section %u (%s)", r->next,
                                kind_name(r->table[r->next].kind));
    if (r->fd >= 0 && r->mem_size == UINT64_MAX) { /* a stream: nothing may follow */
        unsigned char extra;
        ssize_t got;
        do
            got = mq_saved_sys_calls.read(r->fd, &extra, 1);
        while (got < 0 && errno == EINTR);
        if (got > 0)
            return mq_saved_corrupt(r, r->pos, "unexpected bytes after the end of the saved data");
    }
    return MQ_OK;
}
