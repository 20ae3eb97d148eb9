/**
 * @file
 * meshquery/primitives.h — the pairwise intersection and distance tests.
 *
 * These are the node and leaf predicates of every traversal in the library, and
 * public functions in their own right. All are pure functions of their inputs:
 * no allocation, no global state, safe to call from any number of threads.
 *
 * The grid (query shape first, then target; every implemented pair is listed):
 *
 *             | aabb | obb | sphere | capsule | triangle | plane
 *   ray       |  R   |  R  |   R    |    R    |    R     |   R      R = `mq_raycast_<target>`
 *   sphere    |  O   |  O  |   O    |    O    |    O     |          O = `mq_overlap_<a>_<b>`
 *   capsule   |  O   |  O  |        |    O    |    O     |
 *   aabb      |  O   |  O  |        |         |          |
 *   obb       |      |  O  |        |         |          |
 *   triangle  |  O   |  O  |        |         |    O     |
 *   2D: mq_overlap_aabb2_aabb2, mq_overlap_rect2_rect2
 *
 *   Closest points (return the SQUARED distance):
 *   point–segment, point–aabb, point–obb, point–triangle, segment–segment,
 *   segment–triangle.
 *
 * Semantics (see types.h): shapes are closed, touching counts. Invalid input
 * (NaN/Inf coordinates, negative radius or half extent, non-orthonormal OBB
 * axes, an invalid ray) gives `false` from ray and overlap tests, and NaN from
 * the distance functions (their output points are then NaN too). A zero-area
 * triangle is the segment or point it spans: overlap tests treat it so, and a
 * ray never hits it (it has no interior to cross).
 *
 * OBB frames: tests on an OBB work in the box's frame, using the transposed axes
 * as the inverse rotation. For axes orthonormal only to within
 * MQ_OBB_AXIS_TOLERANCE the answers are those of that slightly different box.
 *
 * Distances are accurate for every finite input (coordinates are rescaled by
 * powers of two internally when differences would overflow or underflow); only
 * the returned SQUARED distance itself may overflow to +INFINITY.
 *
 * Precision: inputs are single precision; where it buys exactness cheaply the
 * tests compute internally in double (the separating axis tests, whose
 * "separated" verdicts are never wrong, and the triangle–triangle test, which
 * is exact for float input via orientation predicates with an exact fallback).
 * The randomized differential tests in tests/diff/ compare every function with
 * independent double-precision oracles and report the tolerance band around
 * exact touching inside which an answer may go either way (docs/robustness.md, "Tolerances").
 *
 * Huge shapes: a test rounds at the scale of its inputs, the shapes
 * included, so a shape far larger than what it meets is decided at the
 * shape's scale, not the smaller one's: mq_overlap_capsule_triangle on a
 * capsule 1e30 long, or mq_overlap_triangle_obb / _aabb and the box–box tests
 * on a slab 1e18 wide, may decide either way (boxes: count as touching) a
 * triangle or box within about 1e-7 (capsule) or 1e-13 (boxes) of that size
 * of touching. The hierarchy and scene queries
 * (bvh.h, obbtree.h, scene.h) cut a shape down to the mesh's neighbourhood
 * before calling these tests, so they answer shapes of any finite size
 * exactly; to test a huge shape against a single triangle, do the same (clip
 * a capsule's axis, or a box, to a region around the triangle that its parts
 * farther away cannot reach).
 *
 * Output pointers may be NULL when the caller does not want that output.
 */
#ifndef MESHQUERY_PRIMITIVES_H
#define MESHQUERY_PRIMITIVES_H

#include <meshquery/types.h>

/* ------------------------------------------------------------------------- */
/* Validators and constructors                                               */
/* ------------------------------------------------------------------------- */

/** True when the ray is valid (see types.h): finite origin and dir, dir != 0, tmin <= tmax, no NaN. */
MQ_API bool mq_ray_is_valid(const mq_ray *ray);

/** True when the OBB has finite fields, half extents >= 0 and orthonormal axes (MQ_OBB_AXIS_TOLERANCE). */
MQ_API bool mq_obb_is_valid(const mq_obb *box);

