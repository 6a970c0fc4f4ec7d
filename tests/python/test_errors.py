"""Bad arguments: each gives the documented exception with the CLI's message."""
import numpy as np
import pytest

import posgeo
from conftest import GENESIS


def test_unknown_keyword_is_a_type_error_naming_the_options():
    with pytest.raises(TypeError, match=r'unexpected keyword argument "max_lenn"; the options are .*max_len'):
        posgeo.analyze(GENESIS, max_lenn=3)


def test_an_option_out_of_range_has_the_cli_message():
    with pytest.raises(posgeo.InputError, match="min_support") as e:
        posgeo.analyze(GENESIS, min_support=0)
    assert isinstance(e.value, ValueError)
    with pytest.raises(posgeo.InputError, match='"fast" is not one of'):
        posgeo.analyze(GENESIS, metric="fast")
    with pytest.raises(TypeError, match="option d: expected a number"):
        posgeo.analyze(GENESIS, d=[3])


def test_an_empty_corpus_and_missing_files():
    with pytest.raises(posgeo.InputError, match="no tokens|empty|no sequence"):
        posgeo.analyze([], progress=False)
    with pytest.raises(posgeo.InputError):
        posgeo.analyze(["", "  "], progress=False)
    with pytest.raises(FileNotFoundError, match="nowhere.txt"):
        posgeo.analyze("nowhere.txt")
    with pytest.raises(FileNotFoundError, match="model"):
        posgeo.analyze(GENESIS, model="no-such-folder")


def test_corpus_items_must_be_strings_and_a_failing_iterator_stops():
    with pytest.raises(TypeError, match="corpus item 1: expected str, got int"):
        posgeo.analyze(["a b c", 7])
    with pytest.raises(TypeError, match="expected a path, a list of str"):
        posgeo.analyze(42)

    def broken():
        yield "in the beginning"
        raise RuntimeError("the source failed")
    with pytest.raises(RuntimeError, match="the source failed"):
        posgeo.analyze(broken())


def test_wrong_shapes_and_nan():
    r = posgeo.analyze(GENESIS, progress=False)
    d = r.distances
    n = d.shape[0]
    with pytest.raises(posgeo.InputError, match="square distance matrix"):
        posgeo.stress(np.zeros((n, 3)), d[:, :5])
    with pytest.raises(posgeo.InputError, match=rf"needs at least {n} rows"):
        posgeo.stress(np.ones((n - 1, 3)), d)
    bad = np.ones((n, 3))
    bad[4, 1] = np.nan
    with pytest.raises(posgeo.InputError, match=r"config: row 4, column 1 is not finite"):
        posgeo.stress(bad, d)
    with pytest.raises(posgeo.InputError, match="3-D array expected|2-D array expected"):
        posgeo.stress(np.ones(n), d)
    asym = d.copy()
    asym[0, 1] += 1
    with pytest.raises(posgeo.InputError, match="not a distance matrix at"):
        posgeo.stress(np.ones((n, 2)), asym)
    with pytest.raises(posgeo.InputError, match=r'extra encoding "x": row 0, column 0 is not finite'):
        posgeo.analyze(GENESIS, extra_encodings={"x": np.full((n, 2), np.nan)}, progress=False)
    with pytest.raises(posgeo.InputError, match="already has a row"):
        posgeo.analyze(GENESIS, extra_encodings={"alibi": np.ones((n, 2))}, progress=False)


def test_centroid_arguments_are_checked():
    h = np.zeros((2, 3, 4, 5), dtype=np.float32)
    ids = np.ones((3, 4), dtype=np.int64)
    mask = np.ones((3, 4), dtype=np.int64)
    with pytest.raises(posgeo.InputError, match="input_ids is"):
        posgeo.positional_centroids(h, ids[:, :3], mask)
    left = mask.copy()
    left[1, 0] = 0
    with pytest.raises(posgeo.InputError, match="attention_mask row 1 is not right-padded"):
        posgeo.positional_centroids(h, ids, left, min_support=1)
    with pytest.raises(posgeo.InputError, match="one \\(3, 4, H\\) array per layer"):
        posgeo.positional_centroids([h[0], h[1][:, :2]], ids, mask)
    with pytest.raises(posgeo.InputError, match="fewer than 2 positions"):
        posgeo.positional_centroids(h, ids, mask)  # 3 sequences < min_support 5
    with pytest.raises(posgeo.InputError, match="mode"):
        posgeo.positional_centroids(h, ids, mask, mode="left", min_support=1)
    nan = h.copy()
    nan[1, 0, 0, 0] = np.nan
    with pytest.raises(posgeo.InputError, match="not finite"):
        posgeo.positional_centroids(nan, ids, mask, min_support=1)
