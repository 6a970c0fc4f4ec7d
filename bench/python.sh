#!/usr/bin/env bash
# The Python package's benchmark (docs/PERFORMANCE.md): posgeo.analyze against the CLI and the
# numpy/scipy baseline on the IMDB-sized corpus of bench/make_corpora.py, in one run. Builds the
# release CLI and installs the package into .venv (scripts/setup.sh makes it); adds scipy there.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -c "import scipy" 2>/dev/null || .venv/bin/pip install -q scipy
[ -f bench-data/imdb.txt ] || .venv/bin/python bench/make_corpora.py bench-data >/dev/null
cargo build --release -q --bin posgeo
PATH="$PWD/.venv/bin:$PATH" .venv/bin/pip install -q --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall .
.venv/bin/python bench/python.py bench-data/imdb.txt "$@" | tee bench-data/python.jsonl
