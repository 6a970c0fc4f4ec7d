#!/usr/bin/env python3
"""Test oracle for posgeo's model tokenizers: the Python `tokenizers` package from PyPI (the
reference implementation). Writes into OUT_DIR, for each model type:

  <name>.json            the tokenizer file (WordPiece: the shipped all-MiniLM-L6-v2 one;
                         byte-level BPE (RoBERTa-style, and GPT-2-style with a prefix space)
                         and Unigram (SentencePiece/XLM-R style, Metaspace) trained here on
                         the corpus)
  <name>.tokens.jsonl    per corpus line: {"special": [...], "plain": [...]} token ids named
                         by the vocabulary (docs/MATH.md §1)
  <name>.counts.json     c_i(w) computed here from those tokens, modes condition and pad,
                         with and without special tokens (max_len and min_support as given)

and corpus.txt, the lines used (Genesis, KJV, plus generated lines with accents, CJK, emoji,
digits, punctuation and odd spacing). Tokens come from the tokenizer read back from its file, as
a user loads tokenizer.json (the package's JSON reader rounds some scores otherwise than the
nearest double). Also unigram-ties.jsonl: Unigram segmentation ties (see `unigram_ties`).
Usage: oracle.py OUT_DIR [--max-len 48]
"""
import argparse
import gzip
import json
import os
import random

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def corpus():
    with open(os.path.join(ROOT, "www", "corpora", "kjv-genesis.txt"), encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n") if l]
    rng = random.Random(0)
    words = ["the", "The", "naïve", "café", "Straße", "ÉCOLE", "東京", "日本語", "😀", "👍🏽", "don't",
             "U.S.A.", "3.14", "1,000", "e-mail", "#tag", "@user", "<b>", "ﬁne", "Ǆemal", "İstanbul",
             "ß", "ﬀ", "x²", "—", "«quote»", "tab\there", "Ελληνικά", "русский", "עברית", "العربية",
             "hello", "world", "running", "unbelievable", "tokenization", "GPT", "BERT", "  ",
             # characters a normaliser removes or maps (controls, format characters, odd
             # whitespace): what splitting a text at spaces must not get wrong
             "a\x0bb", "c\x0cd", "e\u2028f", "g\x85h", "zero\u200bwidth", "soft\xadhyphen",
             "nul\x00byte", "bell\x07x", "ΟΔΟΣ", "e\u0301", "[SEP]", "[MASK]x", "\u3000ideo", "Ⅻ①",
             # contractions and added tokens, where byte-level BPE's regex and its cut into
             # chunks could disagree (an added token's lstrip/rstrip take spaces around it)
             "it's", "we'll", "'s", "'", "<s>", "</s>x", "<mask>", "y<mask>", "<|endoftext|>"]
    for k in range(1600):
        n = rng.randint(1, 30)
        sep = rng.choice([" ", " ", " ", "  ", "\t", " \u00a0", "\u3000", " \x0b"])
        lines.append(sep.join(rng.choice(words) for _ in range(n)).strip("\r\n") or "x")
    lines.append("   ")  # tokenizes to nothing without special tokens
    return [l for l in lines if l]


def wordpiece():
    with gzip.open(os.path.join(ROOT, "www", "models", "all-MiniLM-L6-v2", "tokenizer.json.gz")) as f:
        return Tokenizer.from_str(f.read().decode("utf-8"))


def bpe(lines, vocab_size=3000):
    """RoBERTa style: byte-level BPE, `<s> … </s>`, and `<mask>` taking the spaces around it
    (also bench/tokenizers.sh's tokenizer, with a larger vocabulary)."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<s>", "<pad>", "</s>", "<unk>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(lines, trainer)
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")))
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, rstrip=True)])
    return tok


def gpt2(lines):
    """GPT-2 style: byte-level BPE with a prefix space, no special tokens around a text."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=2500, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(lines, trainer)
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    return tok


def unigram(lines, vocab_size=2000):
    """T5 style: Unigram over Metaspace, after NFKC and a normaliser acting across spaces (also
    bench/tokenizers.sh's tokenizer, with a larger vocabulary)."""
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace("  ", " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    trainer = trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>",
                                      show_progress=False)
    tok.train_from_iterator(lines, trainer)
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", tok.token_to_id("</s>"))])
    return tok


def t5(lines, vocab_size=1500):
    """T5/XLM-R style, as converted from a SentencePiece model: Unigram with SentencePiece's
    own normaliser (`nmt_nfkc`, as a `Precompiled` charsmap), runs of spaces joined, Metaspace."""
    import io
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2 as pb
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=out, vocab_size=vocab_size,
                                   model_type="unigram", normalization_rule_name="nmt_nfkc", minloglevel=2,
                                   max_sentence_length=1 << 20)
    m = pb.ModelProto()
    m.ParseFromString(out.getvalue())
    unk = next(i for i, p in enumerate(m.pieces) if p.type == pb.ModelProto.SentencePiece.UNKNOWN)
    tok = Tokenizer(models.Unigram([(p.piece, p.score) for p in m.pieces], unk_id=unk, byte_fallback=False))
    tok.normalizer = normalizers.Sequence([normalizers.Precompiled(m.normalizer_spec.precompiled_charsmap),
                                           normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", tok.token_to_id("</s>"))])
    return tok


TIE_TEXTS = ["baseball....", "baseball.......", "baseball.. baseball.....", "....."]


def unigram_ties():
    """Unigram (Metaspace) tokenizers whose vocabulary holds `.` and `...`: "baseball...." is
    `▁baseball ... .` or `▁baseball . ...`, the same pieces, so the two scores tie and the last
    bit of two sums of doubles decides; that is, how the scores' decimal text is read.
    The first case is the one reported (an exact tie when the scores are read exactly, which the
    package does not do); the others have random scores. One JSON line per case:
    {"tokenizer": file text, "texts": TIE_TEXTS, "tokens": [[...] per text]}."""
    rng = random.Random(17)
    cases = [(-11.781757952769475, -4.178808654315618, -4.071589154274643)]
    while len(cases) < 200:
        dot = -rng.uniform(2, 6)  # `...` must beat `. . .`: its score above twice `.`'s
        cases.append((-rng.uniform(5, 15), dot, -rng.uniform(1, -2 * dot - 0.5)))
    out = []
    for ball, dot, dots in cases:
        vocab = [("<unk>", 0.0), ("▁", -20.0), ("▁baseball", ball), (".", dot), ("...", dots)]
        tok = Tokenizer(models.Unigram(vocab, unk_id=0, byte_fallback=False))
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
        text = tok.to_str()
        read = Tokenizer.from_str(text)  # as a user loads the file
        out.append({"tokenizer": text, "texts": TIE_TEXTS, "tokens": [read.encode(t).tokens for t in TIE_TEXTS]})
    ball, dot, dots = cases[0]
    assert (ball + dot) + dots == (ball + dots) + dot, "the reported case is an exact tie"
    assert out[0]["tokens"][0] == ["▁baseball", "...", "."], out[0]["tokens"][0]
    return out


def counts(seqs, mode, max_len, min_support):
    """c_i(w) by docs/MATH.md §2, naively: a list over kept positions of {token: count}."""
    seqs = [s[:max_len] for s in seqs]
    cap = min(max_len, max((len(s) for s in seqs), default=0))
    if mode == "pad":
        seqs = [s + ["<pad>"] * (cap - len(s)) for s in seqs]
    support = [sum(1 for s in seqs if len(s) > i) for i in range(cap)]
    n = 0
    while n < cap and support[n] >= min_support:
        n += 1
    rows = []
    for i in range(n):
        row = {}
        for s in seqs:
            if len(s) > i:
                row[s[i]] = row.get(s[i], 0) + 1
        rows.append(row)
    return {"n": n, "support": support, "rows": rows}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--max-len", type=int, default=48)
    ap.add_argument("--min-support", type=int, default=5)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    lines = corpus()
    with open(os.path.join(args.out, "corpus.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    for name, tok in [("wordpiece", wordpiece()), ("bpe", bpe(lines)), ("gpt2", gpt2(lines)), ("unigram", unigram(lines)), ("t5", t5(lines))]:
        tok.no_truncation()
        tok.no_padding()
        tok.save(os.path.join(args.out, f"{name}.json"))
        tok = Tokenizer.from_file(os.path.join(args.out, f"{name}.json"))
        # docs/MATH.md §1: the ids named by the vocabulary (`Encoding.tokens` shows the raw text for a
        # Unigram unk piece, and the spaces an added token's lstrip/rstrip took)
        def named(l, special):
            return [tok.id_to_token(i) for i in tok.encode(l, add_special_tokens=special).ids]
        special = [named(l, True) for l in lines]
        plain = [named(l, False) for l in lines]
        with open(os.path.join(args.out, f"{name}.tokens.jsonl"), "w", encoding="utf-8") as f:
            for s, p in zip(special, plain):
                f.write(json.dumps({"special": s, "plain": p}, ensure_ascii=False) + "\n")
        out = {f"{mode}/{kind}": counts(seqs, mode, args.max_len, args.min_support)
               for mode in ("condition", "pad") for kind, seqs in (("special", special), ("plain", plain))}
        with open(os.path.join(args.out, f"{name}.counts.json"), "w", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=False)
        print(name, tok.get_vocab_size(), "types;", sum(map(len, special)), "tokens")
    ties = unigram_ties()
    with open(os.path.join(args.out, "unigram-ties.jsonl"), "w", encoding="utf-8") as f:
        for case in ties:
            f.write(json.dumps(case, ensure_ascii=False) + "\n")
    print("unigram ties", len(ties), "tokenizers")


if __name__ == "__main__":
    main()
