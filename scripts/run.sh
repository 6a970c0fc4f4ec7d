#!/usr/bin/env bash
# Sets up (scripts/setup.sh), builds the explorer and serves it on http://127.0.0.1:8080/
# (the page opens on the built-in synthetic corpus). PORT=… to change the port.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
trunk --skip-version-check serve --release --address 127.0.0.1 --port "${PORT:-8080}" --no-autoreload
