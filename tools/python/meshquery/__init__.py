"""meshquery: exact, fast geometric queries on triangle meshes, from Python.

A thin layer over the C library (libmeshquery.so) through the standard
library's ctypes: nothing is compiled at install time. With NumPy installed,
arrays go in and come out (N x 3 float arrays, structured hit arrays); without
it, plain lists and tuples do.

    import meshquery as mq
    mesh = mq.load_obj("bunny.obj")
    bvh = mq.BVH(mesh)
    hits = bvh.raycast(origins, directions)        # batch, on all cores
    hits.triangle, hits.t, hits.point, hits.face   # per ray; misses: triangle == mq.NO_TRIANGLE
    tree = mq.OBBTree(mesh)
    tree.overlap_sphere((0, 0, 0), 0.1)             # triangle ids
    tree.closest_point((0, 1, 0))                   # PointHit or None
    tree.collide(other_tree, translation=(0.1, 0, 0))  # (triangle of A, triangle of B) pairs

The library is found through MESHQUERY_LIBRARY (a path), beside an installed
package (<libdir>/meshquery/python), in a source checkout's build/, or on the
system's library path. Set MESHQUERY_NO_NUMPY=1 to ignore NumPy.

Errors of loading and building raise MeshqueryError with the library's
diagnostic (message, path, line, column). Queries never fail: invalid inputs
(NaN, negative radius, zero direction) give "no hit / no overlap".

Thread safety: built objects are immutable and the C calls release the GIL, so
one BVH / OBBTree may be queried from several Python threads at once. Objects
free their C memory when garbage collected, or at once with close().
"""
import collections
import ctypes
import math
import os
import struct

from . import _capi as _c

__all__ = ["MeshqueryError", "Mesh", "BVH", "OBBTree", "RayHits", "Hit", "PointHit", "load_obj", "load_obj_text",
           "version", "library_path", "HAS_NUMPY", "NO_TRIANGLE"]

if os.environ.get("MESHQUERY_NO_NUMPY", "") not in ("", "0"):
    np = None
else:
    try:
        import numpy as np
    except ImportError:  # plain lists then
        np = None

#: True when NumPy is used for inputs and outputs.
HAS_NUMPY = np is not None
#: The triangle id of a miss.
NO_TRIANGLE = _c.MQ_NO_TRIANGLE

Hit = collections.namedtuple("Hit", "t point normal u v triangle face back_face")
Hit.__doc__ = "One ray hit: t, point, geometric normal, barycentrics u v, triangle id, OBJ face, back_face."
PointHit = collections.namedtuple("PointHit", "point distance triangle u v")
PointHit.__doc__ = "The closest point of a mesh: point, distance, triangle id, barycentrics u v."


def version():
    """The C library's version, e.g. '0.1.0'."""
    return _c.lib.mq_version().decode()


def library_path():
    """The path of the loaded libmeshquery."""
    return _c.lib_path


class MeshqueryError(Exception):
    """A failed load or build. Attributes: status (int), status_name ('MQ_ERR_PARSE', ...),
    message, path, line, column (0 when not applicable)."""

    def __init__(self, status, diag, what=""):
        self.status = int(status)
        self.status_name = _c.STATUS_NAMES.get(self.status, str(self.status))
        self.message = diag.message.decode(errors="replace") or _c.lib.mq_status_string(status).decode()
        self.path = diag.path.decode(errors="replace")
        self.line = int(diag.line)
        self.column = int(diag.column)
        where = self.path
        if self.line:
            where += ":%d" % self.line + (":%d" % self.column if self.column else "")
        text = "%s: %s" % (where, self.message) if where else self.message
        if what and not where:
            text = "%s: %s" % (what, text)
        super().__init__("%s (%s)" % (text, self.status_name))


def _check(status, diag, what=""):
    if status != _c.MQ_OK:
        raise MeshqueryError(status, diag, what)


# ---------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------

