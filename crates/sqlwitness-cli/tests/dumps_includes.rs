//! Dumps that read other files as their client reads them — the mysql
//! client's `source` and `\.` (MySQL's `employees` sample loads its rows
//! so), psql's `\i` and `\ir` — loaded by `sqlwitness import` and by the
//! server's own client from the dump's folder, table for table alike; an
//! edited included file is noticed as an edited dump is.
//!
//! - `tests/dumps/employees_like/`: the schema in `employees.sql`, rows in
//!   files beside it and in a folder under it, a trigger made inside an
//!   included file's `DELIMITER` block that fills a table once the
//!   including file goes on;
//! - `tests/dumps/includes_postgres/`: `\i schema.sql`, `\ir rows/items.sql`
//!   whose `\ir tags.sql` is read from `rows/`, with `COPY` data inside the
//!   included files.

#[path = "../../../tests/common/admin.rs"]
mod admin;
#[path = "../../../tests/common/dump_copies.rs"]
mod dump_copies;

use std::path::Path;
use std::process::Command;

use sqlwitness_dialect::Adapter;

use dump_copies::{
    client, fixture, import_command, json, mysql_client, mysql_client_with, postgres, run, Copies,
};

/// Copies the fixture folder `name` into `into` (the test's own, to edit).
fn copy_folder(name: &str, into: &Path) {
    let from = fixture(name);
    for entry in walk(&from) {
        let to = into.join(entry.strip_prefix(&from).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &to).unwrap();
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// `sqlwitness import` of the dump at `dump` on `kind` into
/// `bench/database`, asserting it succeeded; the import report.
fn imported(
    kind: sqlwitness_core::EngineKind,
    url: &str,
    dump: &Path,
    bench: &Path,
    db_id: &str,
    copies: &Copies,
) -> serde_json::Value {
    run(&mut import_command(kind, url, dump, bench, db_id, copies));
    json(&bench.join("database/import-report.json"))
}

/// The employees-like tables of database `db` at `url`, as text, in key
/// order.
fn employees_rows(url: &str, db: &str) -> Vec<Vec<String>> {
    [
        "CONCAT_WS('|', emp_no, birth_date, first_name, last_name, gender, hire_date) \
         FROM `{db}`.`employees` ORDER BY emp_no",
        "CONCAT_WS('|', dept_no, dept_name) FROM `{db}`.`departments` ORDER BY dept_no",
        "CONCAT_WS('|', emp_no, dept_no, from_date, to_date) FROM `{db}`.`dept_emp` \
         ORDER BY emp_no, dept_no",
        "CONCAT_WS('|', emp_no, noted) FROM `{db}`.`hires` ORDER BY emp_no",
    ]
    .iter()
    .map(|q| admin::texts(url, &format!("SELECT {}", q.replace("{db}", db))))
    .collect()
}

#[test]
fn a_mysql_dump_sourcing_its_rows_loads_as_the_mysql_client_loads_it() {
    if !client("mysql") {
        return;
    }
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Mysql), |kind, url| {
        let dir = tempfile::tempdir().unwrap();
        let bench = dir.path().join("bench");
        let mut copies = Copies::new("swt_inc");
        let ns = copies.add(kind, url, "employees");
        let dump = fixture("employees_like/employees.sql");
        let report = imported(kind, url, &dump, &bench, "employees", &copies);
        let included: Vec<String> = report["included"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().replace('\\', "/"))
            .collect();
        assert_eq!(included.len(), 3, "{kind}: {included:?}");
        assert!(included[2].ends_with("employees_like/more/load_dept_emp.dump"));
        // The publisher's load: `mysql < employees.sql` from the folder, as
        // root, its database renamed to one of the test's own.
        let src = dir.path().join("published");
        copy_folder("employees_like", &src);
        let db = sqlwitness_testkit::unique_name("swt_pubemp");
        let text = std::fs::read_to_string(src.join("employees.sql"))
            .unwrap()
            .replace(
                "DATABASE IF EXISTS employees;",
                &format!("DATABASE IF EXISTS {db};"),
            )
            .replace(
                "DATABASE IF NOT EXISTS employees;",
                &format!("DATABASE {db};"),
            )
            .replace("USE employees;", &format!("USE {db};"));
        let loaded = mysql_client(url, &text, Some(&src));
        let published = loaded.status.success().then(|| employees_rows(url, &db));
        admin::exec(url, &format!("DROP DATABASE IF EXISTS `{db}`"));
        let published = published.unwrap_or_else(|| panic!("{kind}: mysql: {loaded:?}"));
        assert_eq!(published[0].len(), 6, "{kind}: {published:?}");
        assert_eq!(published[3], ["10006|Anneke Preusig"], "{kind}");
        assert_eq!(employees_rows(url, &ns), published, "{kind}");
        // The SQLite file holds the same rows.
        let sqlite = bench.join("database/employees/employees.sqlite");
        let conn = rusqlite::Connection::open(&sqlite).unwrap();
        let hires: Vec<(i64, String)> = conn
            .prepare("SELECT emp_no, noted FROM hires")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(hires, [(10006, "Anneke Preusig".to_string())], "{kind}");
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// Every table of `schema` with its rows as text, sorted.
fn pg_rows(url: &str, schema: &str) -> Vec<Vec<String>> {
    ["item", "tag"]
        .iter()
        .map(|t| {
            admin::texts(
                url,
                &format!("SELECT t::text FROM \"{schema}\".{t} t ORDER BY 1"),
            )
        })
        .collect()
}

#[test]
fn a_postgres_dump_in_files_loads_as_psql_loads_it_and_an_edited_file_is_noticed() {
    let Some((kind, url)) = postgres(&sqlwitness_testkit::servers()) else {
        return;
    };
    if !client("psql") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("dump");
    copy_folder("includes_postgres", &src);
    let bench = dir.path().join("bench");
    let copies = {
        let mut c = Copies::new("swt_incpg");
        c.add(kind, &url, "shop");
        c
    };
    let ns = format!("{}shop", copies.prefix);
    let report = imported(kind, &url, &src.join("main.sql"), &bench, "shop", &copies);
    assert_eq!(report["included"].as_array().unwrap().len(), 3, "{report}");
    // psql -f main.sql from the folder, into a database of the test's own.
    let db = sqlwitness_testkit::unique_name("swt_pubinc");
    admin::exec(&url, &format!("CREATE DATABASE \"{db}\""));
    let mut there = url::Url::parse(&url).unwrap();
    there.set_path(&format!("/{db}"));
    let loaded = Command::new("psql")
        .arg(there.as_str())
        .args(["-q", "-X", "-v", "ON_ERROR_STOP=1", "-f", "main.sql"])
        .current_dir(&src)
        .output()
        .unwrap();
    let published = loaded
        .status
        .success()
        .then(|| pg_rows(there.as_str(), "public"));
    admin::exec(&url, &format!("DROP DATABASE \"{db}\" WITH (FORCE)"));
    let published = published.unwrap_or_else(|| panic!("psql: {loaded:?}"));
    assert_eq!(published[0].len(), 4, "{published:?}");
    assert_eq!(published[1].len(), 3, "{published:?}");
    assert_eq!(pg_rows(&url, &ns), published);

    // The same files again: nothing to do.
    let again = import_command(kind, &url, &src.join("main.sql"), &bench, "shop", &copies)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{said}");
    assert!(said.contains("nothing to do"), "{said}");
    // An included file edited: the dump is loaded again.
    let tags = src.join("rows/tags.sql");
    let edited = std::fs::read_to_string(&tags)
        .unwrap()
        .replace("3\toffice\n", "3\toffice\n2\twork\n");
    std::fs::write(&tags, edited).unwrap();
    let renewed = imported(kind, &url, &src.join("main.sql"), &bench, "shop", &copies);
    assert_eq!(
        renewed["replaced"],
        serde_json::json!(["shop"]),
        "{renewed}"
    );
    assert_eq!(pg_rows(&url, &ns)[1].len(), 4);
}

/// Includes that would read outside the dump's folder, the dump itself or
/// a file that includes itself are refused before anything is loaded,
/// naming the file and the line.
#[test]
fn includes_outside_the_dump_folder_or_in_a_loop_are_refused_naming_the_line() {
    let Some((kind, url)) = postgres(&sqlwitness_testkit::servers()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside.sql");
    std::fs::write(&outside, "CREATE TABLE t (a int);\n").unwrap();
    let folder = dir.path().join("dump");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("loop.sql"), "SELECT 1;\n\\ir loop.sql\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, folder.join("link.sql")).unwrap();
    let cases: Vec<(&str, &str)> = vec![
        ("\\i ../outside.sql\n", "outside the dump's folder"),
        ("\\i /etc/passwd\n", "named relative to it"),
        ("\\i main.sql\n", "being read already"),
        ("\\i loop.sql\n", "being read already"),
        ("\\i missing.sql\n", "missing.sql"),
        #[cfg(unix)]
        ("\\i link.sql\n", "outside the dump's folder"),
    ];
    for (n, (text, why)) in cases.into_iter().enumerate() {
        let main = folder.join("main.sql");
        std::fs::write(&main, format!("CREATE TABLE k (a int);\n{text}")).unwrap();
        let bench = dir.path().join(format!("bench{n}"));
        let copies = Copies::new("swt_incbad");
        let out = import_command(kind, &url, &main, &bench, "bad", &copies)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{text}: {stderr}");
        assert!(stderr.contains(why), "{text}: {stderr}");
        assert!(stderr.contains("line"), "{text}: {stderr}");
        assert!(!bench.join("database/bad/bad.sqlite").exists(), "{text}");
    }
    assert!(!admin::texts(&url, "SELECT 1::text").is_empty());
}

/// The menagerie-like tables of database `db` at `url`, as text, in order
/// (`\N` for NULL, so that NULL and an empty string differ).
fn menagerie_rows(url: &str, db: &str) -> Vec<Vec<String>> {
    [
        "CONCAT_WS('|', name, owner, species, IFNULL(sex, '\\\\N'), birth, IFNULL(death, '\\\\N')) \
         FROM `{db}`.`pet` ORDER BY name",
        "CONCAT_WS('|', id, name, date, type, IFNULL(remark, '\\\\N'), IFNULL(weight, '\\\\N')) \
         FROM `{db}`.`event` ORDER BY id",
    ]
    .iter()
    .map(|q| admin::texts(url, &format!("SELECT {}", q.replace("{db}", db))))
    .collect()
}

/// A MySQL sample that loads its rows from text files beside it with the
/// mysql client's `LOAD DATA LOCAL INFILE` (MySQL's own menagerie layout:
/// tab-separated with `\N`; and a CSV with quotes, `\r\n` lines, a header
/// line and a column list, loaded twice so that LOCAL skips the duplicate
/// keys) loads as the mysql client loads it, on MySQL and MariaDB: the
/// copy with the dump's own types and the SQLite file hold the same rows.
/// Where the server refuses the client's local files (`local_infile` off,
/// MySQL's default), the rows the client loads on a server that takes
/// them are the reference.
#[test]
fn a_mysql_dump_loading_data_files_beside_it_loads_as_the_mysql_client_loads_it() {
    if !client("mysql") {
        return;
    }
    let expected_pets = 10;
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Mysql), |kind, url| {
        let dir = tempfile::tempdir().unwrap();
        let bench = dir.path().join("bench");
        let mut copies = Copies::new("swt_ldd");
        let ns = copies.add(kind, url, "menagerie");
        let dump = fixture("load_data_mysql/menagerie.sql");
        let report = imported(kind, url, &dump, &bench, "menagerie", &copies);
        assert_eq!(report["included"].as_array().unwrap().len(), 2, "{report}");
        assert!(
            report["rewritten"].to_string().contains("INSERT IGNORE"),
            "{report}"
        );
        let ours = menagerie_rows(url, &ns);
        assert_eq!(ours[0].len(), expected_pets, "{kind}: {ours:?}");
        assert!(ours[0].contains(&"Tab\tby|Jos\\e|cat||2001-01-01|\\N".to_string()));
        assert!(ours[1]
            .contains(&"4|Chirpy|1999-03-21|vet|needed beak \"straightened\"|\\N".to_string()));
        assert!(ours[1].contains(&"6|Bowser|1991-10-12|kennel|\\N|\\N".to_string()));
        assert!(ours[1].contains(&"7|Fang|1991-10-12|kennel||\\N".to_string()));
        // The publisher's load: `mysql --local-infile=1 < menagerie.sql`
        // from the folder, into a database of the test's own.
        let local_infile = admin::texts(url, "SELECT CAST(@@local_infile AS CHAR)");
        if local_infile != ["1"] {
            eprintln!("{kind}: local_infile is off: compared with the rows above only");
            return;
        }
        let db = sqlwitness_testkit::unique_name("swt_pubmen");
        admin::exec(url, &format!("CREATE DATABASE `{db}`"));
        let text = format!("USE `{db}`;\n{}", std::fs::read_to_string(&dump).unwrap());
        let loaded = mysql_client_with(url, &text, dump.parent(), &["--local-infile=1"]);
        let published = loaded.status.success().then(|| menagerie_rows(url, &db));
        admin::exec(url, &format!("DROP DATABASE IF EXISTS `{db}`"));
        let published = published.unwrap_or_else(|| panic!("{kind}: mysql: {loaded:?}"));
        assert_eq!(ours, published, "{kind}");
        let sqlite = bench.join("database/menagerie/menagerie.sqlite");
        let conn = rusqlite::Connection::open(&sqlite).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM pet", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, expected_pets as i64, "{kind}");
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// `LOAD DATA` the loader does not follow is refused before anything
/// loads, naming the dump and the line (exit 2): a server file, a file
/// named absolutely or leading out of the dump's folder, user variables
/// and `SET`. Rows for a table of another database are the server's to
/// refuse: the loader may not write there (exit 3, the line named).
#[test]
fn load_data_reaching_outside_the_dump_is_refused_by_line() {
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Mysql), |kind, url| {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("dump");
        copy_folder("load_data_mysql", &src);
        std::fs::write(dir.path().join("outside.txt"), "x\n").unwrap();
        for (n, (stmt, code, why)) in [
            ("LOAD DATA INFILE 'pet.txt' INTO TABLE pet;", 2, "server"),
            (
                "LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE pet;",
                2,
                "relative",
            ),
            (
                "LOAD DATA LOCAL INFILE '../outside.txt' INTO TABLE pet;",
                2,
                "outside",
            ),
            (
                "LOAD DATA LOCAL INFILE 'pet.txt' INTO TABLE mysql.user;",
                3,
                "denied",
            ),
            (
                "LOAD DATA LOCAL INFILE 'pet.txt' INTO TABLE pet (@a) SET name = @a;",
                2,
                "variables",
            ),
        ]
        .into_iter()
        .enumerate()
        {
            let dump = src.join(format!("bad{n}.sql"));
            std::fs::write(
                &dump,
                format!("CREATE TABLE pet (name VARCHAR(20));\n{stmt}\n"),
            )
            .unwrap();
            let bench = dir.path().join(format!("bench{n}"));
            let copies = Copies::new("swt_lddbad");
            let o = import_command(kind, url, &dump, &bench, "bad", &copies)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(code), "{kind}: {stmt}: {stderr}");
            assert!(
                stderr.contains(&format!("bad{n}.sql: line 2")),
                "{kind}: {stmt}: {stderr}"
            );
            assert!(stderr.contains(why), "{kind}: {stmt}: {stderr}");
            assert!(
                !bench.join("database/bad/bad.sqlite").exists(),
                "{kind}: {stmt}"
            );
        }
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}

/// A `LOAD DATA LOCAL INFILE` file larger than one `INSERT` (several MB)
/// is read a piece at a time and sent as several statements: every row
/// arrives.
#[test]
fn a_load_data_file_of_many_statements_loads_every_row() {
    let ran = sqlwitness_testkit::for_each_server(Some(Adapter::Mysql), |kind, url| {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("dump");
        std::fs::create_dir_all(&src).unwrap();
        let mut rows = String::new();
        for i in 0..60_000 {
            rows.push_str(&format!("{i}\tname {i} with some text to make it longer\n"));
        }
        std::fs::write(src.join("rows.tsv"), rows).unwrap();
        std::fs::write(
            src.join("big.sql"),
            "CREATE TABLE big (id INT PRIMARY KEY, name VARCHAR(64));\n\
             LOAD DATA LOCAL INFILE 'rows.tsv' INTO TABLE big;\n",
        )
        .unwrap();
        let bench = dir.path().join("bench");
        let mut copies = Copies::new("swt_lddbig");
        let ns = copies.add(kind, url, "big");
        imported(kind, url, &src.join("big.sql"), &bench, "big", &copies);
        let counted = admin::texts(
            url,
            &format!("SELECT CONCAT(count(*), '|', sum(id)) FROM `{ns}`.`big`"),
        );
        assert_eq!(counted, ["60000|1799970000"], "{kind}");
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}
