/*
 * mq-pick --contacts: for each shape (--sphere, --capsule, --box, --aabb and
 * the lines of --queries), the contact with every triangle it overlaps
 * (meshquery/contacts.h), triangles increasing: JSON lines, CSV or a table
 * (docs/formats.md, "contacts").
 */
#include "pick_clash.h"

#include <stdlib.h>
#include <string.h>

#include <meshquery/contacts.h>

#include "pick_common.h"
#include "pick_load.h"
#include "queryfile.h"

static mq_shape shape_of(const mqt_query *q)
{
    switch (q->kind) {
    case MQT_SPHERE:
        return mq_shape_sphere(q->s);
    case MQT_CAPSULE:
        return mq_shape_capsule(q->c);
    case MQT_OBB:
        return mq_shape_obb(q->o);
    default:
        return mq_shape_aabb(q->a);
    }
}

static int cmp_contact(const void *x, const void *y)
{
    uint32_t a = ((const mq_contact *)x)->triangle, b = ((const mq_contact *)y)->triangle;
    return a < b ? -1 : a > b;
}

static void put3(FILE *f, const double v[3], pick_shape_format fmt)
{
    if (fmt == SHAPES_JSON)
        fprintf(f, "[%.17g, %.17g, %.17g]", v[0], v[1], v[2]);
    else if (fmt == SHAPES_CSV)
        fprintf(f, "%.17g,%.17g,%.17g", v[0], v[1], v[2]);
    else
        fprintf(f, "(%.9g, %.9g, %.9g)", v[0], v[1], v[2]);
}

static void write_contact(FILE *f, pick_shape_format fmt, size_t query, const mq_contact *k, const mq_mesh *mesh,
                          const char *path)
{
    uint32_t face = mq_mesh_face_index(mesh, k->triangle);
    unsigned long long line = (unsigned long long)mq_mesh_face_line(mesh, face);
    if (fmt == SHAPES_JSON) {
        fprintf(f, "{\"query\": %zu, \"triangle\": %u, \"depth\": %.17g, \"normal\": ", query, k->triangle, k->depth);
        put3(f, k->normal, fmt);
        fputs(", \"point_shape\": ", f);
        put3(f, k->point_shape, fmt);
        fputs(", \"point_triangle\": ", f);
        put3(f, k->point_triangle, fmt);
        fputs(", \"file\": ", f);
        pick_clash_json_string(f, path);
        fprintf(f, ", \"face\": %u, \"line\": %llu}\n", face, line);
    } else if (fmt == SHAPES_CSV) {
        fprintf(f, "%zu,%u,%.17g,", query, k->triangle, k->depth);
        put3(f, k->normal, fmt);
        fputc(',', f);
        put3(f, k->point_shape, fmt);
        fputc(',', f);
        put3(f, k->point_triangle, fmt);
        fputc(',', f);
        pick_clash_csv_string(f, path);
        fprintf(f, ",%u,%llu\n", face, line);
    } else {
        fprintf(f, "%6zu %10u %14.9g  ", query, k->triangle, k->depth);
        put3(f, k->normal, fmt);
        fputs("  ", f);
        put3(f, k->point_shape, fmt);
        fputs("  ", f);
        put3(f, k->point_triangle, fmt);
        fprintf(f, "  %s:%llu\n", path, line);
    }
}

int pick_run_contacts(const pick_options *o)
{
    pick_model m = {0};
    mqt_query *file_queries = NULL, *all = NULL;
    size_t file_count = 0;
    mq_contact *buf = NULL;
    FILE *out = NULL;
    int rc = 1;
    char err[512];
    if (o->queries_path && !mqt_read_queries(o->queries_path, &file_queries, &file_count, err, sizeof err)) {
        fprintf(stderr, "mq-pick: %s\n", err);
        goto done;
    }
    size_t n = file_count + o->shape_count;
    all = malloc((n ? n : 1) * sizeof *all);
    if (!all) {
        fprintf(stderr, "mq-pick: out of memory\n");
        goto done;
    }
    if (file_count)
        memcpy(all, file_queries, file_count * sizeof *all);
    if (o->shape_count)
        memcpy(all + file_count, o->shapes, o->shape_count * sizeof *all);
    if (!pick_model_load(&m, o->meshes[0].path, o->strict) ||
        !pick_model_obbtree(&m, o->hierarchy ? o->hierarchy : "obb"))
        goto done;
    out = pick_open_out(o->out_path, false);
    if (!out)
        goto done;
    pick_shape_format fmt = pick_shape_format_of(o);
    if (fmt == SHAPES_CSV)
        fputs("query,triangle,depth,normal_x,normal_y,normal_z,point_shape_x,point_shape_y,point_shape_z,"
              "point_triangle_x,point_triangle_y,point_triangle_z,file,face,line\n",
              out);
    else if (fmt != SHAPES_JSON)
        fprintf(out, "%6s %10s %14s  %s  %s  %s  %s\n", "query", "triangle", "depth", "normal", "point_shape",
                "point_triangle", "file:line");
    size_t cap = 0, total = 0;
    for (size_t q = 0; q < n; q++) {
        mq_shape s = shape_of(&all[q]);
        size_t k = mq_obbtree_contacts_array(m.obbtree, &s, buf, cap);
        if (k > cap) {
            mq_contact *nb = realloc(buf, k * sizeof *nb);
            if (!nb) {
                fprintf(stderr, "mq-pick: out of memory\n");
                goto done;
            }
            buf = nb;
            cap = k;
            k = mq_obbtree_contacts_array(m.obbtree, &s, buf, cap);
        }
        qsort(buf, k, sizeof *buf, cmp_contact);
        for (size_t i = 0; i < k; i++)
            write_contact(out, fmt, q, &buf[i], m.mesh, o->meshes[0].path);
        total += k;
    }
    if (fmt != SHAPES_JSON && fmt != SHAPES_CSV)
        fprintf(out, "%zu contact%s for %zu shape%s\n", total, total == 1 ? "" : "s", n, n == 1 ? "" : "s");
    rc = 0;
done:
    if (out && !pick_close_out(out, o->out_path, rc == 0))
        rc = 1;
    free(buf);
    free(all);
    free(file_queries);
    pick_model_free(&m);
    return rc;
}
