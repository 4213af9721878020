"""The Python of docs/python.md as a module a type checker reads
(scripts/python-typecheck.sh).

The tour's ``pycon`` and ``python`` blocks run in page order in one namespace
(python/tests/test_docs.py runs them so), so they become one module, ``tour.py``:
each statement of a ``pycon`` block and each ``python`` block after a comment naming
its line of the page. A statement shown raising ``TypeError`` is one a type checker
must refuse too: it carries ``# type: ignore``, which ``mypy --strict`` reports as
unused if the statement type-checks.

Run as ``python doc_examples.py PAGE FOLDER``: writes the module into FOLDER and
prints its name."""

from __future__ import annotations

import doctest
import re
import sys
from pathlib import Path
from typing import List, NamedTuple


class Block(NamedTuple):
    """A fenced block of a page: its language, the page's line of its first line
    of code (1-based) and its text."""

    language: str
    line: int
    text: str


def blocks(page: str, *languages: str) -> List[Block]:
    """The blocks of ``page`` (a Markdown text) in one of ``languages``, in order."""
    pattern = rf"^```({'|'.join(map(re.escape, languages))})\n(.*?)^```$"
    return [
        Block(m.group(1), page.count("\n", 0, m.start(2)) + 1, m.group(2))
        for m in re.finditer(pattern, page, re.S | re.M)
    ]


def _raises(example: doctest.Example) -> str:
    """The exception an example is shown raising (``""``: none)."""
    if example.exc_msg is None:
        return ""
    last = example.want.rstrip("\n").rsplit("\n", 1)[-1]
    return last.split(":", 1)[0].rsplit(".", 1)[-1]


def tour(page: str, name: str) -> str:
    """The ``pycon`` and ``python`` blocks of ``page``, in order, as one module."""
    parser = doctest.DocTestParser()
    lines = [f"# The pycon and python blocks of {name}, in order.", ""]
    for block in blocks(page, "pycon", "python"):
        if block.language == "python":
            lines.append(f"# {name}:{block.line}")
            lines += block.text.rstrip("\n").split("\n")
            continue
        for example in parser.get_examples(block.text):
            source = example.source.rstrip("\n").split("\n")
            if _raises(example) == "TypeError":
                source[0] += "  # type: ignore"
            lines.append(f"# {name}:{block.line + example.lineno}")
            lines += source
    return "\n".join(lines) + "\n"


def extract(page_path: Path, folder: Path, name: str = "") -> Path:
    """The Python of the page at ``page_path`` written into ``folder`` as
    ``tour.py`` (see the module's text); ``name``: the page as the comments name
    it (default: its file name)."""
    page = page_path.read_text(encoding="utf-8")
    if not blocks(page, "pycon", "python"):
        raise ValueError(f"{page_path}: no pycon or python block")
    folder.mkdir(parents=True, exist_ok=True)
    module = folder / "tour.py"
    module.write_text(tour(page, name or page_path.name), encoding="utf-8")
    return module


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: doc_examples.py PAGE FOLDER")
    page_path = Path(sys.argv[1])
    print(extract(page_path, Path(sys.argv[2]), page_path.as_posix()))
