/*
 * mq-render — look at a mesh. Loads OBJ files or saved hierarchies (placed as
 * mq-pick places them), builds a BVH, traces one ray per pixel from the
 * camera mq-pick --pixel uses (by default the one of docs/formats.md, which
 * frames the model) and writes a PNG shaded by normal, depth or BVH work, with
 * optional crosshairs on picked pixels and the triangles a sphere overlaps
 * highlighted. Several or placed meshes are rendered as one mesh of their
 * placed triangles (ids concatenated in argument order, as mq-pick's). With
 * several meshes, --segments draws where each pair intersects and --closest
 * the closest points of each pair that does not (pairs.c, draw3d.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <meshquery/bvh.h>
#include <meshquery/obbtree.h>
#include <meshquery/obj.h>

#include "camera.h"
#include "generate.h"
#include "meshload.h"
#include "place.h"
#include "render.h"

/* Memory is about 60 bytes per pixel (ray, sample, colour). */
#define MAX_SIDE 8192u
#define MAX_PIXELS (4096u * 4096u)

static const char usage_text[] =
    "usage: mq-render MESH [--place P] [MESH [--place P] ...] --size WxH --out IMAGE.png [options]\n"
    "\n"
    "Renders Wavefront OBJ meshes to a PNG image, as seen from the camera of mq-pick --pixel:\n"
    "by default the one of docs/formats.md, at c + 1.2*D*normalize(1, 0.6, 1.4) looking at\n"
    "the bounding box centre c (D = box diagonal), up +y, vertical field of view 45 degrees.\n"
    "Pixel (0,0) is top left.\n"
    "\n"
    "meshes:\n"
    "  MESH                an OBJ file, or a hierarchy saved with mq-pick --save (recognised\n"
    "                      by its first bytes; loads instead of being parsed)\n"
    "  --place TX,TY,TZ[,QW,QX,QY,QZ[,SX,SY,SZ | ,S]]\n"
    "                      places the MESH just before it, as mq-pick: scale (negative =\n"
    "                      mirror), then rotate by the quaternion (w first, normalised),\n"
    "                      then translate; triangle ids (--sphere) are those of the meshes\n"
    "                      concatenated in argument order\n"
    "camera (as mq-pick):\n"
    "  --camera EX,EY,EZ,TX,TY,TZ  eye and target point (default: framing all the meshes)\n"
    "  --up X,Y,Z          up direction (default 0,1,0)\n"
    "  --fov DEGREES       vertical field of view (default 45)\n"
    "options:\n"
    "  --size WxH          image size in pixels (default 1024x1024; at most 8192 per side\n"
    "                      and 16777216 pixels)\n"
    "  --out FILE.png      the PNG to write; required, and its name must end in .png\n"
    "                      ('-', a pipe or a device such as /dev/stdout: written as is)\n"
    "  --shade S           normal (default): geometric normal mapped to RGB, facing the camera;\n"
    "                      depth: near bright, far dark, over the visible range;\n"
    "                      heat: BVH nodes + leaves visited by each pixel's ray (black = none,\n"
    "                      pale yellow = the 99.5th percentile of the image, printed\n"
    "                      with --timing)\n"
    "  --mark X,Y          draw a crosshair around pixel X,Y (repeatable)\n"
    "  --sphere CX,CY,CZ,R highlight in orange the triangles the solid sphere overlaps\n"
    "                      (touching counts; repeatable)\n"
    "  --segments          (two meshes or more) the intersection segments of every pair of\n"
    "                      meshes that intersect, as thick magenta (255,0,255) lines outlined in\n"
    "                      black, depth-tested against the surfaces: where a surface hides them,\n"
    "                      a thin dashed magenta line; a touching or coplanar triangle pair is a\n"
    "                      magenta dot\n"
    "  --closest           (two meshes or more) for every pair of meshes that does not intersect,\n"
    "                      its closest pair of points (as mq-pick --distance finds them): a cyan\n"
    "                      (0,255,255) dot on each and a white line between them, outlined in\n"
    "                      black and drawn on top of everything (no depth test)\n"
    "  --threads N         trace on N threads (default 0: all cores)\n"
    "  --strict            an OBJ statement the reader does not know is an error (default:\n"
    "                      skipped; a file of unknown statements without a face is an error\n"
    "                      either way: not an OBJ file)\n"
    "  --timing            print the time of each stage to stderr\n"
    "  --version           print the version of the meshquery library and exit\n"
    "  -h, --help          this text\n"
    "\n"
    "examples:\n"
    "  mq-render data/spot.obj --size 512x512 --out spot.png\n"
    "  mq-render data/spot.obj --size 512x512 --shade depth --out spot-depth.png\n"
    "  mq-render data/spot.obj --size 512x512 --shade heat --timing --out spot-heat.png\n"
    "  mq-render data/spot.obj --size 512x512 --mark 256,256 --sphere 0,0.5,0,0.2 --out spot-pick.png\n"
    "  mq-render data/spot.obj --size 640x480 --camera 0,0.5,3,0,0.2,0 --out spot-front.png\n"
    "  mq-render data/spot.obj data/spot.obj --place 1.5,0,0,0.7071068,0,0.7071068,0 --out two.png\n"
    "  mq-render data/spot.obj data/spot.obj --place 0.3,0.1,0 --segments --out cut.png\n"
    "  mq-render data/spot.obj data/spot.obj --place 1.5,0,0 --closest --out gap.png\n"
    "\n"
    "Exit status: 0 on success, 1 when the mesh cannot be read or the image cannot be\n"
    "written, 2 for bad arguments.\n";

