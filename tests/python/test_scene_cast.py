"""Scene shape casts in Python (scene.h "Shape casts"): Scene.shape_casts (one
C batch) and Scene.shape_cast against brute force over the instances with the
per-mesh casts (BVH.sphere_cast / capsule_cast / convex_cast), each instance's
cast mapped into its mesh frame by hand (rotation, uniform scale,
translation: t is unchanged); masks, misses, boxes rejected, batch == single.
Runs with NumPy and, when MESHQUERY_NO_NUMPY=1, with lists. Environment as
test_meshquery.py (MQ_DATA_DIR, MQ_REQUIRE_NUMPY)."""
import math
import os
import random
import sys
import unittest

import meshquery as mq

DATA = os.environ.get("MQ_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "data"))
SPOT = os.path.join(DATA, "spot.obj")


def L(x):
    x = x.tolist() if hasattr(x, "tolist") else list(x)
    return [tuple(r) if isinstance(r, list) else r for r in x]


def rot_matrix(q):
    w, x, y, z = q
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


def to_local(inst, p, point=True):
    """World point (or vector) into the instance's mesh frame: R^T (p - T) / s."""
    r, t, s = inst
    d = [p[k] - (t[k] if point else 0.0) for k in range(3)]
    return tuple(sum(r[k][i] * d[k] for k in range(3)) / s for i in range(3))


class SceneCasts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rng = random.Random(25)
        cls.mesh = mq.load_obj(SPOT)
        cls.bvh = mq.BVH(cls.mesh)
        cls.obb = mq.OBBTree(cls.mesh)
        cls.scene = mq.Scene()
        cls.inst = []  # (R, T, s) per instance id
        cls.masks = []
        for i in range(6):
            q = [rng.uniform(-1, 1) for _ in range(4)]
            t = (rng.uniform(-4, 4), rng.uniform(-4, 4), rng.uniform(-4, 4))
            s = rng.uniform(0.6, 1.6)
            mask = 1 << (i % 2)
            iid = cls.scene.add(cls.bvh if i % 2 == 0 else cls.obb, translation=t, rotation=q, scale=s,
                                user_id=100 + i, mask=mask)
            assert iid == i
            cls.inst.append((rot_matrix(q), t, s))
            cls.masks.append(mask)
        cls.scene.commit()
        cls.hull = mq.Convex([(x, y, z) for x in (-0.1, 0.1) for y in (-0.1, 0.15) for z in (-0.05, 0.1)])

    def oracle(self, kind, params, d, tmax, mask):
        """Smallest t over instances with the per-mesh casts in each mesh frame."""
        best = (math.inf, None)
        for i, inst in enumerate(self.inst):
            if not self.masks[i] & mask:
                continue
            s = inst[2]
            dl = to_local(inst, d, point=False)
            if kind == "sphere":
                h = self.bvh.sphere_cast(to_local(inst, params[0]), params[1] / s, dl, tmax)
            else:
                h = self.bvh.capsule_cast(to_local(inst, params[0]), to_local(inst, params[1]), params[2] / s, dl,
                                          tmax)
            if h is not None and h.t < best[0]:
                best = (h.t, i)
        return best

    def test_against_per_mesh_casts(self):
        rng = random.Random(7)
        cases = []
        for n in range(60):
            start = tuple(rng.uniform(-9, 9) for _ in range(3))
            aim = self.inst[rng.randrange(len(self.inst))][1]
            d = tuple(aim[k] + rng.uniform(-0.5, 0.5) - start[k] for k in range(3))
            if n % 2 == 0:
                cases.append(("sphere", (start, rng.uniform(0.02, 0.3)), d))
            else:
                b = tuple(start[k] + rng.uniform(-0.3, 0.3) for k in range(3))
                cases.append(("capsule", (start, b, rng.uniform(0.02, 0.2)), d))
        for mask in (0xFFFFFFFF, 1, 2):
            spheres = [c for c in cases if c[0] == "sphere"]
            capsules = [c for c in cases if c[0] == "capsule"]
            shapes = (mq.spheres([c[1][0] for c in spheres], [c[1][1] for c in spheres]) +
                      mq.capsules([c[1][0] for c in capsules], [c[1][1] for c in capsules],
                                  [c[1][2] for c in capsules]))
            dirs = [c[2] for c in spheres + capsules]
            hits = self.scene.shape_casts(shapes, dirs, tmax=1.5, mask=mask, threads=2)
            self.assertEqual(len(hits), len(dirs))
            ts, inst, hit = L(hits.t), L(hits.instance), L(hits.hit)
            nhit = 0
            for j, c in enumerate(spheres + capsules):
                t, i = self.oracle(c[0], c[1], c[2], 1.5, mask)
                self.assertEqual(hit[j], i is not None, (j, c, ts[j], t))
                if i is None:
                    self.assertTrue(math.isinf(ts[j]))
                    self.assertEqual(inst[j], 0xFFFFFFFF)
                    continue
                nhit += 1
                self.assertLess(abs(ts[j] - t), 1e-4, (j, c, ts[j], t))
                self.assertTrue(self.masks[inst[j]] & mask)
            self.assertGreater(nhit, 10)

    def test_single_equals_batch(self):
        centres = [(-9.0, 0.0, 0.0), (0.0, 9.0, 0.5), (30.0, 30.0, 30.0)]
        dirs = [(9.0, 0.0, 0.0), (0.0, -9.0, 0.0), (1.0, 0.0, 0.0)]
        hits = self.scene.shape_casts(mq.spheres(centres, 0.2), dirs, tmax=2.0)
        ts, inst, tri, pts = L(hits.t), L(hits.instance), L(hits.triangle), L(hits.point)
        for j in range(3):
            one = self.scene.shape_cast(mq.sphere(centres[j], 0.2), dirs[j], tmax=2.0)
            if one is None:
                self.assertFalse(L(hits.hit)[j])
                continue
            self.assertEqual(one["t"], ts[j])
            self.assertEqual(one["instance"], inst[j])
            self.assertEqual(one["triangle"], tri[j])
            self.assertEqual(one["point"], tuple(pts[j]))
            self.assertEqual(one["user_id"], 100 + inst[j])
        self.assertIsNone(self.scene.shape_cast(mq.sphere(centres[2], 0.2), dirs[2], tmax=2.0))

    def test_convex_and_boxes(self):
        # a placed hull dropped onto instance 0 from above, vs the per-mesh convex cast of the
        # same hull placed in instance 0's mesh frame
        r, t, s = self.inst[0]
        start = (t[0], t[1], t[2] + 6.0)
        shape = mq.convexes([self.hull], [start])
        hit = self.scene.shape_cast(shape, (0.0, 0.0, -1.0), tmax=12.0, mask=1)
        self.assertIsNotNone(hit)
        self.assertEqual(hit["instance"] % 2, 0)
        local = mq.Convex([to_local(self.inst[0], (start[0] + p[0], start[1] + p[1], start[2] + p[2]))
                           for p in [(x, y, z) for x in (-0.1, 0.1) for y in (-0.1, 0.15) for z in (-0.05, 0.1)]])
        ref = self.bvh.convex_cast(local, to_local(self.inst[0], (0.0, 0.0, -1.0), point=False), 12.0)
        if hit["instance"] == 0:
            self.assertIsNotNone(ref)
            self.assertLess(abs(ref.t - hit["t"]), 1e-4)
        else:
            self.assertTrue(ref is None or ref.t >= hit["t"] - 1e-4)
        batch = self.scene.shape_casts(shape, [(0.0, 0.0, -1.0)], tmax=12.0, mask=1)
        self.assertEqual(L(batch.t)[0], hit["t"])
        # boxes are rejected
        box = mq.aabb((-100.0, -100.0, -100.0), (100.0, 100.0, 100.0))
        self.assertTrue(self.scene.overlap_any(box))
        self.assertIsNone(self.scene.shape_cast(box, (0.0, 0.0, 1.0), 1.0))
        self.assertFalse(L(self.scene.shape_casts(box, [(0.0, 0.0, 1.0)], 1.0).hit)[0])
        # invalid input misses; mismatched counts raise
        self.assertIsNone(self.scene.shape_cast(mq.sphere(start, 0.1), (math.nan, 0.0, 0.0), 1.0))
        self.assertIsNone(self.scene.shape_cast(mq.sphere(start, 0.1), (0.0, 0.0, -1.0), -1.0))
        with self.assertRaises(ValueError):
            self.scene.shape_casts(mq.spheres([start, start], 0.1), [(0.0, 0.0, 1.0)])
        self.assertEqual(len(self.scene.shape_casts(mq.spheres([], []), [])), 0)
        self.assertTrue(mq.Scene.shape_casts.__doc__ and mq.Scene.shape_cast.__doc__)


if __name__ == "__main__":
    if os.environ.get("MQ_REQUIRE_NUMPY") == "1" and not mq.HAS_NUMPY:
        print("NumPy is not importable by %s: this NumPy test FAILS (install python3-numpy, "
              "or configure with -DMQ_PYTHON_NUMPY=/path/to/python3)" % sys.executable, file=sys.stderr)
        sys.exit(1)
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[1:])
