#!/usr/bin/env python3
"""An independent JAX (CPU) reference of docs/MATH.md §16 (learning), written from that section
alone (no Rust code read), that replays a dump of `posgeo train --dump DIR` and checks its losses.

Model, one batch of ids w (B×T), pads where w = pad id, LN(x) = (x − mean)/√(var + 1e-5)·γ + β
(biased variance), heads h = 0…H−1 of d_h = d/H columns (head h = columns h·d_h:(h+1)·d_h):
  x      = E[w] (+ pos[0:T] for the additive signals sinusoidal, random, pmds, pmds_r, learned,
           learned_pmds; + (pos_a·pos_bᵀ)[0:T] for lowrank, pos_a n×r and pos_b d×r)
  block  a = LN₁(x);  q, k, v = a·W_q, a·W_k, a·W_v (x·W, no biases), split into heads;
         rope: q, k rotated per head on pairs (x₂ₖ, x₂ₖ₊₁) by angle i·θ_k, θ_k = 10000^(−2k/d_h):
               (x₂ₖ cos − x₂ₖ₊₁ sin, x₂ₖ sin + x₂ₖ₊₁ cos), i the 0-based position;
         s_ij = q_i·k_j/√d_h + b_ij − 1e9·[w_j is a pad],  alibi: b_ij = −m_h·|i − j|,
               m_h = 2^(−8(h+1)/H); else b = 0;
         x += concat_h(softmax_j(s)·v)·W_o;  x += GELU_erf(LN₂(x)·W₁ + b₁)·W₂ + b₂
  logits = LN_f(x)·Eᵀ + b_out;  loss = mean over chosen positions of logsumexp(logits) − logit_tgt
Optimiser: AdamW as PyTorch (β = 0.9, 0.999, ε = 1e-8, bias-corrected; decoupled decay
θ ← θ·(1 − 0.01·lr_t) first, on 2-D tensors only: E, learned pos, pos_a, pos_b, W_q, W_k, W_v,
W_o, W₁, W₂). Trainable: every tensor, `pos` only for learned and learned_pmds. lr_t: run.json's lr_per_step,
checked against §16's schedule (w = ⌊steps/10⌋; lr·(t+1)/w for t < w, else lr).

Each step's loss is computed at the weights before that step's update and compared with
run.json's train_loss[t] for the first --steps steps (float64 by default). At every record of
run.json's `records` within those steps (step 0 included), the held-out loss (the mean of the
loss above over every chosen position of held.safetensors' sequences) is compared to --tol, and
the accuracy (the share of those positions whose largest logit, the first on a tie, is the
target) to one position in the count. When every step of the
run is replayed, the weights after the last one are compared with final.safetensors: per tensor
max|ours − dump| / max|dump|, the largest over the tensors must be within --wtol.

--control makes this reference wrong on purpose, to show that the replay sees the difference (a
negative control: the replay must then FAIL): `no-decay` drops the decoupled weight decay,
`warmup` starts the warm-up one step late (lr·t/w for t < w, its own schedule instead of the
dump's), `table` builds the sinusoids with base 1000, `held` scores every real held-out
position instead of the chosen ones.

The fixed tables are checked against their definitions before the replay: `sinusoidal`'s pos
is §5's table (P[i,2k] = sin(i·ω_k), P[i,2k+1] = cos(i·ω_k), ω_k = 10000^(−2k/d)) divided by
its RMS over the n·d entries, to 1e-6; `random`'s, `pmds`'s and `pmds_r`'s RMS is 1.

Usage: train_ref.py DIR [--steps 20] [--tol 1e-4] [--wtol 1e-4] [--signal NAME ...]
       [--dtype float64|float32] [--control no-decay|warmup|table|held] [-v]
DIR holds one folder per signal (init.safetensors, batches.safetensors, final.safetensors,
held.safetensors, run.json). stdout gets one line `SIGNAL MAX_ABS_DIFF STEPS_COMPARED
FINAL_REL_DIFF HELD_MAX_ABS_DIFF RECORDS_COMPARED` per signal (`-` when the final weights were not
compared); stderr a table. Exit 1 if a |diff| > tol or the
final weights differ by more than wtol (or the dump is inconsistent), else 0.
"""
import argparse
import json
import math
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

SIGNALS = ("nope", "sinusoidal", "random", "pmds", "pmds_r", "learned", "learned_pmds", "rope",
           "alibi", "lowrank")
