//! PostgreSQL dumps whose rows are in files of their own, loaded by
//! `sqlwitness import` and by the publisher's tool, table for table alike:
//!
//! - `tests/dumps/shop_archive_postgres.tar`: an archive of `pg_dump -Ft`
//!   (as the PostgreSQL tutorial's `dvdrental.tar` ships): `restore.sql`
//!   and a `NNNN.dat` member of rows per table, with an enum, numerics,
//!   dates, NULLs, and text holding tabs, backslashes, newlines and `\.`;
//!   restored by `pg_restore`, and the same members in one folder beside
//!   macOS `._` files, as some publishers repack it;
//! - `tests/dumps/slash_copy_postgres/`: a script loading its rows with
//!   psql's `\copy … FROM 'file'` (a CSV with a header, CRLF line ends and
//!   quoted commas and newlines; a text-format file), loaded by `psql -f`
//!   from its folder.
//!
//! And what would read outside is refused before anything loads, naming
//! the file and the line: a `$$PATH$$` name that leads out of the archive,
//! names no member, or a member that is a link; a `\copy` of an absolute
//! name, of `..`, of a link out, of the client's input or a program.

#[path = "../../../tests/common/admin.rs"]
mod admin;
#[path = "../../../tests/common/dump_copies.rs"]
mod dump_copies;

use std::io::Read;
use std::path::Path;
use std::process::Command;

use dump_copies::{client, fixture, import_command, json, postgres, run, Copies};

/// Every row of each of `tables` in `schema`, as text, sorted.
fn rows(url: &str, schema: &str, tables: &[&str]) -> Vec<Vec<String>> {
    tables
        .iter()
        .map(|t| {
            admin::texts(
                url,
                &format!("SELECT t::text FROM \"{schema}\".{t} t ORDER BY 1"),
            )
        })
        .collect()
}

const SHOP: [&str; 3] = ["customer", "orders", "empty_log"];

/// The URL of a fresh database of the test's own on the server at `url`,
/// and its name.
fn scratch_database(url: &str, tag: &str) -> (String, String) {
    let db = sqlwitness_testkit::unique_name(tag);
    admin::exec(url, &format!("CREATE DATABASE \"{db}\""));
    let mut there = url::Url::parse(url).unwrap();
    there.set_path(&format!("/{db}"));
    (there.to_string(), db)
}

/// The members of the archive at `from`: name and bytes, in order.
fn members(from: &Path) -> Vec<(String, Vec<u8>)> {
    let mut archive = tar::Archive::new(std::fs::File::open(from).unwrap());
    archive
        .entries()
        .unwrap()
        .map(|e| {
            let mut e = e.unwrap();
            let name = e.path().unwrap().to_string_lossy().into_owned();
            let mut bytes = Vec::new();
            e.read_to_end(&mut bytes).unwrap();
            (name, bytes)
        })
        .collect()
}

/// Writes an archive at `to` of `files` (name, bytes) and of symbolic
/// links (name, target).
fn write_archive(to: &Path, files: &[(String, Vec<u8>)], links: &[(&str, &str)]) {
    let mut b = tar::Builder::new(std::fs::File::create(to).unwrap());
    for (name, bytes) in files {
        let mut h = tar::Header::new_ustar();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o600);
        h.set_cksum();
        b.append_data(&mut h, name, bytes.as_slice()).unwrap();
    }
    for (name, target) in links {
        let mut h = tar::Header::new_ustar();
        h.set_entry_type(tar::EntryType::Symlink);
        h.set_size(0);
        b.append_link(&mut h, name, target).unwrap();
    }
    b.finish().unwrap();
}

/// The fixture archive's members with `edit` applied to `restore.sql`'s
/// text.
fn with_script(edit: impl Fn(&str) -> String) -> Vec<(String, Vec<u8>)> {
    members(&fixture("shop_archive_postgres.tar"))
        .into_iter()
        .map(|(name, bytes)| {
            if name == "restore.sql" {
                let text = edit(std::str::from_utf8(&bytes).unwrap());
                (name, text.into_bytes())
            } else {
                (name, bytes)
            }
        })
        .collect()
}

