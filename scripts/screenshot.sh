#!/usr/bin/env bash
# Refreshes docs/screenshot.png (the README's picture) from the end-to-end run's screenshot of
# the first screen at 1366×768 (tests/e2e/, written to test-artifacts/). Run it by hand after the
# end-to-end tests (scripts/test.sh writes nothing tracked).
set -euo pipefail
cd "$(dirname "$0")/.."
shot=test-artifacts/first-screen-1366x768.png
[ -f "$shot" ] || { echo "no $shot: run the end-to-end tests first" >&2; exit 1; }
cp "$shot" docs/screenshot.png
echo "docs/screenshot.png updated from $shot"
