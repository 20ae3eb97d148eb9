"""meshquery: exact, fast geometric queries on triangle meshes, from Python.

A thin layer over the C library (libmeshquery.so) through the standard
library's ctypes. With NumPy installed, arrays go in and come out (N x 3
float arrays, structured record arrays); without it, plain lists and tuples
do. Every batch call runs in C on the library's thread pool: no Python loop
per query.

    import meshquery as mq
    mesh = mq.load_obj("bunny.obj")
    bvh = mq.BVH(mesh)
    hits = bvh.raycast(origins, directions)        # batch, on all cores
    hits.triangle, hits.t, hits.point, hits.face   # per ray; misses: triangle == mq.NO_TRIANGLE
    ray, hits = bvh.raycast_all_batch(origins, directions)   # every hit: ray index + hits
    bvh.closest_points(points).distance            # batch of closest points
    bvh.contains(points), bvh.signed_distance(points)          # closed meshes
    bvh.overlap_counts(mq.spheres(centers, radii))             # tagged shapes, batch
    bvh.sphere_casts(centers, radii, directions)               # sweeps, batch
    tree = mq.OBBTree(mesh); tree.collide(other_tree, translation=(0.1, 0, 0))
    scene = mq.Scene(); scene.add(bvh, translation=(1, 0, 0)); scene.commit()
    scene.raycast(origins, directions).instance
    bvh.save("bunny.mqh"); mq.BVH.load_mapped("bunny.mqh")

The library is found through MESHQUERY_LIBRARY (a path), inside the package
(pip install), beside an installed package (<libdir>/meshquery/python), in a
source checkout's build/, or on the system's library path. Set
MESHQUERY_NO_NUMPY=1 to ignore NumPy.

Errors of loading, building and editing raise MeshqueryError with the
library's diagnostic (message, path, line, column). Queries never fail:
invalid inputs (NaN, negative radius, zero direction) give "no hit / no
overlap".

Thread safety: built objects are immutable (a Scene between commits) and the
C calls release the GIL, so one BVH / OBBTree / Scene may be queried from
several Python threads at once. Objects free their C memory when garbage
collected, or at once with close().
"""
import collections
import ctypes
import math
import os
import struct
from typing import Any, List, Optional, Sequence, Tuple

from . import _capi as _c

__all__ = ["MeshqueryError", "Mesh", "BVH", "OBBTree", "Scene", "Shapes", "Records", "RayHits", "Hit", "PointHit",
           "CastHit", "Convex", "load_obj", "load_obj_text", "spheres", "capsules", "aabbs", "obbs", "convexes",
           "sphere", "capsule", "aabb", "obb", "version", "library_path", "HAS_NUMPY", "NO_TRIANGLE", "NO_INSTANCE",
           "KDOPTree", "SphereTree", "intersect_triangles", "contact", "ClashList",
           "isa", "rigid_apply"]

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
#: The instance id of a scene miss.
NO_INSTANCE = 0xFFFFFFFF

Vec3 = Sequence[float]
Array = Any  # an (N, 3) / (N,) NumPy array, or a list

Hit = collections.namedtuple("Hit", "t point normal u v triangle face back_face")
Hit.__doc__ = "One ray hit: t, point, geometric normal, barycentrics u v, triangle id, OBJ face, back_face."
PointHit = collections.namedtuple("PointHit", "point distance triangle u v")
PointHit.__doc__ = "The closest point of a mesh: point, distance, triangle id, barycentrics u v."
CastHit = collections.namedtuple("CastHit", "t point normal triangle initially_overlapping")
CastHit.__doc__ = ("Where a moving sphere or capsule first touches the mesh: time t, contact point, contact normal "
                   "(from the mesh towards the shape), triangle id, whether it overlapped at t = 0.")


def version() -> str:
    """The C library's version, e.g. '0.1.0'."""
    return _c.lib.mq_version().decode()


def library_path() -> str:
    """The path of the loaded libmeshquery."""
    return _c.lib_path


class MeshqueryError(Exception):
    """A failed load, build, save or scene edit. Attributes: status (int),
    status_name ('MQ_ERR_PARSE', ...), message, path, line, column (0 when not
    applicable). str() reads "path:line:column: message (MQ_ERR_...)"."""

    def __init__(self, status, diag=None, what=""):
        diag = diag if diag is not None else _c.MqDiag()
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


def _check(status, diag=None, what=""):
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


def _dvec3(v, name="point"):
    out = _c.dvec3()
    try:
        out[0], out[1], out[2] = (float(a) for a in v)
    except (TypeError, ValueError):
        raise ValueError("%s: expected 3 numbers, got %r" % (name, v)) from None
    return out


def _rows3(a, name, dtype="float32"):
    """A sequence of 3-vectors -> (count, list of tuples or contiguous ndarray of dtype)."""
    if np is not None:
        arr = np.ascontiguousarray(a, dtype=dtype)
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


def _pack3(a, name, ctype=ctypes.c_float):
    """(N, 3) input packed for C: (count, c_void_p, keepalive)."""
    n, rows = _rows3(a, name, "float32" if ctype is ctypes.c_float else "float64")
    if np is not None:
        return n, rows.ctypes.data_as(ctypes.c_void_p), rows
    buf = (ctype * max(1, 3 * n))(*[x for r in rows for x in r])
    return n, ctypes.cast(buf, ctypes.c_void_p), buf


def _ptr(arr):
    """The address of a contiguous ndarray for a C call."""
    return arr.ctypes.data_as(ctypes.c_void_p)


def _column(v, n, name):
    """A scalar or length-n sequence -> list/ndarray of n floats."""
    if np is not None:
        arr = np.broadcast_to(np.asarray(v, dtype=np.float64), (n,))
        return arr
    if hasattr(v, "__len__"):
        out = [float(x) for x in v]
        if len(out) != n:
            raise ValueError("%s: expected %d values, got %d" % (name, n, len(out)))
        return out
    return [float(v)] * n


_SCALARS = {"bool": (ctypes.c_bool, "bool"), "f32": (ctypes.c_float, "float32"), "i32": (ctypes.c_int32, "int32"),
            "u32": (ctypes.c_uint32, "uint32"), "u64": (ctypes.c_uint64, "uint64")}


class _Out:
    """An output array of n scalars for a C call: .ptr for C, .value() for Python."""

    def __init__(self, kind, n):
        ctype, dtype = _SCALARS[kind]
        self.n = n
        if np is not None:
            self.arr = np.empty(max(1, n), dtype=dtype)  # every C batch writes every entry
            self.ptr = self.arr.ctypes.data_as(ctypes.c_void_p)
        else:
            self.arr = (ctype * max(1, n))()
            self.ptr = ctypes.cast(self.arr, ctypes.c_void_p)

    def value(self):
        if np is not None:
            return self.arr[:self.n]
        return list(self.arr[:self.n])


_FORMATS = {}


class Records:
    """Column view of an array of C records (hits, closest points, casts).

    Every field of the C structure is an attribute: with NumPy a column of the
    structured array `records` (vectors as N x 3 arrays), without NumPy a list
    (vectors as tuples). len() is the number of records."""

    def __init__(self, ctype, count, data):
        self.count = count
        self.fields = [name for name, _ in ctype._fields_]
        if np is not None:
            self.records = data[:count]
            for name in self.fields:
                setattr(self, name, self.records[name])
            return
        self.records = None
        if ctype not in _FORMATS:
            _FORMATS[ctype] = _c.struct_format(ctype)
        fmt, names = _FORMATS[ctype]
        cols = {name: [] for name, _ in names}
        raw = memoryview(data).cast("B")[:count * ctypes.sizeof(ctype)]
        for vals in struct.iter_unpack(fmt, raw):
            k = 0
            for name, n in names:
                cols[name].append(vals[k] if n == 1 else tuple(vals[k:k + n]))
                k += n
        for name in self.fields:
            setattr(self, name, cols[name])

    def __len__(self):
        return self.count

    def row(self, i) -> dict:
        """Record i as a dict of plain Python values."""
        out = {}
        for name in self.fields:
            v = getattr(self, name)[i]
            if hasattr(v, "tolist"):
                v = v.tolist()
            out[name] = tuple(v) if isinstance(v, (list, tuple)) else v
        return out

    def __repr__(self):
        return "<%s of %d records: %s>" % (type(self).__name__, self.count, ", ".join(self.fields))


def _records_data(ctype, count, raw):
    """The storage Records wants (a structured array, or a ctypes array) for `count`
    C records packed in the bytes `raw` (copied)."""
    if np is not None:
        if not count:
            return np.zeros(1, dtype=np.dtype(ctype))
        return np.frombuffer(bytes(raw), dtype=np.dtype(ctype), count=count).copy()
    buf = (ctype * max(1, count))()
    ctypes.memmove(buf, bytes(raw), count * ctypes.sizeof(ctype))
    return buf


def _records_from_bytes(ctype, count, raw, cls=None):
    """Records (or cls) over `count` C records packed in the bytes `raw` (copied)."""
    return (cls or Records)(ctype, count, _records_data(ctype, count, raw))


def _records_out(ctype, n, zero=True):
    """Allocates n C records: (c_void_p, finish(cls, count=n) -> Records). zero=False when
    the C call writes every record (no need to clear them first)."""
    if np is not None:
        arr = (np.zeros if zero else np.empty)(max(1, n), dtype=np.dtype(ctype))
        return arr.ctypes.data_as(ctypes.c_void_p), lambda cls=Records, count=n: cls(ctype, count, arr)
    buf = (ctype * max(1, n))()
    return ctypes.cast(buf, ctypes.c_void_p), lambda cls=Records, count=n: cls(ctype, count, buf)


