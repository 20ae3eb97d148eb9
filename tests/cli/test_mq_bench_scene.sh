#!/usr/bin/env bash
# End-to-end checks of `mq-bench scene` (docs/formats.md, "Benchmark
# output"): the contract form with --json prints one JSON object per line
# with the shared keys, meshquery's throughput on 1 and N threads (and the
# ratios and the commit ratio to Embree where it is built in), closest
# and --any (query "any"); bad arguments exit 2, a missing mesh exits 1 and
# names it. Usage: test_mq_bench_scene.sh PATH/TO/mq-bench MESH.obj
set -u
bench=$1
mesh=$2
. "$(dirname "$0")/check.sh"
# json_lines FILE: every line one flat JSON object with the shared keys.
json_lines() {
    test -s "$1" || return 1
    local key='"bench":"scene","engine":"[a-z0-9-]+","mesh":"[^"]+","instances":[0-9]+,"transforms":"[a-z+]+"'
    local rest=',"input":"incoherent","query":"(closest|any)","threads":[0-9]+,"isa":"[a-z0-9]+","metric":"[a-z_]+","value":[-0-9.e+]+,"unit":"[^"]*"'
    ! grep -Evq "^\{$key$rest\}$" "$1"
}

for q in "" "--any"; do
    name=${q#--}
    name=${name:-closest}
    "$bench" scene "$mesh" --instances 12 --count 400 --reps 1 --threads 2 $q --json > "$tmp/$name.json" 2> "$tmp/err.txt"
    rc=$?
    check "$name: exits 0 (got $rc)" test "$rc" -eq 0
    check "$name: JSON lines" json_lines "$tmp/$name.json"
    check "$name: query named" grep -q "\"query\":\"$name\"" "$tmp/$name.json"
    for t in 1 2; do
        check "$name: meshquery throughput on $t thread(s)" \
            grep -Eq "\"engine\":\"meshquery\".*\"threads\":$t,\"isa\":\"[a-z0-9]+\",\"metric\":\"throughput\",\"value\":[0-9]" "$tmp/$name.json"
    done
    if grep -q '"engine":"embree"' "$tmp/$name.json"; then
        check "$name: ratio to Embree" grep -q '"metric":"ratio_vs_embree"' "$tmp/$name.json"
        check "$name: commit ratio to Embree" grep -q '"metric":"build_ratio_vs_embree"' "$tmp/$name.json"
    fi
done
check "scaled instances" sh -c "'$bench' scene '$mesh' --instances 5 --count 100 --reps 1 --threads 1 --scale --json \
    | grep -q '\"transforms\":\"rigid+scale\"'"

"$bench" scene "$mesh" --instances 0 > /dev/null 2>&1; rc=$?
check "no instances exits 2 (got $rc)" test "$rc" -eq 2
"$bench" scene "$mesh" --instances 3 --bogus 1 > /dev/null 2>&1; rc=$?
check "unknown argument exits 2 (got $rc)" test "$rc" -eq 2
"$bench" scene "$tmp/missing.obj" --instances 3 > /dev/null 2> "$tmp/err.txt"; rc=$?
check "missing mesh exits 1 (got $rc)" test "$rc" -eq 1
check "missing mesh is named" grep -q "missing.obj" "$tmp/err.txt"

finish
