"""What the API hands back: run()'s exit code and output, the reports' summaries,
their optional dependencies, and the temporary folders of calls without ``out=``."""

from __future__ import annotations

import gc
import sys
import tempfile
from pathlib import Path

import pytest

import sqlwitness
from conftest import EXAMPLE


def test_help_and_version_return_their_text(capsys: pytest.CaptureFixture) -> None:
    done = sqlwitness.run("--help")
    assert done == 0 and done.exit_code == 0
    assert "Usage: sqlwitness" in done.output and "eval" in done.output
    assert capsys.readouterr().out == done.output
    done = sqlwitness.run("eval", "--help", echo=False)
    assert done == 0 and "--bench <BENCH>" in done.output
    assert capsys.readouterr().out == ""
    assert sqlwitness.run("--version", echo=False).output == f"sqlwitness {sqlwitness.__version__}\n"


def test_run_returns_what_the_command_printed(spider_files, capfd: pytest.CaptureFixture) -> None:
    gold, _ = spider_files
    pred = gold.with_name("pred.sql")
    pred.write_text("".join(line.split("\t")[0] + "\n" for line in gold.read_text().splitlines()))
    done = sqlwitness.run(
        "spider-eval",
        "--gold",
        gold,
        "--pred",
        pred,
        "--db",
        EXAMPLE / "database",
        "--table",
        EXAMPLE / "tables.json",
        "--etype",
        "exec",
        "-q",
        echo=False,
    )
    assert done == 0
    lines = done.output.splitlines()
    assert lines[0].split() == ["easy", "medium", "hard", "extra", "all"]
    assert lines[1].split() == ["count", "232", "416", "160", "164", "972"]
    assert lines[-1].split() == ["execution", "1.000", "1.000", "1.000", "1.000", "1.000"]
    # Nothing of it reached the process's standard output.
    assert capfd.readouterr().out == ""


def test_a_failing_command_still_raises() -> None:
    with pytest.raises(sqlwitness.BadInputError) as e:
        sqlwitness.run("eval", "--bench", str(EXAMPLE), "--no-such-flag", echo=False)
    assert e.value.exit_code == 2 and "--no-such-flag" in str(e.value)


def test_report_repr_divides_as_ex_does() -> None:
    report = sqlwitness.evaluate(EXAMPLE, "dev", [None] * 1034)
    s = report.summary["engines"]["sqlite"]
    assert report.ex_questions("sqlite") == 972 == s["questions"] - s["missing_db"] - s["engine_error"]
    assert repr(report).endswith("sqlite: EX 0.0000 (0/972)>")
    golds = sqlwitness.evaluate(EXAMPLE, "dev")
    assert repr(golds).endswith("sqlite: EX 1.0000 (972/972)>")
    assert golds.ex("sqlite") == golds.summary["engines"]["sqlite"]["match"] / golds.ex_questions("sqlite")


def test_results_within_reach() -> None:
    preds = [None] * 1034
    preds[0] = "SELECT count(*) FROM singer"
    preds[1] = "SELEC nonsense"
    report = sqlwitness.evaluate(EXAMPLE, "dev", preds)
    rows = {r["id"]: r for r in report.outcomes()}
    ok, bad = rows[0], rows[1]
    assert ok["gold_rows"] == ok["pred_rows"] == 1
    assert ok["gold_ms"] is not None and ok["pred_ms"] is not None
    # Not a query the guard lets through: refused, with the reason.
    assert bad["pred_error_class"] == "refused" and bad["pred_error"]
    html = report._repr_html_()
    assert "<table>" in html and "(1/972)" in html
    pytest.importorskip("pandas")
    table = report.by_hardness()
    assert table.loc["all", "questions"] == 1034
    assert list(table.columns)[:2] == ["questions", "match"]
    assert report.by_difficulty().empty


def test_optional_dependencies_say_how_to_install_them(monkeypatch: pytest.MonkeyPatch) -> None:
    report = sqlwitness.evaluate(EXAMPLE, "dev", limit=2)
    audit = sqlwitness.audit(EXAMPLE, "dev", limit=2)
    for module in ("pandas", "polars"):
        monkeypatch.setitem(sys.modules, module, None)  # import fails
        for owner, result in (("Report", report), ("AuditReport", audit)):
            method = getattr(result, f"to_{module}")
            with pytest.raises(
                ImportError, match=rf"^{owner}.to_{module} needs {module}: pip install {module}$"
            ):
                method()


def test_temporary_folders_go_with_their_objects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    report = sqlwitness.evaluate(EXAMPLE, "dev", ["SELECT 1", None], limit=2)
    folder = report.out
    assert folder.parent == tmp_path and (folder / "report.html").is_file()
    assert Path(report.data["run"]["predictions"]).is_file()
    audit = sqlwitness.audit(EXAMPLE, "dev", limit=2)
    assert audit.out.is_dir()
    del report, audit
    gc.collect()
    assert list(tmp_path.iterdir()) == []
    # A run that fails leaves nothing either (its predictions were written).
    monkeypatch.delenv("SQLWITNESS_POSTGRES_URL", raising=False)
    monkeypatch.delenv("SQLWITNESS_POSTGRES_READER_URL", raising=False)
    with pytest.raises(sqlwitness.BadInputError, match="servers"):
        sqlwitness.evaluate(EXAMPLE, "dev", ["SELECT 1"], limit=1, engines="sqlite,postgres")
    assert list(tmp_path.iterdir()) == []
    # A folder the caller gave stays.
    kept = sqlwitness.evaluate(EXAMPLE, "dev", limit=1, out=tmp_path / "kept").out
    gc.collect()
    assert (kept / "report.json").is_file()
