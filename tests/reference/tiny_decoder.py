#!/usr/bin/env python3
"""Writes a small random decoder model (llama, qwen2 or gpt2) as a Hugging Face folder, and
optionally the same model as a GGUF v3 file, for decoder_ref.py and the tests. No model library.

Sizes (preset "small", the default): llama/qwen2 hidden 36, 3 heads of head_dim 12, 1 KV head
(grouped-query attention, groups of 3), intermediate 50, 3 layers, max_position_embeddings 64,
rope_theta 1e4 (llama) / 1e6 (qwen2), rms_norm_eps 1e-6, SiLU, q/k/v biases for qwen2 only,
tie_word_embeddings. gpt2: n_embd 36, n_head 3, n_layer 3, n_positions = n_ctx = 64, n_inner null
(4·36 = 144), layer_norm_epsilon 1e-5, "gelu_new". Preset "quant" (chosen automatically when
--qtype is a block type: Q* needs rows of a multiple of 32, K-quants of 256, which 36 is not):
hidden 256, 4 heads of 64, 2 KV heads (groups of 2), intermediate 512, 2 layers; gpt2 n_embd 256,
n_head 4, n_layer 2, n_inner 512. Every row length (ne0: hidden 256, intermediate 512) is a
multiple of 256. Same vocabulary and context (64) in both presets.

config.json: model_type, architectures (LlamaForCausalLM, Qwen2ForCausalLM, GPT2LMHeadModel),
vocab_size (the tokenizer's, 300), bos/eos ids ("<s>" = 1 / "<|endoftext|>" = 0 for llama and
qwen2; 0 / 0 for gpt2), "pad_token_id": null for llama (as LlamaConfig writes it), absent for
qwen2 and gpt2: a reader's pad id is then 0.

Weights, drawn from numpy's PCG64 (seed) in float64 in a fixed order, rounded to float32, then to
the dtype (F16 numpy RNE; BF16 the upper 16 bits of the float32, RNE, as tiny_bert.py):
matrices and embeddings N(0, σ²) with σ = 0.2·sqrt(36/hidden) (0.2 in preset small), norm
weights 1 + N(0, 0.05²), biases (linear and LayerNorm) N(0, 0.02²). HF names and layouts: llama/
qwen2 model.embed_tokens.weight, model.layers.N.{input_layernorm,post_attention_layernorm}
.weight, model.layers.N.self_attn.{q,k,v,o}_proj.weight [out, in] (+ q/k/v .bias for qwen2),
model.layers.N.mlp.{gate,up,down}_proj.weight, model.norm.weight; gpt2 (no prefix, as the hub's
checkpoint) wte, wpe, h.N.ln_1, h.N.attn.c_attn (Conv1D layout [in, 3·out], columns q|k|v),
h.N.attn.c_proj, h.N.ln_2, h.N.mlp.c_fc, h.N.mlp.c_proj (Conv1D [in, out]), ln_f. No lm_head.
Files: model.safetensors (by hand, tiny_bert.write_safetensors); --shards K: model-0000i-of-
0000K.safetensors, contiguous runs of the tensors of about equal bytes, plus
model.safetensors.index.json {"metadata": {"total_size": Σ bytes}, "weight_map": {name: file}};
--format bin: pytorch_model.bin in PyTorch's zip format (stored): archive/data.pkl (pickle
protocol 2: OrderedDict name → torch._utils._rebuild_tensor_v2(persistent id ('storage',
torch.FloatStorage|HalfStorage|BFloat16Storage, key, 'cpu', numel), 0, size, contiguous stride,
False, OrderedDict())), archive/data/<key> (one storage per tensor, keys "0", "1", …),
archive/version "3\\n", archive/byteorder "little". --evil: the same bin whose FIRST state-dict
entry, "evil", is REDUCE(posix.system, ("touch /tmp/posgeo-evil-pickle-ran",)).

tokenizer.json: byte-level BPE trained by `tokenizers` (BpeTrainer vocab_size 300, min_frequency 0,
initial alphabet the 256 ByteLevel characters, special tokens "<|endoftext|>" = 0 and, for llama/
qwen2, "<s>" = 1) on tests/data/reference_corpus.txt and 40 lines of digit runs; ByteLevel pre-tokenizer (add_prefix_space
false) and decoder; post-processor TemplateProcessing "<s> $A" with --add-bos (llama only), else
ByteLevel(trim_offsets=False), which adds nothing. --pre llama-bpe or qwen2: the pre-tokenizer of
Meta-Llama-3's or Qwen2's own tokenizer.json instead — Split(their regex, isolated) then
ByteLevel(use_regex=false); llama-bpe's BPE with ignore_merges, qwen2's after an NFC normaliser.

--gguf FILE (as llama.cpp's convert_hf_to_gguf.py would write the folder, from the folder's
rounded values): general.architecture, {arch}.block_count, .context_length, .embedding_length,
.feed_forward_length, .attention.head_count, .attention.head_count_kv, .vocab_size,
.attention.layer_norm_rms_epsilon (llama/qwen2) or .attention.layer_norm_epsilon (gpt2),
.rope.freq_base and .rope.dimension_count (llama/qwen2). Tensors token_embd, position_embd (gpt2),
blk.N.attn_norm, blk.N.attn_q/attn_k/attn_v (+ .bias for qwen2) or attn_qkv (gpt2, c_attn
transposed to [3·out, in], with bias), blk.N.attn_output, blk.N.ffn_norm, blk.N.ffn_gate (llama/
qwen2), ffn_up, ffn_down (gpt2: transposed, with biases), output_norm; gpt2 also output.weight, a
copy of token_embd (convert does so). llama only: attn_q and attn_k rows permuted as convert's
LlamaModel.permute (reshape(n_head, 2, rows/n_head/2, cols).swapaxes(1, 2); attn_k with the KV
head count). Tokenizer: tokenizer.ggml.model "gpt2", .pre as --pre, tokens (id order), token_type
(3 for the special tokens, else 1), merges ("a b", rank order), bos/eos ids, add_bos_token.
--qtype T: every 2-D ".weight" tensor except position_embd (token_embd, output included) in T;
norms, biases and position_embd stay F32 (llama.cpp). Types gguf-py can quantize (F16, Q8_0,
Q4_0, Q4_1, Q5_0, Q5_1) are quantized from the weights; the K-quants (which gguf-py only
dequantizes) are random bytes (PCG64 seeded by [seed, 1]) whose f16 d (and dmin) fields are set
to one constant per tensor, chosen so that the dequantized values have standard deviation ≈ σ
(and, with dmin, mean ≈ 0). The truth is always gguf.quants.dequantize of the stored bytes.

Usage: tiny_decoder.py OUT_DIR --arch llama|qwen2|gpt2 [--seed N] [--dtype F32|F16|BF16]
         [--shards K] [--format safetensors|bin] [--evil] [--gguf FILE] [--qtype T]
         [--preset auto|small|quant] [--add-bos] [--pre gpt2|llama-bpe|qwen2]
"""
import argparse
import collections
import io
import json
import os
import pickle
import sys
import types
import zipfile

