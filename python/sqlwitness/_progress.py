"""A run's progress, as a Python call asks for it (``progress=``): a callable told
``(done, total)`` as the run's questions are done, or a tqdm bar.

The extension module runs the command on a thread of its own and, from the thread
waiting for it (the caller's, with the GIL), calls :meth:`Progress.__call__` with
each stage's counts at most a few times a second and once more when the run ends.
Only the stage of the questions (``eval``, ``audit``) reaches the caller: its
counts rise from 0 to its length, the questions this call runs (with
``resume=True``, those the journal does not hold yet). A callable that raises
stops the run as Ctrl-C does (the journal in ``out`` keeps what finished) and its
exception is raised from the call once the run has stopped."""

from __future__ import annotations

import importlib
from typing import Any, Callable, Optional, Union

from ._reports import optional_module

#: ``progress=``: ``True`` for a tqdm bar, a callable ``(done, total)``, or
#: ``None``/``False`` for nothing.
ProgressArg = Union[bool, Callable[[int, int], object], None]


class Progress:
    """Hands the counts of one stage (``stage``) to ``callback``; a tqdm bar's
    when the caller asked for one."""

    def __init__(self, stage: str, callback: Optional[Callable[[int, int], object]], bar: Any = None) -> None:
        self.stage = stage
        self.callback = callback
        #: ``tqdm.auto.tqdm``, the bar made at the stage's first counts.
        self._bar_class = bar
        self._bar: Any = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self.stage:
            return
        if self.callback is not None:
            self.callback(done, total)
        if self._bar_class is not None:
            if self._bar is None:
                self._bar = self._bar_class(total=total, desc=stage, unit="question")
            if self._bar.total != total:
                self._bar.total = total
                self._bar.refresh()
            self._bar.update(done - self._bar.n)

    def close(self) -> None:
        """Closes the bar, if one was drawn."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def progress_for(name: str, stage: str, value: Any) -> Optional[Progress]:
    """What ``progress=value`` asks of a run whose questions are stage ``stage``:
    nothing (``None``), a callable's or a tqdm bar's :class:`Progress`. ``True``
    without tqdm is a ModuleNotFoundError saying ``pip install tqdm``, before
    anything runs."""
    if value is None or value is False:
        return None
    if value is True:
        optional_module("tqdm", f"{name}(progress=True)")
        bar = importlib.import_module("tqdm.auto").tqdm
        return Progress(stage, None, bar)
    if not callable(value):
        raise TypeError(
            f"progress: True (a tqdm bar) or a callable taking (done, total), got {type(value).__name__}"
        )
    callback: Callable[[int, int], object] = value
    return Progress(stage, callback)