/// The name of the member the `COPY` of `table` reads, in `script`.
fn member_of(script: &str, table: &str) -> String {
    let line = script
        .lines()
        .find(|l| l.starts_with(&format!("COPY public.{table} ")) && l.contains("$$PATH$$"))
        .unwrap();
    let start = line.find("$$PATH$$/").unwrap() + "$$PATH$$/".len();
    line[start..line.rfind('\'').unwrap()].to_string()
}

#[test]
fn a_pg_dump_tar_archive_loads_as_pg_restore_restores_it_and_an_edited_one_is_noticed() {
    let Some((kind, url)) = postgres(&sqlwitness_testkit::servers()) else {
        return;
    };
    if !client("pg_restore") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tar = dir.path().join("shop.tar");
    std::fs::copy(fixture("shop_archive_postgres.tar"), &tar).unwrap();
    let bench = dir.path().join("bench");
    let mut copies = Copies::new("swt_tarpg");
    let ns = copies.add(kind, &url, "shop");
    run(&mut import_command(
        kind, &url, &tar, &bench, "shop", &copies,
    ));
    let report = json(&bench.join("database/import-report.json"));
    // Each table's rows come from its member, named in the report.
    let rewritten: Vec<&str> = report["rewritten"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["note"].as_str().unwrap())
        .collect();
    assert_eq!(rewritten.len(), 3, "{report}");
    assert!(
        rewritten
            .iter()
            .all(|n| n.contains("shop.tar/") && n.contains("the archive's member")),
        "{rewritten:?}"
    );
    let file = report["rewritten"][0]["file"].as_str().unwrap();
    assert!(file.ends_with("shop.tar/restore.sql"), "{file}");
    assert_eq!(report["copied_rows"], 10, "{report}");

    // The publisher's tool: pg_restore into a database of the test's own.
    let (there, db) = scratch_database(&url, "swt_pgrestore");
    let restored = Command::new("pg_restore")
        .args(["--no-owner", "-d", &there])
        .arg(&tar)
        .output()
        .unwrap();
    let published = restored
        .status
        .success()
        .then(|| rows(&there, "public", &SHOP));
    admin::exec(&url, &format!("DROP DATABASE \"{db}\" WITH (FORCE)"));
    let published = published.unwrap_or_else(|| panic!("pg_restore: {restored:?}"));
    assert_eq!(published[0].len(), 5, "{published:?}");
    assert_eq!(published[1].len(), 5, "{published:?}");
    assert_eq!(rows(&url, &ns, &SHOP), published);

    // The SQLite file holds the same values.
    let sqlite = bench.join("database/shop/shop.sqlite");
    let conn = rusqlite::Connection::open(&sqlite).unwrap();
    let notes: Vec<(i64, String, Option<String>)> = conn
        .prepare("SELECT id, name, note FROM customer ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(notes[0].2.as_deref(), Some("tab\there"));
    assert_eq!(notes[1].1, "Bob \\ Backslash");
    assert_eq!(notes[1].2.as_deref(), Some("two\nlines"));
    assert_eq!(notes[2].2, None);
    assert_eq!(
        notes[3].2.as_deref(),
        Some("back\\slash\\N and \\. and 'quote'")
    );
    assert_eq!(notes[4].1, "Tab\tName");

    // The same archive again: nothing to do.
    let said = run(&mut import_command(
        kind, &url, &tar, &bench, "shop", &copies,
    ));
    assert!(said.contains("nothing to do"), "{said}");
    // A row edited in a member: the archive is loaded again.
    let script = String::from_utf8(
        members(&tar)
            .into_iter()
            .find(|(n, _)| n == "restore.sql")
            .unwrap()
            .1,
    )
    .unwrap();
    let orders = member_of(&script, "orders");
    let edited: Vec<(String, Vec<u8>)> = members(&tar)
        .into_iter()
        .map(|(name, bytes)| {
            if name == orders {
                let text = String::from_utf8(bytes)
                    .unwrap()
                    .replace("10.125", "11.125");
                (name, text.into_bytes())
            } else {
                (name, bytes)
            }
        })
        .collect();
    write_archive(&tar, &edited, &[]);
    run(&mut import_command(
        kind, &url, &tar, &bench, "shop", &copies,
    ));
    let renewed = json(&bench.join("database/import-report.json"));
    assert_eq!(
        renewed["replaced"],
        serde_json::json!(["shop"]),
        "{renewed}"
    );
    let amounts = admin::texts(
        &url,
        &format!("SELECT amount::text FROM \"{ns}\".orders ORDER BY id LIMIT 1"),
    );
    assert_eq!(amounts, ["11.125"]);
}

/// `pg_dump -Ft --inserts`: `restore.sql` includes each member of
/// `INSERT`s with `\i $$PATH$$/NNNN.dat`; made from the fixture restored
/// in a database of the test's own, and loaded alike.
#[test]
fn an_archive_of_inserts_loads_its_members_in_their_place() {
    let Some((kind, url)) = postgres(&sqlwitness_testkit::servers()) else {
        return;
    };
    if !client("pg_restore") || !client("pg_dump") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tar = dir.path().join("inserts.tar");
    let (there, db) = scratch_database(&url, "swt_tarins");
    let restored = Command::new("pg_restore")
        .args(["--no-owner", "-d", &there])
        .arg(fixture("shop_archive_postgres.tar"))
        .status()
        .unwrap();
    let dumped = restored.success().then(|| {
        Command::new("pg_dump")
            .args(["--inserts", "-Ft", "-d", &there, "-f"])
            .arg(&tar)
            .status()
            .unwrap()
    });
    let published = rows(&there, "public", &SHOP);
    admin::exec(&url, &format!("DROP DATABASE \"{db}\" WITH (FORCE)"));
    assert!(
        dumped.is_some_and(|s| s.success()),
        "{restored:?} {dumped:?}"
    );
    let bench = dir.path().join("bench");
    let mut copies = Copies::new("swt_tarins");
    let ns = copies.add(kind, &url, "shop");
    run(&mut import_command(
        kind, &url, &tar, &bench, "shop", &copies,
    ));
    let report = json(&bench.join("database/import-report.json"));
    assert_eq!(report["copied_rows"], 0, "{report}");
    assert_eq!(published[0].len(), 5, "{published:?}");
    assert_eq!(rows(&url, &ns, &SHOP), published);
}

/// The archive repacked by hand as some publishers ship it: its members
/// in one folder, macOS `._` files beside them.
#[test]
fn an_archive_with_its_members_in_a_folder_and_macos_forks_loads_alike() {
    let Some((kind, url)) = postgres(&sqlwitness_testkit::servers()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![("._shop".to_string(), b"\0\x05\x16\x07fork".to_vec())];
    for (name, bytes) in members(&fixture("shop_archive_postgres.tar")) {
        files.push((format!("shop/._{name}"), b"\0\x05\x16\x07fork".to_vec()));
        files.push((format!("shop/{name}"), bytes));
    }
    let tar = dir.path().join("shop.tar");
    write_archive(&tar, &files, &[]);
    let bench = dir.path().join("bench");
    let mut copies = Copies::new("swt_tarfold");
    let ns = copies.add(kind, &url, "shop");
    run(&mut import_command(
        kind, &url, &tar, &bench, "shop", &copies,
    ));
    let report = json(&bench.join("database/import-report.json"));
    assert_eq!(report["copied_rows"], 10, "{report}");
    let counts: Vec<usize> = rows(&url, &ns, &SHOP).iter().map(Vec::len).collect();
    assert_eq!(counts, [5, 5, 0]);
}

/// `import` of `dump` as database `bad`, which must fail before anything
/// loads: its stderr.
fn refused(kind: sqlwitness_core::EngineKind, url: &str, dump: &Path, bench: &Path) -> String {
    let copies = Copies::new("swt_tarbad");
    let out = import_command(kind, url, dump, bench, "bad", &copies)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{}: {stderr}", dump.display());
    assert!(!bench.join("database/bad/bad.sqlite").exists(), "{stderr}");
    stderr
}

#[test]
fn archive_names_that_lead_out_or_to_no_regular_member_are_refused_naming_the_line() {
    let Some((kind, url)) = postgres(&sqlwitness_testkit::servers()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = String::from_utf8(
        members(&fixture("shop_archive_postgres.tar"))
            .into_iter()
            .find(|(n, _)| n == "restore.sql")
            .unwrap()
            .1,
    )
    .unwrap();
    let customer = member_of(&script, "customer");
    let line = 1 + script
        .lines()
        .position(|l| l.contains(&format!("$$PATH$$/{customer}")))
        .unwrap();
    let cases: Vec<(&str, &str, &str)> = vec![
        ("../x.dat", "leads out of the archive", ""),
        ("9999.dat", "holds no member 9999.dat", ""),
        (
            "link.dat",
            "a symbolic link, not a regular file",
            "link.dat",
        ),
    ];
    for (n, (name, why, link)) in cases.into_iter().enumerate() {
        let files = with_script(|s| {
            s.replace(&format!("$$PATH$$/{customer}"), &format!("$$PATH$$/{name}"))
        });
        let tar = dir.path().join(format!("bad{n}.tar"));
        let links: Vec<(&str, &str)> = if link.is_empty() {
            Vec::new()
        } else {
            vec![(link, "/etc/passwd")]
        };
        write_archive(&tar, &files, &links);
        let stderr = refused(kind, &url, &tar, &dir.path().join(format!("bench{n}")));
        assert!(stderr.contains(why), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("bad{n}.tar/restore.sql: line {line}")),
            "{name}: {stderr}"
        );
    }
    // A custom-format archive cut short is named, with where it breaks.
    let custom = dir.path().join("shop.dump");
    std::fs::write(&custom, b"PGDMP\x01\x0e\x00\x04\x08\x01\x01\x01\0\0\0").unwrap();
    let stderr = refused(kind, &url, &custom, &dir.path().join("bench_custom"));
    assert!(stderr.contains("shop.dump"), "{stderr}");
    assert!(
        stderr.contains("custom-format archive whose header or table of contents cannot be read"),
        "{stderr}"
    );
    // A zip file cut short.
    let zip = dir.path().join("shop.zip");
    std::fs::write(&zip, b"PK\x03\x04\x14\0\0\0\x08\0").unwrap();
    let stderr = refused(kind, &url, &zip, &dir.path().join("bench_zip"));
    assert!(
        stderr.contains("shop.zip") && stderr.contains("no central directory"),
        "{stderr}"
    );
    // An archive in a zip file whose name leads out: named as the zip's
    // member.
    let files = with_script(|s| s.replace(&format!("$$PATH$$/{customer}"), "$$PATH$$/../x.dat"));
    let tar = dir.path().join("inner.tar");
    write_archive(&tar, &files, &[]);
    sqlwitness_testkit::write_zip(
        &zip,
        &[("shop/inner.tar", &std::fs::read(&tar).unwrap(), true)],
    );
    let stderr = refused(kind, &url, &zip, &dir.path().join("bench_zipped_tar"));
    assert!(stderr.contains("leads out of the archive"), "{stderr}");
    assert!(
        stderr.contains(&format!("shop.zip/shop/inner.tar/restore.sql: line {line}")),
        "{stderr}"
    );
    // A tar archive that is not pg_dump's.
    let other = dir.path().join("other.tar");
    write_archive(&other, &[("data.csv".into(), b"1,2\n".to_vec())], &[]);
    let stderr = refused(kind, &url, &other, &dir.path().join("bench_other"));
    assert!(stderr.contains("without restore.sql"), "{stderr}");
}

const CUSTOM: [&str; 5] = [
    "customer",
    "orders",
    "empty_log",
    "ticket_log",
    "order_count",
];

/// `pg_dump -Fc` (`tests/dumps/shop_custom_postgres.dump`: compressed, as
/// pg_dump writes it by default; the shop of the tar archive with a view,
/// a materialized view, sequences and a comment) and the same database
/// dumped uncompressed (`-Z0`), to a pipe (no offsets in its table of
/// contents), and in the directory format (`-Fd`: a folder with `toc.dat`
/// and a file of rows per table, gzip-compressed or not): each loads as
/// pg_restore restores it, and an edited archive — or one edited file of
/// rows of a folder — is noticed.
#[test]
fn a_pg_dump_custom_archive_loads_as_pg_restore_restores_it() {
    let Some((kind, url)) = postgres(&sqlwitness_testkit::servers()) else {
        return;
    };
    if !client("pg_restore") || !client("pg_dump") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (there, db) = scratch_database(&url, "swt_pgcustom");
    let restored = Command::new("pg_restore")
        .args(["--no-owner", "-d", &there])
        .arg(fixture("shop_custom_postgres.dump"))
        .output()
        .unwrap();
    let plain = dir.path().join("plain.dump");
    let piped = dir.path().join("piped.dump");
    let folder = dir.path().join("folder");
    let folder0 = dir.path().join("folder0");
    let dumped = restored.status.success().then(|| {
        let directories = [(&folder, "-Z6"), (&folder0, "-Z0")].map(|(to, z)| {
            Command::new("pg_dump")
                .args(["-Fd", z, "-d", &there, "-f"])
                .arg(to)
                .status()
                .unwrap()
                .success()
        });
        let z0 = Command::new("pg_dump")
            .args(["-Fc", "-Z0", "-d", &there, "-f"])
            .arg(&plain)
            .status()
            .unwrap();
        // Through a pipe: pg_dump cannot seek back to write the offsets
        // (its output redirected to a file could).
        let mut child = Command::new("pg_dump")
            .args(["-Fc", "-d", &there])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = std::fs::File::create(&piped).unwrap();
        std::io::copy(&mut child.stdout.take().unwrap(), &mut out).unwrap();
        z0.success() && child.wait().unwrap().success() && directories == [true, true]
    });
    let published = rows(&there, "public", &CUSTOM);
    admin::exec(&url, &format!("DROP DATABASE \"{db}\" WITH (FORCE)"));
    assert_eq!(dumped, Some(true), "{restored:?}");
    assert_eq!(
        published.iter().map(Vec::len).collect::<Vec<_>>(),
        [5, 5, 0, 2, 1]
    );
    let shipped = dir.path().join("shop.dump");
    std::fs::copy(fixture("shop_custom_postgres.dump"), &shipped).unwrap();
    let mut kept = Vec::new();
    for (name, archive) in [
        ("shipped", &shipped),
        ("z0", &plain),
        ("piped", &piped),
        ("folder", &folder),
        ("folder0", &folder0),
    ] {
        let bench = dir.path().join(name);
        kept.push(imported_as_published(
            (kind, &url),
            archive,
            &bench,
            &format!("swt_fc{name}"),
            &published,
        ));
    }
    // The same archive again: nothing to do; another one in its place:
    // loaded again.
    let bench = dir.path().join("shipped");
    let copies = &kept[0];
    let said = run(&mut import_command(
        kind, &url, &shipped, &bench, "shop", copies,
    ));
    assert!(said.contains("nothing to do"), "{said}");
    std::fs::copy(&plain, &shipped).unwrap();
    run(&mut import_command(
        kind, &url, &shipped, &bench, "shop", copies,
    ));
    let renewed = json(&bench.join("database/import-report.json"));
    assert_eq!(
        renewed["replaced"],
        serde_json::json!(["shop"]),
        "{renewed}"
    );
    // A folder whose table of contents is as it was but one file of rows
    // is edited: loaded again, with the edited row.
    let bench = dir.path().join("folder0");
    let edited = std::fs::read_dir(&folder0)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("back\\\\slash")))
        .expect("the customers' file of rows");
    let text = std::fs::read_to_string(&edited).unwrap();
    std::fs::write(&edited, text.replace("'quote'", "'edited'")).unwrap();
    run(&mut import_command(
        kind, &url, &folder0, &bench, "shop", &kept[4],
    ));
    let renewed = json(&bench.join("database/import-report.json"));
    assert_eq!(
        renewed["replaced"],
        serde_json::json!(["shop"]),
        "{renewed}"
    );
    assert_eq!(customer_note(&bench), "back\\slash\\N and \\. and 'edited'");
}

