#!/usr/bin/env python3
"""The Python package against the CLI and the numpy/scipy baseline, in one run: the seconds of
`posgeo analyze --json` (release), of `posgeo.analyze(path)` and of bench/baseline.py on the same
corpus and options (whitespace tokens, the defaults otherwise), best of --repeat each, as one
JSON line with the ratios. Run by bench/python.sh."""
import argparse
import json
import os
import subprocess
import sys
import time

import posgeo

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def best(f, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    cli = os.path.join(ROOT, "target", "release", "posgeo")
    run_cli = lambda: subprocess.run([cli, "analyze", "--json", "--tokenizer", "whitespace", a.corpus], check=True,
                                     stdout=subprocess.DEVNULL)
    run_py = lambda: posgeo.analyze(a.corpus, tokenizer="whitespace", progress=False)
    run_base = lambda: subprocess.run([sys.executable, os.path.join(ROOT, "bench", "baseline.py"), a.corpus],
                                      check=True, stdout=subprocess.DEVNULL)
    # The same numbers first (the package is the CLI's engine).
    ours = run_py().to_dict()
    theirs = json.loads(subprocess.run([cli, "analyze", "--json", "--tokenizer", "whitespace", a.corpus], check=True,
                                       capture_output=True).stdout)
    assert ours == theirs, "posgeo.analyze and the CLI disagree"
    t_cli, t_py = best(run_cli, a.repeat), best(run_py, a.repeat)
    t_base = best(run_base, 1)
    print(json.dumps({"corpus": os.path.basename(a.corpus), "cli_s": round(t_cli, 3), "python_s": round(t_py, 3),
                      "baseline_s": round(t_base, 3), "python_over_cli": round(t_py / t_cli, 3),
                      "baseline_over_python": round(t_base / t_py, 1)}))


if __name__ == "__main__":
    main()
