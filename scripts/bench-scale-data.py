#!/usr/bin/env python3
"""Data and tables for scripts/bench-scale.sh (standard library only, Python 3.9+).

`generate` writes a BIRD-like benchmark in the Spider layout:

    DIR/database/DB/DB.sqlite   the database (ROWS rows in all, fixed seed)
    DIR/tables.json             its schema, keys and foreign keys
    DIR/dev.json                questions with gold SQL over the big tables
    DIR/predictions.sql         one prediction a line (some right, some wrong)
    DIR/floor/*.sql             the same tables for the bulk-load floors (no keys),
                                and the keys added after the load
    DIR/manifest.json           seed, rows per table, generator version

The schema is BIRD's debit_card_specializing (same tables and columns) with a
few columns added so that every kind of value BIRD stores is there: dates and
times as text, reals with NULLs, short and long text, a composite primary key
and foreign keys from the big fact table into the dimension tables. The same
arguments write the same rows (the generator draws only from random.random()
of a seeded generator). A folder whose manifest matches is left as it is.

`report` reads the CSV the script writes and prints the Markdown tables, and
writes the gnuplot script and data for the plot.
"""

import argparse
import csv
import datetime
import json
import os
import random
import sqlite3
import sys
import time

GENERATOR_VERSION = 1

# name, SQLite declared type, tables.json type, PostgreSQL type, MySQL type
TABLES = {
    "customers": [
        ("CustomerID", "INTEGER", "integer", "bigint", "BIGINT"),
        ("Segment", "TEXT", "text", "text", "VARCHAR(255)"),
        ("Currency", "TEXT", "text", "text", "VARCHAR(255)"),
        ("JoinDate", "DATE", "date", "date", "DATE"),
        ("Email", "TEXT", "text", "text", "VARCHAR(255)"),
        ("Notes", "TEXT", "text", "text", "TEXT"),
    ],
    "gasstations": [
        ("GasStationID", "INTEGER", "integer", "bigint", "BIGINT"),
        ("ChainID", "INTEGER", "integer", "bigint", "BIGINT"),
        ("Country", "TEXT", "text", "text", "VARCHAR(255)"),
        ("Segment", "TEXT", "text", "text", "VARCHAR(255)"),
    ],
    "products": [
        ("ProductID", "INTEGER", "integer", "bigint", "BIGINT"),
        ("Description", "TEXT", "text", "text", "VARCHAR(255)"),
    ],
    "transactions_1k": [
        ("TransactionID", "INTEGER", "integer", "bigint", "BIGINT"),
        ("Date", "DATE", "date", "date", "DATE"),
        ("Time", "TEXT", "text", "text", "VARCHAR(255)"),
        ("CustomerID", "INTEGER", "integer", "bigint", "BIGINT"),
        ("CardID", "INTEGER", "integer", "bigint", "BIGINT"),
        ("GasStationID", "INTEGER", "integer", "bigint", "BIGINT"),
        ("ProductID", "INTEGER", "integer", "bigint", "BIGINT"),
        ("Amount", "INTEGER", "integer", "bigint", "BIGINT"),
        ("Price", "REAL", "real", "double precision", "DOUBLE"),
    ],
    "yearmonth": [
        ("CustomerID", "INTEGER", "integer", "bigint", "BIGINT"),
        ("Date", "TEXT", "text", "text", "VARCHAR(255)"),
        ("Consumption", "REAL", "real", "double precision", "DOUBLE"),
    ],
}
PRIMARY_KEYS = {
    "customers": ["CustomerID"],
    "gasstations": ["GasStationID"],
    "products": ["ProductID"],
    "transactions_1k": ["TransactionID"],
    "yearmonth": ["CustomerID", "Date"],
}
# (child table, child column, parent table, parent column)
FOREIGN_KEYS = [
    ("transactions_1k", "CustomerID", "customers", "CustomerID"),
    ("transactions_1k", "GasStationID", "gasstations", "GasStationID"),
    ("transactions_1k", "ProductID", "products", "ProductID"),
    ("yearmonth", "CustomerID", "customers", "CustomerID"),
]
NATURAL = {
    "Segment": "client segment",
    "JoinDate": "join date",
    "Notes": "account notes",
    "GasStationID": "gas station id",
    "ChainID": "chain id",
    "CustomerID": "customer id",
    "ProductID": "product id",
    "TransactionID": "transaction id",
    "CardID": "card id",
}

