#!/usr/bin/env bash
# End-to-end checks of mq-pick's command-line contract (docs/formats.md):
# exit codes, output formats and record sizes, and that the binary and text
# answers agree. Usage: test_mq_pick.sh PATH/TO/mq-pick MESH.obj
set -u
pick=$1
mesh=$2
. "$(dirname "$0")/check.sh"

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
# Every ray is one JSON line; every hit in .hits (id != 0xFFFFFFFF) is one without "hit":false,
# and the occluded count matches.
nhit=$(od -An -v -t u4 -w8 "$tmp/out.hits" | awk '$2 != 4294967295 {n++} END {print n + 0}')
check "one JSON line per ray" test "$(wc -l < "$tmp/out.json")" -eq "$nrays"
njson=$(grep -vc '"hit":false' "$tmp/out.json")
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

# Screen pixels through the default camera (docs/formats.md's, framing the model).
check "the centre pixel hits the model" sh -c "'$pick' '$mesh' --pixel 512,512 --json | grep -q '\"triangle\"'"
check "a corner pixel misses" sh -c "'$pick' '$mesh' --pixel 0,0 --json | grep -qx '{\"ray\":0,\"rank\":0,\"file\":\"$mesh\",\"hit\":false}'"
"$pick" "$mesh" --pixel 1024,0 2> /dev/null; rc=$?
check "a pixel outside the image exits 2" test "$rc" -eq 2
check "an explicit camera looking at the model hits it" sh -c "'$pick' '$mesh' --size 64x48 --camera $cx,$cy,$((${maxz%.*} + 5)),$cx,$cy,$cz --pixel 32,24 --json | grep -q '\"triangle\"'"

# Several meshes and placements (a scene): answers name the instance and its file.
ntri=$(awk '$1=="f"{t+=NF-3} END{print t}' "$mesh")
cp "$mesh" "$tmp/copy.obj"
json_field() { # json_field FILE KEY: KEY of the first JSON line
    python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())[sys.argv[2]])' "$1" "$2"
}
ray0="$cx,$cy,$((${maxz%.*} + 5)),0,0,-1"
"$pick" "$mesh" --ray "$ray0" --json > "$tmp/single.json"
face0=$(json_field "$tmp/single.json" face); px0=$(json_field "$tmp/single.json" point | tr -d '[] ' | cut -d, -f1)
ray10=$(awk -v x="$cx" 'BEGIN{print x + 10}'),$cy,$((${maxz%.*} + 5)),0,0,-1
check "two meshes, the second placed" sh -c "'$pick' '$mesh' '$tmp/copy.obj' --place 10,0,0 --ray $ray10 --json > '$tmp/scene.json'"
check "the placed copy is hit (JSON parses)" test "$(json_field "$tmp/scene.json" instance)" = 1
check "JSON names the placed copy's file" test "$(json_field "$tmp/scene.json" file)" = "$tmp/copy.obj"
check "the placed copy is hit on the same face" test "$(json_field "$tmp/scene.json" face)" = "$face0"
check "the hit point is translated by 10" python3 -c "import json,sys; p=json.loads(open('$tmp/scene.json').readline())['point'][0]; sys.exit(abs(p - 10 - $px0) > 1e-4)"
check ".hits ids of the second mesh follow the first's triangles" sh -c "'$pick' '$mesh' '$mesh' --place 10,0,0 --ray $ray10 --out '$tmp/scene.hits' && test \$(od -An -t u4 -j4 -N4 '$tmp/scene.hits') -eq $((ntri + face0))"
mx=$(awk -v x="$cx" 'BEGIN{print -x}')
check "a mirrored placement (scale -1,1,1)" sh -c "'$pick' '$mesh' --place 0,0,0,1,0,0,0,-1,1,1 --ray $mx,$cy,$((${maxz%.*} + 5)),0,0,-1 --json > '$tmp/mirror.json'"
check "the mirror hits the same face at the mirrored point" python3 -c "import json,sys; h=json.loads(open('$tmp/mirror.json').readline()); sys.exit(h['face'] != $face0 or abs(h['point'][0] + $px0) > 1e-4)"
sx=$(awk -v x="$cx" 'BEGIN{print 2 * x}'); sy=$(awk -v y="$cy" 'BEGIN{print 2 * y}')
check "a scaled and rotated placement (scale 2, a turn about z)" sh -c "'$pick' '$mesh' --place 0,0,0,0,0,0,1,2 --ray $(awk -v x="$sx" 'BEGIN{print -x}'),$(awk -v y="$sy" 'BEGIN{print -y}'),$((2 * ${maxz%.*} + 10)),0,0,-1 --json > '$tmp/scaled.json'"
check "the scaled copy hits the same face at minus twice the point" python3 -c "import json,sys; h=json.loads(open('$tmp/scaled.json').readline()); sys.exit(h['face'] != $face0 or abs(h['point'][0] + 2 * $px0) > 1e-4)"

