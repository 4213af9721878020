#!/usr/bin/env python3
"""How long Ctrl-C takes to stop a run of the Python API, per engine.

For each engine, a child Python process calls `sqlwitness.evaluate` on the
shipped Spider example (`concert_singer`, two questions) with predictions that
run for minutes, sends itself SIGINT a few seconds in (as Ctrl-C in a terminal
or "Interrupt kernel" in Jupyter does), and reports how long after the signal
`KeyboardInterrupt` reached Python. Run it with the Python that has the wheel
installed, from the repository's root:

    python scripts/bench-interrupt.py [ENGINE ...]

Engines default to sqlite and duckdb, plus each server whose
SQLWITNESS_<ENGINE>_URL is set (postgres, mysql, mariadb). Prints one line per
engine and run: the seconds from the signal to KeyboardInterrupt, and to the
process's exit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

RUNS = 3
SIGNAL_AFTER_S = 3.0

# SQLite: the count of an endless sequence, until the time limit.
ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

# The others: minutes of CPU with little memory, eight copies of the six-row
# singer table, a 20 kB string built for every row.
HEAVY = (
    "SELECT count(*) FROM singer s0, singer s1, singer s2, singer s3, singer s4, "
    "singer s5, singer s6, singer s7 WHERE length(repeat(s0.Name, 20000 + {ages})) > 0"
)

CHILD = r"""
import json, os, signal, sys, threading, time
import sqlwitness
engine, servers, out, heavy = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], sys.argv[4]
sent = {}
def interrupt():
    sent["at"] = time.monotonic()
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer(float(sys.argv[5]), interrupt).start()
try:
    sqlwitness.evaluate("examples/spider-dev", "dev", [heavy, heavy], db="concert_singer",
                        limit=2, engines=engine, servers=servers or None, timeout=600, jobs=2,
                        out=out)
    print(json.dumps({"error": "the run ended before the signal"}))
except KeyboardInterrupt:
    print(json.dumps({"raised_s": time.monotonic() - sent["at"]}), flush=True)
"""


def engines_from_env() -> list[str]:
    chosen = ["sqlite", "duckdb"]
    for engine in ("postgres", "mysql", "mariadb"):
        if os.environ.get(f"SQLWITNESS_{engine.upper()}_URL"):
            chosen.append(engine)
    return chosen


def heavy_for(engine: str) -> str:
    if engine == "sqlite":
        return ENDLESS
    # Every copy's age in the string's length: no copy can be left out of
    # the work. PostgreSQL adds the ages as integers only with a cast.
    ages = " + ".join(f"s{i}.Age" for i in range(1, 8))
    if engine == "postgres":
        ages = f"CAST({ages} AS INTEGER)"
    return HEAVY.format(ages=ages)


def run_once(engine: str, work: str) -> dict:
    servers = {}
    if engine in ("postgres", "mysql", "mariadb"):
        servers[engine] = os.environ[f"SQLWITNESS_{engine.upper()}_URL"]
    if engine == "duckdb":
        servers["duckdb"] = "duckdb:" + os.path.join(work, "duckdb")
    out = tempfile.mkdtemp(dir=work)
    started = time.monotonic()
    child = subprocess.run(
        [sys.executable, "-c", CHILD, engine, json.dumps(servers), out, heavy_for(engine),
         str(SIGNAL_AFTER_S)],
        capture_output=True, text=True, check=False,
    )
    ended = time.monotonic() - started
    lines = [line for line in child.stdout.splitlines() if line.startswith("{")]
    result = json.loads(lines[-1]) if lines else {"error": child.stderr.strip()[-300:]}
    if "raised_s" in result:
        result["exit_s"] = ended - SIGNAL_AFTER_S
    return result


def main() -> None:
    engines = sys.argv[1:] or engines_from_env()
    with tempfile.TemporaryDirectory() as work:
        print(f"{'engine':10} {'run':>3} {'KeyboardInterrupt (s)':>22} {'process exit (s)':>17}")
        for engine in engines:
            for run in range(1, RUNS + 1):
                r = run_once(engine, work)
                if "raised_s" in r:
                    print(f"{engine:10} {run:>3} {r['raised_s']:>22.2f} {r['exit_s']:>17.2f}")
                else:
                    print(f"{engine:10} {run:>3} {'failed: ' + r['error']}")


if __name__ == "__main__":
    main()
