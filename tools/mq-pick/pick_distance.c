/*
 * mq-pick MESH_A [--place P] MESH_B [--place P] --distance [--clearance D]:
 * the distance between the two placed meshes (closest points, triangles,
 * faces and lines), and with --clearance D every triangle pair within D.
 *
 * Each mesh is placed into the world as --place says (scale, rotation,
 * translation, in double, rounded to float once per vertex) and an OBB tree
 * is built over the placed copy, so any placement (scaled, mirrored) works and
 * the answers are world coordinates; triangle ids, faces and lines are those of
 * each file. The library's mq_obbtree_distance / _clearance_array then answer
 * with the identity between the two (meshquery/proximity.h).
 */
#include "pick_distance.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/proximity.h>

#include "pick_common.h"
#include "pick_load.h"
#include "place.h"

bool pick_wants_distance(const pick_options *o)
{
    return o->distance || (o->has_clearance && !o->clash);
}

int pick_check_distance(const pick_options *o)
{
    bool other = o->rays_path || o->cli_ray_count || o->pixel_count || o->queries_path || o->shape_count ||
                 o->point_count || o->collide_path || o->save_path || o->clash || o->contacts ||
                 o->mode != MODE_CLOSEST;
    if (other)
        return pick_usage_error("--distance and --clearance (without --clash) take two meshes, --place, "
                                "--hierarchy and the output options only%s",
                                "");
    if (o->mesh_count != 2)
        return pick_usage_error("--distance and --clearance (without --clash) need exactly two meshes%s", "");
    size_t n = strlen(o->out_path);
    if (n >= 5 && (!strcmp(o->out_path + n - 5, ".hits") || !strcmp(o->out_path + n - 5, ".occl")))
        return pick_usage_error("%s: .hits and .occl files hold binary ray answers; give text output another name",
                                o->out_path);
    return 0;
}

typedef struct placed_mesh {
    pick_model model;
    mq_mesh *world; /* the placed copy */
    mq_obbtree *tree;
    const char *path;
} placed_mesh;

/* The placed copy of a model's mesh and its tree; false after an error message. */
static bool place_mesh(placed_mesh *p, const pick_mesh_arg *a, const char *hierarchy)
{
    mqt_place pl;
    for (int k = 0; k < 3; k++) {
        pl.translation[k] = a->translation[k];
        pl.scale[k] = a->scale[k];
    }
    for (int k = 0; k < 4; k++)
        pl.rotation[k] = a->rotation[k];
    if (!a->placed)
        pl = mqt_place_identity();
    mq_diag diag = {0};
    mq_status st = mqt_place_mesh(p->model.mesh, &pl, &p->world, &diag);
    if (st != MQ_OK) {
        fprintf(stderr, "mq-pick: %s: cannot place the mesh: %s (%s)\n", a->path, diag.message, mq_status_string(st));
        return false;
    }
    p->tree = pick_build_tree(p->world, hierarchy);
    return p->tree != NULL;
}

