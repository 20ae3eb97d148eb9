#!/usr/bin/env bash
# mq-pick --hierarchy aabb|obb|kdop|sphere: every form of the contract
# (docs/formats.md) gives the same answers on every tree: .queries to
# .overlaps, option shapes, --closest, --collide (counts, --any, --pairs), and
# a saved hierarchy as the mesh. Usage: test_mq_pick_hierarchy.sh PATH/TO/mq-pick MESH.obj OTHER.obj
set -u
pick=$1
mesh=$2
other=$3
. "$(dirname "$0")/check.sh"

# Shapes of every kind around the mesh's bounds (spot: about -0.7..0.7, 0..1.6, -0.5..1.1 at most).
awk 'BEGIN {
    srand(25);
    for (i = 0; i < 150; i++) {
        x = rand() * 1.6 - 0.8; y = rand() * 1.8 - 0.1; z = rand() * 1.8 - 0.7; s = 0.01 + rand() * 0.2;
        k = i % 4;
        if (k == 0) printf "sphere %.6f %.6f %.6f %.6f\n", x, y, z, s;
        if (k == 1) printf "capsule %.6f %.6f %.6f %.6f %.6f %.6f %.6f\n", x, y, z, x + s, y - s, z + 2 * s, s / 3;
        if (k == 2) { w = rand(); a = rand(); b = rand(); c = rand();
                      printf "obb %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f\n", x, y, z, s, s / 2, s * 1.5, w, a, b, c; }
        if (k == 3) printf "aabb %.6f %.6f %.6f %.6f %.6f %.6f\n", x, y, z, x + s, y + s / 2, z + s * 2;
    }
}' > "$tmp/in.queries"
awk 'BEGIN {
    srand(26);
    printf "0 0 0 1 0 0 0\n";
    for (i = 0; i < 12; i++) {
        w = rand() - 0.5; a = rand() - 0.5; b = rand() - 0.5; c = rand() - 0.5;
        printf "%.5f %.5f %.5f %.5f %.5f %.5f %.5f\n", rand() - 0.5, rand() * 1.5 - 0.2, rand() - 0.5, w, a, b, c;
    }
}' > "$tmp/in.xforms"

for h in aabb obb kdop sphere; do
    "$pick" "$mesh" --queries "$tmp/in.queries" --hierarchy "$h" --out "$tmp/$h.overlaps" 2> "$tmp/err.txt"
    check "$h: queries exit 0" test $? -eq 0
    "$pick" "$mesh" --sphere 0,0.5,0.4,0.15 --capsule 0,0.2,0,0.3,0.9,0.2,0.05 --box 0.1,0.6,0.2,0.2,0.1,0.3,0.9,0.1,0.3,0.2 \
        --aabb -0.2,0.3,-0.1,0.2,0.7,0.3 --hierarchy "$h" --out "$tmp/$h.opt.overlaps" 2> /dev/null
    check "$h: option shapes exit 0" test $? -eq 0
    "$pick" "$mesh" --closest 0,0.5,2 --closest 0.1,0.4,0.3,0.05 --closest 3,3,3,0.5 --closest 0.2,0.8,0.1 \
        --hierarchy "$h" --json > "$tmp/$h.closest" 2> /dev/null
    check "$h: closest exit 0" test $? -eq 0
    "$pick" "$mesh" --collide "$other" --xforms "$tmp/in.xforms" --hierarchy "$h" --out "$tmp/$h.collide" 2> /dev/null
    check "$h: collide exit 0" test $? -eq 0
    "$pick" "$mesh" --collide "$mesh" --xforms "$tmp/in.xforms" --hierarchy "$h" --pairs --out "$tmp/$h.self" 2> /dev/null
    check "$h: self collide --pairs exit 0" test $? -eq 0
    "$pick" "$mesh" --collide "$other" --xforms "$tmp/in.xforms" --hierarchy "$h" --any --out "$tmp/$h.any" 2> /dev/null
    check "$h: collide --any exit 0" test $? -eq 0
done
check "the queries overlap something" sh -c "awk '\$1 > 0' '$tmp/obb.overlaps' | grep -q ."
check "some transform collides" sh -c "awk '\$1 > 0' '$tmp/obb.collide' | grep -q ."
for h in aabb kdop sphere; do
    for f in overlaps opt.overlaps closest collide self any; do
        check "$h: $f equal to obb" cmp -s "$tmp/obb.$f" "$tmp/$h.$f"
    done
done
# Convex hulls: .queries "convex FILE ..." lines and --convex HULL.obj [--place P] on
# every tree, the same answers as obb (each tree's own convex walk, no fallback).
awk 'BEGIN { srand(27); for (i = 0; i < 24; i++) printf "v %.5f %.5f %.5f\n", rand() * 0.4 - 0.2, rand() * 0.5 - 0.25, rand() * 0.3 - 0.15 }' \
    > "$tmp/hull.obj"
awk -v f="$tmp/hull.obj" 'BEGIN {
    srand(28);
    for (i = 0; i < 60; i++) {
        w = rand() - 0.5; a = rand() - 0.5; b = rand() - 0.5; c = rand() - 0.5;
        printf "convex %s %.5f %.5f %.5f %.5f %.5f %.5f %.5f\n", f, rand() * 1.6 - 0.8, rand() * 1.8 - 0.1, rand() * 1.8 - 0.7, w, a, b, c;
    }
}' > "$tmp/convex.queries"
for h in aabb obb kdop sphere; do
    "$pick" "$mesh" --queries "$tmp/convex.queries" --hierarchy "$h" --out "$tmp/$h.convex" 2> /dev/null
    check "$h: convex queries exit 0" test $? -eq 0
    "$pick" "$mesh" --convex "$tmp/hull.obj" --place 0.3,0.3,0 --convex "$tmp/hull.obj" --place 0,0.6,-0.3 --hierarchy "$h" \
        --out "$tmp/$h.convex.opt" 2> /dev/null
    check "$h: --convex exit 0" test $? -eq 0
done
check "the convex queries overlap something" sh -c "awk '\$1 > 0' '$tmp/obb.convex' | grep -q ."
check "--convex overlaps something" sh -c "awk '\$1 > 0' '$tmp/obb.convex.opt' | grep -q ."
for h in aabb kdop sphere; do
    check "$h: convex queries equal to obb" cmp -s "$tmp/obb.convex" "$tmp/$h.convex"
    check "$h: --convex equal to obb" cmp -s "$tmp/obb.convex.opt" "$tmp/$h.convex.opt"
done
# A saved hierarchy as the mesh: kdop and sphere build over its mesh, same answers.
"$pick" "$mesh" --save "$tmp/m.mqh" > /dev/null 2>&1
for h in kdop sphere; do
    "$pick" "$tmp/m.mqh" --queries "$tmp/in.queries" --hierarchy "$h" --out "$tmp/$h.saved.overlaps" 2> /dev/null
    check "$h on a saved hierarchy: same overlaps" cmp -s "$tmp/obb.overlaps" "$tmp/$h.saved.overlaps"
done
"$pick" "$mesh" --sphere 0,0,0,1 --hierarchy kdop26 > /dev/null 2> "$tmp/err.txt"
check "an unknown hierarchy: exit 2" test $? -eq 2
check "an unknown hierarchy: says which exist" grep -q "aabb, obb, kdop or sphere" "$tmp/err.txt"
finish
