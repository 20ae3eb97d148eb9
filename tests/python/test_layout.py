"""The ctypes structures of the Python binding have exactly the C layout:
sizes, field offsets and (where ctypes can express it) alignment, as printed
by the C compiler (tests/python/layout.c, path in MQ_LAYOUT_TOOL); every C
field is mirrored and every Python field exists in C."""
import ctypes
import os
import subprocess
import sys
import unittest

import meshquery
from meshquery import _capi

# Alignments ctypes (before Python 3.13) cannot express (none at present).
OVER_ALIGNED = {}
PADDING_FIELDS = set()


def c_layout():
    tool = os.environ.get("MQ_LAYOUT_TOOL")
    if not tool:
        raise RuntimeError("MQ_LAYOUT_TOOL not set: the py_layout program of the build (ctest sets it)")
    out = subprocess.run([tool], check=True, capture_output=True, text=True).stdout
    structs, fields, enums = {}, {}, {}
    for line in out.splitlines():
        kind, *rest = line.split()
        if kind == "struct":
            structs[rest[0]] = (int(rest[1]), int(rest[2]))
        elif kind == "field":
            fields[rest[0]] = int(rest[1])
        elif kind == "enum":
            enums[rest[0]] = int(rest[1])
    return structs, fields, enums


class Layout(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.structs, cls.fields, cls.enums = c_layout()

    def test_every_struct_is_mirrored(self):
        self.assertEqual(set(self.structs), set(_capi.STRUCTS))

    def test_sizes_and_alignment(self):
        for name, (size, align) in self.structs.items():
            py = _capi.STRUCTS[name]
            with self.subTest(struct=name):
                self.assertEqual(ctypes.sizeof(py), size, "sizeof")
                self.assertEqual(OVER_ALIGNED.get(name, ctypes.alignment(py)), align, "alignment")

    def test_field_offsets(self):
        for name, py in _capi.STRUCTS.items():
            c_fields = {k.split(".", 1)[1]: v for k, v in self.fields.items() if k.split(".", 1)[0] == name}
            py_fields = [f for f, _ in py._fields_ if f not in PADDING_FIELDS]
            with self.subTest(struct=name):
                self.assertEqual(set(py_fields), set(c_fields), "field names")
                for f in py_fields:
                    self.assertEqual(getattr(py, f).offset, c_fields[f], "%s.%s offset" % (name, f))

    def test_enums_are_ints(self):
        for name, size in self.enums.items():
            self.assertEqual(size, ctypes.sizeof(ctypes.c_int), name)

    def test_struct_format_matches_ctypes(self):
        # the unpacking format of every record type returned without NumPy
        for py in (_capi.MqHit, _capi.MqContact, _capi.MqIntersectionSegment, _capi.MqClash, _capi.MqClashTriPair):
            fmt, names = _capi.struct_format(py)
            self.assertEqual([n for n, _ in names], [f for f, _ in py._fields_])

    # NumPy-only: defined only when the binding uses NumPy (the _lists variant,
    # MESHQUERY_NO_NUMPY=1, has no such case rather than a skipped one).
    if meshquery.HAS_NUMPY:

        def test_numpy_dtype_matches(self):
            import numpy as np
            hit = np.dtype(_capi.MqHit)
            self.assertEqual(hit.itemsize, self.structs["mq_hit"][0])
            for f, off in ((k.split(".")[1], v) for k, v in self.fields.items() if k.startswith("mq_hit.")):
                self.assertEqual(hit.fields[f][1], off, f)
            self.assertEqual(meshquery._RAY_DTYPE.itemsize, self.structs["mq_ray"][0])
            for f in ("origin", "tmin", "dir", "tmax"):
                self.assertEqual(meshquery._RAY_DTYPE.fields[f][1], self.fields["mq_ray." + f], f)
                self.assertEqual(meshquery._DRAY_DTYPE.fields[f][1], self.fields["mq_dray." + f], f)
            self.assertEqual(meshquery._DRAY_DTYPE.itemsize, self.structs["mq_dray"][0])
            # every record type the binding returns as a NumPy structured array
            for name in ("mq_point_hit", "mq_cast_hit", "mq_scene_hit", "mq_scene_point_hit", "mq_sphere",
                         "mq_capsule", "mq_contact", "mq_intersection_segment", "mq_clash", "mq_clash_tri_pair",
                         "mq_clearance_pair"):
                dt = np.dtype(_capi.STRUCTS[name])
                self.assertEqual(dt.itemsize, self.structs[name][0], name)
                for f in dt.names:
                    self.assertEqual(dt.fields[f][1], self.fields[name + "." + f], name + "." + f)


if __name__ == "__main__":
    if os.environ.get("MQ_REQUIRE_NUMPY") == "1" and not meshquery.HAS_NUMPY:
        print("NumPy is not importable by %s: this NumPy test FAILS (install python3-numpy, "
              "or configure with -DMQ_PYTHON_NUMPY=/path/to/python3)" % sys.executable, file=sys.stderr)
        sys.exit(1)
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[1:])