static void add(mqt_textbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(mqt_textbuf *b, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    mqt_tb_str(b, text);
}

/* One answer: the nearest pair or a pair within the clearance, in world coordinates. */
typedef struct pair_rec {
    double distance;
    uint32_t ta, tb;
    double pa[3], pb[3];
} pair_rec;

static void json_side(mqt_textbuf *b, const placed_mesh *m, const char *side, uint32_t tri)
{
    mq_triangle_source src;
    mq_mesh_triangle_source(m->model.mesh, tri, &src);
    add(b, ", \"file_%s\": ", side);
    mqt_tb_json_string(b, m->path);
    add(b, ", \"face_%s\": %u, \"line_%s\": %llu", side, src.face, side, (unsigned long long)src.line);
}

static void write_json(mqt_textbuf *b, const placed_mesh *m, const pair_rec *r, bool distance_first)
{
    if (distance_first)
        add(b, "{\"distance\": %.17g, \"instance_a\": 0, \"instance_b\": 1, \"triangle_a\": %u, \"triangle_b\": %u",
            r->distance, r->ta, r->tb);
    else
        add(b, "{\"instance_a\": 0, \"instance_b\": 1, \"triangle_a\": %u, \"triangle_b\": %u, \"distance\": %.17g",
            r->ta, r->tb, r->distance);
    add(b, ", \"point_a\": [%.17g, %.17g, %.17g], \"point_b\": [%.17g, %.17g, %.17g]", r->pa[0], r->pa[1], r->pa[2],
        r->pb[0], r->pb[1], r->pb[2]);
    json_side(b, &m[0], "a", r->ta);
    json_side(b, &m[1], "b", r->tb);
    mqt_tb_str(b, "}\n");
}

static void write_csv(mqt_textbuf *b, const placed_mesh *m, const char *kind, const pair_rec *r)
{
    add(b, "%s,0,1,%.17g,", kind, r->distance);
    for (int s = 0; s < 2; s++) {
        uint32_t tri = s ? r->tb : r->ta;
        mq_triangle_source src;
        mq_mesh_triangle_source(m[s].model.mesh, tri, &src);
        pick_csv_string(b, m[s].path);
        add(b, ",%u,%u,%llu,", tri, src.face, (unsigned long long)src.line);
    }
    add(b, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", r->pa[0], r->pa[1], r->pa[2], r->pb[0], r->pb[1], r->pb[2]);
}

static void write_table(mqt_textbuf *b, const placed_mesh *m, const char *kind, const pair_rec *r)
{
    for (int s = 0; s < 2; s++) {
        uint32_t tri = s ? r->tb : r->ta;
        const double *p = s ? r->pb : r->pa;
        mq_triangle_source src;
        mq_mesh_triangle_source(m[s].model.mesh, tri, &src);
        char point[128];
        snprintf(point, sizeof point, "(%.9g, %.9g, %.9g)", p[0], p[1], p[2]);
        if (s == 0)
            add(b, "%-9s %14.9g ", kind, r->distance);
        else
            add(b, "%-9s %14s ", "", "");
        add(b, "%8d %9u %8u %9llu  %-44s %s\n", s, tri, src.face, (unsigned long long)src.line, point, m[s].path);
    }
}

static int cmp_pair(const void *x, const void *y)
{
    const mq_clearance_pair *a = x, *b = y;
    if (a->triangle_a != b->triangle_a)
        return a->triangle_a < b->triangle_a ? -1 : 1;
    return a->triangle_b < b->triangle_b ? -1 : a->triangle_b > b->triangle_b;
}

static pair_rec rec_of(const mq_clearance_pair *p)
{
    pair_rec r = {p->distance, p->triangle_a, p->triangle_b, {0}, {0}};
    for (int k = 0; k < 3; k++) {
        r.pa[k] = p->point_a[k];
        r.pb[k] = p->point_b[k];
    }
    return r;
}

static bool answer(const pick_options *o, placed_mesh *m, mqt_textbuf *b)
{
    pick_shape_format format = pick_shape_format_of(o);
    if (format == SHAPES_CSV)
        mqt_tb_str(b, "record,instance_a,instance_b,distance,file_a,triangle_a,face_a,line_a,file_b,triangle_b,"
                      "face_b,line_b,ax,ay,az,bx,by,bz\n");
    else if (format != SHAPES_JSON)
        add(b, "%-9s %14s %8s %9s %8s %9s  %-44s %s\n", "record", "distance", "instance", "triangle", "face", "line",
            "point (world)", "file");
    if (o->distance) {
        mq_distance_result r;
        if (!mq_obbtree_distance(m[0].tree, m[1].tree, &(mq_rigid){{1, 0, 0, 0}, {0, 0, 0}}, NULL, &r)) {
            /* a mesh without a finite triangle: no distance */
            if (format == SHAPES_JSON)
                mqt_tb_str(b, "{\"distance\": null, \"instance_a\": 0, \"instance_b\": 1}\n");
            else if (format == SHAPES_CSV)
                mqt_tb_str(b, "distance,0,1,,,,,,,,,,,,,,,\n");
            else
                mqt_tb_str(b, "distance  (none: a mesh has no finite triangle)\n");
        } else {
            pair_rec rec = {r.distance, r.triangle_a, r.triangle_b, {0}, {0}};
            for (int k = 0; k < 3; k++) {
                rec.pa[k] = r.point_a[k];
                rec.pb[k] = r.point_b[k];
            }
            if (format == SHAPES_JSON)
                write_json(b, m, &rec, true);
            else if (format == SHAPES_CSV)
                write_csv(b, m, "distance", &rec);
            else
                write_table(b, m, "distance", &rec);
        }
    }
    if (o->has_clearance) {
        const mq_rigid id = {{1, 0, 0, 0}, {0, 0, 0}};
        size_t n = mq_obbtree_clearance_array(m[0].tree, m[1].tree, &id, o->clearance, NULL, 0);
        mq_clearance_pair *pairs = malloc(n * sizeof *pairs + 1);
        if (!pairs) {
            fprintf(stderr, "mq-pick: out of memory (%zu pairs within %g)\n", n, o->clearance);
            return false;
        }
        n = mq_obbtree_clearance_array(m[0].tree, m[1].tree, &id, o->clearance, pairs, n);
        qsort(pairs, n, sizeof *pairs, cmp_pair);
        if (format != SHAPES_JSON && format != SHAPES_CSV)
            add(b, "%zu triangle pairs within %.9g\n", n, o->clearance);
        for (size_t i = 0; i < n; i++) {
            pair_rec rec = rec_of(&pairs[i]);
            if (format == SHAPES_JSON)
                write_json(b, m, &rec, false);
            else if (format == SHAPES_CSV)
                write_csv(b, m, "pair", &rec);
            else
                write_table(b, m, "pair", &rec);
        }
        free(pairs);
    }
    return true;
}

int pick_run_distance(const pick_options *o)
{
    placed_mesh m[2];
    memset(m, 0, sizeof m);
    int rc = 1;
    /* the tree does not change the answers; boxes on the world axes with --hierarchy aabb */
    const char *hierarchy = o->hierarchy && !strcmp(o->hierarchy, "aabb") ? "aabb" : "obb";
    bool ok = true;
    for (int i = 0; i < 2 && ok; i++) {
        m[i].path = o->meshes[i].path;
        ok = pick_model_load(&m[i].model, m[i].path, o->strict) && place_mesh(&m[i], &o->meshes[i], hierarchy);
    }
    if (ok) {
        FILE *out = pick_open_out(o->out_path, false);
        mqt_textbuf *b = out ? calloc(1, sizeof *b) : NULL;
        if (out && !b)
            fprintf(stderr, "mq-pick: out of memory\n");
        bool done = false;
        if (b) {
            mqt_tb_init(b, out);
            done = answer(o, m, b);
            if (!mqt_tb_flush(b)) {
                fprintf(stderr, "mq-pick: writing the answers failed\n");
                done = false;
            }
            mqt_tb_free_memory(b);
            free(b);
        }
        if (out && pick_close_out(out, o->out_path, done) && done)
            rc = 0;
    }
    for (int i = 0; i < 2; i++) {
        mq_obbtree_destroy(m[i].tree);
        mq_mesh_destroy(m[i].world);
        pick_model_free(&m[i].model);
    }
    return rc;
}