/**
 * Builds an OBB from a centre, half extents and a rotation.
 *
 * @param center the box's centre.
 * @param half half extents along the box's own axes (copied as given).
 * @param rotation unit quaternion w, x, y, z (the scalar part first, as in
 *        mq_xform_from_trs and the exchange files; not cglm's versor order);
 *        normalised first. A zero or non-finite quaternion yields an OBB whose
 *        axes are NaN (invalid: it overlaps nothing).
 * @param[out] out the box; its axes are the images of the world axes.
 */
MQ_API void mq_obb_from_quat(const vec3 center, const vec3 half, const float rotation[4], mq_obb *out);

/** The OBB equal to an AABB (world axes). An empty AABB (min > max) gives an invalid OBB. */
MQ_API void mq_obb_from_aabb(const mq_aabb *box, mq_obb *out);

/* ------------------------------------------------------------------------- */
/* Ray tests. Each returns true when the ray segment [tmin, tmax] meets the   */
/* closed shape, and reports where.                                          */
/* ------------------------------------------------------------------------- */

/**
 * Ray vs AABB (slab test). On a hit, `out` receives the parameter interval of the
 * ray inside the box, clipped to [tmin, tmax]. Rays parallel to a slab (a zero
 * direction component) hit iff the origin lies within that slab, boundary
 * included. A flat box (min == max on an axis) is hit where the ray crosses it.
 */
MQ_API bool mq_raycast_aabb(const mq_ray *ray, const mq_aabb *box, mq_ray_span *out);

/**
 * Ray vs OBB: the slab test on the box's own axes. Correct for rays parallel to a
 * face, origins inside the box (t_enter = tmin) and grazing rays; same answers as
 * mq_raycast_aabb on a box with world axes.
 */
MQ_API bool mq_raycast_obb(const mq_ray *ray, const mq_obb *box, mq_ray_span *out);

/** Ray vs solid sphere; an origin inside gives t_enter = tmin. Radius 0: hits only through the centre. */
MQ_API bool mq_raycast_sphere(const mq_ray *ray, const mq_sphere *sphere, mq_ray_span *out);

/** Ray vs solid capsule (a cylinder with hemispherical caps, or a sphere when a == b). */
MQ_API bool mq_raycast_capsule(const mq_ray *ray, const mq_capsule *capsule, mq_ray_span *out);

/**
 * Ray vs triangle, WATERTIGHT (Woop, Benthin & Wald 2013): a ray through a shared
 * edge or vertex of a closed mesh hits at least one of the triangles that share
 * it, never none. Both faces count; `back_face` tells which side was hit. A ray in
 * the triangle's plane and a zero-area triangle are never hit. On a hit, `out`
 * gets t in [tmin, tmax] and the barycentrics of the hit point.
 */
MQ_API bool mq_raycast_triangle(const mq_ray *ray, const mq_triangle *tri, mq_triangle_hit *out);

/**
 * Ray vs plane. A ray crossing the plane hits at the crossing; a ray lying in the
 * plane hits at t = tmin; a ray parallel to and off the plane misses. A plane with
 * a zero or non-finite normal, or a non-finite d, is invalid (miss).
 */
MQ_API bool mq_raycast_plane(const mq_ray *ray, const mq_plane *plane, float *t);

/* ------------------------------------------------------------------------- */
/* Overlap tests (closed sets: touching is overlap)                          */
/* ------------------------------------------------------------------------- */

/** Sphere vs sphere: |c1 - c2| <= r1 + r2. */
MQ_API bool mq_overlap_sphere_sphere(const mq_sphere *a, const mq_sphere *b);
/** Sphere vs AABB: the closest point of the box to the centre is within the radius. */
MQ_API bool mq_overlap_sphere_aabb(const mq_sphere *s, const mq_aabb *box);
/** Sphere vs OBB: the closest point of the box to the centre is within the radius. */
MQ_API bool mq_overlap_sphere_obb(const mq_sphere *s, const mq_obb *box);
/** Sphere vs capsule: the point–segment distance is within the sum of the radii. */
MQ_API bool mq_overlap_sphere_capsule(const mq_sphere *s, const mq_capsule *c);
/** Sphere vs triangle: the closest point of the triangle to the centre is within the radius. */
MQ_API bool mq_overlap_sphere_triangle(const mq_sphere *s, const mq_triangle *tri);

