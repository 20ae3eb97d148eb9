/*
 * Getting OBJ text: a file is memory-mapped (no copy; the pages come straight
 * from the page cache, and every parse thread faults in its own chunk), or,
 * when it cannot be mapped (pipes, some special files), read into a buffer from
 * the user's allocator. Then the encoding is checked: a UTF-8 byte order mark
 * is skipped, UTF-16 and UTF-32 are recognised (with or without a mark) and
 * refused with a message that says what to do.
 */
#define _DEFAULT_SOURCE 1 /* MAP_POPULATE */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/diag.h"
#include "obj/obj_source.h"
#include "obj/obj_text.h"

/* Reads larger than this are split: Linux moves at most ~2 GiB per read(). */
#define READ_STEP ((size_t)1 << 30)

static mq_status io_error(mq_diag *diag, const char *path, const char *what, int err)
{
    char reason[128];
    if (strerror_r(err, reason, sizeof reason) != 0)
        snprintf(reason, sizeof reason, "error %d", err);
    return mq_diag_set(diag, MQ_ERR_IO, path, 0, 0, "%s: %s", what, reason);
}

/* Reads a whole stream of unknown size into a growing buffer. */
static mq_status read_all(obj_source *s, int fd, const char *path, const mq_allocator *a, mq_diag *diag)
{
    size_t cap = 1 << 16, size = 0;
    char *buf = mq_alloc(a, cap, 64);
    if (!buf)
        return mq_diag_set(diag, MQ_ERR_OUT_OF_MEMORY, path, 0, 0, "out of memory reading the file");
    for (;;) {
        if (size == cap) {
            size_t grown = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
            char *b = grown > cap ? mq_realloc(a, buf, cap, grown, 64) : NULL;
            if (!b) {
                mq_free(a, buf, cap);
                return mq_diag_set(diag, grown > cap ? MQ_ERR_OUT_OF_MEMORY : MQ_ERR_LIMIT, path, 0, 0,
                                   "out of memory reading the file (%zu bytes so far)", size);
            }
            buf = b;
            cap = grown;
        }
        size_t want = cap - size < READ_STEP ? cap - size : READ_STEP;
        ssize_t got = read(fd, buf + size, want);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int err = errno;
            mq_free(a, buf, cap);
            return io_error(diag, path, "cannot read the file", err);
        }
        if (got == 0)
            break;
        size += (size_t)got;
    }
    s->buffer = buf;
    s->buffer_size = cap;
    s->data = buf;
    s->size = size;
    return MQ_OK;
}

static bool try_map(obj_source *s, int fd, size_t size)
{
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE; /* one batched fault-in instead of one fault per page */
#endif
    void *map = mmap(NULL, size, PROT_READ, flags, fd, 0);
    if (map == MAP_FAILED)
        return false;
    s->map = map;
    s->map_size = size;
    s->data = map;
    s->size = size;
    return true;
}

mq_status mq_obj_source_open(obj_source *s, const char *path, const mq_allocator *a, mq_diag *diag)
{
    memset(s, 0, sizeof *s);
    int fd;
    do
        fd = open(path, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return io_error(diag, path, "cannot open the file", errno);
    struct stat st;
    mq_status status = MQ_OK;
    if (fstat(fd, &st) != 0) {
        status = io_error(diag, path, "cannot read the file's size", errno);
    } else if (S_ISDIR(st.st_mode)) {
        status = mq_diag_set(diag, MQ_ERR_IO, path, 0, 0, "this is a directory, not an OBJ file");
    } else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2) {
        status = mq_diag_set(diag, MQ_ERR_LIMIT, path, 0, 0,
                             "the file (%llu bytes) is larger than this build's address space allows",
                             (unsigned long long)st.st_size);
    } else if (!(S_ISREG(st.st_mode) && st.st_size > 0 && try_map(s, fd, (size_t)st.st_size))) {
        status = read_all(s, fd, path, a, diag);
    }
    close(fd);
    return status;
}

void mq_obj_source_close(obj_source *s, const mq_allocator *a)
{
    if (s->map)
        munmap(s->map, s->map_size);
    mq_free(a, s->buffer, s->buffer_size);
    memset(s, 0, sizeof *s);
}

/* Names the Unicode encoding of text that starts with a byte order mark or
 * with NUL bytes interleaved with ASCII, or NULL. */
static const char *wide_encoding(const unsigned char *d, size_t n, bool *bom)
{
    *bom = true;
    if (n >= 4 && d[0] == 0xFF && d[1] == 0xFE && d[2] == 0 && d[3] == 0)
        return "UTF-32 (little-endian)";
    if (n >= 4 && d[0] == 0 && d[1] == 0 && d[2] == 0xFE && d[3] == 0xFF)
        return "UTF-32 (big-endian)";
    if (n >= 2 && d[0] == 0xFF && d[1] == 0xFE)
        return "UTF-16 (little-endian)";
    if (n >= 2 && d[0] == 0xFE && d[1] == 0xFF)
        return "UTF-16 (big-endian)";
    *bom = false;
    if (n >= 4 && d[0] && !d[1] && !d[2] && !d[3])
        return "UTF-32 (little-endian)";
    if (n >= 4 && !d[0] && !d[1] && !d[2] && d[3])
        return "UTF-32 (big-endian)";
    if (n >= 2 && d[0] && !d[1])
        return "UTF-16 (little-endian)";
    if (n >= 2 && !d[0] && d[1])
        return "UTF-16 (big-endian)";
    return NULL;
}

mq_status mq_obj_check_encoding(const char **data, size_t *size, const char *name, mq_diag *diag)
{
    const unsigned char *d = (const unsigned char *)*data;
    size_t n = *size;
    bool bom;
    const char *wide = wide_encoding(d, n, &bom);
    if (wide)
        return mq_diag_set(diag, MQ_ERR_UNSUPPORTED, name, 1, 1,
                           "the file is %s text%s; OBJ files are read as UTF-8 or ASCII: save it as UTF-8", wide,
                           bom ? " (it starts with a byte order mark)" : "");
    if (n >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF) {
        *data += 3; /* UTF-8 byte order mark */
        n -= 3;
    }
    *size = n;
    for (size_t i = 0; i < n; i++)
        if (!(obj_class((*data)[i]) & (OBJ_BLANK | OBJ_EOL)))
            return MQ_OK;
    return mq_diag_set(diag, MQ_ERR_PARSE, name, 0, 0, "the file is empty%s: no OBJ statements at all",
                       n ? " (only blanks and line ends)" : "");
}
