"""The Spider test-suite evaluator's result comparison, as its documented
rules read (see crates/sqlwitness-core/src/compare/spider.rs), run on
Python's own value model: the oracle the Rust emulation is tested against.

Reads one JSON case a line on stdin: {"gold": rows, "pred": rows,
"ordered": bool}, each value ["i", 1] / ["f", 1.0] / ["s", "x"] /
["b", true] / ["n", null]; writes one line, "1" (equal) or "0", per case.
"""
import json
import sys
from collections import defaultdict
from itertools import product


def value(tagged):
    kind, x = tagged
    if kind == "i":
        return int(x)
    if kind == "f":
        return float(x)
    if kind == "s":
        return str(x)
    if kind == "b":
        # sqlite3 has no boolean: a boolean cell reaches Python as 0 or 1
        # (the mapping compare/pyvalue.rs documents).
        return int(bool(x))
    return None


def sorted_row(row):
    # Each row's values ordered by their text and their type's text.
    return tuple(sorted(row, key=lambda v: str(v) + str(type(v))))


def rows_pass_quick_check(gold, pred, ordered):
    a = [sorted_row(r) for r in gold]
    b = [sorted_row(r) for r in pred]
    return a == b if ordered else set(a) == set(b)


def same_multiset(a, b):
    if len(a) != len(b):
        return False
    counts = defaultdict(int)
    for row in a:
        counts[row] += 1
    for row in b:
        counts[row] -= 1
        if counts[row] < 0:
            return False
    return True


def equal(gold, pred, ordered):
    if not gold and not pred:
        return True
    if len(gold) != len(pred):
        return False
    width = len(gold[0])
    if len(pred[0]) != width:
        return False
    if not rows_pass_quick_check(gold, pred, ordered):
        return False
    # Every assignment of predicted columns to gold columns (small widths).
    for perm in product(range(width), repeat=width):
        if len(set(perm)) != width:
            continue
        moved = [tuple(row[perm[i]] for i in range(width)) for row in pred]
        if ordered:
            if gold == moved:
                return True
        elif set(gold) == set(moved) and same_multiset(gold, moved):
            return True
    return False


for line in sys.stdin:
    case = json.loads(line)
    gold = [tuple(value(v) for v in row) for row in case["gold"]]
    pred = [tuple(value(v) for v in row) for row in case["pred"]]
    print("1" if equal(gold, pred, case["ordered"]) else "0")