import numpy as np
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tiny_bert import encode, write_safetensors  # noqa: E402
from bert_ref import decode  # noqa: E402

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "reference_corpus.txt")
PRESETS = {"small": dict(hidden=36, heads=3, kv=1, inter=50, layers=3),
           "quant": dict(hidden=256, heads=4, kv=2, inter=512, layers=2)}
CTX, VOCAB = 64, 300
QTYPES = ["F32", "F16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"]
FILE_TYPE = {"F32": "ALL_F32", "F16": "MOSTLY_F16", "Q8_0": "MOSTLY_Q8_0", "Q4_0": "MOSTLY_Q4_0",
             "Q4_1": "MOSTLY_Q4_1", "Q5_0": "MOSTLY_Q5_0", "Q5_1": "MOSTLY_Q5_1", "Q2_K": "MOSTLY_Q2_K",
             "Q3_K": "MOSTLY_Q3_K_M", "Q4_K": "MOSTLY_Q4_K_M", "Q5_K": "MOSTLY_Q5_K_M", "Q6_K": "MOSTLY_Q6_K"}


# The pre-tokenizer regexes of Meta-Llama-3's and Qwen2's own tokenizer.json files.
SPLIT = {
    "llama-bpe": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
}


# Digit runs frequent enough for the trainer to merge digits, so that how a pre-tokenizer splits
# them (one digit a piece in Qwen2's regex, up to three in Llama 3's) shows in the ids.
DIGITS = ["In 1611, 2024 and 12345: 1234567 and 31337."] * 40


