/*
 * Pass 2 of the OBJ reader: parse one chunk's statements and write them straight
 * into the final arrays at the chunk's offsets (obj_internal.h). This half reads
 * statements, vertices and names; faces are in obj_faces.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "obj/obj_number.h"
#include "obj/obj_parser.h"

/* True when the chunks after this one hold nothing but blanks: an error at the
 * end of this one is then at the end of the input (a truncated file?). */
static bool rest_is_blank(const parser *ps)
{
    const obj_load *L = ps->load;
    for (size_t i = ps->index + 1; i < L->chunk_count; i++)
        for (const char *p = L->chunks[i].begin; p < L->chunks[i].end; p++)
            if (!(obj_class(*p) & (OBJ_BLANK | OBJ_EOL)))
                return false;
    return true;
}

const char *mq_obj_fail(parser *ps, const char *at, mq_status status, const char *fmt, ...)
{
    char msg[224];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ps->chunk->status = mq_obj_error_at(&ps->chunk->diag, status, ps->load->name, ps->stmt, ps->stmt_line, at,
                                        rest_is_blank(ps) ? ps->end : NULL, "%s", msg);
    return NULL;
}

static const char *fail_nul(parser *ps, const char *p)
{
    return mq_obj_fail(ps, p, MQ_ERR_PARSE, "unexpected NUL byte: binary data, not OBJ text");
}

const char *mq_obj_end_error(parser *ps, const char *p)
{
    if (p >= ps->end)
        return mq_obj_fail(ps, p, MQ_ERR_PARSE, "the file ends after a line continuation '\\'");
    if (*p == '\0')
        return fail_nul(ps, p);
    char tok[40];
    mq_obj_token_text(p, tok, sizeof tok);
    return mq_obj_fail(ps, p, MQ_ERR_PARSE, "expected the end of the line, found '%s'", tok);
}

/* Parses blank-separated floats into x[0..cap); *count receives how many, or
 * cap + 1 (with the position of the extra one) when there are more. */
static const char *parse_floats(parser *ps, const char *p, float *x, int cap, int *count)
{
    int n = 0;
    for (;;) {
        p = obj_skip_blanks(p, ps->end, &ps->line);
        if (obj_at_statement_end(*p))
            break;
        if (n == cap) {
            *count = cap + 1;
            return p;
        }
        int flags = 0;
        const char *q = obj_parse_float(p, &x[n], &flags);
        char tok[40];
        if (!q || !(obj_class(*q) & OBJ_SEP)) {
            mq_obj_token_text(p, tok, sizeof tok);
            return mq_obj_fail(ps, p, MQ_ERR_PARSE, "malformed number '%s': expected a number such as 1, -0.5 or 1e-3",
                               tok);
        }
        if (flags & OBJ_NUM_NON_FINITE) {
            if (!ps->load->options.allow_non_finite) {
                mq_obj_token_text(p, tok, sizeof tok);
                return mq_obj_fail(ps, p, MQ_ERR_PARSE,
                                   "non-finite number '%s': inf, nan and values beyond the float range are "
                                   "rejected (see mq_obj_options.allow_non_finite)",
                                   tok);
            }
            ps->chunk->non_finite++;
        }
        p = q;
        n++;
    }
    if (obj_stray_nul(ps, p))
        return fail_nul(ps, p);
    *count = n;
    return p;
}

/* The "found N" part of a count error: "2", or "more than 6". */
static const char *count_text(int n, int cap, char buf[24])
{
    if (n > cap)
        snprintf(buf, 24, "more than %d", cap);
    else
        snprintf(buf, 24, "%d", n);
    return buf;
}

/* Gives the chunk its colour array (white) at its first coloured vertex. */
static bool chunk_colors(parser *ps)
{
    obj_chunk *c = ps->chunk;
    if (c->colors)
        return true;
    size_t n = (size_t)c->count.v * 3;
    c->colors = mq_alloc(ps->load->alloc, n * sizeof(float), 16);
    if (!c->colors)
        return false;
    for (size_t i = 0; i < n; i++)
        c->colors[i] = 1.0f;
    return true;
}

