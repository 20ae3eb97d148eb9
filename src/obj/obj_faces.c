/*
 * Pass 2 of the OBJ reader, faces: corner indices (v, v/vt, v//vn, v/vt/vn,
 * positive or relative) resolved and checked against the counts, faces written
 * as fans straight into the final arrays, and faces with more than 3 corners
 * listed so the finishing pass can re-cut the concave ones once every position
 * is known (obj_polygons.c).
 */
#include "core/alloc.h"
#include "obj/obj_number.h"
#include "obj/obj_parser.h"

/* What an index refers to, for resolving and for messages. */
typedef struct index_kind {
    const char *name;   /* "vertex" */
    const char *plural; /* "vertices" */
} index_kind;

static const index_kind KIND_V = {"vertex", "vertices"};
static const index_kind KIND_VT = {"texture coordinate", "texture coordinates"};
static const index_kind KIND_VN = {"normal", "normals"};

/* 1-based or negative (relative) index -> 0-based; `so_far` elements are
 * defined before this statement, `total` in the whole file. */
static bool resolve(parser *ps, const char *at, int64_t i, uint64_t so_far, uint64_t total, const index_kind *kind,
                    uint32_t *out)
{
    if (i > 0 && (uint64_t)i <= total) {
        *out = (uint32_t)(i - 1);
        return true;
    }
    if (i < 0 && (uint64_t)-i <= so_far) {
        *out = (uint32_t)(so_far - (uint64_t)-i);
        return true;
    }
    if (i == 0)
        mq_obj_fail(ps, at, MQ_ERR_PARSE, "%s index 0 is invalid: OBJ indices start at 1 (negative ones count back)",
                    kind->name);
    else if (i > 0)
        mq_obj_fail(ps, at, MQ_ERR_PARSE, "%s index %lld is out of range: the file has %llu %s", kind->name,
                    (long long)i, (unsigned long long)total, kind->plural);
    else
        mq_obj_fail(ps, at, MQ_ERR_PARSE,
                    "relative %s index %lld is out of range: only %llu %s are defined before this line", kind->name,
                    (long long)i, (unsigned long long)so_far, kind->plural);
    return false;
}

typedef enum sub_result { SUB_OK, SUB_MALFORMED, SUB_FAILED } sub_result;

/* One optional index after a '/' (empty when a separator or another '/' follows). */
static sub_result parse_sub_index(parser *ps, const char **pp, uint64_t so_far, uint64_t total, const index_kind *kind,
                                  uint32_t *out)
{
    const char *p = *pp;
    if (*p == '/' || (obj_class(*p) & OBJ_SEP))
        return SUB_OK;
    int64_t i;
    const char *q = obj_parse_index(p, &i);
    if (!q)
        return SUB_MALFORMED;
    if (!resolve(ps, p, i, so_far, total, kind, out))
        return SUB_FAILED;
    *pp = q;
    return SUB_OK;
}

/* A positive index of at most 9 digits within 1..total, or false (the general
 * path then parses it again and says what is wrong, if anything). */
static inline bool quick_index(const char **pp, uint64_t total, uint32_t *out)
{
    const char *p = *pp;
    uint32_t v = (uint32_t)(*p - '0');
    if (v > 9)
        return false;
    for (int n = 1; n < 9; n++) {
        uint32_t d = (uint32_t)(p[n] - '0');
        if (d > 9) {
            if (v == 0 || v > total)
                return false;
            *out = v - 1;
            *pp = p + n;
            return true;
        }
        v = v * 10 + d;
    }
    return false;
}

/* The common corners (positive indices, no empty slots) without the general
 * path's bookkeeping; NULL sends the corner to parse_corner_general. */
static inline const char *parse_corner_quick(const parser *ps, const char *p, obj_corner *c)
{
    const obj_counts *total = &ps->out->total;
    if (!quick_index(&p, total->v, &c->v))
        return NULL;
    c->vt = c->vn = MQ_NO_INDEX;
    if (*p == '/') {
        p++;
        if (*p != '/' && !quick_index(&p, total->vt, &c->vt))
            return NULL;
        if (*p == '/') {
            p++;
            if (!quick_index(&p, total->vn, &c->vn))
                return NULL;
        }
    }
    return obj_class(*p) & OBJ_SEP ? p : NULL;
}

/* A corner: v, v/vt, v//vn or v/vt/vn (an empty vt or vn is accepted: "1/", "1//"). */
static const char *parse_corner_general(parser *ps, const char *p, obj_corner *c)
{
    const obj_counts *total = &ps->out->total;
    int64_t i;
    const char *q = obj_parse_index(p, &i);
    sub_result r = SUB_OK;
    c->vt = c->vn = MQ_NO_INDEX;
    if (!q)
        r = SUB_MALFORMED;
    else if (!resolve(ps, p, i, ps->at.v, total->v, &KIND_V, &c->v))
        return NULL;
    else if (*q == '/') {
        q++;
        r = parse_sub_index(ps, &q, ps->at.vt, total->vt, &KIND_VT, &c->vt);
        if (r == SUB_OK && *q == '/') {
            q++;
            r = parse_sub_index(ps, &q, ps->at.vn, total->vn, &KIND_VN, &c->vn);
        }
    }
    if (r == SUB_FAILED)
        return NULL;
    if (r == SUB_MALFORMED || !(obj_class(*q) & OBJ_SEP)) {
        char tok[40];
        mq_obj_token_text(p, tok, sizeof tok);
        return mq_obj_fail(ps, p, MQ_ERR_PARSE,
                           "malformed corner '%s': expected v, v/vt, v//vn or v/vt/vn with integer indices", tok);
    }
    return q;
}