/// The note of customer 4 in the SQLite file `import` wrote into
/// `bench/database`.
fn customer_note(bench: &Path) -> String {
    let conn = rusqlite::Connection::open(bench.join("database/shop/shop.sqlite")).unwrap();
    conn.query_row("SELECT note FROM customer WHERE id = 4", [], |r| r.get(0))
        .unwrap()
}

/// Imports the shop dump `dump` into `bench/database` with copies under a
/// prefix tagged `tag`, and checks the import completed with the shop's 12
/// rows, its copy holds `published` (the rows pg_restore restored) and the
/// SQLite file the customer's note with its backslashes; the copies, kept
/// until the caller drops them.
fn imported_as_published(
    (kind, url): (sqlwitness_core::EngineKind, &str),
    dump: &Path,
    bench: &Path,
    tag: &str,
    published: &[Vec<String>],
) -> Copies {
    let mut copies = Copies::new(tag);
    let ns = copies.add(kind, url, "shop");
    run(&mut import_command(kind, url, dump, bench, "shop", &copies));
    let report = json(&bench.join("database/import-report.json"));
    assert_eq!(report["databases"][0]["complete"], true, "{tag}: {report}");
    assert_eq!(report["copied_rows"], 12, "{tag}: {report}");
    assert_eq!(rows(url, &ns, &CUSTOM), published, "{tag}");
    assert_eq!(
        customer_note(bench),
        "back\\slash\\N and \\. and 'quote'",
        "{tag}"
    );
    copies
}

