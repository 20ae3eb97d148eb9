/**
 * @file
 * meshquery/convex.h — convex polytopes (mq_convex): the convex hull of a set
 * of points, and the exact tests between a convex and triangles, points and
 * other convexes.
 *
 * Synopsis
 *   mq_convex_create()              the hull of points (quickhull)
 *   mq_convex_create_placed()       the hull of points moved by a rigid transform
 *   mq_convex_destroy()             free it
 *   mq_convex_vertex_count(), mq_convex_vertices(), mq_convex_face_count(),
 *   mq_convex_faces(), mq_convex_bounds()
 *   mq_convex_contains_point()      point in the solid polytope
 *   mq_overlap_convex_triangle()    convex vs triangle (touching counts)
 *   mq_overlap_convex_convex()      convex vs convex (touching counts)
 *   mq_convex_closest_point()       nearest point of the solid to a point
 *   mq_convex_triangle_distance()   distance and closest points to a triangle
 *   mq_convex_convex_distance()     distance and closest points of two convexes
 *   mq_convex_cast_triangle()       first time a moving convex touches a triangle
 *
 * What a convex is. The solid convex hull of its stored vertices
 * (mq_convex_vertices), a subset of the points it was built from: the hull's
 * corners. The builder decides exactly which side of a face's plane a point is
 * on, so every input point is inside the hull's triangles or on them. A point
 * inside the hull, or on it when the builder reaches it, is left out; a point
 * outside by any amount, however small, becomes a corner (and a corner taken
 * early can end up on an edge or a face of the final hull, where it stays).
 * The hull is stored as triangles (mq_convex_faces, counter-clockwise seen
 * from outside), the planes of its faces in double precision (exactly
 * coplanar triangles share one), and its edges. A convex is
 * closed: touching counts as overlap, as for every shape (types.h).
 *
 * Building. Any number of points >= 4, with coordinates of any finite
 * magnitude (1e-30 .. 1e30 work alike: the builder works at the points' own
 * scale), duplicates, coplanar and collinear subsets and slivers welcome. The
 * points must span a solid: fewer than 4 affinely independent points (all on a
 * plane, a line or one point, to within about 1e-13 of their extent) give
 * MQ_ERR_INVALID_ARG with a message naming which. A NaN or infinite coordinate
 * gives MQ_ERR_INVALID_ARG naming the point. More than 2^24 points:
 * MQ_ERR_LIMIT.
 *
 * Answers. Every test decides in double precision on the float inputs, so an
 * answer is exact up to double rounding of the geometry (far below float
 * resolution): triangle overlap clips the triangle's edges by the face planes
 * and tests the hull's edges against the triangle, which together decide
 * exactly whether the two closed sets meet. A point's distance is the minimum
 * over the hull's triangles in double; the distances to a triangle and between
 * two convexes come from GJK in double on the vertices, accurate to about
 * 1e-12 of the shapes' extent for well-proportioned hulls (a hull 1e12 times
 * longer than it is wide loses as many digits). Either is 0 exactly when the
 * overlap test says the shapes meet.
 *
 * From a mesh or an OBJ file: pass mq_mesh_positions() and
 * mq_mesh_vertex_count() of the mesh (or of the mesh mq_obj_load() gives) to
 * mq_convex_create().
 *
 * Query shapes. mq_shape_convex() (types.h) makes a convex an mq_shape, so the
 * BVH's and the OBB tree's overlap queries take it, and their shape distance
 * and clearance (proximity.h, measured by mq_convex_triangle_distance);
 * mq_dshape_convex() places one in a scene's world with a double-precision
 * rigid transform.
 *
 * Thread safety: a built convex is immutable; any number of threads may query
 * it at once. Creating and destroying are thread-safe on distinct objects.
 */
#ifndef MESHQUERY_CONVEX_H
#define MESHQUERY_CONVEX_H

#include <meshquery/base.h>
#include <meshquery/types.h>

/** Most points mq_convex_create accepts (more: MQ_ERR_LIMIT). */
#define MQ_CONVEX_MAX_POINTS (1u << 24)

