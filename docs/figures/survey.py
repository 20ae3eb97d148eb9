#!/usr/bin/env python3
"""Draws docs/figures/survey.svg and prints the tables of docs/survey.md.

Input: every docs/figures/survey-data/*.jsonl, each the JSON lines of one
`mq-bench survey MESH.obj [--subdivide K] --json` run (a first line
{"cpu": "..."} may name the machine). The chart shows, per query kind, the
throughput of every hierarchy on a log scale, one panel per input mesh; the
tables (markdown, to standard output) hold every figure per hierarchy.

Standard library only:  python3 docs/figures/survey.py [OUT.svg] > tables.md
"""
import glob
import json
import math
import os
import sys
from xml.sax.saxutils import escape

HERE = os.path.dirname(os.path.abspath(__file__))
QUERIES = ["ray_closest", "ray_any", "sphere", "capsule", "obb", "aabb", "point", "collide_all", "collide_any"]
ENGINES = ["bvh", "obb", "kdop6", "kdop14", "kdop18", "kdop26", "sphere",
           "fcl-obb", "fcl-obbrss", "fcl-kdop18", "fcl-kios"]
COLOURS = {"bvh": "#1f77b4", "obb": "#ff7f0e", "kdop6": "#9edae5", "kdop14": "#17becf", "kdop18": "#2ca02c",
           "kdop26": "#98df8a", "sphere": "#d62728", "fcl-obb": "#7f7f7f", "fcl-obbrss": "#c7c7c7",
           "fcl-kdop18": "#8c564b", "fcl-kios": "#e377c2"}


def load(path):
    """(title, {engine: {metric: value}}, agree {engine: [metric...]}) of one run."""
    figures, disagree, title = {}, {}, os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            d = json.loads(line)
            if d.get("bench") != "survey":
                continue
            title = "%s, %s triangles" % (d["mesh"], format(d["triangles"], ","))
            e, m = d["engine"], d["metric"]
            if m == "agrees_with_obb":
                if d["value"] != 1:
                    disagree.setdefault(e, []).append(d["unit"])
            elif m == "answers_per_query":
                figures.setdefault(e, {})["answers_" + d["unit"]] = d["value"]
            else:
                figures.setdefault(e, {})[m] = d["value"]
    return title, figures, disagree


def fmt(v, digits=3):
    if v is None:
        return "—"
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return format(round(v), ",")
    return "%.*g" % (digits, v)


def tables(runs):
    out = []
    for title, fig, dis in runs:
        engines = [e for e in ENGINES if e in fig]
        out.append("### %s\n" % title)
        out.append("| hierarchy | build ms | bytes/tri | leaf volume | leaf area | all-node volume |")
        out.append("|---|---:|---:|---:|---:|---:|")
        for e in engines:
            f = fig[e]
            leaf_v = f.get("leaf_volume", f.get("fcl_leaf_volume"))
            out.append("| %s | %s | %s | %s | %s | %s |" % (e, fmt(f.get("build_ms")), fmt(f.get("bytes_per_triangle")),
                                                            fmt(leaf_v, 4), fmt(f.get("leaf_area"), 4),
                                                            fmt(f.get("total_volume"), 4)))
        out.append("")
        out.append("Throughput, thousands of queries per second (— : not offered):\n")
        out.append("| hierarchy | " + " | ".join(QUERIES) + " |")
        out.append("|---|" + "---:|" * len(QUERIES))
        for e in engines:
            out.append("| %s | %s |" % (e, " | ".join(fmt(fig[e].get(q)) for q in QUERIES)))
        best = []
        for q in QUERIES:
            cand = [(fig[e][q], e) for e in engines if q in fig[e]]
            if cand:
                best.append("%s: **%s**" % (q, max(cand)[1]))
        out.append("\nFastest per query: " + ", ".join(best) + ".")
        if dis:
            out.append("\nDisagreeing with the OBB tree: " + "; ".join("%s (%s)" % (e, ", ".join(v)) for e, v in dis.items()))
        else:
            out.append("\nEvery meshquery hierarchy gave the OBB tree's answers on every query kind.")
        out.append("")
    return "\n".join(out)


def svg(runs, path):
    W, panel_h, left, top = 1100, 330, 70, 40
    H = top + panel_h * len(runs) + 60
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
             'font-size="11">' % (W, H), '<rect width="100%" height="100%" fill="white"/>',
             '<text x="%d" y="22" font-size="15">Queries per second by bounding volume (log scale; higher is '
             'faster)</text>' % left]
    for pi, (title, fig, _) in enumerate(runs):
        y0 = top + pi * panel_h + 20
        ph = panel_h - 90
        engines = [e for e in ENGINES if e in fig]
        vals = [fig[e][q] * 1e3 for e in engines for q in QUERIES if q in fig[e] and fig[e][q] > 0]
        if not vals:
            continue
        lo = 10 ** math.floor(math.log10(min(vals)))
        hi = 10 ** math.ceil(math.log10(max(vals)))
        span = math.log10(hi) - math.log10(lo)
        parts.append('<text x="%d" y="%d" font-size="13">%s</text>' % (left, y0 - 4, escape(title)))
        for k in range(int(round(span)) + 1):
            v = lo * 10 ** k
            y = y0 + ph - ph * k / span
            parts.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, W - 20, y, y))
            parts.append('<text x="%d" y="%.1f" text-anchor="end">%s/s</text>' % (left - 4, y + 4, fmt(v)))
        gw = (W - 20 - left) / len(QUERIES)
        bw = gw * 0.85 / len(engines)
        for qi, q in enumerate(QUERIES):
            x0 = left + qi * gw + gw * 0.075
            for ei, e in enumerate(engines):
                v = fig[e].get(q)
                if not v or v <= 0:
                    continue
                h = ph * (math.log10(v * 1e3) - math.log10(lo)) / span
                parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s/s'
                             '</title></rect>' % (x0 + ei * bw, y0 + ph - h, bw * 0.92, h, COLOURS[e], e, q,
                                                  fmt(v * 1e3)))
            parts.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (left + qi * gw + gw / 2,
                                                                                y0 + ph + 14, q))
        lx = left
        for e in engines:
            parts.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>' % (lx, y0 + ph + 26, COLOURS[e]))
            parts.append('<text x="%d" y="%d">%s</text>' % (lx + 13, y0 + ph + 35, e))
            lx += 14 + 7 * len(e) + 14
    parts.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(parts) + "\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "survey.svg")
    runs = [load(p) for p in sorted(glob.glob(os.path.join(HERE, "survey-data", "*.jsonl")))]
    runs = [r for r in runs if r[1]]
    if not runs:
        sys.exit("no survey data in %s" % os.path.join(HERE, "survey-data"))
    svg(runs, out)
    print(tables(runs))


if __name__ == "__main__":
    main()
