#!/usr/bin/env python3
"""A straightforward numpy/scipy implementation of posgeo's pipeline, the benchmark's
baseline: whitespace tokens (lowercased), mode `condition`, min_support 5, max_len 512,
Hellinger chord via scipy.sparse counts and one sparse product, classical MDS with
scipy.linalg.eigh, the encodings (nope, sinusoidal, rope, alibi, random, pmds, pmds_r,
smacof) with pdist, stress, Spearman (scipy.stats.spearmanr) and the monotonicity rate
(vectorised per anchor). Prints per-stage seconds as JSON (best of --repeat runs).
"""
import argparse
import json
import time

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.spatial.distance import pdist, squareform
from scipy.stats import spearmanr


def count(path, max_len=512, min_support=5):
    vocab, rows, cols, lengths = {}, [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n").rstrip("\r")
            if not line:
                continue
            toks = line.lower().split()[:max_len]
            lengths.append(len(toks))
            for i, t in enumerate(toks):
                rows.append(i)
                cols.append(vocab.setdefault(t, len(vocab)))
    lengths = np.array(lengths)
    cap = min(max_len, lengths.max())
    support = np.array([(lengths > i).sum() for i in range(cap)])
    n = int(np.argmax(support < min_support)) if (support < min_support).any() else cap
    c = sp.coo_matrix((np.ones(len(rows)), (np.array(rows), np.array(cols))), shape=(cap, len(vocab))).tocsr()
    return c[:n], support[:n]


def hellinger(c, support):
    mu = sp.diags(1.0 / support) @ c
    s = mu.sqrt()
    bc = (s @ s.T).toarray()
    return np.sqrt(np.maximum(0.0, 2.0 - 2.0 * bc))


def mds(d):
    n = len(d)
    j = np.eye(n) - 1.0 / n
    b = -0.5 * j @ (d * d) @ j
    w, v = scipy.linalg.eigh(b)
    return w[::-1], v[:, ::-1]


def monotonicity(delta):
    n = len(delta)
    eps = 1e-12 * delta.max()
    idx = np.arange(n)
    viol = trip = 0
    for i in range(n):
        sep = np.abs(idx - i)
        closer = (sep[:, None] < sep[None, :]) & (idx[:, None] != i) & (idx[None, :] != i)
        trip += closer.sum()
        viol += (closer & (delta[i][:, None] > delta[i][None, :] + eps)).sum()
    return viol / trip


def stress(delta, d, monotonicity=monotonicity):
    iu = np.triu_indices(len(d), 1)
    x, y = delta[iu], d[iu]
    tt = (y * y).sum()
    a = (x @ y) / (x @ x) if (x @ x) > 0 else 0.0
    rho = spearmanr(x, y).statistic if x.std() > 0 else None
    return ((x - y) ** 2).sum() / tt, ((a * x - y) ** 2).sum() / tt, a, rho, monotonicity(delta)


def guttman(x, d, delta):
    """One Guttman transform: X ← B(X)·X / n."""
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(delta > 0, -d / delta, 0.0)
    np.fill_diagonal(b, 0.0)
    np.fill_diagonal(b, -b.sum(1))
    return b @ x / len(x)


def smacof(x, d, iters=500, tol=1e-9):
    delta = squareform(pdist(x))
    s = ((np.triu(delta - d, 1)) ** 2).sum()
    for _ in range(iters):
        if s <= 0:
            break
        x = guttman(x, d, delta)
        delta = squareform(pdist(x))
        new = ((np.triu(delta - d, 1)) ** 2).sum()
        change, s = (s - new) / s, new
        if abs(change) < tol:
            break
    return x


def configurations(d, w, v, dim=768, base=10000.0, h=64, slope=0.5, sigma=0.02, smacof_iter=500, smacof=smacof):
    """Every encoding's position vectors (SMACOF by the given function)."""
    n = len(d)
    i = np.arange(n)[:, None]
    k = np.arange(dim)[None, :] // 2
    ang = i * base ** (-2.0 * k / dim)
    sin = np.where(np.arange(dim)[None, :] % 2 == 0, np.sin(ang), np.cos(ang))
    kh = np.arange(h)[None, :] // 2
    angh = i * base ** (-2.0 * kh / h)
    rope = np.where(np.arange(h)[None, :] % 2 == 0, np.cos(angh), np.sin(angh))
    r_tau = int((w > 1e-8 * w[0]).sum())
    pos = np.maximum(w, 0)
    r_e = max(1, int(np.searchsorted(np.cumsum(pos), 0.99 * pos.sum()) + 1))
    x = v * np.sqrt(pos)
    pm = x[:, : min(dim, r_tau)]
    return {
        "nope": np.zeros((n, 1)),
        "sinusoidal": sin,
        "rope": rope,
        "alibi": slope * i.astype(float),
        "random": np.random.default_rng(0).normal(0, sigma, (n, dim)),
        "pmds": pm,
        "pmds_r": x[:, :r_e],
        "smacof": smacof(pm, d, iters=smacof_iter),
    }


def encodings(d, w, v, smacof_iter=500):
    configs = configurations(d, w, v, smacof_iter=smacof_iter)
    out = {name: stress(squareform(pdist(p)), d) for name, p in configs.items()}
    out["corpus"] = monotonicity(d)
    return out


def main(count=count, encodings=encodings, extra=lambda res: {}):
    """Times the pipeline made of these stages (bench/careful.py passes its own)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--max-len", type=int, default=512)
    ap.add_argument("--smacof-iter", type=int, default=500)
    args = ap.parse_args()
    best = None
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        c, support = count(args.corpus, max_len=args.max_len)
        t1 = time.perf_counter()
        d = hellinger(c, support)
        t2 = time.perf_counter()
        w, v = mds(d)
        t3 = time.perf_counter()
        res = encodings(d, w, v, smacof_iter=args.smacof_iter)
        t4 = time.perf_counter()
        times = [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0]
        best = times if best is None else [min(a, b) for a, b in zip(best, times)]
    print(json.dumps({
        "corpus": args.corpus, "n": len(d), "vocab_size": c.shape[1],
        "read_tokenize_count": best[0], "distances": best[1], "mds": best[2],
        "encodings_stress_monotonicity": best[3], "total": best[4],
        "pmds_scaled_stress": res["pmds"][1], "sinusoidal_scaled_stress": res["sinusoidal"][1],
        **extra(res),
    }))


if __name__ == "__main__":
    main()