/** Capsule vs capsule: the segment–segment distance is within the sum of the radii. */
MQ_API bool mq_overlap_capsule_capsule(const mq_capsule *a, const mq_capsule *b);
/** Capsule vs AABB: the segment–box distance is within the radius (exact, not a bound). */
MQ_API bool mq_overlap_capsule_aabb(const mq_capsule *c, const mq_aabb *box);
/** Capsule vs OBB: as capsule vs AABB, in the box's frame. */
MQ_API bool mq_overlap_capsule_obb(const mq_capsule *c, const mq_obb *box);
/** Capsule vs triangle: the segment–triangle distance is within the radius. */
MQ_API bool mq_overlap_capsule_triangle(const mq_capsule *c, const mq_triangle *tri);

/** AABB vs AABB: the intervals overlap on all three axes. */
MQ_API bool mq_overlap_aabb_aabb(const mq_aabb *a, const mq_aabb *b);
/** AABB vs OBB: the 15-axis separating axis test. */
MQ_API bool mq_overlap_aabb_obb(const mq_aabb *a, const mq_obb *b);
/**
 * OBB vs OBB: the separating axis test on all 15 axes (3 + 3 face normals and the
 * 9 edge cross products). Robust for parallel and near-parallel edges, where the
 * cross-product axes degenerate: a degenerate axis can never produce a false
 * separation (each axis separates only when its gap exceeds a rigorous bound
 * on the rounding error). Boxes count as the parallelepipeds their axes span.
 */
MQ_API bool mq_overlap_obb_obb(const mq_obb *a, const mq_obb *b);

/** Triangle vs AABB: the 13-axis separating axis test (Akenine-Möller). */
MQ_API bool mq_overlap_triangle_aabb(const mq_triangle *tri, const mq_aabb *box);
/** Triangle vs OBB: the 13-axis separating axis test in the box's frame. */
MQ_API bool mq_overlap_triangle_obb(const mq_triangle *tri, const mq_obb *box);
/** Triangle vs triangle, coplanar and degenerate (segment/point) triangles included. */
MQ_API bool mq_overlap_triangle_triangle(const mq_triangle *a, const mq_triangle *b);

/** 2D: AABB vs AABB. */
MQ_API bool mq_overlap_aabb2_aabb2(const mq_aabb2 *a, const mq_aabb2 *b);
/** 2D: oriented rectangle vs oriented rectangle, the 4-axis separating axis test. */
MQ_API bool mq_overlap_rect2_rect2(const mq_rect2 *a, const mq_rect2 *b);

/* ------------------------------------------------------------------------- */
/* Closest points and distances. Each returns the SQUARED distance and writes */
/* the closest point(s) to the non-NULL outputs. NaN in -> NaN out.          */
/* ------------------------------------------------------------------------- */

/** Closest point to p on segment [a, b]; `t` in [0, 1] locates it (a + t*(b-a)). a == b is allowed. */
MQ_API float mq_closest_point_segment(const vec3 p, const vec3 a, const vec3 b, vec3 out_point, float *t);

/** Closest point to p in the solid AABB (p itself when inside). Empty box (min > max): NaN. */
MQ_API float mq_closest_point_aabb(const vec3 p, const mq_aabb *box, vec3 out_point);

/** Closest point to p in the solid OBB (p itself when inside). Invalid OBB: NaN. */
MQ_API float mq_closest_point_obb(const vec3 p, const mq_obb *box, vec3 out_point);

/**
 * Closest point to p on the triangle, with its barycentrics (out_uv[0] = u,
 * out_uv[1] = v; point = (1-u-v)*v0 + u*v1 + v*v2). Zero-area triangles are
 * handled as the segment or point they span. Computed in a frame scaled by a
 * power of two, so the point and (u, v) are accurate for any finite
 * coordinates; the returned squared distance is a float, so below FLT_MIN
 * (distances below ~1.1e-19) it is subnormal and keeps only an absolute
 * accuracy of ~1e-45 (mq_obbtree_closest_point decides on this float but
 * prunes and reports the distance from its double-precision value, so its
 * distance stays accurate).
 */
MQ_API float mq_closest_point_triangle(const vec3 p, const mq_triangle *tri, vec3 out_point, vec2 out_uv);

/** Closest points between segments [a0, a1] and [b0, b1]; parallel and zero-length segments allowed. */
MQ_API float mq_closest_points_segment_segment(const vec3 a0, const vec3 a1, const vec3 b0, const vec3 b1, vec3 out_a,
                                               vec3 out_b);

