"""Progress of long runs: a tqdm bar when tqdm is installed (nothing otherwise), or the
caller's own callable ``progress(stage, fraction)``."""
import contextlib


@contextlib.contextmanager
def reporter(progress):
    """The callback the engine calls with (stage, fraction of the run or None)."""
    if callable(progress):
        yield progress
        return
    bar = None
    if progress:
        try:
            from tqdm.auto import tqdm
            bar = tqdm(total=100, unit="%", leave=False, bar_format="{desc:>14} {bar} {percentage:3.0f}%")
        except ImportError:
            bar = None
    if bar is None:
        yield None
        return

    def tell(stage, fraction):
        bar.set_description_str(stage, refresh=False)
        if fraction is not None:
            bar.n = round(100 * fraction)
            bar.refresh()

    try:
        yield tell
    finally:
        bar.close()
