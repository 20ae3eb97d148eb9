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
MQ_SHAPE_SPHERE, MQ_SHAPE_CAPSULE, MQ_SHAPE_OBB, MQ_SHAPE_AABB = 0, 1, 2, 3


class MqShapeUnion(ctypes.Union):
    _fields_ = [("sphere", MqSphere), ("capsule", MqCapsule), ("obb", MqObb), ("aabb", MqAabb),
                ("reserved_", c_uint64 * 8)]


class MqShape(ctypes.Structure):
    """C: mq_shape, a tagged shape (kind + union) for the overlap queries."""
    _fields_ = [("kind", c_int), ("u", MqShapeUnion)]


def shape(kind, value):
    """An MqShape of `kind` (MQ_SHAPE_*) holding `value` (an MqSphere, MqCapsule, MqObb or MqAabb)."""
    s = MqShape()
    s.kind = kind
    setattr(s.u, ("sphere", "capsule", "obb", "aabb")[kind], value)
    return s


# Every structure the layout test checks, by its C name.
STRUCTS = {
    "mq_diag": MqDiag, "mq_ray": MqRay, "mq_aabb": MqAabb, "mq_obb": MqObb, "mq_sphere": MqSphere,
    "mq_capsule": MqCapsule, "mq_triangle": MqTriangle, "mq_hit": MqHit, "mq_ray_stats": MqRayStats,
    "mq_ray_query": MqRayQuery, "mq_point_hit": MqPointHit, "mq_rigid": MqRigid, "mq_tri_pair": MqTriPair,
    "mq_triangle_source": MqTriangleSource, "mq_obj_options": MqObjOptions, "mq_obj_stats": MqObjStats,
    "mq_bvh_def": MqBvhDef, "mq_bvh_stats": MqBvhStats, "mq_obbtree_def": MqObbtreeDef,
    "mq_obbtree_stats": MqObbtreeStats, "mq_shape": MqShape,
}


def struct_format(ctype):
    """A `struct` module format ('<...') with the exact layout of a ctypes Structure
    (padding from the real field offsets), for unpacking arrays of it without NumPy."""
    codes = {c_float: "f", c_double: "d", c_uint32: "I", c_uint64: "Q", c_bool: "?", c_int: "i"}
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

# Saving hierarchies (meshquery/saved.h) when the library has it.
HAVE_SAVED = hasattr(lib, "mq_bvh_save")
if HAVE_SAVED:
    _fn("mq_bvh_save", c_int, c_void_p, c_char_p, P(MqDiag))
    _fn("mq_bvh_load", c_int, c_char_p, c_void_p, P(c_void_p), P(MqDiag))
    _fn("mq_bvh_mesh", c_void_p, c_void_p)