def _vec3(v, name="point"):
    out = _c.vec3()
    try:
        x, y, z = (float(a) for a in v)
    except (TypeError, ValueError):
        raise ValueError("%s: expected 3 numbers, got %r" % (name, v)) from None
    out[0], out[1], out[2] = x, y, z
    return out


def _rows3(a, name):
    """A sequence of 3-vectors -> (count, flat list or float32 ndarray)."""
    if np is not None:
        arr = np.ascontiguousarray(a, dtype=np.float32)
        if arr.ndim == 1 and arr.shape[0] in (0, 3):
            arr = arr.reshape(-1, 3)
        if arr.ndim != 2 or arr.shape[1] != 3:
            raise ValueError("%s: expected an (N, 3) array, got shape %s" % (name, arr.shape))
        return arr.shape[0], arr
    rows = [tuple(float(x) for x in r) for r in a]
    for r in rows:
        if len(r) != 3:
            raise ValueError("%s: expected rows of 3 numbers" % name)
    return len(rows), rows


def _ids(buf, n):
    if np is not None:
        return np.frombuffer(buf, dtype=np.uint32, count=n).copy()
    return list(buf[:n])


_HIT_FMT, _HIT_FIELDS = _c.struct_format(_c.MqHit)
if np is not None:
    _RAY_DTYPE = np.dtype({"names": ["origin", "tmin", "dir", "tmax"],
                           "formats": [(np.float32, 3), np.float32, (np.float32, 3), np.float32],
                           "offsets": [_c.MqRay.origin.offset, _c.MqRay.tmin.offset, _c.MqRay.dir.offset,
                                       _c.MqRay.tmax.offset],
                           "itemsize": ctypes.sizeof(_c.MqRay)})
    _HIT_DTYPE = np.dtype(_c.MqHit)


class RayHits:
    """Closest hits of a batch of rays, one entry per ray.

    With NumPy every attribute is an array: hit (bool), t (float32, inf on a
    miss), triangle and face (uint32, NO_TRIANGLE on a miss), point and normal
    (N x 3), u, v, back_face; `records` is the structured array of the C
    mq_hit records. Without NumPy they are lists (point and normal: tuples)."""

    def __init__(self, count, records=None, rows=None):
        self.count = count
        self.records = records
        if records is not None:
            self.t = records["t"]
            self.triangle = records["triangle"]
            self.face = records["face"]
            self.point = records["point"]
            self.normal = records["normal"]
            self.u = records["u"]
            self.v = records["v"]
            self.back_face = records["back_face"]
            self.hit = self.triangle != NO_TRIANGLE
        else:
            cols = {name: [] for name, _ in _HIT_FIELDS}
            for vals in rows:
                k = 0
                for name, n in _HIT_FIELDS:
                    cols[name].append(vals[k] if n == 1 else tuple(vals[k:k + n]))
                    k += n
            self.t, self.triangle, self.face = cols["t"], cols["triangle"], cols["face"]
            self.point, self.normal = cols["point"], cols["normal"]
            self.u, self.v, self.back_face = cols["u"], cols["v"], cols["back_face"]
            self.hit = [tri != NO_TRIANGLE for tri in self.triangle]

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        """Hit i as a Hit tuple, or None for a miss."""
        if self.triangle[i] == NO_TRIANGLE:
            return None
        return Hit(float(self.t[i]), tuple(float(x) for x in self.point[i]), tuple(float(x) for x in self.normal[i]),
                   float(self.u[i]), float(self.v[i]), int(self.triangle[i]), int(self.face[i]),
                   bool(self.back_face[i]))


def _hit_tuple(h):
    return Hit(h.t, tuple(h.point), tuple(h.normal), h.u, h.v, h.triangle, h.face, bool(h.back_face))


