"""Scenes (C: mq_scene, meshquery/scene.h): instances of BVHs and OBB trees
placed by transforms, queried in world space in double precision.

    scene = meshquery.Scene()
    a = scene.add(bvh, translation=(1, 0, 0), rotation=(1, 0, 0, 0), scale=(2, 2, 2), user_id=7)
    scene.commit()                         # edits are staged until commit()
    hits = scene.raycast(origins, directions)
    hits.instance, hits.triangle, hits.t, hits.point, hits.user_id
    casts = scene.shape_casts(meshquery.spheres(centres, 0.1), directions, tmax=1.0)
"""
import ctypes
import math
from typing import Callable, Optional, Sequence

from . import _capi as _c
from . import (MeshqueryError, Records, SceneHits, Shapes, _check, _dvec3, _Handle, _make_rays, _Out, _pack3,
               _records_data, _records_from_bytes, _records_out, np)

__all__ = ["Scene", "ClashList", "SceneCastHits"]


def _xform(transform=None, translation=(0.0, 0.0, 0.0), rotation=(1.0, 0.0, 0.0, 0.0), scale=(1.0, 1.0, 1.0)):
    """An mq_xform from a 3 x 4 or 4 x 4 matrix (rows), or from translation,
    rotation (quaternion w, x, y, z) and scale (a number or 3)."""
    if transform is not None:
        rows = transform.tolist() if hasattr(transform, "tolist") else [list(r) for r in transform]
        if len(rows) not in (3, 4) or any(len(r) != 4 for r in rows[:3]):
            raise ValueError("transform: a 3 x 4 or 4 x 4 matrix")
        xf = _c.MqXform()
        for i in range(3):
            for j in range(4):
                xf.m[i][j] = float(rows[i][j])
        return xf
    if not hasattr(scale, "__len__"):
        scale = (scale, scale, scale)
    rot = (ctypes.c_double * 4)(*[float(x) for x in rotation])
    return _c.lib.mq_xform_from_trs(_dvec3(translation, "translation"), rot, _dvec3(scale, "scale"))


def _squery(mask, cull_back_faces=False):
    q = _c.lib.mq_default_scene_query()
    q.mask = mask & 0xFFFFFFFF
    q.cull_back_faces = bool(cull_back_faces)
    return q


