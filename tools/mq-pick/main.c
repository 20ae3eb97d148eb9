/*
 * mq-pick — what does this ray hit? Loads an OBJ file, builds a BVH and answers
 * rays given on the command line or in a file, as a table, JSON lines, CSV or
 * the binary formats of ../shared/FORMATS.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

#include <meshquery/bvh.h>
#include <meshquery/obj.h>
#include <meshquery/primitives.h>

#include "pick_output.h"
#include "pick_parallel.h"
#include "pick_shapes.h"
#include "camera.h"
#include "generate.h"
#include "rayfile.h"

static const char usage_text[] =
    "usage: mq-pick MESH.obj [--ray O,D | --rays FILE] [options]\n"
    "       mq-pick MESH.obj --queries FILE [--hierarchy aabb|obb] [--out FILE]\n"
    "       mq-pick MESH.obj --collide OTHER.obj --xforms FILE [--any] [--out FILE]\n"
    "\n"
    "Finds what rays hit in a Wavefront OBJ mesh, which triangles shapes overlap,\n"
    "and which triangle pairs of two placed meshes intersect.\n"
    "\n"
    "rays:\n"
    "  --ray ox,oy,oz,dx,dy,dz[,tmin,tmax]  one ray (repeatable); t is in units of the direction\n"
    "  --pixel X,Y        the ray through pixel (X, Y) of the camera's image, (0,0) = top left\n"
    "                     (repeatable); the default camera frames the whole model\n"
    "  --size WxH         the camera's image size (default 1024x1024)\n"
    "  --camera EX,EY,EZ,TX,TY,TZ   camera eye and target point (default: framing the model)\n"
    "  --up X,Y,Z         camera up direction (default 0,1,0)\n"
    "  --fov DEGREES      vertical field of view (default 45)\n"
    "  --rays FILE        rays from FILE: binary .rays (8 float32 per ray), or text with 6 or\n"
    "                     8 numbers per line (ox oy oz dx dy dz | ox oy oz tmin dx dy dz tmax);\n"
    "                     '-' reads text from standard input\n"
    "queries:\n"
    "  (default)          the closest hit of each ray\n"
    "  --any              is anything hit? (occlusion, line of sight)\n"
    "  --all              every hit along each ray, nearest first\n"
    "  --cull-back-faces  ignore triangles seen from behind\n"
    "  --queries FILE     shape queries, one per line: sphere cx cy cz r | capsule ax ay az bx by bz r |\n"
    "                     obb cx cy cz hx hy hz qw qx qy qz | aabb minx miny minz maxx maxy maxz;\n"
    "                     answers: per query the count of overlapping triangles (touching counts)\n"
    "                     then their ids, increasing ('.overlaps' format)\n"
    "  --hierarchy H      tree for shape queries and --collide: obb (default) or aabb\n"
    "  --collide OTHER    mesh vs mesh: OTHER.obj placed by each line of --xforms\n"
    "                     (tx ty tz qw qx qy qz); answers: per transform the number of\n"
    "                     intersecting triangle pairs, or 0/1 with --any\n"
    "  --xforms FILE      the transforms for --collide\n"
    "output:\n"
    "  --out FILE         where to write ('-' = standard output, the default); the format\n"
    "                     follows the extension: .hits (binary closest hits), .occl (binary\n"
    "                     any-hit), .json/.jsonl (JSON lines), .csv, anything else a table\n"
    "  --json, --csv, --table   force a text format\n"
    "  --threads N        trace on N threads (default: all cores)\n"
    "  --timing           print the time of each stage (load, build, trace, write) to stderr\n"
    "  -h, --help         this text\n"
    "\n"
    "examples:\n"
    "  mq-pick data/suzanne.obj --ray 0,0,5,0,0,-1\n"
    "  mq-pick data/suzanne.obj --ray 0,0,5,0,0,-1 --all --json\n"
    "  mq-pick data/spot.obj --ray 0,0.5,-3,0,0,1 --any\n"
    "  mq-pick data/spot.obj --pixel 512,512 --pixel 600,400\n"
    "  mq-pick data/spot.obj --size 640x480 --camera 0,0.5,3,0,0.2,0 --pixel 320,240\n"
    "  mq-pick MESH.obj --rays IN.rays --out OUT.hits\n"
    "  mq-pick MESH.obj --rays IN.rays --any --out OUT.occl\n"
    "  echo 'sphere 0 0.5 0 0.1' | mq-pick data/spot.obj --queries -\n"
    "  echo '0.5 0 0 1 0 0 0' | mq-pick data/spot.obj --collide data/spot.obj --xforms -\n"
    "\n"
    "Exit status: 0 on success (whether or not anything was hit), 1 when the mesh or\n"
    "the rays cannot be read or the output cannot be written, 2 for bad arguments.\n";

typedef enum pick_mode { MODE_CLOSEST, MODE_ANY, MODE_ALL } pick_mode;

typedef struct pick_options {
    const char *mesh_path;
    const char *rays_path;
    const char *out_path;
    const char *forced_format;
    const char *queries_path;
    const char *hierarchy;
    const char *collide_path;
    const char *xforms_path;
    pick_mode mode;
    bool cull_back_faces;
    bool timing;
    uint32_t threads;
    mq_ray *cli_rays;
    size_t cli_ray_count;
    uint32_t *pixels; /* x, y per --pixel */
    size_t pixel_count;
    uint32_t width, height;
    bool has_camera, has_up;
    double camera[6], up[3], fov;
} pick_options;

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "mq-pick: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'mq-pick --help'.\n");
    return 2;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "ox,oy,oz,dx,dy,dz[,tmin,tmax]" -> ray. */