def _make_rays(origins, directions, tmin, tmax):
    """Packs rays for the C batch calls: returns (count, ctypes pointer, keepalive)."""
    n, o = _rows3(origins, "origins")
    nd, d = _rows3(directions, "directions")
    if n != nd:
        raise ValueError("origins and directions differ in length (%d, %d)" % (n, nd))
    if np is not None:
        rays = np.empty(n, dtype=_RAY_DTYPE)
        rays["origin"] = o
        rays["dir"] = d
        rays["tmin"] = tmin
        rays["tmax"] = tmax
        return n, rays.ctypes.data_as(ctypes.c_void_p), rays
    tmins = list(tmin) if hasattr(tmin, "__len__") else [tmin] * n
    tmaxs = list(tmax) if hasattr(tmax, "__len__") else [tmax] * n
    flat = []
    for i in range(n):
        flat.extend(o[i])
        flat.append(tmins[i])
        flat.extend(d[i])
        flat.append(tmaxs[i])
    buf = (ctypes.c_float * len(flat))(*flat) if flat else (ctypes.c_float * 1)()
    return n, ctypes.cast(buf, ctypes.c_void_p), buf


def _ray(origin, direction, tmin, tmax):
    r = _c.MqRay()
    r.origin = _vec3(origin, "origin")
    r.dir = _vec3(direction, "direction")
    r.tmin, r.tmax = tmin, tmax
    return r


def _query(cull_back_faces):
    q = _c.lib.mq_default_ray_query()
    q.cull_back_faces = bool(cull_back_faces)
    return q


class _Handle:
    _destroy = None

    def close(self):
        """Frees the C object now (later calls fail). Called by the garbage collector otherwise."""
        h, self._h = getattr(self, "_h", None), None
        if h and self._destroy is not None:
            try:
                getattr(_c.lib, self._destroy)(h)
            except Exception:  # interpreter shutdown
                pass

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def handle(self):
        if not self._h:
            raise ValueError("%s is closed" % type(self).__name__)
        return self._h


# ---------------------------------------------------------------------------
# Meshes
# ---------------------------------------------------------------------------

