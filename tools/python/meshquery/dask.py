"""meshquery.dask: ray and shape batches over a saved hierarchy or a scene of
saved hierarchies, as Dask arrays.

Each task of the graph answers one chunk of queries with the C batch of the
hierarchy saved in `hierarchy_file` (BVH.save / OBBTree.save). Every worker
process maps the file once (load_mapped, cached per process and file) and
answers all its chunks with it, so nothing but the file's path travels with
the tasks. Results come back in input order and are exactly what the C batch
gives for the same queries in one process, whatever the chunking, the number
of workers or a worker lost and its chunks recomputed.

    import meshquery.dask as mqd
    from distributed import Client
    client = Client("tcp://scheduler:8786")          # or LocalCluster(); or no client (threads)
    hits = mqd.raycast("/shared/bunny.mqh", origins, directions)   # NumPy or Dask (N, 3)
    hits.t, hits.triangle                            # Dask arrays (N,)
    t, triangle = hits.compute()                     # NumPy, one pass over the graph

Every function takes `chunk` (queries per task when the inputs are NumPy
arrays; Dask inputs keep their own chunks along the first axis) and `threads`
(C threads per task: 1 by default, since Dask runs one task per worker
thread; 0 = all cores). The hierarchy file must be readable at the same path
on every worker (shared storage) and must not change while a computation
runs (mapped files); a file replaced by a new one (another size or mtime) is
mapped afresh.
"""
import math
import os
import threading
from functools import partial

import dask.array as da
import numpy as np

import meshquery as mq

__all__ = ["raycast", "occluded", "closest_points", "signed_distance", "overlap_counts", "scene_raycast",
           "scene_occluded", "DaskRecords", "hierarchy", "scene"]

_CACHE = {}
_LOCK = threading.Lock()


def hierarchy(path):
    """The hierarchy saved at `path`, mapped once per process (a BVH, or an OBBTree
    for a saved OBB tree); later calls with the same unchanged file return it."""
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    with _LOCK:
        tree = _CACHE.get(key)
        if tree is None:
            try:
                tree = mq.BVH.load_mapped(path)
            except mq.MeshqueryError as bvh_error:
                try:
                    tree = mq.OBBTree.load_mapped(path)
                except mq.MeshqueryError:
                    raise bvh_error from None
            for old in [k for k in _CACHE if k[0] == key[0]]:
                del _CACHE[old]
            _CACHE[key] = tree
        return tree


_PLACEMENT = ("transform", "translation", "rotation", "scale", "user_id", "mask")


def _scene_key(instances):
    key = []
    for inst in instances:
        path = os.path.abspath(os.fspath(inst["file"]))
        st = os.stat(path)
        place = tuple((k, repr(inst[k].tolist() if hasattr(inst[k], "tolist") else inst[k]))
                      for k in _PLACEMENT if k in inst)
        key.append((path, st.st_size, st.st_mtime_ns, place))
    return ("scene", tuple(key))


def scene(instances):
    """The committed Scene of a description, built once per process and
    description: `instances` is a list of dicts with "file" (a saved BVH or OBB
    tree, mapped once per process by hierarchy()) and any of the placement
    keywords of Scene.add ("transform", "translation", "rotation", "scale",
    "user_id", "mask"). Instance ids are the list's indices."""
    key = _scene_key(instances)
    with _LOCK:
        found = _CACHE.get(key)
    if found is not None:
        return found
    sc = mq.Scene()
    for inst in instances:
        sc.add(hierarchy(inst["file"]), **{k: inst[k] for k in _PLACEMENT if k in inst})
    sc.commit()
    with _LOCK:
        return _CACHE.setdefault(key, sc)


class DaskRecords:
    """Dask arrays of one record per query, in input order: every field of
    `dtype` is an attribute (a Dask array of shape (N,) or (N, 3)); compute()
    evaluates them all in one pass and returns a tuple of NumPy arrays in the
    order of `fields`."""

    def __init__(self, array, fields):
        self.array = array
        self.fields = fields
        for f in fields:
            setattr(self, f, array[f])

    def __len__(self):
        return self.array.shape[0]

    def compute(self, **kwargs):
        """NumPy arrays of the fields (in self.fields order), computed together."""
        rec = self.array.compute(**kwargs)
        return tuple(np.ascontiguousarray(rec[f]) for f in self.fields)

    def persist(self, **kwargs):
        """The same records held in the cluster's memory (dask persist)."""
        return DaskRecords(self.array.persist(**kwargs), self.fields)

    def __repr__(self):
        return "<DaskRecords %s of %d, %d chunks>" % (", ".join(self.fields), len(self), self.array.numblocks[0])


