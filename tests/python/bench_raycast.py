#!/usr/bin/env python3
"""Batch raycast throughput from Python (meshquery binding) against the C tools
on the same rays. Not a test: run by hand, figures go in docs/performance.md ("Python").

  MESHQUERY_LIBRARY=build/libmeshquery.so PYTHONPATH=tools/python \\
      python3 tests/python/bench_raycast.py data/stanford-bunny.obj --tools build [--count 1000000]

Writes the rays to a .rays file (docs/formats.md), times BVH.raycast on 1 thread and
on all cores (packing the N x 3 inputs and unpacking the hits included), then
runs `mq-bench rays --rays FILE` and `mq-pick --rays FILE --out x.hits --timing`
on that file, and trimesh's ray API when trimesh is importable.
"""
import argparse
import math
import os
import random
import subprocess
import sys
import tempfile
import time

import meshquery as mq


def incoherent_rays(mesh, n, seed=7):
    lo, hi = mesh.bounds()
    c = [(a + b) / 2 for a, b in zip(lo, hi)]
    r = math.sqrt(sum((b - a) ** 2 for a, b in zip(lo, hi)))
    if mq.HAS_NUMPY:
        import numpy as np
        rng = np.random.default_rng(seed)
        d = rng.normal(size=(n, 3))
        d /= np.linalg.norm(d, axis=1)[:, None]
        o = np.asarray(c) + d * r
        t = rng.uniform(lo, hi, size=(n, 3))
        return o.astype(np.float32), (t - o).astype(np.float32)
    rng = random.Random(seed)
    o, dd = [], []
    for _ in range(n):
        v = [rng.gauss(0, 1) for _ in range(3)]
        s = math.sqrt(sum(x * x for x in v))
        oo = [c[k] + v[k] / s * r for k in range(3)]
        t = [rng.uniform(lo[k], hi[k]) for k in range(3)]
        o.append(oo)
        dd.append([t[k] - oo[k] for k in range(3)])
    return o, dd


def write_rays(path, o, d):
    import struct
    with open(path, "wb") as f:
        for i in range(len(o)):
            f.write(struct.pack("<8f", *o[i][:3], 0.0, *d[i][:3], math.inf))


def best_of(fn, reps, clock=time.perf_counter):
    best = math.inf
    for _ in range(reps):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mesh")
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--tools", default="build", help="directory with mq-bench and mq-pick")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()

    mesh = mq.load_obj(a.mesh)
    bvh = mq.BVH(mesh)
    o, d = incoherent_rays(mesh, a.count)
    print("meshquery %s, %s, %d triangles, %d incoherent rays, NumPy: %s" % (
        mq.version(), os.path.basename(a.mesh), mesh.triangle_count, a.count, mq.HAS_NUMPY))
    ncpu = os.cpu_count()
    # Like mq-bench: one thread timed in process CPU time (time-slicing with other
    # programs on a shared machine does not count), several threads in wall time.
    for threads in (1, 0):
        secs = best_of(lambda: bvh.raycast(o, d, threads=threads), a.reps)
        cpu = best_of(lambda: bvh.raycast(o, d, threads=threads), a.reps, time.process_time) if threads == 1 else 0
        hits = bvh.raycast(o, d, threads=threads)
        nhit = int(sum(bool(x) for x in hits.hit)) if not mq.HAS_NUMPY else int(hits.hit.sum())
        print("python BVH.raycast   threads=%-3s %8.2f Mrays/s wall%s  (%d hits)" % (
            threads or ncpu, a.count / secs / 1e6, ", %.2f Mrays/s CPU time" % (a.count / cpu / 1e6) if cpu else "",
            nhit))

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "incoherent.rays")
        if mq.HAS_NUMPY:
            import numpy as np
            rays = np.zeros((a.count, 8), dtype=np.float32)
            rays[:, 0:3], rays[:, 4:7], rays[:, 7] = o, d, np.inf
            rays.tofile(path)
        else:
            write_rays(path, o, d)
        bench = os.path.join(a.tools, "mq-bench")
        if os.path.exists(bench):
            for threads in (1, ncpu):
                out = subprocess.run([bench, "rays", a.mesh, "--rays", path, "--threads", str(threads),
                                      "--no-embree", "--json"], capture_output=True, text=True).stdout
                for line in out.splitlines():
                    if '"throughput"' in line and '"meshquery"' in line:
                        print("mq-bench rays        threads=%-3s %s" % (threads, line))
        pick = os.path.join(a.tools, "mq-pick")
        if os.path.exists(pick):
            for threads in (1, ncpu):
                t0 = time.perf_counter()
                r = subprocess.run([pick, a.mesh, "--rays", path, "--out", os.path.join(tmp, "x.hits"),
                                    "--threads", str(threads), "--timing"], capture_output=True, text=True)
                wall = time.perf_counter() - t0
                print("mq-pick --rays       threads=%-3s wall %.3f s (%.2f Mrays/s incl. load+build+IO); %s" % (
                    threads, wall, a.count / wall / 1e6, " ".join(r.stderr.split())))
    try:
        import trimesh  # noqa: F401
    except ImportError:
        print("trimesh: not installed (no comparison)")
        return
    import numpy as np
    tm = trimesh.Trimesh(vertices=mesh.positions, faces=mesh.indices, process=False)
    n = min(a.count, 100_000)
    secs = best_of(lambda: tm.ray.intersects_first(np.asarray(o[:n]), np.asarray(d[:n])), 1)
    print("trimesh intersects_first          %8.2f Mrays/s (%s)" % (n / secs / 1e6, type(tm.ray).__name__))


if __name__ == "__main__":
    sys.exit(main())