if np is not None:
    _RAY_DTYPE = np.dtype({"names": ["origin", "tmin", "dir", "tmax"],
                           "formats": [(np.float32, 3), np.float32, (np.float32, 3), np.float32],
                           "offsets": [_c.MqRay.origin.offset, _c.MqRay.tmin.offset, _c.MqRay.dir.offset,
                                       _c.MqRay.tmax.offset],
                           "itemsize": ctypes.sizeof(_c.MqRay)})
    _DRAY_DTYPE = np.dtype({"names": ["origin", "tmin", "dir", "tmax"],
                            "formats": [(np.float64, 3), np.float64, (np.float64, 3), np.float64],
                            "offsets": [_c.MqDray.origin.offset, _c.MqDray.tmin.offset, _c.MqDray.dir.offset,
                                        _c.MqDray.tmax.offset],
                            "itemsize": ctypes.sizeof(_c.MqDray)})
    _HIT_DTYPE = np.dtype(_c.MqHit)


class RayHits(Records):
    """Closest hits of a batch of rays, one entry per ray (C: mq_hit records).

    Attributes as Records (t: inf on a miss; triangle, face: NO_TRIANGLE on a
    miss; point, normal; u, v; back_face; shading_normal, uv, has_*; group,
    object, material name ids), plus `hit` (bool per ray). hits[i] is a Hit or
    None."""

    def __init__(self, ctype, count, data):
        super().__init__(ctype, count, data)
        if np is not None:
            self.hit = self.triangle != NO_TRIANGLE
        else:
            self.hit = [tri != NO_TRIANGLE for tri in self.triangle]

    def __getitem__(self, i):
        """Hit i as a Hit tuple, or None for a miss."""
        if self.triangle[i] == NO_TRIANGLE:
            return None
        return Hit(float(self.t[i]), tuple(float(x) for x in self.point[i]), tuple(float(x) for x in self.normal[i]),
                   float(self.u[i]), float(self.v[i]), int(self.triangle[i]), int(self.face[i]),
                   bool(self.back_face[i]))


class SceneHits(Records):
    """Closest hits of a batch of rays in a scene (C: mq_scene_hit records, double
    precision world geometry): t, point, normal, shading_normal, u, v, uv,
    instance (NO_INSTANCE on a miss), triangle, face, group, object, material,
    user_id, back_face, has_shading_normal, has_uv; plus `hit` (bool per ray)."""

    def __init__(self, ctype, count, data):
        super().__init__(ctype, count, data)
        if np is not None:
            self.hit = self.instance != NO_INSTANCE
        else:
            self.hit = [i != NO_INSTANCE for i in self.instance]


def _hit_tuple(h):
    return Hit(h.t, tuple(h.point), tuple(h.normal), h.u, h.v, h.triangle, h.face, bool(h.back_face))


def _make_rays(origins, directions, tmin, tmax, double=False):
    """Packs rays for the C batch calls: returns (count, c_void_p, keepalive)."""
    dt = "float64" if double else "float32"
    n, o = _rows3(origins, "origins", dt)
    nd, d = _rows3(directions, "directions", dt)
    if n != nd:
        raise ValueError("origins and directions differ in length (%d, %d)" % (n, nd))
    if np is not None:
        # mq_ray / mq_dray: origin, tmin, dir, tmax: 8 numbers a ray (checked by test_layout)
        rays = np.empty((n, 8), dtype=dt)
        if n:  # whole 3-vectors as opaque items: NumPy copies them faster than 3 strided floats
            item = np.dtype((np.void, 3 * rays.itemsize))
            raw = rays.view(np.uint8).reshape(n, 8 * rays.itemsize)
            raw[:, :3 * rays.itemsize].view(item)[:, 0] = np.ascontiguousarray(o).view(item)[:, 0]
            raw[:, 4 * rays.itemsize:7 * rays.itemsize].view(item)[:, 0] = np.ascontiguousarray(d).view(item)[:, 0]
        rays[:, 3] = tmin
        rays[:, 7] = tmax
        return n, rays.ctypes.data_as(ctypes.c_void_p), rays
    tmins, tmaxs = _column(tmin, n, "tmin"), _column(tmax, n, "tmax")
    flat = []
    for i in range(n):
        flat.extend(o[i])
        flat.append(tmins[i])
        flat.extend(d[i])
        flat.append(tmaxs[i])
    ctype = ctypes.c_double if double else ctypes.c_float
    buf = (ctype * len(flat))(*flat) if flat else (ctype * 8)()
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


# ---------------------------------------------------------------------------
# Tagged shapes
# ---------------------------------------------------------------------------

_KINDS = {"sphere": _c.MQ_SHAPE_SPHERE, "capsule": _c.MQ_SHAPE_CAPSULE, "obb": _c.MQ_SHAPE_OBB,
          "aabb": _c.MQ_SHAPE_AABB, "convex": _c.MQ_SHAPE_CONVEX}


def _quat_axes(w, x, y, z):
    """Rows = the box axes (the rotation's columns) of a quaternion w, x, y, z (normalised)."""
    n = math.sqrt(w * w + x * x + y * y + z * z)
    if not n > 0:
        return [math.nan] * 9
    w, x, y, z = w / n, x / n, y / n, z / n
    # rotation matrix R; axis i = R e_i = column i
    r = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return [r[k][i] for i in range(3) for k in range(3)]


