"""posgeo — the geometry of positional encodings, in Python.

After Cirrincione, "On the Geometry of Positional Encodings in Transformers" (arXiv
2604.05217): for every position i of a corpus the distribution μ_i of its tokens, the Hellinger
distances D between them, classical MDS of D (PMDS), and the stress of every encoding against D.
The same engine as the ``posgeo`` command line and the browser page (a Rust extension):

* :func:`analyze` — a corpus → :class:`Report` (the ``posgeo analyze --json`` numbers);
* :func:`stress` — any n×d table or n×n distance matrix against a corpus metric D;
* :func:`positional_centroids` — a model's hidden states (🤗 transformers'
  ``output_hidden_states``, or any framework's) → per-layer positional centroids;
* :func:`count` / :class:`Counts` — counts tables, as ``posgeo count`` / ``merge``;
* :func:`train` — the learning experiment (docs/MATH.md §16) → :class:`Training` (the
  ``posgeo train --json`` numbers); :class:`Tracker` — the same measures of a position table
  logged during one's own training.

Every analysis option is a keyword argument of the same name (see :data:`OPTIONS`, and
:data:`LEARN_OPTIONS` for :func:`train`); docs/PYTHON.md has a worked example.
"""
from collections import namedtuple

from . import _arrays, _core
from ._learn import Tracker, Training
from ._progress import reporter
from ._report import Counts, Layers, Report
from .errors import Error, InputError, TooLargeError

__version__ = _core.__version__
__all__ = ["analyze", "count", "layers", "stress", "positional_centroids", "train", "Report", "Counts", "Training",
           "Tracker", "OPTIONS", "LEARN_OPTIONS", "Error", "InputError", "TooLargeError"]

Option = namedtuple("Option", "default help kind choices")
#: Every analysis option (name → default, help, kind, choices), from the engine's one table.
OPTIONS = {name: Option(default, help_, kind, tuple(choices))
           for name, default, help_, kind, choices in _core.option_table()}
#: Every option of the learning experiment (:func:`train`), as :data:`OPTIONS`.
LEARN_OPTIONS = {name: Option(default, help_, kind, tuple(choices))
                 for name, default, help_, kind, choices in _core.option_table("learn")}


def _layout(format, column, header, field, lossy):
    return {"format": format, "column": None if column is None else str(column), "header": bool(header),
            "field": field, "lossy": bool(lossy)}


def analyze(corpus, *, learned=None, model=None, tokenizer_file=None, extra_encodings=None, format=None,
            column=None, header=True, field="text", lossy=False, progress=True, **options):
    """Analyses a corpus: D, its spectrum, PMDS and the stress of every encoding.

    ``corpus`` is a path (a text file with one sequence per line, CSV/TSV, JSON Lines, gzip
    too; ``format``, ``column``, ``header``, ``field``, ``lossy`` as the CLI's flags), a list of
    strings, or any iterable of strings (one sequence each; streamed in batches).

    ``learned``: position tables to compare — an array, a path (text/CSV, .npy, .npz,
    .safetensors), a list of them, or a dict name → array or path. ``model``: a folder of a
    BERT-family encoder (config.json, model.safetensors, tokenizer.json) whose layers become
    rows ``layer:ℓ`` and ``layer-residual:ℓ``. ``tokenizer_file``: a tokenizer.json counting the
    model's tokens. ``extra_encodings``: a dict name → n′×k array, each measured as a row of
    that name (over the first n′ positions). ``progress``: True (a tqdm bar when tqdm is
    installed), False, or a callable ``progress(stage, fraction)``. Every other keyword is an
    option of :data:`OPTIONS`.
    """
    with reporter(progress) as tell:
        core = _core.analyze(corpus, options, _layout(format, column, header, field, lossy),
                             _arrays.tables(learned), _fspath(model), _fspath(tokenizer_file),
                             _arrays.named(extra_encodings), tell)
    return Report(core)


def layers(model, corpus, *, tokenizer_file=None, format=None, column=None, header=True, field="text",
           lossy=False, progress=True, **options):
    """A model's layers on a corpus (docs/MATH.md §14–§14b): the same pass as
    ``posgeo analyze CORPUS --model PATH``. ``model`` is a folder (BERT, Llama/SmolLM/Mistral,
    Qwen2 or GPT-2; safetensors, sharded too, or pytorch_model.bin) or one ``.gguf`` file.
    Returns :class:`Layers`: per layer ℓ = 0…L the σ* of ``layer:ℓ`` and ``layer-residual:ℓ``,
    the positional share, the effective dimension and the principal coordinates, over the
    first ``layer_sequences`` sequences (``layer_skip`` leaves out the first positions of the
    last three). Other keywords as :func:`analyze`."""
    report = analyze(corpus, model=model, tokenizer_file=tokenizer_file, format=format, column=column,
                     header=header, field=field, lossy=lossy, progress=progress, **options)
    return Layers(report)


