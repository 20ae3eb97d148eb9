/*
 * mq-bench — throughput of meshquery beside reference libraries, on the same
 * inputs in the same process. Each subcommand lives in its own bench_<name>.c.
 *
 * Before a subcommand runs, its command line is checked here against the
 * table below (every option, its value's kind and range, its default), as
 * mq-pick checks its own: an unknown option, a missing or malformed value, a
 * count out of range or an input file with nothing in it is one line on
 * standard error and exit 2, so no benchmark runs on nonsense (a count of 0
 * gave NaN ratios, "--count abc" silently 0, "--count -5" an allocation of
 * 2^64 rays). `mq-bench COMMAND --help` prints the table with every default.
 * The table is kept in step with each bench_<name>.c's parse_args.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <meshquery/base.h>

#include "bench.h"
#include "meshload.h"
#include "queryfile.h"
#include "rayfile.h"

typedef enum arg_kind {
    ARG_FLAG,   /* no value */
    ARG_UINT,   /* a whole decimal number in [min, max] */
    ARG_SEED,   /* any 64-bit unsigned number (decimal, 0x hexadecimal) */
    ARG_REAL,   /* a finite number >= 0 */
    ARG_CHOICE, /* one of the words of `values`, separated by '|' */
    ARG_PATH    /* a non-empty file or directory name */
} arg_kind;

typedef struct bench_option {
    const char *name;
    arg_kind kind;
    const char *values; /* the value's name in --help (ARG_CHOICE: the words) */
    uint64_t min, max;  /* ARG_UINT */
    const char *help;
    const char *fallback; /* the default, as --help states it */
} bench_option;

#define MAX_GENERATED (1u << 28) /* rays, queries or transforms generated: 8 GiB of rays at most */

static const bench_option json_option = {"--json", ARG_FLAG, NULL, 0, 0, "JSON lines (docs/formats.md)", "a table"};
/* Taken by every command, before the command's own options (pin_isa.c). */
static const bench_option isa_option = {"--isa",
                                        ARG_CHOICE,
                                        "auto|scalar|sse2|avx2|avx512",
                                        0,
                                        0,
                                        "hold meshquery (MQ_ISA) and Embree (isa=) to one instruction set",
                                        "auto: each its best"};

static const bench_option prims_options[] = {
    {"--iterations", ARG_UINT, "N", 1, 1ull << 40, "calls per run (the median of 7 runs is reported)", "300000"},
    {NULL, ARG_FLAG, NULL, 0, 0, NULL, NULL},
};

static const bench_option obj_options[] = {
    {"--threads", ARG_UINT, "N", 1, 64, "threads of the meshquery load", "all online CPUs"},
    {"--reps", ARG_UINT, "R", 1, 101, "loads per file and loader (the median is reported)", "7"},
    {"--no-refs", ARG_FLAG, NULL, 0, 0, "leave out the reference loaders (tinyobjloader, assimp)", "compared"},
    {"--no-memory", ARG_FLAG, NULL, 0, 0, "leave out the peak memory runs", "measured"},
    {"--subdivide", ARG_UINT, "K", 1, 64, "write MESH with every triangle split in K*K to --out instead", "off"},
    {"--out", ARG_PATH, "BIG.obj", 0, 0, "where --subdivide writes", "none"},
    {NULL, ARG_FLAG, NULL, 0, 0, NULL, NULL},
};

static const bench_option rays_options[] = {
    {"--rays", ARG_PATH, "FILE", 0, 0, "rays from FILE (.rays binary, or text) instead of generated ones", "generated"},
    {"--generate", ARG_CHOICE, "incoherent|primary|short", 0, 0, "the generated rays (docs/formats.md)", "incoherent"},
    {"--count", ARG_UINT, "N", 1, MAX_GENERATED, "rays generated", "1048576"},
    {"--any", ARG_FLAG, NULL, 0, 0, "any-hit (occlusion) queries instead of closest hits", "closest hits"},
    {"--threads", ARG_UINT, "N", 0, 1024, "threads tracing (0: 1)", "1"},
    {"--reps", ARG_UINT, "R", 1, 1000, "timed runs (the median is reported)", "5"},
    {"--quality", ARG_CHOICE, "low|medium|high", 0, 0, "BVH build quality", "medium"},
    {"--leaf", ARG_UINT, "N", 1, 16, "most triangles per BVH leaf", "4"},
    {"--subdivide", ARG_UINT, "K", 0, 64, "split every triangle in K*K first (0, 1: as loaded)", "0"},
    {"--seed", ARG_SEED, "S", 0, 0, "seed of the generated rays", "1"},
    {"--no-embree", ARG_FLAG, NULL, 0, 0, "leave out Embree", "compared when built in"},
    {"--verbose", ARG_FLAG, NULL, 0, 0, "also print the tree's shape and the work per ray", "off"},
    {NULL, ARG_FLAG, NULL, 0, 0, NULL, NULL},
};

