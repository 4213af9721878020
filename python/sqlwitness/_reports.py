"""What the commands leave behind, as Python objects: :class:`Report` (``eval``),
:class:`AuditReport` (``audit``) and :class:`MigrateResult` (``migrate``).

A call without ``out=`` (``log_dir=`` for ``migrate``) writes into a temporary
folder that belongs to the object it returns: the folder stays while the object is
alive (its ``files`` can be opened, ``report.html`` viewed) and is removed when the
object is garbage-collected, or when the interpreter exits. Give ``out=`` to keep
the files."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import tempfile
import weakref
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Optional, Sequence, TypeVar, Union

PathLike = Union[str, "os.PathLike[str]"]
Owner = TypeVar("Owner")


def temporary_folder(what: str) -> Path:
    """A new temporary folder for a run that was given none."""
    return Path(tempfile.mkdtemp(prefix=f"sqlwitness-{what}-"))


def remove_with(owner: object, folder: Path) -> None:
    """Removes ``folder`` when ``owner`` is garbage-collected (or at exit)."""
    weakref.finalize(owner, shutil.rmtree, str(folder), ignore_errors=True)


def optional_module(name: str, needed_by: str) -> ModuleType:
    """The optional dependency ``name``, or an ImportError saying how to install it
    (a ModuleNotFoundError when the module is not there; the import's own error as
    its cause)."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        kind = ModuleNotFoundError if isinstance(e, ModuleNotFoundError) else ImportError
        raise kind(f"{needed_by} needs {name}: pip install {name}", name=name) from e


def _read_json(path: Path) -> Dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        data: Dict[str, Any] = json.load(f)
    return data


def _files(out: Path, names: Sequence[str]) -> Dict[str, Path]:
    return {n: out / n for n in names if (out / n).exists()}


