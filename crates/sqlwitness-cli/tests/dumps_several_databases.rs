//! Dumps of several databases, as their publishers ship them: pg_dumpall's
//! cluster dump (the cluster's roles, then each database after its
//! `\connect`) and mysqldump's `--databases` (each after its `USE`). One
//! database is loaded, chosen with `--database` (or a manifest entry's
//! `database`); no other database's statement is read, run or refused.
//! Without a choice, a dump of several of which only one creates tables
//! loads that one; one of several with tables is refused, naming them.

#[path = "../../../tests/common/dump_copies.rs"]
mod dump_copies;

use std::path::Path;

use dump_copies::{bin, json, postgres, run, Copies};
use sqlwitness_core::EngineKind;

/// pg_dumpall's layout. The cluster's own statements and the other
/// databases' hold what the loader refuses (a superuser role, a program
/// run by `COPY`, a server setting): none of it is read.
const CLUSTER: &str = "\
--
-- PostgreSQL database cluster dump
--
SET default_transaction_read_only = off;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
CREATE ROLE postgres;
ALTER ROLE postgres WITH SUPERUSER INHERIT CREATEROLE CREATEDB LOGIN REPLICATION BYPASSRLS;
\\connect template1
SET statement_timeout = 0;
COPY (SELECT 1) TO PROGRAM 'id';
--
-- Database \"shop\" dump
--
CREATE DATABASE shop WITH TEMPLATE = template0 ENCODING = 'UTF8';
ALTER DATABASE shop OWNER TO postgres;
\\connect shop
SET statement_timeout = 0;
SET client_encoding = 'UTF8';
CREATE TABLE public.item (id integer NOT NULL, name text);
COPY public.item (id, name) FROM stdin;
1\tpen
2\tink
\\.
ALTER TABLE ONLY public.item ADD CONSTRAINT item_pkey PRIMARY KEY (id);
--
-- Database \"other\" dump
--
CREATE DATABASE other WITH TEMPLATE = template0 ENCODING = 'UTF8';
\\connect other
CREATE TABLE public.item (id integer NOT NULL);
COPY public.item (id) FROM stdin;
9
\\.
ALTER SYSTEM SET work_mem = '1GB';
--
-- PostgreSQL database cluster dump complete
--
";

fn count(path: &Path, sql: &str) -> i64 {
    rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

fn import(
    kind: EngineKind,
    url: &str,
    dump: &Path,
    out: &Path,
    extra: &[&str],
    copies: &Copies,
) -> std::process::Output {
    bin()
        .args(["import", "--engine", kind.as_str(), "--server", url])
        .args(["--namespace-prefix", &copies.prefix])
        .args(extra)
        .arg("--out")
        .arg(out)
        .arg("--dump")
        .arg(dump)
        .output()
        .unwrap()
}

#[test]
fn one_database_of_a_cluster_dump_is_loaded_and_nothing_of_the_others_is_read() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("cluster.sql");
    std::fs::write(&dump, CLUSTER).unwrap();
    let out = dir.path().join("database");
    let mut copies = Copies::new("swt_cluster");
    copies.add(pg, &url, "shop");
    // Without a choice: refused at the cluster's role, naming the
    // databases the dump holds.
    let o = import(pg, &url, &dump, &out, &["--db-id", "whole"], &copies);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{stderr}");
    assert!(
        stderr.contains("several databases (template1, shop, other; tables in shop, other)")
            && stderr.contains("--database"),
        "{stderr}"
    );
    // Chosen: its rows only; the db_id is its name.
    let o = import(pg, &url, &dump, &out, &["--database", "shop"], &copies);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let file = out.join("shop/shop.sqlite");
    assert_eq!(count(&file, "SELECT count(*) FROM item"), 2);
    assert_eq!(count(&file, "SELECT sum(id) FROM item"), 3);
    let report = json(&out.join("import-report.json"));
    let skipped = report["skipped"].to_string();
    assert!(skipped.contains("database other of the dump"), "{skipped}");
    // The same dump and choice again: nothing to do.
    let o = import(pg, &url, &dump, &out, &["--database", "shop"], &copies);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && stderr.contains("nothing to do"),
        "{stderr}"
    );
    // A database the dump does not hold: an error naming it.
    let o = import(pg, &url, &dump, &out, &["--database", "nowhere"], &copies);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{stderr}");
    assert!(
        stderr.contains("database nowhere: the dump never switches to it"),
        "{stderr}"
    );
}

/// A benchmark's `dumps.json` chooses the database with `database`; `eval`
/// imports it and answers on it.
#[test]
fn a_manifest_entry_chooses_the_database_of_a_cluster_dump() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, url)) = postgres(&servers) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path();
    std::fs::write(bench.join("cluster.sql"), CLUSTER).unwrap();
    let mut copies = Copies::new("swt_clman");
    copies.add(pg, &url, "shop");
    std::fs::write(
        bench.join("dumps.json"),
        r#"[{"dump": "cluster.sql", "engine": "postgres", "database": "shop"}]"#,
    )
    .unwrap();
    std::fs::write(
        bench.join("dev.jsonl"),
        r#"{"db_id": "shop", "gold": "SELECT count(*) FROM item"}"#,
    )
    .unwrap();
    run(bin()
        .args(["eval", "--bench"])
        .arg(bench)
        .args([
            "--engines",
            "sqlite",
            "-q",
            "--namespace-prefix",
            &copies.prefix,
        ])
        .args(["--server", &format!("postgres={url}")])
        .arg("--out")
        .arg(bench.join("out")));
    let report = json(&bench.join("out/report.json"));
    let gold = &report["questions"][0]["engines"]["sqlite"]["gold"];
    assert_eq!(gold["status"], "ok", "{gold}");
    assert_eq!(gold["sample"], serde_json::json!([["2"]]), "{gold}");
}

