"""The objects a notebook gets back beyond a report: `diff` (a Diff, not text on
file descriptor 1), `spider_eval` and `bird_eval` (the printed table and its
numbers), and `progress=` on a run (a callable, a tqdm bar)."""

from __future__ import annotations

import json
import sys
import time
import types
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

import sqlwitness
from conftest import EXAMPLE, REPO, example_questions
from sqlwitness._tables import parse_tables

N = 45  # the first questions of the example: all on concert_singer


def golds(n: int = N) -> List[Optional[str]]:
    return [q["query"] for q in example_questions()[:n]]


@pytest.fixture(scope="module")
def runs() -> Tuple[sqlwitness.Report, sqlwitness.Report]:
    """The gold as predictions, then with question 0 wrong and question 1
    abstained."""
    worse = golds()
    worse[0], worse[1] = "SELECT 1", None
    before = sqlwitness.evaluate(EXAMPLE, "dev", golds(), limit=N)
    after = sqlwitness.evaluate(EXAMPLE, "dev", worse, limit=N)
    return before, after


# --- diff -------------------------------------------------------------------


def test_diff_names_each_regression_by_engine_and_question(runs) -> None:
    before, after = runs
    d = sqlwitness.diff(before, after)
    assert isinstance(d, sqlwitness.Diff)
    assert (d.exit_code, d.ok) == (4, False)
    assert [(r["engine"], r["id"], r["old"], r["new"]) for r in d.regressions] == [
        ("sqlite", 0, "match", "mismatch"),
        ("sqlite", 1, "match", "abstained"),
    ]
    assert d.improvements == []
    assert d.changes == d.regressions
    assert d.count("sqlite") == {"regressions": 2, "improvements": 0, "changed": 2}
    e = d.engines["sqlite"]
    assert (e["old_match"], e["new_match"]) == (N, N - 2)
    assert "sqlite: 2 new failures (allowed 0)" in d.reasons
    assert repr(d).startswith("<sqlwitness.Diff regression (exit 4): sqlite: EX 1.0000 → 0.9556 (-0.0444), 2 regressions")
    assert "<td>abstained</td>" in d._repr_html_()


def test_diff_the_other_way_is_an_improvement_and_passes(runs) -> None:
    before, after = runs
    d = sqlwitness.diff(after, before)
    assert (d.exit_code, d.ok, d.reasons) == (0, True, [])
    assert [(r["id"], r["change"]) for r in d.improvements] == [(0, "improvement"), (1, "improvement")]
    assert d.regressions == []
    assert repr(d).startswith("<sqlwitness.Diff ok: sqlite: EX 0.9556 → 1.0000")


def test_diff_reads_files_and_folders_and_takes_a_tolerance(runs) -> None:
    before, after = runs
    by_path = sqlwitness.diff(before.out / "report.json", after.out)
    assert by_path.data == sqlwitness.diff(before, after).data
    # 2 new failures of 45 and EX 0.0444 lower: within 5%.
    tolerated = sqlwitness.diff(before, after, tolerance=0.05)
    assert (tolerated.ok, tolerated.tolerance, len(tolerated.regressions)) == (True, 0.05, 2)


def test_diff_as_a_dataframe(runs) -> None:
    pytest.importorskip("pandas")
    before, after = runs
    df = sqlwitness.diff(before, after).to_pandas()
    assert df[["id", "change", "new"]].values.tolist() == [[0, "regression", "mismatch"], [1, "regression", "abstained"]]
    assert list(sqlwitness.diff(before, before).to_pandas().columns)[:4] == ["engine", "id", "db_id", "change"]


def test_diff_arguments(runs, tmp_path: Path) -> None:
    before, after = runs
    with pytest.raises(TypeError, match="tolerence"):
        sqlwitness.diff(before, after, tolerence=0.1)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match=r"tolerance=2: expected a fraction"):
        sqlwitness.diff(before, after, tolerance=2)
    with pytest.raises(sqlwitness.BadInputError, match="missing.json"):
        sqlwitness.diff(before, tmp_path / "missing.json")
    with pytest.raises(TypeError, match="old: a path"):
        sqlwitness.diff(3, after)  # type: ignore[arg-type]


# --- spider_eval, bird_eval -------------------------------------------------


