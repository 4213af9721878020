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
    # diff: Reports or their files; what it holds.
    diff: sqlwitness.Diff = sqlwitness.diff(report, bench / "old" / "report.json", tolerance=0.01)
    regressions: List[Dict[str, Any]] = diff.regressions
    gate: List[str] = diff.reasons
    ok: bool = diff.ok and diff.improvements == [] and diff.count("sqlite")["changed"] == 0
    # The official evaluators' drop-ins: the table, its numbers, the report.
    spider = sqlwitness.spider_eval(
        gold=bench / "dev_gold.sql", pred="pred.sql", db=bench / "database", table=bench / "tables.json",
        etype="all", plug_value=True, keep_distinct=True, engines=["sqlite", "duckdb"], out="out",
    )
    table: str = spider.table
    score: float = spider.value("execution", "all", engine="duckdb")
    table_rows: List[Dict[str, Any]] = spider.rows()
    behind: Optional[sqlwitness.Report] = spider.report
    bird: sqlwitness.EvaluatorTable = sqlwitness.bird_eval(
        predicted_sql_path="pred.json", ground_truth_path="gold.sql", db_root_path="dev_databases/",
        diff_json_path="mini_dev.jsonl", sql_dialect="PostgreSQL", num_cpus=4, meta_time_out=30.0,
    )
    sqlwitness.bird_eval(
        predicted_sql_path="exp/", ground_truth_path="bird/", db_root_path="bird/dev_databases/",
        diff_json_path="bird/dev.json", data_mode="dev", mode_predict="gt", ves=True,
    )
    # progress: a tqdm bar, or a callable of (done, total).
    def tick(done: int, total: int) -> None:
        print(done, total)

    sqlwitness.evaluate(bench, progress=True)
    sqlwitness.evaluate(bench, progress=tick)
    sqlwitness.audit(bench, progress=lambda done, total: None)
    sqlwitness.spider_eval(gold="g", pred="p", db="d", progress=tick)
    bar: sqlwitness.ProgressArg = None
    del diff, regressions, gate, ok, table, score, table_rows, behind, bird, bar


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
    sqlwitness.diff(bench, bench, tolerence=0.1)  # type: ignore[call-arg]
    sqlwitness.diff(bench, bench, tolerance="0.1")  # type: ignore[arg-type]
    sqlwitness.spider_eval(gold="g", pred="p", db="d", etype="exact")  # type: ignore[arg-type]
    sqlwitness.spider_eval("g", "p", "d")  # type: ignore[misc]
    sqlwitness.spider_eval(gold="g", pred="p")  # type: ignore[call-arg]
    sqlwitness.bird_eval(
        predicted_sql_path="p", ground_truth_path="g", db_root_path="d/", diff_json_path="j",
        sql_dialect="sqlite",  # type: ignore[arg-type]
    )
    sqlwitness.evaluate(bench, progress="yes")  # type: ignore[arg-type]
    sqlwitness.audit(bench, progress=lambda done: None)  # type: ignore[arg-type, misc]
    # A list of names typed as plain strings is not a list of engine names.
    names: List[str] = ["sqlite"]
    sqlwitness.evaluate(bench, engines=names)  # type: ignore[arg-type]
