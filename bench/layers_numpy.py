#!/usr/bin/env python3
"""The reference for posgeo's layer pass: a NumPy **float32** batched
BERT forward with the equations of tests/reference/bert_ref.py (Hugging Face's `BertModel`),
run over exactly the batches `posgeo-bench --layers ... --dump-batches FILE` ran, padded with
pad_id under the attention mask, keeping every layer's hidden states h⁰ … h^L of a batch (as
posgeo does before it sums them). Matrix products go to NumPy's BLAS (OpenBLAS in the wheels;
threads from OPENBLAS_NUM_THREADS); GELU's erf is scipy.special.erf (a float32 ufunc) when scipy
is installed, else math.erf vectorised with np.frompyfunc (slow; the output says which).

    layers_numpy.py MODEL_DIR BATCHES.json [--repeat 3]

Prints one JSON object: best-of-repeat seconds and padded tokens (Σ B×T) per second.
"""
import argparse
import json
import math
import os
import struct
import sys
import time

import numpy as np

F32_MIN = np.float32(np.finfo(np.float32).min)  # bert_ref.py's additive mask value (1 − m)·F32_MIN
try:
    from scipy.special import erf

    ERF = "scipy.special.erf"
except ImportError:  # pragma: no cover
    _erf = np.frompyfunc(math.erf, 1, 1)

    def erf(x):
        return _erf(x).astype(np.float32)

    ERF = "math.erf via np.frompyfunc"

F32 = {"F32": "<f4", "F16": "<f2"}


def load(folder):
    """config.json (bert_ref's checks) and the weights as float32, `bert.` prefix removed."""
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    for key, want in (("model_type", "bert"), ("hidden_act", "gelu"), ("position_embedding_type", "absolute")):
        if cfg.get(key, want) != want:
            raise SystemExit(f"unsupported model: config.json says {key} = {cfg[key]!r}")
    with open(os.path.join(folder, "model.safetensors"), "rb") as f:
        data = f.read()
    (size,) = struct.unpack("<Q", data[:8])
    w = {}
    for name, t in json.loads(data[8 : 8 + size]).items():
        if name == "__metadata__" or t["dtype"] not in (*F32, "BF16"):
            continue
        raw = data[8 + size + t["data_offsets"][0] : 8 + size + t["data_offsets"][1]]
        if t["dtype"] == "BF16":
            arr = (np.frombuffer(raw, "<u2").astype("<u4") << 16).view("<f4")
        else:
            arr = np.frombuffer(raw, F32[t["dtype"]]).astype(np.float32)  # a copy: `data` is freed
        w[name[5:] if name.startswith("bert.") else name] = arr.reshape(t["shape"])
    # y = x Wᵀ + b with Wᵀ stored contiguous (in × out), so each product is one plain GEMM.
    for name in [n for n in w if n.endswith(".weight") and w[n].ndim == 2 and "embeddings" not in n]:
        w[name] = np.ascontiguousarray(w[name].T)
    return cfg, w


def layer_norm(x, w, p, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + np.float32(eps)) * w[p + ".weight"] + w[p + ".bias"]


def linear(x, w, p):
    b, t, h = x.shape
    return (x.reshape(b * t, h) @ w[p + ".weight"] + w[p + ".bias"]).reshape(b, t, -1)


def gelu(x):
    return np.float32(0.5) * x * (np.float32(1.0) + erf(x * np.float32(1.0 / math.sqrt(2.0))))


def attention(x, w, p, heads, additive):
    b, t, h = x.shape
    hd = h // heads
    q, k, v = (linear(x, w, f"{p}.self.{n}").reshape(b, t, heads, hd).transpose(0, 2, 1, 3) for n in ("query", "key", "value"))
    s = q @ k.transpose(0, 1, 3, 2) * np.float32(1.0 / math.sqrt(hd)) + additive
    s = np.exp(s - s.max(-1, keepdims=True))
    s /= s.sum(-1, keepdims=True)
    return (s @ v).transpose(0, 2, 1, 3).reshape(b, t, h)


def forward(cfg, w, ids, mask):
    """Hidden states h⁰ … h^L of a batch (B × T ids, B × T mask): a list of B × T × H arrays."""
    eps, heads = cfg["layer_norm_eps"], cfg["num_attention_heads"]
    additive = ((np.float32(1.0) - mask.astype(np.float32)) * F32_MIN)[:, None, None, :]
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: ids.shape[1]]
    x = layer_norm(x + w["embeddings.token_type_embeddings.weight"][0], w, "embeddings.LayerNorm", eps)
    out = [x]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{layer}"
        a = linear(attention(x, w, p + ".attention", heads, additive), w, p + ".attention.output.dense")
        a = layer_norm(a + x, w, p + ".attention.output.LayerNorm", eps)
        f = linear(gelu(linear(a, w, p + ".intermediate.dense")), w, p + ".output.dense")
        x = layer_norm(f + a, w, p + ".output.LayerNorm", eps)
        out.append(x)
    return out


def blas_info():
    try:
        from threadpoolctl import threadpool_info

        return [{k: i.get(k) for k in ("internal_api", "version", "num_threads", "architecture", "filepath")} for i in threadpool_info()]
    except ImportError:
        cfg = np.show_config(mode="dicts") if "mode" in np.show_config.__code__.co_varnames else {}
        return cfg.get("Build Dependencies", {}).get("blas", "np.show_config()")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("batches")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cfg, w = load(args.model)
    with open(args.batches, encoding="utf-8") as f:
        dump = json.load(f)
    batches = []
    for b in dump["batches"]:
        ids = np.full((len(b["sequences"]), b["length"]), dump["pad_id"], dtype=np.int64)
        mask = np.zeros(ids.shape, dtype=np.uint8)
        for r, s in enumerate(b["sequences"]):
            ids[r, : len(s)], mask[r, : len(s)] = s, 1
        batches.append((ids, mask))
    best = math.inf
    for _ in range(max(args.repeat, 1)):
        t = time.perf_counter()
        for ids, mask in batches:
            states = forward(cfg, w, ids, mask)  # every layer's states of the batch, kept until the next
        best = min(best, time.perf_counter() - t)
    assert states[-1].dtype == np.float32
    tokens = sum(ids.size for ids, _ in batches)
    print(json.dumps({"impl": "numpy-float32", "mode": dump["mode"], "batches": len(batches), "tokens_run": tokens,
                      "seconds": best, "tokens_per_second": tokens / best, "erf": ERF, "numpy": np.__version__,
                      "blas": blas_info(), "threads": os.environ.get("OPENBLAS_NUM_THREADS")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
