#!/usr/bin/env bash
# End-to-end checks of mq-pick --clash and --contacts (docs/formats.md, "clash"
# and "contacts"): records, order, distances, formats and usage errors.
# Usage: test_mq_pick_clash.sh PATH/TO/mq-pick MESH.obj
set -u
pick=$1
mesh=$2
. "$(dirname "$0")/check.sh"

# A unit cube [0,1]^3, 12 triangles.
cat > "$tmp/cube.obj" << 'OBJ'
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
f 1 3 2
f 1 4 3
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
f 2 3 7
f 2 7 6
f 3 4 8
f 3 8 7
f 4 1 5
f 4 5 8
OBJ
cube=$tmp/cube.obj

# Three cubes along x: 0 and 1 touch face to face, 2 is 1 away from 1 and 2 from 0.
"$pick" "$cube" "$cube" --place 1,0,0 "$cube" --place 3,0,0 --clash --json > "$tmp/c0.json"; rc=$?
check "clash exits 0" test "$rc" -eq 0
check "d = 0: one pair" test "$(wc -l < "$tmp/c0.json")" -eq 1
check "touching counts, distance 0" grep -q '^{"instance_a": 0, "instance_b": 1, "distance": 0,' "$tmp/c0.json"
check "points and triangles named" grep -q '"triangle_a": [0-9]*, "triangle_b": [0-9]*, "point_a": \[' "$tmp/c0.json"
check "files named" grep -q '"file_a": ".*cube.obj", "file_b": ".*cube.obj"' "$tmp/c0.json"

"$pick" "$cube" "$cube" --place 1,0,0 "$cube" --place 3,0,0 --clash --clearance 1 --json > "$tmp/c1.json"
check "d = 1: two pairs" test "$(wc -l < "$tmp/c1.json")" -eq 2
check "d = 1: the second is 1-2 at distance 1" \
    grep -q '^{"instance_a": 1, "instance_b": 2, "distance": 1,' "$tmp/c1.json"
"$pick" "$cube" "$cube" --place 1,0,0 "$cube" --place 3,0,0 --clash --clearance 2 --json > "$tmp/c2.json"
check "d = 2: three pairs" test "$(wc -l < "$tmp/c2.json")" -eq 3
check "sorted by (instance_a, instance_b)" \
    test "$(sed 's/^{"instance_a": \([0-9]*\), "instance_b": \([0-9]*\),.*/\1 \2/' "$tmp/c2.json" | tr '\n' ' ')" = "0 1 0 2 1 2 "
check "0-2 at distance 2" grep -q '^{"instance_a": 0, "instance_b": 2, "distance": 2,' "$tmp/c2.json"
"$pick" "$cube" "$cube" --place 1,0,0 "$cube" --place 3,0,0 --clash --clearance 1.999 --json > "$tmp/c3.json"
check "d just below 2: two pairs" test "$(wc -l < "$tmp/c3.json")" -eq 2

# The same with one thread, and as CSV and a table.
"$pick" "$cube" "$cube" --place 1,0,0 "$cube" --place 3,0,0 --clash --clearance 2 --json --threads 1 > "$tmp/t1.json"
check "same answer on one thread" cmp -s "$tmp/c2.json" "$tmp/t1.json"
"$pick" "$cube" "$cube" --place 1,0,0 "$cube" --place 3,0,0 --clash --clearance 2 --csv > "$tmp/c2.csv"
check "CSV header" grep -q '^instance_a,instance_b,distance,triangle_a,triangle_b,' "$tmp/c2.csv"
check "CSV rows" test "$(wc -l < "$tmp/c2.csv")" -eq 4
check "CSV first row" grep -q '^0,1,0,' "$tmp/c2.csv"
"$pick" "$cube" "$cube" --place 1,0,0 "$cube" --place 3,0,0 --clash --clearance 2 > "$tmp/c2.txt"
check "table footer" grep -q '^3 clashing pairs (clearance 2)' "$tmp/c2.txt"
"$pick" "$cube" "$cube" --place 1,0,0 "$cube" --place 3,0,0 --clash --clearance 2 --out "$tmp/o.jsonl"
check "--out .jsonl writes JSON lines" cmp -s "$tmp/c2.json" "$tmp/o.jsonl"