def row(name: str, cells: List[str]) -> str:
    return " ".join([f"{name:20}"] + [f"{c:<20}" for c in cells]) + "\n"


def test_tables_are_read_by_their_layout_whatever_their_labels() -> None:
    levels = ["easy", "medium", "hard", "extra", "all", "joint_all"]
    text = (
        row("", levels)
        + row("count", ["4", "3", "2", "1", "10", "10"])
        + "=====================   EXECUTION ACCURACY     =====================\n"
        + row("execution", ["1.000", "0.667", "0.500", "0.000", "0.700", "0.700"])
        + "\n====================== EXACT MATCHING ACCURACY =====================\n"
        + row("exact match", ["0.750", "0.333", "0.000", "0.000", "0.400", "0.400"])
        + "\n---------------------PARTIAL MATCHING ACCURACY----------------------\n"
        + row("select(no AGG)", ["1.000"] * 6)
        + row("group(no Having)", ["0.500"] * 6)
        + "---------------------- PARTIAL MATCHING F1 --------------------------\n"
        + row("and/or", ["1.000"] * 6)
    )
    rows = parse_tables(text, "sqlite")
    assert [(r["section"], r["name"]) for r in rows] == [
        (None, "count"),
        ("EXECUTION ACCURACY", "execution"),
        ("EXACT MATCHING ACCURACY", "exact match"),
        ("PARTIAL MATCHING ACCURACY", "select(no AGG)"),
        ("PARTIAL MATCHING ACCURACY", "group(no Having)"),
        ("PARTIAL MATCHING F1", "and/or"),
    ]
    assert rows[0] == {"engine": "sqlite", "section": None, "name": "count", **dict(zip(levels, [4, 3, 2, 1, 10, 10]))}
    assert rows[2]["medium"] == 0.333 and rows[2]["joint_all"] == 0.4
    # Several engines: each table headed by its engine's name.
    two = "sqlite:\n" + row("", ["simple", "total"]) + row("EX", ["50.00", "75.00"])
    two += "postgres:\n" + row("", ["simple", "total"]) + row("EX", ["25.00", "50.00"])
    assert [(r["engine"], r["total"]) for r in parse_tables(two)] == [("sqlite", 75.0), ("postgres", 50.0)]


MATCH_FIXTURE = REPO / "crates" / "sqlwitness-cli" / "tests" / "spider_match"


def test_spider_eval_all_reads_the_exact_and_partial_matching_tables(tmp_path: Path) -> None:
    result = sqlwitness.spider_eval(
        gold=MATCH_FIXTURE / "gold.sql", pred=MATCH_FIXTURE / "pred.sql", db=EXAMPLE / "database",
        table=EXAMPLE / "tables.json", etype="all",
    )
    # The official output: the pairs that do not match, then the tables.
    assert result.table == (MATCH_FIXTURE / "expected_all.txt").read_text(encoding="utf-8")
    rows = result.rows()
    assert rows == parse_tables(result.table, "sqlite")
    sections = [r["section"] for r in rows]
    assert sections[:3] == [None, "EXECUTION ACCURACY", "EXACT MATCHING ACCURACY"]
    for partial in ("PARTIAL MATCHING ACCURACY", "PARTIAL MATCHING RECALL", "PARTIAL MATCHING F1"):
        assert [r["name"] for r in rows if r["section"] == partial] == [
            "select", "select(no AGG)", "where", "where(no OP)", "group(no Having)", "group", "order",
            "and/or", "IUEN", "keywords",
        ]
    assert result.value("count", "all") == 37
    assert result.report is not None
    by_hardness = result.report.summary["engines"]["sqlite"]["by_hardness"]
    for level in result.levels:
        s = by_hardness[level]
        assert result.value("execution", level) == round(s["match"] / s["questions"], 3), level