static bool parse_ray_arg(const char *text, mq_ray *out)
{
    float v[8];
    int n = 0;
    const char *p = text;
    while (n < 8) {
        char *end;
        errno = 0;
        double d = strtod(p, &end);
        if (end == p || errno == ERANGE)
            return false;
        v[n++] = (float)d;
        if (*end == '\0')
            break;
        if (*end != ',')
            return false;
        p = end + 1;
    }
    if ((n != 6 && n != 8) || *p == '\0')
        return false;
    float tmin = n == 8 ? v[6] : 0.0f, tmax = n == 8 ? v[7] : (float)INFINITY;
    *out = (mq_ray){{v[0], v[1], v[2]}, tmin, {v[3], v[4], v[5]}, tmax};
    return true;
}

static bool add_cli_ray(pick_options *o, const mq_ray *r)
{
    mq_ray *nr = realloc(o->cli_rays, (o->cli_ray_count + 1) * sizeof *nr);
    if (!nr)
        return false;
    nr[o->cli_ray_count++] = *r;
    o->cli_rays = nr;
    return true;
}

/* Up to `max` comma-separated numbers; returns how many, or -1 when malformed. */
static int parse_list(const char *text, double *v, int max)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        char *end;
        errno = 0;
        double d = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(d) || n == max)
            return -1;
        v[n++] = d;
        if (*end == '\0')
            return n;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
}

static bool add_pixel(pick_options *o, const char *text)
{
    double v[2];
    if (parse_list(text, v, 2) != 2 || v[0] < 0 || v[1] < 0 || v[0] != floor(v[0]) || v[1] != floor(v[1]) ||
        v[0] > 1e9 || v[1] > 1e9)
        return false;
    uint32_t *np = realloc(o->pixels, (o->pixel_count + 1) * 2 * sizeof *np);
    if (!np)
        return false;
    np[2 * o->pixel_count] = (uint32_t)v[0];
    np[2 * o->pixel_count + 1] = (uint32_t)v[1];
    o->pixels = np;
    o->pixel_count++;
    return true;
}

