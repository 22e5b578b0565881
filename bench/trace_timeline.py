"""Draws a Tessel runtime trace (TESSEL_TRACE, Chrome trace event format) as
a PNG timeline, for a machine without a browser: one row per thread with its
spans ("X" events) coloured by category, and one row per async track
(streams, scheduler requests; "b"/"e" pairs, stacked when they overlap).
Perfetto (ui.perfetto.dev) and chrome://tracing open the same file.

    python3 bench/trace_timeline.py TRACE.json OUT.png [--from-ms A --to-ms B]

Needs matplotlib (pip install matplotlib).
"""

import argparse
import collections
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"run": "#4c72b0", "kernel": "#dd8452", "model": "#55a868",
           "stream": "#8172b3", "scheduler": "#c44e52"}


def rows_of(trace, start_ms, end_ms):
    """[(label, [(start_ms, length_ms, category, name)])], threads first."""
    events = trace["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    threads = collections.defaultdict(list)
    opened, tracks = {}, collections.defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            threads[e["tid"]].append((e["ts"] / 1e3, e["dur"] / 1e3, e["cat"], e["name"]))
        elif e["ph"] == "b":
            opened[e["cat"], e["name"], e["id"]] = e["ts"] / 1e3
        elif e["ph"] == "e" and (e["cat"], e["name"], e["id"]) in opened:
            begin = opened.pop((e["cat"], e["name"], e["id"]))
            tracks[f"{e['cat']}: {e['name']}"].append(
                (begin, e["ts"] / 1e3 - begin, e["cat"], e["name"]))

    def clip(spans):
        return [s for s in spans if s[0] + s[1] >= start_ms and s[0] <= end_ms]

    rows = []
    for tid in sorted(threads):
        # A row per category, outer spans above the ones they contain.
        spans = clip(threads[tid])
        label = names.get(tid, f"thread {tid}")
        for cat in ("model", "scheduler", "stream", "run", "kernel"):
            mine = [s for s in spans if s[2] == cat]
            if mine:
                rows.append((f"{label}: {cat}", mine))
    for label in sorted(tracks):
        lanes = []  # greedy stacking of overlapping async spans
        for span in sorted(clip(tracks[label])):
            for lane in lanes:
                if lane[-1][0] + lane[-1][1] <= span[0]:
                    lane.append(span)
                    break
            else:
                lanes.append([span])
        for i, lane in enumerate(lanes[:8]):
            rows.append((label if i == 0 else "", lane))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--from-ms", type=float, default=0.0)
    ap.add_argument("--to-ms", type=float, default=float("inf"))
    args = ap.parse_args()
    trace = json.load(open(args.trace))
    rows = rows_of(trace, args.from_ms, args.to_ms)
    fig, ax = plt.subplots(figsize=(14, 0.38 * len(rows) + 1.4))
    for y, (_, spans) in enumerate(rows):
        for start, length, cat, name in spans:
            start = max(start, args.from_ms)
            ax.broken_barh([(start, max(length, 1e-3))], (y - 0.4, 0.8),
                           facecolors=COLOURS.get(cat, "grey"), edgecolor="white",
                           linewidth=0.3)
            if length > 0.04 * (ax.get_xlim()[1] - ax.get_xlim()[0] or 1):
                ax.text(start + length / 2, y, name, ha="center", va="center",
                        fontsize=6, color="white", clip_on=True)
    ax.set_yticks(range(len(rows)), [label for label, _ in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("ms since the trace started")
    other = trace.get("otherData", {})
    ax.set_title(f"{args.trace}: tessel {other.get('tessel_version', '?')} "
                 f"(git {other.get('tessel_revision', '?')})", fontsize=9)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLOURS.values()]
    ax.legend(handles, COLOURS.keys(), loc="upper right", fontsize=7, ncol=5)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)


if __name__ == "__main__":
    main()
