#!/usr/bin/env bash
# Counting with model tokenizers against the `words` tokenizer, natively:
# `posgeo-bench --repeat 2` (best of 2, every core) on the IMDB-sized corpus, read, tokenised
# and counted, with `words`, the shipped MiniLM WordPiece tokenizer, and a RoBERTa-style
# byte-level BPE tokenizer (tests/tokenizers/oracle.py's recipe with a vocabulary of 30,000)
# trained by the Python `tokenizers` package on the corpus's first 20,000 lines
# (bench-data/roberta-bpe.json), and a T5-style Unigram tokenizer (NFKC, Metaspace; the
# oracle's recipe) trained the same way (bench-data/t5-unigram.json), which posgeo encodes
# text by text (its normaliser is not word-local).
# Prints a markdown table.
#   bench/tokenizers.sh       (PYTHON=.venv/bin/python by default; MAX_LEN=512)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
MAX_LEN=${MAX_LEN:-512}
[ -f bench-data/imdb.txt ] || python3 bench/make_corpora.py bench-data >/dev/null
# A tokenizer trained by one of the tests' recipes on the corpus's first 20,000 lines.
train() { # file recipe vocabulary-size
  [ -f "$1" ] || "$PY" - "$@" <<'PYEOF'
import sys
sys.path.insert(0, "tests/tokenizers")
import oracle
out, recipe, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open("bench-data/imdb.txt", encoding="utf-8") as f:
    getattr(oracle, recipe)(f.read().splitlines()[:20000], vocab_size=size).save(out)
PYEOF
}
BPE=bench-data/roberta-bpe.json UNI=bench-data/t5-unigram.json
train "$BPE" bpe 30000
train "$UNI" unigram 8000
cargo build --release -q --bin posgeo-bench
count() { target/release/posgeo-bench bench-data/imdb.txt --repeat 2 --max-len "$MAX_LEN" "$@" 2>/dev/null |
  python3 -c "import json,sys; print(f\"{json.load(sys.stdin)['read_tokenize_count']:.3f}\")"; }
words=$(count --tokenizer words)
echo "Measured $(date -u +%F) by \`bash bench/tokenizers.sh\`, max_len $MAX_LEN, on $(nproc) cores."
echo
echo "| tokenizer | read, tokenise, count (s) | against \`words\` |"
echo "|---|---|---|"
echo "| words | $words | 1× |"
for t in "MiniLM WordPiece:www/models/all-MiniLM-L6-v2/tokenizer.json.gz" "RoBERTa-style byte-level BPE:$BPE" "T5-style Unigram:$UNI"; do
  s=$(count --tokenizer-file "${t#*:}")
  echo "| ${t%%:*} | $s | $(python3 -c "print(f'{$s / $words:.2f}×')") |"
done