/* One mesh argument and its --place. */
typedef struct render_mesh_arg {
    const char *path;
    bool placed;
    mqt_place place;
} render_mesh_arg;

typedef struct render_options {
    render_mesh_arg *meshes;
    size_t mesh_count;
    bool has_camera, has_up;
    double camera[6], up[3], fov;
    const char *out_path;
    uint32_t width, height;
    render_shade shade;
    uint32_t threads;
    bool timing;
    bool strict; /* unknown OBJ statements are errors */
    bool segments, closest;
    uint32_t (*marks)[2];
    size_t mark_count;
    mq_sphere *spheres;
    size_t sphere_count;
} render_options;

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "mq-render: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'mq-render --help'.\n");
    return 2;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A decimal integer in [lo, hi] starting at *p; advances *p past it. */
static bool parse_uint(const char **p, unsigned long lo, unsigned long hi, uint32_t *out)
{
    char *end;
    if (**p < '0' || **p > '9')
        return false;
    errno = 0;
    unsigned long v = strtoul(*p, &end, 10);
    if (errno == ERANGE || v < lo || v > hi)
        return false;
    *p = end;
    *out = (uint32_t)v;
    return true;
}

/* "WxH" */
static bool parse_size(const char *text, uint32_t *w, uint32_t *h)
{
    const char *p = text;
    if (!parse_uint(&p, 1, MAX_SIDE, w) || (*p != 'x' && *p != 'X'))
        return false;
    p++;
    return parse_uint(&p, 1, MAX_SIDE, h) && *p == '\0' && (uint64_t)*w * *h <= MAX_PIXELS;
}

/* "X,Y" (bounds against the image size are checked once all options are read) */
static bool parse_mark(const char *text, uint32_t xy[2])
{
    const char *p = text;
    if (!parse_uint(&p, 0, UINT32_MAX, &xy[0]) || *p++ != ',')
        return false;
    return parse_uint(&p, 0, UINT32_MAX, &xy[1]) && *p == '\0';
}

/* "cx,cy,cz,r" with finite numbers and r >= 0 */
static bool parse_sphere(const char *text, mq_sphere *s)
{
    float v[4];
    const char *p = text;
    for (int i = 0; i < 4; i++) {
        char *end;
        errno = 0;
        double d = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(d) || fabs(d) > 3.4e38)
            return false;
        v[i] = (float)d;
        if (*end != (i < 3 ? ',' : '\0'))
            return false;
        p = end + 1;
    }
    if (v[3] < 0.0f)
        return false;
    *s = (mq_sphere){{v[0], v[1], v[2]}, v[3]};
    return true;
}