static bool parse_size(const char *text, uint32_t *w, uint32_t *h)
{
    char *end;
    unsigned long a = strtoul(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X'))
        return false;
    const char *p = end + 1;
    unsigned long b = strtoul(p, &end, 10);
    if (end == p || *end || a == 0 || b == 0 || a > 1u << 20 || b > 1u << 20)
        return false;
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return true;
}

/* The camera options; 0 when fine, else the usage error's exit status. */
static int parse_camera_option(pick_options *o, const char *a, const char *v)
{
    double f[6];
    if (!strcmp(a, "--pixel")) {
        if (!add_pixel(o, v))
            return usage_error("--pixel needs X,Y (whole, non-negative pixel numbers), got '%s'", v);
    } else if (!strcmp(a, "--size")) {
        if (!parse_size(v, &o->width, &o->height))
            return usage_error("--size needs WxH (e.g. 1024x768), got '%s'", v);
    } else if (!strcmp(a, "--camera")) {
        if (parse_list(v, o->camera, 6) != 6)
            return usage_error("--camera needs EX,EY,EZ,TX,TY,TZ, got '%s'", v);
        o->has_camera = true;
    } else if (!strcmp(a, "--up")) {
        if (parse_list(v, o->up, 3) != 3)
            return usage_error("--up needs X,Y,Z, got '%s'", v);
        o->has_up = true;
    } else if (!strcmp(a, "--fov")) {
        if (parse_list(v, f, 1) != 1 || !(f[0] > 0.0 && f[0] < 180.0))
            return usage_error("--fov needs degrees between 0 and 180, got '%s'", v);
        o->fov = f[0];
    }
    return 0;
}

static int parse_args(int argc, char **argv, pick_options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            exit(0);
        } else if (!strcmp(a, "--ray")) {
            mq_ray r;
            if (!has_next || !parse_ray_arg(argv[++i], &r))
                return usage_error("--ray needs ox,oy,oz,dx,dy,dz[,tmin,tmax], got '%s'", has_next ? argv[i] : "");
            if (!add_cli_ray(o, &r))
                return usage_error("out of memory%s", "");
        } else if (!strcmp(a, "--rays") || !strcmp(a, "--out") || !strcmp(a, "--threads") ||
                   !strcmp(a, "--queries") || !strcmp(a, "--hierarchy") || !strcmp(a, "--collide") ||
                   !strcmp(a, "--xforms")) {
            if (!has_next)
                return usage_error("%s needs a value", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--rays"))
                o->rays_path = v;
            else if (!strcmp(a, "--queries"))
                o->queries_path = v;
            else if (!strcmp(a, "--collide"))
                o->collide_path = v;
            else if (!strcmp(a, "--xforms"))
                o->xforms_path = v;
            else if (!strcmp(a, "--hierarchy")) {
                if (strcmp(v, "aabb") && strcmp(v, "obb"))
                    return usage_error("--hierarchy is aabb or obb, not '%s'", v);
                o->hierarchy = v;
            }
            else if (!strcmp(a, "--out"))
                o->out_path = v;
            else {
                char *end;
                long n = strtol(v, &end, 10);
                if (*v == '\0' || *end || n < 0 || n > 1024)
                    return usage_error("--threads needs a number from 0 to 1024, got '%s'", v);
                o->threads = (uint32_t)n;
            }
        } else if (!strcmp(a, "--pixel") || !strcmp(a, "--size") || !strcmp(a, "--camera") || !strcmp(a, "--up") ||
                   !strcmp(a, "--fov")) {
            if (!has_next)
                return usage_error("%s needs a value", a);
            int rc = parse_camera_option(o, a, argv[++i]);
            if (rc)
                return rc;
        } else if (!strcmp(a, "--any")) {
            o->mode = MODE_ANY;
        } else if (!strcmp(a, "--all")) {
            o->mode = MODE_ALL;
        } else if (!strcmp(a, "--cull-back-faces")) {
            o->cull_back_faces = true;
        } else if (!strcmp(a, "--json") || !strcmp(a, "--csv") || !strcmp(a, "--table")) {
            o->forced_format = a + 2;
        } else if (!strcmp(a, "--timing")) {
            o->timing = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option '%s'", a);
        } else if (!o->mesh_path) {
            o->mesh_path = a;
        } else {
            return usage_error("unexpected argument '%s' (one mesh per run)", a);
        }
    }
    if (!o->mesh_path)
        return usage_error("no mesh given%s", "");
    int modes = (o->rays_path || o->cli_ray_count || o->pixel_count) + !!o->queries_path + !!o->collide_path;
    if (modes == 0)
        return usage_error("nothing to do: give --ray, --pixel, --rays, --queries or --collide%s", "");
    if (modes > 1)
        return usage_error("give one of --ray/--pixel/--rays, --queries, --collide%s", "");
    for (size_t i = 0; i < o->pixel_count; i++)
        if (o->pixels[2 * i] >= o->width || o->pixels[2 * i + 1] >= o->height) {
            char what[64];
            snprintf(what, sizeof what, "%u,%u", o->pixels[2 * i], o->pixels[2 * i + 1]);
            return usage_error("--pixel %s is outside the image (see --size)", what);
        }
    if (!!o->collide_path != !!o->xforms_path)
        return usage_error("--collide and --xforms go together%s", "");
    if ((o->queries_path || o->collide_path) && o->mode == MODE_ALL)
        return usage_error("--all is for rays%s", "");
    if (o->rays_path && (o->cli_ray_count || o->pixel_count))
        return usage_error("give --ray/--pixel or --rays, not both%s", "");
    return 0;
}

