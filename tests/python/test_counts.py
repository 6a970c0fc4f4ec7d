"""posgeo.count and posgeo.Counts mirror `posgeo count`, `merge` and `analyze --counts`."""
import subprocess

import posgeo
from conftest import GENESIS, cli, same_numbers


def test_count_save_load_analyze_equals_the_cli(tmp_path, genesis_lines):
    counts = posgeo.count(GENESIS, mode="pad", max_len=48, progress=False)
    assert counts.mode == "pad" and counts.positions == 48
    path = tmp_path / "genesis.csv.gz"
    counts.save(path)
    back = posgeo.Counts.load(path)
    assert back.mode == "pad"
    theirs = cli("--counts", path)
    same_numbers(back.analyze(progress=False).to_dict(), theirs)
    same_numbers(counts.analyze(progress=False).to_dict(), theirs)
    # The two halves of the corpus, merged, are the whole.
    half = len(genesis_lines) // 2
    parts = [posgeo.count(genesis_lines[:half], progress=False), posgeo.count(genesis_lines[half:], progress=False)]
    merged = posgeo.Counts.merge(parts)
    whole = posgeo.count(genesis_lines, progress=False)
    a, b = tmp_path / "merged.csv", tmp_path / "whole.csv"
    merged.save(a)
    whole.save(b)
    assert a.read_bytes() == b.read_bytes()


def test_a_csv_column_is_read_as_the_cli_reads_it(tmp_path, genesis_lines):
    path = tmp_path / "g.csv"
    path.write_text("id,text\n" + "".join(f'{k},"{line}"\n' for k, line in enumerate(genesis_lines[:600])))
    theirs = cli("--column", "text", path)
    ours = posgeo.analyze(path, column="text", progress=False).to_dict()
    assert ours == theirs


def test_the_cli_reads_what_the_package_saves(tmp_path):
    path = tmp_path / "c.csv"
    posgeo.count(GENESIS, progress=False).save(path)
    head = path.read_text().splitlines()[0]
    assert head.startswith("position,token,count")
    assert subprocess.run(["gzip", "-t", str(path)], capture_output=True).returncode != 0, "plain CSV"