def _rows(a, chunk, width, dtype):
    """A NumPy or Dask (N, width) / (N,) input as a Dask array, one chunk along axis 1."""
    if not isinstance(a, da.Array):
        a = np.ascontiguousarray(a, dtype=dtype)
        if width and (a.ndim != 2 or a.shape[1] != width):
            raise ValueError("expected an (N, %d) array, got shape %s" % (width, a.shape))
        return da.from_array(a, chunks=(chunk,) + ((width,) if width else ()))
    if width and (a.ndim != 2 or a.shape[1] != width):
        raise ValueError("expected an (N, %d) array, got shape %s" % (width, a.shape))
    a = a.astype(dtype)
    return a.rechunk({1: width}) if width else a


def _aligned(arrays):
    """Rechunks every array along axis 0 like the first."""
    first = arrays[0].chunks[0]
    return [a if a.chunks[0] == first else a.rechunk({0: first}) for a in arrays]


def _as_column(fn, *blocks):
    return fn(*blocks)[:, None]


def _first_column(block):
    return block[:, 0]


def _blockwise(fn, dtype, arrays):
    """fn over the arrays' row chunks (each in one piece along axis 1), as a Dask
    array (N,). The task is written as an (N, 1) blockwise layer with no
    contraction, then its column taken: Dask fuses such layers with the
    blockwise layers before and after them, so a chunk of inputs made by
    blockwise tasks is cast by the task that made it, on the same worker,
    instead of travelling there."""
    arrays = _aligned(arrays)
    args = []
    for a in arrays:
        args += [a, "ij" if a.ndim == 2 else "i"]
    cols = da.blockwise(partial(_as_column, fn), "ij", *args, dtype=dtype, adjust_chunks={"j": 1},
                        meta=np.empty((0, 0), dtype=dtype))
    return cols.map_blocks(_first_column, drop_axis=1, dtype=dtype, meta=np.empty((0,), dtype=dtype))


# ---- the tasks (module level: pickled by reference) -----------------------------

def _view_of(ctype, names):
    """A dtype showing `names` of the C record `ctype` in place (its offsets and
    size): a task returns the C batch's own records under it, with no copy."""
    full = np.dtype(ctype)
    return np.dtype({"names": list(names), "formats": [full.fields[n][0] for n in names],
                     "offsets": [full.fields[n][1] for n in names], "itemsize": full.itemsize})


_RAY = _view_of(mq._c.MqHit, ["t", "triangle", "u", "v", "point", "normal"])
_POINT = np.dtype([("distance", np.float32), ("triangle", np.uint32), ("point", np.float32, (3,)),
                   ("u", np.float32), ("v", np.float32)])


_BLOCK = 1 << 14  # rays per C call inside a task: their records stay in cache until copied out
_SCRATCH = threading.local()


def _hit_scratch(n):
    """This thread's buffer of n mq_hit records, reused by every task it runs."""
    buf = getattr(_SCRATCH, "hits", None)
    if buf is None or len(buf) < n:
        buf = _SCRATCH.hits = np.empty(n, dtype=np.dtype(mq._c.MqHit))
    return buf[:n]


def _ray_fields(fields):
    """The record dtype of the raycast fields asked for (all of _RAY's by default), packed."""
    names = list(_RAY.names) if fields is None else [fields] if isinstance(fields, str) else list(fields)
    unknown = [f for f in names if f not in _RAY.names]
    if unknown or not names or len(set(names)) != len(names):
        raise ValueError("fields: expected distinct names among %s, got %r" % (", ".join(_RAY.names), fields))
    return np.dtype([(f, _RAY.fields[f][0]) for f in names])


