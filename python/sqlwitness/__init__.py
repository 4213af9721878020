"""sqlwitness: a cross-dialect SQL execution differential tester for text-to-SQL
benchmarks, from Python.

The functions here run the command line's own library in this process (no
subprocess): :func:`evaluate` is ``sqlwitness eval``, :func:`audit` is
``sqlwitness audit``, :func:`migrate` is ``sqlwitness migrate`` and :func:`run`
any command by its arguments. A run releases the GIL; Ctrl-C (KeyboardInterrupt)
cancels it as SIGINT does on the command line (its journal keeps what finished,
``resume=True`` continues). A command that fails raises a :class:`SqlwitnessError`
subclass carrying the command line's exit code.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _native
from .errors import (
    BadInputError,
    ContainerError,
    EngineError,
    Interrupted,
    SqlwitnessError,
    error_for,
)

__version__: str = _native.__version__

__all__ = [
    "AuditReport",
    "BadInputError",
    "ContainerError",
    "EngineError",
    "Interrupted",
    "MigrateResult",
    "Report",
    "SqlwitnessError",
    "audit",
    "evaluate",
    "migrate",
    "run",
]

PathLike = Union[str, "os.PathLike[str]"]
#: Predictions: a file (Spider text, BIRD JSON or JSONL), or one SQL text per
#: question in question order (``None`` or ``""`` abstains).
Predictions = Union[PathLike, Sequence[Optional[str]]]


def run(*args: str) -> int:
    """Runs one command by its arguments, as ``sqlwitness ARGS...`` would, in this
    process. Returns the exit code of a command that finished (0, or 3, 4, 5 with
    its report written); raises a :class:`SqlwitnessError` for one that failed."""
    code, message = _native.run(["sqlwitness", *map(str, args)])
    if message is not None:
        raise error_for(code, message)
    return code


def _flags(options: Mapping[str, Any]) -> List[str]:
    """``name=value`` as ``--name value``; ``True`` as ``--name``; ``None`` and
    ``False`` left out; a list or tuple repeats the flag."""
    argv: List[str] = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                argv += [flag, str(v)]
        else:
            argv += [flag, str(value)]
    return argv


def _pairs(flag: str, mapping: Optional[Mapping[str, Any]]) -> List[str]:
    argv: List[str] = []
    for engine, value in (mapping or {}).items():
        argv += [flag, f"{engine}={value}"]
    return argv


def _out_folder(out: Optional[PathLike], what: str) -> Path:
    if out is None:
        return Path(tempfile.mkdtemp(prefix=f"sqlwitness-{what}-"))
    return Path(out)


def _prediction_file(preds: Predictions, out: Path, name: str) -> str:
    """A prediction file for ``--pred``: a path as given, a list written as JSONL
    (``{"id": i, "sql": ...}``, ``null`` abstains) into ``out``."""
    if isinstance(preds, (str, os.PathLike)):
        return os.fspath(preds)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"predictions-{name}.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for i, sql in enumerate(preds):
            if sql is not None and not isinstance(sql, str):
                raise BadInputError(f"predictions[{i}]: a SQL text or None, got {type(sql).__name__}")
            f.write(json.dumps({"id": i, "sql": sql or None}, ensure_ascii=False) + "\n")
    return os.fspath(path)


def _read_json(path: Path) -> Dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        data: Dict[str, Any] = json.load(f)
    return data


def _files(out: Path, names: Sequence[str]) -> Dict[str, Path]:
    return {n: out / n for n in names if (out / n).exists()}


class Report:
    """The report of an ``eval`` run (``report.json`` and its siblings in ``out``)."""

    def __init__(self, out: PathLike, exit_code: int = 0) -> None:
        self.out = Path(out)
        #: The command line's exit code: 0, 3 (questions ended ``engine_error``) or
        #: 4 (a regression against ``baseline``); the report is written in each case.
        self.exit_code = exit_code
        #: ``report.json`` as plain data (format described in docs/report-format.md).
        self.data: Dict[str, Any] = _read_json(self.out / "report.json")

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def summary(self) -> Dict[str, Any]:
        """``summary`` of report.json: per engine the verdict counts, EX, tie-aware EX,
        ``by_hardness`` and ``by_difficulty``; the scores."""
        summary: Dict[str, Any] = self.data["summary"]
        return summary

    @property
    def questions(self) -> List[Dict[str, Any]]:
        """Every question as report.json holds it (its outcome per engine under
        ``engines``)."""
        questions: List[Dict[str, Any]] = self.data["questions"]
        return questions

    def ex(self, engine: str = "sqlite") -> float:
        """Execution accuracy on ``engine``."""
        return float(self.summary["engines"][engine]["ex"])

    def outcomes(self) -> List[Dict[str, Any]]:
        """One flat row per question and engine: ``id``, ``db_id``, ``engine``,
        ``verdict``, ``reason``, ``hardness``, ``difficulty``, the SQL texts, the
        error classes and ``soft_f1``."""
        rows: List[Dict[str, Any]] = []
        for q in self.questions:
            for engine, o in q["engines"].items():
                gold = o.get("gold") or {}
                pred = o.get("pred") or {}
                rows.append(
                    {
                        "id": q["id"],
                        "db_id": q["db_id"],
                        "engine": engine,
                        "verdict": o["verdict"],
                        "reason": o.get("reason"),
                        "hardness": q.get("hardness"),
                        "difficulty": q.get("difficulty"),
                        "question": q.get("question"),
                        "gold_sql": o.get("gold_sql") or q.get("gold_sql"),
                        "pred_sql": o.get("pred_sql") or q.get("pred_sql"),
                        "gold_error_class": gold.get("error_class"),
                        "pred_error_class": pred.get("error_class"),
                        "soft_f1": o.get("soft_f1"),
                    }
                )
        return rows

    def to_pandas(self) -> Any:
        """:meth:`outcomes` as a pandas DataFrame (needs pandas)."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("Report.to_pandas needs pandas: pip install pandas") from e
        return pd.DataFrame(self.outcomes())

    def to_polars(self) -> Any:
        """:meth:`outcomes` as a polars DataFrame (needs polars)."""
        try:
            import polars as pl
        except ImportError as e:
            raise ImportError("Report.to_polars needs polars: pip install polars") from e
        return pl.DataFrame(self.outcomes())

    @property
    def files(self) -> Dict[str, Path]:
        """The report files written: report.json, summary.md, report.html, junit.xml
        (and baseline-diff.md with a baseline)."""
        return _files(
            self.out,
            ["report.json", "summary.md", "report.html", "junit.xml", "baseline-diff.md"],
        )

    def __repr__(self) -> str:
        parts = [
            f"{e}: EX {s['ex']:.4f} ({s['match']}/{s['questions']})"
            for e, s in self.summary["engines"].items()
        ]
        return f"<sqlwitness.Report {self.out} {'; '.join(parts)}>"


