#include "pick_args.h"

#include "meshload.h"
#include "place.h"
#include "pick_distance.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: mq-pick MESH [--place P] [MESH [--place P] ...] [--ray O,D | --pixel X,Y | --rays FILE] [options]\n"
    "       mq-pick MESH... --queries FILE | --sphere S | --capsule C | --box B | --aabb A  [options]\n"
    "       mq-pick MESH... --closest X,Y,Z[,MAXDIST] [options]\n"
    "       mq-pick MESH --collide OTHER.obj --xforms FILE [--any] [--out FILE]\n"
    "       mq-pick MESH [--place P] MESH [--place P] ... --clash [--clearance D] [options]\n"
    "       mq-pick MESH [--place P] MESH [--place P] --distance | --clearance D [options]\n"
    "       mq-pick MESH --sphere S | --capsule C | --box B | --aabb A | --queries FILE --contacts\n"
    "       mq-pick MESH.obj --save FILE.mqh\n"
    "\n"
    "Finds what rays hit in Wavefront OBJ meshes, which triangles shapes overlap, the\n"
    "nearest surface point, and which triangle pairs of two placed meshes intersect.\n"
    "\n"
    "meshes:\n"
    "  MESH               an OBJ file, or a hierarchy saved with --save (recognised by its\n"
    "                     first bytes; loads instead of being parsed and built)\n"
    "  --place TX,TY,TZ[,QW,QX,QY,QZ[,SX,SY,SZ | ,S]]\n"
    "                     places the MESH just before it: scale (negative = mirror), then\n"
    "                     rotate by the quaternion (w first, normalised), then translate\n"
    "                     With several meshes or a --place, every answer also names the\n"
    "                     instance (the mesh argument's 0-based position); triangle ids in\n"
    "                     .hits and .overlaps are then those of the meshes concatenated in\n"
    "                     argument order (id + the triangle counts of the meshes before).\n"
    "  --save FILE        write the BVH built for the one MESH to FILE (then answer, if asked)\n"
    "  --strict           an OBJ statement the reader does not know is an error (default: skipped\n"
    "                     and counted; a file of unknown statements without a face is an error\n"
    "                     either way: not an OBJ file)\n"
    "rays:\n"
    "  --ray ox,oy,oz,dx,dy,dz[,tmin,tmax]  one ray (repeatable); t is in units of the direction\n"
    "  --pixel X,Y        the ray through pixel (X, Y) of the camera's image, (0,0) = top left\n"
    "                     (repeatable); the default camera frames all the meshes\n"
    "  --size WxH         the camera's image size (default 1024x1024)\n"
    "  --camera EX,EY,EZ,TX,TY,TZ   camera eye and target point (default: framing the model)\n"
    "  --up X,Y,Z         camera up direction (default 0,1,0)\n"
    "  --fov DEGREES      vertical field of view (default 45)\n"
    "  --rays FILE        rays from FILE: binary .rays (8 float32 per ray), or text with 6 or\n"
    "                     8 numbers per line (ox oy oz dx dy dz | ox oy oz tmin dx dy dz tmax);\n"
    "                     '-' reads text from standard input\n"
    "  (default)          the closest hit of each ray\n"
    "  --any              is anything hit? (occlusion, line of sight)\n"
    "  --all              every hit along each ray, nearest first\n"
    "  --cull-back-faces  ignore triangles seen from behind\n";

static const char usage_clash[] =
    "clash and contacts:\n"
    "  --clash            every pair of the placed meshes (instances i < j) that intersect,\n"
    "                     touch or come within --clearance: one record per pair, sorted, with\n"
    "                     the distance (0 when they intersect or touch), a closest triangle\n"
    "                     pair and its points (world)\n"
    "  --clearance D      with --clash: pairs at distance <= D clash (D >= 0, default 0)\n"
    "  --pairs            with --clash: also each pair's triangle pairs within D (up to 1000;\n"
    "                     \"triangle_pairs\" in JSON, indented lines in the table)\n"
    "  --contacts         with one mesh and shapes: per shape, every triangle it overlaps with\n"
    "                     the penetration depth, the normal (the way the shape moves out) and\n"
    "                     a point on each\n"
    "                     e.g. mq-pick data/spot.obj data/spot.obj --place 0.3,0,0 --clash --json\n"
    "                          mq-pick data/spot.obj --sphere 0,0.3,0.4,0.15 --contacts --json\n";