def _raycast_task(path, tmin, tmax, threads, cull, dtype, origins, directions):
    """The chunk's hits with only `dtype`'s fields: the C batch writes blocks of
    _BLOCK records into this thread's scratch buffer, and each block's fields
    are copied out while it is still in cache (no fresh full-size records per
    chunk, which cost page faults and memory traffic on every task)."""
    tree, n = hierarchy(path), len(origins)
    out = np.empty(n, dtype=dtype)
    scratch = _hit_scratch(min(n, _BLOCK))
    for i in range(0, n, _BLOCK):
        j = min(n, i + _BLOCK)
        block = scratch[:j - i]
        tree._raycast_into(origins[i:j], directions[i:j], tmin, tmax, threads, cull, block)
        for f in dtype.names:
            out[f][i:j] = block[f]
    return out


def _occluded_task(path, tmin, tmax, threads, cull, origins, directions):
    return hierarchy(path).occluded(origins, directions, tmin, tmax, threads=threads, cull_back_faces=cull)


def _closest_task(path, max_distance, threads, points):
    r = hierarchy(path).closest_points(points, max_distance, threads=threads)
    out = np.empty(len(r), dtype=_POINT)
    for f in _POINT.names:
        out[f] = getattr(r, f)
    return out


def _signed_task(path, threads, points):
    return hierarchy(path).signed_distance(points, threads=threads)


_SCENE_RAY = np.dtype([("t", np.float64), ("instance", np.uint32), ("triangle", np.uint32), ("user_id", np.uint64),
                       ("u", np.float32), ("v", np.float32), ("point", np.float64, (3,)),
                       ("normal", np.float64, (3,))])


def _scene_raycast_task(instances, tmin, tmax, mask, threads, cull, origins, directions):
    h = scene(instances).raycast(origins, directions, tmin, tmax, mask=mask, cull_back_faces=cull, threads=threads)
    out = np.empty(len(h), dtype=_SCENE_RAY)
    for f in _SCENE_RAY.names:
        out[f] = getattr(h, f)
    return out


def _scene_occluded_task(instances, tmin, tmax, mask, threads, cull, origins, directions):
    return scene(instances).occluded(origins, directions, tmin, tmax, mask=mask, cull_back_faces=cull,
                                     threads=threads)


def _overlap_task(path, threads, kinds, params):
    return hierarchy(path).overlap_counts(mq.Shapes(kinds, params), threads=threads)


# ---- the calls ---------------------------------------------------------------------

def raycast(hierarchy_file, origins, directions, tmin=0.0, tmax=math.inf, chunk=1 << 18, threads=1,
            cull_back_faces=False, fields=None) -> DaskRecords:
    """Closest hits of N rays (origins, directions: NumPy or Dask (N, 3)) on the
    hierarchy saved in `hierarchy_file`: DaskRecords with t (inf on a miss),
    triangle (NO_TRIANGLE on a miss), u, v, point, normal, each a Dask array in
    input order, equal to BVH.raycast in one process. `fields` (a name or a
    list of them) keeps only those fields: each task then holds and sends
    only them (("t", "triangle") is 8 bytes a ray instead of 40). Raises
    ValueError for an unknown, repeated or empty choice of fields, or inputs
    that are not (N, 3) or differ in shape."""
    path = os.path.abspath(os.fspath(hierarchy_file))
    dtype = _ray_fields(fields)
    o, d = _rows(origins, chunk, 3, np.float32), _rows(directions, chunk, 3, np.float32)
    if o.shape != d.shape:
        raise ValueError("origins and directions differ in shape (%s, %s)" % (o.shape, d.shape))
    fn = partial(_raycast_task, path, float(tmin), float(tmax), int(threads), bool(cull_back_faces), dtype)
    return DaskRecords(_blockwise(fn, dtype, [o, d]), list(dtype.names))


def occluded(hierarchy_file, origins, directions, tmin=0.0, tmax=math.inf, chunk=1 << 18, threads=1,
             cull_back_faces=False):
    """Any-hit answers of N rays: a Dask bool array (N,), equal to BVH.occluded."""
    path = os.path.abspath(os.fspath(hierarchy_file))
    o, d = _rows(origins, chunk, 3, np.float32), _rows(directions, chunk, 3, np.float32)
    if o.shape != d.shape:
        raise ValueError("origins and directions differ in shape (%s, %s)" % (o.shape, d.shape))
    fn = partial(_occluded_task, path, float(tmin), float(tmax), int(threads), bool(cull_back_faces))
    return _blockwise(fn, np.bool_, [o, d])