class Mesh(_Handle):
    """An immutable triangle mesh (C: mq_mesh). Get one from load_obj(),
    load_obj_text() or Mesh.from_arrays(). `stats` holds the OBJ statement
    counts of a loaded file (a dict), or None."""
    _destroy = "mq_mesh_destroy"

    def __init__(self, handle, stats=None, owner=None):
        self._h = handle
        self.stats = stats
        if owner is not None:  # a mesh owned by a loaded hierarchy: never destroyed here
            self._destroy = None
            self._owner = owner

    @classmethod
    def from_arrays(cls, positions, indices):
        """A mesh from V x 3 positions and T x 3 vertex indices (copied)."""
        nv, pos = _rows3(positions, "positions")
        if np is not None:
            idx = np.ascontiguousarray(indices, dtype=np.uint32).reshape(-1, 3)
            nt = idx.shape[0]
            pptr, iptr = pos.ctypes.data_as(ctypes.c_void_p), idx.ctypes.data_as(ctypes.c_void_p)
            keep = (pos, idx)
        else:
            flat = [x for r in pos for x in r]
            tris = [tuple(int(i) for i in t) for t in indices]
            nt = len(tris)
            pbuf = (ctypes.c_float * max(1, len(flat)))(*flat)
            ibuf = (ctypes.c_uint32 * max(1, 3 * nt))(*[i for t in tris for i in t])
            pptr, iptr, keep = ctypes.cast(pbuf, ctypes.c_void_p), ctypes.cast(ibuf, ctypes.c_void_p), (pbuf, ibuf)
        out, diag = ctypes.c_void_p(), _c.MqDiag()
        _check(_c.lib.mq_mesh_create(pptr, nv, iptr, nt, None, ctypes.byref(out), ctypes.byref(diag)), diag,
               "Mesh.from_arrays")
        del keep
        return cls(out.value)

    @property
    def vertex_count(self):
        return _c.lib.mq_mesh_vertex_count(self.handle)

    @property
    def triangle_count(self):
        return _c.lib.mq_mesh_triangle_count(self.handle)

    @property
    def face_count(self):
        """Number of source faces (polygons) of the OBJ file."""
        return _c.lib.mq_mesh_face_count(self.handle)

    def _array(self, ptr, n, ctype, dtype):
        if n == 0:
            return np.zeros((0, 3), dtype=dtype) if np is not None else []
        raw = ctypes.cast(ptr, ctypes.POINTER(ctype * (3 * n))).contents
        if np is not None:
            return np.frombuffer(raw, dtype=dtype).reshape(n, 3).copy()
        flat = list(raw)
        return [tuple(flat[3 * i:3 * i + 3]) for i in range(n)]

    @property
    def positions(self):
        """Vertex positions, V x 3 (a copy)."""
        return self._array(_c.lib.mq_mesh_positions(self.handle), self.vertex_count, ctypes.c_float, "float32")

    @property
    def indices(self):
        """Triangle corner indices, T x 3 (a copy)."""
        return self._array(_c.lib.mq_mesh_indices(self.handle), self.triangle_count, ctypes.c_uint32, "uint32")

    def bounds(self):
        """(min, max) corners of the vertices' bounding box, as tuples."""
        p = self.positions
        if np is not None:
            if len(p) == 0:
                return None
            return tuple(float(x) for x in p.min(axis=0)), tuple(float(x) for x in p.max(axis=0))
        if not p:
            return None
        return tuple(min(r[k] for r in p) for k in range(3)), tuple(max(r[k] for r in p) for k in range(3))

    def triangle_source(self, triangle):
        """Where triangle `triangle` came from: dict with face, line (1-based OBJ line of
        its `f` statement), group, object, material (names, '' when none)."""
        if not 0 <= triangle < self.triangle_count:
            raise IndexError("triangle %d out of range" % triangle)
        s = _c.MqTriangleSource()
        _c.lib.mq_mesh_triangle_source(self.handle, triangle, ctypes.byref(s))
        return {"face": s.face, "line": s.line, "group": (s.group or b"").decode(),
                "object": (s.object or b"").decode(), "material": (s.material or b"").decode()}


def _obj_options(threads, strict, allow_non_finite):
    o = _c.lib.mq_default_obj_options()
    o.threads = threads
    o.strict = bool(strict)
    o.allow_non_finite = bool(allow_non_finite)
    return o


def _stats_dict(st):
    return {name: getattr(st, name) for name, _ in _c.MqObjStats._fields_}


def load_obj(path, threads=0, strict=False, allow_non_finite=False):
    """Loads a Wavefront OBJ file (mq_obj_load). Raises MeshqueryError with the
    file's path, line and column on malformed input, FileNotFoundError-like
    MQ_ERR_IO errors for unreadable files."""
    out, st, diag = ctypes.c_void_p(), _c.MqObjStats(), _c.MqDiag()
    opts = _obj_options(threads, strict, allow_non_finite)
    status = _c.lib.mq_obj_load(os.fsencode(path), ctypes.byref(opts), ctypes.byref(out), ctypes.byref(st),
                                ctypes.byref(diag))
    _check(status, diag)
    return Mesh(out.value, _stats_dict(st))


def load_obj_text(text, name="<memory>", threads=0, strict=False, allow_non_finite=False):
    """Loads OBJ text (str or bytes) from memory (mq_obj_load_memory); `name` is what errors call it."""
    data = text.encode() if isinstance(text, str) else bytes(text)
    out, st, diag = ctypes.c_void_p(), _c.MqObjStats(), _c.MqDiag()
    opts = _obj_options(threads, strict, allow_non_finite)
    status = _c.lib.mq_obj_load_memory(data, len(data), name.encode(), ctypes.byref(opts), ctypes.byref(out),
                                       ctypes.byref(st), ctypes.byref(diag))
    _check(status, diag)
    return Mesh(out.value, _stats_dict(st))


