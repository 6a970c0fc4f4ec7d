"""posgeo's exceptions. Every message is the command line's, with hints naming keyword
arguments instead of flags.

* :class:`InputError` (a ``ValueError``) — bad input: an option out of range, a corpus
  without tokens, an array of the wrong shape or with NaN, a file that is not what it claims;
* :class:`TooLargeError` (a ``MemoryError``) — a run that would not fit the memory budget,
  refused with its estimate before it starts;
* :class:`Error` — the base of both, and what a numerical failure raises.

A missing file is ``FileNotFoundError``, an unknown keyword or a wrong type ``TypeError``, and
Ctrl-C during a run ``KeyboardInterrupt`` (the run stops cleanly).
"""


class Error(Exception):
    """The base of posgeo's errors."""


class InputError(Error, ValueError):
    """Bad input (options, corpus, arrays, files)."""


class TooLargeError(Error, MemoryError):
    """A run that would not fit the memory budget."""
