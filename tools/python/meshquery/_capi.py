"""ctypes declarations of meshquery's C API (include/meshquery/*.h).

The structures mirror the C ones field for field; tests/python/test_layout.py
compares their sizes and offsets with what the C compiler says. Only the
standard library is used here.
"""
import ctypes
import ctypes.util
import glob
import os
import struct

c_float = ctypes.c_float
c_double = ctypes.c_double
c_uint32 = ctypes.c_uint32
c_uint64 = ctypes.c_uint64
c_size_t = ctypes.c_size_t
c_bool = ctypes.c_bool
c_void_p = ctypes.c_void_p
c_char_p = ctypes.c_char_p
c_int = ctypes.c_int
POINTER = ctypes.POINTER

vec2 = c_float * 2
vec3 = c_float * 3
mat3 = vec3 * 3
quat = c_float * 4  # w, x, y, z (mq_obb_from_quat, mq_rigid)

MQ_OK = 0
MQ_NO_TRIANGLE = 0xFFFFFFFF

STATUS_NAMES = {
    0: "MQ_OK", 1: "MQ_ERR_INVALID_ARG", 2: "MQ_ERR_OUT_OF_MEMORY", 3: "MQ_ERR_IO", 4: "MQ_ERR_PARSE",
    5: "MQ_ERR_LIMIT", 6: "MQ_ERR_UNSUPPORTED", 7: "MQ_ERR_CORRUPT",
}


class MqDiag(ctypes.Structure):
    _fields_ = [("message", ctypes.c_char * 256), ("path", ctypes.c_char * 256), ("line", c_uint64),
                ("column", c_uint32)]


class MqRay(ctypes.Structure):
    _fields_ = [("origin", vec3), ("tmin", c_float), ("dir", vec3), ("tmax", c_float)]


class MqAabb(ctypes.Structure):
    _fields_ = [("min", vec3), ("max", vec3)]


class MqObb(ctypes.Structure):
    _fields_ = [("center", vec3), ("half", vec3), ("axes", mat3)]


class MqSphere(ctypes.Structure):
    _fields_ = [("center", vec3), ("radius", c_float)]


class MqCapsule(ctypes.Structure):
    _fields_ = [("a", vec3), ("b", vec3), ("radius", c_float)]


class MqTriangle(ctypes.Structure):
    _fields_ = [("v", vec3 * 3)]


class MqHit(ctypes.Structure):
    _fields_ = [("t", c_float), ("point", vec3), ("normal", vec3), ("u", c_float), ("v", c_float),
                ("triangle", c_uint32), ("face", c_uint32), ("back_face", c_bool),
                ("has_shading_normal", c_bool), ("has_uv", c_bool), ("shading_normal", vec3), ("uv", vec2),
                ("group", c_uint32), ("object", c_uint32), ("material", c_uint32)]


class MqRayStats(ctypes.Structure):
    _fields_ = [("node_visits", c_uint64), ("leaf_visits", c_uint64), ("triangle_tests", c_uint64)]


HIT_FILTER_FN = ctypes.CFUNCTYPE(c_bool, POINTER(MqHit), c_void_p)


class MqRayQuery(ctypes.Structure):
    _fields_ = [("cull_back_faces", c_bool), ("filter", c_void_p), ("filter_user", c_void_p),
                ("stats", POINTER(MqRayStats))]


class MqPointHit(ctypes.Structure):
    _fields_ = [("point", vec3), ("distance", c_float), ("triangle", c_uint32), ("u", c_float), ("v", c_float)]


class MqRigid(ctypes.Structure):
    # C: { float rotation[4] (w, x, y, z); vec3 translation; }
    _fields_ = [("rotation", quat), ("translation", vec3)]


class MqTriPair(ctypes.Structure):
    _fields_ = [("a", c_uint32), ("b", c_uint32)]


class MqTriangleSource(ctypes.Structure):
    _fields_ = [("face", c_uint32), ("line", c_uint64), ("group_id", c_uint32), ("object_id", c_uint32),
                ("material_id", c_uint32), ("group", c_char_p), ("object", c_char_p), ("material", c_char_p)]


class MqObjOptions(ctypes.Structure):
    _fields_ = [("allocator", c_void_p), ("threads", c_uint32), ("allow_non_finite", c_bool),
                ("strict", c_bool), ("max_face_vertices", c_uint32)]


class MqObjStats(ctypes.Structure):
    _fields_ = [(name, c_uint64) for name in (
        "bytes", "lines", "vertices", "texcoords", "normals", "faces", "triangles", "clipped_faces",
        "line_elements", "point_elements", "colored_vertices", "non_finite_values", "ignored_statements",
        "unknown_statements", "first_unknown_line")] + \
        [(name, c_uint32) for name in ("groups", "objects", "materials", "threads")]


class MqBvhDef(ctypes.Structure):
    _fields_ = [("quality", c_int), ("max_leaf_size", c_uint32), ("threads", c_uint32), ("allocator", c_void_p),
                ("internal_cookie", c_uint32)]


class MqBvhStats(ctypes.Structure):
    _fields_ = [("triangle_count", c_uint64), ("node_count", c_uint64), ("leaf_count", c_uint64),
                ("block_count", c_uint64), ("max_depth", c_uint32), ("width", c_uint32), ("sah_cost", c_double),
                ("avg_leaf_size", c_double), ("avg_children", c_double), ("bytes_per_triangle", c_double),
                ("build_ms", c_double)]


