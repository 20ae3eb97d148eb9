"""The k-DOP and sphere trees (C: mq_kdoptree, meshquery/kdoptree.h; mq_spheretree,
meshquery/spheretree.h): two more bounding volumes over a mesh with the OBB
tree's query vocabulary and exactly its answers (brute force over the
triangles).

    kdop = meshquery.KDOPTree(mesh, k=18)          # 6, 14, 18 or 26 slabs a node
    balls = meshquery.SphereTree(mesh)
    kdop.overlap(meshquery.sphere(c, r)), kdop.overlap_any(shape)
    kdop.raycast_closest(o, d), kdop.raycast_any(o, d), kdop.closest_point(p)
    kdop.collide(other_kdop, rotation=(w, x, y, z), translation=t), kdop.any_collide(...)
    kdop.sphere_cast(c, r, direction), kdop.capsule_cast(...), kdop.convex_cast(hull, direction)
    kdop.shape_distance(shape), kdop.shape_clearance(shape, d), kdop.shape_clearance_any(shape, d)
    kdop.refit(moved_positions), kdop.stats(), kdop.byte_count, kdop.k

The C library has only one-query calls for these trees (no batches in
batch.h), so the binding offers the one-query methods; batches of rays,
points and shapes are the BVH's and the OBB tree's (meshquery.BVH, OBBTree),
which give the same answers.
"""
import ctypes
from typing import Optional, Sequence

from . import _capi as _c
from . import Array, Mesh, OBBTree, Vec3, _check, _Handle, _pack3, _Tree, np

__all__ = ["KDOPTree", "SphereTree"]


class _VolumeTree(_Handle):
    """What the k-DOP and sphere trees share: build, refit, stats and the OBB
    tree's one-query calls (each is mq_<prefix>_<name>)."""
    _prefix = None
    _stats_type = None

    _f = _Tree._f
    overlap = _Tree.overlap
    overlap_any = _Tree.overlap_any
    overlap_sphere = _Tree.overlap_sphere
    any_overlap_sphere = _Tree.any_overlap_sphere
    overlap_capsule = _Tree.overlap_capsule
    any_overlap_capsule = _Tree.any_overlap_capsule
    overlap_aabb = _Tree.overlap_aabb
    any_overlap_aabb = _Tree.any_overlap_aabb
    overlap_obb = _Tree.overlap_obb
    any_overlap_obb = _Tree.any_overlap_obb
    _obb_from_quat = _Tree.__dict__["_obb_from_quat"]  # the staticmethod itself
    closest_point = _Tree.closest_point
    raycast_closest = _Tree.raycast_closest
    raycast_any = _Tree.raycast_any
    # casts, shape distance and clearance (casts.h, proximity.h): the same answers as the BVH's
    _cast = _Tree._cast
    sphere_cast = _Tree.sphere_cast
    capsule_cast = _Tree.capsule_cast
    convex_cast = _Tree.convex_cast
    _dist_opts = _Tree.__dict__["_dist_opts"]  # the staticmethod itself
    shape_distance = _Tree.shape_distance
    _clearance = _Tree._clearance
    shape_clearance = _Tree.shape_clearance

    def shape_clearance_any(self, shape, d: float) -> bool:
        """True when some triangle lies within d of the one shape (a Shapes of length 1)."""
        if len(shape) != 1:
            raise ValueError("shape_clearance_any: one shape")
        _, ptr, keep = shape._packed(False)
        return bool(self._f("shape_clearance_any")(self.handle, ptr, float(d)))

    def _build(self, mesh, d, what):
        out, diag = ctypes.c_void_p(), _c.MqDiag()
        _check(self._f_static("build")(mesh.handle, ctypes.byref(d), ctypes.byref(out), ctypes.byref(diag)), diag,
               what)
        self._h = out.value
        self.mesh = mesh  # the tree references its mesh: keep it alive

    @classmethod
    def _f_static(cls, name):
        return getattr(_c.lib, "mq_%s_%s" % (cls._prefix, name))

    @property
    def byte_count(self) -> int:
        """Bytes the tree owns (not counting the mesh)."""
        return self._f("byte_count")(self.handle)

    def stats(self) -> dict:
        """The tree's shape and size as a dict: triangle_count, node_count,
        leaf_count, max_depth, total_volume, leaf_volume, leaf_area,
        avg_leaf_size, bytes_per_triangle."""
        st = self._stats_type()
        self._f("get_stats")(self.handle, ctypes.byref(st))
        return {name: getattr(st, name) for name, _ in st._fields_}

    def refit(self, positions: Optional[Array] = None) -> None:
        """Refits the volumes to moved vertices (V x 3, same order and triangles;
        None: the mesh's own positions again), keeping the topology. Queries
        then answer for the new geometry. No query may run meanwhile."""
        keep, ptr = None, None
        if positions is not None:
            n, ptr, keep = _pack3(positions, "positions")
            if n != self.mesh.vertex_count:
                raise ValueError("positions: expected %d vertices, got %d" % (self.mesh.vertex_count, n))
        diag = _c.MqDiag()
        _check(self._f("refit")(self.handle, ptr, ctypes.byref(diag)), diag, "%s.refit" % type(self).__name__)
        del keep

    def _other(self, other):
        if not isinstance(other, _VolumeTree) or other._prefix != self._prefix:
            raise TypeError("expected a %s, got %s" % (type(self).__name__, type(other).__name__))
        return other.handle

    def collide(self, other, rotation: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
                translation: Vec3 = (0.0, 0.0, 0.0)) -> Array:
        """Intersecting triangle pairs (id in this mesh, id in other's) with `other`
        (a tree of the same kind) placed in this tree's frame by the rigid
        transform: `rotation` a quaternion w, x, y, z, then `translation`. A P x 2
        uint32 array, or a list of tuples; the pairs of OBBTree.collide."""
        xf = OBBTree._rigid(rotation, translation)
        fn, oh = self._f("collide_array"), self._other(other)
        cap = 1024
        while True:
            buf = (_c.MqTriPair * cap)()
            total = fn(self.handle, oh, ctypes.byref(xf), buf, cap)
            if total <= cap:
                break
            cap = total
        if np is not None:
            return np.frombuffer(buf, dtype=np.uint32, count=2 * total).reshape(total, 2).copy()
        return [(buf[i].a, buf[i].b) for i in range(total)]

    def any_collide(self, other, rotation: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
                    translation: Vec3 = (0.0, 0.0, 0.0)) -> bool:
        """True when some triangle pair intersects (arguments as collide)."""
        xf = OBBTree._rigid(rotation, translation)
        return bool(self._f("any_collide")(self.handle, self._other(other), ctypes.byref(xf)))