/// The shop of `shop_custom_postgres.dump` as pg_dump 18 writes it with
/// `--compress=lz4` and `--compress=zstd`: custom-format archives
/// (`shop_lz4_postgres.dump`, `shop_zstd_postgres.dump`), directory-format
/// dumps (`shop_lz4_directory_postgres/`, `shop_zstd_directory_postgres/`:
/// `NNNN.dat.lz4`, `NNNN.dat.zst`) and plain dumps
/// (`shop_plain_postgres.sql.lz4`, `.sql.zst`). This machine's pg_restore
/// (15) reads none of them; each loads the rows pg_restore restores from
/// the gzip-compressed archive they were dumped from.
#[test]
fn pg_dump_archives_compressed_with_lz4_or_zstd_load_as_the_gzip_archive_restores() {
    let Some((kind, url)) = postgres(&sqlwitness_testkit::servers()) else {
        return;
    };
    if !client("pg_restore") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (there, db) = scratch_database(&url, "swt_pglz4");
    let restored = Command::new("pg_restore")
        .args(["--no-owner", "-d", &there])
        .arg(fixture("shop_custom_postgres.dump"))
        .output()
        .unwrap();
    let published = rows(&there, "public", &CUSTOM);
    admin::exec(&url, &format!("DROP DATABASE \"{db}\" WITH (FORCE)"));
    assert!(restored.status.success(), "{restored:?}");
    for (name, shipped) in [
        ("lz4", "shop_lz4_postgres.dump"),
        ("zstd", "shop_zstd_postgres.dump"),
        ("lz4dir", "shop_lz4_directory_postgres"),
        ("zstddir", "shop_zstd_directory_postgres"),
        ("lz4sql", "shop_plain_postgres.sql.lz4"),
        ("zstdsql", "shop_plain_postgres.sql.zst"),
    ] {
        imported_as_published(
            (kind, &url),
            &fixture(shipped),
            &dir.path().join(name),
            &format!("swt_z{name}"),
            &published,
        );
    }
}

