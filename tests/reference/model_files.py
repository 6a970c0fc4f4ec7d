"""Readers of the model files decoder_ref.py takes, independent of any model library (no torch):

  safetensors   model.safetensors, else the shards model.safetensors.index.json names
                ({"metadata": {...}, "weight_map": {name: file}}), else every .safetensors
                file of the folder; F64/F32/F16/BF16 tensors as float64 (bert_ref.decode),
                integer tensors skipped.
  .bin          PyTorch's zip format: a (stored or deflated) zip holding <prefix>/data.pkl, a
                pickle (protocol 2) of name → torch._utils._rebuild_tensor_v2(storage,
                storage_offset, size, stride, requires_grad, backward_hooks), each storage a
                persistent id ('storage', torch.<Type>Storage, key, location, numel) whose bytes
                are <prefix>/data/<key> (little endian). Read by a RESTRICTED unpickler: its
                find_class allows only collections.OrderedDict, torch._utils._rebuild_tensor_v2,
                torch._utils._rebuild_parameter and torch.{Float,Double,Half,BFloat16}Storage,
                each mapped to a numpy builder; any other global (posix.system, …) is refused.
  GGUF          gguf.GGUFReader: metadata as Python values, tensors by gguf.quants.dequantize
                (the truth for every ggml type) as float64 in numpy layout [ne1, ne0] = [out, in].
  tokenizer     from a GGUF's tokenizer.ggml.* (model "gpt2" only): models.BPE(vocab, merges)
                (ignore_merges for pre "llama-bpe", as llama.cpp), pre-tokenizer by
                tokenizer.ggml.pre: "gpt2"/"default" ByteLevel(add_prefix_space=False,
                use_regex=True); "smollm" Sequence[Digits(individual_digits=True), that
                ByteLevel]; "qwen2"/"llama-bpe" Split(llama.cpp's regex, isolated) then
                ByteLevel(use_regex=False), "qwen2" after an NFC normalizer (as Qwen2's
                tokenizer.json). ByteLevel decoder; token_type 3 (control) as added special
                tokens, 4 (user defined) as added tokens; TemplateProcessing "<bos> $A" when
                tokenizer.ggml.add_bos_token.
"""
import collections
import json
import os
import pickle
import zipfile

import numpy as np
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from bert_ref import decode, read_safetensors

# ---------------------------------------------------------------- safetensors


def read_folder_weights(folder):
    """name → float64 array: model.safetensors, else the shards the index names, else every
    .safetensors file of the folder, else pytorch_model.bin."""
    single, index = os.path.join(folder, "model.safetensors"), os.path.join(folder, "model.safetensors.index.json")
    if os.path.isfile(single):
        return read_safetensors(single)
    if os.path.isfile(index):
        with open(index, encoding="utf-8") as f:
            shards = sorted(set(json.load(f)["weight_map"].values()))
    else:
        shards = sorted(n for n in os.listdir(folder) if n.endswith(".safetensors"))
    if shards:
        out = {}
        for name in shards:
            out.update(read_safetensors(os.path.join(folder, name)))
        return out
    if os.path.isfile(os.path.join(folder, "pytorch_model.bin")):
        return read_torch_bin(os.path.join(folder, "pytorch_model.bin"))
    raise SystemExit(f"{folder}: no model.safetensors, shards or pytorch_model.bin")


# ---------------------------------------------------------------- pytorch_model.bin

STORAGES = {"FloatStorage": "F32", "DoubleStorage": "F64", "HalfStorage": "F16", "BFloat16Storage": "BF16"}
ITEM = {"F32": 4, "F64": 8, "F16": 2, "BF16": 2}


class _StorageType:
    def __init__(self, dtype):
        self.dtype = dtype


def _rebuild_tensor_v2(storage, offset, size, stride, requires_grad=False, hooks=None, metadata=None):
    size, stride = tuple(size), tuple(stride)
    if not size:
        return storage[offset : offset + 1].reshape(()).copy()
    need = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    if any(n == 0 for n in size):
        return np.zeros(size)
    if need > len(storage) or min(stride) < 0:
        raise pickle.UnpicklingError("tensor view past its storage")
    view = np.lib.stride_tricks.as_strided(storage[offset:], size, tuple(s * 8 for s in stride))
    return np.array(view)


def _rebuild_parameter(data, requires_grad=False, hooks=None):
    return data