static int parse_args(int argc, char **argv, render_options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) {
            mqt_print_version("mq-render");
            exit(0);
        } else if (!strcmp(a, "--timing")) {
            o->timing = true;
        } else if (!strcmp(a, "--strict")) {
            o->strict = true;
        } else if (!strcmp(a, "--segments")) {
            o->segments = true;
        } else if (!strcmp(a, "--closest")) {
            o->closest = true;
        } else if (!strcmp(a, "--size") || !strcmp(a, "--out") || !strcmp(a, "--shade") || !strcmp(a, "--mark") ||
                   !strcmp(a, "--sphere") || !strcmp(a, "--threads") || !strcmp(a, "--place") ||
                   !strcmp(a, "--camera") || !strcmp(a, "--up") || !strcmp(a, "--fov")) {
            if (i + 1 >= argc)
                return usage_error("%s needs a value", a);
            const char *v = argv[++i];
            double f[1];
            if (!strcmp(a, "--place")) {
                if (o->mesh_count == 0 || o->meshes[o->mesh_count - 1].placed)
                    return usage_error(MQT_PLACE_ORDER_ERROR, v);
                if (!mqt_parse_place(v, &o->meshes[o->mesh_count - 1].place))
                    return usage_error(MQT_PLACE_FORM_ERROR, v);
                o->meshes[o->mesh_count - 1].placed = true;
            } else if (!strcmp(a, "--camera")) {
                if (mqt_parse_numbers(v, o->camera, 6) != 6)
                    return usage_error("--camera needs EX,EY,EZ,TX,TY,TZ, got '%s'", v);
                o->has_camera = true;
            } else if (!strcmp(a, "--up")) {
                if (mqt_parse_numbers(v, o->up, 3) != 3)
                    return usage_error("--up needs X,Y,Z, got '%s'", v);
                o->has_up = true;
            } else if (!strcmp(a, "--fov")) {
                if (mqt_parse_numbers(v, f, 1) != 1 || !(f[0] > 0.0 && f[0] < 180.0))
                    return usage_error("--fov needs degrees between 0 and 180, got '%s'", v);
                o->fov = f[0];
            } else if (!strcmp(a, "--size")) {
                if (!parse_size(v, &o->width, &o->height))
                    return usage_error("--size needs WxH, each side 1 to 8192 and at most 16777216 pixels, got '%s'",
                                       v);
            } else if (!strcmp(a, "--out")) {
                size_t n = strlen(v);
                struct stat st;
                bool stream = !strcmp(v, "-") || !strncmp(v, "/dev/", 5) ||
                              (stat(v, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)));
                if (!stream && (n < 5 || strcasecmp(v + n - 4, ".png")))
                    return usage_error("--out needs a PNG file name ending in .png, got '%s'", v);
                o->out_path = v;
            } else if (!strcmp(a, "--shade")) {
                if (!strcmp(v, "normal"))
                    o->shade = SHADE_NORMAL;
                else if (!strcmp(v, "depth"))
                    o->shade = SHADE_DEPTH;
                else if (!strcmp(v, "heat"))
                    o->shade = SHADE_HEAT;
                else
                    return usage_error("--shade is normal, depth or heat, not '%s'", v);
            } else if (!strcmp(a, "--mark")) {
                uint32_t xy[2];
                if (!parse_mark(v, xy))
                    return usage_error("--mark needs a pixel X,Y, got '%s'", v);
                uint32_t(*m)[2] = realloc(o->marks, (o->mark_count + 1) * sizeof *m);
                if (!m)
                    return usage_error("out of memory%s", "");
                m[o->mark_count][0] = xy[0];
                m[o->mark_count][1] = xy[1];
                o->marks = m;
                o->mark_count++;
            } else if (!strcmp(a, "--sphere")) {
                mq_sphere s;
                if (!parse_sphere(v, &s))
                    return usage_error("--sphere needs cx,cy,cz,r with r >= 0, got '%s'", v);
                mq_sphere *m = realloc(o->spheres, (o->sphere_count + 1) * sizeof *m);
                if (!m)
                    return usage_error("out of memory%s", "");
                m[o->sphere_count++] = s;
                o->spheres = m;
            } else {
                const char *p = v;
                if (!parse_uint(&p, 0, 1024, &o->threads) || *p)
                    return usage_error("--threads needs a number from 0 to 1024, got '%s'", v);
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option '%s'", a);
        } else {
            render_mesh_arg *m = realloc(o->meshes, (o->mesh_count + 1) * sizeof *m);
            if (!m)
                return usage_error("out of memory%s", "");
            m[o->mesh_count++] = (render_mesh_arg){a, false, mqt_place_identity()};
            o->meshes = m;
        }
    }
    if (!o->mesh_count)
        return usage_error("no mesh given%s", "");
    if (!o->out_path)
        return usage_error("no output given: add --out IMAGE.png%s", "");
    if ((o->segments || o->closest) && o->mesh_count < 2)
        return usage_error("%s draws between meshes: give two meshes or more",
                           o->segments ? "--segments" : "--closest");
    for (size_t i = 0; i < o->mark_count; i++) {
        if (o->marks[i][0] >= o->width || o->marks[i][1] >= o->height) {
            char text[64];
            snprintf(text, sizeof text, "%u,%u", o->marks[i][0], o->marks[i][1]);
            fprintf(stderr, "mq-render: --mark %s lies outside the %ux%u image\nTry 'mq-render --help'.\n", text,
                    o->width, o->height);
            return 2;
        }
    }
    return 0;
}

