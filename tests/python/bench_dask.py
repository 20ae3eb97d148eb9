"""Scaling of meshquery.dask.raycast from 1 to 2 worker processes.

    python3 tests/python/bench_dask.py [--rays 10000000] [--chunk 1000000] [--repeat 5]
                                       [--mesh data/stanford-bunny.obj] [--profiler]

Saves the mesh's BVH and starts two LocalClusters, of 1 and of 2 worker
processes (1 thread each, C batches on 1 thread). Each casts N random rays
(each chunk drawn by one task, on the worker that then casts it, so no ray
crosses the network) and reduces the answers on the workers (hit count, sum
of t). After a warm-up on each (imports, mapping the file), the two clusters
take turns --repeat times, both on the same new rays each turn (a new seed:
a repeated graph would find its results still held by the cluster); the
medians are printed, with rays per second and the speed-up. The answers of
both clusters must be equal. The workers' statistical profiler (on by
default in Dask, a stack sample every 10 ms) is turned off, as for any
compute-bound batch, unless --profiler.
"""
import argparse
import os
import sys
import tempfile
import time

import dask
import dask.array as da
import numpy as np
from distributed import Client, LocalCluster

import meshquery as mq
import meshquery.dask as mqd

HERE = os.path.dirname(os.path.abspath(__file__))


def _chunk_rays(lo, hi, seed, block_id=None):
    """One chunk of random rays as a (2, n, 3) float32 array, origins then
    directions: origins in a box three times the mesh's size around its
    centre, directions towards points of its bounding box; the chunk's seed
    and index choose the rays. Drawn in float32 and in place, each half
    contiguous (the task is mostly memory traffic)."""
    n = seed.shape[1]
    rng = np.random.default_rng([int(seed[0, 0, 0]), block_id[1]])
    lo, hi = lo.astype(np.float32), hi.astype(np.float32)
    r = np.float32(np.max(hi - lo))
    out = rng.random((2, n, 3), dtype=np.float32)
    o, d = out[0], out[1]
    o *= 3 * r
    o += (lo + hi) / 2 - 1.5 * r
    d *= hi - lo
    d += lo
    d -= o
    return out


def rays(n, chunk, lo, hi, seed):
    # Each chunk's rays are drawn by one task on the worker that casts them:
    # no ray crosses the network, and the graph holds one task per chunk.
    seeds = da.full((1, n, 1), seed, dtype=np.int64, chunks=(1, chunk, 1))
    r = da.map_blocks(_chunk_rays, lo, hi, seeds, dtype=np.float32, chunks=((2,), seeds.chunks[1], (3,)))
    return r[0], r[1]


def cast(client, path, n, chunk, lo, hi, seed):
    """Seconds to cast n new rays (drawn from `seed`) and reduce them, and the answer."""
    o, d = rays(n, chunk, lo, hi, seed)
    hits = mqd.raycast(path, o, d, chunk=chunk, threads=1)
    hit = hits.triangle != mq.NO_TRIANGLE
    answer = (hit.sum(), da.where(hit, hits.t, 0).astype(np.float64).sum())
    t0 = time.perf_counter()
    result = tuple(float(x) for x in client.compute(answer, sync=True))
    return time.perf_counter() - t0, result


def run(path, n, chunk, lo, hi, repeat):
    """Medians over `repeat` alternating runs on a 1-worker and a 2-worker
    cluster (both up throughout; the idle one only keeps its heartbeats),
    and the answers of each."""
    clusters = {w: LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=":0")
                for w in (1, 2)}
    try:
        clients = {w: Client(c) for w, c in clusters.items()}
        for w, client in clients.items():  # warm-up: imports and the mapping on every worker
            cast(client, path, 4 * chunk * w, chunk, lo, hi, 1)
        times, results = {1: [], 2: []}, {1: [], 2: []}
        for k in range(repeat):
            # A new seed per run: the same graph again would have the same keys,
            # whose results the cluster may still hold, and time nothing. Both
            # cluster sizes cast the same rays.
            for w in ((1, 2) if k % 2 == 0 else (2, 1)):
                t, result = cast(clients[w], path, n, chunk, lo, hi, 26 + k)
                times[w].append(t)
                results[w].append(result)
        for c in clients.values():
            c.close()
        return {w: sorted(t)[len(t) // 2] for w, t in times.items()}, results
    finally:
        for c in clusters.values():
            c.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rays", type=int, default=10_000_000)
    ap.add_argument("--chunk", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--mesh", default=os.path.join(HERE, "..", "..", "data", "stanford-bunny.obj"))
    ap.add_argument("--profiler", action="store_true",
                    help="keep the workers' statistical profiler on (Dask's default; it samples every 10 ms)")
    a = ap.parse_args()
    mesh = mq.load_obj(a.mesh)
    lo, hi = (np.array(x) for x in mesh.bounds())
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.mqh")
        mq.BVH(mesh).save(path)
        print("meshquery %s, %s (%d triangles), %d rays in chunks of %d" % (
            mq.version(), os.path.basename(a.mesh), mesh.triangle_count, a.rays, a.chunk))
        with dask.config.set({"distributed.worker.profile.enabled": a.profiler}):
            times, results = run(path, a.rays, a.chunk, lo, hi, a.repeat)
        for w in (1, 2):
            print("%d worker(s): median %.2f s  %.2f Mrays/s  hits %d  sum t %.6g (first run)" % (
                w, times[w], a.rays / times[w] / 1e6, results[w][0][0], results[w][0][1]))
        if results[1] != results[2]:
            print("answers differ between 1 and 2 workers", file=sys.stderr)
            return 1
        print("speed-up 1 -> 2 workers: %.2fx (median of %d alternating runs each)" % (times[1] / times[2], a.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