/**
 * Builds the convex hull of `count` points (xyz triples, `points[3*i..3*i+2]`).
 * On success *out owns a new convex (free it with mq_convex_destroy); on
 * failure *out is NULL and nothing leaks. `allocator` may be NULL (the
 * default); the convex keeps a copy of it for its own free. `diag` may be NULL.
 * Errors: MQ_ERR_INVALID_ARG (NULL points or out, fewer than 4 points, a
 * non-finite coordinate, fewer than 4 affinely independent points),
 * MQ_ERR_LIMIT (more than MQ_CONVEX_MAX_POINTS), MQ_ERR_OUT_OF_MEMORY;
 * MQ_ERR_UNSUPPORTED if the builder's internal consistency check fails (no
 * known input does that: it would be a bug, reported rather than hidden).
 */
MQ_API mq_status mq_convex_create(const float *points, size_t count, const mq_allocator *allocator, mq_convex **out,
                                  mq_diag *diag);

/**
 * As mq_convex_create, for the points moved by a rigid transform first:
 * p' = R(rotation) p + translation, computed in double and rounded to float.
 * `rotation` is a unit quaternion w, x, y, z (normalised here; a zero or
 * non-finite one is MQ_ERR_INVALID_ARG); NULL means none. `translation` may be
 * NULL (none). Same ownership and errors as mq_convex_create.
 */
MQ_API mq_status mq_convex_create_placed(const float *points, size_t count, const double translation[3],
                                         const double rotation[4], const mq_allocator *allocator, mq_convex **out,
                                         mq_diag *diag);

/** Frees a convex from mq_convex_create*. NULL is a no-op. */
MQ_API void mq_convex_destroy(mq_convex *convex);

/** Number of hull vertices (>= 4); 0 for NULL. */
MQ_API size_t mq_convex_vertex_count(const mq_convex *convex);

/** The hull vertices, xyz triples, owned by the convex (NULL for NULL). */
MQ_API const float *mq_convex_vertices(const mq_convex *convex);

/** Number of hull triangles (>= 4); 0 for NULL. */
MQ_API size_t mq_convex_face_count(const mq_convex *convex);

/** The hull triangles, three vertex indices each, counter-clockwise seen from outside (NULL for NULL). */
MQ_API const uint32_t *mq_convex_faces(const mq_convex *convex);

/** The box of the hull's vertices into *out; false (and *out untouched) for NULL arguments. */
MQ_API bool mq_convex_bounds(const mq_convex *convex, mq_aabb *out);

/** True when p lies in the closed solid (false for NULL arguments or a non-finite p). */
MQ_API bool mq_convex_contains_point(const mq_convex *convex, const vec3 p);

/**
 * True when the closed convex and the closed triangle meet (touching counts).
 * A zero-area triangle acts as the segment or point it spans; a triangle with
 * a non-finite corner, or a NULL argument, overlaps nothing.
 */
MQ_API bool mq_overlap_convex_triangle(const mq_convex *convex, const mq_triangle *tri);

/** True when the two closed convexes meet (touching counts); false for NULL arguments. */
MQ_API bool mq_overlap_convex_convex(const mq_convex *a, const mq_convex *b);

/**
 * Distance from p to the solid convex (0 inside), with the nearest point of the
 * solid in out_point (may be NULL; p itself when inside). Returns -1 (and
 * leaves out_point untouched) for NULL convex or a non-finite p.
 */
MQ_API float mq_convex_closest_point(const mq_convex *convex, const vec3 p, vec3 out_point);

/**
 * Distance between the solid convex and the triangle (0 when they meet), with
 * a closest pair in out_convex / out_triangle (either may be NULL; when they
 * meet, both hold one common point). Returns -1 for NULL arguments or a non-finite corner.
 */
MQ_API double mq_convex_triangle_distance(const mq_convex *convex, const mq_triangle *tri, double out_convex[3],
                                          double out_triangle[3]);

/** Distance between two solid convexes (0 when they meet), closest pair as above; -1 for NULL. */
MQ_API double mq_convex_convex_distance(const mq_convex *a, const mq_convex *b, double out_a[3], double out_b[3]);

/**
 * Sweeps the convex along `dir` (any finite vector; t in its units) over
 * t in [0, tmax] and returns true with the first t at which the moved convex
 * touches the triangle in *t_hit (0 when they already meet). The time is found
 * by conservative advancement on GJK distances and is within about 1e-9 of the
 * sweep's length of the exact first contact, never after it by more. False
 * for no contact, NULL arguments or non-finite input.
 */
MQ_API bool mq_convex_cast_triangle(const mq_convex *convex, const vec3 dir, float tmax, const mq_triangle *tri,
                                    float *t_hit);

#endif /* MESHQUERY_CONVEX_H */