static const bench_option overlap_options[] = {
    {"--queries", ARG_PATH, "FILE", 0, 0, "shape queries from FILE (.queries text)", "generated"},
    {"--generate", ARG_UINT, "N", 1, MAX_GENERATED, "queries generated", "10000"},
    {"--shape", ARG_CHOICE, "all|sphere|capsule|obb|aabb", 0, 0, "the shapes measured", "all"},
    {"--hierarchy", ARG_CHOICE, "aabb|obb", 0, 0, "the AABB BVH or the OBB tree", "obb"},
    {"--fit", ARG_CHOICE, "dito|pca|aabb", 0, 0, "how the OBB tree fits its boxes", "dito"},
    {"--leaf", ARG_UINT, "N", 1, 16, "most triangles per leaf", "4"},
    {"--reps", ARG_UINT, "R", 1, 1000, "timed runs (at least 3 are made; the median is reported)", "5"},
    {"--build-reps", ARG_UINT, "R", 0, 1000, "builds per hierarchy (0: --reps)", "0"},
    {"--seed", ARG_SEED, "S", 0, 0, "seed of the generated queries", "1"},
    {"--subdivide", ARG_UINT, "K", 1, 64, "split every triangle in K*K first (1: as loaded)", "1"},
    {"--shrink", ARG_CHOICE, "nearest|centre", 0, 0, "how --subdivide shrinks the queries", "nearest"},
    {"--casts", ARG_UINT, "N", 0, MAX_GENERATED, "shape casts measured (0: none)", "10000"},
    {"--no-fcl", ARG_FLAG, NULL, 0, 0, "leave out FCL", "compared when built in"},
    {"--no-bullet", ARG_FLAG, NULL, 0, 0, "leave out Bullet", "compared when built in"},
    {"--bullet-scale", ARG_REAL, "S", 0, 0, "Bullet's world scale (0: automatic)", "0"},
    {NULL, ARG_FLAG, NULL, 0, 0, NULL, NULL},
};

static const bench_option collide_options[] = {
    {"--other", ARG_PATH, "OTHER.obj", 0, 0, "the second mesh", "MESH itself"},
    {"--xforms", ARG_PATH, "FILE", 0, 0, "transforms of OTHER from FILE (.xforms text)", "generated"},
    {"--generate", ARG_UINT, "N", 1, MAX_GENERATED, "transforms generated", "200"},
    {"--hierarchy", ARG_CHOICE, "aabb|obb", 0, 0, "world-axis or fitted boxes", "obb"},
    {"--fit", ARG_CHOICE, "dito|pca|aabb", 0, 0, "how the OBB tree fits its boxes", "dito"},
    {"--leaf", ARG_UINT, "N", 1, 16, "most triangles per leaf", "4"},
    {"--reps", ARG_UINT, "R", 1, 1000, "timed runs (at least 3 are made; the median is reported)", "5"},
    {"--seed", ARG_SEED, "S", 0, 0, "seed of the generated transforms", "1"},
    {"--subdivide", ARG_UINT, "K", 1, 64, "split every triangle of both meshes in K*K first", "1"},
    {"--no-fcl", ARG_FLAG, NULL, 0, 0, "leave out FCL", "compared when built in"},
    {"--fcl-scale", ARG_REAL, "S", 0, 0, "FCL's world scale (0: automatic)", "1"},
    {NULL, ARG_FLAG, NULL, 0, 0, NULL, NULL},
};

static const bench_option save_options[] = {
    {"--subdivide", ARG_UINT, "K", 1, 64, "split every triangle in K*K first", "1"},
    {"--reps", ARG_UINT, "R", 1, 1000, "timed runs (the median is reported)", "5"},
    {"--dir", ARG_PATH, "DIR", 0, 0, "where the saved files go (a fresh directory inside)", "$TMPDIR or /tmp"},
    {NULL, ARG_FLAG, NULL, 0, 0, NULL, NULL},
};

