"""The official evaluators' command lines in the wheel: `spider-eval` against the
numbers the Spider test-suite evaluator printed (python/tests/data/official-spider-eval.json), and
`bird-eval`'s layout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

from conftest import EXAMPLE, example_questions, shared_data

DATA = Path(__file__).parent / "data"
LEVELS = ["easy", "medium", "hard", "extra", "all"]


def command() -> str:
    script = Path(sys.executable).parent / "sqlwitness"
    assert script.is_file(), f"{script}: the wheel's command is not installed"
    return str(script)


def official_table(levels: Dict[str, Dict[str, int]]) -> str:
    """The table evaluation.py prints for --etype exec (print_scores)."""

    def row(name: str, cells: List[str]) -> str:
        return " ".join([f"{name:20}"] + [f"{c:<20}" for c in cells]) + "\n"

    return (
        row("", LEVELS)
        + row("count", [str(levels[lv]["count"]) for lv in LEVELS])
        + "=====================   EXECUTION ACCURACY     =====================\n"
        + row("execution", [f"{levels[lv]['exec'] / levels[lv]['count']:.3f}" for lv in LEVELS])
    )


def spider_eval(gold: Path, pred: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [command(), "spider-eval", "--gold", str(gold), "--pred", str(pred),
         "--db", str(EXAMPLE / "database"), "--table", str(EXAMPLE / "tables.json"),
         "--etype", "exec", "-q", *extra],
        capture_output=True, text=True,
    )


OFFICIAL = json.loads((DATA / "official-spider-eval.json").read_text())["runs"]


@pytest.mark.parametrize("run", sorted(OFFICIAL))
def test_spider_eval_prints_the_official_numbers(run: str, spider_files, tmp_path: Path) -> None:
    gold, kept = spider_files
    model, _, keep = run.partition(" ")
    lines = shared_data(f"spider/predictions/{model}.sql").read_text(encoding="utf-8").split("\n")
    pred = tmp_path / "pred.sql"
    pred.write_text("".join(lines[i] + "\n" for i in kept), encoding="utf-8")
    extra = ["--keep_distinct"] if keep else []
    out = spider_eval(gold, pred, *extra, "--out", str(tmp_path / "report"))
    assert out.returncode == 0, out.stderr
    assert out.stdout == official_table(OFFICIAL[run])
    # The report behind the table holds the same counts.
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    by_hardness = report["summary"]["engines"]["sqlite"]["by_hardness"]
    for level in LEVELS:
        assert by_hardness[level]["match"] == OFFICIAL[run][level]["exec"], level


def test_spider_eval_gold_self_check(spider_files, tmp_path: Path) -> None:
    gold, kept = spider_files
    pred = tmp_path / "pred.sql"
    pred.write_text("".join(line.split("\t")[0] + "\n" for line in gold.read_text().splitlines()))
    out = spider_eval(gold, pred)
    assert out.returncode == 0, out.stderr
    counts = OFFICIAL["resdsql_natsql_3b"]
    perfect = {lv: {"count": counts[lv]["count"], "exec": counts[lv]["count"]} for lv in LEVELS}
    assert out.stdout == official_table(perfect)


def test_spider_eval_refuses_exact_match_without_table(spider_files, tmp_path: Path) -> None:
    gold, _ = spider_files
    # Exact set match needs tables.json (its foreign keys), as the official script does.
    for flag in (["--etype", "match"], ["--etype", "all"]):
        out = subprocess.run(
            [command(), "spider-eval", "--gold", str(gold), "--pred", str(gold),
             "--db", str(EXAMPLE / "database"), *flag],
            capture_output=True, text=True,
        )
        assert out.returncode == 2, (flag, out.stderr)


def test_bird_eval_layout(spider_files, tmp_path: Path) -> None:
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
    out = subprocess.run(
        [command(), "bird-eval", "--predicted_sql_path", str(pred), "--ground_truth_path", str(gt),
         "--db_root_path", str(EXAMPLE / "database") + "/", "--diff_json_path", str(diff),
         "--sql_dialect", "SQLite", "-q"],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    row = lambda name, cells: " ".join([f"{name:20}"] + [f"{c:<20}" for c in cells])  # noqa: E731
    lines = out.stdout.splitlines()
    assert lines[0] == "start calculate EX"
    assert lines[1] == row("", levels + ["total"])
    assert lines[2] == row("count", ["14", "13", "13", "40"])
    assert lines[3] == "======================================    EX    ====================================="
    # Question 0 (simple) is wrong: 13/14 simple, 39/40 in total.
    assert lines[4] == row("EX", [f"{100 * 13 / 14:.2f}", "100.00", "100.00", f"{100 * 39 / 40:.2f}"])
    assert lines[6] == "Finished EX evaluation for SQLite on Mini Dev set"