/* Flags (one byte per triangle id) the triangles any of the spheres overlaps. */
static bool flag_sphere_triangles(const mq_mesh *mesh, const render_options *o, uint8_t *flags, size_t *flagged)
{
    mq_obbtree *tree = NULL;
    mq_diag diag;
    mq_status st = mq_obbtree_build(mesh, NULL, &tree, &diag);
    if (st != MQ_OK) {
        fprintf(stderr, "mq-render: building the OBB tree failed: %s (%s)\n", diag.message, mq_status_string(st));
        return false;
    }
    bool ok = true;
    *flagged = 0;
    for (size_t i = 0; i < o->sphere_count && ok; i++) {
        size_t n = mq_obbtree_overlap_array(tree, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = o->spheres[i]}}, NULL, 0);
        uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
        if (!ids) {
            fprintf(stderr, "mq-render: out of memory\n");
            ok = false;
            break;
        }
        mq_obbtree_overlap_array(tree, &(mq_shape){MQ_SHAPE_SPHERE, {.sphere = o->spheres[i]}}, ids, n);
        for (size_t k = 0; k < n; k++) {
            *flagged += !flags[ids[k]];
            flags[ids[k]] = 1;
        }
        free(ids);
    }
    mq_obbtree_destroy(tree);
    return ok;
}

static const char *shade_name(render_shade s)
{
    return s == SHADE_HEAT ? "heat" : s == SHADE_DEPTH ? "depth" : "normal";
}

/* One mesh argument: an OBJ file (obj owns the mesh) or a saved hierarchy (owning its mesh). */
typedef struct render_model {
    mq_mesh *obj;
    mq_bvh *bvh;
    mq_obbtree *tree;
    const mq_mesh *mesh;
} render_model;

static bool load_model(render_model *m, const char *path, bool strict)
{
    if (mqt_is_saved_hierarchy(path)) {
        if (!mqt_load_saved("mq-render", path, &m->bvh, &m->tree))
            return false;
        m->mesh = m->bvh ? mq_bvh_mesh(m->bvh) : mq_obbtree_mesh(m->tree);
        return true;
    }
    if (!mqt_load_obj("mq-render", path, strict, &m->obj))
        return false;
    m->mesh = m->obj;
    return true;
}

static void free_model(render_model *m)
{
    mq_bvh_destroy(m->bvh);
    mq_obbtree_destroy(m->tree);
    mq_mesh_destroy(m->obj);
}

/* The placed triangles of every mesh argument as one mesh, in argument order. */
static bool place_meshes(const render_options *o, const render_model *models, mq_mesh **out)
{
    size_t vertices = 0, triangles = 0;
    for (size_t i = 0; i < o->mesh_count; i++) {
        vertices += mq_mesh_vertex_count(models[i].mesh);
        triangles += mq_mesh_triangle_count(models[i].mesh);
    }
    if (vertices > UINT32_MAX - 1 || triangles > UINT32_MAX - 1) {
        fprintf(stderr, "mq-render: the meshes have more than %u vertices or triangles together\n", UINT32_MAX - 1);
        return false;
    }
    float *positions = malloc((vertices ? vertices : 1) * 3 * sizeof *positions);
    uint32_t *indices = malloc((triangles ? triangles : 1) * 3 * sizeof *indices);
    bool ok = positions && indices;
    size_t v = 0, t = 0;
    for (size_t i = 0; i < o->mesh_count && ok; i++) {
        const mq_mesh *m = models[i].mesh;
        const float *p = mq_mesh_positions(m);
        const uint32_t *idx = mq_mesh_indices(m);
        for (size_t k = 0; k < mq_mesh_vertex_count(m); k++)
            mqt_place_point(&o->meshes[i].place, p + 3 * k, positions + 3 * (v + k));
        for (size_t k = 0; k < 3 * mq_mesh_triangle_count(m); k++)
            indices[3 * t + k] = (uint32_t)(idx[k] + v);
        v += mq_mesh_vertex_count(m);
        t += mq_mesh_triangle_count(m);
    }
    mq_diag diag = {0};
    mq_status st =
        ok ? mq_mesh_create(positions, vertices, indices, triangles, NULL, out, &diag) : MQ_ERR_OUT_OF_MEMORY;
    if (st != MQ_OK)
        fprintf(stderr, "mq-render: placing the meshes failed: %s (%s)\n", diag.message, mq_status_string(st));
    free(positions);
    free(indices);
    return st == MQ_OK;
}

