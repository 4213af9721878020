"""The Python API on the shipped example (SQLite, and DuckDB beside it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import sqlwitness
from conftest import example_questions


def test_the_gold_self_check_of_the_shipped_example(example: Path, tmp_path: Path) -> None:
    report = sqlwitness.evaluate(example, "dev", out=tmp_path / "r")
    s = report.summary["engines"]["sqlite"]
    # The README's main job: 972 match, 62 missing_db (wta_1 is not shipped).
    assert (s["questions"], s["match"], s["missing_db"]) == (1034, 972, 62)
    assert report.exit_code == 0 and report.ok
    assert report.ex("sqlite") == 1.0
    assert set(report.files) >= {"report.json", "summary.md", "report.html", "junit.xml"}
    assert report.summary["engines"]["sqlite"]["by_hardness"]["all"]["questions"] == 1034
    rows = report.outcomes()
    assert len(rows) == 1034
    assert {r["verdict"] for r in rows} == {"match", "missing_db"}
    assert rows[0]["engine"] == "sqlite" and rows[0]["hardness"] in {"easy", "medium", "hard", "extra"}


def test_predictions_as_a_list(example: Path) -> None:
    golds = [q["query"] for q in example_questions()[:20]]
    preds: list = list(golds)
    preds[0] = "SELECT 1"  # wrong
    preds[1] = None  # abstains
    preds[2] = "SELEC nonsense"  # does not run
    report = sqlwitness.evaluate(example, "dev", preds, limit=20, compare="spider")
    verdicts = [r["verdict"] for r in report.outcomes()]
    assert verdicts[:3] == ["mismatch", "abstained", "pred_error"]
    assert verdicts[3:] == ["match"] * 17
    assert report.data["run"]["compare"] == "spider"
    # The predictions are kept beside the report, named by it.
    assert Path(report.data["run"]["predictions"]).is_file()


def test_duckdb_beside_sqlite(example: Path, tmp_path: Path) -> None:
    # DuckDB is embedded: its copies go to a folder (given here, else the
    # user's cache); no server is needed.
    report = sqlwitness.evaluate(
        example,
        "dev",
        engines=["sqlite", "duckdb"],
        db=["concert_singer"],
        servers={"duckdb": f"duckdb:{tmp_path / 'copies'}"},
    )
    s = report.summary["engines"]["duckdb"]
    assert s["questions"] == 45 and s["engine_error"] == 0
    assert s["match"] + s["gold_error"] == 45
    assert any(p.suffix == ".duckdb" for p in (tmp_path / "copies").iterdir())
    assert {r["engine"] for r in report.outcomes()} == {"sqlite", "duckdb"}


def test_options_become_flags(example: Path) -> None:
    report = sqlwitness.evaluate(example, "dev", db=["concert_singer"], timeout=5, jobs=1)
    assert {q["db_id"] for q in report.questions} == {"concert_singer"}


def test_dataframes_when_installed(example: Path) -> None:
    report = sqlwitness.evaluate(example, "dev", limit=5)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install pandas"):
            report.to_pandas()
    else:
        assert len(report.to_pandas()) == 5


def test_bad_input_is_an_exception_with_its_exit_code(tmp_path: Path) -> None:
    with pytest.raises(sqlwitness.BadInputError) as e:
        sqlwitness.evaluate(tmp_path / "no-such-benchmark", "dev")
    assert e.value.exit_code == 2
    assert isinstance(e.value, sqlwitness.SqlwitnessError)
    assert isinstance(e.value, ValueError)
    assert "no-such-benchmark" in str(e.value)
    # A flag clap refuses is bad input too.
    with pytest.raises(sqlwitness.BadInputError):
        sqlwitness.evaluate(tmp_path, "dev", compare="nonsense")


def test_run_any_command(example: Path, tmp_path: Path) -> None:
    assert sqlwitness.run("eval", "--bench", str(example), "--limit", "3", "--out", str(tmp_path), "-q") == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["summary"]["engines"]["sqlite"]["questions"] == 3


def test_audit(example: Path) -> None:
    audit = sqlwitness.audit(example, "dev", db=["concert_singer"])
    assert audit.exit_code == 0
    assert "audit.json" in audit.files
    assert isinstance(audit.findings, list)


def sqlwitness_command() -> str:
    """The `sqlwitness` script the wheel installed beside this interpreter."""
    script = Path(sys.executable).parent / "sqlwitness"
    assert script.is_file(), f"{script}: the wheel's command is not installed"
    return str(script)


def test_the_command_in_the_wheel(example: Path, tmp_path: Path) -> None:
    command = sqlwitness_command()
    out = subprocess.run(
        [command, "eval", "--bench", str(example), "--limit", "5", "--out", str(tmp_path), "-q"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "report.json").is_file()
    version = subprocess.run([command, "--version"], capture_output=True, text=True)
    assert version.stdout.strip() == f"sqlwitness {sqlwitness.__version__}"
    bad = subprocess.run([command, "eval", "--bench", str(tmp_path / "none")], capture_output=True, text=True)
    assert bad.returncode == 2
    # python -m sqlwitness is the same command.
    mod = subprocess.run([sys.executable, "-m", "sqlwitness", "--version"], capture_output=True, text=True)
    assert mod.returncode == 0 and "sqlwitness" in mod.stdout


def test_quiet_by_default_summary_on_request(example: Path) -> None:
    # Quiet (the default) writes nothing on the process's standard error, where
    # a notebook would show the summary under the cell; quiet=False shows it.
    code = (
        "import sys, sqlwitness\n"
        "quiet = sys.argv[2] == 'quiet'\n"
        "sqlwitness.evaluate(sys.argv[1], 'dev', db='concert_singer', limit=2, quiet=quiet)\n"
        "sqlwitness.audit(sys.argv[1], 'dev', db='concert_singer', limit=2, quiet=quiet)\n"
    )
    for mode in ("quiet", "loud"):
        done = subprocess.run(
            [sys.executable, "-c", code, str(example), mode],
            capture_output=True, text=True, check=True,
        )
        if mode == "quiet":
            assert done.stderr == "", done.stderr
        else:
            assert "EX 1.0000" in done.stderr and "report: " in done.stderr, done.stderr
            assert "audit: 2 questions" in done.stderr, done.stderr
