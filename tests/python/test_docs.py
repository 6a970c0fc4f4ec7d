"""docs/PYTHON.md's worked example runs as written (its ```python blocks, in order, in one
namespace, from the repository's root)."""
import os
import re

from conftest import ROOT


def test_the_worked_example_runs(monkeypatch, capsys):
    with open(os.path.join(ROOT, "docs", "PYTHON.md"), encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    assert len(blocks) == 4
    monkeypatch.chdir(ROOT)
    namespace = {}
    for block in blocks:
        exec(compile(block, "docs/PYTHON.md", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "this corpus" in printed and "layer 6: σ* =" in printed and "held-out loss" in printed
    assert namespace["out"]["positions"] == namespace["k"] >= 2
    assert len(namespace["tracker"]) == 6 and list(namespace["curves"]["step"]) == [0, 10, 20, 30]