/// mysqldump's `--databases`: the chosen database's tables, with the
/// session's settings before the first `USE`.
#[test]
fn one_database_of_a_mysqldump_of_several_is_loaded() {
    let servers = sqlwitness_testkit::servers();
    let Some((kind, url)) = servers
        .iter()
        .find(|(k, _)| {
            sqlwitness_dialect::shipped(*k).adapter == sqlwitness_dialect::Adapter::Mysql
        })
        .cloned()
    else {
        sqlwitness_testkit::missing("MySQL or MariaDB");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("several.sql");
    std::fs::write(
        &dump,
        "/*!40101 SET NAMES utf8mb4 */;\n\
         CREATE DATABASE /*!32312 IF NOT EXISTS*/ `a` /*!40100 DEFAULT CHARACTER SET utf8mb4 */;\n\
         USE `a`;\n\
         CREATE TABLE `t` (`x` int);\n\
         INSERT INTO `t` VALUES (1),(2),(3);\n\
         CREATE DATABASE /*!32312 IF NOT EXISTS*/ `Shop`;\n\
         USE `Shop`;\n\
         CREATE TABLE `t` (`x` int, `s` varchar(10));\n\
         INSERT INTO `t` VALUES (7,'é');\n",
    )
    .unwrap();
    let out = dir.path().join("database");
    let mut copies = Copies::new("swt_several");
    copies.add(kind, &url, "Shop");
    let o = import(kind, &url, &dump, &out, &["--database", "Shop"], &copies);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let file = out.join("Shop/Shop.sqlite");
    assert_eq!(
        count(&file, "SELECT count(*) FROM t WHERE x = 7 AND s = 'é'"),
        1
    );
    assert_eq!(count(&file, "SELECT count(*) FROM t"), 1);
}

/// pg_dumpall's dump of a cluster whose one application database holds
/// every table (its `template1` and `postgres` hold only what pg_dumpall
/// writes around them): that one is loaded without being named, and the
/// output says so. A dump that does anything else outside that database
/// (here a program run from `template1`'s part) is refused as before.
#[test]
fn the_one_database_of_a_cluster_dump_that_holds_tables_is_loaded_unnamed() {
    let servers = sqlwitness_testkit::servers();
    let Some((pg, url)) = postgres(&servers) else {
        return;
    };
    let one = "\
SET default_transaction_read_only = off;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
CREATE ROLE postgres;
ALTER ROLE postgres WITH SUPERUSER INHERIT CREATEROLE CREATEDB LOGIN REPLICATION BYPASSRLS;
\\connect template1
SET statement_timeout = 0;
SELECT pg_catalog.set_config('search_path', '', false);
COMMENT ON DATABASE template1 IS 'default template for new databases';
CREATE DATABASE shop WITH TEMPLATE = template0 ENCODING = 'UTF8';
ALTER DATABASE shop OWNER TO postgres;
\\connect shop
SET statement_timeout = 0;
CREATE TABLE public.item (id integer NOT NULL, name text);
COPY public.item (id, name) FROM stdin;
1\tpen
2\tink
\\.
\\connect postgres
SET statement_timeout = 0;
COMMENT ON DATABASE postgres IS 'default administrative connection database';
";
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("cluster.sql");
    std::fs::write(&dump, one).unwrap();
    let out = dir.path().join("database");
    let mut copies = Copies::new("swt_clone");
    copies.add(pg, &url, "cluster");
    let o = import(pg, &url, &dump, &out, &[], &copies);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("shop was loaded, the only one that creates tables"),
        "{stderr}"
    );
    // The db_id is the file's, as for any dump.
    assert_eq!(
        count(
            &out.join("cluster/cluster.sqlite"),
            "SELECT count(*) FROM item"
        ),
        2
    );
    let report = json(&out.join("import-report.json"));
    assert_eq!(report["chosen_database"], "shop", "{report}");
    // Again: nothing to do.
    let o = import(pg, &url, &dump, &out, &[], &copies);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && stderr.contains("nothing to do"),
        "{stderr}"
    );
    // Something else outside it: refused, naming the databases.
    let odd = dir.path().join("odd.sql");
    std::fs::write(
        &odd,
        one.replace(
            "COMMENT ON DATABASE template1",
            "COPY (SELECT 1) TO PROGRAM 'id';\nCOMMENT ON DATABASE template1",
        ),
    )
    .unwrap();
    let o = import(pg, &url, &odd, &dir.path().join("odd"), &[], &copies);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("several databases (template1, shop, postgres; tables in shop)"),
        "{stderr}"
    );
}
