"""Writes defog_verdicts.jsonl: generated result pairs with the verdict of
defog's sql-eval (`compare_query_results`, default options).

Usage: python gen_defog_verdicts.py <sql-eval checkout> OUT.jsonl [SEED [RANDOM_PAIRS]]

(the committed file: seed 20250401, 300 random pairs)

The official `eval.eval` module is imported at run time from the checkout;
nothing of it is copied here. Each result is stored in a fresh SQLite file
(a table whose columns have no declared type, so every value keeps its
type) and read back by the official `query_sqlite_db` (the runner's SQLite
path: `sqlite3`, then `pd.DataFrame(rows, columns=names)`). The official
`compare_query_results` runs unchanged with `db_type="sqlite"` and the
default `decimal_points=None`; only the SQL text it would execute is looked
up here, so that a case can give any gold and predicted SQL text (the text
matters: `normalize_table` reads its ORDER BY, and a gold with `;` is
several golds). A comparison that raises is recorded as (0, 0), as the
runner scores it.
"""

import json
import os
import random
import sqlite3
import sys
import tempfile
import warnings


def load_official(checkout):
    sys.path.insert(0, checkout)
    import eval.eval as official  # noqa: E402  (the official module)

    return official


def py(tagged):
    kind, v = tagged
    return {"i": lambda: v, "f": lambda: float(v), "s": lambda: v, "n": lambda: None}[kind]()


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


def result(names, rows):
    return {"names": list(names), "rows": [[tag(v) for v in r] for r in rows]}


def store(work, name, res):
    db = os.path.join(work, name + ".db")
    if os.path.exists(db):
        os.remove(db)
    con = sqlite3.connect(db)
    w = len(res["names"])
    con.execute("CREATE TABLE t (" + ", ".join(f'"c{i}"' for i in range(w)) + ")")
    con.executemany("INSERT INTO t VALUES (" + ", ".join("?" for _ in range(w)) + ")",
                    [[py(c) for c in r] for r in res["rows"]])
    con.commit()
    con.close()
    quoted = lambda s: '"' + s.replace('"', '""') + '"'
    cols = ", ".join(f'"c{i}" AS {quoted(n)}' for i, n in enumerate(res["names"]))
    return f"SELECT {cols} FROM t ORDER BY rowid"