class _Restricted(pickle.Unpickler):
    def __init__(self, fileobj, zf, prefix):
        super().__init__(fileobj)
        self.zf, self.prefix, self.cache = zf, prefix, {}

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor_v2
        if (module, name) == ("torch._utils", "_rebuild_parameter"):
            return _rebuild_parameter
        if module == "torch" and name in STORAGES:
            return _StorageType(STORAGES[name])
        raise pickle.UnpicklingError(f"refusing the global {module}.{name} in a pickle")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage" and isinstance(pid[1], _StorageType)):
            raise pickle.UnpicklingError(f"unexpected persistent id {pid!r}")
        _, kind, key, _location, numel = pid
        if key not in self.cache:
            raw = self.zf.read(f"{self.prefix}data/{key}")
            if len(raw) != numel * ITEM[kind.dtype]:
                raise pickle.UnpicklingError(f"storage {key}: {len(raw)} bytes for {numel} elements")
            self.cache[key] = decode(kind.dtype, raw)  # float64, so strides are 8 bytes
        return self.cache[key]


def read_torch_bin(path):
    with zipfile.ZipFile(path) as zf:
        pkl = [n for n in zf.namelist() if n.endswith("data.pkl")]
        if len(pkl) != 1:
            raise SystemExit(f"{path}: not PyTorch's zip format (no single data.pkl)")
        prefix = pkl[0][: -len("data.pkl")]
        with zf.open(pkl[0]) as f:
            try:
                obj = _Restricted(f, zf, prefix).load()
            except pickle.UnpicklingError as e:
                raise SystemExit(f"{path}: {e}") from None
    if not isinstance(obj, dict):
        raise SystemExit(f"{path}: the pickle is not a state dict")
    return {k: v for k, v in obj.items() if isinstance(v, np.ndarray)}


# ---------------------------------------------------------------- GGUF

def read_gguf(path):
    """(metadata dict, name → float64 array [out, in])."""
    import gguf

    r = gguf.GGUFReader(path)
    meta = {}
    for key, field in r.fields.items():
        if key.startswith("GGUF."):
            continue
        meta[key] = field.contents()
    w = {}
    for t in r.tensors:
        a = gguf.quants.dequantize(t.data, t.tensor_type)
        w[t.name] = np.asarray(a, dtype=np.float64).reshape([int(n) for n in reversed(t.shape)])
    return meta, w


LLAMA_CPP_SPLIT = {  # llama.cpp's rewrites of the tokenizer.json regexes (no inline (?i:))
    "qwen2": r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
             r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    "llama-bpe": r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
                 r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
}


def gguf_tokenizer(meta):
    if meta.get("tokenizer.ggml.model") != "gpt2":
        raise SystemExit(f"unsupported GGUF tokenizer model {meta.get('tokenizer.ggml.model')!r}")
    tokens = list(meta["tokenizer.ggml.tokens"])
    types = list(meta.get("tokenizer.ggml.token_type", [1] * len(tokens)))
    merges = [tuple(m.split(" ", 1)) for m in meta.get("tokenizer.ggml.merges", [])]
    pre = meta.get("tokenizer.ggml.pre", "default")
    vocab = {t: i for i, t in enumerate(tokens)}
    tok = Tokenizer(models.BPE(vocab, merges, ignore_merges=(pre == "llama-bpe")))
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if pre in ("gpt2", "default"):
        tok.pre_tokenizer = byte_level
    elif pre == "smollm":
        tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), byte_level])
    elif pre in LLAMA_CPP_SPLIT:
        if pre == "qwen2":
            tok.normalizer = normalizers.NFC()  # as Qwen2's tokenizer.json
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(LLAMA_CPP_SPLIT[pre]), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    else:
        raise SystemExit(f"unsupported tokenizer.ggml.pre {pre!r}")
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t, k in zip(tokens, types) if k == 3])
    tok.add_tokens([AddedToken(t, normalized=False) for t, k in zip(tokens, types) if k == 4])
    if meta.get("tokenizer.ggml.add_bos_token", False):
        bos = int(meta["tokenizer.ggml.bos_token_id"])
        tok.post_processor = processors.TemplateProcessing(
            single=f"{tokens[bos]} $A", pair=f"{tokens[bos]} $A {tokens[bos]} $B:1",
            special_tokens=[(tokens[bos], bos)])
    tok.no_truncation()
    tok.no_padding()
    return tok