# (question, gold, prediction): golds in BIRD's SQLite dialect; predictions
# marked right or wrong on SQLite.
QUESTIONS = [
    (
        "Which client segment consumed the most in 2013?",
        "SELECT T1.Segment FROM customers AS T1 INNER JOIN yearmonth AS T2 "
        "ON T1.CustomerID = T2.CustomerID WHERE T2.Date BETWEEN '201301' AND '201312' "
        "GROUP BY T1.Segment ORDER BY SUM(T2.Consumption) DESC LIMIT 1",
        "SELECT T1.Segment FROM customers AS T1 JOIN yearmonth AS T2 "
        "ON T1.CustomerID = T2.CustomerID WHERE T2.Date LIKE '2013%' "
        "GROUP BY T1.Segment ORDER BY SUM(T2.Consumption) DESC LIMIT 1",  # right
    ),
    (
        "How many transactions were paid in CZK on 2012-08-24?",
        "SELECT COUNT(T1.TransactionID) FROM transactions_1k AS T1 INNER JOIN customers AS T2 "
        "ON T1.CustomerID = T2.CustomerID WHERE T1.Date = '2012-08-24' AND T2.Currency = 'CZK'",
        "SELECT COUNT(T1.TransactionID) FROM transactions_1k AS T1 INNER JOIN customers AS T2 "
        "ON T1.CustomerID = T2.CustomerID WHERE T1.Date = '2012-08-24' AND T2.Currency = 'EUR'",  # wrong
    ),
    (
        "Which five gas stations in the Czech Republic sold the largest total amount?",
        "SELECT T2.GasStationID, SUM(T1.Amount) FROM transactions_1k AS T1 INNER JOIN gasstations AS T2 "
        "ON T1.GasStationID = T2.GasStationID WHERE T2.Country = 'CZE' "
        "GROUP BY T2.GasStationID ORDER BY SUM(T1.Amount) DESC LIMIT 5",
        "SELECT T2.GasStationID, SUM(T1.Amount) AS total FROM transactions_1k AS T1 "
        "INNER JOIN gasstations AS T2 ON T1.GasStationID = T2.GasStationID "
        "WHERE T2.Country = 'CZE' GROUP BY T2.GasStationID ORDER BY total DESC LIMIT 5",  # right
    ),
    (
        "Which three products had the highest average price per unit in 2013?",
        "SELECT T2.Description, AVG(T1.Price / T1.Amount) FROM transactions_1k AS T1 "
        "INNER JOIN products AS T2 ON T1.ProductID = T2.ProductID "
        "WHERE T1.Date BETWEEN '2013-01-01' AND '2013-12-31' "
        "GROUP BY T2.Description ORDER BY AVG(T1.Price / T1.Amount) DESC LIMIT 3",
        "SELECT T2.Description, AVG(T1.Price / T1.Amount) FROM transactions_1k AS T1 "
        "INNER JOIN products AS T2 ON T1.ProductID = T2.ProductID "
        "WHERE T1.Date BETWEEN '2013-01-01' AND '2013-12-31' "
        "GROUP BY T2.Description ORDER BY AVG(T1.Price / T1.Amount) ASC LIMIT 3",  # wrong
    ),
    (
        "Which customer had the highest consumption in September 2013?",
        "SELECT CustomerID FROM yearmonth WHERE Date = '201309' ORDER BY Consumption DESC LIMIT 1",
        "SELECT CustomerID FROM yearmonth WHERE Date = '201309' AND Consumption IS NOT NULL "
        "ORDER BY Consumption DESC LIMIT 1",  # right
    ),
    (
        "What is the ratio of customers who pay in EUR to those who pay in CZK?",
        "SELECT CAST(SUM(IIF(Currency = 'EUR', 1, 0)) AS FLOAT) / SUM(IIF(Currency = 'CZK', 1, 0)) "
        "AS ratio FROM customers",
        "SELECT CAST(SUM(CASE WHEN Currency = 'EUR' THEN 1 ELSE 0 END) AS REAL) / "
        "SUM(CASE WHEN Currency = 'CZK' THEN 1 ELSE 0 END) FROM customers",  # right
    ),
    (
        "In which countries are the gas stations where customers whose notes mention an invoice "
        "bought in August 2012?",
        "SELECT DISTINCT T2.Country FROM transactions_1k AS T1 INNER JOIN gasstations AS T2 "
        "ON T1.GasStationID = T2.GasStationID INNER JOIN customers AS T3 "
        "ON T1.CustomerID = T3.CustomerID WHERE T1.Date BETWEEN '2012-08-01' AND '2012-08-31' "
        "AND T3.Notes LIKE '%invoice%'",
        "SELECT DISTINCT T2.Country FROM transactions_1k AS T1 INNER JOIN gasstations AS T2 "
        "ON T1.GasStationID = T2.GasStationID INNER JOIN customers AS T3 "
        "ON T1.CustomerID = T3.CustomerID WHERE T1.Date LIKE '2012-08%' "
        "AND T3.Notes LIKE '%invoice%'",  # right on SQLite
    ),
    (
        "In which month of 2012 was the total consumption highest?",
        "SELECT SUBSTR(Date, 5, 2), SUM(Consumption) FROM yearmonth WHERE Date LIKE '2012%' "
        "GROUP BY SUBSTR(Date, 5, 2) ORDER BY SUM(Consumption) DESC LIMIT 1",
        "SELECT SUBSTR(Date, 5, 2), SUM(Consumption) FROM yearmonth WHERE Date LIKE '2012%' "
        "GROUP BY SUBSTR(Date, 5, 2) ORDER BY SUM(Consumption) ASC LIMIT 1",  # wrong
    ),
]

