#!/usr/bin/env python3
"""Make a synthetic but realistic prediction file from a Spider-layout gold.

Used for sqlwitness's score and report demonstrations (scripts/score-demo.sh,
docs/measurements/scores.md). Each question gets the gold SQL, a neighbour
mutation of it (Dr.Spider §3.3 style: ASC<->DESC, a changed literal, a
comparison operator swap, a dropped WHERE conjunct, COUNT(DISTINCT) -> COUNT,
LIMIT n -> n+1), a dialect rewrite of the kind an LLM trained on SQLite
produces ('text' -> "text", IFNULL, a lower-cased LIKE pattern), or an
abstention (sql null). Every line also has a
`confidence` (overconfident: the model is not calibrated) and five `samples`
(sampled alternatives: mostly the prediction itself for unmodified gold, a
mix for mutated ones), so calibration, sub-clause frequencies and Platt
scaling have inputs. Also writes infeasible and calibration id files.

usage: make-predictions.py DEV_JSON OUT_DIR [--seed N] [--error-rate R]
       make-predictions.py DEV_JSON OUT_DIR --degrade PRED.jsonl --rate R [--seed N]

--degrade makes a "regressed model" from an existing prediction file: a share
R of its gold-equal predictions get a neighbour mutation, everything else
stays (for demonstrating `sqlwitness diff` and `eval --baseline`).
"""
import argparse
import json
import os
import random
import re


def swap_order(sql):
    if re.search(r"\bDESC\b", sql, re.I):
        return re.sub(r"\bDESC\b", "ASC", sql, count=1, flags=re.I)
    if re.search(r"\bASC\b", sql, re.I):
        return re.sub(r"\bASC\b", "DESC", sql, count=1, flags=re.I)
    m = re.search(r"\bORDER BY\s+[\w.()*]+", sql, re.I)
    if m:
        return sql[: m.end()] + " DESC" + sql[m.end():]
    return None


def change_number(sql):
    ms = list(re.finditer(r"(?<![\w.'])(\d+)(?![\w.'])", sql))
    if not ms:
        return None
    m = ms[-1]
    return sql[: m.start()] + str(int(m.group(1)) + 1) + sql[m.end():]


def change_string(sql):
    m = re.search(r"'([^']{2,})'", sql)
    if not m:
        return None
    return sql[: m.start()] + "'" + m.group(1)[:-1] + "'" + sql[m.end():]


def swap_comparison(sql):
    for a, b in ((">=", ">"), ("<=", "<"), (" > ", " >= "), (" < ", " <= "), ("!=", "=")):
        if a in sql:
            return sql.replace(a, b, 1)
    return None


def drop_conjunct(sql):
    m = re.search(r"\s+AND\s+[^()]*?(?=\s+(GROUP|ORDER|LIMIT|INTERSECT|UNION|EXCEPT)\b|\)|$)", sql, re.I)
    if not m or "BETWEEN" in sql[max(0, m.start() - 30): m.start()].upper():
        return None
    return sql[: m.start()] + sql[m.end():]


def count_distinct(sql):
    if re.search(r"count\s*\(\s*DISTINCT\s+", sql, re.I):
        return re.sub(r"count\s*\(\s*DISTINCT\s+", "count(", sql, count=1, flags=re.I)
    return None


def limit_plus(sql):
    m = re.search(r"\bLIMIT\s+(\d+)", sql, re.I)
    if not m:
        return None
    return sql[: m.start(1)] + str(int(m.group(1)) + 1) + sql[m.end(1):]


def double_quotes(sql):
    # SQLite accepts "text" as a string when no column has that name;
    # PostgreSQL reads an identifier, MySQL a string.
    if "'" not in sql:
        return None
    return re.sub(r"'([^'\"]*)'", r'"\1"', sql)


def lower_like(sql):
    m = re.search(r"LIKE\s+'([^']*[A-Z][^']*)'", sql)
    if not m:
        return None
    return sql[: m.start(1)] + m.group(1).lower() + sql[m.end(1):]


