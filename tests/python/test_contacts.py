"""Contacts, intersection segments and clashes in Python (contacts.h,
clash.h): BVH / OBBTree.contacts against overlap() and the one-triangle
contact, intersections against collide() and intersect_triangles per pair,
Scene.clash against Scene.distance over every instance pair (brute force over
the pairs), its mask, filter, triangle pairs and errors. Runs with NumPy
and, when MESHQUERY_NO_NUMPY=1, with lists. Environment as
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


def rotate(q, v):
    """v rotated by the unit quaternion q = (w, x, y, z), in double."""
    w, x, y, z = q
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    r = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return tuple(sum(r[i][k] * v[k] for k in range(3)) for i in range(3))


class Contacts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mesh = mq.load_obj(SPOT)
        cls.bvh = mq.BVH(cls.mesh)
        cls.obb = mq.OBBTree(cls.mesh)
        pos, idx = L(cls.mesh.positions), L(cls.mesh.indices)
        cls.tris = [[pos[i] for i in t] for t in idx]

    def test_contacts_are_the_overlaps_with_the_one_triangle_contact(self):
        shapes = [mq.sphere((0.0, 0.5, 0.0), 0.3), mq.capsule((-0.2, 0.4, 0.0), (0.3, 0.6, 0.1), 0.15),
                  mq.aabb((0.0, 0.3, -0.2), (0.3, 0.7, 0.2)),
                  mq.obb((0.1, 0.5, 0.0), (0.2, 0.1, 0.3), quat=(0.9, 0.2, 0.1, 0.3))]
        for tree in (self.bvh, self.obb):
            for s in shapes:
                c = tree.contacts(s)
                tris = L(c.triangle)
                self.assertGreater(len(tris), 0)
                self.assertEqual(tris, L(tree.overlap(s)))  # the same triangles, in the same order
                for k in range(len(c)):
                    row = c.row(k)
                    self.assertGreaterEqual(row["depth"], 0.0)
                    self.assertAlmostEqual(sum(x * x for x in row["normal"]), 1.0, places=9)
                    one = mq.contact(s, self.tris[row["triangle"]])
                    self.assertIsNotNone(one)
                    self.assertAlmostEqual(row["depth"], max(0.0, one["depth"]), places=12)
                    self.assertEqual(row["point_triangle"], one["point_triangle"])
        for tree in (self.bvh, self.obb):
            self.assertEqual(len(tree.contacts(mq.sphere((50.0, 0.0, 0.0), 0.1))), 0)
            self.assertEqual(len(tree.contacts(mq.sphere((0.0, 0.5, 0.0), -1.0))), 0)
            with self.assertRaises(ValueError):
                tree.contacts(mq.sphere((0, 0, 0), 1) + mq.sphere((0, 0, 0), 1))

    def test_one_triangle_contact(self):
        tri = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
        c = mq.contact(mq.sphere((0.25, 0.25, 0.1), 0.3), tri)
        self.assertTrue(c["overlap"])
        self.assertAlmostEqual(c["depth"], 0.2, places=6)
        self.assertEqual(c["normal"], (0.0, 0.0, 1.0))
        apart = mq.contact(mq.sphere((0.25, 0.25, 1.0), 0.3), tri)
        self.assertFalse(apart["overlap"])
        self.assertAlmostEqual(apart["depth"], -0.7, places=6)  # minus the distance for a sphere
        self.assertIsNone(mq.contact(mq.sphere((0.25, 0.25, 1.0), -0.3), tri))
        box = mq.contact(mq.aabb((0.1, 0.1, -0.05), (0.2, 0.2, 0.5)), tri)
        self.assertAlmostEqual(box["depth"], 0.05, places=6)

    def test_intersections_are_the_collide_pairs_with_their_segments(self):
        q, t = (0.95, 0.05, 0.2, 0.1), (0.12, 0.05, 0.0)
        for tree in (self.bvh, self.obb):
            seg = tree.intersections(tree, rotation=q, translation=t)
            pairs = list(zip(L(seg.triangle_a), L(seg.triangle_b)))
            self.assertGreater(len(pairs), 10)
            if tree is self.obb:
                self.assertEqual(pairs, [tuple(p) for p in L(self.obb.collide(self.obb, rotation=q, translation=t))])
            else:  # the BVH's pairs are its clearance pairs at d = 0
                cl = self.bvh.clearance(self.bvh, 0.0, rotation=q, translation=t)
                self.assertEqual(sorted(pairs), sorted(zip(L(cl.triangle_a), L(cl.triangle_b))))
            for k in range(0, len(seg), max(1, len(seg) // 40)):
                row = seg.row(k)
                a = self.tris[row["triangle_a"]]
                b = [tuple(x + y for x, y in zip(rotate(q, v), t)) for v in self.tris[row["triangle_b"]]]
                one = mq.intersect_triangles(a, b)
                if one is None:  # a touching pair decided the other way in double: reported coplanar
                    self.assertTrue(row["coplanar"])
                    continue
                if not row["coplanar"]:
                    for key in ("p0", "p1"):
                        ends = {one["p0"], one["p1"]}
                        self.assertTrue(any(max(abs(x - y) for x, y in zip(row[key], e)) < 1e-5 for e in ends))
        far = self.obb.intersections(self.obb, translation=(10.0, 0.0, 0.0))
        self.assertEqual(len(far), 0)
        with self.assertRaises(TypeError):
            self.bvh.intersections(self.obb)

    def test_intersect_triangles(self):
        a = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
        s = mq.intersect_triangles(a, [(0.2, 0.2, -1), (0.2, 0.2, 1), (0.6, 0.2, 0)])
        self.assertFalse(s["coplanar"])
        ends = sorted([s["p0"], s["p1"]])
        self.assertAlmostEqual(ends[0][0], 0.2, places=6)
        self.assertAlmostEqual(ends[1][0], 0.6, places=6)
        self.assertTrue(all(abs(p[2]) < 1e-12 and abs(p[1] - 0.2) < 1e-6 for p in ends))
        self.assertTrue(mq.intersect_triangles(a, [(0.1, 0.1, 0), (0.5, 0.1, 0), (0.1, 0.5, 0)])["coplanar"])
        self.assertIsNone(mq.intersect_triangles(a, [(0, 0, 1), (1, 0, 1), (0, 1, 1)]))
        with self.assertRaises(ValueError):
            mq.intersect_triangles(a, [(0, 0, 0), (1, 0, 0)])


class Clash(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mesh = mq.load_obj(SPOT)
        cls.bvh = mq.BVH(cls.mesh)
        cls.obb = mq.OBBTree(cls.mesh)
        rng = random.Random(11)
        cls.scene = mq.Scene()
        cls.n = 10
        for i in range(cls.n):
            tree = cls.bvh if i % 2 else cls.obb
            q = (1.0, rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3))
            cls.scene.add(tree, translation=(rng.uniform(0, 3.0), rng.uniform(0, 1.0), 0.0), rotation=q,
                          mask=1 if i < 7 else 2)
        cls.scene.commit()

    def brute(self, d, mask=0xFFFFFFFF):
        want = {}
        for a in range(self.n):
            for b in range(a + 1, self.n):
                if not (self.scene.instance(a)["mask"] & mask and self.scene.instance(b)["mask"] & mask):
                    continue
                r = self.scene.distance(a, b, max_distance=d)
                if r is not None:
                    want[(a, b)] = r
        return want

    def test_clash_is_every_pair_within_the_clearance(self):
        for d in (0.0, 0.05, 0.3):
            cl = self.scene.clash(clearance=d)
            got = list(zip(L(cl.instance_a), L(cl.instance_b)))
            self.assertEqual(got, sorted(got))
            want = self.brute(d)
            self.assertEqual(set(got), set(want))
            self.assertGreater(len(got), 0)
            for k, pair in enumerate(got):
                row = cl.row(k)
                self.assertEqual(row["distance"], want[pair]["distance"])
                self.assertLessEqual(row["distance"], d)
                self.assertEqual(row["pair_count"], 0)
            for threads in (1, 2):
                again = self.scene.clash(clearance=d, threads=threads)
                self.assertEqual(L(again.distance), L(cl.distance))
                self.assertEqual(L(again.point_a), L(cl.point_a))

    def test_mask_filter_and_triangle_pairs(self):
        masked = self.scene.clash(clearance=0.1, mask=1)
        self.assertEqual(set(zip(L(masked.instance_a), L(masked.instance_b))), set(self.brute(0.1, mask=1)))
        self.assertTrue(all(b < 7 for b in L(masked.instance_b)))
        seen = []

        def keep(a, b):
            seen.append((a, b))
            return (a + b) % 2 == 0

        filtered = self.scene.clash(clearance=0.1, filter=keep)
        self.assertTrue(all(a < b for a, b in seen))
        got = set(zip(L(filtered.instance_a), L(filtered.instance_b)))
        self.assertEqual(got, {p for p in self.brute(0.1) if sum(p) % 2 == 0})
        def broken(a, b):
            raise KeyError("from the filter")

        with self.assertRaises(KeyError):
            self.scene.clash(clearance=0.1, filter=broken)
        cl = self.scene.clash(clearance=0.05, max_triangle_pairs=4)
        for k in range(len(cl)):
            pairs = cl.pairs(k)
            self.assertEqual(len(pairs), L(cl.pair_count)[k])
            self.assertTrue(1 <= len(pairs) <= 4)
            self.assertTrue(all(x <= 0.05 for x in L(pairs.distance)))
        with self.assertRaises(IndexError):
            cl.pairs(len(cl))

    def test_distance_and_errors(self):
        self.assertEqual(self.scene.distance(0, 0)["distance"], 0.0)
        self.assertIsNone(self.scene.distance(0, 99))
        self.assertIsNone(self.scene.distance(0, 1, max_distance=-1.0))
        far = mq.Scene()
        a = far.add(self.bvh)
        b = far.add(self.obb, translation=(10.0, 0.0, 0.0))
        far.commit()
        r = far.distance(a, b)
        lo, hi = self.mesh.bounds()
        self.assertAlmostEqual(r["distance"], 10.0 - (hi[0] - lo[0]), places=4)  # the x extents face each other
        self.assertAlmostEqual(r["point_b"][0] - r["point_a"][0], r["distance"], places=6)
        self.assertEqual(len(far.clash(clearance=1.0)), 0)
        self.assertEqual(len(far.clash(clearance=r["distance"] + 1e-6)), 1)
        for bad in (-1.0, math.nan, math.inf):
            with self.assertRaises(mq.MeshqueryError) as e:
                far.clash(clearance=bad)
            self.assertEqual(e.exception.status_name, "MQ_ERR_INVALID_ARG")
            self.assertIn("MQ_ERR_INVALID_ARG", str(e.exception))
        for obj in (mq.Scene.clash, mq.Scene.distance, mq.ClashList, mq.BVH.contacts, mq.OBBTree.intersections,
                    mq.intersect_triangles, mq.contact):
            self.assertTrue(obj.__doc__ and len(obj.__doc__) > 30, obj)


if __name__ == "__main__":
    if os.environ.get("MQ_REQUIRE_NUMPY") == "1" and not mq.HAS_NUMPY:
        print("NumPy is not importable by %s: this NumPy test FAILS (install python3-numpy, "
              "or configure with -DMQ_PYTHON_NUMPY=/path/to/python3)" % sys.executable, file=sys.stderr)
        sys.exit(1)
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[1:])
