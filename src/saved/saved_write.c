/*
 * Writing a saved hierarchy: lay out the sections an object describes
 * (mq_saved_plan), checksum them, and put the bytes into a memory block or a
 * file. Files are written to a temporary name in the target's directory,
 * fsynced and renamed over the target, so a reader never sees half a file and
 * a failure leaves nothing behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/diag.h"
#include "saved/saved_format.h"

static ssize_t sys_read(int fd, void *buf, size_t n)
{
    return read(fd, buf, n);
}
static ssize_t sys_write(int fd, const void *buf, size_t n)
{
    return write(fd, buf, n);
}
static int sys_fsync(int fd)
{
    return fsync(fd);
}
static ssize_t sys_pread(int fd, void *buf, size_t n, off_t offset)
{
    return pread(fd, buf, n, offset);
}

mq_saved_sys mq_saved_sys_calls = {sys_read, sys_write, sys_fsync, sys_pread};

/* Writes of more than this are split (Linux moves at most ~2 GiB per call). */
#define WRITE_STEP ((size_t)1 << 30)

void mq_saved_plan_add(mq_saved_plan *p, uint32_t kind, const void *data, uint64_t size)
{
    if (size == 0 || p->count >= MQ_SAVED_MAX_SECTIONS)
        return;
    p->sec[p->count++] = (mq_saved_out){kind, data, size};
}

typedef struct layout {
    uint64_t table_end;
    uint64_t offset[MQ_SAVED_MAX_SECTIONS];
    uint64_t file_size;
    uint32_t block_log2; /* of the section checksums */
} layout;

static void compute_layout(const mq_saved_plan *p, layout *l)
{
    uint32_t b = mq_saved_tune.block_log2;
    l->block_log2 = b < MQ_SAVED_BLOCK_LOG2_MIN   ? MQ_SAVED_BLOCK_LOG2_MIN
                    : b > MQ_SAVED_BLOCK_LOG2_MAX ? MQ_SAVED_BLOCK_LOG2_MAX
                                                  : b;
    l->table_end = mq_saved_align(MQ_SAVED_HEADER_SIZE + (uint64_t)MQ_SAVED_ENTRY_SIZE * p->count);
    uint64_t at = l->table_end;
    for (uint32_t i = 0; i < p->count; i++) {
        l->offset[i] = at;
        at = mq_saved_align(at + p->sec[i].size);
    }
    l->file_size = at;
}

/* Header and table (table_end bytes, zero padded) with the header checksum filled in. */
static void fill_header(const mq_saved_plan *p, const layout *l, const uint64_t *checksums, unsigned char *out)
{
    memset(out, 0, (size_t)l->table_end);
    mq_saved_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, mq_saved_magic, sizeof h.magic);
    h.bom = MQ_SAVED_BOM;
    h.version = MQ_SAVED_FORMAT_VERSION;
    h.kind = p->file_kind;
    h.section_count = p->count;
    h.file_size = l->file_size;
    h.header_size = MQ_SAVED_HEADER_SIZE;
    h.entry_size = MQ_SAVED_ENTRY_SIZE;
    h.block_log2 = l->block_log2;
    for (uint32_t i = 0; i < p->count; i++) {
        mq_saved_entry e = {p->sec[i].kind, 0, l->offset[i], p->sec[i].size, checksums[i]};
        memcpy(out + MQ_SAVED_HEADER_SIZE + (size_t)i * MQ_SAVED_ENTRY_SIZE, &e, sizeof e);
    }
    memcpy(out, &h, sizeof h);
    mq_saved_hash hs;
    mq_saved_hash_init(&hs);
    mq_saved_hash_blocks(&hs, out, (size_t)l->table_end);
    h.checksum = mq_saved_hash_final(&hs);
    memcpy(out, &h, sizeof h);
}

#define TABLE_BYTES (MQ_SAVED_HEADER_SIZE + MQ_SAVED_ENTRY_SIZE * MQ_SAVED_MAX_SECTIONS)

mq_status mq_saved_write_memory(const mq_saved_plan *p, const mq_allocator *alloc, void **data, size_t *size,
                                mq_diag *diag)
{
    layout l;
    compute_layout(p, &l);
    if (l.file_size > SIZE_MAX)
        return mq_diag_set(diag, MQ_ERR_LIMIT, NULL, 0, 0, "%llu bytes do not fit in memory",
                           (unsigned long long)l.file_size);
    unsigned char *buf = mq_alloc(alloc, (size_t)l.file_size, MQ_SAVED_ALIGN);
    if (!buf)
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, NULL, 0, 0, "out of memory saving %llu bytes",
                           (unsigned long long)l.file_size);
    uint64_t sums[MQ_SAVED_MAX_SECTIONS];
    for (uint32_t i = 0; i < p->count; i++) {
        unsigned char *dst = buf + l.offset[i];
        size_t n = (size_t)p->sec[i].size, padded = (size_t)mq_saved_align(n);
        memcpy(dst, p->sec[i].data, n);
        memset(dst + n, 0, padded - n);
        mq_saved_sechash h;
        mq_saved_sechash_init(&h, (uint64_t)1 << l.block_log2);
        mq_saved_sechash_feed(&h, dst, padded);
        sums[i] = mq_saved_sechash_final(&h);
    }
    fill_header(p, &l, sums, buf);
    *data = buf;
    *size = (size_t)l.file_size;
    return MQ_OK;
}

