/*
 * mq-pick's shape modes: overlaps (--queries, --sphere, --capsule, --box, --aabb),
 * the nearest point (--closest) and mesh vs mesh (--collide with --xforms), on
 * one mesh's OBB tree or on a scene of placed meshes.
 */
#ifndef MQ_PICK_SHAPES_H
#define MQ_PICK_SHAPES_H

#include <stdbool.h>
#include <stdio.h>

#include <meshquery/obbtree.h>
#include <meshquery/scene.h>

#include "pick_args.h"
#include "pick_load.h"
#include "pick_output.h"

/* What shape queries run on: one mesh's tree (instance 0), or a scene. */
typedef struct pick_target {
    const mq_obbtree *tree; /* or NULL, then: */
    const mq_scene *scene;
    const pick_source *sources; /* indexed by instance */
    bool name_instance;         /* records name the instance (scene runs) */
    uint32_t threads;
    const mq_kdoptree *kdop;     /* --hierarchy kdop: answers instead of `tree` */
    const mq_spheretree *sphere; /* --hierarchy sphere: answers instead of `tree` */
} pick_target;

/* How shape answers are written: the .overlaps lines (the default), or for people and programs. */
typedef enum pick_shape_format { SHAPES_OVERLAPS, SHAPES_TABLE, SHAPES_JSON, SHAPES_CSV } pick_shape_format;

/* Builds the tree a shape query runs on: "obb" (DiTO-fitted boxes) or "aabb" (world axes). */
mq_obbtree *pick_build_tree(const mq_mesh *mesh, const char *hierarchy);

/* Answers the queries of `queries_path` (may be NULL), then `extra`, in order: per query the
 * overlapping triangles, ids increasing (.overlaps: "count id id ..."; the ids of a scene are
 * first_triangle + triangle). Returns 0, or 1 after printing an error. */
int pick_run_queries(const pick_target *t, const char *queries_path, const mqt_query *extra, size_t extra_count,
                     FILE *out, pick_shape_format format);

/* The nearest surface point to each point (SHAPES_OVERLAPS writes the table). Returns 0 or 1. */
int pick_run_closest(const pick_target *t, const pick_point *points, size_t count, FILE *out, pick_shape_format format);

/* For every transform of `xforms_path` (placing `b` in `a`'s frame; each model's k-DOP, sphere
 * or OBB tree, whichever pick_model_tree built, both of the same kind): the number of intersecting
 * triangle pairs, or 0/1 when `any`; with `list`, the pairs too (triangle of a, triangle of b,
 * increasing). SHAPES_OVERLAPS writes the contract's lines ("count", with `list` followed by
 * " a,b" per pair), the others a table, CSV or JSON lines. Returns 0, or 1 after printing an error. */
int pick_run_collide(const pick_model *a, const pick_model *b, const char *xforms_path, bool any, bool list, FILE *out,
                     pick_shape_format format);

#endif
