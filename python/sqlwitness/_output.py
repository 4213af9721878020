"""What a command prints on standard output, captured.

The command line's library writes to the process's standard output (file
descriptor 1), which a notebook does not show: :func:`captured` points descriptor 1
at a temporary file while the command runs and hands back what was written there.
Standard error (progress, warnings, the terminal summary) stays the process's."""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from contextlib import contextmanager
from typing import Iterator, List

#: One capture at a time: descriptor 1 is the process's, not a thread's.
_LOCK = threading.Lock()


@contextmanager
def captured() -> Iterator[List[str]]:
    """Yields a list that holds, once the block has run, the text written on
    descriptor 1 inside it (nothing is captured where descriptor 1 cannot be
    duplicated)."""
    into: List[str] = []
    with _LOCK:
        _flush()
        try:
            saved = os.dup(1)
        except OSError:
            yield into
            return
        try:
            with tempfile.TemporaryFile() as file:
                os.dup2(file.fileno(), 1)
                try:
                    yield into
                finally:
                    _flush()
                    os.dup2(saved, 1)
                    file.seek(0)
                    into.append(file.read().decode("utf-8", "replace"))
        finally:
            os.close(saved)


def _flush() -> None:
    """Python's own buffered output goes where descriptor 1 points now."""
    for stream in (sys.stdout, sys.__stdout__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
