/*
 * mq-pick — what does this ray hit? Loads OBJ files (or saved hierarchies),
 * builds a BVH and answers rays given on the command line or in a file, as a
 * table, JSON lines, CSV or the binary formats of docs/formats.md; also
 * shape overlaps, nearest points and mesh vs mesh.
 *
 * This file is the one-mesh path (no --place): the mesh's own BVH / OBB tree,
 * answers in the mesh's frame. Several meshes or a placement: pick_scene.c.
 */
#include <stdlib.h>
#include <string.h>

#include <meshquery/saved.h>

#include "generate.h"
#include "pick_clash.h"
#include "pick_common.h"
#include "pick_distance.h"
#include "pick_load.h"
#include "pick_parallel.h"
#include "pick_progress.h"
#include "pick_scene.h"

static void trace_closest(const mq_bvh *bvh, const mq_ray *rays, size_t n, const mq_ray_query *q, uint32_t threads,
                          mq_hit *hits)
{
    pick_progress bar;
    pick_progress_start(&bar, "tracing", n);
    for (size_t first = 0; first < n; first += PICK_TRACE_CHUNK) {
        size_t k = n - first < PICK_TRACE_CHUNK ? n - first : PICK_TRACE_CHUNK;
        mq_bvh_raycast_closest_batch(bvh, rays + first, k, q, threads, hits + first);
        pick_progress_update(&bar, first + k);
    }
    pick_progress_end(&bar);
}

static void trace_any(const mq_bvh *bvh, const mq_ray *rays, size_t n, const mq_ray_query *q, uint32_t threads,
                      bool *occluded)
{
    pick_progress bar;
    pick_progress_start(&bar, "tracing", n);
    for (size_t first = 0; first < n; first += PICK_TRACE_CHUNK) {
        size_t k = n - first < PICK_TRACE_CHUNK ? n - first : PICK_TRACE_CHUNK;
        mq_bvh_raycast_any_batch(bvh, rays + first, k, q, threads, occluded + first);
        pick_progress_update(&bar, first + k);
    }
    pick_progress_end(&bar);
}

typedef struct all_ctx {
    pick_writer *w;
    size_t ray, rank;
    bool ok;
} all_ctx;

static bool on_hit(const mq_hit *hit, void *user)
{
    all_ctx *c = user;
    c->ok = pick_write_hit(c->w, c->ray, c->rank++, hit, 0);
    return c->ok;
}

/* --all: every hit of every ray, written as found (tracing and writing interleave). */
static bool write_all(pick_writer *w, const mq_bvh *bvh, const mq_ray *rays, size_t n, const mq_ray_query *q)
{
    pick_progress bar;
    pick_progress_start(&bar, "tracing", n);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        all_ctx c = {w, i, 0, true};
        size_t k = mq_bvh_raycast_each(bvh, &rays[i], q, on_hit, &c);
        ok = c.ok && (k > 0 || pick_write_hit(w, i, 0, NULL, 0)); /* a miss has its line in every format */
        if ((i & 4095) == 0)
            pick_progress_update(&bar, i);
    }
    pick_progress_end(&bar);
    return ok;
}

/* Traces and writes; *trace_s gets the tracing time. */
static bool trace_and_write(const pick_options *o, pick_writer *w, const mq_bvh *bvh, const mq_ray *rays, size_t n,
                            double *trace_s)
{
    mq_ray_query q = mq_default_ray_query();
    q.cull_back_faces = o->cull_back_faces;
    double t0 = pick_now();
    if (o->mode == MODE_ALL) {
        bool ok = write_all(w, bvh, rays, n, &q);
        *trace_s = pick_now() - t0;
        return ok;
    }
    void *answers = malloc((n ? n : 1) * (o->mode == MODE_ANY ? sizeof(bool) : sizeof(mq_hit)));
    if (!answers) {
        fprintf(stderr, "mq-pick: out of memory\n");
        return false;
    }
    bool ok = true;
    if (o->mode == MODE_ANY) {
        bool *occluded = answers;
        trace_any(bvh, rays, n, &q, o->threads, occluded);
        *trace_s = pick_now() - t0;
        for (size_t i = 0; i < n && ok; i++)
            ok = pick_write_occlusion(w, i, occluded[i]);
    } else {
        trace_closest(bvh, rays, n, &q, o->threads, answers);
        *trace_s = pick_now() - t0;
        ok = pick_write_closest_hits(w, answers, NULL, n, o->threads);
    }
    free(answers);
    return ok;
}

