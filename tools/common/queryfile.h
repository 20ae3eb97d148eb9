/*
 * Reading the shape-query and transform files of docs/formats.md:
 * .queries (sphere / capsule / obb / aabb, one per line; convex lines when a
 * tool allows them) and .xforms (tx ty tz qw qx qy qz per line). Blank lines
 * and '#' comments are skipped.
 */
#ifndef MQ_TOOLS_QUERYFILE_H
#define MQ_TOOLS_QUERYFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <meshquery/convex.h>
#include <meshquery/obbtree.h>

#include "place.h"

/* MQT_SHAPE_KINDS counts the four primitive kinds and marks a blank line;
 * MQT_CONVEX comes after it, so the primitive kinds keep their numbers (tools
 * mirror them) and only a tool that allows convex lines ever sees it. */
typedef enum mqt_shape_kind { MQT_SPHERE, MQT_CAPSULE, MQT_OBB, MQT_AABB, MQT_SHAPE_KINDS, MQT_CONVEX } mqt_shape_kind;

/* One shape query; the field named by `kind` is set. */
typedef struct mqt_query {
    mqt_shape_kind kind;
    mq_sphere s;
    mq_capsule c;
    mq_obb o; /* built with mq_obb_from_quat from the file's centre, half extents and (w, x, y, z) */
    mq_aabb a;
    mq_convex *cv; /* MQT_CONVEX: owned by the array that holds it (mqt_free_queries) */
} mqt_query;

/* Whether .queries lines "convex FILE tx ty tz qw qx qy qz" are read (off by
 * default; process-wide, set once before reading). FILE is an OBJ file
 * (relative to the working directory), the query the convex hull of its
 * vertices placed by the rigid transform (quaternion w, x, y, z). */
void mqt_queries_allow_convex(bool allow);

/* The convex hull of the vertices of the OBJ file at `path`, each placed by
 * `place` (NULL: as they are); NULL after writing "path: what" into err. */
mq_convex *mqt_load_convex(const char *path, const mqt_place *place, char *err, size_t err_size);

/* Frees an array of queries and the convexes it holds. */
void mqt_free_queries(mqt_query *q, size_t count);

/* Parses one line into *q; returns false when malformed. Blank / comment lines give kind MQT_SHAPE_KINDS. */
bool mqt_parse_query(const char *line, mqt_query *q);

/* Reads a .queries file ("-" = standard input). On success *out is malloc'ed (free() it); on
 * failure writes "path:line: what" into err. */
bool mqt_read_queries(const char *path, mqt_query **out, size_t *count, char *err, size_t err_size);

/* Reads a .xforms file ("-" = standard input) into rigid transforms (quaternion w, x, y, z, as
 * in the file and mq_rigid). Same conventions as mqt_read_queries. */
bool mqt_read_xforms(const char *path, mq_rigid **out, size_t *count, char *err, size_t err_size);

/* The same from an open stream (not closed); `name` stands for the path in messages. */
bool mqt_read_queries_stream(FILE *f, const char *name, mqt_query **out, size_t *count, char *err, size_t err_size);
bool mqt_read_xforms_stream(FILE *f, const char *name, mq_rigid **out, size_t *count, char *err, size_t err_size);

#endif