class MqObbtreeDef(ctypes.Structure):
    _fields_ = [("fit", c_int), ("max_leaf_size", c_uint32), ("allocator", c_void_p),
                ("internal_cookie", c_uint32)]


class MqObbtreeStats(ctypes.Structure):
    _fields_ = [("triangle_count", c_uint64), ("node_count", c_uint64), ("leaf_count", c_uint64),
                ("max_depth", c_uint32), ("total_volume", c_double), ("avg_leaf_size", c_double),
                ("bytes_per_triangle", c_double)]


# mq_shape_kind
MQ_SHAPE_SPHERE, MQ_SHAPE_CAPSULE, MQ_SHAPE_OBB, MQ_SHAPE_AABB, MQ_SHAPE_CONVEX = 0, 1, 2, 3, 4


class MqShapeUnion(ctypes.Union):
    _fields_ = [("sphere", MqSphere), ("capsule", MqCapsule), ("obb", MqObb), ("aabb", MqAabb),
                ("convex", c_void_p), ("reserved_", c_uint64 * 8)]


class MqShape(ctypes.Structure):
    """C: mq_shape, a tagged shape (kind + union) for the overlap queries."""
    _fields_ = [("kind", c_int), ("u", MqShapeUnion)]


def shape(kind, value):
    """An MqShape of `kind` (MQ_SHAPE_*) holding `value` (an MqSphere, MqCapsule, MqObb or MqAabb)."""
    s = MqShape()
    s.kind = kind
    setattr(s.u, ("sphere", "capsule", "obb", "aabb")[kind], value)
    return s


class MqPlane(ctypes.Structure):
    _fields_ = [("normal", vec3), ("d", c_float)]


class MqAabb2(ctypes.Structure):
    _fields_ = [("min", vec2), ("max", vec2)]


class MqRect2(ctypes.Structure):
    _fields_ = [("center", vec2), ("half", vec2), ("axes", vec2 * 2)]


class MqTriangleHit(ctypes.Structure):
    _fields_ = [("t", c_float), ("u", c_float), ("v", c_float), ("back_face", c_bool)]


class MqRaySpan(ctypes.Structure):
    _fields_ = [("t_enter", c_float), ("t_exit", c_float)]


class MqCastHit(ctypes.Structure):
    """C: mq_cast_hit (casts.h), where a moving sphere or capsule first touches the mesh."""
    _fields_ = [("t", c_float), ("point", vec3), ("normal", vec3), ("triangle", c_uint32),
                ("initially_overlapping", c_bool)]


dvec3 = c_double * 3


class MqDray(ctypes.Structure):
    _fields_ = [("origin", dvec3), ("tmin", c_double), ("dir", dvec3), ("tmax", c_double)]


class MqDsphere(ctypes.Structure):
    _fields_ = [("center", dvec3), ("radius", c_double)]


class MqDcapsule(ctypes.Structure):
    _fields_ = [("a", dvec3), ("b", dvec3), ("radius", c_double)]


class MqDobb(ctypes.Structure):
    _fields_ = [("center", dvec3), ("half", dvec3), ("axes", dvec3 * 3)]


class MqDaabb(ctypes.Structure):
    _fields_ = [("min", dvec3), ("max", dvec3)]


class MqDconvex(ctypes.Structure):
    """C: mq_dconvex, a borrowed hull placed by a double translation and rotation (w, x, y, z)."""
    _fields_ = [("convex", c_void_p), ("translation", dvec3), ("rotation", c_double * 4)]


class MqDshapeUnion(ctypes.Union):
    _fields_ = [("sphere", MqDsphere), ("capsule", MqDcapsule), ("obb", MqDobb), ("aabb", MqDaabb),
                ("convex", MqDconvex), ("reserved_", c_uint64 * 16)]


class MqDshape(ctypes.Structure):
    """C: mq_dshape, a tagged world shape in double precision for the scene's overlap queries."""
    _fields_ = [("kind", c_int), ("u", MqDshapeUnion)]


class MqXform(ctypes.Structure):
    """C: mq_xform, rows of a 3 x 4 affine transform (linear part, then translation)."""
    _fields_ = [("m", (c_double * 4) * 3)]


class MqInstanceDef(ctypes.Structure):
    _fields_ = [("bvh", c_void_p), ("obbtree", c_void_p), ("transform", MqXform), ("user_id", c_uint64),
                ("mask", c_uint32)]


class MqSceneQuery(ctypes.Structure):
    _fields_ = [("mask", c_uint32), ("cull_back_faces", c_bool)]


class MqSceneHit(ctypes.Structure):
    _fields_ = [("t", c_double), ("point", dvec3), ("normal", dvec3), ("shading_normal", dvec3), ("u", c_float),
                ("v", c_float), ("uv", vec2), ("instance", c_uint32), ("triangle", c_uint32), ("face", c_uint32),
                ("group", c_uint32), ("object", c_uint32), ("material", c_uint32), ("user_id", c_uint64),
                ("back_face", c_bool), ("has_shading_normal", c_bool), ("has_uv", c_bool)]


class MqScenePointHit(ctypes.Structure):
    _fields_ = [("point", dvec3), ("distance", c_double), ("u", c_float), ("v", c_float), ("instance", c_uint32),
                ("triangle", c_uint32), ("user_id", c_uint64)]


