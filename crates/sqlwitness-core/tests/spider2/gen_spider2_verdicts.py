"""Writes spider2_verdicts.jsonl: generated result pairs with the verdict of
Spider 2.0's official comparison.

Usage: python gen_spider2_verdicts.py <Spider2 checkout>/spider2-lite/evaluation_suite/evaluate.py OUT.jsonl

Each result is stored in a fresh SQLite file (a table whose columns have no
declared type, so every value keeps its type), fetched and written to CSV by
the evaluator's own `get_sqlite_result`, read back with `pd.read_csv` as the
evaluator reads results and gold files, and judged by its
`compare_pandas_table` (one gold) or `compare_multi_pandas_table` (several).
The official module is imported at run time; nothing of it is copied here.
"""

import importlib.util
import json
import os
import random
import sqlite3
import sys
import tempfile
import types

import pandas as pd


def load_official(path):
    google = types.ModuleType("google")
    cloud = types.ModuleType("google.cloud")
    cloud.bigquery = types.ModuleType("google.cloud.bigquery")  # unused here
    google.cloud = cloud
    sys.modules.update({"google": google, "google.cloud": cloud, "google.cloud.bigquery": cloud.bigquery})
    stdout, stderr, cwd = sys.stdout, sys.stderr, os.getcwd()
    os.chdir(tempfile.mkdtemp())  # the module opens log.txt in the working directory
    spec = importlib.util.spec_from_file_location("spider2_evaluate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.stdout, sys.stderr = stdout, stderr
    os.chdir(cwd)
    return module


def py(tagged):
    kind, v = tagged
    return {"i": lambda: v, "f": lambda: float(v), "s": lambda: v, "n": lambda: None}[kind]()


def as_frame(official, work, result):
    db = os.path.join(work, "r.sqlite")
    if os.path.exists(db):
        os.remove(db)
    con = sqlite3.connect(db)
    cols = ", ".join(f'"c{i}"' for i in range(result["width"]))
    con.execute(f"CREATE TABLE t ({cols})")
    marks = ", ".join("?" for _ in range(result["width"]))
    con.executemany(f"INSERT INTO t VALUES ({marks})", [[py(c) for c in r] for r in result["rows"]])
    con.commit()
    con.close()
    ok, err = official.get_sqlite_result(db, "SELECT * FROM t ORDER BY rowid", save_dir=work, file_name="r.csv")
    assert ok, err
    return pd.read_csv(os.path.join(work, "r.csv"))


INTS = [0, 1, 2, 7, 10, -3, 100]
FLOATS = [0.0, 0.004, 0.005, 0.0099, 0.01, 0.011, 1.0, 1.005, 1.02, 2.5, 7.0, 9.999, 10.001, 10.5,
          1e16, 1.5e-7, 0.1 + 0.2, 100.00999, 1e9 + 0.5]
TEXTS = ["", "a", "b", "7", "7.0", "007", "NULL", "None", "nan", "True", "false", " 3", "b,c",
         'q"z', "x y", "1e5", "inf", "10", "9.999"]


def tag(v):
    if v is None:
        return ["n", None]
    if isinstance(v, bool):
        raise TypeError(v)
    if isinstance(v, int):
        return ["i", v]
    if isinstance(v, float):
        return ["f", repr(v)]
    return ["s", v]


def result(rows, width=None):
    width = width if width is not None else (len(rows[0]) if rows else 1)
    return {"width": width, "rows": [[tag(v) for v in r] for r in rows]}


def cols(rows):
    return [list(c) for c in zip(*rows)] if rows else []


def permute_cols(rows, perm):
    return [[r[j] for j in perm] for r in rows]


def hand_cases(rng):
    c = []
    add = lambda kind, golds, pred, cond=None, io=True: c.append((kind, golds, pred, cond or [], io))
    base = [[1, "a", 2.5], [2, "b", 7.0], [3, None, 10.5]]
    for io in (True, False):
        add("same", [result(base)], result(base), io=io)
        add("row_permutation", [result(base)], result(base[::-1]), io=io)
        add("column_permutation", [result(base)], result(permute_cols(base, [2, 0, 1])), io=io)
        add("extra_predicted_column", [result(base)], result([r + ["x"] for r in base]), io=io)
        add("missing_column", [result(base)], result([r[:2] for r in base]), io=io)
        add("duplicates", [result([[1], [1], [2]])], result([[1], [2], [2]]), io=io)
        add("duplicates_same_multiset", [result([[1], [1], [2]])], result([[2], [1], [1]]), io=io)
        add("extra_row", [result([[1], [2]])], result([[1], [2], [2]]), io=io)
        add("null_vs_zero", [result([[None], [1]])], result([[0], [1]]), io=io)
        add("null_vs_zero_float", [result([[None], [1.5]])], result([[0.004], [1.5]]), io=io)
        add("null_vs_empty_text", [result([[None], ["a"]])], result([[""], ["a"]]), io=io)
        add("null_vs_NULL_text", [result([[None], ["a"]])], result([["NULL"], ["a"]]), io=io)
        add("null_vs_text_zero", [result([[None], ["a"]])], result([["0"], ["a"]]), io=io)
        add("text_vs_number", [result([[7], [8]])], result([["7"], ["8"]]), io=io)
        add("text_vs_number_mixed", [result([[7], [8]])], result([["7"], ["x"]]), io=io)
        add("leading_zeros", [result([["007"]])], result([[7]]), io=io)
        add("text_true_vs_one", [result([["True"]])], result([[1]]), io=io)
        add("sorted_by_text", [result([[9.999], [10.5]])], result([[10.001], [10.5]]), io=io)
        add("int_null_column", [result([[10], [9], [None]])], result([[9], [10], [0]]), io=io)
        add("empty_both", [result([], 2)], result([], 2), io=io)
        add("empty_gold", [result([], 1)], result([[1]]), io=io)
        add("empty_pred", [result([[1]])], result([], 1), io=io)
        add("empty_wider_pred", [result([], 1)], result([], 3), io=io)
        add("several_golds_second", [result([[1], [2]]), result([[1], [3]])], result([[3], [1]]), io=io)
        add("several_golds_none", [result([[1], [2]]), result([[1], [3]])], result([[4], [1]]), io=io)
        add("condition_cols", [result(base)], result([[r[0]] for r in base]), cond=[0], io=io)
        add("condition_cols_missing", [result(base)], result([[r[1]] for r in base]), cond=[0], io=io)
        add("condition_cols_two", [result(base)], result(permute_cols(base, [2, 0])), cond=[0, 2], io=io)
        add("several_golds_condition_cols", [result(base), result([[9, "z", 1.0]])],
            result([[r[0]] for r in base]), cond=[0], io=io)
        add("one_pred_column_for_two_gold", [result([[1, 1], [2, 2]])], result([[1], [2]]), io=io)
        for d in (0.009, 0.0099, 0.01, 0.0101, 0.011, 0.02):
            add(f"abs_tol_{d}", [result([[1.0], [2.0]])], result([[1.0 + d], [2.0]]), io=io)
            add(f"abs_tol_int_{d}", [result([[1], [2]])], result([[1 + d], [2]]), io=io)
        for big in (1e9, 1e12, 1e16):
            add(f"rel_tol_{big}", [result([[big]])], result([[big * (1 + 5e-10)]]), io=io)
            add(f"rel_tol_far_{big}", [result([[big]])], result([[big * (1 + 5e-9)]]), io=io)
        add("float_vs_int_repr", [result([[1.0], [10.0], [2.0]])], result([[1], [10], [2]]), io=io)
        add("mixed_frame_ints_become_floats", [result([[10, 9.5], [9, 1.5]])],
            result([[9, "x"], [10, "y"]]), io=io)
        add("bool_text_column", [result([["true"], ["False"]])], result([[1], [0]]), io=io)
        add("inf_text", [result([["inf"]])], result([["Infinity"]]), io=io)
        add("quoted_text", [result([["b,c"], ['q"z']])], result([['q"z'], ["b,c"]]), io=io)
    return c


def value(rng):
    r = rng.random()
    if r < 0.12:
        return None
    if r < 0.45:
        return rng.choice(INTS)
    if r < 0.75:
        return rng.choice(FLOATS)
    return rng.choice(TEXTS)


def column_value(rng, kind):
    if rng.random() < 0.1:
        return None
    return {"i": lambda: rng.choice(INTS), "f": lambda: rng.choice(FLOATS), "s": lambda: rng.choice(TEXTS),
            "x": lambda: value(rng)}[kind]()


def near(rng, v):
    if isinstance(v, (int, float)) and not isinstance(v, bool) and rng.random() < 0.5:
        return v + rng.choice([0.001, 0.005, 0.0099, 0.01, 0.012, -0.004, -0.011])
    return v


def random_case(rng):
    w = rng.randint(1, 3)
    n = rng.randint(0, 5)
    kinds = [rng.choice("iifsx") for _ in range(w)]
    gold = [[column_value(rng, k) for k in kinds] for _ in range(n)]
    how = rng.randint(0, 5)
    pred = [list(r) for r in gold]
    rng.shuffle(pred)
    if how == 0:
        pred = [[column_value(rng, k) for k in kinds] for _ in range(n)]
    if how in (1, 4) and pred:
        i = rng.randrange(len(pred))
        j = rng.randrange(w)
        pred[i][j] = near(rng, pred[i][j]) if how == 1 else value(rng)
    if how == 2:
        perm = list(range(w))
        rng.shuffle(perm)
        pred = permute_cols(pred, perm) if pred else pred
    if how == 3 and pred:
        pred = [r + [value(rng)] for r in pred]
        return result(gold, w), result(pred, w + 1)
    if how == 5 and pred:
        pred.append(list(rng.choice(pred)))
    return result(gold, w), result(pred, w)


def main():
    official = load_official(sys.argv[1])
    out = sys.argv[2]
    rng = random.Random(20250101)
    cases = hand_cases(rng)
    for k in range(220):
        g, p = random_case(rng)
        io = rng.random() < 0.7
        cond = []
        if g["width"] > 1 and rng.random() < 0.15:
            cond = [rng.randrange(g["width"])]
        golds = [g]
        if rng.random() < 0.1:
            golds.append(random_case(rng)[0])
        cases.append((f"random_{k}", golds, p, cond, io))
    work = tempfile.mkdtemp()
    equal = 0
    with open(out, "w") as f:
        for i, (kind, golds, pred, cond, io) in enumerate(cases):
            pred_df = as_frame(official, work, pred)
            gold_dfs = [as_frame(official, work, g) for g in golds]
            try:
                if len(gold_dfs) == 1:
                    verdict = official.compare_pandas_table(pred_df, gold_dfs[0], cond or None, io)
                else:
                    verdict = official.compare_multi_pandas_table(pred_df, gold_dfs, cond or None, io)
            except Exception:  # the evaluator scores a failing comparison 0
                verdict = 0
            equal += int(verdict)
            f.write(json.dumps({"id": i, "kind": kind, "golds": golds, "pred": pred, "condition_cols": cond,
                                "ignore_order": io, "official": int(verdict)}) + "\n")
    print(f"{len(cases)} pairs, {equal} equal", file=sys.stderr)


if __name__ == "__main__":
    main()