# ---------------------------------------------------------------------------
# BVH: raycasts
# ---------------------------------------------------------------------------

_QUALITY = {"low": 0, "medium": 1, "high": 2}


class _ShapeQueries:
    """Shape overlaps shared by BVH and OBBTree: each builds a tagged mq_shape and
    calls the hierarchy's mq_<tree>_overlap_array / mq_<tree>_overlap_any."""
    _overlap_array_fn = None  # C function names, set by the subclass
    _overlap_any_fn = None

    def _ids_of(self, shape):
        fn = getattr(_c.lib, self._overlap_array_fn)
        cap = 256
        while True:
            buf = (ctypes.c_uint32 * cap)()
            total = fn(self.handle, ctypes.byref(shape), buf, cap)
            if total <= cap:
                return _ids(buf, total)
            cap = total

    def _any(self, shape):
        return bool(getattr(_c.lib, self._overlap_any_fn)(self.handle, ctypes.byref(shape)))

    @staticmethod
    def _sphere(center, radius):
        return _c.shape(_c.MQ_SHAPE_SPHERE, _c.MqSphere(_vec3(center, "center"), radius))

    @staticmethod
    def _capsule(a, b, radius):
        return _c.shape(_c.MQ_SHAPE_CAPSULE, _c.MqCapsule(_vec3(a, "a"), _vec3(b, "b"), radius))

    @staticmethod
    def _aabb(lo, hi):
        return _c.shape(_c.MQ_SHAPE_AABB, _c.MqAabb(_vec3(lo, "min"), _vec3(hi, "max")))

    @staticmethod
    def _obb(center, half, axes, quat):
        box = _c.MqObb()
        if quat is not None:
            _c.lib.mq_obb_from_quat(_vec3(center, "center"), _vec3(half, "half"), _quat(quat), ctypes.byref(box))
        else:
            box.center, box.half = _vec3(center, "center"), _vec3(half, "half")
            for i, a in enumerate(axes if axes is not None else ((1, 0, 0), (0, 1, 0), (0, 0, 1))):
                box.axes[i] = _vec3(a, "axes[%d]" % i)
        return _c.shape(_c.MQ_SHAPE_OBB, box)

    def overlap_sphere(self, center, radius):
        """Ids of the triangles that overlap the solid sphere (touching counts), in no particular order."""
        return self._ids_of(self._sphere(center, radius))

    def any_overlap_sphere(self, center, radius):
        """True when some triangle overlaps the sphere."""
        return self._any(self._sphere(center, radius))

    def overlap_capsule(self, a, b, radius):
        """Ids of the triangles within `radius` of the segment a-b."""
        return self._ids_of(self._capsule(a, b, radius))

    def any_overlap_capsule(self, a, b, radius):
        """True when some triangle lies within `radius` of the segment a-b."""
        return self._any(self._capsule(a, b, radius))

    def overlap_aabb(self, lo, hi):
        """Ids of the triangles that overlap the axis-aligned box [lo, hi]."""
        return self._ids_of(self._aabb(lo, hi))

    def any_overlap_aabb(self, lo, hi):
        """True when some triangle overlaps the axis-aligned box [lo, hi]."""
        return self._any(self._aabb(lo, hi))

    def overlap_obb(self, center, half, axes=None, quat=None):
        """Ids of the triangles that overlap an oriented box: centre, half extents and
        either `axes` (three orthonormal unit vectors) or `quat` (a quaternion
        w, x, y, z, the scalar part first, as mq_obb_from_quat takes it)."""
        return self._ids_of(self._obb(center, half, axes, quat))

    def any_overlap_obb(self, center, half, axes=None, quat=None):
        """True when some triangle overlaps the oriented box (arguments as overlap_obb;
        `quat` a quaternion w, x, y, z)."""
        return self._any(self._obb(center, half, axes, quat))