class MqInstanceTriangle(ctypes.Structure):
    _fields_ = [("instance", c_uint32), ("triangle", c_uint32)]


class MqSceneCastHit(ctypes.Structure):
    """C: mq_scene_cast_hit, the first contact of a world shape cast (mq_scene_shape_cast)."""
    _fields_ = [("t", c_double), ("point", dvec3), ("normal", dvec3), ("instance", c_uint32),
                ("triangle", c_uint32), ("user_id", c_uint64), ("initially_overlapping", c_bool)]


def dshape(kind, value):
    """An MqDshape of `kind` (MQ_SHAPE_*) holding `value` (an MqDsphere, MqDcapsule, MqDobb or MqDaabb)."""
    s = MqDshape()
    s.kind = kind
    setattr(s.u, ("sphere", "capsule", "obb", "aabb")[kind], value)
    return s


class MqDistanceOptions(ctypes.Structure):
    _fields_ = [("max_distance", c_double), ("abs_tolerance", c_double), ("rel_tolerance", c_double)]


class MqDistanceResult(ctypes.Structure):
    _fields_ = [("distance", c_double), ("point_a", dvec3), ("point_b", dvec3), ("triangle_a", c_uint32),
                ("triangle_b", c_uint32), ("found", c_bool)]


class MqShapeDistanceResult(ctypes.Structure):
    _fields_ = [("distance", c_double), ("point_shape", dvec3), ("point_mesh", dvec3), ("triangle", c_uint32),
                ("found", c_bool)]


class MqClearancePair(ctypes.Structure):
    _fields_ = [("triangle_a", c_uint32), ("triangle_b", c_uint32), ("distance", c_double), ("point_a", dvec3),
                ("point_b", dvec3)]


class MqContact(ctypes.Structure):
    """C: mq_contact (primitives.h, contacts.h): a shape's contact with one triangle."""
    _fields_ = [("depth", c_double), ("normal", dvec3), ("point_shape", dvec3), ("point_triangle", dvec3),
                ("triangle", c_uint32)]


class MqIntersectionSegment(ctypes.Structure):
    """C: mq_intersection_segment (contacts.h): where two triangles meet, in A's frame."""
    _fields_ = [("triangle_a", c_uint32), ("triangle_b", c_uint32), ("p0", dvec3), ("p1", dvec3),
                ("coplanar", c_bool)]


CLASH_FILTER_FN = ctypes.CFUNCTYPE(c_bool, c_uint32, c_uint32, c_void_p)
SEGMENT_FN = ctypes.CFUNCTYPE(c_bool, POINTER(MqIntersectionSegment), c_void_p)


class MqClashOptions(ctypes.Structure):
    """C: mq_clash_options (clash.h)."""
    _fields_ = [("clearance", c_double), ("mask", c_uint32), ("threads", c_uint32), ("max_triangle_pairs", c_size_t),
                ("filter", c_void_p), ("filter_user", c_void_p)]


class MqClash(ctypes.Structure):
    """C: mq_clash (clash.h): one clashing pair of instances."""
    _fields_ = [("instance_a", c_uint32), ("instance_b", c_uint32), ("distance", c_double), ("triangle_a", c_uint32),
                ("triangle_b", c_uint32), ("point_a", dvec3), ("point_b", dvec3), ("pair_count", c_size_t)]


class MqClashTriPair(ctypes.Structure):
    """C: mq_clash_tri_pair (clash.h): a triangle pair within the clearance."""
    _fields_ = [("triangle_a", c_uint32), ("triangle_b", c_uint32), ("distance", c_double)]


class MqInstanceDistance(ctypes.Structure):
    """C: mq_instance_distance (clash.h)."""
    _fields_ = [("distance", c_double), ("triangle_a", c_uint32), ("triangle_b", c_uint32), ("point_a", dvec3),
                ("point_b", dvec3)]


class MqKdoptreeDef(ctypes.Structure):
    _fields_ = [("k", c_uint32), ("max_leaf_size", c_uint32), ("allocator", c_void_p), ("internal_cookie", c_uint32)]


class MqKdoptreeStats(ctypes.Structure):
    _fields_ = [("triangle_count", c_uint64), ("node_count", c_uint64), ("leaf_count", c_uint64),
                ("max_depth", c_uint32), ("total_volume", c_double), ("leaf_volume", c_double),
                ("leaf_area", c_double), ("avg_leaf_size", c_double), ("bytes_per_triangle", c_double)]


class MqSpheretreeDef(ctypes.Structure):
    _fields_ = [("max_leaf_size", c_uint32), ("allocator", c_void_p), ("internal_cookie", c_uint32)]


class MqSpheretreeStats(ctypes.Structure):
    _fields_ = list(MqKdoptreeStats._fields_)