class Scene(_Handle):
    """A scene of instances (C: mq_scene). add / remove / set_transform /
    set_mask stage edits; commit() applies them (raises MeshqueryError with the
    diagnostic on failure). Queries see the last committed state, in world
    space, in double precision. Keeps the added hierarchies alive.

    Every query takes `mask`: only instances whose mask shares a bit with it
    take part (default all)."""
    _destroy = "mq_scene_destroy"

    def __init__(self):
        out, diag = ctypes.c_void_p(), _c.MqDiag()
        _check(_c.lib.mq_scene_create(None, ctypes.byref(out), ctypes.byref(diag)), diag, "Scene")
        self._h = out.value
        self._trees = {}

    # ---- building -----------------------------------------------------------

    def add(self, tree, transform=None, translation: Sequence[float] = (0.0, 0.0, 0.0),
            rotation: Sequence[float] = (1.0, 0.0, 0.0, 0.0), scale=(1.0, 1.0, 1.0), user_id: int = 0,
            mask: int = 0xFFFFFFFF) -> int:
        """Stages an instance of `tree` (a BVH or an OBBTree) placed by `transform`
        (3 x 4 or 4 x 4 rows) or by translation, rotation (quaternion w, x, y, z)
        and scale (world = T R S local). Returns the instance id."""
        from . import BVH, OBBTree
        d = _c.lib.mq_default_instance_def()
        if isinstance(tree, BVH):
            d.bvh = tree.handle
        elif isinstance(tree, OBBTree):
            d.obbtree = tree.handle
        else:
            raise TypeError("Scene.add: a BVH or an OBBTree, not %s" % type(tree).__name__)
        d.transform = _xform(transform, translation, rotation, scale)
        d.user_id = int(user_id)
        d.mask = int(mask) & 0xFFFFFFFF
        iid, diag = ctypes.c_uint32(), _c.MqDiag()
        _check(_c.lib.mq_scene_add(self.handle, ctypes.byref(d), ctypes.byref(iid), ctypes.byref(diag)), diag,
               "Scene.add")
        self._trees[iid.value] = tree
        return iid.value

    def remove(self, instance: int) -> None:
        """Stages the removal of an instance (MeshqueryError for an unknown id)."""
        _check(_c.lib.mq_scene_remove(self.handle, instance), None, "Scene.remove")

    def set_transform(self, instance: int, transform=None, translation=(0.0, 0.0, 0.0),
                      rotation=(1.0, 0.0, 0.0, 0.0), scale=(1.0, 1.0, 1.0)) -> None:
        """Stages a new placement of an instance (arguments as add)."""
        xf, diag = _xform(transform, translation, rotation, scale), _c.MqDiag()
        _check(_c.lib.mq_scene_set_transform(self.handle, instance, ctypes.byref(xf), ctypes.byref(diag)), diag,
               "Scene.set_transform")

    def set_mask(self, instance: int, mask: int) -> None:
        """Stages a new query mask of an instance."""
        _check(_c.lib.mq_scene_set_mask(self.handle, instance, mask & 0xFFFFFFFF), None, "Scene.set_mask")

    def commit(self) -> None:
        """Applies the staged edits and rebuilds the top-level hierarchy."""
        diag = _c.MqDiag()
        _check(_c.lib.mq_scene_commit(self.handle, ctypes.byref(diag)), diag, "Scene.commit")

    @property
    def instance_count(self) -> int:
        """Instances of the committed scene."""
        return _c.lib.mq_scene_instance_count(self.handle)

    @property
    def byte_count(self) -> int:
        return _c.lib.mq_scene_byte_count(self.handle)

    def bounds(self):
        """The committed world box ((min), (max)), or None for an empty scene."""
        b = _c.MqDaabb()
        if not _c.lib.mq_scene_bounds(self.handle, ctypes.byref(b)):
            return None
        return tuple(b.min), tuple(b.max)

    def instance(self, instance: int) -> Optional[dict]:
        """The committed instance: dict of tree, transform (3 x 4 rows), user_id, mask; None if unknown."""
        d = _c.MqInstanceDef()
        if not _c.lib.mq_scene_instance(self.handle, instance, ctypes.byref(d)):
            return None
        return {"tree": self._trees.get(instance), "transform": [list(r) for r in d.transform.m],
                "user_id": d.user_id, "mask": d.mask}

    # ---- rays -----------------------------------------------------------------

    def raycast(self, origins, directions, tmin=0.0, tmax=math.inf, mask: int = 0xFFFFFFFF,
                cull_back_faces: bool = False, threads: int = 0) -> SceneHits:
        """Closest world hits of N rays (double precision), one C batch: SceneHits."""
        n, rays, keep = _make_rays(origins, directions, tmin, tmax, double=True)
        q = _squery(mask, cull_back_faces)
        out, finish = _records_out(_c.MqSceneHit, n)
        _c.lib.mq_scene_raycast_closest_batch(self.handle, rays, n, ctypes.byref(q), threads, out)
        return finish(SceneHits)

    def occluded(self, origins, directions, tmin=0.0, tmax=math.inf, mask: int = 0xFFFFFFFF,
                 cull_back_faces: bool = False, threads: int = 0):
        """Any-hit answers of N world rays, one C batch: bool array / list."""
        n, rays, keep = _make_rays(origins, directions, tmin, tmax, double=True)
        q = _squery(mask, cull_back_faces)
        out = _Out("bool", n)
        _c.lib.mq_scene_raycast_any_batch(self.handle, rays, n, ctypes.byref(q), threads, out.ptr)
        return out.value()

    def raycast_all(self, origin, direction, tmin=0.0, tmax=math.inf, mask: int = 0xFFFFFFFF,
                    cull_back_faces: bool = False) -> SceneHits:
        """Every world hit of one ray, nearest first, as SceneHits."""
        n, rays, keep = _make_rays([origin], [direction], tmin, tmax, double=True)
        q = _squery(mask, cull_back_faces)
        ray = ctypes.cast(rays, ctypes.POINTER(_c.MqDray))
        total = _c.lib.mq_scene_raycast_all(self.handle, ray, ctypes.byref(q), None, 0)
        out, finish = _records_out(_c.MqSceneHit, total)
        _c.lib.mq_scene_raycast_all(self.handle, ray, ctypes.byref(q), out, total)
        return finish(SceneHits)

    # ---- shapes and points ------------------------------------------------------

    def overlap(self, shape: Shapes, mask: int = 0xFFFFFFFF):
        """(instance, triangle) pairs overlapping one world shape (a Shapes of
        length 1): a P x 2 uint32 array, or a list of tuples."""
        if len(shape) != 1:
            raise ValueError("overlap: one shape (use overlap_counts for batches)")
        _, ptr, keep = shape._packed(True)
        sp, q = ctypes.cast(ptr, ctypes.POINTER(_c.MqDshape)), _squery(mask)
        cap = 256
        while True:
            buf = (_c.MqInstanceTriangle * cap)()
            total = _c.lib.mq_scene_overlap_array(self.handle, sp, ctypes.byref(q), buf, cap)
            if total <= cap:
                break
            cap = total
        if np is not None:
            return np.frombuffer(buf, dtype=np.uint32, count=2 * total).reshape(total, 2).copy()
        return [(buf[i].instance, buf[i].triangle) for i in range(total)]

    def overlap_any(self, shape: Shapes, mask: int = 0xFFFFFFFF) -> bool:
        """True when some triangle overlaps the one world shape."""
        if len(shape) != 1:
            raise ValueError("overlap_any: one shape")
        _, ptr, keep = shape._packed(True)
        q = _squery(mask)
        return bool(_c.lib.mq_scene_overlap_any(self.handle, ctypes.cast(ptr, ctypes.POINTER(_c.MqDshape)),
                                                ctypes.byref(q)))

    def overlap_counts(self, shapes: Shapes, mask: int = 0xFFFFFFFF, threads: int = 0):
        """For each world shape the number of (instance, triangle) it overlaps, one C batch."""
        n, ptr, keep = shapes._packed(True)
        q, out = _squery(mask), _Out("u64", n)
        _c.lib.mq_scene_overlap_count_batch(self.handle, ptr, n, ctypes.byref(q), threads, out.ptr)
        return out.value()

    def overlaps_any(self, shapes: Shapes, mask: int = 0xFFFFFFFF, threads: int = 0):
        """For each world shape whether it overlaps anything, one C batch."""
        n, ptr, keep = shapes._packed(True)
        q, out = _squery(mask), _Out("bool", n)
        _c.lib.mq_scene_overlap_any_batch(self.handle, ptr, n, ctypes.byref(q), threads, out.ptr)
        return out.value()

    def closest_points(self, points, max_distance: float = math.inf, mask: int = 0xFFFFFFFF,
                       threads: int = 0) -> Records:
        """The nearest world point of N points, one C batch: Records of point,
        distance, u, v, instance, triangle, user_id (where nothing lies within
        max_distance: distance inf, instance and triangle 0xFFFFFFFF), and `found`."""
        n, ptr, keep = _pack3(points, "points", ctypes.c_double)
        q, found = _squery(mask), _Out("bool", n)
        out, finish = _records_out(_c.MqScenePointHit, n)
        if np is not None:  # misses are left untouched by C: preset them
            rec = ctypes.cast(out, ctypes.POINTER(_c.MqScenePointHit * max(1, n))).contents
            arr = np.frombuffer(rec, dtype=np.dtype(_c.MqScenePointHit))
            arr["distance"], arr["instance"], arr["triangle"] = np.inf, 0xFFFFFFFF, 0xFFFFFFFF
        else:
            rec = ctypes.cast(out, ctypes.POINTER(_c.MqScenePointHit * max(1, n))).contents
            for r in rec:
                r.distance, r.instance, r.triangle = math.inf, 0xFFFFFFFF, 0xFFFFFFFF
        _c.lib.mq_scene_closest_point_batch(self.handle, ptr, n, max_distance, ctypes.byref(q), threads, out,
                                            found.ptr)
        r = finish()
        r.found = found.value()
        return r

    def closest_point(self, point, max_distance: float = math.inf, mask: int = 0xFFFFFFFF) -> Optional[dict]:
        """The nearest world point to one point as a dict (point, distance, u, v,
        instance, triangle, user_id), or None."""
        h, q = _c.MqScenePointHit(), _squery(mask)
        if not _c.lib.mq_scene_closest_point(self.handle, _dvec3(point), max_distance, ctypes.byref(q),
                                             ctypes.byref(h)):
            return None
        return {"point": tuple(h.point), "distance": h.distance, "u": h.u, "v": h.v, "instance": h.instance,
                "triangle": h.triangle, "user_id": h.user_id}

    # ---- shape casts -------------------------------------------------------------

    def shape_casts(self, shapes: Shapes, directions, tmax: float = math.inf, mask: int = 0xFFFFFFFF,
                    threads: int = 0) -> "SceneCastHits":
        """Sweeps N world shapes (spheres, capsules or placed convexes: a
        Shapes from spheres(), capsules(), convexes(); boxes hit nothing),
        shape i along directions[i] (N x 3) over t in [0, tmax], in one C batch
        (mq_scene_shape_cast_batch). SceneCastHits of t, point, normal,
        instance (NO_INSTANCE on a miss), triangle, user_id,
        initially_overlapping, plus `hit`. One tmax for all: give each cast its
        own length with tmax = 1 and the whole motion as its direction."""
        n, ptr, keep = shapes._packed(True)
        nd, dptr, dkeep = _pack3(directions, "directions", ctypes.c_double)
        if nd != n:
            raise ValueError("shape_casts: %d shapes but %d directions" % (n, nd))
        q = _squery(mask)
        out, finish = _records_out(_c.MqSceneCastHit, n, zero=False)
        if n:
            _c.lib.mq_scene_shape_cast_batch(self.handle, ptr, dptr, n, float(tmax), ctypes.byref(q), threads, out)
        return finish(SceneCastHits)

    def shape_cast(self, shape: Shapes, direction, tmax: float = math.inf,
                   mask: int = 0xFFFFFFFF) -> Optional[dict]:
        """The first contact of one world shape (a Shapes of length 1) moved
        along `direction` over [0, tmax], as a dict (t, point, normal, instance,
        triangle, user_id, initially_overlapping), or None on a miss."""
        if len(shape) != 1:
            raise ValueError("shape_cast: one shape (use shape_casts for batches)")
        _, ptr, keep = shape._packed(True)
        h, q = _c.MqSceneCastHit(), _squery(mask)
        if not _c.lib.mq_scene_shape_cast(self.handle, ctypes.cast(ptr, ctypes.POINTER(_c.MqDshape)),
                                          _dvec3(direction), float(tmax), ctypes.byref(q), ctypes.byref(h)):
            return None
        return {"t": h.t, "point": tuple(h.point), "normal": tuple(h.normal), "instance": h.instance,
                "triangle": h.triangle, "user_id": h.user_id, "initially_overlapping": h.initially_overlapping}

    def collide(self, a: int, b: int):
        """Intersecting triangle pairs (a's triangle, b's triangle) of two instances
        as placed: a P x 2 uint32 array, or a list of tuples."""
        cap = 1024
        while True:
            buf = (_c.MqTriPair * cap)()
            total = _c.lib.mq_scene_collide_array(self.handle, a, b, buf, cap)
            if total <= cap:
                break
            cap = total
        if np is not None:
            return np.frombuffer(buf, dtype=np.uint32, count=2 * total).reshape(total, 2).copy()
        return [(buf[i].a, buf[i].b) for i in range(total)]

    # ---- clashes (clash.h) ------------------------------------------------------

    def clash(self, clearance: float = 0.0, mask: int = 0xFFFFFFFF, threads: int = 0, max_triangle_pairs: int = 0,
              filter: Optional[Callable[[int, int], bool]] = None) -> "ClashList":
        """Every pair of committed instances (a < b) at distance <= clearance
        (touching counts; 0: those that intersect or touch), sorted by (a, b)
        (mq_scene_clash: candidates from the top-level tree, distances on
        `threads` threads, 0 = all cores; the answer does not depend on it).
        Only instances whose mask shares a bit with `mask` take part.
        `filter(a, b)` (optional) is called once per candidate pair on this
        thread; return False to skip it. An exception it raises skips the
        remaining pairs and is raised again once the C call returns.
        max_triangle_pairs > 0 also records up to that many triangle pairs
        within the clearance per clash (ClashList.pairs). Raises MeshqueryError
        for a NaN, negative or infinite clearance."""
        o = _c.lib.mq_default_clash_options()
        o.clearance, o.mask, o.threads = float(clearance), int(mask) & 0xFFFFFFFF, int(threads)
        o.max_triangle_pairs = int(max_triangle_pairs)
        cb, raised = None, []
        if filter is not None:
            def keep(a, b, user):
                if raised:
                    return False
                try:
                    return bool(filter(a, b))
                except BaseException as e:  # re-raised below, once the C call is back
                    raised.append(e)
                    return False

            cb = _c.CLASH_FILTER_FN(keep)
            o.filter = ctypes.cast(cb, ctypes.c_void_p)
        out, diag = ctypes.c_void_p(), _c.MqDiag()
        _check(_c.lib.mq_scene_clash(self.handle, ctypes.byref(o), ctypes.byref(out), ctypes.byref(diag)), diag,
               "Scene.clash")
        if raised:
            _c.lib.mq_clash_list_destroy(out.value)
            raise raised[0]
        try:
            return ClashList(out.value)
        finally:
            _c.lib.mq_clash_list_destroy(out.value)
            del cb

    def distance(self, a: int, b: int, max_distance: float = math.inf) -> Optional[dict]:
        """The distance between committed instances a and b as placed (mq_scene_distance;
        masks do not apply): a dict of distance (0 when they intersect or touch),
        triangle_a, triangle_b, point_a, point_b (world); None when it exceeds
        max_distance or for an unknown instance."""
        r = _c.MqInstanceDistance()
        if not _c.lib.mq_scene_distance(self.handle, int(a), int(b), float(max_distance), ctypes.byref(r)):
            return None
        return {"distance": r.distance, "triangle_a": r.triangle_a, "triangle_b": r.triangle_b,
                "point_a": tuple(r.point_a), "point_b": tuple(r.point_b)}


