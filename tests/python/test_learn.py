"""posgeo.train against `posgeo train --json` (the whole experiment, number for number), and
posgeo.Tracker's measures against posgeo.stress and a brute-force separation."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import posgeo
from conftest import ROOT

SIGNALS = ["nope", "sinusoidal", "learned"]
SMALL = {"steps": 20, "every": 10, "d_model": 16, "heads": 2, "batch": 8}
FLAGS = ["--steps", "20", "--every", "10", "--d-model", "16", "--heads", "2", "--batch", "8"]


def posgeo_cli(*args):
    binary = os.environ.get("POSGEO_BIN") or os.path.join(ROOT, "target", "debug", "posgeo")
    out = subprocess.run([binary, *map(str, args)], capture_output=True, check=False)
    assert out.returncode == 0, out.stderr.decode()
    return out.stdout.decode()


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    path = tmp_path_factory.mktemp("learn") / "synth.txt"
    path.write_text(posgeo_cli("synth", "--positions", 12, "--vocab", 40, "--sequences", 300), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def theirs(synth):
    return json.loads(posgeo_cli("train", synth, "--json", *FLAGS, "--signals", ",".join(SIGNALS)))


@pytest.fixture(scope="module")
def ours(synth):
    return posgeo.train(synth, signals=SIGNALS, progress=False, **SMALL)


def test_train_equals_the_cli(synth, ours, theirs):
    assert ours.to_dict() == theirs, "the whole experiment, every record of every run"
    assert json.loads(ours.json) == theirs
    # One sequence per line, as the CLI reads the file; the signals as the CLI's text.
    with open(synth, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert posgeo.train(iter(lines), signals=",".join(SIGNALS), progress=False, **SMALL).to_dict() == theirs


def test_per_signal_arrays_follow_the_signals(ours, theirs):
    assert ours.signals == SIGNALS
    rows = {s["signal"]: s for s in theirs["signals"]}
    for name, key in [("held_loss", "held_loss"), ("held_accuracy", "held_accuracy"),
                      ("scaled_stress", "scaled_stress"), ("separation", "separation"),
                      ("monotonicity", "monotonicity")]:
        got = getattr(ours, name)
        assert isinstance(got, np.ndarray) and got.dtype == np.float64 and got.shape == (3,)
        for k, signal in enumerate(SIGNALS):
            want = rows[signal][key]
            assert (math.isnan(got[k]) if want is None else got[k] == want), (name, signal)
    assert math.isnan(ours.separation[0]) and math.isnan(ours.separation[1]) and ours.separation[2] > 0
    assert ours.scaled_stress[0] == 1.0  # nope
    assert ours.finding == theirs["finding"]
    assert set(ours.finding) == {"rho", "signals", "seeds", "rho_range", "p_value", "determined", "sentence"}
    assert ours.runs == theirs["runs"]


def test_curves(ours, theirs):
    c = ours.curves("learned")
    assert list(c["step"]) == [0, 10, 20]
    assert set(c) == {"step", "train_loss", "held_loss", "held_accuracy", "scaled_stress", "spearman",
                      "monotonicity", "separation"}
    run = next(r for r in theirs["runs"] if r["signal"] == "learned")
    assert math.isnan(c["train_loss"][0]) and c["train_loss"][1] == run["records"][1]["train_loss"]
    assert list(c["held_loss"]) == [r["held_loss"] for r in run["records"]]
    assert list(c["scaled_stress"]) == [r["table"]["scaled_stress"] for r in run["records"]]
    assert list(c["separation"]) == [r["table"]["separation"] for r in run["records"]]
    fixed = ours.curves("sinusoidal", seed=1)
    assert set(fixed) == {"step", "train_loss", "held_loss", "held_accuracy"}
    with pytest.raises(KeyError, match="no run of 'rope'"):
        ours.curves("rope")
    html = ours._repr_html_()
    assert "<table" in html and "<svg" in html and "learned" in html and ours.finding["sentence"][:20] in html


def test_the_final_table_measures_as_reported(synth, ours, tmp_path):
    """The learned table comes back as n×d float32; measured again (posgeo.stress against the
    corpus's D, and as a learned table through np.save) its σ* is the one the run reported."""
    table = ours.table("learned")
    assert table.dtype == np.float32 and table.shape == (ours.to_dict()["n"], SMALL["d_model"])
    run = next(r for r in ours.runs if r["signal"] == "learned")
    reported = run["records"][-1]["table"]["scaled_stress"]
    report = posgeo.analyze(synth, progress=False)
    assert posgeo.stress(table, report.distances)["scaled_stress"] == pytest.approx(reported, rel=1e-12)
    np.save(tmp_path / "learned.npy", table)
    again = posgeo.analyze(synth, d=SMALL["d_model"], learned=str(tmp_path / "learned.npy"), progress=False)
    assert again["learned"]["scaled_stress"] == pytest.approx(reported, rel=1e-12)
    with pytest.raises(KeyError, match="no final table of 'sinusoidal'"):
        ours.table("sinusoidal")


def test_progress_and_a_stop(synth):
    told = []
    posgeo.train(synth, signals="nope", progress=lambda stage, f: told.append((stage, f)), **SMALL)
    stages = [s for s, _ in told]
    assert "counting" in stages and stages[-1] == "training" and told[-1][1] == 1.0
    fractions = [f for _, f in told if f is not None]
    assert fractions == sorted(fractions)

    def stop(stage, fraction):
        if stage == "training":
            raise RuntimeError("stop here")
    with pytest.raises(RuntimeError, match="stop here"):
        posgeo.train(synth, signals=SIGNALS, progress=stop, **SMALL)


def test_rho_and_its_p_value_equal_scipys(synth):
    """The finding's ρ is scipy's Spearman of held-out loss against σ* over the signals with a
    σ*, and its p-value scipy's exact permutation test of |ρ| (every pairing counted)."""
    from scipy import stats

    signals = ["nope", "sinusoidal", "random", "pmds", "learned", "learned_pmds"]
    t = posgeo.train(synth, signals=signals, progress=False, **SMALL).to_dict()
    pairs = [(s["held_loss"], s["scaled_stress"]) for s in t["signals"] if s["scaled_stress"] is not None]
    assert len(pairs) == 6
    loss, stress = (np.array(v) for v in zip(*pairs))
    rho = stats.spearmanr(loss, stress).statistic
    assert abs(t["finding"]["rho"] - rho) < 1e-12
    # One sample, the losses, paired with the fixed σ*s in every one of the 6! orders.
    test = stats.permutation_test((loss,), lambda x: abs(stats.spearmanr(x, stress).statistic),
                                  permutation_type="pairings", alternative="greater", vectorized=False,
                                  n_resamples=np.inf)
    assert len(test.null_distribution) == math.factorial(6), "exact: every ordering"
    assert abs(t["finding"]["p_value"] - test.pvalue) < 1e-12, (t["finding"], test.pvalue)
    assert t["finding"]["determined"] == (test.pvalue <= 0.05 and rho != 0)


def test_a_summary_over_seeds_is_its_runs_means_and_ranges(synth):
    """With two seeds, each signal's row is the mean and range of its runs' final records, ρ is
    Spearman's over the seed means, and ρ's range is the smallest and largest ρ seed by seed (the
    fixed signals' σ* is the same for every seed)."""
    from scipy import stats

    signals = ["nope", "sinusoidal", "learned"]
    t = posgeo.train(synth, signals=signals, seeds=2, progress=False, **SMALL).to_dict()
    runs = {(r["signal"], r["seed"]): r["records"][-1] for r in t["runs"]}
    assert set(runs) == {(s, k) for s in signals for k in (1, 2)}
    by = {s["signal"]: s for s in t["signals"]}
    for s in signals:
        losses = [runs[(s, k)]["held_loss"] for k in (1, 2)]
        assert by[s]["seeds"] == 2
        assert math.isclose(by[s]["held_loss"], np.mean(losses), rel_tol=1e-12)
        assert by[s]["held_loss_range"] == [min(losses), max(losses)]
        accuracy = np.mean([runs[(s, k)]["held_accuracy"] for k in (1, 2)])
        assert math.isclose(by[s]["held_accuracy"], accuracy, rel_tol=1e-12)
    tables = [runs[("learned", k)]["table"] for k in (1, 2)]
    for key in ("scaled_stress", "separation", "monotonicity"):
        assert math.isclose(by["learned"][key], np.mean([x[key] for x in tables]), rel_tol=1e-12), key

    def stress(s, k):
        return tables[k - 1]["scaled_stress"] if s == "learned" else by[s]["scaled_stress"]

    per_seed = [stats.spearmanr([runs[(s, k)]["held_loss"] for s in signals], [stress(s, k) for s in signals]).statistic
                for k in (1, 2)]
    means = stats.spearmanr([by[s]["held_loss"] for s in signals], [by[s]["scaled_stress"] for s in signals]).statistic
    assert math.isclose(t["finding"]["rho"], means, abs_tol=1e-12)
    assert t["finding"]["rho_range"] == pytest.approx([min(per_seed), max(per_seed)], abs=1e-12)
    assert t["finding"]["seeds"] == 2


def test_the_lecture_preset_equals_the_cli(synth):
    """``preset="lecture"`` is ``posgeo train --preset lecture``: its signals, steps, batch and
    record interval, the other options as given."""
    small = {"d_model": 16, "heads": 2}
    theirs = json.loads(posgeo_cli("train", synth, "--json", "--preset", "lecture", "--d-model", 16, "--heads", 2))
    ours = posgeo.train(synth, preset="lecture", progress=False, **small).to_dict()
    assert ours == theirs
    assert [s["signal"] for s in ours["signals"]] == ["nope", "sinusoidal", "pmds", "learned"]
    assert (ours["params"]["steps"], ours["params"]["batch"], ours["params"]["d_model"]) == (400, 16, 16)
    with pytest.raises(posgeo.InputError, match="unknown preset `seminar`; presets: lecture"):
        posgeo.train(synth, preset="seminar", progress=False)


def test_bad_input_names_the_option(synth):
    with pytest.raises(posgeo.InputError, match="steps"):
        posgeo.train(synth, steps=0, progress=False)
    with pytest.raises(posgeo.InputError, match='signals.*"bogus" is not one of'):
        posgeo.train(synth, signals=["nope", "bogus"], progress=False)
    with pytest.raises(posgeo.InputError, match="d_model"):
        posgeo.train(synth, d_model=18, heads=2, progress=False)
    with pytest.raises(TypeError, match=r'unexpected keyword argument "stepz"; the options are .*steps'):
        posgeo.train(synth, stepz=3)
    with pytest.raises(TypeError, match="option signals: expected a list of str"):
        posgeo.train(synth, signals=["nope", 3])
    with pytest.raises(TypeError, match="option steps: expected a number"):
        posgeo.train(synth, steps=[20])
    # The experiment's options are not analyze's.
    with pytest.raises(TypeError, match='unexpected keyword argument "steps"'):
        posgeo.analyze(synth, steps=20)
    assert posgeo.LEARN_OPTIONS["signals"].default.split(",")[:2] == ["nope", "sinusoidal"]
    assert "learned" in posgeo.LEARN_OPTIONS["signals"].choices and posgeo.LEARN_OPTIONS["steps"].default == "400"


def brute_separation(x):
    d = [math.sqrt(sum((a - b) ** 2 for a, b in zip(x[i], x[j]))) for i in range(len(x)) for j in range(i + 1, len(x))]
    d.sort()
    m = len(d)
    median = d[m // 2] if m % 2 else 0.5 * (d[m // 2 - 1] + d[m // 2])
    return d[0] / median


def test_tracker_measures_equal_stress_and_brute_force(synth):
    report = posgeo.analyze(synth, progress=False)
    D = report.distances
    n = D.shape[0]
    rng = np.random.default_rng(11)
    tracker = posgeo.Tracker(report)
    tables = []
    for step in (0, 10, 20):
        table = rng.normal(size=(n + 3, 8))  # rows past n are ignored
        tables.append(table)
        tracker.log(step, table.tolist() if step == 10 else table)
    c = tracker.curves
    assert list(c["step"]) == [0, 10, 20] and len(tracker) == 3
    for k, table in enumerate(tables):
        s = posgeo.stress(table[:n], D, pmds=report.pmds)
        assert c["scaled_stress"][k] == s["scaled_stress"]
        assert c["spearman"][k] == s["spearman"]
        assert c["monotonicity"][k] == s["monotonicity_violation_rate"]
        assert c["separation"][k] == pytest.approx(brute_separation(table[:n].tolist()), rel=1e-12)
    # A table of n columns with a zero diagonal is still points, not a distance matrix.
    square = posgeo.Tracker(D)
    square.log(0, D)
    assert square.curves["scaled_stress"][0] == posgeo.stress(D, D, distances=False)["scaled_stress"]
    html = tracker._repr_html_()
    assert html.count("<polyline") == 2 and "σ*" in html and "separation" in html and html.count("<svg") == 3
    with pytest.raises(posgeo.InputError, match=f"needs at least {n} rows"):
        tracker.log(30, np.ones((n - 1, 4)))


def test_tracker_takes_jax_arrays(synth):
    jnp = pytest.importorskip("jax.numpy")
    report = posgeo.analyze(synth, progress=False)
    n = report.distances.shape[0]
    table = np.random.default_rng(2).normal(size=(n, 6)).astype(np.float32)
    a, b = posgeo.Tracker(report), posgeo.Tracker(report)
    a.log(1, jnp.asarray(table))
    b.log(1, table)
    assert a.records == b.records
