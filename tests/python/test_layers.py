"""posgeo.positional_centroids on hidden states of the float64 numpy reference forward pass
(tests/reference/bert_ref.py) equals the `layer:ℓ` rows of `posgeo analyze --model` (1e-4),
in both modes, for a small random BERT (tests/reference/tiny_bert.py)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import bert_ref
import posgeo
from conftest import REFERENCE, ROOT, cli

KEYS = ("raw_stress", "scaled_stress", "scale", "spearman", "monotonicity_violation_rate", "procrustes_residual")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny") / "bert"
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "reference", "tiny_bert.py"), str(out), "--seed", "3"],
                   check=True)
    return str(out)


def hidden_batch(model, mode, sequences, max_len):
    """The reference's hidden states of the first sequences, as one right-padded batch."""
    cfg, w, tok = bert_ref.load_model(model)
    seqs = bert_ref.read_corpus(REFERENCE, tok, True, max_len)[:sequences]
    cut = min(max_len, cfg["max_position_embeddings"])
    seqs = [s[:cut] for s in seqs]
    t = max(len(s) for s in seqs)
    ids = np.full((len(seqs), t), cfg["pad_token_id"], dtype=np.int64)
    mask = np.zeros((len(seqs), t), dtype=np.int64)
    states = np.zeros((cfg["num_hidden_layers"] + 1, len(seqs), t, cfg["hidden_size"]), dtype=np.float32)
    for s, seq in enumerate(seqs):
        ids[s, : len(seq)] = seq
        mask[s, : len(seq)] = 1
        # Alone, padded to T under the mask (as the batch the model reads in mode pad).
        states[:, s] = bert_ref.forward(cfg, w, list(ids[s]), list(mask[s]))
    return states, ids, mask


@pytest.mark.parametrize("mode", ["condition", "pad"])
def test_centroids_of_hidden_states_equal_the_cli_layer_rows(tiny, mode):
    args = ["--model", tiny, "--mode", mode, "--layer-sequences", 30, "--d", 32, REFERENCE]
    theirs = cli(*args)
    r = posgeo.analyze(REFERENCE, model=tiny, mode=mode, layer_sequences=30, d=32, progress=False)
    n = r.to_dict()["n"]
    states, ids, mask = hidden_batch(tiny, mode, 30, 512)
    # 🤗 transformers' output_hidden_states is a tuple of per-layer arrays: both forms work.
    out = posgeo.positional_centroids(tuple(states), ids, mask, mode=mode, n=n, min_support=5)
    again = posgeo.positional_centroids(states, ids, mask, mode=mode, n=n, min_support=5)
    assert all(np.array_equal(a, b) for a, b in zip(out["centroid"], again["centroid"]))
    n_l = out["positions"]
    assert n_l == theirs["layers"]["positions"] and len(out["centroid"]) == states.shape[0]
    d, x = r.distances[:n_l, :n_l], r.pmds[:n_l]
    compared = 0
    for kind in ("centroid", "residual"):
        for layer, pts in enumerate(out[kind]):
            assert pts.shape == (n_l, states.shape[3])
            name = f"layer:{layer}" if kind == "centroid" else f"layer-residual:{layer}"
            got = posgeo.stress(pts, d, pmds=x)
            for key in KEYS:
                assert abs(got[key] - theirs["encodings"][name][key]) <= 1e-4, (name, key)
                compared += 1
    assert compared == 2 * len(out["centroid"]) * len(KEYS)
    # The package's own model run gives the CLI's rows too (f32 both: 1e-4).
    for name, row in theirs["encodings"].items():
        for key in KEYS:
            if row[key] is not None:
                assert abs(r[name][key] - row[key]) <= 1e-4, (name, key)
    # Centroids fed back as extra encodings are measured as the layer rows.
    extra = posgeo.analyze(REFERENCE, d=32, mode=mode, tokenizer_file=os.path.join(tiny, "tokenizer.json"),
                           extra_encodings={"mine:1": out["centroid"][1]}, progress=False)
    assert abs(extra["mine:1"]["scaled_stress"] - theirs["encodings"]["layer:1"]["scaled_stress"]) <= 1e-4


def test_layers_reads_a_gguf_decoder_as_the_reference_does(tmp_path):
    """posgeo.layers on a tiny llama GGUF: per-layer σ*, positional share and effective
    dimension equal the float64 reference's (tests/reference/decoder_ref.py), to 1e-4."""
    gguf = tmp_path / "tiny.gguf"
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "reference", "tiny_decoder.py"), str(tmp_path / "dir"),
                    "--arch", "llama", "--seed", "3", "--gguf", str(gguf)], check=True)
    layers = posgeo.layers(str(gguf), REFERENCE, min_support=3, layer_skip=1, progress=False)
    ref = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "reference", "decoder_ref.py"), str(gguf),
                          REFERENCE, "--min-support", "3", "--skip", "1"], check=True, capture_output=True, text=True)
    import json
    ref = json.loads(ref.stdout)
    assert layers.info["model_type"] == "llama" and layers.info["skip"] == 1
    assert layers.positional_share.shape == (ref["num_layers"] + 1,)
    np.testing.assert_allclose(layers.positional_share, [m["positional_share"] for m in ref["measures"]], atol=1e-4)
    np.testing.assert_allclose(layers.effective_dimension, [m["effective_dimension"] for m in ref["measures"]],
                               atol=1e-4)
    sigma = [ref["encodings"][f"layer:{l}"]["scaled_stress"] for l in range(ref["num_layers"] + 1)]
    np.testing.assert_allclose(layers.sigma_star, sigma, atol=1e-4)
    assert layers.principal[0].shape[1] == 3
