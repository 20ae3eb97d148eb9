#include "pick_shapes.h"

#include <stdlib.h>
#include <string.h>

#include "queryfile.h"

mq_obbtree *pick_build_tree(const mq_mesh *mesh, const char *hierarchy)
{
    mq_obbtree_def def = mq_default_obbtree_def();
    def.fit = strcmp(hierarchy, "aabb") == 0 ? MQ_OBB_FIT_AABB : MQ_OBB_FIT_DITO;
    mq_obbtree *tree = NULL;
    mq_diag diag;
    mq_status st = mq_obbtree_build(mesh, &def, &tree, &diag);
    if (st != MQ_OK)
        fprintf(stderr, "mq-pick: building the %s tree failed: %s (%s)\n", hierarchy, diag.message,
                mq_status_string(st));
    return tree;
}

/* The overlapping ids of one query, in a growable array. */
static size_t overlap_ids(const mq_obbtree *t, const mqt_query *q, uint32_t *out, size_t cap)
{
    switch (q->kind) {
    case MQT_SPHERE:
        return mq_obbtree_overlap_sphere_array(t, &q->s, out, cap);
    case MQT_CAPSULE:
        return mq_obbtree_overlap_capsule_array(t, &q->c, out, cap);
    case MQT_OBB:
        return mq_obbtree_overlap_obb_array(t, &q->o, out, cap);
    case MQT_AABB:
        return mq_obbtree_overlap_aabb_array(t, &q->a, out, cap);
    case MQT_SHAPE_KINDS:
        break;
    }
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void write_overlaps(FILE *out, size_t index, const uint32_t *ids, size_t n, bool json)
{
    if (json)
        fprintf(out, "{\"query\":%zu,\"count\":%zu,\"triangles\":[", index, n);
    else
        fprintf(out, "%zu", n);
    for (size_t i = 0; i < n; i++)
        fprintf(out, json ? (i ? ",%u" : "%u") : " %u", ids[i]);
    fputs(json ? "]}\n" : "\n", out);
}

int pick_run_queries(const mq_obbtree *tree, const char *queries_path, FILE *out, bool json)
{
    mqt_query *queries;
    size_t count;
    char err[512];
    if (!mqt_read_queries(queries_path, &queries, &count, err, sizeof err)) {
        fprintf(stderr, "mq-pick: %s\n", err);
        return 1;
    }
    size_t cap = 1024;
    uint32_t *ids = malloc(cap * sizeof *ids);
    int rc = ids ? 0 : 1;
    for (size_t i = 0; i < count && rc == 0; i++) {
        size_t n = overlap_ids(tree, &queries[i], ids, cap);
        if (n > cap) { /* the array form returns the total: grow and ask again */
            uint32_t *bigger = realloc(ids, n * sizeof *ids);
            if (!bigger) {
                rc = 1;
                break;
            }
            ids = bigger;
            cap = n;
            n = overlap_ids(tree, &queries[i], ids, cap);
        }
        qsort(ids, n, sizeof *ids, cmp_u32);
        write_overlaps(out, i, ids, n, json);
    }
    if (rc)
        fprintf(stderr, "mq-pick: out of memory\n");
    free(ids);
    free(queries);
    return rc;
}

int pick_run_collide(const mq_obbtree *a, const mq_obbtree *b, const char *xforms_path, bool any, FILE *out,
                     bool json)
{
    mq_rigid *xforms;
    size_t count;
    char err[512];
    if (!mqt_read_xforms(xforms_path, &xforms, &count, err, sizeof err)) {
        fprintf(stderr, "mq-pick: %s\n", err);
        return 1;
    }
    for (size_t i = 0; i < count; i++) {
        size_t n = any ? (size_t)mq_obbtree_any_collide(a, b, &xforms[i])
                       : mq_obbtree_collide_array(a, b, &xforms[i], NULL, 0);
        if (json)
            fprintf(out, "{\"xform\":%zu,\"%s\":%zu}\n", i, any ? "intersects" : "pairs", n);
        else
            fprintf(out, "%zu\n", n);
    }
    free(xforms);
    return 0;
}
