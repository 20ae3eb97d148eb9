"""Times the per-triangle arrays of a big mesh (Mesh.faces, lines, groups,
objects, materials: one C call each) against the per-triangle ctypes loop
they replaced. Writes a grid OBJ of quads with groups and materials into a
temporary folder (--size n: (n-1)^2 quads, 2 (n-1)^2 triangles; default 1118,
about 2.5M triangles).

    PYTHONPATH=tools/python python3 tests/python/bench_mesh_arrays.py --size 1118
"""
import argparse
import os
import tempfile
import time

import meshquery as mq


def write_grid(path, n):
    with open(path, "w") as f:
        f.write("".join("v %d %d 0\n" % (i, j) for j in range(n) for i in range(n)))
        out = []
        for j in range(n - 1):
            if j % 100 == 0:
                out.append("g band%d\nusemtl m%d\n" % (j, j % 3))
            for i in range(n - 1):
                a = j * n + i + 1
                out.append("f %d %d %d %d\n" % (a, a + 1, a + n + 1, a + n))
        f.write("".join(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=1118)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "grid.obj")
        write_grid(path, args.size)
        m = mq.load_obj(path)
    print("triangles %d, numpy %s" % (m.triangle_count, mq.HAS_NUMPY))
    for name in ("faces", "lines", "groups", "objects", "materials"):
        best = float("inf")
        for _ in range(args.repeat):
            t = time.perf_counter()
            getattr(m, name)
            best = min(best, time.perf_counter() - t)
        print("%-9s %8.1f ms (one C call)" % (name, best * 1e3))
    t = time.perf_counter()
    old = [mq._c.lib.mq_mesh_face_index(m.handle, i) for i in range(m.triangle_count)]
    print("faces by one ctypes call per triangle: %.2f s" % (time.perf_counter() - t))
    assert old == list(m.faces)


if __name__ == "__main__":
    main()
