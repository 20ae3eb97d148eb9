#!/usr/bin/env bash
# End-to-end checks of mq-render's command-line contract (docs/formats.md):
# `mq-render MESH.obj --size WxH --out IMAGE.png` writes a PNG of that size;
# exit codes 0/1/2; errors name the argument or path; no file is left behind
# when writing fails. Usage: test_mq_render.sh PATH/TO/mq-render MESH.obj
set -u
render=$1
mesh=$2
. "$(dirname "$0")/check.sh"
# is_png FILE W H: the PNG signature, then the IHDR chunk with big-endian width and height.
is_png() {
    test -s "$1" || return 1
    test "$(od -An -v -t x1 -N16 "$1" | tr -d ' \n')" = "89504e470d0a1a0a0000000d49484452" || return 1
    local wh
    wh=$(od -An -v -t u1 -j16 -N8 "$1" | awk '{print $1*16777216 + $2*65536 + $3*256 + $4, $5*16777216 + $6*65536 + $7*256 + $8}')
    test "$wh" = "$2 $3"
}

check "help exits 0" sh -c "'$render' --help > '$tmp/help.txt'"
check "help shows usage" grep -q "^usage: mq-render" "$tmp/help.txt"

# The contract form, a non-square size, and each shading.
check "contract form exits 0" "$render" "$mesh" --size 64x48 --out "$tmp/a.png"
check "output is a 64x48 PNG" is_png "$tmp/a.png" 64 48
check "no temporary file is left" test "$(ls "$tmp" | grep -c tmp)" -eq 0
check "--shade depth" "$render" "$mesh" --size 40x30 --shade depth --out "$tmp/depth.png"
check "depth output is a 40x30 PNG" is_png "$tmp/depth.png" 40 30
check "--shade heat" "$render" "$mesh" --size 40x30 --shade heat --out "$tmp/heat.png"
check "heat output is a 40x30 PNG" is_png "$tmp/heat.png" 40 30
check "--shade normal" "$render" "$mesh" --size 40x30 --shade normal --out "$tmp/normal.png"
check "shadings differ" sh -c "! cmp -s '$tmp/depth.png' '$tmp/heat.png' && ! cmp -s '$tmp/depth.png' '$tmp/normal.png'"
check "thread count does not change the image" sh -c "'$render' '$mesh' --size 40x30 --threads 1 --out '$tmp/t1.png' && cmp -s '$tmp/normal.png' '$tmp/t1.png'"
check "heat image does not depend on threads" sh -c "'$render' '$mesh' --size 40x30 --shade heat --threads 3 --out '$tmp/h3.png' && cmp -s '$tmp/heat.png' '$tmp/h3.png'"
check "--mark and --sphere" "$render" "$mesh" --size 40x30 --mark 20,15 --mark 0,0 --sphere 0,0,0,1e3 --out "$tmp/marked.png"
check "overlays change the image" sh -c "! cmp -s '$tmp/normal.png' '$tmp/marked.png'"
check "--out - writes the PNG to stdout" sh -c "'$render' '$mesh' --size 16x8 --out - > '$tmp/stdout.png'"
check "stdout PNG is 16x8" is_png "$tmp/stdout.png" 16 8
check "--out /dev/stdout is written in place" sh -c "'$render' '$mesh' --size 16x8 --out /dev/stdout > '$tmp/devout.png' && cmp -s '$tmp/stdout.png' '$tmp/devout.png'"
check "--timing reports the stages" sh -c "'$render' '$mesh' --size 16x16 --timing --out '$tmp/t.png' 2>&1 | grep -q 'trace'"

# Bad arguments: exit 2, naming the argument.
bad_arg() { # bad_arg NAME EXPECTED_TEXT ARGS...
    local name=$1 text=$2
    shift 2
    "$render" "$@" > /dev/null 2> "$tmp/err.txt"
    local rc=$?
    check "$name exits 2 (got $rc)" test "$rc" -eq 2
    check "$name names it" grep -q -- "$text" "$tmp/err.txt"
}
bad_arg "unknown option" "--bogus" "$mesh" --size 8x8 --out "$tmp/x.png" --bogus
bad_arg "bad --size" "--size" "$mesh" --size 8by8 --out "$tmp/x.png"
bad_arg "zero --size" "0x8" "$mesh" --size 0x8 --out "$tmp/x.png"
bad_arg "huge --size" "--size" "$mesh" --size 100000x100000 --out "$tmp/x.png"
bad_arg "bad --shade" "--shade" "$mesh" --size 8x8 --shade plasma --out "$tmp/x.png"
bad_arg "missing --out" "--out" "$mesh" --size 8x8
bad_arg "--size without value" "--size" "$mesh" --out "$tmp/x.png" --size
bad_arg "bad --mark" "--mark" "$mesh" --size 8x8 --mark 1 --out "$tmp/x.png"
bad_arg "--mark outside the image" "8,0" "$mesh" --size 8x8 --mark 8,0 --out "$tmp/x.png"
bad_arg "bad --sphere" "--sphere" "$mesh" --size 8x8 --sphere 0,0,0,-1 --out "$tmp/x.png"
bad_arg "bad --threads" "--threads" "$mesh" --size 8x8 --threads many --out "$tmp/x.png"
bad_arg "no mesh" "no mesh" --size 8x8 --out "$tmp/x.png"
check "no image after bad arguments" test ! -e "$tmp/x.png"

