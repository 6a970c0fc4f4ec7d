"""Arrays from whatever a framework hands over: numpy arrays, lists, PyTorch tensors (on any
device, with or without gradients) and JAX arrays all become numpy arrays of one dtype."""
import numpy as np

from .errors import InputError


def array(x, dtype, ndim, what):
    """``x`` as a C-contiguous numpy array of ``dtype`` with ``ndim`` dimensions."""
    if hasattr(x, "detach"):  # a torch.Tensor
        x = x.detach().cpu()
        if str(getattr(x, "dtype", "")) == "torch.bfloat16":
            x = x.float()
        x = x.numpy()
    a = np.ascontiguousarray(np.asarray(x), dtype=dtype)
    if a.ndim != ndim:
        raise InputError(f"{what}: a {ndim}-D array expected, got shape {a.shape}")
    return a


def layers(hidden_states):
    """Hidden states as one (S, T, H) float32 array per layer: a sequence of per-layer arrays
    (🤗 transformers' ``output_hidden_states``) or one (L+1, S, T, H) array."""
    if isinstance(hidden_states, (list, tuple)):
        return [array(h, np.float32, 3, f"hidden_states[{k}]") for k, h in enumerate(hidden_states)]
    return list(array(hidden_states, np.float32, 4, "hidden_states"))


def tables(learned):
    """``learned=`` as (name, array or path) pairs: one or a list of arrays or paths, or a dict
    name → array or path."""
    if learned is None:
        return []
    if isinstance(learned, dict):
        items = list(learned.items())
    elif isinstance(learned, (list, tuple)):
        items = [("", v) for v in learned]
    else:
        items = [("", learned)]
    out = []
    for k, (name, v) in enumerate(items):
        if isinstance(v, str) or hasattr(v, "__fspath__"):
            out.append((str(name), v))
        else:
            out.append((str(name) or f"array{k}", array(v, np.float64, 2, f"learned table {name or k}")))
    return out


def named(extra):
    """``extra_encodings=`` (a dict name → n′×k array) as (name, float64 array) pairs."""
    if extra is None:
        return []
    if not isinstance(extra, dict):
        raise TypeError("extra_encodings: a dict of name → array expected")
    return [(str(name), array(v, np.float64, 2, f"extra encoding {name!r}")) for name, v in extra.items()]