static const char *parse_v(parser *ps, const char *kw, const char *p)
{
    float x[6];
    int n;
    if (!(p = parse_floats(ps, p, x, 6, &n)))
        return NULL;
    char found[24];
    if (n != 3 && n != 4 && n != 6)
        return mq_obj_fail(ps, p, MQ_ERR_PARSE,
                           "a vertex needs 3 numbers (x y z), 4 (x y z w) or 6 (x y z r g b); found %s",
                           count_text(n, 6, found));
    if (ps->at.v >= ps->limit.v)
        return mq_obj_fail(ps, kw, MQ_ERR_PARSE, "internal error: the counting pass missed a vertex");
    uint64_t i = ps->at.v++;
    float *dst = ps->out->positions + 3 * i;
    dst[0] = x[0];
    dst[1] = x[1];
    dst[2] = x[2];
    if (n == 6) {
        if (!chunk_colors(ps))
            return mq_obj_fail(ps, kw, MQ_ERR_OUT_OF_MEMORY, "out of memory for vertex colours");
        memcpy(ps->chunk->colors + 3 * (i - ps->chunk->base.v), x + 3, 3 * sizeof(float));
        ps->chunk->colored++;
    }
    return obj_end_statement(ps, p);
}

static const char *parse_vt(parser *ps, const char *kw, const char *p)
{
    float x[3] = {0, 0, 0};
    int n;
    if (!(p = parse_floats(ps, p, x, 3, &n)))
        return NULL;
    char found[24];
    if (n < 1 || n > 3)
        return mq_obj_fail(ps, p, MQ_ERR_PARSE, "a texture coordinate needs 1 to 3 numbers (u [v [w]]); found %s",
                           count_text(n, 3, found));
    if (ps->at.vt >= ps->limit.vt)
        return mq_obj_fail(ps, kw, MQ_ERR_PARSE, "internal error: the counting pass missed a vt");
    float *dst = ps->out->texcoords + 2 * ps->at.vt++;
    dst[0] = x[0];
    dst[1] = x[1];
    return obj_end_statement(ps, p);
}

static const char *parse_vn(parser *ps, const char *kw, const char *p)
{
    float x[3];
    int n;
    if (!(p = parse_floats(ps, p, x, 3, &n)))
        return NULL;
    char found[24];
    if (n != 3)
        return mq_obj_fail(ps, p, MQ_ERR_PARSE, "a normal needs 3 numbers (x y z); found %s", count_text(n, 3, found));
    if (ps->at.vn >= ps->limit.vn)
        return mq_obj_fail(ps, kw, MQ_ERR_PARSE, "internal error: the counting pass missed a vn");
    float *dst = ps->out->normals + 3 * ps->at.vn++;
    dst[0] = x[0];
    dst[1] = x[1];
    dst[2] = x[2];
    return obj_end_statement(ps, p);
}

static bool add_event(parser *ps, uint8_t kind, const char *text, size_t length)
{
    obj_chunk *c = ps->chunk;
    if (c->event_count == c->event_capacity) {
        size_t cap = c->event_capacity ? c->event_capacity * 2 : 16;
        obj_name_event *e = mq_realloc(ps->load->alloc, c->events, c->event_capacity * sizeof *e, cap * sizeof *e, 16);
        if (!e)
            return false;
        c->events = e;
        c->event_capacity = cap;
    }
    c->events[c->event_count++] = (obj_name_event){text, length, ps->at.faces, kind};
    return true;
}

static const char *parse_name(parser *ps, const char *kw, const char *p, uint8_t kind)
{
    const char *q = obj_skip_statement(p, ps->end, &ps->line);
    if (!add_event(ps, kind, p, (size_t)(q - p)))
        return mq_obj_fail(ps, kw, MQ_ERR_OUT_OF_MEMORY, "out of memory for names");
    return obj_end_statement(ps, q);
}

static const char *parse_other(parser *ps, const char *kw, const char *w, obj_keyword type)
{
    if (type == OBJ_KW_UNKNOWN) {
        if (ps->load->options.strict) {
            char tok[40];
            mq_obj_token_text(kw, tok, sizeof tok);
            return mq_obj_fail(ps, kw, MQ_ERR_PARSE, "unknown statement '%s' (strict mode)", tok);
        }
        if (!ps->chunk->unknown++) {
            /* Kept for the case where the file then makes no triangle: it is
             * most likely no OBJ file at all (STL, PLY, any text). */
            char tok[40];
            mq_obj_token_text(kw, tok, sizeof tok);
            ps->chunk->first_unknown_line = ps->stmt_line;
            mq_obj_error_at(&ps->chunk->unknown_diag, MQ_ERR_PARSE, ps->load->name, ps->stmt, ps->stmt_line, kw, NULL,
                            "unknown statement '%s' and no faces: not an OBJ file?", tok);
        }
    } else {
        ps->chunk->ignored++;
    }
    return obj_end_statement(ps, obj_skip_statement(w, ps->end, &ps->line));
}

