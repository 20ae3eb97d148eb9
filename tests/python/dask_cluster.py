"""meshquery.dask on a distributed LocalCluster of 2 worker processes: every
call's answers equal, entry for entry, the C batch in this process; a worker
killed while holding finished chunks costs nothing but their recomputation.

Environment: MQ_DATA_DIR, MESHQUERY_LIBRARY (inherited by the workers)."""
import math
import os
import signal
import sys
import tempfile
import time
import unittest

import numpy as np
from distributed import Client, LocalCluster, as_completed, futures_of

import meshquery as mq
import meshquery.dask as mqd

DATA = os.environ.get("MQ_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "data"))


def same(a, b):
    """Equal arrays, NaN equal to NaN (bitwise for floats)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f":
        return a.shape == b.shape and a.tobytes() == b.tobytes()
    return a.shape == b.shape and bool((a == b).all())


class DaskCluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.mesh = mq.load_obj(os.path.join(DATA, "stanford-bunny.obj"))
        cls.bvh = mq.BVH(cls.mesh)
        cls.path = os.path.join(cls.tmp.name, "bunny.mqh")
        cls.bvh.save(cls.path)
        cls.tree = mq.OBBTree(cls.mesh)
        cls.tree_path = os.path.join(cls.tmp.name, "bunny-obb.mqh")
        cls.tree.save(cls.tree_path)
        lo, hi = (np.array(x) for x in cls.mesh.bounds())
        rng = np.random.default_rng(26)
        n = 120000
        c, r = (lo + hi) / 2, float(np.max(hi - lo))
        cls.origins = (c + rng.uniform(-1.5, 1.5, (n, 3)) * r).astype(np.float32)
        cls.dirs = (rng.uniform(lo, hi, (n, 3)) - cls.origins).astype(np.float32)
        cls.dirs[::7] *= -1  # some misses
        cls.points = rng.uniform(lo - 0.2 * r, hi + 0.2 * r, (20000, 3)).astype(np.float32)
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        cls.client = Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        cls.tmp.cleanup()

    def test_raycast_equals_the_c_batch(self):
        want = self.bvh.raycast(self.origins, self.dirs)
        hits = mqd.raycast(self.path, self.origins, self.dirs, chunk=7000)
        self.assertEqual(hits.t.shape, (len(self.origins),))
        self.assertEqual(hits.triangle.shape, (len(self.origins),))
        got = dict(zip(hits.fields, hits.compute()))
        for f in ("t", "triangle", "u", "v", "point", "normal"):
            self.assertTrue(same(got[f], getattr(want, f)), f)
        self.assertTrue(same(hits.t.compute(), want.t))  # one field alone, under the client
        some = mqd.raycast(self.path, self.origins, self.dirs, chunk=7000, fields=("triangle", "t"))
        self.assertEqual(some.fields, ["triangle", "t"])
        triangle, t = some.compute()
        self.assertTrue(same(triangle, want.triangle) and same(t, want.t))
        self.assertTrue(same(mqd.raycast(self.path, self.origins, self.dirs, fields="normal").normal.compute(),
                             want.normal))
        for bad in ("face", ("t", "t"), ()):
            with self.assertRaises(ValueError):
                mqd.raycast(self.path, self.origins, self.dirs, fields=bad)
        self.assertGreater(int(want.hit.sum()), 1000)
        self.assertLess(int(want.hit.sum()), len(self.origins))
        # Dask inputs with their own chunks, and the OBB tree's saved file
        import dask.array as da
        o, d = da.from_array(self.origins, chunks=5000), da.from_array(self.dirs, chunks=9000)
        tri = mqd.raycast(self.tree_path, o, d).triangle.compute()
        self.assertTrue(same(tri, self.tree.raycast(self.origins, self.dirs).triangle))
        self.assertTrue(same(mqd.occluded(self.path, o, d).compute(), self.bvh.occluded(self.origins, self.dirs)))

    def test_points_and_shapes_equal_the_c_batch(self):
        want = self.bvh.closest_points(self.points, max_distance=0.01)
        got = mqd.closest_points(self.path, self.points, max_distance=0.01, chunk=3000)
        for f, arr in zip(got.fields, got.compute()):
            self.assertTrue(same(arr, getattr(want, f)), f)
        self.assertTrue(same(mqd.signed_distance(self.path, self.points, chunk=3000).compute(),
                             self.bvh.signed_distance(self.points)))
        shapes = mq.spheres(self.points[:5000], 0.01) + mq.aabbs(self.points[:5000], self.points[:5000] + 0.01)
        self.assertTrue(same(mqd.overlap_counts(self.path, shapes, chunk=1000).compute(),
                             self.bvh.overlap_counts(shapes)))
        with self.assertRaises(ValueError):
            mqd.overlap_counts(self.path, mq.Convex(self.points[:10]).shape())

    def test_scene_description_equals_the_c_batch(self):
        instances = [{"file": self.path, "user_id": 5},
                     {"file": self.tree_path, "translation": (0.3, 0.0, 0.0), "rotation": (0.8, 0.0, 0.6, 0.0),
                      "scale": 1.5, "user_id": 6, "mask": 2}]
        local = mq.Scene()
        local.add(self.bvh, user_id=5)
        local.add(self.tree, translation=(0.3, 0.0, 0.0), rotation=(0.8, 0.0, 0.6, 0.0), scale=1.5, user_id=6,
                  mask=2)
        local.commit()
        o, d = self.origins.astype(np.float64), self.dirs.astype(np.float64)
        want = local.raycast(o, d)
        got = mqd.scene_raycast(instances, o, d, chunk=10000)
        for f, arr in zip(got.fields, got.compute()):
            self.assertTrue(same(arr, getattr(want, f)), f)
        self.assertEqual(set(np.unique(want.instance)), {0, 1, mq.NO_INSTANCE})
        self.assertTrue(same(mqd.scene_occluded(instances, o, d, mask=1, chunk=10000).compute(),
                             local.occluded(o, d, mask=1)))

    def test_a_killed_worker_recomputes_its_chunks(self):
        want = self.bvh.raycast(self.origins, self.dirs)
        hits = mqd.raycast(self.path, self.origins, self.dirs, chunk=3000).persist()
        futures = futures_of(hits.array)
        self.assertEqual(len(futures), 40)
        done = as_completed(futures)
        for _ in range(3):  # let some chunks finish, then kill a worker that holds one
            next(done)
        held = self.client.who_has(futures)
        victim = next(ws[0] for ws in held.values() if ws)
        lost = sum(1 for ws in held.values() if victim in ws)
        self.assertGreater(lost, 0)
        pid = self.client.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)
        got = dict(zip(hits.fields, hits.compute()))
        self.assertTrue(same(got["t"], want.t))
        self.assertTrue(same(got["triangle"], want.triangle))
        deadline = time.monotonic() + 20  # the nanny restarts the worker
        while len(self.client.scheduler_info()["workers"]) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertNotIn(victim, self.client.scheduler_info()["workers"])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[1:])
