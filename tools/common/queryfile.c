#include "queryfile.h"

#include <meshquery/obj.h>
#include <meshquery/primitives.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Up to `max` numbers after position p; returns how many, or -1 when a token is not a number. */
static int numbers(const char *p, float *v, int max)
{
    int n = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (*p == '\0' || *p == '#')
            return n;
        if (n == max)
            return -1;
        char *end;
        double d = strtod(p, &end);
        /* a number ends at a blank, a comment or the line's end ("1-2" is not two numbers) */
        if (end == p || (*end && *end != ' ' && *end != '\t' && *end != '\r' && *end != '\n' && *end != '#'))
            return -1;
        v[n++] = (float)d;
        p = end;
    }
}

static bool allow_convex;

void mqt_queries_allow_convex(bool allow)
{
    allow_convex = allow;
}

mq_convex *mqt_load_convex(const char *path, const mqt_place *place, char *err, size_t err_size)
{
    mq_mesh *m = NULL;
    mq_diag d;
    mq_status st = mq_obj_load(path, NULL, &m, NULL, &d);
    if (st != MQ_OK) {
        snprintf(err, err_size, "%s: %s", path, d.message[0] ? d.message : mq_status_string(st));
        return NULL;
    }
    size_t n = mq_mesh_vertex_count(m);
    float *p = malloc((n ? n : 1) * sizeof(float[3]));
    mq_convex *c = NULL;
    if (!p) {
        snprintf(err, err_size, "%s: out of memory", path);
    } else {
        const float *v = mq_mesh_positions(m);
        for (size_t i = 0; i < n; i++) {
            if (place)
                mqt_place_point(place, v + 3 * i, p + 3 * i);
            else
                memcpy(p + 3 * i, v + 3 * i, sizeof(float[3]));
        }
        st = mq_convex_create(p, n, NULL, &c, &d);
        if (st != MQ_OK)
            snprintf(err, err_size, "%s: %s", path, d.message);
    }
    free(p);
    mq_mesh_destroy(m);
    return c;
}

void mqt_free_queries(mqt_query *q, size_t count)
{
    for (size_t i = 0; q && i < count; i++)
        if (q[i].kind == MQT_CONVEX)
            mq_convex_destroy(q[i].cv);
    free(q);
}

/* "convex FILE tx ty tz qw qx qy qz": the placed hull (p points past the word). */
static bool parse_convex(const char *p, mqt_query *q)
{
    while (*p == ' ' || *p == '\t')
        p++;
    const char *end = p;
    while (*end && *end != ' ' && *end != '\t' && *end != '\r' && *end != '\n' && *end != '#')
        end++;
    if (end == p || (size_t)(end - p) >= 4096)
        return false;
    char path[4096];
    memcpy(path, p, (size_t)(end - p));
    path[end - p] = '\0';
    float f[7];
    if (numbers(end, f, 7) != 7)
        return false;
    mqt_place pl = mqt_place_identity();
    for (int k = 0; k < 3; k++)
        pl.translation[k] = f[k];
    for (int k = 0; k < 4; k++)
        pl.rotation[k] = f[3 + k];
    if (pl.rotation[0] == 0 && pl.rotation[1] == 0 && pl.rotation[2] == 0 && pl.rotation[3] == 0)
        return false;
    char err[512];
    q->cv = mqt_load_convex(path, &pl, err, sizeof err);
    if (!q->cv) {
        fprintf(stderr, "%s\n", err);
        return false;
    }
    q->kind = MQT_CONVEX;
    return true;
}

bool mqt_parse_query(const char *line, mqt_query *q)
{
    memset(q, 0, sizeof *q);
    q->kind = MQT_SHAPE_KINDS;
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line == '\0' || *line == '#' || *line == '\n' || *line == '\r')
        return true;
    if (allow_convex && strncmp(line, "convex", 6) == 0 && (line[6] == ' ' || line[6] == '\t'))
        return parse_convex(line + 6, q);
    static const struct {
        const char *word;
        mqt_shape_kind kind;
        int count;
    } forms[] = {{"sphere", MQT_SPHERE, 4}, {"capsule", MQT_CAPSULE, 7}, {"obb", MQT_OBB, 10}, {"aabb", MQT_AABB, 6}};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        size_t len = strlen(forms[i].word);
        if (strncmp(line, forms[i].word, len) != 0 || (line[len] != ' ' && line[len] != '\t'))
            continue;
        float f[10];
        if (numbers(line + len, f, 10) != forms[i].count)
            return false;
        q->kind = forms[i].kind;
        switch (q->kind) {
        case MQT_SPHERE:
            q->s = (mq_sphere){{f[0], f[1], f[2]}, f[3]};
            break;
        case MQT_CAPSULE:
            q->c = (mq_capsule){{f[0], f[1], f[2]}, {f[3], f[4], f[5]}, f[6]};
            break;
        case MQT_OBB: {
            vec3 c = {f[0], f[1], f[2]}, h = {f[3], f[4], f[5]};
            mq_obb_from_quat(c, h, f + 6, &q->o); /* w, x, y, z: the file's order */
            break;
        }
        case MQT_AABB:
            q->a = (mq_aabb){{f[0], f[1], f[2]}, {f[3], f[4], f[5]}};
            break;
        case MQT_SHAPE_KINDS:
        case MQT_CONVEX:
            break;
        }
        return true;
    }
    return false;
}

