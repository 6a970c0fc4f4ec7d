#!/usr/bin/env python3
"""An independent float64 NumPy reference of docs/MATH.md §14 extended to decoders (llama,
qwen2, gpt2), written from the equations (no model library), for the tests to check the Rust
numbers against.

Model: an HF folder (config.json, model_type llama | mistral (read as llama) | qwen2 | gpt2,
tensor names with or without "model."/"transformer."; model.safetensors, its shards, or
pytorch_model.bin by a restricted unpickler; tokenizer.json) or a .gguf file (gguf.GGUFReader,
every tensor dequantized once by gguf.quants.dequantize, as float64). See model_files.py.
Weights W [out, in], linear(x) = x Wᵀ + b. One sequence of T ids, mask m_t (1 real, 0 pad), alone:
  allowed(i, j) = j ≤ i and m_j = 1   (causal; pads are masked keys; a pad query attends to the
                                       real keys ≤ i), A = softmax over allowed keys of q·k/√d_h
  llama/qwen2: h⁰ = embed[id_t]; per layer, n = rms(x)·w, rms(x) = x/sqrt(mean(x²) + eps):
    q, k, v = linear(n) (biases for qwen2), heads of d_h = head_dim, KV heads g = heads/kv: KV head j
    serves query heads j·g … (j+1)·g − 1. Rotary, HF layout (rotate half) on q and k at position t:
    x' = x cos(tθ) + (−x₂, x₁) sin(tθ), x₁/x₂ the first/second halves, θ_k = theta^(−2k/d_h)
    for the k-th coordinate of each half. x ← x + o_proj(A v);
    x ← x + down(silu(gate(n)) ⊙ up(n)), n = rms(x)·w₂, silu(z) = z/(1 + e^(−z)).
  gpt2: h⁰ = wte[id_t] + wpe[t]; pre-LN: x ← x + c_proj(A v) (q,k,v from c_attn(LN₁(x)));
    x ← x + c_proj(gelu_new(c_fc(LN₂(x)))); LN(x) = (x − mean)/sqrt(var + eps)·γ + β;
    gelu_new(z) = z/2·(1 + tanh(√(2/π)(z + 0.044715 z³))).
  Hidden states h⁰ … h^L: each block's output BEFORE the final norm (Hugging Face's
  output_hidden_states applies the final norm to its last entry; we do not).
GGUF: llama arch stores attn_q/attn_k rows permuted by convert_hf_to_gguf's LlamaModel.permute
(reshape(n_head, 2, r/n_head/2, c).swapaxes(1, 2), attn_k with the KV head count); we undo it
(reshape(n_head, r/n_head/2, 2, c).swapaxes(1, 2)). qwen2 is not permuted. gpt2's attn_qkv is
[3H, H], rows q|k|v. d_h = head_dim (config) or {arch}.attention.key_length, else H/heads.
eps and rope_theta are rounded to float32 (GGUF stores them so; HF's float32 kernels use them
so), which makes a folder and its F32 GGUF agree bit for bit. Pad id: config pad_token_id
(null/missing → 0); GGUF tokenizer.ggml.padding_token_id, else 0. Cut: min(max_len, max_position_embeddings |
n_positions | GGUF {arch}.context_length).

Measures: bert_ref.py's functions, imported (corpus geometry n and D over the whole corpus, PMDS
target, the §6–§7 measures of layer:ℓ and layer-residual:ℓ, S, K_i, n_L, c and r), giving the
same JSON, plus "skip" (K = min(--skip, n_L − 2): two positions are always kept) and
"measures", one per layer ℓ = 0 … L, over the kept positions i = K … n_L − 1, each counted
(s, i) (condition: the sequences longer than i; pad: all S):
  positional_share    Σ_i K_i‖c_i − h̄‖² / Σ_{s,i}‖h_{s,i} − h̄‖², h̄ = Σ_i K_i c_i / Σ_i K_i
                      (the denominator as Σ_i max(0, Σ_s‖h_{s,i}‖² − K_i‖c_i‖²) + the numerator)
  effective_dimension C = the kept c_i centred by their unweighted mean; λ = eigenvalues of CᵀC
                      (all, clipped at 0), p = λ/Σλ, exp(−Σ p ln p), 0·ln 0 = 0
  principal           C projected on the eigenvectors of the min(3, H, #kept) largest λ, one row
                      [p1, p2, p3] per kept position; each axis's sign makes its largest-|value|
                      coordinate (the first such) positive
(null when a denominator is 0).

--check-paris GGUF: tokenise "The capital of France is", greedy-decode 3 tokens, logits =
final_norm(h^L_last) · Eᵀ (E = output.weight if present, else the tied token_embd); exit 0 iff
the decoded continuation starts with " Paris". Prints {"prompt", "ids", "new_ids",
"continuation", "ok"}.

Usage:
  decoder_ref.py MODEL CORPUS [--mode condition|pad] [--max-len 512] [--min-support 5]
                 [--layer-sequences 256] [--no-special-tokens] [--skip K] [--dump-hidden K]
  decoder_ref.py GGUF --check-paris
One JSON object on stdout.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
from tokenizers import Tokenizer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bert_ref as ref  # noqa: E402
import model_files as files  # noqa: E402


# ---------------------------------------------------------------- model

class Model:
    """arch, sizes and the weights under neutral names, [out, in], float64."""

    def __init__(self, arch, **kw):
        self.arch, self.w = arch, {}
        self.__dict__.update(kw)

    def get(self, name):
        return self.w.get(name)


def unpermute(w, n_head):
    return w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def from_folder(folder):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    arch = cfg.get("model_type")
    raw = files.read_folder_weights(folder)
    pad = cfg.get("pad_token_id")
    pad = 0 if pad is None else int(pad)
    if arch == "gpt2":
        if cfg.get("activation_function", "gelu_new") not in ("gelu_new", "gelu_pytorch_tanh"):
            raise SystemExit(f"unsupported activation_function {cfg['activation_function']!r}")
        if cfg.get("scale_attn_by_inverse_layer_idx") or cfg.get("scale_attn_weights") is False:
            raise SystemExit("unsupported attention scaling")
        raw = {k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in raw.items()}
        h, heads = cfg["n_embd"], cfg["n_head"]
        m = Model("gpt2", layers=cfg["n_layer"], hidden=h, heads=heads, kv=heads, head_dim=h // heads,
                  eps=cfg.get("layer_norm_epsilon", 1e-5), ctx=cfg.get("n_positions", cfg.get("n_ctx")), pad=pad)
        m.w.update(embed=raw["wte.weight"], pos=raw["wpe.weight"], norm_w=raw["ln_f.weight"], norm_b=raw["ln_f.bias"])
        for l in range(m.layers):
            p = f"h.{l}."
            qkv, b = raw[p + "attn.c_attn.weight"].T, raw[p + "attn.c_attn.bias"]
            for j, n in enumerate("qkv"):
                m.w[f"{l}.{n}_w"], m.w[f"{l}.{n}_b"] = qkv[j * h:(j + 1) * h], b[j * h:(j + 1) * h]
            for src, dst in (("ln_1", "n1"), ("ln_2", "n2")):
                m.w[f"{l}.{dst}_w"], m.w[f"{l}.{dst}_b"] = raw[p + src + ".weight"], raw[p + src + ".bias"]
            for src, dst in (("attn.c_proj", "o"), ("mlp.c_fc", "up"), ("mlp.c_proj", "down")):
                m.w[f"{l}.{dst}_w"], m.w[f"{l}.{dst}_b"] = raw[p + src + ".weight"].T, raw[p + src + ".bias"]
    elif arch in ("llama", "mistral", "qwen2"):  # mistral read as llama (no sliding window)
        arch = "qwen2" if arch == "qwen2" else "llama"
        raw = {k if k.startswith(("model.", "lm_head.")) else "model." + k: v for k, v in raw.items()}
        if cfg.get("hidden_act", "silu") != "silu" or cfg.get("rope_scaling"):
            raise SystemExit("unsupported llama/qwen2 variant (hidden_act or rope_scaling)")
        h, heads = cfg["hidden_size"], cfg["num_attention_heads"]
        m = Model(arch, layers=cfg["num_hidden_layers"], hidden=h, heads=heads,
                  kv=cfg.get("num_key_value_heads") or heads, head_dim=cfg.get("head_dim") or h // heads,
                  eps=cfg["rms_norm_eps"], theta=float(cfg.get("rope_theta", 10000.0)),
                  ctx=cfg["max_position_embeddings"], pad=pad)
        m.w.update(embed=raw["model.embed_tokens.weight"], norm_w=raw["model.norm.weight"])
        for l in range(m.layers):
            p = f"model.layers.{l}."
            m.w[f"{l}.n1_w"] = raw[p + "input_layernorm.weight"]
            m.w[f"{l}.n2_w"] = raw[p + "post_attention_layernorm.weight"]
            for n in "qkvo":
                m.w[f"{l}.{n}_w"] = raw[f"{p}self_attn.{n}_proj.weight"]
                if f"{p}self_attn.{n}_proj.bias" in raw:
                    m.w[f"{l}.{n}_b"] = raw[f"{p}self_attn.{n}_proj.bias"]
            for n in ("gate", "up", "down"):
                m.w[f"{l}.{n}_w"] = raw[f"{p}mlp.{n}_proj.weight"]
    else:
        raise SystemExit(f"unsupported model_type {arch!r}")
    tok = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return m, tok


def from_gguf(path):
    meta, raw = files.read_gguf(path)
    arch = meta["general.architecture"]
    if arch not in ("llama", "qwen2", "gpt2"):
        raise SystemExit(f"unsupported GGUF architecture {arch!r}")
    g = lambda k, default=None: meta.get(f"{arch}.{k}", default)
    h, heads = int(g("embedding_length")), int(g("attention.head_count"))
    kv = int(g("attention.head_count_kv", heads))
    m = Model(arch, layers=int(g("block_count")), hidden=h, heads=heads, kv=kv,
              head_dim=int(g("attention.key_length", h // heads)),
              ctx=int(g("context_length")), pad=int(meta.get("tokenizer.ggml.padding_token_id", 0)))
    if arch == "gpt2":
        m.eps = float(g("attention.layer_norm_epsilon"))
    else:
        m.eps, m.theta = float(g("attention.layer_norm_rms_epsilon")), float(g("rope.freq_base", 10000.0))
        rope_dim = int(g("rope.dimension_count", m.head_dim))
        if rope_dim != m.head_dim:
            raise SystemExit(f"partial rotary (rope.dimension_count {rope_dim} of {m.head_dim}) is not supported")
    m.w.update(embed=raw["token_embd.weight"], norm_w=raw["output_norm.weight"], norm_b=raw.get("output_norm.bias"),
               pos=raw.get("position_embd.weight"), out=raw.get("output.weight"))
    names = {"attn_norm": "n1", "ffn_norm": "n2", "attn_q": "q", "attn_k": "k", "attn_v": "v", "attn_output": "o",
             "ffn_gate": "gate", "ffn_up": "up", "ffn_down": "down"}
    for l in range(m.layers):
        for src, dst in names.items():
            for kind in ("weight", "bias"):
                a = raw.get(f"blk.{l}.{src}.{kind}")
                if a is not None and arch == "llama" and src in ("attn_q", "attn_k"):
                    a = unpermute(a, heads if src == "attn_q" else kv)
                if a is not None:
                    m.w[f"{l}.{dst}_{kind[0]}"] = a
        if arch == "gpt2":
            qkv, b = raw[f"blk.{l}.attn_qkv.weight"], raw[f"blk.{l}.attn_qkv.bias"]
            for j, n in enumerate("qkv"):
                m.w[f"{l}.{n}_w"], m.w[f"{l}.{n}_b"] = qkv[j * h:(j + 1) * h], b[j * h:(j + 1) * h]
    return m, files.gguf_tokenizer(meta)


def tokenizer_of(path):
    """The model's tokenizer alone (a GGUF's from its metadata, without reading its tensors)."""
    if os.path.isfile(path):
        import gguf
        r = gguf.GGUFReader(path)
        meta = {k: f.contents() for k, f in r.fields.items() if not k.startswith("GGUF.")}
        return files.gguf_tokenizer(meta)
    from tokenizers import Tokenizer
    return Tokenizer.from_file(os.path.join(path, "tokenizer.json"))


def load(path):
    model, tok = from_gguf(path) if os.path.isfile(path) else from_folder(path)
    # eps and rope theta as float32, as GGUF stores them and as HF's float32 kernels use them
    model.eps = float(np.float32(model.eps))
    model.theta = float(np.float32(getattr(model, "theta", 10000.0)))
    # one memory layout whatever the source, so that the same weights give the same bits
    model.w = {k: None if v is None else np.ascontiguousarray(v, dtype=np.float64) for k, v in model.w.items()}
    return model, tok


# ---------------------------------------------------------------- forward pass

def linear(m, x, name):
    y = x @ m.w[name + "_w"].T
    b = m.get(name + "_b")
    return y if b is None else y + b


def norm(m, x, name):
    if m.arch == "gpt2":
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + m.eps) * m.w[name + "_w"] + m.w[name + "_b"]
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + m.eps) * m.w[name + "_w"]


def rotary(x, theta):
    """x (heads, T, d): HF rotate-half rotary at positions 0 … T−1."""
    t, d = x.shape[1], x.shape[2]
    angle = np.arange(t, dtype=np.float64)[:, None] * theta ** (-2.0 * np.arange(d // 2) / d)[None, :]
    cos, sin = np.cos(angle), np.sin(angle)
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)


def attention(m, x, layer, allowed):
    t, hd = x.shape[0], m.head_dim
    q, k, v = (linear(m, x, f"{layer}.{n}") for n in "qkv")
    q = q.reshape(t, m.heads, hd).transpose(1, 0, 2)
    k, v = (a.reshape(t, m.kv, hd).transpose(1, 0, 2) for a in (k, v))
    if m.arch != "gpt2":
        q, k = rotary(q, m.theta), rotary(k, m.theta)
    k, v = np.repeat(k, m.heads // m.kv, axis=0), np.repeat(v, m.heads // m.kv, axis=0)
    s = np.where(allowed[None], q @ k.transpose(0, 2, 1) / math.sqrt(hd), -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    s /= s.sum(-1, keepdims=True)
    return (s @ v).transpose(1, 0, 2).reshape(t, m.heads * hd)


def forward(m, ids, mask):
    """Hidden states h⁰ … h^L of one sequence, (L+1, T, H)."""
    ids = np.asarray(ids, dtype=np.int64)
    t = len(ids)
    allowed = np.tril(np.ones((t, t), dtype=bool)) & (np.asarray(mask) == 1)[None, :]
    x = m.w["embed"][ids]
    if m.arch == "gpt2":
        x = x + m.w["pos"][:t]
    out = [x]
    for l in range(m.layers):
        x = x + linear(m, attention(m, norm(m, x, f"{l}.n1"), l, allowed), f"{l}.o")
        n = norm(m, x, f"{l}.n2")
        if m.arch == "gpt2":
            u = linear(m, n, f"{l}.up")
            f = 0.5 * u * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (u + 0.044715 * u ** 3)))
        else:
            g = linear(m, n, f"{l}.gate")
            f = g / (1.0 + np.exp(-g)) * linear(m, n, f"{l}.up")
        x = x + linear(m, f, f"{l}.down")
        out.append(x)
    return np.stack(out)


# ---------------------------------------------------------------- measures

def layer_measures(c, support, sq, skip):
    """positional share, effective dimension and principal coordinates of each layer."""
    k = np.array(support[skip:], dtype=np.float64)
    out = []
    for layer in range(c.shape[0]):
        cl = c[layer, skip:]
        hbar = (k[:, None] * cl).sum(0) / k.sum()
        between = float((k * ((cl - hbar) ** 2).sum(1)).sum())
        within = float(np.maximum(sq[layer, skip:] - k * (cl * cl).sum(1), 0.0).sum())
        share = between / (between + within) if between + within > 0 else None
        centred = cl - cl.mean(0)
        vals, vecs = np.linalg.eigh(centred.T @ centred)
        order = np.argsort(-vals, kind="stable")
        vals, vecs = np.maximum(vals[order], 0.0), vecs[:, order]
        eff = None
        if vals.sum() > 0:
            p = vals / vals.sum()
            p = p[p > 0]
            eff = float(math.exp(-(p * np.log(p)).sum()))
        proj = centred @ vecs[:, : min(3, cl.shape[1], cl.shape[0])]
        lead = np.abs(proj).argmax(0)
        proj = proj * np.where(proj[lead, np.arange(proj.shape[1])] < 0, -1.0, 1.0)
        out.append({"layer": layer, "positional_share": share, "effective_dimension": eff,
                    "principal": proj.tolist()})
    return out


def run(args):
    model, tok = load(args.model)
    seqs = ref.read_corpus(args.corpus, tok, not args.no_special_tokens, args.max_len)
    n, d = ref.corpus_geometry(seqs, args.mode, args.max_len, args.min_support)
    target = ref.pmds_target(d, False)
    cut = min(args.max_len, model.ctx)
    used = seqs[: args.layer_sequences]
    _, _, n_l = ref.layer_positions(used, args.mode, cut, n, args.min_support)
    skip = max(0, min(args.skip, n_l - 2))  # capped to leave two positions
    sq = np.zeros((model.layers + 1, n_l))

    def fed(_cfg, _w, ids, mask):  # bert_ref.centroids feeds each sequence through this
        hs = forward(model, ids, mask)
        m = min(len(ids), n_l)  # the positions centroids() counts
        sq[:, :m] += (hs[:, :m] ** 2).sum(-1)
        return hs

    ref.forward = fed
    cfg = {"num_hidden_layers": model.layers, "hidden_size": model.hidden, "pad_token_id": model.pad}
    c, r, support, hidden = ref.centroids(cfg, None, used, args.mode, cut, n, args.min_support, args.dump_hidden)
    out = {"n": n, "positions": n_l, "sequences_used": len(used), "cut": cut, "mode": args.mode,
           "num_layers": model.layers, "hidden_size": model.hidden, "layer_support": support,
           "target_dim": target.shape[1], "encodings": {}, "centroids": {}, "skip": skip}
    for kind, rows in (("layer", c), ("layer-residual", r)):
        for layer, pts in enumerate(rows):
            name = f"{kind}:{layer}"
            out["encodings"][name] = ref.measures(pts, d[:n_l, :n_l], target[:n_l], False)
            out["centroids"][name] = pts.tolist()
    out["measures"] = layer_measures(c, support, sq, skip)
    if args.dump_hidden:
        out["hidden"] = hidden
    return out


def check_paris(path):
    model, tok = load(path)
    prompt = "The capital of France is"
    ids = tok.encode(prompt).ids
    head = model.get("out") if model.get("out") is not None else model.w["embed"]
    new = []
    for _ in range(3):
        h = forward(model, ids + new, [1] * (len(ids) + len(new)))[-1][-1:]
        new.append(int(np.argmax(norm(model, h, "norm")[0] @ head.T)))
    text = tok.decode(new, skip_special_tokens=False)
    ok = text.startswith(" Paris")
    print(json.dumps({"prompt": prompt, "ids": ids, "new_ids": new, "continuation": text, "ok": ok}))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description="float64 reference of posgeo's decoder layers (docs/MATH.md §14)")
    ap.add_argument("model")
    ap.add_argument("corpus", nargs="?")
    ap.add_argument("--mode", choices=["condition", "pad"], default="condition")
    ap.add_argument("--max-len", type=int, default=512)
    ap.add_argument("--min-support", type=int, default=5)
    ap.add_argument("--layer-sequences", type=int, default=256)
    ap.add_argument("--no-special-tokens", action="store_true")
    ap.add_argument("--skip", type=int, default=0, metavar="K")
    ap.add_argument("--dump-hidden", type=int, default=0, metavar="K")
    ap.add_argument("--check-paris", action="store_true")
    ap.add_argument("--tokenize", metavar="JSON", help="a JSON list of texts: print their ids (special tokens on)")
    args = ap.parse_args()
    if args.check_paris:
        return check_paris(args.model)
    if args.tokenize is not None:
        print(json.dumps({"ids": [tokenizer_of(args.model).encode(t).ids for t in json.loads(args.tokenize)]}))
        return 0
    if args.corpus is None:
        ap.error("CORPUS is required (unless --check-paris)")
    print(json.dumps(run(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