def test_spider_eval_match_scores_the_text_alone(tmp_path: Path) -> None:
    # Exact set match runs no query: the official table, no report behind it.
    for plug_value in (False, True):
        result = sqlwitness.spider_eval(
            gold=MATCH_FIXTURE / "gold.sql", pred=MATCH_FIXTURE / "pred.sql", db=EXAMPLE / "database",
            table=EXAMPLE / "tables.json", etype="match", plug_value=plug_value,
        )
        assert result.ok
        assert result.table == (MATCH_FIXTURE / "expected_match.txt").read_text(encoding="utf-8")
        assert result.report is None
        assert "exact match" in [r["name"] for r in result.rows()]
    all_plugged = sqlwitness.spider_eval(
        gold=MATCH_FIXTURE / "gold.sql", pred=MATCH_FIXTURE / "pred.sql", db=EXAMPLE / "database",
        table=EXAMPLE / "tables.json", etype="all", plug_value=True, out=tmp_path / "out",
    )
    assert all_plugged.table == (MATCH_FIXTURE / "expected_all_plug_value.txt").read_text(encoding="utf-8")
    assert all_plugged.report is not None


def spider_files_for(gold: Path, tmp_path: Path, wrong: List[int]) -> Path:
    pred = tmp_path / "pred.sql"
    lines = [line.split("\t")[0] for line in gold.read_text(encoding="utf-8").splitlines()]
    for i in wrong:
        lines[i] = "SELECT 'no such answer'"
    pred.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return pred


def test_spider_eval_numbers_are_the_reports(spider_files, tmp_path: Path) -> None:
    gold, _ = spider_files
    first = tmp_path / "gold.sql"
    first.write_text("".join(gold.read_text(encoding="utf-8").splitlines(keepends=True)[:120]), encoding="utf-8")
    pred = spider_files_for(first, tmp_path, wrong=[0, 7, 50, 99])
    result = sqlwitness.spider_eval(
        gold=first, pred=pred, db=EXAMPLE / "database", table=EXAMPLE / "tables.json", out=tmp_path / "out"
    )
    assert isinstance(result, sqlwitness.EvaluatorTable)
    assert (result.exit_code, result.ok) == (0, True)
    assert result.table.splitlines()[2] == "=====================   EXECUTION ACCURACY     ====================="
    assert result.levels == ["easy", "medium", "hard", "extra", "all"]
    assert result.report.out == tmp_path / "out"
    assert result.report is not None
    by_hardness = result.report.summary["engines"]["sqlite"]["by_hardness"]
    rows = {r["name"]: r for r in result.rows()}
    assert set(rows) == {"count", "execution"}
    for level in result.levels:
        s = by_hardness[level]
        assert rows["count"][level] == s["questions"], level
        assert rows["execution"][level] == round(s["match"] / s["questions"], 3), level
    assert rows["count"]["all"] == 120
    assert result.value("execution", "all") == round(116 / 120, 3)
    assert rows["execution"]["section"] == "EXECUTION ACCURACY"
    assert repr(result) == f"<sqlwitness.EvaluatorTable spider-eval: sqlite execution {round(116 / 120, 3)}>"
    assert result._repr_html_().startswith("<pre>")


def test_spider_eval_without_out_keeps_its_report_while_alive(spider_files, tmp_path: Path) -> None:
    gold, _ = spider_files
    first = tmp_path / "gold.sql"
    first.write_text("".join(gold.read_text(encoding="utf-8").splitlines(keepends=True)[:20]), encoding="utf-8")
    result = sqlwitness.spider_eval(gold=first, pred=spider_files_for(first, tmp_path, []), db=EXAMPLE / "database")
    folder = result.report.out
    assert (folder / "report.json").is_file()
    assert result.value("execution", "all") == 1.0
    del result
    import gc

    gc.collect()
    assert not folder.exists()


