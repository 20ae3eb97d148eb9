/*
 * meshquery/meshquery.h — the umbrella header: include this to get the whole API.
 *
 *   base.h        version, status codes, diagnostics, allocator hook
 *   types.h       rays, boxes, spheres, capsules, triangles, planes (plain structs)
 *   primitives.h  pairwise intersection and distance tests
 *   mesh.h        the immutable triangle mesh
 */
#ifndef MESHQUERY_H
#define MESHQUERY_H

#include <meshquery/base.h>
#include <meshquery/types.h>
#include <meshquery/primitives.h>
#include <meshquery/mesh.h>

#endif
