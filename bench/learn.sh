#!/usr/bin/env bash
# The learning experiment's speed (docs/PERFORMANCE.md, "Learning"): the default run (nine
# signals, one seed, 400 steps) on the built-in corpus, and training tokens per second of one
# signal natively on 1 and 2 threads against the same model in JAX (float32, jitted) on the
# same threads. Needs `bash scripts/setup.sh` (.venv with jax).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --bin posgeo -q
bin=target/release/posgeo
out=bench-data/learn
mkdir -p "$out"
"$bin" synth > "$out/corpus.txt"
tokens_per_s() { # threads
  local start end
  start=$(date +%s.%N)
  RAYON_NUM_THREADS=$1 "$bin" train "$out/corpus.txt" --signals learned --steps 100 --json > /dev/null 2>&1
  end=$(date +%s.%N)
  # 100 steps of 32 sequences of the corpus's 64 tokens.
  python3 -c "print(f'{100*32*64/($end-$start):.0f}')"
}
echo "posgeo, default run (9 signals x 400 steps, every core):"
/usr/bin/time -f "  %e s, peak %M KB" "$bin" train "$out/corpus.txt" > "$out/default.txt"
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