static bool parse_query_line(const char *line, void *item, bool *keep);

/* Reads stream `f` line by line, calling `parse` on each; grows *items of `item_size`. */
static bool read_stream(FILE *f, const char *path, bool (*parse)(const char *line, void *item, bool *keep),
                        size_t item_size, const char *expected, void **items, size_t *count, char *err, size_t err_size)
{
    *items = NULL;
    *count = 0;
    char *line = NULL, *buf = NULL;
    size_t line_cap = 0, cap = 0, lineno = 0;
    bool ok = true;
    union {
        mqt_query query;
        mq_rigid rigid;
    } item; /* a union, not a byte array: aligned for either */
    while (ok && getline(&line, &line_cap, f) >= 0) {
        lineno++;
        bool keep = false;
        if (!parse(line, &item, &keep)) {
            snprintf(err, err_size, "%s:%zu: expected %s", path, lineno, expected);
            ok = false;
        } else if (keep) {
            if (*count == cap) {
                size_t ncap = cap ? 2 * cap : 256;
                char *nb = realloc(buf, ncap * item_size);
                if (!nb) {
                    snprintf(err, err_size, "%s: out of memory", path);
                    ok = false;
                    break;
                }
                buf = nb;
                cap = ncap;
            }
            memcpy(buf + *count * item_size, &item, item_size);
            ++*count;
        }
    }
    free(line);
    if (ok && ferror(f)) {
        snprintf(err, err_size, "%s: read error: %s", path, strerror(errno));
        ok = false;
    }
    if (!ok) {
        if (parse == parse_query_line) /* the convexes of the lines read so far */
            for (size_t i = 0; i < *count; i++) {
                mqt_query q;
                memcpy(&q, buf + i * item_size, sizeof q);
                if (q.kind == MQT_CONVEX)
                    mq_convex_destroy(q.cv);
            }
        free(buf);
        buf = NULL;
        *count = 0;
    }
    *items = buf;
    return ok;
}

/* Opens `path` ("-" = standard input) and reads it with read_stream. */
static bool read_lines(const char *path, bool (*parse)(const char *line, void *item, bool *keep), size_t item_size,
                       const char *expected, void **items, size_t *count, char *err, size_t err_size)
{
    *items = NULL;
    *count = 0;
    bool from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(path, "r");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    bool ok = read_stream(f, path, parse, item_size, expected, items, count, err, err_size);
    if (!from_stdin)
        fclose(f);
    return ok;
}

static bool parse_query_line(const char *line, void *item, bool *keep)
{
    mqt_query *q = item;
    if (!mqt_parse_query(line, q))
        return false;
    *keep = q->kind != MQT_SHAPE_KINDS;
    return true;
}

static bool parse_xform_line(const char *line, void *item, bool *keep)
{
    float v[7];
    int n = numbers(line, v, 7);
    if (n == 0)
        return true; /* blank or comment */
    if (n != 7)
        return false;
    *(mq_rigid *)item = (mq_rigid){{v[3], v[4], v[5], v[6]}, {v[0], v[1], v[2]}}; /* w, x, y, z as the file */
    *keep = true;
    return true;
}

#define QUERY_FORMS                                                                                                    \
    "sphere cx cy cz r | capsule ax ay az bx by bz r | obb cx cy cz hx hy hz qw qx qy qz | "                           \
    "aabb minx miny minz maxx maxy maxz"
#define QUERY_FORMS_CONVEX QUERY_FORMS " | convex FILE tx ty tz qw qx qy qz"
#define XFORM_FORM "tx ty tz qw qx qy qz"

bool mqt_read_queries(const char *path, mqt_query **out, size_t *count, char *err, size_t err_size)
{
    void *items;
    bool ok = read_lines(path, parse_query_line, sizeof(mqt_query), allow_convex ? QUERY_FORMS_CONVEX : QUERY_FORMS,
                         &items, count, err, err_size);
    *out = items;
    return ok;
}

bool mqt_read_xforms(const char *path, mq_rigid **out, size_t *count, char *err, size_t err_size)
{
    void *items;
    bool ok = read_lines(path, parse_xform_line, sizeof(mq_rigid), XFORM_FORM, &items, count, err, err_size);
    *out = items;
    return ok;
}

bool mqt_read_queries_stream(FILE *f, const char *name, mqt_query **out, size_t *count, char *err, size_t err_size)
{
    void *items;
    bool ok = read_stream(f, name, parse_query_line, sizeof(mqt_query), allow_convex ? QUERY_FORMS_CONVEX : QUERY_FORMS,
                          &items, count, err, err_size);
    *out = items;
    return ok;
}

bool mqt_read_xforms_stream(FILE *f, const char *name, mq_rigid **out, size_t *count, char *err, size_t err_size)
{
    void *items;
    bool ok = read_stream(f, name, parse_xform_line, sizeof(mq_rigid), XFORM_FORM, &items, count, err, err_size);
    *out = items;
    return ok;
}
