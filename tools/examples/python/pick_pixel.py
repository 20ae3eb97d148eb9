#!/usr/bin/env python3
"""Pick a pixel: what does pixel (x, y) of a camera framing a mesh show?

    python3 pick_pixel.py [mesh.obj] [--size 512x512] [--pixel 256,256]

Casts one ray per pixel in one batch (the whole image, as a renderer would),
then reports the picked pixel's hit: triangle, OBJ face and line, group,
point, normal and distance, and how much of the image the mesh covers. The
camera looks down -z at the mesh's bounding box from in front of it.
"""
import argparse
import math
import os
import sys

import meshquery as mq

HERE = os.path.dirname(os.path.abspath(__file__))


def camera_rays(mesh, width, height):
    """Origins and directions of a pinhole camera (45 degree field of view) framing the mesh."""
    lo, hi = mesh.bounds()
    c = [(a + b) / 2 for a, b in zip(lo, hi)]
    radius = 0.5 * math.dist(lo, hi)
    eye = (c[0], c[1], c[2] + radius / math.tan(math.radians(22.5)) * 1.1 + (hi[2] - c[2]))
    origins, dirs = [], []
    for y in range(height):
        for x in range(width):
            u = (2 * (x + 0.5) / width - 1) * math.tan(math.radians(22.5)) * width / height
            v = (1 - 2 * (y + 0.5) / height) * math.tan(math.radians(22.5))
            origins.append(eye)
            dirs.append((u, v, -1.0))
    return origins, dirs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mesh", nargs="?", default=os.path.join(HERE, "..", "..", "..", "data", "spot.obj"))
    ap.add_argument("--size", default="256x256")
    ap.add_argument("--pixel", default="128,128")
    a = ap.parse_args()
    width, height = (int(v) for v in a.size.split("x"))
    px, py = (int(v) for v in a.pixel.split(","))
    mesh = mq.load_obj(a.mesh)
    bvh = mq.BVH(mesh)
    origins, dirs = camera_rays(mesh, width, height)
    hits = bvh.raycast(origins, dirs)  # every pixel, one C batch on all cores
    covered = sum(bool(h) for h in hits.hit)
    print("%s: %d triangles; the mesh covers %.1f%% of the %dx%d image" % (
        os.path.basename(a.mesh), mesh.triangle_count, 100.0 * covered / len(hits), width, height))
    hit = hits[py * width + px]
    if hit is None:
        print("pixel %d,%d: nothing" % (px, py))
        return 0
    src = mesh.triangle_source(hit.triangle)
    print("pixel %d,%d: triangle %d, OBJ face %d (line %d), group '%s'" % (
        px, py, hit.triangle, src["face"], src["line"], src["group"]))
    print("  point  %.5f %.5f %.5f" % hit.point)
    print("  normal %.5f %.5f %.5f" % hit.normal)
    length = math.sqrt(sum(x * x for x in dirs[py * width + px]))  # t is in units of the direction
    print("  distance %.5f, %s face" % (hit.t * length, "back" if hit.back_face else "front"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
