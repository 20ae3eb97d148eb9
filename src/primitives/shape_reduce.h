/*
 * Huge shapes, cut down to their part near a box (shape_reduce.c,
 * shape_reduce_float.c).
 *
 * A shape far larger than what it is tested against (a capsule along a line
 * 1e30 long, a slab 1e18 wide, a box of +-FLT_MAX meaning "everything")
 * overflows the float filters of a walk, or makes a float or double test
 * round at the scale of the shape instead of that of the triangles. Only the
 * part of the shape near the triangles can meet them, so every query that
 * knows a box W holding all its triangles (a hierarchy's root box, an
 * instance's world box) replaces the shape by one
 * that meets W exactly where the original does and is about as large as W
 * and its distance to it. Shapes already that small come back as they are
 * (bit for bit), except a box clipped outside W.
 *
 * Used by the single-mesh walks (bvh_overlap.c, obbtree_overlap_*.c) and
 * the scene (scene/instance_overlap.c, per instance). The pairwise primitives do
 * not use it: a shape far larger than one triangle is decided there at the
 * shape's scale (primitives.h), because testing for it on every call costs
 * about 4 ns of a 55 ns triangle-box test.
 */
#ifndef MQ_PRIMITIVES_SHAPE_REDUCE_H
#define MQ_PRIMITIVES_SHAPE_REDUCE_H

#include <stdbool.h>

#include <meshquery/primitives.h>
#include <meshquery/types.h> /* mq_dshape: the double-precision shapes */

/*
 * The valid shape s reduced to the closed box W = [lo, hi] (finite, lo <= hi):
 * *out meets every point of W exactly where s does. Sphere and capsule radii
 * are capped once they hold all of W, a capsule's axis is clipped to W grown
 * by its radius, an OBB's half extents are capped past W's extent along its
 * axes (its centre and axes kept), an AABB is clipped to W (all with a margin
 * of a quarter of W's extent: room for the roundings of the float tests that
 * follow). A part of the shape that is kept is kept exactly as given.
 * @return false when s cannot meet W (then *out is unspecified).
 */
bool mq_dshape_reduce(const mq_dshape *s, const double lo[3], const double hi[3], mq_dshape *out);

/*
 * The same for valid float shapes: through mq_dshape_reduce, then rounded
 * back to float outwards (a capped radius or half extent up, a clipped box
 * out; a clipped capsule end to nearest, which moves the axis by half an ulp
 * of its coordinates near W, inside the float tests' own band). A shape the
 * reduction leaves alone comes back bit for bit. out may alias s.
 * @return false when the shape cannot meet W.
 */
bool mq_sphere_reduce(const mq_sphere *s, const double lo[3], const double hi[3], mq_sphere *out);
bool mq_capsule_reduce(const mq_capsule *c, const double lo[3], const double hi[3], mq_capsule *out);
bool mq_obb_reduce(const mq_obb *b, const double lo[3], const double hi[3], mq_obb *out);
bool mq_aabb_reduce(const mq_aabb *b, const double lo[3], const double hi[3], mq_aabb *out);

#endif
