"""The one-item helpers of the binding: the instruction set, rigid_apply,
a mesh's triangle geometry (corners, geometric and shading normals, texture
coordinates) against the arrays and the ray hits, and the convex hull's
placement, bounds, distances, overlaps and cast on cubes with known answers.
Runs with NumPy and, when MESHQUERY_NO_NUMPY=1, with lists. Environment as
test_meshquery.py (MQ_DATA_DIR, MQ_REQUIRE_NUMPY)."""
import math
import os
import sys
import unittest

import meshquery as mq

DATA = os.environ.get("MQ_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "data"))
SPOT = os.path.join(DATA, "spot.obj")
CUBE = [(x, y, z) for x in (0.0, 1.0) for y in (0.0, 1.0) for z in (0.0, 1.0)]


def L(x):
    x = x.tolist() if hasattr(x, "tolist") else list(x)
    return [tuple(r) if isinstance(r, list) else r for r in x]


class Helpers(unittest.TestCase):
    def test_isa_and_rigid_apply(self):
        self.assertIn(mq.isa(), ("scalar", "sse2", "avx2", "avx512"))
        self.assertEqual(mq.rigid_apply((0, 0, 0, 1), (1, 0, 0), (1, 2, 3)), (0.0, -2.0, 3.0))  # half turn about z
        self.assertEqual(mq.rigid_apply((1, 0, 0, 0), (0.5, 0, 0), (1, 2, 3)), (1.5, 2.0, 3.0))
        self.assertTrue(all(math.isnan(x) for x in mq.rigid_apply((0, 0, 0, 0), (0, 0, 0), (1, 2, 3))))

    def test_mesh_triangle_geometry(self):
        m = mq.load_obj(SPOT)
        pos, idx = L(m.positions), L(m.indices)
        bvh = mq.BVH(m)
        checked = 0
        for i in (0, 17, m.triangle_count - 1):
            corners = m.triangle(i)
            self.assertEqual(corners, tuple(pos[k] for k in idx[i]))
            a, b, c = corners
            e1, e2 = [b[k] - a[k] for k in range(3)], [c[k] - a[k] for k in range(3)]
            n = (e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0])
            ln = math.sqrt(sum(x * x for x in n))
            for got, want in zip(m.triangle_normal(i), n):
                self.assertAlmostEqual(got, want / ln, places=5)
            # a ray at the centroid: the hit's shading normal and uv are the mesh's at its barycentrics
            cen = tuple(sum(v[k] for v in corners) / 3 for k in range(3))
            o = tuple(cen[k] + 1e-3 * n[k] / ln for k in range(3))
            hits = bvh.raycast([o], [tuple(-x for x in n)])
            if L(hits.triangle)[0] != i:
                continue
            u, v = float(L(hits.u)[0]), float(L(hits.v)[0])
            sn, has = m.shading_normal(i, u, v)
            self.assertEqual(has, bool(L(hits.has_shading_normal)[0]))
            for got, want in zip(sn, L(hits.shading_normal)[0]):
                self.assertAlmostEqual(got, want, places=5)
            uv = m.texcoord_at(i, u, v)
            self.assertEqual(uv is not None, bool(L(hits.has_uv)[0]))
            if uv is not None:
                for got, want in zip(uv, L(hits.uv)[0]):
                    self.assertAlmostEqual(got, want, places=5)
            checked += 1
        self.assertGreater(checked, 0)
        flat = mq.Mesh.from_arrays([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 2)])
        self.assertEqual(flat.triangle_normal(0), (0.0, 0.0, 1.0))
        self.assertEqual(flat.shading_normal(0, 0.2, 0.2), ((0.0, 0.0, 1.0), False))
        self.assertIsNone(flat.texcoord_at(0, 0.2, 0.2))
        for f in (flat.triangle, flat.triangle_normal):
            with self.assertRaises(IndexError):
                f(1)

    def test_convex_queries(self):
        a = mq.Convex(CUBE)
        b = mq.Convex(CUBE, translation=(3, 0, 0))
        turned = mq.Convex(CUBE, rotation=(math.cos(math.pi / 8), 0, 0, math.sin(math.pi / 8)))  # 45 deg about z
        self.assertEqual(a.bounds(), ((0.0, 0.0, 0.0), (1.0, 1.0, 1.0)))
        self.assertEqual(b.bounds(), ((3.0, 0.0, 0.0), (4.0, 1.0, 1.0)))
        lo, hi = turned.bounds()
        self.assertAlmostEqual(hi[0] - lo[0], math.sqrt(2), places=5)
        self.assertEqual(a.closest_point((2, 0.5, 0.5)), (1.0, (1.0, 0.5, 0.5)))
        self.assertEqual(a.closest_point((0.5, 0.5, 0.5))[0], 0.0)
        self.assertIsNone(a.closest_point((math.nan, 0, 0)))
        self.assertFalse(a.overlaps(b))
        self.assertTrue(a.overlaps(turned))
        d = a.distance(b)
        self.assertAlmostEqual(d["distance"], 2.0, places=6)
        self.assertAlmostEqual(d["point_b"][0] - d["point_a"][0], 2.0, places=6)
        tri = [(2, 0, 0), (2, 1, 0), (2, 0, 1)]
        self.assertFalse(a.overlaps_triangle(tri))
        self.assertTrue(a.overlaps_triangle([(0.5, 0.5, 0.5), (2, 0, 0), (2, 1, 0)]))
        self.assertAlmostEqual(a.triangle_distance(tri)["distance"], 1.0, places=6)
        self.assertIsNone(a.triangle_distance([(math.nan, 0, 0), (2, 1, 0), (2, 0, 1)]))
        self.assertAlmostEqual(a.cast_triangle((1, 0, 0), tri, tmax=5.0), 1.0, places=6)
        self.assertIsNone(a.cast_triangle((-1, 0, 0), tri, tmax=5.0))
        self.assertIsNone(a.cast_triangle((1, 0, 0), tri, tmax=0.5))
        with self.assertRaises(mq.MeshqueryError):
            mq.Convex(CUBE, rotation=(0, 0, 0, 0))
        for obj in (mq.Convex.distance, mq.Convex.cast_triangle, mq.Mesh.shading_normal, mq.rigid_apply, mq.isa):
            self.assertTrue(obj.__doc__ and len(obj.__doc__) > 30, obj)


if __name__ == "__main__":
    if os.environ.get("MQ_REQUIRE_NUMPY") == "1" and not mq.HAS_NUMPY:
        print("NumPy is not importable by %s: this NumPy test FAILS (install python3-numpy, "
              "or configure with -DMQ_PYTHON_NUMPY=/path/to/python3)" % sys.executable, file=sys.stderr)
        sys.exit(1)
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[1:])