def tokenizer(arch, add_bos, pre="gpt2"):
    tok = Tokenizer(models.BPE())
    if pre == "gpt2":
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    else:  # as Llama 3's and Qwen2's files: the regex split, then the byte mapping alone
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(SPLIT[pre]), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    if pre == "qwen2":
        tok.normalizer = normalizers.NFC()
    tok.decoder = decoders.ByteLevel()
    special = ["<|endoftext|>"] + ([] if arch == "gpt2" else ["<s>"])
    with open(CORPUS, encoding="utf-8") as f:
        lines = f.read().splitlines()
    tok.train_from_iterator(lines + DIGITS, trainers.BpeTrainer(
        vocab_size=VOCAB, min_frequency=0, special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    if add_bos:
        tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s> $B:1",
                                                           special_tokens=[("<s>", 1)])
    else:
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    if pre == "llama-bpe":  # Llama 3's BPE takes a whole word in the vocabulary as it is
        spec = json.loads(tok.to_str())
        spec["model"]["ignore_merges"] = True
        tok = Tokenizer.from_str(json.dumps(spec))
    return tok


def tensors(arch, p, vocab, rng):
    """(HF name, float32 array) in the draw order."""
    h, inter, sd = p["hidden"], p["inter"], 0.2 * np.sqrt(36.0 / p["hidden"])
    hd = h // p["heads"]
    out = []
    mat = lambda n, shape: out.append((n, rng.normal(0.0, sd, shape)))
    vec = lambda n, size: out.append((n, rng.normal(0.0, 0.02, size)))
    norm = lambda n, size: out.append((n, 1.0 + rng.normal(0.0, 0.05, size)))
    if arch == "gpt2":
        mat("wte.weight", (vocab, h))
        mat("wpe.weight", (CTX, h))
        for l in range(p["layers"]):
            norm(f"h.{l}.ln_1.weight", h), vec(f"h.{l}.ln_1.bias", h)
            mat(f"h.{l}.attn.c_attn.weight", (h, 3 * h)), vec(f"h.{l}.attn.c_attn.bias", 3 * h)
            mat(f"h.{l}.attn.c_proj.weight", (h, h)), vec(f"h.{l}.attn.c_proj.bias", h)
            norm(f"h.{l}.ln_2.weight", h), vec(f"h.{l}.ln_2.bias", h)
            mat(f"h.{l}.mlp.c_fc.weight", (h, inter)), vec(f"h.{l}.mlp.c_fc.bias", inter)
            mat(f"h.{l}.mlp.c_proj.weight", (inter, h)), vec(f"h.{l}.mlp.c_proj.bias", h)
        norm("ln_f.weight", h), vec("ln_f.bias", h)
    else:
        mat("model.embed_tokens.weight", (vocab, h))
        for l in range(p["layers"]):
            a = f"model.layers.{l}."
            norm(a + "input_layernorm.weight", h)
            for n, rows in (("q", h), ("k", p["kv"] * hd), ("v", p["kv"] * hd)):
                mat(f"{a}self_attn.{n}_proj.weight", (rows, h))
                if arch == "qwen2":
                    vec(f"{a}self_attn.{n}_proj.bias", rows)
            mat(a + "self_attn.o_proj.weight", (h, h))
            norm(a + "post_attention_layernorm.weight", h)
            mat(a + "mlp.gate_proj.weight", (inter, h)), mat(a + "mlp.up_proj.weight", (inter, h))
            mat(a + "mlp.down_proj.weight", (h, inter))
        norm("model.norm.weight", h)
    return [(n, a.astype(np.float32)) for n, a in out]


def config(arch, p, vocab, dtype):
    torch_dtype = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype]
    if arch == "gpt2":
        return {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": vocab, "n_embd": p["hidden"],
                "n_head": p["heads"], "n_layer": p["layers"], "n_positions": CTX, "n_ctx": CTX,
                "n_inner": None if p["inter"] == 4 * p["hidden"] else p["inter"], "activation_function": "gelu_new",
                "layer_norm_epsilon": 1e-5, "bos_token_id": 0, "eos_token_id": 0, "scale_attn_weights": True,
                "scale_attn_by_inverse_layer_idx": False, "reorder_and_upcast_attn": False, "resid_pdrop": 0.1,
                "embd_pdrop": 0.1, "attn_pdrop": 0.1, "initializer_range": 0.2, "tie_word_embeddings": True,
                "torch_dtype": torch_dtype}
    c = {"architectures": ["LlamaForCausalLM" if arch == "llama" else "Qwen2ForCausalLM"], "model_type": arch,
         "vocab_size": vocab, "hidden_size": p["hidden"], "intermediate_size": p["inter"],
         "num_hidden_layers": p["layers"], "num_attention_heads": p["heads"], "num_key_value_heads": p["kv"],
         "hidden_act": "silu", "max_position_embeddings": CTX, "rms_norm_eps": 1e-6,
         "rope_theta": 10000.0 if arch == "llama" else 1000000.0, "rope_scaling": None, "bos_token_id": 1,
         "eos_token_id": 0, "tie_word_embeddings": True, "attention_dropout": 0.0, "initializer_range": 0.2,
         "use_cache": True, "torch_dtype": torch_dtype}
    if arch == "llama":
        c.update(head_dim=p["hidden"] // p["heads"], attention_bias=False, mlp_bias=False, pad_token_id=None)
    else:
        c.update(use_sliding_window=False, sliding_window=None, max_window_layers=p["layers"])
    return c


# ---------------------------------------------------------------- pytorch_model.bin without torch

def _fake(module, name, obj):
    """Registers obj as module.name so that pickle writes GLOBAL 'module name' for it."""
    mod = sys.modules.get(module)
    if mod is None or not getattr(mod, "__posgeo_fake__", False):
        mod = sys.modules[module] = types.ModuleType(module)
        mod.__posgeo_fake__ = True
    obj.__module__, obj.__qualname__, obj.__name__ = module, name, name
    setattr(mod, name, obj)
    return obj


_REBUILD = _fake("torch._utils", "_rebuild_tensor_v2", lambda *a: None)
_STORAGE = {d: _fake("torch", n, type(n, (), {})) for d, n in
            (("F32", "FloatStorage"), ("F16", "HalfStorage"), ("BF16", "BFloat16Storage"))}


class _Storage:
    def __init__(self, dtype, key, numel):
        self.pid = ("storage", _STORAGE[dtype], key, "cpu", numel)


class _Tensor:
    def __init__(self, storage, shape):
        stride = tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
        self.args = (storage, 0, tuple(shape), stride, False, collections.OrderedDict())

    def __reduce__(self):
        return (_REBUILD, self.args)


class _Evil:
    def __reduce__(self):
        return (os.system, ("touch /tmp/posgeo-evil-pickle-ran",))


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        return obj.pid if isinstance(obj, _Storage) else None


def write_torch_bin(path, items, evil):
    """items: (name, dtype, shape, bytes)."""
    state = collections.OrderedDict()
    if evil:
        state["evil"] = _Evil()
    blobs = []
    for key, (name, dtype, shape, data) in enumerate(items):
        numel = int(np.prod(shape))
        state[name] = _Tensor(_Storage(dtype, str(key), numel), shape)
        blobs.append((str(key), data))
    buf = io.BytesIO()
    _Pickler(buf, protocol=2).dump(state)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", buf.getvalue())
        z.writestr("archive/byteorder", "little")
        for key, data in blobs:
            z.writestr(f"archive/data/{key}", data)
        z.writestr("archive/version", "3\n")


# ---------------------------------------------------------------- GGUF

def permute(w, n_head):
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def gguf_tensors(arch, p, w):
    """(GGUF name, float32 array [out, in]) from the HF tensors, as convert_hf_to_gguf."""
    out = []
    if arch == "gpt2":
        out += [("token_embd.weight", w["wte.weight"]), ("position_embd.weight", w["wpe.weight"])]
        for l in range(p["layers"]):
            for hf, g in (("ln_1", "attn_norm"), ("attn.c_attn", "attn_qkv"), ("attn.c_proj", "attn_output"),
                          ("ln_2", "ffn_norm"), ("mlp.c_fc", "ffn_up"), ("mlp.c_proj", "ffn_down")):
                wt = w[f"h.{l}.{hf}.weight"]
                out += [(f"blk.{l}.{g}.weight", wt if wt.ndim == 1 else wt.T.copy()),
                        (f"blk.{l}.{g}.bias", w[f"h.{l}.{hf}.bias"])]
        out += [("output_norm.weight", w["ln_f.weight"]), ("output_norm.bias", w["ln_f.bias"]),
                ("output.weight", w["wte.weight"])]
        return out
    out.append(("token_embd.weight", w["model.embed_tokens.weight"]))
    for l in range(p["layers"]):
        a, b = f"model.layers.{l}.", f"blk.{l}."
        out.append((b + "attn_norm.weight", w[a + "input_layernorm.weight"]))
        for n, g, heads in (("q", "attn_q", p["heads"]), ("k", "attn_k", p["kv"]), ("v", "attn_v", None)):
            wt = w[f"{a}self_attn.{n}_proj.weight"]
            out.append((f"{b}{g}.weight", permute(wt, heads) if arch == "llama" and heads else wt))
            if arch == "qwen2":
                out.append((f"{b}{g}.bias", w[f"{a}self_attn.{n}_proj.bias"]))
        out += [(b + "attn_output.weight", w[a + "self_attn.o_proj.weight"]),
                (b + "ffn_norm.weight", w[a + "post_attention_layernorm.weight"]),
                (b + "ffn_gate.weight", w[a + "mlp.gate_proj.weight"]),
                (b + "ffn_up.weight", w[a + "mlp.up_proj.weight"]),
                (b + "ffn_down.weight", w[a + "mlp.down_proj.weight"])]
    out.append(("output_norm.weight", w["model.norm.weight"]))
    return out


K_FIELDS = {"Q2_K": (80, 82), "Q3_K": (108, None), "Q4_K": (0, 2), "Q5_K": (0, 2), "Q6_K": (208, None)}


def random_kquant(gguf, qtype, shape, sd, rng):
    """Random K-quant blocks; f16 d (dmin) set so that dequantized values have sd ≈ σ (mean ≈ 0)."""
    q = gguf.GGMLQuantizationType[qtype]
    blk, size = gguf.GGML_QUANT_SIZES[q]
    raw = rng.integers(0, 256, (shape[0], shape[1] // blk, size), dtype=np.uint8)
    d_at, m_at = K_FIELDS[qtype]

    def with_scales(d, dmin):
        b = raw.copy()
        b[..., d_at:d_at + 2] = np.array([d], dtype="<f2").view(np.uint8)
        if m_at is not None:
            b[..., m_at:m_at + 2] = np.array([dmin], dtype="<f2").view(np.uint8)
        return b.reshape(shape[0], -1)

    a = gguf.quants.dequantize(with_scales(1.0, 0.0), q).astype(np.float64)
    dmin = 0.0
    if m_at is not None:
        m = -gguf.quants.dequantize(with_scales(0.0, 1.0), q).astype(np.float64)
        dmin = a.mean() / m.mean()
        a = a - dmin * m
    scale = sd / a.std()
    return with_scales(np.float16(scale), np.float16(dmin * scale))


def write_gguf(path, arch, p, cfg, w, tok, qtype, add_bos, seed, pre="gpt2"):
    import gguf

    writer = gguf.GGUFWriter(path, arch)
    writer.add_name(f"tiny-{arch}")
    writer.add_block_count(p["layers"])
    writer.add_context_length(CTX)
    writer.add_embedding_length(p["hidden"])
    writer.add_feed_forward_length(p["inter"])
    writer.add_head_count(p["heads"])
    writer.add_head_count_kv(p["heads"] if arch == "gpt2" else p["kv"])
    writer.add_vocab_size(cfg["vocab_size"])
    if arch == "gpt2":
        writer.add_layer_norm_eps(cfg["layer_norm_epsilon"])
    else:
        writer.add_rope_freq_base(cfg["rope_theta"])
        writer.add_layer_norm_rms_eps(cfg["rms_norm_eps"])
        writer.add_rope_dimension_count(p["hidden"] // p["heads"])
    writer.add_file_type(gguf.LlamaFileType[FILE_TYPE[qtype]])
    if qtype not in ("F32", "F16"):
        writer.add_quantization_version(gguf.GGML_QUANT_VERSION)
    vocab = tok.get_vocab(with_added_tokens=True)
    tokens = sorted(vocab, key=vocab.get)
    assert [vocab[t] for t in tokens] == list(range(len(tokens)))
    specials = {t.content for t in tok.get_added_tokens_decoder().values() if t.special}
    merges = json.loads(tok.to_str())["model"]["merges"]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre(pre)
    writer.add_token_list(tokens)
    writer.add_token_types([3 if t in specials else 1 for t in tokens])
    writer.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in merges])
    writer.add_bos_token_id(cfg["bos_token_id"])
    writer.add_eos_token_id(cfg["eos_token_id"])
    writer.add_add_bos_token(add_bos)
    rng = np.random.default_rng([seed, 1])
    sd = 0.2 * np.sqrt(36.0 / p["hidden"])
    for name, a in gguf_tensors(arch, p, w):
        a = np.ascontiguousarray(a, dtype=np.float32)
        if a.ndim == 1 or not name.endswith(".weight") or name.startswith("position_embd") or qtype == "F32":
            writer.add_tensor(name, a)
        elif qtype == "F16":
            writer.add_tensor(name, a.astype(np.float16))
        elif qtype in K_FIELDS:
            q = random_kquant(gguf, qtype, a.shape, sd, rng)
            writer.add_tensor(name, q, raw_dtype=gguf.GGMLQuantizationType[qtype])
        else:
            q = gguf.GGMLQuantizationType[qtype]
            writer.add_tensor(name, gguf.quants.quantize(a, q), raw_dtype=q)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description="a small random decoder model folder (and GGUF)")
    ap.add_argument("out")
    ap.add_argument("--arch", choices=["llama", "qwen2", "gpt2"], required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dtype", choices=["F32", "F16", "BF16"], default="F32")
    ap.add_argument("--shards", type=int, default=1)
    ap.add_argument("--format", choices=["safetensors", "bin"], default="safetensors")
    ap.add_argument("--evil", action="store_true", help="pytorch_model.bin whose pickle calls posix.system")
    ap.add_argument("--gguf")
    ap.add_argument("--qtype", choices=QTYPES, default="F32")
    ap.add_argument("--preset", choices=["auto", "small", "quant"], default="auto")
    ap.add_argument("--add-bos", action="store_true")
    ap.add_argument("--pre", choices=["gpt2", "llama-bpe", "qwen2"], default="gpt2")
    args = ap.parse_args()
    if args.add_bos and args.arch != "llama":
        ap.error("--add-bos is for --arch llama only")
    if args.evil:
        args.format = "bin"
    if args.format == "bin" and args.shards > 1:
        ap.error("--shards is for safetensors")
    preset = args.preset if args.preset != "auto" else ("small" if args.qtype in ("F32", "F16") else "quant")
    if preset == "small" and args.qtype not in ("F32", "F16"):
        ap.error(f"--qtype {args.qtype} needs --preset quant (rows of 36 are not whole blocks)")
    p = PRESETS[preset]
    os.makedirs(args.out, exist_ok=True)
    tok = tokenizer(args.arch, args.add_bos, args.pre)
    tok.save(os.path.join(args.out, "tokenizer.json"))
    vocab = tok.get_vocab_size(with_added_tokens=True)
    cfg = config(args.arch, p, vocab, args.dtype)
    with open(os.path.join(args.out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    items = [(n, args.dtype, a.shape, encode(a, args.dtype))
             for n, a in tensors(args.arch, p, vocab, np.random.default_rng(args.seed))]
    if args.format == "bin":
        write_torch_bin(os.path.join(args.out, "pytorch_model.bin"), items, args.evil)
    elif args.shards <= 1:
        write_safetensors(os.path.join(args.out, "model.safetensors"), items)
    else:
        k, sizes = min(args.shards, len(items)), [len(it[3]) for it in items]
        total, before, part, shard = sum(sizes), 0, [], 0
        for j, size in enumerate(sizes):  # contiguous runs of ~total/k bytes, none empty
            if shard < k - 1 and j > 0 and (before >= (shard + 1) * total / k or len(items) - j == k - 1 - shard):
                shard += 1
            part.append(shard)
            before += size
        names = [f"model-{i + 1:05d}-of-{k:05d}.safetensors" for i in range(k)]
        for i, name in enumerate(names):
            write_safetensors(os.path.join(args.out, name), [it for it, j in zip(items, part) if j == i])
        index = {"metadata": {"total_size": total}, "weight_map": {it[0]: names[j] for it, j in zip(items, part)}}
        with open(os.path.join(args.out, "model.safetensors.index.json"), "w", encoding="utf-8") as f:
            json.dump(index, f, indent=2)
            f.write("\n")
    if args.gguf:
        w = {n: decode(dt, data).reshape(shape).astype(np.float32) for n, dt, shape, data in items}
        write_gguf(args.gguf, args.arch, p, cfg, w, tok, args.qtype, args.add_bos, args.seed, args.pre)


if __name__ == "__main__":
    main()
