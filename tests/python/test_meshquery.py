"""The meshquery Python binding (tools/python/meshquery) end to end, with NumPy
or, when MESHQUERY_NO_NUMPY=1, with plain lists.

Environment: MQ_DATA_DIR (data/ of the checkout), MQ_PICK (mq-pick, optional:
batch raycasts are compared with it), MQ_REQUIRE_NUMPY=1 (the test fails when
NumPy is not importable), MESHQUERY_LIBRARY (the library under test).
Answers are checked against the C primitives applied to every triangle (brute
force), called through ctypes, and against single-ray queries and mq-pick."""
import ctypes
import math
import os
import random
import subprocess
import sys
import tempfile
import unittest

import meshquery as mq
from meshquery import _capi

DATA = os.environ.get("MQ_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "data"))
SPOT = os.path.join(DATA, "spot.obj")
SUZANNE = os.path.join(DATA, "suzanne.obj")

lib = _capi.lib
lib.mq_overlap_sphere_triangle.restype = ctypes.c_bool
lib.mq_overlap_sphere_triangle.argtypes = [ctypes.POINTER(_capi.MqSphere), ctypes.POINTER(_capi.MqTriangle)]
lib.mq_closest_point_triangle.restype = ctypes.c_float
lib.mq_closest_point_triangle.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.POINTER(_capi.MqTriangle),
                                          ctypes.c_void_p, ctypes.c_void_p]
lib.mq_overlap_triangle_triangle.restype = ctypes.c_bool
lib.mq_overlap_triangle_triangle.argtypes = [ctypes.POINTER(_capi.MqTriangle)] * 2
lib.mq_rigid_apply.restype = None
lib.mq_rigid_apply.argtypes = [ctypes.POINTER(_capi.MqRigid), ctypes.POINTER(ctypes.c_float),
                               ctypes.POINTER(ctypes.c_float)]
lib.mq_mesh_get_triangle.restype = None
lib.mq_mesh_get_triangle.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(_capi.MqTriangle)]


def triangles(mesh):
    out = []
    for i in range(mesh.triangle_count):
        t = _capi.MqTriangle()
        lib.mq_mesh_get_triangle(mesh.handle, i, ctypes.byref(t))
        out.append(t)
    return out


def as_list(x):
    return x.tolist() if hasattr(x, "tolist") else list(x)


def random_rays(n, seed, mesh):
    """Rays from points around the mesh towards points inside its box."""
    rng = random.Random(seed)
    lo, hi = mesh.bounds()
    c = [(a + b) / 2 for a, b in zip(lo, hi)]
    r = max(b - a for a, b in zip(lo, hi))
    origins, dirs = [], []
    for _ in range(n):
        o = [c[k] + rng.uniform(-1.5, 1.5) * r for k in range(3)]
        t = [rng.uniform(lo[k], hi[k]) for k in range(3)]
        origins.append(tuple(o))
        dirs.append(tuple(t[k] - o[k] for k in range(3)))
    return origins, dirs


