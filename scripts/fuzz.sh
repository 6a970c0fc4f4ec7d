#!/usr/bin/env bash
# Fuzzes posgeo's parsers with cargo-fuzz (libFuzzer), outside the stable test command.
#   bash scripts/fuzz.sh                 # every target, 300 s each
#   bash scripts/fuzz.sh tables 3600     # one target, one hour
# Installs a nightly toolchain and cargo-fuzz when missing. Seeds: fuzz/seeds/<target>/;
# the growing corpus: fuzz/corpus/<target>/; crashes: fuzz/artifacts/<target>/ (each one
# found becomes a regression test in crates/core/tests/hostile.rs or the module's tests).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
export PATH="$HOME/.cargo/bin:$PATH"
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
TARGETS=${1:-"corpus tables url counts gguf pickle"}
SECONDS_EACH=${2:-300}
# The model files' seeds are written by the tests' own generators (tiny, random weights;
# not tracked: fuzz/.gitignore).
py=../.venv/bin/python; [ -x "$py" ] || py=python3
if [ ! -d seeds/gguf ] || [ ! -d seeds/pickle ]; then
  tmp=$(mktemp -d)
  mkdir -p seeds/gguf seeds/pickle
  "$py" ../tests/reference/tiny_decoder.py "$tmp/f32" --arch llama --preset small --gguf seeds/gguf/llama-F32.gguf >/dev/null
  for q in Q4_0 Q8_0 Q4_K; do
    "$py" ../tests/reference/tiny_decoder.py "$tmp/d-$q" --arch llama --preset quant --gguf "seeds/gguf/llama-$q.gguf" --qtype "$q" >/dev/null
  done
  "$py" ../tests/reference/tiny_decoder.py "$tmp/gpt2" --arch gpt2 --preset small --gguf seeds/gguf/gpt2.gguf >/dev/null
  "$py" ../tests/reference/tiny_decoder.py "$tmp/bin" --arch llama --preset small --format bin >/dev/null
  cp "$tmp"/bin/*.bin seeds/pickle/
  rm -rf "$tmp"
fi
for t in $TARGETS; do
  mkdir -p "corpus/$t"
  cp -n seeds/"$t"/* "corpus/$t/" 2>/dev/null || true
  echo "== fuzzing $t for $SECONDS_EACH s =="
  # Model files are larger than the other inputs: their seeds must fit whole.
  case "$t" in gguf | pickle) max_len=2097152 ;; *) max_len=65536 ;; esac
  cargo +nightly fuzz run "$t" -O "corpus/$t" -- -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=4096 -max_len="$max_len" -print_final_stats=1
done