class BVH(_ShapeQueries, _Handle):
    """An 8-wide SAH BVH over a mesh (C: mq_bvh): raycasts, shape overlaps, closest point.
    Keeps the mesh alive.

    BVH(mesh, quality='medium', max_leaf_size=4, threads=0)"""
    _destroy = "mq_bvh_destroy"
    _overlap_array_fn, _overlap_any_fn = "mq_bvh_overlap_array", "mq_bvh_overlap_any"

    def __init__(self, mesh, quality="medium", max_leaf_size=4, threads=0, _handle=None):
        if _handle is not None:  # from BVH.load
            self._h = _handle
            self.mesh = Mesh(_c.lib.mq_bvh_mesh(_handle), owner=self)
            return
        d = _c.lib.mq_default_bvh_def()
        if quality not in _QUALITY:
            raise ValueError("quality: one of %s" % ", ".join(_QUALITY))
        d.quality, d.max_leaf_size, d.threads = _QUALITY[quality], max_leaf_size, threads
        out, diag = ctypes.c_void_p(), _c.MqDiag()
        _check(_c.lib.mq_bvh_build(mesh.handle, ctypes.byref(d), ctypes.byref(out), ctypes.byref(diag)), diag,
               "BVH")
        self._h = out.value
        self.mesh = mesh  # the BVH references its mesh: keep it alive

    @property
    def byte_count(self):
        return _c.lib.mq_bvh_byte_count(self.handle)

    def stats(self):
        """The tree's shape and cost (mq_bvh_stats) as a dict."""
        s = _c.MqBvhStats()
        _c.lib.mq_bvh_get_stats(self.handle, ctypes.byref(s))
        return {name: getattr(s, name) for name, _ in _c.MqBvhStats._fields_}

    def closest_point(self, point, max_distance=math.inf):
        """The nearest surface point within max_distance as a PointHit, or None."""
        h = _c.MqPointHit()
        if _c.lib.mq_bvh_closest_point(self.handle, _vec3(point), max_distance, ctypes.byref(h)):
            return PointHit(tuple(h.point), h.distance, h.triangle, h.u, h.v)
        return None

    def raycast(self, origins, directions, tmin=0.0, tmax=math.inf, threads=0, cull_back_faces=False):
        """Closest hits of N rays (mq_bvh_raycast_closest_batch, on `threads` threads,
        0 = all cores). origins, directions: N x 3. tmin, tmax: scalars or length-N.
        Returns RayHits."""
        n, rays, keep = _make_rays(origins, directions, tmin, tmax)
        q = _query(cull_back_faces)
        if np is not None:
            hits = np.empty(n, dtype=_HIT_DTYPE)
            _c.lib.mq_bvh_raycast_closest_batch(self.handle, rays, n, ctypes.byref(q), threads,
                                                hits.ctypes.data_as(ctypes.c_void_p))
            del keep
            return RayHits(n, records=hits)
        hits = (_c.MqHit * max(1, n))()
        _c.lib.mq_bvh_raycast_closest_batch(self.handle, rays, n, ctypes.byref(q), threads, hits)
        del keep
        raw = memoryview(hits).cast("B")[:n * ctypes.sizeof(_c.MqHit)]
        return RayHits(n, rows=list(struct.iter_unpack(_HIT_FMT, raw)))

    def occluded(self, origins, directions, tmin=0.0, tmax=math.inf, threads=0, cull_back_faces=False):
        """Any-hit answers of N rays (mq_bvh_raycast_any_batch): bool array / list."""
        n, rays, keep = _make_rays(origins, directions, tmin, tmax)
        q = _query(cull_back_faces)
        out = (ctypes.c_bool * max(1, n))()
        _c.lib.mq_bvh_raycast_any_batch(self.handle, rays, n, ctypes.byref(q), threads, out)
        del keep
        if np is not None:
            return np.frombuffer(out, dtype=np.bool_, count=n).copy()
        return list(out[:n])

    def raycast_closest(self, origin, direction, tmin=0.0, tmax=math.inf, cull_back_faces=False):
        """The nearest hit of one ray as a Hit, or None."""
        r, h, q = _ray(origin, direction, tmin, tmax), _c.MqHit(), _query(cull_back_faces)
        if _c.lib.mq_bvh_raycast_closest(self.handle, ctypes.byref(r), ctypes.byref(q), ctypes.byref(h)):
            return _hit_tuple(h)
        return None

    def raycast_all(self, origin, direction, tmin=0.0, tmax=math.inf, cull_back_faces=False):
        """Every hit of one ray, nearest first (mq_bvh_raycast_all), as a list of Hit."""
        r, q = _ray(origin, direction, tmin, tmax), _query(cull_back_faces)
        cap = 16
        while True:
            hits = (_c.MqHit * cap)()
            total = _c.lib.mq_bvh_raycast_all(self.handle, ctypes.byref(r), ctypes.byref(q), hits, cap)
            if total <= cap:
                return [_hit_tuple(hits[i]) for i in range(total)]
            cap = total

    def save(self, path):
        """Saves the BVH and its mesh (meshquery/saved.h) for a fast BVH.load."""
        if not _c.HAVE_SAVED:
            raise NotImplementedError("this libmeshquery has no mq_bvh_save")
        diag = _c.MqDiag()
        _check(_c.lib.mq_bvh_save(self.handle, os.fsencode(path), ctypes.byref(diag)), diag)

    @classmethod
    def load(cls, path):
        """Loads a BVH saved by save(); it owns its mesh (bvh.mesh)."""
        if not _c.HAVE_SAVED:
            raise NotImplementedError("this libmeshquery has no mq_bvh_load")
        out, diag = ctypes.c_void_p(), _c.MqDiag()
        _check(_c.lib.mq_bvh_load(os.fsencode(path), None, ctypes.byref(out), ctypes.byref(diag)), diag)
        return cls(None, _handle=out.value)