class Report:
    """The report of an ``eval`` run (``report.json`` and its siblings in ``out``).
    ``data`` is read into memory; the files stay in ``out``, which, when the run was
    given no folder, is removed once this object is garbage-collected."""

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
        """Execution accuracy on ``engine``: ``match`` / :meth:`ex_questions`."""
        return float(self.summary["engines"][engine]["ex"])

    def ex_questions(self, engine: str = "sqlite") -> int:
        """The questions EX divides by on ``engine``: those with a database there
        (``questions - missing_db - engine_error``; a gold error counts as not
        matching)."""
        s = self.summary["engines"][engine]
        return int(s["questions"]) - int(s.get("missing_db", 0)) - int(s.get("engine_error", 0))

    def outcomes(self) -> List[Dict[str, Any]]:
        """One flat row per question and engine: ``id``, ``db_id``, ``engine``,
        ``verdict``, ``reason``, ``hardness``, ``difficulty``, the SQL texts, for the
        gold and the prediction each their error class and message, row count and
        duration in milliseconds, ``soft_f1``, ``not_portable`` (the degraded
        columns a query reads on that engine), and ``credit_causes`` (a match a
        non-strict ``compare`` mode credits that the strict comparison rejects:
        why, as a list such as ``["row_order"]``; empty otherwise)."""
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
                        "gold_error": gold.get("error"),
                        "pred_error": pred.get("error"),
                        "gold_rows": gold.get("row_count"),
                        "pred_rows": pred.get("row_count"),
                        "gold_ms": gold.get("duration_ms"),
                        "pred_ms": pred.get("duration_ms"),
                        "soft_f1": o.get("soft_f1"),
                        "not_portable": o.get("not_portable"),
                        "credit_causes": list(o.get("credit_causes") or []),
                    }
                )
        return rows

    def to_pandas(self) -> Any:
        """:meth:`outcomes` as a pandas DataFrame (needs pandas)."""
        return optional_module("pandas", "Report.to_pandas").DataFrame(self.outcomes())

    def _levels(self, key: str, engine: str) -> List[Dict[str, Any]]:
        levels = self.summary["engines"][engine].get(key) or {}
        return [{"level": level, **values} for level, values in levels.items()]

    def by_hardness(self, engine: str = "sqlite") -> Any:
        """Spider's table by hardness on ``engine`` (``questions``, ``match``,
        ``ex``, ``soft_f1`` per level and ``all``) as a pandas DataFrame indexed
        by level (needs pandas)."""
        pd = optional_module("pandas", "Report.by_hardness")
        return pd.DataFrame(self._levels("by_hardness", engine)).set_index("level")

    def by_difficulty(self, engine: str = "sqlite") -> Any:
        """BIRD's table by difficulty on ``engine`` as a pandas DataFrame indexed
        by level (needs pandas); empty when the questions have no difficulty."""
        pd = optional_module("pandas", "Report.by_difficulty")
        rows = self._levels("by_difficulty", engine)
        return pd.DataFrame(rows).set_index("level") if rows else pd.DataFrame()

    def _repr_html_(self) -> str:
        """The summary table, as a notebook shows this object."""
        import html

        head = "".join(
            f"<th>{h}</th>"
            for h in ("engine", "EX", "match", "mismatch", "gold_error", "pred_error", "engine_error")
        )
        rows = "".join(
            "<tr>"
            + f"<td>{html.escape(e)}</td>"
            + f"<td>{s['ex']:.4f} ({s['match']}/{self.ex_questions(e)})</td>"
            + "".join(
                f"<td>{int(s.get(k, 0))}</td>"
                for k in ("match", "mismatch", "gold_error", "pred_error", "engine_error")
            )
            + "</tr>"
            for e, s in self.summary["engines"].items()
        )
        return (
            f"<div><b>sqlwitness report</b> <code>{html.escape(str(self.out))}</code>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
        )

    def to_polars(self) -> Any:
        """:meth:`outcomes` as a polars DataFrame (needs polars)."""
        return optional_module("polars", "Report.to_polars").DataFrame(self.outcomes())

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
            f"{e}: EX {s['ex']:.4f} ({s['match']}/{self.ex_questions(e)})"
            for e, s in self.summary["engines"].items()
        ]
        return f"<sqlwitness.Report {self.out} {'; '.join(parts)}>"


class AuditReport:
    """The report of an ``audit`` run (``audit.json`` and its siblings in ``out``;
    a temporary ``out`` is removed with the object, as :class:`Report`'s)."""

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
        """:attr:`findings` as a pandas DataFrame (needs pandas)."""
        return optional_module("pandas", "AuditReport.to_pandas").DataFrame(self.findings)

    def to_polars(self) -> Any:
        """:attr:`findings` as a polars DataFrame (needs polars)."""
        return optional_module("polars", "AuditReport.to_polars").DataFrame(self.findings)

    @property
    def files(self) -> Dict[str, Path]:
        names = ["audit.json", "audit.md", "audit.html", "baseline-diff.md"]
        names += [p.name for p in sorted(self.out.glob("gold_*.sql"))]
        return _files(self.out, names)

    def __repr__(self) -> str:
        return f"<sqlwitness.AuditReport {self.out} {len(self.findings)} findings>"


class MigrateResult:
    """What ``migrate`` did: its exit code and the folder of its per-database logs
    (a temporary ``log_dir`` is removed with the object, as :class:`Report`'s)."""

    def __init__(self, exit_code: int, log_dir: Path) -> None:
        self.exit_code = exit_code
        self.log_dir = log_dir

    @property
    def logs(self) -> List[Path]:
        return sorted(self.log_dir.glob("**/*")) if self.log_dir.exists() else []

    def __repr__(self) -> str:
        return f"<sqlwitness.MigrateResult exit {self.exit_code}, logs in {self.log_dir}>"


def owned(result: Owner, folder: Optional[Path]) -> Owner:
    """``result``, the temporary ``folder`` (if any) removed with it."""
    if folder is not None:
        remove_with(result, folder)
    return result