def closest_points(hierarchy_file, points, max_distance=math.inf, chunk=1 << 16, threads=1) -> DaskRecords:
    """Closest points of N points (NumPy or Dask (N, 3)): DaskRecords with distance
    (inf where nothing lies within max_distance), triangle, point, u, v."""
    path = os.path.abspath(os.fspath(hierarchy_file))
    fn = partial(_closest_task, path, float(max_distance), int(threads))
    return DaskRecords(_blockwise(fn, _POINT, [_rows(points, chunk, 3, np.float32)]), list(_POINT.names))


def signed_distance(hierarchy_file, points, chunk=1 << 16, threads=1):
    """Signed distances of N points to the closed mesh (negative inside): a Dask float32 array (N,)."""
    path = os.path.abspath(os.fspath(hierarchy_file))
    return _blockwise(partial(_signed_task, path, int(threads)), np.float32, [_rows(points, chunk, 3, np.float32)])


def overlap_counts(hierarchy_file, shapes, chunk=1 << 16, threads=1):
    """For each tagged shape (a meshquery.Shapes made with NumPy, or a pair
    (kinds, params) of Dask arrays (N,) int32 and (N, k) float64 laid out as
    Shapes holds them) the number of triangles it overlaps: a Dask uint64 array."""
    path = os.path.abspath(os.fspath(hierarchy_file))
    if isinstance(shapes, mq.Shapes):
        kinds, params = shapes.kinds, shapes.params
        if (np.asarray(kinds) == mq._c.MQ_SHAPE_CONVEX).any():  # a hull's address means nothing on a worker
            raise ValueError("overlap_counts: convex hulls live in this process; they cannot go to Dask workers")
    else:
        kinds, params = shapes
    k, p = _rows(kinds, chunk, 0, np.int32), _rows(params, chunk, params.shape[1], np.float64)
    return _blockwise(partial(_overlap_task, path, int(threads)), np.uint64, [k, p])


def _instances(instances):
    out = []
    for inst in instances:
        d = dict(inst)
        d["file"] = os.path.abspath(os.fspath(d["file"]))
        out.append(d)
    return out


def scene_raycast(instances, origins, directions, tmin=0.0, tmax=math.inf, mask=0xFFFFFFFF, chunk=1 << 18,
                  threads=1, cull_back_faces=False) -> DaskRecords:
    """Closest world hits of N rays (float64 (N, 3), NumPy or Dask) in the scene
    described by `instances` (see scene()): DaskRecords with t (inf on a miss),
    instance (NO_INSTANCE on a miss; the index in `instances`), triangle,
    user_id, u, v, point, normal, equal to Scene.raycast in one process."""
    inst = _instances(instances)
    o, d = _rows(origins, chunk, 3, np.float64), _rows(directions, chunk, 3, np.float64)
    if o.shape != d.shape:
        raise ValueError("origins and directions differ in shape (%s, %s)" % (o.shape, d.shape))
    fn = partial(_scene_raycast_task, inst, float(tmin), float(tmax), int(mask), int(threads), bool(cull_back_faces))
    return DaskRecords(_blockwise(fn, _SCENE_RAY, [o, d]), list(_SCENE_RAY.names))


def scene_occluded(instances, origins, directions, tmin=0.0, tmax=math.inf, mask=0xFFFFFFFF, chunk=1 << 18,
                   threads=1, cull_back_faces=False):
    """Any-hit answers of N world rays in the described scene: a Dask bool array (N,)."""
    inst = _instances(instances)
    o, d = _rows(origins, chunk, 3, np.float64), _rows(directions, chunk, 3, np.float64)
    if o.shape != d.shape:
        raise ValueError("origins and directions differ in shape (%s, %s)" % (o.shape, d.shape))
    fn = partial(_scene_occluded_task, inst, float(tmin), float(tmax), int(mask), int(threads),
                 bool(cull_back_faces))
    return _blockwise(fn, np.bool_, [o, d])

