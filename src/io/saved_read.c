/*
 * Reading a saved hierarchy: the header and section table are read and
 * checked first (magic, byte order, version, header checksum, exact layout,
 * size against the real file or block), then the sections are streamed in
 * order straight into the arrays that keep them, each checksummed chunk by
 * chunk while it is still in cache, its padding checked to be zero.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diag.h"
#include "io/saved_format.h"

/* Sections are read (and checksummed) in chunks of this many bytes (a multiple of 32). */
#define CHUNK ((size_t)1 << 18)

static const char *kind_name(uint32_t kind)
{
    switch (kind) {
    case MQ_SEC_MESH_INFO: return "mesh counts";
    case MQ_SEC_BVH_INFO: return "BVH counts";
    case MQ_SEC_OBB_INFO: return "OBB tree counts";
    case MQ_SEC_POSITIONS: return "positions";
    case MQ_SEC_INDICES: return "indices";
    case MQ_SEC_FACE_OF_TRI: return "face of each triangle";
    case MQ_SEC_FACE_LINE32: return "face lines";
    case MQ_SEC_FACE_LINE64: return "face lines (64-bit)";
    case MQ_SEC_NAME_OFFSETS: return "group name offsets";
    case MQ_SEC_NAME_OFFSETS + 1: return "object name offsets";
    case MQ_SEC_NAME_OFFSETS + 2: return "material name offsets";
    case MQ_SEC_NAME_CHARS: return "group names";
    case MQ_SEC_NAME_CHARS + 1: return "object names";
    case MQ_SEC_NAME_CHARS + 2: return "material names";
    case MQ_SEC_FACE_NAME_IDS: return "face group ids";
    case MQ_SEC_FACE_NAME_IDS + 1: return "face object ids";
    case MQ_SEC_FACE_NAME_IDS + 2: return "face material ids";
    case MQ_SEC_NORMALS: return "normals";
    case MQ_SEC_CORNER_NORMALS: return "corner normal indices";
    case MQ_SEC_TEXCOORDS: return "texture coordinates";
    case MQ_SEC_CORNER_TEXCOORDS: return "corner texture coordinate indices";
    case MQ_SEC_COLORS: return "colours";
    case MQ_SEC_BVH_ARENA: return "BVH nodes and leaves";
    case MQ_SEC_OBB_NODES: return "OBB tree nodes";
    case MQ_SEC_OBB_TRIS: return "OBB tree triangles";
    case MQ_SEC_OBB_IDS: return "OBB tree triangle ids";
    default: return NULL;
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
static uint64_t known_size(const mq_saved_reader *r) { return r->mem_size; }

/* Reads exactly n bytes at the current position. The caller has checked that
 * the source is long enough when its size is known, so running out here means
 * a file that shrank while it was read (or a stream that ended early). */
static mq_status raw_read(mq_saved_reader *r, void *dst, size_t n)
{
    if (r->fd < 0) {
        if (r->pos > r->mem_size || n > r->mem_size - r->pos)
            return mq_saved_corrupt(r, r->mem_size, "truncated: the data ends here");
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
    if (h.reserved[0] || h.reserved[1])
        return mq_saved_corrupt(r, 48, "reserved header bytes are not zero");
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
            return mq_saved_corrupt(r, where, "section %u (%s) at offset %llu, expected %llu", i,
                                    kind_name(e->kind), (unsigned long long)e->offset, (unsigned long long)at);
        if (e->size == 0 || e->size > h.file_size || at > h.file_size - e->size)
            return mq_saved_corrupt(r, where, "section %u (%s): %llu bytes at offset %llu overrun the %llu-byte file",
                                    i, kind_name(e->kind), (unsigned long long)e->size,
                                    (unsigned long long)e->offset, (unsigned long long)h.file_size);
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

mq_status mq_saved_open_file(mq_saved_reader *r, const char *path, uint32_t kind, mq_diag *diag)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->path = path;
    r->diag = diag;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return io_error(r, "cannot open", errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return io_error(r, "cannot stat", err);
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return io_error(r, "cannot read", EISDIR);
    }
    r->fd = fd;
    r->mem_size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
    mq_status s = check_header(r, kind);
    if (s != MQ_OK)
        mq_saved_close(r);
    return s;
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
    uint64_t sz;
    if (!mq_saved_next_is(r, kind, &sz) || sz != size)
        return mq_saved_corrupt(r, MQ_SAVED_HEADER_SIZE + (uint64_t)r->next * MQ_SAVED_ENTRY_SIZE,
                                "expected %llu bytes of %s", (unsigned long long)size, kind_name(kind));
    const mq_saved_entry *e = &r->table[r->next];
    unsigned char *p = dst;
    mq_saved_hash h;
    mq_saved_hash_init(&h);
    size_t n = (size_t)size, done = 0;
    while (done < n) {
        size_t step = n - done < CHUNK ? n - done : CHUNK;
        mq_status st = raw_read(r, p + done, step);
        if (st != MQ_OK)
            return st;
        mq_saved_hash_blocks(&h, p + done, step & ~(size_t)31);
        done += step & ~(size_t)31;
        if (step & 31)
            break; /* the tail is hashed below with the padding */
    }
    size_t whole = n & ~(size_t)31, tail = n - whole, pad = (size_t)(mq_saved_align(n) - n);
    unsigned char buf[96];
    memcpy(buf, p + whole, tail);
    mq_status st = raw_read(r, buf + tail, pad);
    if (st != MQ_OK)
        return st;
    for (size_t i = 0; i < pad; i++)
        if (buf[tail + i] != 0)
            return mq_saved_corrupt(r, e->offset + n + i, "padding after %s is not zero", kind_name(kind));
    mq_saved_hash_blocks(&h, buf, tail + pad);
    if (mq_saved_hash_final(&h) != e->checksum)
        return mq_saved_corrupt(r, e->offset, "checksum mismatch in section %u (%s, %llu bytes)", r->next,
                                kind_name(kind), (unsigned long long)size);
    r->next++;
    return MQ_OK;
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
