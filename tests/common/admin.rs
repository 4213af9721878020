//! The administrative login of a test server, for setting up and checking
//! what a test must not touch (shared by the integration tests that need
//! it: `#[path = "common/admin.rs"] mod admin;`).

#![allow(dead_code)]

use sqlx::Executor;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Runs `sql` (several statements) over the administrative login at `url`.
pub fn exec(url: &str, sql: &str) {
    runtime().block_on(async {
        if url.starts_with("postgres") {
            let pool = sqlx::postgres::PgPoolOptions::new()
                .max_connections(1)
                .connect(url)
                .await
                .unwrap();
            pool.execute(sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string())))
                .await
                .unwrap();
        } else {
            let pool = sqlx::mysql::MySqlPoolOptions::new()
                .max_connections(1)
                .connect(url)
                .await
                .unwrap();
            pool.execute(sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string())))
                .await
                .unwrap();
        }
    });
}

/// The first column of the first row of `sql` (a count), as an integer.
pub fn count(url: &str, sql: &str) -> i64 {
    runtime().block_on(async {
        if url.starts_with("postgres") {
            let mut c = <sqlx::PgConnection as sqlx::Connection>::connect(url)
                .await
                .unwrap();
            sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql.to_string()))
                .fetch_one(&mut c)
                .await
                .unwrap()
        } else {
            let mut c = <sqlx::MySqlConnection as sqlx::Connection>::connect(url)
                .await
                .unwrap();
            sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql.to_string()))
                .fetch_one(&mut c)
                .await
                .unwrap()
        }
    })
}

/// The first column of every row of `sql`, each as text (select it as
/// text), in the order the server returns them.
pub fn texts(url: &str, sql: &str) -> Vec<String> {
    runtime().block_on(async {
        if url.starts_with("postgres") {
            let mut c = <sqlx::PgConnection as sqlx::Connection>::connect(url)
                .await
                .unwrap();
            sqlx::query_scalar::<_, String>(sqlx::AssertSqlSafe(sql.to_string()))
                .fetch_all(&mut c)
                .await
                .unwrap()
        } else {
            let mut c = <sqlx::MySqlConnection as sqlx::Connection>::connect(url)
                .await
                .unwrap();
            sqlx::query_scalar::<_, String>(sqlx::AssertSqlSafe(sql.to_string()))
                .fetch_all(&mut c)
                .await
                .unwrap()
        }
    })
}
