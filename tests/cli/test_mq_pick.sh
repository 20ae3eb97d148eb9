#!/usr/bin/env bash
# End-to-end checks of mq-pick's command-line contract (../shared/FORMATS.md):
# exit codes, output formats and record sizes, and that the binary and text
# answers agree. Usage: test_mq_pick.sh PATH/TO/mq-pick MESH.obj
set -u
pick=$1
mesh=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() { # check NAME COMMAND...
    local name=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $name"; fi
}

# Rays through the mesh's bounding box from six sides, text form (6 and 8 numbers).
read -r minx miny minz maxx maxy maxz < <(awk '$1=="v"{if(!n++){a=$2;b=$3;c=$4;d=$2;e=$3;f=$4}
    if($2<a)a=$2; if($3<b)b=$3; if($4<c)c=$4; if($2>d)d=$2; if($3>e)e=$3; if($4>f)f=$4}
    END{print a,b,c,d,e,f}' "$mesh")
awk -v a="$minx" -v b="$miny" -v c="$minz" -v d="$maxx" -v e="$maxy" -v f="$maxz" 'BEGIN{
    srand(7); for (i = 0; i < 200; i++) {
        x = a + (d - a) * rand(); y = b + (e - b) * rand(); z = c + (f - c) * rand()
        if (i % 2) print x, y, f + 1, 0, 0, -1; else print x, y, c - 1, 0, 0, 0, 1, 1e30 }
    print "# a comment line"; print ""; print x, e + 1, z, 0, -1, 0 }' > "$tmp/in.txt"
nrays=201

check "help exits 0" "$pick" --help > "$tmp/help.txt"
check "help shows usage" grep -q "^usage: mq-pick" "$tmp/help.txt"
"$pick" "$mesh" --bogus 2> "$tmp/err.txt"; rc=$?
check "unknown option exits 2" test "$rc" -eq 2
check "unknown option is named" grep -q -- "--bogus" "$tmp/err.txt"
"$pick" "$tmp/missing.obj" --ray 0,0,0,1,0,0 2> "$tmp/err.txt"; rc=$?
check "missing mesh exits 1" test "$rc" -eq 1
check "missing mesh is named" grep -q "missing.obj" "$tmp/err.txt"
printf 'v 0 0 0\nv 1 0 0\nf 1 2 x\n' > "$tmp/bad.obj"
"$pick" "$tmp/bad.obj" --ray 0,0,0,1,0,0 2> "$tmp/err.txt"; rc=$?
check "bad OBJ exits 1" test "$rc" -eq 1
check "bad OBJ error has path:line:col" grep -q "bad.obj:3:" "$tmp/err.txt"
printf '1 2 3\n' > "$tmp/badrays.txt"
"$pick" "$mesh" --rays "$tmp/badrays.txt" 2> "$tmp/err.txt"; rc=$?
check "bad ray file exits 1" test "$rc" -eq 1
check "bad ray file error has path:line" grep -q "badrays.txt:1" "$tmp/err.txt"
"$pick" "$mesh" --rays "$tmp/in.txt" --any --out "$tmp/x.hits" 2> /dev/null; rc=$?
check ".hits with --any is refused" test "$rc" -eq 2

check "closest hits to .hits" "$pick" "$mesh" --rays "$tmp/in.txt" --out "$tmp/out.hits"
check ".hits has one 8-byte record per ray" test "$(stat -c %s "$tmp/out.hits")" -eq $((8 * nrays))
check "any hit to .occl" "$pick" "$mesh" --rays "$tmp/in.txt" --any --out "$tmp/out.occl"
check ".occl has one byte per ray" test "$(stat -c %s "$tmp/out.occl")" -eq "$nrays"
check "JSON lines to stdout" sh -c "'$pick' '$mesh' --rays '$tmp/in.txt' --json > '$tmp/out.json'"
check "JSON lines are objects" sh -c "grep -v -c '^{\"ray\":[0-9]*,.*}\$' '$tmp/out.json' | grep -qx 0"
# Every hit in .hits (id != 0xFFFFFFFF) is one JSON line, and the occluded count matches.
nhit=$(od -An -v -t u4 -w8 "$tmp/out.hits" | awk '$2 != 4294967295 {n++} END {print n + 0}')
njson=$(wc -l < "$tmp/out.json")
nocc=$(od -An -v -t u1 -w1 "$tmp/out.occl" | awk '$1 == 1 {n++} END {print n + 0}')
check "JSON line count equals .hits hits ($njson vs $nhit)" test "$njson" -eq "$nhit"
check "occluded count equals hit count ($nocc vs $nhit)" test "$nocc" -eq "$nhit"
check "some rays hit" test "$nhit" -gt 0
# Binary .rays in gives the same answers as the text form.
check "stdin text rays" sh -c "'$pick' '$mesh' --rays - --out '$tmp/stdin.hits' < '$tmp/in.txt'"
check "stdin answers equal file answers" cmp -s "$tmp/out.hits" "$tmp/stdin.hits"
check "CSV output" sh -c "'$pick' '$mesh' --rays '$tmp/in.txt' --out '$tmp/out.csv' && head -1 '$tmp/out.csv' | grep -q '^ray,rank,file,face,line'"
check "CSV has a row per ray" test "$(($(wc -l < "$tmp/out.csv") - 1))" -eq "$nrays"
check "--all gives at least the closest hits" sh -c "test \$('$pick' '$mesh' --rays '$tmp/in.txt' --all --json | wc -l) -ge $nhit"
check "thread count does not change answers" sh -c "'$pick' '$mesh' --rays '$tmp/in.txt' --threads 1 --out '$tmp/t1.hits' && cmp -s '$tmp/out.hits' '$tmp/t1.hits'"