static const bench_option scene_options[] = {
    {"--instances", ARG_UINT, "N", 1, 1u << 24, "random rigid instances of MESH", "1000"},
    {"--threads", ARG_UINT, "N", 0, 1024, "threads tracing (0: all online CPUs)", "0"},
    {"--count", ARG_UINT, "N", 1, MAX_GENERATED, "rays per run", "100000"},
    {"--reps", ARG_UINT, "R", 1, 1000, "timed runs (the median is reported)", "5"},
    {"--scale", ARG_FLAG, NULL, 0, 0, "instances also get a random non-uniform scale", "rotated and moved only"},
    {"--any", ARG_FLAG, NULL, 0, 0, "any-hit queries instead of closest hits", "closest hits"},
    {"--seed", ARG_SEED, "S", 0, 0, "seed of the instances and rays", "1"},
    {"--no-embree", ARG_FLAG, NULL, 0, 0, "leave out Embree", "compared when built in"},
    {NULL, ARG_FLAG, NULL, 0, 0, NULL, NULL},
};

static const bench_option distance_options[] = {
    {"--other", ARG_PATH, "OTHER.obj", 0, 0, "the second mesh", "MESH itself"},
    {"--generate", ARG_UINT, "N", 1, MAX_GENERATED, "placements of OTHER measured", "1000"},
    {"--shapes", ARG_UINT, "N", 1, MAX_GENERATED, "shapes of each kind measured", "1000"},
    {"--reps", ARG_UINT, "R", 1, 64, "timed runs (at least 3 are made; the median is reported)", "5"},
    {"--seed", ARG_SEED, "S", 0, 0, "seed of the placements and shapes", "1"},
    {"--subdivide", ARG_UINT, "K", 1, 64, "split every triangle of both meshes in K*K first", "1"},
    {"--no-fcl", ARG_FLAG, NULL, 0, 0, "leave out FCL", "compared when built in"},
    {NULL, ARG_FLAG, NULL, 0, 0, NULL, NULL},
};

static const bench_option clash_options[] = {
    {"--instances", ARG_UINT, "N", 2, 1u << 24, "instances placed (mesh i mod M)", "1000"},
    {"--clearance", ARG_REAL, "D", 0, 0, "pairs within D clash (meshes scaled to a diagonal of 1)", "0"},
    {"--spread", ARG_REAL, "S", 0, 0, "the cube of positions has side S * cbrt(N)", "1.5"},
    {"--hierarchy", ARG_CHOICE, "aabb|obb", 0, 0, "the instances' hierarchy in meshquery", "obb"},
    {"--threads", ARG_UINT, "N", 0, 1024, "meshquery's threads (0: all online CPUs)", "1"},
    {"--reps", ARG_UINT, "R", 1, 64, "timed runs (at least 3 are made; the median is reported)", "5"},
    {"--seed", ARG_SEED, "S", 0, 0, "seed of the placements", "1"},
    {"--no-fcl", ARG_FLAG, NULL, 0, 0, "leave out FCL", "compared when built in"},
    {NULL, ARG_FLAG, NULL, 0, 0, NULL, NULL},
};

static const bench_option convex_options[] = {
    {"--hulls", ARG_UINT, "N", 1, MAX_GENERATED, "convex hulls queried", "1000"},
    {"--points", ARG_UINT, "P", 4, 1u << 20, "points per hull (one hull in four is a box)", "32"},
    {"--size", ARG_REAL, "F", 0, 0, "hull radius as a fraction of the mesh's diagonal", "0.03"},
    {"--reps", ARG_UINT, "R", 1, 64, "timed runs (at least 3 are made; the median is reported)", "3"},
    {"--seed", ARG_SEED, "S", 0, 0, "seed of the hulls", "1"},
    {"--no-refs", ARG_FLAG, NULL, 0, 0, "leave out FCL and Bullet", "compared when built in"},
    {NULL, ARG_FLAG, NULL, 0, 0, NULL, NULL},
};

typedef struct bench_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    const char *operands; /* what comes besides the options */
    const bench_option *options;
} bench_command;

static const bench_option survey_options[] = {
    {"--subdivide", ARG_UINT, "K", 1, 64, "split every triangle in K*K first", "1"},
    {"--rays", ARG_UINT, "N", 0, MAX_GENERATED, "incoherent rays (closest and any hit)", "200000"},
    {"--shapes", ARG_UINT, "N", 0, MAX_GENERATED, "shapes of each kind", "5000"},
    {"--points", ARG_UINT, "N", 0, MAX_GENERATED, "closest-point queries", "20000"},
    {"--xforms", ARG_UINT, "N", 0, MAX_GENERATED, "transforms of the mesh against itself", "40"},
    {"--fcl-queries", ARG_UINT, "N", 0, MAX_GENERATED, "FCL's queries per kind (a prefix; 10 transforms at most)",
     "300"},
    {"--reps", ARG_UINT, "R", 1, 64, "timed runs (at least 3 are made; the median is reported)", "3"},
    {"--seed", ARG_SEED, "S", 0, 0, "seed of the generated inputs", "1"},
    {"--no-fcl", ARG_FLAG, NULL, 0, 0, "leave out FCL", "compared when built in"},
    {NULL, ARG_FLAG, NULL, 0, 0, NULL, NULL},
};