WORDS = (
    "account card fleet invoice monthly discount station fuel diesel premium contract "
    "customer payment transfer limit review renewal corporate private branch regional "
    "manager contact request statement balance overdue credit debit surcharge rebate "
    "loyalty service toll wash parking lubricant delivery truck van route depot "
    "quarterly annual report audit note call email letter visit meeting agreement "
    "terms price change update closed opened blocked replaced lost stolen pin reset "
    "the a of to and for with on at by from after before during until per"
).split()
PRODUCT_NAMES = (
    "Nafta|Natural|Natural 95|Natural 98|Diesel Premium|LPG|CNG|AdBlue|Motor oil|"
    "Car wash|Dalnicni znamka|Coffee|Snack|Newspaper|Tyre service|Windscreen fluid|"
    "Antifreeze|Battery|Parking|Toll|Oil change|Engine cleaner|Wipers|Bulbs|Vignette"
).split("|")
STATION_SEGMENTS = ["Value for money", "Premium", "Other", "Noname", "Discount"]


def parse_rows(text):
    """`1M` → 1000000, `500K` → 500000, `250000` → 250000."""
    t = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(t[-1:], 1)
    number = t[:-1] if scale != 1 else t
    try:
        value = float(number) * scale
    except ValueError:
        raise SystemExit(f"bench-scale-data: `{text}` is not a row count (1M, 500K, 250000)")
    if value < 10_000:
        raise SystemExit(f"bench-scale-data: `{text}`: at least 10K rows")
    return int(value)