class AuditReport:
    """The report of an ``audit`` run (``audit.json`` and its siblings in ``out``)."""

    def __init__(self, out: PathLike, exit_code: int = 0) -> None:
        self.out = Path(out)
        #: 0, 3, 4 (new findings against ``baseline``) or 5 (``fail_on`` exceeded).
        self.exit_code = exit_code
        self.data: Dict[str, Any] = _read_json(self.out / "audit.json")

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def summary(self) -> Dict[str, Any]:
        summary: Dict[str, Any] = self.data["summary"]
        return summary

    @property
    def findings(self) -> List[Dict[str, Any]]:
        """Every finding as audit.json holds it (docs/audit.md)."""
        findings: List[Dict[str, Any]] = self.data["findings"]
        return findings

    def to_pandas(self) -> Any:
        import pandas as pd

        return pd.DataFrame(self.findings)

    def to_polars(self) -> Any:
        import polars as pl

        return pl.DataFrame(self.findings)

    @property
    def files(self) -> Dict[str, Path]:
        names = ["audit.json", "audit.md", "audit.html", "baseline-diff.md"]
        names += [p.name for p in sorted(self.out.glob("gold_*.sql"))]
        return _files(self.out, names)

    def __repr__(self) -> str:
        return f"<sqlwitness.AuditReport {self.out} {len(self.findings)} findings>"


class MigrateResult:
    """What ``migrate`` did: its exit code and the folder of its per-database logs."""

    def __init__(self, exit_code: int, log_dir: Path) -> None:
        self.exit_code = exit_code
        self.log_dir = log_dir

    @property
    def logs(self) -> List[Path]:
        return sorted(self.log_dir.glob("**/*")) if self.log_dir.exists() else []

    def __repr__(self) -> str:
        return f"<sqlwitness.MigrateResult exit {self.exit_code}, logs in {self.log_dir}>"


