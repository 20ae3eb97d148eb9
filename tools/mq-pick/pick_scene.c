/*
 * The several-meshes path: one hierarchy per distinct file, one scene instance
 * per mesh argument (placed by its --place), world rays and shapes in double.
 * Every answer names the instance and its file; the ids of .hits and
 * .overlaps are those of the meshes concatenated in argument order.
 */
#include "pick_scene.h"

#include <stdlib.h>
#include <string.h>

#include <meshquery/scene.h>

#include "pick_common.h"
#include "pick_load.h"
#include "pick_parallel.h"
#include "pick_progress.h"

typedef struct scene_run {
    const pick_options *o;
    pick_model *models; /* one per distinct file */
    size_t model_count;
    size_t *model_of;     /* per mesh argument */
    pick_source *sources; /* per instance = mesh argument */
    uint64_t triangles;   /* of all instances */
    mq_scene *scene;
} scene_run;

static bool load_models(scene_run *r)
{
    const pick_options *o = r->o;
    r->models = calloc(o->mesh_count, sizeof *r->models);
    r->model_of = calloc(o->mesh_count, sizeof *r->model_of);
    r->sources = calloc(o->mesh_count, sizeof *r->sources);
    if (!r->models || !r->model_of || !r->sources) {
        fprintf(stderr, "mq-pick: out of memory\n");
        return false;
    }
    for (size_t i = 0; i < o->mesh_count; i++) {
        size_t k = 0;
        while (k < r->model_count && strcmp(r->models[k].path, o->meshes[i].path))
            k++;
        if (k == r->model_count && !pick_model_load(&r->models[r->model_count++], o->meshes[i].path, o->strict))
            return false;
        r->model_of[i] = k;
    }
    return true;
}

/* Hierarchies (BVHs for rays, OBB trees for shapes) and the scene of all instances. */
static bool build_scene(scene_run *r, bool rays)
{
    const pick_options *o = r->o;
    const char *hierarchy = o->hierarchy ? o->hierarchy : "obb";
    for (size_t k = 0; k < r->model_count; k++)
        if (rays ? !pick_model_bvh(&r->models[k], o->threads) : !pick_model_obbtree(&r->models[k], hierarchy))
            return false;
    mq_diag diag = {0};
    mq_status st = mq_scene_create(NULL, &r->scene, &diag);
    for (size_t i = 0; i < o->mesh_count && st == MQ_OK; i++) {
        const pick_mesh_arg *a = &o->meshes[i];
        const pick_model *m = &r->models[r->model_of[i]];
        mq_instance_def def = mq_default_instance_def();
        if (rays)
            def.bvh = m->bvh;
        else
            def.obbtree = m->obbtree;
        def.transform = mq_xform_from_trs(a->translation, a->rotation, a->scale); /* w, x, y, z */
        def.user_id = i;
        uint32_t id = 0;
        st = mq_scene_add(r->scene, &def, &id, &diag);
        if (st == MQ_OK && id != i) {
            fprintf(stderr, "mq-pick: the scene numbered instance %zu as %u\n", i, id);
            return false;
        }
        if (st != MQ_OK)
            fprintf(stderr, "mq-pick: cannot place %s (mesh argument %zu): %s (%s)\n", a->path, i + 1, diag.message,
                    mq_status_string(st));
        r->sources[i] = (pick_source){a->path, m->mesh, (uint32_t)r->triangles};
        r->triangles += mq_mesh_triangle_count(m->mesh);
    }
    if (st == MQ_OK && (st = mq_scene_commit(r->scene, &diag)) != MQ_OK)
        fprintf(stderr, "mq-pick: building the scene failed: %s (%s)\n", diag.message, mq_status_string(st));
    if (st == MQ_OK && r->triangles >= UINT32_MAX)
        fprintf(stderr,
                "mq-pick: note: the meshes have %llu triangles together, beyond the 32-bit ids of "
                ".hits and .overlaps\n",
                (unsigned long long)r->triangles);
    return st == MQ_OK;
}

