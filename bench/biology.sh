#!/usr/bin/env bash
# FASTA against plain text of the same size (docs/MATH.md §17): `posgeo count` of the shipped
# proteins repeated to SIZE_MB as FASTA (60-residue lines, the `chars` tokenizer) beside Genesis
# repeated to the same size as text (the `words` tokenizer), best of 5 each, in one run; then the
# random band's share of an analysis (crates/bench/examples/band_cost.rs) on the built-in corpus,
# Genesis and the proteins. `bash bench/bench.sh biology` (env SIZE_MB, default 64).
set -euo pipefail
cd "$(dirname "$0")/.."
size=$(( ${SIZE_MB:-64} * 1000000 ))
dir=bench-data/biology
mkdir -p "$dir"
cargo build --release -q -p posgeo-cli -p posgeo-bench --example band_cost
bin=target/release/posgeo
python3 - "$size" "$dir" <<'PY'
import sys
size, out = int(sys.argv[1]), sys.argv[2]
records, cur = [], None
for line in open("www/corpora/proteins.faa"):
    if line.startswith(">"):
        cur = [line.strip(), ""]
        records.append(cur)
    else:
        cur[1] += line.strip()
with open(f"{out}/proteins.faa", "w") as f:
    written, k = 0, 0
    while written < size:
        head, seq = records[k % len(records)]
        text = f"{head} copy {k}\n" + "".join(seq[i:i + 60] + "\n" for i in range(0, len(seq), 60))
        f.write(text)
        written += len(text)
        k += 1
genesis = open("www/corpora/kjv-genesis.txt").read()
with open(f"{out}/genesis.txt", "w") as f:
    written = 0
    while written < size:
        f.write(genesis)
        written += len(genesis)
PY
best() {
  local t=999
  for _ in 1 2 3 4 5; do
    local s e
    s=$(date +%s.%N)
    "$@" > /dev/null
    e=$(date +%s.%N)
    t=$(python3 -c "print(min($t, $e - $s))")
  done
  echo "$t"
}
fasta=$(best "$bin" count "$dir/proteins.faa" --tokenizer chars --max-len 256 --output /dev/null)
words=$(best "$bin" count "$dir/genesis.txt" --max-len 256 --output /dev/null)
python3 - "$fasta" "$words" "$dir" <<'PY'
import os, sys
fasta, words, d = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
fb, wb = os.path.getsize(f"{d}/proteins.faa"), os.path.getsize(f"{d}/genesis.txt")
print(f"FASTA + chars: {fb / 1e6:.0f} MB in {fasta:.2f} s ({fb / fasta / 1e6:.0f} MB/s)")
print(f"text + words:  {wb / 1e6:.0f} MB in {words:.2f} s ({wb / words / 1e6:.0f} MB/s)")
print(f"FASTA reading and counting at {words / fasta * fb / wb:.2f}x the speed of words on text (≥ 1 is the target)")
PY
target/release/posgeo synth > "$dir/synth.txt"
for args in "$dir/synth.txt" "www/corpora/kjv-genesis.txt" "www/corpora/proteins.faa chars"; do
  # shellcheck disable=SC2086
  target/release/examples/band_cost $args
done
