#!/usr/bin/env bash
# mq-pick --distance and --clearance D between two placed meshes (docs/formats.md):
# known distances between placed cubes, the JSON contract's keys and order, the
# points' distance equal to the reported one, clearance lists around the distance,
# CSV and table forms, and the usage errors. Usage: test_mq_pick_distance.sh PATH/TO/mq-pick MESH.obj
set -u
pick=$1
mesh=$2
. "$(dirname "$0")/check.sh"

# A unit cube [0,1]^3, 12 triangles (faces 1..6, two triangles each).
cat > "$tmp/cube.obj" <<'OBJ'
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

json_field() { # json_field FILE KEY: the value of KEY in the first JSON line
    python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())[sys.argv[2]])' "$1" "$2"
}
near() { # near A B TOL
    python3 -c 'import sys; a,b,t=map(float,sys.argv[1:4]); sys.exit(0 if abs(a-b)<=t else 1)' "$1" "$2" "$3"
}

# --- Face to face: B scaled by 0.5 and moved to x = 2.5: 1.5 apart.
"$pick" "$tmp/cube.obj" "$tmp/cube.obj" --place 2.5,0,0,1,0,0,0,0.5 --distance --json > "$tmp/d1.json"; rc=$?
check "face-face: exit 0" test "$rc" -eq 0
check "face-face: one line" test "$(wc -l < "$tmp/d1.json")" -eq 1
check "face-face: distance 1.5" near "$(json_field "$tmp/d1.json" distance)" 1.5 1e-6
check "face-face: keys in the contract's order" python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).readline())
keys = list(r)
want = ["distance", "instance_a", "instance_b", "triangle_a", "triangle_b", "point_a", "point_b"]
assert keys[:7] == want, keys
assert r["instance_a"] == 0 and r["instance_b"] == 1
for k in ("file_a", "face_a", "line_a", "file_b", "face_b", "line_b"):
    assert k in r, k
assert abs(r["point_a"][0] - 1.0) < 1e-6 and abs(r["point_b"][0] - 2.5) < 1e-6, r
# one triangle per face (0-based), the faces on lines 9..20
for s in "ab":
    assert r["face_" + s] == r["triangle_" + s] and r["line_" + s] == 9 + r["face_" + s], r
' "$tmp/d1.json"

# --- Edge to face: B rotated 45 degrees about z, its edge at x = 2: 1 apart.
c=0.92387953251128674 s=0.38268343236508978
"$pick" "$tmp/cube.obj" "$tmp/cube.obj" --place 2.7071067811865475,0,0,$c,0,0,$s --distance --json > "$tmp/d2.json"
check "edge-face: distance 1" near "$(json_field "$tmp/d2.json" distance)" 1.0 1e-6
# --- Intersecting: distance 0 and a common point.
"$pick" "$tmp/cube.obj" "$tmp/cube.obj" --place 0.5,0.5,0.5 --distance --json > "$tmp/d3.json"
check "overlap: distance 0" near "$(json_field "$tmp/d3.json" distance)" 0 0
check "overlap: points meet" python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert max(abs(a - b) for a, b in zip(r["point_a"], r["point_b"])) < 1e-6, r' "$tmp/d3.json"

# --- A real mesh: the points are the distance apart; moving both keeps it.
"$pick" "$mesh" "$mesh" --place 1.6,0.1,0,0.9,0.1,0.3,0 --distance --json > "$tmp/m1.json"
"$pick" "$mesh" --place -1.6,-0.1,0 "$mesh" --place 0,0,0,0.9,0.1,0.3,0 --distance --json > "$tmp/m2.json"
check "mesh: the points' distance" python3 -c '
import json, math, sys
r = json.loads(open(sys.argv[1]).readline())
d = math.dist(r["point_a"], r["point_b"])
assert r["distance"] > 0 and abs(d - r["distance"]) <= 1e-6, (d, r["distance"])' "$tmp/m1.json"
check "mesh: moved together, same distance" near "$(json_field "$tmp/m1.json" distance)" "$(json_field "$tmp/m2.json" distance)" 1e-5
D=$(json_field "$tmp/m1.json" distance)

