#!/usr/bin/env python3
"""An independent float64 NumPy reference of docs/MATH.md §9 (a model's layers), written from
the Hugging Face `BertModel` equations (no library's model code), for the tests to check the
Rust numbers against.

Forward pass, one sequence of T ids, mask m_t (1 real, 0 pad), weights W [out, in], y = x Wᵀ + b:
  h⁰   = LN(word[id_t] + pos[t] + type[0]),  LN(x) = (x − mean)/sqrt(var + eps)·γ + β (biased var)
  per layer, heads of d_h = H / heads:
  q,k,v = linear(h);  A = softmax_keys(q kᵀ/√d_h + (1 − m)·finfo(float32).min)
  a     = LN(dense(A v) + h)                   attention.output.{dense,LayerNorm}
  h'    = LN(dense(GELU(dense(a))) + a)        intermediate.dense, output.{dense,LayerNorm}
  GELU(x) = x/2·(1 + erf(x/√2)), erf from libm (math.erf).
Hidden states h⁰ (embeddings' LayerNorm) … h^L.

§9 measures: μ_i and the Hellinger chord D over the whole corpus (§2–§3, α = 0, no top_k), n
from §2 in the same mode. The first S sequences, each cut at min(max_len, max_position_embeddings):
  K_i   condition: #sequences longer than i; pad: S.   n_L: largest m ≤ min(n, cut), K_i ≥ min_support ∀ i < m
  c^ℓ_i = (1/K_i) Σ_s h^ℓ_{s,i};   r^ℓ_i = c^ℓ_i − Σ_w k_i(w)/K_i · m^ℓ(w),
  m^ℓ(w) = mean of h^ℓ over every occurrence of id w at positions < n_L (pad mode: pad
  positions are occurrences of pad_token_id).
Each row (c or r over i < n_L) is compared with D[:n_L, :n_L] by §6–§7 (stress, a*, Spearman,
monotonicity) and by Procrustes onto a target that is OUR CHOICE here: the PMDS coordinates of
the FULL n×n D (§4, first min(pmds_dim, 16) columns, pmds_dim = min(768, r_τ), τ = 1e-8),
restricted to their first n_L rows (not the PMDS of the restricted D).

Padding. Mode pad feeds each sequence padded to max(its length, n_L) rather than to the cut:
pad positions are masked keys, so no state at a position < n_L (nor any real token's) depends on
the pads after n_L: the numbers equal those of padding to the cut. Mode condition feeds each
sequence alone (= a batch padded under the mask).

Numbers come from NumPy versions of posgeo_ref.py's measures; `--pure` uses posgeo_ref.py's
own pure-Python functions instead (dist, stress, procrustes, jacobi_eigen; slow) to show agreement.

Usage:
  bert_ref.py MODEL_DIR CORPUS [--mode condition|pad] [--max-len 512] [--min-support 5]
              [--layer-sequences 256] [--no-special-tokens] [--dump-hidden K] [--pure]
  bert_ref.py MODEL_DIR --check-published     (all-MiniLM-L6-v2's published similarities)
MODEL_DIR holds config.json, model.safetensors, tokenizer.json. One JSON object on stdout.
"""
import argparse
import json
import math
import os
import struct
import sys

import numpy as np
from tokenizers import Tokenizer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import posgeo_ref as ref  # noqa: E402

F32_MIN = float(np.finfo(np.float32).min)
TAU, PMDS_D, TARGET_D = 1e-8, 768, 16
PAD = -1  # the §2 token `<pad>` in corpus counts (mode pad)
_erf = np.frompyfunc(math.erf, 1, 1)


# ---------------------------------------------------------------- model files

def decode(dtype, raw):
    """A safetensors buffer as float64; None for a dtype that is not floating point."""
    if dtype == "F64":
        return np.frombuffer(raw, "<f8").astype(np.float64)
    if dtype == "F32":
        return np.frombuffer(raw, "<f4").astype(np.float64)
    if dtype == "F16":
        return np.frombuffer(raw, "<f2").astype(np.float64)
    if dtype == "BF16":  # the upper 16 bits of a float32
        bits = np.frombuffer(raw, "<u2").astype("<u4") << 16
        return bits.view("<f4").astype(np.float64)
    return None


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        start, end = t["data_offsets"]
        arr = decode(t["dtype"], data[8 + size + start : 8 + size + end])
        if arr is not None:
            out[name[5:] if name.startswith("bert.") else name] = arr.reshape(t["shape"])
    return out


