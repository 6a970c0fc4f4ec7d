#!/usr/bin/env python3
"""An independent, deliberately naive implementation of posgeo's definitions (docs/MATH.md),
in pure Python (no numpy), used by crates/cli/tests/reference.rs to check every number the Rust CLI
reports on a small corpus.

Covers: plain text, the whitespace tokenizer with lowercasing, mode `condition`,
min_support, smoothing alpha, the Hellinger chord, classical MDS (cyclic Jacobi
eigen-decomposition), r_tau, r_E, negative mass, the encodings nope / sinusoidal / rope /
alibi / pmds / pmds_r / smacof, raw and scale-optimal stress, a*, Spearman rho and the
monotonicity violation rate (brute force over all triples), the rank curve. `random` is not
covered: its table comes from Rust's ChaCha8 + ziggurat streams.

Usage: posgeo_ref.py CORPUS --d D --head-dim H [--alpha A] [--min-support M] [--base B]
       [--slope S] [--tau T] [--energy E]   → one JSON object on stdout.
"""
import argparse
import json
import math


def read(path, min_support, max_len=512):
    seqs = []
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if line.endswith("\r"):
                line = line[:-1]
            if line:
                seqs.append([t.lower() for t in line.split()][:max_len])
    cap = min(max_len, max(len(s) for s in seqs))
    support = [sum(1 for s in seqs if len(s) > i) for i in range(cap)]
    n = 0
    while n < cap and support[n] >= min_support:
        n += 1
    vocab = sorted({s[i] for s in seqs for i in range(min(n, len(s)))})
    counts = [{w: 0 for w in vocab} for _ in range(n)]
    for s in seqs:
        for i in range(min(n, len(s))):
            counts[i][s[i]] += 1
    return seqs, n, vocab, counts, support[:n]


def jacobi_eigen(a):
    """Eigenvalues and eigenvectors (columns) of a symmetric matrix, cyclic Jacobi."""
    n = len(a)
    a = [row[:] for row in a]
    v = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]
    for _sweep in range(100):
        off = sum(a[i][j] ** 2 for i in range(n) for j in range(n) if i != j)
        if off < 1e-30:
            break
        for p in range(n):
            for q in range(p + 1, n):
                if abs(a[p][q]) < 1e-300:
                    continue
                theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                t = (1.0 if theta >= 0 else -1.0) / (abs(theta) + math.sqrt(theta * theta + 1))
                c = 1 / math.sqrt(t * t + 1)
                s = t * c
                for k in range(n):
                    akp, akq = a[k][p], a[k][q]
                    a[k][p], a[k][q] = c * akp - s * akq, s * akp + c * akq
                for k in range(n):
                    apk, aqk = a[p][k], a[q][k]
                    a[p][k], a[q][k] = c * apk - s * aqk, s * apk + c * aqk
                for k in range(n):
                    vkp, vkq = v[k][p], v[k][q]
                    v[k][p], v[k][q] = c * vkp - s * vkq, s * vkp + c * vkq
    vals = [a[i][i] for i in range(n)]
    order = sorted(range(n), key=lambda k: -vals[k])
    vecs = []
    for k in order:
        col = [v[i][k] for i in range(n)]
        lead = 0
        for i in range(n):
            if abs(col[i]) > abs(col[lead]):
                lead = i
        if col[lead] < 0:
            col = [-x for x in col]
        vecs.append(col)
    return [vals[k] for k in order], vecs


def dist(points):
    n = len(points)
    return [[math.sqrt(sum((a - b) ** 2 for a, b in zip(points[i], points[j]))) for j in range(n)] for i in range(n)]


def pairs(n):
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def ranks(xs):
    # Ties: sorted neighbours within 1e-12 * max|x| (docs/MATH.md, Spearman).
    eps = 1e-12 * max(abs(x) for x in xs)
    order = sorted(range(len(xs)), key=lambda k: xs[k])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] - xs[order[j]] <= eps:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def monotonicity(d):
    n = len(d)
    eps = 1e-12 * max(max(r) for r in d)
    v = t = 0
    for i in range(n):
        for j in range(n):
            for k in range(n):
                if len({i, j, k}) < 3 or abs(i - j) >= abs(i - k):
                    continue
                t += 1
                if d[i][j] > d[i][k] + eps:
                    v += 1
    return v / t if t else None


