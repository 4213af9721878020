"""Ctrl-C during a run on SQLite: the statements in flight are interrupted, the
run stops within seconds (not when its slowest query would end), the journal keeps
every question that finished, and `resume=True` finishes the run."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

import sqlwitness
from conftest import example_questions

# Runs until its time limit: the count of an endless sequence.
ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
LIMIT_S = 20.0


@pytest.fixture(autouse=True)
def ctrl_c_raises() -> Iterator[None]:
    """Python's own SIGINT handler, as a script or a notebook has it: a
    process started in the background by a shell inherits SIGINT ignored,
    and then Python installs none."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def test_ctrl_c_stops_an_sqlite_run_and_resume_continues(example: Path, tmp_path: Path) -> None:
    n = 40
    golds = [q["query"] for q in example_questions()[:n]]
    preds = list(golds)
    # One endless prediction where each of the two workers starts.
    preds[10] = ENDLESS
    preds[30] = ENDLESS
    out = tmp_path / "run"
    timer = threading.Timer(2.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sqlwitness.evaluate(example, "dev", preds, limit=n, timeout=LIMIT_S, jobs=2, out=out)
    finally:
        timer.cancel()
    stopped = time.monotonic() - started
    # The endless predictions would hold the run until their limit.
    assert stopped < LIMIT_S / 2, stopped
    lines = (out / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    finished = [json.loads(line)["record"] for line in lines[1:]]
    assert finished, "the questions that finished before the interrupt are kept"
    assert all(q["engines"]["sqlite"]["verdict"] != "engine_error" for q in finished)
    # The run goes on from there.
    report = sqlwitness.evaluate(
        example, "dev", preds, limit=n, timeout=LIMIT_S, jobs=2, out=out, resume=True
    )
    verdicts = {r["id"]: r["verdict"] for r in report.outcomes()}
    assert len(verdicts) == n
    assert verdicts[10] == verdicts[30] == "timeout"
