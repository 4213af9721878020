"""Writes livesqlbench_verdicts.jsonl: generated result pairs with the verdict
of LiveSQLBench's official result comparison.

Usage: python gen_livesqlbench_verdicts.py <LiveSQLBench checkout>/evaluation/src OUT.jsonl [SEED [RANDOM_PAIRS]]

(the committed file: seed 20250301, 240 random pairs)

The official `test_utils` and `db_utils` modules are imported at run time from
the folder given; nothing of them is copied here. Each result is turned into
the Python values psycopg2 returns for it (int, float, Decimal, bool, str,
date, datetime, time, bytes as memoryview, a json column parsed by json.loads)
and served to the official `execute_queries` through a stand-in connection
whose cursor hands out those rows, so the official fetch (at most 10 000
rows), `preprocess_results` and `ex_base` decide the verdict unchanged.
"""

import contextlib
import datetime as dt
import decimal
import io
import json
import random
import sys


def load_official(folder):
    sys.path.insert(0, folder)
    import db_utils  # noqa: E402  (the official module)
    import test_utils  # noqa: E402

    return db_utils, test_utils


class Cursor:
    def __init__(self, results):
        self.results = results
        self.rows = None

    def execute(self, query):
        if not query.startswith("SET "):
            self.rows = list(self.results[query])

    def fetchmany(self, n):
        return self.rows[:n]

    def close(self):
        pass


class Connection:
    def __init__(self, results):
        self.results = results

    def cursor(self):
        return Cursor(self.results)

    def commit(self):
        pass

    def rollback(self):
        pass


def py(tagged, column_type):
    kind, v = tagged
    if kind == "s" and column_type in ("json", "jsonb"):
        return json.loads(v)
    return {
        "i": lambda: v,
        "f": lambda: float(v),
        "d": lambda: decimal.Decimal(v),
        "b": lambda: v,
        "s": lambda: v,
        "n": lambda: None,
        "date": lambda: dt.date.fromisoformat(v),
        "ts": lambda: dt.datetime.fromisoformat(v),
        "time": lambda: dt.time.fromisoformat(v),
        "x": lambda: memoryview(bytes.fromhex(v)),
    }[kind]()


def rows_of(result):
    types = result.get("types") or [None] * result["width"]
    rows = [tuple(py(c, types[j]) for j, c in enumerate(r)) for r in result["rows"]]
    tail = result.get("tail")
    if tail:
        rows += [(tail["start"] + k,) for k in range(tail["count"])]
    return rows


def tag(v):
    if v is None:
        return ["n", None]
    if isinstance(v, bool):
        return ["b", v]
    if isinstance(v, int):
        return ["i", v]
    if isinstance(v, float):
        return ["f", repr(v)]
    if isinstance(v, decimal.Decimal):
        return ["d", str(v)]
    if isinstance(v, dt.datetime):
        return ["ts", v.isoformat(sep=" ")]
    if isinstance(v, dt.date):
        return ["date", v.isoformat()]
    if isinstance(v, dt.time):
        return ["time", v.isoformat()]
    if isinstance(v, bytes):
        return ["x", v.hex()]
    if isinstance(v, Json):
        return ["s", v.text]
    return ["s", v]


class Json:
    def __init__(self, text):
        self.text = text


def result(rows, width=None, types=None, tail=None):
    width = width if width is not None else (len(rows[0]) if rows else 1)
    r = {"width": width, "rows": [[tag(v) for v in row] for row in rows]}
    if types:
        r["types"] = types
    if tail:
        r["tail"] = tail
    return r


D = decimal.Decimal
J = Json


