/*
 * libFuzzer target for the shape-query and transform readers of the tools
 * (tools/common/queryfile.h): every input is read both as a .queries file and
 * as a .xforms file (docs/formats.md) through the stream entry points,
 * and each of its lines is parsed on its own with mqt_parse_query.
 *
 * Checked (a violation aborts):
 *   - .queries: the file is accepted exactly when every line parses on its own;
 *     then the queries are those of the non-blank lines, in order, bit for bit;
 *   - .xforms: at most one transform per line;
 *   - failure: no items, count 0, a message that starts with the name.
 * Accepted queries are also run against a small OBB tree (any-overlap, as
 * mq-pick --queries does) and transforms against it with mq_obbtree_any_collide:
 * whatever the numbers (NaN, inf, zero quaternions), no crash and no leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/mesh.h>
#include <meshquery/obbtree.h>

#include "queryfile.h"

#define CHECK(c)                                                                                                       \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "fuzz_tool_queries: check failed (line %d): %s\n", __LINE__, #c);                          \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

static const char NAME[] = "fuzz.queries";

static mq_mesh *g_mesh;
static mq_obbtree *g_tree;

/* A unit tetrahedron and its tree, built once. */
static void make_tree(void)
{
    if (g_tree)
        return;
    static const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const uint32_t idx[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    CHECK(mq_mesh_create(pos, 4, idx, 4, NULL, &g_mesh, NULL) == MQ_OK);
    CHECK(mq_obbtree_build(g_mesh, NULL, &g_tree, NULL) == MQ_OK);
}

static FILE *open_bytes(void *buf, size_t size)
{
    return size ? fmemopen(buf, size, "rb") : fopen("/dev/null", "rb");
}

static size_t line_count(const uint8_t *data, size_t size)
{
    size_t lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    return lines + (size && data[size - 1] != '\n');
}

static void run_query(const mqt_query *q)
{
    switch (q->kind) {
    case MQT_SPHERE:
        (void)mq_obbtree_overlap_any(g_tree, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = q->s}});
        break;
    case MQT_CAPSULE:
        (void)mq_obbtree_overlap_any(g_tree, &(mq_shape){MQ_SHAPE_CAPSULE, {.capsule = q->c}});
        break;
    case MQT_OBB:
        (void)mq_obbtree_overlap_any(g_tree, &(mq_shape){MQ_SHAPE_OBB, {.obb = q->o}});
        break;
    case MQT_AABB:
        (void)mq_obbtree_overlap_any(g_tree, &(mq_shape){MQ_SHAPE_AABB, {.aabb = q->a}});
        break;
    default:
        CHECK(0);
    }
}

static void fuzz_queries(void *buf, const uint8_t *data, size_t size)
{
    FILE *f = open_bytes(buf, size);
    if (!f)
        return;
    mqt_query *qs = NULL;
    size_t count = 12345;
    char err[512] = "";
    bool ok = mqt_read_queries_stream(f, NAME, &qs, &count, err, sizeof err);
    fclose(f);
    if (!ok) {
        CHECK(qs == NULL && count == 0);
        CHECK(strncmp(err, NAME, sizeof NAME - 1) == 0);
    }
    CHECK(count <= line_count(data, size));

    /* Line by line, as getline cuts them; a line is a C string up to its first NUL. */
    char *line = malloc(size + 1);
    CHECK(line != NULL);
    size_t kept = 0;
    bool all_ok = true;
    for (size_t start = 0; start < size && all_ok;) {
        size_t end = start;
        while (end < size && data[end] != '\n')
            end++;
        size_t len = end - start + (end < size); /* getline keeps the '\n' */
        memcpy(line, data + start, len);
        line[len] = '\0';
        start += len;
        mqt_query q;
        if (!mqt_parse_query(line, &q)) {
            all_ok = false;
            break;
        }
        if (q.kind == MQT_SHAPE_KINDS)
            continue;
        CHECK(q.kind < MQT_SHAPE_KINDS);
        if (ok) {
            CHECK(kept < count);
            CHECK(memcmp(&q, &qs[kept], sizeof q) == 0);
        }
        kept++;
        run_query(&q);
    }
    free(line);
    CHECK(ok == all_ok);
    if (ok)
        CHECK(kept == count);
    free(qs);
}

static void fuzz_xforms(void *buf, const uint8_t *data, size_t size)
{
    FILE *f = open_bytes(buf, size);
    if (!f)
        return;
    mq_rigid *xs = NULL;
    size_t count = 12345;
    char err[512] = "";
    bool ok = mqt_read_xforms_stream(f, NAME, &xs, &count, err, sizeof err);
    fclose(f);
    if (!ok) {
        CHECK(xs == NULL && count == 0);
        CHECK(strncmp(err, NAME, sizeof NAME - 1) == 0);
    }
    CHECK(count <= line_count(data, size));
    for (size_t i = 0; i < count && i < 64; i++)
        (void)mq_obbtree_any_collide(g_tree, g_tree, &xs[i]);
    free(xs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    make_tree();
    void *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    fuzz_queries(buf, data, size);
    memcpy(buf, data, size);
    fuzz_xforms(buf, data, size);
    free(buf);
    return 0;
}
