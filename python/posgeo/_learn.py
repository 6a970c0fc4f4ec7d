"""The learning experiment (docs/MATH.md §16) from Python: :class:`Training` (what
:func:`posgeo.train` returns, the ``posgeo train --json`` numbers) and :class:`Tracker` (the
same measures of a position table logged during one's own training)."""
import html
import json
import math

import numpy as np

from . import _arrays, _svg
from .errors import InputError

# The signals whose position table the optimiser trains (`Signal::trainable`): their records
# carry the table's measures.
TRAINABLE = ("learned", "learned_pmds")
# The table's measures in a record, by curve name.
TABLE_MEASURES = (("scaled_stress", "scaled_stress"), ("spearman", "spearman"),
                  ("monotonicity", "monotonicity"), ("separation", "separation"))


def _floats(values):
    return np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)


class Training:
    """One run of the learning experiment: a model per position signal and seed, its
    held-out loss beside the signal's stress, and the finding. Per-signal arrays follow
    :attr:`signals`; NaN marks a number that is undefined (σ* of nothing, separation of a
    fixed table, a signal none of whose runs finished)."""

    def __init__(self, text):
        self._json = text
        self._dict = json.loads(text)
        summaries = {s["signal"]: s for s in self._dict["signals"]}
        self._rows = [summaries.get(name, {}) for name in self.signals]

    @property
    def json(self):
        """The experiment as ``posgeo train --json`` prints it (text)."""
        return self._json

    def to_dict(self):
        """The experiment as a dict (the parsed :attr:`json`)."""
        return json.loads(self._json)

    @property
    def signals(self):
        """The signals trained, in the report's order."""
        return list(self._dict["params"]["signals"])

    def _column(self, key):
        return _floats(row.get(key) for row in self._rows)

    @property
    def held_loss(self):
        """Final held-out loss per signal (mean over the seeds that finished)."""
        return self._column("held_loss")

    @property
    def held_accuracy(self):
        """Final held-out accuracy per signal."""
        return self._column("held_accuracy")

    @property
    def scaled_stress(self):
        """σ* per signal: the fixed geometry's, or the final table's for trainable signals."""
        return self._column("scaled_stress")

    @property
    def separation(self):
        """Final separation min‖p_i − p_j‖ / median‖p_i − p_j‖ (trainable tables only)."""
        return self._column("separation")

    @property
    def monotonicity(self):
        """Final monotonicity violation rate (trainable tables only)."""
        return self._column("monotonicity")

    @property
    def finding(self):
        """Spearman's ρ between held-out loss and σ* over the signals: a dict with ``rho``
        (None with fewer than 3 signals), ``signals``, ``seeds``, ``rho_range`` (seed by
        seed: [min, max], or None) and ``sentence``."""
        return dict(self._dict["finding"])

    @property
    def runs(self):
        """Every run (signal, seed, records, train_loss per step, lr per step, error) as
        dicts, finished or not."""
        return self.to_dict()["runs"]

    def table(self, signal, seed=1):
        """A trainable signal's final position table as an n×d float32 array (the page's
        ``.npy`` download; ``posgeo.analyze(..., learned=...)`` measures it again)."""
        run = next((r for r in self._dict["runs"] if r["signal"] == signal and r["seed"] == seed), None)
        if run is None or run.get("table") is None:
            have = ", ".join(f"{r['signal']} (seed {r['seed']})" for r in self._dict["runs"] if r.get("table"))
            raise KeyError(f"no final table of {signal!r} with seed {seed}; the trainable runs are {have or 'none'}")
        return np.asarray(run["table"], dtype=np.float32).reshape(self._dict["n"], -1)

    @property
    def params(self):
        """The experiment's options."""
        return dict(self._dict["params"])

    def curves(self, signal, seed=1):
        """One run's records as numpy arrays: ``step``, ``train_loss`` (NaN at step 0),
        ``held_loss``, ``held_accuracy``, and for trainable signals ``scaled_stress``,
        ``spearman``, ``monotonicity``, ``separation``."""
        run = next((r for r in self._dict["runs"] if r["signal"] == signal and r["seed"] == seed), None)
        if run is None:
            have = ", ".join(f"{r['signal']} (seed {r['seed']})" for r in self._dict["runs"])
            raise KeyError(f"no run of {signal!r} with seed {seed}; the runs are {have}")
        records = run["records"]
        out = {"step": np.array([r["step"] for r in records], dtype=np.int64)}
        for key in ("train_loss", "held_loss", "held_accuracy"):
            out[key] = _floats(r[key] for r in records)
        if signal in TRAINABLE:
            for name, key in TABLE_MEASURES:
                out[name] = _floats((r["table"] or {}).get(key) for r in records)
        return out

    def svg(self, measure="held_loss", width=560, height=300):
        """A chart of one curve (``held_loss``, ``held_accuracy``, ``train_loss``, or a
        trainable table's ``scaled_stress``, ``separation``, …) of every signal's first seed
        against the step, as SVG text."""
        series = {}
        for name in self.signals:
            c = self.curves(name, 1)
            if measure in c:
                series[name] = (c["step"], c[measure])
        return _svg.lines(series, title=f"{measure} (seed 1)", ylabel=measure, width=width, height=height,
                          zero=measure not in ("held_loss", "train_loss"))

    def __repr__(self):
        f = self._dict["finding"]
        return f"<posgeo.Training n={self._dict['n']} signals={len(self.signals)}: {f['sentence']}>"

    def _repr_html_(self):
        """The per-signal table, the finding and the held-out loss curves (inline SVG)."""
        esc = html.escape
        cols = ("held loss", "accuracy", "σ*", "separation", "monotonicity")
        arrays = (self.held_loss, self.held_accuracy, self.scaled_stress, self.separation, self.monotonicity)
        head = "".join(f"<th>{c}</th>" for c in ("signal",) + cols)
        td = '<td style="text-align:right;padding:0 8px">'
        body = "".join(f"<tr><th>{esc(name)}</th>" + "".join(f"{td}{_fmt(a[k])}</td>" for a in arrays) + "</tr>"
                       for k, name in enumerate(self.signals))
        d = self._dict
        errors = "".join(f"<li>{esc(r['signal'])} (seed {r['seed']}): {esc(r['error'])}</li>"
                         for r in d["runs"] if r.get("error"))
        about = (f"{d['n']} positions, |V| = {d['vocab']}, {d['train_sequences']} training and "
                 f"{d['held_sequences']} held-out sequences, {d['params']['steps']} steps, seeds 1..{d['params']['seeds']}")
        return (f'<div class="posgeo-training"><p><b>{esc(d["finding"]["sentence"])}</b></p>'
                f'<p style="font-size:smaller">{esc(about)}</p>'
                f'<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
                + (f"<ul>{errors}</ul>" if errors else "") + f"<div>{self.svg()}</div></div>")