# Every structure the layout test checks, by its C name.
STRUCTS = {
    "mq_diag": MqDiag, "mq_ray": MqRay, "mq_aabb": MqAabb, "mq_obb": MqObb, "mq_sphere": MqSphere,
    "mq_capsule": MqCapsule, "mq_triangle": MqTriangle, "mq_hit": MqHit, "mq_ray_stats": MqRayStats,
    "mq_ray_query": MqRayQuery, "mq_point_hit": MqPointHit, "mq_rigid": MqRigid, "mq_tri_pair": MqTriPair,
    "mq_triangle_source": MqTriangleSource, "mq_obj_options": MqObjOptions, "mq_obj_stats": MqObjStats,
    "mq_bvh_def": MqBvhDef, "mq_bvh_stats": MqBvhStats, "mq_obbtree_def": MqObbtreeDef,
    "mq_obbtree_stats": MqObbtreeStats, "mq_shape": MqShape, "mq_cast_hit": MqCastHit, "mq_dray": MqDray,
    "mq_dsphere": MqDsphere, "mq_dcapsule": MqDcapsule, "mq_dobb": MqDobb, "mq_daabb": MqDaabb,
    "mq_dshape": MqDshape, "mq_dconvex": MqDconvex, "mq_xform": MqXform, "mq_instance_def": MqInstanceDef,
    "mq_scene_query": MqSceneQuery, "mq_plane": MqPlane, "mq_aabb2": MqAabb2, "mq_rect2": MqRect2,
    "mq_triangle_hit": MqTriangleHit, "mq_ray_span": MqRaySpan, "mq_distance_options": MqDistanceOptions,
    "mq_distance_result": MqDistanceResult, "mq_shape_distance_result": MqShapeDistanceResult,
    "mq_clearance_pair": MqClearancePair,
    "mq_scene_hit": MqSceneHit, "mq_scene_point_hit": MqScenePointHit, "mq_instance_triangle": MqInstanceTriangle,
    "mq_scene_cast_hit": MqSceneCastHit,
    "mq_contact": MqContact, "mq_intersection_segment": MqIntersectionSegment, "mq_clash_options": MqClashOptions,
    "mq_clash": MqClash, "mq_clash_tri_pair": MqClashTriPair, "mq_instance_distance": MqInstanceDistance,
    "mq_kdoptree_def": MqKdoptreeDef, "mq_kdoptree_stats": MqKdoptreeStats, "mq_spheretree_def": MqSpheretreeDef,
    "mq_spheretree_stats": MqSpheretreeStats,
}


def struct_format(ctype):
    """A `struct` module format ('<...') with the exact layout of a ctypes Structure
    (padding from the real field offsets), for unpacking arrays of it without NumPy."""
    codes = {c_size_t: "Q" if ctypes.sizeof(c_size_t) == 8 else "I", c_float: "f", c_double: "d", c_uint32: "I",
             c_uint64: "Q", c_bool: "?", c_int: "i"}
    fmt, pos, names = "<", 0, []
    for name, ftype in ctype._fields_:
        offset = getattr(ctype, name).offset
        if offset > pos:
            fmt += "%dx" % (offset - pos)
        count, base = 1, ftype
        while hasattr(base, "_length_"):
            count *= base._length_
            base = base._type_
        if base not in codes:
            raise TypeError("no struct code for %s.%s" % (ctype.__name__, name))
        fmt += "%d%s" % (count, codes[base])
        names.append((name, count))
        pos = offset + ctypes.sizeof(ftype)
    if ctypes.sizeof(ctype) > pos:
        fmt += "%dx" % (ctypes.sizeof(ctype) - pos)
    assert struct.calcsize(fmt) == ctypes.sizeof(ctype)
    return fmt, names


# ---------------------------------------------------------------------------
# Loading the shared library
# ---------------------------------------------------------------------------

def _candidates():
    env = os.environ.get("MESHQUERY_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = [
        # pip-installed: the library built by setup.py, bundled inside the package
        here,
        # installed: <libdir>/meshquery/python/meshquery/_capi.py
        os.path.normpath(os.path.join(here, "..", "..", "..")),
        # a source checkout: tools/python/meshquery -> build/
        os.path.normpath(os.path.join(here, "..", "..", "..", "build")),
    ]
    out = []
    for d in dirs:
        out += [os.path.join(d, "libmeshquery.so")] + sorted(glob.glob(os.path.join(d, "libmeshquery.so.*")))
        out += [os.path.join(d, "libmeshquery.dylib"), os.path.join(d, "meshquery.dll")]
    found = ctypes.util.find_library("meshquery")
    if found:
        out.append(found)
    return out


def load_library():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("meshquery: cannot load the shared library libmeshquery.so; set MESHQUERY_LIBRARY "
                      "to its path (tried: %s)" % ", ".join(tried))


lib, lib_path = load_library()


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


P = POINTER
_fn("mq_version", c_char_p)
_fn("mq_status_string", c_char_p, c_int)

_fn("mq_default_obj_options", MqObjOptions)
_fn("mq_obj_load", c_int, c_char_p, P(MqObjOptions), P(c_void_p), P(MqObjStats), P(MqDiag))
_fn("mq_obj_load_memory", c_int, c_void_p, c_size_t, c_char_p, P(MqObjOptions), P(c_void_p), P(MqObjStats),
    P(MqDiag))