static const char usage_distance[] =
    "distance between two meshes (each placed by its --place; answers in world coordinates):\n"
    "  --distance         the distance, the closest point on each mesh, their triangles, faces\n"
    "                     and lines (0 when they intersect or touch)\n"
    "  --clearance D      without --clash: every triangle pair at distance <= D, sorted\n"
    "                     e.g. mq-pick data/spot.obj data/spot.obj --place 1.2,0,0 --distance --json\n";

static const char usage_convex[] =
    "convex hulls (answered with the shapes, in command-line order):\n"
    "  --convex HULL.obj [--place P]  the convex hull of HULL.obj's vertices, placed by the\n"
    "                     --place right after it (as a mesh's); its overlapping triangles,\n"
    "                     touching counts. --queries lines: convex FILE tx ty tz qw qx qy qz\n"
    "                     e.g. mq-pick data/spot.obj --convex hull.obj --place 0,0.5,0 --out o.overlaps\n";

static const char usage_text2[] =
    "shapes (answers: per shape the count of overlapping triangles, touching counts, then\n"
    "their ids, increasing: the '.overlaps' format; --json/--csv/--table add file, face, line):\n"
    "  --queries FILE     shapes, one per line: sphere cx cy cz r | capsule ax ay az bx by bz r |\n"
    "                     obb cx cy cz hx hy hz qw qx qy qz | aabb minx miny minz maxx maxy maxz\n"
    "  --sphere CX,CY,CZ,R                     a sphere (repeatable, as are the three below;\n"
    "  --capsule AX,AY,AZ,BX,BY,BZ,R           answered after the --queries lines, in order)\n"
    "  --box CX,CY,CZ,HX,HY,HZ[,QW,QX,QY,QZ]   a box: centre, half extents, rotation\n"
    "  --aabb MINX,MINY,MINZ,MAXX,MAXY,MAXZ    an axis-aligned box\n"
    "  --hierarchy H      tree for shapes, --closest, --collide: obb (default), aabb,\n"
    "                     kdop (18-DOP) or sphere; same answers, other speeds (scenes,\n"
    "                     distances, clashes use obb under kdop and sphere)\n"
    "closest point:\n"
    "  --closest X,Y,Z[,MAXDIST]  the nearest surface point to (X,Y,Z) within MAXDIST (default:\n"
    "                     any distance): its distance, triangle, face, line, file, barycentrics\n"
    "                     (repeatable)\n"
    "mesh vs mesh:\n"
    "  --collide OTHER    OTHER.obj placed by each line of --xforms (tx ty tz qw qx qy qz);\n"
    "                     answers: per transform the number of intersecting triangle pairs,\n"
    "                     or 0/1 with --any\n"
    "  --xforms FILE      the transforms for --collide\n"
    "  --pairs            with --collide: also list the intersecting pairs (triangle of MESH,\n"
    "                     triangle of OTHER, increasing): ' a,b' after each count, or one\n"
    "                     row per pair with --table/--csv, \"triangle_pairs\" with --json\n"
    "output:\n"
    "  --out FILE         where to write ('-' = standard output, the default); the format\n"
    "                     follows the extension: .hits (binary closest hits), .occl (binary\n"
    "                     any-hit), .json/.jsonl (JSON lines), .csv, anything else a table\n"
    "                     (for shapes: the .overlaps lines; for --collide: one count a line)\n"
    "                     A text format is never written to a .hits or .occl path.\n"
    "  --json, --csv, --table   force a text format (a ray that hits nothing has a line\n"
    "                     too: \"hit\":false in JSON, empty fields in CSV, (no hit) in a table)\n"
    "  --threads N        trace on N threads (default 0: all cores)\n"
    "  --timing           print the time of each stage (read rays, load, build, trace, write)\n"
    "                     to stderr\n"
    "  --version          print the version of the meshquery library and exit\n"
    "  -h, --help         this text\n"
    "A progress bar is drawn on standard error for long batches when it is a terminal.\n"
    "\n"
    "examples (from the repository root):\n"
    "  mq-pick data/suzanne.obj --ray -2.49,1.25,10,0,0,-1\n"
    "  mq-pick data/suzanne.obj --ray -2.49,1.25,10,0,0,-1 --all --json\n"
    "  mq-pick data/spot.obj --ray 0,0.5,-3,0,0,1 --any\n"
    "  mq-pick data/spot.obj --pixel 512,512 --pixel 600,400\n"
    "  mq-pick data/spot.obj --size 640x480 --camera 0,0.5,3,0,0.2,0 --pixel 320,240\n"
    "  mq-pick data/spot.obj data/suzanne.obj --place 2.5,-1.2,-4 --ray 0,0.3,5,0,0,-1 --all\n"
    "  mq-pick data/spot.obj --place 0,0,0,0.7071068,0,0.7071068,0,-2 --pixel 512,512 --json\n"
    "  printf '0 0.3 5 0 0 -1\\n' | mq-pick data/spot.obj --rays - --out /tmp/mq-pick-example.hits\n"
    "  printf '0 0.3 5 0 0 -1\\n' | mq-pick data/spot.obj --rays - --any --out /tmp/mq-pick-example.occl\n"
    "  mq-pick data/spot.obj --save /tmp/mq-pick-spot.mqh && mq-pick /tmp/mq-pick-spot.mqh --pixel 512,512\n"
    "  mq-pick data/spot.obj --sphere 0,-0.07,1.05,0.02 --table\n"
    "  mq-pick data/spot.obj --box 0,0.3,0,0.5,0.05,0.5,0.9238795,0,0.3826834,0 --aabb 0,0,0,0.1,0.1,0.1\n"
    "  mq-pick data/spot.obj --closest 0,0.5,2 --closest 0,0.5,2,0.1 --json\n"
    "  echo 'sphere 0 0.5 0 0.1' | mq-pick data/spot.obj --queries -\n"
    "  echo '0.5 0 0 1 0 0 0' | mq-pick data/spot.obj --collide data/spot.obj --xforms -\n"
    "\n"
    "Exit status: 0 on success (whether or not anything was hit), 1 when a mesh, a saved\n"
    "hierarchy or an input file cannot be read or the output cannot be written, 2 for bad\n"
    "arguments.\n";

