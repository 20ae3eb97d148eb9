"""Convex hulls as the shape of BVH/OBBTree.shape_distance and
shape_clearance: the distance equals brute force over the triangles
(Convex.triangle_distance on each, the leaf test, so exactly equal), the
reported triangle is at that distance with its witness points, clearance
lists exactly the triangles brute force puts within d, and both trees agree.
Runs with NumPy and, when MESHQUERY_NO_NUMPY=1, with lists. Environment as
test_meshquery.py (MQ_DATA_DIR, MQ_REQUIRE_NUMPY)."""
import math
import os
import random
import unittest

import meshquery as mq

DATA = os.environ.get("MQ_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "data"))
SUZANNE = os.path.join(DATA, "suzanne.obj")


def L(x):
    x = x.tolist() if hasattr(x, "tolist") else list(x)
    return [tuple(r) if isinstance(r, list) else r for r in x]


class ConvexDistance(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mesh = mq.load_obj(SUZANNE)
        pos, idx = L(cls.mesh.positions), L(cls.mesh.indices)
        cls.tris = [[pos[i] for i in t] for t in idx]
        lo, hi = cls.mesh.bounds()
        cls.lo, cls.hi = lo, hi
        cls.size = math.dist(lo, hi)
        cls.trees = (mq.BVH(cls.mesh), mq.OBBTree(cls.mesh))

    def hull(self, rng, centre, radius):
        pts = []
        for _ in range(rng.randint(4, 24)):
            u = [rng.gauss(0, 1) for _ in range(3)]
            n = math.sqrt(sum(x * x for x in u)) or 1.0
            s = radius * rng.random() ** (1 / 3)
            pts.append([centre[k] + s * u[k] / n for k in range(3)])
        return mq.Convex(pts)

    def test_against_brute_force(self):
        rng = random.Random(2511)
        meet = 0
        for i in range(8):
            if i % 2:
                centre = [rng.uniform(self.lo[k] - 0.3 * self.size, self.hi[k] + 0.3 * self.size) for k in range(3)]
            else:
                centre = self.tris[rng.randrange(len(self.tris))][0]
            cv = self.hull(rng, centre, self.size * rng.uniform(0.02, 0.15))
            brute = [cv.triangle_distance(t)["distance"] for t in self.tris]
            best = min(brute)
            meet += best == 0.0
            answers = []
            for tree in self.trees:
                r = tree.shape_distance(cv.shape())
                self.assertIsNotNone(r)
                self.assertEqual(r["distance"], best)
                self.assertEqual(brute[r["triangle"]], best)
                self.assertAlmostEqual(math.dist(r["point_shape"], r["point_mesh"]), best, delta=1e-6 * self.size)
                self.assertLessEqual(cv.closest_point(r["point_shape"])[0], 1e-6 * self.size)
                answers.append(r["distance"])
                d = best + 0.02 * self.size
                got = tree.shape_clearance(cv.shape(), d)
                want = sorted(t for t, x in enumerate(brute) if x <= d)
                self.assertEqual(sorted(L(got.triangle_b)), want)
                for t, x in zip(L(got.triangle_b), L(got.distance)):
                    self.assertEqual(x, brute[t])
                if best > 0.0:
                    self.assertIsNone(tree.shape_distance(cv.shape(), max_distance=best * 0.999))
            self.assertEqual(answers[0], answers[1])
        self.assertTrue(0 < meet < 8)


if __name__ == "__main__":
    unittest.main()