_fn("mq_mesh_create", c_int, c_void_p, c_size_t, c_void_p, c_size_t, c_void_p, P(c_void_p), P(MqDiag))
_fn("mq_mesh_destroy", None, c_void_p)
_fn("mq_mesh_vertex_count", c_size_t, c_void_p)
_fn("mq_mesh_triangle_count", c_size_t, c_void_p)
_fn("mq_mesh_face_count", c_size_t, c_void_p)
_fn("mq_mesh_positions", P(c_float), c_void_p)
_fn("mq_mesh_indices", P(c_uint32), c_void_p)
_fn("mq_mesh_face_line", c_uint64, c_void_p, c_uint32)
_fn("mq_mesh_triangle_source", None, c_void_p, c_uint32, P(MqTriangleSource))
_fn("mq_mesh_name_count", c_uint32, c_void_p, c_int)
_fn("mq_mesh_name", c_char_p, c_void_p, c_int, c_uint32)

_fn("mq_default_bvh_def", MqBvhDef)
_fn("mq_bvh_build", c_int, c_void_p, P(MqBvhDef), P(c_void_p), P(MqDiag))
_fn("mq_bvh_destroy", None, c_void_p)
_fn("mq_bvh_byte_count", c_size_t, c_void_p)
_fn("mq_bvh_get_stats", None, c_void_p, P(MqBvhStats))
_fn("mq_default_ray_query", MqRayQuery)
_fn("mq_bvh_raycast_closest", c_bool, c_void_p, P(MqRay), P(MqRayQuery), P(MqHit))
_fn("mq_bvh_raycast_any", c_bool, c_void_p, P(MqRay), P(MqRayQuery))
_fn("mq_bvh_raycast_all", c_size_t, c_void_p, P(MqRay), P(MqRayQuery), P(MqHit), c_size_t)
_fn("mq_bvh_raycast_closest_batch", c_size_t, c_void_p, c_void_p, c_size_t, P(MqRayQuery), c_uint32, c_void_p)
_fn("mq_bvh_raycast_any_batch", c_size_t, c_void_p, c_void_p, c_size_t, P(MqRayQuery), c_uint32, c_void_p)
_fn("mq_bvh_raycast_closest_batch_arrays", c_size_t, c_void_p, c_void_p, c_void_p, c_size_t, c_float, c_float,
    P(MqRayQuery), c_uint32, c_void_p)
_fn("mq_bvh_raycast_any_batch_arrays", c_size_t, c_void_p, c_void_p, c_void_p, c_size_t, c_float, c_float,
    P(MqRayQuery), c_uint32, c_void_p)
_fn("mq_bvh_overlap_array", c_size_t, c_void_p, P(MqShape), c_void_p, c_size_t)
_fn("mq_bvh_overlap_any", c_bool, c_void_p, P(MqShape))
_fn("mq_bvh_closest_point", c_bool, c_void_p, P(c_float), c_float, P(MqPointHit))

_fn("mq_default_obbtree_def", MqObbtreeDef)
_fn("mq_obbtree_build", c_int, c_void_p, P(MqObbtreeDef), P(c_void_p), P(MqDiag))
_fn("mq_obbtree_destroy", None, c_void_p)
_fn("mq_obbtree_byte_count", c_size_t, c_void_p)
_fn("mq_obbtree_get_stats", None, c_void_p, P(MqObbtreeStats))
_fn("mq_obbtree_root", c_bool, c_void_p, P(MqObb))
_fn("mq_obbtree_overlap_array", c_size_t, c_void_p, P(MqShape), c_void_p, c_size_t)
_fn("mq_obbtree_overlap_any", c_bool, c_void_p, P(MqShape))
_fn("mq_obbtree_raycast_closest", c_bool, c_void_p, P(MqRay), P(MqRayQuery), P(MqHit))
_fn("mq_obbtree_closest_point", c_bool, c_void_p, P(c_float), c_float, P(MqPointHit))
_fn("mq_obbtree_collide_array", c_size_t, c_void_p, c_void_p, P(MqRigid), c_void_p, c_size_t)
_fn("mq_obbtree_any_collide", c_bool, c_void_p, c_void_p, P(MqRigid))
_fn("mq_obb_from_quat", None, P(c_float), P(c_float), P(c_float), P(MqObb))

_fn("mq_mesh_face_index", c_uint32, c_void_p, c_uint32)
_fn("mq_mesh_face_name_id", c_uint32, c_void_p, c_int, c_uint32)
_fn("mq_mesh_normal_count", c_size_t, c_void_p)
_fn("mq_mesh_normals", P(c_float), c_void_p)
_fn("mq_mesh_corner_normals", P(c_uint32), c_void_p)
_fn("mq_mesh_texcoord_count", c_size_t, c_void_p)
_fn("mq_mesh_texcoords", P(c_float), c_void_p)
_fn("mq_mesh_corner_texcoords", P(c_uint32), c_void_p)
_fn("mq_mesh_colors", P(c_float), c_void_p)
# Per-triangle source attributes for a range of triangles in one call (mesh.h).
_fn("mq_mesh_copy_triangle_faces", c_size_t, c_void_p, c_size_t, c_size_t, c_void_p)
_fn("mq_mesh_copy_triangle_lines", c_size_t, c_void_p, c_size_t, c_size_t, c_void_p)
_fn("mq_mesh_copy_triangle_name_ids", c_size_t, c_void_p, c_int, c_size_t, c_size_t, c_void_p)
_fn("mq_bvh_raycast_all_count_batch", c_uint64, c_void_p, c_void_p, c_size_t, P(MqRayQuery), c_uint32, c_void_p)
_fn("mq_bvh_raycast_all_batch", c_uint64, c_void_p, c_void_p, c_size_t, P(MqRayQuery), c_uint32, c_void_p,
    c_void_p)
