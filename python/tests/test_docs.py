"""docs/python.md as written: every ``pycon`` block of the tour runs, in order and
in one namespace, from the repository's root, and prints what the page shows
(doctest; ``...`` stands for what differs between runs, such as folder names)."""

from __future__ import annotations

import doctest
import importlib.util
import re
from typing import List

import pytest

from conftest import REPO

DOC = REPO / "docs" / "python.md"


def test_the_python_tour_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    text = DOC.read_text(encoding="utf-8")
    blocks = [
        (text.count("\n", 0, m.start(1)), m.group(1))
        for m in re.finditer(r"^```pycon\n(.*?)^```$", text, re.S | re.M)
    ]
    assert len(blocks) >= 5, "docs/python.md: the tour's pycon blocks were not found"
    # A block calling to_pandas runs where pandas is installed (no later block
    # uses what it makes).
    pandas = importlib.util.find_spec("pandas") is not None
    left_out = [line + 1 for line, block in blocks if "to_pandas" in block and not pandas]
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: List[str] = []
    globs: dict = {"__name__": "docs_python_md"}
    for line, block in blocks:
        if line + 1 in left_out:
            continue
        test = parser.get_doctest(block, globs, f"docs/python.md:{line + 1}", str(DOC), line)
        runner.run(test, out=report.append, clear_globs=False)
        globs = test.globs  # the next block goes on from here (DocTest copies them)
    assert runner.failures == 0, "".join(report)
    if left_out:
        pytest.skip(
            f"SKIPPED: pandas is not installed: the blocks of docs/python.md at lines {left_out} "
            f"(to_pandas) did not run; the other {len(blocks) - len(left_out)} ran as written"
        )