def load_model(folder):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    for key, want in (("model_type", "bert"), ("hidden_act", "gelu"), ("position_embedding_type", "absolute")):
        if cfg.get(key, want) != want:
            raise SystemExit(f"unsupported model: config.json says {key} = {cfg[key]!r}")
    cfg.setdefault("pad_token_id", 0)
    w = read_safetensors(os.path.join(folder, "model.safetensors"))
    if os.path.exists(os.path.join(folder, "tokenizer.json")):
        tok = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    else:
        # A vocab.txt alone (ProtBERT): the tokenizers package's own BERT WordPiece from it.
        from tokenizers import BertWordPieceTokenizer
        config = os.path.join(folder, "tokenizer_config.json")
        lower = json.load(open(config, encoding="utf-8")).get("do_lower_case", True) if os.path.exists(config) else True
        tok = BertWordPieceTokenizer(os.path.join(folder, "vocab.txt"), lowercase=lower)
    tok.no_truncation()
    tok.no_padding()
    return cfg, w, tok


# ---------------------------------------------------------------- forward pass

def layer_norm(x, w, p, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w[p + ".weight"] + w[p + ".bias"]


def linear(x, w, p):
    return x @ w[p + ".weight"].T + w[p + ".bias"]


def gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(np.float64))


def attention(x, w, p, heads, additive):
    t, h = x.shape
    hd = h // heads
    q, k, v = (linear(x, w, f"{p}.self.{n}").reshape(t, heads, hd).transpose(1, 0, 2) for n in ("query", "key", "value"))
    s = q @ k.transpose(0, 2, 1) / math.sqrt(hd) + additive[None, None, :]
    s = np.exp(s - s.max(-1, keepdims=True))
    s /= s.sum(-1, keepdims=True)
    return (s @ v).transpose(1, 0, 2).reshape(t, h)


def forward(cfg, w, ids, mask):
    """Hidden states h⁰ … h^L of one sequence, shape (L+1, T, H)."""
    eps, heads = cfg["layer_norm_eps"], cfg["num_attention_heads"]
    ids = np.asarray(ids, dtype=np.int64)
    additive = (1.0 - np.asarray(mask, dtype=np.float64)) * F32_MIN
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: len(ids)]
    x = layer_norm(x + w["embeddings.token_type_embeddings.weight"][0], w, "embeddings.LayerNorm", eps)
    out = [x]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{layer}"
        a = linear(attention(x, w, p + ".attention", heads, additive), w, p + ".attention.output.dense")
        a = layer_norm(a + x, w, p + ".attention.output.LayerNorm", eps)
        f = linear(gelu(linear(a, w, p + ".intermediate.dense")), w, p + ".output.dense")
        x = layer_norm(f + a, w, p + ".output.LayerNorm", eps)
        out.append(x)
    return np.stack(out)


# ---------------------------------------------------------------- corpus (§1–§4)

def read_corpus(path, tok, special, max_len):
    with open(path, encoding="utf-8", newline="") as f:  # no universal newlines: a lone \r stays
        text = f.read()
    if text.lstrip().startswith(">"):
        # FASTA: one sequence per record, read as protein models read it, one residue a word.
        records = ["".join(r.split("\n", 1)[1].split()).replace("*", "") for r in text.lstrip()[1:].split("\n>")]
        return [tok.encode(" ".join(r), add_special_tokens=special).ids[:max_len] for r in records]
    lines = [l[:-1] if l.endswith("\r") else l for l in text.split("\n")]
    return [tok.encode(l, add_special_tokens=special).ids[:max_len] for l in lines if l]


def corpus_geometry(seqs, mode, max_len, min_support):
    """n, μ (n × |V|) and the Hellinger chord D (n × n), §2–§3 with α = 0."""
    cap = min(max_len, max((len(s) for s in seqs), default=0))
    support = [len(seqs) if mode == "pad" else sum(len(s) > i for s in seqs) for i in range(cap)]
    n = 0
    while n < cap and support[n] >= min_support:
        n += 1
    if n < 2:
        raise SystemExit(f"too few positions: n = {n} (min_support {min_support})")
    index, counts = {}, []
    for s in seqs:
        for i in range(n):
            w = s[i] if i < len(s) else (PAD if mode == "pad" else None)
            if w is None:
                break
            counts.append((i, index.setdefault(w, len(index))))
    mu = np.zeros((n, len(index)))
    np.add.at(mu, tuple(np.array(counts).T), 1.0)
    mu /= np.array(support[:n], dtype=np.float64)[:, None]
    root = np.sqrt(mu)
    d = np.array([np.sqrt(((root - root[i]) ** 2).sum(1)) for i in range(n)])
    return n, d


