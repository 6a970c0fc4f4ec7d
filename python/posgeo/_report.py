"""``Report`` and ``Counts``: what :func:`posgeo.analyze` and :func:`posgeo.count` return.
Every number comes from the engine; this file only arranges it for Python and notebooks."""
import html
import json

from . import _core
from ._progress import reporter
from . import _arrays

# The report's per-encoding fields, in the table's column order.
COLUMNS = ("raw_stress", "scaled_stress", "scale", "spearman", "monotonicity_violation_rate",
           "procrustes_residual", "dim", "parameters")


class Report:
    """One analysis: the ``posgeo analyze --json`` report and the arrays behind it."""

    def __init__(self, core):
        self._core = core
        self._dict = json.loads(core.json())

    def to_dict(self):
        """The report as ``posgeo analyze --json`` prints it (docs/MATH.md §9)."""
        return json.loads(self._core.json())

    @property
    def encodings(self):
        """Encoding names in display order."""
        return list(self._dict["encoding_order"])

    def table(self):
        """The stress table: a pandas DataFrame indexed by encoding when pandas is installed,
        else a list of dicts (one per encoding, with its ``encoding`` name)."""
        rows = [{"encoding": name, **{c: self._dict["encodings"][name].get(c) for c in COLUMNS}}
                for name in self.encodings]
        try:
            import pandas
        except ImportError:
            return rows
        return pandas.DataFrame(rows).set_index("encoding")

    @property
    def distances(self):
        """D, the n×n corpus metric (numpy)."""
        return self._core.distances()

    @property
    def pmds(self):
        """The PMDS configuration, n × min(d, r_τ) (numpy): the ``pmds`` row."""
        return self._core.pmds()

    @property
    def verdict(self):
        """The one-line verdict the CLI and the page print."""
        return self._core.verdict()

    @property
    def claims(self):
        """The paper's findings checked on this corpus: one dict each with ``key``,
        ``finding``, ``paper`` (what the paper reports), ``holds`` (True, False, or None when
        it does not apply), ``reason`` (this corpus's numbers), ``values`` (those numbers by
        report field) and ``step`` (the lecture step that explains it)."""
        return json.loads(self._core.claims_json())

    @property
    def summary(self):
        """The corpus summary lines (the CLI's)."""
        return list(self._core.summary())

    def svg(self, chart="stress", width=640, height=400):
        """A chart as SVG text: ``stress``, ``rank``, ``map``, ``monotonicity`` or ``layers``."""
        return self._core.svg(chart, width, height)

    def __getitem__(self, encoding):
        """One encoding's numbers, e.g. ``report["alibi"]["scaled_stress"]``."""
        return dict(self._dict["encodings"][encoding])

    def __repr__(self):
        r = self._dict
        return f"<posgeo.Report n={r['n']} encodings={len(r['encoding_order'])}: {self.verdict}>"

    def __str__(self):
        return "\n".join(self.summary) + "\n\n" + self._core.stress_text() + "\n" + self.verdict

    def _repr_html_(self):
        """The verdict, the stress table and the headline charts as inline SVG (no
        JavaScript: JupyterLab, VS Code and Colab show it alike)."""
        esc = html.escape
        head = "".join(f"<th>{esc(c)}</th>" for c in ("encoding",) + COLUMNS[:6])
        cells = []
        for name in self.encodings:
            e = self._dict["encodings"][name]
            tds = "".join(f"<td>{_fmt(e.get(c))}</td>" for c in COLUMNS[:6])
            cells.append(f"<tr><th>{esc(name)}</th>{tds}</tr>")
        charts = ["stress", "map", "rank"] + (["layers"] if self._dict.get("layers") else [])
        svgs = "".join(f'<div style="flex:1 1 420px;max-width:640px">{self.svg(c, 560, 350)}</div>' for c in charts)
        summary = "<br>".join(esc(line) for line in self.summary)
        marks = {True: "✓ holds", False: "✗ does not hold", None: "– n/a"}
        claims = "".join(f"<li><b>{marks[c['holds']]}</b> — {esc(c['finding'])}: {esc(c['reason'])}</li>"
                         for c in self.claims)
        return (f'<div class="posgeo-report"><p><b>{esc(self.verdict)}</b></p>'
                f'<details><summary>corpus</summary><p style="font-size:smaller">{summary}</p></details>'
                f'<table><thead><tr>{head}</tr></thead><tbody>{"".join(cells)}</tbody></table>'
                f"<details><summary>the paper's findings on this corpus</summary><ul>{claims}</ul></details>"
                f'<div style="display:flex;flex-wrap:wrap;gap:8px">{svgs}</div></div>')


def _fmt(v):
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.6g}"
    return html.escape(str(v))


class Counts:
    """A counts table (position, token, count, first), as ``posgeo count`` writes it: from a
    corpus (:func:`posgeo.count`), a file (:meth:`load`) or parts (:meth:`merge`)."""

    def __init__(self, core):
        self._core = core

    @staticmethod
    def load(path):
        """Reads a table posgeo, DuckDB or Spark wrote: CSV/TSV, gzip or Parquet."""
        return Counts(_core.Counts.load(path))

    @staticmethod
    def merge(parts):
        """The table of consecutive parts of one corpus, in order (``posgeo merge``)."""
        return Counts(_core.Counts.merge([p._core for p in parts]))

    def save(self, path):
        """Writes CSV (gzip-compressed when the name ends in ``.gz``)."""
        self._core.save(path)

    @property
    def positions(self):
        """Positions with counts."""
        return self._core.positions

    @property
    def mode(self):
        """``condition`` or ``pad``."""
        return self._core.mode

    def analyze(self, *, learned=None, extra_encodings=None, progress=True, **options):
        """The table's analysis (``posgeo analyze --counts``): its own mode unless ``mode=``."""
        with reporter(progress) as tell:
            core = self._core.analyze(options, _arrays.tables(learned), _arrays.named(extra_encodings), tell)
        return Report(core)

    def __repr__(self):
        return f"<posgeo.Counts positions={self.positions} mode={self.mode}>"


class Layers:
    """A model's layers (:func:`posgeo.layers`): numpy arrays indexed by layer ℓ = 0…L, and the
    whole :class:`Report` as ``.report``."""

    def __init__(self, report):
        import numpy as np
        self.report = report
        info = report.to_dict().get("layers") or {}
        measures = info.get("measures", [])
        self.info = {k: v for k, v in info.items() if k != "measures"}
        self.positional_share = np.array([m["positional_share"] for m in measures])
        self.effective_dimension = np.array([m["effective_dimension"] for m in measures])
        self.principal = [np.array(m["principal"]) for m in measures]
        count = len(measures)
        self.sigma_star = np.array([report[f"layer:{l}"]["scaled_stress"] for l in range(count)])
        self.sigma_star_residual = np.array([report[f"layer-residual:{l}"]["scaled_stress"] for l in range(count)])

    def __repr__(self):
        i = self.info
        return (f"<posgeo.Layers {i.get('model_type')}: {i.get('num_layers')} layers, H = {i.get('hidden_size')}, "
                f"{i.get('positions')} positions, {i.get('sequences_used')} sequences>")
