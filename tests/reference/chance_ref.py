#!/usr/bin/env python3
"""An independent check of the chance rule (docs/MATH.md §17) with numpy.

Input (JSON on stdin): {"report": the `posgeo analyze --json --claims` object of a run with
seed 0, "tables": [{"scaled_stress", "spearman"} of the `random` row of the same run with
--seed k, for k = 1..K]}. The random tables themselves come from Rust's ChaCha8 stream, which
this script does not re-implement; each one's σ* and Spearman are measured by posgeo's main
stress path (itself checked against posgeo_ref.py), while the band is computed apart.

Output (JSON on stdout): the band (min, median, max of σ* and of Spearman), the verdict's
best_by_stress and best_by_order, and whether each of the three claims holds, computed here
from the rule's words.
"""
import json
import sys

import numpy as np

FIXED = ["sinusoidal", "rope", "alibi"]


def spread(values):
    v = np.array([x for x in values if x is not None], dtype=np.float64)
    if v.size == 0:
        return None
    return {"min": float(v.min()), "median": float(np.median(v)), "max": float(v.max())}


def main():
    data = json.load(sys.stdin)
    report, tables = data["report"], data["tables"]
    band = {
        "k": len(tables),
        "scaled_stress": spread([t["scaled_stress"] for t in tables]),
        "spearman": spread([t["spearman"] for t in tables]),
    }
    enc = report["encodings"]
    s = band["scaled_stress"]
    ranked = sorted((enc[n]["scaled_stress"], n) for n in FIXED if n in enc)
    best_by_stress = None
    if ranked:
        best, runner = ranked[0], ranked[1] if len(ranked) > 1 else None
        width = s["max"] - s["min"]
        if best[0] < s["min"] and (runner is None or runner[0] - best[0] > width):
            best_by_stress = best[1]
    rhos = [(enc[n]["spearman"], -k, n) for k, n in enumerate(FIXED) if n in enc and enc[n]["spearman"] is not None]
    best_by_order = None
    if rhos:
        rho, _, name = max(rhos)
        if band["spearman"] is None or rho > band["spearman"]["max"]:
            best_by_order = name
    sin = enc["sinusoidal"]
    claims = {
        "sinusoids_close": sin["scaled_stress"] <= 0.1,
        "sinusoids_beat_random": sin["scaled_stress"] < s["min"],
        "sinusoids_follow_order": (
            None if sin["spearman"] is None or band["spearman"] is None else sin["spearman"] > band["spearman"]["max"]
        ),
    }
    json.dump({"random_band": band, "best_by_stress": best_by_stress, "best_by_order": best_by_order, "claims": claims}, sys.stdout)


if __name__ == "__main__":
    main()
