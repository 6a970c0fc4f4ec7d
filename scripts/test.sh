#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test of posgeo:
# format and lint (native, Python bindings and wasm32), native unit/property/reference/CLI
# tests, the Python package (built and installed into .venv, then pytest), the core and
# web glue in headless Chromium (wasm-bindgen-test), the release site build, and the
# end-to-end tests of the built site in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export RUST_BACKTRACE=0
# Incremental caches would only grow target/ on a one-shot run.
export CARGO_INCREMENTAL=0
export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}"

step() { printf '\n== %s ==\n' "$*"; }

step "format"
cargo fmt --check
step "clippy (native)"
cargo clippy --all-targets -- -D warnings
step "clippy (Python bindings)"
cargo clippy --features python --lib -- -D warnings
step "clippy (wasm32)"
cargo clippy --target wasm32-unknown-unknown --lib --bins --tests -- -D warnings
step "native tests"
cargo test
step "Python package: pip install . into .venv, then pytest (tests/python/)"
cargo build --bin posgeo
# (maturin's build backend runs the venv's `maturin`, so the venv goes first on PATH.)
PATH="$PWD/.venv/bin:$PATH" .venv/bin/pip install -q --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall .
POSGEO_BIN="$PWD/target/debug/posgeo" .venv/bin/python -m pytest -q tests/python
step "wasm tests in headless Chromium"
cargo test --target wasm32-unknown-unknown --test wasm
step "site build (trunk build --release)"
trunk --skip-version-check build --release
step "fault-injection test build (dist-faults/, for the worker-death test)"
trunk --skip-version-check build --features fault-injection --dist dist-faults
step "end-to-end tests in headless Chromium"
cargo build --bin posgeo
POSGEO_BIN="$PWD/target/debug/posgeo" node --test tests/e2e/
bash scripts/screenshot.sh
