"""Fixtures of the Python tests: they run against the installed wheel (`.ci/run`
builds it and installs it into a fresh virtual environment)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import List, Tuple

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "spider-dev"


def shared_data(rel: str) -> Path:
    """`rel` in the shared data beside the repository (`../shared/data` or
    `SQLWITNESS_DATA`): skipped loudly when missing, a failure under
    SQLWITNESS_REQUIRE_ENGINES=1 (as CI sets)."""
    base = Path(os.environ.get("SQLWITNESS_DATA", REPO.parent / "shared" / "data"))
    path = base / rel
    if not path.exists():
        message = f"SKIPPED: {path} is missing (the test uses the shared data)"
        if os.environ.get("SQLWITNESS_REQUIRE_ENGINES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


def example_questions() -> List[dict]:
    with open(EXAMPLE / "dev.json", encoding="utf-8") as f:
        questions: List[dict] = json.load(f)
    return questions


@pytest.fixture
def example() -> Path:
    return EXAMPLE


@pytest.fixture
def spider_files(tmp_path: Path) -> Tuple[Path, List[int]]:
    """The shipped example as the official evaluator reads it: `dev_gold.sql`
    (`SQL<TAB>db_id`) without the questions of the database that is not shipped
    (`wta_1`: the official script stops on a missing database). Returns the file and
    the kept question positions."""
    kept = [i for i, q in enumerate(example_questions()) if q["db_id"] != "wta_1"]
    questions = example_questions()
    gold = tmp_path / "dev_gold.sql"
    gold.write_text(
        "".join(f"{questions[i]['query'].strip()}\t{questions[i]['db_id']}\n" for i in kept),
        encoding="utf-8",
    )
    return gold, kept
