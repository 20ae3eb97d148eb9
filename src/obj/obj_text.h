/*
 * OBJ lexing: character classes and the blank / line-end / continuation rules
 * that the counting pass (obj_count.c) and the parsing pass (obj_parse.c) must
 * apply identically, so both see the same statements and the same lines.
 *
 * Bounds: every region handed to these helpers ends with a line end that is not
 * a continuation (see obj_reader.c), or is the copied last line followed by
 * "\n\0". So a scan that stops at line ends never passes the region's end; the
 * one place that steps over a line end inside a statement (a `\` continuation)
 * can reach `end` only in the copied last line, where the NUL after it is
 * readable and stops every scan.
 */
#ifndef MQ_OBJ_OBJ_TEXT_H
#define MQ_OBJ_OBJ_TEXT_H

#include <stdbool.h>
#include <stdint.h>

enum {
    OBJ_BLANK = 1, /* space, tab, vertical tab, form feed */
    OBJ_EOL = 2,   /* '\n', '\r' */
    OBJ_DIGIT = 4, /* 0-9 */
    OBJ_WORD = 8,  /* keyword characters: A-Z a-z 0-9 _ */
    OBJ_SEP = 16,  /* may follow a number or an index: blank, line end, '#', '\\', NUL */
    OBJ_STOP = 32  /* ends a token in the counting pass: blank, line end, '#', '\\', NUL */
};

extern const uint8_t mq_obj_class[256];

static inline unsigned obj_class(char c)
{
    return mq_obj_class[(unsigned char)c];
}
static inline bool obj_is_blank(char c)
{
    return obj_class(c) & OBJ_BLANK;
}
static inline bool obj_is_eol(char c)
{
    return c == '\n' || c == '\r';
}
static inline bool obj_is_digit(char c)
{
    return (unsigned)(c - '0') < 10u;
}

/* Steps over one line end at p ('\n', '\r' or "\r\n"). */
static inline const char *obj_skip_eol(const char *p, const char *end)
{
    if (*p++ == '\r' && p < end && *p == '\n')
        p++;
    return p;
}

/* Skips blanks and `\` + line end continuations, counting the lines stepped over. */
static inline const char *obj_skip_blanks(const char *p, const char *end, uint64_t *lines)
{
    for (;;) {
        while (obj_is_blank(*p))
            p++;
        if (*p != '\\' || !obj_is_eol(p[1]))
            return p;
        p = obj_skip_eol(p + 1, end);
        ++*lines;
        if (p >= end)
            return end; /* only in the copied last line: *end is its NUL sentinel */
    }
}

/* Moves to the line end that ends the physical line (comments end there). */
static inline const char *obj_skip_to_eol(const char *p)
{
    while (!obj_is_eol(*p) && *p)
        p++;
    return p;
}

/*
 * Moves to the line end that ends a statement whose text is free-form (names,
 * skipped statements): continuations join lines, '#' is an ordinary character.
 */
static inline const char *obj_skip_statement(const char *p, const char *end, uint64_t *lines)
{
    for (;;) {
        p = obj_skip_to_eol(p);
        if (!*p || p[-1] != '\\')
            return p;
        p = obj_skip_eol(p, end);
        ++*lines;
        if (p >= end)
            return end;
    }
}

/* The keyword at the start of a statement: a maximal run of word characters. */
static inline const char *obj_skip_word(const char *p)
{
    while (obj_class(*p) & OBJ_WORD)
        p++;
    return p;
}

/* Keyword kinds the two passes tell apart. */
typedef enum obj_keyword {
    OBJ_KW_V,
    OBJ_KW_VT,
    OBJ_KW_VN,
    OBJ_KW_F,
    OBJ_KW_L,
    OBJ_KW_P,
    OBJ_KW_G,
    OBJ_KW_O,
    OBJ_KW_USEMTL,
    OBJ_KW_IGNORED, /* known, carries nothing for the mesh: mtllib, s, vp, free-form geometry... */
    OBJ_KW_UNKNOWN
} obj_keyword;

/* Classifies the keyword [p, q). */
obj_keyword mq_obj_keyword(const char *p, const char *q);

/* The fast classification of the common one- and two-letter keywords. */
static inline obj_keyword obj_keyword_of(const char *p, const char *q)
{
    if (q - p == 1) {
        switch (*p) {
        case 'v':
            return OBJ_KW_V;
        case 'f':
            return OBJ_KW_F;
        default:
            break;
        }
    } else if (q - p == 2 && p[0] == 'v') {
        if (p[1] == 'n')
            return OBJ_KW_VN;
        if (p[1] == 't')
            return OBJ_KW_VT;
    }
    return mq_obj_keyword(p, q);
}

#endif
