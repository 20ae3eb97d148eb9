"""Scaling of meshquery.dask.raycast from 1 to 2 worker processes.

    python3 tests/python/bench_dask.py [--rays 10000000] [--chunk 1000000] [--repeat 5]
                                       [--mesh data/stanford-bunny.obj] [--dask-defaults]

Saves the mesh's BVH and starts two LocalClusters, of 1 and of 2 worker
processes (1 thread each, C batches on 1 thread). Each casts N random rays
with meshquery.dask.raycast (fields t and triangle) and reduces the answers
on the workers (hit count, sum of t). Each chunk's rays are drawn, cast and
tallied by one task (blockwise layers that Dask fuses), so no ray crosses
the network. After a warm-up on each (imports, mapping the file), the two clusters
take turns --repeat times, both on the same new rays each turn (a new seed:
a repeated graph would find its results still held by the cluster); the
medians are printed, with rays per second and the speed-up. The answers of
both clusters must be equal. Dask's housekeeping is slowed down as for any
compute-bound batch (QUIET below: no statistical profiler, a 500 ms event
loop tick, slower monitors, no work stealing), unless --dask-defaults.
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

# Dask's housekeeping, slowed down for a compute-bound batch: the statistical
# profiler off (a stack sample every 10 ms), the event loops' health tick at
# 500 ms (20 ms), the system and memory monitors at 5 s and 1 s (500 ms and
# 100 ms), and no work stealing (every chunk costs the same). Idle, they cost
# 16 ms of CPU a second on a 2-worker cluster instead of 76 ms, which the
# workers otherwise lose when both cores compute.
QUIET = {"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "500ms",
         "distributed.admin.system-monitor.interval": "5s", "distributed.worker.memory.monitor-interval": "1s",
         "distributed.scheduler.work-stealing": False}


_BLOCK = 1 << 14  # rays drawn at a time: each block is finished while it is in cache


def _chunk_rays(lo, hi, seed, n, chunk, key):
    """One chunk of random rays as an (m, 6) float32 array, origin then
    direction per row: origins in a box three times the mesh's size around
    its centre, directions towards points of its bounding box. The run's
    seed and the chunk's first row (key[0], of n rows in chunks of `chunk`)
    choose the rays. Drawn a cache-sized block at a time, in contiguous
    scratch arrays (NumPy is slow on 3-wide strided rows), then stored."""
    first = int(key[0])
    m = min(chunk, n - first)
    rng = np.random.default_rng([seed, first])
    lo, hi = lo.astype(np.float32), hi.astype(np.float32)
    r = np.float32(np.max(hi - lo))
    scale, base, span = 3 * r, (lo + hi) / 2 - 1.5 * r, hi - lo
    out = np.empty((m, 6), dtype=np.float32)
    scratch = np.empty((2, min(m, _BLOCK), 3), dtype=np.float32)
    for i in range(0, m, _BLOCK):
        k = min(_BLOCK, m - i)
        o, d = scratch[0, :k], scratch[1, :k]
        rng.random(dtype=np.float32, out=o)
        rng.random(dtype=np.float32, out=d)
        o *= scale
        o += base
        d *= span
        d += lo
        d -= o
        out[i:i + k, :3] = o
        out[i:i + k, 3:] = d
    return out


def _columns(block, first):
    return block[:, first:first + 3]


def rays(n, chunk, lo, hi, seed):
    """Origins and directions of n random rays as two Dask (n, 3) arrays in
    chunks of `chunk` rows. Every layer is blockwise, so Dask fuses the
    drawing of a chunk into the task that casts it: no ray crosses the
    network or is held between tasks."""
    rows = tuple(min(chunk, n - i) for i in range(0, n, chunk))
    keys = da.arange(0, n, chunk, chunks=1)  # each chunk's first row
    both = da.map_blocks(_chunk_rays, lo, hi, seed, n, chunk, keys, dtype=np.float32, chunks=(rows, (6,)),
                         new_axis=1)
    return tuple(both.map_blocks(_columns, first, dtype=np.float32, chunks=(rows, (3,))) for first in (0, 3))


def _tally(t, triangle):
    """A chunk's hit count and sum of t, as a (1, 2) float64 array."""
    hit = triangle != mq.NO_TRIANGLE
    return np.array([[np.count_nonzero(hit), np.sum(t, where=hit, dtype=np.float64)]])


def cast(client, path, n, chunk, lo, hi, seed):
    """Seconds to cast n new rays (drawn from `seed`) and reduce them on the
    workers, and the answer (hits, sum of t)."""
    o, d = rays(n, chunk, lo, hi, seed)
    hits = mqd.raycast(path, o, d, chunk=chunk, threads=1, fields=("t", "triangle"))
    tally = da.map_blocks(_tally, hits.t, hits.triangle, dtype=np.float64,
                          chunks=((1,) * hits.t.numblocks[0], (2,)), new_axis=1)
    t0 = time.perf_counter()
    result = client.compute(tally.sum(axis=0), sync=True)
    return time.perf_counter() - t0, (int(result[0]), float(result[1]))


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
    ap.add_argument("--dask-defaults", action="store_true",
                    help="keep Dask's housekeeping as it comes (profiler, 20 ms tick, monitors, work stealing)")
    a = ap.parse_args()
    mesh = mq.load_obj(a.mesh)
    lo, hi = (np.array(x) for x in mesh.bounds())
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.mqh")
        mq.BVH(mesh).save(path)
        print("meshquery %s, %s (%d triangles), %d rays in chunks of %d" % (
            mq.version(), os.path.basename(a.mesh), mesh.triangle_count, a.rays, a.chunk))
        with dask.config.set({} if a.dask_defaults else QUIET):
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
