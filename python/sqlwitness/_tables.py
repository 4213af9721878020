"""What :func:`sqlwitness.spider_eval` and :func:`sqlwitness.bird_eval` return: the
table an official evaluator prints, as text and as rows of numbers.

The tables are read by their layout, not by their labels, so every table the
drop-ins print reads the same way (Spider's execution, exact-match and partial
tables, BIRD's EX and VES): a header line of level names (an empty first cell),
then rows of a label and one number per level, each number where its level's name
starts in the header; a line of ``=`` or ``-`` with a title opens a section
(``EXECUTION ACCURACY``); ``ENGINE:`` alone on a line starts an engine's tables
(``engines=`` with several engines); other lines (the pairs ``--etype match``
prints before its table, BIRD's first and last lines) are text."""

from __future__ import annotations

import html
import re
from typing import Any, Dict, List, Optional, Union

from ._reports import Report, optional_module

_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
_BANNER = re.compile(r"^\s*[=-]{3,}(?P<title>.*?)[=-]{3,}\s*$")
_ENGINE = re.compile(r"^(?P<engine>[a-z][a-z0-9_]*):$")


def _number(text: str) -> Union[int, float]:
    return int(text) if re.fullmatch(r"[-+]?\d+", text) else float(text)


def parse_tables(text: str, engine: Optional[str] = None) -> List[Dict[str, Any]]:
    """The rows of the tables in ``text``, each a dict: ``engine`` (``engine``
    until an ``ENGINE:`` line names another), ``section`` (the title of the
    banner above the row, ``None`` before one), ``name`` (the row's label) and
    one number per level, keyed by the level's name."""
    rows: List[Dict[str, Any]] = []
    levels: List[str] = []
    #: Where each level's column starts, as the header places its name.
    starts: List[int] = []
    section: Optional[str] = None
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _ENGINE.match(line)
        if m:
            engine, levels, starts, section = m.group("engine"), [], [], None
            continue
        m = _BANNER.match(line)
        if m:
            section = m.group("title").strip(" =-") or None
            continue
        cells = [(c.start(), c.group()) for c in re.finditer(r"\S+", line)]
        if line[:1].isspace() and not any(_NUMBER.match(c) for _, c in cells):
            levels, starts, section = [c for _, c in cells], [at for at, _ in cells], None
            continue
        if not levels or len(cells) <= len(levels):
            continue
        values = cells[-len(levels) :]
        if [at for at, _ in values] == starts and all(_NUMBER.match(v) for _, v in values):
            label = line[: starts[0]].strip()
            if label:
                row: Dict[str, Any] = {"engine": engine, "section": section, "name": label}
                row.update(zip(levels, (_number(v) for _, v in values)))
                rows.append(row)
    return rows


class EvaluatorTable:
    """What an official evaluator's drop-in (``spider-eval``, ``bird-eval``)
    printed: :attr:`table`, the text as the official script prints it, and
    :meth:`rows`, its numbers; :attr:`report`, the run's :class:`Report` behind
    them."""

    def __init__(
        self, command: str, table: str, exit_code: int, report: Optional[Report], engine: Optional[str]
    ) -> None:
        self.command = command
        #: What the command printed on standard output, the official layout.
        self.table = table
        #: The command line's exit code: 0 (a drop-in prints its table only when it
        #: computed every question; otherwise the call raises).
        self.exit_code = exit_code
        #: The ``eval`` report behind the table (``out=``, or a temporary folder
        #: removed with this object); ``None`` where nothing ran
        #: (``spider_eval(etype="match")`` scores the text alone).
        self.report = report
        self._engine = engine

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def rows(self) -> List[Dict[str, Any]]:
        """One dict per row of the printed tables: ``engine``, ``section`` (the
        banner's title, ``EXECUTION ACCURACY``; ``None`` for ``count``), ``name``
        (``count``, ``execution``, ``EX``, ...) and each level's number under
        the level's name (``easy`` … ``all``; ``simple`` … ``total``)."""
        return parse_tables(self.table, self._engine)

    @property
    def levels(self) -> List[str]:
        """The level names of the first table's header."""
        first = next(iter(self.rows()), None)
        return [] if first is None else [k for k in first if k not in ("engine", "section", "name")]

    def value(self, name: str, level: str, engine: Optional[str] = None) -> Union[int, float]:
        """The number of row ``name`` at ``level`` (on ``engine``; default: the
        first engine printed); ``KeyError`` when the table has none."""
        for row in self.rows():
            if row["name"] == name and level in row and engine in (None, row["engine"]):
                value: Union[int, float] = row[level]
                return value
        raise KeyError(f"no row {name!r} with level {level!r}" + (f" on {engine}" if engine else ""))

    def to_pandas(self) -> Any:
        """:meth:`rows` as a pandas DataFrame (needs pandas)."""
        return optional_module("pandas", "EvaluatorTable.to_pandas").DataFrame(self.rows())

    def __repr__(self) -> str:
        scores = [r for r in self.rows() if r["name"] != "count"]
        shown = [
            f"{r['engine'] + ' ' if r['engine'] else ''}{r['name']} {list(r.values())[-1]}" for r in scores[:3]
        ]
        more = f" (+{len(scores) - 3} rows)" if len(scores) > 3 else ""
        return f"<sqlwitness.EvaluatorTable {self.command}: {', '.join(shown)}{more}>"

    def _repr_html_(self) -> str:
        """The table as the official script prints it."""
        return f"<pre>{html.escape(self.table)}</pre>"
