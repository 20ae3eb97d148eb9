#include "pick_shapes.h"

#include <stdlib.h>
#include <string.h>

#include "pick_progress.h"
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

static const char *const shape_names[] = {"sphere", "capsule", "obb", "aabb"};

/* The world (double) form of a query, for a scene. */
static mq_dshape to_dshape(const mqt_query *q)
{
    mq_dshape d;
    memset(&d, 0, sizeof d);
    for (int k = 0; k < 3; k++)
        switch (q->kind) {
        case MQT_SPHERE:
            d.kind = MQ_SHAPE_SPHERE;
            d.u.sphere.center[k] = q->s.center[k];
            d.u.sphere.radius = q->s.radius;
            break;
        case MQT_CAPSULE:
            d.kind = MQ_SHAPE_CAPSULE;
            d.u.capsule.a[k] = q->c.a[k];
            d.u.capsule.b[k] = q->c.b[k];
            d.u.capsule.radius = q->c.radius;
            break;
        case MQT_OBB:
            d.kind = MQ_SHAPE_OBB;
            d.u.obb.center[k] = q->o.center[k];
            d.u.obb.half[k] = q->o.half[k];
            for (int j = 0; j < 3; j++)
                d.u.obb.axes[k][j] = q->o.axes[k][j];
            break;
        case MQT_AABB:
            d.kind = MQ_SHAPE_AABB;
            d.u.aabb.min[k] = q->a.min[k];
            d.u.aabb.max[k] = q->a.max[k];
            break;
        case MQT_CONVEX:
            d.kind = MQ_SHAPE_CONVEX;
            d.u.convex = (mq_dconvex){q->cv, {0, 0, 0}, {1, 0, 0, 0}}; /* the hull is placed already */
            break;
        case MQT_SHAPE_KINDS:
            break;
        }
    return d;
}

/* Up to `cap` overlapping (instance, triangle) of query q into items (ids: scratch); returns the total. */
static size_t overlaps(const pick_target *t, const mqt_query *q, mq_instance_triangle *items, uint32_t *ids, size_t cap)
{
    if (t->scene) {
        mq_dshape d = to_dshape(q);
        return mq_scene_overlap_array(t->scene, &d, NULL, items, cap);
    }
    mq_shape s;
    switch (q->kind) {
    case MQT_SPHERE:
        s = (mq_shape){MQ_SHAPE_SPHERE, {.sphere = q->s}};
        break;
    case MQT_CAPSULE:
        s = (mq_shape){MQ_SHAPE_CAPSULE, {.capsule = q->c}};
        break;
    case MQT_OBB:
        s = (mq_shape){MQ_SHAPE_OBB, {.obb = q->o}};
        break;
    case MQT_AABB:
        s = (mq_shape){MQ_SHAPE_AABB, {.aabb = q->a}};
        break;
    case MQT_CONVEX:
        s = mq_shape_convex(q->cv);
        break;
    default:
        return 0;
    }
    size_t n = t->kdop     ? mq_kdoptree_overlap_array(t->kdop, &s, ids, cap)
               : t->sphere ? mq_spheretree_overlap_array(t->sphere, &s, ids, cap)
                           : mq_obbtree_overlap_array(t->tree, &s, ids, cap);
    for (size_t i = 0; i < n && i < cap; i++)
        items[i] = (mq_instance_triangle){0, ids[i]};
    return n;
}

static int cmp_item(const void *a, const void *b)
{
    const mq_instance_triangle *x = a, *y = b;
    if (x->instance != y->instance)
        return (x->instance > y->instance) - (x->instance < y->instance);
    return (x->triangle > y->triangle) - (x->triangle < y->triangle);
}

