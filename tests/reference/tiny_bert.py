#!/usr/bin/env python3
"""Writes a small random BERT model folder for the tests of docs/MATH.md §9 (and bert_ref.py):

  config.json        model_type "bert", hidden 30, 3 heads of 10, intermediate 37, 2 layers,
                     max_position_embeddings 40, type_vocab_size 2, vocab from the tokenizer,
                     hidden_act "gelu", absolute positions, pad_token_id 0, layer_norm_eps 1e-12
  model.safetensors  written by hand: 8-byte little-endian header length, JSON header (dtype,
                     shape, data_offsets; padded with spaces to a multiple of 8), raw data.
                     Weights ~ N(0, 0.3²), LayerNorm weights 1 + N(0, 0.05²), biases N(0, 0.02²),
                     drawn in float64 from numpy's PCG64 with the seed, rounded to float32, then to
                     the dtype: F16 by numpy (round to nearest even), BF16 as the upper 16 bits of
                     the float32 rounded to nearest even. Also embeddings.position_ids (I64
                     [1, 40], stored first so that every tensor is aligned to its element size), as old
                     checkpoints carry it: a reader must skip it. No pooler.
  tokenizer.json     WordPiece (BertNormalizer lowercase, BertPreTokenizer, "##" pieces), vocab
                     [PAD]=0 [UNK] [CLS] [SEP] [MASK], ~60 lowercase words, a few "##" pieces;
                     post-processor TemplateProcessing "[CLS] $A [SEP]".

The same seed gives the same bytes. Reading the file back as float64 (bert_ref.py) gives exactly
the rounded values stored, so both sides compute on identical weights.

Usage: tiny_bert.py OUT_DIR [--seed N] [--dtype F32|F16|BF16] [--prefix] [--protein]
  --prefix   tensor names start with "bert." (as in BertForMaskedLM checkpoints)
  --protein  a protein BERT as ProtBERT ships: vocab.txt of the special tokens and 25 residues
             (no "##" pieces) and tokenizer_config.json with do_lower_case false, no
             tokenizer.json
"""
import argparse
import json
import os
import struct

import numpy as np
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

HIDDEN, HEADS, INTERMEDIATE, LAYERS, MAX_POS, TYPES = 30, 3, 37, 2, 40, 2
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = """the a an and of to in on under over is was are sat ran run walk cat dog mat rug big
small red blue green quick slow bird fish tree house man woman child eat food bread water
day night sun moon good bad old new one two three it he she they we you i this that with""".split()
RESIDUES = "LAGVESIKRDTPNQFYMHCWXUBZO"
PIECES = ["##s", "##ed", "##ing", "##ly", "##er", "##ning", "##y", "##e"]


def vocabulary():
    return {w: i for i, w in enumerate(SPECIAL + WORDS + PIECES)}


def tokenizer(vocab):
    tok = Tokenizer(models.WordPiece(vocab=vocab, unk_token="[UNK]", continuing_subword_prefix="##"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tok.decoder = decoders.WordPiece(prefix="##")
    tok.add_special_tokens(SPECIAL)
    return tok


def tensors(rng, vocab_size):
    """(name, float32 array) in a fixed order."""
    out = []
    normal = lambda shape, sd: rng.normal(0.0, sd, shape)
    dense = lambda p, o, i: [(p + ".weight", normal((o, i), 0.3)), (p + ".bias", normal((o,), 0.02))]
    norm = lambda p: [(p + ".weight", 1.0 + normal((HIDDEN,), 0.05)), (p + ".bias", normal((HIDDEN,), 0.02))]
    out += [("embeddings.word_embeddings.weight", normal((vocab_size, HIDDEN), 0.3)),
            ("embeddings.position_embeddings.weight", normal((MAX_POS, HIDDEN), 0.3)),
            ("embeddings.token_type_embeddings.weight", normal((TYPES, HIDDEN), 0.3))]
    out += norm("embeddings.LayerNorm")
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}"
        for n in ("query", "key", "value"):
            out += dense(f"{p}.attention.self.{n}", HIDDEN, HIDDEN)
        out += dense(f"{p}.attention.output.dense", HIDDEN, HIDDEN) + norm(f"{p}.attention.output.LayerNorm")
        out += dense(f"{p}.intermediate.dense", INTERMEDIATE, HIDDEN)
        out += dense(f"{p}.output.dense", HIDDEN, INTERMEDIATE) + norm(f"{p}.output.LayerNorm")
    return [(name, a.astype(np.float32)) for name, a in out]


def to_bf16(a):
    """float32 → bfloat16 bits, round to nearest even (no NaN here)."""
    u = a.astype("<f4").view("<u4").astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")


def encode(a, dtype):
    if dtype == "F32":
        return a.astype("<f4").tobytes()
    if dtype == "F16":
        return a.astype("<f2").tobytes()
    return to_bf16(a).tobytes()


def write_safetensors(path, items):
    """items: (name, dtype, shape, bytes)."""
    header, blobs, offset = {}, [], 0
    for name, dtype, shape, data in items:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def config(vocab_size, dtype):
    torch_dtype = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype]
    return {"architectures": ["BertModel"], "model_type": "bert", "hidden_size": HIDDEN,
            "num_hidden_layers": LAYERS, "num_attention_heads": HEADS, "intermediate_size": INTERMEDIATE,
            "hidden_act": "gelu", "max_position_embeddings": MAX_POS, "type_vocab_size": TYPES,
            "vocab_size": vocab_size, "layer_norm_eps": 1e-12, "pad_token_id": 0,
            "position_embedding_type": "absolute", "hidden_dropout_prob": 0.1,
            "attention_probs_dropout_prob": 0.1, "initializer_range": 0.3, "torch_dtype": torch_dtype}


def main():
    ap = argparse.ArgumentParser(description="a small random BERT model folder")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dtype", choices=["F32", "F16", "BF16"], default="F32")
    ap.add_argument("--prefix", action="store_true", help='tensor names start with "bert."')
    ap.add_argument("--protein", action="store_true", help="a residue vocab.txt, as ProtBERT ships")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.protein:
        vocab = {t: i for i, t in enumerate(SPECIAL + list(RESIDUES))}
        with open(os.path.join(args.out, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(vocab) + "\n")
        with open(os.path.join(args.out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            json.dump({"do_lower_case": False}, f)
    else:
        vocab = vocabulary()
        tokenizer(vocab).save(os.path.join(args.out, "tokenizer.json"))
    pre = "bert." if args.prefix else ""
    ids = np.arange(MAX_POS, dtype="<i8").reshape(1, MAX_POS)  # first: every tensor stays aligned
    items = [(pre + "embeddings.position_ids", "I64", ids.shape, ids.tobytes())]
    items += [(pre + name, args.dtype, a.shape, encode(a, args.dtype))
              for name, a in tensors(np.random.default_rng(args.seed), len(vocab))]
    write_safetensors(os.path.join(args.out, "model.safetensors"), items)
    with open(os.path.join(args.out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config(len(vocab), args.dtype), f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