# --- Clearance: nothing just below the distance, the closest pair just above, sorted pairs within D.
below=$(python3 -c "print($D * 0.999)")
above=$(python3 -c "print($D * 1.001)")
wide=$(python3 -c "print($D + 0.02)")
"$pick" "$mesh" "$mesh" --place 1.6,0.1,0,0.9,0.1,0.3,0 --clearance "$below" --json > "$tmp/c0.json"; rc=$?
check "clearance below: exit 0" test "$rc" -eq 0
check "clearance below: no pair" test ! -s "$tmp/c0.json"
"$pick" "$mesh" "$mesh" --place 1.6,0.1,0,0.9,0.1,0.3,0 --clearance "$above" --json > "$tmp/c1.json"
check "clearance above: the closest pair" python3 -c '
import json, sys
pairs = [json.loads(l) for l in open(sys.argv[1])]
best = json.loads(open(sys.argv[2]).readline())
assert len(pairs) >= 1
assert any(p["triangle_a"] == best["triangle_a"] and p["triangle_b"] == best["triangle_b"] for p in pairs)' "$tmp/c1.json" "$tmp/m1.json"
"$pick" "$mesh" "$mesh" --place 1.6,0.1,0,0.9,0.1,0.3,0 --clearance "$wide" --json > "$tmp/c2.json"
check "clearance: sorted, within D, points apart by the distance" python3 -c '
import json, math, sys
D = float(sys.argv[2])
pairs = [json.loads(l) for l in open(sys.argv[1])]
assert len(pairs) > 1
keys = [(p["triangle_a"], p["triangle_b"]) for p in pairs]
assert keys == sorted(keys) and len(set(keys)) == len(keys)
for p in pairs:
    assert list(p)[:5] == ["instance_a", "instance_b", "triangle_a", "triangle_b", "distance"], list(p)
    assert 0 <= p["distance"] <= D
    assert abs(math.dist(p["point_a"], p["point_b"]) - p["distance"]) <= 1e-6' "$tmp/c2.json" "$wide"
"$pick" "$mesh" "$mesh" --place 1.6,0.1,0,0.9,0.1,0.3,0 --clearance "$wide" --csv > "$tmp/c2.csv"
check "clearance CSV: header and a row per pair" test "$(($(wc -l < "$tmp/c2.csv") - 1))" -eq "$(wc -l < "$tmp/c2.json")"
check "clearance CSV: header" grep -q '^record,instance_a,instance_b,distance,file_a,triangle_a,face_a,line_a,file_b,triangle_b,face_b,line_b,ax,ay,az,bx,by,bz$' "$tmp/c2.csv"
"$pick" "$mesh" "$mesh" --place 1.6,0.1,0,0.9,0.1,0.3,0 --distance > "$tmp/t.txt"
check "table: names the distance" grep -q "^distance" "$tmp/t.txt"
"$pick" "$mesh" "$mesh" --place 1.6,0.1,0,0.9,0.1,0.3,0 --distance --clearance "$above" --json > "$tmp/both.json"
check "--distance with --clearance: the distance first, then the pairs" python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert list(lines[0])[0] == "distance" and len(lines) >= 2 and list(lines[1])[0] == "instance_a"' "$tmp/both.json"

# --- Usage errors (exit 2) and unreadable meshes (exit 1).
"$pick" "$mesh" --distance > /dev/null 2> "$tmp/err.txt"; rc=$?
check "one mesh: exit 2" test "$rc" -eq 2
check "one mesh: says two" grep -q "exactly two meshes" "$tmp/err.txt"
"$pick" "$mesh" "$mesh" "$mesh" --distance > /dev/null 2>&1; rc=$?
check "three meshes: exit 2" test "$rc" -eq 2
"$pick" "$mesh" "$mesh" --distance --ray 0,0,5,0,0,-1 > /dev/null 2>&1; rc=$?
check "with a ray: exit 2" test "$rc" -eq 2
"$pick" "$mesh" "$mesh" --clearance -1 > /dev/null 2>&1; rc=$?
check "negative clearance: exit 2" test "$rc" -eq 2
"$pick" "$mesh" "$tmp/missing.obj" --distance > /dev/null 2>&1; rc=$?
check "missing mesh: exit 1" test "$rc" -eq 1
"$pick" "$mesh" "$mesh" --distance --out "$tmp/x.hits" > /dev/null 2>&1; rc=$?
check "into a .hits file: exit 2" test "$rc" -eq 2
check "into a .hits file: not written" test ! -e "$tmp/x.hits"

finish