/* One overlapping triangle's file, instance, triangle, face, line and names. */
static void write_item(const pick_target *t, mqt_textbuf *b, const mq_instance_triangle *it, pick_shape_format f)
{
    const pick_source *s = &t->sources[it->instance];
    mq_triangle_source src;
    mq_mesh_triangle_source(s->mesh, it->triangle, &src);
    char text[160];
    if (f == SHAPES_JSON) {
        mqt_tb_str(b, "{\"file\":");
        mqt_tb_json_string(b, s->path);
        if (t->name_instance) {
            mqt_tb_str(b, ",\"instance\":");
            mqt_tb_u64(b, it->instance);
        }
        snprintf(text, sizeof text, ",\"triangle\":%u,\"face\":%u,\"line\":%llu}", it->triangle, src.face,
                 (unsigned long long)src.line);
        mqt_tb_str(b, text);
    } else if (f == SHAPES_CSV) {
        pick_csv_string(b, s->path);
        if (t->name_instance) {
            mqt_tb_char(b, ',');
            mqt_tb_u64(b, it->instance);
        }
        snprintf(text, sizeof text, ",%u,%u,%llu,", it->triangle, src.face, (unsigned long long)src.line);
        mqt_tb_str(b, text);
        pick_csv_string(b, src.group);
        mqt_tb_char(b, ',');
        pick_csv_string(b, src.object);
        mqt_tb_char(b, ',');
        pick_csv_string(b, src.material);
    } else {
        snprintf(text, sizeof text, "%9u %8u %9llu  ", it->triangle, src.face, (unsigned long long)src.line);
        mqt_tb_str(b, text);
        mqt_tb_str(b, s->path);
        if (t->name_instance) {
            snprintf(text, sizeof text, " (instance %u)", it->instance);
            mqt_tb_str(b, text);
        }
        snprintf(text, sizeof text, "  %s/%s/%s", src.group[0] ? src.group : "-", src.object[0] ? src.object : "-",
                 src.material[0] ? src.material : "-");
        mqt_tb_str(b, text);
    }
}

/* The answer to query `index`: items sorted. */
static void write_answer(const pick_target *t, mqt_textbuf *b, size_t index, const mqt_query *q,
                         const mq_instance_triangle *items, size_t n, pick_shape_format f)
{
    char head[96];
    const char *shape = q->kind == MQT_CONVEX ? "convex" : shape_names[q->kind];
    if (f == SHAPES_OVERLAPS || f == SHAPES_JSON) {
        if (f == SHAPES_JSON)
            snprintf(head, sizeof head, "{\"query\":%zu,\"count\":%zu,\"triangles\":[", index, n);
        else
            snprintf(head, sizeof head, "%zu", n);
        mqt_tb_str(b, head);
        for (size_t i = 0; i < n; i++) {
            if (f == SHAPES_OVERLAPS || i > 0)
                mqt_tb_char(b, f == SHAPES_JSON ? ',' : ' ');
            mqt_tb_u64(b, (uint64_t)t->sources[items[i].instance].first_triangle + items[i].triangle);
        }
        if (f == SHAPES_JSON) {
            mqt_tb_str(b, "],\"shape\":\"");
            mqt_tb_str(b, shape);
            mqt_tb_str(b, "\",\"overlaps\":[");
            for (size_t i = 0; i < n; i++) {
                if (i)
                    mqt_tb_char(b, ',');
                write_item(t, b, &items[i], f);
            }
            mqt_tb_str(b, "]}");
        }
        mqt_tb_char(b, '\n');
        return;
    }
    for (size_t i = 0; i < (n ? n : 1); i++) {
        snprintf(head, sizeof head, f == SHAPES_CSV ? "%zu,%s,%zu," : "%6zu %-8s %6zu ", index, shape, n);
        mqt_tb_str(b, head);
        if (n)
            write_item(t, b, &items[i], f);
        else
            mqt_tb_str(b, f == SHAPES_CSV ? (t->name_instance ? ",,,,,,," : ",,,,,,") : "(none)");
        mqt_tb_char(b, '\n');
    }
}