class SceneCastHits(Records):
    """First contacts of a batch of world shape casts (C: mq_scene_cast_hit
    records, double precision): t (inf on a miss), point, normal, instance
    (NO_INSTANCE on a miss), triangle, user_id, initially_overlapping; plus
    `hit` (bool per cast)."""

    def __init__(self, ctype, count, data):
        super().__init__(ctype, count, data)
        if np is not None:
            self.hit = self.instance != 0xFFFFFFFF
        else:
            self.hit = [i != 0xFFFFFFFF for i in self.instance]


class ClashList(Records):
    """The clashes of Scene.clash (C: mq_clash records, copied), one per
    clashing pair, sorted by (instance_a, instance_b): instance_a, instance_b,
    distance, triangle_a, triangle_b (a closest pair), point_a, point_b
    (world), pair_count. pairs(i) gives clash i's recorded triangle pairs."""

    def __init__(self, handle):
        n = _c.lib.mq_clash_list_count(handle)
        size = ctypes.sizeof(_c.MqClash)
        first = _c.lib.mq_clash_list_get(handle, 0) if n else None
        if n and _c.lib.mq_clash_list_get(handle, n - 1) == first + (n - 1) * size:
            raw = ctypes.string_at(first, n * size)  # the list's clashes are one array: one copy
        else:
            raw = b"".join(ctypes.string_at(_c.lib.mq_clash_list_get(handle, i), size) for i in range(n))
        super().__init__(_c.MqClash, n, _records_data(_c.MqClash, n, raw))
        self._pairs = {}
        counts = [int(c) for c in (self.pair_count.tolist() if np is not None else self.pair_count)]
        psize = ctypes.sizeof(_c.MqClashTriPair)
        for i, c in enumerate(counts):  # only clashes with recorded pairs (max_triangle_pairs > 0)
            if c:
                k = ctypes.c_size_t()
                ptr = _c.lib.mq_clash_list_pairs(handle, i, ctypes.byref(k))
                self._pairs[i] = _records_from_bytes(_c.MqClashTriPair, k.value, ctypes.string_at(ptr, k.value * psize))

    def pairs(self, i: int) -> Records:
        """The triangle pairs recorded for clash i (Records of triangle_a,
        triangle_b, distance), at most max_triangle_pairs, in the walk's order."""
        if not 0 <= i < self.count:
            raise IndexError("clash %d out of range" % i)
        return self._pairs.get(i) or _records_from_bytes(_c.MqClashTriPair, 0, b"")


# MeshqueryError is re-exported for `from meshquery.scene import *` users.
_ = MeshqueryError