def _fmt(v):
    return "—" if not math.isfinite(v) else f"{v:.4f}"


def separation(points):
    """min_{i<j}‖p_i − p_j‖ / median_{i<j}‖p_i − p_j‖ of the rows of ``points`` (0 when the
    median is 0), as docs/MATH.md §16 records it."""
    n = points.shape[0]
    upper = np.concatenate([np.sqrt(((points[i + 1:] - points[i]) ** 2).sum(axis=1)) for i in range(n - 1)])
    median = float(np.median(upper))
    return float(upper.min()) / median if median > 0 else 0.0


class Tracker:
    """σ*, Spearman, monotonicity and separation of a position table against a corpus's D,
    logged during one's own training (the measures :func:`posgeo.train` records for its
    trainable tables).

    ``report`` is a :class:`posgeo.Report` (its D, and its PMDS map for the alignment) or an
    n×n distance matrix D. :meth:`log` takes any n′×d table (numpy, PyTorch or JAX); its
    first n rows are measured."""

    MEASURES = ("scaled_stress", "spearman", "monotonicity", "separation")

    def __init__(self, report):
        if hasattr(report, "distances"):
            self._d, self._pmds = report.distances, report.pmds
        else:
            self._d, self._pmds = _arrays.array(report, np.float64, 2, "D"), None
        self._rows = []

    @property
    def n(self):
        """Positions measured: D's size."""
        return self._d.shape[0]

    def log(self, step, table):
        """Measures ``table`` at ``step``; returns the record (a dict)."""
        from . import stress

        x = _arrays.array(table, np.float64, 2, "table")
        n = self.n
        if x.shape[0] < n:
            raise InputError(f"table: {x.shape[0]}×{x.shape[1]} for a report of {n} positions: "
                             f"it needs at least {n} rows")
        x = np.ascontiguousarray(x[:n])
        m = stress(x, self._d, pmds=self._pmds, distances=False)
        record = {"step": step, "scaled_stress": m["scaled_stress"], "spearman": m["spearman"],
                  "monotonicity": m["monotonicity_violation_rate"], "separation": separation(x)}
        self._rows.append(record)
        return dict(record)

    @property
    def records(self):
        """Every record, in logging order (a list of dicts)."""
        return [dict(r) for r in self._rows]

    @property
    def curves(self):
        """``step`` and each measure as numpy arrays (NaN where a measure is undefined)."""
        out = {"step": np.array([r["step"] for r in self._rows])}
        for key in self.MEASURES:
            out[key] = _floats(r[key] for r in self._rows)
        return out

    def __len__(self):
        return len(self._rows)

    def svg(self, width=720, height=280):
        """σ* and separation against the step, side by side, as SVG text."""
        c = self.curves
        w = width // 2
        charts = [_svg.lines({label: (c["step"], c[key])}, title=f"{label} against D" if key == "scaled_stress"
                             else "separation min‖p_i − p_j‖ / median", width=w, height=height)
                  for label, key in (("σ*", "scaled_stress"), ("separation", "separation"))]
        return _svg.side_by_side(charts, w, height)

    def __repr__(self):
        last = self._rows[-1] if self._rows else None
        tail = (f", last step {last['step']}: σ* = {last['scaled_stress']:.4f}, "
                f"separation = {last['separation']:.4f}") if last else ""
        return f"<posgeo.Tracker n={self.n} records={len(self)}{tail}>"

    def _repr_html_(self):
        return f'<div class="posgeo-tracker"><p>{html.escape(repr(self))}</p>{self.svg()}</div>'
