#!/usr/bin/env python3
"""Make a Spider prediction file from the gold that breaks LIMIT ties the
other way: for every gold ending in `ORDER BY … LIMIT n`, append a
positional tie-breaker (`, 1 DESC`, else `, 1 ASC`) and keep it only when it
changes the answer on the SQLite database (so every changed line is a
different, equally valid choice among tied rows — or a real difference when
the ORDER BY is on something else). Other lines are the gold itself.

Usage: tie_flipped_predictions.py SPIDER_DIR SPLIT OUT.sql
"""
import os
import re
import sqlite3
import sys

spider, split, out = sys.argv[1], sys.argv[2], sys.argv[3]
pat = re.compile(r"^(.*\border\s+by\s+.+?)\s+(limit\s+\d+)\s*;?\s*$", re.I | re.S)
lines, changed = [], 0
for line in open(os.path.join(spider, f"{split}_gold.sql"), encoding="utf-8"):
    if not line.strip():
        continue
    sql, db = line.rstrip("\n").rsplit("\t", 1)
    pred = sql
    m = pat.match(sql)
    path = os.path.join(spider, "database", db, f"{db}.sqlite")
    if m and os.path.exists(path):
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        con.text_factory = lambda b: b.decode(errors="replace")
        try:
            gold_rows = con.execute(sql).fetchall()
            for tb in ("DESC", "ASC"):
                cand = f"{m.group(1)}, 1 {tb} {m.group(2)}"
                try:
                    if con.execute(cand).fetchall() != gold_rows:
                        pred, changed = cand, changed + 1
                        break
                except sqlite3.Error:
                    pass
        except sqlite3.Error:
            pass
        con.close()
    lines.append(pred.replace("\n", " "))
open(out, "w", encoding="utf-8").write("\n".join(lines) + "\n")
print(f"{len(lines)} predictions, {changed} with ties broken the other way", file=sys.stderr)