def pmds_target(d, pure):
    """First min(pmds_dim, 16) classical-MDS coordinates of D (§4)."""
    n = len(d)
    j = np.eye(n) - 1.0 / n
    b = -0.5 * j @ (d * d) @ j
    if pure:
        vals, vecs = ref.jacobi_eigen(b.tolist())
        vals, vecs = np.array(vals), np.array(vecs).T
    else:
        vals, vecs = np.linalg.eigh((b + b.T) / 2)
        order = np.argsort(-vals, kind="stable")
        vals, vecs = vals[order], vecs[:, order]
        lead = np.abs(vecs).argmax(0)
        vecs = vecs * np.where(vecs[lead, np.arange(n)] < 0, -1.0, 1.0)
    r_tau = int((vals > TAU * vals[0]).sum())
    dim = min(max(min(PMDS_D, r_tau), 1), TARGET_D)
    return vecs[:, :dim] * np.sqrt(np.maximum(vals[:dim], 0.0))


# ---------------------------------------------------------------- measures (§6–§7, Procrustes)

def distances(p):
    return np.array([np.sqrt(((p - p[i]) ** 2).sum(1)) for i in range(len(p))])


def ranks(x):
    eps = 1e-12 * np.abs(x).max()
    order = np.argsort(x, kind="stable")
    xs = x[order]
    start = np.concatenate([[True], np.diff(xs) > eps])
    group = np.cumsum(start) - 1
    first = np.flatnonzero(start)
    last = np.append(first[1:], len(x)) - 1
    r = np.empty(len(x))
    r[order] = (first[group] + last[group]) / 2 + 1
    return r


def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    sxx, syy = (rx * rx).sum(), (ry * ry).sum()
    return None if sxx == 0 or syy == 0 else float((rx * ry).sum() / math.sqrt(sxx * syy))


def monotonicity(d):
    n = len(d)
    eps = 1e-12 * d.max()
    viol = total = 0
    for i in range(n):
        off = np.abs(np.arange(n) - i)
        ok = (off[:, None] < off[None, :]) & (off[:, None] > 0)
        total += int(ok.sum())
        viol += int((ok & (d[i][:, None] > d[i][None, :] + eps)).sum())
    return viol / total if total else None


def procrustes(x, y):
    xc, yc = x - x.mean(0), y - y.mean(0)
    sx, sy = (xc * xc).sum(), (yc * yc).sum()
    if sx <= 0 or sy <= 0:
        return 1.0
    nuclear = np.linalg.svd(yc.T @ xc, compute_uv=False).sum()
    return float(min(1.0, max(0.0, 1.0 - nuclear * nuclear / (sx * sy))))


def measures(points, d, target, pure):
    if pure:
        e = ref.stress(ref.dist(points.tolist()), d.tolist())
        e["procrustes_residual"] = ref.procrustes(target.tolist(), points.tolist())
    else:
        delta = distances(points)
        iu = np.triu_indices(len(d), 1)
        dl, tl = delta[iu], d[iu]
        dd, dt, tt = (dl * dl).sum(), (dl * tl).sum(), (tl * tl).sum()
        a = dt / dd if dd > 0 else 0.0
        e = {"raw_stress": float(((dl - tl) ** 2).sum() / tt), "scaled_stress": float(((a * dl - tl) ** 2).sum() / tt),
             "scale": float(a), "spearman": spearman(dl, tl), "monotonicity_violation_rate": monotonicity(delta),
             "procrustes_residual": procrustes(target, points)}
    e.update(dim=points.shape[1], parameters=0)
    return e


# ---------------------------------------------------------------- layers (§9)

def layer_positions(seqs, mode, cut, n, min_support):
    lens = [min(len(s), cut) for s in seqs]
    support = [len(seqs) if mode == "pad" else sum(l > i for l in lens) for i in range(cut)]
    n_l = 0
    while n_l < min(n, cut) and support[n_l] >= min_support:
        n_l += 1
    return lens, support[:n_l], n_l