def raw_and_scaled(delta, target):
    ps = pairs(len(target))
    dd = sum(delta[i][j] ** 2 for i, j in ps)
    dt = sum(delta[i][j] * target[i][j] for i, j in ps)
    tt = sum(target[i][j] ** 2 for i, j in ps)
    a = dt / dd if dd > 0 else 0.0
    return {
        "raw_stress": sum((delta[i][j] - target[i][j]) ** 2 for i, j in ps) / tt,
        "scaled_stress": sum((a * delta[i][j] - target[i][j]) ** 2 for i, j in ps) / tt,
    }


def stress(delta, target):
    n = len(target)
    ps = pairs(n)
    dd = sum(delta[i][j] ** 2 for i, j in ps)
    dt = sum(delta[i][j] * target[i][j] for i, j in ps)
    tt = sum(target[i][j] ** 2 for i, j in ps)
    raw = sum((delta[i][j] - target[i][j]) ** 2 for i, j in ps) / tt
    a = dt / dd if dd > 0 else 0.0
    scaled = sum((a * delta[i][j] - target[i][j]) ** 2 for i, j in ps) / tt
    return {
        "raw_stress": raw,
        "scaled_stress": scaled,
        "scale": a,
        "spearman": spearman([delta[i][j] for i, j in ps], [target[i][j] for i, j in ps]),
        "monotonicity_violation_rate": monotonicity(delta),
    }