def test_spider_eval_as_a_dataframe(spider_files, tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    gold, _ = spider_files
    first = tmp_path / "gold.sql"
    first.write_text("".join(gold.read_text(encoding="utf-8").splitlines(keepends=True)[:20]), encoding="utf-8")
    df = sqlwitness.spider_eval(gold=first, pred=spider_files_for(first, tmp_path, [3]), db=EXAMPLE / "database").to_pandas()
    assert list(df.columns) == ["engine", "section", "name", "easy", "medium", "hard", "extra", "all"]
    assert df.set_index("name").loc["execution", "all"] == 0.95


def test_spider_eval_arguments(spider_files, tmp_path: Path) -> None:
    gold, _ = spider_files
    with pytest.raises(TypeError, match="keep_distnct"):
        sqlwitness.spider_eval(gold=gold, pred=gold, db=EXAMPLE / "database", keep_distnct=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        sqlwitness.spider_eval(gold, gold, EXAMPLE / "database")  # type: ignore[misc]
    with pytest.raises(ValueError, match=r"etype: 'exact' is not one of 'exec', 'match', 'all'"):
        sqlwitness.spider_eval(gold=gold, pred=gold, db=EXAMPLE / "database", etype="exact")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"jobs=0"):
        sqlwitness.spider_eval(gold=gold, pred=gold, db=EXAMPLE / "database", jobs=0)
    # The command's own refusal names the Python argument.
    pred = spider_files_for(gold, tmp_path, [])
    with pytest.raises(sqlwitness.BadInputError, match=r"\bdb .*nowhere: not a folder") as refused:
        sqlwitness.spider_eval(gold=gold, pred=pred, db=tmp_path / "nowhere")
    assert "--db" not in str(refused.value)


def test_bird_eval_numbers_are_the_reports(spider_files, tmp_path: Path) -> None:
    gold, kept = spider_files
    questions = example_questions()
    first = kept[:40]
    gt = tmp_path / "gold.sql"
    gt.write_text("".join(gold.read_text().splitlines(keepends=True)[:40]))
    preds = {str(n): f"{questions[i]['query']}\t----- bird -----\t{questions[i]['db_id']}" for n, i in enumerate(first)}
    preds["0"] = f"SELECT 'wrong'\t----- bird -----\t{questions[first[0]]['db_id']}"
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps(preds))
    levels = ["simple", "moderate", "challenging"]
    diff = tmp_path / "diff.jsonl"
    diff.write_text("".join(json.dumps({"difficulty": levels[n % 3]}) + "\n" for n in range(40)))
    result = sqlwitness.bird_eval(
        predicted_sql_path=pred,
        ground_truth_path=gt,
        db_root_path=f"{EXAMPLE / 'database'}/",
        diff_json_path=diff,
        sql_dialect="SQLite",
    )
    assert result.table.splitlines()[0] == "start calculate EX"
    assert result.levels == levels + ["total"]
    rows = {r["name"]: r for r in result.rows()}
    assert rows["count"] == {"engine": "sqlite", "section": None, "name": "count", "simple": 14, "moderate": 13, "challenging": 13, "total": 40}
    assert rows["EX"]["section"] == "EX"
    assert result.value("EX", "simple") == round(100 * 13 / 14, 2)
    assert result.value("EX", "total") == 97.5
    assert result.report is not None
    by_difficulty = result.report.summary["engines"]["sqlite"]["by_difficulty"]
    for level in levels:
        s = by_difficulty[level]
        assert rows["EX"][level] == round(100 * s["match"] / s["questions"], 2), level
    # f1=True: mini-dev's evaluation_f1.py table, the report's Soft F1 (question 0
    # returns a row of its own: nothing in common with the gold's).
    f1 = sqlwitness.bird_eval(
        predicted_sql_path=pred, ground_truth_path=gt, db_root_path=f"{EXAMPLE / 'database'}/",
        diff_json_path=diff, f1=True,
    )
    assert f1.table.splitlines()[0] == "start calculate Soft F1"
    assert f1.report is not None
    summary = f1.report.summary["engines"]["sqlite"]
    assert f1.value("Soft-F1", "total") == round(100 * summary["soft_f1"], 2)
    for level in levels:
        assert f1.value("Soft-F1", level) == round(100 * summary["by_difficulty"][level]["soft_f1"], 2), level
    assert f1.value("Soft-F1", "moderate") == 100.0
    with pytest.raises(ValueError, match="sql_dialect: 'sqlite' is not one of"):
        sqlwitness.bird_eval(
            predicted_sql_path=pred, ground_truth_path=gt, db_root_path="x/", diff_json_path=diff,
            sql_dialect="sqlite",  # type: ignore[arg-type]
        )
    with pytest.raises(ValueError, match=r"num_cpus=0: expected worker threads"):
        sqlwitness.bird_eval(
            predicted_sql_path=pred, ground_truth_path=gt, db_root_path="x/", diff_json_path=diff, num_cpus=0
        )


# --- progress ---------------------------------------------------------------


