#!/usr/bin/env python3
"""The library's folders are floors: a file may include headers of its own
floor or of a floor below it, never above. This script reads every
#include of src/ (and which public header each src/ file includes) and fails,
naming the file and line, on any that runs up a floor.

The floors, lowest first (docs/architecture.md says what each holds):
"""
import os
import re
import sys

# Lowest first. A folder not listed here is an error: a new folder takes a floor.
FLOORS = [
    ["core"],
    ["primitives"],
    ["convex"],
    ["mesh"],
    ["obj"],
    ["bvh"],
    ["bvh/kernels"],
    ["obbtree", "kdoptree", "spheretree"],
    ["query"],
    ["proximity"],
    ["saved"],
    ["scene", "scene/tlas"],
]

# The floor of each public header: the lowest folder that may include it.
PUBLIC = {
    "base.h": "core",
    "types.h": "core",
    "primitives.h": "primitives",
    "mesh.h": "mesh",
    "obj.h": "obj",
    "bvh.h": "bvh",
    "obbtree.h": "obbtree",
    "convex.h": "convex",
    "kdoptree.h": "kdoptree",
    "spheretree.h": "spheretree",
    "casts.h": "query",
    "batch.h": "query",
    "proximity.h": "proximity",
    "contacts.h": "proximity",
    "saved.h": "saved",
    "scene.h": "scene",
    "clash.h": "scene",
    "meshquery.h": None,  # the umbrella header: for users, never included by src/
}

__doc__ += "\n".join("  %d. %s" % (i, ", ".join(f)) for i, f in enumerate(FLOORS))

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def floor_of_folder(folder):
    for i, names in enumerate(FLOORS):
        if folder in names:
            return i
    return None


def main(root):
    src = os.path.join(root, "src")
    errors = []
    for dirpath, _, files in os.walk(src):
        folder = os.path.relpath(dirpath, src).replace(os.sep, "/")
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            rel = folder + "/" + name
            own = floor_of_folder(folder)
            if own is None:
                errors.append("src/%s: folder '%s' has no floor in %s" % (rel, folder, __file__))
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    kind, path = m.groups()
                    if kind == '"':
                        target = os.path.dirname(path)
                        if not os.path.exists(os.path.join(src, path)):
                            errors.append("src/%s:%d: includes \"%s\", which is not under src/" % (rel, lineno, path))
                            continue
                    elif path.startswith("meshquery/"):
                        header = path[len("meshquery/"):]
                        if header not in PUBLIC:
                            errors.append("src/%s:%d: unknown public header <%s>" % (rel, lineno, path))
                            continue
                        target = PUBLIC[header]
                        if target is None:
                            errors.append("src/%s:%d: includes the umbrella header <%s>" % (rel, lineno, path))
                            continue
                    else:
                        continue  # system and dependency headers
                    theirs = floor_of_folder(target)
                    if theirs is None:
                        errors.append("src/%s:%d: includes %s from folder '%s', which has no floor" % (rel, lineno, path, target))
                    elif theirs > own:
                        errors.append("src/%s:%d: includes %s: runs up from floor %d (%s) to floor %d (%s)" %
                                      (rel, lineno, path, own, folder, theirs, target))
    for e in errors:
        print(e)
    print("%d include(s) run up a floor or leave the map" % len(errors) if errors else "every include stays on its floor or goes down")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")))
