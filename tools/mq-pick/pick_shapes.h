/* mq-pick's shape modes: --queries (overlaps) and --collide with --xforms (mesh vs mesh). */
#ifndef MQ_PICK_SHAPES_H
#define MQ_PICK_SHAPES_H

#include <stdbool.h>
#include <stdio.h>

#include <meshquery/obbtree.h>

/* Builds the tree a shape query runs on: "obb" (DiTO-fitted boxes) or "aabb" (world axes). */
mq_obbtree *pick_build_tree(const mq_mesh *mesh, const char *hierarchy);

/* Answers every query of `queries_path` as a .overlaps line ("count id id ...", ids increasing)
 * or, with json, {"query":i,"count":n,"triangles":[...]}. Returns 0, or 1 after printing an error. */
int pick_run_queries(const mq_obbtree *tree, const char *queries_path, FILE *out, bool json);

/* For every transform of `xforms_path` (placing `b` in `a`'s frame): the number of intersecting
 * triangle pairs, or 0/1 when `any`. Returns 0, or 1 after printing an error. */
int pick_run_collide(const mq_obbtree *a, const mq_obbtree *b, const char *xforms_path, bool any, FILE *out,
                     bool json);

#endif
