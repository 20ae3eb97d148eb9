/**
 * @file
 * meshquery/meshquery.h — the umbrella header: include this to get the whole API.
 *
 *   base.h        version, status codes, diagnostics, allocator hook
 *   types.h       rays, boxes, spheres, capsules, triangles, planes (plain structs); the tagged
 *                 shapes mq_shape / mq_dshape that every overlap query takes
 *   primitives.h  pairwise intersection and distance tests
 *   mesh.h        the immutable triangle mesh, with OBJ faces, lines, names, normals, uvs
 *   obj.h         loading meshes from Wavefront OBJ files or memory
 *   bvh.h         the AABB BVH: raycasts closest / any / all, batches, refit; shape overlaps
 *                 (mq_bvh_overlap / _array / _any) and closest point
 *   obbtree.h     the OBB tree: shape overlaps (mq_obbtree_overlap / _array / _any), raycasts,
 *                 closest point, mesh vs mesh, statistics
 *   kdoptree.h    the k-DOP tree (k = 6, 14, 18, 26): the OBB tree's queries on slab-bounded nodes, refit
 *   spheretree.h  the bounding-sphere tree: the same queries on balls, refit
 *   convex.h      convex hulls (quickhull) and their exact tests: triangles, convexes, distances, casts
 *   saved.h       saving a built BVH / OBB tree with its mesh to a file, loading it back in milliseconds
 *   scene.h       instances of hierarchies placed by transforms: every query on the world
 *                 (shape overlaps: mq_scene_overlap / _array / _any), batches
 *   casts.h       sphere and capsule casts (sweeps), winding number and signed distance, both hierarchies
 *   batch.h       batches of closest points, solids, overlaps, casts, OBB tree rays and all hits
 *   proximity.h   distances mesh-mesh and shape-mesh, clearance (pairs within d), both hierarchies
 *   contacts.h    a shape's contacts with a mesh: per triangle depth, normal, points
 *   clash.h       clash detection over a scene (pairs within a clearance), instance distance
 */
#ifndef MESHQUERY_H
#define MESHQUERY_H

#include <meshquery/base.h>
#include <meshquery/types.h>
#include <meshquery/primitives.h>
#include <meshquery/mesh.h>
#include <meshquery/obj.h>
#include <meshquery/bvh.h>
#include <meshquery/obbtree.h>
#include <meshquery/convex.h>
#include <meshquery/kdoptree.h>
#include <meshquery/spheretree.h>
#include <meshquery/casts.h>
#include <meshquery/batch.h>
#include <meshquery/proximity.h>
#include <meshquery/contacts.h>
#include <meshquery/saved.h>
#include <meshquery/scene.h>
#include <meshquery/clash.h>

#endif
