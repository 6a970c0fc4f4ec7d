#!/usr/bin/env bash
# Counting with model tokenizers against the `words` tokenizer (issue 18, item 5), natively:
# `posgeo-bench --repeat 2` (best of 2, every core) on the IMDB-sized corpus, read, tokenised
# and counted, with `words`, the shipped MiniLM WordPiece tokenizer, and a RoBERTa-style
# byte-level BPE tokenizer (vocabulary 30,000, `<s> … </s>`, `<mask>`) trained by the Python
# `tokenizers` package on the corpus's first 20,000 lines (bench-data/roberta-bpe.json).
# Prints a markdown table.
#   bench/tokenizers.sh       (PYTHON=.venv/bin/python by default; MAX_LEN=512)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
MAX_LEN=${MAX_LEN:-512}
[ -f bench-data/imdb.txt ] || python3 bench/make_corpora.py bench-data >/dev/null
BPE=bench-data/roberta-bpe.json
[ -f "$BPE" ] || "$PY" - "$BPE" <<'PYEOF'
import sys
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors, trainers
with open("bench-data/imdb.txt", encoding="utf-8") as f:
    lines = f.read().splitlines()[:20000]
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
trainer = trainers.BpeTrainer(vocab_size=30000, special_tokens=["<s>", "<pad>", "</s>", "<unk>"],
                              initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
tok.train_from_iterator(lines, trainer)
tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")))
tok.add_special_tokens([AddedToken("<mask>", lstrip=True)])
tok.save(sys.argv[1])
PYEOF
cargo build --release -q --bin posgeo-bench
count() { target/release/posgeo-bench bench-data/imdb.txt --repeat 2 --max-len "$MAX_LEN" "$@" 2>/dev/null |
  python3 -c "import json,sys; print(f\"{json.load(sys.stdin)['read_tokenize_count']:.3f}\")"; }
words=$(count --tokenizer words)
echo "Measured $(date -u +%F) by \`bash bench/tokenizers.sh\`, max_len $MAX_LEN, on $(nproc) cores."
echo
echo "| tokenizer | read, tokenise, count (s) | against \`words\` |"
echo "|---|---|---|"
echo "| words | $words | 1× |"
for t in "MiniLM WordPiece:www/models/all-MiniLM-L6-v2/tokenizer.json.gz" "RoBERTa-style byte-level BPE:$BPE"; do
  s=$(count --tokenizer-file "${t#*:}")
  echo "| ${t%%:*} | $s | $(python3 -c "print(f'{$s / $words:.2f}×')") |"
done