_fn("mq_obbtree_raycast_any", c_bool, c_void_p, P(MqRay), P(MqRayQuery))
_fn("mq_obbtree_raycast_closest_batch", c_size_t, c_void_p, c_void_p, c_size_t, P(MqRayQuery), c_uint32, c_void_p)
_fn("mq_obbtree_raycast_any_batch", c_size_t, c_void_p, c_void_p, c_size_t, P(MqRayQuery), c_uint32, c_void_p)
_fn("mq_obbtree_mesh", c_void_p, c_void_p)
_fn("mq_bvh_mesh", c_void_p, c_void_p)
_fn("mq_bvh_refit", c_int, c_void_p, c_void_p, P(MqDiag))
_fn("mq_bvh_validate", c_int, c_void_p, P(MqDiag))

# The calls both hierarchies have with the same signature: mq_bvh_<name> and mq_obbtree_<name>.
for _t in ("bvh", "obbtree"):
    _fn("mq_%s_closest_point_batch" % _t, c_size_t, c_void_p, c_void_p, c_size_t, c_float, c_uint32, c_void_p,
        c_void_p)
    _fn("mq_%s_winding_number" % _t, c_int, c_void_p, P(c_float))
    _fn("mq_%s_signed_distance" % _t, c_bool, c_void_p, P(c_float), P(c_float), P(MqPointHit))
    _fn("mq_%s_winding_number_batch" % _t, c_size_t, c_void_p, c_void_p, c_size_t, c_uint32, c_void_p)
    _fn("mq_%s_inside_batch" % _t, c_size_t, c_void_p, c_void_p, c_size_t, c_uint32, c_void_p)
    _fn("mq_%s_signed_distance_batch" % _t, c_size_t, c_void_p, c_void_p, c_size_t, c_uint32, c_void_p, c_void_p)
    _fn("mq_%s_overlap_count_batch" % _t, c_uint64, c_void_p, c_void_p, c_size_t, c_uint32, c_void_p)
    _fn("mq_%s_overlap_any_batch" % _t, c_size_t, c_void_p, c_void_p, c_size_t, c_uint32, c_void_p)
    _fn("mq_%s_sphere_cast" % _t, c_bool, c_void_p, P(MqSphere), P(c_float), c_float, P(MqCastHit))
    _fn("mq_%s_capsule_cast" % _t, c_bool, c_void_p, P(MqCapsule), P(c_float), c_float, P(MqCastHit))
    _fn("mq_%s_convex_cast" % _t, c_bool, c_void_p, c_void_p, P(c_float), c_float, P(MqCastHit))
    _fn("mq_%s_sphere_cast_batch" % _t, c_size_t, c_void_p, c_void_p, c_void_p, c_size_t, c_float, c_uint32,
        c_void_p)
    _fn("mq_%s_capsule_cast_batch" % _t, c_size_t, c_void_p, c_void_p, c_void_p, c_size_t, c_float, c_uint32,
        c_void_p)
    _fn("mq_%s_save" % _t, c_int, c_void_p, c_char_p, P(MqDiag))
    _fn("mq_%s_load" % _t, c_int, c_char_p, c_void_p, P(c_void_p), P(MqDiag))
    _fn("mq_%s_load_mapped" % _t, c_int, c_char_p, c_void_p, P(c_void_p), P(MqDiag))
    _fn("mq_%s_load_memory" % _t, c_int, c_void_p, c_size_t, c_void_p, P(c_void_p), P(MqDiag))
    _fn("mq_%s_save_memory" % _t, c_int, c_void_p, c_void_p, P(c_void_p), P(c_size_t), P(MqDiag))
_fn("mq_saved_free", None, c_void_p, c_size_t, c_void_p)

# Convex hulls (meshquery/convex.h), when the library has them.
HAVE_CONVEX = hasattr(lib, "mq_convex_create")
if HAVE_CONVEX:
    _fn("mq_convex_create", c_int, c_void_p, c_size_t, c_void_p, P(c_void_p), P(MqDiag))
    _fn("mq_convex_destroy", None, c_void_p)
    _fn("mq_convex_vertex_count", c_size_t, c_void_p)
    _fn("mq_convex_vertices", P(c_float), c_void_p)
    _fn("mq_convex_face_count", c_size_t, c_void_p)
    _fn("mq_convex_faces", P(c_uint32), c_void_p)
    _fn("mq_convex_contains_point", c_bool, c_void_p, P(c_float))
HAVE_SAVED = True

# Distances and clearance (meshquery/proximity.h), when the library has them.
HAVE_PROXIMITY = hasattr(lib, "mq_bvh_distance")
if HAVE_PROXIMITY:
    _fn("mq_default_distance_options", MqDistanceOptions)
    for _t in ("bvh", "obbtree"):
        _fn("mq_%s_distance" % _t, c_bool, c_void_p, c_void_p, P(MqRigid), P(MqDistanceOptions), P(MqDistanceResult))
        _fn("mq_%s_shape_distance" % _t, c_bool, c_void_p, c_void_p, P(MqDistanceOptions), P(MqShapeDistanceResult))
        _fn("mq_%s_clearance_array" % _t, c_size_t, c_void_p, c_void_p, P(MqRigid), c_double, c_void_p, c_size_t)
        _fn("mq_%s_clearance_any" % _t, c_bool, c_void_p, c_void_p, P(MqRigid), c_double)
        _fn("mq_%s_shape_clearance_array" % _t, c_size_t, c_void_p, c_void_p, c_double, c_void_p, c_size_t)
        _fn("mq_%s_shape_clearance_any" % _t, c_bool, c_void_p, c_void_p, c_double)

