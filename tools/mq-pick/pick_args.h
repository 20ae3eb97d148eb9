/* mq-pick's command line: the options, their parsing and the --help text. */
#ifndef MQ_PICK_ARGS_H
#define MQ_PICK_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meshquery/types.h>

#include "queryfile.h"

typedef enum pick_mode { MODE_CLOSEST, MODE_ANY, MODE_ALL } pick_mode;

/* One mesh argument and its --place (identity when !placed). */
typedef struct pick_mesh_arg {
    const char *path;
    bool placed;
    double translation[3], rotation[4] /* w, x, y, z */, scale[3];
} pick_mesh_arg;

/* One --closest X,Y,Z[,MAXDIST]. */
typedef struct pick_point {
    double p[3];
    double max_distance; /* INFINITY when not given */
} pick_point;

typedef struct pick_options {
    pick_mesh_arg *meshes;
    size_t mesh_count;
    const char *rays_path;
    const char *out_path;
    const char *forced_format;
    const char *queries_path;
    const char *hierarchy;
    const char *collide_path;
    const char *xforms_path;
    const char *save_path;
    pick_mode mode;
    bool cull_back_faces;
    bool strict;     /* unknown OBJ statements are errors */
    bool list_pairs; /* --pairs: --collide lists the intersecting triangle pairs */
    bool timing;
    uint32_t threads;
    mq_ray *cli_rays;
    size_t cli_ray_count;
    uint32_t *pixels; /* x, y per --pixel */
    size_t pixel_count;
    uint32_t width, height;
    bool has_camera, has_up;
    double camera[6], up[3], fov;
    mqt_query *shapes; /* --sphere, --capsule, --box, --aabb in command-line order */
    size_t shape_count;
    pick_point *points; /* --closest */
    size_t point_count;
    bool clash;              /* --clash: every pair of the placed meshes within the clearance */
    bool contacts;           /* --contacts: the shapes' contacts per triangle */
    bool has_clearance;      /* --clearance D given */
    double clearance;        /* D >= 0 */
    bool convex_open;        /* the last argument was --convex HULL: a --place next places the hull */
    const char *convex_path; /* the last --convex's file */
    bool distance;           /* --distance: how far apart two meshes are (pick_distance.c) */
} pick_options;

/* Parses argv into *o (zeroed by the caller except the defaults main sets). Returns 0, or the
 * exit status (2) after printing what is wrong; --help prints the usage and exits 0. */
int pick_parse_args(int argc, char **argv, pick_options *o);

/* Frees what pick_parse_args allocated. */
void pick_options_free(pick_options *o);

/* True when the run goes through a scene: several meshes, or a placed one. */
bool pick_uses_scene(const pick_options *o);

/* Prints "mq-pick: <fmt with arg>" and the --help hint; returns 2. */
int pick_usage_error(const char *fmt, const char *arg);

#endif