class KDOPTree(_VolumeTree):
    """A tree of k-DOPs over a mesh (C: mq_kdoptree, meshquery/kdoptree.h):
    shape overlaps, rays (closest, any), closest points, mesh vs mesh, shape
    casts, shape distance and clearance, and refit, one query a call, with the
    OBB tree's answers. Keeps the mesh alive.

    KDOPTree(mesh, k=18, max_leaf_size=4): k is 6 (an AABB), 14, 18 or 26 slab
    bounds a node. Raises MeshqueryError (MQ_ERR_INVALID_ARG) for another k or
    a leaf size outside 1..16."""
    _destroy = "mq_kdoptree_destroy"
    _prefix = "kdoptree"
    _stats_type = _c.MqKdoptreeStats

    def __init__(self, mesh: Mesh, k: int = 18, max_leaf_size: int = 4):
        if not _c.HAVE_KDOPTREE:
            raise NotImplementedError("this libmeshquery has no k-DOP trees (meshquery/kdoptree.h)")
        d = _c.lib.mq_default_kdoptree_def()
        d.k, d.max_leaf_size = int(k), int(max_leaf_size)
        self._build(mesh, d, "KDOPTree")

    @property
    def k(self) -> int:
        """The number of slab bounds a node (6, 14, 18 or 26)."""
        return int(_c.lib.mq_kdoptree_k(self.handle))


class SphereTree(_VolumeTree):
    """A tree of bounding spheres over a mesh (C: mq_spheretree,
    meshquery/spheretree.h): the k-DOP tree's topology with a ball a node; the
    same queries and answers as KDOPTree. Keeps the mesh alive.

    SphereTree(mesh, max_leaf_size=4)"""
    _destroy = "mq_spheretree_destroy"
    _prefix = "spheretree"
    _stats_type = _c.MqSpheretreeStats

    def __init__(self, mesh: Mesh, max_leaf_size: int = 4):
        if not _c.HAVE_SPHERETREE:
            raise NotImplementedError("this libmeshquery has no sphere trees (meshquery/spheretree.h)")
        d = _c.lib.mq_default_spheretree_def()
        d.max_leaf_size = int(max_leaf_size)
        self._build(mesh, d, "SphereTree")