static const bench_command commands[] = {
    {"prims", bench_prims_main, "nanoseconds per call of every primitive test", "", prims_options},
    {"obj", bench_obj_main, "OBJ loading: MB/s and triangles/s, beside tinyobjloader and assimp", " FILE.obj...",
     obj_options},
    {"rays", bench_rays_main, "raycast throughput (closest / any hit), beside Embree", " MESH.obj", rays_options},
    {"overlap", bench_overlap_main, "sphere/capsule/OBB/AABB vs mesh: all overlapping triangles, beside FCL",
     " MESH.obj", overlap_options},
    {"collide", bench_collide_main, "mesh vs mesh: all intersecting pairs and yes/no, beside FCL", " MESH.obj",
     collide_options},
    {"distance", bench_distance_main, "mesh vs mesh and shape vs mesh distance, beside FCL's fcl::distance",
     " MESH.obj", distance_options},
    {"clash", bench_clash_main, "clash detection over a scene of placed meshes, beside FCL's broadphase",
     " MESH.obj [MORE.obj ...]", clash_options},
    {"convex", bench_convex_main, "convex hull vs mesh: all overlapping triangles, beside FCL Convex and Bullet",
     " MESH.obj", convex_options},
    {"save", bench_save_main, "saved hierarchies: save and load time against building", " MESH.obj", save_options},
    {"scene", bench_scene_main, "raycasts into a scene of N instances of a mesh, beside Embree instancing", " MESH.obj",
     scene_options},
    {"survey", bench_survey_main, "every bounding volume on the same work: AABB, OBB, k-DOP, sphere, beside FCL",
     " MESH.obj", survey_options},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: mq-bench COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nRun 'mq-bench COMMAND --help' for a command's options and their defaults.\n"
               "  --version  print the version of the meshquery library\n"
               "Exit status: 0 on success, 1 when an input cannot be read, 2 for bad arguments.\n");
}

static void print_option(const bench_option *o)
{
    printf("  %s%s%s\n        %s; default: %s\n", o->name, o->values ? " " : "", o->values ? o->values : "", o->help,
           o->fallback);
}

static void command_help(const bench_command *c)
{
    printf("usage: mq-bench %s%s [options]\n\n%s.\n\noptions:\n", c->name, c->operands, c->summary);
    for (const bench_option *o = c->options; o->name; o++)
        print_option(o);
    print_option(&json_option);
    print_option(&isa_option);
    printf("  --version\n        print the version of the meshquery library\n  -h, --help\n        this text\n");
    printf("Exit status: 0 on success, 1 when an input cannot be read, 2 for bad arguments.\n");
}

static int arg_error(const bench_command *c, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "mq-bench %s: ", c->name);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\nTry 'mq-bench %s --help'.\n", c->name);
    return 2;
}

static const bench_option *find_option(const bench_command *c, const char *name)
{
    if (!strcmp(name, json_option.name))
        return &json_option;
    for (const bench_option *o = c->options; o->name; o++)
        if (!strcmp(o->name, name))
            return o;
    return NULL;
}