/* The camera (*cam) and its ray through every pixel (row-major). False after an error
 * message (exit 2) when the camera the options give is degenerate. */
static bool camera_rays(const render_options *o, const mq_mesh *mesh, mqt_camera *cam, mq_ray *rays)
{
    mq_aabb bounds;
    mqt_bounds(mq_mesh_positions(mesh), mq_mesh_vertex_count(mesh), &bounds);
    mqt_camera_default(&bounds, o->width, o->height, cam);
    for (int k = 0; k < 3 && o->has_camera; k++) {
        cam->eye[k] = o->camera[k];
        cam->target[k] = o->camera[3 + k];
    }
    for (int k = 0; k < 3 && o->has_up; k++)
        cam->up[k] = o->up[k];
    if (o->fov > 0.0)
        cam->vfov_degrees = o->fov;
    bool user_camera = o->has_camera || o->has_up;
    for (uint32_t y = 0; y < o->height; y++)
        for (uint32_t x = 0; x < o->width; x++) {
            mq_ray *r = &rays[(size_t)y * o->width + x];
            if (!mqt_camera_ray(cam, x, y, r)) {
                if (user_camera) {
                    fprintf(stderr, "mq-render: the camera is degenerate (eye at the target, or up along the "
                                    "view)\nTry 'mq-render --help'.\n");
                    return false;
                }
                /* a model of one point (or none) frames no view: the image stays background */
                *r = (mq_ray){{0, 0, 0}, 1.0f, {0, 0, 1}, 0.0f};
            }
        }
    return true;
}

/* The segments and closest pairs between the meshes as placed (pairs.c). False after an
 * error message. */
static bool find_pairs(const render_options *o, const render_model *models, render_pairs *out)
{
    mq_mesh **placed = calloc(o->mesh_count, sizeof *placed);
    bool ok = placed != NULL;
    for (size_t i = 0; i < o->mesh_count && ok; i++) {
        mq_diag diag = {0};
        mq_status st = mqt_place_mesh(models[i].mesh, &o->meshes[i].place, &placed[i], &diag);
        if (st != MQ_OK) {
            fprintf(stderr, "mq-render: %s: cannot place the mesh: %s (%s)\n", o->meshes[i].path, diag.message,
                    mq_status_string(st));
            ok = false;
        }
    }
    if (!placed)
        fprintf(stderr, "mq-render: out of memory\n");
    ok = ok && render_find_pairs((const mq_mesh *const *)placed, o->mesh_count, o->segments, o->closest, out);
    for (size_t i = 0; placed && i < o->mesh_count; i++)
        mq_mesh_destroy(placed[i]);
    free(placed);
    return ok;
}

