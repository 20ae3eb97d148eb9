/*
 * What every tool does with a mesh argument: an OBJ file through the library's
 * loader (optionally strict), or a hierarchy saved by mq_bvh_save /
 * mq_obbtree_save (recognised by its magic bytes). Errors and notices go to
 * standard error as "TOOL: path:line:column: what" (the line and column only
 * when the error has them).
 */
#ifndef MQ_TOOLS_MESHLOAD_H
#define MQ_TOOLS_MESHLOAD_H

#include <stdbool.h>

#include <meshquery/bvh.h>
#include <meshquery/obbtree.h>

/* Prints "TOOL: PATH:LINE:COLUMN: MESSAGE", or "TOOL: PATH: MESSAGE" when the diag has no line
 * (a file that cannot be opened, a limit of the whole file). The diag's path wins over `path`. */
void mqt_print_diag(const char *tool, const char *path, const mq_diag *diag);

/* True when the file starts with the magic bytes of a saved hierarchy. */
bool mqt_is_saved_hierarchy(const char *path);

/* Loads an OBJ file (strict: unknown statements are errors, as mq_obj_options.strict).
 * False after an error message; a mesh of 0 triangles loads, with "TOOL: 0 triangles in PATH". */
bool mqt_load_obj(const char *tool, const char *path, bool strict, mq_mesh **out);

/* Loads a saved hierarchy, mapped: *bvh or *tree is set (the other stays NULL); it owns its
 * mesh. False after an error message. */
bool mqt_load_saved(const char *tool, const char *path, mq_bvh **bvh, mq_obbtree **tree);

/* "TOOL VERSION" (mq_version(), the library's version) on standard output, for --version. */
void mqt_print_version(const char *tool);

#endif