/* 0 when `v` is a fine value for option `o`, else the usage error's status. */
static int check_value(const bench_command *c, const bench_option *o, const char *v)
{
    char *end = NULL;
    char what[160];
    errno = 0;
    switch (o->kind) {
    case ARG_FLAG:
        return 0;
    case ARG_UINT: {
        unsigned long long n = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : 0;
        if (!end || *end || errno == ERANGE || n < o->min || n > o->max) {
            snprintf(what, sizeof what, "%%s needs a whole number from %llu to %llu, got '%%s'",
                     (unsigned long long)o->min, (unsigned long long)o->max);
            return arg_error(c, what, o->name, v);
        }
        return 0;
    }
    case ARG_SEED:
        if (v[0] >= '0' && v[0] <= '9')
            strtoull(v, &end, 0);
        if (!end || *end || errno == ERANGE)
            return arg_error(c, "%s needs a whole number (0x for hexadecimal), got '%s'", o->name, v);
        return 0;
    case ARG_REAL: {
        double d = strtod(v, &end);
        if (end == v || *end || errno == ERANGE || !isfinite(d) || d < 0)
            return arg_error(c, "%s needs a number >= 0, got '%s'", o->name, v);
        return 0;
    }
    case ARG_CHOICE: {
        size_t n = strlen(v);
        for (const char *w = o->values; n && *w;) {
            size_t k = strcspn(w, "|");
            if (k == n && !strncmp(w, v, n))
                return 0;
            w += k + (w[k] == '|');
        }
        snprintf(what, sizeof what, "%%s is one of %s, not '%%s'", o->values);
        return arg_error(c, what, o->name, v);
    }
    case ARG_PATH:
        return *v ? 0 : arg_error(c, "%s needs a name, got '%s'", o->name, v);
    }
    return 0;
}

/* An input file that holds nothing to measure: a usage error (exit 2), not a benchmark of
 * nothing. Files that cannot be read are left to the command (exit 1, its own message). */
static int check_input(const bench_command *c, const char *option, const char *path)
{
    if (!strcmp(path, "-"))
        return 0;
    char err[512];
    size_t n = 1;
    bool ok = true;
    const char *what = "rays";
    if (!strcmp(option, "--rays")) {
        struct stat st;
        if (mqt_is_binary_rays_path(path)) {
            n = stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0 ? 0 : 1;
        } else {
            mq_ray *rays = NULL;
            ok = mqt_read_rays(path, &rays, &n, err, sizeof err);
            free(rays);
        }
    } else if (!strcmp(option, "--queries")) {
        mqt_query *queries = NULL;
        what = "queries";
        ok = mqt_read_queries(path, &queries, &n, err, sizeof err);
        free(queries);
    } else if (!strcmp(option, "--xforms")) {
        mq_rigid *xforms = NULL;
        what = "transforms";
        ok = mqt_read_xforms(path, &xforms, &n, err, sizeof err);
        free(xforms);
    }
    if (ok && n == 0)
        return arg_error(c, "%s: no %s in the file: nothing to measure", path, what);
    return 0;
}

/* Checks every argument of `c` (argv[0] is the command's name); 0 or the usage error's status. */
static int check_args(const bench_command *c, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(c->name, "obj") && !strcmp(a, "--peak-child"))
            return 0; /* the command running itself for a memory figure (bench_obj.c) */
        if (a[0] != '-' || a[1] == '\0')
            continue; /* an operand: the command checks their number */
        const bench_option *o = find_option(c, a);
        if (!o)
            return arg_error(c, "unknown option '%s'%s", a, "");
        if (o->kind == ARG_FLAG)
            continue;
        if (i + 1 >= argc)
            return arg_error(c, "%s needs a value%s", a, "");
        int rc = check_value(c, o, argv[++i]);
        if (rc == 0 && o->kind == ARG_PATH)
            rc = check_input(c, a, argv[i]);
        if (rc)
            return rc;
    }
    return 0;
}

/* Takes `--isa NAME` out of argv (every command has it) and pins the ISA; 0 or the usage error's status. */
static int take_isa(const bench_command *c, int *argc, char **argv)
{
    const char *isa = "auto";
    int k = 2;
    for (int i = 2; i < *argc; i++) {
        if (strcmp(argv[i], isa_option.name) != 0) {
            argv[k++] = argv[i];
            continue;
        }
        if (i + 1 >= *argc)
            return arg_error(c, "%s needs a value%s", argv[i], "");
        int rc = check_value(c, &isa_option, argv[++i]);
        if (rc)
            return rc;
        isa = argv[i];
    }
    *argc = k;
    argv[k] = NULL;
    if (!bench_pin_isa(isa))
        return arg_error(c, "--isa %s: this CPU or build runs meshquery at %s at most", isa, mq_isa_in_use());
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--version")) {
            mqt_print_version("mq-bench");
            return 0;
        }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const bench_command *c = &commands[i];
        if (strcmp(argv[1], c->name))
            continue;
        for (int k = 2; k < argc; k++)
            if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
                command_help(c);
                return 0;
            }
        int rc = take_isa(c, &argc, argv);
        if (!rc)
            rc = check_args(c, argc - 1, argv + 1);
        return rc ? rc : c->run(argc - 1, argv + 1);
    }
    fprintf(stderr, "mq-bench: unknown command '%s'\nTry 'mq-bench --help'.\n", argv[1]);
    return 2;
}
