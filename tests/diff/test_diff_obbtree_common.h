/*
 * Helpers shared by the OBB tree's differential tests (header-only: each test
 * is its own executable): the test meshes and the query count scale; the
 * shape generators and triangle bounds are in tests/support/gen_shapes.h.
 */
#ifndef MQ_TEST_DIFF_OBBTREE_COMMON_H
#define MQ_TEST_DIFF_OBBTREE_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/meshquery.h>
#include <meshquery/obbtree.h>
#include <meshquery/obj.h>

#include "gen_shapes.h"
#include "test_support.h"

/* Unoptimised (sanitizer) builds run a quarter of the queries: still
 * thousands per shape over the meshes, in a tolerable time. */
#if defined(__OPTIMIZE__)
#define OBT_SCALE 1.0
#else
#define OBT_SCALE 0.25
#endif

/* The meshes every differential test runs on (data/). */
static const char *const obt_meshes[] = {"suzanne.obj", "woody.obj",   "spot.obj",          "cow.obj",
                                         "teapot.obj",  "fandisk.obj", "stanford-bunny.obj"};
#define OBT_MESH_COUNT (sizeof obt_meshes / sizeof obt_meshes[0])

#endif
