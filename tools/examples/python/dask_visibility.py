#!/usr/bin/env python3
"""A visibility batch on Dask: which sample points of the ground are seen from a light?

    python3 dask_visibility.py [mesh.obj] [--points 200000] [--workers 2] [--scheduler tcp://host:8786]

Saves the mesh's BVH to a file, then asks meshquery.dask for the any-hit
answer of one shadow ray per ground point (from the point to a light above
the mesh), chunk by chunk on the workers of a Dask cluster: a LocalCluster
of --workers processes, or the scheduler given by --scheduler (then the
saved file must be on storage every worker sees: --save PATH). Checks the
answers against the C batch in this process and prints the lit fraction.
"""
import argparse
import os
import sys
import tempfile

import numpy as np
from distributed import Client, LocalCluster

import meshquery as mq
import meshquery.dask as mqd

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mesh", nargs="?", default=os.path.join(HERE, "..", "..", "..", "data", "spot.obj"))
    ap.add_argument("--points", type=int, default=200_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scheduler", help="address of a running dask scheduler (default: a LocalCluster)")
    ap.add_argument("--save", help="where to save the hierarchy (default: a temporary file)")
    a = ap.parse_args()
    mesh = mq.load_obj(a.mesh)
    bvh = mq.BVH(mesh)
    lo, hi = (np.array(x) for x in mesh.bounds())
    size = float(np.max(hi - lo))
    rng = np.random.default_rng(3)
    ground = np.column_stack([rng.uniform(lo[0] - size, hi[0] + size, a.points), np.full(a.points, lo[1]),
                              rng.uniform(lo[2] - size, hi[2] + size, a.points)]).astype(np.float32)
    light = np.array([(lo[0] + hi[0]) / 2 + 0.3 * size, hi[1] + 2 * size, (lo[2] + hi[2]) / 2], dtype=np.float32)
    dirs = (light - ground).astype(np.float32)  # t in [1e-4, 1]: from just above the point to the light
    with tempfile.TemporaryDirectory() as tmp:
        path = a.save or os.path.join(tmp, "visibility.mqh")
        bvh.save(path)
        cluster = None if a.scheduler else LocalCluster(n_workers=a.workers, threads_per_worker=1,
                                                        dashboard_address=None)
        with Client(a.scheduler or cluster) as client:
            shadow = mqd.occluded(path, ground, dirs, tmin=1e-4, tmax=1.0, chunk=25_000)
            got = shadow.compute()
            print("%d workers, %d chunks" % (len(client.scheduler_info()["workers"]), shadow.numblocks[0]))
        if cluster is not None:
            cluster.close()
    want = bvh.occluded(ground, dirs, tmin=1e-4, tmax=1.0)
    if not np.array_equal(got, want):
        print("the cluster's answers differ from the C batch", file=sys.stderr)
        return 1
    print("%s: %d ground points, %.2f%% in the shadow of the mesh (same answers as the C batch)" % (
        os.path.basename(a.mesh), a.points, 100.0 * got.mean()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
