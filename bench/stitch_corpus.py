"""An IMDB-sized corpus stitched from real English prose: the docstrings of Python's standard
library (on every machine that has Python), cut into sentences and drawn at random, with a
fixed seed, into documents of about 230 words, one per line. Unlike bench/make_corpora.py's
corpus it keeps the text's case, punctuation and non-ASCII characters.

    python3 bench/stitch_corpus.py OUT.txt [--documents 50000]
"""
import argparse
import ast
import random
import re
import sysconfig
from pathlib import Path


def sentences():
    out = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py")):
        if {"site-packages", "dist-packages", "test", "tests"} & set(path.parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc:
                    text = " ".join(doc.split())
                    out.extend(s for s in re.split(r"(?<=[.!?])\s+", text) if len(s.split()) >= 4)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--documents", type=int, default=50000)
    ap.add_argument("--words", type=int, default=230)
    args = ap.parse_args()
    pool = sentences()
    rng = random.Random(20261205)
    with open(args.out, "w", encoding="utf-8") as f:
        for _ in range(args.documents):
            doc, words = [], 0
            while words < rng.randint(args.words // 2, args.words * 3 // 2):
                s = rng.choice(pool)
                doc.append(s)
                words += len(s.split())
            f.write(" ".join(doc) + "\n")


if __name__ == "__main__":
    main()