def smacof(x, target, max_iter=500, tol=1e-6):
    """Guttman transform iterations; stops as docs/MATH.md §5 says (R smacof's rule): after the
    first iteration that lowers sigma (raw sum / sum of D^2) by less than tol, absolute, keeping
    it; when sigma does not decrease (the better configuration kept); or at max_iter. A start at
    round-off stress runs no iteration. Returns (configuration, iterations, stop reason)."""
    n, dim = len(x), len(x[0])
    ps = pairs(n)
    tt = sum(target[i][j] ** 2 for i, j in ps)
    sigma = lambda d: sum((d[i][j] - target[i][j]) ** 2 for i, j in ps) / tt
    delta = dist(x)
    s = sigma(delta)
    it, stop = 0, "tolerance"
    while s > 1e-24:
        if it >= max_iter:
            stop = "cap"
            break
        b = [[0.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                if i != j and delta[i][j] > 0:
                    b[i][j] = -target[i][j] / delta[i][j]
            b[i][i] = -sum(b[i][j] for j in range(n) if j != i)
        cand = [[sum(b[i][m] * x[m][k] for m in range(n)) / n for k in range(dim)] for i in range(n)]
        cand_delta = dist(cand)
        new = sigma(cand_delta)
        it += 1
        if new >= s:
            stop = "no_decrease"
            break
        small = s - new < tol
        x, delta, s = cand, cand_delta, new
        if small:
            break
    return x, it, stop


def procrustes(x, y):
    """Orthogonal Procrustes with scale of y onto x: 1 - (nuclear norm of Yc^T Xc)^2 / (|Yc|^2 |Xc|^2),
    the nuclear norm from the eigenvalues (Jacobi) of the smaller of M^T M and M M^T."""
    def centre(p):
        m = [sum(r[k] for r in p) / len(p) for k in range(len(p[0]))]
        return [[r[k] - m[k] for k in range(len(m))] for r in p]
    xc, yc = centre(x), centre(y)
    sx = sum(v * v for r in xc for v in r)
    sy = sum(v * v for r in yc for v in r)
    if sx <= 0 or sy <= 0:
        return 1.0
    q, k = len(yc[0]), len(xc[0])
    m = [[sum(yc[i][a] * xc[i][b] for i in range(len(xc))) for b in range(k)] for a in range(q)]
    if q < k:  # the smaller Gram matrix (the larger one of a rank-deficient M adds round-off)
        gram = [[sum(m[a][c] * m[b][c] for c in range(k)) for b in range(q)] for a in range(q)]
    else:
        gram = [[sum(m[a][b] * m[a][c] for a in range(q)) for c in range(k)] for b in range(k)]
    vals, _ = jacobi_eigen(gram)
    nuclear = sum(math.sqrt(max(l, 0.0)) for l in vals)
    return min(1.0, max(0.0, 1.0 - nuclear * nuclear / (sy * sx)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--d", type=int, default=768)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--alpha", type=float, default=0.0)
    ap.add_argument("--min-support", type=int, default=5)
    ap.add_argument("--base", type=float, default=10000.0)
    ap.add_argument("--slope", type=float, default=0.5)
    ap.add_argument("--tau", type=float, default=1e-8)
    ap.add_argument("--energy", type=float, default=0.99)
    args = ap.parse_args()

    seqs, n, vocab, counts, support = read(args.corpus, args.min_support)
    V = len(vocab)
    mu = [[(counts[i][w] + args.alpha) / (support[i] + args.alpha * V) for w in vocab] for i in range(n)]
    D = [[math.sqrt(sum((math.sqrt(p) - math.sqrt(q)) ** 2 for p, q in zip(mu[i], mu[j]))) for j in range(n)] for i in range(n)]
    D2 = [[x * x for x in row] for row in D]
    rm = [sum(row) / n for row in D2]
    gm = sum(rm) / n
    B = [[-0.5 * (D2[i][j] - rm[i] - rm[j] + gm) for j in range(n)] for i in range(n)]
    vals, vecs = jacobi_eigen(B)
    r_tau = sum(1 for l in vals if l > args.tau * vals[0])
    pos = [max(l, 0.0) for l in vals]
    total = sum(pos)
    r_e, acc = len(vals), 0.0
    for k, l in enumerate(pos):
        if acc >= args.energy * total:
            r_e = k
            break
        acc += l
    r_e = max(r_e, 1)
    neg = sum(-l for l in vals if l < 0) / sum(abs(l) for l in vals)

    def coords(d):
        return [[vecs[k][i] * math.sqrt(max(vals[k], 0.0)) for k in range(d)] for i in range(n)]

    d, h, base = args.d, args.head_dim, args.base
    pmds_dim = max(min(d, r_tau), 1)
    enc = {
        "nope": ([[0.0] for _ in range(n)], 0, 0),
        "sinusoidal": ([[math.sin(i * base ** (-2 * (c // 2) / d)) if c % 2 == 0 else math.cos(i * base ** (-2 * (c // 2) / d)) for c in range(d)] for i in range(n)], d, 0),
        "rope": ([[math.cos(i * base ** (-2 * (c // 2) / h)) if c % 2 == 0 else math.sin(i * base ** (-2 * (c // 2) / h)) for c in range(h)] for i in range(n)], h, 0),
        "alibi": ([[args.slope * i] for i in range(n)], 1, 0),
        "pmds": (coords(pmds_dim), pmds_dim, n * d),
        "pmds_r": (coords(min(r_e, n)), min(r_e, n), min(r_e, n) * (n + d)),
    }
    sm, sm_it, sm_stop = smacof(coords(pmds_dim), D)
    enc["smacof"] = (sm, pmds_dim, n * d)
    out = {
        "sequences": len(seqs),
        "n": n,
        "vocab_size": V,
        "support": support,
        "eigenvalues": vals,
        "effective_rank": r_tau,
        "energy_rank": r_e,
        "negative_mass": neg,
        "corpus_monotonicity_violation_rate": monotonicity(D),
        "hellinger": D,
        "encodings": {},
    }
    target = coords(min(pmds_dim, 16))
    for name, (pts, dim, params) in enc.items():
        e = stress(dist(pts), D)
        e["dim"] = dim
        e["parameters"] = params
        e["procrustes_residual"] = procrustes(target, pts)
        out["encodings"][name] = e
    # The rank curve: X_r at every r <= 64, then each rank ceil(2^(1/4) * the last) up to
    # R = min(r_tau, 128), R included.
    top = min(max(r_tau, 1), 128, n)
    grid = list(range(1, min(top, 64) + 1))
    while grid[-1] < top:
        grid.append(min(math.ceil(grid[-1] * 2 ** 0.25), top))
    out["rank_curve"] = []
    for r in grid:
        e = raw_and_scaled(dist(coords(r)), D)
        out["rank_curve"].append({"rank": r, "raw_stress": e["raw_stress"], "scaled_stress": e["scaled_stress"], "parameters": r * (n + d)})
    out["encodings"]["smacof"]["iterations"] = sm_it
    out["encodings"]["smacof"]["stopped"] = sm_stop
    print(json.dumps(out))


if __name__ == "__main__":
    main()
