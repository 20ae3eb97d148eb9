/*
 * Reading the shape-query and transform files of docs/formats.md:
 * .queries (sphere / capsule / obb / aabb, one per line) and .xforms
 * (tx ty tz qw qx qy qz per line). Blank lines and '#' comments are skipped.
 */
#ifndef MQ_TOOLS_QUERYFILE_H
#define MQ_TOOLS_QUERYFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <meshquery/obbtree.h>

typedef enum mqt_shape_kind { MQT_SPHERE, MQT_CAPSULE, MQT_OBB, MQT_AABB, MQT_SHAPE_KINDS } mqt_shape_kind;

/* One shape query; the field named by `kind` is set. */
typedef struct mqt_query {
    mqt_shape_kind kind;
    mq_sphere s;
    mq_capsule c;
    mq_obb o; /* built with mq_obb_from_quat from the file's centre, half extents and (w, x, y, z) */
    mq_aabb a;
} mqt_query;

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