/* The format must fit the query: .hits holds closest hits, .occl any-hit answers. */
static int check_format(const pick_options *o, pick_format f)
{
    if (f == PICK_HITS && o->mode != MODE_CLOSEST)
        return usage_error("%s: a .hits file holds closest hits (drop --any/--all, or use .occl/.json)", o->out_path);
    if (f == PICK_OCCL && o->mode != MODE_ANY)
        return usage_error("%s: an .occl file holds any-hit answers (add --any)", o->out_path);
    return 0;
}

static bool write_closest(pick_writer *w, const mq_bvh *bvh, const mq_ray *rays, size_t n,
                          const mq_ray_query *q, uint32_t threads, double *trace_s)
{
    mq_hit *hits = malloc((n ? n : 1) * sizeof *hits);
    if (!hits)
        return false;
    double t0 = now_seconds();
    mq_bvh_raycast_closest_batch(bvh, rays, n, q, threads, hits);
    *trace_s = now_seconds() - t0;
    bool ok = pick_write_closest_hits(w, hits, n, threads);
    free(hits);
    return ok;
}

static bool write_any(pick_writer *w, const mq_bvh *bvh, const mq_ray *rays, size_t n, const mq_ray_query *q,
                      uint32_t threads, double *trace_s)
{
    bool *occl = malloc(n ? n : 1);
    if (!occl)
        return false;
    double t0 = now_seconds();
    mq_bvh_raycast_any_batch(bvh, rays, n, q, threads, occl);
    *trace_s = now_seconds() - t0;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++)
        ok = pick_write_occlusion(w, i, occl[i]);
    free(occl);
    return ok;
}

typedef struct all_ctx {
    pick_writer *w;
    size_t ray, rank;
    bool ok;
} all_ctx;

static bool on_hit(const mq_hit *hit, void *user)
{
    all_ctx *c = user;
    c->ok = pick_write_hit(c->w, c->ray, c->rank++, hit);
    return c->ok;
}

static bool write_all(pick_writer *w, const mq_bvh *bvh, const mq_ray *rays, size_t n, const mq_ray_query *q)
{
    for (size_t i = 0; i < n; i++) {
        all_ctx c = {w, i, 0, true};
        size_t k = mq_bvh_raycast_each(bvh, &rays[i], q, on_hit, &c);
        if (!c.ok)
            return false;
        if (k == 0 && w->format == PICK_TABLE && !pick_write_hit(w, i, 0, NULL))
            return false;
    }
    return true;
}

/* Loads an OBJ mesh, printing the error (path:line:column) on failure. */
static mq_mesh *load_mesh(const char *path)
{
    mq_mesh *mesh = NULL;
    mq_diag diag;
    if (mq_obj_load(path, NULL, &mesh, NULL, &diag) != MQ_OK)
        fprintf(stderr, "mq-pick: %s:%llu:%u: %s\n", diag.path[0] ? diag.path : path, (unsigned long long)diag.line,
                diag.column, diag.message);
    return mesh;
}

