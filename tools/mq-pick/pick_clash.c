/*
 * mq-pick --clash: the meshes as instances of one scene (each placed by its
 * --place), mq_scene_clash over them, one record per clashing pair sorted by
 * (instance_a, instance_b): JSON lines, CSV or a table (docs/formats.md,
 * "clash").
 */
#include "pick_clash.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/clash.h>

#include "pick_common.h"
#include "pick_load.h"

void pick_clash_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void pick_clash_csv_string(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

/* --pairs: the triangle pairs within D listed per clash, at most this many. */
#define PICK_CLASH_MAX_PAIRS 1000

typedef struct clash_run {
    const pick_options *o;
    pick_model *models;
    size_t model_count;
    size_t *model_of;
    mq_scene *scene;
} clash_run;

static bool build(clash_run *r)
{
    const pick_options *o = r->o;
    const char *hierarchy = o->hierarchy ? o->hierarchy : "obb";
    r->models = calloc(o->mesh_count, sizeof *r->models);
    r->model_of = calloc(o->mesh_count, sizeof *r->model_of);
    if (!r->models || !r->model_of) {
        fprintf(stderr, "mq-pick: out of memory\n");
        return false;
    }
    for (size_t i = 0; i < o->mesh_count; i++) {
        size_t k = 0;
        while (k < r->model_count && strcmp(r->models[k].path, o->meshes[i].path))
            k++;
        if (k == r->model_count) {
            if (!pick_model_load(&r->models[r->model_count++], o->meshes[i].path, o->strict) ||
                !pick_model_obbtree(&r->models[k], hierarchy))
                return false;
        }
        r->model_of[i] = k;
    }
    mq_diag diag = {0};
    mq_status st = mq_scene_create(NULL, &r->scene, &diag);
    for (size_t i = 0; i < o->mesh_count && st == MQ_OK; i++) {
        const pick_mesh_arg *a = &o->meshes[i];
        mq_instance_def def = mq_default_instance_def();
        def.obbtree = r->models[r->model_of[i]].obbtree;
        def.transform = mq_xform_from_trs(a->translation, a->rotation, a->scale);
        def.user_id = i;
        uint32_t id = 0;
        st = mq_scene_add(r->scene, &def, &id, &diag);
        if (st != MQ_OK)
            fprintf(stderr, "mq-pick: cannot place %s (mesh argument %zu): %s (%s)\n", a->path, i + 1, diag.message,
                    mq_status_string(st));
    }
    if (st == MQ_OK && (st = mq_scene_commit(r->scene, &diag)) != MQ_OK)
        fprintf(stderr, "mq-pick: building the scene failed: %s (%s)\n", diag.message, mq_status_string(st));
    return st == MQ_OK;
}

static const mq_mesh *mesh_of(const clash_run *r, uint32_t instance)
{
    return r->models[r->model_of[instance]].mesh;
}

static void put_point(FILE *f, const double p[3])
{
    fprintf(f, "[%.17g, %.17g, %.17g]", p[0], p[1], p[2]);
}

static void write_json(const clash_run *r, FILE *f, const mq_clash *c, const mq_clash_tri_pair *pairs, size_t np)
{
    const mq_mesh *ma = mesh_of(r, c->instance_a), *mb = mesh_of(r, c->instance_b);
    uint32_t fa = mq_mesh_face_index(ma, c->triangle_a), fb = mq_mesh_face_index(mb, c->triangle_b);
    fprintf(f, "{\"instance_a\": %u, \"instance_b\": %u, \"distance\": %.17g, \"triangle_a\": %u, \"triangle_b\": %u, ",
            c->instance_a, c->instance_b, c->distance, c->triangle_a, c->triangle_b);
    fputs("\"point_a\": ", f);
    put_point(f, c->point_a);
    fputs(", \"point_b\": ", f);
    put_point(f, c->point_b);
    fputs(", \"file_a\": ", f);
    pick_clash_json_string(f, r->o->meshes[c->instance_a].path);
    fputs(", \"file_b\": ", f);
    pick_clash_json_string(f, r->o->meshes[c->instance_b].path);
    fprintf(f, ", \"face_a\": %u, \"line_a\": %llu, \"face_b\": %u, \"line_b\": %llu", fa,
            (unsigned long long)mq_mesh_face_line(ma, fa), fb, (unsigned long long)mq_mesh_face_line(mb, fb));
    if (pairs) {
        fputs(", \"triangle_pairs\": [", f);
        for (size_t k = 0; k < np; k++)
            fprintf(f, "%s[%u, %u, %.17g]", k ? ", " : "", pairs[k].triangle_a, pairs[k].triangle_b, pairs[k].distance);
        fputc(']', f);
    }
    fputs("}\n", f);
}

static void write_csv(const clash_run *r, FILE *f, const mq_clash *c)
{
    const mq_mesh *ma = mesh_of(r, c->instance_a), *mb = mesh_of(r, c->instance_b);
    uint32_t fa = mq_mesh_face_index(ma, c->triangle_a), fb = mq_mesh_face_index(mb, c->triangle_b);
    fprintf(f, "%u,%u,%.17g,%u,%u,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,", c->instance_a, c->instance_b, c->distance,
            c->triangle_a, c->triangle_b, c->point_a[0], c->point_a[1], c->point_a[2], c->point_b[0], c->point_b[1],
            c->point_b[2]);
    pick_clash_csv_string(f, r->o->meshes[c->instance_a].path);
    fputc(',', f);
    pick_clash_csv_string(f, r->o->meshes[c->instance_b].path);
    fprintf(f, ",%u,%llu,%u,%llu\n", fa, (unsigned long long)mq_mesh_face_line(ma, fa), fb,
            (unsigned long long)mq_mesh_face_line(mb, fb));
}

static void write_table_row(const clash_run *r, FILE *f, const mq_clash *c)
{
    const mq_mesh *ma = mesh_of(r, c->instance_a), *mb = mesh_of(r, c->instance_b);
    uint32_t fa = mq_mesh_face_index(ma, c->triangle_a), fb = mq_mesh_face_index(mb, c->triangle_b);
    fprintf(f, "%10u %10u %14.9g %10u %10u  (%.9g, %.9g, %.9g)  (%.9g, %.9g, %.9g)  %s:%llu  %s:%llu\n", c->instance_a,
            c->instance_b, c->distance, c->triangle_a, c->triangle_b, c->point_a[0], c->point_a[1], c->point_a[2],
            c->point_b[0], c->point_b[1], c->point_b[2], r->o->meshes[c->instance_a].path,
            (unsigned long long)mq_mesh_face_line(ma, fa), r->o->meshes[c->instance_b].path,
            (unsigned long long)mq_mesh_face_line(mb, fb));
}

int pick_run_clash(const pick_options *o)
{
    clash_run r = {.o = o};
    int rc = 1;
    mq_clash_list *list = NULL;
    FILE *out = NULL;
    if (!build(&r))
        goto done;
    mq_clash_options co = mq_default_clash_options();
    co.clearance = o->has_clearance ? o->clearance : 0.0;
    co.threads = o->threads;
    co.max_triangle_pairs = o->list_pairs ? PICK_CLASH_MAX_PAIRS : 0;
    mq_diag diag = {0};
    mq_status st = mq_scene_clash(r.scene, &co, &list, &diag);
    if (st != MQ_OK) {
        fprintf(stderr, "mq-pick: clash detection failed: %s (%s)\n", diag.message, mq_status_string(st));
        goto done;
    }
    out = pick_open_out(o->out_path, false);
    if (!out)
        goto done;
    pick_shape_format f = pick_shape_format_of(o);
    size_t n = mq_clash_list_count(list);
    if (f == SHAPES_CSV)
        fputs("instance_a,instance_b,distance,triangle_a,triangle_b,point_a_x,point_a_y,point_a_z,point_b_x,"
              "point_b_y,point_b_z,file_a,file_b,face_a,line_a,face_b,line_b\n",
              out);
    else if (f != SHAPES_JSON)
        fprintf(out, "%10s %10s %14s %10s %10s  %s  %s  %s  %s\n", "instance_a", "instance_b", "distance", "triangle_a",
                "triangle_b", "point_a", "point_b", "file_a:line", "file_b:line");
    for (size_t i = 0; i < n; i++) {
        const mq_clash *c = mq_clash_list_get(list, i);
        size_t np = 0;
        const mq_clash_tri_pair *pairs = mq_clash_list_pairs(list, i, &np);
        if (f == SHAPES_JSON)
            write_json(&r, out, c, o->list_pairs ? pairs : NULL, np);
        else if (f == SHAPES_CSV)
            write_csv(&r, out, c);
        else
            write_table_row(&r, out, c);
        if (f != SHAPES_JSON && f != SHAPES_CSV && o->list_pairs)
            for (size_t k = 0; k < np; k++)
                fprintf(out, "    triangles %u,%u  distance %.17g\n", pairs[k].triangle_a, pairs[k].triangle_b,
                        pairs[k].distance);
    }
    if (f != SHAPES_JSON && f != SHAPES_CSV)
        fprintf(out, "%zu clashing pair%s (clearance %.17g)\n", n, n == 1 ? "" : "s", co.clearance);
    rc = 0;
done:
    if (out && !pick_close_out(out, o->out_path, rc == 0))
        rc = 1;
    mq_clash_list_destroy(list);
    mq_scene_destroy(r.scene);
    for (size_t k = 0; r.models && k < r.model_count; k++)
        pick_model_free(&r.models[k]);
    free(r.models);
    free(r.model_of);
    return rc;
}