/* A line that does not start with a keyword: blank, a comment, or an error. */
static const char *parse_non_statement(parser *ps, const char *p)
{
    if (obj_is_eol(*p) || *p == '#')
        return obj_end_statement(ps, p);
    if (p >= ps->end)
        return mq_obj_fail(ps, p, MQ_ERR_PARSE, "the file ends after a line continuation '\\'");
    if (*p == '\0')
        return fail_nul(ps, p);
    char tok[40];
    mq_obj_token_text(p, tok, sizeof tok);
    return mq_obj_fail(ps, p, MQ_ERR_PARSE,
                       "expected a statement (v, vt, vn, f, l, p, g, o, usemtl, ...) or '#', found '%s'", tok);
}

static const char *parse_statement(parser *ps, const char *p)
{
    p = obj_skip_blanks(p, ps->end, &ps->line);
    const char *w = obj_skip_word(p);
    if (w == p)
        return parse_non_statement(ps, p);
    obj_keyword type = obj_keyword_of(p, w);
    if (type <= OBJ_KW_USEMTL && !(obj_class(*w) & OBJ_SEP)) {
        char tok[40];
        mq_obj_token_text(p, tok, sizeof tok);
        return mq_obj_fail(ps, w, MQ_ERR_PARSE, "expected a blank after the keyword in '%s'", tok);
    }
    switch (type) {
    case OBJ_KW_V:
        return parse_v(ps, p, w);
    case OBJ_KW_VT:
        return parse_vt(ps, p, w);
    case OBJ_KW_VN:
        return parse_vn(ps, p, w);
    case OBJ_KW_F:
        return mq_obj_parse_face(ps, p, w);
    case OBJ_KW_L:
    case OBJ_KW_P:
        return mq_obj_parse_element(ps, p, w, type);
    case OBJ_KW_G:
        return parse_name(ps, p, w, MQ_NAME_GROUP);
    case OBJ_KW_O:
        return parse_name(ps, p, w, MQ_NAME_OBJECT);
    case OBJ_KW_USEMTL:
        return parse_name(ps, p, w, MQ_NAME_MATERIAL);
    default:
        return parse_other(ps, p, w, type);
    }
}

static void init_parser(parser *ps, obj_load *load, size_t index)
{
    obj_chunk *c = &load->chunks[index];
    memset(ps, 0, sizeof *ps);
    ps->load = load;
    ps->chunk = c;
    ps->out = &load->out;
    ps->begin = c->begin;
    ps->end = c->end;
    ps->index = index;
    ps->line = c->base.lines + 1;
    ps->at = c->base;
    ps->limit = c->base;
    ps->limit.v += c->count.v;
    ps->limit.vt += c->count.vt;
    ps->limit.vn += c->count.vn;
    ps->limit.faces += c->count.faces;
    ps->limit.tris += c->count.tris;
    ps->limit.polygons += c->count.polygons;
}

/* After a clean parse every cursor must sit at the end of the chunk's range:
 * the counting pass and this one saw the same statements. */
static bool counts_agree(const parser *ps)
{
    const obj_counts *a = &ps->at, *l = &ps->limit;
    return a->v == l->v && a->vt == l->vt && a->vn == l->vn && a->faces == l->faces && a->tris == l->tris &&
           a->polygons == l->polygons;
}

static void mark_failed(obj_load *load, size_t index)
{
    size_t seen = atomic_load(&load->first_failed);
    while (index < seen && !atomic_compare_exchange_weak(&load->first_failed, &seen, index)) {
    }
}

void mq_obj_parse_chunk(obj_load *load, size_t index)
{
    parser ps;
    init_parser(&ps, load, index);
    const char *p = ps.begin;
    while (p < ps.end) {
        if (atomic_load_explicit(&load->first_failed, memory_order_relaxed) < index)
            break; /* an earlier chunk failed: its error is the one reported */
        ps.stmt = p;
        ps.stmt_line = ps.line;
        if (!(p = parse_statement(&ps, p)))
            break;
    }
    if (p && p >= ps.end && !counts_agree(&ps)) {
        ps.stmt = ps.begin;
        ps.stmt_line = ps.chunk->base.lines + 1;
        mq_obj_fail(&ps, ps.begin, MQ_ERR_PARSE, "internal error: the counting and parsing passes disagree");
    }
    if (ps.chunk->status != MQ_OK)
        mark_failed(load, index);
    mq_free(load->alloc, ps.corners, ps.corner_capacity * sizeof *ps.corners);
}