# Saved hierarchies: --save, then the saved file answers as the OBJ did.
check "--save writes a hierarchy" "$pick" "$mesh" --save "$tmp/mesh.mqh"
"$pick" "$mesh" --rays "$tmp/in.txt" --all --json > "$tmp/obj.json"
"$pick" "$tmp/mesh.mqh" --rays "$tmp/in.txt" --all --json | sed "s|\"file\":\"$tmp/mesh.mqh\"|\"file\":\"$mesh\"|" > "$tmp/saved.json"
check "the saved file gives the same JSON but the file name" cmp -s "$tmp/obj.json" "$tmp/saved.json"
check "the saved file's JSON names it" sh -c "'$pick' '$tmp/mesh.mqh' --ray $ray0 --json | grep -q '\"file\":\"$tmp/mesh.mqh\"'"
head -c 1000 "$tmp/mesh.mqh" > "$tmp/cut.mqh"
"$pick" "$tmp/cut.mqh" --ray "$ray0" 2> "$tmp/err.txt"; rc=$?
check "a corrupt saved file exits 1 naming the file" sh -c "test $rc -eq 1 && grep -q 'cut.mqh: cannot load the saved hierarchy' '$tmp/err.txt'"

# Shapes on the command line answer as the same lines of a .queries file.
head -5 "$tmp/in.queries" > "$tmp/four.queries"
"$pick" "$mesh" --queries "$tmp/four.queries" > "$tmp/four.overlaps"
shape_args="--sphere $cx,$cy,$maxz,0.05 --capsule $minx,$cy,$cz,$maxx,$cy,$cz,0.01 --box $cx,$cy,$cz,0.3,0.02,0.3,0.9238795,0,0.3826834,0 --aabb $minx,$miny,$minz,$maxx,$maxy,$maxz"
check "--sphere/--capsule/--box/--aabb answer as --queries" sh -c "'$pick' '$mesh' $shape_args | cmp -s - '$tmp/four.overlaps'"
check "... in a scene with a far second copy too" sh -c "'$pick' '$mesh' '$mesh' --place 1000,0,0 $shape_args --hierarchy aabb | cmp -s - '$tmp/four.overlaps'"
check "shape answers as JSON name face, line and file" sh -c "'$pick' '$mesh' $shape_args --json | python3 -c 'import json,sys; r=[json.loads(l) for l in sys.stdin]; sys.exit(len(r) != 4 or r[3][\"count\"] != $ntri or len(r[3][\"overlaps\"]) != $ntri or \"line\" not in r[3][\"overlaps\"][0])'"
"$pick" "$mesh" --sphere 1,2,3 2> "$tmp/err.txt"; rc=$?
check "a bad --sphere exits 2 naming it" sh -c "test $rc -eq 2 && grep -q -- '--sphere.*1,2,3' '$tmp/err.txt'"
"$pick" "$mesh" --place 1,2 --ray "$ray0" 2> "$tmp/err.txt"; rc=$?
check "a bad --place exits 2 naming it" sh -c "test $rc -eq 2 && grep -q -- '--place.*1,2' '$tmp/err.txt'"

# The nearest point: from a vertex of the mesh it is the vertex itself.
read -r vx vy vz < <(awk '$1=="v"{print $2, $3, $4; exit}' "$mesh")
check "--closest on a vertex finds it at distance 0" sh -c "'$pick' '$mesh' --closest $vx,$vy,$vz --json | python3 -c 'import json,sys; h=json.loads(sys.stdin.readline()); sys.exit(not h[\"found\"] or h[\"distance\"] > 1e-6 or abs(h[\"point\"][0] - $vx) > 1e-6)'"
check "--closest with a max distance finds nothing far away" sh -c "'$pick' '$mesh' --closest 1000,0,0,1 --json | grep -q '\"found\":false'"
check "--closest in a scene finds the placed copy" sh -c "'$pick' '$mesh' '$mesh' --place 10,0,0 --closest $(awk -v x="$vx" 'BEGIN{print x + 10}'),$vy,$vz --json | python3 -c 'import json,sys; h=json.loads(sys.stdin.readline()); sys.exit(h[\"instance\"] != 1 or h[\"distance\"] > 1e-5)'"

# Progress bar: never when standard error is not a terminal; on one when `script` can fake it.
awk -v a="$minx" -v b="$miny" -v c="$minz" -v d="$maxx" -v e="$maxy" 'BEGIN{ srand(9)
    for (i = 0; i < 120000; i++) print a + (d - a) * rand(), b + (e - b) * rand(), c - 1, 0, 0, 1 }' > "$tmp/many.txt"
"$pick" "$mesh" --rays "$tmp/many.txt" --out "$tmp/many.hits" 2> "$tmp/err.txt"
check "no progress bar when stderr is not a terminal" test ! -s "$tmp/err.txt"
if command -v script > /dev/null && script -qc true /dev/null > /dev/null 2>&1; then
    script -qc "'$pick' '$mesh' --rays '$tmp/many.txt' --out '$tmp/many2.hits'" /dev/null > "$tmp/tty.txt" 2>&1
    check "a progress bar on a terminal" grep -q "tracing" "$tmp/tty.txt"
    check "the progress bar does not change the answers" cmp -s "$tmp/many.hits" "$tmp/many2.hits"
fi

# Every example of --help works as written from the repository root.
root=$(cd "$(dirname "$mesh")/.." && pwd)
if test -f "$root/data/suzanne.obj"; then
    sed -n '/^examples/,/^$/p' "$tmp/help.txt" | grep '^  [a-z]' | sed 's/^  //' > "$tmp/examples.txt"
    check "help has examples" test -s "$tmp/examples.txt"
    while IFS= read -r example; do
        printf '%s\n' "$example" | sed 's|mq-pick |"$P" |g' > "$tmp/example.sh"
        check "help example: $example" sh -c "cd '$root' && P='$pick' bash '$tmp/example.sh' > /dev/null"
    done < "$tmp/examples.txt"
fi

finish
