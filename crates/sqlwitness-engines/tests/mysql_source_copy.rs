//! The copy of a loaded MySQL / MariaDB dump on its own server, against
//! live servers: its foreign keys are added without rebuilding the tables,
//! except a key that a row of the dump breaks (a dump is loaded with
//! `FOREIGN_KEY_CHECKS=0`), which is refused and named; a key with a NULL
//! in it references nothing (MATCH SIMPLE), as the server's own check.
#![cfg(feature = "mysql")]

use std::time::Duration;

use sqlwitness_core::{SourceForeignKey, Stamp};
use sqlwitness_dialect::Adapter;
use sqlwitness_testkit::{for_each_server, unique_name};

const LIMIT: Duration = Duration::from_secs(30);

/// `(table, columns)` of each foreign key of database `db`, sorted.
fn foreign_keys(url: &str, db: &str) -> Vec<(String, String)> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use sqlx::Connection;
        let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
        sqlx::query_as(
            "SELECT CAST(TABLE_NAME AS CHAR), \
               CAST(GROUP_CONCAT(COLUMN_NAME ORDER BY ORDINAL_POSITION) AS CHAR) \
             FROM information_schema.KEY_COLUMN_USAGE \
             WHERE TABLE_SCHEMA = ? AND REFERENCED_TABLE_NAME IS NOT NULL \
             GROUP BY TABLE_NAME, CONSTRAINT_NAME ORDER BY 1, 2",
        )
        .bind(db)
        .fetch_all(&mut c)
        .await
        .unwrap()
    })
}

#[test]
fn a_copys_foreign_keys_are_added_unless_a_row_breaks_them() {
    let ran = for_each_server(Some(Adapter::Mysql), |kind, url| {
        let stamp = Stamp::new("t", "dump", "dump-load");
        let mut dump = sqlwitness_engines::open_dump_namespace(
            kind,
            url,
            &unique_name("sw_dump_fk"),
            &stamp,
            LIMIT,
            0,
        )
        .unwrap();
        for sql in [
            "SET FOREIGN_KEY_CHECKS = 0",
            "CREATE TABLE p (id int PRIMARY KEY, a int, b varchar(10), UNIQUE KEY (a, b)) ENGINE=InnoDB",
            "CREATE TABLE c (id int PRIMARY KEY, pid int, a int, b varchar(10), lost int, wide bigint, \
               FOREIGN KEY (pid) REFERENCES p (id), FOREIGN KEY (a, b) REFERENCES p (a, b), \
               FOREIGN KEY (lost) REFERENCES p (id)) ENGINE=InnoDB",
            "INSERT INTO p VALUES (1, 10, 'x'), (2, 20, 'y')",
            // Row 3: (a, b) holds a NULL, so references nothing although
            // (30, NULL) is no parent's; row 4: `lost` names no parent.
            "INSERT INTO c VALUES (1, 1, 10, 'x', 1, 1), (2, NULL, 20, 'y', NULL, 2), \
               (3, 2, 30, NULL, 2, 1), (4, 2, NULL, NULL, 99, 2)",
        ] {
            dump.run(sql.into(), LIMIT).unwrap();
        }
        dump.finish_load().unwrap();
        let schema = dump.schema().unwrap();
        let mut w = sqlwitness_engines::open_migrator(kind, url).unwrap();
        let target = unique_name("sw_copy_fk");
        w.create_namespace(&target, &stamp).unwrap();
        for t in &schema.tables {
            assert!(dump.copy_table(&target, t).unwrap().verified(), "{kind}");
        }
        let mut c = schema
            .tables
            .iter()
            .find(|t| t.name == "c")
            .unwrap()
            .clone();
        // And a key the server refuses (bigint against int): the others
        // are still added, each refusal its own key's.
        c.foreign_keys.push(SourceForeignKey {
            columns: vec!["wide".into()],
            parent_table: "p".into(),
            parent_columns: vec![Some("id".into())],
        });
        let outcomes = dump.copy_foreign_keys(&target, &c);
        assert_eq!(outcomes.len(), 4, "{kind}");
        for (fk, r) in c.foreign_keys.iter().zip(&outcomes) {
            match fk.columns.join(",").as_str() {
                "pid" | "a,b" => assert!(r.is_ok(), "{kind} {fk:?}: {r:?}"),
                "lost" => {
                    let e = r.as_ref().unwrap_err();
                    assert_eq!(e.message, "a row's key (99) matches no row of p", "{kind}");
                }
                "wide" => assert!(r.is_err(), "{kind}: {r:?}"),
                other => panic!("{kind}: key {other}"),
            }
        }
        assert_eq!(
            foreign_keys(url, &target),
            vec![
                ("c".to_string(), "a,b".to_string()),
                ("c".to_string(), "pid".to_string()),
            ],
            "{kind}"
        );
        w.drop_namespace(&target).unwrap();
        dump.close().unwrap();
    });
    assert!(ran > 0 || !sqlwitness_testkit::required());
}
