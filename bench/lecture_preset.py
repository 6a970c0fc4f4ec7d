#!/usr/bin/env python3
"""Chooses the learning experiment's lecture preset by measurement (docs/MATH.md §16): on
several corpora, the default run's verdicts beside each candidate's — learned and sinusoidal
below `nope` in held-out loss (the claim `position_helps`), the learned table's final
separation above zero and above its initial one, its final monotonicity violation rate below
its initial one, and the sign of ρ — with each run's time. The smallest candidate that agrees
with the default run everywhere, with every verdict determined, is the preset.

Usage: lecture_preset.py POSGEO [--only CANDIDATE,…] [--corpora K,…]   (prints a Markdown table;
the default run is always measured first)
"""
import json
import subprocess
import sys
import time

CORPORA = [
    ("built-in synthetic", None, []),
    ("Genesis (English)", "www/corpora/kjv-genesis.txt", []),
    ("proteins (Swiss-Prot)", "www/corpora/proteins.faa", ["--tokenizer", "chars", "--max-len", "256"]),
]
CANDIDATES = {
    "default": [],
    "4 signals × 400 steps, batch 32": ["--signals", "nope,sinusoidal,learned,pmds", "--steps", "400", "--every", "5"],
    "4 signals × 300 steps, batch 32": ["--signals", "nope,sinusoidal,learned,pmds", "--steps", "300", "--every", "5"],
    "4 signals × 200 steps, batch 32": ["--signals", "nope,sinusoidal,learned,pmds", "--steps", "200", "--every", "5"],
    "4 signals × 150 steps, batch 32": ["--signals", "nope,sinusoidal,learned,pmds", "--steps", "150", "--every", "5"],
    "4 signals × 100 steps, batch 32": ["--signals", "nope,sinusoidal,learned,pmds", "--steps", "100", "--every", "5"],
    "4 signals × 100 steps, batch 16": ["--signals", "nope,sinusoidal,learned,pmds", "--steps", "100", "--every", "5", "--batch", "16"],
    "4 signals × 400 steps, batch 16": ["--signals", "nope,sinusoidal,learned,pmds", "--steps", "400", "--every", "20", "--batch", "16"],
    "4 signals × 300 steps, batch 16": ["--signals", "nope,sinusoidal,learned,pmds", "--steps", "300", "--every", "15", "--batch", "16"],
    "4 signals × 200 steps, batch 16": ["--signals", "nope,sinusoidal,learned,pmds", "--steps", "200", "--every", "10", "--batch", "16"],
    "4 signals × 300 steps, batch 32, every 15": ["--signals", "nope,sinusoidal,learned,pmds", "--steps", "300", "--every", "15"],
}


def verdicts(exp):
    claims = {c["key"]: c["holds"] for c in exp.get("claims", [])}
    learned = next((r for r in exp["runs"] if r["signal"] == "learned" and not r.get("error")), None)
    tables = [rec["table"] for rec in learned["records"] if rec.get("table")] if learned else []
    sep = None if len(tables) < 2 else (tables[-1]["separation"] > 0 and tables[-1]["separation"] > tables[0]["separation"])
    mono = None
    if len(tables) >= 2 and tables[0]["monotonicity"] is not None and tables[-1]["monotonicity"] is not None:
        mono = tables[-1]["monotonicity"] < tables[0]["monotonicity"]
    rho = exp["finding"]["rho"]
    sign = None if rho is None else (rho > 0) - (rho < 0)
    return {"position helps": claims.get("position_helps"), "separates": sep, "monotone": mono, "sign of ρ": sign}


def main():
    posgeo = sys.argv[1]
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    which = sys.argv[sys.argv.index("--corpora") + 1].split(",") if "--corpora" in sys.argv else None
    cands = {k: v for k, v in CANDIDATES.items() if only is None or k == "default" or k.split(",")[0] in only}
    print("| corpus | run | position helps | separates | monotone | sign of ρ | agrees | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for k, (name, path, extra) in enumerate(CORPORA):
        if which is not None and str(k) not in which:
            continue
        if path is None:
            synth = subprocess.run([posgeo, "synth"], capture_output=True, check=True).stdout
            source = {"input": synth, "args": []}
        else:
            source = {"input": None, "args": [path]}
        want = None
        for cand, args in cands.items():
            t = time.time()
            out = subprocess.run([posgeo, "train", *source["args"], *extra, *args, "--json", "--claims"],
                                 input=source["input"], capture_output=True, check=True).stdout
            secs = time.time() - t
            v = verdicts(json.loads(out))
            if want is None:
                want = v
            agrees = v == want and all(x is not None for x in v.values())
            cells = " | ".join("—" if x is None else str(x) for x in v.values())
            print(f"| {name} | {cand} | {cells} | {'yes' if agrees else 'no'} | {secs:.1f} |", flush=True)


if __name__ == "__main__":
    main()
