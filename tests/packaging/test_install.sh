#!/usr/bin/env bash
# Installs the build tree into a fresh prefix and uses it the ways a consumer
# would: a CMake project with find_package(meshquery CONFIG) (static and shared
# targets), a plain compiler command line from `pkg-config --cflags --libs
# meshquery`, the installed tools and the installed Python package.
#
# usage: test_install.sh BUILD_DIR WORK_DIR MESH.obj [PYTHON]
# environment: CC, MQ_GENERATOR (CMake generator), MQ_CONSUMER_FLAGS (extra
#              compile+link flags, e.g. sanitizers the library was built with)
set -euo pipefail
build=$1 work=$2 mesh=$3 python=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

# 1. cmake --install into the prefix.
cmake --install "$build" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
libdir=$(dirname "$(find "$prefix" -name 'libmeshquery.a' | head -n1)")
[ -n "$libdir" ] || fail "no libmeshquery.a installed"
for f in "$prefix/include/meshquery/meshquery.h" "$libdir/libmeshquery.a" "$libdir/pkgconfig/meshquery.pc" \
         "$libdir/cmake/meshquery/meshqueryConfig.cmake" "$libdir/cmake/meshquery/meshqueryConfigVersion.cmake"; do
    [ -e "$f" ] || fail "not installed: ${f#$prefix/}"
done
ls "$libdir"/libmeshquery.so.* > /dev/null 2>&1 || fail "no libmeshquery.so.* installed"
echo "installed: $(cd "$prefix" && find . -type f | wc -l) files under $prefix"

# 2. find_package(meshquery CONFIG): static and shared consumers.
gen=()
[ -n "${MQ_GENERATOR:-}" ] && gen=(-G "$MQ_GENERATOR")
cmake -S "$here/consumer" -B "$work/cmake-consumer" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="${MQ_CONSUMER_FLAGS:-}" \
      -DCMAKE_EXE_LINKER_FLAGS="${MQ_CONSUMER_FLAGS:-}" > "$work/consumer-configure.log" \
    || { cat "$work/consumer-configure.log"; fail "configuring the find_package consumer"; }
grep "found meshquery" "$work/consumer-configure.log"
cmake --build "$work/cmake-consumer" > "$work/consumer-build.log" 2>&1 \
    || { cat "$work/consumer-build.log"; fail "building the find_package consumer"; }
"$work/cmake-consumer/consumer_static" "$mesh" || fail "find_package static consumer"
# The shared consumer finds the library through its build RPATH (CMake's default).
"$work/cmake-consumer/consumer_shared" "$mesh" || fail "find_package shared consumer"
# (grep without -q: under pipefail, -q's early exit can kill ldd with SIGPIPE.)
ldd "$work/cmake-consumer/consumer_shared" | grep "$libdir/libmeshquery.so" > /dev/null \
    || fail "the shared consumer does not use the installed libmeshquery.so"

# 3. pkg-config: cflags and libs from the installed meshquery.pc (relocatable prefix).
export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
version=$(pkg-config --modversion meshquery)
flags=$(pkg-config --cflags --libs meshquery)
echo "pkg-config: meshquery $version: $flags"
case "$flags" in *"$prefix"*|*"${libdir}"*) ;; *) fail "pkg-config flags do not point into the prefix";; esac
# shellcheck disable=SC2086
${CC:-cc} -std=c11 ${MQ_CONSUMER_FLAGS:-} "$here/consumer/main.c" -o "$work/pc-consumer" $flags \
    || fail "compiling with pkg-config --cflags --libs meshquery"
out=$(LD_LIBRARY_PATH="$libdir" "$work/pc-consumer" "$mesh") || { echo "$out"; fail "pkg-config consumer"; }
echo "$out"
echo "$out" | grep "library $version" > /dev/null || fail "mq_version() differs from pkg-config --modversion ($version)"
# shellcheck disable=SC2086
${CC:-cc} -std=c11 ${MQ_CONSUMER_FLAGS:-} "$here/consumer/main.c" -o "$work/pc-consumer-static" \
    $(pkg-config --cflags meshquery) "$libdir/libmeshquery.a" $(pkg-config --static --libs-only-l meshquery | sed 's/-lmeshquery//') \
    || fail "linking libmeshquery.a with pkg-config --static"
"$work/pc-consumer-static" "$mesh" > /dev/null || fail "static pkg-config consumer"

# 4. The user tools built are installed and run; mq-bench only with -DMQ_INSTALL_BENCH=ON.
for tool in mq-pick mq-render; do
    if [ -x "$build/$tool" ]; then [ -x "$prefix/bin/$tool" ] || fail "$tool built but not installed"; fi
done
if grep -q '^MQ_INSTALL_BENCH:BOOL=ON' "$build/CMakeCache.txt" 2> /dev/null; then
    if [ -x "$build/mq-bench" ]; then [ -x "$prefix/bin/mq-bench" ] || fail "MQ_INSTALL_BENCH=ON but mq-bench not installed"; fi
else
    [ ! -e "$prefix/bin/mq-bench" ] || fail "mq-bench installed by default (it installs with -DMQ_INSTALL_BENCH=ON)"
fi
if [ -x "$prefix/bin/mq-pick" ]; then
    "$prefix/bin/mq-pick" "$mesh" --ray 0,0.5,-3,0,0,1 > "$work/pick.txt" || fail "installed mq-pick"
    echo "installed mq-pick: $(tail -n1 "$work/pick.txt" | tr -s ' ' | cut -c1-60)"
fi

# 5. The installed Python package finds the installed library by itself.
if [ -n "$python" ]; then
    pydir=$(dirname "$(find "$prefix" -path '*/meshquery/__init__.py' | head -n1)")
    [ -f "$pydir/__init__.py" ] || fail "Python package not installed"
    env -u MESHQUERY_LIBRARY PYTHONPATH="$(dirname "$pydir")" MESHQUERY_NO_NUMPY=1 "$python" -c '
import sys, meshquery
m = meshquery.load_obj(sys.argv[1])
print("installed python: meshquery", meshquery.version(), "from", meshquery.library_path(), "-", m.triangle_count, "triangles")
assert meshquery.library_path().startswith(sys.argv[2]), meshquery.library_path()
' "$mesh" "$prefix" || fail "installed Python package"
fi
echo "PASS"
