#!/usr/bin/env bash
# Builds meshquery as a subproject (add_subdirectory) of a small parent project,
# without installing it, and runs a static and a shared consumer.
# usage: test_subproject.sh SOURCE_DIR WORK_DIR MESH.obj
# environment: CC, MQ_GENERATOR, MQ_CONSUMER_FLAGS (as test_install.sh)
set -euo pipefail
src=$1 work=$2 mesh=$3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work"
gen=()
[ -n "${MQ_GENERATOR:-}" ] && gen=(-G "$MQ_GENERATOR")
# Debug: the quickest build of the library; only its own targets are built.
cmake -S "$here/subproject" -B "$work" "${gen[@]}" -DMESHQUERY_SOURCE_DIR="$src" -DCMAKE_BUILD_TYPE=Debug \
      -DCMAKE_C_FLAGS="${MQ_CONSUMER_FLAGS:-}" -DCMAKE_EXE_LINKER_FLAGS="${MQ_CONSUMER_FLAGS:-}" \
      -DCMAKE_SHARED_LINKER_FLAGS="${MQ_CONSUMER_FLAGS:-}" > "$work.configure.log" 2>&1 \
    || { cat "$work.configure.log"; fail "configuring the parent project"; }
cmake --build "$work" -j2 > "$work.build.log" 2>&1 || { tail -n 40 "$work.build.log"; fail "building"; }
"$work/consumer_static" "$mesh" || fail "static consumer"
"$work/consumer_shared" "$mesh" || fail "shared consumer"
[ ! -e "$work/meshquery/mq-pick" ] || fail "the subproject built its tools"
rm -f "$work.configure.log" "$work.build.log"
echo "PASS"
