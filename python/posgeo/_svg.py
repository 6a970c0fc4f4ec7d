"""Small line charts as inline SVG text, for notebooks (no matplotlib, no JavaScript): what
:class:`posgeo.Tracker` and :class:`posgeo.Training` show in a notebook."""
import html
import math

# Okabe–Ito: distinguishable with every common colour-vision deficiency.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000", "#999999")


def _ticks(lo, hi, count=5):
    """About ``count`` round values spanning [lo, hi]."""
    if not hi > lo:
        return [lo]
    raw = (hi - lo) / max(count - 1, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    return [first + k * step for k in range(int((hi - first) / step + 1e-9) + 1)]


def _label(v):
    return f"{v:.4g}"


def lines(series, *, title="", xlabel="step", ylabel="", width=560, height=300, zero=True):
    """A chart of ``series`` (a dict name → (xs, ys)) as SVG text; non-finite values leave
    gaps. Every series shares one y axis, starting at 0 when ``zero`` and all values are ≥ 0;
    with several series a legend runs along the top."""
    esc = html.escape
    legend = len(series) > 1
    left, right, top, bottom = 56, 16, (28 if title else 12) + (18 if legend else 0), 40
    pw, ph = width - left - right, height - top - bottom
    xs = [float(x) for x, _ in series.values() for x in x]
    ys = [float(y) for _, y in series.values() for y in y if math.isfinite(float(y))]
    x0, x1 = (min(xs), max(xs)) if xs else (0.0, 1.0)
    y0, y1 = (min(ys), max(ys)) if ys else (0.0, 1.0)
    y0 = 0.0 if zero and y0 >= 0 else y0
    x1, y1 = (x1 if x1 > x0 else x0 + 1.0), (y1 if y1 > y0 else y0 + 1.0)
    pad = 0.04 * (y1 - y0)
    y0, y1 = (y0 if zero and y0 == 0 else y0 - pad), y1 + pad

    def px(x):
        return left + (x - x0) / (x1 - x0) * pw

    def py(y):
        return top + ph - (y - y0) / (y1 - y0) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11" role="img" '
           f'aria-label="{esc(title or ylabel)}"><rect width="100%" height="100%" fill="white"/>']
    if title:
        out.append(f'<text x="{width / 2:.1f}" y="16" text-anchor="middle" font-size="13">{esc(title)}</text>')
    for t in _ticks(y0, y1):
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{py(t):.1f}" y2="{py(t):.1f}" stroke="#e4e4e4"/>'
                   f'<text x="{left - 4}" y="{py(t) + 4:.1f}" text-anchor="end">{_label(t)}</text>')
    for t in _ticks(x0, x1):
        out.append(f'<text x="{px(t):.1f}" y="{top + ph + 14}" text-anchor="middle">{_label(t)}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 6}" text-anchor="middle">{esc(xlabel)}</text>')
    if ylabel:
        out.append(f'<text transform="translate(12 {top + ph / 2:.1f}) rotate(-90)" '
                   f'text-anchor="middle">{esc(ylabel)}</text>')
    for k, (name, (sx, sy)) in enumerate(series.items()):
        colour = COLOURS[k % len(COLOURS)]
        runs, run = [], []
        for x, y in zip(sx, sy):
            if math.isfinite(float(y)):
                run.append(f"{px(float(x)):.1f},{py(float(y)):.1f}")
            elif run:
                runs.append(run)
                run = []
        runs.append(run)
        for r in runs:
            if len(r) == 1:
                cx, cy = r[0].split(",")
                out.append(f'<circle cx="{cx}" cy="{cy}" r="2.5" fill="{colour}"/>')
            elif r:
                out.append(f'<polyline points="{" ".join(r)}" fill="none" stroke="{colour}" stroke-width="2"/>')
        if legend:
            lx, ly = left + k * (pw / len(series)), top - 8
            out.append(f'<line x1="{lx:.1f}" x2="{lx + 18:.1f}" y1="{ly - 4}" y2="{ly - 4}" stroke="{colour}" '
                       f'stroke-width="2"/><text x="{lx + 22:.1f}" y="{ly}">{esc(str(name))}</text>')
    out.append("</svg>")
    return "".join(out)


def side_by_side(charts, width, height):
    """Charts of ``width`` × ``height`` (SVG text each) side by side in one SVG."""
    inner = "".join(c.replace("<svg ", f'<svg x="{k * width}" y="0" ', 1) for k, c in enumerate(charts))
    total = width * len(charts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="{height}" '
            f'viewBox="0 0 {total} {height}">{inner}</svg>')
