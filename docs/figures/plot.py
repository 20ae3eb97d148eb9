#!/usr/bin/env python3
"""Draws docs/figures/ratios.svg from every docs/figures/*.jsonl.

Each .jsonl file holds the JSON lines `mq-bench ... --json` printed on one CPU,
after a first line {"cpu": "...", ...} naming it and, before each command's
lines, a line {"command": "..."}. The chart shows, for each figure of the
README's table, meshquery's speed over the reference library's measured in the
same run (above 1: meshquery is faster), one bar per CPU, on a log scale.

Standard library only:  python3 docs/figures/plot.py [OUT.svg]
"""
import glob
import json
import math
import os
import sys
from xml.sax.saxutils import escape

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    """Returns (cpu name, list of measurement dicts) of one .jsonl file."""
    cpu = os.path.splitext(os.path.basename(path))[0]
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            rec = json.loads(line)
            if "cpu" in rec and "bench" not in rec:
                cpu = rec["cpu"]
            elif "bench" in rec:
                if rec.get("subdivide") == 0:
                    rec["subdivide"] = 1  # rays says 0 for "not subdivided", overlap and collide 1
                rows.append(rec)
    return cpu, rows


def median(values):
    values = sorted(values)
    n = len(values)
    if not n:
        return None
    return values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] + values[n // 2])


def pick(rows, **want):
    """The median value of the rows whose keys match `want` (a command may have run several times)."""
    return median([r["value"] for r in rows if "value" in r and all(r.get(k) == v for k, v in want.items())])


def engine(r):
    return r.get("engine")


def min_speedup(rows, prefix, **want):
    """The smallest `prefix*` metric: meshquery against the fastest reference."""
    per_metric = {}
    for r in rows:
        if r.get("metric", "").startswith(prefix) and all(r.get(k) == v for k, v in want.items()):
            per_metric.setdefault(r["metric"], []).append(r["value"])
    vals = [median(v) for v in per_metric.values()]
    return min(vals) if vals else None


def rays(input_, query, subdivide, metric="ratio_vs_embree"):
    def f(rows):
        return pick(rows, bench="rays", input=input_, query=query, subdivide=subdivide, threads=1, metric=metric)
    return f


def rays_build(rows):
    v = pick(rows, bench="rays", input="incoherent", query="closest", subdivide=1, metric="build_ratio_vs_embree")
    return 1.0 / v if v else None


def scene(instances, query):
    def f(rows):
        return pick(rows, bench="scene", instances=instances, query=query, transforms="rigid", threads=1,
                    metric="ratio_vs_embree")
    return f


def overlap(shape, subdivide):
    def f(rows):
        return min_speedup(rows, "speedup_vs_", bench="overlap", shape=shape, subdivide=subdivide)
    return f


def casts(rows):
    ours = [pick(rows, bench="overlap", shape="cast", subdivide=1, metric="throughput", engine=name)
            for name in ("meshquery-bvh", "meshquery-obb")]
    ours = [v for v in ours if v]
    ref = pick(rows, bench="overlap", shape="cast", subdivide=1, metric="throughput", engine="bullet")
    return max(ours) / ref if ours and ref else None


def collide(mode, subdivide):
    def f(rows):
        return min_speedup(rows, "speedup_vs_", bench="collide", mode=mode, subdivide=subdivide)
    return f


def obbtree_build(rows):
    return min_speedup(rows, "build_speedup_vs_", bench="overlap", shape="-", subdivide=1)


def obj_load(rows):
    def best(name):
        return median([r["value"] for r in rows if r.get("bench") == "obj" and r.get("metric") == "load_mb_per_s"
                       and engine(r) == name and r.get("threads") == 1])
    ours = best("meshquery")
    refs = [v for v in (best("tinyobjloader"), best("assimp")) if v]
    return ours / max(refs) if ours and refs else None


# (label, how to get the ratio from one CPU's rows), in the README table's order.
FIGURES = [
    ("incoherent rays, bunny (Embree rtcIntersect1)", rays("incoherent", "closest", 1)),
    ("incoherent rays, 2.5M triangles", rays("incoherent", "closest", 6)),
    ("camera rays (rtcIntersect1)", rays("primary", "closest", 1)),
    ("camera rays (rtcIntersect16)", rays("primary", "closest", 1, "ratio_vs_embree_packet16")),
    ("short any-hit segments (rtcOccluded1)", rays("short", "any", 1)),
    ("BVH build (Embree's time / ours)", rays_build),
    ("1,000 instances, closest (Embree instancing)", scene(1000, "closest")),
    ("1,000 instances, any hit", scene(1000, "any")),
    ("100,000 instances, closest", scene(100000, "closest")),
    ("sphere overlaps (fastest of FCL, Bullet)", overlap("sphere", 1)),
    ("capsule overlaps", overlap("capsule", 1)),
    ("OBB overlaps", overlap("obb", 1)),
    ("AABB overlaps", overlap("aabb", 1)),
    ("sphere overlaps, 2.5M triangles", overlap("sphere", 6)),
    ("sphere casts (Bullet convexSweepTest)", casts),
    ("mesh vs mesh, all pairs (FCL)", collide("all-pairs", 1)),
    ("mesh vs mesh, yes/no (FCL)", collide("yes-no", 1)),
    ("mesh vs mesh, all pairs, 2.5M triangles", collide("all-pairs", 6)),
    ("OBB-tree build (FCL's time / ours)", obbtree_build),
    ("OBJ load, 1 thread (tinyobjloader, assimp)", obj_load),
]

COLOURS = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2"]


def svg(cpus):
    """cpus: list of (name, {label: ratio}). Returns the SVG text."""
    labels = [l for l, _ in FIGURES if any(l in r for _, r in cpus)]
    values = [v for _, r in cpus for v in r.values()]
    lo = 2.0 ** math.floor(math.log2(min(values + [0.5])))
    hi = 2.0 ** math.ceil(math.log2(max(values + [2.0])))
    left, width, bar, gap, top = 330, 460, 12, 8, 40
    group = bar * len(cpus) + gap
    height = top + group * len(labels) + 30 + 18 * len(cpus)

    def x(v):
        return left + width * (math.log2(v) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="11">' % (left + width + 60, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="16" font-size="13" font-weight="bold">meshquery speed / reference library speed '
           '(same process, single thread; log scale; &gt; 1: meshquery faster)</text>' % 10]
    t = lo
    while t <= hi * 1.0001:
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>'
                   % (x(t), top - 6, x(t), top + group * len(labels), "#333" if t == 1 else "#ddd"))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%g×</text>' % (x(t), top - 10, t))
        t *= 2
    for i, label in enumerate(labels):
        y0 = top + i * group
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                   % (left - 8, y0 + group / 2 + 1, escape(label)))
        for k, (_, ratios) in enumerate(cpus):
            v = ratios.get(label)
            if v is None:
                continue
            y = y0 + k * bar
            x0, x1 = x(min(v, 1.0)), x(max(v, 1.0))
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>'
                       % (x0, y, max(x1 - x0, 1.0), bar - 2, COLOURS[k % len(COLOURS)]))
            out.append('<text x="%.1f" y="%d" fill="#222" font-size="10">%.2f</text>' % (x1 + 3, y + bar - 3, v))
    y = top + group * len(labels) + 20
    for k, (name, _) in enumerate(cpus):
        out.append('<rect x="%d" y="%d" width="12" height="10" fill="%s"/>' % (left, y - 9, COLOURS[k % len(COLOURS)]))
        out.append('<text x="%d" y="%d">%s</text>' % (left + 18, y, escape(name)))
        y += 18
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "ratios.svg")
    cpus = []
    for path in sorted(glob.glob(os.path.join(HERE, "*.jsonl"))):
        name, rows = load(path)
        ratios = {}
        for label, get in FIGURES:
            v = get(rows)
            if v is not None and v > 0:
                ratios[label] = v
        if ratios:
            cpus.append((name, ratios))
    if not cpus:
        sys.exit("plot.py: no figures in %s/*.jsonl" % HERE)
    with open(out, "w", encoding="utf-8") as f:
        f.write(svg(cpus))
    for name, ratios in cpus:
        print(name)
        for label, _ in FIGURES:
            if label in ratios:
                print("  %-48s %6.2fx" % (label, ratios[label]))


if __name__ == "__main__":
    main()