# Scenes (meshquery/scene.h).
_fn("mq_xform_identity", MqXform)
_fn("mq_xform_from_trs", MqXform, P(c_double), P(c_double), P(c_double))
_fn("mq_xform_apply_point", None, P(MqXform), P(c_double), P(c_double))
_fn("mq_default_instance_def", MqInstanceDef)
_fn("mq_scene_create", c_int, c_void_p, P(c_void_p), P(MqDiag))
_fn("mq_scene_destroy", None, c_void_p)
_fn("mq_scene_add", c_int, c_void_p, P(MqInstanceDef), P(c_uint32), P(MqDiag))
_fn("mq_scene_remove", c_int, c_void_p, c_uint32)
_fn("mq_scene_set_transform", c_int, c_void_p, c_uint32, P(MqXform), P(MqDiag))
_fn("mq_scene_set_mask", c_int, c_void_p, c_uint32, c_uint32)
_fn("mq_scene_commit", c_int, c_void_p, P(MqDiag))
_fn("mq_scene_instance_count", c_size_t, c_void_p)
_fn("mq_scene_bounds", c_bool, c_void_p, P(MqDaabb))
_fn("mq_scene_instance", c_bool, c_void_p, c_uint32, P(MqInstanceDef))
_fn("mq_scene_byte_count", c_size_t, c_void_p)
_fn("mq_default_scene_query", MqSceneQuery)
_fn("mq_scene_raycast_closest", c_bool, c_void_p, P(MqDray), P(MqSceneQuery), P(MqSceneHit))
_fn("mq_scene_raycast_any", c_bool, c_void_p, P(MqDray), P(MqSceneQuery))
_fn("mq_scene_raycast_all", c_size_t, c_void_p, P(MqDray), P(MqSceneQuery), c_void_p, c_size_t)
_fn("mq_scene_overlap_array", c_size_t, c_void_p, P(MqDshape), P(MqSceneQuery), c_void_p, c_size_t)
_fn("mq_scene_overlap_any", c_bool, c_void_p, P(MqDshape), P(MqSceneQuery))
_fn("mq_scene_closest_point", c_bool, c_void_p, P(c_double), c_double, P(MqSceneQuery), P(MqScenePointHit))
_fn("mq_scene_collide_array", c_size_t, c_void_p, c_uint32, c_uint32, c_void_p, c_size_t)
_fn("mq_scene_raycast_closest_batch", c_size_t, c_void_p, c_void_p, c_size_t, P(MqSceneQuery), c_uint32, c_void_p)
_fn("mq_scene_raycast_any_batch", c_size_t, c_void_p, c_void_p, c_size_t, P(MqSceneQuery), c_uint32, c_void_p)
_fn("mq_scene_overlap_any_batch", c_size_t, c_void_p, c_void_p, c_size_t, P(MqSceneQuery), c_uint32, c_void_p)
_fn("mq_scene_overlap_count_batch", c_uint64, c_void_p, c_void_p, c_size_t, P(MqSceneQuery), c_uint32, c_void_p)
_fn("mq_scene_closest_point_batch", c_size_t, c_void_p, c_void_p, c_size_t, c_double, P(MqSceneQuery), c_uint32,
    c_void_p, c_void_p)
_fn("mq_scene_shape_cast", c_bool, c_void_p, P(MqDshape), P(c_double), c_double, P(MqSceneQuery),
    P(MqSceneCastHit))
_fn("mq_scene_shape_cast_batch", c_size_t, c_void_p, c_void_p, c_void_p, c_size_t, c_double, P(MqSceneQuery),
    c_uint32, c_void_p)


# Contacts and intersection segments (meshquery/contacts.h).
HAVE_CONTACTS = hasattr(lib, "mq_bvh_contacts_array")
if HAVE_CONTACTS:
    for _t in ("bvh", "obbtree"):
        _fn("mq_%s_contacts_array" % _t, c_size_t, c_void_p, c_void_p, c_void_p, c_size_t)
        _fn("mq_%s_intersections" % _t, c_size_t, c_void_p, c_void_p, P(MqRigid), SEGMENT_FN, c_void_p)
    _fn("mq_intersect_triangles", c_bool, P(MqTriangle), P(MqTriangle), P(MqIntersectionSegment))
if hasattr(lib, "mq_contact_shape_triangle"):
    _fn("mq_contact_shape_triangle", c_bool, c_void_p, P(MqTriangle), P(MqContact))

# Clash detection (meshquery/clash.h).
HAVE_CLASH = hasattr(lib, "mq_scene_clash")
if HAVE_CLASH:
    _fn("mq_default_clash_options", MqClashOptions)
    _fn("mq_scene_clash", c_int, c_void_p, P(MqClashOptions), P(c_void_p), P(MqDiag))
    _fn("mq_clash_list_count", c_size_t, c_void_p)
    _fn("mq_clash_list_get", c_void_p, c_void_p, c_size_t)
    _fn("mq_clash_list_pairs", c_void_p, c_void_p, c_size_t, P(c_size_t))
    _fn("mq_clash_list_destroy", None, c_void_p)
    _fn("mq_scene_distance", c_bool, c_void_p, c_uint32, c_uint32, c_double, P(MqInstanceDistance))

