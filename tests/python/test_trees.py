"""The k-DOP and sphere trees in Python (meshquery.KDOPTree, SphereTree):
build options and errors, stats, every query against the OBB tree's answer
and against brute force over the triangles (overlaps, rays, closest points,
mesh vs mesh), casts, shape distance and clearance against the BVH's, refit. Runs with NumPy and, when MESHQUERY_NO_NUMPY=1, with
lists. Environment as test_meshquery.py (MQ_DATA_DIR, MQ_REQUIRE_NUMPY)."""
import math
import os
import random
import sys
import unittest

import meshquery as mq

DATA = os.environ.get("MQ_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "data"))
SUZANNE = os.path.join(DATA, "suzanne.obj")


def L(x):
    x = x.tolist() if hasattr(x, "tolist") else list(x)
    return [tuple(r) if isinstance(r, list) else r for r in x]


def tri_corners(mesh):
    pos, idx = L(mesh.positions), L(mesh.indices)
    return [[pos[i] for i in t] for t in idx]


def sub(a, b):
    return [a[k] - b[k] for k in range(3)]


def dot(a, b):
    return sum(a[k] * b[k] for k in range(3))


def point_triangle_distance(p, t):
    """Brute force in double: the distance of p to triangle t (Ericson's regions)."""
    a, b, c = t
    ab, ac, ap = sub(b, a), sub(c, a), sub(p, a)
    d1, d2 = dot(ab, ap), dot(ac, ap)
    if d1 <= 0 and d2 <= 0:
        q = a
    else:
        bp = sub(p, b)
        d3, d4 = dot(ab, bp), dot(ac, bp)
        cp = sub(p, c)
        d5, d6 = dot(ab, cp), dot(ac, cp)
        vc, vb, va = d1 * d4 - d3 * d2, d5 * d2 - d1 * d6, d3 * d6 - d5 * d4
        if d3 >= 0 and d4 <= d3:
            q = b
        elif d6 >= 0 and d5 <= d6:
            q = c
        elif vc <= 0 and d1 >= 0 and d3 <= 0:
            v = d1 / (d1 - d3)
            q = [a[k] + v * ab[k] for k in range(3)]
        elif vb <= 0 and d2 >= 0 and d6 <= 0:
            w = d2 / (d2 - d6)
            q = [a[k] + w * ac[k] for k in range(3)]
        elif va <= 0 and (d4 - d3) >= 0 and (d5 - d6) >= 0:
            w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
            q = [b[k] + w * (c[k] - b[k]) for k in range(3)]
        else:
            den = 1.0 / (va + vb + vc)
            v, w = vb * den, vc * den
            q = [a[k] + ab[k] * v + ac[k] * w for k in range(3)]
    return math.sqrt(sum((p[k] - q[k]) ** 2 for k in range(3)))


class Trees(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mesh = mq.load_obj(SUZANNE)
        cls.obb = mq.OBBTree(cls.mesh)
        cls.trees = [mq.KDOPTree(cls.mesh, k=k) for k in (6, 14, 18, 26)] + [mq.SphereTree(cls.mesh),
                                                                              mq.SphereTree(cls.mesh, max_leaf_size=1)]
        cls.tris = tri_corners(cls.mesh)
        lo, hi = cls.mesh.bounds()
        cls.lo, cls.hi = lo, hi
        rng = random.Random(7)
        cls.points = [tuple(rng.uniform(lo[k] - 0.3, hi[k] + 0.3) for k in range(3)) for _ in range(40)]

    def test_build_options_and_errors(self):
        self.assertEqual([t.k for t in self.trees[:4]], [6, 14, 18, 26])
        self.assertEqual(mq.KDOPTree(self.mesh).k, 18)
        for bad in (dict(k=8), dict(k=18, max_leaf_size=0), dict(k=18, max_leaf_size=17)):
            with self.assertRaises(mq.MeshqueryError) as e:
                mq.KDOPTree(self.mesh, **bad)
            self.assertEqual(e.exception.status_name, "MQ_ERR_INVALID_ARG")
        with self.assertRaises(mq.MeshqueryError):
            mq.SphereTree(self.mesh, max_leaf_size=40)
        for t in self.trees:
            st = t.stats()
            self.assertEqual(st["triangle_count"], self.mesh.triangle_count)
            self.assertGreater(st["node_count"], st["leaf_count"])
            self.assertGreater(st["total_volume"], st["leaf_volume"])
            self.assertGreater(t.byte_count, 0)
            self.assertIs(t.mesh, self.mesh)

    def test_overlaps_equal_obb_tree_and_brute_force(self):
        rng = random.Random(3)
        shapes = []
        for p in self.points[:12]:
            r = rng.uniform(0.05, 0.4)
            shapes += [mq.sphere(p, r), mq.capsule(p, (p[0] + 0.3, p[1], p[2] - 0.2), r * 0.5),
                       mq.aabb(p, tuple(x + r for x in p)), mq.obb(p, (r, r * 0.5, r * 0.3), quat=(0.9, 0.1, 0.3, 0.2))]
            c = self.tris[rng.randrange(len(self.tris))][0]  # about a vertex of the mesh
            hull = mq.Convex([tuple(c[k] + rng.uniform(-r, r) for k in range(3)) for _ in range(12)])
            shapes.append(mq.convexes([hull]))
        touching = sum(self.obb.overlap_any(s) for s in shapes[4::5])
        self.assertGreaterEqual(2 * touching, len(shapes) // 5)  # hulls about vertices: most touch the mesh
        for s in shapes:
            want = sorted(L(self.obb.overlap(s)))
            for t in self.trees:
                self.assertEqual(sorted(L(t.overlap(s))), want)
                self.assertEqual(t.overlap_any(s), bool(want))
        # spheres against brute force in double (margins keep float rounding out of it)
        for p in self.points:
            d = [point_triangle_distance(p, tri) for tri in self.tris]
            r = sorted(d)[len(d) // 50] + 1e-4
            want = {i for i, x in enumerate(d) if x < r - 1e-5}
            maybe = {i for i, x in enumerate(d) if x <= r + 1e-5}
            for t in self.trees:
                got = set(L(t.overlap_sphere(p, r)))
                self.assertTrue(want <= got <= maybe)
        for t in self.trees:  # an invalid shape overlaps nothing
            self.assertEqual(L(t.overlap_sphere((0, 0, 0), -1.0)), [])
            self.assertFalse(t.any_overlap_sphere((0, 0, 0), math.nan))

    def test_rays_and_closest_points_equal_obb_tree(self):
        rng = random.Random(5)
        for p in self.points:
            d = (rng.gauss(0, 1), rng.gauss(0, 1), rng.gauss(0, 1))
            want = self.obb.raycast_closest(p, d)
            cp = self.obb.closest_point(p)
            brute = min(point_triangle_distance(p, tri) for tri in self.tris)
            self.assertAlmostEqual(cp.distance, brute, delta=1e-5 * (1 + brute))
            for t in self.trees:
                got = t.raycast_closest(p, d)
                self.assertEqual(got, want)
                self.assertEqual(t.raycast_any(p, d), want is not None)
                self.assertEqual(t.raycast_any(p, d, tmax=0.0), self.obb.raycast_any(p, d, tmax=0.0))
                self.assertEqual(t.closest_point(p), cp)
                near = t.closest_point(p, max_distance=cp.distance * 0.5)
                self.assertIsNone(near)
        for t in self.trees:
            self.assertIsNone(t.raycast_closest((0, 0, 0), (0, 0, 0)))
            self.assertIsNone(t.closest_point((math.nan, 0, 0)))

    def test_casts_distance_and_clearance_equal_bvh(self):
        bvh = mq.BVH(self.mesh)
        rng = random.Random(11)
        hull = mq.Convex([(rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1)) for _ in range(12)])
        for p in self.points[:15]:
            d = (rng.gauss(0, 1), rng.gauss(0, 1), rng.gauss(0, 1))
            r = rng.uniform(0.0, 0.2)
            q = tuple(p[k] + 0.3 * d[k] for k in range(3))
            brute = min(point_triangle_distance(p, tri) for tri in self.tris)
            want_dist = bvh.shape_distance(mq.sphere(p, r))
            self.assertAlmostEqual(want_dist["distance"], max(0.0, brute - r), delta=1e-5 * (1 + brute))
            for t in self.trees:
                self.assertEqual(t.sphere_cast(p, r, d), bvh.sphere_cast(p, r, d))
                self.assertEqual(t.capsule_cast(p, q, r, d, tmax=2.0), bvh.capsule_cast(p, q, r, d, tmax=2.0))
                self.assertEqual(t.convex_cast(hull, d), bvh.convex_cast(hull, d))
                for shape in (mq.sphere(p, r), mq.capsule(p, q, r)):
                    got, want = t.shape_distance(shape), bvh.shape_distance(shape)
                    self.assertEqual(got["distance"], want["distance"])
                    near = sorted(L(t.shape_clearance(shape, 0.05).triangle_b))
                    self.assertEqual(near, sorted(L(bvh.shape_clearance(shape, 0.05).triangle_b)))
                    self.assertEqual(t.shape_clearance_any(shape, 0.05), bool(near))
                if want_dist["distance"] > 0.01:
                    self.assertIsNone(t.shape_distance(mq.sphere(p, r), max_distance=want_dist["distance"] * 0.5))
        for t in self.trees:
            self.assertIsNone(t.sphere_cast((0, 0, 0), 0.1, (math.nan, 0, 0)))
            with self.assertRaises(ValueError):
                t.shape_distance(mq.sphere((0, 0, 0), 1) + mq.sphere((1, 0, 0), 1))
            with self.assertRaises(TypeError):
                t.convex_cast(self.mesh, (1, 0, 0))

    def test_collide_equals_obb_tree(self):
        q = (0.96, 0.1, 0.2, 0.15)
        for tr in ((0.1, 0.0, 0.0), (0.6, 0.3, 0.0), (5.0, 0.0, 0.0)):
            want = sorted(L(self.obb.collide(self.obb, rotation=q, translation=tr)))
            for t in self.trees:
                got = sorted(L(t.collide(t, rotation=q, translation=tr)))
                self.assertEqual(got, want)
                self.assertEqual(t.any_collide(t, rotation=q, translation=tr), bool(want))
        a, b = self.trees[0], self.trees[2]  # different k pair
        self.assertEqual(sorted(L(a.collide(b, translation=(0.1, 0, 0)))),
                         sorted(L(self.obb.collide(self.obb, translation=(0.1, 0, 0)))))
        with self.assertRaises(TypeError):
            self.trees[0].collide(self.trees[4])

    def test_refit_follows_moved_vertices(self):
        mesh = mq.load_obj(SUZANNE)
        moved = [(x + 10.0, y * 1.5, z) for x, y, z in L(mesh.positions)]
        fresh = mq.OBBTree(mq.Mesh.from_arrays(moved, mesh.indices))  # the moved mesh, built anew
        lo, hi = self.lo, self.hi
        c = tuple((a + b) / 2 for a, b in zip(lo, hi))
        c_moved = (c[0] + 10.0, c[1] * 1.5, c[2])
        for t in (mq.KDOPTree(mesh, k=26), mq.SphereTree(mesh)):
            before = t.closest_point(c)
            self.assertIsNone(t.closest_point(c_moved, max_distance=1.0))
            t.refit(moved)
            self.assertEqual(t.closest_point(c_moved), fresh.closest_point(c_moved))
            self.assertEqual(sorted(L(t.overlap_sphere(c_moved, 0.8))), sorted(L(fresh.overlap_sphere(c_moved, 0.8))))
            self.assertIsNone(t.closest_point(c, max_distance=1.0))
            t.refit()  # the mesh's own positions again
            self.assertEqual(t.closest_point(c), before)
            with self.assertRaises(ValueError):
                t.refit(moved[:3])

    def test_close_and_help(self):
        t = mq.SphereTree(self.mesh)
        t.close()
        with self.assertRaises(ValueError):
            t.overlap_sphere((0, 0, 0), 1)
        with mq.KDOPTree(self.mesh) as k:
            self.assertTrue(k.overlap_any(mq.sphere((0, 0, 0), 5)))
        for obj in (mq.KDOPTree, mq.SphereTree, mq.KDOPTree.collide, mq.SphereTree.stats, mq.KDOPTree.refit,
                    mq.KDOPTree.overlap, mq.SphereTree.raycast_closest):
            self.assertTrue(obj.__doc__ and len(obj.__doc__) > 30, obj)


if __name__ == "__main__":
    if os.environ.get("MQ_REQUIRE_NUMPY") == "1" and not mq.HAS_NUMPY:
        print("NumPy is not importable by %s: this NumPy test FAILS (install python3-numpy, "
              "or configure with -DMQ_PYTHON_NUMPY=/path/to/python3)" % sys.executable, file=sys.stderr)
        sys.exit(1)
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[1:])
