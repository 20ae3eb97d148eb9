#!/usr/bin/env bash
# mq-bench's command line: bad numbers, unknown options and inputs with nothing to
# measure are one error (exit 2) before any benchmark runs; unreadable meshes exit 1;
# every command's --help states every option's default; no NaN in a short run.
# Usage: test_mq_bench_args.sh PATH/TO/mq-bench MESH.obj
set -u
bench=$1
mesh=$2
. "$(dirname "$0")/check.sh"

# usage_error NAME ARGS...: exit 2, nothing on stdout, "mq-bench CMD: ..." and the --help hint.
usage_error() {
    local name=$1
    shift
    "$bench" "$@" > "$tmp/out.txt" 2> "$tmp/err.txt"
    local rc=$?
    check "$name: exit 2 (got $rc)" test "$rc" -eq 2
    check "$name: nothing measured" test ! -s "$tmp/out.txt"
    check "$name: one error line and the hint" sh -c "test \$(wc -l < '$tmp/err.txt') -eq 2 &&
        head -1 '$tmp/err.txt' | grep -q '^mq-bench $1: ' && tail -1 '$tmp/err.txt' | grep -qx \"Try 'mq-bench $1 --help'.\""
}
usage_error "--count -5" rays "$mesh" --count -5 --json
usage_error "--count abc" rays "$mesh" --count abc
usage_error "--count 0" rays "$mesh" --count 0
usage_error "--count 1.5" rays "$mesh" --count 1.5
usage_error "--threads -1" rays "$mesh" --threads -1
usage_error "--quality best" rays "$mesh" --quality best
usage_error "--generate sideways" rays "$mesh" --generate sideways
usage_error "--count with no value" rays "$mesh" --count
usage_error "unknown rays option" rays "$mesh" --bogus
usage_error "scene --instances 0" scene "$mesh" --instances 0
usage_error "scene --count x" scene "$mesh" --count x
usage_error "scene --seed -1" scene "$mesh" --seed -1
usage_error "overlap --generate 0" overlap "$mesh" --generate 0
usage_error "overlap --bullet-scale nan" overlap "$mesh" --bullet-scale nan
usage_error "overlap --shape cube" overlap "$mesh" --shape cube
usage_error "collide --reps x" collide "$mesh" --reps x
usage_error "collide --generate -3" collide "$mesh" --generate -3
usage_error "save --reps 0" save "$mesh" --reps 0
usage_error "distance --generate 0" distance "$mesh" --generate 0
usage_error "distance --shapes x" distance "$mesh" --shapes x
usage_error "clash --instances 1" clash "$mesh" --instances 1
usage_error "clash --clearance -1" clash "$mesh" --clearance -1
usage_error "clash --hierarchy kdop" clash "$mesh" --hierarchy kdop
usage_error "obj --reps 0" obj "$mesh" --reps 0
usage_error "unknown obj option" obj --bogus "$mesh"
usage_error "prims --iterations 0" prims --iterations 0
usage_error "--isa avx3" rays "$mesh" --isa avx3
usage_error "--isa with no value" scene "$mesh" --isa
usage_error "unknown prims option" prims --bogus

# --isa pins meshquery (and Embree): the JSON lines name the level meshquery ran at;
# a level this CPU lacks is a usage error, never a silent fallback.
"$bench" rays "$mesh" --isa scalar --count 2000 --reps 1 --json > "$tmp/isa.txt" 2>&1
check "--isa scalar: meshquery ran at scalar" grep -q '"engine":"meshquery",.*"isa":"scalar"' "$tmp/isa.txt"
if "$bench" rays "$mesh" --isa avx512 --count 2000 --reps 1 --json > "$tmp/isa.txt" 2> "$tmp/err.txt"; then
    check "--isa avx512: meshquery ran at avx512" grep -q '"engine":"meshquery",.*"isa":"avx512"' "$tmp/isa.txt"
else
    check "--isa avx512 on a CPU without it: says so" grep -q "runs meshquery at .* at most" "$tmp/err.txt"
fi

# Input files with nothing to measure.
: > "$tmp/empty.rays"
printf '# no rays here\n\n' > "$tmp/empty.txt"
usage_error "an empty .rays file" rays "$mesh" --rays "$tmp/empty.rays"
usage_error "a text rays file without rays" rays "$mesh" --rays "$tmp/empty.txt"
usage_error "a queries file without queries" overlap "$mesh" --queries "$tmp/empty.txt"
usage_error "an xforms file without transforms" collide "$mesh" --xforms "$tmp/empty.txt"
check "the empty file is named" grep -q "empty.txt: no transforms" "$tmp/err.txt"

