#!/usr/bin/env bash
# Measures the hostile corpus (tests/hostile/cases.jsonl) as one release-build
# `eval --engines sqlite,postgres,mysql,mariadb --timeout 2`: wall time, peak RSS,
# report size, the slowest query against its limit, and whether the servers'
# copies still verify. A benchmark, not a test: the numbers go in notes.
#
#   scripts/bench-hostile.sh [OUT_DIR]     (default out/hostile)
#
# SQLWITNESS=<binary> measures that binary instead of building the release one
# (to compare two builds on one corpus); TIMEOUT=<seconds> sets `--timeout`.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-out/hostile}"
export SQLWITNESS_POSTGRES_URL="${SQLWITNESS_POSTGRES_URL:-postgres://root@127.0.0.1:5432/test}"
export SQLWITNESS_MYSQL_URL="${SQLWITNESS_MYSQL_URL:-mysql://root@127.0.0.1:3307/test}"
export SQLWITNESS_MARIADB_URL="${SQLWITNESS_MARIADB_URL:-mysql://root@127.0.0.1:3306/test}"
rm -rf "$out" && mkdir -p "$out"
out="$(cd "$out" && pwd)"
# The corpus as the test builds it (generated texts, {tag} filled in).
SQLWITNESS_HOSTILE_EXPORT="$out/corpus" cargo nextest run --workspace \
  -E 'binary(hostile) & test(hostile_corpus)' >/dev/null 2>&1
bin="${SQLWITNESS:-}"
if [[ -z "$bin" ]]; then
  cargo build --release -q -p sqlwitness-cli
  bin="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/sqlwitness"
fi
/usr/bin/time -v "$bin" eval --bench "$out/corpus/bench" --pred "$out/corpus/hostile.jsonl" \
  --engines sqlite,postgres,mysql,mariadb --timeout "${TIMEOUT:-2}" --out "$out/report" -q 2> "$out/eval.log" || true
grep -E "questions|Elapsed|Maximum resident" "$out/eval.log"
python3 - "$out/report/report.json" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
limit = r["run"]["timeout_ms"]
worst = []
for q in r["questions"]:
    for e, o in q["engines"].items():
        p = o.get("pred") or {}
        worst.append((p.get("duration_ms", 0.0), e, q["question"], o["verdict"], p.get("error_class")))
worst.sort(reverse=True)
print(f"report.json {os.path.getsize(sys.argv[1]) / 1e6:.2f} MB; peak RSS (report) {r['run'].get('peak_rss_bytes', 0) / 2**20:.0f} MiB; limit {limit} ms")
for d, e, name, v, c in worst[:6]:
    print(f"  {d:8.0f} ms ({d - limit:+.0f} vs limit)  {e:8} {name:32} {v} {c or ''}")
slowest = {}
for d, e, name, v, c in worst:
    slowest.setdefault(e, (d, name))
print("slowest per engine: " + ", ".join(f"{e} {d:.0f} ms ({name})" for e, (d, name) in sorted(slowest.items())))
PY
"$bin" migrate --bench "$out/corpus/bench" --engines postgres,mysql,mariadb --log-dir "$out/migration" -q