static mq_dray to_dray(const mq_ray *r)
{
    return (mq_dray){{r->origin[0], r->origin[1], r->origin[2]}, r->tmin, {r->dir[0], r->dir[1], r->dir[2]}, r->tmax};
}

/* The float hit record the writers take (world values rounded to float). */
static mq_hit to_hit(const mq_scene_hit *s)
{
    mq_hit h;
    memset(&h, 0, sizeof h);
    h.t = (float)s->t;
    for (int k = 0; k < 3; k++) {
        h.point[k] = (float)s->point[k];
        h.normal[k] = (float)s->normal[k];
        h.shading_normal[k] = (float)s->shading_normal[k];
    }
    h.u = s->u;
    h.v = s->v;
    h.triangle = s->triangle;
    h.face = s->face;
    h.back_face = s->back_face;
    h.has_shading_normal = s->has_shading_normal;
    h.has_uv = s->has_uv;
    h.uv[0] = s->uv[0];
    h.uv[1] = s->uv[1];
    h.group = s->group;
    h.object = s->object;
    h.material = s->material;
    return h;
}

typedef struct all_ctx {
    pick_writer *w;
    size_t ray, rank;
    bool ok;
} all_ctx;

static bool on_hit(const mq_scene_hit *hit, void *user)
{
    all_ctx *c = user;
    mq_hit h = to_hit(hit);
    c->ok = pick_write_hit(c->w, c->ray, c->rank++, &h, hit->instance);
    return c->ok;
}

/* Traces rays[0..n) in chunks and writes the answers; *trace_s gets the tracing time. */
static bool trace_and_write(const scene_run *r, pick_writer *w, const mq_ray *rays, size_t n, double *trace_s)
{
    const pick_options *o = r->o;
    mq_scene_query q = mq_default_scene_query();
    q.cull_back_faces = o->cull_back_faces;
    size_t chunk = n < PICK_TRACE_CHUNK ? (n ? n : 1) : PICK_TRACE_CHUNK;
    mq_dray *drays = malloc(chunk * sizeof *drays);
    mq_scene_hit *shits = o->mode == MODE_CLOSEST ? malloc(chunk * sizeof *shits) : NULL;
    bool *occluded = o->mode == MODE_ANY ? malloc(n ? n : 1) : NULL;
    mq_hit *hits = o->mode == MODE_CLOSEST ? malloc((n ? n : 1) * sizeof *hits) : NULL;
    uint32_t *instances = o->mode == MODE_CLOSEST ? malloc((n ? n : 1) * sizeof *instances) : NULL;
    bool ok = drays && (o->mode != MODE_CLOSEST || (shits && hits && instances)) && (o->mode != MODE_ANY || occluded);
    if (!ok)
        fprintf(stderr, "mq-pick: out of memory\n");
    pick_progress bar;
    pick_progress_start(&bar, "tracing", n);
    double t0 = pick_now();
    for (size_t first = 0; first < n && ok; first += chunk) {
        size_t k = n - first < chunk ? n - first : chunk;
        for (size_t i = 0; i < k; i++)
            drays[i] = to_dray(&rays[first + i]);
        if (o->mode == MODE_CLOSEST) {
            mq_scene_raycast_closest_batch(r->scene, drays, k, &q, o->threads, shits);
            for (size_t i = 0; i < k; i++) {
                hits[first + i] = to_hit(&shits[i]);
                instances[first + i] = shits[i].instance == MQ_NO_INSTANCE ? 0 : shits[i].instance;
            }
        } else if (o->mode == MODE_ANY) {
            mq_scene_raycast_any_batch(r->scene, drays, k, &q, o->threads, occluded + first);
        } else {
            for (size_t i = 0; i < k && ok; i++) {
                all_ctx c = {w, first + i, 0, true};
                size_t found = mq_scene_raycast_each(r->scene, &drays[i], &q, on_hit, &c);
                ok = c.ok && (found > 0 || pick_write_hit(w, first + i, 0, NULL, 0)); /* a miss has its line */
            }
        }
        pick_progress_update(&bar, first + k);
    }
    pick_progress_end(&bar);
    *trace_s = pick_now() - t0;
    if (ok && o->mode == MODE_CLOSEST)
        ok = pick_write_closest_hits(w, hits, instances, n, o->threads);
    for (size_t i = 0; ok && o->mode == MODE_ANY && i < n; i++)
        ok = pick_write_occlusion(w, i, occluded[i]);
    free(instances);
    free(hits);
    free(occluded);
    free(shits);
    free(drays);
    return ok;
}