/* ------------------------------------------------------------------------- */
/* Files                                                                     */
/* ------------------------------------------------------------------------- */

static mq_status io_error(mq_diag *diag, const char *path, const char *what, int err)
{
    char reason[128];
    if (strerror_r(err, reason, sizeof reason) != 0)
        snprintf(reason, sizeof reason, "error %d", err);
    return mq_diag_set(diag, MQ_ERR_IO, path, 0, 0, "%s: %s", what, reason);
}

/* Writes all n bytes (retrying partial writes and EINTR); 0 or an errno. */
static int write_all(int fd, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n > 0) {
        size_t step = n < WRITE_STEP ? n : WRITE_STEP;
        ssize_t w = mq_saved_sys_calls.write(fd, p, step);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return errno ? errno : EIO;
        if (w == 0)
            return ENOSPC; /* no progress: treat as a full device */
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* A name for the temporary file: `path`.tmp-XXXXXX with 6 characters from the
 * clock, the process id, a counter and the attempt number. */
static void temp_name(char *out, size_t cap, const char *path, unsigned attempt)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned long counter; /* atomic: saves may run on several threads (O_EXCL keeps names safe anyway) */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 40) ^
                 (uint64_t)__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED) * 0x9E3779B97F4A7C15ull ^
                 (uint64_t)attempt * 0xC2B2AE3D27D4EB4Full ^ (uint64_t)(uintptr_t)out;
    x ^= x >> 31;
    x *= 0x165667B19E3779F9ull;
    x ^= x >> 29;
    char suffix[7];
    for (int i = 0; i < 6; i++, x /= 62)
        suffix[i] = digits[x % 62];
    suffix[6] = '\0';
    snprintf(out, cap, "%s.tmp-%s", path, suffix);
}

/* The directory part of `path` ("." when none), for the fsync after rename. */
static void dir_of(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(out, cap, ".");
        return;
    }
    size_t n = (size_t)(slash - path);
    if (n == 0)
        n = 1; /* "/file" */
    if (n >= cap)
        n = cap - 1;
    memcpy(out, path, n);
    out[n] = '\0';
}

/* Writes the sections after a zeroed header region, then the header and table. */
static int write_body(int fd, const mq_saved_plan *p, const layout *l)
{
    static const unsigned char zeros[MQ_SAVED_ALIGN];
    unsigned char head[TABLE_BYTES + MQ_SAVED_ALIGN];
    memset(head, 0, (size_t)l->table_end);
    int err = write_all(fd, head, (size_t)l->table_end);
    uint64_t sums[MQ_SAVED_MAX_SECTIONS];
    for (uint32_t i = 0; i < p->count && !err; i++) {
        size_t n = (size_t)p->sec[i].size, pad = (size_t)(mq_saved_align(n) - n);
        sums[i] = mq_saved_section_checksum(MQ_SAVED_FORMAT_VERSION, l->block_log2, p->sec[i].data, n);
        err = write_all(fd, p->sec[i].data, n);
        if (!err && pad)
            err = write_all(fd, zeros, pad);
    }
    if (err)
        return err;
    fill_header(p, l, sums, head);
    if (lseek(fd, 0, SEEK_SET) != 0)
        return errno ? errno : EIO;
    return write_all(fd, head, (size_t)l->table_end);
}

mq_status mq_saved_write_file(const mq_saved_plan *p, const char *path, mq_diag *diag)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return mq_diag_set(diag, MQ_ERR_IO, path, 0, 0, "cannot save over %s: not a regular file",
                           S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket");
    char tmp[4096];
    if (strlen(path) + 16 > sizeof tmp)
        return mq_diag_set(diag, MQ_ERR_IO, path, 0, 0, "cannot save: the path is too long");
    int fd = -1;
    for (unsigned attempt = 0; attempt < 100 && fd < 0; attempt++) {
        temp_name(tmp, sizeof tmp, path, attempt);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            return io_error(diag, path, "cannot create a temporary file beside it", errno);
    }
    if (fd < 0)
        return mq_diag_set(diag, MQ_ERR_IO, path, 0, 0, "cannot create a temporary file beside it: all names taken");
    layout l;
    compute_layout(p, &l);
    const char *what = "cannot write";
    int err = write_body(fd, p, &l);
    if (!err && mq_saved_sys_calls.fsync(fd) != 0)
        err = errno ? errno : EIO, what = "cannot flush to disk";
    if (close(fd) != 0 && !err)
        err = errno ? errno : EIO, what = "cannot close";
    if (!err && rename(tmp, path) != 0)
        err = errno, what = "cannot rename the temporary file over it";
    if (err) {
        unlink(tmp);
        return io_error(diag, path, what, err);
    }
    /* Make the rename durable; failing to is not an error of the save itself. */
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    int dfd = open(dir, O_RDONLY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    return MQ_OK;
}