static bool grow_corners(parser *ps)
{
    size_t cap = ps->corner_capacity ? ps->corner_capacity * 2 : 64;
    obj_corner *c = mq_realloc(ps->load->alloc, ps->corners, ps->corner_capacity * sizeof *c, cap * sizeof *c, 16);
    if (!c)
        return false;
    ps->corners = c;
    ps->corner_capacity = cap;
    return true;
}

/* Parses the corners of an f, l or p statement into ps->corners. */
static const char *parse_corners(parser *ps, const char *kw, const char *p, uint32_t *count)
{
    uint32_t n = 0, max = ps->load->options.max_face_vertices;
    for (;;) {
        p = obj_skip_blanks(p, ps->end, &ps->line);
        if (obj_at_statement_end(*p))
            break;
        if (n == max)
            return mq_obj_fail(ps, kw, MQ_ERR_LIMIT,
                               "the element has more than %u corners (mq_obj_options.max_face_vertices)", max);
        if (n == ps->corner_capacity && !grow_corners(ps))
            return mq_obj_fail(ps, kw, MQ_ERR_OUT_OF_MEMORY, "out of memory for the corners of a face");
        obj_corner *c = &ps->corners[n];
        const char *q = parse_corner_quick(ps, p, c);
        if (!q && !(q = parse_corner_general(ps, p, c)))
            return NULL;
        p = q;
        n++;
    }
    if (obj_stray_nul(ps, p))
        return mq_obj_fail(ps, p, MQ_ERR_PARSE, "unexpected NUL byte: binary data, not OBJ text");
    *count = n;
    return p;
}

/* Writes the fan (c0, ck, ck+1) of a face with n corners. */
static void emit_fan(parser *ps, uint32_t face, uint32_t n)
{
    obj_output *o = ps->out;
    const obj_corner *c = ps->corners;
    for (uint32_t k = 0; k < n; k++) {
        ps->chunk->used_vt |= c[k].vt != MQ_NO_INDEX;
        ps->chunk->used_vn |= c[k].vn != MQ_NO_INDEX;
    }
    for (uint32_t k = 1; k + 1 < n; k++) {
        uint64_t t = ps->at.tris++;
        uint32_t *idx = o->indices + 3 * t;
        idx[0] = c[0].v;
        idx[1] = c[k].v;
        idx[2] = c[k + 1].v;
        if (o->corner_texcoords) {
            uint32_t *ct = o->corner_texcoords + 3 * t;
            ct[0] = c[0].vt;
            ct[1] = c[k].vt;
            ct[2] = c[k + 1].vt;
        }
        if (o->corner_normals) {
            uint32_t *cn = o->corner_normals + 3 * t;
            cn[0] = c[0].vn;
            cn[1] = c[k].vn;
            cn[2] = c[k + 1].vn;
        }
        if (o->face_of_tri)
            o->face_of_tri[t] = face;
    }
}

const char *mq_obj_parse_face(parser *ps, const char *kw, const char *p)
{
    uint32_t n;
    if (!(p = parse_corners(ps, kw, p, &n)))
        return NULL;
    if (n < 3)
        return mq_obj_fail(ps, p, MQ_ERR_PARSE, "a face needs at least 3 corners; found %u", n);
    obj_output *o = ps->out;
    if (ps->at.faces >= ps->limit.faces || ps->at.tris + (n - 2) > ps->limit.tris ||
        (n > 3 && ps->at.polygons >= ps->limit.polygons))
        return mq_obj_fail(ps, kw, MQ_ERR_PARSE, "internal error: the counting pass missed a face");
    uint64_t face = ps->at.faces++;
    if (o->face_line32)
        o->face_line32[face] = (uint32_t)ps->stmt_line;
    else
        o->face_line64[face] = ps->stmt_line;
    if (n > 3)
        o->polygons[ps->at.polygons++] = (obj_polygon){(uint32_t)ps->at.tris, n};
    emit_fan(ps, (uint32_t)face, n);
    return obj_end_statement(ps, p);
}

/* l and p: checked like faces, counted, not kept. */
const char *mq_obj_parse_element(parser *ps, const char *kw, const char *p, obj_keyword type)
{
    uint32_t n;
    if (!(p = parse_corners(ps, kw, p, &n)))
        return NULL;
    uint32_t min = type == OBJ_KW_L ? 2 : 1;
    if (n < min)
        return mq_obj_fail(ps, p, MQ_ERR_PARSE, "a %s element needs at least %u %s; found %u",
                           type == OBJ_KW_L ? "line" : "point", min, min == 1 ? "vertex" : "vertices", n);
    return obj_end_statement(ps, p);
}