/* Appends the rays through the --pixel pixels, after the --ray rays. */
static bool add_pixel_rays(const pick_options *o, const mq_mesh *mesh, mq_ray **rays, size_t *count)
{
    mqt_camera cam;
    mq_aabb bounds;
    mqt_bounds(mq_mesh_positions(mesh), mq_mesh_vertex_count(mesh), &bounds);
    mqt_camera_default(&bounds, o->width, o->height, &cam);
    if (o->has_camera)
        for (int k = 0; k < 3; k++) {
            cam.eye[k] = o->camera[k];
            cam.target[k] = o->camera[3 + k];
        }
    if (o->has_up)
        for (int k = 0; k < 3; k++)
            cam.up[k] = o->up[k];
    if (o->fov > 0.0)
        cam.vfov_degrees = o->fov;
    mq_ray *all = realloc(*rays, (*count + o->pixel_count) * sizeof *all);
    if (!all) {
        fprintf(stderr, "mq-pick: out of memory\n");
        return false;
    }
    *rays = all;
    for (size_t i = 0; i < o->pixel_count; i++) {
        uint32_t x = o->pixels[2 * i], y = o->pixels[2 * i + 1];
        if (x >= o->width || y >= o->height) {
            fprintf(stderr, "mq-pick: pixel %u,%u is outside the %ux%u image\n", x, y, o->width, o->height);
            return false;
        }
        if (!mqt_camera_ray(&cam, x, y, &all[*count + i])) {
            fprintf(stderr, "mq-pick: the camera is degenerate (eye at the target, or up along the view)\n");
            return false;
        }
    }
    *count += o->pixel_count;
    return true;
}

/* --queries and --collide: shape answers on the OBB (or world-axis) tree. */
static int run_shapes(const pick_options *o)
{
    const char *hierarchy = o->hierarchy ? o->hierarchy : "obb";
    bool json = o->forced_format ? !strcmp(o->forced_format, "json") : pick_format_for(o->out_path, NULL) == PICK_JSON;
    mq_mesh *mesh = load_mesh(o->mesh_path), *other = NULL;
    mq_obbtree *tree = NULL, *other_tree = NULL;
    FILE *out = NULL;
    int rc = 1;
    if (!mesh || !(tree = pick_build_tree(mesh, hierarchy)))
        goto done;
    if (o->collide_path) {
        other = strcmp(o->collide_path, o->mesh_path) ? load_mesh(o->collide_path) : NULL;
        if (other ? !(other_tree = pick_build_tree(other, hierarchy)) : strcmp(o->collide_path, o->mesh_path))
            goto done;
    }
    bool to_stdout = !strcmp(o->out_path, "-");
    out = to_stdout ? stdout : fopen(o->out_path, "w");
    if (!out) {
        fprintf(stderr, "mq-pick: cannot write %s: %s\n", o->out_path, strerror(errno));
        goto done;
    }
    rc = o->queries_path ? pick_run_queries(tree, o->queries_path, out, json)
                         : pick_run_collide(tree, other_tree ? other_tree : tree, o->xforms_path,
                                            o->mode == MODE_ANY, out, json);
    if ((fflush(out) != 0 || (!to_stdout && fclose(out) != 0)) && rc == 0) {
        fprintf(stderr, "mq-pick: writing %s failed: %s\n", o->out_path, strerror(errno));
        rc = 1;
    }
done:
    mq_obbtree_destroy(other_tree);
    mq_obbtree_destroy(tree);
    mq_mesh_destroy(other);
    mq_mesh_destroy(mesh);
    return rc;
}

