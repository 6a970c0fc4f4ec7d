#!/usr/bin/env bash
# posgeo's benchmarks under one runner: `bash bench/bench.sh QUESTION [ARGS…]`, one question
# per entry; without a question, the list. Each entry measures posgeo against a named baseline
# in the same run and prints or writes its figures (docs/PERFORMANCE.md says how to read them).
# The tab's questions need a built site (`trunk build --release`) and `bash scripts/setup.sh`'s
# Chromium and Node packages; several need the corpora `bench/run.sh` makes in bench-data/.
set -euo pipefail
cd "$(dirname "$0")/.."

questions() {
  cat <<'LIST'
stages            each stage natively (divan) beside its straightforward baseline: cargo bench -p posgeo-bench
engine            the whole pipeline natively, IMDB-, SST-2-sized and long corpora, against numpy/scipy (bench/run.sh)
tokenizers        counting with model tokenizers against the `words` tokenizer (bench/tokenizers.sh)
layers            a model's layer pass against a NumPy float32 forward pass (bench/layers.sh)
biology           FASTA + chars against text + words of the same size, and the random band's share of an analysis (bench/biology.sh)
learn             the learning experiment: the default run, tokens/s against JAX (bench/learn.sh)
python            the Python package against the CLI and numpy/scipy (bench/python.sh)
tab-load          the page: first dashboard and uploads to the dashboard, against the CLI (bench/browser.mjs)
tab-upload-ab     warm uploads of one corpus in two builds, A/B (bench/upload_ab.mjs)
tab-first-upload  a fresh page's first large upload against its second (bench/first_upload.mjs)
tab-long          n = 4096 positions in the tab against the CLI (bench/long.mjs)
tab-memory        the tab's memory through a long-context run (bench/memory.mjs)
tab-live          an encoding-only option moved: input to table and charts (bench/live.mjs)
tab-layers        a model's layer pass in the tab against posgeo-bench --layers (bench/layers_browser.mjs)
tab-stream        a large gzip upload streamed, with the browser's memory (bench/stream.mjs)
tab-learn         training in the tab against the CLI, tokens/s (bench/learn_tab.mjs; DEFAULT=1: the default run; PRESET=1: the lecture preset)
LIST
}

question="${1:-}"
[ $# -gt 0 ] && shift
export PATH="$PWD/node_modules/.bin:$PATH"
case "$question" in
  stages) exec cargo bench -p posgeo-bench --bench stages -- "$@" ;;
  engine) exec bash bench/run.sh "$@" ;;
  tokenizers) exec bash bench/tokenizers.sh "$@" ;;
  layers) exec bash bench/layers.sh "$@" ;;
  learn) exec bash bench/learn.sh "$@" ;;
  biology) exec bash bench/biology.sh "$@" ;;
  python) exec bash bench/python.sh "$@" ;;
  tab-load) exec node bench/browser.mjs "$@" ;;
  tab-upload-ab) exec node bench/upload_ab.mjs "$@" ;;
  tab-first-upload) exec node bench/first_upload.mjs "$@" ;;
  tab-long) exec node bench/long.mjs "$@" ;;
  tab-memory) exec node bench/memory.mjs "$@" ;;
  tab-live) exec node bench/live.mjs "$@" ;;
  tab-layers) exec node bench/layers_browser.mjs "$@" ;;
  tab-stream) exec node bench/stream.mjs "$@" ;;
  tab-learn) exec node bench/learn_tab.mjs "$@" ;;
  "" | -h | --help) echo "usage: bash bench/bench.sh QUESTION [ARGS…]"; questions ;;
  *) echo "no question named '$question'; the questions are:" >&2; questions >&2; exit 2 ;;
esac
