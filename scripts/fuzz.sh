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
TARGETS=${1:-"corpus tables url counts"}
SECONDS_EACH=${2:-300}
for t in $TARGETS; do
  mkdir -p "corpus/$t"
  cp -n seeds/"$t"/* "corpus/$t/" 2>/dev/null || true
  echo "== fuzzing $t for $SECONDS_EACH s =="
  cargo +nightly fuzz run "$t" -O "corpus/$t" -- -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1
done
