/*
 * mq-bench — throughput of meshquery beside reference libraries, on the same
 * inputs in the same process. Each subcommand lives in its own bench_<name>.c.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"

typedef struct bench_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} bench_command;

static const bench_command commands[] = {
    {"prims", bench_prims_main, "nanoseconds per call of every primitive test"},
    {"obj", bench_obj_main, "OBJ loading: MB/s and triangles/s, beside tinyobjloader and assimp"},
    {"rays", bench_rays_main, "raycast throughput (closest / any hit), beside Embree"},
    {"overlap", bench_overlap_main, "sphere/capsule/OBB/AABB vs mesh: all overlapping triangles, beside FCL"},
    {"collide", bench_collide_main, "mesh vs mesh: all intersecting pairs and yes/no, beside FCL"},
    {"save", bench_save_main, "saved hierarchies: save and load time against building"},
    {"scene", bench_scene_main, "raycasts into a scene of N instances of a mesh, beside Embree instancing"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: mq-bench COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nRun 'mq-bench COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "mq-bench: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