int pick_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "mq-pick: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'mq-pick --help'.\n");
    return 2;
}

static void *grow(void *p, size_t count, size_t size)
{
    void *q = realloc(p, (count + 1) * size);
    if (!q) {
        fprintf(stderr, "mq-pick: out of memory\n");
        exit(1);
    }
    return q;
}

/* "ox,oy,oz,dx,dy,dz[,tmin,tmax]" -> ray (tmax may be inf). */
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

/* --place, read by the tools' one parser (place.h). */
static bool parse_place(const char *text, pick_mesh_arg *m)
{
    mqt_place p;
    if (!mqt_parse_place(text, &p))
        return false;
    memcpy(m->translation, p.translation, sizeof m->translation);
    memcpy(m->rotation, p.rotation, sizeof m->rotation);
    memcpy(m->scale, p.scale, sizeof m->scale);
    m->placed = true;
    return true;
}

/* --sphere, --capsule, --box, --aabb: checked, then read as the .queries line they stand for. */
static int parse_shape(pick_options *o, const char *opt, const char *text)
{
    static const struct {
        const char *opt, *word, *form;
        int n, n2;
    } shapes[] = {
        {"--sphere", "sphere", "CX,CY,CZ,R (R >= 0)", 4, 4},
        {"--capsule", "capsule", "AX,AY,AZ,BX,BY,BZ,R (R >= 0)", 7, 7},
        {"--box", "obb", "CX,CY,CZ,HX,HY,HZ[,QW,QX,QY,QZ] (H >= 0, a non-zero quaternion)", 6, 10},
        {"--aabb", "aabb", "MINX,MINY,MINZ,MAXX,MAXY,MAXZ (MIN <= MAX)", 6, 6},
    };
    int k = 0;
    while (strcmp(shapes[k].opt, opt))
        k++;
    double v[10] = {0};
    int n = mqt_parse_numbers(text, v, 10);
    bool ok = n == shapes[k].n || n == shapes[k].n2;
    if (ok && k == 0)
        ok = v[3] >= 0;
    if (ok && k == 1)
        ok = v[6] >= 0;
    if (ok && k == 2) {
        if (n == 6)
            v[6] = 1;
        ok = v[3] >= 0 && v[4] >= 0 && v[5] >= 0 && (v[6] != 0 || v[7] != 0 || v[8] != 0 || v[9] != 0);
        n = 10;
    }
    if (ok && k == 3)
        ok = v[0] <= v[3] && v[1] <= v[4] && v[2] <= v[5];
    char line[512], msg[160];
    int len = snprintf(line, sizeof line, "%s", shapes[k].word);
    for (int i = 0; i < n && ok; i++)
        len += snprintf(line + len, sizeof line - (size_t)len, " %.17g", v[i]);
    mqt_query q;
    if (!ok || !mqt_parse_query(line, &q) || q.kind == MQT_SHAPE_KINDS) {
        snprintf(msg, sizeof msg, "%s needs %s, got '%%s'", opt, shapes[k].form);
        return pick_usage_error(msg, text);
    }
    o->shapes = grow(o->shapes, o->shape_count, sizeof *o->shapes);
    o->shapes[o->shape_count++] = q;
    return 0;
}

