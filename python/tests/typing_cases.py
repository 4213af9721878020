"""The API's types, as scripts/python-typecheck.sh checks them with ``mypy --strict``:
the calls in :func:`accepted` must type-check, and each call in :func:`refused` must
be the type error its ``# type: ignore[code]`` names (mypy reports an ignore that
finds nothing). Not a pytest module: nothing here is called."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

import sqlwitness


def accepted(bench: Path) -> None:
    # Every engine of the product by name, one or several.
    for name in ("sqlite", "postgres", "mysql", "mariadb", "duckdb"):
        sqlwitness.evaluate(bench, engines=name)
    sqlwitness.evaluate(bench, engines="duckdb")
    sqlwitness.evaluate(bench, engines=["sqlite", "duckdb"])
    engines: List[sqlwitness.EngineName] = ["sqlite", "duckdb"]
    sqlwitness.audit(bench, engines=engines, reference="duckdb")
    sqlwitness.migrate(bench, engines=("duckdb",), servers={"duckdb": "duckdb:/copies"})
    # Predictions: a file, a list (None abstains), or a list per engine.
    sqlwitness.evaluate(str(bench), "dev", bench / "pred.sql")
    texts: List[str] = ["SELECT 1"]
    report = sqlwitness.evaluate(bench, "dev", texts, db="concert_singer", limit=1, timeout=2.5, jobs=2)
    abstaining: List[Optional[str]] = [None, "SELECT 1"]
    per_engine: Dict[str, Sequence[Optional[str]]] = {"sqlite": abstaining, "duckdb": texts}
    sqlwitness.evaluate(bench, "dev", per_engine, engines=["sqlite", "duckdb"])
    # What comes back.
    ex: float = report.ex("duckdb")
    rows: List[Dict[str, Any]] = report.outcomes()
    files: Mapping[str, Path] = report.files
    code: int = sqlwitness.run("--version", echo=False)
    output: str = sqlwitness.run("eval", "--help", echo=False).output
    findings: List[Dict[str, Any]] = sqlwitness.audit(bench, db=["concert_singer"]).findings
    logs: List[Path] = sqlwitness.migrate(bench, engines="duckdb").logs
    del ex, rows, files, code, output, findings, logs


def refused(bench: Path) -> None:
    sqlwitness.evaluate(bench, engines="oracle")  # type: ignore[arg-type]
    sqlwitness.evaluate(bench, engines=["sqlite", "duck"])  # type: ignore[list-item]
    sqlwitness.evaluate(bench, timeot=5)  # type: ignore[call-arg]
    sqlwitness.audit(bench, timeot=5)  # type: ignore[call-arg]
    sqlwitness.migrate(bench, timeout=5)  # type: ignore[call-arg]
    sqlwitness.run("--version", echoes=False)  # type: ignore[call-arg]
    sqlwitness.evaluate(bench, "dev", "pred.sql", out="r", ties="tied")  # type: ignore[arg-type]
    sqlwitness.evaluate(bench, timeout="5")  # type: ignore[arg-type]
    sqlwitness.evaluate(bench, "dev", [1, 2])  # type: ignore[list-item]
    sqlwitness.audit(bench, reference="oracle")  # type: ignore[arg-type]
    sqlwitness.migrate(bench, verify="all")  # type: ignore[arg-type]
    # A list of names typed as plain strings is not a list of engine names.
    names: List[str] = ["sqlite"]
    sqlwitness.evaluate(bench, engines=names)  # type: ignore[arg-type]
