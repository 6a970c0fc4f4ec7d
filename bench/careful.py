#!/usr/bin/env python3
"""A careful numpy/scipy implementation of posgeo's pipeline: the second baseline of the
benchmark, beside the straightforward one (bench/baseline.py, whose formulas it reuses).
Same inputs and outputs; what it does with more care:

- counting: the file decoded and lowercased once, token ids in one generator pass (faster
  here than `dict.fromkeys` and a second pass), positions and the length histogram by numpy;
- SMACOF: docs/MATH.md §5's rule (stop once an iteration lowers σ by less than 1e-6, absolute, or
  when σ stops decreasing; cap 500), as posgeo runs it, instead of the older relative rule;
- monotonicity: the triples' "closer" masks are built once and shared by every matrix, and
  anchors are compared in blocks (one broadcast per block instead of per anchor).

Prints per-stage seconds as JSON (best of --repeat runs), as bench/baseline.py does.
"""
import itertools

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import pdist, squareform

import baseline


def count(path, max_len=512, min_support=5):
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read().lower()
    seqs = [line.split()[:max_len] for line in text.split("\n") if line.rstrip("\r")]
    lengths = np.fromiter(map(len, seqs), np.int64, len(seqs))
    flat = list(itertools.chain.from_iterable(seqs))
    vocab = {}
    ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in flat), np.int64, len(flat))
    pos = np.arange(len(flat)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    cap = min(max_len, int(lengths.max()))
    support = len(lengths) - np.cumsum(np.bincount(lengths, minlength=cap + 1))[:cap]
    n = int(np.argmax(support < min_support)) if (support < min_support).any() else cap
    c = sp.csr_matrix((np.ones(len(flat)), (pos, ids)), shape=(cap, len(vocab)))
    return c[:n], support[:n]


class Triples:
    """For blocks of anchors i, the mask |i − j| < |i − k| over (j, k), j ≠ i: built once
    and kept while n³ bytes stay under `keep` (else rebuilt per matrix)."""

    def __init__(self, n, block=32, keep=3e8):
        self.sep = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
        self.starts = range(0, n, block)
        self.block = block
        self.kept = [self.closer(a) for a in self.starts] if n**3 <= keep else None
        self.count = sum(int(np.count_nonzero(self.closer(a))) for a in self.starts)

    def closer(self, a):
        s = self.sep[a : a + self.block]
        return (s[:, :, None] < s[:, None, :]) & (s[:, :, None] > 0)

    def rate(self, delta):
        eps = 1e-12 * delta.max()
        viol = 0
        for k, a in enumerate(self.starts):
            closer = self.kept[k] if self.kept is not None else self.closer(a)
            rows = delta[a : a + self.block]
            viol += np.count_nonzero(closer & (rows[:, :, None] > rows[:, None, :] + eps))
        return viol / self.count


def smacof(x, d, iters=500, tol=1e-6):
    iu = np.triu_indices(len(x), 1)
    tt = (d[iu] ** 2).sum()
    delta = squareform(pdist(x))
    s = ((delta[iu] - d[iu]) ** 2).sum() / tt
    for _ in range(iters):
        x = baseline.guttman(x, d, delta)
        delta = squareform(pdist(x))
        new = ((delta[iu] - d[iu]) ** 2).sum() / tt
        drop, s = s - new, new
        if drop < tol:
            break
    return x


def encodings(d, w, v, smacof_iter=500):
    triples = Triples(len(d))
    configs = baseline.configurations(d, w, v, smacof_iter=smacof_iter, smacof=smacof)
    out = {name: baseline.stress(squareform(pdist(p)), d, triples.rate) for name, p in configs.items()}
    out["corpus"] = triples.rate(d)
    return out


if __name__ == "__main__":
    baseline.main(count, encodings, lambda res: {
        "sinusoidal_monotonicity": res["sinusoidal"][4], "corpus_monotonicity": res["corpus"]})
