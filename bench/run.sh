#!/usr/bin/env bash
# The engine benchmark: posgeo (release) against a straightforward numpy/scipy pipeline
# (bench/baseline.py) and a careful one (bench/careful.py), per stage, on an IMDB-sized and an SST-2-sized corpus generated
# reproducibly by bench/make_corpora.py and an IMDB-sized one of real prose (bench/stitch_corpus.py); plus the eigensolvers (faer vs nalgebra), an
# n = 2048 run and an n = 4096 run at the defaults (time and peak memory). Writes
# bench-data/results.md, whose figures docs/PERFORMANCE.md's "Current figures" table takes (that
# page no longer has the bench/run.sh markers the last step below fills, so the step leaves it
# as it is). Needs numpy and scipy (installed with pip).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c "import numpy, scipy" 2>/dev/null || python3 -m pip install -q numpy scipy
python3 bench/make_corpora.py bench-data >/dev/null
# An IMDB-sized corpus of real English prose (case, punctuation, non-ASCII kept).
[ -f bench-data/stitched.txt ] || python3 bench/stitch_corpus.py bench-data/stitched.txt
cargo build --release -q --bin posgeo --bin posgeo-bench
[ -f bench-data/synth2048.txt ] || ./target/release/posgeo synth --positions 2048 --sequences 1500 --vocab 2000 --width 100 --regimes 8 > bench-data/synth2048.txt
out=bench-data/results.jsonl
: > "$out"
for c in imdb stitched sst2; do
  ./target/release/posgeo-bench "bench-data/$c.txt" --repeat 3 --eigen | sed "s/^{/{\"impl\":\"posgeo\",/" >> "$out"
  python3 bench/baseline.py "bench-data/$c.txt" --repeat 1 | sed "s/^{/{\"impl\":\"numpy\",/" >> "$out"
  python3 bench/careful.py "bench-data/$c.txt" --repeat 1 | sed "s/^{/{\"impl\":\"careful\",/" >> "$out"
done
for it in 0 20; do
  ./target/release/posgeo-bench bench-data/synth2048.txt --max-len 2048 --repeat 1 --eigen --smacof-iter "$it" \
    | sed "s/^{/{\"impl\":\"posgeo-smacof$it\",/" >> "$out"
done
# n = 2048 end to end: the CLI (rank curve, Procrustes and all) without SMACOF iterations and
# at the defaults, against the baseline without SMACOF (the issue's reference).
python3 bench/baseline.py bench-data/synth2048.txt --max-len 2048 --smacof-iter 0 | sed "s/^{/{\"impl\":\"numpy-2048\",/" >> "$out"
for it in 0 500; do
  python3 - "$it" >> "$out" <<'PY'
import json, subprocess, sys, time
t = time.perf_counter()
subprocess.run(["./target/release/posgeo", "analyze", "bench-data/synth2048.txt", "--tokenizer", "whitespace",
                "--max-len", "2048", "--smacof-iter", sys.argv[1]], check=True, stdout=subprocess.DEVNULL)
print(json.dumps({"impl": "cli-2048", "smacof_iter": int(sys.argv[1]), "total": time.perf_counter() - t}))
PY
done
# n = 4096 end to end at the defaults (no baseline: its O(n³) monotonicity alone takes minutes),
# with the peak resident memory (/usr/bin/time), on every core and on one.
[ -f bench-data/synth4096.txt ] || ./target/release/posgeo synth --positions 4096 --sequences 1000 --vocab 2000 --width 200 --regimes 8 > bench-data/synth4096.txt
for threads in 0 1; do
  python3 - "$threads" >> "$out" <<'PY'
import json, os, subprocess, sys, time
env = dict(os.environ, **({"RAYON_NUM_THREADS": sys.argv[1]} if sys.argv[1] != "0" else {}))
t = time.perf_counter()
run = subprocess.run(["/usr/bin/time", "-f", "%M", "./target/release/posgeo", "analyze", "bench-data/synth4096.txt",
                      "--max-len", "4096", "--json"], check=True, capture_output=True, text=True, env=env)