/* Answers the rays (and the --pixel rays, appended to *rays) on the mesh's BVH. */
static int run_rays(const pick_options *o, pick_model *m, mq_ray **rays, size_t ray_count, pick_format format,
                    const double stamp[4])
{
    if (o->pixel_count) {
        mq_aabb bounds;
        mqt_bounds(mq_mesh_positions(m->mesh), mq_mesh_vertex_count(m->mesh), &bounds);
        if (!pick_add_pixel_rays(o, &bounds, rays, &ray_count))
            return 1;
    }
    FILE *out = pick_open_out(o->out_path, format == PICK_HITS || format == PICK_OCCL);
    if (!out)
        return 1;
    static mqt_textbuf text;
    mqt_tb_init(&text, out);
    pick_source source = {o->meshes[0].path, m->mesh, 0};
    pick_writer w = {out, format, &source, false, false, &text};
    double trace_s = 0.0, t_trace0 = pick_now();
    bool ok = trace_and_write(o, &w, m->bvh, *rays, ray_count, &trace_s);
    ok = pick_writer_flush(&w) && ok;
    if (!pick_close_out(out, o->out_path, ok))
        return 1;
    if (o->timing)
        pick_print_timing(ray_count, mq_mesh_triangle_count(m->mesh), stamp[1] - stamp[0], stamp[2] - stamp[1],
                          stamp[3] - stamp[2], trace_s, pick_now() - t_trace0 - trace_s);
    return 0;
}

/* --queries / shapes, --closest and --collide on the mesh's tree of --hierarchy. */
static int run_shapes(const pick_options *o, pick_model *m)
{
    const char *hierarchy = o->hierarchy ? o->hierarchy : "obb";
    pick_model other = {0};
    if (!pick_model_tree(m, hierarchy))
        return 1;
    bool self = o->collide_path && !strcmp(o->collide_path, o->meshes[0].path);
    if (o->collide_path && !self &&
        (!pick_model_load(&other, o->collide_path, o->strict) || !pick_model_tree(&other, hierarchy))) {
        pick_model_free(&other);
        return 1;
    }
    FILE *out = pick_open_out(o->out_path, false);
    int rc = 1;
    if (out) {
        pick_source source = {o->meshes[0].path, m->mesh, 0};
        pick_target t = {m->obbtree, NULL, &source, false, o->threads, m->kdop, m->sphere};
        pick_shape_format f = pick_shape_format_of(o);
        if (o->collide_path)
            rc = pick_run_collide(m, self ? m : &other, o->xforms_path, o->mode == MODE_ANY, o->list_pairs, out, f);
        else if (o->point_count)
            rc = pick_run_closest(&t, o->points, o->point_count, out, f);
        else
            rc = pick_run_queries(&t, o->queries_path, o->shapes, o->shape_count, out, f);
        if (!pick_close_out(out, o->out_path, rc == 0))
            rc = 1;
    }
    pick_model_free(&other);
    return rc;
}

static int run_single(const pick_options *o)
{
    bool rays_mode = o->rays_path || o->cli_ray_count || o->pixel_count;
    pick_format format = PICK_TABLE;
    if (rays_mode && pick_ray_format(o, &format))
        return 2;
    double stamp[4];
    stamp[0] = pick_now();
    mq_ray *rays = NULL;
    size_t ray_count = 0;
    if (rays_mode && !pick_read_rays(o, &rays, &ray_count))
        return 1;
    stamp[1] = pick_now();
    pick_model m;
    int rc = 1;
    if (!pick_model_load(&m, o->meshes[0].path, o->strict))
        goto done;
    stamp[2] = pick_now();
    if ((rays_mode || o->save_path) && !pick_model_bvh(&m, o->threads))
        goto done;
    stamp[3] = pick_now();
    if (o->save_path) {
        mq_diag diag = {0};
        mq_status st = mq_bvh_save(m.bvh, o->save_path, &diag);
        if (st != MQ_OK) {
            fprintf(stderr, "mq-pick: cannot save %s: %s (%s)\n", o->save_path, diag.message, mq_status_string(st));
            goto done;
        }
    }
    rc = 0;
    if (rays_mode)
        rc = run_rays(o, &m, &rays, ray_count, format, stamp);
    else if (o->queries_path || o->shape_count || o->point_count || o->collide_path)
        rc = run_shapes(o, &m);
done:
    pick_model_free(&m);
    free(rays);
    return rc;
}

int main(int argc, char **argv)
{
    pick_options o = {.out_path = "-", .mode = MODE_CLOSEST, .width = 1024, .height = 1024};
    int rc = pick_parse_args(argc, argv, &o);
    if (rc == 0)
        rc = pick_wants_distance(&o) ? pick_run_distance(&o)
             : o.clash               ? pick_run_clash(&o)
             : o.contacts            ? pick_run_contacts(&o)
             : pick_uses_scene(&o)   ? pick_run_scene(&o)
                                     : run_single(&o);
    pick_options_free(&o);
    return rc;
}