static void write_header(const pick_target *t, mqt_textbuf *b, pick_shape_format f)
{
    if (f == SHAPES_CSV)
        mqt_tb_str(b, t->name_instance ? "query,shape,count,file,instance,triangle,face,line,group,object,material\n"
                                       : "query,shape,count,file,triangle,face,line,group,object,material\n");
    if (f == SHAPES_TABLE) {
        char head[160];
        snprintf(head, sizeof head, "%6s %-8s %6s %9s %8s %9s  %s\n", "query", "shape", "count", "triangle", "face",
                 "line", "file  group/object/material");
        mqt_tb_str(b, head);
    }
}

/* The file's queries followed by the command line's, in one malloc'ed array. */
static bool gather(const char *path, const mqt_query *extra, size_t extra_count, mqt_query **all, size_t *count,
                   size_t *from_file)
{
    mqt_query *queries = NULL;
    size_t n = 0;
    char err[512];
    if (path && !mqt_read_queries(path, &queries, &n, err, sizeof err)) {
        fprintf(stderr, "mq-pick: %s\n", err);
        return false;
    }
    *from_file = n;
    mqt_query *grown = realloc(queries, (n + extra_count + 1) * sizeof *grown);
    if (!grown) {
        mqt_free_queries(queries, n);
        fprintf(stderr, "mq-pick: out of memory\n");
        return false;
    }
    if (extra_count)
        memcpy(grown + n, extra, extra_count * sizeof *extra);
    *all = grown;
    *count = n + extra_count;
    return true;
}

int pick_run_queries(const pick_target *t, const char *queries_path, const mqt_query *extra, size_t extra_count,
                     FILE *out, pick_shape_format format)
{
    mqt_query *queries;
    size_t count, from_file = 0;
    if (!gather(queries_path, extra, extra_count, &queries, &count, &from_file))
        return 1;
    size_t cap = 1024;
    mq_instance_triangle *items = malloc(cap * sizeof *items);
    uint32_t *ids = malloc(cap * sizeof *ids);
    mqt_textbuf *b = calloc(1, sizeof *b);
    int rc = items && ids && b ? 0 : 1;
    pick_progress bar;
    pick_progress_start(&bar, "overlaps", count);
    if (b) {
        mqt_tb_init(b, out);
        write_header(t, b, format);
    }
    for (size_t i = 0; i < count && rc == 0; i++) {
        size_t n = overlaps(t, &queries[i], items, ids, cap);
        if (n > cap) { /* the array forms return the total: grow and ask again */
            mq_instance_triangle *more_items = realloc(items, n * sizeof *items);
            items = more_items ? more_items : items;
            uint32_t *more_ids = realloc(ids, n * sizeof *ids);
            ids = more_ids ? more_ids : ids;
            if (!more_items || !more_ids) {
                rc = 1;
                break;
            }
            cap = n;
            n = overlaps(t, &queries[i], items, ids, cap);
        }
        qsort(items, n, sizeof *items, cmp_item);
        write_answer(t, b, i, &queries[i], items, n, format);
        if ((i & 255) == 0)
            pick_progress_update(&bar, i);
    }
    pick_progress_end(&bar);
    if (rc)
        fprintf(stderr, "mq-pick: out of memory\n");
    if (b && !mqt_tb_flush(b) && rc == 0) {
        fprintf(stderr, "mq-pick: writing the answers failed\n");
        rc = 1;
    }
    free(b);
    free(ids);
    free(items);
    mqt_free_queries(queries, from_file); /* the command line's convexes belong to the options */
    return rc;
}

static int cmp_pair(const void *x, const void *y)
{
    const mq_tri_pair *p = x, *q = y;
    if (p->a != q->a)
        return (p->a > q->a) - (p->a < q->a);
    return (p->b > q->b) - (p->b < q->b);
}

