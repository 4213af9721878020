"""The questions a run selects, and predictions given as a list written for them.

A list of predictions is checked against the benchmark before the command runs:
it holds one entry per question of the split, or one per question the run selects
(``db``, then ``limit``), in question order. The split is read as the command line
reads its layouts (``<split>.json``, ``<split>_sqlite.json``, ``<split>_gold.sql``,
``<split>.jsonl``), only for each question's ``db_id``; a benchmark this cannot read
is left to the command line, which names what is wrong with it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import List, Optional, Sequence, Union

from .errors import BadInputError

PathLike = Union[str, "os.PathLike[str]"]


def split_db_ids(bench: PathLike, split: str) -> Optional[List[str]]:
    """The ``db_id`` of every question of ``split``, in order; ``None`` when the
    benchmark is not one of the layouts or does not parse."""
    root = Path(bench)
    try:
        candidates = [root / "train_spider.json"] if split == "train" else []
        candidates += [root / f"{split}.json", root / f"{split}_sqlite.json"]
        for file in candidates:
            if file.is_file():
                with open(file, encoding="utf-8") as f:
                    entries = json.load(f)
                if not isinstance(entries, list):
                    return None
                return [str(e["db_id"]) for e in entries]
        gold = root / f"{split}_gold.sql"
        if gold.is_file():
            lines = _lines(gold)
            return [line.rsplit("\t", 1)[1].strip() for line in lines]
        jsonl = root / f"{split}.jsonl"
        if jsonl.is_file():
            return [str(json.loads(line)["db_id"]) for line in _lines(jsonl)]
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None
    return None


def _lines(path: Path) -> List[str]:
    """The non-blank lines (``\\n`` ends a line, a ``\\r`` before it is dropped)."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    return [line.rstrip("\r") for line in text.split("\n") if line.strip()]


def selection(db_ids: Sequence[str], dbs: Sequence[str], limit: Optional[int]) -> Optional[List[int]]:
    """The positions of the questions a run selects: those on ``dbs`` (all when
    empty), the first ``limit`` of them. ``None`` when a name of ``dbs`` has no
    question (the command line refuses it, naming it)."""
    if any(db not in db_ids for db in dbs):
        return None
    chosen = [i for i, db in enumerate(db_ids) if not dbs or db in dbs]
    return chosen[:limit] if limit is not None else chosen


def prediction_ids(
    name: str,
    count: int,
    db_ids: Optional[Sequence[str]],
    selected: Optional[Sequence[int]],
    split: str,
) -> List[int]:
    """The question each of ``count`` predictions answers: position ``i`` of the
    split when the list covers the split, the ``i``-th selected question when it
    covers the selection; another count is a ValueError giving both."""
    if db_ids is None:
        return list(range(count))
    if count == len(db_ids):
        return list(range(count))
    if selected is not None and count == len(selected):
        return list(selected)
    expected = f"{len(db_ids)} (the questions of split {split!r})"
    if selected is not None and len(selected) != len(db_ids):
        expected = f"{len(selected)} (the questions selected by db and limit) or " + expected
    raise BadInputError(
        f"{name}: {count} predictions, expected {expected}: one per question in question "
        "order, None to abstain"
    )


def write_predictions(preds: Sequence[Optional[str]], ids: Sequence[int], path: Path, name: str) -> None:
    """``preds`` as JSONL for ``--pred``: ``{"id": question, "sql": text}``, ``null``
    (``None`` or ``""``) abstaining."""
    text = []
    for i, sql in enumerate(preds):
        if sql is not None and not isinstance(sql, str):
            raise TypeError(f"{name}[{i}]: a SQL text or None, got {type(sql).__name__}")
        line = json.dumps({"id": ids[i], "sql": sql or None}, ensure_ascii=False) + "\n"
        try:
            text.append(line.encode("utf-8"))
        except UnicodeEncodeError as e:
            raise BadInputError(
                f"{name}[{i}]: the text holds {e.object[e.start : e.end]!r}, which is not Unicode text"
            ) from e
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(text))