# --pairs: the triangle pairs within D, each at most D away.
"$pick" "$cube" "$cube" --place 1,0,0 "$cube" --place 3,0,0 --clash --clearance 1 --pairs --json > "$tmp/p.json"
check "--pairs: the pairs in JSON" grep -q '"line_b": [0-9]*, "triangle_pairs": \[\[[0-9]*, [0-9]*, [0-9.e-]*\]' "$tmp/p.json"
check "--pairs: the records as before" test "$(sed 's/, "triangle_pairs".*/}/' "$tmp/p.json")" = "$(cat "$tmp/c1.json")"
"$pick" "$cube" "$cube" --place 1,0,0 --clash --pairs > "$tmp/p.txt"
check "--pairs: table lines" grep -q '^    triangles [0-9]*,[0-9]*  distance 0$' "$tmp/p.txt"

# Rotated and mirrored placements of the test mesh: a mesh against a copy of itself moved a little.
"$pick" "$mesh" "$mesh" --place 0.05,0,0,0.9238795,0,0.3826834,0 "$mesh" --place 9,0,0,1,0,0,0,-1 --clash --json \
    > "$tmp/m.json"; rc=$?
check "mesh clash exits 0" test "$rc" -eq 0
check "mesh clash: the moved copy intersects" grep -q '^{"instance_a": 0, "instance_b": 1, "distance": 0,' "$tmp/m.json"
check "mesh clash: the far copy does not" test "$(wc -l < "$tmp/m.json")" -eq 1

# Usage errors.
"$pick" "$cube" "$cube" --clash --ray 0,0,0,1,0,0 2> "$tmp/err.txt"; rc=$?
check "--clash with a ray exits 2" test "$rc" -eq 2
"$pick" "$cube" "$cube" --clash --clearance -1 2> "$tmp/err.txt"; rc=$?
check "negative clearance exits 2" test "$rc" -eq 2
check "negative clearance is named" grep -q -- "--clearance" "$tmp/err.txt"
"$pick" "$cube" "$cube" --clash --clearance nan 2> /dev/null; rc=$?
check "NaN clearance exits 2" test "$rc" -eq 2
"$pick" "$tmp/missing.obj" "$cube" --clash 2> /dev/null; rc=$?
check "missing mesh exits 1" test "$rc" -eq 1

# Contacts: a sphere of radius 0.5 sunk 0.25 into the cube's top face (z = 1).
"$pick" "$cube" --sphere 0.5,0.5,1.25,0.5 --contacts --json > "$tmp/k.json"; rc=$?
check "contacts exit 0" test "$rc" -eq 0
check "contacts: the two top triangles" test "$(wc -l < "$tmp/k.json")" -eq 2
check "contacts: triangles increasing" \
    test "$(sed 's/.*"triangle": \([0-9]*\),.*/\1/' "$tmp/k.json" | tr '\n' ' ')" = "2 3 "
check "contacts: depth 0.25 along +z" grep -q '"depth": 0.25, "normal": \[0, 0, 1\]' "$tmp/k.json"
check "contacts: query, points, file, face, line" \
    grep -q '^{"query": 0, "triangle": 2, .*"point_shape": \[.*"point_triangle": \[.*"file": ".*cube.obj", "face": 2, "line": 11}' "$tmp/k.json"
"$pick" "$cube" --sphere 0.5,0.5,1.25,0.5 --aabb 0.9,0.9,0.9,1.5,1.5,1.5 --contacts --csv > "$tmp/k.csv"
check "contacts CSV header" grep -q '^query,triangle,depth,normal_x,' "$tmp/k.csv"
check "contacts CSV: both shapes" grep -q '^1,' "$tmp/k.csv"
echo 'sphere 0.5 0.5 1.25 0.5' | "$pick" "$cube" --queries - --contacts > "$tmp/k.txt"
check "contacts from --queries, table" grep -q '^2 contacts for 1 shape' "$tmp/k.txt"
"$pick" "$cube" --contacts 2> /dev/null; rc=$?
check "contacts without a shape exits 2" test "$rc" -eq 2
"$pick" "$cube" --place 1,0,0 --sphere 0,0,0,1 --contacts 2> /dev/null; rc=$?
check "contacts on a placed mesh exits 2" test "$rc" -eq 2

finish