def count(corpus, *, tokenizer_file=None, format=None, column=None, header=True, field="text", lossy=False,
          progress=True, **options):
    """The counts table of a corpus (``posgeo count``): only the tokenizer options, ``mode``
    and ``max_len`` apply. ``corpus`` as in :func:`analyze`."""
    with reporter(progress) as tell:
        core = _core.count(corpus, options, _layout(format, column, header, field, lossy), _fspath(tokenizer_file),
                           tell)
    return Counts(core)


def train(corpus, *, tokenizer_file=None, format=None, column=None, header=True, field="text", lossy=False,
          progress=True, preset=None, **options):
    """The learning experiment (docs/MATH.md §16), as ``posgeo train --json``: a small
    transformer per position signal and seed, trained by masked-token prediction on the
    corpus's own sequences; each signal's held-out loss beside its stress, and the finding
    (Spearman's ρ between them).

    ``corpus`` as in :func:`analyze` (every sequence is kept in memory). Every keyword is an
    option of :data:`OPTIONS` (how the corpus is counted; D and its spectrum) or of
    :data:`LEARN_OPTIONS` (``signals`` — a comma-separated str or a list of names —,
    ``steps``, ``seeds``, ``d_model``, ``layers``, ``heads``, ``vocab``, ``mask_rate``, ``lr``,
    ``batch``, ``every``). ``tokenizer_file``: a tokenizer.json to count and train on the
    model's tokens. ``progress`` as in :func:`analyze`; Ctrl-C stops the runs. ``preset="lecture"``
    is ``posgeo train --preset lecture``: the smallest run whose verdicts agree with the default
    run's (docs/MATH.md §16); it sets ``signals``, ``steps``, ``batch`` and ``every``.
    """
    with reporter(progress) as tell:
        text = _core.train(corpus, options, _layout(format, column, header, field, lossy), _fspath(tokenizer_file),
                           tell, preset)
    return Training(text)


def stress(config, D, *, pmds=None, distances=None):
    """The measures of ``config`` against the corpus metric ``D`` (n×n, e.g.
    ``Report.distances``): a dict with ``raw_stress``, ``scaled_stress``, ``scale``,
    ``spearman``, ``monotonicity_violation_rate`` and ``procrustes_residual``.

    ``config`` is an n×d table (its first n rows are used) or an n×n distance matrix
    (``distances=None`` decides: square, symmetric, ≥ 0 and zero on the diagonal reads as
    distances; a distance matrix has no Procrustes residual). Procrustes aligns onto ``pmds``
    (e.g. ``Report.pmds``) when given, else onto D's own first min(r_τ, 16) PMDS coordinates.
    """
    import numpy as np

    x = _arrays.array(config, np.float64, 2, "config")
    d = _arrays.array(D, np.float64, 2, "D")
    p = None if pmds is None else _arrays.array(pmds, np.float64, 2, "pmds")
    return _core.stress(x, d, p, distances)


def positional_centroids(hidden_states, input_ids, attention_mask, mode="condition", n=None, min_support=5):
    """docs/MATH.md §14's positional centroids of hidden states computed anywhere.

    ``hidden_states``: what 🤗 transformers returns with ``output_hidden_states=True`` (a
    sequence of per-layer (S, T, H) arrays or tensors) or one (L+1, S, T, H) array.
    ``input_ids`` and ``attention_mask``: (S, T), the mask right-padded (1 for real tokens). In
    mode ``condition`` position i averages the sequences longer than i; in mode ``pad`` every
    position counts, padding included, with its id. Positions stop at the first with fewer than
    ``min_support`` sequences, and at ``n`` (default T).

    Returns ``{"positions": n_L, "centroid": [...], "residual": [...]}``: one (n_L, H) array per
    layer, ready for :func:`stress` (against ``D[:n_L, :n_L]``) or for
    ``analyze(..., extra_encodings={name: array})``.
    """
    import numpy as np

    layers = _arrays.layers(hidden_states)
    ids = _arrays.array(input_ids, np.int64, 2, "input_ids")
    mask = _arrays.array(attention_mask, np.int64, 2, "attention_mask")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 2):
        raise InputError(f"n must be a whole number ≥ 2 or None, got {n!r}")
    if isinstance(min_support, bool) or not isinstance(min_support, int) or min_support < 1:
        raise InputError(f"min_support must be a whole number ≥ 1, got {min_support!r}")
    positions, centroid, residual = _core.positional_centroids(layers, ids, mask, mode, n, min_support)
    return {"positions": positions, "centroid": centroid, "residual": residual}


def _fspath(p):
    if p is None:
        return None
    import os

    return os.fspath(p)