def hand_cases():
    c = []

    def add(kind, gold, pred, order=None):
        for o in ([False, True] if order is None else [order]):
            c.append((kind, gold, pred, o))

    base = [[1, "a", 2.5], [2, "b", 7.0], [3, None, 10.5]]
    add("same", result(base), result(base))
    add("row_permutation", result(base), result(base[::-1]))
    add("column_permutation", result(base), result([[r[2], r[0], r[1]] for r in base]))
    add("extra_column", result(base), result([r + ["x"] for r in base]))
    add("missing_column", result(base), result([r[:2] for r in base]))
    add("duplicates", result([[1], [1], [2]]), result([[1], [2], [2]]))
    add("duplicates_vs_distinct", result([[1], [1], [2]]), result([[1], [2]]))
    add("extra_row", result([[1], [2]]), result([[1], [2], [3]]))
    add("null_same", result([[None], [1]]), result([[None], [1]]))
    add("null_vs_zero", result([[None], [1]]), result([[0], [1]]))
    add("null_vs_text", result([[None]]), result([["None"]]))
    add("text_vs_number", result([[7]]), result([["7"]]))
    add("int_vs_float", result([[7]]), result([[7.0]]))
    add("int_vs_decimal", result([[7]]), result([[D("7.00")]]))
    add("int_vs_decimal_fraction", result([[7]]), result([[D("7.004")]]))
    add("bool_vs_int", result([[True], [False]]), result([[1], [0]]))
    add("bool_vs_float", result([[True]]), result([[1.0]]))
    add("bool_vs_text", result([[True]]), result([["True"]]))
    add("empty_both", result([], 2), result([], 2))
    add("empty_gold", result([], 1), result([[1]]))
    add("empty_pred", result([[1]]), result([], 1))
    for g, p in [(1.004, 1.0), (1.005, 1.0), (1.006, 1.0), (1.0049, 1.0), (2.675, 2.67), (2.675, 2.68),
                 (0.125, 0.12), (0.125, 0.13), (0.375, 0.38), (-0.125, -0.12), (1.234, 1.23), (1.23, 1.2349),
                 (100.0, 99.995), (1e16, 1e16 + 2), (1.5e-7, 0.0), (-0.001, 0.0), (1e300, 1e300)]:
        add(f"float_round_{g}_{p}", result([[g]]), result([[p]]))
    for g, p in [("1.005", "1.01"), ("1.005", "1.00"), ("1.004", "1.00"), ("-1.005", "-1.01"), ("2.675", "2.68"),
                 ("0.125", "0.13"), ("1.50", "1.5"), ("1.500001", "1.5"), ("0", "-0.001")]:
        add(f"decimal_round_{g}_{p}", result([[D(g)]]), result([[D(p)]]))
    for g, p in [("0.25", 0.25), ("0.10", 0.1), ("1.50", 1.5), ("1.005", 1.0), ("1.005", 1.01), ("2.675", 2.675),
                 ("2.675", 2.68), ("3.00", 3), ("0.125", 0.125), ("0.75", 0.75), ("12345678901234567.25", 12345678901234567.25)]:
        add(f"decimal_vs_float_{g}_{p}", result([[D(g)]]), result([[p]]))
    add("decimal_too_long", result([[D("123456789012345678901234567.5")]]), result([[D("123456789012345678901234567.5")]]))
    add("decimal_nan", result([[D("NaN")]]), result([[D("NaN")]]))
    add("float_nan", result([[float("nan")]]), result([[float("nan")]]))
    add("float_inf", result([[float("inf")]]), result([[float("inf")]]))
    add("float_nan_vs_null", result([[float("nan")], [1]]), result([[None], [1]]))
    add("date_same", result([[dt.date(2020, 1, 2)]]), result([[dt.date(2020, 1, 2)]]))
    add("date_vs_text", result([[dt.date(2020, 1, 2)]]), result([["2020-01-02"]]))
    add("timestamp_vs_date", result([[dt.datetime(2020, 1, 2, 3, 4, 5)]]), result([[dt.date(2020, 1, 2)]]))
    add("timestamps_same_day", result([[dt.datetime(2020, 1, 2, 3, 4, 5)]]), result([[dt.datetime(2020, 1, 2, 23, 0)]]))
    add("timestamp_vs_text", result([[dt.datetime(2020, 1, 2, 3, 4, 5)]]), result([["2020-01-02 03:04:05"]]))
    add("time_same", result([[dt.time(3, 4, 5)]]), result([[dt.time(3, 4, 5)]]))
    add("time_vs_text", result([[dt.time(3, 4, 5)]]), result([["03:04:05"]]))
    add("bytes_same", result([[b"ab"]]), result([[b"ab"]]))
    add("bytes_vs_text", result([[b"ab"]]), result([["ab"]]))
    jt = ["jsonb"]
    add("json_same", result([[J('{"a": 1}')]], types=jt), result([[J('{"a": 1}')]], types=jt))
    add("json_key_order", result([[J('{"b": 1, "a": 2}')]], types=jt), result([[J('{"a": 2, "b": 1}')]], types=jt))
    add("json_vs_text", result([[J('{"a": 1}')]], types=jt), result([['{"a": 1}']]))
    add("json_vs_text_sorted", result([[J('{"b": 1, "a": [1, 2.5]}')]], types=jt), result([['{"a": [1, 2.5], "b": 1}']]))
    add("json_float_rounded", result([[J('{"a": 1.234}')]], types=jt), result([[J('{"a": 1.23}')]], types=jt))
    add("json_float_vs_int", result([[J('[1.0, 2]')]], types=jt), result([[J('[1, 2]')]], types=jt))
    add("json_scalar_number", result([[J('5')]], types=jt), result([[5]]))
    add("json_scalar_float", result([[J('5.004')]], types=jt), result([[5]]))
    add("json_scalar_text", result([[J('"x"')]], types=jt), result([["x"]]))
    add("json_null", result([[J('null')]], types=jt), result([[None]]))
    add("json_unicode", result([[J('{"k": "caf\u00e9 \\n \\u0001"}')]], types=jt), result([['{"k": "caf\\u00e9 \\n \\u0001"}']]))
    add("json_nested_bool", result([[J('{"a": {"c": true, "b": null}}')]], types=jt), result([['{"a": {"b": null, "c": true}}']]))
    add("truncated_agree", result([], 1, tail={"start": 0, "count": 10001}),
        result([], 1, tail={"start": 0, "count": 10005}))
    add("truncated_differ_after", result([[-1]], tail={"start": 0, "count": 10000}),
        result([[-2]], tail={"start": 0, "count": 10000}))
    add("truncated_differ_before", result([[-1]], tail={"start": 0, "count": 9999}),
        result([[-2]], tail={"start": 0, "count": 9999}))
    add("width_differs_same_values", result([[1, 1]]), result([[1]]))
    return c