static int run(const pick_options *o)
{
    if (o->queries_path || o->collide_path)
        return run_shapes(o);
    pick_format format = pick_format_for(o->out_path, o->forced_format);
    int rc = check_format(o, format);
    if (rc)
        return rc;

    double t_start = now_seconds();
    /* run() owns `rays`: a file's rays, or a copy of the --ray rays (pixel rays are appended later). */
    mq_ray *rays = NULL;
    size_t ray_count = 0;
    char err[512];
    if (o->rays_path && !mqt_read_rays(o->rays_path, &rays, &ray_count, err, sizeof err)) {
        fprintf(stderr, "mq-pick: %s\n", err);
        return 1;
    }
    if (o->cli_ray_count) {
        rays = malloc(o->cli_ray_count * sizeof *rays);
        if (!rays) {
            fprintf(stderr, "mq-pick: out of memory\n");
            return 1;
        }
        memcpy(rays, o->cli_rays, o->cli_ray_count * sizeof *rays);
        ray_count = o->cli_ray_count;
    }
    double t_rays = now_seconds();

    mq_bvh *bvh = NULL;
    mq_diag diag;
    mq_status st;
    mq_mesh *mesh = load_mesh(o->mesh_path);
    if (!mesh) {
        rc = 1;
        goto done;
    }
    if (o->pixel_count && !add_pixel_rays(o, mesh, &rays, &ray_count)) {
        rc = 1;
        goto done;
    }
    double t_load = now_seconds();
    mq_bvh_def def = mq_default_bvh_def();
    def.threads = o->threads;
    st = mq_bvh_build(mesh, &def, &bvh, &diag);
    if (st != MQ_OK) {
        fprintf(stderr, "mq-pick: building the BVH failed: %s (%s)\n", diag.message, mq_status_string(st));
        rc = 1;
        goto done;
    }
    double t_build = now_seconds();

    bool to_stdout = !strcmp(o->out_path, "-");
    FILE *out = to_stdout ? stdout : fopen(o->out_path, (format == PICK_HITS || format == PICK_OCCL) ? "wb" : "w");
    if (!out) {
        fprintf(stderr, "mq-pick: cannot write %s: %s\n", o->out_path, strerror(errno));
        rc = 1;
        goto done;
    }
    static char buffer[1 << 20];
    setvbuf(out, buffer, _IOFBF, sizeof buffer);
    static mqt_textbuf text;
    mqt_tb_init(&text, out);
    pick_writer w = {out, format, o->mesh_path, mesh, false, &text};
    mq_ray_query q = mq_default_ray_query();
    q.cull_back_faces = o->cull_back_faces;
    double trace_s = 0.0, t_trace0 = now_seconds();
    bool ok = o->mode == MODE_CLOSEST ? write_closest(&w, bvh, rays, ray_count, &q, o->threads, &trace_s)
              : o->mode == MODE_ANY   ? write_any(&w, bvh, rays, ray_count, &q, o->threads, &trace_s)
                                      : write_all(&w, bvh, rays, ray_count, &q);
    if (o->mode == MODE_ALL)
        trace_s = now_seconds() - t_trace0;
    ok = pick_writer_flush(&w) && ok;
    ok = (fflush(out) == 0) && ok;
    if (!to_stdout)
        ok = (fclose(out) == 0) && ok;
    double t_end = now_seconds();
    if (!ok) {
        fprintf(stderr, "mq-pick: writing %s failed: %s\n", o->out_path, strerror(errno));
        rc = 1;
        goto done;
    }
    if (o->timing)
        fprintf(stderr,
                "mq-pick: %zu rays, %zu triangles: read rays %.1f ms, load %.1f ms, build %.1f ms, "
                "trace %.1f ms, write %.1f ms\n",
                ray_count, mq_mesh_triangle_count(mesh), 1e3 * (t_rays - t_start), 1e3 * (t_load - t_rays),
                1e3 * (t_build - t_load), 1e3 * trace_s, 1e3 * (t_end - t_trace0 - trace_s));
done:
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
    free(rays);
    return rc;
}

int main(int argc, char **argv)
{
    pick_options o = {.out_path = "-", .mode = MODE_CLOSEST, .width = 1024, .height = 1024};
    int rc = parse_args(argc, argv, &o);
    if (rc == 0)
        rc = run(&o);
    free(o.cli_rays);
    free(o.pixels);
    return rc;
}