/* The answer to transform `i`: `n` pairs (or 0/1 when `any`), the pairs themselves when listed. */
static void write_collide(FILE *out, size_t i, bool any, size_t n, const mq_tri_pair *pairs, bool list,
                          pick_shape_format f)
{
    const char *key = any ? "intersects" : "pairs";
    switch (f) {
    case SHAPES_OVERLAPS:
        fprintf(out, "%zu", n);
        for (size_t k = 0; list && k < n; k++)
            fprintf(out, " %u,%u", pairs[k].a, pairs[k].b);
        fputc('\n', out);
        break;
    case SHAPES_JSON:
        fprintf(out, "{\"xform\":%zu,\"%s\":%zu", i, key, n);
        if (list) {
            fputs(",\"triangle_pairs\":[", out);
            for (size_t k = 0; k < n; k++)
                fprintf(out, "%s[%u,%u]", k ? "," : "", pairs[k].a, pairs[k].b);
            fputc(']', out);
        }
        fputs("}\n", out);
        break;
    case SHAPES_CSV:
    case SHAPES_TABLE: {
        const char *row = f == SHAPES_CSV ? "%zu,%zu" : "%6zu %8zu";
        if (!list) {
            fprintf(out, row, i, n);
            fputc('\n', out);
            break;
        }
        for (size_t k = 0; k < (n ? n : 1); k++) {
            fprintf(out, row, i, n);
            if (n)
                fprintf(out, f == SHAPES_CSV ? ",%u,%u\n" : " %9u %9u\n", pairs[k].a, pairs[k].b);
            else
                fputs(f == SHAPES_CSV ? ",,\n" : " (none)\n", out);
        }
        break;
    }
    }
}

/* Mesh vs mesh on the two models' trees of one kind (pick_model_tree). */
static size_t collide_array(const pick_model *a, const pick_model *b, const mq_rigid *xf, mq_tri_pair *out, size_t cap)
{
    if (a->kdop && b->kdop)
        return mq_kdoptree_collide_array(a->kdop, b->kdop, xf, out, cap);
    if (a->sphere && b->sphere)
        return mq_spheretree_collide_array(a->sphere, b->sphere, xf, out, cap);
    return mq_obbtree_collide_array(a->obbtree, b->obbtree, xf, out, cap);
}

static bool any_collide(const pick_model *a, const pick_model *b, const mq_rigid *xf)
{
    if (a->kdop && b->kdop)
        return mq_kdoptree_any_collide(a->kdop, b->kdop, xf);
    if (a->sphere && b->sphere)
        return mq_spheretree_any_collide(a->sphere, b->sphere, xf);
    return mq_obbtree_any_collide(a->obbtree, b->obbtree, xf);
}

int pick_run_collide(const pick_model *a, const pick_model *b, const char *xforms_path, bool any, bool list, FILE *out,
                     pick_shape_format format)
{
    mq_rigid *xforms;
    size_t count;
    char err[512];
    if (!mqt_read_xforms(xforms_path, &xforms, &count, err, sizeof err)) {
        fprintf(stderr, "mq-pick: %s\n", err);
        return 1;
    }
    const char *key = any ? "intersects" : "pairs";
    if (format == SHAPES_CSV)
        fprintf(out, list ? "xform,%s,triangle,other_triangle\n" : "xform,%s\n", key);
    if (format == SHAPES_TABLE)
        fprintf(out, list ? "%6s %8s %9s %9s\n" : "%6s %8s\n", "xform", key, "triangle", "other");
    mq_tri_pair *pairs = NULL;
    size_t cap = 0;
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        size_t n;
        if (any) {
            n = (size_t)any_collide(a, b, &xforms[i]);
        } else {
            n = collide_array(a, b, &xforms[i], pairs, list ? cap : 0);
            if (list && n > cap) { /* the array form returns the total: grow and ask again */
                mq_tri_pair *more = realloc(pairs, n * sizeof *more);
                if (!more) {
                    fprintf(stderr, "mq-pick: out of memory\n");
                    rc = 1;
                    break;
                }
                pairs = more;
                cap = n;
                n = collide_array(a, b, &xforms[i], pairs, cap);
            }
            if (list)
                qsort(pairs, n, sizeof *pairs, cmp_pair);
        }
        write_collide(out, i, any, n, pairs, list && !any, format);
    }
    free(pairs);
    free(xforms);
    return rc;
}