/* Options that take a value; 0 when fine, else the usage error's exit status. */
static int parse_valued(pick_options *o, const char *a, const char *v)
{
    double f[6];
    if (!strcmp(a, "--ray")) {
        mq_ray r;
        if (!parse_ray_arg(v, &r))
            return pick_usage_error("--ray needs ox,oy,oz,dx,dy,dz[,tmin,tmax], got '%s'", v);
        o->cli_rays = grow(o->cli_rays, o->cli_ray_count, sizeof r);
        o->cli_rays[o->cli_ray_count++] = r;
    } else if (!strcmp(a, "--pixel")) {
        if (mqt_parse_numbers(v, f, 2) != 2 || f[0] < 0 || f[1] < 0 || f[0] != floor(f[0]) || f[1] != floor(f[1]) ||
            f[0] > 1e9 || f[1] > 1e9)
            return pick_usage_error("--pixel needs X,Y (whole, non-negative pixel numbers), got '%s'", v);
        o->pixels = grow(o->pixels, 2 * o->pixel_count + 1, sizeof *o->pixels);
        o->pixels[2 * o->pixel_count] = (uint32_t)f[0];
        o->pixels[2 * o->pixel_count + 1] = (uint32_t)f[1];
        o->pixel_count++;
    } else if (!strcmp(a, "--size")) {
        if (!parse_size(v, &o->width, &o->height))
            return pick_usage_error("--size needs WxH (e.g. 1024x768), got '%s'", v);
    } else if (!strcmp(a, "--camera")) {
        if (mqt_parse_numbers(v, o->camera, 6) != 6)
            return pick_usage_error("--camera needs EX,EY,EZ,TX,TY,TZ, got '%s'", v);
        o->has_camera = true;
    } else if (!strcmp(a, "--up")) {
        if (mqt_parse_numbers(v, o->up, 3) != 3)
            return pick_usage_error("--up needs X,Y,Z, got '%s'", v);
        o->has_up = true;
    } else if (!strcmp(a, "--fov")) {
        if (mqt_parse_numbers(v, f, 1) != 1 || !(f[0] > 0.0 && f[0] < 180.0))
            return pick_usage_error("--fov needs degrees between 0 and 180, got '%s'", v);
        o->fov = f[0];
    } else if (!strcmp(a, "--convex")) {
        char err[600];
        mqt_query q;
        memset(&q, 0, sizeof q);
        q.kind = MQT_CONVEX;
        if (!(q.cv = mqt_load_convex(v, NULL, err, sizeof err))) {
            fprintf(stderr, "mq-pick: --convex %s\n", err);
            return 1;
        }
        o->shapes = grow(o->shapes, o->shape_count, sizeof *o->shapes);
        o->shapes[o->shape_count++] = q;
        o->convex_open = true;
    } else if (!strcmp(a, "--place") && o->convex_open) {
        /* --convex HULL.obj --place P: the hull's vertices placed, then the hull again */
        mqt_place p;
        char err[600];
        if (!mqt_parse_place(v, &p))
            return pick_usage_error(MQT_PLACE_FORM_ERROR, v);
        mq_convex *c = mqt_load_convex(o->convex_path, &p, err, sizeof err);
        if (!c) {
            fprintf(stderr, "mq-pick: --convex %s\n", err);
            return 1;
        }
        mq_convex_destroy(o->shapes[o->shape_count - 1].cv);
        o->shapes[o->shape_count - 1].cv = c;
        o->convex_open = false;
    } else if (!strcmp(a, "--place")) {
        if (o->mesh_count == 0 || o->meshes[o->mesh_count - 1].placed)
            return pick_usage_error(MQT_PLACE_ORDER_ERROR, v);
        if (!parse_place(v, &o->meshes[o->mesh_count - 1]))
            return pick_usage_error(MQT_PLACE_FORM_ERROR, v);
    } else if (!strcmp(a, "--closest")) {
        double p[4];
        int n = mqt_parse_numbers(v, p, 4);
        if ((n != 3 && n != 4) || (n == 4 && p[3] < 0))
            return pick_usage_error("--closest needs X,Y,Z[,MAXDIST] (MAXDIST >= 0), got '%s'", v);
        o->points = grow(o->points, o->point_count, sizeof *o->points);
        o->points[o->point_count++] = (pick_point){{p[0], p[1], p[2]}, n == 4 ? p[3] : INFINITY};
    } else if (!strcmp(a, "--sphere") || !strcmp(a, "--capsule") || !strcmp(a, "--box") || !strcmp(a, "--aabb")) {
        return parse_shape(o, a, v);
    } else if (!strcmp(a, "--clearance")) {
        if (mqt_parse_numbers(v, f, 1) != 1 || !(f[0] >= 0.0) || !isfinite(f[0]))
            return pick_usage_error("--clearance needs a distance D >= 0, got '%s'", v);
        o->clearance = f[0];
        o->has_clearance = true;
    } else if (!strcmp(a, "--hierarchy")) {
        if (strcmp(v, "aabb") && strcmp(v, "obb") && strcmp(v, "kdop") && strcmp(v, "sphere"))
            return pick_usage_error("--hierarchy is aabb, obb, kdop or sphere, not '%s'", v);
        o->hierarchy = v;
    } else if (!strcmp(a, "--threads")) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*v == '\0' || *end || n < 0 || n > 1024)
            return pick_usage_error("--threads needs a number from 0 to 1024, got '%s'", v);
        o->threads = (uint32_t)n;
    } else {
        const char **slot = !strcmp(a, "--rays")      ? &o->rays_path
                            : !strcmp(a, "--queries") ? &o->queries_path
                            : !strcmp(a, "--collide") ? &o->collide_path
                            : !strcmp(a, "--xforms")  ? &o->xforms_path
                            : !strcmp(a, "--save")    ? &o->save_path
                                                      : &o->out_path;
        *slot = v;
    }
    return 0;
}

