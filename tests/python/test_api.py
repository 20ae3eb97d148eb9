"""The whole API of the Python binding beyond the first rays: mesh attribute
arrays, every batch against the one-query calls it batches (closest points,
solids, shape overlaps, casts, all hits, the OBB tree's rays), scenes, saved
hierarchies. Runs with NumPy and, when MESHQUERY_NO_NUMPY=1, with lists.
Environment as test_meshquery.py (MQ_DATA_DIR, MQ_REQUIRE_NUMPY)."""
import math
import os
import random
import sys
import tempfile
import unittest

import meshquery as mq

DATA = os.environ.get("MQ_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "data"))
SPOT = os.path.join(DATA, "spot.obj")
SUZANNE = os.path.join(DATA, "suzanne.obj")


def L(x):
    """A list of plain Python values (rows as tuples) from an array or a list."""
    x = x.tolist() if hasattr(x, "tolist") else list(x)
    return [tuple(r) if isinstance(r, list) else r for r in x]


def random_points(n, seed, mesh, grow=0.3):
    rng = random.Random(seed)
    lo, hi = mesh.bounds()
    g = [(b - a) * grow for a, b in zip(lo, hi)]
    return [tuple(rng.uniform(lo[k] - g[k], hi[k] + g[k]) for k in range(3)) for _ in range(n)]


class Api(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.spot = mq.load_obj(SPOT)
        cls.bvh = mq.BVH(cls.spot)
        cls.tree = mq.OBBTree(cls.spot)
        cls.pts = random_points(300, 1, cls.spot)

    def test_mesh_arrays(self):
        m = self.spot
        t = m.triangle_count
        self.assertEqual(len(m.faces), t)
        self.assertEqual(len(m.lines), t)
        self.assertEqual(len(m.groups), t)
        self.assertEqual(len(m.materials), t)
        self.assertEqual(len(m.objects), t)
        for i in (0, t // 2, t - 1):
            src = m.triangle_source(i)
            self.assertEqual(int(L(m.faces)[i]), src["face"])
            self.assertEqual(int(L(m.lines)[i]), src["line"])
            self.assertEqual(m.names("group")[int(L(m.groups)[i])], src["group"])
        self.assertEqual(len(m.uvs), m.stats["texcoords"])
        self.assertEqual(len(m.normals), m.stats["normals"])
        if m.stats["texcoords"]:
            self.assertEqual(len(m.corner_uvs), t)
        made = mq.Mesh.from_arrays([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 2)])
        self.assertEqual(L(made.faces), [0])
        self.assertEqual(L(made.lines), [0])
        self.assertEqual(len(made.normals), 0)
        self.assertIsNone(made.colors)

    def test_per_triangle_arrays_equal_triangle_source(self):
        # polygons (several triangles a face), groups, objects and materials changing between faces
        text = ("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 1.5 0\nf 1 2 3\ng left side\nusemtl red\n"
                "f 1 2 3 4\no thing\nf 1 2 3 5 4\ng right\n\nusemtl blue\nf 2 3 4\nf 1 3 4\n")
        for m in (mq.load_obj_text(text, "bulk.obj"), self.spot):
            faces, lines = L(m.faces), L(m.lines)
            names = {k: (L(getattr(m, k + "s")), m.names(k)) for k in ("group", "object", "material")}
            self.assertEqual(len(faces), m.triangle_count)
            for i in range(m.triangle_count):
                src = m.triangle_source(i)
                self.assertEqual((faces[i], lines[i]), (src["face"], src["line"]))
                for k, (ids, table) in names.items():
                    self.assertEqual(table[ids[i]], src[k])
            if mq.HAS_NUMPY:
                self.assertEqual((m.faces.dtype.name, m.lines.dtype.name, m.groups.dtype.name),
                                 ("uint32", "uint64", "uint32"))
        m = mq.load_obj_text(text, "bulk.obj")
        self.assertEqual(L(m.faces), [0, 1, 1, 2, 2, 2, 3, 4])
        self.assertEqual(L(m.lines), [6, 9, 9, 11, 11, 11, 15, 16])
        self.assertEqual([m.names("material")[i] for i in L(m.materials)], ["", "red", "red", "red", "red", "red",
                                                                           "blue", "blue"])

    def test_closest_points_batch_equals_single(self):
        for tree in (self.bvh, self.tree):
            r = tree.closest_points(self.pts, max_distance=0.2, threads=2)
            self.assertEqual(len(r), len(self.pts))
            found = 0
            for i, p in enumerate(self.pts):
                one = tree.closest_point(p, max_distance=0.2)
                self.assertEqual(bool(L(r.found)[i]), one is not None)
                if one is None:
                    self.assertEqual(L(r.triangle)[i], mq.NO_TRIANGLE)
                    self.assertTrue(math.isinf(L(r.distance)[i]))
                    continue
                found += 1
                self.assertEqual(L(r.triangle)[i], one.triangle)
                self.assertEqual(L(r.distance)[i], one.distance)
                self.assertEqual(tuple(L(r.point)[i]), one.point)
            self.assertGreater(found, 10)

    def test_solids_batch_equals_single(self):
        w = L(self.bvh.winding_numbers(self.pts))
        inside = L(self.bvh.contains(self.pts))
        d = L(self.bvh.signed_distance(self.pts))
        d2, closest = self.tree.signed_distance(self.pts, return_closest=True)
        self.assertEqual(L(self.tree.winding_numbers(self.pts, threads=1)), w)
        self.assertGreater(sum(inside), 5)
        self.assertLess(sum(inside), len(self.pts))
        for i, p in enumerate(self.pts):
            self.assertEqual(w[i], self.bvh.winding_number(p))
            self.assertEqual(inside[i], w[i] != 0)
            self.assertEqual(d[i] < 0, inside[i])
            self.assertEqual(abs(d[i]), self.bvh.closest_point(p).distance)
            self.assertEqual(L(d2)[i], d[i])
            self.assertEqual(L(closest.triangle)[i], self.tree.closest_point(p).triangle)
        self.assertTrue(math.isnan(L(self.bvh.signed_distance([(math.nan, 0, 0)]))[0]))

    def test_overlap_batches_equal_single(self):
        rng = random.Random(3)
        c = [p for p in self.pts[:40]]
        r = [rng.uniform(0.01, 0.3) for _ in c]
        b = [tuple(x + 0.2 for x in p) for p in c]
        quats = [(math.cos(a), math.sin(a), 0.0, 0.0) for a in (rng.uniform(0, 3) for _ in c)]
        halves = [(0.1, 0.05, 0.2)] * len(c)
        shapes = (mq.spheres(c, r) + mq.capsules(c, b, r) + mq.aabbs(c, b) + mq.obbs(c, halves, quats=quats))
        self.assertEqual(len(shapes), 4 * len(c))
        for tree in (self.bvh, self.tree):
            counts = L(tree.overlap_counts(shapes, threads=2))
            anys = L(tree.overlaps_any(shapes))
            for i in range(len(c)):
                singles = [tree.overlap_sphere(c[i], r[i]), tree.overlap_capsule(c[i], b[i], r[i]),
                           tree.overlap_aabb(c[i], b[i]), tree.overlap_obb(c[i], halves[i], quat=quats[i])]
                for k, one in enumerate(singles):
                    self.assertEqual(counts[k * len(c) + i], len(L(one)), (i, k))
                    self.assertEqual(anys[k * len(c) + i], len(L(one)) > 0)
            self.assertGreater(sum(counts), 0)
        self.assertEqual(L(self.bvh.overlap_counts(mq.sphere((0, 0, 0), -1.0))), [0])

    def test_cast_batches_equal_single(self):
        rng = random.Random(4)
        c = self.pts[:60]
        r = [rng.uniform(0.01, 0.1) for _ in c]
        d = [tuple(rng.uniform(-1, 1) for _ in range(3)) for _ in c]
        b = [tuple(x + 0.1 for x in p) for p in c]
        for tree in (self.bvh, self.tree):
            sc = tree.sphere_casts(c, r, d, tmax=2.0)
            cc = tree.capsule_casts(c, b, r, d, tmax=2.0, threads=1)
            hits = 0
            for i in range(len(c)):
                one = tree.sphere_cast(c[i], r[i], d[i], tmax=2.0)
                self.assertEqual(L(sc.triangle)[i], one.triangle if one else mq.NO_TRIANGLE)
                if one:
                    hits += 1
                    self.assertEqual(L(sc.t)[i], one.t)
                two = tree.capsule_cast(c[i], b[i], r[i], d[i], tmax=2.0)
                self.assertEqual(L(cc.triangle)[i], two.triangle if two else mq.NO_TRIANGLE)
            self.assertGreater(hits, 5)

    def test_convex_cast(self):
        # a small cube above the mesh moved down through it: both trees give the
        # same first contact, the cube placed just after it overlaps the mesh and
        # placed just before it does not
        lo, hi = self.spot.bounds()
        c = [(a + b) / 2 for a, b in zip(lo, hi)]
        size = 0.05 * max(b - a for a, b in zip(lo, hi))
        corners = [(x, y, z) for x in (-size, size) for y in (-size, size) for z in (-size, size)]
        start = (c[0], hi[1] + 3 * size, c[2])
        cube = mq.Convex([tuple(s + k for s, k in zip(start, p)) for p in corners])
        down = (0.0, -(hi[1] - lo[1]), 0.0)
        hits = [tree.convex_cast(cube, down, tmax=1.0) for tree in (self.bvh, self.tree)]
        self.assertIsNotNone(hits[0])
        self.assertEqual((hits[0].t, hits[0].triangle), (hits[1].t, hits[1].triangle))
        self.assertTrue(0.0 < hits[0].t < 1.0 and not hits[0].initially_overlapping)
        for dt, overlaps in ((1e-4, True), (-1e-4, False)):
            moved = mq.Convex(corners, translation=tuple(s + (hits[0].t + dt) * d for s, d in zip(start, down)))
            self.assertEqual(L(self.bvh.overlap_counts(mq.convexes([moved])))[0] > 0, overlaps)
        self.assertIsNone(self.bvh.convex_cast(cube, (0.0, 1.0, 0.0)))
        with self.assertRaises(TypeError):
            self.bvh.convex_cast(None, down)

    def test_raycast_all_batch(self):
        rng = random.Random(5)
        origins = [(rng.uniform(-0.4, 0.4), rng.uniform(-0.6, 0.9), -3.0) for _ in range(50)]
        dirs = [(0.0, 0.0, 1.0)] * 50
        ray, hits = self.bvh.raycast_all_batch(origins, dirs)
        ray = L(ray)
        self.assertEqual(len(ray), len(hits))
        self.assertEqual(ray, sorted(ray))
        for i in range(50):
            one = self.bvh.raycast_all(origins[i], dirs[i])
            got = [hits[k] for k in range(len(ray)) if ray[k] == i]
            self.assertEqual([h.triangle for h in got], [h.triangle for h in one])
            self.assertEqual([h.t for h in got], [h.t for h in one])
        self.assertGreater(len(hits), 50)

    def test_obbtree_ray_batches(self):
        origins = random_points(100, 6, self.spot, grow=1.0)
        dirs = [tuple(-x for x in o) for o in origins]
        a, b = self.tree.raycast(origins, dirs), self.bvh.raycast(origins, dirs)
        self.assertEqual(L(a.triangle), L(b.triangle))
        self.assertEqual(L(self.tree.occluded(origins, dirs)), L(b.hit))
        self.assertEqual(self.tree.raycast_any(origins[0], dirs[0]), bool(L(b.hit)[0]))

    def test_scene(self):
        suz = mq.load_obj(SUZANNE)
        sb = mq.BVH(suz)
        lo, hi = suz.bounds()
        c = [(x + y) / 2 for x, y in zip(lo, hi)]

        def local(p):  # world point -> suzanne's frame (suzanne centred at (5, 0, 0))
            return (p[0] - 5 + c[0], p[1] + c[1], p[2] + c[2])

        scene = mq.Scene()
        a = scene.add(self.bvh, user_id=11)
        b = scene.add(mq.OBBTree(suz), translation=(5 - c[0], -c[1], -c[2]), user_id=22, mask=2)
        self.assertEqual(scene.instance_count, 0)  # staged
        scene.commit()
        self.assertEqual(scene.instance_count, 2)
        lo, hi = scene.bounds()
        self.assertGreater(hi[0], 5)
        origins = [(0.0, 0.5, -3.0), (5.0, 0.2, 5.0), (20.0, 0.0, 0.0)]
        dirs = [(0, 0, 1), (0, 0, -1), (0, 0, 1)]
        hits = scene.raycast(origins, dirs)
        self.assertEqual(L(hits.instance), [a, b, mq.NO_INSTANCE])
        self.assertEqual(L(hits.user_id)[:2], [11, 22])
        self.assertEqual(L(hits.triangle)[0], self.bvh.raycast_closest(origins[0], dirs[0]).triangle)
        self.assertEqual(L(hits.triangle)[1], sb.raycast_closest(local((5.0, 0.2, 5.0)), (0, 0, -1)).triangle)
        self.assertAlmostEqual(L(hits.t)[0], self.bvh.raycast_closest(origins[0], dirs[0]).t, places=5)
        self.assertEqual(L(scene.occluded(origins, dirs)), [True, True, False])
        self.assertEqual(L(scene.raycast(origins, dirs, mask=1).instance)[1], mq.NO_INSTANCE)  # b masked out
        self.assertEqual(len(scene.raycast_all(origins[0], dirs[0])), len(self.bvh.raycast_all(origins[0], dirs[0])))
        shapes = mq.spheres([(0, 0.5, 0), (5, 0, 0), (50, 0, 0)], 0.3)
        counts = L(scene.overlap_counts(shapes))
        self.assertEqual(counts[0], len(L(self.bvh.overlap_sphere((0, 0.5, 0), 0.3))))
        self.assertEqual(counts[1], len(L(sb.overlap_sphere(local((5, 0, 0)), 0.3))))
        self.assertEqual(counts[2], 0)
        self.assertEqual(L(scene.overlaps_any(shapes)), [c > 0 for c in counts])
        self.assertEqual(len(L(scene.overlap(mq.sphere((5, 0, 0), 0.3)))), counts[1])
        cp = scene.closest_points([(0, 0.5, 0), (5, 0, 2)], max_distance=100)
        self.assertEqual(L(cp.instance), [a, b])
        self.assertEqual(L(cp.found), [True, True])
        self.assertAlmostEqual(L(cp.distance)[1], sb.closest_point(local((5, 0, 2))).distance, places=5)
        one = scene.closest_point((5, 0, 2))
        self.assertEqual(one["instance"], b)
        self.assertEqual(len(L(scene.collide(a, b))), 0)
        scene.set_transform(b, translation=(-c[0], 0.5 - c[1], -c[2]))
        scene.commit()
        self.assertGreater(len(L(scene.collide(a, b))), 0)
        scene.remove(a)
        scene.commit()
        self.assertEqual(scene.instance_count, 1)
        with self.assertRaises(mq.MeshqueryError):
            scene.remove(12345)
        with self.assertRaises(TypeError):
            scene.add(self.spot)

    def test_saved(self):
        origins = random_points(50, 7, self.spot, grow=1.0)
        dirs = [tuple(-x for x in o) for o in origins]
        want = L(self.bvh.raycast(origins, dirs).triangle)
        with tempfile.TemporaryDirectory() as d:
            for cls, tree in ((mq.BVH, self.bvh), (mq.OBBTree, self.tree)):
                path = os.path.join(d, "spot.%s" % cls.__name__)
                tree.save(path)
                for loaded in (cls.load(path), cls.load_mapped(path), cls.from_bytes(tree.to_bytes())):
                    self.assertEqual(loaded.mesh.triangle_count, self.spot.triangle_count)
                    self.assertEqual(L(loaded.raycast(origins, dirs).triangle), want)
            bad = os.path.join(d, "bad.mqh")
            with open(bad, "wb") as f:
                f.write(b"not a saved hierarchy" * 10)
            with self.assertRaises(mq.MeshqueryError) as cm:
                mq.BVH.load_mapped(bad)
            self.assertIn("bad.mqh", str(cm.exception))
            with self.assertRaises(mq.MeshqueryError):
                mq.OBBTree.load(os.path.join(d, "missing.mqh"))

    def test_convex_shapes(self):
        import ctypes
        from meshquery import _capi
        lib = _capi.lib
        lib.mq_overlap_convex_triangle.restype = ctypes.c_bool
        lib.mq_overlap_convex_triangle.argtypes = [ctypes.c_void_p, ctypes.POINTER(_capi.MqTriangle)]
        lib.mq_mesh_get_triangle.restype = None
        lib.mq_mesh_get_triangle.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(_capi.MqTriangle)]
        rng = random.Random(8)
        hulls = []
        for c in self.pts[:12]:
            pts = [tuple(c[k] + rng.uniform(-0.15, 0.15) for k in range(3)) for _ in range(12)]
            hulls.append(mq.Convex(pts))
        self.assertTrue(hulls[0].contains(tuple(sum(v[k] for v in L(hulls[0].vertices)) / len(hulls[0].vertices)
                                                for k in range(3))))
        shapes = mq.convexes(hulls) + mq.spheres(self.pts[:2], 0.1)
        tris = []
        for i in range(self.spot.triangle_count):
            t = _capi.MqTriangle()
            lib.mq_mesh_get_triangle(self.spot.handle, i, ctypes.byref(t))
            tris.append(t)
        for tree in (self.bvh, self.tree):
            counts = L(tree.overlap_counts(shapes))
            for i, h in enumerate(hulls):
                brute = sorted(k for k, t in enumerate(tris) if lib.mq_overlap_convex_triangle(h.handle, ctypes.byref(t)))
                self.assertEqual(sorted(L(tree.overlap(h.shape()))), brute, i)
                self.assertEqual(counts[i], len(brute), i)
            self.assertEqual(counts[12], len(L(tree.overlap_sphere(self.pts[0], 0.1))))
        self.assertGreater(sum(counts[:12]), 0)
        # in a scene: a hull placed by a translation answers as the hull moved
        scene = mq.Scene()
        scene.add(self.bvh, translation=(1.0, 0.0, 0.0))
        scene.commit()
        placed = L(scene.overlap_counts(mq.convexes(hulls, translations=[(1.0, 0.0, 0.0)] * len(hulls))))
        self.assertEqual(placed, counts[:12])
        with self.assertRaises(mq.MeshqueryError):
            mq.Convex([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)])  # a plane

    def test_distances_and_clearance(self):
        suz = mq.load_obj(SUZANNE)
        lo, hi = suz.bounds()
        c = [(a + b) / 2 for a, b in zip(lo, hi)]
        for cls in (mq.BVH, mq.OBBTree):
            a, b = cls(self.spot), cls(suz)
            far = (3.0 - c[0], -c[1], -c[2])  # suzanne's centre at x = 3
            d = a.distance(b, translation=far)
            self.assertGreater(d["distance"], 0.5)
            self.assertAlmostEqual(d["distance"], math.dist(d["point_a"], d["point_b"]), places=5)
            self.assertIsNone(a.distance(b, translation=far, max_distance=0.1))
            self.assertEqual(a.distance(b, translation=(-c[0], -c[1], -c[2]))["distance"], 0.0)  # overlapping
            near = a.clearance(b, d["distance"] * 1.01, translation=far)
            self.assertGreater(len(near), 0)
            self.assertTrue(all(x <= d["distance"] * 1.01 for x in L(near.distance)))
            self.assertIn(d["triangle_a"], L(near.triangle_a))
            self.assertTrue(a.clearance_any(b, d["distance"] * 1.01, translation=far))
            self.assertFalse(a.clearance_any(b, d["distance"] * 0.99, translation=far))
            s = a.shape_distance(mq.sphere((0.0, 0.2, 3.0), 0.1))
            self.assertAlmostEqual(s["distance"], self.bvh.closest_point((0.0, 0.2, 3.0)).distance - 0.1, places=5)
            sc = a.shape_clearance(mq.sphere((0.0, 0.2, 3.0), 0.1), s["distance"] * 1.01)
            self.assertIn(s["triangle"], L(sc.triangle_b))
            with self.assertRaises(TypeError):
                a.distance(self.tree if cls is mq.BVH else self.bvh)

    def test_refit_and_validate(self):
        m = mq.load_obj(SUZANNE)
        b = mq.BVH(m)
        b.validate()
        lo, hi = m.bounds()
        o = ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2] + 5)
        before = b.raycast_closest(o, (0, 0, -1))
        moved = [(2 * x, 2 * y, 2 * z) for x, y, z in L(m.positions)]  # exact: every float doubled
        b.refit(moved)
        b.validate()
        after = b.raycast_closest(tuple(2 * x for x in o), (0, 0, -1))
        self.assertEqual(after.triangle, before.triangle)
        self.assertEqual(after.t, 2 * before.t)
        b.refit()  # back to the mesh's own positions
        self.assertEqual(b.raycast_closest(o, (0, 0, -1)).triangle, before.triangle)
        with self.assertRaises(ValueError):
            b.refit([(0, 0, 0)])

    def test_help_reads(self):
        for obj in (mq, mq.BVH, mq.OBBTree, mq.Scene, mq.Mesh, mq.Shapes, mq.BVH.raycast_all_batch,
                    mq.BVH.closest_points, mq.Scene.raycast):
            self.assertTrue(obj.__doc__ and len(obj.__doc__) > 30, obj)


if __name__ == "__main__":
    if os.environ.get("MQ_REQUIRE_NUMPY") == "1" and not mq.HAS_NUMPY:
        print("NumPy is not importable by %s: this NumPy test FAILS (install python3-numpy, "
              "or configure with -DMQ_PYTHON_NUMPY=/path/to/python3)" % sys.executable, file=sys.stderr)
        sys.exit(1)
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[1:])