/**
 * Closest points between segment [a, b] and a triangle (0 when the segment crosses
 * it; the two output points are then each computed on their own shape and agree
 * to rounding).
 */
MQ_API float mq_closest_points_segment_triangle(const vec3 a, const vec3 b, const mq_triangle *tri, vec3 out_segment,
                                                vec3 out_triangle);

/**
 * Distance between two triangles, in double, with the closest points (each on
 * its own triangle). 0 when mq_overlap_triangle_triangle says they intersect
 * (touching included), the two points then being a common point to rounding;
 * otherwise the smallest of the 6 vertex-triangle and 9 edge-edge distances.
 * A zero-area triangle acts as the segment or point it spans.
 * @param a  the first triangle.
 * @param b  the second triangle.
 * @param[out] out_a  the closest point on a (NULL: not wanted).
 * @param[out] out_b  the closest point on b (NULL: not wanted).
 * @return the distance (not squared); NaN when a corner is not finite (the
 *         outputs are then untouched). Thread safety: pure function.
 */
MQ_API double mq_closest_points_triangle_triangle(const mq_triangle *a, const mq_triangle *b, double out_a[3],
                                                  double out_b[3]);

/* ------------------------------------------------------------------------- */
/* Contacts: how deep a shape sits in a triangle. Computed in double.        */
/* ------------------------------------------------------------------------- */

/**
 * A shape's contact with one triangle T (S: the closed shape).
 *   - normal n: a unit vector, the direction in which the SHAPE moves to
 *     leave the triangle (it points from the triangle towards the shape).
 *   - depth: the penetration depth, min over unit n of h_T(n) + h_S(-n) with
 *     h the support function (h_X(n) = max of x.n over X): the shortest
 *     distance the shape must be moved for S and T to be left touching at
 *     most; `normal` is a minimising n. 0 when they just touch.
 *   - point_triangle: a point of T with the largest x.n; point_shape: a point
 *     of S with the least x.n; (point_triangle - point_shape).n == depth.
 *     When the support is not a single point: the corner of T with the
 *     lowest index, and for S the centre of its face or edge (for a capsule
 *     whose axis is parallel to the face, the end `a` grown by the radius).
 * Sphere and capsule: while the centre (axis) stays off the triangle, depth
 * = radius - the distance of the centre (axis) to T, the normal runs from T's
 * closest point to the centre's (axis') closest point and the two points
 * are those closest points, moved by the radius for the shape's. Once the
 * centre (axis) meets T, depth = radius + the penetration of the centre
 * (axis) itself, which for a point is 0 with the face normal.
 * Boxes (OBB and AABB, both as their polytopes): the minimum over the
 * separating-axis candidates (the box's three face normals, the triangle's
 * normal, the nine cross products of a box edge and a triangle edge), which
 * for two convex polytopes is the exact penetration depth; cross products of
 * edges parallel to within sin = 2^-27 are skipped (their facet is at most
 * that thin), which bounds the error by about 1e-8 of the coordinates.
 */
typedef struct mq_contact {
    double depth;             /**< penetration depth (see above); < 0 when apart (mq_contact_shape_triangle) */
    double normal[3];         /**< unit; the direction the shape moves to separate */
    double point_shape[3];    /**< the shape's deepest point along -normal */
    double point_triangle[3]; /**< the triangle's farthest point along normal */
    uint32_t triangle;        /**< triangle id in the mesh (contacts.h); UINT32_MAX from the primitive */
} mq_contact;

/**
 * The contact of any shape (sphere, capsule, OBB, AABB) with a triangle, in
 * double from the float inputs (mq_contact gives the definitions).
 * @param shape the shape (types.h rules; an invalid or unknown one touches nothing).
 * @param tri the triangle; a zero-area one is the segment or point it spans.
 * @param[out] out written whenever the inputs are valid, also when they are
 *        apart: depth is then negative, and for a sphere or capsule -depth is
 *        the distance between them (the points are the closest points); for a
 *        box -depth is the largest gap along the candidate axes, a lower bound
 *        of the distance. Untouched for invalid inputs.
 * @return true when depth >= 0 (they overlap or touch, up to the double
 *         rounding of the computation); false when apart or invalid.
 * Thread safety: pure function.
 */
MQ_API bool mq_contact_shape_triangle(const mq_shape *shape, const mq_triangle *tri, mq_contact *out);

#endif /* MESHQUERY_PRIMITIVES_H */
