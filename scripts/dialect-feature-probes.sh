#!/usr/bin/env bash
# Measures the engine-support column of crates/sqlwitness-sql/src/features.rs:
# one probe query per dialect feature (OCTOPUS Table 8) run as gold on every
# engine; a gold_error means the engine does not run it as written.
#
#   SQLWITNESS_POSTGRES_URL=… SQLWITNESS_MYSQL_URL=… scripts/dialect-feature-probes.sh [OUT_DIR]
# (SQLWITNESS_BIN=path/to/sqlwitness skips the build; SQLWITNESS_PROBE_ENGINES=sqlite,duckdb
# probes other engines than the default sqlite,postgres,mysql.)
set -euo pipefail
out=${1:-$(mktemp -d)}
mkdir -p "$out/bench/database/swprobe"
python3 - "$out/bench" <<'PY'
import json, sqlite3, sys, os
root = sys.argv[1]
db = os.path.join(root, "database/swprobe/swprobe.sqlite")
if os.path.exists(db):
    os.remove(db)
c = sqlite3.connect(db)
c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a REAL, b TEXT, d TEXT)")
c.execute("INSERT INTO t VALUES (1, 1.5, 'Abc', '2020-01-02'), (2, 2.25, 'xyz', '2021-03-04')")
c.commit()
probes = {
    "length()": "SELECT length(b) FROM t",
    "char_length()": "SELECT char_length(b) FROM t",
    "character_length()": "SELECT character_length(b) FROM t",
    "len()": "SELECT len(b) FROM t",
    "now()": "SELECT count(*) FROM t WHERE now() IS NOT NULL",
    "curtime()": "SELECT count(*) FROM t WHERE curtime() IS NOT NULL",
    "getdate()": "SELECT count(*) FROM t WHERE getdate() IS NOT NULL",
    "||": "SELECT b || 'x' FROM t",
    "ifnull()": "SELECT ifnull(b, 'z') FROM t",
    "nvl()": "SELECT nvl(b, 'z') FROM t",
    "isnull()": "SELECT isnull(b) FROM t",
    "date_trunc()": "SELECT date_trunc('year', DATE '2020-05-01') FROM t",
    "date_format()": "SELECT date_format('2020-05-01', '%Y') FROM t",
    "strftime()": "SELECT strftime('%Y', d) FROM t",
    "julianday()": "SELECT julianday(d) FROM t",
    "datetime()": "SELECT datetime(d) FROM t",
    "instr()": "SELECT instr(b, 'b') FROM t",
    "position()": "SELECT position('b' IN b) FROM t",
    "locate()": "SELECT locate('b', b) FROM t",
    "charindex()": "SELECT charindex('b', b) FROM t",
    "datediff()": "SELECT datediff('2020-01-05', '2020-01-01') FROM t",
    "timestampdiff()": "SELECT timestampdiff(DAY, '2020-01-01', '2020-01-05') FROM t",
    "age()": "SELECT age(TIMESTAMP '2020-01-05', TIMESTAMP '2020-01-01') FROM t",
    "FETCH FIRST": "SELECT b FROM t ORDER BY id FETCH FIRST 1 ROWS ONLY",
    "iif()": "SELECT iif(a > 2, 'y', 'n') FROM t",
    "if()": "SELECT if(a > 2, 'y', 'n') FROM t",
    "decode()": "SELECT decode('YQ==', 'base64') FROM t",
    "DISTINCT ON": "SELECT DISTINCT ON (b) b FROM t",
    "TABLESAMPLE": "SELECT count(*) FROM t TABLESAMPLE BERNOULLI (100)",
    "random()": "SELECT count(*) FROM t WHERE random() IS NOT NULL",
    "rand()": "SELECT count(*) FROM t WHERE rand() IS NOT NULL",
    "elt()": "SELECT elt(1, 'a', 'b') FROM t",
    "group_concat()": "SELECT group_concat(b) FROM t",
    "string_agg()": "SELECT string_agg(b, ',') FROM t",
    "listagg()": "SELECT listagg(b, ',') FROM t",
    "trunc()": "SELECT trunc(a) FROM t",
    "truncate()": "SELECT truncate(a, 0) FROM t",
    "FULL JOIN": "SELECT x.id FROM t AS x FULL JOIN t AS y ON x.id = y.id",
    "LIKE": "SELECT b FROM t WHERE b LIKE 'abc'",
}
with open(os.path.join(root, "dev.jsonl"), "w") as f:
    for k, v in probes.items():
        f.write(json.dumps({"db_id": "swprobe", "gold": v, "question": k}) + "\n")
PY
bin=${SQLWITNESS_BIN:-}
if [ -z "$bin" ]; then
    cargo build -q -p sqlwitness-cli
    bin=target/debug/sqlwitness
fi
engines=${SQLWITNESS_PROBE_ENGINES:-sqlite,postgres,mysql}
"$bin" eval --bench "$out/bench" --split dev \
    --engines "$engines" --out "$out/report" -q
python3 - "$out/report/report.json" "$engines" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
engines = sys.argv[2].split(",")
print("| feature | " + " | ".join(engines) + " |\n|---" * 1 + "|---" * len(engines) + "|")
for q in r["questions"]:
    cells = []
    for e in engines:
        o = q["engines"][e]
        if o["verdict"] == "gold_error":
            cells.append("no: " + (o["gold"].get("error") or "")[:50].replace("|", "/").replace("\n", " "))
        else:
            cells.append("runs: " + json.dumps(o["gold"].get("sample", [])[:2])[:40].replace("|", "/"))
    print(f"| `{q['question']}` | " + " | ".join(cells) + " |")
PY
