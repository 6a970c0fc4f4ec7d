"""posgeo.analyze and posgeo.stress against `posgeo analyze --json`, number for number."""
import math
import os

import numpy as np
import pytest

import posgeo
from conftest import GENESIS, ROOT, cli, same_numbers


def test_a_path_a_list_and_an_iterator_equal_the_cli(genesis_lines):
    theirs = cli("--d", 48, "--mode", "pad", "--max-len", 40, GENESIS)
    ours = posgeo.analyze(GENESIS, d=48, mode="pad", max_len=40, progress=False).to_dict()
    same_numbers(ours, theirs)
    assert ours == theirs, "the whole report, not only the rows"
    # One sequence per line, as the CLI reads the file.
    listed = posgeo.analyze(genesis_lines, d=48, mode="pad", max_len=40, progress=False).to_dict()
    assert listed == theirs
    streamed = posgeo.analyze(iter(genesis_lines), d=48, mode="pad", max_len=40, progress=False).to_dict()
    assert streamed == theirs


def test_every_option_is_a_keyword_with_the_tables_default():
    assert "max_len" in posgeo.OPTIONS and posgeo.OPTIONS["max_len"].default == "512"
    assert posgeo.OPTIONS["metric"].choices and "hellinger" in posgeo.OPTIONS["metric"].choices
    r = posgeo.analyze(GENESIS, progress=False).to_dict()
    # Every option, given its default as the table writes it, changes nothing.
    defaults = {name: opt.default for name, opt in posgeo.OPTIONS.items() if opt.default != ""}
    assert len(defaults) > 15
    assert posgeo.analyze(GENESIS, progress=False, **defaults).to_dict() == r
    # A non-default option reaches the engine.
    r = posgeo.analyze(GENESIS, metric="jensen_shannon", tokenizer="whitespace", top_k=500, progress=False).to_dict()
    assert r["metric"] == "jensen_shannon" and r["params"]["top_k"] == 500


def test_report_arrays_and_table():
    r = posgeo.analyze(GENESIS, d=32, progress=False)
    d = r.distances
    n = r.to_dict()["n"]
    assert d.shape == (n, n) and np.allclose(d, d.T) and np.all(np.diag(d) == 0)
    assert r.pmds.shape[0] == n
    # The PMDS configuration reproduces D at full rank (its own stress row is ~0).
    assert posgeo.stress(r.pmds, d, pmds=r.pmds)["raw_stress"] == pytest.approx(r["pmds"]["raw_stress"], abs=1e-12)
    rows = r.table()
    names = [row["encoding"] for row in rows] if isinstance(rows, list) else list(rows.index)
    assert names == r.encodings and "sinusoidal" in names
    # The verdict is the report's own, held against the band of random tables.
    assert r.verdict == r.to_dict()["verdict"]["sentence"] and "random tables" in r.verdict


def test_stress_of_a_table_equals_the_cli_learned_row(tmp_path):
    rng = np.random.default_rng(7)
    table = rng.normal(size=(80, 12))
    path = tmp_path / "t.npy"
    np.save(path, table)
    theirs = cli("--d", 24, "--learned", path, GENESIS)
    r = posgeo.analyze(GENESIS, d=24, progress=False)
    got = posgeo.stress(table, r.distances, pmds=r.pmds)
    want = theirs["encodings"]["learned"]
    for key in ("raw_stress", "scaled_stress", "scale", "spearman", "monotonicity_violation_rate", "procrustes_residual"):
        assert got[key] == pytest.approx(want[key], rel=1e-9, abs=1e-12), key
    # Without pmds=, Procrustes aligns onto D's own PMDS: the same at these options (d ≥ 16).
    assert posgeo.stress(table, r.distances)["procrustes_residual"] == pytest.approx(want["procrustes_residual"], rel=1e-9)
    # The table given as an array, or as the file, is the CLI's row.
    same_numbers(posgeo.analyze(GENESIS, d=24, learned=table, progress=False).to_dict(), theirs)
    same_numbers(posgeo.analyze(GENESIS, d=24, learned=str(path), progress=False).to_dict(), theirs)


