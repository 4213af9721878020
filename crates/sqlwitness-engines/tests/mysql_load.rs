//! The MySQL / MariaDB migrator's load against live servers: the rows read
//! back are exactly the rows sent (NULLs, escapes, bytes, floats, dates),
//! through `LOAD DATA LOCAL INFILE` where the server allows it and through
//! `INSERT`s where it does not, and a row the server would change or skip
//! makes the load an error that stores nothing.
#![cfg(feature = "mysql")]

use sqlwitness_core::{
    ColumnDef, DbError, Migrator, RowSource, Stamp, TableDef, TargetKind, Value,
};
use sqlwitness_dialect::Adapter;
use sqlwitness_engines::open_migrator;
use sqlwitness_testkit::{for_each_server, unique_name};

struct Rows {
    batches: Vec<Vec<Vec<Value>>>,
    at: usize,
}

impl RowSource for Rows {
    fn next_batch(&mut self) -> Result<Option<&[Vec<Value>]>, DbError> {
        self.at += 1;
        Ok(self.batches.get(self.at - 1).map(Vec::as_slice))
    }
}

fn rows(batches: Vec<Vec<Vec<Value>>>) -> Rows {
    Rows { batches, at: 0 }
}

fn column(name: &str, kind: TargetKind, sql_type: &str) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        kind,
        sql_type: sql_type.into(),
        not_null: false,
    }
}

fn table(name: &str, columns: Vec<ColumnDef>, primary_key: &[&str]) -> TableDef {
    TableDef {
        name: name.into(),
        columns,
        primary_key: primary_key.iter().map(|c| c.to_string()).collect(),
        foreign_keys: Vec::new(),
    }
}

fn tricky_rows() -> Vec<Vec<Value>> {
    let text = |s: &str| Value::Text(s.to_string());
    vec![
        vec![
            Value::Int(1),
            text("tab\there, newline\nthere, back\\slash, cr\r, nul\0, quote ' \""),
            Value::Bytes(vec![0, 9, 10, 13, 92, 78, 255, 128]),
            Value::Float(0.1),
            Value::Date("2020-02-29".into()),
            text("Ünïcødé ✓"),
        ],
        vec![
            Value::Int(2),
            text("\\N"),
            Value::Bytes(Vec::new()),
            Value::Float(1e300),
            Value::Null,
            text("NULL"),
        ],
        vec![
            Value::Int(i64::MIN),
            text(""),
            Value::Null,
            Value::Float(-2.5e-300),
            Value::Date("0001-01-01".into()),
            Value::Null,
        ],
        vec![
            Value::Int(i64::MAX),
            Value::Null,
            Value::Bytes(b"\\t".to_vec()),
            Value::Float(123_456.789),
            Value::Date("9999-12-31".into()),
            text("  padded  "),
        ],
    ]
}

fn tricky_table() -> TableDef {
    table(
        "t",
        vec![
            column("id", TargetKind::Integer, "BIGINT"),
            column("txt", TargetKind::Text, "LONGTEXT"),
            column("bin", TargetKind::Blob, "LONGBLOB"),
            column("f", TargetKind::Real, "DOUBLE"),
            column("d", TargetKind::Date, "DATE"),
            column("v", TargetKind::Text, "VARCHAR(20)"),
        ],
        &["id"],
    )
}

fn read(m: &mut dyn Migrator, ns: &str, t: &TableDef) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    m.read_back(ns, t, &mut |row| out.push(row.to_vec()))
        .unwrap();
    out.sort_by_key(|r| match r[0] {
        Value::Int(i) => i,
        _ => 0,
    });
    out
}

/// Whether the server allows `LOAD DATA LOCAL INFILE`.
fn local_infile(url: &str) -> bool {
    use sqlx::Connection;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
        sqlx::query_scalar::<_, i64>("SELECT IF(@@global.local_infile, 1, 0)")
            .fetch_one(&mut c)
            .await
            .unwrap()
            == 1
    })
}

