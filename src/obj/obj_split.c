/*
 * Cutting OBJ text into chunks that passes can take in parallel. Every chunk
 * ends right after a line end that is not a `\` continuation, so it holds whole
 * statements and every scan inside it stops at a line end before its end (the
 * bounds argument of obj_text.h). Text after the last such line end (a last
 * line without a newline, or one continued into the end of the file) is copied
 * into a small buffer with "\n\0" appended: the same guarantee for the last
 * chunk, without ever reading past the caller's buffer. (When that text ends
 * with a continued line end, only the NUL is added: the continuation then
 * meets the end of the input, which the parse pass reports.)
 */
#include <string.h>

#include "core/alloc.h"
#include "obj/obj_split.h"

/* The line-end sequence ending at i (d[i] is '\n' or '\r') starts here. */
static size_t eol_start(const char *d, size_t i)
{
    return d[i] == '\n' && i > 0 && d[i - 1] == '\r' ? i - 1 : i;
}

static bool continued(const char *d, size_t eol)
{
    return eol > 0 && d[eol - 1] == '\\';
}

size_t mq_obj_last_statement_end(const char *d, size_t size)
{
    for (size_t i = size; i > 0; i--) {
        if (d[i - 1] != '\n' && d[i - 1] != '\r')
            continue;
        size_t s = eol_start(d, i - 1);
        if (!continued(d, s))
            return i;
        i = s + 1;
    }
    return 0;
}

/* The first chunk boundary at or after `from`, or `limit`. */
static size_t next_boundary(const char *d, size_t from, size_t limit)
{
    for (size_t i = from; i < limit; i++) {
        if (d[i] != '\n' && d[i] != '\r')
            continue;
        size_t e = i + 1;
        if (d[i] == '\r' && e < limit && d[e] == '\n')
            e++;
        if (!continued(d, eol_start(d, i)))
            return e;
        i = e - 1;
    }
    return limit;
}

size_t mq_obj_split(const char *d, size_t region, size_t pieces, const char **begins, const char **ends)
{
    size_t count = 0, start = 0;
    for (size_t k = 1; k <= pieces && start < region; k++) {
        size_t target = (size_t)((double)region * (double)k / (double)pieces);
        if (k < pieces && target <= start)
            continue; /* the previous chunk already reaches past this target */
        size_t b = k == pieces ? region : next_boundary(d, target - 1, region);
        begins[count] = d + start;
        ends[count] = d + b;
        count++;
        start = b;
    }
    return count;
}

char *mq_obj_copy_tail(const char *d, size_t size, const mq_allocator *a, size_t *alloc_size, size_t *text_size)
{
    /* text that already ends with a line end ends with a continuation: no
     * newline is added, so the continuation runs into the NUL and is reported */
    bool eol = d[size - 1] == '\n' || d[size - 1] == '\r';
    *alloc_size = size + 2;
    *text_size = size + !eol;
    char *t = mq_alloc(a, *alloc_size, 16);
    if (!t)
        return NULL;
    memcpy(t, d, size);
    t[size] = eol ? '\0' : '\n';
    t[size + 1] = '\0';
    return t;
}