def test_stress_of_a_distance_matrix_and_of_d_itself():
    r = posgeo.analyze(GENESIS, progress=False)
    d = r.distances
    own = posgeo.stress(d, d)
    assert own["raw_stress"] == 0 and own["scale"] == pytest.approx(1.0) and own["procrustes_residual"] is None
    # δ = 2·D: σ* is scale-free, a* halves.
    twice = posgeo.stress(2 * d, d)
    assert twice["scaled_stress"] == pytest.approx(0.0, abs=1e-20) and twice["scale"] == pytest.approx(0.5)
    # The same square array read as points instead.
    as_points = posgeo.stress(d, d, distances=False)
    assert as_points["procrustes_residual"] is not None and as_points["raw_stress"] > 0


def test_extra_encodings_are_rows_of_their_name():
    r = posgeo.analyze(GENESIS, d=16, progress=False)
    sin = cli("--d", 16, GENESIS)["encodings"]["sinusoidal"]
    n = r.to_dict()["n"]
    i = np.arange(n)[:, None]
    k = np.arange(8)[None, :]
    ang = i / 10000 ** (2 * k / 16)
    table = np.empty((n, 16))
    table[:, 0::2], table[:, 1::2] = np.sin(ang), np.cos(ang)
    with_extra = posgeo.analyze(GENESIS, d=16, extra_encodings={"mine": table, "short": table[:10]}, progress=False)
    assert with_extra["mine"]["scaled_stress"] == pytest.approx(sin["scaled_stress"], rel=1e-9)
    assert with_extra["short"]["dim"] == 16 and with_extra.encodings[-2:] == ["mine", "short"]


def test_claims_equal_the_cli():
    theirs = cli("--claims", "--d", 32, GENESIS)["claims"]
    ours = posgeo.analyze(GENESIS, d=32, progress=False).claims
    assert ours == theirs and len(ours) == 10
    assert {c["holds"] for c in ours} <= {True, False, None}


def test_notebook_html_is_inline_svg_without_javascript():
    html = posgeo.analyze(GENESIS, progress=False)._repr_html_()
    assert html.count("<svg") == 3 and "<script" not in html
    assert "fits this corpus" in html and "sinusoidal" in html and "Low rank suffices" in html


def test_progress_reaches_the_callback_and_its_error_stops_the_run():
    seen = []
    posgeo.analyze(GENESIS, progress=lambda stage, f: seen.append((stage, f)))
    stages = [s for s, _ in seen]
    assert stages[0] == "counting" and "stress" in stages
    fractions = [f for _, f in seen if f is not None]
    assert fractions == sorted(fractions) and math.isclose(fractions[-1], 1.0)

    def stop(stage, f):
        if stage == "distances":
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        posgeo.analyze(GENESIS, progress=stop)


PROTEINS = os.path.join(ROOT, "www", "corpora", "proteins.faa")


def test_fasta_proteins_equal_the_cli_with_the_band_and_the_verdict(tmp_path):
    """The shipped FASTA, and the same records gzipped under a plain name, read as the CLI reads them."""
    import gzip

    theirs = cli("--tokenizer", "chars", "--max-len", 256, "--d", 64, PROTEINS)
    ours = posgeo.analyze(PROTEINS, tokenizer="chars", max_len=256, d=64, progress=False)
    same_numbers(ours.to_dict(), theirs)
    assert ours.to_dict()["random_band"] == theirs["random_band"]
    assert ours.to_dict()["verdict"] == theirs["verdict"] and ours.verdict == theirs["verdict"]["sentence"]
    assert theirs["sequences"] == 400
    hidden = tmp_path / "proteins.txt.gz"
    with open(PROTEINS, "rb") as f:
        hidden.write_bytes(gzip.compress(f.read()))
    again = posgeo.analyze(str(hidden), tokenizer="chars", max_len=256, d=64, progress=False)
    same_numbers(again.to_dict(), theirs)


def test_a_malformed_fasta_is_refused_with_its_line(tmp_path):
    bad = tmp_path / "bad.fa"
    bad.write_text(">a\nMKV\n>empty\n>c\nLL\n")
    with pytest.raises(posgeo.InputError, match="line 3.*no residues"):
        posgeo.analyze(str(bad), tokenizer="chars", progress=False)
