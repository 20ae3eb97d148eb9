#!/bin/bash
# Measures the figures of the README's table on this machine and stores the
# JSON lines mq-bench prints in docs/figures/<cpu>.jsonl (first line: the CPU;
# before each command's lines: {"command": ...}). Then draw the chart with
#   python3 docs/figures/plot.py
# Usage, from the repository root after building mq-bench with Embree, FCL and
# Bullet found:  bash docs/figures/run.sh [BUILD_DIR]   (default: build)
# The 2.5M-triangle runs take several minutes each; MQ_FIGURES_QUICK=1 skips them.
set -u
build=${1:-build}
bench="$build/mq-bench"
[ -x "$bench" ] || { echo "run.sh: $bench not found: build it first" >&2; exit 2; }
B=data/stanford-bunny.obj
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: *//; s/([^)]*)//g; s/ CPU\b//; s/ @.*//; s/  */ /g; s/ *$//')
name=$(echo "$cpu" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
out="docs/figures/$name.jsonl"
isa=$(grep -m1 -o -w 'avx512f\|avx2' /proc/cpuinfo | head -1)
printf '{"cpu":"%s","best_isa":"%s","cores":%s,"note":"ratios measured in one process; absolute numbers depend on the load"}\n' \
    "$cpu" "${isa:-sse2}" "$(nproc)" > "$out"
run() {
    echo "{\"command\":\"mq-bench $*\"}" >> "$out"
    echo "run.sh: mq-bench $*" >&2
    "$bench" "$@" --json >> "$out"
}
run rays $B --generate incoherent --threads 1
run rays $B --generate primary --threads 1
run rays $B --generate short --any --threads 1
run scene $B --instances 1000 --threads 1
run scene $B --instances 1000 --threads 1 --any
run overlap $B --generate 10000
run collide $B
run obj $B
if [ -z "${MQ_FIGURES_QUICK:-}" ]; then
    run rays $B --generate incoherent --threads 1 --subdivide 6
    run save $B --subdivide 6
    run scene $B --instances 100000 --threads 1
    run overlap $B --subdivide 6 --generate 10000
    run collide $B --subdivide 6
fi
echo "run.sh: wrote $out" >&2
