"""docs/python.md as written: every ``pycon`` and ``python`` block of the tour runs,
in order and in one namespace, from the repository's root, and each ``pycon`` block
prints what the page shows (doctest; ``...`` stands for what differs between runs,
such as folder names). The module scripts/python-typecheck.sh type-checks is made
of the same blocks."""

from __future__ import annotations

import doctest
import importlib.util
from pathlib import Path
from typing import List

import pytest

from conftest import REPO
from doc_examples import blocks, extract, tour

DOC = REPO / "docs" / "python.md"


def test_the_python_tour_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    found = blocks(DOC.read_text(encoding="utf-8"), "pycon", "python")
    assert len([b for b in found if b.language == "pycon"]) >= 5, (
        "docs/python.md: the tour's pycon blocks were not found"
    )
    # A block calling to_pandas runs where pandas is installed (no later block
    # uses what it makes).
    pandas = importlib.util.find_spec("pandas") is not None
    left_out = [b.line for b in found if "to_pandas" in b.text and not pandas]
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: List[str] = []
    globs: dict = {"__name__": "docs_python_md"}
    for block in found:
        name = f"docs/python.md:{block.line}"
        if block.line in left_out:
            continue
        if block.language == "python":
            exec(compile(block.text, name, "exec"), globs)
            continue
        test = parser.get_doctest(block.text, globs, name, str(DOC), block.line - 1)
        runner.run(test, out=report.append, clear_globs=False)
        globs = test.globs  # the next block goes on from here (DocTest copies them)
    assert runner.failures == 0, "".join(report)
    if left_out:
        pytest.skip(
            f"SKIPPED: pandas is not installed: the blocks of docs/python.md at lines {left_out} "
            f"(to_pandas) did not run; the other {len(found) - len(left_out)} ran as written"
        )


def test_the_type_checked_module_is_the_tour_in_page_order(tmp_path: Path) -> None:
    page = (
        "Text.\n\n```pycon\n>>> import sqlwitness\n>>> x = 1\n>>> if x:\n...     y = 2\n```\n\n"
        "```python\ndef f() -> int:\n    return 3\n```\n\n```sh\nnot python\n```\n\n"
        "```pycon\n>>> sqlwitness.evaluate('b', timeot=5)\nTraceback (most recent call last):\n"
        "  ...\nTypeError: evaluate() got an unexpected keyword argument 'timeot'\n"
        ">>> sqlwitness.evaluate('b', timeout=-1)\nTraceback (most recent call last):\n  ...\n"
        "sqlwitness.errors.BadInputError: timeout=-1: expected seconds\n>>> f()\n3\n```\n"
    )
    assert tour(page, "page.md").split("\n") == [
        "# The pycon and python blocks of page.md, in order.",
        "",
        "# page.md:4",
        "import sqlwitness",
        "# page.md:5",
        "x = 1",
        "# page.md:6",
        "if x:",
        "    y = 2",
        "# page.md:11",
        "def f() -> int:",
        "    return 3",
        # A TypeError shown is one the type checker must report too.
        "# page.md:20",
        "sqlwitness.evaluate('b', timeot=5)  # type: ignore",
        # A ValueError is not a type error: checked as it stands.
        "# page.md:24",
        "sqlwitness.evaluate('b', timeout=-1)",
        "# page.md:28",
        "f()",
        "",
    ]
    # The page itself: every block, and its statements, in the module.
    module = extract(DOC, tmp_path, "docs/python.md").read_text(encoding="utf-8")
    found = blocks(DOC.read_text(encoding="utf-8"), "pycon", "python")
    assert {b.language for b in found} == {"pycon", "python"}
    marks = [int(line.rsplit(":", 1)[1]) for line in module.split("\n") if line.startswith("# docs/python.md:")]
    assert marks == sorted(marks) and len(marks) > len(found)
    assert {b.line for b in found if b.language == "python"} <= set(marks)
    assert "timeot=5)  # type: ignore" in module
    assert "timeout=-1)\n" in module
