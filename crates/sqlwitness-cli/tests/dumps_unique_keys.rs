//! A dump's unique keys reach every copy: a table with no primary key but a
//! unique constraint (as sportsdb ships every table), a unique index no
//! constraint owns, and the foreign keys that refer to them. The SQLite
//! file holds each as a unique index; every other engine's copy, migrated
//! from it, holds the keys the data allows.

#[path = "../../../tests/common/dump_copies.rs"]
mod dump_copies;

use std::path::Path;

use dump_copies::{bin, import_command, json, postgres, run, Copies};
use sqlwitness_core::EngineKind;

const DUMP: &str = "\
CREATE TABLE public.locations (id integer NOT NULL, city text);
CREATE TABLE public.codes (code text NOT NULL, label text);
CREATE TABLE public.addresses (id integer NOT NULL, location_id integer, code text);
CREATE TABLE public.pairs (a integer, b integer);
COPY public.locations (id, city) FROM stdin;
1\tParis
2\tBerlin
\\.
INSERT INTO public.codes VALUES ('FR', 'France'), ('DE', 'Germany');
INSERT INTO public.addresses VALUES (10, 1, 'FR'), (11, 2, 'DE'), (12, NULL, NULL);
INSERT INTO public.pairs VALUES (1, 1), (1, NULL), (1, NULL);
ALTER TABLE ONLY public.locations ADD CONSTRAINT locations_id_key UNIQUE (id);
CREATE UNIQUE INDEX codes_code ON public.codes USING btree (code);
CREATE UNIQUE INDEX pairs_a ON public.pairs (a) WHERE b IS NOT NULL;
ALTER TABLE ONLY public.pairs ADD CONSTRAINT pairs_a_b_key UNIQUE (b, a);
ALTER TABLE ONLY public.addresses
    ADD CONSTRAINT fk_loc FOREIGN KEY (location_id) REFERENCES public.locations(id);
ALTER TABLE ONLY public.addresses
    ADD CONSTRAINT fk_code FOREIGN KEY (code) REFERENCES public.codes(code);
";

/// The unique indexes of the SQLite file at `path` that a statement made,
/// as `table(columns)`, sorted.
fn unique_indexes(path: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap();
    let mut out: Vec<String> = c
        .prepare(
            "SELECT m.tbl_name || '(' || (SELECT group_concat(i.name, ',') FROM \
             (SELECT name FROM pragma_index_info(m.name) ORDER BY seqno) i) || ')' \
             FROM sqlite_master m WHERE m.type = 'index' AND m.sql LIKE 'CREATE UNIQUE%'",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    out.sort();
    out
}

#[test]
fn a_dumps_unique_keys_and_the_foreign_keys_to_them_reach_every_copy() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let mut copies = Copies::new("swt_uniq");
    copies.add(pg, &url, "sports");
    let dump = bench.join("sports.sql");
    std::fs::write(&dump, DUMP).unwrap();
    run(&mut import_command(
        pg, &url, &dump, bench, "sports", &copies,
    ));
    let report = json(&bench.join("database/import-report.json"));
    let text = report.to_string();
    assert!(!text.contains("keys_not_kept"), "{report:#}");
    let file = bench.join("database/sports/sports.sqlite");
    // The partial index is no key: it holds only where `b` is set.
    assert_eq!(
        unique_indexes(&file),
        ["codes(code)", "locations(id)", "pairs(b,a)"]
    );
    std::fs::write(
        bench.join("dev.jsonl"),
        serde_json::json!({"db_id": "sports", "gold": "SELECT count(*) FROM addresses"})
            .to_string(),
    )
    .unwrap();
    let mut targets: Vec<(EngineKind, String)> =
        servers.iter().filter(|(k, _)| *k != pg).cloned().collect();
    targets.push((
        EngineKind::Duckdb,
        format!("duckdb:{}", bench.join("duckdb").display()),
    ));
    for (kind, url) in targets {
        copies.add(kind, &url, "sports");
        let logs = bench.join(format!("logs_{kind}"));
        run(bin()
            .args(["migrate", "--bench"])
            .arg(bench)
            .args(["--split", "dev", "--engines", kind.as_str()])
            .args(["--server", &format!("{kind}={url}")])
            .args(["--namespace-prefix", &copies.prefix, "--log-dir"])
            .arg(&logs));
        let log = json(&logs.join(kind.as_str()).join("sports.json"));
        let table = |name: &str| {
            log["tables"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == name)
                .unwrap_or_else(|| panic!("{kind}: no table {name}: {log:#}"))
                .clone()
        };
        for (name, cols) in [
            ("locations", serde_json::json!(["id"])),
            ("codes", serde_json::json!(["code"])),
            ("pairs", serde_json::json!(["b", "a"])),
        ] {
            let keys = &table(name)["unique_keys"];
            assert_eq!(keys[0]["columns"], cols, "{kind}: {name}: {keys}");
            assert_eq!(keys[0]["applied"], true, "{kind}: {name}: {keys}");
        }
        for fk in table("addresses")["foreign_keys"].as_array().unwrap() {
            if kind == EngineKind::Duckdb {
                // DuckDB declares foreign keys only when it creates a table.
                assert!(
                    fk["reason"]
                        .as_str()
                        .unwrap()
                        .starts_with("duckdb declares foreign keys only"),
                    "{fk}"
                );
            } else {
                assert_eq!(fk["applied"], true, "{kind}: {fk}");
            }
        }
    }
}

/// MySQL lists only the plain columns of a unique key with an expression
/// part: those alone are no key (here two rows share `a`), so the key is
/// left out rather than carried as a key on `a`.
#[test]
fn a_mysql_unique_key_with_an_expression_part_is_not_taken_for_its_columns() {
    let servers = sqlwitness_testkit::servers();
    let Some((mysql, url)) = servers
        .iter()
        .find(|(k, _)| *k == EngineKind::Mysql)
        .cloned()
    else {
        sqlwitness_testkit::missing("MySQL");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    let mut copies = Copies::new("swt_uexpr");
    copies.add(mysql, &url, "expr");
    let dump = bench.join("expr.sql");
    std::fs::write(
        &dump,
        "CREATE TABLE `f` (`id` int NOT NULL, `a` int, `b` varchar(10),\n\
         PRIMARY KEY (`id`), UNIQUE KEY `u` (`a`, (lower(`b`))), UNIQUE KEY `ok` (`b`));\n\
         INSERT INTO `f` VALUES (1, 1, 'x'), (2, 1, 'y');\n",
    )
    .unwrap();
    run(&mut import_command(
        mysql, &url, &dump, bench, "expr", &copies,
    ));
    let report = json(&bench.join("database/import-report.json"));
    assert!(!report.to_string().contains("keys_not_kept"), "{report:#}");
    assert_eq!(
        unique_indexes(&bench.join("database/expr/expr.sqlite")),
        ["f(b)"]
    );
}