# The k-DOP and sphere trees (meshquery/kdoptree.h, spheretree.h): the OBB tree's single queries.
HAVE_KDOPTREE = hasattr(lib, "mq_kdoptree_build")
HAVE_SPHERETREE = hasattr(lib, "mq_spheretree_build")
for _t, _have, _def, _stats in (("kdoptree", HAVE_KDOPTREE, MqKdoptreeDef, MqKdoptreeStats),
                                ("spheretree", HAVE_SPHERETREE, MqSpheretreeDef, MqSpheretreeStats)):
    if not _have:
        continue
    _fn("mq_default_%s_def" % _t, _def)
    _fn("mq_%s_build" % _t, c_int, c_void_p, P(_def), P(c_void_p), P(MqDiag))
    _fn("mq_%s_destroy" % _t, None, c_void_p)
    _fn("mq_%s_refit" % _t, c_int, c_void_p, c_void_p, P(MqDiag))
    _fn("mq_%s_mesh" % _t, c_void_p, c_void_p)
    _fn("mq_%s_byte_count" % _t, c_size_t, c_void_p)
    _fn("mq_%s_get_stats" % _t, None, c_void_p, P(_stats))
    _fn("mq_%s_overlap_array" % _t, c_size_t, c_void_p, P(MqShape), c_void_p, c_size_t)
    _fn("mq_%s_overlap_any" % _t, c_bool, c_void_p, P(MqShape))
    _fn("mq_%s_raycast_closest" % _t, c_bool, c_void_p, P(MqRay), P(MqRayQuery), P(MqHit))
    _fn("mq_%s_raycast_any" % _t, c_bool, c_void_p, P(MqRay), P(MqRayQuery))
    _fn("mq_%s_closest_point" % _t, c_bool, c_void_p, P(c_float), c_float, P(MqPointHit))
    _fn("mq_%s_collide_array" % _t, c_size_t, c_void_p, c_void_p, P(MqRigid), c_void_p, c_size_t)
    _fn("mq_%s_any_collide" % _t, c_bool, c_void_p, c_void_p, P(MqRigid))
    # casts, shape distance and clearance (casts.h, proximity.h)
    _fn("mq_%s_sphere_cast" % _t, c_bool, c_void_p, P(MqSphere), P(c_float), c_float, P(MqCastHit))
    _fn("mq_%s_capsule_cast" % _t, c_bool, c_void_p, P(MqCapsule), P(c_float), c_float, P(MqCastHit))
    _fn("mq_%s_convex_cast" % _t, c_bool, c_void_p, c_void_p, P(c_float), c_float, P(MqCastHit))
    _fn("mq_%s_shape_distance" % _t, c_bool, c_void_p, c_void_p, P(MqDistanceOptions), P(MqShapeDistanceResult))
    _fn("mq_%s_shape_clearance_array" % _t, c_size_t, c_void_p, c_void_p, c_double, c_void_p, c_size_t)
    _fn("mq_%s_shape_clearance_any" % _t, c_bool, c_void_p, c_void_p, c_double)
if HAVE_KDOPTREE:
    _fn("mq_kdoptree_k", c_uint32, c_void_p)

# One-item helpers: the instruction set, a rigid transform, a mesh's triangle geometry.
_fn("mq_isa_in_use", c_char_p)
_fn("mq_rigid_apply", None, P(MqRigid), P(c_float), P(c_float))
_fn("mq_mesh_get_triangle", None, c_void_p, c_uint32, P(MqTriangle))
_fn("mq_mesh_triangle_normal", None, c_void_p, c_uint32, P(c_float))
_fn("mq_mesh_shading_normal", c_bool, c_void_p, c_uint32, c_float, c_float, P(c_float))
_fn("mq_mesh_texcoord_at", c_bool, c_void_p, c_uint32, c_float, c_float, P(c_float))

# Convex hulls beyond the shape (convex.h): placement, bounds, distances, overlaps, a cast.
if HAVE_CONVEX:
    for _name, _res, _args in (
            ("mq_convex_create_placed", c_int, (c_void_p, c_size_t, c_void_p, c_void_p, c_void_p, P(c_void_p),
                                                P(MqDiag))),
            ("mq_convex_bounds", c_bool, (c_void_p, P(MqAabb))),
            ("mq_overlap_convex_triangle", c_bool, (c_void_p, P(MqTriangle))),
            ("mq_overlap_convex_convex", c_bool, (c_void_p, c_void_p)),
            ("mq_convex_closest_point", c_float, (c_void_p, P(c_float), P(c_float))),
            ("mq_convex_triangle_distance", c_double, (c_void_p, P(MqTriangle), P(c_double), P(c_double))),
            ("mq_convex_convex_distance", c_double, (c_void_p, c_void_p, P(c_double), P(c_double))),
            ("mq_convex_cast_triangle", c_bool, (c_void_p, P(c_float), c_float, P(MqTriangle), P(c_float)))):
        if hasattr(lib, _name):
            _fn(_name, _res, *_args)
