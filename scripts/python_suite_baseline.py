"""Sequential baseline for scripts/bench-suite.sh.

Does the work of the official Spider test-suite evaluator's execution path
(taoyds/test-suite-sql-eval, `eval_exec_match`) on a suite folder: for each
question, every `.sqlite` file in `<suites>/database/<db_id>/` (the original
and the instances), one new sqlite3 connection per query, the gold and the
prediction run one after the other with fetchall, compared as lists (when
'order by' is in the gold) or as bags, stopping at the first difference. No
cache of gold results, no parallelism. Written for this project as a timing
baseline; it is not the official code (it skips the official column
permutation search, which only makes it faster).
Usage: python_suite_baseline.py BENCH SUITES PRED_FILE
"""
import json
import os
import sqlite3
import sys
from collections import Counter

executions = 0


def run(db_path, sql):
    global executions
    executions += 1
    conn = sqlite3.connect(db_path)
    conn.text_factory = lambda b: b.decode(errors="ignore")
    try:
        cur = conn.cursor()
        cur.execute(sql)
        return cur.fetchall()
    except Exception:
        return None
    finally:
        conn.close()


def main(bench, suites, pred_file):
    questions = json.load(open(os.path.join(bench, "dev.json")))
    preds = [l.rstrip("\n") for l in open(pred_file)]
    passed = missing = 0
    for q, pred in zip(questions, preds):
        folder = os.path.join(suites, "database", q["db_id"])
        if not os.path.isdir(folder):
            missing += 1
            continue
        ok = True
        for name in os.listdir(folder):
            if ".sqlite" not in name:
                continue
            db = os.path.join(folder, name)
            gold = run(db, q["query"])
            p = run(db, pred)
            if p is None:
                ok = False
                break
            if "order by" in q["query"].lower():
                same = gold == p
            else:
                same = Counter(gold or []) == Counter(p)
            if not same:
                ok = False
                break
        passed += ok
    print(f"{passed} pass the suite, {missing} missing_db, {executions} executions", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