INTS = [0, 1, 2, 7, -3, 100]
FLOATS = [0.0, 0.004, 0.005, 0.015, 0.125, 1.0, 1.005, 1.004, 2.5, 2.675, 7.0, 9.995, 10.001, 1e16, 0.1 + 0.2]
DECS = ["0", "0.00", "1.005", "1.004", "2.50", "7", "7.00", "0.125", "9.995", "-1.005", "0.30"]
TEXTS = ["", "a", "b", "7", "7.0", "True", "2020-01-02", "None"]
OTHER = [True, False, dt.date(2020, 1, 2), dt.datetime(2020, 1, 2, 3, 4), dt.time(1, 2), b"\x00a"]


def value(rng):
    r = rng.random()
    if r < 0.1:
        return None
    if r < 0.3:
        return rng.choice(INTS)
    if r < 0.55:
        return rng.choice(FLOATS)
    if r < 0.75:
        return D(rng.choice(DECS))
    if r < 0.9:
        return rng.choice(TEXTS)
    return rng.choice(OTHER)


def random_case(rng):
    w = rng.randint(1, 3)
    n = rng.randint(0, 5)
    gold = [[value(rng) for _ in range(w)] for _ in range(n)]
    how = rng.randint(0, 5)
    pred = [list(r) for r in gold]
    rng.shuffle(pred)
    if how == 0:
        pred = [[value(rng) for _ in range(w)] for _ in range(n)]
    if how == 1 and pred:
        i, j = rng.randrange(len(pred)), rng.randrange(w)
        v = pred[i][j]
        if isinstance(v, float):
            pred[i][j] = v + rng.choice([0.001, 0.004, 0.005, 0.006, -0.004])
        elif isinstance(v, D):
            pred[i][j] = v + D(rng.choice(["0.001", "0.004", "0.005", "-0.005"]))
        elif isinstance(v, int) and not isinstance(v, bool):
            pred[i][j] = rng.choice([float(v), D(v), v + 0.004, bool(v % 2)])
    if how == 2 and pred:
        pred.append(list(rng.choice(pred)))
    if how == 3 and pred:
        pred = pred[:-1]
    if how == 4 and pred:
        pred = [r[::-1] for r in pred]
    return result(gold, w), result(pred, w)


def main():
    db_utils, test_utils = load_official(sys.argv[1])
    out = sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 20250301)
    cases = hand_cases()
    for k in range(int(sys.argv[4]) if len(sys.argv) > 4 else 240):
        g, p = random_case(rng)
        cases.append((f"random_{k}", g, p, rng.random() < 0.3))
    credited = 0
    with open(out, "w") as f:
        for i, (kind, gold, pred, order) in enumerate(cases):
            conn = Connection({"gold": rows_of(gold), "pred": rows_of(pred)})
            db_utils._postgresql_pools["db"] = None  # the stand-in connection is passed; no pool is opened
            with contextlib.redirect_stdout(io.StringIO()):
                try:
                    verdict = test_utils.ex_base(["pred"], ["gold"], "db", conn, {"order": order})
                except Exception:  # the evaluator counts a failing test case as failed
                    verdict = 0
            credited += verdict
            f.write(json.dumps({"id": i, "kind": kind, "gold": gold, "pred": pred, "order": order,
                                "official": verdict}) + "\n")
    print(f"{len(cases)} pairs, {credited} credited", file=sys.stderr)


if __name__ == "__main__":
    main()
