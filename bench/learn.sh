#!/usr/bin/env bash
# The learning experiment's speed (docs/PERFORMANCE.md, "Learning"):
# 1. training tokens per second on one thread at the default shape (B = 32, n = 64, d = 64,
#    L = 2, H = 4, |V| = 2,003): the fused trainer against the candle graph (its oracle) and
#    PyTorch eager (the `tools` peer, installed into bench-data/torch-venv by this script alone:
#    its wheel and CUDA libraries are several GB), interleaved three times, best of each; with
#    the fused trainer's time and fraction of peak per stage;
# 2. one signal on the built-in corpus on 1 and 2 threads against the same model in JAX
#    (float32, jitted; `bench/learn_jax.py` replaying a `--dump`);
# 3. the default run (nine signals, one seed, 400 steps) on the built-in corpus and on Genesis
#    (|V| = 2,003), with peak memory; and one run at 512 training positions.
# Needs `bash scripts/setup.sh` (.venv with jax). PEER=path/to/torch_learn.py overrides the peer.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --bin posgeo -p posgeo-cli -q
cargo build --release -p posgeo-bench --example learn_step -q
bin=target/release/posgeo
example=target/release/examples/learn_step
out=bench-data/learn
mkdir -p "$out"
peer="${PEER:-../shared/tools/torch_learn.py}"
torch=bench-data/torch-venv/bin/python
if [ -f "$peer" ] && ! "$torch" -c "import torch" 2>/dev/null; then
  python3 -m venv bench-data/torch-venv
  bench-data/torch-venv/bin/pip install -q --disable-pip-version-check torch
fi

echo "== 1. tokens/s per thread at the default shape, |V| = 2,003 (best of 3, interleaved)"
best() { sort -g | tail -n 1; }
fused=() torchs=()
for rep in 1 2 3; do
  fused+=("$(RAYON_NUM_THREADS=1 STEPS=100 CANDLE=0 "$example" | sed -n 's/.*, \([0-9]*\) tokens\/s.*/\1/p')")
  if [ -f "$peer" ]; then
    torchs+=("$("$torch" "$peer" 100 1 64 | sed -n 's/.*, \([0-9,]*\) tokens\/s/\1/p' | tr -d ,)")
  fi
done
RAYON_NUM_THREADS=1 STEPS=50 "$example"
f=$(printf '%s\n' "${fused[@]}" | best)
echo "fused: ${fused[*]} tokens/s (best $f)"
if [ -f "$peer" ]; then
  t=$(printf '%s\n' "${torchs[@]}" | best)
  echo "PyTorch eager: ${torchs[*]} tokens/s (best $t); fused/PyTorch = $(python3 -c "print(f'{$f/$t:.2f}')")x"
fi

echo "== 2. one signal on the built-in corpus against JAX"
"$bin" synth > "$out/corpus.txt"
tokens_per_s() { # threads
  local start end
  start=$(date +%s.%N)
  RAYON_NUM_THREADS=$1 "$bin" train "$out/corpus.txt" --signals learned --steps 100 --json > /dev/null 2>&1
  end=$(date +%s.%N)
  # 100 steps of 32 sequences of the corpus's 64 tokens.
  python3 -c "print(f'{100*32*64/($end-$start):.0f}')"
}
rm -rf "$out/dump"
"$bin" train "$out/corpus.txt" --signals learned --steps 100 --dump "$out/dump" > /dev/null
for t in 1 2; do
  ours=$(tokens_per_s "$t")
  if [ "$t" = 1 ]; then
    flags="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
  else
    flags=""
  fi
  jax=$(XLA_FLAGS="$flags" .venv/bin/python bench/learn_jax.py "$out/dump" --threads "$t" |
    python3 -c "import json,sys; print(round(json.load(sys.stdin)['tokens_per_s']))")
  python3 -c "print(f'threads $t: posgeo $ours tokens/s, JAX $jax tokens/s, ratio {$ours/$jax:.2f}x')"
done

echo "== 3. the default run (9 signals x 400 steps, every core)"
/usr/bin/time -f "  built-in corpus: %e s, peak %M KB" "$bin" train "$out/corpus.txt" > "$out/default.txt"
/usr/bin/time -f "  Genesis (|V| = 2,003): %e s, peak %M KB" "$bin" train www/corpora/kjv-genesis.txt > "$out/genesis.txt"
"$bin" synth --positions 512 --sequences 400 > "$out/long.txt" 2>/dev/null || "$bin" synth > "$out/long.txt"
/usr/bin/time -f "  512 training positions, learned, 20 steps: %e s, peak %M KB" \
  "$bin" train "$out/long.txt" --signals learned --steps 20 --positions 512 > /dev/null
