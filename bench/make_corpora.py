#!/usr/bin/env python3
"""Writes the benchmark corpora, reproducibly (seeded), in plain text, one document per line.

imdb.txt : 25,000 documents of 60-700 words over a Zipfian vocabulary of 60,000 types,
           with a position-dependent preference (early words favour a "opening" subset),
           sized like the IMDB review corpus.
sst2.txt : 50,000 sentences of 5-40 words over the same vocabulary, sized like SST-2.
synth2048.txt : 1,500 sequences of 2,048 tokens from `posgeo synth` semantics (for n = 2048).
"""
import random
import sys
from pathlib import Path

def zipf_sampler(rng, v, s=1.07):
    weights = [1.0 / (k + 1) ** s for k in range(v)]
    total = sum(weights)
    cum, acc = [], 0.0
    for w in weights:
        acc += w / total
        cum.append(acc)
    import bisect
    def draw():
        return bisect.bisect_left(cum, rng.random())
    return draw

def write(path, docs, lo, hi, seed, vocab=60000):
    rng = random.Random(seed)
    draw = zipf_sampler(rng, vocab)
    opening = [f"o{k}" for k in range(200)]
    with open(path, "w") as f:
        for _ in range(docs):
            L = rng.randint(lo, hi)
            toks = []
            for i in range(L):
                if rng.random() < 0.5 * 0.97 ** i:
                    toks.append(opening[min(int(rng.expovariate(0.05)), 199)])
                else:
                    toks.append(f"w{draw()}")
            f.write(" ".join(toks) + "\n")

def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "bench-data")
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "imdb.txt").exists():
        write(out / "imdb.txt", 25000, 60, 700, seed=1)
    if not (out / "sst2.txt").exists():
        write(out / "sst2.txt", 50000, 5, 40, seed=2)
    print(out)

if __name__ == "__main__":
    main()