def table_sizes(total):
    """Rows per dimension table; the fact table takes what the others leave."""
    return {
        "products": min(1000, max(50, total // 1000)),
        "gasstations": max(100, total // 400),
        "customers": max(100, total // 20),
    }


def day_strings(first, last):
    d, out = first, []
    while d <= last:
        out.append(d.isoformat())
        d += datetime.timedelta(days=1)
    return out


def customers(rng, n):
    r = rng.random
    join_days = day_strings(datetime.date(2005, 1, 1), datetime.date(2011, 12, 31))
    domains = ["example.cz", "mail.example", "firma.example", "corp.example"]
    for cid in range(1, n + 1):
        x = r()
        segment = "SME" if x < 0.6 else ("LAM" if x < 0.85 else "KAM")
        currency = "CZK" if r() < 0.9 else "EUR"
        joined = join_days[int(r() * len(join_days))]
        email = None if r() < 0.2 else f"c{cid}@{domains[int(r() * len(domains))]}"
        notes = None
        if r() >= 0.7:
            notes = " ".join(rng.choices(WORDS, k=15 + int(85 * r()))).capitalize() + "."
        yield (cid, segment, currency, joined, email, notes)


def gasstations(rng, n):
    r = rng.random
    for gid in range(1, n + 1):
        yield (
            gid,
            1 + int(r() * 300),
            "CZE" if r() < 0.8 else "SVK",
            STATION_SEGMENTS[int(r() * len(STATION_SEGMENTS))],
        )


def products(n):
    for pid in range(1, n + 1):
        base = PRODUCT_NAMES[(pid - 1) % len(PRODUCT_NAMES)]
        rnd = (pid - 1) // len(PRODUCT_NAMES)
        yield (pid, base if rnd == 0 else f"{base} {rnd}")


def yearmonth(rng, n_customers, counter):
    r = rng.random
    months = [f"{y}{m:02d}" for y in (2012, 2013) for m in range(1, 13)]
    for cid in range(1, n_customers + 1):
        k = 1 + int(r() * 7)  # active for k consecutive months
        start = int(r() * (len(months) - k + 1))
        for month in months[start : start + k]:
            consumption = None if r() < 0.03 else round(r() * r() * 100000, 2)
            counter[0] += 1
            yield (cid, month, consumption)


def transactions(rng, n, n_customers, n_stations, unit_prices):
    r = rng.random
    days = day_strings(datetime.date(2012, 1, 1), datetime.date(2013, 12, 31))
    times = [f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}" for s in range(86400)]
    n_days, n_products = len(days), len(unit_prices)
    for tid in range(1, n + 1):
        cid = 1 + int(n_customers * r() ** 2)  # a few customers buy most
        pid = 1 + int(n_products * r())
        amount = 1 + int(60 * r() ** 2)
        price = None if r() < 0.05 else round(amount * unit_prices[pid - 1] * (0.9 + 0.2 * r()), 2)
        yield (
            tid,
            days[int(n_days * r())],
            times[int(86400 * r())],
            cid,
            100000 + 3 * cid + int(3 * r()),
            1 + int(n_stations * r()),
            pid,
            amount,
            price,
        )


def create_sql(table):
    cols = []
    for name, decl, *_ in TABLES[table]:
        col = f'"{name}" {decl}'
        if name in PRIMARY_KEYS[table]:
            col += " NOT NULL"
        for child, ccol, parent, pcol in FOREIGN_KEYS:
            if child == table and ccol == name:
                col += f' REFERENCES "{parent}" ("{pcol}")'
        cols.append(col)
    cols.append("PRIMARY KEY (" + ", ".join(f'"{c}"' for c in PRIMARY_KEYS[table]) + ")")
    return f'CREATE TABLE "{table}" (\n  ' + ",\n  ".join(cols) + "\n)"


def write_database(path, total, seed):
    rng = random.Random(seed)
    sizes = table_sizes(total)
    tmp = path + ".partial"
    if os.path.exists(tmp):
        os.remove(tmp)
    con = sqlite3.connect(tmp)
    con.execute("PRAGMA journal_mode = OFF")
    con.execute("PRAGMA synchronous = OFF")
    con.execute("PRAGMA cache_size = -262144")
    for table in TABLES:
        con.execute(create_sql(table))

    def insert(table, rows):
        marks = ", ".join("?" * len(TABLES[table]))
        con.executemany(f'INSERT INTO "{table}" VALUES ({marks})', rows)

    insert("products", products(sizes["products"]))
    insert("gasstations", gasstations(rng, sizes["gasstations"]))
    insert("customers", customers(rng, sizes["customers"]))
    counter = [0]
    insert("yearmonth", yearmonth(rng, sizes["customers"], counter))
    sizes["yearmonth"] = counter[0]
    fact = total - sum(sizes.values())
    if fact < 1:
        raise SystemExit(f"bench-scale-data: {total} rows leave no room for the fact table")
    unit_prices = [round(20 + 40 * rng.random(), 2) for _ in range(sizes["products"])]
    insert(
        "transactions_1k",
        transactions(rng, fact, sizes["customers"], sizes["gasstations"], unit_prices),
    )
    sizes["transactions_1k"] = fact
    con.commit()
    con.close()
    os.replace(tmp, path)
    return {t: sizes[t] for t in TABLES}


def tables_json(db_id):
    names = list(TABLES)
    cols, natural, types, index = [[-1, "*"]], [[-1, "*"]], ["text"], {}
    for ti, table in enumerate(names):
        for name, _decl, jtype, *_ in TABLES[table]:
            index[(table, name)] = len(cols)
            cols.append([ti, name])
            natural.append([ti, NATURAL.get(name, name.lower())])
            types.append(jtype)
    pks = []
    for table in names:
        key = [index[(table, c)] for c in PRIMARY_KEYS[table]]
        pks.append(key[0] if len(key) == 1 else key)
    fks = [[index[(c, cc)], index[(p, pc)]] for c, cc, p, pc in FOREIGN_KEYS]
    return [
        {
            "db_id": db_id,
            "table_names_original": names,
            "table_names": [n.replace("_", " ") for n in names],
            "column_names_original": cols,
            "column_names": natural,
            "column_types": types,
            "primary_keys": pks,
            "foreign_keys": fks,
        }
    ]


def floor_sql(engine):
    """CREATE TABLE without keys for the floors, and the keys added after."""
    q = (lambda s: f'"{s}"') if engine == "postgres" else (lambda s: f"`{s}`")
    ti = 3 if engine == "postgres" else 4
    create, keys = [], []
    for table, columns in TABLES.items():
        body = ", ".join(f"{q(c[0])} {c[ti]}" for c in columns)
        create.append(f"CREATE TABLE {q(table)} ({body});")
        pk = ", ".join(q(c) for c in PRIMARY_KEYS[table])
        keys.append(f"ALTER TABLE {q(table)} ADD PRIMARY KEY ({pk});")
    for child, ccol, parent, pcol in FOREIGN_KEYS:
        keys.append(
            f"ALTER TABLE {q(child)} ADD FOREIGN KEY ({q(ccol)}) REFERENCES {q(parent)} ({q(pcol)});"
        )
    if engine == "mysql":
        # as a bulk loader adds them (and mysqldump): without re-checking every row,
        # which would copy the whole table on MySQL and MariaDB
        keys.insert(0, "SET foreign_key_checks = 0;")
    return "\n".join(create) + "\n", "\n".join(keys) + "\n"


def generate(args):
    total = parse_rows(args.rows)
    out = args.out
    manifest_path = os.path.join(out, "manifest.json")
    wanted = {"generator": GENERATOR_VERSION, "db_id": args.db_id, "seed": args.seed, "rows": total}
    db_path = os.path.join(out, "database", args.db_id, args.db_id + ".sqlite")
    if os.path.exists(manifest_path) and os.path.exists(db_path):
        with open(manifest_path) as f:
            have = json.load(f)
        if all(have.get(k) == v for k, v in wanted.items()):
            print(f"{db_path}: up to date ({total} rows)", file=sys.stderr)
            return
        os.remove(manifest_path)
    os.makedirs(os.path.dirname(db_path), exist_ok=True)
    os.makedirs(os.path.join(out, "floor"), exist_ok=True)
    started = time.monotonic()
    print(f"{db_path}: generating {total} rows (seed {args.seed})", file=sys.stderr)
    tables = write_database(db_path, total, args.seed)

    def dump(name, value):
        with open(os.path.join(out, name), "w") as f:
            json.dump(value, f, indent=1)
            f.write("\n")

    dump("tables.json", tables_json(args.db_id))
    dump(
        "dev.json",
        [{"db_id": args.db_id, "question": q, "query": gold} for q, gold, _ in QUESTIONS],
    )
    with open(os.path.join(out, "predictions.sql"), "w") as f:
        f.writelines(pred + "\n" for _, _, pred in QUESTIONS)
    for engine in ("postgres", "mysql"):
        create, keys = floor_sql(engine)
        with open(os.path.join(out, "floor", f"{engine}.sql"), "w") as f:
            f.write(create)
        with open(os.path.join(out, "floor", f"{engine}-keys.sql"), "w") as f:
            f.write(keys)
    with open(os.path.join(out, "floor", "tables.txt"), "w") as f:
        f.writelines(t + "\n" for t in TABLES)
    seconds = round(time.monotonic() - started, 1)
    dump(
        "manifest.json",
        {**wanted, "tables": tables, "bytes": os.path.getsize(db_path), "seconds": seconds},
    )
    print(f"{db_path}: {total} rows in {seconds} s", file=sys.stderr)


# ---------------------------------------------------------------- report

STEP_LABELS = {
    "floor_copy": "floor: `sqlite3 -csv \\| psql \\copy`",
    "floor_load_data": "floor: `LOAD DATA LOCAL INFILE`",
    "floor_insert": "floor: multi-row `INSERT` via `mysql`",
    "floor_keys": "floor: + primary and foreign keys after the load",
    "pgloader": "pgloader",
    "migrate": "sqlwitness `migrate` (fresh)",
    "migrate_again": "sqlwitness `migrate` (copy up to date)",
    "eval": "sqlwitness `eval`",
    "eval_no_migrate": "sqlwitness `eval --no-migrate`",
    "audit": "sqlwitness `audit`",
    "fuzz": "sqlwitness `fuzz`",
}
ENGINE_LABELS = {
    "postgres": "PostgreSQL",
    "mariadb": "MariaDB",
    "mysql": "MySQL",
    "sqlite": "SQLite (no server)",
}


def human_rows(n):
    n = float(n)
    for unit, div in (("M", 1e6), ("k", 1e3)):
        if n >= div:
            return f"{n / div:.3g}{unit}"
    return f"{n:.0f}"


def human_bytes(kb):
    b = float(kb) * 1024
    for unit, div in (("GB", 1024**3), ("MB", 1024**2)):
        if b >= div:
            return f"{b / div:.3g} {unit}"
    return f"{b / 1024:.0f} kB"


def floor_of(rows, size, engine):
    """The engine's bulk-load floor at that size, (step, seconds): \\copy on
    PostgreSQL, LOAD DATA where the server allows it, else the INSERT floor."""
    for step in ("floor_copy", "floor_load_data", "floor_insert"):
        for r in rows:
            if (r["size"], r["engine"], r["step"], r["status"]) == (size, engine, step, "ok"):
                return step, float(r["wall_s"])
    return None, None


def cell(r, floor):
    if r["status"] != "ok":
        return f"{r['status']}: {r['note']}" if r["note"] else r["status"]
    wall = float(r["wall_s"])
    text = f"{wall:.1f} s · {human_rows(r['rows_per_s'])} rows/s · {human_bytes(r['peak_rss_kb'])}"
    floor_step, floor_wall = floor
    loads = ("migrate", "pgloader", "floor_insert")
    if floor_wall and r["step"] in loads and r["step"] != floor_step:
        text += f" · **{wall / floor_wall:.1f}×** floor"
    routine = ("row counts checked", "CSV through a FIFO; row counts checked")
    if r["note"] and r["note"] not in routine:
        text += f" · {r['note']}"
    return text


def report(args):
    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit(f"bench-scale-data: {args.csv} holds no measurement")
    sizes = []
    for r in rows:
        if (r["size"], r["rows"]) not in sizes:
            sizes.append((r["size"], r["rows"]))
    out = []
    engines = [e for e in ENGINE_LABELS if any(r["engine"] == e for r in rows)]
    for engine in engines:
        steps = [s for s in STEP_LABELS if any(r["engine"] == engine and r["step"] == s for r in rows)]
        out.append(f"**{ENGINE_LABELS[engine]}**\n")
        out.append("| step | " + " | ".join(f"{s} ({int(n):,} rows)" for s, n in sizes) + " |")
        out.append("|---|" + "---|" * len(sizes))
        for step in steps:
            cells = []
            for size, _ in sizes:
                match = [
                    r for r in rows if (r["size"], r["engine"], r["step"]) == (size, engine, step)
                ]
                cells.append(cell(match[-1], floor_of(rows, size, engine)) if match else "—")
            out.append(f"| {STEP_LABELS[step]} | " + " | ".join(cells) + " |")
        out.append("")
    with open(args.markdown, "w") as f:
        f.write("\n".join(out))
    if args.plot:
        write_plot(rows, engines, args.plot)


def write_plot(rows, engines, png):
    """gnuplot data (one block per engine and step) and script: wall time and
    peak RSS against rows, one panel per engine, log-log."""
    base = os.path.splitext(png)[0]
    blocks, panels = [], []
    for engine in engines:
        series = []
        for step in STEP_LABELS:
            points = [
                (int(r["rows"]), float(r["wall_s"]), float(r["peak_rss_kb"]) / 1024)
                for r in rows
                if r["engine"] == engine and r["step"] == step and r["status"] == "ok"
            ]
            if points:
                series.append((step, len(blocks)))
                blocks.append(sorted(points))
        if series:
            panels.append((engine, series))
    for stale in (png, base + ".gp", base + ".dat"):
        if os.path.exists(stale):
            os.remove(stale)
    if not panels:
        print("bench-scale-data: nothing measured to plot", file=sys.stderr)
        return
    with open(base + ".dat", "w") as f:
        for i, points in enumerate(blocks):
            if i:
                f.write("\n\n")
            f.write(f"# block {i}\n")
            f.writelines(f"{n} {t:.3f} {m:.1f}\n" for n, t, m in points)
    all_rows = sorted({int(r["rows"]) for r in rows})
    xmin, xmax = all_rows[0] / 1.5, all_rows[-1] * 1.5
    styles = {
        "floor_copy": "lc rgb '#555555' dt 2",
        "floor_load_data": "lc rgb '#555555' dt 2",
        "floor_insert": "lc rgb '#999999' dt 3",
        "floor_keys": "lc rgb '#aaaaaa' dt 4",
        "pgloader": "lc rgb '#8c564b' dt 5",
        "migrate": "lc rgb '#d62728'",
        "migrate_again": "lc rgb '#ff7f0e'",
        "eval": "lc rgb '#1f77b4'",
        "eval_no_migrate": "lc rgb '#17becf'",
        "audit": "lc rgb '#2ca02c'",
        "fuzz": "lc rgb '#9467bd'",
    }
    plain = {
        k: v.replace("`", "").replace("\\|", "|").replace("\\copy", "copy")
        for k, v in STEP_LABELS.items()
    }
    # Top row: time; middle row: memory; one legend for every panel below.
    n = len(panels)
    gp = [
        f"set terminal pngcairo size {300 * n + 60},820 font ',9' noenhanced",
        f"set output '{png}'",
        "set multiplot",
        "set logscale xy",
        f"set xrange [{xmin}:{xmax}]",
        "set xtics (" + ", ".join(f"'{human_rows(r)}' {r}" for r in all_rows) + ")",
        "set grid",
        "unset key",
        "set lmargin 9",
        "set rmargin 2",
    ]
    for row, (col, ylabel) in enumerate(((2, "wall time (s)"), (3, "peak RSS of the client (MB)"))):
        for i, (engine, series) in enumerate(panels):
            gp.append(f"set origin {i / n:.4f},{0.58 - 0.41 * row:.2f}")
            gp.append(f"set size {1 / n:.4f},0.41")
            gp.append(f"set title '{ENGINE_LABELS[engine]}'")
            gp.append(f"set ylabel '{ylabel}'")
            gp.append("set xlabel 'rows'")
            plots = [
                f"'{base}.dat' index {block} using 1:{col} with linespoints lw 2 pt 7 ps 0.6 {styles[step]}"
                for step, block in series
            ]
            gp.append("plot " + ", \\\n     ".join(plots))
    steps = [step for step in STEP_LABELS if any(step == st for _, ss in panels for st, _ in ss)]
    gp += [
        "set origin 0.04,0",
        "set size 0.96,0.17",
        "unset logscale xy",
        "unset title",
        "unset xlabel",
        "unset ylabel",
        "unset border",
        "unset tics",
        "unset grid",
        "set xrange [0:1]",
        "set yrange [0:1]",
        "set key center center Left reverse maxrows 4 font ',9' spacing 1.2 width 2",
        "plot "
        + ", \\\n     ".join(
            f"NaN with linespoints lw 2 pt 7 ps 0.6 {styles[step]} title '{plain[step]}'" for step in steps
        ),
    ]
    gp.append("unset multiplot")
    with open(base + ".gp", "w") as f:
        f.write("\n".join(gp) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="write a BIRD-like benchmark of ROWS rows")
    g.add_argument("--rows", required=True, help="rows in all: 1M, 4M, 16M, 500K …")
    g.add_argument("--db-id", required=True)
    g.add_argument("--seed", type=int, default=20240)
    g.add_argument("--out", required=True, help="the benchmark folder")
    g.set_defaults(run=generate)
    r = sub.add_parser("report", help="Markdown tables and the plot from the results CSV")
    r.add_argument("--csv", required=True)
    r.add_argument("--markdown", required=True)
    r.add_argument("--plot", help="PNG to plot into: writes its .gp and .dat beside it")
    r.set_defaults(run=report)
    args = p.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