def centroids(cfg, w, seqs, mode, cut, n, min_support, dump):
    """c^ℓ, r^ℓ (L+1, n_L, H) each, K_i and the dumped hidden states."""
    lens, support, n_l = layer_positions(seqs, mode, cut, n, min_support)
    if n_l < 2:
        raise SystemExit(f"too few layer positions: n_L = {n_l}")
    shape = (cfg["num_hidden_layers"] + 1, cfg["hidden_size"])
    csum = np.zeros((shape[0], n_l, shape[1]))
    msum, mcnt, at = {}, {}, []  # per id: Σ h, count; (i, id) of every counted occurrence
    hidden = []
    for s, (ids, ln) in enumerate(zip(seqs, lens)):
        ids = list(ids[:ln])
        t = max(ln, n_l) if mode == "pad" else ln
        fed = ids + [cfg["pad_token_id"]] * (t - ln)
        hs = forward(cfg, w, fed, [1] * ln + [0] * (t - ln))
        for i in range(min(t, n_l)):
            csum[:, i] += hs[:, i]
            msum[fed[i]] = msum.get(fed[i], 0.0) + hs[:, i]
            mcnt[fed[i]] = mcnt.get(fed[i], 0) + 1
            at.append((i, fed[i]))
        if s < dump:
            hidden.append(hs[:, :ln].tolist())
    k = np.array(support, dtype=np.float64)
    c = csum / k[None, :, None]
    content = np.zeros_like(c)
    for i, wid in at:  # Σ_w k_i(w) m(w), one occurrence at a time
        content[:, i] += msum[wid] / mcnt[wid]
    return c, c - content / k[None, :, None], support, hidden


def run(args):
    cfg, w, tok = load_model(args.model)
    seqs = read_corpus(args.corpus, tok, not args.no_special_tokens, args.max_len)
    n, d = corpus_geometry(seqs, args.mode, args.max_len, args.min_support)
    target = pmds_target(d, args.pure)
    cut = min(args.max_len, cfg["max_position_embeddings"])
    used = seqs[: args.layer_sequences]
    c, r, support, hidden = centroids(cfg, w, used, args.mode, cut, n, args.min_support, args.dump_hidden)
    n_l = len(support)
    out = {"n": n, "positions": n_l, "sequences_used": len(used), "cut": cut, "mode": args.mode,
           "num_layers": cfg["num_hidden_layers"], "hidden_size": cfg["hidden_size"], "layer_support": support,
           "target_dim": target.shape[1], "encodings": {}, "centroids": {}}
    for kind, rows in (("layer", c), ("layer-residual", r)):
        for layer, pts in enumerate(rows):
            name = f"{kind}:{layer}"
            out["encodings"][name] = measures(pts, d[:n_l, :n_l], target[:n_l], args.pure)
            out["centroids"][name] = pts.tolist()
    if args.dump_hidden:
        out["hidden"] = hidden
    return out


# ---------------------------------------------------------------- published check

PUBLISHED = [("A man is eating food.", 0.7035), ("A man is eating a piece of bread.", 0.5272),
             ("A man is riding a horse.", 0.1889), ("A cheetah is running behind its prey.", 0.0980)]
QUERY = "A man is eating pasta."


def embed(cfg, w, tok, text):
    ids = tok.encode(text).ids
    v = forward(cfg, w, ids, [1] * len(ids))[-1].mean(0)
    return v / np.linalg.norm(v)


def check_published(args):
    """sentence-transformers' semantic-search example, all-MiniLM-L6-v2 (mean pooling)."""
    cfg, w, tok = load_model(args.model)
    q = embed(cfg, w, tok, QUERY)
    scores = {s: float(q @ embed(cfg, w, tok, s)) for s, _ in PUBLISHED}
    ok = all(round(scores[s], 4) == want for s, want in PUBLISHED)
    print(json.dumps({"query": QUERY, "scores": scores, "expected": dict(PUBLISHED), "ok": ok}, indent=1))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description="float64 reference of posgeo's model layers (docs/MATH.md §14)")
    ap.add_argument("model")
    ap.add_argument("corpus", nargs="?")
    ap.add_argument("--mode", choices=["condition", "pad"], default="condition")
    ap.add_argument("--max-len", type=int, default=512)
    ap.add_argument("--min-support", type=int, default=5)
    ap.add_argument("--layer-sequences", type=int, default=256)
    ap.add_argument("--no-special-tokens", action="store_true")
    ap.add_argument("--dump-hidden", type=int, default=0, metavar="K")
    ap.add_argument("--pure", action="store_true", help="posgeo_ref.py's pure-Python measures (slow)")
    ap.add_argument("--check-published", action="store_true")
    args = ap.parse_args()
    if args.check_published:
        return check_published(args)
    if args.corpus is None:
        ap.error("CORPUS is required (unless --check-published)")
    print(json.dumps(run(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
