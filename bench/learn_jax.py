"""The peer for the learning experiment's speed (docs/PERFORMANCE.md): the same model, data
and AdamW in JAX (float32, jitted; tests/reference/train_ref.py's step), replaying a dump of
`posgeo train --dump DIR`, timed after a warm-up step. Prints one JSON line:
{"signal", "steps", "tokens", "seconds", "tokens_per_s", "threads"}.

    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \\
        python bench/learn_jax.py DIR --signal learned --threads 1
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "reference"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import train_ref  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--signal", default="learned")
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args()
    run, init, batches = train_ref.load_dump(os.path.join(a.dir, a.signal), a.signal)
    opt = run["options"]
    step = train_ref.make_step(a.signal, opt["layers"], opt["heads"], run["special_ids"]["pad"])
    train = {k: jnp.asarray(v) for k, v in init.items() if k != "pos" or a.signal in train_ref.TRAINABLE_POS}
    fixed = {k: jnp.asarray(v) for k, v in init.items() if k not in train}
    m = {k: jnp.zeros_like(v) for k, v in train.items()}
    v = {k: jnp.zeros_like(x) for k, x in train.items()}
    inp, tgt = np.asarray(batches["input"], np.int32), np.asarray(batches["target"], np.int32)
    chosen = batches["chosen"] == 1
    pad = run["special_ids"]["pad"]
    steps = inp.shape[0]
    # Warm-up (compilation), then the timed steps.
    jax.block_until_ready(step(train, fixed, m, v, 1.0, 1e-3, inp[0], tgt[0], chosen[0]))
    start = time.perf_counter()
    for t in range(steps):
        loss, train, m, v = step(train, fixed, m, v, float(t + 1), run["lr_per_step"][t], inp[t], tgt[t], chosen[t])
    jax.block_until_ready(loss)
    seconds = time.perf_counter() - start
    tokens = int((inp != pad).sum())
    print(json.dumps({"signal": a.signal, "steps": steps, "tokens": tokens, "seconds": seconds,
                      "tokens_per_s": tokens / seconds, "threads": a.threads or os.cpu_count()}))


if __name__ == "__main__":
    main()
