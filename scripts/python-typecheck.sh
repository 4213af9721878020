#!/usr/bin/env bash
# Type-checks the Python package and what is written with it, `mypy --strict`
# against the sources in python/ (the extension module by its stub,
# python/sqlwitness/_native.pyi: nothing is built):
# - the package, python/sqlwitness;
# - the Python of docs/python.md (python/tests/doc_examples.py extracts it:
#   the tour's pycon blocks in page order as one module, as
#   python/tests/test_docs.py runs them, its python blocks among them);
# - python/tests/typing_cases.py: calls that must type-check, and mistakes
#   that must not (their `# type: ignore[...]` is reported when unused).
# mypy is installed once from PyPI into a virtual environment under
# ${TMPDIR:-/tmp}; it checks for Python 3.9, the package's least Python (the
# last mypy line to check for 3.9 is 1.19).
set -euo pipefail
cd "$(dirname "$0")/.."
mypy_version=1.19.1
tools="${TMPDIR:-/tmp}/sqlwitness-mypy"
if [[ "$("$tools/bin/mypy" --version 2>/dev/null)" != "mypy $mypy_version "* ]]; then
    python3 -m venv --clear "$tools"
    "$tools/bin/pip" install -q "mypy==$mypy_version"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 python/tests/doc_examples.py docs/python.md "$work/docs" >/dev/null
export MYPYPATH="$PWD/python"
mypy=("$tools/bin/mypy" --strict --python-version 3.9 --cache-dir "$tools/cache")
"${mypy[@]}" -p sqlwitness
"${mypy[@]}" "$work"/docs/*.py python/tests/doc_examples.py python/tests/typing_cases.py
