#!/usr/bin/env python3
"""Every batch call of the Python binding against the C batch it wraps, on the
same inputs. Not a test: run by hand; figures go in docs/python.md.

  python3 tests/python/bench_batches.py [--count 1000000] [--threads 1] [--mesh data/stanford-bunny.obj]

For each batch, "C" is the C function called once through ctypes on inputs
already packed in C layout and outputs already allocated (the floor any
binding can reach); "Python" is the binding's call from N x 3 NumPy inputs to
NumPy outputs (packing, allocation and the result columns included). Each is
run --repeat times and the best kept; the ratio C / Python is the share of
the C batch's speed the binding keeps (target >= 90%).
"""
import argparse
import ctypes
import os
import sys
import time

import numpy as np

import meshquery as mq
from meshquery import _capi as C

HERE = os.path.dirname(os.path.abspath(__file__))


def best(fn, repeat):
    t = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def ptr(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", help="comma-separated batch names (default: all)")
    ap.add_argument("--mesh", default=os.path.join(HERE, "..", "..", "data", "stanford-bunny.obj"))
    a = ap.parse_args()
    if not mq.HAS_NUMPY:
        sys.exit("bench_batches.py needs NumPy")
    n, th, lib = a.count, a.threads, C.lib
    mesh = mq.load_obj(a.mesh)
    bvh = mq.BVH(mesh)
    lo, hi = (np.array(x) for x in mesh.bounds())
    c, r = (lo + hi) / 2, float(np.max(hi - lo))
    rng = np.random.default_rng(26)
    o = (c + rng.uniform(-1.5, 1.5, (n, 3)) * r).astype(np.float32)
    d = (rng.uniform(lo, hi, (n, 3)) - o).astype(np.float32)
    # points near the surface: mesh vertices moved by up to 2% of the size
    verts = mesh.positions
    pts = (verts[rng.integers(0, len(verts), n)] + rng.normal(0, 0.01 * r, (n, 3))).astype(np.float32)
    radii = rng.uniform(0.002, 0.02, n) * r
    rays = np.empty(n, dtype=mq._RAY_DTYPE)
    rays["origin"], rays["dir"], rays["tmin"], rays["tmax"] = o, d, 0, np.inf
    q = lib.mq_default_ray_query()
    hits = np.empty(n, dtype=np.dtype(C.MqHit))
    flags = np.empty(n, dtype=np.bool_)
    phits = np.empty(n, dtype=np.dtype(C.MqPointHit))
    dist = np.empty(n, dtype=np.float32)
    counts = np.empty(n, dtype=np.uint64)
    shapes = mq.spheres(pts, radii)
    _, sptr, skeep = shapes._packed(False)
    h = bvh.handle
    def fresh(dtype, call):  # the C batch into new memory
        return lambda: call(np.empty(n, dtype=dtype))

    cases = [
        ("raycast", lambda: lib.mq_bvh_raycast_closest_batch(h, ptr(rays), n, ctypes.byref(q), th, ptr(hits)),
         lambda: bvh.raycast(o, d, threads=th)),
        ("occluded", lambda: lib.mq_bvh_raycast_any_batch(h, ptr(rays), n, ctypes.byref(q), th, ptr(flags)),
         lambda: bvh.occluded(o, d, threads=th)),
        ("closest_points", lambda: lib.mq_bvh_closest_point_batch(h, ptr(pts), n, np.inf, th, ptr(phits), ptr(flags)),
         lambda: bvh.closest_points(pts, threads=th)),
        ("contains", lambda: lib.mq_bvh_inside_batch(h, ptr(pts), n, th, ptr(flags)),
         lambda: bvh.contains(pts, threads=th)),
        ("signed_distance", lambda: lib.mq_bvh_signed_distance_batch(h, ptr(pts), n, th, ptr(dist), None),
         lambda: bvh.signed_distance(pts, threads=th)),
        ("overlap_counts", lambda: lib.mq_bvh_overlap_count_batch(h, sptr, n, th, ptr(counts)),
         lambda: bvh.overlap_counts(mq.spheres(pts, radii), threads=th)),
    ]
    print("meshquery %s, %s (%d triangles), %d items per batch, %d thread(s), best of %d" % (
        mq.version(), os.path.basename(a.mesh), mesh.triangle_count, n, th, a.repeat))
    fresh_calls = {
        "raycast": fresh(np.dtype(C.MqHit),
                         lambda out: lib.mq_bvh_raycast_closest_batch(h, ptr(rays), n, ctypes.byref(q), th, ptr(out))),
        "occluded": fresh(np.bool_, lambda out: lib.mq_bvh_raycast_any_batch(h, ptr(rays), n, ctypes.byref(q), th,
                                                                             ptr(out))),
        "closest_points": fresh(np.dtype(C.MqPointHit), lambda out: lib.mq_bvh_closest_point_batch(
            h, ptr(pts), n, np.inf, th, ptr(out), ptr(flags))),
        "contains": fresh(np.bool_, lambda out: lib.mq_bvh_inside_batch(h, ptr(pts), n, th, ptr(out))),
        "signed_distance": fresh(np.float32, lambda out: lib.mq_bvh_signed_distance_batch(h, ptr(pts), n, th,
                                                                                            ptr(out), None)),
        "overlap_counts": fresh(np.uint64, lambda out: lib.mq_bvh_overlap_count_batch(h, sptr, n, th, ptr(out))),
    }
    print("%-16s %9s %9s %9s %8s %9s" % ("batch", "C s", "C new s", "Python s", "C/Py", "C new/Py"))
    for name, cfn, pyfn in cases:
        if a.only and name not in a.only.split(","):
            continue
        tc, tn, tp = best(cfn, a.repeat), best(fresh_calls[name], a.repeat), best(pyfn, a.repeat)
        print("%-16s %9.3f %9.3f %9.3f %7.1f%% %8.1f%%" % (name, tc, tn, tp, 100.0 * tc / tp, 100.0 * tn / tp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