# ---------------------------------------------------------------------------
# OBB tree: overlaps, closest point, mesh vs mesh
# ---------------------------------------------------------------------------

_FIT = {"dito": 0, "pca": 1, "aabb": 2}


def _quat(q, what="quat"):
    """A quaternion w, x, y, z (the scalar part first) as C's float[4]."""
    v = [float(a) for a in q]
    if len(v) != 4:
        raise ValueError("%s: a quaternion (w, x, y, z)" % what)
    return _c.quat(*v)


class OBBTree(_ShapeQueries, _Handle):
    """An OBB tree over a mesh (C: mq_obbtree): shape overlaps, closest point,
    raycasts, mesh vs mesh. Keeps the mesh alive.

    OBBTree(mesh, fit='dito' | 'pca' | 'aabb', max_leaf_size=4)"""
    _destroy = "mq_obbtree_destroy"
    _overlap_array_fn, _overlap_any_fn = "mq_obbtree_overlap_array", "mq_obbtree_overlap_any"

    def __init__(self, mesh, fit="dito", max_leaf_size=4):
        d = _c.lib.mq_default_obbtree_def()
        if fit not in _FIT:
            raise ValueError("fit: one of %s" % ", ".join(_FIT))
        d.fit, d.max_leaf_size = _FIT[fit], max_leaf_size
        out, diag = ctypes.c_void_p(), _c.MqDiag()
        _check(_c.lib.mq_obbtree_build(mesh.handle, ctypes.byref(d), ctypes.byref(out), ctypes.byref(diag)), diag,
               "OBBTree")
        self._h = out.value
        self.mesh = mesh

    def stats(self):
        """The tree's shape and size (mq_obbtree_stats) as a dict."""
        st = _c.MqObbtreeStats()
        _c.lib.mq_obbtree_get_stats(self.handle, ctypes.byref(st))
        return {name: getattr(st, name) for name, _ in st._fields_}

    @property
    def node_count(self):
        return self.stats()["node_count"]

    @property
    def depth(self):
        return self.stats()["max_depth"]

    @property
    def byte_count(self):
        return _c.lib.mq_obbtree_byte_count(self.handle)

    def root(self):
        """The root box as (center, half extents, axes) tuples, or None for an empty tree."""
        b = _c.MqObb()
        if not _c.lib.mq_obbtree_root(self.handle, ctypes.byref(b)):
            return None
        return tuple(b.center), tuple(b.half), tuple(tuple(a) for a in b.axes)

    def closest_point(self, point, max_distance=math.inf):
        """The nearest surface point within max_distance as a PointHit, or None."""
        h = _c.MqPointHit()
        if _c.lib.mq_obbtree_closest_point(self.handle, _vec3(point), max_distance, ctypes.byref(h)):
            return PointHit(tuple(h.point), h.distance, h.triangle, h.u, h.v)
        return None

    def closest_points(self, points, max_distance=math.inf):
        """closest_point for N points: (points N x 3, distance, triangle) arrays / lists;
        where nothing lies within max_distance: distance inf, triangle NO_TRIANGLE."""
        n, pts = _rows3(points, "points")
        out_p, out_d, out_t = [], [], []
        h, v = _c.MqPointHit(), _c.vec3()
        for i in range(n):
            v[0], v[1], v[2] = (float(x) for x in pts[i])
            if _c.lib.mq_obbtree_closest_point(self.handle, v, max_distance, ctypes.byref(h)):
                out_p.append(tuple(h.point))
                out_d.append(h.distance)
                out_t.append(h.triangle)
            else:
                out_p.append((math.nan,) * 3)
                out_d.append(math.inf)
                out_t.append(NO_TRIANGLE)
        if np is not None:
            return (np.array(out_p, dtype=np.float32).reshape(n, 3), np.array(out_d, dtype=np.float32),
                    np.array(out_t, dtype=np.uint32))
        return out_p, out_d, out_t

    def raycast_closest(self, origin, direction, tmin=0.0, tmax=math.inf, cull_back_faces=False):
        """The nearest hit of one ray through the OBB tree, as a Hit, or None."""
        r, h, q = _ray(origin, direction, tmin, tmax), _c.MqHit(), _query(cull_back_faces)
        if _c.lib.mq_obbtree_raycast_closest(self.handle, ctypes.byref(r), ctypes.byref(q), ctypes.byref(h)):
            return _hit_tuple(h)
        return None

    @staticmethod
    def _rigid(rotation, translation):
        xf = _c.MqRigid()
        xf.rotation = _quat(rotation, "rotation")
        xf.translation = _vec3(translation, "translation")
        return xf

    def collide(self, other, rotation=(1.0, 0.0, 0.0, 0.0), translation=(0.0, 0.0, 0.0)):
        """Intersecting triangle pairs (id in this mesh, id in other's) with `other`
        placed in this tree's frame by the rigid transform: `rotation` a quaternion
        w, x, y, z (the scalar part first; normalised first), then `translation`. A P x 2 uint32 array, or a list of tuples."""
        xf = self._rigid(rotation, translation)
        cap = 1024
        while True:
            buf = (_c.MqTriPair * cap)()
            total = _c.lib.mq_obbtree_collide_array(self.handle, other.handle, ctypes.byref(xf), buf, cap)
            if total <= cap:
                break
            cap = total
        if np is not None:
            return np.frombuffer(buf, dtype=np.uint32, count=2 * total).reshape(total, 2).copy()
        return [(buf[i].a, buf[i].b) for i in range(total)]

    def any_collide(self, other, rotation=(1.0, 0.0, 0.0, 0.0), translation=(0.0, 0.0, 0.0)):
        """True when some triangle pair intersects (see collide; `rotation` is a
        quaternion w, x, y, z)."""
        xf = self._rigid(rotation, translation)
        return bool(_c.lib.mq_obbtree_any_collide(self.handle, other.handle, ctypes.byref(xf)))