/// Dumps shipped in a zip file, as the PostgreSQL tutorial ships
/// `dvdrental.zip` (a tar archive, deflated, in a folder, macOS forks
/// beside it), and a custom-format archive and a plain dump zipped: each
/// loads the tables and rows its unzipped dump loads.
#[test]
fn dumps_shipped_in_a_zip_file_load_as_the_dumps_they_hold() {
    let Some((kind, url)) = postgres(&sqlwitness_testkit::servers()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tar = std::fs::read(fixture("shop_archive_postgres.tar")).unwrap();
    let custom = std::fs::read(fixture("shop_custom_postgres.dump")).unwrap();
    let plain = std::fs::read(fixture("prices_postgres.sql")).unwrap();
    type Members<'a> = Vec<(&'a str, &'a [u8], bool)>;
    let cases: Vec<(&str, Members, &[&str])> = vec![
        (
            "tar",
            vec![
                ("__MACOSX/shop/._shop.tar", b"fork".as_slice(), false),
                ("shop/", b"".as_slice(), false),
                ("shop/shop.tar", &tar, true),
            ],
            &SHOP,
        ),
        (
            "custom",
            vec![
                ("README.txt", b"the shop".as_slice(), false),
                ("shop.dump", &custom, false),
            ],
            &CUSTOM,
        ),
        (
            "plain",
            vec![("prices.sql", &plain, true)],
            &["shop", "item"],
        ),
    ];
    for (name, members, tables) in cases {
        let zip = dir.path().join(format!("{name}.zip"));
        sqlwitness_testkit::write_zip(&zip, &members);
        let unzipped = dir.path().join(name).with_extension(match name {
            "tar" => "tar",
            "custom" => "dump",
            _ => "sql",
        });
        std::fs::write(&unzipped, members.last().unwrap().1).unwrap();
        let mut loaded = Vec::new();
        let mut kept = Vec::new();
        for (which, dump) in [("zip", &zip), ("file", &unzipped)] {
            let bench = dir.path().join(format!("{name}_{which}"));
            let mut copies = Copies::new(&format!("swt_zip{name}{which}"));
            let ns = copies.add(kind, &url, "shop");
            run(&mut import_command(
                kind, &url, dump, &bench, "shop", &copies,
            ));
            let report = json(&bench.join("database/import-report.json"));
            assert_eq!(report["databases"][0]["complete"], true, "{name}: {report}");
            loaded.push(rows(&url, &ns, tables));
            kept.push(copies);
            if which == "zip" && name == "tar" {
                let file = report["rewritten"][0]["file"].as_str().unwrap();
                assert!(
                    file.ends_with("tar.zip/shop/shop.tar/restore.sql"),
                    "{file}"
                );
                // The same zip again: nothing to do.
                let again = run(&mut import_command(
                    kind,
                    &url,
                    dump,
                    &bench,
                    "shop",
                    kept.last().unwrap(),
                ));
                assert!(again.contains("nothing to do"), "{again}");
            }
        }
        assert!(loaded[0].iter().any(|t| !t.is_empty()), "{name}");
        assert_eq!(loaded[0], loaded[1], "{name}");
    }
}

#[test]
fn a_script_copying_its_rows_from_files_loads_as_psql_loads_it() {
    let Some((kind, url)) = postgres(&sqlwitness_testkit::servers()) else {
        return;
    };
    if !client("psql") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = fixture("slash_copy_postgres");
    let bench = dir.path().join("bench");
    let mut copies = Copies::new("swt_slcopy");
    let ns = copies.add(kind, &url, "shop");
    run(&mut import_command(
        kind,
        &url,
        &src.join("main.sql"),
        &bench,
        "shop",
        &copies,
    ));
    let report = json(&bench.join("database/import-report.json"));
    let included: Vec<String> = report["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().replace('\\', "/"))
        .collect();
    assert_eq!(included.len(), 2, "{report}");
    assert!(included[0].ends_with("slash_copy_postgres/rows/items.csv"));
    assert_eq!(report["copied_rows"], 9, "{report}");

    let (there, db) = scratch_database(&url, "swt_pubslcopy");
    let loaded = Command::new("psql")
        .arg(&there)
        .args(["-q", "-X", "-v", "ON_ERROR_STOP=1", "-f", "main.sql"])
        .current_dir(&src)
        .output()
        .unwrap();
    let published = loaded
        .status
        .success()
        .then(|| rows(&there, "public", &["item", "tag"]));
    admin::exec(&url, &format!("DROP DATABASE \"{db}\" WITH (FORCE)"));
    let published = published.unwrap_or_else(|| panic!("psql: {loaded:?}"));
    assert_eq!(published[0].len(), 4, "{published:?}");
    assert_eq!(published[1].len(), 5, "{published:?}");
    assert_eq!(rows(&url, &ns, &["item", "tag"]), published);
    let conn = rusqlite::Connection::open(bench.join("database/shop/shop.sqlite")).unwrap();
    let name: String = conn
        .query_row("SELECT name FROM item WHERE id = 3", [], |r| r.get(0))
        .unwrap();
    assert_eq!(name, "Two\r\nlines");
}

#[test]
fn copy_files_outside_the_dump_folder_or_not_files_are_refused_naming_the_line() {
    let Some((kind, url)) = postgres(&sqlwitness_testkit::servers()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.csv"), "1\n").unwrap();
    let folder = dir.path().join("dump");
    std::fs::create_dir_all(folder.join("sub")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("x.csv"), folder.join("link.csv")).unwrap();
    let cases: Vec<(&str, &str)> = vec![
        ("\\copy k from '/etc/passwd'", "named relative to it"),
        ("\\copy k from '../x.csv'", "outside the dump's folder"),
        ("\\copy k from sub/../../x.csv", "outside the dump's folder"),
        ("\\copy k from 'missing.csv'", "missing.csv"),
        ("\\copy k from 'sub'", "not a file"),
        ("\\copy k from stdin", "the client's own input"),
        ("\\copy k from pstdin", "the client's own input"),
        ("\\copy k from program 'id'", "runs a program"),
        ("\\copy k to 'out.csv'", "writes a file"),
        ("COPY k FROM '/etc/passwd'", "server file"),
        ("COPY k FROM '$$PATH$$/x.dat'", "server file"),
        #[cfg(unix)]
        ("\\copy k from link.csv", "outside the dump's folder"),
    ];
    for (n, (text, why)) in cases.into_iter().enumerate() {
        let main = folder.join("main.sql");
        std::fs::write(&main, format!("CREATE TABLE k (a int);\n\n{text}\n")).unwrap();
        let stderr = refused(kind, &url, &main, &dir.path().join(format!("bench{n}")));
        assert!(stderr.contains(why), "{text}: {stderr}");
        assert!(stderr.contains("main.sql: line 3"), "{text}: {stderr}");
    }
    assert!(!folder.join("out.csv").exists());
}

/// `bytes` compressed as gzip writes them.
fn gzipped(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// A dump shipped gzipped (`shop.sql.gz`, as Neon ships its employees
/// sample), or compressed with lz4 or zstd, is read as the text it holds,
/// decompressed as it is read: the same tables and rows as the plain dump,
/// and importing it again does nothing.
/// A gzip file holding an archive is refused, saying to unpack it.
#[test]
fn a_gzipped_dump_loads_as_its_text_and_a_gzipped_archive_is_refused() {
    let Some((kind, url)) = postgres(&sqlwitness_testkit::servers()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(fixture("prices_postgres.sql")).unwrap();
    let plain = dir.path().join("shop.sql");
    std::fs::write(&plain, &text).unwrap();
    let gz = dir.path().join("shop.sql.gz");
    std::fs::write(&gz, gzipped(&text)).unwrap();
    // As `lz4` and `zstd` write them (several frames: `cat a.zst b.zst`).
    let lz4 = dir.path().join("shop.sql.lz4");
    let mut frames = lz4_flex::frame::FrameEncoder::new(Vec::new());
    std::io::Write::write_all(&mut frames, &text).unwrap();
    std::fs::write(&lz4, frames.finish().unwrap()).unwrap();
    let zst = dir.path().join("shop.sql.zst");
    let (head, tail) = text.split_at(text.len() / 2);
    let mut two = Vec::new();
    for part in [head, tail] {
        two.extend(ruzstd::encoding::compress_to_vec(
            part,
            ruzstd::encoding::CompressionLevel::Fastest,
        ));
    }
    std::fs::write(&zst, two).unwrap();
    let mut loaded = Vec::new();
    for (name, dump) in [("plain", &plain), ("gz", &gz), ("lz4", &lz4), ("zst", &zst)] {
        let bench = dir.path().join(name);
        let mut copies = Copies::new(&format!("swt_gz{name}"));
        let ns = copies.add(kind, &url, "shop");
        run(&mut import_command(
            kind, &url, dump, &bench, "shop", &copies,
        ));
        let report = json(&bench.join("database/import-report.json"));
        assert_eq!(report["databases"][0]["complete"], true, "{name}: {report}");
        loaded.push(rows(&url, &ns, &["shop", "item"]));
        // Importing again: nothing to do.
        let again = run(&mut import_command(
            kind, &url, dump, &bench, "shop", &copies,
        ));
        assert!(again.contains("nothing to do"), "{name}: {again}");
    }
    for other in &loaded[1..] {
        assert_eq!(&loaded[0], other);
    }
    assert!(!loaded[0][1].is_empty());
    // An archive, gzipped: refused, saying so.
    let archive = std::fs::read(fixture("shop_archive_postgres.tar")).unwrap();
    let tgz = dir.path().join("shop.tar.gz");
    std::fs::write(&tgz, gzipped(&archive)).unwrap();
    let stderr = refused(kind, &url, &tgz, &dir.path().join("bench_tgz"));
    assert!(stderr.contains("unpack it first"), "{stderr}");
}
