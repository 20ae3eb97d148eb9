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

# --- JSON has a line for a missed ray, as CSV and the table.
printf '0 0.3 5 0 0 -1\n100 100 100 0 0 1\n' > "$tmp/two.txt"
for fmt in json csv table; do
    "$pick" "$mesh" --rays "$tmp/two.txt" "--$fmt" > "$tmp/two.$fmt"
done
check "JSON: one line per ray" test "$(wc -l < "$tmp/two.json")" -eq 2
check "JSON: the miss says hit false" grep -qx "{\"ray\":1,\"rank\":0,\"file\":\"$mesh\",\"hit\":false}" "$tmp/two.json"
check "JSON: the hit has a face" sh -c "head -1 '$tmp/two.json' | grep -q '\"face\":'"
check "CSV: header and one line per ray" test "$(wc -l < "$tmp/two.csv")" -eq 3
check "table: header and one line per ray" test "$(wc -l < "$tmp/two.table")" -eq 3
"$pick" "$mesh" --rays "$tmp/two.txt" --all --json > "$tmp/all.json"
check "--all JSON: the miss has its line" grep -q '"ray":1,"rank":0,.*"hit":false' "$tmp/all.json"
"$pick" "$mesh" "$mesh" --place 3,0,0 --rays "$tmp/two.txt" --json > "$tmp/scene.json"
check "scene JSON: the miss says hit false" grep -qx '{"ray":1,"rank":0,"hit":false}' "$tmp/scene.json"

# --- --collide in every format, and its pairs.
printf '0.5 0 0 1 0 0 0\n9 9 9 1 0 0 0\n' > "$tmp/in.xforms"
"$pick" "$mesh" --collide "$mesh" --xforms "$tmp/in.xforms" > "$tmp/c.txt"
"$pick" "$mesh" --collide "$mesh" --xforms "$tmp/in.xforms" --pairs > "$tmp/c.pairs"
"$pick" "$mesh" --collide "$mesh" --xforms "$tmp/in.xforms" --pairs --csv > "$tmp/c.csv"
"$pick" "$mesh" --collide "$mesh" --xforms "$tmp/in.xforms" --pairs --json > "$tmp/c.json"
"$pick" "$mesh" --collide "$mesh" --xforms "$tmp/in.xforms" --table > "$tmp/c.table"
"$pick" "$mesh" --collide "$mesh" --xforms "$tmp/in.xforms" --csv > "$tmp/c2.csv"
n=$(head -1 "$tmp/c.txt")
check "collide: counts as before (a number, then 0)" sh -c "test '$n' -gt 0 && test \"\$(sed -n 2p '$tmp/c.txt')\" = 0"
check "--pairs: the count then that many a,b" sh -c "head -1 '$tmp/c.pairs' | awk '{exit !(\$1 == $n && NF == $n + 1 && \$2 ~ /^[0-9]+,[0-9]+\$/)}'"
check "--pairs: the pairs increase" sh -c "head -1 '$tmp/c.pairs' | tr ' ' '\n' | tail -n +2 | tr ',' ' ' | sort -n -k1,1 -k2,2 -c"
check "--pairs --csv: header, a row per pair, a row for none" sh -c "test \$(wc -l < '$tmp/c.csv') -eq \$(( $n + 2 )) && head -1 '$tmp/c.csv' | grep -qx 'xform,pairs,triangle,other_triangle' && tail -1 '$tmp/c.csv' | grep -qx '1,0,,'"
check "--pairs --csv: the same pairs" sh -c "test \"\$(sed -n '2,\$p' '$tmp/c.csv' | grep '^0,' | cut -d, -f3,4 | tr '\n' ' ')\" = \"\$(head -1 '$tmp/c.pairs' | cut -d' ' -f2- | tr ' ' '\n' | tr '\n' ' ')\""
check "--pairs --json: count and pairs" sh -c "head -1 '$tmp/c.json' | grep -q '^{\"xform\":0,\"pairs\":$n,\"triangle_pairs\":\\[\\[' && sed -n 2p '$tmp/c.json' | grep -qx '{\"xform\":1,\"pairs\":0,\"triangle_pairs\":\\[\\]}'"
check "--table: header and a row per transform" sh -c "test \$(wc -l < '$tmp/c.table') -eq 3 && head -1 '$tmp/c.table' | grep -q 'xform *pairs'"
check "--csv: header and a row per transform" sh -c "printf 'xform,pairs\n0,$n\n1,0\n' | cmp -s - '$tmp/c2.csv'"
"$pick" "$mesh" --collide "$mesh" --xforms "$tmp/in.xforms" --any --pairs 2> /dev/null; rc=$?
check "--pairs with --any exits 2" test "$rc" -eq 2

# --- Text is never written into a .hits / .occl path.
"$pick" "$mesh" --sphere 0,0.5,0,0.3 --out "$tmp/x.hits" 2> "$tmp/err.txt"; rc=$?
check "shape answers into .hits: exit 2" sh -c "test $rc -eq 2 && test ! -e '$tmp/x.hits' && grep -q 'x.hits' '$tmp/err.txt'"
"$pick" "$mesh" --ray 0,0.3,5,0,0,-1 --json --out "$tmp/x.hits" 2> /dev/null; rc=$?
check "--json into .hits: exit 2" sh -c "test $rc -eq 2 && test ! -e '$tmp/x.hits'"
"$pick" "$mesh" --ray 0,0.3,5,0,0,-1 --any --table --out "$tmp/x.occl" 2> /dev/null; rc=$?
check "--table into .occl: exit 2" test "$rc" -eq 2
"$pick" "$mesh" --collide "$mesh" --xforms "$tmp/in.xforms" --out "$tmp/x.occl" 2> /dev/null; rc=$?
check "collide into .occl: exit 2" test "$rc" -eq 2
check "binary .hits still written" "$pick" "$mesh" --ray 0,0.3,5,0,0,-1 --out "$tmp/ok.hits"
check "the .hits record is 8 bytes" test "$(wc -c < "$tmp/ok.hits")" -eq 8

# --- --version, and file errors without a meaningless :0:0.
check "--version exits 0" sh -c "'$pick' --version > '$tmp/v.txt'"
check "--version prints the library version" grep -qx "mq-pick [0-9][0-9.]*.*" "$tmp/v.txt"
"$pick" "$tmp/missing.obj" --ray 0,0,0,1,0,0 2> "$tmp/err.txt"
check "missing mesh: no :0:0" sh -c "grep -q '^mq-pick: $tmp/missing.obj: ' '$tmp/err.txt' && ! grep -q ':0:0' '$tmp/err.txt'"
"$pick" "$tmp" --ray 0,0,0,1,0,0 2> "$tmp/err.txt"
check "a directory: no :0:0" sh -c "test -s '$tmp/err.txt' && ! grep -q ':0:0' '$tmp/err.txt'"

finish
