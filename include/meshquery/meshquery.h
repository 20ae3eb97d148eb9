/*
 * meshquery/meshquery.h — the umbrella header: include this to get the whole API.
 *
 *   base.h        version, status codes, diagnostics, allocator hook
 *   types.h       rays, boxes, spheres, capsules, triangles, planes (plain structs)
 *   primitives.h  pairwise intersection and distance tests
 *   mesh.h        the immutable triangle mesh, with OBJ faces, lines, names, normals, uvs
 *   obj.h         loading meshes from Wavefront OBJ files or memory
 *   bvh.h         the AABB BVH: raycasts closest / any / all, batches, refit
 *   obbtree.h     the OBB tree: shape overlaps, raycasts, closest point, mesh vs mesh
 *   scene.h       instances of hierarchies placed by transforms: every query on the world, batches
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
#include <meshquery/scene.h>

#endif
