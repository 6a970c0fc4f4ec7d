#!/usr/bin/env bash
# The model's layer pass: posgeo's native pass (posgeo-bench --layers:
# posgeo::model::run, the centroid sums included) against a NumPy float32 forward pass
# (bench/layers_numpy.py) over exactly the same batches, on www/corpora/kjv-genesis.txt with
# all-MiniLM-L6-v2, at the paper's setting (pad, max_len 64, 256 sequences) and in mode
# condition, with 1 and 2 threads (RAYON_NUM_THREADS = OPENBLAS_NUM_THREADS for both), and the
# peak resident memory of each process (/usr/bin/time -v). Tokens per second count the padded
# tokens run, Σ B×T over the batches. Writes bench-data/layers/ and prints a markdown table.
#   bench/layers.sh            (REPEAT=3, PYTHON=.venv/bin/python or python3 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
"$PY" -c "import numpy" 2>/dev/null || "$PY" -m pip install -q numpy
"$PY" -c "import scipy" 2>/dev/null || "$PY" -m pip install -q scipy
[ -x /usr/bin/time ] || apt-get install -y -q time >/dev/null
MODEL=www/models/all-MiniLM-L6-v2
CORPUS=www/corpora/kjv-genesis.txt
MAX_LEN=64 SEQS=256 REPEAT=${REPEAT:-3}
[ -f "$MODEL/model.safetensors" ] || python3 scripts/minilm.py --weights
cargo build --release -q --bin posgeo-bench
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
out=bench-data/layers
mkdir -p "$out"
rows="$out/results.jsonl"
: > "$rows"
peak_kb() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"; }
for mode in pad condition; do
  for threads in 1 2; do
    tag="$mode-$threads"
    export RAYON_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads
    /usr/bin/time -v -o "$out/$tag.posgeo.time" ./target/release/posgeo-bench --layers "$MODEL" "$CORPUS" \
      --mode "$mode" --max-len "$MAX_LEN" --layer-sequences "$SEQS" --repeat "$REPEAT" \
      --dump-batches "$out/$tag.batches.json" > "$out/$tag.posgeo.json"
    /usr/bin/time -v -o "$out/$tag.numpy.time" "$PY" bench/layers_numpy.py "$MODEL" "$out/$tag.batches.json" \
      --repeat "$REPEAT" > "$out/$tag.numpy.json"
    "$PY" - "$out/$tag.posgeo.json" "$(peak_kb "$out/$tag.posgeo.time")" \
      "$out/$tag.numpy.json" "$(peak_kb "$out/$tag.numpy.time")" "$threads" >> "$rows" <<'PY'
import json, sys
p, pk, n, nk, threads = sys.argv[1:]
p, n = json.load(open(p)), json.load(open(n))
p["peak_kb"], n["peak_kb"] = int(pk), int(nk)
print(json.dumps({"threads": int(threads), "posgeo": p, "numpy": n}))
PY
  done
done
unset RAYON_NUM_THREADS OPENBLAS_NUM_THREADS
"$PY" - "$rows" "$out/results.md" "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
mb = lambda kb: f"{kb / 1024:.0f}"
t = ["| setting | threads | posgeo tok/s | numpy f32 tok/s | ratio | posgeo peak MB | numpy peak MB |",
     "|---|---|---|---|---|---|---|"]
extra = ["", "| setting | threads | sequences | batches | n_L | tokens run (Σ B×T) | real tokens | posgeo s | numpy s | posgeo forward only tok/s |",
         "|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    p, n = r["posgeo"], r["numpy"]
    assert p["tokens_run"] == n["tokens_run"] and p["batches"] == n["batches"], "not the same batches"
    paper = " (paper)" if p["mode"] == "pad" else ""
    s = f"{p['mode']}, max_len {p['max_len']}, S = {p['sequences']}{paper}"
    t.append(f"| {s} | {r['threads']} | {p['tokens_per_second']:,.0f} | {n['tokens_per_second']:,.0f} | "
             f"{p['tokens_per_second'] / n['tokens_per_second']:.2f}× | {mb(p['peak_kb'])} | {mb(n['peak_kb'])} |")
    extra.append(f"| {s} | {r['threads']} | {p['sequences']} | {p['batches']} | {p['positions']} | {p['tokens_run']} | "
                 f"{p['tokens_real']} | {p['seconds']:.3f} | {n['seconds']:.3f} | {p['forward_tokens_per_second']:,.0f} |")
n = rows[0]["numpy"]
blas = n["blas"]
if isinstance(blas, list):  # threadpoolctl: numpy's own OpenBLAS (scipy may load another)
    blas = next((b for b in blas if "numpy" in (b.get("filepath") or "")), blas[0] if blas else None)
note = [f"", f"ratio = posgeo / numpy; best of the runs; peak MB = maximum resident set size / 1024 (KiB → MiB), "
        f"whole process (model load included). numpy {n['numpy']}, BLAS {json.dumps(blas)}, erf: {n['erf']}. Load average (1, 5, 15 min) "
        f"before {sys.argv[3]}, after {sys.argv[4]} (other work on the machine skews the numbers)."]
text = "\n".join(t + extra + note)
open(sys.argv[2], "w").write(text + "\n")
print(text)
PY
