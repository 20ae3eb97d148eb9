/* Query shapes for the differential tests, as mq_shape (types.h): random
 * spheres, capsules, OBBs and AABBs over a mesh (docs/formats.md "shape
 * queries"), zero-size shapes that touch a mesh's vertices and edges, the
 * brute-force answer (every triangle the primitive test says overlaps), and
 * the check of an index's answer sets against it. One generator for every index (BVH, OBB tree), so that the same
 * seed gives the same shapes wherever it is used. */
#ifndef MQ_TEST_GEN_SHAPES_H
#define MQ_TEST_GEN_SHAPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meshquery/meshquery.h>

#include "test_support.h"

/* ---- a mesh's bounds and triangles ---- */

/* Bounding box of the mesh's vertices; returns its diagonal length D. */
double gen_bounds(const mq_mesh *m, mq_aabb *box);

/* The triangles of a whole mesh and their bounds, for brute-force prefilters
 * that only skip triangles farther than a margin from the query's bounds (the
 * primitives decide everything else). */
typedef struct gen_tri_boxes {
    mq_triangle *tris;
    mq_aabb *boxes;
    size_t count;
} gen_tri_boxes;

gen_tri_boxes gen_tri_boxes_make(const mq_mesh *m);
void gen_tri_boxes_free(gen_tri_boxes *tb);
/* True when the two boxes are disjoint by more than `margin` on some axis. */
bool gen_far_apart(const mq_aabb *a, const mq_aabb *b, float margin);
/* qsort comparison of uint32_t values. */
int gen_cmp_u32(const void *a, const void *b);

/* ---- random shapes (docs/formats.md "shape queries") ---- */

/* Sizes log-uniform in [0.002 D, 0.05 D]. */
float gen_size(mq_test_rng *r, double D);
/* A point uniform in the box. */
void gen_point_in(mq_test_rng *r, const mq_aabb *box, vec3 out);
void gen_random_sphere(mq_test_rng *r, const mq_aabb *box, double D, mq_sphere *s);
/* Capsule segments up to 0.1 D long, in a uniform direction. */
void gen_random_capsule(mq_test_rng *r, const mq_aabb *box, double D, mq_capsule *c);
void gen_random_obb(mq_test_rng *r, const mq_aabb *box, double D, mq_obb *o);
void gen_random_aabb(mq_test_rng *r, const mq_aabb *box, double D, mq_aabb *a);

/* ---- one shape of any kind ---- */

/* The kinds of mq_shape (types.h) the tests generate, and their names. */
#define GEN_SHAPE_KINDS 4
extern const char *const gen_shape_names[GEN_SHAPE_KINDS];

/* A random shape of the kind, centred in the box (gen_random_*). */
void gen_shape_random(mq_test_rng *r, mq_shape_kind kind, const mq_aabb *box, double D, mq_shape *q);
/* A zero-size shape exactly on a random vertex of the mesh (capsules: along
 * one of its edges): it touches the triangles there, the hardest case for a
 * conservative node test. flat_D > 0 adds, half of the time each, flat boxes
 * through the vertex (one zero extent, the others up to 0.01 flat_D) and
 * zero-length capsules; flat_D = 0 draws fewer random numbers (another
 * sequence of shapes from the same seed). */
void gen_shape_touching(mq_test_rng *r, mq_shape_kind kind, const gen_tri_boxes *tb, double flat_D, mq_shape *q);
/* The primitive test of the shape against one triangle. */
bool gen_shape_overlaps(const mq_shape *q, const mq_triangle *t);
/* A box around the shape (float, not rounded outwards). */
void gen_shape_bounds(const mq_shape *q, mq_aabb *b);
/* The shape's kind and fields on stderr, for mismatch reports. */
void gen_shape_print(const mq_shape *q);

/* Brute force: the sorted ids of every triangle near the shape's bounds that
 * the primitive says overlaps (margin < 0: every triangle is tested). */
size_t gen_brute(const gen_tri_boxes *tb, const mq_shape *q, float margin, uint32_t *out);

/* ---- an index's answers against brute force ---- */

/* The overlap queries of one kind of index, each answering for any shape kind. */
typedef struct gen_index_ops {
    const char *what; /* "bvh", "tree": for reports */
    size_t (*array)(const void *index, const mq_shape *q, uint32_t *out, size_t cap);
    bool (*any)(const void *index, const mq_shape *q);
    size_t (*each)(const void *index, const mq_shape *q, mq_overlap_fn fn, void *user);
} gen_index_ops;

typedef struct gen_check {
    uint32_t *expect, *got;
    size_t cap;
    size_t mismatches, total_hits, nonempty, queries;
} gen_check;

/* Buffers for meshes of up to `triangles` triangles. */
void gen_check_init(gen_check *cs, size_t triangles);
void gen_check_free(gen_check *cs);
/* One shape on every index: the array form must EQUAL the brute-force set,
 * the any form say whether it is empty, and a callback that stops after
 * 1 + n/2 answers be called exactly that often. Mismatches are counted in
 * cs->mismatches and the first 10 reported with the mesh and the index's name. */
void gen_check_query(gen_check *cs, const gen_tri_boxes *tb, const gen_index_ops *ops, const void *const *indexes,
                     const char *const *names, size_t count, const mq_shape *q, float margin, const char *mesh);

#endif