def test_progress_callback_counts_up_to_the_total(example: Path) -> None:
    seen: List[Tuple[int, int]] = []
    started = time.monotonic()
    report = sqlwitness.evaluate(example, "dev", limit=60, jobs=2, progress=lambda done, total: seen.append((done, total)))
    elapsed = time.monotonic() - started
    assert report.ok
    assert seen, "the callable was called"
    assert seen[-1] == (60, 60)
    assert all(total == 60 for _, total in seen)
    dones = [done for done, _ in seen]
    assert dones == sorted(dones)
    # At most five calls a second, and the last one.
    assert len(seen) <= elapsed * 5 + 2, (len(seen), elapsed)


def test_progress_callback_of_an_audit(example: Path) -> None:
    seen: List[Tuple[int, int]] = []
    sqlwitness.audit(example, "dev", limit=10, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (10, 10)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


# Runs until its time limit: the count of an endless sequence.
ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"


class Enough(Exception):
    pass


def test_a_raising_callback_stops_the_run_as_ctrl_c_does(example: Path, tmp_path: Path) -> None:
    n, limit_s = 40, 10.0
    preds = golds(n)
    preds[10] = preds[30] = ENDLESS
    out = tmp_path / "run"

    def stop_once_questions_are_done(done: int, total: int) -> None:
        if done > 0:
            raise Enough(f"{done} of {total}")

    started = time.monotonic()
    with pytest.raises(Enough):
        sqlwitness.evaluate(
            example, "dev", preds, limit=n, timeout=limit_s, jobs=2, out=out, progress=stop_once_questions_are_done
        )
    # The endless predictions would hold the run until their limit.
    assert time.monotonic() - started < limit_s / 2
    lines = (out / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    assert 0 < len(lines) - 1 < n, "the questions that finished are kept, not the others"
    assert not (out / "report.json").exists()
    # The run goes on from there, the callable told of the questions left.
    seen: List[Tuple[int, int]] = []
    report = sqlwitness.evaluate(
        example, "dev", preds, limit=n, timeout=limit_s, jobs=2, out=out, resume=True,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert len(report.outcomes()) == n
    left = n - (len(lines) - 1)
    assert seen[-1] == (left, left)


class FakeBar:
    """tqdm's interface as _progress uses it: total, n, update, refresh, close."""

    made: List["FakeBar"] = []

    def __init__(self, total: int, desc: str, unit: str) -> None:
        self.total, self.desc, self.unit, self.n, self.closed = total, desc, unit, 0, False
        self.updates: List[int] = []
        FakeBar.made.append(self)

    def update(self, n: int) -> None:
        self.n += n
        self.updates.append(n)

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def test_progress_true_draws_a_tqdm_bar(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tqdm = types.ModuleType("tqdm")
    auto = types.ModuleType("tqdm.auto")
    auto.tqdm = FakeBar  # type: ignore[attr-defined]
    tqdm.auto = auto  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tqdm", tqdm)
    monkeypatch.setitem(sys.modules, "tqdm.auto", auto)
    FakeBar.made.clear()
    sqlwitness.evaluate(example, "dev", limit=30, progress=True)
    [bar] = FakeBar.made
    assert (bar.total, bar.n, bar.desc, bar.closed) == (30, 30, "eval", True)
    assert all(step >= 0 for step in bar.updates)


def test_progress_true_with_tqdm_installed(example: Path) -> None:
    pytest.importorskip("tqdm")
    report = sqlwitness.evaluate(example, "dev", limit=10, progress=True)
    assert report.ok


def test_progress_true_without_tqdm_says_what_to_install(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules: `import tqdm` fails as when it is not installed.
    monkeypatch.setitem(sys.modules, "tqdm", None)
    for call in (
        lambda: sqlwitness.evaluate(example, "dev", limit=5, progress=True),
        lambda: sqlwitness.audit(example, "dev", limit=5, progress=True),
    ):
        with pytest.raises(ModuleNotFoundError, match=r"progress=True\) needs tqdm: pip install tqdm"):
            call()


def test_progress_must_be_true_or_a_callable(example: Path) -> None:
    with pytest.raises(TypeError, match=r"progress: True \(a tqdm bar\) or a callable"):
        sqlwitness.evaluate(example, "dev", limit=5, progress="yes")  # type: ignore[arg-type]
    # False and None draw nothing.
    assert sqlwitness.evaluate(example, "dev", limit=5, progress=False).ok
