#!/usr/bin/env python3
"""The SentencePiece family's original beside its GGUF, for the GGUF tokenizer's test
(crates/cli/tests/decoders.rs): a SentencePiece BPE model trained by `sentencepiece` itself, and
a GGUF holding that model's vocabulary as llama.cpp's converter writes it (with a small llama
header and no tensors: only its tokenizer is read).

  train OUT_DIR     trains OUT_DIR/tokenizer.model on tests/data/reference_corpus.txt as Llama's
                    tokenizer is configured (model_type bpe, vocab 380, byte_fallback, split_digits,
                    identity normalisation, a dummy prefix, whitespace kept; <unk> 0, <s> 1,
                    </s> 2), and writes OUT_DIR/tokenizer.gguf with llama.cpp's tokenizer keys
                    (convert_hf_to_gguf.py, `_create_vocab_sentencepiece`): tokenizer.ggml.model
                    "llama", tokens = the pieces, scores = their scores, token_type 1 normal,
                    2 unknown, 3 control, 5 unused, 6 byte; bos/eos/unk ids; add_bos_token true.
  encode MODEL JSON prints {"ids": [...]} — each line of the JSON list encoded by
                    SentencePieceProcessor with a begin token, as Llama's tokenizer adds it.

The comparison is then the GGUF as posgeo reads it against the original model as its own
library runs it; nothing here reads posgeo's code.
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def train(out):
    import gguf
    import sentencepiece as spm

    os.makedirs(out, exist_ok=True)
    prefix = os.path.join(out, "tokenizer")
    spm.SentencePieceTrainer.train(
        input=os.path.join(ROOT, "tests/data/reference_corpus.txt"), model_prefix=prefix,
        model_type="bpe", vocab_size=380, byte_fallback=True, split_digits=True,
        normalization_rule_name="identity", add_dummy_prefix=True, remove_extra_whitespaces=False,
        unk_id=0, bos_id=1, eos_id=2, pad_id=-1, character_coverage=1.0, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
    tokens, scores, types = [], [], []
    for i in range(sp.get_piece_size()):
        tokens.append(sp.id_to_piece(i))
        scores.append(sp.get_score(i))
        types.append(2 if sp.is_unknown(i) else 3 if sp.is_control(i) else 5 if sp.is_unused(i)
                     else 6 if sp.is_byte(i) else 1)
    w = gguf.GGUFWriter(prefix + ".gguf", "llama")
    # A model's header (a GGUF names its model's sizes; no tensors follow: only the tokenizer
    # is read).
    w.add_context_length(64)
    w.add_embedding_length(8)
    w.add_block_count(1)
    w.add_feed_forward_length(16)
    w.add_head_count(2)
    w.add_head_count_kv(2)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_dimension_count(4)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(sp.bos_id())
    w.add_eos_token_id(sp.eos_id())
    w.add_unk_token_id(sp.unk_id())
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def encode(model, lines):
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=model)
    print(json.dumps({"ids": [sp.encode(line, add_bos=True) for line in lines]}))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "train":
        train(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "encode":
        encode(sys.argv[2], json.loads(sys.argv[3]))
    else:
        sys.exit(__doc__)
