//! The denied functions against each server's own catalogue: every function
//! the catalogue flags (side effects, session or server state; the queries
//! are `scripts/denied-functions/*.sql`) must be denied by the dialect, by
//! name or family, or allowed with a reason (`allowed_functions`). A server
//! upgrade or an installed extension that brings a new one fails here until
//! the dialect file says what to do with it.

use sqlwitness_core::EngineKind;
use sqlwitness_dialect::{shipped, Adapter};

/// The query that flags functions on `kind`'s server.
fn query(kind: EngineKind) -> &'static str {
    match kind {
        EngineKind::Postgres => include_str!("../../../scripts/denied-functions/postgres.sql"),
        EngineKind::Mysql => include_str!("../../../scripts/denied-functions/mysql.sql"),
        EngineKind::Mariadb => include_str!("../../../scripts/denied-functions/mariadb.sql"),
        _ => unreachable!("no server"),
    }
}

/// `(name, why)` of every flagged function, from the server at `url`.
fn flagged(kind: EngineKind, url: &str) -> Vec<(String, String)> {
    use sqlx::Row;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let sql = sqlx::AssertSqlSafe(query(kind).to_string());
    rt.block_on(async {
        match shipped(kind).adapter {
            Adapter::Postgres => {
                let pool = sqlx::postgres::PgPoolOptions::new()
                    .max_connections(1)
                    .connect(url)
                    .await
                    .unwrap();
                let rows = sqlx::raw_sql(sql).fetch_all(&pool).await.unwrap();
                rows.iter()
                    .map(|r| (r.get::<String, _>(0), r.get::<String, _>(1)))
                    .collect()
            }
            _ => {
                let pool = sqlx::mysql::MySqlPoolOptions::new()
                    .max_connections(1)
                    .connect(url)
                    .await
                    .unwrap();
                let rows = sqlx::raw_sql(sql).fetch_all(&pool).await.unwrap();
                // GROUP_CONCAT may come back as bytes.
                let text = |r: &sqlx::mysql::MySqlRow, i: usize| {
                    r.try_get::<String, _>(i).unwrap_or_else(|_| {
                        String::from_utf8_lossy(&r.get::<Vec<u8>, _>(i)).into_owned()
                    })
                };
                rows.iter().map(|r| (text(r, 0), text(r, 1))).collect()
            }
        }
    })
}

#[test]
fn every_flagged_function_is_denied_or_allowed_with_a_reason() {
    let ran = sqlwitness_testkit::for_each_server(None, |kind, url| {
        let dialect = shipped(kind);
        let flagged = flagged(kind, url);
        assert!(
            !flagged.is_empty(),
            "{kind}: the catalogue query found nothing"
        );
        let (mut denied, mut allowed) = (0, 0);
        let mut neither = Vec::new();
        for (name, why) in &flagged {
            if dialect.denies_function(name) {
                denied += 1;
            } else if dialect
                .allowed_functions
                .contains_key(&name.to_ascii_lowercase())
            {
                allowed += 1;
            } else {
                neither.push(format!("{name} ({why})"));
            }
        }
        eprintln!(
            "{kind}: {} functions flagged: {denied} denied, {allowed} allowed",
            flagged.len()
        );
        assert!(
            neither.is_empty(),
            "{kind}: flagged by the catalogue, neither denied nor allowed in dialects/{}.yaml:\n{}",
            dialect.name,
            neither.join("\n")
        );
    });
    eprintln!("{ran} servers checked");
}

#[test]
fn the_functions_of_the_attacks_are_flagged_by_the_catalogue() {
    // The derivation, not only the list: the functions that wrote WAL,
    // notified and allocated transaction ids from the read-only login are
    // among those the PostgreSQL query flags.
    let Some(url) = sqlwitness_testkit::server_url(EngineKind::Postgres) else {
        return;
    };
    let names: Vec<String> = flagged(EngineKind::Postgres, &url)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    for f in [
        "pg_logical_emit_message",
        "pg_notify",
        "txid_current",
        "pg_current_xact_id",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "set_config",
        "pg_advisory_lock",
        "query_to_xml",
        "current_setting",
        "pg_read_file",
    ] {
        assert!(names.iter().any(|n| n == f), "{f} is not flagged");
    }
}