#[test]
fn loads_store_exactly_the_rows_sent() {
    for_each_server(Some(Adapter::Mysql), |kind, url| {
        let mut m = open_migrator(kind, url).unwrap();
        let ns = unique_name("h_load");
        m.create_namespace(&ns, &Stamp::new("t", "source", "plan"))
            .unwrap();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let t = tricky_table();
            m.create_table(&ns, &t, true).unwrap();
            let mut sent = tricky_rows();
            let (first, second) = sent.split_at(1);
            let loaded = m
                .load(&ns, &t, &mut rows(vec![first.to_vec(), second.to_vec()]))
                .unwrap();
            assert_eq!(loaded.rows, 4, "{kind}");
            let note = loaded.note.unwrap_or_default();
            let method = if local_infile(url) {
                "with LOAD DATA LOCAL INFILE"
            } else {
                "as multi-row INSERTs: the server has local_infile=OFF"
            };
            assert!(note.contains(method), "{kind}: {note}");
            sent.sort_by_key(|r| match r[0] {
                Value::Int(i) => i,
                _ => 0,
            });
            let back = read(&mut *m, &ns, &t);
            for (b, s) in back.iter().zip(&sent) {
                for (i, (bv, sv)) in b.iter().zip(s).enumerate() {
                    match (bv, sv) {
                        (Value::Float(x), Value::Float(y)) => {
                            assert_eq!(x.to_bits(), y.to_bits(), "{kind} ({note}): column {i}")
                        }
                        _ => assert_eq!(bv, sv, "{kind} ({note}): column {i}"),
                    }
                }
            }
            assert_eq!(back.len(), sent.len());

            // A value the column cannot hold, and a repeated key: errors,
            // and nothing of either load stays.
            let short = table(
                "short",
                vec![
                    column("id", TargetKind::Integer, "BIGINT"),
                    column("v", TargetKind::Text, "VARCHAR(3)"),
                ],
                &["id"],
            );
            m.create_table(&ns, &short, true).unwrap();
            let ok = vec![Value::Int(1), Value::Text("abc".into())];
            let long = vec![Value::Int(2), Value::Text("abcd".into())];
            let again = vec![Value::Int(1), Value::Text("xyz".into())];
            for bad in [long, again] {
                let r = m.load(&ns, &short, &mut rows(vec![vec![ok.clone(), bad]]));
                assert!(r.is_err(), "{kind}: {r:?}");
                assert!(read(&mut *m, &ns, &short).is_empty(), "{kind}");
            }
            let nan = vec![Value::Int(3), Value::Float(f64::NAN)];
            let float = table(
                "float",
                vec![
                    column("id", TargetKind::Integer, "BIGINT"),
                    column("f", TargetKind::Real, "DOUBLE"),
                ],
                &[],
            );
            m.create_table(&ns, &float, false).unwrap();
            let many: Vec<Vec<Value>> = (0..50_000)
                .map(|i| vec![Value::Int(i), Value::Float(i as f64 / 3.0)])
                .collect();
            let r = m.load(&ns, &float, &mut rows(vec![many, vec![nan]]));
            assert!(r.is_err(), "{kind}: {r:?}");
            assert!(read(&mut *m, &ns, &float).is_empty(), "{kind}");
        }));
        m.drop_namespace(&ns).unwrap();
        if let Err(p) = outcome {
            std::panic::resume_unwind(p);
        }
    });
}

/// An administrative URL that names no database loads the same way (the
/// bulk loader's probe runs in the copy's own namespace).
#[test]
fn a_url_without_a_database_loads_the_same_way() {
    for_each_server(Some(Adapter::Mysql), |kind, url| {
        let mut bare = url::Url::parse(url).unwrap();
        bare.set_path("");
        let mut m = open_migrator(kind, bare.as_str()).unwrap();
        let ns = unique_name("h_load");
        m.create_namespace(&ns, &Stamp::new("t", "source", "plan"))
            .unwrap();
        let t = table(
            "one",
            vec![column("id", TargetKind::Integer, "BIGINT")],
            &["id"],
        );
        let loaded = m
            .create_table(&ns, &t, true)
            .and_then(|()| m.load(&ns, &t, &mut rows(vec![vec![vec![Value::Int(7)]]])));
        m.drop_namespace(&ns).unwrap();
        let loaded = loaded.unwrap();
        assert_eq!(loaded.rows, 1, "{kind}");
        let note = loaded.note.unwrap_or_default();
        assert_eq!(
            note.contains("with LOAD DATA LOCAL INFILE"),
            local_infile(url),
            "{kind}: {note}"
        );
    });
}