def verdict(official, work, case):
    lookup = {}
    for k, g in enumerate(case["golds"]):
        lookup[g["sql"].strip()] = (f"g{k}", store(work, f"g{k}", g["result"]))
    assert case["pred"]["sql"].strip() not in lookup, "the gold and the prediction need distinct SQL texts"
    lookup[case["pred"]["sql"].strip()] = ("p", store(work, "p", case["pred"]["result"]))
    real = official.query_sqlite_db

    def query_sqlite_db(query, db_name, db_creds=None, decimal_points=None):
        db, sql = lookup[query.strip()]
        return real(sql, db, {"path_to_folder": work + "/"}, decimal_points=decimal_points)

    official.query_sqlite_db = query_sqlite_db
    gold_sql = "; ".join(g["sql"] for g in case["golds"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exact, correct = official.compare_query_results(
                query_gold=gold_sql, query_gen=case["pred"]["sql"], db_name="db", db_type="sqlite",
                db_creds={}, question=case["question"], query_category=case["category"])
    except Exception:  # the runner records an error and scores (0, 0)
        exact, correct = False, False
    finally:
        official.query_sqlite_db = real
    return int(bool(exact)), int(bool(correct))


def case(kind, golds, pred, question="", category="", gold_sqls=None, pred_sql=None):
    gold_sqls = gold_sqls or [f"SELECT gold{k}" for k in range(len(golds))]
    return {"kind": kind, "question": question, "category": category,
            "golds": [{"sql": s, "result": g} for s, g in zip(gold_sqls, golds)],
            "pred": {"sql": pred_sql or "SELECT pred", "result": pred}}


def hand_cases():
    c = []
    ab = ["a", "b"]
    base = [[1, "x", 2.5], [2, "y", 7.0], [3, None, 10.5]]
    abc = ["a", "b", "c"]
    for q, cat in [("", ""), ("Sort them by a", ""), ("", "order_by")]:
        add = lambda kind, g, p, **kw: c.append(case(f"{kind}|{q or cat or 'plain'}", [g], p, question=q, category=cat, **kw))
        add("same", result(abc, base), result(abc, base))
        add("row_permutation", result(abc, base), result(abc, base[::-1]))
        add("column_permutation_same_names", result(abc, base), result(["c", "a", "b"], [[r[2], r[0], r[1]] for r in base]))
        add("column_permutation_renamed", result(abc, base), result(["x", "y", "z"], [[r[2], r[0], r[1]] for r in base]))
        add("renamed_same_order", result(abc, base), result(["x", "y", "z"], base))
        add("renamed_other_order", result(abc, base), result(["z", "y", "x"], base))
        add("extra_column", result(abc, base), result(abc + ["d"], [r + [r[0] * 2] for r in base]))
        add("extra_column_first", result(abc, base), result(["_"] + abc, [[9] + r for r in base]))
        add("missing_column", result(abc, base), result(ab, [r[:2] for r in base]))
        add("duplicates_pred", result(ab, [[1, "x"], [2, "y"]]), result(ab, [[1, "x"], [2, "y"], [2, "y"]]))
        add("duplicates_gold", result(ab, [[1, "x"], [1, "x"], [2, "y"]]), result(ab, [[1, "x"], [2, "y"]]))
        add("duplicates_with_extra_column", result(["a"], [[1], [1], [2]]), result(ab, [[1, "p"], [1, "q"], [2, "r"]]))
        add("extra_row", result(["a"], [[1], [2]]), result(["a"], [[1], [2], [3]]))
        add("extra_row_extra_column", result(["a"], [[1], [2]]), result(ab, [[1, 5], [2, 6], [3, 7]]))
        add("null_same", result(ab, [[None, "x"], [1, "y"]]), result(ab, [[None, "x"], [1, "y"]]))
        add("null_same_float_column", result(["a"], [[None], [1.5]]), result(["a"], [[None], [1.5]]))
        add("null_vs_minus_99999", result(["a"], [[None], [1]]), result(["a"], [[-99999], [1]]))
        add("null_vs_minus_99999_text", result(ab, [[None, "x"], ["k", "y"]]), result(ab, [[-99999, "x"], ["k", "y"]]))
        add("null_vs_zero", result(["a"], [[None], [1]]), result(["a"], [[0], [1]]))
        add("all_null", result(["a"], [[None], [None]]), result(["a"], [[None], [None]]))
        add("int_vs_float", result(["a"], [[1], [2]]), result(["a"], [[1.0], [2.0]]))
        add("float_close", result(["a"], [[1.0], [2.0]]), result(["a"], [[1.000001], [2.0]]))
        add("float_close_extra_column", result(["a"], [[1.0], [2.0]]), result(ab, [[1.000001, 0], [2.0, 0]]))
        add("float_far_extra_column", result(["a"], [[1.0], [2.0]]), result(ab, [[1.0001, 0], [2.0, 0]]))
        add("int_close_extra_column", result(["a"], [[1], [2]]), result(ab, [[1.000001, 0], [2.0, 0]]))
        add("float_tiny_extra_column", result(["a"], [[0.0], [2.0]]), result(ab, [[1e-9, 0], [2.0, 0]]))
        add("text_vs_number", result(["a"], [[7], [8]]), result(["a"], [["7"], ["8"]]))
        add("mixed_text_number_column", result(["a"], [[7], ["x"]]), result(["a"], [["x"], [7]]))
        add("mixed_text_number_two_columns", result(ab, [[7, 1], ["x", 2]]), result(ab, [["x", 2], [7, 1]]))
        add("mixed_text_number_subset", result(["a"], [[7], ["x"]]), result(ab, [["x", 1], [7, 2]]))
        add("empty_both_same_width", result(ab, []), result(ab, []))
        add("empty_both_other_width", result(["a"], []), result(abc, []))
        add("empty_gold_one_row", result(ab, []), result(ab, [[1, 2]]))
        add("empty_gold_two_rows", result(ab, []), result(ab, [[1, 2], [3, 4]]))
        add("empty_pred", result(ab, [[1, 2]]), result(ab, []))
        add("one_gold_row_repeated", result(["a"], [[5]]), result(["a"], [[5], [5], [5]]))
        add("one_gold_row_wide_pred", result(["a"], [[5]]), result(ab, [[5, 5], [5, 5]]))
        add("one_gold_column_twice", result(["a"], [[1], [2]]), result(["x", "y"], [[1, 1], [2, 2]]))
        add("duplicate_pred_names", result(ab, [[1, 2], [3, 4]]), result(["a", "a"], [[1, 2], [3, 4]]))
        add("duplicate_pred_names_reordered", result(ab, [[1, 2], [3, 4]]), result(["b", "a", "b"], [[1, 2, 0], [3, 4, 0]]))
        add("duplicate_gold_names", result(["a", "a"], [[1, 2], [3, 4]]), result(ab, [[1, 2], [3, 4]]))
        add("duplicate_gold_names_rows_differ", result(["a", "a"], [[1, 2], [3, 4]]), result(ab, [[3, 4], [1, 2]]))
        add("name_case", result(["A", "b"], [[1, 2], [3, 4]]), result(["a", "B"], [[1, 2], [3, 4]]))
    sql = lambda table, o: f"SELECT a, b FROM {table} {o}"
    rows = [[1, "x"], [2, "y"], [3, "z"]]
    for q, cat in [("Order by a", ""), ("", "order_by"), ("", "")]:
        for go, po, prow in [("ORDER BY a", "ORDER BY a", rows), ("ORDER BY a DESC", "ORDER BY a", rows),
                             ("ORDER BY a DESC", "ORDER BY a DESC", rows[::-1]), ("ORDER BY a ASC", "ORDER BY b", rows),
                             ("ORDER BY t.a ASC, b", "ORDER BY a ASC;", rows[::-1]), ("", "", rows[::-1]),
                             ("ORDER BY a", "", rows[::-1]), ("ORDER BY\n a", "ORDER BY a\n", rows),
                             ("order by b desc nulls last", "ORDER BY b DESC", rows[::-1]),
                             ("ORDER BY COUNT(a) DESC LIMIT 2", "ORDER BY a LIMIT 5", rows)]:
            c.append(case(f"order_sql|{q or cat or 'plain'}|{go}|{po}", [result(ab, rows)], result(ab, prow),
                          question=q, category=cat, gold_sqls=[sql("t", go)], pred_sql=sql("v", po)))
    for q in ["What is the order total?", "list orders", "sorted list", "Arrange them", "border", "SORT", "re-order it", "x_sort"]:
        c.append(case(f"question_word|{q}", [result(["a"], [[1], [2]])], result(["a"], [[2], [1]]), question=q))
    two = [result(["a"], [[1], [2]]), result(["a"], [[1], [3]])]
    c.append(case("several_golds_second", two, result(["a"], [[3], [1]])))
    c.append(case("several_golds_none", two, result(["a"], [[4], [1]])))
    c.append(case("several_golds_subset_second", two, result(ab, [[3, 0], [1, 0]])))
    c.append(case("several_golds_second_raises", [two[0], result(["a"], [[1], ["x"]])], result(ab, [[1, 0], [2, 0]])))
    return c


INTS = [0, 1, 2, 7, -3, 100, -99999]
FLOATS = [0.0, 0.5, 1.0, 1.000001, 1.00001, 1.0001, 2.5, 7.0, 1e-9, 1e16, 0.1 + 0.2, 0.3]
TEXTS = ["", "a", "b", "B", "7", "x y", "None", "nan"]
NAMES = ["a", "b", "c", "A", "id", "name", "x"]


def column_value(rng, kind):
    if rng.random() < 0.1:
        return None
    return {"i": lambda: rng.choice(INTS), "f": lambda: rng.choice(FLOATS), "s": lambda: rng.choice(TEXTS),
            "m": lambda: rng.choice(INTS + FLOATS)}[kind]()


def random_case(rng, k):
    w = rng.randint(1, 3)
    n = rng.randint(0, 5)
    kinds = [rng.choice("iifsm") for _ in range(w)]
    names = rng.sample(NAMES, w)
    gold = [[column_value(rng, t) for t in kinds] for _ in range(n)]
    pred = [list(r) for r in gold]
    pnames = list(names)
    rng.shuffle(pred)
    how = rng.randint(0, 7)
    if how == 0:
        pred = [[column_value(rng, t) for t in kinds] for _ in range(n)]
    if how == 1 and pred:
        i, j = rng.randrange(len(pred)), rng.randrange(w)
        v = pred[i][j]
        if isinstance(v, (int, float)):
            pred[i][j] = v + rng.choice([1e-7, 1e-6, 1e-5, 1e-4, 0.5])
        else:
            pred[i][j] = column_value(rng, kinds[j])
    if how == 2:
        perm = list(range(w))
        rng.shuffle(perm)
        pred = [[r[j] for j in perm] for r in pred]
        pnames = [pnames[j] for j in perm]
    if how == 3:
        extra = rng.choice([x for x in NAMES if x not in pnames] + ["a"])
        pos = rng.randint(0, w)
        pred = [r[:pos] + [column_value(rng, rng.choice("ifs"))] + r[pos:] for r in pred]
        pnames = pnames[:pos] + [extra] + pnames[pos:]
    if how == 4 and pred:
        pred.append(list(rng.choice(pred)))
    if how == 5:
        pnames = rng.sample(NAMES, w)
    if how == 6 and pred and w > 1:
        j = rng.randrange(w)
        pred = [r[:j] + r[j + 1:] for r in pred]
        pnames = pnames[:j] + pnames[j + 1:]
    question = rng.choice(["", "", "", "list them", "sort by " + names[0], "in what order"])
    category = rng.choice(["", "", "order_by"])
    order = lambda: rng.choice(["", "", f"ORDER BY {names[0]}", f"ORDER BY {names[-1]} DESC", f"ORDER BY {names[0]} ASC"])
    golds = [result(names, gold)]
    gsqls = [f"SELECT {', '.join(names)} FROM t {order()}"]
    if rng.random() < 0.1:
        golds.append(result(names, [[column_value(rng, t) for t in kinds] for _ in range(n)]))
        gsqls.append(f"SELECT {', '.join(names)} FROM u")
    return case(f"random_{k}", golds, result(pnames, pred), question=question, category=category,
                gold_sqls=gsqls, pred_sql=f"SELECT {', '.join(pnames)} FROM v {order()}")


def main():
    official = load_official(sys.argv[1])
    out = sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 20250401)
    cases = hand_cases()
    for k in range(int(sys.argv[4]) if len(sys.argv) > 4 else 300):
        cases.append(random_case(rng, k))
    work = tempfile.mkdtemp()
    credited = exact_total = 0
    with open(out, "w") as f:
        for i, c in enumerate(cases):
            exact, correct = verdict(official, work, c)
            credited += correct
            exact_total += exact
            f.write(json.dumps({"id": i, **c, "official": {"exact_match": exact, "correct": correct}}) + "\n")
    print(f"{len(cases)} pairs, {exact_total} exact, {credited} correct", file=sys.stderr)


if __name__ == "__main__":
    main()
