"""tessel-compare --plot: the cosine per node as an SVG, without a plotting
library. The y axis is logarithmic in 1 - cosine, labelled in cosines (0.9,
0.99, 0.999, ...), so that errors of 1e-6 and 1e-2 are both visible; a node
whose cosine is 1 sits on the top edge."""

from __future__ import annotations

import math
from html import escape
from typing import Optional

WIDTH, HEIGHT = 960, 480
LEFT, RIGHT, TOP, BOTTOM = 80, 20, 40, 170


def _error(cosine: float) -> float:
    return math.inf if math.isnan(cosine) else max(0.0, 1.0 - cosine)


def cosine_svg(rows: list[dict], jump: Optional[int], title: str) -> str:
    points = [(i, _error(r["cosine"])) for i, r in enumerate(rows)
              if r.get("cosine") is not None]
    finite = [e for _, e in points if 0.0 < e < math.inf]
    # Decades of 1 - cosine shown: from the smallest error to 1 (cosine 0).
    low = math.floor(math.log10(min(finite))) if finite else -8
    low = max(min(low, -2), -12)
    high = 0
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    count = max(len(rows), 2)

    def x(i: int) -> float:
        return LEFT + plot_w * i / (count - 1)

    def y(error: float) -> float:
        if error <= 0.0:
            return TOP
        if error == math.inf:
            return TOP + plot_h
        decade = min(max(math.log10(error), low), high)
        return TOP + plot_h * (decade - low) / (high - low)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="14">'
           f'cosine similarity per node: {escape(title)}</text>']
    for decade in range(low, high + 1):
        ty = y(10.0 ** decade)
        label = "0" if decade == 0 else "0." + "9" * (-decade)
        out.append(f'<line x1="{LEFT}" y1="{ty:.1f}" x2="{WIDTH - RIGHT}" y2="{ty:.1f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{ty + 4:.1f}" text-anchor="end">{label}</text>')
    out.append(f'<text x="16" y="{TOP + plot_h / 2}" transform="rotate(-90 16 '
               f'{TOP + plot_h / 2})" text-anchor="middle">cosine (log scale of 1 - cosine; '
               'top: 1)</text>')
    out.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="black"/>')
    out.append(f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{WIDTH - RIGHT}" '
               f'y2="{TOP + plot_h}" stroke="black"/>')
    if points:
        path = " ".join(f"{'M' if k == 0 else 'L'}{x(i):.1f},{y(e):.1f}"
                        for k, (i, e) in enumerate(points))
        out.append(f'<path d="{path}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>')
        for i, e in points:
            colour = "#d62728" if i == jump else "#1f77b4"
            radius = 5 if i == jump else 2.5
            row = rows[i]
            tip = f"{row.get('node') or row['output']}: cosine {row['cosine']:.8f}"
            out.append(f'<circle cx="{x(i):.1f}" cy="{y(e):.1f}" r="{radius}" fill="{colour}">'
                       f'<title>{escape(tip)}</title></circle>')
    # Node names under the axis: every one when they fit, else every k-th.
    step = max(1, math.ceil(len(rows) / 80))
    for i in range(0, len(rows), step):
        row = rows[i]
        label = row.get("node") or row["output"]
        if len(label) > 28:
            label = label[:27] + "…"
        lx, ly = x(i), TOP + plot_h + 8
        colour = ' fill="#d62728"' if i == jump else ""
        out.append(f'<text x="{lx:.1f}" y="{ly:.1f}" transform="rotate(-60 {lx:.1f} {ly:.1f})" '
                   f'text-anchor="end"{colour}>{escape(label)}</text>')
    if jump is not None:
        row = rows[jump]
        out.append(f'<text x="{WIDTH - RIGHT}" y="{TOP - 8}" text-anchor="end" fill="#d62728">'
                   f'first jump: {escape(row.get("node") or row["output"])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
