"""What the API hands back: run()'s exit code and output, the reports' summaries,
their optional dependencies, and the temporary folders of calls without ``out=``."""

from __future__ import annotations

import gc
import importlib.abc
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence

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
    # `scored`: what EX divides by (the official tables' count row).
    assert table.loc["all", "scored"] == 972
    assert list(table.columns)[:3] == ["questions", "scored", "match"]
    assert report.by_difficulty().empty


#: Each method that needs an optional dependency: (class, method, module).
OPTIONAL = [
    ("Report", "to_pandas", "pandas"),
    ("Report", "to_polars", "polars"),
    ("Report", "by_hardness", "pandas"),
    ("Report", "by_difficulty", "pandas"),
    ("AuditReport", "to_pandas", "pandas"),
    ("AuditReport", "to_polars", "polars"),
]


class BrokenInstall(importlib.abc.MetaPathFinder):
    """An import of ``name`` that fails as a broken install does (a dependency of
    the module does not load)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, fullname: str, path: Optional[Sequence[str]], target: object = None) -> None:
        if fullname == self.name:
            raise ImportError(f"{fullname}: numpy.core.multiarray failed to import")
        return None


def test_optional_dependencies_say_how_to_install_them(monkeypatch: pytest.MonkeyPatch) -> None:
    results = {
        "Report": sqlwitness.evaluate(EXAMPLE, "dev", limit=2),
        "AuditReport": sqlwitness.audit(EXAMPLE, "dev", limit=2),
    }
    # Not installed: a ModuleNotFoundError (an ImportError) naming the command.
    for owner, method, module in OPTIONAL:
        with monkeypatch.context() as m:
            m.setitem(sys.modules, module, None)  # the import fails
            with pytest.raises(
                ModuleNotFoundError, match=rf"^{owner}.{method} needs {module}: pip install {module}$"
            ) as e:
                getattr(results[owner], method)()
            assert e.value.name == module
    # Installed but broken: an ImportError saying the same, the import's own
    # error as its cause.
    for owner, method, module in OPTIONAL:
        with monkeypatch.context() as m:
            m.delitem(sys.modules, module, raising=False)
            m.setattr(sys, "meta_path", [BrokenInstall(module), *sys.meta_path])
            with pytest.raises(
                ImportError, match=rf"^{owner}.{method} needs {module}: pip install {module}$"
            ) as e:
                getattr(results[owner], method)()
            assert not isinstance(e.value, ModuleNotFoundError)
            assert "numpy.core.multiarray failed to import" in str(e.value.__cause__)


def ours(folder: Path) -> List[Path]:
    """The temporary folders the package made in ``folder`` (``sqlwitness-*``)."""
    return sorted(folder.glob("sqlwitness-*"))


@pytest.fixture
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder as the temporary folder of Python (``tempfile``) and of the
    library (``TMPDIR``, which the Rust side reads)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_temporary_folders_go_with_their_objects(
    temporary: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert ours(temporary) == []
    report = sqlwitness.evaluate(EXAMPLE, "dev", ["SELECT 1", None], limit=2)
    # The folder stays while the report is alive: its files can be opened.
    assert ours(temporary) == [report.out]
    assert (report.out / "report.html").is_file()
    assert Path(report.data["run"]["predictions"]).is_file()
    audit = sqlwitness.audit(EXAMPLE, "dev", limit=2)
    assert ours(temporary) == sorted([report.out, audit.out])
    assert "audit.json" in audit.files
    data = report.data
    del report, audit
    gc.collect()
    assert ours(temporary) == []
    # Nothing else was left there either (the library's own scratch folders).
    assert list(temporary.iterdir()) == []
    # What was read stays in memory.
    assert data["summary"]["engines"]["sqlite"]["questions"] == 2
    # A call that fails leaves nothing (its predictions were written first).
    monkeypatch.delenv("SQLWITNESS_POSTGRES_URL", raising=False)
    monkeypatch.delenv("SQLWITNESS_POSTGRES_READER_URL", raising=False)
    with pytest.raises(sqlwitness.BadInputError, match="servers"):
        sqlwitness.evaluate(EXAMPLE, "dev", ["SELECT 1"], limit=1, engines="sqlite,postgres")
    with pytest.raises(sqlwitness.BadInputError, match="^engines: "):
        sqlwitness.audit(EXAMPLE, "dev", engines="nosuch")
    with pytest.raises(sqlwitness.BadInputError, match="^engines: "):
        sqlwitness.migrate(EXAMPLE, "dev", engines="nosuch")
    # run() makes none.
    done = sqlwitness.run("eval", "--bench", EXAMPLE, "--limit", "1", "--out", tmp_path / "run", "-q", echo=False)
    assert done == 0
    assert list(temporary.iterdir()) == []
    # A folder the caller gave stays.
    kept = sqlwitness.evaluate(EXAMPLE, "dev", limit=1, out=tmp_path / "kept").out
    gc.collect()
    assert (kept / "report.json").is_file()
    assert list(temporary.iterdir()) == []


def test_a_temporary_folder_goes_when_python_exits(temporary: Path) -> None:
    program = (
        "import sys, sqlwitness\n"
        "report = sqlwitness.evaluate(sys.argv[1], 'dev', limit=1)\n"
        "print(report.out)\n"
    )
    done = subprocess.run([sys.executable, "-c", program, str(EXAMPLE)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.strip())
    assert folder.parent == temporary, folder
    assert not folder.exists()
    assert list(temporary.iterdir()) == []
