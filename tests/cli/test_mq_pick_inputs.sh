#!/usr/bin/env bash
# mq-pick on the inputs a new user gets wrong: text that is no OBJ file, an OBJ
# without triangles, --strict; failures leave no output file; output formats and
# paths that do not go together; --version. Usage: test_mq_pick_inputs.sh PATH/TO/mq-pick MESH.obj
set -u
pick=$1
mesh=$2
. "$(dirname "$0")/check.sh"

# --- Not an OBJ file: unknown statements and no face are an error (exit 1), at the first of them.
printf 'hello world\n' > "$tmp/hello.txt"
printf 'solid cube\n  facet normal 0 0 1\n    outer loop\n      vertex 0 0 0\n      vertex 1 0 0\n      vertex 0 1 0\n    endloop\n  endfacet\nendsolid cube\n' > "$tmp/cube.stl"
printf '# exported\n\n  mystery 1 2 3\nmystery 4\n' > "$tmp/unknown.obj"
for f in hello.txt:1:1 cube.stl:1:1 unknown.obj:3:3; do
    file=${f%%:*}
    "$pick" "$tmp/$file" --ray 0,0,5,0,0,-1 > "$tmp/out.txt" 2> "$tmp/err.txt"; rc=$?
    check "$file: exits 1" test "$rc" -eq 1
    check "$file: error names $f" grep -q "^mq-pick: $tmp/$f: unknown statement '.*' and no faces: not an OBJ file?\$" "$tmp/err.txt"
    check "$file: one error line" test "$(wc -l < "$tmp/err.txt")" -eq 1
    check "$file: no answer" test ! -s "$tmp/out.txt"
done
# A valid OBJ without triangles loads; the tool says so.
printf '# nothing but a comment\n' > "$tmp/comment.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\n' > "$tmp/points.obj"
for file in comment.obj points.obj; do
    "$pick" "$tmp/$file" --ray 0,0,5,0,0,-1 > "$tmp/out.txt" 2> "$tmp/err.txt"; rc=$?
    check "$file: exits 0" test "$rc" -eq 0
    check "$file: says 0 triangles" grep -qx "mq-pick: 0 triangles in $tmp/$file" "$tmp/err.txt"
    check "$file: answers no hit" grep -q "(no hit)" "$tmp/out.txt"
done
# --strict: an unknown statement beside faces is an error; without --strict it is skipped.
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nbogus 1\nf 1 2 3\n' > "$tmp/bogus.obj"
"$pick" "$tmp/bogus.obj" --ray 0.2,0.2,5,0,0,-1 > "$tmp/out.txt" 2> "$tmp/err.txt"; rc=$?
check "unknown statement skipped without --strict" test "$rc" -eq 0
check "the triangle is hit without --strict" grep -q "^ *0 *0 *5 *0 *0 *5 " "$tmp/out.txt"
"$pick" "$tmp/bogus.obj" --strict --ray 0.2,0.2,5,0,0,-1 > "$tmp/out.txt" 2> "$tmp/err.txt"; rc=$?
check "--strict: exits 1" test "$rc" -eq 1
check "--strict: names bogus.obj:4:1" grep -q "bogus.obj:4:1: unknown statement 'bogus' (strict mode)" "$tmp/err.txt"
check "--strict in --help" sh -c "'$pick' --help | grep -q -- --strict"
"$pick" "$tmp/bogus.obj" "$mesh" --strict --ray 0.2,0.2,5,0,0,-1 > /dev/null 2>&1; rc=$?
check "--strict applies to every mesh of a scene" test "$rc" -eq 1

# --- A failed run leaves no output file and says only what failed.
printf 'sphere 0 0 0\n' > "$tmp/bad.queries"
printf '1 2\n' > "$tmp/bad.xforms"
printf 'old answer\n' > "$tmp/o2.txt"
"$pick" "$mesh" --queries "$tmp/bad.queries" --out "$tmp/o.txt" 2> "$tmp/err.txt"; rc=$?
check "bad --queries exits 1" test "$rc" -eq 1
check "bad --queries: no output file" test ! -e "$tmp/o.txt"
check "bad --queries: one error, at bad.queries:1" sh -c "test \$(wc -l < '$tmp/err.txt') -eq 1 && grep -q 'bad.queries:1' '$tmp/err.txt'"
check "bad --queries: no false write error" sh -c "! grep -q 'writing' '$tmp/err.txt'"
"$pick" "$mesh" --collide "$mesh" --xforms "$tmp/bad.xforms" --out "$tmp/o2.txt" 2> "$tmp/err.txt"; rc=$?
check "bad --xforms exits 1" test "$rc" -eq 1
check "bad --xforms: no output file (an old one removed)" test ! -e "$tmp/o2.txt"
check "bad --xforms: one error, at bad.xforms:1" sh -c "test \$(wc -l < '$tmp/err.txt') -eq 1 && grep -q 'bad.xforms:1' '$tmp/err.txt'"
"$pick" "$mesh" "$mesh" --place 1,0,0 --queries "$tmp/bad.queries" --out "$tmp/o.txt" 2> /dev/null; rc=$?
check "bad --queries on a scene: exit 1, no output file" sh -c "test $rc -eq 1 && test ! -e '$tmp/o.txt'"
"$pick" "$mesh" --queries "$tmp/missing.queries" --out "$tmp/o.txt" 2> /dev/null; rc=$?
check "missing --queries: exit 1, no output file" sh -c "test $rc -eq 1 && test ! -e '$tmp/o.txt'"
"$pick" "$tmp/hello.txt" --queries "$tmp/bad.queries" --out "$tmp/o.txt" 2> /dev/null
check "bad mesh: no output file" test ! -e "$tmp/o.txt"
if [ -w /dev/full ]; then
    "$pick" "$mesh" --sphere 0,0.5,0,0.3 --out /dev/full 2> "$tmp/err.txt"; rc=$?
    check "a write error exits 1 and says so" sh -c "test $rc -eq 1 && grep -q 'writing /dev/full failed' '$tmp/err.txt'"
    check "a write error leaves /dev/full alone" test -c /dev/full
fi

finish