static int run(const render_options *o)
{
    double t0 = now_seconds();
    int rc = 1;
    mq_mesh *mesh = NULL;
    mq_bvh *bvh = NULL;
    mq_ray *rays = NULL;
    render_sample *samples = NULL;
    uint8_t *rgb = NULL, *flags = NULL;
    render_pairs pairs = {0};
    mq_diag diag;
    render_model *models = calloc(o->mesh_count, sizeof *models);
    if (!models) {
        fprintf(stderr, "mq-render: out of memory\n");
        goto done;
    }
    for (size_t i = 0; i < o->mesh_count; i++)
        if (!load_model(&models[i], o->meshes[i].path, o->strict))
            goto done;
    const mq_mesh *scene_mesh = models[0].mesh; /* what is rendered: one mesh as it is, else all placed */
    const mq_bvh *scene_bvh = models[0].bvh;
    if (o->mesh_count > 1 || o->meshes[0].placed) {
        if (!place_meshes(o, models, &mesh))
            goto done;
        scene_mesh = mesh;
        scene_bvh = NULL;
    }
    double t_load = now_seconds();
    if (!scene_bvh) {
        mq_bvh_def def = mq_default_bvh_def();
        def.threads = o->threads;
        mq_status st = mq_bvh_build(scene_mesh, &def, &bvh, &diag);
        if (st != MQ_OK) {
            fprintf(stderr, "mq-render: building the BVH failed: %s (%s)\n", diag.message, mq_status_string(st));
            goto done;
        }
        scene_bvh = bvh;
    }
    double t_build = now_seconds();

    size_t pixels = (size_t)o->width * o->height;
    rays = malloc(pixels * sizeof *rays);
    samples = malloc(pixels * sizeof *samples);
    rgb = malloc(pixels * 3);
    if (!rays || !samples || !rgb) {
        fprintf(stderr, "mq-render: out of memory for a %ux%u image\n", o->width, o->height);
        goto done;
    }
    mqt_camera cam;
    if (!camera_rays(o, scene_mesh, &cam, rays)) {
        rc = 2;
        goto done;
    }
    double t_camera = now_seconds();
    if (!render_trace(scene_bvh, rays, o->width, o->height, o->shade == SHADE_HEAT, o->threads, samples)) {
        fprintf(stderr, "mq-render: out of memory while tracing\n");
        goto done;
    }
    double t_trace = now_seconds();

    uint32_t heat_max = render_shade_image(samples, o->width, o->height, o->shade, rgb);
    size_t flagged = 0, lit = 0;
    if (o->sphere_count) {
        size_t tris = mq_mesh_triangle_count(scene_mesh);
        flags = calloc(tris ? tris : 1, 1);
        if (!flags) {
            fprintf(stderr, "mq-render: out of memory\n");
            goto done;
        }
        if (!flag_sphere_triangles(scene_mesh, o, flags, &flagged))
            goto done;
        lit = render_highlight(samples, o->width, o->height, flags, tris, rgb);
    }
    double t_shade = now_seconds();
    size_t seen = 0;
    if (o->segments || o->closest) {
        if (!find_pairs(o, models, &pairs))
            goto done;
        seen = render_draw_segments(&cam, samples, pairs.segments, pairs.segment_count, rgb);
        render_draw_closest(&cam, pairs.closest, pairs.closest_count, rgb);
    }
    for (size_t i = 0; i < o->mark_count; i++)
        render_mark(rgb, o->width, o->height, o->marks[i][0], o->marks[i][1]);
    double t_pairs = now_seconds();

    char err[512];
    if (!render_write_png(o->out_path, rgb, o->width, o->height, err, sizeof err)) {
        fprintf(stderr, "mq-render: %s\n", err);
        goto done;
    }
    double t_end = now_seconds();
    if (o->timing) {
        fprintf(stderr,
                "mq-render: %ux%u %s, %zu triangles: load %.1f ms, build %.1f ms, camera rays %.1f ms, trace %.1f ms, "
                "shade and overlays %.1f ms, pairs %.1f ms, write %.1f ms, total %.1f ms\n",
                o->width, o->height, shade_name(o->shade), mq_mesh_triangle_count(scene_mesh), 1e3 * (t_load - t0),
                1e3 * (t_build - t_load), 1e3 * (t_camera - t_build), 1e3 * (t_trace - t_camera),
                1e3 * (t_shade - t_trace), 1e3 * (t_pairs - t_shade), 1e3 * (t_end - t_pairs), 1e3 * (t_end - t0));
        if (o->shade == SHADE_HEAT)
            fprintf(stderr, "mq-render: heat scale: black = 0, pale yellow = %u or more nodes + leaves visited\n",
                    heat_max);
        if (o->sphere_count)
            fprintf(stderr, "mq-render: spheres overlap %zu triangles, %zu pixels highlighted\n", flagged, lit);
        if (o->segments || o->closest)
            fprintf(stderr,
                    "mq-render: %zu of %zu mesh pairs intersect: %zu segments (%zu steps visible), %zu closest "
                    "pairs drawn\n",
                    pairs.intersecting_pairs, o->mesh_count * (o->mesh_count - 1) / 2, pairs.segment_count, seen,
                    pairs.closest_count);
    }
    rc = 0;
done:
    render_free_pairs(&pairs);
    free(flags);
    free(rgb);
    free(samples);
    free(rays);
    mq_bvh_destroy(bvh);
    mq_mesh_destroy(mesh);
    for (size_t i = 0; models && i < o->mesh_count; i++)
        free_model(&models[i]);
    free(models);
    return rc;
}

int main(int argc, char **argv)
{
    render_options o = {.width = 1024, .height = 1024, .shade = SHADE_NORMAL};
    int rc = parse_args(argc, argv, &o);
    if (rc == 0)
        rc = run(&o);
    free(o.marks);
    free(o.spheres);
    free(o.meshes);
    return rc;
}