static bool takes_value(const char *a)
{
    static const char *const names[] = {"--ray",       "--pixel",   "--size",      "--camera",  "--up",      "--fov",
                                        "--place",     "--closest", "--sphere",    "--capsule", "--box",     "--aabb",
                                        "--hierarchy", "--threads", "--rays",      "--queries", "--collide", "--xforms",
                                        "--save",      "--out",     "--clearance", "--convex"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(a, names[i]))
            return true;
    return false;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The combinations that make sense; 0 or the usage error's status. */
static int check_combination(pick_options *o)
{
    if (o->mesh_count == 0)
        return pick_usage_error("no mesh given%s", "");
    if (pick_wants_distance(o))
        return pick_check_distance(o);
    if (o->clash) {
        bool other = o->rays_path || o->cli_ray_count || o->pixel_count || o->queries_path || o->shape_count ||
                     o->point_count || o->collide_path || o->save_path || o->contacts || o->mode != MODE_CLOSEST;
        if (other)
            return pick_usage_error("--clash takes meshes, --place, --clearance, --hierarchy, --threads and the "
                                    "output options only%s",
                                    "");
        return 0;
    }
    if (o->contacts) {
        bool other = o->rays_path || o->cli_ray_count || o->pixel_count || o->point_count || o->collide_path ||
                     o->save_path || o->mode != MODE_CLOSEST;
        if (other || !(o->queries_path || o->shape_count))
            return pick_usage_error("--contacts needs shapes (--sphere, --capsule, --box, --aabb or --queries) "
                                    "and nothing else to do%s",
                                    "");
        if (pick_uses_scene(o))
            return pick_usage_error("--contacts works on one mesh without --place%s", "");
        return 0;
    }
    bool rays = o->rays_path || o->cli_ray_count || o->pixel_count;
    bool shapes = o->queries_path || o->shape_count;
    int modes = rays + shapes + !!o->point_count + !!o->collide_path;
    if (modes == 0 && !o->save_path)
        return pick_usage_error("nothing to do: give --ray, --pixel, --rays, --queries, a shape, --closest, "
                                "--collide or --save%s",
                                "");
    if (modes > 1)
        return pick_usage_error("give one of --ray/--pixel/--rays, --queries/--sphere/--capsule/--box/--aabb, "
                                "--closest, --collide%s",
                                "");
    for (size_t i = 0; i < o->pixel_count; i++)
        if (o->pixels[2 * i] >= o->width || o->pixels[2 * i + 1] >= o->height) {
            char what[64];
            snprintf(what, sizeof what, "%u,%u", o->pixels[2 * i], o->pixels[2 * i + 1]);
            return pick_usage_error("--pixel %s is outside the image (see --size)", what);
        }
    if (!!o->collide_path != !!o->xforms_path)
        return pick_usage_error("--collide and --xforms go together%s", "");
    if (!rays && o->mode == MODE_ALL)
        return pick_usage_error("--all is for rays%s", "");
    if (o->rays_path && (o->cli_ray_count || o->pixel_count))
        return pick_usage_error("give --ray/--pixel or --rays, not both%s", "");
    if (pick_uses_scene(o) && o->collide_path)
        return pick_usage_error("--collide works on one mesh without --place%s", "");
    if (o->list_pairs && (!o->collide_path || o->mode == MODE_ANY))
        return pick_usage_error("--pairs lists the pairs of --collide (without --any)%s", "");
    bool binary_out = ends_with(o->out_path, ".hits") || ends_with(o->out_path, ".occl");
    if (binary_out && (!rays || o->forced_format))
        return pick_usage_error("%s: .hits and .occl files hold binary ray answers; give text output another name",
                                o->out_path);
    if (pick_uses_scene(o) && o->save_path)
        return pick_usage_error("--save %s saves the hierarchy of one mesh without --place", o->save_path);
    return 0;
}

int pick_parse_args(int argc, char **argv, pick_options *o)
{
    mqt_queries_allow_convex(true); /* .queries "convex FILE ..." lines */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--place") && strcmp(a, "--convex"))
            o->convex_open = false; /* a --place now follows something else */
        if (!strcmp(a, "--convex") && i + 1 < argc)
            o->convex_path = argv[i + 1];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            fputs(usage_clash, stdout);
            fputs(usage_distance, stdout);
            fputs(usage_text2, stdout);
            fputs(usage_convex, stdout);
            exit(0);
        } else if (takes_value(a)) {
            if (i + 1 >= argc)
                return pick_usage_error("%s needs a value", a);
            int rc = parse_valued(o, a, argv[++i]);
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
        } else if (!strcmp(a, "--strict")) {
            o->strict = true;
        } else if (!strcmp(a, "--clash")) {
            o->clash = true;
        } else if (!strcmp(a, "--distance")) {
            o->distance = true;
        } else if (!strcmp(a, "--contacts")) {
            o->contacts = true;
        } else if (!strcmp(a, "--pairs")) {
            o->list_pairs = true;
        } else if (!strcmp(a, "--version")) {
            mqt_print_version("mq-pick");
            exit(0);
        } else if (a[0] == '-' && a[1] != '\0') {
            return pick_usage_error("unknown option '%s'", a);
        } else {
            o->meshes = grow(o->meshes, o->mesh_count, sizeof *o->meshes);
            o->meshes[o->mesh_count++] = (pick_mesh_arg){a, false, {0, 0, 0}, {1, 0, 0, 0}, {1, 1, 1}};
        }
    }
    return check_combination(o);
}

bool pick_uses_scene(const pick_options *o)
{
    return o->mesh_count > 1 || (o->mesh_count == 1 && o->meshes[0].placed);
}

void pick_options_free(pick_options *o)
{
    free(o->meshes);
    free(o->cli_rays);
    free(o->pixels);
    mqt_free_queries(o->shapes, o->shape_count);
    free(o->points);
}