# Shape queries (.queries -> .overlaps) on both hierarchies, and mesh vs mesh (.xforms).
cx=$(awk -v a="$minx" -v b="$maxx" 'BEGIN{print (a+b)/2}'); cy=$(awk -v a="$miny" -v b="$maxy" 'BEGIN{print (a+b)/2}')
cz=$(awk -v a="$minz" -v b="$maxz" 'BEGIN{print (a+b)/2}')
{
    echo "# one of each shape, around the centre and on the surface"
    echo "sphere $cx $cy $maxz 0.05"
    echo "capsule $minx $cy $cz $maxx $cy $cz 0.01"
    echo "obb $cx $cy $cz 0.3 0.02 0.3 0.9238795 0 0.3826834 0"
    echo "aabb $minx $miny $minz $maxx $maxy $maxz"
    echo "sphere 1e6 1e6 1e6 1"
} > "$tmp/in.queries"
check "queries on the obb tree" "$pick" "$mesh" --queries "$tmp/in.queries" --out "$tmp/obb.overlaps"
check "queries on the aabb tree" "$pick" "$mesh" --queries "$tmp/in.queries" --hierarchy aabb --out "$tmp/aabb.overlaps"
check "both hierarchies give the same answers" cmp -s "$tmp/obb.overlaps" "$tmp/aabb.overlaps"
check ".overlaps has a line per query" test "$(wc -l < "$tmp/obb.overlaps")" -eq 5
check ".overlaps lines are count then increasing ids" awk '{ if ($1 != NF - 1) exit 1; for (i = 3; i <= NF; i++) if ($i <= $(i-1)) exit 1 }' "$tmp/obb.overlaps"
check "the bounding box query overlaps every triangle" test "$(sed -n 4p "$tmp/obb.overlaps" | cut -d' ' -f1)" -eq "$(awk '$1=="f"{t+=NF-3} END{print t}' "$mesh")"
check "a far sphere overlaps nothing" test "$(sed -n 5p "$tmp/obb.overlaps")" = "0"
printf 'sphere 1 2\n' > "$tmp/bad.queries"
"$pick" "$mesh" --queries "$tmp/bad.queries" 2> "$tmp/err.txt"; rc=$?
check "bad query file exits 1 with path:line" sh -c "test $rc -eq 1 && grep -q 'bad.queries:1' '$tmp/err.txt'"
printf '0 0 0 1 0 0 0\n1e6 0 0 1 0 0 0\n0.01 0 0 0.9238795 0 0.3826834 0\n' > "$tmp/in.xforms"
check "collide" "$pick" "$mesh" --collide "$mesh" --xforms "$tmp/in.xforms" --out "$tmp/collide.txt"
check "collide has a line per transform" test "$(wc -l < "$tmp/collide.txt")" -eq 3
check "a far copy intersects nothing" test "$(sed -n 2p "$tmp/collide.txt")" = "0"
check "an overlapping copy intersects" test "$(sed -n 1p "$tmp/collide.txt")" -gt 0
check "collide --any answers 0/1" sh -c "'$pick' '$mesh' --collide '$mesh' --xforms '$tmp/in.xforms' --any | tr '\n' ' ' | grep -qx '1 0 1 '"

# Screen pixels through the default camera (FORMATS.md's, framing the model).
check "the centre pixel hits the model" sh -c "'$pick' '$mesh' --pixel 512,512 --json | grep -q '\"triangle\"'"
check "a corner pixel misses" sh -c "test \$('$pick' '$mesh' --pixel 0,0 --json | wc -l) -eq 0"
"$pick" "$mesh" --pixel 1024,0 2> /dev/null; rc=$?
check "a pixel outside the image exits 2" test "$rc" -eq 2
check "an explicit camera looking at the model hits it" sh -c "'$pick' '$mesh' --size 64x48 --camera $cx,$cy,$((${maxz%.*} + 5)),$cx,$cy,$cz --pixel 32,24 --json | grep -q '\"triangle\"'"

echo "$passed passed, $failed failed"
test "$failed" -eq 0
