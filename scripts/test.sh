#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test of posgeo:
# format and lint (native, Python bindings and wasm32), native unit/property/reference/CLI
# tests, the Python package (built and installed into .venv, then pytest), the core and
# web glue in headless Chromium (wasm-bindgen-test), the release site build, and the
# end-to-end tests of the built site in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step's start is printed as it begins, and every step's duration at the end.
STEPS=() STARTED=$(date +%s) LAST_NAME="" LAST_AT=$(date +%s)
minutes() { printf '%d.%d min' $(($1 / 60)) $(($1 % 60 / 6)); }
step() {
  local now; now=$(date +%s)
  [ -n "$LAST_NAME" ] && STEPS+=("$(minutes $((now - LAST_AT)))  $LAST_NAME")
  LAST_NAME="$*" LAST_AT=$now
  printf '\n== %s == (%s)\n' "$*" "$(date +%T)"
}
summary() {
  step "end"
  printf '\nSteps:\n'; printf '  %s\n' "${STEPS[@]}"
  printf '  %s  in all, setup included\n' "$(minutes $(($(date +%s) - STARTED)))"
}
# What git sees before anything runs: the tests must leave it as it is (they write nothing tracked).
TRACKED_BEFORE=$(git status --porcelain --untracked-files=no 2>/dev/null || true)
step "setup (scripts/setup.sh)"
bash scripts/setup.sh
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export RUST_BACKTRACE=0
# Incremental caches would only grow target/ on a one-shot run.
export CARGO_INCREMENTAL=0
export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}"

step "format"
cargo fmt --check
# The fixtures written by real writers (torch.save) are the ones their scripts wrote.
(cd tests/data/torch && sha256sum --quiet -c SHA256SUMS)
# Clippy lints while the tests compile: clippy-driver wraps rustc for the workspace's own crates
# (RUSTC_WORKSPACE_WRAPPER, as `cargo clippy` does it) and fails the build on any warning, so
# the members are compiled once, linted and with code, instead of checked and then built. The
# Python bindings are linted in their own build below, and the wasm32 code in the wasm tests'.
export RUSTC_WORKSPACE_WRAPPER
RUSTC_WORKSPACE_WRAPPER="$(command -v clippy-driver)"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
step "native build, every member linted by clippy"
# --workspace brings the Python bindings into the feature resolution, so the dependencies built
# here are the ones the extension below needs; --all-targets adds the benchmarks (each run once,
# divan's test mode) and the examples.
cargo test --workspace --all-targets --no-run
# The site builds while the native tests run and the Python package builds: the tests spend much
# of their time in one thread (the Python references), and the two builds use their own target
# directories. The shipped site is built by rustc alone (clippy-driver turns MIR optimisations
# off); its output is shown when it is waited for.
SITE_LOG=target/site-build.log
env -u RUSTC_WORKSPACE_WRAPPER trunk --skip-version-check build --release > "$SITE_LOG" 2>&1 &
SITE=$!
trap 'kill "$SITE" 2>/dev/null || true' EXIT
step "native tests (the site builds meanwhile)"
cargo test --workspace --all-targets
step "docs: cargo doc, every warning (a broken intra-doc link among them) an error"
# Private items are documented too, so links to them resolve (and are checked).
RUSTDOCFLAGS="-D warnings -A rustdoc::private_intra_doc_links" cargo doc --workspace --no-deps --document-private-items --quiet
step "Python package: pip install . into .venv, then pytest (tests/python/)"
# The dev profile: the extension reuses the dependencies `cargo test` just built (a release
# build would compile them all again); `pip install .` alone builds for release.
# (maturin's build backend runs the venv's `maturin`, so the venv goes first on PATH.)
PATH="$PWD/.venv/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev" \
  .venv/bin/pip install -q --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall .
POSGEO_BIN="$PWD/target/debug/posgeo" .venv/bin/python -m pytest -q tests/python
step "site build (trunk build --release): the rest of it"
if ! wait "$SITE"; then
  cat "$SITE_LOG"
  echo "the site build failed (above)" >&2
  exit 1
fi
tail -n 3 "$SITE_LOG"
# The site's profile, so the dependencies come from the site build just made; the core, charts
# and web crates are linted for wasm32 as they compile.
step "wasm tests in headless Chromium, linted by clippy for wasm32"
cargo test --profile web-release --target wasm32-unknown-unknown -p posgeo-web --test wasm
step "docs of the web shell's wasm32-only modules (the worker, its helpers, the page's DOM)"
RUSTDOCFLAGS="-D warnings -A rustdoc::private_intra_doc_links" cargo doc -p posgeo-web --target wasm32-unknown-unknown \
  --profile web-release --no-deps --document-private-items --quiet
step "end-to-end tests in headless Chromium (two files at a time)"
POSGEO_BIN="$PWD/target/debug/posgeo" node --test --test-concurrency=2 tests/e2e/
# (The README's picture is refreshed by hand, `bash scripts/screenshot.sh` after the end-to-end
# tests: the test command writes nothing tracked, as git confirms.)
if [ "$(git status --porcelain --untracked-files=no 2>/dev/null || true)" != "$TRACKED_BEFORE" ]; then
  git status --short --untracked-files=no
  echo "the tests changed tracked files (above)" >&2
  exit 1
fi
summary