class Binding(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.spot = mq.load_obj(SPOT)
        cls.bvh = mq.BVH(cls.spot)
        cls.tree = mq.OBBTree(cls.spot)
        cls.tris = triangles(cls.spot)

    def test_version_and_library(self):
        self.assertRegex(mq.version(), r"^\d+\.\d+\.\d+$")
        self.assertTrue(os.path.exists(mq.library_path()) or "/" not in mq.library_path())

    def test_numpy_mode(self):
        hits = self.bvh.raycast([(0, 0.5, -3)], [(0, 0, 1)])
        if mq.HAS_NUMPY:
            import numpy as np
            self.assertIsInstance(hits.t, np.ndarray)
            self.assertEqual(hits.point.shape, (1, 3))
        else:
            self.assertIsInstance(hits.t, list)
            self.assertIsInstance(hits.point[0], tuple)

    def test_load_obj(self):
        self.assertEqual(self.spot.triangle_count, self.spot.stats["triangles"])
        self.assertEqual(self.spot.face_count, self.spot.stats["faces"])
        self.assertEqual(len(self.spot.positions), self.spot.vertex_count)
        self.assertEqual(len(self.spot.indices), self.spot.triangle_count)
        src = self.spot.triangle_source(0)
        self.assertGreater(src["line"], 0)
        with self.assertRaises(IndexError):
            self.spot.triangle_source(self.spot.triangle_count)

    def test_errors_carry_the_diagnostic(self):
        with self.assertRaises(mq.MeshqueryError) as cm:
            mq.load_obj_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", name="broken.obj")
        e = cm.exception
        self.assertEqual((e.status_name, e.path, e.line), ("MQ_ERR_PARSE", "broken.obj", 4))
        self.assertGreater(e.column, 0)
        self.assertIn("broken.obj:4:", str(e))
        with self.assertRaises(mq.MeshqueryError) as cm:
            mq.load_obj(os.path.join(DATA, "no-such-file.obj"))
        self.assertEqual(cm.exception.status_name, "MQ_ERR_IO")
        with self.assertRaises(mq.MeshqueryError):
            mq.Mesh.from_arrays([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 3)])

    def test_from_arrays_and_single_ray(self):
        m = mq.Mesh.from_arrays([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 2)])
        b = mq.BVH(m)
        h = b.raycast_closest((0.25, 0.25, 1), (0, 0, -1))
        self.assertEqual(h.triangle, 0)
        self.assertAlmostEqual(h.t, 1.0, places=6)
        self.assertAlmostEqual(h.u, 0.25, places=6)
        self.assertAlmostEqual(h.v, 0.25, places=6)
        self.assertIsNone(b.raycast_closest((2, 2, 1), (0, 0, -1)))
        self.assertIsNone(b.raycast_closest((0.25, 0.25, 1), (0, 0, -1), tmax=0.5))
        # seen from below, the triangle (counter-clockwise from +z) shows its back
        self.assertTrue(b.raycast_closest((0.25, 0.25, -1), (0, 0, 1)).back_face)
        self.assertIsNone(b.raycast_closest((0.25, 0.25, -1), (0, 0, 1), cull_back_faces=True))

    def test_batch_equals_single_rays(self):
        origins, dirs = random_rays(400, 1, self.spot)
        hits = self.bvh.raycast(origins, dirs, threads=2)
        self.assertEqual(len(hits), 400)
        occluded = as_list(self.bvh.occluded(origins, dirs))
        nhit = 0
        for i in range(400):
            single = self.bvh.raycast_closest(origins[i], dirs[i])
            got = hits[i]
            self.assertEqual(got is None, single is None, i)
            self.assertEqual(bool(occluded[i]), single is not None, i)
            if single:
                nhit += 1
                self.assertEqual(got.triangle, single.triangle)
                self.assertEqual(got.t, single.t)
                self.assertEqual(got.point, single.point)
                obb = self.tree.raycast_closest(origins[i], dirs[i])
                self.assertEqual(obb.triangle, single.triangle)
        self.assertGreater(nhit, 100)
        self.assertEqual(sum(bool(x) for x in as_list(hits.hit)), nhit)
        # one interval per ray: the rays go to C as records, not as two arrays
        per_ray = self.bvh.raycast(origins, dirs, tmin=[0.0] * 400, tmax=[math.inf] * 400)
        self.assertEqual(as_list(per_ray.triangle), as_list(hits.triangle))
        self.assertEqual(as_list(per_ray.t), as_list(hits.t))
        self.assertEqual(as_list(self.bvh.occluded(origins, dirs, tmax=[math.inf] * 400)), occluded)

    def test_batch_against_mq_pick(self):
        pick = os.environ.get("MQ_PICK")
        if not pick:
            self.skipTest("MQ_PICK not set")
        origins, dirs = random_rays(200, 2, self.spot)
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            for o, d in zip(origins, dirs):
                f.write("%r %r %r %r %r %r\n" % (*(float(ctypes.c_float(x).value) for x in o),
                                               *(float(ctypes.c_float(x).value) for x in d)))
        try:
            out = subprocess.run([pick, SPOT, "--rays", f.name, "--csv"], check=True, capture_output=True,
                                 text=True).stdout.splitlines()
        finally:
            os.unlink(f.name)
        cols = out[0].split(",")
        tri_col = cols.index("triangle")
        expect = [int(line.split(",")[tri_col]) if line.split(",")[tri_col] else mq.NO_TRIANGLE
                  for line in out[1:]]
        hits = self.bvh.raycast(origins, dirs)
        self.assertEqual(as_list(hits.triangle), expect)

    def test_raycast_all(self):
        hits = self.bvh.raycast_all((0, 0.5, -3), (0, 0, 1))
        self.assertGreaterEqual(len(hits), 2)
        self.assertEqual([h.t for h in hits], sorted(h.t for h in hits))
        self.assertEqual(hits[0].triangle, self.bvh.raycast_closest((0, 0.5, -3), (0, 0, 1)).triangle)

    def test_sphere_overlap_is_brute_force(self):
        rng = random.Random(3)
        lo, hi = self.spot.bounds()
        for _ in range(4):
            c = [rng.uniform(lo[k], hi[k]) for k in range(3)]
            r = rng.uniform(0.02, 0.3)
            got = sorted(as_list(self.tree.overlap_sphere(c, r)))
            s = _capi.MqSphere(_capi.vec3(*c), r)
            want = [i for i, t in enumerate(self.tris) if lib.mq_overlap_sphere_triangle(ctypes.byref(s),
                                                                                         ctypes.byref(t))]
            self.assertEqual(got, want)
            self.assertEqual(self.tree.any_overlap_sphere(c, r), bool(want))
        self.assertEqual(as_list(self.tree.overlap_sphere((0, 0, 0), -1.0)), [])  # invalid: overlaps nothing

    def test_box_and_capsule_overlaps(self):
        lo, hi = self.spot.bounds()
        everything = as_list(self.tree.overlap_aabb(lo, hi))
        self.assertEqual(len(everything), self.spot.triangle_count)
        c = [(a + b) / 2 for a, b in zip(lo, hi)]
        half = [0.2, 0.2, 0.2]
        plain = sorted(as_list(self.tree.overlap_obb(c, half)))
        as_aabb = sorted(as_list(self.tree.overlap_aabb([c[k] - 0.2 for k in range(3)],
                                                        [c[k] + 0.2 for k in range(3)])))
        self.assertEqual(plain, as_aabb)
        quarter_turn = (math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4))  # w, x, y, z: about z
        self.assertEqual(sorted(as_list(self.tree.overlap_obb(c, half, quat=quarter_turn))), plain)
        cap = as_list(self.tree.overlap_capsule(c, c, 0.2))
        self.assertEqual(sorted(cap), sorted(as_list(self.tree.overlap_sphere(c, 0.2))))

    def test_bvh_shape_overlaps_match_the_obbtree(self):
        rng = random.Random(5)
        lo, hi = self.spot.bounds()
        for _ in range(4):
            c = [rng.uniform(lo[k], hi[k]) for k in range(3)]
            d = [rng.uniform(lo[k], hi[k]) for k in range(3)]
            r = rng.uniform(0.02, 0.3)
            half = [rng.uniform(0.01, 0.3) for _ in range(3)]
            box_lo, box_hi = [c[k] - half[k] for k in range(3)], [c[k] + half[k] for k in range(3)]
            quat = (math.cos(0.3), 0.0, math.sin(0.3), 0.0)  # w, x, y, z
            for name, args in (("sphere", (c, r)), ("capsule", (c, d, r)), ("aabb", (box_lo, box_hi))):
                want = sorted(as_list(getattr(self.tree, "overlap_" + name)(*args)))
                self.assertEqual(sorted(as_list(getattr(self.bvh, "overlap_" + name)(*args))), want, name)
                self.assertEqual(getattr(self.bvh, "any_overlap_" + name)(*args), bool(want), name)
                self.assertEqual(getattr(self.tree, "any_overlap_" + name)(*args), bool(want), name)
            want = sorted(as_list(self.tree.overlap_obb(c, half, quat=quat)))
            self.assertEqual(sorted(as_list(self.bvh.overlap_obb(c, half, quat=quat))), want)
            self.assertEqual(self.bvh.any_overlap_obb(c, half, quat=quat), bool(want))
            p = self.bvh.closest_point(c)
            self.assertEqual((p.triangle, p.distance), (self.tree.closest_point(c).triangle,
                                                        self.tree.closest_point(c).distance))
        self.assertEqual(as_list(self.bvh.overlap_sphere((0, 0, 0), -1.0)), [])  # invalid: overlaps nothing
        self.assertFalse(self.bvh.any_overlap_capsule((0, 0, 0), (1, 1, 1), math.nan))
        # a kind this version does not know (a later one's shape) overlaps nothing
        everything = _capi.shape(_capi.MQ_SHAPE_SPHERE, _capi.MqSphere(_capi.vec3(0, 0, 0), 1e6))
        self.assertEqual(lib.mq_bvh_overlap_array(self.bvh.handle, ctypes.byref(everything), None, 0),
                         self.spot.triangle_count)
        everything.kind = 99
        for tree in (self.bvh, self.tree):
            self.assertEqual(tree._f("overlap_array")(tree.handle, ctypes.byref(everything), None, 0), 0)
            self.assertFalse(tree._f("overlap_any")(tree.handle, ctypes.byref(everything)))

    def test_obbtree_stats(self):
        st = self.tree.stats()
        self.assertEqual(st["triangle_count"], self.spot.triangle_count)
        self.assertEqual(self.tree.node_count, st["node_count"])
        self.assertEqual(st["node_count"], 2 * st["leaf_count"] - 1)  # binary tree
        self.assertGreaterEqual(st["avg_leaf_size"], 1.0)
        self.assertGreater(st["total_volume"], 0.0)
        self.assertAlmostEqual(st["bytes_per_triangle"] * st["triangle_count"], self.tree.byte_count, delta=1e-6)

    def test_closest_point_is_brute_force(self):
        rng = random.Random(4)
        pts = [(rng.uniform(-1, 1), rng.uniform(-0.5, 1.5), rng.uniform(-1, 1)) for _ in range(3)]
        t_arr = self.tree.closest_points(pts).triangle
        for i, p in enumerate(pts):
            got = self.tree.closest_point(p)
            pv = _capi.vec3(*p)
            best = min(lib.mq_closest_point_triangle(pv, ctypes.byref(t), None, None) for t in self.tris)
            self.assertAlmostEqual(got.distance, math.sqrt(best), places=5)
            self.assertEqual(int(as_list(t_arr)[i]), got.triangle)
            self.assertLessEqual(got.distance, mq.OBBTree.closest_point(self.tree, p, got.distance * 1.001).distance)
        self.assertIsNone(self.tree.closest_point((0, 100, 0), max_distance=1.0))

    def test_collide(self):
        suz = mq.load_obj(SUZANNE)
        tree_b = mq.OBBTree(suz)
        pairs = self.tree.collide(tree_b, translation=(0.0, 0.5, 0.0))
        pairs = [tuple(int(x) for x in p) for p in as_list(pairs)]
        self.assertTrue(self.tree.any_collide(tree_b, translation=(0.0, 0.5, 0.0)) == bool(pairs))
        self.assertFalse(self.tree.any_collide(tree_b, translation=(100.0, 0.0, 0.0)))
        self.assertEqual(len(as_list(self.tree.collide(tree_b, translation=(100.0, 0.0, 0.0)))), 0)
        # every reported pair really intersects (the C primitive, B's corners mapped by mq_rigid_apply)
        xf = mq.OBBTree._rigid((1, 0, 0, 0), (0.0, 0.5, 0.0))
        tris_b = triangles(suz)
        for a, b in pairs[:200]:
            tb = _capi.MqTriangle()
            for k in range(3):
                lib.mq_rigid_apply(ctypes.byref(xf), tris_b[b].v[k], tb.v[k])
            self.assertTrue(lib.mq_overlap_triangle_triangle(ctypes.byref(self.tris[a]), ctypes.byref(tb)))
        # the rotation is w, x, y, z: (cos 45, 0, 0, sin 45) turns x onto y about z
        quarter = (math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4))
        xf = mq.OBBTree._rigid(quarter, (0.0, 0.0, 0.0))
        moved = (ctypes.c_float * 3)()
        lib.mq_rigid_apply(ctypes.byref(xf), (ctypes.c_float * 3)(1.0, 0.0, 0.0), moved)
        self.assertEqual([round(v, 6) for v in moved], [0.0, 1.0, 0.0])
        # suzanne turned so, its bounds centre moved onto spot's: the two meet
        (alo, ahi), (blo, bhi) = self.spot.bounds(), suz.bounds()
        lib.mq_rigid_apply(ctypes.byref(xf), (ctypes.c_float * 3)(*[(l + h) / 2 for l, h in zip(blo, bhi)]), moved)
        t = tuple((l + h) / 2 - m for l, h, m in zip(alo, ahi, moved))
        xf = mq.OBBTree._rigid(quarter, t)
        turned = sorted(tuple(int(x) for x in p) for p in as_list(self.tree.collide(tree_b, quarter, t)))
        self.assertTrue(turned)
        for a, b in turned[:200]:
            tb = _capi.MqTriangle()
            for k in range(3):
                lib.mq_rigid_apply(ctypes.byref(xf), tris_b[b].v[k], tb.v[k])
            self.assertTrue(lib.mq_overlap_triangle_triangle(ctypes.byref(self.tris[a]), ctypes.byref(tb)))
        self.assertTrue(self.tree.any_collide(tree_b, quarter, t))

    def test_invalid_inputs_answer_none(self):
        self.assertIsNone(self.bvh.raycast_closest((0, 0, 0), (0, 0, 0)))
        hits = self.bvh.raycast([(math.nan, 0, 0)], [(0, 0, 1)])
        self.assertEqual(as_list(hits.triangle), [mq.NO_TRIANGLE])
        self.assertTrue(math.isinf(float(as_list(hits.t)[0])))

    def test_empty_batch(self):
        hits = self.bvh.raycast([], [])
        self.assertEqual(len(hits), 0)

    def test_close(self):
        m = mq.load_obj(SUZANNE)
        with mq.BVH(m) as b:
            self.assertGreater(b.byte_count, 0)
        with self.assertRaises(ValueError):
            b.raycast_closest((0, 0, 5), (0, 0, -1))

    def test_save_and_load(self):
        if not _capi.HAVE_SAVED:
            self.skipTest("library without saved.h functions")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "spot.mqh")
            self.bvh.save(path)
            loaded = mq.BVH.load(path)
            self.assertEqual(loaded.mesh.triangle_count, self.spot.triangle_count)
            origins, dirs = random_rays(100, 5, self.spot)
            self.assertEqual(as_list(loaded.raycast(origins, dirs).triangle),
                             as_list(self.bvh.raycast(origins, dirs).triangle))


if __name__ == "__main__":
    if os.environ.get("MQ_REQUIRE_NUMPY") == "1" and not mq.HAS_NUMPY:
        print("NumPy is not importable by %s: this NumPy test FAILS (install python3-numpy, "
              "or configure with -DMQ_PYTHON_NUMPY=/path/to/python3)" % sys.executable, file=sys.stderr)
        sys.exit(1)
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[1:])
