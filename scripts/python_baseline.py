"""Sequential baseline for scripts/bench-selfcheck.sh.

Does the work of a gold self-check the way the official Spider evaluator's
execution path does: for each question, open the SQLite file, run the gold and
the "prediction" (the gold again) one after the other with fetchall, compare
the two results as bags of rows. No caching, no parallelism. Written for this
project as a timing baseline; it is not the official code.
"""
import json
import os
import sqlite3
import sys
from collections import Counter


def run(db_path, sql):
    conn = sqlite3.connect(db_path)
    conn.text_factory = lambda b: b.decode(errors="ignore")
    try:
        cur = conn.cursor()
        cur.execute(sql)
        return cur.fetchall()
    finally:
        conn.close()


def main(bench):
    questions = json.load(open(os.path.join(bench, "dev.json")))
    matched = missing = 0
    for q in questions:
        db = os.path.join(bench, "database", q["db_id"], q["db_id"] + ".sqlite")
        if not os.path.exists(db):
            missing += 1
            continue
        gold = run(db, q["query"])
        pred = run(db, q["query"])
        order_matters = "order by" in q["query"].lower()
        same = gold == pred if order_matters else Counter(gold) == Counter(pred)
        matched += same
    print(f"{matched} match, {missing} missing_db", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/spider")
