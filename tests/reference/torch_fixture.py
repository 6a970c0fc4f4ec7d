#!/usr/bin/env python3
"""Writes tests/data/torch/state.bin with PyTorch's own `torch.save`, and beside it
state.json: every tensor's values (as the float64 of each stored value, from `tolist()`),
shape, storage offset and strides. A fixture of the real writer for posgeo's `.bin` reader
(crates/model/src/files/pickle.rs), with what a hand-written pickler never produces:

  tok       a 6×4 float32 embedding;
  tied      the same tensor object as `tok` (a tied output layer: one storage, two names);
  view      rows 2..5 of `big`, a view at storage offset 8 (elements) into `big`'s storage;
  big       10×4, whose storage `view` shares;
  wt        a 3×5 transpose (strides (1, 3)), not contiguous;
  half      float16; bf16  bfloat16 (their values are exact in float32).

torch is several GB, so it is not in the tests' venv: run this once with a Python that has
torch (`bash bench/learn.sh` installs one into bench-data/torch-venv) and check the two files
in; their sha256 sums are in tests/data/torch/SHA256SUMS, which the tests check.

Usage: torch_fixture.py [OUT_DIR] (default tests/data/torch)."""
import hashlib
import json
import os
import sys

import torch

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "torch")
os.makedirs(out, exist_ok=True)
g = torch.Generator().manual_seed(7)
tok = torch.randn(6, 4, generator=g)
big = torch.randn(10, 4, generator=g)
state = {
    "tok": tok,
    "tied": tok,
    "view": big[2:5],
    "big": big,
    "wt": torch.randn(5, 3, generator=g).t(),
    "half": torch.randn(2, 3, generator=g).half(),
    "bf16": torch.randn(3, 2, generator=g).bfloat16(),
}
assert state["view"].storage_offset() == 8 and not state["wt"].is_contiguous()
torch.save(state, os.path.join(out, "state.bin"))
described = {
    name: {
        "shape": list(t.shape),
        "offset": t.storage_offset(),
        "stride": list(t.stride()),
        "dtype": str(t.dtype).removeprefix("torch."),
        "values": t.float().flatten().tolist(),
    }
    for name, t in state.items()
}
with open(os.path.join(out, "state.json"), "w", encoding="utf-8") as f:
    json.dump(described, f, indent=1)
with open(os.path.join(out, "SHA256SUMS"), "w", encoding="utf-8") as f:
    for name in ("state.bin", "state.json"):
        with open(os.path.join(out, name), "rb") as data:
            f.write(f"{hashlib.sha256(data.read()).hexdigest()}  {name}\n")
print(f"wrote {out}/state.bin, state.json and SHA256SUMS with torch {torch.__version__}")