def evaluate(
    bench: PathLike,
    split: str = "dev",
    predictions: Union[Predictions, Mapping[str, Predictions], None] = None,
    *,
    engines: Sequence[str] = ("sqlite",),
    compare: str = "strict",
    ties: str = "strict",
    out: Optional[PathLike] = None,
    gold: Optional[Mapping[str, PathLike]] = None,
    servers: Optional[Mapping[str, str]] = None,
    containers: bool = False,
    quiet: bool = True,
    **options: Any,
) -> Report:
    """``sqlwitness eval``: runs gold and predicted SQL on every engine of ``engines``,
    compares and returns the :class:`Report`.

    ``predictions``: a file, a list of SQL texts in question order (``None`` abstains),
    or a mapping engine → either (each engine its own predictions); ``None`` is the
    gold self-check. ``compare``: ``strict``, ``spider`` or ``bird``; ``ties``:
    ``strict`` or ``aware``. ``out``: the report folder (default: a new temporary
    folder). ``gold``: engine → an engine's own gold file. ``servers``: engine →
    administrative URL (else ``SQLWITNESS_<ENGINE>_URL``). Every other ``eval`` flag
    is a keyword argument: ``timeout=10``, ``jobs=2``, ``limit=50``, ``db=["concert_singer"]``,
    ``legacy=True``, ``resume=True``, ``baseline="old/report.json"``, ...
    """
    out_dir = _out_folder(out, "eval")
    argv = ["eval", "--bench", os.fspath(bench), "--split", split, "--out", os.fspath(out_dir)]
    if isinstance(predictions, Mapping):
        for engine, p in predictions.items():
            argv += ["--pred", f"{engine}={_prediction_file(p, out_dir, engine)}"]
    elif predictions is not None:
        argv += ["--pred", _prediction_file(predictions, out_dir, "api")]
    argv += ["--engines", ",".join(engines), "--compare", compare, "--ties", ties]
    argv += _pairs("--gold", gold) + _pairs("--server", servers)
    argv += _flags({"containers": containers, "quiet": quiet, **options})
    code = run(*argv)
    return Report(out_dir, code)


def audit(
    bench: PathLike,
    split: str = "dev",
    *,
    engines: Sequence[str] = ("sqlite",),
    out: Optional[PathLike] = None,
    servers: Optional[Mapping[str, str]] = None,
    containers: bool = False,
    quiet: bool = True,
    **options: Any,
) -> AuditReport:
    """``sqlwitness audit``: the gold audit (nondeterminism proven on data, dialect
    failures, rewrites); returns the :class:`AuditReport`. Other ``audit`` flags are
    keyword arguments (``fail_on=["limit_ties=0"]``, ``baseline=...``, ...)."""
    out_dir = _out_folder(out, "audit")
    argv = ["audit", "--bench", os.fspath(bench), "--split", split, "--out", os.fspath(out_dir)]
    argv += ["--engines", ",".join(engines)] + _pairs("--server", servers)
    argv += _flags({"containers": containers, "quiet": quiet, **options})
    code = run(*argv)
    return AuditReport(out_dir, code)


def migrate(
    bench: PathLike,
    split: str = "dev",
    *,
    engines: Sequence[str] = ("postgres", "mysql"),
    servers: Optional[Mapping[str, str]] = None,
    log_dir: Optional[PathLike] = None,
    containers: bool = False,
    quiet: bool = True,
    **options: Any,
) -> MigrateResult:
    """``sqlwitness migrate``: copies the benchmark's SQLite databases to the server
    engines and verifies them (already verified copies are skipped). Other flags are
    keyword arguments (``all=True``, ``db=[...]``, ``force=True``, ``verify="full"``)."""
    logs = _out_folder(log_dir, "migrate")
    argv = ["migrate", "--bench", os.fspath(bench), "--split", split, "--log-dir", os.fspath(logs)]
    argv += ["--engines", ",".join(engines)] + _pairs("--server", servers)
    argv += _flags({"containers": containers, "quiet": quiet, **options})
    code = run(*argv)
    return MigrateResult(code, logs)
