#!/usr/bin/env bash
# pip packaging of the Python binding, fully offline: in a fresh venv (with the
# system's site packages, for NumPy) `pip install ./tools/python` builds
# libmeshquery.so with CMake and bundles it; the installed package answers a
# query and passes the binding's tests with no MESHQUERY_LIBRARY and no
# PYTHONPATH; `pip uninstall` removes the library; `pip wheel` makes a wheel
# that installs into another venv at another path.
# usage: test_pip.sh SOURCE_DIR WORK_DIR PYTHON DATA_DIR
set -euo pipefail
src=$1 work=$2 python=$3 data=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
unset MESHQUERY_LIBRARY PYTHONPATH
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1

rm -rf "$work" && mkdir -p "$work"
# pip builds in the package folder: build a copy, the checkout stays clean
cp -r "$src/tools/python" "$work/pkg"
rm -rf "$work/pkg/build" "$work/pkg"/*.egg-info
export MESHQUERY_SOURCE_DIR=$src

"$python" -m venv --system-site-packages "$work/venv"
py=$work/venv/bin/python
"$py" -m pip install --no-build-isolation "$work/pkg" > "$work/install.log" 2>&1 || { cat "$work/install.log"; fail "pip install"; }
cd "$work"
lib=$("$py" -c 'import meshquery; print(meshquery.library_path())')
case $lib in "$work/venv/"*/meshquery/libmeshquery.so) ;; *) fail "loaded $lib, not the bundled library" ;; esac
"$py" - "$data/spot.obj" <<'PY'
import sys
import meshquery as mq
bvh = mq.BVH(mq.load_obj(sys.argv[1]))
hits = bvh.raycast([(0, 0.5, -3)], [(0, 0, 1)])
assert bool(hits.hit[0]), "the ray misses spot"
print("installed package: triangle", int(hits.triangle[0]), "t", float(hits.t[0]), "numpy", mq.HAS_NUMPY)
PY
for t in test_meshquery test_api test_trees test_contacts test_helpers; do
    MQ_DATA_DIR=$data MQ_REQUIRE_NUMPY=1 "$py" "$src/tests/python/$t.py" > "$work/$t.log" 2>&1 || { cat "$work/$t.log"; fail "$t on the installed package"; }
done
"$py" -m pip uninstall -y meshquery > /dev/null
[ ! -e "$lib" ] || fail "pip uninstall left $lib"
if "$py" -c 'import meshquery' 2> /dev/null; then fail "meshquery still importable after uninstall"; fi

# a wheel (the CMake build above is reused), installed at another path
"$py" -m pip wheel --no-build-isolation --no-deps -w "$work/wheels" "$work/pkg" > "$work/wheel.log" 2>&1 || { cat "$work/wheel.log"; fail "pip wheel"; }
whl=$(ls "$work"/wheels/meshquery-*.whl)
"$py" -m pip install --target "$work/other" "$whl" > /dev/null
PYTHONPATH=$work/other "$py" -c 'import meshquery as mq, sys; p = mq.library_path(); assert p.startswith(sys.argv[1]), p; print("wheel:", p)' "$work/other/"
echo PASS