def ifnull(sql):
    m = re.match(r"(?is)\s*SELECT\s+(count\(\*\))", sql)
    if not m:
        return None
    return sql[: m.start(1)] + "ifnull(count(*), 0)" + sql[m.end(1):]


NEIGHBOURS = [swap_order, change_number, change_string, swap_comparison, drop_conjunct,
              count_distinct, limit_plus]
DIALECT = [double_quotes, lower_like, ifnull]


def mutate(sql, rng, kinds):
    fs = list(kinds)
    rng.shuffle(fs)
    for f in fs:
        out = f(sql)
        if out and out != sql:
            return out, f.__name__
    return None, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dev_json")
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--error-rate", type=float, default=0.25)
    ap.add_argument("--dialect-rate", type=float, default=0.08)
    ap.add_argument("--abstain-rate", type=float, default=0.04)
    ap.add_argument("--infeasible-rate", type=float, default=0.03)
    ap.add_argument("--degrade")
    ap.add_argument("--rate", type=float, default=0.03)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    gold = [q["query"] for q in json.load(open(a.dev_json))]
    os.makedirs(a.out_dir, exist_ok=True)
    if a.degrade:
        changed = 0
        with open(a.degrade) as src, open(os.path.join(a.out_dir, "predictions.jsonl"), "w") as f:
            for raw in src:
                line = json.loads(raw)
                g = " ".join(gold[line["id"]].split())
                if line["sql"] == g and rng.random() < a.rate:
                    m, _ = mutate(g, rng, NEIGHBOURS)
                    if m:
                        line["sql"] = m
                        changed += 1
                f.write(json.dumps(line) + "\n")
        print(json.dumps({"degraded": changed}))
        return
    # The same infeasible/calibration ids for every seed: they belong to the
    # benchmark, not the model.
    ids_rng = random.Random(12345)
    infeasible = sorted(ids_rng.sample(range(len(gold)), int(len(gold) * a.infeasible_rate)))
    calibrate = [i for i in range(len(gold)) if i % 2 == 0]
    kinds = {}
    with open(os.path.join(a.out_dir, "predictions.jsonl"), "w") as f:
        for i, g in enumerate(gold):
            g = " ".join(g.split())
            r = rng.random()
            kind = "gold"
            sql = g
            if i in infeasible and rng.random() < 0.5:
                kind, sql = "abstain", None
            elif r < a.abstain_rate:
                kind, sql = "abstain", None
            elif r < a.abstain_rate + a.dialect_rate:
                m, k = mutate(g, rng, DIALECT)
                if m:
                    kind, sql = k, m
            elif r < a.abstain_rate + a.dialect_rate + a.error_rate:
                m, k = mutate(g, rng, NEIGHBOURS)
                if m:
                    kind, sql = k, m
            kinds[kind] = kinds.get(kind, 0) + 1
            line = {"id": i, "sql": sql}
            if sql is not None:
                wrong = kind != "gold"
                base = 0.72 if wrong else 0.9
                line["confidence"] = round(min(0.999, max(0.02, rng.gauss(base, 0.1))), 3)
                samples = []
                for _ in range(5):
                    if rng.random() < (0.45 if wrong else 0.85):
                        samples.append(sql)
                    else:
                        alt, _ = mutate(g, rng, NEIGHBOURS)
                        samples.append(alt or g)
                line["samples"] = samples
            f.write(json.dumps(line) + "\n")
    with open(os.path.join(a.out_dir, "infeasible.ids"), "w") as f:
        f.write("# question ids marked infeasible (synthetic, TrustSQL-style)\n")
        f.write("\n".join(map(str, infeasible)) + "\n")
    with open(os.path.join(a.out_dir, "calibrate.ids"), "w") as f:
        f.write("# calibration split for Platt scaling: even ids\n")
        f.write("\n".join(map(str, calibrate)) + "\n")
    print(json.dumps({"questions": len(gold), "kinds": kinds, "infeasible": len(infeasible)}))


if __name__ == "__main__":
    main()