ADDITIVE = {"sinusoidal", "random", "pmds", "pmds_r", "learned", "learned_pmds"}
TRAINABLE_POS = {"learned", "learned_pmds"}
DECAYED = {"tok_emb", "pos", "pos_a", "pos_b", "wq", "wk", "wv", "wo", "w1", "w2"}  # last name part
LN_EPS, BETA1, BETA2, ADAM_EPS, WEIGHT_DECAY = 1e-5, 0.9, 0.999, 1e-8, 0.01
BLOCK_TENSORS = ("ln1.weight", "ln1.bias", "wq", "wk", "wv", "wo", "ln2.weight", "ln2.bias",
                 "w1", "b1", "w2", "b2")


class DumpError(Exception):
    pass


def schedule(lr, steps):
    """§16's learning rate of each step t = 0…steps−1."""
    w = steps // 10
    return [lr * (t + 1) / w if t < w else lr for t in range(steps)]


def load_dump(folder, signal, check_schedule=True):
    """(run, init, batches) of one signal's folder, checked for consistency with §16."""
    from safetensors.numpy import load_file
    with open(os.path.join(folder, "run.json")) as f:
        run = json.load(f)
    init = load_file(os.path.join(folder, "init.safetensors"))
    batches = load_file(os.path.join(folder, "batches.safetensors"))
    opt = run["options"]
    if run["signal"] != signal:
        raise DumpError(f"{folder}: run.json signal is {run['signal']!r}, expected {signal!r}")
    layers, d, n = opt["layers"], opt["d_model"], run["n"]
    names = {"tok_emb", "ln_f.weight", "ln_f.bias", "out_bias"} | (
        {"pos"} if signal in ADDITIVE else {"pos_a", "pos_b"} if signal == "lowrank" else set())
    names |= {f"blocks.{l}.{t}" for l in range(layers) for t in BLOCK_TENSORS}
    if set(init) != names:
        raise DumpError(f"{folder}: init.safetensors tensors differ from §16: missing "
                        f"{sorted(names - set(init))}, unexpected {sorted(set(init) - names)}")
    if any(a.dtype != np.float32 for a in init.values()):
        raise DumpError(f"{folder}: init.safetensors must be F32")
    if init["tok_emb"].shape != (len(run["vocabulary"]), d) or d % opt["heads"]:
        raise DumpError(f"{folder}: tok_emb {init['tok_emb'].shape} vs |V| "
                        f"{len(run['vocabulary'])}, d {d}, heads {opt['heads']}")
    if signal in ADDITIVE and init["pos"].shape != (n, d):
        raise DumpError(f"{folder}: pos {init['pos'].shape}, expected {(n, d)}")
    if signal == "lowrank" and (init["pos_a"].shape[0] != n or init["pos_b"].shape[0] != d
                                or init["pos_a"].shape[1] != init["pos_b"].shape[1]):
        raise DumpError(f"{folder}: pos_a {init['pos_a'].shape}, pos_b {init['pos_b'].shape}: "
                        f"expected n×r and d×r with n = {n}, d = {d}")
    shape = batches["input"].shape
    if len(shape) != 3 or shape[2] != n or any(batches[k].shape != shape for k in
                                                ("target", "chosen")):
        raise DumpError(f"{folder}: batches must be steps×B×n (n = {n}), got "
                        f"{ {k: v.shape for k, v in batches.items()} }")
    lrs, want = run["lr_per_step"], schedule(opt["lr"], opt["steps"])
    if len(lrs) != len(want):
        raise DumpError(f"{folder}: lr_per_step has {len(lrs)} entries, steps = {len(want)}")
    for t, (a, b) in enumerate(zip(lrs, want)):
        if check_schedule and abs(a - b) > 1e-12 * abs(b):
            raise DumpError(f"{folder}: lr_per_step[{t}] = {a!r} but §16's schedule gives {b!r} "
                            f"(lr {opt['lr']}, steps {opt['steps']}, w = {opt['steps'] // 10})")
    return run, init, batches


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + LN_EPS) * g + b


