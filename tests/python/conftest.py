"""Shared fixtures of the Python package's tests: the CLI they are checked against
(POSGEO_BIN, else target/debug/posgeo), the corpora, and temporary files."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
GENESIS = os.path.join(ROOT, "www", "corpora", "kjv-genesis.txt")
REFERENCE = os.path.join(ROOT, "tests", "data", "reference_corpus.txt")


def cli(*args, stdin=None):
    """`posgeo analyze --json ARGS`, parsed."""
    binary = os.environ.get("POSGEO_BIN") or os.path.join(ROOT, "target", "debug", "posgeo")
    out = subprocess.run([binary, "analyze", "--json", *map(str, args)], input=stdin, capture_output=True, check=False)
    assert out.returncode == 0, out.stderr.decode()
    return json.loads(out.stdout)


def same_numbers(ours, theirs, rel=1e-9, layer_tol=None):
    """Every encoding row of two reports agrees (relative 1e-9; layer rows to `layer_tol`)."""
    assert list(ours["encodings"]) == list(theirs["encodings"])
    for name, row in theirs["encodings"].items():
        for key, want in row.items():
            got = ours["encodings"][name][key]
            if want is None or isinstance(want, str):
                assert got == want, (name, key, got, want)
                continue
            tol = layer_tol if (layer_tol and name.startswith("layer")) else rel * max(1.0, abs(want))
            assert abs(got - want) <= tol, (name, key, got, want)


@pytest.fixture(scope="session")
def genesis_lines():
    with open(GENESIS, encoding="utf-8") as f:
        return f.read().splitlines()
