/*
 * The parse pass's state, shared by its two halves: obj_parse.c (statements,
 * vertices, names, the chunk loop) and obj_faces.c (indices, corners, faces,
 * line and point elements).
 */
#ifndef MQ_OBJ_OBJ_PARSER_H
#define MQ_OBJ_OBJ_PARSER_H

#include "obj/obj_internal.h"
#include "obj/obj_text.h"

typedef struct parser {
    obj_load *load;
    obj_chunk *chunk;
    obj_output *out;
    const char *begin, *end;
    size_t index;     /* of the chunk */
    const char *stmt; /* start of the current statement's line */
    uint64_t stmt_line;
    uint64_t line;        /* line of the current position */
    obj_counts at, limit; /* global cursors and the chunk's end in each array */
    obj_corner *corners;
    size_t corner_capacity;
} parser;

/* Records an error at `at` in the chunk; returns NULL so statement parsers can
 * `return mq_obj_fail(...)`. */
const char *mq_obj_fail(parser *ps, const char *at, mq_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* What ends a statement's data: a line end, a comment, or a NUL. */
static inline bool obj_at_statement_end(char c)
{
    return obj_is_eol(c) || c == '#' || c == '\0';
}

/* A NUL inside the text (not the sentinel after it) is binary data. */
static inline bool obj_stray_nul(const parser *ps, const char *p)
{
    return *p == '\0' && p < ps->end;
}

/* The error when a statement does not end at a line end (see obj_end_statement). */
const char *mq_obj_end_error(parser *ps, const char *p);

/* The end of a statement: an optional comment, then the line end. */
static inline const char *obj_end_statement(parser *ps, const char *p)
{
    if (*p == '#')
        p = obj_skip_to_eol(p);
    if (obj_is_eol(*p)) {
        ps->line++;
        return obj_skip_eol(p, ps->end);
    }
    return mq_obj_end_error(ps, p);
}

/* f, and l / p (checked like faces, counted, not kept): obj_faces.c. */
const char *mq_obj_parse_face(parser *ps, const char *kw, const char *p);
const char *mq_obj_parse_element(parser *ps, const char *kw, const char *p, obj_keyword type);

#endif