def rotate(x, i):
    """RoPE on x (B, H, T, d_h): pairs (2k, 2k+1) rotated by i·θ_k, θ_k = 10000^(−2k/d_h)."""
    dh = x.shape[-1]
    theta = 10000.0 ** (-2.0 * jnp.arange(dh // 2, dtype=x.dtype) / dh)
    ang = i[:, None] * theta[None, :]
    c, s = jnp.cos(ang), jnp.sin(ang)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return jnp.stack([x0 * c - x1 * s, x0 * s + x1 * c], axis=-1).reshape(x.shape)


def logits_fn(p, inp, signal, layers, heads, pad):
    """§16's output logits of one batch (ids B×T) at weights p (name → array)."""
    x = p["tok_emb"][inp]
    B, T, d = x.shape
    dh = d // heads
    if signal in ADDITIVE:
        x = x + p["pos"][:T]
    elif signal == "lowrank":
        x = x + (p["pos_a"] @ p["pos_b"].T)[:T]
    i = jnp.arange(T, dtype=x.dtype)
    bias = jnp.where(inp == pad, -1e9, 0.0).astype(x.dtype)[:, None, None, :]  # B,1,1,T(keys)
    if signal == "alibi":
        m = 2.0 ** (-8.0 * jnp.arange(1, heads + 1, dtype=x.dtype) / heads)
        bias = bias - m[None, :, None, None] * jnp.abs(i[:, None] - i[None, :])[None, None]
    for l in range(layers):
        w = {t: p[f"blocks.{l}.{t}"] for t in BLOCK_TENSORS}
        a = layer_norm(x, w["ln1.weight"], w["ln1.bias"])
        q, k, v = ((a @ w[n]).reshape(B, T, heads, dh).transpose(0, 2, 1, 3)
                   for n in ("wq", "wk", "wv"))
        if signal == "rope":
            q, k = rotate(q, i), rotate(k, i)
        s = q @ k.swapaxes(-1, -2) / math.sqrt(dh) + bias
        o = jax.nn.softmax(s, axis=-1) @ v
        x = x + o.transpose(0, 2, 1, 3).reshape(B, T, d) @ w["wo"]
        h = layer_norm(x, w["ln2.weight"], w["ln2.bias"]) @ w["w1"] + w["b1"]
        x = x + jax.nn.gelu(h, approximate=False) @ w["w2"] + w["b2"]
    y = layer_norm(x, p["ln_f.weight"], p["ln_f.bias"])
    return y @ p["tok_emb"].T + p["out_bias"]


def nll_fn(logits, target):
    """logsumexp(logits) − logit_target at each position."""
    return jax.nn.logsumexp(logits, axis=-1) - jnp.take_along_axis(
        logits, target[..., None], axis=-1)[..., 0]


def loss_fn(p, inp, target, chosen, signal, layers, heads, pad):
    """§16's loss of one batch: the mean of nll_fn over the chosen positions."""
    nll = nll_fn(logits_fn(p, inp, signal, layers, heads, pad), target)
    c = chosen.astype(nll.dtype)
    return (nll * c).sum() / c.sum()


def make_held(signal, layers, heads, pad):
    """Jitted (Σ nll, positions whose first largest logit is the target, positions) over the
    chosen positions of held-out sequences."""
    def held(p, inp, target, chosen):
        logits = logits_fn(p, inp, signal, layers, heads, pad)
        nll = nll_fn(logits, target)
        c = chosen.astype(nll.dtype)
        right = (jnp.argmax(logits, axis=-1) == target).astype(nll.dtype)
        return (nll * c).sum(), (right * c).sum(), c.sum()
    return jax.jit(held)


def make_step(signal, layers, heads, pad, decay=WEIGHT_DECAY):
    """One jitted step: (loss before the update, AdamW-updated trainable weights and moments)."""
    def step(train, fixed, m, v, t, lr, inp, target, chosen):
        loss, g = jax.value_and_grad(lambda tr: loss_fn(
            {**tr, **fixed}, inp, target, chosen, signal, layers, heads, pad))(train)
        bc1, bc2 = 1 - BETA1 ** t, 1 - BETA2 ** t
        new, m2, v2 = {}, {}, {}
        for name, th in train.items():
            if name.split(".")[-1] in DECAYED:  # exactly the 2-D tensors
                th = th * (1 - lr * decay)
            m2[name] = BETA1 * m[name] + (1 - BETA1) * g[name]
            v2[name] = BETA2 * v[name] + (1 - BETA2) * g[name] ** 2
            denom = jnp.sqrt(v2[name]) / jnp.sqrt(bc2) + ADAM_EPS
            new[name] = th - (lr / bc1) * m2[name] / denom
        return loss, new, m2, v2
    return jax.jit(step)


def check_table(folder, signal, pos, control):
    """The fixed table of `signal` against its definition (DumpError if it is not)."""
    pos = np.asarray(pos, np.float64)
    n, d = pos.shape
    if signal == "sinusoidal":
        base = 1000.0 if control == "table" else 10000.0
        want = np.zeros((n, d))
        for k in range((d + 1) // 2):
            w = base ** (-2.0 * k / d)
            want[:, 2 * k] = np.sin(np.arange(n) * w)
            if 2 * k + 1 < d:
                want[:, 2 * k + 1] = np.cos(np.arange(n) * w)
        want /= np.sqrt(np.mean(want ** 2))
        worst = float(np.max(np.abs(pos - want)))
        if worst > 1e-6:
            raise DumpError(f"{folder}: pos is not §5's sinusoidal table over its RMS (max |diff| {worst:.3e})")
    elif signal in ("random", "pmds", "pmds_r"):
        rms = float(np.sqrt(np.mean(pos ** 2)))
        if abs(rms - 1.0) > 1e-6:
            raise DumpError(f"{folder}: pos's RMS is {rms!r}, not 1")


def held_out(folder, run, signal, control):
    """A function of the weights and a step that notes (|Δ held loss|, |Δ accuracy| in positions)
    when run.json has a record at that step, and the list it appends to."""
    from safetensors.numpy import load_file
    held = load_file(os.path.join(folder, "held.safetensors"))
    n = run["n"]
    if any(held[k].ndim != 2 or held[k].shape[1] != n for k in ("input", "target", "chosen")):
        raise DumpError(f"{folder}: held.safetensors must be H×n (n = {n})")
    inp, target = (np.asarray(held[k], np.int32) for k in ("input", "target"))
    pad = run["special_ids"]["pad"]
    # The `held` control scores every real position instead of the chosen ones.
    chosen = (inp != pad) if control == "held" else (held["chosen"] == 1)
    opt = run["options"]
    score = make_held(signal, opt["layers"], opt["heads"], pad)
    records = {r["step"]: r for r in run.get("records") or []}
    if 0 not in records:
        raise DumpError(f"{folder}: run.json has no record at step 0")
    checked = []

    def check(weights, step):
        r = records.get(step)
        if r is None:
            return
        s, right, c = (float(x) for x in score(weights, inp, target, chosen))
        want = [math.nan if r[k] is None else float(r[k]) for k in ("held_loss", "held_accuracy")]
        loss_diff, acc_diff = abs(s / c - want[0]), abs(right / c - want[1]) * c
        checked.append(tuple(x if math.isfinite(x) else math.inf for x in (loss_diff, acc_diff)))
    return check, checked


def replay(folder, signal, steps, dtype, control=None):
    """(reference losses, dumped losses, the final weights' largest relative difference or None,
    each record's (|Δ held loss|, |Δ accuracy| in positions)) of the first min(steps, dumped)
    steps."""
    run, init, batches = load_dump(folder, signal, check_schedule=control != "warmup")
    if signal in ADDITIVE:
        check_table(folder, signal, init["pos"], control)
    opt = run["options"]
    count = min(steps, len(run["train_loss"]), batches["input"].shape[0])
    decay = 0.0 if control == "no-decay" else WEIGHT_DECAY
    step = make_step(signal, opt["layers"], opt["heads"], run["special_ids"]["pad"], decay)
    lrs = run["lr_per_step"]
    if control == "warmup":
        w = opt["steps"] // 10
        lrs = [opt["lr"] * t / w if t < w else opt["lr"] for t in range(opt["steps"])]
    train = {k: jnp.asarray(a, dtype) for k, a in init.items()
             if k != "pos" or signal in TRAINABLE_POS}
    fixed = {k: jnp.asarray(a, dtype) for k, a in init.items() if k not in train}
    m = {k: jnp.zeros_like(a) for k, a in train.items()}
    v = {k: jnp.zeros_like(a) for k, a in train.items()}
    ids = {k: np.asarray(batches[k], np.int32) for k in ("input", "target")}
    chosen = batches["chosen"] == 1
    check_held, held = held_out(folder, run, signal, control)
    check_held({**train, **fixed}, 0)
    ours = []
    for t in range(count):
        loss, train, m, v = step(train, fixed, m, v, jnp.asarray(t + 1, dtype),
                                 jnp.asarray(lrs[t], dtype),
                                 ids["input"][t], ids["target"][t], chosen[t])
        ours.append(float(loss))
        check_held({**train, **fixed}, t + 1)
    theirs = [math.nan if x is None else float(x) for x in run["train_loss"][:count]]  # null: NaN
    final = os.path.join(folder, "final.safetensors")
    if count < len(run["train_loss"]) or not os.path.isfile(final):
        return ours, theirs, None, held
    from safetensors.numpy import load_file
    dumped = load_file(final)
    ref = {**train, **fixed}
    if set(dumped) != set(ref):
        raise DumpError(f"{folder}: final.safetensors names {sorted(dumped)}, expected {sorted(ref)}")
    rel = max(float(np.max(np.abs(np.asarray(ref[k], np.float64) - dumped[k])))
              / max(float(np.max(np.abs(dumped[k]))), 1e-30) for k in dumped)
    return ours, theirs, rel, held


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--wtol", type=float, default=1e-4)
    ap.add_argument("--control", choices=("no-decay", "warmup", "table", "held"))
    ap.add_argument("--signal", nargs="+", action="extend", choices=SIGNALS, metavar="NAME")
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    ap.add_argument("-v", "--verbose", action="store_true", help="every step's losses (stderr)")
    args = ap.parse_args(argv)
    jax.config.update("jax_enable_x64", args.dtype == "float64")
    if not os.path.isdir(args.dir):
        sys.exit(f"train_ref: {args.dir} is not a folder")
    signals = args.signal or [s for s in SIGNALS if os.path.isdir(os.path.join(args.dir, s))]
    if not signals:
        sys.exit(f"train_ref: no signal folder ({', '.join(SIGNALS)}) in {args.dir}")
    rows, failed = [], []
    for s in signals:
        folder = os.path.join(args.dir, s)
        try:
            ours, theirs, rel, held = replay(folder, s, args.steps, args.dtype, args.control)
        except (DumpError, OSError, KeyError) as e:
            sys.exit(f"train_ref: FAIL ({s}): {type(e).__name__}: {e}")
        if not ours:
            sys.exit(f"train_ref: FAIL ({s}): the dump has no step")
        diffs = [abs(a - b) if math.isfinite(a - b) else math.inf for a, b in zip(ours, theirs)]
        worst = int(np.argmax(diffs))
        held_loss = max(h[0] for h in held)
        held_acc = max(h[1] for h in held)
        rows.append((s, len(diffs), diffs[worst], worst, rel, held_loss, len(held)))
        print(f"{s} {diffs[worst]:.6e} {len(diffs)} {'-' if rel is None else f'{rel:.6e}'} "
              f"{held_loss:.6e} {len(held)}", flush=True)
        if args.verbose:
            for t, (a, b) in enumerate(zip(ours, theirs)):
                print(f"  {s} step {t}: ref {a:.10f} dump {b:.10f} diff {a - b:+.3e}",
                      file=sys.stderr)
        if diffs[worst] > args.tol or (rel is not None and rel > args.wtol) \
                or held_loss > args.tol or held_acc > 1 + 1e-9:
            failed.append(s)
    print(f"{'signal':<14}{'steps':>6}{'max|diff|':>12}{'at step':>9}{'final rel':>12}{'held':>12}"
          f"{'records':>8}   ({args.dtype}, tol {args.tol:g}, wtol {args.wtol:g})", file=sys.stderr)
    for s, count, d, t, rel, hl, hn in rows:
        print(f"{s:<14}{count:>6}{d:>12.3e}{t:>9}{'-' if rel is None else f'{rel:.3e}':>12}{hl:>12.3e}{hn:>8}",
              file=sys.stderr)
    if failed:
        sys.exit(f"train_ref: FAIL: the losses or held-out losses differ from the dump by more than "
                 f"{args.tol:g}, a held-out accuracy by more than one position, or the final weights "
                 f"by more than {args.wtol:g}, for {', '.join(failed)}")
    print(f"train_ref: OK, {len(rows)} signal(s) within {args.tol:g}", file=sys.stderr)


if __name__ == "__main__":
    main()
