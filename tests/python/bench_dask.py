"""Scaling of meshquery.dask.raycast from 1 to 2 worker processes.

    python3 tests/python/bench_dask.py [--rays 10000000] [--chunk 250000] [--mesh data/stanford-bunny.obj]

Saves the mesh's BVH, then on a LocalCluster of 1 and then 2 worker
processes (1 thread each, C batches on 1 thread) casts the same N random
rays (each chunk drawn by one task, on the worker that then casts it, so no
ray crosses the network) and reduces the answers on the workers (hit count,
sum of t). Each
configuration runs once to warm up (imports, mapping the file) and then
--repeat times, each on new rays (a new seed: a repeated graph would find its
results still held by the cluster); the median time is printed, with rays per
second and the speed-up. The answers of both configurations must be equal.
"""
import argparse
import os
import sys
import tempfile
import time

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster

import meshquery as mq
import meshquery.dask as mqd

HERE = os.path.dirname(os.path.abspath(__file__))


def _chunk_rays(lo, hi, seed, block_id=None):
    """One chunk of random rays as an (n, 6) float32 array: origins in a box
    three times the mesh's size around its centre, directions towards points
    of its bounding box; the chunk's seed and index choose the rays."""
    n = seed.shape[0]
    rng = np.random.default_rng([int(seed[0]), block_id[0]])
    c, r = (lo + hi) / 2, float(np.max(hi - lo))
    out = np.empty((n, 6), dtype=np.float32)
    out[:, :3] = c + rng.uniform(-1.5, 1.5, size=(n, 3)) * r
    out[:, 3:] = rng.uniform(0.0, 1.0, size=(n, 3)) * (hi - lo) + lo - out[:, :3]
    return out


def rays(n, chunk, lo, hi, seed):
    # Each chunk's rays are drawn by one task on the worker that casts them:
    # no ray crosses the network, and the graph holds one task per chunk.
    seeds = da.full((n,), seed, dtype=np.int64, chunks=chunk)
    r = da.map_blocks(_chunk_rays, lo, hi, seeds[:, None], dtype=np.float32, chunks=(seeds.chunks[0], (6,)))
    return r[:, :3], r[:, 3:]


def run(workers, path, n, chunk, lo, hi, repeat):
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        ow, dw = rays(4 * chunk, chunk, lo, hi, 1)  # warm-up: imports and the mapping on every worker
        client.compute(mqd.raycast(path, ow, dw, chunk=chunk).t.sum(), sync=True)
        times, results = [], []
        for k in range(repeat):
            # A new seed per run: the same graph again would have the same keys,
            # whose results the cluster may still hold, and time nothing.
            o, d = rays(n, chunk, lo, hi, 26 + k)
            hits = mqd.raycast(path, o, d, chunk=chunk, threads=1)
            hit = hits.triangle != mq.NO_TRIANGLE
            answer = (hit.sum(), da.where(hit, hits.t, 0).astype(np.float64).sum())
            t0 = time.perf_counter()
            results.append(tuple(float(x) for x in client.compute(answer, sync=True)))
            times.append(time.perf_counter() - t0)
        return sorted(times)[len(times) // 2], results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rays", type=int, default=10_000_000)
    ap.add_argument("--chunk", type=int, default=250_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mesh", default=os.path.join(HERE, "..", "..", "data", "stanford-bunny.obj"))
    a = ap.parse_args()
    mesh = mq.load_obj(a.mesh)
    lo, hi = (np.array(x) for x in mesh.bounds())
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.mqh")
        mq.BVH(mesh).save(path)
        print("meshquery %s, %s (%d triangles), %d rays in chunks of %d" % (
            mq.version(), os.path.basename(a.mesh), mesh.triangle_count, a.rays, a.chunk))
        times = {}
        for workers in (1, 2):
            t, result = run(workers, path, a.rays, a.chunk, lo, hi, a.repeat)
            times[workers] = (t, result)
            print("%d worker(s): %.2f s  %.2f Mrays/s  hits %d  sum t %.6g (first run)" % (
                workers, t, a.rays / t / 1e6, result[0][0], result[0][1]))
        if times[1][1] != times[2][1]:
            print("answers differ between 1 and 2 workers", file=sys.stderr)
            return 1
        print("speed-up 1 -> 2 workers: %.2fx" % (times[1][0] / times[2][0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