# Unreadable input and unwritable output: exit 1, naming the path.
"$render" "$tmp/missing.obj" --size 8x8 --out "$tmp/x.png" 2> "$tmp/err.txt"; rc=$?
check "missing mesh exits 1 (got $rc)" test "$rc" -eq 1
check "missing mesh is named" grep -q "missing.obj" "$tmp/err.txt"
printf 'v 0 0 0\nv 1 0 0\nf 1 2 x\n' > "$tmp/bad.obj"
"$render" "$tmp/bad.obj" --size 8x8 --out "$tmp/x.png" 2> "$tmp/err.txt"; rc=$?
check "bad OBJ exits 1 (got $rc)" test "$rc" -eq 1
check "bad OBJ error has path:line:col" grep -q "bad.obj:3:[0-9]" "$tmp/err.txt"
"$render" "$mesh" --size 8x8 --out "$tmp/no/such/dir/x.png" 2> "$tmp/err.txt"; rc=$?
check "unwritable output exits 1 (got $rc)" test "$rc" -eq 1
check "unwritable output is named" grep -q "no/such/dir/x.png" "$tmp/err.txt"
mkdir "$tmp/ro" && cp "$tmp/a.png" "$tmp/ro/keep.png" && chmod a-w "$tmp/ro"
if [ ! -w "$tmp/ro" ]; then # root can write anywhere: then this check means nothing
    "$render" "$mesh" --size 8x8 --out "$tmp/ro/keep.png" 2> /dev/null; rc=$?
    check "read-only directory exits 1 (got $rc)" test "$rc" -eq 1
    check "existing image is untouched" cmp -s "$tmp/a.png" "$tmp/ro/keep.png"
    check "no temporary file in read-only dir" test "$(ls "$tmp/ro" | wc -l)" -eq 1
fi
# An existing image is replaced whole, not written into.
check "overwrite existing image" "$render" "$mesh" --size 20x10 --out "$tmp/a.png"
check "overwritten image is 20x10" is_png "$tmp/a.png" 20 10

# Text that is no OBJ file is an error at its first unknown statement; an OBJ without
# triangles renders, with a notice; --strict refuses any unknown statement.
printf 'solid cube\n  facet normal 0 0 1\nendsolid\n' > "$tmp/cube.stl"
"$render" "$tmp/cube.stl" --size 8x8 --out "$tmp/stl.png" 2> "$tmp/err.txt"; rc=$?
check "STL text exits 1 (got $rc)" test "$rc" -eq 1
check "STL text: path:line:col, not an OBJ file?" grep -qx "mq-render: $tmp/cube.stl:1:1: .*not an OBJ file?" "$tmp/err.txt"
check "STL text: no image" test ! -e "$tmp/stl.png"
printf 'v 0 0 0\nv 1 0 0\n' > "$tmp/points.obj"
check "0 triangles renders" "$render" "$tmp/points.obj" --size 8x8 --out "$tmp/points.png" 2> "$tmp/err.txt"
check "0 triangles is said" grep -qx "mq-render: 0 triangles in $tmp/points.obj" "$tmp/err.txt"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nbogus\nf 1 2 3\n' > "$tmp/bogus.obj"
check "unknown statement skipped" "$render" "$tmp/bogus.obj" --size 8x8 --out "$tmp/bogus.png"
"$render" "$tmp/bogus.obj" --strict --size 8x8 --out "$tmp/strict.png" 2> "$tmp/err.txt"; rc=$?
check "--strict: exit 1 at bogus.obj:4:1" sh -c "test $rc -eq 1 && grep -q 'bogus.obj:4:1: unknown statement' '$tmp/err.txt'"

check "--version exits 0" sh -c "'$render' --version > '$tmp/v.txt'"
check "--version prints the library version" grep -qx "mq-render [0-9][0-9.]*.*" "$tmp/v.txt"
"$render" "$tmp/missing.obj" --size 8x8 --out "$tmp/m.png" 2> "$tmp/err.txt"
check "missing mesh: path without :0:0" sh -c "grep -q '^mq-render: $tmp/missing.obj: ' '$tmp/err.txt' && ! grep -q ':0:0' '$tmp/err.txt'"

finish
