#include "meshload.h"

#include <stdio.h>
#include <string.h>

#include <meshquery/obj.h>
#include <meshquery/saved.h>

static const char saved_magic[8] = "\x89MQH\r\n\x1a\n";

void mqt_print_diag(const char *tool, const char *path, const mq_diag *diag)
{
    const char *where = diag->path[0] ? diag->path : path;
    const char *what = diag->message[0] ? diag->message : "unknown error";
    if (diag->line)
        fprintf(stderr, "%s: %s:%llu:%u: %s\n", tool, where, (unsigned long long)diag->line, diag->column, what);
    else
        fprintf(stderr, "%s: %s: %s\n", tool, where, what);
}

bool mqt_is_saved_hierarchy(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false; /* the OBJ loader reports why */
    char head[sizeof saved_magic];
    bool saved = fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, saved_magic, sizeof head) == 0;
    fclose(f);
    return saved;
}

bool mqt_load_obj(const char *tool, const char *path, bool strict, mq_mesh **out)
{
    /* all zero are the defaults (allocator, threads, face limit); only strictness is ours */
    mq_obj_options options;
    memset(&options, 0, sizeof options);
    options.strict = strict;
    mq_diag diag = {0};
    *out = NULL;
    if (mq_obj_load(path, &options, out, NULL, &diag) != MQ_OK) {
        mqt_print_diag(tool, path, &diag);
        return false;
    }
    if (mq_mesh_triangle_count(*out) == 0)
        fprintf(stderr, "%s: 0 triangles in %s\n", tool, path);
    return true;
}

bool mqt_load_saved(const char *tool, const char *path, mq_bvh **bvh, mq_obbtree **tree)
{
    *bvh = NULL;
    *tree = NULL;
    mq_diag diag = {0};
    mq_status st = mq_bvh_load_mapped(path, NULL, bvh, &diag);
    if (st == MQ_ERR_INVALID_ARG) { /* the other kind of saved hierarchy */
        diag = (mq_diag){0};
        st = mq_obbtree_load_mapped(path, NULL, tree, &diag);
    }
    if (st == MQ_OK)
        return true;
    fprintf(stderr, "%s: %s: cannot load the saved hierarchy: %s (%s)\n", tool, path,
            diag.message[0] ? diag.message : "unknown error", mq_status_string(st));
    return false;
}

void mqt_print_version(const char *tool)
{
    printf("%s %s\n", tool, mq_version());
}