secs = time.perf_counter() - t
r = json.loads(run.stdout)
print(json.dumps({"impl": "cli-4096", "threads": int(sys.argv[1]), "total": secs, "n": r["n"],
                  "peak_mb": int(run.stderr.strip().splitlines()[-1]) * 1024 / 1e6,
                  "smacof": [r["encodings"]["smacof"]["iterations"], r["encodings"]["smacof"]["stopped"]]}))
PY
done
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
stages = ["read_tokenize_count", "distances", "mds", "encodings_stress_monotonicity", "total"]
lines = ["| corpus | n | |V| | stage | posgeo (s) | numpy/scipy (s) | speed-up | careful numpy/scipy (s) | speed-up |",
         "|---|---|---|---|---|---|---|---|---|"]
for c in ["imdb", "stitched", "sst2"]:
    p = next(r for r in rows if r["impl"] == "posgeo" and c in r["corpus"])
    b = next(r for r in rows if r["impl"] == "numpy" and c in r["corpus"])
    k = next(r for r in rows if r["impl"] == "careful" and c in r["corpus"])
    for s in stages:
        lines.append(f"| {c} | {p['n']} | {p['vocab_size']} | {s} | {p[s]:.3f} | {b[s]:.3f} | {b[s]/p[s]:.1f}× | {k[s]:.3f} | {k[s]/p[s]:.1f}× |")
    lines.append(f"| {c} | {p['n']} | | eigensolver only: faer / nalgebra | {p['eigen_faer']:.3f} | (nalgebra {p['eigen_nalgebra']:.3f}) | {p['eigen_nalgebra']/p['eigen_faer']:.1f}× | | |")
    lines.append(f"| {c} | {p['n']} | | pipeline: the whole analysis in memory, against the baselines' totals | {p['pipeline']:.3f} | {b['total']:.3f} | {b['total']/p['pipeline']:.1f}× | {k['total']:.3f} | {k['total']/p['pipeline']:.1f}× |")
for r in rows:
    if r["impl"].startswith("posgeo-smacof"):
        lines.append(f"| synth n=2048, {r['impl'][13:]} SMACOF iterations | {r['n']} | {r['vocab_size']} | total (MDS {r['mds']:.2f}, faer eigen {r['eigen_faer']:.2f}, nalgebra eigen {r['eigen_nalgebra']:.2f}) | {r['total']:.2f} | | | | |")
base = next(r for r in rows if r["impl"] == "numpy-2048")
for r in rows:
    if r["impl"] == "cli-2048":
        lines.append(f"| synth n=2048, CLI end to end, SMACOF cap {r['smacof_iter']} | 2048 | 2000 | total | {r['total']:.2f} | {base['total']:.2f} (no SMACOF) | {base['total']/r['total']:.1f}× | | |")
for r in rows:
    if r["impl"] == "cli-4096":
        cores = "one thread" if r["threads"] == 1 else "every core"
        lines.append(f"| synth n={r['n']}, CLI end to end, the defaults ({cores}; SMACOF {r['smacof'][0]} iterations, {r['smacof'][1]}; peak {r['peak_mb']:.0f} MB) | {r['n']} | 2000 | total | {r['total']:.2f} | | | | |")
open("bench-data/results.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
# docs/PERFORMANCE.md between its bench/run.sh markers, if it has them: date, machine, this run.
import os, platform, re
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
mem = next((int(l.split()[1]) // 1024 // 1024 for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
head = (f"Measured by `bash bench/run.sh` on {os.cpu_count()} cores of {cpu}, "
        f"{mem} GiB; every ratio is posgeo (release) against the numpy/scipy baselines in the same run: the straightforward "
        f"one (bench/baseline.py) and the careful one (bench/careful.py).")
block = "<!-- bench/run.sh:begin -->\n" + head + "\n\n" + "\n".join(lines) + "\n<!-- bench/run.sh:end -->"
doc = open("docs/PERFORMANCE.md").read()
doc = re.sub(r"<!-- bench/run.sh:begin -->.*?<!-- bench/run.sh:end -->", lambda _: block, doc, flags=re.S)
open("docs/PERFORMANCE.md", "w").write(doc)
PY