class Shapes:
    """A batch of tagged shapes (C: mq_shape / mq_dshape) for the overlap
    queries: make one with spheres(), capsules(), aabbs(), obbs() (or the
    one-shape sphere(), capsule(), aabb(), obb()); `a + b` concatenates batches
    of any kinds. The shapes keep their parameters in double precision; the
    BVH / OBB tree read them rounded to float, a Scene in double.

    kinds: the MQ_SHAPE_* of each shape; params: N rows of up to 16 numbers,
    the shape's fields in the order of the C union member (sphere: centre,
    radius; capsule: a, b, radius; obb: centre, half, axes rows; aabb: min, max)."""

    def __init__(self, kinds, params, keep=()):
        self.kinds = kinds    # (N,) int array / list of MQ_SHAPE_*
        self.params = params  # (N, k <= 16) float64 array / list of k-lists
        self._keep = tuple(keep)  # the Convex objects convex rows point to

    def __len__(self):
        return len(self.kinds)

    def __add__(self, other):
        keep = self._keep + other._keep
        if np is not None:
            w = max(self.params.shape[1], other.params.shape[1])
            pad = [np.pad(p, ((0, 0), (0, w - p.shape[1]))) for p in (self.params, other.params)]
            return Shapes(np.concatenate([self.kinds, other.kinds]), np.concatenate(pad), keep)
        return Shapes(list(self.kinds) + list(other.kinds), list(self.params) + list(other.params), keep)

    def _packed(self, double):
        """(count, c_void_p, keepalive) of mq_dshape (double) or mq_shape records."""
        ctype = _c.MqDshape if double else _c.MqShape
        size = ctypes.sizeof(ctype)
        n = len(self)
        if np is not None:
            buf = np.empty(max(1, n) * size, dtype=np.uint8)  # bytes past a kind's member are never read
            if n:
                params = np.asarray(self.params)
                w = params.shape[1]
                buf.view(np.int32).reshape(n, size // 4)[:, 0] = self.kinds
                if double:
                    at = ctype.u.offset // 8
                    buf.view(np.float64).reshape(n, size // 8)[:, at:at + w] = params
                else:
                    at = ctype.u.offset // 4
                    buf.view(np.float32).reshape(n, size // 4)[:, at:at + w] = params
                convex = np.asarray(self.kinds) == _c.MQ_SHAPE_CONVEX
                if convex.any():  # the hull's address (exact in a double) into the union's pointer slot
                    slot = buf.view(np.uint64).reshape(n, size // 8)[:, ctype.u.offset // 8]
                    slot[convex] = params[convex, 0].astype(np.uint64)
            return n, buf.ctypes.data_as(ctypes.c_void_p), (buf, self._keep)
        buf = (ctype * max(1, n))()
        field = ctypes.c_double if double else ctypes.c_float
        base = ctypes.addressof(buf)
        for i in range(n):
            buf[i].kind = self.kinds[i]
            vals = (field * 16).from_address(base + i * size + ctype.u.offset)
            for k, v in enumerate(self.params[i]):
                vals[k] = v
            if self.kinds[i] == _c.MQ_SHAPE_CONVEX:
                ctypes.c_uint64.from_address(base + i * size + ctype.u.offset).value = int(self.params[i][0])
        return n, ctypes.cast(buf, ctypes.c_void_p), (buf, self._keep)


def _shape_rows(kind, n, cols):
    """Shapes of one kind from columns [(values (N, k) or (N,), k), ...] laid out in order."""
    width = sum(k for _, k in cols)
    if np is not None:
        params = np.empty((n, width), dtype=np.float64)
        at = 0
        for vals, k in cols:
            params[:, at:at + k] = np.asarray(vals, dtype=np.float64).reshape(n, k)
            at += k
        return Shapes(np.full(n, _KINDS[kind], dtype=np.int32), params)
    rows = [[] for _ in range(n)]
    for vals, k in cols:
        for i in range(n):
            v = vals[i]
            rows[i].extend(float(x) for x in v) if k > 1 else rows[i].append(float(v))
    return Shapes([_KINDS[kind]] * n, rows)


def spheres(centers: Array, radii) -> Shapes:
    """Solid spheres: centers N x 3, radii a scalar or N values."""
    n, c = _rows3(centers, "centers", "float64")
    return _shape_rows("sphere", n, [(c, 3), (_column(radii, n, "radii"), 1)])


def capsules(a: Array, b: Array, radii) -> Shapes:
    """Capsules: the points within radii of the segments a[i]-b[i] (N x 3 each)."""
    n, pa = _rows3(a, "a", "float64")
    nb, pb = _rows3(b, "b", "float64")
    if n != nb:
        raise ValueError("a and b differ in length")
    return _shape_rows("capsule", n, [(pa, 3), (pb, 3), (_column(radii, n, "radii"), 1)])


def aabbs(lo: Array, hi: Array) -> Shapes:
    """Axis-aligned boxes [lo[i], hi[i]] (N x 3 each)."""
    n, a = _rows3(lo, "lo", "float64")
    nb, b = _rows3(hi, "hi", "float64")
    if n != nb:
        raise ValueError("lo and hi differ in length")
    return _shape_rows("aabb", n, [(a, 3), (b, 3)])


def obbs(centers: Array, halves: Array, axes=None, quats=None) -> Shapes:
    """Oriented boxes: centres and half extents (N x 3), and either `axes`
    (N x 3 x 3, rows the unit box axes) or `quats` (N x 4 quaternions w, x, y,
    z, the scalar part first); neither: axis-aligned."""
    n, c = _rows3(centers, "centers", "float64")
    nh, h = _rows3(halves, "halves", "float64")
    if n != nh:
        raise ValueError("centers and halves differ in length")
    if quats is not None:
        ax = [_quat_axes(*[float(x) for x in q]) for q in (quats.tolist() if hasattr(quats, "tolist") else quats)]
        if len(ax) != n:
            raise ValueError("quats: expected %d quaternions" % n)
    elif axes is not None:
        ax = [[float(x) for row in m for x in row] for m in (axes.tolist() if hasattr(axes, "tolist") else axes)]
        if len(ax) != n or any(len(a) != 9 for a in ax):
            raise ValueError("axes: expected N x 3 x 3")
    else:
        ax = [[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]] * n
    return _shape_rows("obb", n, [(c, 3), (h, 3), (ax, 9)])


def sphere(center: Vec3, radius: float) -> Shapes:
    """One sphere, as a Shapes of length 1."""
    return spheres([center], [radius])


def capsule(a: Vec3, b: Vec3, radius: float) -> Shapes:
    """One capsule, as a Shapes of length 1."""
    return capsules([a], [b], [radius])


def aabb(lo: Vec3, hi: Vec3) -> Shapes:
    """One axis-aligned box, as a Shapes of length 1."""
    return aabbs([lo], [hi])


def obb(center: Vec3, half: Vec3, axes=None, quat=None) -> Shapes:
    """One oriented box (axes: 3 rows, or quat: w, x, y, z), as a Shapes of length 1."""
    return obbs([center], [half], None if axes is None else [axes], None if quat is None else [quat])


def convexes(hulls: Sequence["Convex"], translations: Optional[Array] = None,
             rotations: Optional[Array] = None) -> Shapes:
    """Convex hulls (Convex objects) as shapes. A BVH or OBB tree takes them in
    the mesh's frame as built; a Scene places each by its translation (N x 3,
    default 0) and rotation (N x 4 quaternions w, x, y, z, default identity).
    The Shapes keep the hulls alive."""
    hulls = list(hulls)
    n = len(hulls)
    addr = [float(h.handle) for h in hulls]
    if any(int(a) != h.handle for a, h in zip(addr, hulls)):
        raise ValueError("convexes: an address beyond 2**53")
    t = translations if translations is not None else [(0.0, 0.0, 0.0)] * n
    r = rotations if rotations is not None else [(1.0, 0.0, 0.0, 0.0)] * n
    _, t = _rows3(t, "translations", "float64")
    r = [[float(x) for x in q] for q in (r.tolist() if hasattr(r, "tolist") else r)]
    if len(r) != n or any(len(q) != 4 for q in r):
        raise ValueError("rotations: expected %d quaternions w, x, y, z" % n)
    s = _shape_rows("convex", n, [(addr, 1), (t, 3), (r, 4)])
    s._keep = tuple(hulls)
    return s


# ---------------------------------------------------------------------------
# Handles
# ---------------------------------------------------------------------------

class _Handle:
    _destroy = None

    def close(self) -> None:
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
    def handle(self) -> int:
        """The C pointer (an int); ValueError once closed."""
        if not self._h:
            raise ValueError("%s is closed" % type(self).__name__)
        return self._h


# ---------------------------------------------------------------------------
# Meshes
# ---------------------------------------------------------------------------

_NAME_KINDS = {"group": 0, "object": 1, "material": 2}


class Mesh(_Handle):
    """An immutable triangle mesh (C: mq_mesh). Get one from load_obj(),
    load_obj_text() or Mesh.from_arrays(). `stats` holds the OBJ statement
    counts of a loaded file (a dict), or None.

    Arrays (copies): positions, indices, normals, corner_normals, uvs,
    corner_uvs, colors, and per triangle: faces, lines, groups, objects,
    materials (name ids; names(kind) gives the tables)."""
    _destroy = "mq_mesh_destroy"

    def __init__(self, handle, stats=None, owner=None):
        self._h = handle
        self.stats = stats
        if owner is not None:  # a mesh owned by a loaded hierarchy: never destroyed here
            self._destroy = None
            self._owner = owner

    @classmethod
    def from_arrays(cls, positions: Array, indices: Array) -> "Mesh":
        """A mesh from V x 3 positions and T x 3 vertex indices (copied). Raises
        MeshqueryError for an index out of range or a non-finite position."""
        nv, pptr, pkeep = _pack3(positions, "positions")
        if np is not None:
            idx = np.ascontiguousarray(indices, dtype=np.uint32).reshape(-1, 3)
            nt, iptr, ikeep = idx.shape[0], idx.ctypes.data_as(ctypes.c_void_p), idx
        else:
            tris = [tuple(int(i) for i in t) for t in indices]
            nt = len(tris)
            ikeep = (ctypes.c_uint32 * max(1, 3 * nt))(*[i for t in tris for i in t])
            iptr = ctypes.cast(ikeep, ctypes.c_void_p)
        out, diag = ctypes.c_void_p(), _c.MqDiag()
        _check(_c.lib.mq_mesh_create(pptr, nv, iptr, nt, None, ctypes.byref(out), ctypes.byref(diag)), diag,
               "Mesh.from_arrays")
        del pkeep, ikeep
        return cls(out.value)

    @property
    def vertex_count(self) -> int:
        return _c.lib.mq_mesh_vertex_count(self.handle)

    @property
    def triangle_count(self) -> int:
        return _c.lib.mq_mesh_triangle_count(self.handle)

    @property
    def face_count(self) -> int:
        """Number of source faces (polygons) of the OBJ file."""
        return _c.lib.mq_mesh_face_count(self.handle)

    def _array(self, ptr, n, ctype, dtype, width=3):
        if n == 0 or not ptr:
            return np.zeros((0, width), dtype=dtype) if np is not None else []
        raw = ctypes.cast(ptr, ctypes.POINTER(ctype * (width * n))).contents
        if np is not None:
            return np.frombuffer(raw, dtype=dtype).reshape(n, width).copy()
        flat = list(raw)
        return [tuple(flat[width * i:width * i + width]) for i in range(n)]

    @property
    def positions(self) -> Array:
        """Vertex positions, V x 3 float32 (a copy)."""
        return self._array(_c.lib.mq_mesh_positions(self.handle), self.vertex_count, ctypes.c_float, "float32")

    @property
    def indices(self) -> Array:
        """Triangle corner indices, T x 3 uint32 (a copy)."""
        return self._array(_c.lib.mq_mesh_indices(self.handle), self.triangle_count, ctypes.c_uint32, "uint32")

    @property
    def normals(self) -> Array:
        """The file's normals (OBJ vn, as written), N x 3; empty when none."""
        return self._array(_c.lib.mq_mesh_normals(self.handle), _c.lib.mq_mesh_normal_count(self.handle),
                           ctypes.c_float, "float32")

    @property
    def corner_normals(self) -> Optional[Array]:
        """Normal index of each triangle corner, T x 3 (NO_TRIANGLE where none), or None."""
        ptr = _c.lib.mq_mesh_corner_normals(self.handle)
        return self._array(ptr, self.triangle_count, ctypes.c_uint32, "uint32") if ptr else None

    @property
    def uvs(self) -> Array:
        """Texture coordinates (OBJ vt), N x 2; empty when none."""
        return self._array(_c.lib.mq_mesh_texcoords(self.handle), _c.lib.mq_mesh_texcoord_count(self.handle),
                           ctypes.c_float, "float32", 2)

    @property
    def corner_uvs(self) -> Optional[Array]:
        """Texture coordinate index of each triangle corner, T x 3 (NO_TRIANGLE where none), or None."""
        ptr = _c.lib.mq_mesh_corner_texcoords(self.handle)
        return self._array(ptr, self.triangle_count, ctypes.c_uint32, "uint32") if ptr else None

    @property
    def colors(self) -> Optional[Array]:
        """Per-vertex colours V x 3 (r, g, b) from `v x y z r g b` lines, or None."""
        ptr = _c.lib.mq_mesh_colors(self.handle)
        return self._array(ptr, self.vertex_count, ctypes.c_float, "float32") if ptr else None

    def _per_triangle(self, kind, name_kind=0):
        """One C call (mq_mesh_copy_triangle_faces / _lines / _name_ids) for all
        T triangles: a uint32 (lines: uint64) array, or a list."""
        n = self.triangle_count
        out = _Out("u64" if kind == "lines" else "u32", n)
        if kind == "faces":
            _c.lib.mq_mesh_copy_triangle_faces(self.handle, 0, n, out.ptr)
        elif kind == "lines":
            _c.lib.mq_mesh_copy_triangle_lines(self.handle, 0, n, out.ptr)
        else:
            _c.lib.mq_mesh_copy_triangle_name_ids(self.handle, name_kind, 0, n, out.ptr)
        return out.value()

    @property
    def faces(self) -> Array:
        """The source face (OBJ `f` statement, 0-based) of every triangle: T uint32
        values (one C call, mq_mesh_copy_triangle_faces)."""
        return self._per_triangle("faces")

    @property
    def lines(self) -> Array:
        """The 1-based OBJ line of every triangle's `f` statement (0 for array
        meshes): T uint64 values (one C call)."""
        return self._per_triangle("lines")

    def _names_per_triangle(self, kind):
        return self._per_triangle("names", _NAME_KINDS[kind])

    @property
    def groups(self) -> Array:
        """The group name id (index into names('group'), 0 = none) of every triangle."""
        return self._names_per_triangle("group")

    @property
    def objects(self) -> Array:
        """The object name id (index into names('object'), 0 = none) of every triangle."""
        return self._names_per_triangle("object")

    @property
    def materials(self) -> Array:
        """The material name id (index into names('material'), 0 = none) of every triangle."""
        return self._names_per_triangle("material")

    def names(self, kind: str) -> List[str]:
        """The name table of 'group', 'object' or 'material' (entry 0 is '', none)."""
        k = _NAME_KINDS[kind]
        return [(_c.lib.mq_mesh_name(self.handle, k, i) or b"").decode()
                for i in range(_c.lib.mq_mesh_name_count(self.handle, k))]

    def bounds(self) -> Optional[Tuple[Tuple[float, float, float], Tuple[float, float, float]]]:
        """(min, max) corners of the vertices' bounding box, as tuples; None when empty."""
        p = self.positions
        if np is not None:
            if len(p) == 0:
                return None
            return tuple(float(x) for x in p.min(axis=0)), tuple(float(x) for x in p.max(axis=0))
        if not p:
            return None
        return tuple(min(r[k] for r in p) for k in range(3)), tuple(max(r[k] for r in p) for k in range(3))

    def triangle_source(self, triangle: int) -> dict:
        """Where triangle `triangle` came from: dict with face, line (1-based OBJ line of
        its `f` statement), group, object, material (names, '' when none)."""
        if not 0 <= triangle < self.triangle_count:
            raise IndexError("triangle %d out of range" % triangle)
        s = _c.MqTriangleSource()
        _c.lib.mq_mesh_triangle_source(self.handle, triangle, ctypes.byref(s))
        return {"face": s.face, "line": s.line, "group": (s.group or b"").decode(),
                "object": (s.object or b"").decode(), "material": (s.material or b"").decode()}


    def triangle(self, triangle: int) -> Tuple[Tuple[float, float, float], ...]:
        """The three corners of one triangle (mq_mesh_get_triangle), as tuples."""
        self._tri_index(triangle)
        t = _c.MqTriangle()
        _c.lib.mq_mesh_get_triangle(self.handle, triangle, ctypes.byref(t))
        return tuple(tuple(v) for v in t.v)

    def triangle_normal(self, triangle: int) -> Tuple[float, float, float]:
        """The geometric unit normal of one triangle ((0, 0, 0) when degenerate)."""
        self._tri_index(triangle)
        out = _c.vec3()
        _c.lib.mq_mesh_triangle_normal(self.handle, triangle, out)
        return tuple(out)

    def shading_normal(self, triangle: int, u: float, v: float) -> Tuple[Tuple[float, float, float], bool]:
        """The file's normals blended at barycentrics (u, v) of one triangle, and
        whether all three corners had one (else the geometric normal, False)."""
        self._tri_index(triangle)
        out = _c.vec3()
        ok = _c.lib.mq_mesh_shading_normal(self.handle, triangle, u, v, out)
        return tuple(out), bool(ok)

    def texcoord_at(self, triangle: int, u: float, v: float) -> Optional[Tuple[float, float]]:
        """The texture coordinate at barycentrics (u, v) of one triangle, or None
        when a corner has none. Hit records carry it already (uv, has_uv)."""
        self._tri_index(triangle)
        out = _c.vec2()
        return tuple(out) if _c.lib.mq_mesh_texcoord_at(self.handle, triangle, u, v, out) else None

    def _tri_index(self, triangle):
        if not 0 <= triangle < self.triangle_count:
            raise IndexError("triangle %d out of range" % triangle)


def isa() -> str:
    """The instruction set the query kernels run at: 'scalar', 'sse2', 'avx2' or
    'avx512' (environment MQ_ISA may lower it; every level answers alike)."""
    return _c.lib.mq_isa_in_use().decode()


def rigid_apply(rotation: Sequence[float], translation: Vec3, point: Vec3) -> Tuple[float, float, float]:
    """A point moved by the rigid transform (rotation w, x, y, z, then translation)
    with exactly the float operations mesh-vs-mesh queries apply to B's corners."""
    out = _c.vec3()
    xf = OBBTree._rigid(rotation, translation)
    _c.lib.mq_rigid_apply(ctypes.byref(xf), _vec3(point), out)
    return tuple(out)


def _obj_options(threads, strict, allow_non_finite):
    o = _c.lib.mq_default_obj_options()
    o.threads = threads
    o.strict = bool(strict)
    o.allow_non_finite = bool(allow_non_finite)
    return o


def _stats_dict(st):
    return {name: getattr(st, name) for name, _ in _c.MqObjStats._fields_}


def load_obj(path, threads: int = 0, strict: bool = False, allow_non_finite: bool = False) -> Mesh:
    """Loads a Wavefront OBJ file (mq_obj_load). Raises MeshqueryError with the
    file's path, line and column on malformed input, MQ_ERR_IO for an
    unreadable file."""
    out, st, diag = ctypes.c_void_p(), _c.MqObjStats(), _c.MqDiag()
    opts = _obj_options(threads, strict, allow_non_finite)
    status = _c.lib.mq_obj_load(os.fsencode(path), ctypes.byref(opts), ctypes.byref(out), ctypes.byref(st),
                                ctypes.byref(diag))
    _check(status, diag)
    return Mesh(out.value, _stats_dict(st))


def load_obj_text(text, name: str = "<memory>", threads: int = 0, strict: bool = False,
                  allow_non_finite: bool = False) -> Mesh:
    """Loads OBJ text (str or bytes) from memory (mq_obj_load_memory); `name` is what errors call it."""
    data = text.encode() if isinstance(text, str) else bytes(text)
    out, st, diag = ctypes.c_void_p(), _c.MqObjStats(), _c.MqDiag()
    opts = _obj_options(threads, strict, allow_non_finite)
    status = _c.lib.mq_obj_load_memory(data, len(data), name.encode(), ctypes.byref(opts), ctypes.byref(out),
                                       ctypes.byref(st), ctypes.byref(diag))
    _check(status, diag)
    return Mesh(out.value, _stats_dict(st))


class Convex(_Handle):
    """The convex hull of a point set (C: mq_convex, meshquery/convex.h), for
    overlap queries as a tagged shape: convexes([hull]) or hull.shape().
    Raises MeshqueryError for fewer than 4 affinely independent points."""
    _destroy = "mq_convex_destroy"

    def __init__(self, points: Array, translation: Optional[Vec3] = None, rotation: Optional[Sequence[float]] = None):
        """Convex(points): the hull of N x 3 points. With translation and / or
        rotation (w, x, y, z), the hull of the points moved by them first
        (mq_convex_create_placed, in double)."""
        if not _c.HAVE_CONVEX:
            raise NotImplementedError("this libmeshquery has no convex hulls (meshquery/convex.h)")
        n, ptr, keep = _pack3(points, "points")
        out, diag = ctypes.c_void_p(), _c.MqDiag()
        if translation is None and rotation is None:
            _check(_c.lib.mq_convex_create(ptr, n, None, ctypes.byref(out), ctypes.byref(diag)), diag, "Convex")
        else:
            t = _dvec3(translation, "translation") if translation is not None else None
            r = (ctypes.c_double * 4)(*[float(x) for x in rotation]) if rotation is not None else None
            if r is not None and len(list(rotation)) != 4:
                raise ValueError("rotation: a quaternion (w, x, y, z)")
            _check(_c.lib.mq_convex_create_placed(ptr, n, t, r, None, ctypes.byref(out), ctypes.byref(diag)), diag,
                   "Convex")
        self._h = out.value

    def bounds(self) -> Tuple[Tuple[float, float, float], Tuple[float, float, float]]:
        """(min, max) corners of the hull's box."""
        b = _c.MqAabb()
        _c.lib.mq_convex_bounds(self.handle, ctypes.byref(b))
        return tuple(b.min), tuple(b.max)

    def closest_point(self, point: Vec3) -> Optional[Tuple[float, Tuple[float, float, float]]]:
        """(distance, nearest point of the solid) for a point (0 and the point itself
        inside); None for a non-finite point."""
        out = _c.vec3()
        d = _c.lib.mq_convex_closest_point(self.handle, _vec3(point), out)
        return None if d < 0 else (float(d), tuple(out))

    def overlaps(self, other: "Convex") -> bool:
        """True when the two closed hulls meet (touching counts)."""
        return bool(_c.lib.mq_overlap_convex_convex(self.handle, other.handle))

    def distance(self, other: "Convex") -> dict:
        """The distance between two solid hulls (0 when they meet): a dict of
        distance, point_a (on this one), point_b (on other)."""
        a, b = _c.dvec3(), _c.dvec3()
        d = _c.lib.mq_convex_convex_distance(self.handle, other.handle, a, b)
        return {"distance": d, "point_a": tuple(a), "point_b": tuple(b)}

    def overlaps_triangle(self, triangle: Sequence[Vec3]) -> bool:
        """True when the closed hull and the triangle (3 corners) meet."""
        t = _triangle(triangle, "triangle")
        return bool(_c.lib.mq_overlap_convex_triangle(self.handle, ctypes.byref(t)))

    def triangle_distance(self, triangle: Sequence[Vec3]) -> Optional[dict]:
        """Distance between the solid hull and a triangle (0 when they meet): a dict of
        distance, point_convex, point_triangle; None for a non-finite corner."""
        t, a, b = _triangle(triangle, "triangle"), _c.dvec3(), _c.dvec3()
        d = _c.lib.mq_convex_triangle_distance(self.handle, ctypes.byref(t), a, b)
        return None if d < 0 else {"distance": d, "point_convex": tuple(a), "point_triangle": tuple(b)}

    def cast_triangle(self, direction: Vec3, triangle: Sequence[Vec3], tmax: float = 1.0) -> Optional[float]:
        """The first t in [0, tmax] at which the hull moved by t * direction touches
        the triangle (0 when they meet already), or None."""
        t, hit = _triangle(triangle, "triangle"), ctypes.c_float()
        ok = _c.lib.mq_convex_cast_triangle(self.handle, _vec3(direction, "direction"), tmax, ctypes.byref(t),
                                            ctypes.byref(hit))
        return float(hit.value) if ok else None

    @property
    def vertices(self) -> Array:
        """The hull's vertices, V x 3."""
        n = _c.lib.mq_convex_vertex_count(self.handle)
        return Mesh._array(self, _c.lib.mq_convex_vertices(self.handle), n, ctypes.c_float, "float32")

    @property
    def faces(self) -> Array:
        """The hull's triangles, F x 3 vertex indices (counter-clockwise from outside)."""
        n = _c.lib.mq_convex_face_count(self.handle)
        return Mesh._array(self, _c.lib.mq_convex_faces(self.handle), n, ctypes.c_uint32, "uint32")

    def contains(self, point: Vec3) -> bool:
        """True when the point lies in the closed solid."""
        return bool(_c.lib.mq_convex_contains_point(self.handle, _vec3(point)))

    def shape(self, translation: Vec3 = (0.0, 0.0, 0.0), rotation: Sequence[float] = (1.0, 0.0, 0.0, 0.0)) -> Shapes:
        """This hull as a Shapes of length 1 (placed by translation / rotation in a Scene)."""
        return convexes([self], [translation], [rotation])


# ---------------------------------------------------------------------------
# Queries both hierarchies answer
# ---------------------------------------------------------------------------

def _quat(q, what="quat"):
    """A quaternion w, x, y, z (the scalar part first) as C's float[4]."""
    v = [float(a) for a in q]
    if len(v) != 4:
        raise ValueError("%s: a quaternion (w, x, y, z)" % what)
    return _c.quat(*v)


class _Tree(_Handle):
    """The queries the BVH and the OBB tree share; each calls mq_<prefix>_<name>."""
    _prefix = None

    def _f(self, name):
        return getattr(_c.lib, "mq_%s_%s" % (self._prefix, name))

    def _mesh_of(self, handle):
        return Mesh(getattr(_c.lib, "mq_%s_mesh" % self._prefix)(handle), owner=self)

    # ---- shape overlaps -------------------------------------------------

    def overlap(self, shape: Shapes) -> Array:
        """Ids of the triangles that overlap the one shape (a Shapes of length 1:
        sphere(), capsule(), aabb(), obb()), in no particular order (uint32 array / list)."""
        if len(shape) != 1:
            raise ValueError("overlap: one shape (use overlap_counts for batches)")
        _, ptr, keep = shape._packed(False)
        fn = self._f("overlap_array")
        cap = 256
        while True:
            buf = (ctypes.c_uint32 * cap)()
            total = fn(self.handle, ctypes.cast(ptr, ctypes.POINTER(_c.MqShape)), buf, cap)
            if total <= cap:
                break
            cap = total
        del keep
        if np is not None:
            return np.frombuffer(buf, dtype=np.uint32, count=total).copy()
        return list(buf[:total])

    def overlap_any(self, shape: Shapes) -> bool:
        """True when some triangle overlaps the one shape (a Shapes of length 1)."""
        if len(shape) != 1:
            raise ValueError("overlap_any: one shape (use overlaps_any for batches)")
        _, ptr, keep = shape._packed(False)
        return bool(self._f("overlap_any")(self.handle, ctypes.cast(ptr, ctypes.POINTER(_c.MqShape))))

    def overlap_counts(self, shapes: Shapes, threads: int = 0) -> Array:
        """For each shape the number of triangles it overlaps (uint64 array / list;
        mq_<tree>_overlap_count_batch, on `threads` threads, 0 = all cores)."""
        n, ptr, keep = shapes._packed(False)
        out = _Out("u64", n)
        self._f("overlap_count_batch")(self.handle, ptr, n, threads, out.ptr)
        return out.value()

    def overlaps_any(self, shapes: Shapes, threads: int = 0) -> Array:
        """For each shape whether it overlaps some triangle (bool array / list)."""
        n, ptr, keep = shapes._packed(False)
        out = _Out("bool", n)
        self._f("overlap_any_batch")(self.handle, ptr, n, threads, out.ptr)
        return out.value()

    def overlap_sphere(self, center: Vec3, radius: float) -> Array:
        """Ids of the triangles that overlap the solid sphere (touching counts), in no particular order."""
        return self.overlap(sphere(center, radius))

    def any_overlap_sphere(self, center: Vec3, radius: float) -> bool:
        """True when some triangle overlaps the sphere."""
        return self.overlap_any(sphere(center, radius))

    def overlap_capsule(self, a: Vec3, b: Vec3, radius: float) -> Array:
        """Ids of the triangles within `radius` of the segment a-b."""
        return self.overlap(capsule(a, b, radius))

    def any_overlap_capsule(self, a: Vec3, b: Vec3, radius: float) -> bool:
        """True when some triangle lies within `radius` of the segment a-b."""
        return self.overlap_any(capsule(a, b, radius))

    def overlap_aabb(self, lo: Vec3, hi: Vec3) -> Array:
        """Ids of the triangles that overlap the axis-aligned box [lo, hi]."""
        return self.overlap(aabb(lo, hi))

    def any_overlap_aabb(self, lo: Vec3, hi: Vec3) -> bool:
        """True when some triangle overlaps the axis-aligned box [lo, hi]."""
        return self.overlap_any(aabb(lo, hi))

    def overlap_obb(self, center: Vec3, half: Vec3, axes=None, quat=None) -> Array:
        """Ids of the triangles that overlap an oriented box: centre, half extents and
        either `axes` (three orthonormal unit vectors) or `quat` (a quaternion
        w, x, y, z, the scalar part first)."""
        if quat is not None:
            return self.overlap(self._obb_from_quat(center, half, quat))
        return self.overlap(obb(center, half, axes))

    def any_overlap_obb(self, center: Vec3, half: Vec3, axes=None, quat=None) -> bool:
        """True when some triangle overlaps the oriented box (arguments as overlap_obb)."""
        if quat is not None:
            return self.overlap_any(self._obb_from_quat(center, half, quat))
        return self.overlap_any(obb(center, half, axes))

    @staticmethod
    def _obb_from_quat(center, half, quat):
        box = _c.MqObb()  # the library's own quaternion conversion, for the one-shape calls
        _c.lib.mq_obb_from_quat(_vec3(center, "center"), _vec3(half, "half"), _quat(quat), ctypes.byref(box))
        return obb(tuple(box.center), tuple(box.half), [tuple(a) for a in box.axes])

    # ---- closest points and solids ----------------------------------------

    def closest_point(self, point: Vec3, max_distance: float = math.inf) -> Optional[PointHit]:
        """The nearest surface point within max_distance as a PointHit, or None."""
        h = _c.MqPointHit()
        if self._f("closest_point")(self.handle, _vec3(point), max_distance, ctypes.byref(h)):
            return PointHit(tuple(h.point), h.distance, h.triangle, h.u, h.v)
        return None

    def closest_points(self, points: Array, max_distance: float = math.inf, threads: int = 0) -> Records:
        """closest_point for N points in one C batch: Records with point, distance (inf
        where nothing lies within max_distance), triangle (NO_TRIANGLE there), u, v,
        and `found` (bool per point)."""
        n, ptr, keep = _pack3(points, "points")
        out, finish = _records_out(_c.MqPointHit, n, zero=False)
        found = _Out("bool", n)
        self._f("closest_point_batch")(self.handle, ptr, n, max_distance, threads, out, found.ptr)
        r = finish()
        r.found = found.value()
        return r

    def winding_number(self, point: Vec3) -> int:
        """The winding number of the closed mesh around one point (1 inside, 0 outside)."""
        return int(self._f("winding_number")(self.handle, _vec3(point)))

    def winding_numbers(self, points: Array, threads: int = 0) -> Array:
        """Winding numbers of N points (int32 array / list), one C batch."""
        n, ptr, keep = _pack3(points, "points")
        out = _Out("i32", n)
        self._f("winding_number_batch")(self.handle, ptr, n, threads, out.ptr)
        return out.value()

    def contains(self, points: Array, threads: int = 0) -> Array:
        """Whether each point lies inside the closed mesh (winding number != 0): bool array / list."""
        n, ptr, keep = _pack3(points, "points")
        out = _Out("bool", n)
        self._f("inside_batch")(self.handle, ptr, n, threads, out.ptr)
        return out.value()

    def signed_distance(self, points: Array, threads: int = 0, return_closest: bool = False):
        """Signed distances of N points to the closed mesh (negative inside; NaN for a
        non-finite point): a float32 array / list; with return_closest=True also the
        closest points as Records (point, distance, triangle, u, v)."""
        n, ptr, keep = _pack3(points, "points")
        dist = _Out("f32", n)
        out, finish = _records_out(_c.MqPointHit, n) if return_closest else (None, None)
        self._f("signed_distance_batch")(self.handle, ptr, n, threads, dist.ptr, out)
        return (dist.value(), finish()) if return_closest else dist.value()

    # ---- casts ------------------------------------------------------------

    def _cast(self, name, shape, direction, tmax):
        h = _c.MqCastHit()
        if self._f(name)(self.handle, shape, _vec3(direction, "direction"), tmax, ctypes.byref(h)):
            return CastHit(h.t, tuple(h.point), tuple(h.normal), h.triangle, bool(h.initially_overlapping))
        return None

    def sphere_cast(self, center: Vec3, radius: float, direction: Vec3, tmax: float = 1.0) -> Optional[CastHit]:
        """The first t in [0, tmax] at which the sphere moved by t * direction touches
        the mesh, as a CastHit, or None."""
        return self._cast("sphere_cast", ctypes.byref(_c.MqSphere(_vec3(center, "center"), radius)), direction, tmax)

    def capsule_cast(self, a: Vec3, b: Vec3, radius: float, direction: Vec3,
                     tmax: float = 1.0) -> Optional[CastHit]:
        """As sphere_cast, for the capsule a-b of `radius` moved by t * direction."""
        return self._cast("capsule_cast", ctypes.byref(_c.MqCapsule(_vec3(a, "a"), _vec3(b, "b"), radius)), direction,
                          tmax)

    def convex_cast(self, convex: "Convex", direction: Vec3, tmax: float = 1.0) -> Optional[CastHit]:
        """As sphere_cast, for a Convex (in the mesh's frame) moved by t * direction:
        the first contact to about 1e-9 of the sweep's length, never later."""
        if not isinstance(convex, Convex):
            raise TypeError("expected a Convex, got %s" % type(convex).__name__)
        return self._cast("convex_cast", convex.handle, direction, tmax)

    def sphere_casts(self, centers: Array, radii, directions: Array, tmax: float = 1.0, threads: int = 0) -> Records:
        """Sphere casts of N spheres (centres N x 3, radii scalar or N) moved by
        directions (N x 3) up to tmax, one C batch: Records of t (inf on a miss),
        point, normal, triangle (NO_TRIANGLE on a miss), initially_overlapping."""
        n, c = _rows3(centers, "centers")
        r = _column(radii, n, "radii")
        if np is not None:
            sph = np.zeros(n, dtype=np.dtype(_c.MqSphere))
            sph["center"], sph["radius"] = c, r
        else:
            sph = (_c.MqSphere * max(1, n))(*[_c.MqSphere(_c.vec3(*c[i]), r[i]) for i in range(n)])
        return self._casts("sphere_cast_batch", n, sph, directions, tmax, threads)

    def capsule_casts(self, a: Array, b: Array, radii, directions: Array, tmax: float = 1.0,
                      threads: int = 0) -> Records:
        """As sphere_casts, for N capsules a[i]-b[i] of radii."""
        n, pa = _rows3(a, "a")
        nb, pb = _rows3(b, "b")
        if n != nb:
            raise ValueError("a and b differ in length")
        r = _column(radii, n, "radii")
        if np is not None:
            cap = np.zeros(n, dtype=np.dtype(_c.MqCapsule))
            cap["a"], cap["b"], cap["radius"] = pa, pb, r
        else:
            cap = (_c.MqCapsule * max(1, n))(*[_c.MqCapsule(_c.vec3(*pa[i]), _c.vec3(*pb[i]), r[i])
                                                for i in range(n)])
        return self._casts("capsule_cast_batch", n, cap, directions, tmax, threads)

    def _casts(self, name, n, shapes, directions, tmax, threads):
        nd, dptr, keep = _pack3(directions, "directions")
        if nd != n:
            raise ValueError("directions: expected %d rows, got %d" % (n, nd))
        sptr = shapes.ctypes.data_as(ctypes.c_void_p) if np is not None else ctypes.cast(shapes, ctypes.c_void_p)
        out, finish = _records_out(_c.MqCastHit, n)
        self._f(name)(self.handle, sptr, dptr, n, tmax, threads, out)
        return finish()

    # ---- rays -------------------------------------------------------------

    def raycast(self, origins: Array, directions: Array, tmin=0.0, tmax=math.inf, threads: int = 0,
                cull_back_faces: bool = False) -> RayHits:
        """Closest hits of N rays in one C batch (on `threads` threads, 0 = all
        cores). origins, directions: N x 3. tmin, tmax: scalars or length N.
        Returns RayHits."""
        q = _query(cull_back_faces)
        arrays = self._ray_arrays(origins, directions, tmin, tmax)
        if arrays:
            n, o, d = arrays
            out, finish = _records_out(_c.MqHit, n, zero=False)
            self._f("raycast_closest_batch_arrays")(self.handle, _ptr(o), _ptr(d), n, tmin, tmax, ctypes.byref(q),
                                                    threads, out)
            return finish(RayHits)
        n, rays, keep = _make_rays(origins, directions, tmin, tmax)
        out, finish = _records_out(_c.MqHit, n, zero=False)
        self._f("raycast_closest_batch")(self.handle, rays, n, ctypes.byref(q), threads, out)
        return finish(RayHits)

    def occluded(self, origins: Array, directions: Array, tmin=0.0, tmax=math.inf, threads: int = 0,
                 cull_back_faces: bool = False) -> Array:
        """Any-hit answers of N rays, one C batch: bool array / list."""
        q = _query(cull_back_faces)
        arrays = self._ray_arrays(origins, directions, tmin, tmax)
        if arrays:
            n, o, d = arrays
            out = _Out("bool", n)
            self._f("raycast_any_batch_arrays")(self.handle, _ptr(o), _ptr(d), n, tmin, tmax, ctypes.byref(q), threads,
                                                out.ptr)
            return out.value()
        n, rays, keep = _make_rays(origins, directions, tmin, tmax)
        out = _Out("bool", n)
        self._f("raycast_any_batch")(self.handle, rays, n, ctypes.byref(q), threads, out.ptr)
        return out.value()

    def _raycast_into(self, origins, directions, tmin, tmax, threads, cull_back_faces, out) -> None:
        """Closest hits of N rays written into `out`, an existing NumPy array of
        N mq_hit records (np.dtype(_c.MqHit)), so that callers answering many
        batches (meshquery.dask) reuse one buffer instead of a fresh one each."""
        q = _query(cull_back_faces)
        arrays = self._ray_arrays(origins, directions, tmin, tmax)
        if arrays and len(out) == arrays[0] and out.dtype == _HIT_DTYPE and out.flags.c_contiguous:
            n, o, d = arrays
            self._f("raycast_closest_batch_arrays")(self.handle, _ptr(o), _ptr(d), n, tmin, tmax, ctypes.byref(q),
                                                    threads, _ptr(out))
        else:
            out[:] = self.raycast(origins, directions, tmin, tmax, threads, cull_back_faces).records

    _HAS_RAY_ARRAYS = False

    def _ray_arrays(self, origins, directions, tmin, tmax):
        """(n, origins, directions) as contiguous float32 N x 3 arrays when the C
        library can take them as they are (NumPy, one interval for all rays, a
        tree with the array batches), else None: the rays are packed as records."""
        if np is None or not self._HAS_RAY_ARRAYS or np.ndim(tmin) or np.ndim(tmax):
            return None
        n, o = _rows3(origins, "origins")
        nd, d = _rows3(directions, "directions")
        if n != nd:
            raise ValueError("origins and directions differ in length (%d, %d)" % (n, nd))
        return n, o, d

    def raycast_closest(self, origin: Vec3, direction: Vec3, tmin: float = 0.0, tmax: float = math.inf,
                        cull_back_faces: bool = False) -> Optional[Hit]:
        """The nearest hit of one ray as a Hit, or None."""
        r, h, q = _ray(origin, direction, tmin, tmax), _c.MqHit(), _query(cull_back_faces)
        if self._f("raycast_closest")(self.handle, ctypes.byref(r), ctypes.byref(q), ctypes.byref(h)):
            return _hit_tuple(h)
        return None

    def raycast_any(self, origin: Vec3, direction: Vec3, tmin: float = 0.0, tmax: float = math.inf,
                    cull_back_faces: bool = False) -> bool:
        """True when one ray hits anything in [tmin, tmax]."""
        r, q = _ray(origin, direction, tmin, tmax), _query(cull_back_faces)
        return bool(self._f("raycast_any")(self.handle, ctypes.byref(r), ctypes.byref(q)))

    # ---- distances and clearance (proximity.h) ------------------------------

    @staticmethod
    def _dist_opts(max_distance, abs_tolerance, rel_tolerance):
        o = _c.lib.mq_default_distance_options()
        o.max_distance, o.abs_tolerance, o.rel_tolerance = max_distance, abs_tolerance, rel_tolerance
        return o

    def _other(self, other):
        if type(other) is not type(self):
            raise TypeError("expected a %s, got %s" % (type(self).__name__, type(other).__name__))
        return other.handle

    def distance(self, other, rotation: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
                 translation: Vec3 = (0.0, 0.0, 0.0), max_distance: float = math.inf, abs_tolerance: float = 0.0,
                 rel_tolerance: float = 0.0) -> Optional[dict]:
        """The distance between this mesh and `other`'s (a tree of the same kind)
        placed by the rigid transform (rotation w, x, y, z, then translation): a
        dict of distance (0 when they touch), point_a, point_b (this frame),
        triangle_a, triangle_b; None when nothing lies within max_distance."""
        xf, o, r = OBBTree._rigid(rotation, translation), self._dist_opts(max_distance, abs_tolerance,
                                                                          rel_tolerance), _c.MqDistanceResult()
        if not self._f("distance")(self.handle, self._other(other), ctypes.byref(xf), ctypes.byref(o),
                                   ctypes.byref(r)) or not r.found:
            return None
        return {"distance": r.distance, "point_a": tuple(r.point_a), "point_b": tuple(r.point_b),
                "triangle_a": r.triangle_a, "triangle_b": r.triangle_b}

    def shape_distance(self, shape: Shapes, max_distance: float = math.inf, abs_tolerance: float = 0.0,
                       rel_tolerance: float = 0.0) -> Optional[dict]:
        """The distance between one solid shape (a Shapes of length 1) and the
        mesh: a dict of distance, point_shape, point_mesh, triangle; None when
        nothing lies within max_distance."""
        if len(shape) != 1:
            raise ValueError("shape_distance: one shape")
        _, ptr, keep = shape._packed(False)
        o, r = self._dist_opts(max_distance, abs_tolerance, rel_tolerance), _c.MqShapeDistanceResult()
        if not self._f("shape_distance")(self.handle, ptr, ctypes.byref(o), ctypes.byref(r)) or not r.found:
            return None
        return {"distance": r.distance, "point_shape": tuple(r.point_shape), "point_mesh": tuple(r.point_mesh),
                "triangle": r.triangle}

    def _clearance(self, call, *args):
        cap = 256
        while True:
            out, finish = _records_out(_c.MqClearancePair, cap)
            total = call(*args, out, cap)
            if total <= cap:
                return finish(count=total)
            cap = total

    def clearance(self, other, d: float, rotation: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
                  translation: Vec3 = (0.0, 0.0, 0.0)) -> Records:
        """Every triangle pair of this mesh and `other`'s (placed as for distance)
        within distance d: Records of triangle_a, triangle_b, distance, point_a, point_b."""
        xf = OBBTree._rigid(rotation, translation)
        return self._clearance(self._f("clearance_array"), self.handle, self._other(other), ctypes.byref(xf),
                               float(d))

    def clearance_any(self, other, d: float, rotation: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
                      translation: Vec3 = (0.0, 0.0, 0.0)) -> bool:
        """True when some triangle pair lies within d."""
        xf = OBBTree._rigid(rotation, translation)
        return bool(self._f("clearance_any")(self.handle, self._other(other), ctypes.byref(xf), float(d)))

    def shape_clearance(self, shape: Shapes, d: float) -> Records:
        """Every triangle within d of one shape: Records (triangle_b the mesh's triangle)."""
        if len(shape) != 1:
            raise ValueError("shape_clearance: one shape")
        _, ptr, keep = shape._packed(False)
        return self._clearance(self._f("shape_clearance_array"), self.handle, ptr, float(d))

    # ---- contacts and intersection segments (contacts.h) ---------------------

    def contacts(self, shape: Shapes) -> Records:
        """Every triangle the one shape (a Shapes of length 1: sphere, capsule, obb,
        aabb) overlaps, with its contact (mq_<tree>_contacts_array): Records of
        depth (>= 0), normal (unit, the way the shape moves out), point_shape,
        point_triangle (double) and triangle; the triangles of overlap(), in its
        order. A convex hull has no contact yet: no records."""
        if len(shape) != 1:
            raise ValueError("contacts: one shape")
        _, ptr, keep = shape._packed(False)
        fn = self._f("contacts_array")
        cap = 64
        while True:
            out, finish = _records_out(_c.MqContact, cap)
            total = fn(self.handle, ptr, out, cap)
            if total <= cap:
                return finish(count=total)
            cap = total

    def intersections(self, other, rotation: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
                      translation: Vec3 = (0.0, 0.0, 0.0)) -> Records:
        """Where this mesh and `other`'s (a tree of the same kind, placed by the
        rigid transform: rotation w, x, y, z, then translation) cut each other:
        one record per intersecting triangle pair (mq_<tree>_intersections), with
        triangle_a, triangle_b, the segment's ends p0, p1 in this mesh's frame
        (double; p0 == p1 for a point) and coplanar (the pair shares an area:
        p0 == p1 is one common point). The pairs of collide(), in its order.
        The C call reports pairs through a callback, so each pair costs one
        Python call (a record copy)."""
        xf = OBBTree._rigid(rotation, translation)
        size = ctypes.sizeof(_c.MqIntersectionSegment)
        raw = bytearray()

        def take(seg, user):
            raw.extend(ctypes.string_at(seg, size))
            return True

        cb = _c.SEGMENT_FN(take)
        count = self._f("intersections")(self.handle, self._other(other), ctypes.byref(xf), cb, None)
        return _records_from_bytes(_c.MqIntersectionSegment, count, raw)

    # ---- saved hierarchies ------------------------------------------------

    def save(self, path) -> None:
        """Saves the hierarchy and its mesh (meshquery/saved.h) for a fast load()."""
        diag = _c.MqDiag()
        _check(self._f("save")(self.handle, os.fsencode(path), ctypes.byref(diag)), diag)

    def to_bytes(self) -> bytes:
        """The saved file's bytes, in memory (mq_<tree>_save_memory)."""
        data, size, diag = ctypes.c_void_p(), ctypes.c_size_t(), _c.MqDiag()
        _check(self._f("save_memory")(self.handle, None, ctypes.byref(data), ctypes.byref(size), ctypes.byref(diag)),
               diag)
        try:
            return ctypes.string_at(data.value, size.value)
        finally:
            _c.lib.mq_saved_free(data, size, None)

    @classmethod
    def _load(cls, name, path):
        out, diag = ctypes.c_void_p(), _c.MqDiag()
        fn = getattr(_c.lib, "mq_%s_%s" % (cls._prefix, name))
        _check(fn(os.fsencode(path), None, ctypes.byref(out), ctypes.byref(diag)), diag)
        return cls._from_handle(out.value)

    @classmethod
    def load(cls, path):
        """Loads a hierarchy saved by save() (copied into memory); it owns its mesh (.mesh).
        Raises MeshqueryError (MQ_ERR_IO, MQ_ERR_CORRUPT, ...) with the diagnostic."""
        return cls._load("load", path)

    @classmethod
    def load_mapped(cls, path):
        """As load(), the file memory-mapped (fast cold loads, pages shared between
        processes); the file must not be modified while the object lives."""
        return cls._load("load_mapped", path)

    @classmethod
    def from_bytes(cls, data: bytes):
        """Loads a hierarchy from the bytes of a saved file (to_bytes())."""
        out, diag = ctypes.c_void_p(), _c.MqDiag()
        fn = getattr(_c.lib, "mq_%s_load_memory" % cls._prefix)
        _check(fn(data, len(data), None, ctypes.byref(out), ctypes.byref(diag)), diag)
        return cls._from_handle(out.value)

    @classmethod
    def _from_handle(cls, handle):
        self = cls.__new__(cls)
        self._h = handle
        self.mesh = self._mesh_of(handle)
        return self


# ---------------------------------------------------------------------------
# BVH
# ---------------------------------------------------------------------------

_QUALITY = {"low": 0, "medium": 1, "high": 2}


class BVH(_Tree):
    """An 8-wide SAH BVH over a mesh (C: mq_bvh): raycasts (closest, any, all),
    shape overlaps, closest points, casts, winding numbers and signed distances,
    each as one call or a batch. Keeps the mesh alive.

    BVH(mesh, quality='medium', max_leaf_size=4, threads=0)"""
    _destroy = "mq_bvh_destroy"
    _prefix = "bvh"
    _HAS_RAY_ARRAYS = True

    def __init__(self, mesh: Mesh, quality: str = "medium", max_leaf_size: int = 4, threads: int = 0):
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
    def byte_count(self) -> int:
        return _c.lib.mq_bvh_byte_count(self.handle)

    def stats(self) -> dict:
        """The tree's shape and cost (mq_bvh_stats) as a dict."""
        s = _c.MqBvhStats()
        _c.lib.mq_bvh_get_stats(self.handle, ctypes.byref(s))
        return {name: getattr(s, name) for name, _ in _c.MqBvhStats._fields_}

    def refit(self, positions: Optional[Array] = None) -> None:
        """Refits the tree to moved vertices (V x 3, same order and triangles; None:
        the mesh's own positions again). Queries answer for the new geometry; the
        mesh's positions stay the old ones. No query may run meanwhile."""
        keep, ptr = None, None
        if positions is not None:
            n, ptr, keep = _pack3(positions, "positions")
            if n != self.mesh.vertex_count:
                raise ValueError("positions: expected %d vertices, got %d" % (self.mesh.vertex_count, n))
        diag = _c.MqDiag()
        _check(_c.lib.mq_bvh_refit(self.handle, ptr, ctypes.byref(diag)), diag, "BVH.refit")

    def validate(self) -> None:
        """Checks the tree's invariants; raises MeshqueryError (MQ_ERR_CORRUPT) naming the first violation."""
        diag = _c.MqDiag()
        _check(_c.lib.mq_bvh_validate(self.handle, ctypes.byref(diag)), diag, "BVH.validate")

    def raycast_all(self, origin: Vec3, direction: Vec3, tmin: float = 0.0, tmax: float = math.inf,
                    cull_back_faces: bool = False) -> List[Hit]:
        """Every hit of one ray, nearest first (mq_bvh_raycast_all), as a list of Hit."""
        r, q = _ray(origin, direction, tmin, tmax), _query(cull_back_faces)
        cap = 16
        while True:
            hits = (_c.MqHit * cap)()
            total = _c.lib.mq_bvh_raycast_all(self.handle, ctypes.byref(r), ctypes.byref(q), hits, cap)
            if total <= cap:
                return [_hit_tuple(hits[i]) for i in range(total)]
            cap = total

    def raycast_all_batch(self, origins: Array, directions: Array, tmin=0.0, tmax=math.inf, threads: int = 0,
                          cull_back_faces: bool = False) -> Tuple[Array, RayHits]:
        """Every hit of N rays (trimesh's intersects_location): (ray, hits) where
        ray[k] is the index of the ray of hits[k]; each ray's hits come nearest
        first, rays in input order. Two C batches (counts, then hits)."""
        n, rays, keep = _make_rays(origins, directions, tmin, tmax)
        q = _query(cull_back_faces)
        counts = _Out("u32", n)
        total = _c.lib.mq_bvh_raycast_all_count_batch(self.handle, rays, n, ctypes.byref(q), threads, counts.ptr)
        if np is not None:
            c = counts.value()
            offsets = np.zeros(n + 1, dtype=np.uint64)
            np.cumsum(c, out=offsets[1:])
            optr, ray = offsets.ctypes.data_as(ctypes.c_void_p), np.repeat(np.arange(n, dtype=np.uint32), c)
        else:
            c = counts.value()
            acc, offs = 0, [0]
            for k in c:
                acc += k
                offs.append(acc)
            offsets = (ctypes.c_uint64 * (n + 1))(*offs)
            optr, ray = ctypes.cast(offsets, ctypes.c_void_p), [i for i in range(n) for _ in range(c[i])]
        out, finish = _records_out(_c.MqHit, int(total), zero=False)
        _c.lib.mq_bvh_raycast_all_batch(self.handle, rays, n, ctypes.byref(q), threads, optr, out)
        return ray, finish(RayHits)


# ---------------------------------------------------------------------------
# OBB tree
# ---------------------------------------------------------------------------

_FIT = {"dito": 0, "pca": 1, "aabb": 2}


class OBBTree(_Tree):
    """An OBB tree over a mesh (C: mq_obbtree): shape overlaps, closest points,
    raycasts, casts, solids, mesh vs mesh; the same answers as the BVH. Keeps
    the mesh alive.

    OBBTree(mesh, fit='dito' | 'pca' | 'aabb', max_leaf_size=4)"""
    _destroy = "mq_obbtree_destroy"
    _prefix = "obbtree"

    def __init__(self, mesh: Mesh, fit: str = "dito", max_leaf_size: int = 4):
        d = _c.lib.mq_default_obbtree_def()
        if fit not in _FIT:
            raise ValueError("fit: one of %s" % ", ".join(_FIT))
        d.fit, d.max_leaf_size = _FIT[fit], max_leaf_size
        out, diag = ctypes.c_void_p(), _c.MqDiag()
        _check(_c.lib.mq_obbtree_build(mesh.handle, ctypes.byref(d), ctypes.byref(out), ctypes.byref(diag)), diag,
               "OBBTree")
        self._h = out.value
        self.mesh = mesh

    def stats(self) -> dict:
        """The tree's shape and size (mq_obbtree_stats) as a dict."""
        st = _c.MqObbtreeStats()
        _c.lib.mq_obbtree_get_stats(self.handle, ctypes.byref(st))
        return {name: getattr(st, name) for name, _ in st._fields_}

    @property
    def node_count(self) -> int:
        return self.stats()["node_count"]

    @property
    def depth(self) -> int:
        return self.stats()["max_depth"]

    @property
    def byte_count(self) -> int:
        return _c.lib.mq_obbtree_byte_count(self.handle)

    def root(self):
        """The root box as (center, half extents, axes) tuples, or None for an empty tree."""
        b = _c.MqObb()
        if not _c.lib.mq_obbtree_root(self.handle, ctypes.byref(b)):
            return None
        return tuple(b.center), tuple(b.half), tuple(tuple(a) for a in b.axes)

    @staticmethod
    def _rigid(rotation, translation):
        xf = _c.MqRigid()
        xf.rotation = _quat(rotation, "rotation")
        xf.translation = _vec3(translation, "translation")
        return xf

    def collide(self, other: "OBBTree", rotation: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
                translation: Vec3 = (0.0, 0.0, 0.0)) -> Array:
        """Intersecting triangle pairs (id in this mesh, id in other's) with `other`
        placed in this tree's frame by the rigid transform: `rotation` a quaternion
        w, x, y, z (the scalar part first; normalised first), then `translation`.
        A P x 2 uint32 array, or a list of tuples."""
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

    def any_collide(self, other: "OBBTree", rotation: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
                    translation: Vec3 = (0.0, 0.0, 0.0)) -> bool:
        """True when some triangle pair intersects (see collide; `rotation` is a
        quaternion w, x, y, z)."""
        xf = self._rigid(rotation, translation)
        return bool(_c.lib.mq_obbtree_any_collide(self.handle, other.handle, ctypes.byref(xf)))


# ---------------------------------------------------------------------------
# Pairwise primitives of contacts.h and primitives.h
# ---------------------------------------------------------------------------

def _triangle(corners, name):
    rows = corners.tolist() if hasattr(corners, "tolist") else [list(r) for r in corners]
    if len(rows) != 3:
        raise ValueError("%s: three corners" % name)
    t = _c.MqTriangle()
    for i in range(3):
        t.v[i] = _vec3(rows[i], name)
    return t


def intersect_triangles(a: Sequence[Vec3], b: Sequence[Vec3]) -> Optional[dict]:
    """Where two triangles (3 corners each, one frame) meet (mq_intersect_triangles,
    computed in double from the float corners): a dict of p0, p1 (the segment's
    ends; equal for a point) and coplanar (they share an area: p0 == p1 is one
    common point), or None when they do not meet."""
    ta, tb, out = _triangle(a, "a"), _triangle(b, "b"), _c.MqIntersectionSegment()
    if not _c.lib.mq_intersect_triangles(ctypes.byref(ta), ctypes.byref(tb), ctypes.byref(out)):
        return None
    return {"p0": tuple(out.p0), "p1": tuple(out.p1), "coplanar": bool(out.coplanar)}


def contact(shape: Shapes, triangle: Sequence[Vec3]) -> Optional[dict]:
    """The contact of one shape (a Shapes of length 1) with one triangle (3 corners)
    (mq_contact_shape_triangle, in double): a dict of depth (the penetration
    depth; negative when apart), normal (unit, the way the shape moves out),
    point_shape, point_triangle, and overlap (depth >= 0). Apart, depth is
    minus the distance for a sphere or capsule (the points then the closest
    ones) and minus a lower bound of it for a box. None for an invalid or
    unknown shape."""
    if len(shape) != 1:
        raise ValueError("contact: one shape")
    _, ptr, keep = shape._packed(False)
    t, out = _triangle(triangle, "triangle"), _c.MqContact()
    out.depth = math.nan  # left untouched for invalid inputs
    touching = bool(_c.lib.mq_contact_shape_triangle(ptr, ctypes.byref(t), ctypes.byref(out)))
    if not touching and math.isnan(out.depth):
        return None
    return {"depth": out.depth, "normal": tuple(out.normal), "point_shape": tuple(out.point_shape),
            "point_triangle": tuple(out.point_triangle), "overlap": touching}


from .scene import ClashList, Scene  # noqa: E402  (needs the names above)
from .trees import KDOPTree, SphereTree  # noqa: E402