static int run_rays(scene_run *r, mq_ray **rays, size_t count, pick_format format, const double stamp[4])
{
    const pick_options *o = r->o;
    if (o->pixel_count) {
        mq_daabb db;
        mq_aabb bounds = {{0, 0, 0}, {0, 0, 0}};
        if (mq_scene_bounds(r->scene, &db))
            for (int k = 0; k < 3; k++) {
                bounds.min[k] = (float)db.min[k];
                bounds.max[k] = (float)db.max[k];
            }
        if (!pick_add_pixel_rays(o, &bounds, rays, &count))
            return 1;
    }
    FILE *out = pick_open_out(o->out_path, format == PICK_HITS || format == PICK_OCCL);
    if (!out)
        return 1;
    static mqt_textbuf text;
    mqt_tb_init(&text, out);
    pick_writer w = {out, format, r->sources, true, false, &text};
    double trace_s = 0.0, t_trace0 = pick_now();
    bool ok = trace_and_write(r, &w, *rays, count, &trace_s);
    ok = pick_writer_flush(&w) && ok;
    if (!pick_close_out(out, o->out_path, ok))
        return 1;
    if (o->timing)
        pick_print_timing(count, (size_t)r->triangles, stamp[1] - stamp[0], stamp[2] - stamp[1], stamp[3] - stamp[2],
                          trace_s, pick_now() - t_trace0 - trace_s);
    return 0;
}

static int run_shapes(scene_run *r)
{
    const pick_options *o = r->o;
    FILE *out = pick_open_out(o->out_path, false);
    if (!out)
        return 1;
    pick_target t = {NULL, r->scene, r->sources, true, o->threads, NULL, NULL};
    pick_shape_format f = pick_shape_format_of(o);
    int rc = o->point_count ? pick_run_closest(&t, o->points, o->point_count, out, f)
                            : pick_run_queries(&t, o->queries_path, o->shapes, o->shape_count, out, f);
    return pick_close_out(out, o->out_path, rc == 0) ? rc : 1;
}

int pick_run_scene(const pick_options *o)
{
    bool rays_mode = o->rays_path || o->cli_ray_count || o->pixel_count;
    pick_format format = PICK_TABLE;
    if (rays_mode && pick_ray_format(o, &format))
        return 2;
    scene_run r = {.o = o};
    double stamp[4];
    stamp[0] = pick_now();
    mq_ray *rays = NULL;
    size_t count = 0;
    int rc = 1;
    if (rays_mode && !pick_read_rays(o, &rays, &count))
        goto done;
    stamp[1] = pick_now();
    if (!load_models(&r))
        goto done;
    stamp[2] = pick_now();
    if (!build_scene(&r, rays_mode))
        goto done;
    stamp[3] = pick_now();
    rc = rays_mode ? run_rays(&r, &rays, count, format, stamp) : run_shapes(&r);
done:
    mq_scene_destroy(r.scene);
    for (size_t k = 0; r.models && k < r.model_count; k++)
        pick_model_free(&r.models[k]);
    free(r.models);
    free(r.model_of);
    free(r.sources);
    free(rays);
    return rc;
}