# Meshes that do not load: exit 1, whatever the command.
printf 'hello world\n' > "$tmp/hello.obj"
for cmd in rays overlap collide distance clash save scene; do
    for m in "$tmp/missing.obj" "$tmp/hello.obj"; do
        "$bench" $cmd "$m" > /dev/null 2> "$tmp/err.txt"; rc=$?
        check "$cmd $(basename "$m"): exit 1 (got $rc)" test "$rc" -eq 1
        check "$cmd $(basename "$m"): names the file" grep -q "$(basename "$m")" "$tmp/err.txt"
    done
done
"$bench" obj "$tmp/missing.obj" > /dev/null 2>&1; rc=$?
check "obj missing.obj: exit 1 (got $rc)" test "$rc" -eq 1

# --help: every option with its default; the top level and --version.
for cmd in prims obj rays overlap collide distance clash save scene; do
    "$bench" $cmd --help > "$tmp/help.txt"; rc=$?
    check "$cmd --help exits 0" test "$rc" -eq 0
    check "$cmd --help: usage" grep -q "^usage: mq-bench $cmd" "$tmp/help.txt"
    # every option line (two spaces, --name) but --version/--help is followed by its default
    check "$cmd --help: every option has a default" awk '
        /^  --/ { if (want) bad = 1; want = ($1 != "--version") }
        /^        / && want { if ($0 !~ /; default: /) bad = 1; want = 0 }
        END { exit bad || want }' "$tmp/help.txt"
done
check "rays --help: --count default" grep -q "rays generated; default: 1048576" <("$bench" rays --help)
check "mq-bench --help exits 0" sh -c "'$bench' --help | grep -q '^usage: mq-bench COMMAND'"
"$bench" > /dev/null 2>&1; rc=$?
check "no command exits 2" test "$rc" -eq 2
usage_unknown() { "$bench" frobnicate 2>&1 >/dev/null | grep -q "unknown command 'frobnicate'"; }
check "unknown command is named" usage_unknown
check "--version" sh -c "'$bench' --version | grep -qx 'mq-bench [0-9][0-9.]*.*'"

# A short run with valid options: finite figures only.
printf '0 0.3 5 0 0 -1\n0 0.3 -5 0 0 1\n' > "$tmp/two.txt"
check "rays on a small text file" sh -c "'$bench' rays '$mesh' --rays '$tmp/two.txt' --reps 1 --no-embree --json > '$tmp/run.json'"
check "rays: throughput lines" grep -q '"metric":"throughput"' "$tmp/run.json"
check "rays: no NaN or inf" sh -c "! grep -qiE 'nan|inf' '$tmp/run.json'"

# Every JSON line names its subcommand and engine with the same keys
# (docs/formats.md, "Benchmark output"), whichever subcommand printed it.
check "overlap JSON" sh -c "'$bench' overlap '$mesh' --generate 20 --casts 5 --reps 1 --no-fcl --no-bullet --json > '$tmp/ov.json'"
check "overlap: every line has bench and engine" sh -c "test -s '$tmp/ov.json' && ! grep -vq '^{\"bench\":\"overlap\",\"engine\":\"[a-z-]*\",' '$tmp/ov.json'"
check "overlap --casts 0: overlaps only" sh -c "'$bench' overlap '$mesh' --generate 20 --casts 0 --reps 1 --no-fcl --no-bullet --json > '$tmp/ov0.json' &&
    grep -q '\"shape\":\"capsule\"' '$tmp/ov0.json' && ! grep -q '\"shape\":\"cast\"' '$tmp/ov0.json'"
check "collide JSON" sh -c "'$bench' collide '$mesh' --generate 5 --reps 1 --no-fcl --json > '$tmp/co.json'"
check "collide: every line has bench and engine" sh -c "test -s '$tmp/co.json' && ! grep -vq '^{\"bench\":\"collide\",\"engine\":\"[a-z-]*\",' '$tmp/co.json'"
check "distance JSON" sh -c "'$bench' distance '$mesh' --generate 5 --shapes 5 --reps 1 --json > '$tmp/di.json'"
check "distance: every line has bench and engine" sh -c "test -s '$tmp/di.json' && ! grep -vq '^{\"bench\":\"distance\",\"engine\":\"[a-z-]*\",' '$tmp/di.json'"
check "distance: no NaN or inf" sh -c "! grep -qiE 'nan|inf' '$tmp/di.json'"
check "clash JSON" sh -c "'$bench' clash '$mesh' '$mesh' --instances 20 --clearance 0.1 --reps 1 --json > '$tmp/cl.json'"
check "clash: every line has bench and engine" sh -c "test -s '$tmp/cl.json' && ! grep -vq '^{\"bench\":\"clash\",\"engine\":\"[a-z-]*\",' '$tmp/cl.json'"
check "clash: no pair only one engine finds" sh -c "! grep -qE '\"pairs_only_(meshquery|fcl)\",\"value\":[1-9]' '$tmp/cl.json'"

finish
